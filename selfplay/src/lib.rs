//! Self-play for szero: workers that play many games at once with [`search::Tree`] and
//! turn a network into training shards.
//!
//! - [`runner`]: many games per worker thread, leaves batched into one evaluator call.
//! - [`shard`]: the training-sample file format (torch-free, in `formats`); [`writer`] groups
//!   games into shards.
//! - [`stats`]: running totals for progress displays and logs.
//! - [`config`]: the `[selfplay]` table.

pub mod config;
pub mod runner;
pub use formats::shard;
pub mod stats;
pub mod writer;

pub use config::{MaxLengthResult, NetworkSharing, SelfplayConfig};
pub use shard::{GameRecord, Sample};
