//! szero's neural network: what it sees of a position ([`encoding`]), the move index its
//! policy speaks ([`policy_index`]), the residual policy/value network in libtorch (via
//! `tch`), its checkpoints and TorchScript export, and the [`evaluator::Evaluator`]
//! interface search uses.
//!
//! The network itself ([`net`], [`checkpoint`], [`export`]) is rule-agnostic: plane count
//! and policy size are [`NetConfig`] parameters and the encodings' versions are
//! [`FormatVersions`] checked on every load; [`FORMAT_VERSIONS`] are this build's.
//!
//! Building: `LIBTORCH` must point at pip torch 2.11.0's `torch/` directory
//! (`source scripts/env.sh`). Packages that build binaries or tests against tch need
//! this crate's `build.rs` (RUNPATH and CUDA registration; see there).

pub mod batcher;
pub mod checkpoint;
pub mod checksum;
pub mod config;
pub mod device;
pub mod evaluator;
pub mod export;
pub mod io;
pub mod loader;
pub mod net;
#[cfg(test)]
mod testutil;
pub mod upgrade;

/// The input planes and the move index, torch-free in `formats`; here too, as before.
pub use formats::{encoding, policy_index};

pub use checkpoint::{CheckpointError, FormatVersions, Metadata, FORMAT_MAGIC};
pub use config::{ConfigError, MaterialHeadConfig, MovesLeftConfig, NetConfig, SeConfig};
pub use device::{DeviceChoice, DeviceError, Precision};
pub use export::{export, ExportError, ExportInfo, ExportPaths, OnnxInfo};
pub use loader::{load_evaluator, load_net, LoadedNet};
pub use net::{Net, NetError, NetOutput};
/// Re-exported so that users agree on the exact tch version.
pub use tch;
pub use upgrade::{upgrade, UpgradeError, Upgraded};

/// The encodings this build speaks (stored in, and checked against, every network file).
pub const FORMAT_VERSIONS: FormatVersions =
    FormatVersions { input: encoding::INPUT_FORMAT_VERSION, policy: policy_index::POLICY_FORMAT_VERSION };

/// A caught panic's message, when it carries one. tch panics on some libtorch errors (CUDA
/// out of memory) and tensorboard-rs on I/O errors; whoever catches one turns it into an
/// error with this.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic.downcast_ref::<&str>().copied().or(panic.downcast_ref::<String>().map(String::as_str)).unwrap_or("no message")
}

/// A network configuration for this build's encodings: `blocks` x `channels` with
/// squeeze-excitation and a moves-left head, seeing `inputs` (a `usize`: that many earlier
/// positions, no attack planes).
pub fn net_config(blocks: i64, channels: i64, inputs: impl Into<encoding::Inputs>) -> NetConfig {
    let mut c = NetConfig::small(inputs.into().planes() as i64, policy_index::POLICY_SIZE as i64);
    c.blocks = blocks;
    c.channels = channels;
    c
}

/// What a network was built to see (history length, attack planes), from its input
/// plane count.
pub fn inputs_of(config: &NetConfig) -> Option<encoding::Inputs> {
    usize::try_from(config.input_planes).ok().and_then(encoding::Inputs::from_planes)
}
