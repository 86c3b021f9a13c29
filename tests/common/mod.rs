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
/// networks load, the gate log reads. Temporary files are an error unless `temporaries`
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
    eval::gate::read_log(run).expect("the gate log reads");
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
