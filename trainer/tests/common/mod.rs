//! Helpers shared by the trainer's integration tests.
#![allow(dead_code)]

use models::{encoding, policy_index, MaterialHeadConfig, MovesLeftConfig, NetConfig, SeConfig};
use std::path::Path;
use std::sync::{Arc, Mutex};
use trainer::{OptimizerKind, TrainConfig};

/// A tiny network with every head (1 block x 8 channels, history 1).
pub fn tiny_net() -> NetConfig {
    NetConfig {
        blocks: 1,
        channels: 8,
        squeeze_excitation: Some(SeConfig { ratio: 2 }),
        input_planes: encoding::planes(1) as i64,
        policy_size: policy_index::POLICY_SIZE as i64,
        policy_channels: 2,
        value_channels: 2,
        value_hidden: 16,
        value_pooling: false,
        moves_left: Some(MovesLeftConfig { channels: 2, hidden: 8 }),
        material: Some(MaterialHeadConfig { channels: 2, hidden: 8, horizon: 4, value_mix: 0.0 }),
    }
}

/// Small, fast settings on the CPU with a single libtorch thread (deterministic).
pub fn tiny_config(optimizer: OptimizerKind) -> TrainConfig {
    TrainConfig {
        device: models::DeviceChoice::Cpu,
        torch_threads: 1,
        batch_size: 16,
        optimizer,
        learning_rate: if optimizer == OptimizerKind::Sgd { 0.02 } else { 3e-3 },
        warmup_steps: 5,
        window_min: 100,
        window_max: 100_000,
        min_samples: 0,
        train_ratio: 100.0,
        shuffle_buffer: 200,
        prefetch_batches: 3,
        loader_threads: 1,
        refresh_every: 10,
        checkpoint_every: 20,
        candidate_every: 25,
        log_every: 5,
        ..TrainConfig::default()
    }
}

/// A run directory with `shards` synthetic shards of 4 games x 20 plies.
pub fn run_dir(shards: usize, seed: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    trainer::synthetic::write_shards(&dir.path().join("shards"), shards, 4, 20, seed).unwrap();
    dir
}

/// A warning sink that keeps the warnings.
pub fn collect_warnings() -> (trainer::WarningSink, Arc<Mutex<Vec<String>>>) {
    let store = Arc::new(Mutex::new(Vec::new()));
    let s = Arc::clone(&store);
    (Box::new(move |w: &str| s.lock().unwrap().push(w.to_string())), store)
}

/// Largest absolute difference between the variables of two networks.
pub fn max_diff(a: &models::Net, b: &models::Net) -> f64 {
    let (va, vb) = (a.var_store().variables(), b.var_store().variables());
    assert_eq!(va.len(), vb.len());
    va.iter().map(|(k, t)| (t - &vb[k]).abs().max().double_value(&[])).fold(0.0, f64::max)
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}
