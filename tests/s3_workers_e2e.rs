//! End-to-end on an S3 run (`scripts/test` starts radosgw on 127.0.0.1 and sets the AWS_*
//! variables and `SZERO_S3_BUCKET`): three self-play workers, a trainer and a gate as
//! separate `szero worker` processes, each with its own mirror as if on its own machine,
//! on `configs/smoke.toml`. Two workers and the trainer are killed with SIGKILL during the
//! run and started again. Afterwards, in the store: every shard decodes and no two are the
//! same games, every shard a worker wrote is there, the claims are generations 1..N with
//! one promoted decision each in the promotion log, and the trainer never went back a step.
//! `szero ladder` and `szero gating-report` then read the run from the store, on a mirror
//! of their own.

mod common;

use common::{files, finish, next_generation_config, old_run_files, terminate, trainer_step, Reaper};
use runstore::{RunAddress, Store};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/smoke.toml");

/// The run's address in the test bucket, if a server is configured.
fn s3_run() -> Option<RunAddress> {
    let Ok(bucket) = std::env::var("SZERO_S3_BUCKET") else {
        assert!(std::env::var_os("SZERO_REQUIRE_S3").is_none(), "SZERO_REQUIRE_S3 is set but SZERO_S3_BUCKET is not");
        eprintln!("no S3 server configured (SZERO_S3_BUCKET): not run");
        return None;
    };
    // Tests of this file run in parallel and may start in the same millisecond: a counter
    // keeps their runs apart (they once shared one and saw each other's shards).
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis();
    Some(RunAddress::S3 { bucket, prefix: format!("e2e/workers-{}-{stamp}-{n}", std::process::id()) })
}

/// The harness's own reads of the store, patient with a server that stops answering for a
/// while (a short radosgw stall here once outlasted the run store's 30 s of retries): the
/// stages under test ride such outages out, and the checks of their work should too. Any
/// other error, or silence past three minutes, fails the test.
fn patient<T>(mut read: impl FnMut() -> Result<T, runstore::StoreError>) -> T {
    let start = Instant::now();
    loop {
        match read() {
            Ok(value) => return value,
            Err(e) if e.is_unreachable() && start.elapsed() < Duration::from_secs(180) => {
                eprintln!("the test's store read: {e}; trying again");
                std::thread::sleep(Duration::from_secs(2));
            }
            Err(e) => panic!("the test's store read: {e}"),
        }
    }
}

fn worker(reaper: &Reaper, address: &RunAddress, mirror: &Path, args: &[&str]) -> Child {
    let child = Command::new(SZERO)
        .arg("worker")
        .args(args)
        .args(["--config", SMOKE, "--run", &address.to_string(), "--mirror"])
        .arg(mirror)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start szero worker");
    reaper.watch(child)
}

fn kill9(mut child: Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Waits until `done`, failing after `limit` with `what`.
fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < limit, "{what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn shards_in_store(store: &Store, worker: &str) -> usize {
    let prefix = format!("selfplay-{worker}-");
    patient(|| store.list("shards"))
        .iter()
        .filter(|o| o.name().starts_with(&prefix) && o.name().ends_with(".shard"))
        .count()
}

