//! `szero fit-eval` on the committed Fairy-Stockfish reference games, and the evaluation
//! it writes played by `szero match` and `szero uci`; bad input is an error that says
//! what is wrong.

use std::io::Write;
use std::process::{Command, Stdio};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gating-report-fairy-stockfish/games.pgn");

#[test]
fn a_fit_on_strong_games_is_played_by_match_and_uci() {
    let dir = tempfile::tempdir().unwrap();
    let eval = dir.path().join("e.json");
    let out = Command::new(SZERO)
        .args(["fit-eval", "--pgn", GAMES, "--stride", "4", "--json", "--out"])
        .arg(&eval)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["loss_learned"].as_f64().unwrap() < report["loss_constant"].as_f64().unwrap(), "{report}");
    let value = |p: &str| report["values"].as_array().unwrap().iter().find(|v| v[0] == p).unwrap()[1].as_f64().unwrap();
    for (weaker, stronger) in [("P", "N"), ("N", "R"), ("R", "Q")] {
        assert!(value(weaker) < value(stronger), "{weaker} against {stronger}: {report}");
    }

    let spec = format!("ab-material:depth=2,eval={}", eval.display());
    let out = Command::new(SZERO)
        .args(["match", "--p1", &spec, "--p2", "greedy", "--games", "2", "--max-plies", "40", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let mut uci = Command::new(SZERO)
        .args(["uci", "--mode", "alphabeta", "--eval"])
        .arg(&eval)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    uci.stdin.take().unwrap().write_all(b"uci\nisready\nposition startpos moves e2e4\ngo depth 2\n").unwrap();
    let out = uci.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("leaves scored by"));
    assert!(stdout.lines().any(|l| l.starts_with("bestmove ")), "{stdout}");
    assert!(stdout.contains("option name LeafEval type combo default learned "), "{stdout}");
}

#[test]
fn bad_input_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(SZERO).args(["fit-eval", "--out", "x.json"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pgn FILE or --run DIR"));
    let pgn = dir.path().join("one.pgn");
    std::fs::write(&pgn, "[Variant \"Seirawan\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n").unwrap();
    let out = Command::new(SZERO)
        .args(["fit-eval", "--pgn"])
        .arg(&pgn)
        .arg("--out")
        .arg(dir.path().join("e.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("too few positions"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let out = Command::new(SZERO).args(["uci", "--eval"]).arg(&bad).stdin(Stdio::null()).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a learned evaluation"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spec = format!("ab-material:depth=1,eval={}", dir.path().join("missing.json").display());
    let out = Command::new(SZERO).args(["match", "--p1", &spec, "--p2", "random", "--games", "2"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot read the evaluation file"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
