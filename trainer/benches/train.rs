//! Training throughput (samples/s) of the whole trainer: shard window, sampler, loader
//! thread, forward/backward, optimiser.
//!
//! `cargo bench -p trainer --bench train` (release). Trains a 6x64 network (history 2,
//! SE, moves-left head) at batch 256 with SGD, then with AdamW, on synthetic shards.
//! (The data pipeline alone: `cargo test --release -p trainer --lib batch_building_speed
//! -- --ignored --nocapture`; it is ~1% of a CPU step.)
//! `SZERO_BENCH_DEVICE=cpu|cuda|auto` (default auto), `SZERO_BENCH_SECS` of measurement
//! per network (default 20), `SZERO_BENCH_BATCH` (default 256).
//!
//! `cargo test --all-targets` runs this binary without `--bench`: it then only trains a
//! tiny network for a few steps, so the test suite stays fast.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use trainer::{OptimizerKind, TrainConfig, Trainer};

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Trains until `budget` has passed after `warmup` steps; returns (samples/s, steps).
fn measure(
    run: &std::path::Path,
    cfg: &TrainConfig,
    net: &models::NetConfig,
    warmup: u64,
    budget: Duration,
) -> (f64, u64) {
    let mut t = Trainer::open(run, cfg, net).expect("open trainer");
    let stop = AtomicBool::new(false);
    let mut start: Option<(Instant, u64)> = None;
    let mut last = (Instant::now(), 0);
    t.train_steps_with(u64::MAX, &stop, &mut |step, _| {
        let now = Instant::now();
        if step == warmup {
            start = Some((now, step));
        }
        if let Some((t0, _)) = start {
            last = (now, step);
            if now - t0 >= budget {
                stop.store(true, Ordering::Relaxed);
            }
        }
    })
    .expect("training");
    let (t0, s0) = start.expect("warm-up finished");
    let steps = last.1 - s0;
    ((steps * cfg.batch_size as u64) as f64 / (last.0 - t0).as_secs_f64(), steps)
}

fn main() {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let device: models::DeviceChoice = env("SZERO_BENCH_DEVICE", models::DeviceChoice::Auto);
    let secs: f64 = env("SZERO_BENCH_SECS", 20.0);
    let batch: usize = env("SZERO_BENCH_BATCH", 256);
    let dir = tempfile::tempdir().expect("temp dir");
    let (shards, games) = if smoke { (1, 4) } else { (8, 32) };
    let samples: u64 = trainer::synthetic::write_shards(&dir.path().join("shards"), shards, games, 60, 1)
        .expect("synthetic shards")
        .iter()
        .sum();
    let cfg = TrainConfig {
        device,
        batch_size: if smoke { 32 } else { batch },
        min_samples: 0,
        train_ratio: 1e9,
        window_min: samples,
        checkpoint_every: u64::MAX,
        candidate_every: u64::MAX,
        ..TrainConfig::default()
    };
    println!(
        "device {:?}, torch threads {}, loader threads {}, batch {}, {} samples in the window, OMP_WAIT_POLICY={}",
        device.resolve().expect("device"),
        tch::get_num_threads(),
        cfg.loader_threads,
        cfg.batch_size,
        samples,
        std::env::var("OMP_WAIT_POLICY").unwrap_or_default()
    );
    if smoke {
        let mut t = Trainer::open(dir.path(), &cfg, &models::net_config(1, 8, 1)).expect("open trainer");
        let r = t.train_steps(3, &AtomicBool::new(false)).expect("training");
        assert_eq!(r.steps, 3);
        println!("smoke run ok (figures: cargo bench -p trainer --bench train)");
        return;
    }
    for optimizer in [OptimizerKind::Sgd, OptimizerKind::AdamW] {
        let run = dir.path().join(format!("run-{optimizer:?}"));
        std::fs::create_dir_all(&run).expect("run dir");
        std::os::unix::fs::symlink(dir.path().join("shards"), run.join("shards")).expect("link shards");
        let cfg = TrainConfig { optimizer, ..cfg.clone() };
        let (rate, steps) = measure(&run, &cfg, &models::net_config(6, 64, 2), 3, Duration::from_secs_f64(secs));
        println!(
            "6x64 (history 2, SE, moves-left), {optimizer:?}: {rate:.0} samples/s ({:.1} ms/step over {steps} steps)",
            1000.0 * cfg.batch_size as f64 / rate
        );
    }
}
