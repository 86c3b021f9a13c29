//! `configs/h200.toml` on the CPU, so that the first GPU window does not meet a crash: its
//! code paths (12 self-play threads x 256 games merged by the cross-thread batcher, the
//! `auto` device and precision that mean CUDA + bf16 on a GPU and fp32 here, the trainer's
//! large batches, the promotion test) run with the network shrunk to a tiny one until the trainer
//! has trained on self-play's games (about a minute on two quiet cores; the test waits
//! for the work, not for a time, so a loaded machine only makes it slower).

use std::process::Command;
use std::time::{Duration, Instant};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const H200: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/h200.toml");

/// `table.key = value` on a parsed config.
fn set(cfg: &mut toml::Value, table: &str, key: &str, value: toml::Value) {
    let t = cfg.get_mut(table).and_then(|t| t.as_table_mut()).unwrap_or_else(|| panic!("no [{table}]"));
    t.insert(key.into(), value);
}

#[test]
fn h200_config_runs_on_the_cpu_with_a_tiny_network() {
    let text = std::fs::read_to_string(H200).unwrap();
    let mut cfg: toml::Value = text.parse().unwrap();
    // The shipped file must not pin CUDA: `auto` runs everywhere.
    for table in ["network", "train", "promotion"] {
        for key in ["device", "precision"] {
            let v = cfg[table].get(key).and_then(|v| v.as_str()).unwrap_or("auto");
            assert_eq!(v, "auto", "[{table}] {key} = {v:?} in configs/h200.toml");
        }
    }
    assert_eq!(cfg["selfplay"]["threads"].as_integer(), Some(12));
    assert_eq!(cfg["selfplay"]["games_per_thread"].as_integer(), Some(256));
    use toml::Value::{Float, Integer, String as Str};
    for (key, v) in [("blocks", 1), ("channels", 8), ("policy_channels", 2), ("value_channels", 2)] {
        set(&mut cfg, "network", key, Integer(v));
    }
    // The GPU path's batcher, forced on the CPU; its threads in two batches that take turns.
    set(&mut cfg, "selfplay", "network_sharing", Str("merged".into()));
    set(&mut cfg, "selfplay", "merged_batches", Integer(2));
    set(&mut cfg, "selfplay", "simulations", Integer(8));
    set(&mut cfg, "selfplay", "fast_simulations", Integer(2));
    set(&mut cfg, "selfplay", "max_plies", Integer(60));
    for (key, v) in [
        ("min_samples", 2000),
        ("window_min", 4000),
        ("batch_size", 512),
        ("candidate_every", 20),
        ("checkpoint_every", 20),
    ] {
        set(&mut cfg, "train", key, Integer(v));
    }
    for (key, v) in [("games", 4), ("nodes", 4)] {
        set(&mut cfg, "promotion", key, Integer(v));
    }
    // A bound only: the run is stopped (as Ctrl-C stops it) once the trainer got going.
    set(&mut cfg, "run", "max_minutes", Float(10.0));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("h200-tiny.toml");
    std::fs::write(&config, toml::to_string(&cfg).unwrap()).unwrap();
    let run = dir.path().join("run");
    let log_path = dir.path().join("run.log");
    let mut child = Command::new(SZERO)
        .arg("run")
        .arg("--config")
        .arg(&config)
        .arg("--run-dir")
        .arg(&run)
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .unwrap();
    let trainer_step = || -> u64 {
        std::fs::read_to_string(run.join("trainer/latest"))
            .ok()
            .and_then(|s| s.trim().trim_start_matches("step-").parse().ok())
            .unwrap_or(0)
    };
    let started = Instant::now();
    while trainer_step() < 20 && started.elapsed() < Duration::from_secs(600) && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(500));
    }
    if child.try_wait().unwrap().is_none() {
        let interrupted = Command::new("kill").arg("-INT").arg(child.id().to_string()).status().unwrap();
        assert!(interrupted.success());
    }
    let status = child.wait().unwrap();
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(status.success(), "szero run failed:\n{log}");
    assert!(log.contains("self-play 12 workers"), "{log}");
    assert!(log.contains("merged"), "the self-play network was not the cross-thread batcher:\n{log}");
    assert!(log.contains("6 callers a batch, 1536 rows at most"), "not two batches of 6 threads:\n{log}");
    // Games were played and written, and the trainer trained on them.
    let games: usize = std::fs::read_dir(run.join("shards"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "shard"))
        .map(|e| selfplay::shard::read(&e.path()).unwrap().len())
        .sum();
    assert!(games > 0, "no games written\n{log}");
    let step = trainer_step();
    assert!(step >= 20, "trainer at step {step} after {:?}\n{log}", started.elapsed());
}
