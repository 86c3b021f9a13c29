//! The `[promotion]` table of a run configuration (`[gate]` in runs made before the
//! rename): how a candidate network is tested against the run's best.

use crate::elo::SprtConfig;
use crate::matches::Adjudication;
use models::{DeviceChoice, Precision};
use search::SearchConfig;
use serde::{Deserialize, Serialize};
use settings::check::{count, require};
use settings::ConfigError;
use std::path::PathBuf;

/// How a candidate network is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromotionMode {
    /// Sequential probability ratio test (stops as soon as it decides; see `sprt`). If it
    /// has not decided after `games`, the candidate passes when its score reaches
    /// `score_threshold`.
    #[default]
    Sprt,
    /// Exactly `games` games; the candidate passes when its score reaches
    /// `score_threshold` (AlphaGo Zero: 400 games, 0.55).
    Fixed,
    /// No games: every candidate becomes the best network (AlphaZero's continuous update).
    Always,
    /// A regression check: exactly `games` games, and the candidate passes unless it
    /// clearly lost (the 95% interval of its Elo lies below 0). Cheap insurance against
    /// a collapse, without holding back a candidate that is merely not proven better.
    Regression,
}

impl PromotionMode {
    pub const ALL: [PromotionMode; 4] =
        [PromotionMode::Sprt, PromotionMode::Fixed, PromotionMode::Always, PromotionMode::Regression];

    /// Its name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PromotionMode::Sprt => "sprt",
            PromotionMode::Fixed => "fixed",
            PromotionMode::Always => "always",
            PromotionMode::Regression => "regression",
        }
    }
}

impl std::fmt::Display for PromotionMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for PromotionMode {
    type Err = String;

    fn from_str(s: &str) -> Result<PromotionMode, String> {
        PromotionMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown promotion mode {s:?} (sprt, fixed, always or regression)"))
    }
}

/// Network gating: the test a new network must pass before it replaces the run's best
/// network (which self-play uses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PromotionConfig {
    /// The test: `sprt` (default), `fixed`, `regression` or `always` (see [`PromotionMode`]).
    pub mode: PromotionMode,
    /// Games at most (SPRT) or exactly (fixed); rounded up to whole pairs, since each
    /// opening is played with both colours.
    pub games: usize,
    /// Score (points per game, 0..1) the candidate needs in `fixed` mode, and in `sprt`
    /// mode when the test is still undecided after `games`. Set it above 1 to reject
    /// every undecided SPRT.
    pub score_threshold: f64,
    /// SPRT hypotheses in logistic Elo of the candidate over the best network, and its
    /// error rates (pentanomial GSPRT, as fishtest).
    pub sprt: SprtConfig,
    /// MCTS playouts per move for both networks.
    pub nodes: u64,
    /// Search parameters for both networks (no noise, no temperature: best move played).
    pub search: SearchConfig,
    /// Keep each player's search tree between its moves.
    pub reuse_tree: bool,
    /// Worker threads (0 = one per CPU core).
    pub concurrency: usize,
    /// libtorch threads of each worker's network calls (0 = libtorch's default, one per
    /// core). On a small CPU, 1: the promotion stage then takes one core, not all of them.
    pub torch_threads: usize,
    /// Games in flight per worker; their searches' leaves are evaluated in one batch per
    /// network (GPU: use hundreds; CPU: tens).
    pub games_in_flight: usize,
    /// Openings (EPD/FEN file); without one, `random_plies` random moves from the start.
    pub openings: Option<PathBuf>,
    /// Random plies of a generated opening.
    pub random_plies: u32,
    /// Seeds the openings; mixed with the candidate's training step, so every test sees
    /// fresh but reproducible openings.
    pub seed: u64,
    /// Length limit and resignation (by default a game is resigned when both networks'
    /// own searches give the loser an expected score of -0.95 or worse for 4 moves each).
    pub adjudication: Adjudication,
    /// Where the networks run.
    pub device: DeviceChoice,
    /// Network precision: `auto` (bf16 on CUDA, f32 on CPU), `f32` or `bf16`.
    pub precision: Precision,
    /// Evaluation cache entries per network.
    pub cache_entries: usize,
    /// Keep the games as `gate/<time>-<candidate>.pgn` in the run directory.
    pub save_pgn: bool,
    /// The rules the test's games are played under. Not a field of the `[promotion]` table:
    /// the run's `selfplay.variant` sets it when the run config is read, so that the test
    /// always tests networks on the rules they learn.
    #[serde(skip)]
    pub variant: schess::Variant,
}

impl Default for PromotionConfig {
    fn default() -> Self {
        PromotionConfig {
            mode: PromotionMode::Sprt,
            games: 400,
            score_threshold: 0.55,
            sprt: SprtConfig::default(),
            nodes: 200,
            search: SearchConfig::default(),
            reuse_tree: true,
            concurrency: 0,
            torch_threads: 0,
            games_in_flight: 32,
            openings: None,
            random_plies: 8,
            seed: 0,
            adjudication: Adjudication { max_plies: 400, resign_score: 0.95, resign_moves: 4 },
            device: DeviceChoice::Auto,
            precision: Precision::Auto,
            cache_entries: 200_000,
            save_pgn: true,
            variant: schess::Variant::Seirawan,
        }
    }
}

impl PromotionConfig {
    /// Test games played at once (`concurrency`, or one per core for 0).
    pub fn workers(&self) -> usize {
        settings::threads_or_cores(self.concurrency)
    }

    /// Checks values serde cannot.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.search.validate().map_err(|e| e.within("search"))?;
        if self.mode != PromotionMode::Always {
            count("games", self.games as u64, 1_000_000)?;
            count("nodes", self.nodes, 10_000_000)?;
        }
        if self.mode == PromotionMode::Sprt {
            self.sprt.validate().map_err(|e| e.within("sprt"))?;
        }
        let threshold = self.score_threshold;
        require((0.0..=1.0).contains(&threshold), "score_threshold", "in [0, 1]", threshold)?;
        let resign = self.adjudication.resign_score;
        require((0.0..1.0).contains(&resign), "adjudication.resign_score", "in [0, 1) (0 disables)", resign)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_modes_round_trip_their_names() {
        for m in PromotionMode::ALL {
            assert_eq!(m.to_string().parse::<PromotionMode>(), Ok(m));
            let toml_form: PromotionConfig = toml::from_str(&format!("mode = \"{m}\"")).unwrap();
            assert_eq!(toml_form.mode, m);
        }
        assert!("Sprt".parse::<PromotionMode>().is_err());
    }

    #[test]
    fn serde_defaults_and_unknown_fields() {
        let c: PromotionConfig =
            serde_json::from_str(r#"{"mode": "fixed", "games": 10, "sprt": {"elo1": 5.0}}"#).unwrap();
        assert_eq!(c.mode, PromotionMode::Fixed);
        assert_eq!(c.games, 10);
        assert_eq!(c.sprt.elo1, 5.0);
        assert_eq!(c.sprt.alpha, SprtConfig::default().alpha);
        assert!(serde_json::from_str::<PromotionConfig>(r#"{"gams": 10}"#).is_err());
        assert!(PromotionConfig::default().validate().is_ok());
        let bad = PromotionConfig {
            sprt: SprtConfig { elo0: 5.0, elo1: 0.0, ..SprtConfig::default() },
            ..PromotionConfig::default()
        };
        assert!(bad.validate().is_err());
    }
}
