//! Search settings (the `search` tables of the run config: `[selfplay.search]`,
//! `[gate.search]`) and the checks every config table of szero words its errors with.

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
        }
    }
}

impl SearchConfig {
    /// Checks every setting (`table` prefixes the field names in messages).
    pub fn validate(&self, table: &str) -> Result<(), String> {
        let f = |name: &str| format!("{table}.{name}");
        check::non_negative(&f("c_puct"), self.c_puct)?;
        check::non_negative(&f("fpu_reduction"), self.fpu_reduction)?;
        check::non_negative(&f("fpu_reduction_root"), self.fpu_reduction_root)?;
        check::unit(&f("noise_epsilon"), self.noise_epsilon)?;
        check::require(
            self.noise_alpha.is_finite() && self.noise_alpha > 0.0,
            &f("noise_alpha"),
            "a finite number > 0",
            self.noise_alpha,
        )?;
        check::require(
            self.noise_alpha_moves.is_finite() && self.noise_alpha_moves > 0.0,
            &f("noise_alpha_moves"),
            "a finite number > 0",
            self.noise_alpha_moves,
        )?;
        check::count(&f("gumbel_actions"), self.gumbel_actions as u64, 4096)?;
        check::non_negative(&f("gumbel_c_visit"), self.gumbel_c_visit)?;
        check::non_negative(&f("gumbel_c_scale"), self.gumbel_c_scale)?;
        check::non_negative(&f("forced_playouts_k"), self.forced_playouts_k)
    }
}

/// A configured thread count: `n`, or one per core for 0 (every `threads`,
/// `concurrency` and worker setting of szero's configs means that).
pub fn threads_or_cores(n: usize) -> usize {
    match n {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// The checks behind every `validate()` of szero's config tables, so that every rejected
/// value gets the same message: `TABLE.FIELD must be ALLOWED, got VALUE`.
pub mod check {
    /// `Err("TABLE.FIELD must be ALLOWED, got VALUE")` unless `ok`: the message every
    /// rejected value of these tables gets.
    pub fn require(ok: bool, field: &str, allowed: &str, value: impl std::fmt::Display) -> Result<(), String> {
        if ok {
            Ok(())
        } else {
            Err(format!("{field} must be {allowed}, got {value}"))
        }
    }

    pub fn unit(field: &str, v: f32) -> Result<(), String> {
        require((0.0..=1.0).contains(&v), field, "in [0, 1]", v)
    }

    pub fn non_negative(field: &str, v: f32) -> Result<(), String> {
        require(v.is_finite() && v >= 0.0, field, "a finite number >= 0", v)
    }

    pub fn count(field: &str, v: u64, max: u64) -> Result<(), String> {
        require((1..=max).contains(&v), field, &format!("at least 1 and at most {max}"), v)
    }
}
