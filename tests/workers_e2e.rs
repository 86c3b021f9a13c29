//! End-to-end: the stages of one run as separate `szero worker` processes on
//! `configs/smoke.toml`: two self-play workers (one of them killed with SIGKILL and
//! started again), one trainer, one gate; the run must come out whole, with every
//! worker's shards under its own name, candidates trained on them, and promotions logged.

mod common;

use common::{check_whole, files, finish, terminate, trainer_step, Reaper};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/smoke.toml");

fn worker(reaper: &Reaper, run: &Path, args: &[&str]) -> Child {
    reaper.watch(
        Command::new(SZERO)
            .arg("worker")
            .args(args)
            .args(["--config", SMOKE, "--run"])
            .arg(run)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start szero worker"),
    )
}

fn shards_of(run: &Path, id: &str) -> usize {
    let prefix = format!("selfplay-{id}-");
    files(&run.join("shards"), "shard")
        .iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&prefix))
        .count()
}

#[test]
fn separate_worker_processes_make_one_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path();
    let reaper = Reaper::default();
    let a = worker(&reaper, run, &["selfplay", "--id", "a", "--games", "48"]);
    let b = worker(&reaper, run, &["selfplay", "--id", "b", "--games", "1000000"]);
    let train = worker(&reaper, run, &["train", "--id", "trainer"]);
    let gate = worker(&reaper, run, &["promote", "--id", "promote"]);
    // Kill b with SIGKILL once it has written a shard, then start it again.
    let t = Instant::now();
    let mut b = b;
    while shards_of(run, "b") == 0 {
        // A worker that died, or never got going, says why on its standard error.
        let exited = b.try_wait().unwrap();
        if exited.is_some() || t.elapsed() > Duration::from_secs(120) {
            let _ = b.kill();
            let out = b.wait_with_output().unwrap();
            panic!(
                "worker b wrote no shard in {:.0?} ({}); a: {} shards, trainer at step {}; its stderr:\n{}",
                t.elapsed(),
                exited.map_or("still running".to_string(), |s| s.to_string()),
                shards_of(run, "a"),
                trainer_step(run),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    b.kill().unwrap();
    b.wait().unwrap();
    let b = worker(&reaper, run, &["selfplay", "--id", "b", "--games", "32"]);
    finish(a, Duration::from_secs(300));
    finish(b, Duration::from_secs(300));
    // The trainer and the promotion stage keep going on the games there are: wait for a promotion.
    let t = Instant::now();
    let promoted = || common::promotion_log(run).map_or(0, |log| log.iter().filter(|d| d.promoted).count());
    while promoted() < 2 {
        assert!(t.elapsed() < Duration::from_secs(300), "no two promotions within 300 s (step {})", trainer_step(run));
        std::thread::sleep(Duration::from_millis(300));
    }
    terminate(train);
    terminate(gate);

    assert!(shards_of(run, "a") >= 48 / 8, "worker a: {} shards", shards_of(run, "a"));
    assert!(shards_of(run, "b") > 32 / 8, "worker b: {} shards", shards_of(run, "b"));
    assert_eq!(files(&run.join("shards"), "shard").len(), shards_of(run, "a") + shards_of(run, "b"));
    assert!(trainer_step(run) > 0);
    // A SIGKILL may leave a temporary file; nothing under a final name is torn.
    check_whole(run, true);
    let log = common::promotion_log(run).unwrap();
    let mut steps: Vec<u64> = log.iter().filter(|d| d.promoted).filter_map(|d| d.test.candidate_step).collect();
    let n = steps.len();
    steps.dedup();
    assert_eq!(steps.len(), n, "a candidate promoted twice: {log:?}");
    assert!(run.join("tensorboard/selfplay-a").is_dir() && run.join("tensorboard/selfplay-b").is_dir());
}
