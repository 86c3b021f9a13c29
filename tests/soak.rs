//! Kill-and-resume soak (long; behind `--ignored`): `szero run` on configs/default.toml,
//! killed with SIGKILL at 20 random moments over `SZERO_SOAK_MINUTES` (default 20)
//! minutes, restarted after each kill with the same command, then run to a clean stop.
//!
//!   cargo test --release --test soak -- --ignored --nocapture
//!
//! After every kill: each restart was still running when killed (it resumed without an
//! error), no shard was lost or changed, the trainer step never went back, the promotion log
//! only grew (no decision lost or rewritten), and every file under a final name is whole.
//! At the end: no temporary file, the best network is the last promoted candidate.

mod common;

use common::{check_whole, files, trainer_step};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/default.toml");

fn start(run: &Path, log: &Path, extra: &[&str]) -> Child {
    let err = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
    Command::new(SZERO)
        .args(["run", "--config", CONFIG, "--run-dir"])
        .arg(run)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("start szero run")
}

/// Shard name -> CRC of its bytes.
fn shards(run: &Path) -> BTreeMap<PathBuf, u32> {
    files(&run.join("shards"), "shard")
        .into_iter()
        .map(|p| {
            let sum = crc32(&std::fs::read(&p).unwrap());
            (p, sum)
        })
        .collect()
}

fn crc32(bytes: &[u8]) -> u32 {
    // Bitwise CRC-32 (IEEE): slow, but this is a test and the files are small.
    let mut c = 0xffff_ffffu32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0xedb8_8320 } else { c >> 1 };
        }
    }
    !c
}

fn gate_log(run: &Path) -> String {
    std::fs::read_to_string(run.join("gate/log.jsonl")).unwrap_or_default()
}

#[test]
#[ignore = "long: a 20-minute soak on the default config"]
fn twenty_kills_lose_nothing() {
    let minutes: f64 = std::env::var("SZERO_SOAK_MINUTES").ok().and_then(|m| m.parse().ok()).unwrap_or(20.0);
    let kills = 20;
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let log = dir.path().join("soak.log");
    // A fixed xorshift: the kill moments are random but the same every time.
    let mut rng = 0x5eed_50a4_u64;
    let mut uniform = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    let mean = minutes * 60.0 / kills as f64;
    let started = Instant::now();
    let (mut old_shards, mut old_log, mut old_step) = (BTreeMap::<PathBuf, u32>::new(), String::new(), 0);
    for k in 1..=kills {
        let mut child = start(&run, &log, &[]);
        let wait = Duration::from_secs_f64(mean * (0.25 + 1.5 * uniform()));
        std::thread::sleep(wait);
        if let Some(status) = child.try_wait().unwrap() {
            panic!("kill {k}: the run had exited ({status}) before it:\n{}", std::fs::read_to_string(&log).unwrap());
        }
        child.kill().unwrap();
        child.wait().unwrap();

        let new_shards = shards(&run);
        for (name, sum) in &old_shards {
            assert_eq!(new_shards.get(name), Some(sum), "kill {k}: shard {} lost or changed", name.display());
        }
        let new_log = gate_log(&run);
        let complete = old_log.rfind('\n').map_or(0, |i| i + 1);
        assert!(new_log.starts_with(&old_log[..complete]), "kill {k}: the promotion log lost or rewrote a decision");
        let step = trainer_step(&run);
        assert!(step >= old_step, "kill {k}: the trainer went back from step {old_step} to {step}");
        check_whole(&run, true);
        eprintln!(
            "kill {k} after {:.0} s ({:.1} min in all): {} shards, step {step}, {} gate decisions",
            wait.as_secs_f64(),
            started.elapsed().as_secs_f64() / 60.0,
            new_shards.len(),
            new_log.lines().count()
        );
        (old_shards, old_log, old_step) = (new_shards, new_log, step);
    }

    // A clean stop: the run ends by itself after a minute.
    let mut child = start(&run, &log, &["--max-minutes", "1"]);
    let status = child.wait().unwrap();
    assert!(status.success(), "the final run failed:\n{}", std::fs::read_to_string(&log).unwrap());
    check_whole(&run, false);
    let decisions = common::promotion_log(&run).unwrap();
    let last = decisions.iter().rev().find(|d| d.promoted).expect("something was promoted");
    assert_eq!(std::fs::read(&last.candidate).unwrap(), std::fs::read(run.join("best.safetensors")).unwrap());
    assert!(trainer_step(&run) >= old_step);
    let new_shards = shards(&run);
    assert!(old_shards.keys().all(|k| new_shards.contains_key(k)));
    eprintln!(
        "soak: {kills} kills over {:.1} min; {} shards, trainer step {}, {} promotions; nothing lost",
        started.elapsed().as_secs_f64() / 60.0,
        new_shards.len(),
        trainer_step(&run),
        decisions.iter().filter(|d| d.promoted).count()
    );
}
