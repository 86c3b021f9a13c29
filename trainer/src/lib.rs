//! szero's trainer: fits the policy-value network to the self-play shards of a run.
//!
//! [`Trainer::open`] takes a run directory, a [`TrainConfig`] (the `[train]` table of the
//! run configuration) and the network architecture; [`Trainer::train_steps`] then trains
//! until the requested steps are done or the data allowance is used up, writing
//! checkpoints and candidate networks into the run directory.
//!
//! - [`window`]: shard registry, global sample ids, KataGo-style growing replay window;
//! - `sampler`: deterministic data order (game passes into a large shuffle buffer);
//! - [`data`]: batches (input planes, dense targets) built on background threads;
//! - [`loss`], [`optim`], [`schedule`]: objective, optimisers with saveable state,
//!   learning-rate schedule;
//! - [`checkpoint`]: atomic, exactly resumable trainer checkpoints;
//! - [`tb`]: TensorBoard scalars (the only user of `tensorboard-rs`);
//! - [`synthetic`]: random-game shards for tests and benchmarks.
//!
//! Determinism: the data order comes from our own seeded generator on the training
//! thread, and everything that affects the next step is in the checkpoint, so training
//! N + M steps with a resume in between equals training N + M steps straight (bit for
//! bit on CPU with a fixed thread count, when no new shards arrive in between).

mod amp;
pub mod checkpoint;
pub mod config;
pub mod data;
pub mod error;
pub mod loss;
pub mod optim;
mod rng;
mod sampler;
pub mod schedule;
pub mod synthetic;
pub mod tb;
pub mod train;
pub mod window;

pub use config::{ConfigError, OptimizerKind, ScheduleKind, TrainConfig};
pub use error::TrainError;
pub use train::{Metrics, StopReason, TrainReport, Trainer, WarningSink};
pub use window::window_size;
