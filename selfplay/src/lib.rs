//! Self-play for szero: batched MCTS workers that turn a network into training shards.
//!
//! - [`mcts`]: the search tree of one game (PUCT or Gumbel root).
//! - [`runner`]: many games per worker thread, leaves batched into one evaluator call.
//! - [`shard`]: the training-sample file format; [`writer`] groups games into shards.
//! - [`stats`]: running totals for progress displays and logs.

pub mod config;
pub mod mcts;
pub mod runner;
pub mod shard;
pub mod stats;
pub mod writer;

pub use config::{NetworkSharing, RootMode, SearchConfig, SelfplayConfig};
pub use mcts::Tree;
pub use shard::{GameRecord, Sample};
