//! The trainer's error type.

use std::path::PathBuf;

/// Why training could not start or continue. Every file-related variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Device(#[from] models::DeviceError),
    #[error(transparent)]
    Net(#[from] models::NetError),
    /// A network file (trainer checkpoint weights, `best.safetensors`, a candidate).
    #[error(transparent)]
    Network(#[from] models::CheckpointError),
    #[error(transparent)]
    Shards(#[from] formats::shard::ShardError),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: invalid trainer state: {reason}", path.display())]
    State { path: PathBuf, reason: String },
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error(transparent)]
    Loader(#[from] crate::data::LoaderError),
}

impl TrainError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> TrainError {
        let path = path.into();
        move |source| TrainError::Io { path, source }
    }

    pub(crate) fn state(path: impl Into<PathBuf>, reason: impl std::fmt::Display) -> TrainError {
        TrainError::State { path: path.into(), reason: reason.to_string() }
    }
}
