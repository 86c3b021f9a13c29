//! A run made before the promotion stage's rename (`tests/fixtures/run-before-rename`: the
//! `[gate]` table, `run.gate`, its ledger as that release wrote it) still ladders and
//! resumes with this build, its old names read with a warning. The same run in an object
//! store is tested in `s3_workers_e2e.rs`.

mod common;

use common::{copy_old_run, next_generation_config, promotion_log, trainer_step};
use std::process::Command;

const SZERO: &str = env!("CARGO_BIN_EXE_szero");

#[test]
fn a_run_from_before_the_rename_ladders_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    copy_old_run(&run);
    let before = promotion_log(&run).expect("the old log reads");
    assert_eq!(before.iter().filter(|d| d.promoted).count(), 1);

    let out = Command::new(SZERO)
        .arg("ladder")
        .arg(&run)
        .args(["--rung", "random", "--games", "2", "--nodes", "4", "--max-plies", "20", "--concurrency", "1"])
        .arg("--out")
        .arg(dir.path().join("ladder"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "szero ladder: {err}");
    assert!(err.contains("[gate] table is now called [promotion]"), "{err}");
    let table = std::fs::read_to_string(dir.path().join("ladder/ladder.md")).unwrap();
    assert!(table.contains("initial") && table.contains("gen 1"), "{table}");

    let config = next_generation_config(dir.path());
    let out = Command::new(SZERO)
        .args(["run", "--max-minutes", "5", "--config"])
        .arg(&config)
        .arg("--run-dir")
        .arg(&run)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "szero run: {err}");
    assert!(err.contains("run.gate is now called run.promote"), "{err}");
    assert!(err.contains("generation 2"), "the resumed run promotes generation 2: {err}");
    assert!(trainer_step(&run) > 44, "the trainer went on from its checkpoint of step 44");
    let log = promotion_log(&run).unwrap();
    let promoted: Vec<_> = log.iter().filter(|d| d.promoted).collect();
    assert_eq!(promoted.len(), 2, "{log:?}");
    assert_eq!(log[0], before[0], "the old decision is kept as it was");
    assert!(run.join("gate/promotions/gen-000002.json").is_file());
    let newest = run.join(promoted[1].network.as_deref().expect("named in the run"));
    assert_eq!(std::fs::read(newest).unwrap(), std::fs::read(run.join("best.safetensors")).unwrap());
}
