//! A run's strength curve: each of its networks against fixed reference players ("rungs")
//! at a fixed search budget, each opening played with both colours, with pentanomial Elo.
//!
//! The networks are the run's generation 0 (`initial.safetensors`), every promoted
//! network in promotion order and, optionally, every candidate the trainer wrote. Their
//! time axis is the minutes between the run's start (the generation-0 file) and the
//! network file's own modification time.
//!
//! Results are cached in the ladder's JSON file by (network file, rung, settings), so a
//! ladder that is run again (after more training, or after an interruption) plays only
//! what it has not measured yet.

use crate::elo::{EloEstimate, Pentanomial, Wdl};
use crate::matches::openings::OpeningBook;
use crate::matches::{Adjudication, MatchConfig, MatchReport};
use crate::players::{MctsSpec, PlayerFactory, PlayerSpec};
use schess::Variant;
use search::{RootMode, SearchConfig};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// The reference players of a default ladder, weakest first.
pub const DEFAULT_RUNGS: [&str; 6] = [
    "random",
    "greedy",
    "mcts-material:nodes=200,root=gumbel",
    "uci:cmd=fairy-stockfish,depth=1",
    "uci:cmd=fairy-stockfish,depth=2",
    "uci:cmd=fairy-stockfish,depth=3",
];

/// How every point of a ladder is played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LadderSettings {
    /// Playouts per move of the networks.
    pub nodes: u64,
    /// Games per point (rounded up to pairs).
    pub games: usize,
    /// Random plies of each opening (the same openings for every point).
    pub random_plies: u32,
    /// Draw after this many plies.
    pub max_plies: u32,
    /// Seed of the openings.
    pub seed: u64,
    /// Root search of the networks: `gumbel` or `puct`.
    pub root: RootMode,
    /// Share of a material head in the networks' value, instead of each one's own.
    pub material_mix: Option<f32>,
    /// The rules of the games (the run's `selfplay.variant`; ladders from before the
    /// field were all `seirawan`).
    #[serde(default = "seirawan")]
    pub variant: String,
}

fn seirawan() -> String {
    Variant::Seirawan.name().into()
}

impl Default for LadderSettings {
    fn default() -> Self {
        LadderSettings {
            nodes: 200,
            games: 100,
            random_plies: 6,
            max_plies: 300,
            seed: 1,
            root: RootMode::Gumbel,
            variant: seirawan(),
            material_mix: None,
        }
    }
}

/// A network of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LadderNetwork {
    /// `initial`, `gen N` or the candidate's file stem.
    pub label: String,
    pub path: PathBuf,
    /// Its generation, if it was (or is) the run's best network.
    pub generation: Option<u32>,
    /// Trainer step of its weights.
    pub training_step: u64,
    /// Minutes of running (pauses between a kill and a resume left out, see
    /// `runstore::clock`) from the run's start to the file's creation.
    pub minutes: f64,
}

/// One network against one rung.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LadderPoint {
    pub network: LadderNetwork,
    /// The rung's spec string.
    pub rung: String,
    pub settings: LadderSettings,
    /// The network's results.
    pub wdl: Wdl,
    pub pentanomial: Pentanomial,
    pub score: f64,
    pub elo: EloEstimate,
    pub seconds: f64,
}

