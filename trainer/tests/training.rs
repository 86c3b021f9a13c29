//! Trainer behaviour on small synthetic and real self-play runs.

mod common;

use common::{collect_warnings, max_diff, run_dir, tiny_config, tiny_net};
use models::{Net, Precision, FORMAT_VERSIONS};
use std::sync::atomic::AtomicBool;
use tch::Device;
use trainer::{OptimizerKind, StopReason, TrainConfig, TrainError, Trainer};

#[test]
fn trainer_can_move_to_another_thread() {
    fn send<T: Send>() {}
    send::<Trainer>();
}

#[test]
fn loss_decreases_and_candidates_load() {
    let dir = run_dir(1, 5);
    let cfg = TrainConfig { log_every: 10, ..tiny_config(OptimizerKind::AdamW) };
    let mut t = Trainer::open(dir.path(), &cfg, &tiny_net()).unwrap();
    let mut logged = Vec::new();
    let r = t.train_steps_with(80, &AtomicBool::new(false), &mut |_, m| logged.extend(m.cloned())).unwrap();
    assert_eq!(r.reason, StopReason::Done);
    assert_eq!(logged.len(), 8);
    let (first, last) = (&logged[0], &logged[7]);
    assert!(last.policy_loss < 0.8 * first.policy_loss, "policy {} -> {}", first.policy_loss, last.policy_loss);
    assert!(last.loss < first.loss);
    assert!(last.policy_accuracy > first.policy_accuracy);
    for m in &logged {
        assert!(m.loss.is_finite() && m.grad_norm.is_finite() && m.samples_per_sec > 0.0);
        assert!((0.0..=1.0).contains(&m.value_accuracy));
    }
    assert_eq!(r.candidates.len(), 3);
    let (net, meta) = models::checkpoint::load(&r.candidates[2], FORMAT_VERSIONS, Device::Cpu, Precision::F32).unwrap();
    assert_eq!(meta.training_step, 75);
    assert_eq!(net.config(), &tiny_net());
}

#[test]
fn train_data_ratio_limits_training_until_new_data() {
    let dir = run_dir(1, 6);
    let samples = 4 * 20; // 4 games x 20 plies
    let cfg = TrainConfig { train_ratio: 1.0, ..tiny_config(OptimizerKind::Sgd) };
    let mut t = Trainer::open(dir.path(), &cfg, &tiny_net()).unwrap();
    assert_eq!(t.total_samples(), samples);
    let stop = AtomicBool::new(false);
    let r = t.train_steps(u64::MAX, &stop).unwrap();
    // 80 samples at ratio 1 allow 5 batches of 16.
    assert_eq!(r.steps, 5);
    assert!(matches!(r.reason, StopReason::NeedData { total_samples: 80, .. }), "{:?}", r.reason);
    assert!(r.checkpoint.is_some());
    // New data: training continues where it stopped.
    trainer::synthetic::write_shard(&dir.path().join("shards/shard-000001.shard"), 4, 20, 60).unwrap();
    let r = t.train_steps(100, &stop).unwrap();
    assert_eq!((r.steps, t.step()), (5, 10));
    assert_eq!(t.samples_trained(), 160);

    // min_samples holds training back entirely.
    let cfg = TrainConfig { min_samples: 1_000, ..cfg };
    let dir = run_dir(1, 6);
    let mut t = Trainer::open(dir.path(), &cfg, &tiny_net()).unwrap();
    let r = t.train_steps(3, &stop).unwrap();
    assert_eq!(r.steps, 0);
    assert!(matches!(r.reason, StopReason::NeedData { min_samples: 1_000, .. }));
    assert!(r.checkpoint.is_none(), "nothing trained, nothing to save");
}

#[test]
fn stop_flag_and_empty_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Trainer::open(dir.path(), &tiny_config(OptimizerKind::Sgd), &tiny_net()).unwrap();
    assert_eq!(t.total_samples(), 0);
    let r = t.train_steps(10, &AtomicBool::new(false)).unwrap();
    assert!(matches!(r.reason, StopReason::NeedData { total_samples: 0, .. }));
    let dir = run_dir(1, 1);
    let mut t = Trainer::open(dir.path(), &tiny_config(OptimizerKind::Sgd), &tiny_net()).unwrap();
    let r = t.train_steps(10, &AtomicBool::new(true)).unwrap();
    assert_eq!((r.steps, r.reason), (0, StopReason::Stopped));
}

