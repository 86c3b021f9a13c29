//! The run configuration: one TOML file with a table per stage. Every field has a
//! default; unknown fields anywhere are errors (a typo must not silently change a run).
//!
//! ```toml
//! [network]   # architecture of a fresh network, device and precision
//! [selfplay]  # search and game settings (selfplay::SelfplayConfig)
//! [train]     # trainer settings (trainer::TrainConfig)
//! [promotion] # how candidates are tested (eval::PromotionConfig)
//! [run]       # how `szero run` schedules its stages and when it stops
//! ```
//!
//! Every field is documented on its struct; `configs/default.toml` lists them all.
//!
//! Names of earlier releases still read, with a warning ([`RunConfig::old_names`]): the
//! `[gate]` table is now `[promotion]` and `run.gate` is `run.promote`, because "gating"
//! is the S-Chess rule this project studies, not the test of a network. Runs made before
//! the rename keep their `config.toml` as it was.

use anyhow::{Context, Result};
use models::{DeviceChoice, NetConfig, Precision};
use selfplay::SelfplayConfig;
use serde::{Deserialize, Serialize};
use settings::check::{count, require, unit};
use settings::ConfigError;
use std::path::Path;

/// Network architecture (for generation 0) and where networks run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Residual blocks.
    pub blocks: i64,
    /// Channels per block.
    pub channels: i64,
    /// Earlier positions the network sees (input history planes).
    pub history: usize,
    /// Eight more input planes with what attacks what: squares each side attacks (once,
    /// twice or more), defended pieces, pieces en prise (`models::encoding`). Stored in
    /// the network by its plane count, so a network keeps what it was built with.
    pub attack_planes: bool,
    /// Channels of the 1x1 convolution feeding the policy's linear layer. That layer
    /// (channels x 64 x 2338 moves) holds most of a small network's weights.
    pub policy_channels: i64,
    /// Channels of the 1x1 convolution feeding the value head.
    pub value_channels: i64,
    /// Global pooling (mean and max over the board) in the value head instead of
    /// flattening: material and other counts are learnt from far fewer games.
    pub value_pooling: bool,
    /// A material head predicting the side to move's live material lead this many plies
    /// ahead (0: no such head). A dense auxiliary target: every position gets one, and it
    /// reflects the captures that follow, i.e. which pieces hang.
    pub material_horizon: u32,
    /// Share of the material head in the value search uses (see
    /// `models::MaterialHeadConfig::value_mix`); stored in the network file.
    pub material_mix: f32,
    /// `auto` (CUDA when available), `cpu`, `cuda` or `cuda:N`.
    pub device: DeviceChoice,
    /// Inference precision: `auto` (bf16 on CUDA, f32 on CPU), `f32` or `bf16`.
    pub precision: Precision,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            blocks: 6,
            channels: 64,
            history: models::encoding::DEFAULT_HISTORY,
            attack_planes: false,
            policy_channels: 16,
            value_channels: 16,
            value_pooling: false,
            material_horizon: 0,
            material_mix: 0.0,
            device: DeviceChoice::Auto,
            precision: Precision::Auto,
        }
    }
}

impl NetworkConfig {
    /// Checks this table's own fields, then the architecture they make.
    pub fn validate(&self) -> Result<(), ConfigError> {
        require(self.history < 64, "history", "at most 63", self.history)?;
        unit("material_mix", self.material_mix)?;
        self.net_config().validate()
    }

    /// What a fresh network of this table sees.
    pub fn inputs(&self) -> models::encoding::Inputs {
        models::encoding::Inputs::new(self.history, self.attack_planes)
    }

    pub fn net_config(&self) -> NetConfig {
        let mut c = models::net_config(self.blocks, self.channels, self.inputs());
        c.policy_channels = self.policy_channels;
        c.value_channels = self.value_channels;
        c.value_pooling = self.value_pooling;
        c.material = (self.material_horizon > 0).then_some(models::MaterialHeadConfig {
            channels: self.value_channels,
            hidden: c.value_hidden,
            horizon: self.material_horizon,
            value_mix: self.material_mix,
        });
        c
    }
}

