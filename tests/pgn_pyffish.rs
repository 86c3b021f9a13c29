//! Self-play games written as PGN read back by pyffish (the reference implementation),
//! installed by `scripts/setup`; `SZERO_PYTHON` points at its interpreter.

use search::evaluator::UniformEvaluator;
use selfplay::runner::{play, RunOptions};
use selfplay::SelfplayConfig;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

fn python() -> String {
    std::env::var("SZERO_PYTHON").unwrap_or_else(|_| {
        let home = std::env::var("HOME").unwrap_or_default();
        format!("{home}/.cache/szero/venv/bin/python")
    })
}

#[test]
fn selfplay_pgn_reads_back_with_pyffish() {
    let cfg = SelfplayConfig {
        simulations: 8,
        fast_simulations: 4,
        max_plies: 120,
        threads: 2,
        games_per_thread: 3,
        ..SelfplayConfig::default()
    };
    let (tx, rx) = mpsc::channel();
    play(&cfg, &UniformEvaluator, &RunOptions { games: 6, generation: 0, seed: 11 }, &AtomicBool::new(false), tx)
        .unwrap();
    let pgn: String = rx.into_iter().map(|r| selfplay::writer::pgn_of(&r).unwrap()).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pgn");
    std::fs::write(&path, &pgn).unwrap();
    let out = Command::new(python())
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/py/read_pgn.py"))
        .arg(&path)
        .output()
        .expect("run the setup's python (scripts/setup installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pyffish could not read the PGN:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ok 6 games"), "{stdout}");
}