#[test]
fn worker_processes_on_an_s3_run_survive_kills() {
    let Some(address) = s3_run() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mirror = |name: &str| -> PathBuf { dir.path().join(name) };
    let store = Store::open(&address).unwrap();
    let reaper = Reaper::default();

    let a = worker(&reaper, &address, &mirror("a"), &["selfplay", "--id", "a", "--games", "48"]);
    let b = worker(&reaper, &address, &mirror("b"), &["selfplay", "--id", "b", "--games", "1000000"]);
    let c = worker(&reaper, &address, &mirror("c"), &["selfplay", "--id", "c", "--games", "1000000"]);
    let train = worker(&reaper, &address, &mirror("trainer"), &["train", "--id", "trainer"]);
    let gate = worker(&reaper, &address, &mirror("gate"), &["promote", "--id", "promote"]);

    // SIGKILL b and c once each has published a shard; start them again on their mirrors.
    wait_for("workers b and c publish a shard", Duration::from_secs(180), || {
        shards_in_store(&store, "b") > 0 && shards_in_store(&store, "c") > 0
    });
    kill9(b);
    kill9(c);
    let b = worker(&reaper, &address, &mirror("b"), &["selfplay", "--id", "b", "--games", "32"]);
    let c = worker(&reaper, &address, &mirror("c"), &["selfplay", "--id", "c", "--games", "16"]);

    // SIGKILL the trainer once it has committed a checkpoint to the store, and start it
    // again on another machine (a fresh mirror): it resumes from the store's checkpoint,
    // never going back a step.
    let committed = || {
        patient(|| store.list("trainer/committed"))
            .iter()
            .filter_map(|o| o.name().strip_prefix("step-")?.parse().ok())
            .max()
    };
    wait_for("a checkpoint in the store", Duration::from_secs(240), || committed().is_some());
    kill9(train);
    let before: u64 = committed().unwrap();
    let train = worker(&reaper, &address, &mirror("trainer2"), &["train", "--id", "trainer"]);

    finish(a, Duration::from_secs(300));
    finish(b, Duration::from_secs(300));
    finish(c, Duration::from_secs(300));
    let claims = || patient(|| store.list("gate/promotions")).len();
    wait_for("two promotions", Duration::from_secs(300), || claims() >= 2);
    wait_for("a checkpoint after the restart", Duration::from_secs(120), || trainer_step(&mirror("trainer2")) > before);
    terminate(train);
    terminate(gate);
    // It went on from the store's checkpoint: its first candidate is past that step.
    let first = files(&mirror("trainer2").join("candidates"), "safetensors")
        .iter()
        .filter_map(|f| f.file_stem()?.to_string_lossy().strip_prefix("step-")?.parse::<u64>().ok())
        .min();
    assert!(first.is_some_and(|s| s > before), "first candidate after the restart {first:?}, checkpoint {before}");

    // Every shard in the store is whole, and no two hold the same games.
    let shards: Vec<_> = patient(|| store.list("shards")).into_iter().filter(|o| o.key.ends_with(".shard")).collect();
    let mut seen = HashSet::new();
    let scratch = dir.path().join("check.shard");
    for o in &shards {
        assert!(patient(|| store.download(&o.key, &scratch)));
        let games = selfplay::shard::read(&scratch).unwrap_or_else(|e| panic!("{}: torn shard: {e}", o.key));
        assert!(!games.is_empty());
        for g in &games {
            g.replay().unwrap_or_else(|e| panic!("{}: a game does not replay: {e}", o.key));
        }
        assert!(seen.insert(std::fs::read(&scratch).unwrap()), "{}: the same games twice", o.key);
    }
    // No shard a worker wrote is missing (a killed worker publishes its leftovers on restart).
    let keys: HashSet<String> = shards.iter().map(|o| o.key.clone()).collect();
    for w in ["a", "b", "c"] {
        for f in files(&mirror(w).join("shards"), "shard") {
            let key = format!("shards/{}", f.file_name().unwrap().to_string_lossy());
            assert!(keys.contains(&key), "{key} of worker {w} is not in the store");
        }
    }
    assert!(shards_in_store(&store, "a") >= 48 / 8);
    assert!(shards_in_store(&store, "b") > 32 / 8 && shards_in_store(&store, "c") > 16 / 8);

    // Claims are generations 1..N, each promoted exactly once in the promotion log.
    let gens: Vec<String> =
        patient(|| store.list("gate/promotions")).into_iter().map(|o| o.name().to_string()).collect();
    let expected: Vec<String> = (1..=gens.len()).map(|g| format!("gen-{g:06}.json")).collect();
    assert_eq!(gens, expected);
    let log = common::promotion_log(&mirror("gate")).unwrap();
    let promoted: Vec<u64> = log.iter().filter(|d| d.promoted).filter_map(|d| d.test.candidate_step).collect();
    assert_eq!(promoted.len(), gens.len(), "{log:?}");
    assert_eq!(promoted.iter().collect::<HashSet<_>>().len(), promoted.len(), "a candidate promoted twice");
    for d in log.iter().filter(|d| d.promoted) {
        let key = d.network.as_deref().expect("a promotion names its network in the run");
        assert!(patient(|| store.get(key)).is_some(), "{key} promoted but not in the store");
    }
    // Every decision is recorded in the store too, and a gate on a fresh mirror rebuilds
    // the same log from the store.
    assert_eq!(patient(|| store.list("gate/decisions")).len(), log.len(), "{log:?}");
    let fresh = runstore::Run::open(&address, Some(&mirror("gate2"))).unwrap();
    fresh.ledger().complete().unwrap();
    let rebuilt = common::promotion_log(&mirror("gate2")).unwrap();
    let summary = |log: &[runstore::Decision<eval::CandidateTest>]| -> HashSet<(u64, Option<u64>, bool)> {
        log.iter().map(|d| (d.time_unix, d.test.candidate_step, d.promoted)).collect()
    };
    assert_eq!(rebuilt.len(), log.len());
    assert_eq!(summary(&rebuilt), summary(&log));
    // The run's reference files came from the first process, once.
    for key in ["config.toml", "initial.safetensors"] {
        assert!(patient(|| store.get(key)).is_some(), "{key}");
    }
    assert_eq!(patient(|| store.list("sessions")).len(), 2, "the trainer's two starts");

    // The ladder and the gating report read the run from the store on a fresh mirror.
    let ladder_out = dir.path().join("ladder-out");
    let out = Command::new(SZERO)
        .args(["ladder", &address.to_string(), "--rung", "random", "--games", "2", "--nodes", "4"])
        .args(["--max-plies", "20", "--concurrency", "1", "--mirror"])
        .arg(mirror("ladder"))
        .arg("--out")
        .arg(&ladder_out)
        .output()
        .unwrap();
    assert!(out.status.success(), "szero ladder: {}", String::from_utf8_lossy(&out.stderr));
    let table = std::fs::read_to_string(ladder_out.join("ladder.md")).unwrap();
    assert!(table.contains("initial") && table.contains(&format!("gen {}", gens.len())), "{table}");
    let report = dir.path().join("report");
    let out = Command::new(SZERO)
        .args(["gating-report", "--run", &address.to_string(), "--mirror"])
        .arg(mirror("report"))
        .arg("--out")
        .arg(&report)
        .output()
        .unwrap();
    assert!(out.status.success(), "szero gating-report: {}", String::from_utf8_lossy(&out.stderr));
    assert!(report.join("report.html").is_file());
    assert_eq!(files(&mirror("report").join("shards"), "shard").len(), shards.len(), "every shard mirrored");
}