impl LadderNetwork {
    /// A network of a run (its label, file, generation and minutes on the run's clock, as
    /// `runstore` lists them), with the trainer step its file records.
    pub fn read(label: String, path: PathBuf, generation: Option<u32>, minutes: f64) -> anyhow::Result<LadderNetwork> {
        let meta = models::checkpoint::read_metadata(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(LadderNetwork { label, path, generation, training_step: meta.training_step, minutes })
    }
}

/// Plays `network` against `rung` (a player spec) under `settings`; `concurrency` worker
/// threads with `games_in_flight` games each.
pub fn play_point(
    network: &LadderNetwork,
    rung: &str,
    settings: &LadderSettings,
    concurrency: usize,
    games_in_flight: usize,
    stop: &AtomicBool,
) -> anyhow::Result<LadderPoint> {
    let spec = PlayerSpec::Mcts(MctsSpec {
        model: Some(network.path.clone()),
        nodes: settings.nodes,
        material_mix: settings.material_mix,
        search: SearchConfig { root_mode: settings.root, ..SearchConfig::default() },
        name: Some(network.label.replace(' ', "-")),
        ..MctsSpec::default()
    });
    let net = PlayerFactory::new(spec)?;
    let rung_spec: PlayerSpec = rung.parse().map_err(|e| anyhow::anyhow!("rung {rung:?}: {e}"))?;
    let opponent = PlayerFactory::new(rung_spec)?;
    let report = play_factories(&net, &opponent, settings, concurrency, games_in_flight, stop)?;
    anyhow::ensure!(report.wdl.games() > 0, "no game finished against {rung}");
    Ok(LadderPoint {
        network: network.clone(),
        rung: rung.to_string(),
        settings: settings.clone(),
        wdl: report.wdl,
        pentanomial: report.pentanomial,
        score: report.wdl.score(),
        elo: report.elo,
        seconds: report.elapsed.as_secs_f64(),
    })
}

/// A batched match of two players under ladder settings (a search side is batched, any
/// other player is asked directly).
pub fn play_factories(
    first: &PlayerFactory,
    second: &PlayerFactory,
    settings: &LadderSettings,
    concurrency: usize,
    games_in_flight: usize,
    stop: &AtomicBool,
) -> anyhow::Result<MatchReport> {
    let variant = Variant::from_name(&settings.variant)
        .ok_or_else(|| anyhow::anyhow!("ladder settings: unknown variant {:?}", settings.variant))?;
    let book = OpeningBook::Random { variant, plies: settings.random_plies, seed: settings.seed };
    let cfg = MatchConfig {
        games: settings.games,
        concurrency: concurrency.max(1),
        adjudication: Adjudication { max_plies: settings.max_plies, ..Adjudication::default() },
        sprt: None,
        pgn: None,
        event: format!("szero ladder {} vs {}", first.name(), second.name()),
        seed: settings.seed,
        torch_threads: 1,

        ..MatchConfig::default()
    };
    Ok(crate::matches::play(first, second, &book, &cfg, games_in_flight.max(2), stop, &mut |_| {})?)
}

/// A ladder's points, with the cache rule: a point is reused when its network file,
/// rung and settings are the same.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Ladder {
    pub points: Vec<LadderPoint>,
}