/// How `szero run` schedules its stages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    /// Run the self-play stage.
    pub selfplay: bool,
    /// Run the training stage.
    pub train: bool,
    /// Run the promotion stage (candidate against best). Spelt `gate` before.
    #[serde(alias = "gate")]
    pub promote: bool,
    /// Self-play statistics go to TensorBoard every this many games. (Self-play itself
    /// never pauses: a new best network is picked up between moves.)
    pub selfplay_log_games: usize,
    /// Training steps per call; the status line is updated between calls.
    pub train_chunk_steps: u64,
    /// Also write every self-play shard's games as PGN beside it.
    pub pgn: bool,
    /// Stop once the best network reaches this generation (0 = never).
    pub max_generations: u32,
    /// Stop after this many minutes (0 = never).
    pub max_minutes: f64,
    /// Stop once the trainer has taken this many steps and the promotion stage has decided on the
    /// candidate of that step (0 = never). Unlike minutes, a budget in steps is one of
    /// samples (the trainer keeps to `train_ratio`): runs compared at equal steps saw the
    /// same amount of data, whatever else ran on the machine.
    pub max_steps: u64,
    /// Stop once self-play has played this many games in this process (0 = never; games
    /// in flight at the stop are dropped, the finished ones are in the run's shards).
    pub max_games: u64,
}

impl PipelineConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        count("selfplay_log_games", self.selfplay_log_games as u64, u64::MAX)?;
        count("train_chunk_steps", self.train_chunk_steps, u64::MAX)?;
        let minutes = self.max_minutes;
        require(minutes.is_finite() && minutes >= 0.0, "max_minutes", "a finite number >= 0 (0 = no limit)", minutes)
    }
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            selfplay: true,
            train: true,
            promote: true,
            selfplay_log_games: 64,
            train_chunk_steps: 20,
            pgn: true,
            max_generations: 0,
            max_minutes: 0.0,
            max_steps: 0,
            max_games: 0,
        }
    }
}

/// A whole run configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    pub network: NetworkConfig,
    pub selfplay: SelfplayConfig,
    pub train: trainer::TrainConfig,
    /// Spelt `[gate]` before.
    #[serde(alias = "gate")]
    pub promotion: eval::PromotionConfig,
    pub run: PipelineConfig,
}

