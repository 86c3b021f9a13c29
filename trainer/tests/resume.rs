//! Resuming from a checkpoint continues exactly: 50 + 50 steps equal 100 steps.

mod common;

use common::{max_diff, run_dir, tiny_config, tiny_net};
use std::sync::atomic::AtomicBool;
use trainer::{OptimizerKind, StopReason, TrainConfig, Trainer};

fn check(cfg: &TrainConfig) {
    let stop = AtomicBool::new(false);
    let straight_dir = run_dir(3, 42);
    let mut straight = Trainer::open(straight_dir.path(), cfg, &tiny_net()).unwrap();
    let r = straight.train_steps(100, &stop).unwrap();
    assert_eq!((r.steps, r.reason), (100, StopReason::Done));

    let resumed_dir = run_dir(3, 42);
    let mut first = Trainer::open(resumed_dir.path(), cfg, &tiny_net()).unwrap();
    let r = first.train_steps(50, &stop).unwrap();
    assert_eq!(r.steps, 50);
    assert!(r.checkpoint.is_some());
    assert!(max_diff(first.net(), straight.net()) > 1e-4, "should differ after 50 of 100 steps");
    drop(first);
    let mut second = Trainer::open(resumed_dir.path(), cfg, &tiny_net()).unwrap();
    assert_eq!(second.step(), 50);
    let r = second.train_steps(50, &stop).unwrap();
    assert_eq!(r.steps, 50);

    let diff = max_diff(second.net(), straight.net());
    assert!(diff <= 1e-6, "resumed run drifted by {diff}");
    assert_eq!(second.samples_trained(), straight.samples_trained());
    assert_eq!(second.allowance(), straight.allowance());

    // Candidates every 25 steps, numbered by step.
    for step in [25, 50, 75, 100] {
        let p = runstore::RunLayout::new(resumed_dir.path()).candidate(step);
        assert!(p.exists(), "{}", p.display());
        assert_eq!(models::checkpoint::read_metadata(&p).unwrap().training_step, step);
    }
}

#[test]
fn sgd_with_loader_thread_resumes_exactly() {
    check(&tiny_config(OptimizerKind::Sgd));
}

#[test]
fn adamw_inline_loader_resumes_exactly() {
    // Checkpoints at 30 and 60 do not line up with the resume at 50, refreshes every 7.
    let cfg = TrainConfig {
        loader_threads: 0,
        checkpoint_every: 30,
        refresh_every: 7,
        lr_schedule: trainer::ScheduleKind::Cosine,
        cosine_steps: 80,
        q_ratio: 0.3,
        ..tiny_config(OptimizerKind::AdamW)
    };
    check(&cfg);
}

/// A damaged newest checkpoint (a flipped bit, a truncated file) is reported and the
/// trainer resumes from the one before; with every checkpoint damaged it stops and says
/// why instead of silently starting afresh.
#[test]
fn a_damaged_checkpoint_falls_back_to_the_previous_one() {
    use std::sync::{Arc, Mutex};
    let cfg = TrainConfig { checkpoint_every: 10, keep_checkpoints: 3, ..tiny_config(OptimizerKind::AdamW) };
    let damage = |file: &std::path::Path, how: &str| {
        let mut bytes = std::fs::read(file).unwrap();
        if how == "flip" {
            let i = bytes.len() - 5;
            bytes[i] ^= 0x10;
        } else {
            bytes.truncate(bytes.len() / 2);
        }
        std::fs::write(file, bytes).unwrap();
    };
    for (file, how) in [("net", "flip"), ("state", "flip"), ("net", "truncate"), ("state", "truncate")] {
        let dir = run_dir(3, 42);
        let stop = AtomicBool::new(false);
        let mut t = Trainer::open(dir.path(), &cfg, &tiny_net()).unwrap();
        t.train_steps(30, &stop).unwrap();
        drop(t);
        let trainer = dir.path().join("trainer");
        damage(&trainer.join(format!("step-000000030/{file}.safetensors")), how);
        let warnings = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = warnings.clone();
        let t = Trainer::open_with(
            dir.path(),
            &cfg,
            &tiny_net(),
            Box::new(move |w| sink.lock().unwrap().push(w.to_string())),
        )
        .unwrap();
        let w = warnings.lock().unwrap().join("\n");
        assert_eq!(t.step(), 20, "{how} {file}: {w}");
        assert!(
            w.contains("step-000000030") && w.contains("cannot be used") && w.contains("older checkpoint"),
            "{how} {file}: {w}"
        );
        if how == "flip" {
            assert!(w.contains("damaged"), "{how} {file}: {w}");
        }
        drop(t);
        // Every checkpoint damaged: an error naming the newest, not a fresh start.
        for step in [10, 20] {
            damage(&trainer.join(format!("step-{step:09}/net.safetensors")), "truncate");
        }
        let e = Trainer::open_with(dir.path(), &cfg, &tiny_net(), Box::new(|_| {}))
            .expect_err("no usable checkpoint is an error");
        assert!(e.to_string().contains("step-000000030"), "{e}");
    }
}
