//! End-to-end: `szero run` on `configs/smoke.toml`, straight through and with `kill -9`
//! at random moments, checking every artifact of the run directory.

mod common;

use common::{files, trainer_step};
use std::collections::HashSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/smoke.toml");

fn start(run_dir: &Path) -> Child {
    start_config(Path::new(SMOKE), run_dir, &[])
}

fn start_config(config: &Path, run_dir: &Path, extra: &[&str]) -> Child {
    Command::new(SZERO)
        .arg("run")
        .arg("--config")
        .arg(config)
        .arg("--run-dir")
        .arg(run_dir)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start szero run")
}

fn wait(mut child: Child, limit: Duration) {
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            assert!(status.success(), "szero run failed: {status}\n{err}");
            return;
        }
        assert!(t.elapsed() < limit, "szero run did not finish within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Every artifact of a finished smoke run.
fn check_run(run: &Path) {
    // The best network loads, and two generations were promoted.
    let (net, meta) = models::checkpoint::load(
        run.join("best.safetensors"),
        models::FORMAT_VERSIONS,
        models::tch::Device::Cpu,
        models::Precision::F32,
    )
    .expect("best network loads");
    assert_eq!(net.config().blocks, 1);
    assert!(meta.training_step > 0);
    let log = common::promotion_log(run).unwrap();
    assert!(log.iter().filter(|d| d.promoted).count() >= 2, "{log:?}");
    let last = log.iter().rev().find(|d| d.promoted).unwrap();
    assert_eq!(std::fs::read(&last.candidate).unwrap(), std::fs::read(run.join("best.safetensors")).unwrap());
    // Shards: all complete and readable, no two alike, games replay, samples sound.
    let shards = files(&run.join("shards"), "shard");
    assert!(!shards.is_empty());
    let mut seen = HashSet::new();
    let mut games = 0;
    for s in &shards {
        let bytes = std::fs::read(s).unwrap();
        assert!(seen.insert(bytes), "duplicate shard {}", s.display());
        for g in selfplay::shard::read(s).unwrap_or_else(|e| panic!("{e}")) {
            let game = g.replay().unwrap();
            assert_eq!(game.ply(), g.moves.len());
            for sample in &g.samples {
                let sum: f32 = sample.policy.iter().map(|p| p.1).sum();
                assert!((sum - 1.0).abs() < 1e-3);
            }
            games += 1;
        }
        assert!(s.with_extension("pgn").exists(), "PGN beside {}", s.display());
    }
    assert!(games >= 8);
    // Candidates, trainer checkpoint, TensorBoard logs of every stage, the config copy.
    assert!(files(&run.join("candidates"), "safetensors").len() >= 2);
    assert!(trainer_step(run) > 0);
    for stage in ["selfplay", "train", "promotion"] {
        let dir = run.join("tensorboard").join(stage);
        assert!(std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0) > 0, "no events in {}", dir.display());
    }
    assert!(run.join("config.toml").exists());
    models::checkpoint::read_metadata(run.join("initial.safetensors")).expect("generation-0 network kept");
    // No temporary files left behind.
    for dir in [run.to_path_buf(), run.join("shards"), run.join("candidates"), run.join("gate")] {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.contains(".tmp."), "temporary file {name} in {}", dir.display());
        }
    }
}

#[test]
fn smoke_run_produces_every_artifact() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    wait(start(&run), Duration::from_secs(240));
    check_run(&run);
}

/// Also the one end-to-end run of a network with the attack planes (`attack_planes`):
/// self-play, training and promotion all encode what the network was built with.
#[test]
fn a_budget_in_steps_stops_at_that_step_once_its_candidate_is_gated() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let config = dir.path().join("attacks.toml");
    let smoke = std::fs::read_to_string(SMOKE).unwrap();
    assert!(smoke.contains("[network]\n"));
    std::fs::write(&config, smoke.replace("[network]\n", "[network]\nattack_planes = true\n")).unwrap();
    let budget = ["--max-steps", "25"];
    // 25 is off the smoke config's candidate_every (20): the candidate is written anyway.
    wait(start_config(&config, &run, &budget), Duration::from_secs(240));
    assert_eq!(trainer_step(&run), 25, "the trainer stops at the budget");
    let log = std::fs::read_to_string(run.join("gate/log.jsonl")).unwrap();
    assert!(log.contains("step-000000025.safetensors"), "candidate 25 was gated: {log}");
    assert!(!run.join("candidates/step-000000040.safetensors").exists());
    let candidate = run.join("candidates/step-000000025.safetensors");
    let loaded = models::load_net(&candidate, models::tch::Device::Cpu, models::Precision::F32).unwrap();
    assert_eq!(loaded.inputs, models::encoding::Inputs::new(1, true), "the smoke config's history, with attacks");
    // Resumed, the run has nothing left to do and stops at once.
    let t = Instant::now();
    wait(start_config(&config, &run, &budget), Duration::from_secs(60));
    assert!(t.elapsed() < Duration::from_secs(20), "took {:?}", t.elapsed());
    assert_eq!(trainer_step(&run), 25);
}

/// How far a run directory has got: the moments at which the test below kills a run.
/// Progress, not wall time, so that a fast machine cannot finish the run between kills
/// and a slow one is not killed before it has started anything.
fn reached(run: &Path, milestone: usize) -> bool {
    match milestone {
        0 => !files(&run.join("shards"), "shard").is_empty(),
        1 => trainer_step(run) >= 10,
        2 => !files(&run.join("candidates"), "safetensors").is_empty(),
        _ => common::promotion_log(run).is_ok_and(|log| log.iter().any(|d| d.promoted)),
    }
}

#[test]
fn killed_runs_resume_without_losing_or_corrupting_anything() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    // Each run is killed a little after the run directory reaches the next milestone;
    // the extra delays vary where in the work the kill lands.
    let extra_ms = [0u64, 150, 40, 300];
    let mut max_step = 0;
    let mut kills = 0;
    for (milestone, extra) in extra_ms.into_iter().enumerate() {
        let mut child = start(&run);
        let t = Instant::now();
        let mut finished = None;
        while finished.is_none() && !reached(&run, milestone) {
            assert!(t.elapsed() < Duration::from_secs(240), "milestone {milestone} not reached in 240 s");
            finished = child.try_wait().unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(extra));
        if let Some(status) = finished.or_else(|| child.try_wait().unwrap()) {
            // Finished already: it must have done so cleanly.
            let out = child.wait_with_output().unwrap();
            assert!(status.success(), "run {kills} failed: {status}\n{}", String::from_utf8_lossy(&out.stderr));
            break;
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
        // Whatever was complete before the kill stays readable.
        for s in files(&run.join("shards"), "shard") {
            selfplay::shard::read(&s).unwrap_or_else(|e| panic!("after kill: {e}"));
        }
        if run.join("best.safetensors").exists() {
            models::checkpoint::read_metadata(run.join("best.safetensors")).expect("best pointer intact");
        }
        let step = trainer_step(&run);
        assert!(step >= max_step, "trainer went back from step {max_step} to {step}");
        max_step = step;
    }
    assert!(kills >= 3, "the run finished before it could be killed three times (after {kills} kills)");
    wait(start(&run), Duration::from_secs(300));
    assert!(trainer_step(&run) >= max_step);
    check_run(&run);
}
