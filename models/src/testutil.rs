//! Helpers shared by the unit tests.

use crate::config::{MovesLeftConfig, NetConfig, SeConfig};
use crate::net::Net;
use std::path::{Path, PathBuf};
use tch::Tensor;

/// A tiny network that still exercises every optional part.
pub(crate) fn tiny_config(se: bool, moves_left: bool) -> NetConfig {
    NetConfig {
        blocks: 2,
        channels: 8,
        squeeze_excitation: se.then_some(SeConfig { ratio: 2 }),
        input_planes: 5,
        policy_size: 37,
        policy_channels: 2,
        value_channels: 2,
        value_hidden: 16,
        value_pooling: false,
        moves_left: moves_left.then_some(MovesLeftConfig { channels: 2, hidden: 8 }),
        material: None,
    }
}

/// Overwrites every variable, batch-norm statistics and zero-initialised scales
/// included, so that comparisons cannot pass by accident on default values.
pub(crate) fn randomize(net: &mut Net, seed: i64) {
    // Values from a formula, not from libtorch's global generator: tests run in parallel
    // and draw from it at the same time, so seeded draws were not reproducible (an unlucky
    // set once left every pooled value feature at zero).
    tch::no_grad(|| {
        for (name, mut t) in net.var_store().variables() {
            let phase = name.bytes().fold(seed as f64 * 0.618_034, |h, b| (h * 1.3 + f64::from(b)) % 1000.0);
            let r = ((Tensor::arange(t.numel() as i64, (tch::Kind::Float, t.device())) * 2.399_963 + phase).sin()
                * 0.3)
                .reshape(t.size())
                .to_kind(t.kind());
            if name.ends_with("running_var") {
                t.copy_(&(r.abs() + 0.5));
            } else {
                t.copy_(&r);
            }
        }
    });
}

/// A fresh directory under the system temp dir, removed (with its content) on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("szero-models-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    pub(crate) fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
