//! The run directory: the only channel between pipeline stages, so that stages can be
//! killed, restarted, or later placed on other machines sharing the directory.
//!
//! ```text
//! <run>/config.toml          the config the run was started with (reference copy)
//! <run>/best.safetensors     current best network (replaced atomically by the gate)
//! <run>/best.json            {"generation": N, ...} of the best network
//! <run>/shards/*.shard       self-play games (+ .pgn beside each)
//! <run>/candidates/          networks the trainer proposes
//! <run>/trainer/             trainer checkpoints and state
//! <run>/gate/log.jsonl       every gating decision with its statistics
//! <run>/tensorboard/<stage>/ TensorBoard event files per stage
//! ```

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Paths of a run directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub root: PathBuf,
}

/// What `best.json` records about the best network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestInfo {
    /// 0 for the random initial network, +1 per promotion.
    pub generation: u32,
    /// Where the network came from (candidate file or "initial").
    pub source: String,
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
    pub fn best_info_path(&self) -> PathBuf {
        self.root.join("best.json")
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

    /// The best network's record; generation 0 if the file is missing.
    pub fn best_info(&self) -> Result<BestInfo> {
        match std::fs::read(self.best_info_path()) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .with_context(|| format!("{} is corrupt", self.best_info_path().display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(BestInfo { generation: 0, source: "initial".into() })
            }
            Err(e) => Err(e).with_context(|| format!("reading {}", self.best_info_path().display())),
        }
    }

    pub fn write_best_info(&self, info: &BestInfo) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(info)?;
        models::io::write_atomic(&self.best_info_path(), &bytes)
            .with_context(|| format!("writing {}", self.best_info_path().display()))
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
