//! The trainer's settings: the `[train]` table of a run configuration.
//!
//! Defaults suit a small run on a 2-core CPU (batch 256, SGD with Nesterov momentum, a
//! replay window of 20k-500k samples). Every field has a default, so a `[train]` table
//! only lists what it changes; unknown keys are rejected so that a typo is an error
//! rather than a silently ignored setting.

use models::{DeviceChoice, Precision};
use serde::{Deserialize, Serialize};
use settings::check::{count, non_negative, positive, require, unit};

/// Which optimiser updates the weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// SGD with Nesterov momentum and L2 weight decay (lc0, KataGo).
    #[default]
    Sgd,
    /// Adam with decoupled weight decay (Loshchilov & Hutter).
    AdamW,
}

/// Shape of the learning rate after the warm-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScheduleKind {
    /// `learning_rate` throughout.
    #[default]
    Constant,
    /// Multiplied by `lr_step_factor` at each step listed in `lr_milestones`.
    Step,
    /// Cosine decay from `learning_rate` to `learning_rate * lr_final_fraction` over
    /// `cosine_steps` steps after the warm-up, then constant.
    Cosine,
}

/// Trainer settings (`[train]` of a run configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Seed of the network initialisation and of the data order. Two runs with the same
    /// seed, data and settings train the same weights (on CPU, bit for bit).
    pub seed: u64,
    /// Device to train on: `auto` (first CUDA device, else CPU), `cpu`, `cuda:N`.
    pub device: DeviceChoice,
    /// `auto`: bf16 autocast on CUDA, fp32 on CPU. `f32`: fp32 everywhere. `bf16`: bf16
    /// autocast, CUDA only (bf16 training on CPU is unusably slow). Weights and
    /// optimiser state always stay fp32.
    pub precision: Precision,
    /// libtorch intra-op threads; 0 keeps libtorch's default (one per core).
    pub torch_threads: usize,

    /// Samples per optimiser step.
    pub batch_size: usize,
    /// Optimiser: `sgd` (Nesterov momentum) or `adamw`.
    pub optimizer: OptimizerKind,
    /// Peak learning rate (after the warm-up). Typical: 0.02 for SGD at batch 256, 1e-3
    /// for AdamW.
    pub learning_rate: f64,
    /// SGD momentum.
    pub momentum: f64,
    /// AdamW's first-moment decay.
    pub adam_beta1: f64,
    /// AdamW's second-moment decay.
    pub adam_beta2: f64,
    /// AdamW's denominator epsilon.
    pub adam_eps: f64,
    /// Weight decay of convolution and linear weights (never of biases or batch-norm
    /// parameters, whose scale the decay would only distort). SGD adds it to the
    /// gradient as L2 (typical 1e-4); AdamW applies it decoupled, scaled by the
    /// learning rate (typical 0.01-0.1).
    pub weight_decay: f64,
    /// Linear learning-rate warm-up from 0 over this many steps; 0 disables it.
    pub warmup_steps: u64,
    /// Learning-rate shape after the warm-up: `constant`, `step` or `cosine`.
    pub lr_schedule: ScheduleKind,
    /// `step` schedule: steps at which the learning rate is multiplied by
    /// `lr_step_factor`.
    pub lr_milestones: Vec<u64>,
    /// `step` schedule: factor applied at each milestone.
    pub lr_step_factor: f64,
    /// `cosine` schedule: length of the decay, in steps after the warm-up.
    pub cosine_steps: u64,
    /// `cosine` schedule: final learning rate as a fraction of `learning_rate`.
    pub lr_final_fraction: f64,
    /// Clip the global gradient norm to this value; 0 disables clipping. Guards against
    /// the occasional huge step on a skewed batch early in a run.
    pub grad_clip_norm: f64,

    /// Weight of the policy cross-entropy.
    pub policy_weight: f64,
    /// Weight of the W/D/L cross-entropy.
    pub value_weight: f64,
    /// lc0's q_ratio: the value target is `(1 - q_ratio) * game result + q_ratio *
    /// root W/D/L`. The root value is less noisy than the result but biased by the
    /// current network; 0 trains on results only.
    pub q_ratio: f64,
    /// Weight of the moves-left loss (ignored when the network has no such head).
    pub moves_left_weight: f64,
    /// Plies are divided by this before the moves-left Huber loss, so that its
    /// magnitude is comparable to the other losses.
    pub moves_left_scale: f64,
    /// Huber threshold of the moves-left loss, in scaled units (beyond it the loss is
    /// linear: long games with uncertain length do not dominate).
    pub moves_left_huber_delta: f64,
    /// Weight of the material loss (ignored when the network has no material head): a
    /// Huber loss on the predicted material lead, in units of `material_scale` pawns.
    /// The head's horizon is part of the network (`MaterialHeadConfig::horizon`).
    pub material_weight: f64,
    /// Pawns per unit of the material loss (and its Huber threshold of 1).
    pub material_scale: f64,
    /// Softmax the policy over the legal moves only (lc0): the target lives on them, and
    /// a softmax over the whole move index would spend early training on legality.
    pub policy_mask_illegal: bool,

    /// Smallest replay window, in samples (KataGo-style growing window).
    pub window_min: u64,
    /// Largest replay window, in samples.
    pub window_max: u64,
    /// Window growth: window = clamp(window_c * total_samples ^ window_alpha,
    /// window_min, window_max). The window grows sub-linearly, so early (weak) data
    /// leaves it quickly while later it spans many network generations.
    pub window_c: f64,
    /// Exponent of the window growth (see `window_c`).
    pub window_alpha: f64,
    /// No training until the run has produced this many samples.
    pub min_samples: u64,
    /// KataGo's train/data ratio: at most this many samples are trained per new sample
    /// that enters the run. Once that allowance is used the trainer stops (and waits
    /// for self-play) instead of overfitting the window. The unused allowance is capped
    /// at this many passes over the window.
    pub train_ratio: f64,
    /// Capacity of the shuffle buffer, in samples. Whole games enter it and single
    /// samples leave it at random, so that a batch rarely holds two positions of the
    /// same game. Entries are small references (8 bytes), so this can be large.
    pub shuffle_buffer: usize,
    /// Batches prepared ahead of the optimiser by the loader threads.
    pub prefetch_batches: usize,
    /// Threads that turn samples into input planes and targets; 0 builds batches on the
    /// training thread.
    pub loader_threads: usize,
    /// Look for new shards every this many steps (and whenever the data allowance runs
    /// out).
    pub refresh_every: u64,

    /// Write a trainer checkpoint (weights, optimiser, data position) every this many
    /// steps; one is also written at the end of every training call.
    pub checkpoint_every: u64,
    /// Trainer checkpoints kept (older ones are deleted).
    pub keep_checkpoints: usize,
    /// Write `candidates/step-<N>.safetensors` for the promotion stage every this
    /// many steps.
    pub candidate_every: u64,
    /// Log averaged metrics to TensorBoard every this many steps.
    pub log_every: u64,
    /// What a piece in hand counts in the material head's target (0 to 1, while its side
    /// can still gate). Not a field of `[train]`: a run config sets it from
    /// `[selfplay] material_hand_weight`, so that adjudication and target agree.
    #[serde(skip)]
    pub material_hand_weight: f32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            seed: 1,
            device: DeviceChoice::Auto,
            precision: Precision::Auto,
            torch_threads: 0,
            batch_size: 256,
            optimizer: OptimizerKind::Sgd,
            learning_rate: 0.02,
            momentum: 0.9,
            adam_beta1: 0.9,
            adam_beta2: 0.999,
            adam_eps: 1e-8,
            weight_decay: 1e-4,
            warmup_steps: 200,
            lr_schedule: ScheduleKind::Constant,
            lr_milestones: Vec::new(),
            lr_step_factor: 0.1,
            cosine_steps: 100_000,
            lr_final_fraction: 0.01,
            grad_clip_norm: 10.0,
            policy_weight: 1.0,
            value_weight: 1.0,
            q_ratio: 0.0,
            moves_left_weight: 0.1,
            moves_left_scale: 20.0,
            moves_left_huber_delta: 0.5,
            material_weight: 1.0,
            material_scale: 4.0,
            policy_mask_illegal: true,
            window_min: 20_000,
            window_max: 500_000,
            window_c: 8.0,
            window_alpha: 0.75,
            min_samples: 10_000,
            train_ratio: 4.0,
            shuffle_buffer: 100_000,
            prefetch_batches: 4,
            loader_threads: 1,
            refresh_every: 50,
            checkpoint_every: 500,
            keep_checkpoints: 2,
            candidate_every: 1000,
            log_every: 10,
            material_hand_weight: 1.0,
        }
    }
}