#[test]
fn corrupt_shards_are_skipped_with_a_warning() {
    let dir = run_dir(2, 8);
    let shards = dir.path().join("shards");
    let bytes = std::fs::read(shards.join("shard-000000.shard")).unwrap();
    std::fs::write(shards.join("shard-000000.shard"), &bytes[..bytes.len() / 2]).unwrap();
    let mut flipped = std::fs::read(shards.join("shard-000001.shard")).unwrap();
    let n = flipped.len();
    flipped[n - 10] ^= 0xFF;
    std::fs::write(shards.join("shard-000002.shard"), &flipped).unwrap();
    let (sink, warnings) = collect_warnings();
    let mut t = Trainer::open_with(dir.path(), &tiny_config(OptimizerKind::Sgd), &tiny_net(), sink).unwrap();
    assert_eq!(t.total_samples(), 80, "only shard-000001 is usable");
    let w = warnings.lock().unwrap().clone();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].contains("shard-000000.shard") && w[0].contains("truncated"), "{w:?}");
    assert!(w[1].contains("shard-000002.shard") && w[1].contains("checksum"), "{w:?}");
    assert_eq!(t.train_steps(3, &AtomicBool::new(false)).unwrap().steps, 3);
    // Reopening does not warn again about shards already judged.
    drop(t);
    let (sink, warnings) = collect_warnings();
    Trainer::open_with(dir.path(), &tiny_config(OptimizerKind::Sgd), &tiny_net(), sink).unwrap();
    assert!(warnings.lock().unwrap().is_empty());
}

#[test]
fn fresh_trainer_starts_from_best() {
    let dir = run_dir(1, 2);
    tch::manual_seed(99);
    let best = Net::new(tiny_net(), Device::Cpu).unwrap();
    models::checkpoint::save(&best, dir.path().join("best.safetensors"), FORMAT_VERSIONS, 7).unwrap();
    let t = Trainer::open(dir.path(), &tiny_config(OptimizerKind::Sgd), &tiny_net()).unwrap();
    assert_eq!(t.step(), 7);
    assert_eq!(max_diff(t.net(), &best), 0.0);

    // A best network of another architecture is a clear error.
    let mut other = tiny_net();
    other.channels = 4;
    let e = Trainer::open(dir.path(), &tiny_config(OptimizerKind::Sgd), &other).unwrap_err();
    assert!(e.to_string().contains("best.safetensors") && e.to_string().contains("channels"), "{e}");
}

#[test]
fn bad_settings_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = TrainConfig { precision: Precision::Bf16, ..tiny_config(OptimizerKind::Sgd) };
    assert!(matches!(Trainer::open(dir.path(), &cfg, &tiny_net()), Err(TrainError::Unsupported(_))));
    let cfg = TrainConfig { batch_size: 0, ..tiny_config(OptimizerKind::Sgd) };
    assert!(matches!(Trainer::open(dir.path(), &cfg, &tiny_net()), Err(TrainError::Config(_))));
    let mut net = tiny_net();
    net.input_planes = 3;
    let e = Trainer::open(dir.path(), &tiny_config(OptimizerKind::Sgd), &net).unwrap_err();
    assert!(e.to_string().contains("input planes"), "{e}");
}

#[test]
fn trains_on_real_selfplay_shards() {
    use search::evaluator::UniformEvaluator;
    use selfplay::runner::{play, RunOptions};
    let cfg = selfplay::SelfplayConfig {
        simulations: 8,
        fast_simulations: 2,
        full_search_fraction: 0.5,
        max_plies: 30,
        games_per_thread: 3,
        threads: 1,
        ..selfplay::SelfplayConfig::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    play(&cfg, &UniformEvaluator, &RunOptions { games: 3, generation: 0, seed: 3 }, &AtomicBool::new(false), tx)
        .unwrap();
    let games: Vec<_> = rx.into_iter().collect();
    let samples: usize = games.iter().map(|g| g.samples.len()).sum();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shards")).unwrap();
    selfplay::shard::write(&dir.path().join("shards/gen0-0.shard"), &games).unwrap();
    let (sink, warnings) = collect_warnings();
    let mut t = Trainer::open_with(dir.path(), &tiny_config(OptimizerKind::Sgd), &tiny_net(), sink).unwrap();
    assert_eq!(t.total_samples(), samples as u64);
    let r = t.train_steps(4, &AtomicBool::new(false)).unwrap();
    assert_eq!(r.steps, 4);
    assert!(warnings.lock().unwrap().is_empty(), "{:?}", warnings.lock().unwrap());
}
