//! Search and self-play settings (part of the run config's `[selfplay]` table).

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

/// How self-play scores a game that reaches `max_plies`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MaxLengthResult {
    /// A draw: pure self-play, the network learns from real game ends only.
    #[default]
    Draw,
    /// A win for the side whose live material (pawns; hand pieces while they can still be
    /// gated) leads by at least `material_margin`, else a draw. A bootstrap for small
    /// machines: games of a still-random network rarely end on their own, and a draw
    /// teaches nothing, while material is what such a network can learn first. It puts
    /// human piece values into the targets, so leave it off for a pure run.
    Material,
}

/// How self-play's worker threads share the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkSharing {
    /// `merged` on a GPU, `per-thread` on the CPU.
    #[default]
    Auto,
    /// One network; the threads' batches are merged into one call (what a GPU wants).
    Merged,
    /// One copy of the network per thread, each running its own batches.
    PerThread,
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

/// Self-play game settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    pub search: SearchConfig,
    /// Simulations of a full (recorded) search.
    pub simulations: u32,
    /// KataGo's playout cap randomization: this fraction of moves gets a full search and
    /// is recorded; the others get `fast_simulations`, no noise, and are not recorded.
    /// 1.0 records every move.
    pub full_search_fraction: f32,
    pub fast_simulations: u32,
    /// Moves chosen in proportion to visits^(1/temperature) during the first
    /// `temperature_plies` plies, then the most visited move.
    pub temperature: f32,
    pub temperature_plies: u32,
    /// Resign when the best move's expected score (win - loss) falls below -this.
    /// Values >= 1 disable resignation.
    pub resign_threshold: f32,
    /// Consecutive plies the resign condition must hold.
    pub resign_plies: u32,
    /// Fraction of games played out with resignation disabled (false-resign measurement).
    pub resign_disabled_fraction: f32,
    /// Stop a game after this many plies; `max_length_result` says how it is scored.
    pub max_plies: u32,
    pub max_length_result: MaxLengthResult,
    /// The material lead (in pawns) that wins a game adjudicated by material; at least
    /// 1 (0 is read as 1: a level balance is never a win).
    pub material_margin: u32,
    /// Games played at once by each worker thread (their leaves are batched together).
    pub games_per_thread: usize,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// How the threads share the network: `auto`, `merged` or `per-thread`.
    pub network_sharing: NetworkSharing,
    /// libtorch threads for each worker's network calls (0 = libtorch's default, one per
    /// core). On a CPU, 1 with one worker per core keeps every core busy without
    /// oversubscription: each worker alternates its own tree work and network call.
    pub torch_threads: usize,
    /// Games per shard file.
    pub games_per_shard: usize,
    /// Rule set: `seirawan` or `chess`.
    pub variant: String,
}

/// `Err("TABLE.FIELD must be ALLOWED, got VALUE")` unless `ok`: the message every
/// rejected value of these tables gets.
fn require(ok: bool, field: &str, allowed: &str, value: impl std::fmt::Display) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{field} must be {allowed}, got {value}"))
    }
}

fn unit(field: &str, v: f32) -> Result<(), String> {
    require((0.0..=1.0).contains(&v), field, "in [0, 1]", v)
}

fn non_negative(field: &str, v: f32) -> Result<(), String> {
    require(v.is_finite() && v >= 0.0, field, "a finite number >= 0", v)
}

fn count(field: &str, v: u64, max: u64) -> Result<(), String> {
    require((1..=max).contains(&v), field, &format!("at least 1 and at most {max}"), v)
}

impl SearchConfig {
    /// Checks every setting (`table` prefixes the field names in messages).
    pub fn validate(&self, table: &str) -> Result<(), String> {
        let f = |name: &str| format!("{table}.{name}");
        non_negative(&f("c_puct"), self.c_puct)?;
        non_negative(&f("fpu_reduction"), self.fpu_reduction)?;
        non_negative(&f("fpu_reduction_root"), self.fpu_reduction_root)?;
        unit(&f("noise_epsilon"), self.noise_epsilon)?;
        require(self.noise_alpha.is_finite() && self.noise_alpha > 0.0, &f("noise_alpha"), "a finite number > 0", self.noise_alpha)?;
        require(
            self.noise_alpha_moves.is_finite() && self.noise_alpha_moves > 0.0,
            &f("noise_alpha_moves"),
            "a finite number > 0",
            self.noise_alpha_moves,
        )?;
        count(&f("gumbel_actions"), self.gumbel_actions as u64, 4096)?;
        non_negative(&f("gumbel_c_visit"), self.gumbel_c_visit)?;
        non_negative(&f("gumbel_c_scale"), self.gumbel_c_scale)?;
        non_negative(&f("forced_playouts_k"), self.forced_playouts_k)
    }
}

impl SelfplayConfig {
    /// Checks every setting, so that self-play cannot fail later on a bad value.
    pub fn validate(&self) -> Result<(), String> {
        self.search.validate("selfplay.search")?;
        count("selfplay.simulations", u64::from(self.simulations), 1_000_000)?;
        count("selfplay.fast_simulations", u64::from(self.fast_simulations), 1_000_000)?;
        unit("selfplay.full_search_fraction", self.full_search_fraction)?;
        non_negative("selfplay.temperature", self.temperature)?;
        non_negative("selfplay.resign_threshold", self.resign_threshold)?;
        unit("selfplay.resign_disabled_fraction", self.resign_disabled_fraction)?;
        count("selfplay.max_plies", u64::from(self.max_plies), 100_000)?;
        count("selfplay.games_per_thread", self.games_per_thread as u64, 65_536)?;
        count("selfplay.games_per_shard", self.games_per_shard as u64, 1_000_000)?;
        require(self.threads <= 4096, "selfplay.threads", "at most 4096 (0 = one per core)", self.threads)?;
        require(self.torch_threads <= 4096, "selfplay.torch_threads", "at most 4096 (0 = libtorch's default)", self.torch_threads)?;
        require(
            schess::Variant::from_name(&self.variant).is_some(),
            "selfplay.variant",
            "seirawan or chess",
            format!("{:?}", self.variant),
        )
    }

    /// Worker threads actually started (`threads`, or one per core for 0).
    pub fn worker_threads(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            search: SearchConfig::default(),
            simulations: 200,
            full_search_fraction: 0.25,
            fast_simulations: 40,
            temperature: 1.0,
            temperature_plies: 20,
            resign_threshold: 0.95,
            resign_plies: 3,
            resign_disabled_fraction: 0.1,
            max_plies: 300,
            max_length_result: MaxLengthResult::Draw,
            material_margin: 3,
            games_per_thread: 32,
            threads: 0,
            network_sharing: NetworkSharing::Auto,
            torch_threads: 0,
            games_per_shard: 64,
            variant: "seirawan".into(),
        }
    }
}
