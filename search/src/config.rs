//! Search settings (the `search` tables of the run config: `[selfplay.search]`,
//! `[gate.search]`). The error and checks every config table words its messages with are
//! the `settings` crate's, re-exported here for the search's own tables.

pub use settings::{check, ConfigError};

use check::{count, non_negative, positive, unit};
use serde::{Deserialize, Serialize};

/// How the root chooses which moves to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RootMode {
    /// PUCT with Dirichlet noise (AlphaZero / lc0).
    #[default]
    Puct,
    /// Gumbel-top-k with sequential halving (Danihelka et al. 2022); better at low
    /// simulation counts; its policy target comes from completed Q-values.
    Gumbel,
}

impl RootMode {
    /// Its name in configs, player specs and UCI options.
    pub fn name(self) -> &'static str {
        match self {
            RootMode::Puct => "puct",
            RootMode::Gumbel => "gumbel",
        }
    }
}

impl std::str::FromStr for RootMode {
    type Err = String;

    fn from_str(s: &str) -> Result<RootMode, String> {
        match s.to_ascii_lowercase().as_str() {
            "puct" => Ok(RootMode::Puct),
            "gumbel" => Ok(RootMode::Gumbel),
            _ => Err(format!("unknown root search '{s}' (expected puct or gumbel)")),
        }
    }
}

/// The most leaves one evaluator call of a lone search takes ([`SearchConfig::minibatch`]).
pub const MAX_MINIBATCH: usize = 256;

/// MCTS parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this
    /// times the square root of the visited children's total prior (lc0's FPU reduction).
    pub fpu_reduction: f32,
    /// Same at the root (noise makes the root's priors less trustworthy).
    pub fpu_reduction_root: f32,
    pub root_mode: RootMode,
    /// Dirichlet noise weight at the root (PUCT mode, full searches only).
    pub noise_epsilon: f32,
    /// Dirichlet alpha for a position with `noise_alpha_moves` legal moves; scaled by
    /// `noise_alpha_moves / legal moves` for others.
    pub noise_alpha: f32,
    pub noise_alpha_moves: f32,
    /// Gumbel: actions sampled at the root (m in the paper).
    pub gumbel_actions: usize,
    /// Gumbel: sigma(q) = (c_visit + max N) * c_scale * q (mctx: 50 and 0.1). With 16
    /// simulations the largest logit boost is then about 6.6, so the policy target
    /// follows clear value differences without turning one-visit noise into a one-hot.
    pub gumbel_c_visit: f32,
    pub gumbel_c_scale: f32,
    /// Gumbel: rescale the completed Q-values to [0, 1] by their minimum and maximum at
    /// the root before sigma (mctx's default), so that the transform does not depend on
    /// how far from even the position is; off maps [-1, 1] to [0, 1] linearly.
    pub gumbel_rescale_q: bool,
    /// KataGo's forced playouts at the root (k in n_forced = sqrt(k P N)), and pruning of
    /// them from the policy target; 0 disables both.
    pub forced_playouts_k: f32,
    /// MCTS-solver (Winands et al. 2008; lc0's certainty propagation): a position whose
    /// result the tree has proven (a mate found below it, or every move proven) is not
    /// evaluated again but backs up its exact result, a proven win at the root is played,
    /// and a proven loss is never chosen while another move is not.
    pub solver: bool,
    /// Material resolution at the leaves: each evaluated position's value is shifted by
    /// the material its side to move wins by captures ([`crate::exchange::resolve`]), so
    /// that a piece left hanging is seen without playouts spent on the capture, as a
    /// quiescence search would see it.
    pub resolve_captures: bool,
    /// Leaves a search running alone (UCI, analysis, a match player with a clock) selects
    /// together and evaluates in one call, kept apart by virtual loss (lc0's minibatch): a
    /// network evaluates a batch of 8 several times faster per position than one at a
    /// time. Searches of many games at once (self-play, batched matches) fill their
    /// batches from the games instead and take one leaf a tree.
    pub minibatch: usize,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            c_puct: 1.75,
            fpu_reduction: 0.3,
            fpu_reduction_root: 0.0,
            root_mode: RootMode::Puct,
            noise_epsilon: 0.25,
            noise_alpha: 0.3,
            noise_alpha_moves: 30.0,
            gumbel_actions: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            gumbel_rescale_q: true,
            forced_playouts_k: 2.0,
            solver: true,
            resolve_captures: false,
            minibatch: 1,
        }
    }
}

impl SearchConfig {
    /// Checks every setting.
    pub fn validate(&self) -> Result<(), ConfigError> {
        non_negative("c_puct", self.c_puct)?;
        non_negative("fpu_reduction", self.fpu_reduction)?;
        non_negative("fpu_reduction_root", self.fpu_reduction_root)?;
        unit("noise_epsilon", self.noise_epsilon)?;
        positive("noise_alpha", self.noise_alpha)?;
        positive("noise_alpha_moves", self.noise_alpha_moves)?;
        count("gumbel_actions", self.gumbel_actions as u64, 4096)?;
        non_negative("gumbel_c_visit", self.gumbel_c_visit)?;
        non_negative("gumbel_c_scale", self.gumbel_c_scale)?;
        non_negative("forced_playouts_k", self.forced_playouts_k)?;
        count("minibatch", self.minibatch as u64, MAX_MINIBATCH as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field_as_the_file_spells_it() {
        let e = SearchConfig { c_puct: -1.5, ..SearchConfig::default() }.validate().unwrap_err();
        assert_eq!(e, ConfigError::new("c_puct", "a finite number >= 0", -1.5));
        assert_eq!(
            e.within("search").within("selfplay").to_string(),
            "selfplay.search.c_puct must be a finite number >= 0, got -1.5"
        );
        SearchConfig::default().validate().unwrap();
    }
}
