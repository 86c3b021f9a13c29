//! Checks shared by the end-to-end tests of whole run directories.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Every file under `dir`, recursively, sorted.
pub fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The files of `dir` (not recursive) with extension `ext`, sorted.
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == ext)).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The step of the trainer's newest complete checkpoint (0 without one).
pub fn trainer_step(run: &Path) -> u64 {
    std::fs::read_to_string(run.join("trainer/latest"))
        .ok()
        .and_then(|s| s.trim().trim_start_matches("step-").parse().ok())
        .unwrap_or(0)
}

/// Whether `path` is a temporary file of an atomic write (`.NAME.tmp.PID.N`).
pub fn is_temporary(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n.to_string_lossy().contains(".tmp."))
}

/// Every file under a final name is whole: shards decode and their games replay,
/// networks load, the promotion log reads. Temporary files are an error unless `temporaries`
/// (a SIGKILL leaves them; the next start removes them).
pub fn check_whole(run: &Path, temporaries: bool) {
    for f in all_files(run) {
        if is_temporary(&f) {
            assert!(temporaries, "temporary file left: {}", f.display());
            continue;
        }
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".shard") {
            for g in selfplay::shard::read(&f).unwrap_or_else(|e| panic!("torn shard: {e}")) {
                g.replay().unwrap_or_else(|e| panic!("{}: a game does not replay: {e}", f.display()));
            }
        } else if name.ends_with(".safetensors") && name != "state.safetensors" {
            models::checkpoint::load(&f, models::FORMAT_VERSIONS, models::tch::Device::Cpu, models::Precision::F32)
                .unwrap_or_else(|e| panic!("torn network: {e}"));
        }
    }
    promotion_log(run).expect("the promotion log reads");
}

/// The promotion decisions in the log of the run (or mirror) at `dir`.
pub fn promotion_log(dir: &Path) -> Result<Vec<runstore::Decision<eval::CandidateTest>>, runstore::LedgerError> {
    runstore::Run::local(dir).ledger().log()
}

/// Waits for `child` to exit on its own, successfully.
pub fn finish(mut child: Child, limit: Duration) {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(t.elapsed() < limit, "worker did not finish within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "worker failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
}

/// Stops `child` as a scheduler does (SIGTERM) and checks that it exits cleanly.
pub fn terminate(child: Child) {
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    finish(child, Duration::from_secs(60));
}

/// The committed run made before the promotion stage's rename
/// (`tests/fixtures/run-before-rename`, see its README).
pub const OLD_RUN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/run-before-rename");

/// Every file of the old run (not its README), as (path relative to the run, bytes).
pub fn old_run_files() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(OLD_RUN);
    all_files(root)
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "README.md"))
        .map(|f| {
            let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(&f).unwrap())
        })
        .collect()
}

/// A copy of the old run in `dir`.
pub fn copy_old_run(dir: &Path) {
    for (rel, bytes) in old_run_files() {
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
}

/// The old run's own config with its generation limit raised by one, so that a resumed
/// run has a promotion to make (still spelt with the old names).
pub fn next_generation_config(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(Path::new(OLD_RUN).join("config.toml")).unwrap();
    assert!(text.contains("[gate]") && text.contains("max_generations = 1"), "{text}");
    let path = dir.join("resume.toml");
    std::fs::write(&path, text.replace("max_generations = 1", "max_generations = 2")).unwrap();
    path
}

/// Kills the worker processes a failing test leaves behind (they would play on for ever,
/// taking the CPU from the tests after it).
#[derive(Default)]
pub struct Reaper(std::sync::Mutex<Vec<u32>>);

impl Reaper {
    /// `child`, to be killed if the test fails.
    pub fn watch(&self, child: Child) -> Child {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(child.id());
        child
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for pid in self.0.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            }
        }
    }
}