impl Ladder {
    /// Reads `path`, or an empty ladder when it does not exist.
    pub fn load(path: &Path) -> anyhow::Result<Ladder> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Ladder::default()),
            Err(e) => Err(anyhow::anyhow!("{}: {e}", path.display())),
        }
    }

    /// Writes the ladder atomically.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        models::io::write_atomic(path, text.as_bytes()).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// The measured point of `network` against `rung` under `settings`, if any.
    pub fn find(&self, network: &LadderNetwork, rung: &str, settings: &LadderSettings) -> Option<&LadderPoint> {
        self.points.iter().find(|p| p.network.path == network.path && p.rung == rung && &p.settings == settings)
    }

    /// Adds (or replaces) a point.
    pub fn put(&mut self, point: LadderPoint) {
        self.points.retain(|p| {
            !(p.network.path == point.network.path && p.rung == point.rung && p.settings == point.settings)
        });
        self.points.push(point);
    }

    /// A Markdown table: one row per network, one column per rung (score, Elo and its
    /// 95% interval).
    pub fn markdown(&self, networks: &[LadderNetwork], rungs: &[String], settings: &LadderSettings) -> String {
        let mut s = format!(
            "Networks at {} nodes ({} root) against each rung{}: {} games per cell, openings of {} random plies played with both colours; \
             score and pentanomial Elo of the network with its 95% interval.\n\n",
            settings.nodes,
            match settings.root {
                RootMode::Gumbel => "Gumbel",
                RootMode::Puct => "PUCT",
            },
            if settings.variant == seirawan() { String::new() } else { format!(" under {}", settings.variant) },
            settings.games.div_ceil(2) * 2,
            settings.random_plies
        );
        s.push_str("| network | step | minutes |");
        for r in rungs {
            s.push_str(&format!(" {r} |"));
        }
        s.push_str("\n|---|---|---|");
        s.push_str(&"---|".repeat(rungs.len()));
        s.push('\n');
        for n in networks {
            s.push_str(&format!("| {} | {} | {:.0} |", n.label, n.training_step, n.minutes));
            for r in rungs {
                match self.find(n, r, settings) {
                    Some(p) => s.push_str(&format!(
                        " {:.1}% ({:+.0} [{:+.0}, {:+.0}]) |",
                        100.0 * p.score,
                        p.elo.elo,
                        p.elo.elo_lo,
                        p.elo.elo_hi
                    )),
                    None => s.push_str(" - |"),
                }
            }
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn save_net(path: &Path, step: u64) {
        let cfg = models::net_config(1, 8, 2);
        let net = models::Net::new(cfg, tch::Device::Cpu).unwrap();
        models::checkpoint::save(&net, path, models::FORMAT_VERSIONS, step).unwrap();
    }

    #[test]
    fn lists_a_runs_networks_and_caches_points() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let all: Vec<LadderNetwork> = [(0, "initial"), (100, "step-000000100"), (200, "step-000000200")]
            .into_iter()
            .map(|(step, label)| {
                let path = run.join(format!("{label}.safetensors"));
                save_net(&path, step);
                LadderNetwork::read(label.into(), path, None, step as f64 / 10.0).unwrap()
            })
            .collect();
        assert_eq!(all.iter().map(|n| n.training_step).collect::<Vec<_>>(), [0, 100, 200]);
        let settings =
            LadderSettings { nodes: 4, games: 2, max_plies: 20, random_plies: 2, ..LadderSettings::default() };
        let stop = AtomicBool::new(false);
        let p = play_point(&all[1], "random", &settings, 1, 2, &stop).unwrap();
        assert_eq!(p.wdl.games(), 2);
        let mut ladder = Ladder::default();
        ladder.put(p.clone());
        ladder.put(p);
        assert_eq!(ladder.points.len(), 1);
        assert!(ladder.find(&all[1], "random", &settings).is_some());
        assert!(ladder.find(&all[1], "greedy", &settings).is_none());
        let file = run.join("ladder.json");
        ladder.save(&file).unwrap();
        let back = Ladder::load(&file).unwrap();
        assert_eq!(back.points.len(), 1);
        let (a, b) = (&back.points[0], &ladder.points[0]);
        assert_eq!(
            (&a.network.path, &a.rung, &a.settings, a.wdl, a.pentanomial),
            (&b.network.path, &b.rung, &b.settings, b.wdl, b.pentanomial)
        );
        assert!(back.find(&all[1], "random", &settings).is_some(), "read back, the point is found again");
        let md = back.markdown(&all, &["random".into()], &settings);
        assert!(md.contains("| step-000000100 | 100 |"), "{md}");
        let e = LadderNetwork::read("x".into(), run.join("nowhere"), None, 0.0).unwrap_err().to_string();
        assert!(e.contains("nowhere"), "{e}");

        // A run of another variant plays its points under its rules; settings that differ
        // only in the variant are another point.
        let placement = LadderSettings { variant: Variant::Placement.name().into(), ..settings.clone() };
        let p = play_point(&all[1], "random", &placement, 1, 2, &stop).unwrap();
        assert_eq!(p.wdl.games(), 2);
        assert!(back.find(&all[1], "random", &placement).is_none());
        assert!(back.markdown(&all, &["random".into()], &placement).contains("under seirawan-placement"));
        let bad = LadderSettings { variant: "xiangqi".into(), ..settings };
        let e = play_point(&all[1], "random", &bad, 1, 2, &stop).unwrap_err().to_string();
        assert!(e.contains("xiangqi"), "{e}");
    }
}
