//! Self-play settings (the run config's `[selfplay]` table); its `search` table is
//! [`search::SearchConfig`].

use search::SearchConfig;
use serde::{Deserialize, Serialize};
use settings::check::{count, non_negative, require, unit};
use settings::ConfigError;

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
    /// What a piece in hand counts in that material, relative to the same piece on the
    /// board, while its side can still gate (`schess::material::weighted_balance`): 1
    /// counts it in full, so that entering earns nothing; 0 counts only pieces that have
    /// entered. The trainer's material target (`[network] material_horizon`) uses it too.
    pub material_hand_weight: f32,
    /// Games played at once by each worker thread (their leaves are batched together).
    pub games_per_thread: usize,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// How the threads share the network: `auto`, `merged` or `per-thread`.
    pub network_sharing: NetworkSharing,
    /// With `merged` sharing: about this many batches take turns on the network, so that
    /// it evaluates one while the other threads search. A batch holds the leaves of
    /// ⌈threads / merged_batches⌉ threads, whichever come first (12 threads: 2 makes two
    /// batches of 6, 5 makes four of 3). 1: one lock-step batch of every thread's leaves,
    /// the device idle while they all search.
    pub merged_batches: usize,
    /// libtorch threads for each worker's network calls (0 = libtorch's default, one per
    /// core). On a CPU, 1 with one worker per core keeps every core busy without
    /// oversubscription: each worker alternates its own tree work and network call.
    pub torch_threads: usize,
    /// Games per shard file.
    pub games_per_shard: usize,
    /// Rule set: `seirawan` or `chess`.
    pub variant: String,
}

impl SelfplayConfig {
    /// Checks every setting, so that self-play cannot fail later on a bad value.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.search.validate().map_err(|e| e.within("search"))?;
        count("simulations", u64::from(self.simulations), 1_000_000)?;
        count("fast_simulations", u64::from(self.fast_simulations), 1_000_000)?;
        unit("full_search_fraction", self.full_search_fraction)?;
        non_negative("temperature", self.temperature)?;
        non_negative("resign_threshold", self.resign_threshold)?;
        unit("resign_disabled_fraction", self.resign_disabled_fraction)?;
        unit("material_hand_weight", self.material_hand_weight)?;
        count("max_plies", u64::from(self.max_plies), 100_000)?;
        count("games_per_thread", self.games_per_thread as u64, 65_536)?;
        count("games_per_shard", self.games_per_shard as u64, 1_000_000)?;
        require(self.threads <= 4096, "threads", "at most 4096 (0 = one per core)", self.threads)?;
        count("merged_batches", self.merged_batches as u64, 4096)?;
        require(
            self.torch_threads <= 4096,
            "torch_threads",
            "at most 4096 (0 = libtorch's default)",
            self.torch_threads,
        )?;
        require(
            schess::Variant::from_name(&self.variant).is_some(),
            "variant",
            "seirawan, seirawan-forced, seirawan-placement or chess",
            format!("{:?}", self.variant),
        )
    }

    /// Worker threads actually started (`threads`, or one per core for 0).
    pub fn worker_threads(&self) -> usize {
        settings::threads_or_cores(self.threads)
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
            material_hand_weight: 1.0,
            games_per_thread: 32,
            threads: 0,
            network_sharing: NetworkSharing::Auto,
            merged_batches: 1,
            torch_threads: 0,
            games_per_shard: 64,
            variant: "seirawan".into(),
        }
    }
}
