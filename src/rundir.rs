//! The run directory: the only channel between pipeline stages, so that stages can be
//! killed, restarted, or later placed on other machines sharing the directory.
//!
//! ```text
//! <run>/config.toml          the config the run was started with (reference copy)
//! <run>/best.safetensors     current best network (replaced atomically by the gate)
//! <run>/initial.safetensors  the generation-0 network (for strength ladders)
//! <run>/shards/*.shard       self-play games (+ .pgn beside each)
//! <run>/candidates/          networks the trainer proposes
//! <run>/trainer/             trainer checkpoints and state
//! <run>/gate/log.jsonl       every gating decision with its statistics
//! <run>/tensorboard/<stage>/ TensorBoard event files per stage
//! ```

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Paths of a run directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub root: PathBuf,
}

impl RunDir {
    pub fn new(root: &Path) -> RunDir {
        RunDir { root: root.to_path_buf() }
    }

    pub fn create(&self) -> Result<()> {
        for d in [self.shards(), self.candidates(), self.trainer(), self.gate(), self.tensorboard("")] {
            std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
        }
        Ok(())
    }

    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    pub fn best(&self) -> PathBuf {
        self.root.join("best.safetensors")
    }
    /// The generation-0 (random) network, kept for comparisons.
    pub fn initial(&self) -> PathBuf {
        self.root.join("initial.safetensors")
    }
    pub fn shards(&self) -> PathBuf {
        self.root.join("shards")
    }
    pub fn candidates(&self) -> PathBuf {
        self.root.join("candidates")
    }
    pub fn trainer(&self) -> PathBuf {
        self.root.join("trainer")
    }
    pub fn gate(&self) -> PathBuf {
        self.root.join("gate")
    }
    pub fn tensorboard(&self, stage: &str) -> PathBuf {
        self.root.join("tensorboard").join(stage)
    }

    /// Removes temporary files left by writers that were killed mid-write (`.name.tmp.*`).
    pub fn clean_temporaries(&self) -> usize {
        let mut removed = 0;
        for dir in [self.root.clone(), self.shards(), self.candidates(), self.trainer(), self.gate()] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') && name.contains(".tmp.") && std::fs::remove_file(e.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }
}