impl RunConfig {
    pub fn load(path: &Path) -> Result<RunConfig> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
        RunConfig::parse(&text).with_context(|| format!("in config {}", path.display()))
    }

    /// Reads a config from its text; old names are warned about on standard error.
    pub fn parse(text: &str) -> Result<RunConfig> {
        let mut cfg: RunConfig = toml::from_str(text)?;
        for warning in RunConfig::old_names(text) {
            eprintln!("szero: warning: {warning}");
        }
        cfg.validate()?;
        cfg.share();
        Ok(cfg)
    }

    /// What a config spells with the names of an earlier release, and the name to use
    /// instead (each still reads, for one more release).
    pub fn old_names(text: &str) -> Vec<String> {
        let Ok(table) = text.parse::<toml::Table>() else { return Vec::new() };
        let mut out = Vec::new();
        if table.contains_key("gate") {
            out.push("the config's [gate] table is now called [promotion]; [gate] still reads, for now".to_string());
        }
        if table.get("run").and_then(|r| r.get("gate")).is_some() {
            out.push("the config's run.gate is now called run.promote; run.gate still reads, for now".to_string());
        }
        out
    }

    /// The rules of the run: self-play's and, with them, the promotion test's.
    pub fn set_variant(&mut self, variant: schess::Variant) {
        self.selfplay.variant = variant.name().into();
        self.promotion.variant = variant;
    }

    /// Settings one table states for several stages, handed to the others: the
    /// variant, and what a piece in hand counts in material (`[selfplay]
    /// material_hand_weight`, also the trainer's material target).
    fn share(&mut self) {
        let variant = schess::Variant::from_name(&self.selfplay.variant).expect("validated");
        self.set_variant(variant);
        self.train.material_hand_weight = self.selfplay.material_hand_weight;
    }

    /// Checks every table; an error names the field as the file spells it
    /// (`selfplay.search.c_puct`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.network.validate().map_err(|e| e.within("network"))?;
        self.selfplay.validate().map_err(|e| e.within("selfplay"))?;
        self.train.validate().map_err(|e| e.within("train"))?;
        self.promotion.validate().map_err(|e| e.within("promotion"))?;
        self.run.validate().map_err(|e| e.within("run"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "prints the defaults as TOML"]
    fn print_defaults() {
        println!("{}", toml::to_string(&RunConfig::default()).unwrap());
    }

    /// Hostile configs: wrong types, unknown fields, negative, out-of-range and absurd
    /// values are rejected with the field's name (and, for values, what is allowed).
    #[test]
    fn the_hand_weight_reaches_the_trainer() {
        let cfg = RunConfig::parse("[selfplay]\nmaterial_hand_weight = 0.25\n").unwrap();
        assert_eq!((cfg.selfplay.material_hand_weight, cfg.train.material_hand_weight), (0.25, 0.25));
        let default = RunConfig::parse("").unwrap();
        assert_eq!(default.train.material_hand_weight, 1.0);
    }

    #[test]
    fn bad_configs_are_rejected_naming_the_field() {
        let cases: &[(&str, &[&str])] = &[
            ("[network]\nblocks = \"four\"", &["blocks", "expected i64"]),
            ("[network]\nblocks = -1", &["network.blocks must be at least 0, got -1"]),
            ("[network]\nblokcs = 4", &["unknown field `blokcs`"]),
            ("[network]\nchannels = 0", &["network.channels must be positive, got 0"]),
            ("[network]\nmaterial_horizon = 8\nmaterial_mix = 1.5", &["network.material_mix must be in [0, 1]"]),
            ("[network]\nhistory = 64", &["network.history must be at most 63"]),
            ("[selfplay]\nmaterial_hand_weight = 1.5", &["selfplay.material_hand_weight must be in [0, 1]"]),
            ("[netwerk]\nblocks = 4", &["unknown field `netwerk`"]),
            ("[train]\nlearning_rate = -0.1", &["learning_rate", ">= 0"]),
            ("[train]\nlearning_rate = nan", &["learning_rate", "finite"]),
            ("[train]\nbatch_size = 0", &["batch_size", "at least 1"]),
            ("[train]\nq_ratio = 2.0", &["train.q_ratio must be in [0, 1], got 2"]),
            ("[train]\nwindow_min = 10\nwindow_max = 5", &["train.window_max must be at least window_min (10), got 5"]),
            ("[train]\nlr_milestones = [5, 5]", &["train.lr_milestones must be strictly increasing, got [5, 5]"]),
            ("[train]\ntrain_ratio = -1.0", &["train_ratio"]),
            ("[train]\nbatch_size = 100000000", &["batch_size", "at most"]),
            ("[selfplay]\nthreads = 100000", &["threads", "at most"]),
            ("[selfplay]\nsimulations = 0", &["simulations", "at least 1"]),
            ("[selfplay]\nfast_simulations = 0", &["fast_simulations", "at least 1"]),
            ("[selfplay]\nresign_threshold = -0.5", &["resign_threshold", ">= 0"]),
            ("[selfplay]\ntemperature = -1.0", &["temperature", ">= 0"]),
            ("[selfplay]\nfull_search_fraction = 2.0", &["full_search_fraction", "[0, 1]"]),
            ("[selfplay]\ngames_per_shard = 0", &["games_per_shard", "at least 1"]),
            ("[selfplay]\ngames_per_thread = 0", &["games_per_thread", "at least 1"]),
            ("[selfplay]\nmerged_batches = 0", &["merged_batches", "at least 1"]),
            ("[selfplay]\nmax_plies = 0", &["max_plies", "at least 1"]),
            ("[selfplay]\nvariant = \"crazyhouse\"", &["variant", "seirawan-forced"]),
            ("[selfplay]\nmax_length_result = \"coin\"", &["max_length_result", "unknown variant"]),
            ("[selfplay.search]\ngumbel_actions = 0", &["gumbel_actions", "at least 1"]),
            ("[selfplay.search]\nc_puct = -1.0", &["selfplay.search.c_puct must be a finite number >= 0, got -1"]),
            ("[promotion.search]\nnoise_alpha = 0.0", &["promotion.search.noise_alpha must be a finite number > 0"]),
            (
                "[promotion]\nmode = \"sprt\"\n[promotion.sprt]\nalpha = 0.7",
                &["promotion.sprt.alpha must be in (0, 0.5), got 0.7"],
            ),
            ("[promotion.adjudication]\nresign_score = 1.0", &["promotion.adjudication.resign_score"]),
            ("[selfplay.search]\nnoise_epsilon = 2.0", &["noise_epsilon", "[0, 1]"]),
            ("[promotion]\nmode = \"sometimes\"", &["mode", "unknown variant"]),
            ("[promotion]\nmode = \"fixed\"\ngames = 0", &["promotion.games must be at least 1"]),
            ("[gate]\nmode = \"fixed\"\ngames = 0", &["promotion.games must be at least 1"]),
            ("[gate]\ngames = 2\n[promotion]\ngames = 4", &["duplicate field `promotion`"]),
            ("[gate]\nscore_threshold = 7.0", &["score_threshold", "[0, 1]"]),
            ("[run]\nmax_minutes = -5.0", &["run.max_minutes must be a finite number >= 0"]),
            ("[run]\ntrain_chunk_steps = 0", &["train_chunk_steps", "at least 1"]),
            ("[run]\nselfplay_log_games = 0", &["selfplay_log_games", "at least 1"]),
        ];
        let mut wrong = Vec::new();
        for (text, needles) in cases {
            match RunConfig::parse(text) {
                Ok(_) => wrong.push(format!("{text:?}: accepted")),
                Err(e) => {
                    let msg = format!("{e:#}");
                    if !needles.iter().all(|n| msg.contains(n)) {
                        wrong.push(format!("{text:?}: {msg}"));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn shipped_configs_parse() {
        for name in ["default", "h200", "smoke"] {
            let path = format!("{}/configs/{name}.toml", env!("CARGO_MANIFEST_DIR"));
            RunConfig::load(Path::new(&path)).unwrap_or_else(|e| panic!("{path}: {e:#}"));
        }
    }

    /// Lead 3 of the learning review: AdamW's decoupled decay multiplies the weights by
    /// `1 - lr * wd` per step, so an SGD-sized decay (3e-4) did nothing in a whole run.
    #[test]
    fn default_config_decays_weights_noticeably() {
        let path = format!("{}/configs/default.toml", env!("CARGO_MANIFEST_DIR"));
        let cfg = RunConfig::load(Path::new(&path)).unwrap();
        assert_eq!(cfg.train.optimizer, trainer::OptimizerKind::AdamW);
        let kept = (1.0 - cfg.train.learning_rate * cfg.train.weight_decay).powi(2000);
        assert!(kept < 0.9, "2,000 steps keep {:.4} of a weight without gradient", kept);
    }

    #[test]
    fn defaults_and_unknown_fields() {
        assert_eq!(RunConfig::parse("").unwrap(), RunConfig::default());
        let err = RunConfig::parse("[selfplay]\nsimulatons = 5\n").unwrap_err();
        assert!(format!("{err:#}").contains("simulatons"), "{err:#}");
        let err = RunConfig::parse("[network]\nchannels = 0\n").unwrap_err();
        assert!(format!("{err:#}").contains("channels"), "{err:#}");
        let cfg = RunConfig::parse("[selfplay]\nsimulations = 5\n[selfplay.search]\nroot_mode = \"gumbel\"\n").unwrap();
        assert_eq!(cfg.selfplay.simulations, 5);
        assert_eq!(cfg.selfplay.search.root_mode, search::RootMode::Gumbel);
    }

    /// A config of an earlier release reads as the same config, and says which names
    /// changed; the new names raise no warning.
    #[test]
    fn names_of_an_earlier_release_read_with_a_warning() {
        let old = "[gate]\nmode = \"fixed\"\ngames = 6\n[run]\ngate = false\n";
        let new = "[promotion]\nmode = \"fixed\"\ngames = 6\n[run]\npromote = false\n";
        assert_eq!(RunConfig::parse(old).unwrap(), RunConfig::parse(new).unwrap());
        assert_eq!(RunConfig::parse(old).unwrap().promotion.games, 6);
        assert!(!RunConfig::parse(old).unwrap().run.promote);
        let warnings = RunConfig::old_names(old);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("[promotion]") && warnings[1].contains("run.promote"), "{warnings:?}");
        assert!(RunConfig::old_names(new).is_empty());
    }
}