pub use settings::ConfigError;

impl TrainConfig {
    /// Checks every setting, so that training cannot fail later on a bad value.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let counts = [
            ("batch_size", self.batch_size as u64, 1 << 20),
            ("shuffle_buffer", self.shuffle_buffer as u64, u64::MAX),
            ("prefetch_batches", self.prefetch_batches as u64, u64::MAX),
            ("refresh_every", self.refresh_every, u64::MAX),
            ("checkpoint_every", self.checkpoint_every, u64::MAX),
            ("keep_checkpoints", self.keep_checkpoints as u64, u64::MAX),
            ("candidate_every", self.candidate_every, u64::MAX),
            ("log_every", self.log_every, u64::MAX),
            ("window_min", self.window_min, u64::MAX),
        ];
        for (field, v, max) in counts {
            count(field, v, max)?;
        }
        let at_least_min = format!("at least window_min ({})", self.window_min);
        require(self.window_max >= self.window_min, "window_max", &at_least_min, self.window_max)?;
        for (field, v) in [
            ("learning_rate", self.learning_rate),
            ("weight_decay", self.weight_decay),
            ("grad_clip_norm", self.grad_clip_norm),
            ("policy_weight", self.policy_weight),
            ("value_weight", self.value_weight),
            ("moves_left_weight", self.moves_left_weight),
            ("material_weight", self.material_weight),
            ("lr_step_factor", self.lr_step_factor),
            ("lr_final_fraction", self.lr_final_fraction),
            ("window_c", self.window_c),
            ("window_alpha", self.window_alpha),
        ] {
            non_negative(field, v)?;
        }
        for (field, v) in [
            ("momentum", self.momentum),
            ("adam_beta1", self.adam_beta1),
            ("adam_beta2", self.adam_beta2),
            ("q_ratio", self.q_ratio),
        ] {
            unit(field, v)?;
        }
        for (field, v) in [
            ("adam_eps", self.adam_eps),
            ("moves_left_scale", self.moves_left_scale),
            ("moves_left_huber_delta", self.moves_left_huber_delta),
            ("material_scale", self.material_scale),
            ("train_ratio", self.train_ratio),
        ] {
            positive(field, v)?;
        }
        if self.lr_schedule == ScheduleKind::Cosine {
            count("cosine_steps", self.cosine_steps, u64::MAX).map_err(|mut e| {
                e.allowed += " with the cosine schedule";
                e
            })?;
        }
        let increasing = self.lr_milestones.windows(2).all(|w| w[0] < w[1]);
        require(increasing, "lr_milestones", "strictly increasing", format!("{:?}", self.lr_milestones))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_round_trip() {
        let c = TrainConfig::default();
        c.validate().unwrap();
        let text = toml::to_string(&c).unwrap();
        assert_eq!(toml::from_str::<TrainConfig>(&text).unwrap(), c);
    }

    #[test]
    fn partial_table_and_unknown_keys() {
        let c: TrainConfig =
            toml::from_str("batch_size = 64\noptimizer = \"adamw\"\nlr_schedule = \"cosine\"\ndevice = \"cpu\"\n")
                .unwrap();
        assert_eq!(c.batch_size, 64);
        assert_eq!(c.optimizer, OptimizerKind::AdamW);
        assert_eq!(c.lr_schedule, ScheduleKind::Cosine);
        assert_eq!(c.device, DeviceChoice::Cpu);
        assert_eq!(c.momentum, TrainConfig::default().momentum);
        assert!(toml::from_str::<TrainConfig>("batch_sise = 64").is_err());
        assert!(toml::from_str::<TrainConfig>("optimizer = \"lion\"").is_err());
    }

    /// `configs/train-reference.toml` documents every field with its default.
    #[test]
    fn reference_file_matches_the_defaults() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/train-reference.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let mut doc: toml::Table = toml::from_str(&text).unwrap();
        let train = doc.remove("train").expect("[train] table");
        let listed: Vec<String> = train.as_table().unwrap().keys().cloned().collect();
        assert_eq!(train.try_into::<TrainConfig>().unwrap(), TrainConfig::default());
        let defaults = toml::Table::try_from(TrainConfig::default()).unwrap();
        let mut all: Vec<String> = defaults.keys().cloned().collect();
        // Empty arrays serialise like any value; every field must be listed.
        all.sort();
        let mut listed = listed;
        listed.sort();
        assert_eq!(listed, all, "fields missing from or unknown in {path}");
    }

    #[test]
    fn validation_names_the_field() {
        let mut c = TrainConfig { batch_size: 0, ..TrainConfig::default() };
        assert_eq!(c.validate().unwrap_err().field, "batch_size");
        c.batch_size = 8;
        c.q_ratio = 1.5;
        assert_eq!(c.validate().unwrap_err().field, "q_ratio");
        c.q_ratio = 0.5;
        c.learning_rate = f64::NAN;
        assert_eq!(c.validate().unwrap_err().field, "learning_rate");
        c.learning_rate = 0.1;
        c.lr_milestones = vec![10, 5];
        let e = c.validate().unwrap_err();
        assert!(e.to_string().contains("lr_milestones"), "{e}");
        c.lr_milestones = vec![5, 10];
        c.validate().unwrap();
    }
}