/// `szero selfplay`, `train` and `gate` on an S3 run, each on a mirror of its own as if on
/// its own machine: the games, candidates, checkpoint and promotion go into the store; a
/// trainer on a fresh mirror resumes from the store's checkpoint; and a candidate from
/// outside the run is refused before any game is played.
#[test]
fn single_stage_commands_on_an_s3_run() {
    let Some(address) = s3_run() else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&address).unwrap();
    let szero = |mirror: &str, args: &[&str]| {
        let out = Command::new(SZERO)
            .args(args)
            .args(["--config", SMOKE, "--run", &address.to_string(), "--mirror"])
            .arg(dir.path().join(mirror))
            .stdin(Stdio::null())
            .output()
            .expect("start szero");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.success(), stderr)
    };
    let names =
        |prefix: &str| -> Vec<String> { patient(|| store.list(prefix)).iter().map(|o| o.name().to_string()).collect() };

    let (ok, err) = szero("selfplay", &["selfplay", "--games", "12"]);
    assert!(ok, "{err}");
    let shards = names("shards");
    assert!(!shards.is_empty() && shards.iter().all(|s| s.starts_with("gen0000-")), "{shards:?}");

    let (ok, err) = szero("trainer", &["train", "--steps", "2"]);
    assert!(ok, "{err}");
    assert_eq!(names("candidates"), ["step-000000002.safetensors"]);
    assert_eq!(names("trainer/committed"), ["step-000000002"]);

    let (ok, err) = szero("trainer2", &["train", "--steps", "1"]);
    assert!(ok, "{err}");
    assert!(err.contains("resuming from the store's checkpoint of step 2"), "{err}");
    assert_eq!(names("candidates"), ["step-000000002.safetensors", "step-000000003.safetensors"]);

    let outside = dir.path().join("outside.safetensors");
    std::fs::copy(dir.path().join("trainer2/candidates/step-000000003.safetensors"), &outside).unwrap();
    let (ok, err) = szero("gate", &["promote", "--mode", "always", "--candidate", outside.to_str().unwrap()]);
    assert!(!ok && err.contains("only the run's own networks"), "{err}");
    assert!(names("gate/promotions").is_empty());

    let (ok, err) =
        szero("gate", &["promote", "--mode", "always", "--candidate", "candidates/step-000000003.safetensors"]);
    assert!(ok, "{err}");
    assert_eq!(names("gate/promotions"), ["gen-000001.json"]);
    let claim = patient(|| store.get("gate/promotions/gen-000001.json")).unwrap();
    let claim: serde_json::Value = serde_json::from_slice(&claim).unwrap();
    assert_eq!(claim["network"], "candidates/step-000000003.safetensors");
    let decisions = names("gate/decisions");
    assert!(decisions.len() == 1 && decisions[0].ends_with("-step-000000003.json"), "{decisions:?}");
}

/// A run from before the promotion stage's rename, in the store as that release left an
/// S3 run (its files, the trainer's checkpoint commit, each decision recorded once):
/// `szero ladder` reads it on a fresh mirror, and `szero run` resumes it and promotes
/// generation 2, its old config names read with a warning.
#[test]
fn a_run_from_before_the_rename_resumes_from_the_store() {
    let Some(address) = s3_run() else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&address).unwrap();
    for (rel, bytes) in old_run_files() {
        store.put(&rel, &bytes).unwrap();
        if rel == "gate/log.jsonl" {
            for line in String::from_utf8(bytes).unwrap().lines() {
                let d: serde_json::Value = serde_json::from_str(line).unwrap();
                let stem =
                    Path::new(d["candidate"].as_str().unwrap()).file_stem().unwrap().to_string_lossy().into_owned();
                let key = format!("gate/decisions/{:011}-{stem}.json", d["time_unix"].as_u64().unwrap());
                store.put(&key, line.as_bytes()).unwrap();
            }
        }
    }
    store.put("trainer/committed/step-000000044", b"step-000000044").unwrap();

    let out = Command::new(SZERO)
        .args(["ladder", &address.to_string(), "--rung", "random", "--games", "2", "--nodes", "4"])
        .args(["--max-plies", "20", "--concurrency", "1", "--mirror"])
        .arg(dir.path().join("ladder"))
        .arg("--out")
        .arg(dir.path().join("ladder-out"))
        .output()
        .unwrap();
    assert!(out.status.success(), "szero ladder: {}", String::from_utf8_lossy(&out.stderr));
    let table = std::fs::read_to_string(dir.path().join("ladder-out/ladder.md")).unwrap();
    assert!(table.contains("initial") && table.contains("gen 1"), "{table}");

    let out = Command::new(SZERO)
        .args(["run", "--max-minutes", "5", "--config"])
        .arg(next_generation_config(dir.path()))
        .args(["--run-dir", &address.to_string(), "--mirror"])
        .arg(dir.path().join("run"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "szero run: {err}");
    assert!(err.contains("[gate] table is now called [promotion]"), "{err}");
    assert!(err.contains("resuming from the store's checkpoint of step 44"), "{err}");
    let claims: Vec<String> =
        patient(|| store.list("gate/promotions")).into_iter().map(|o| o.name().to_string()).collect();
    assert_eq!(claims, ["gen-000001.json", "gen-000002.json"]);
    let decisions = patient(|| store.list("gate/decisions"));
    assert!(decisions.len() >= 2, "the old decision and the new promotion are recorded: {decisions:?}");
}
