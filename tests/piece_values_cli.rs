//! `szero piece-values` on the committed Fairy-Stockfish reference games: the measured
//! values come out in the order any chess player expects, and bad input is an error.

use std::process::Command;

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/gating-report-fairy-stockfish/games.pgn");

#[test]
fn strong_games_order_the_pieces() {
    let out =
        Command::new(SZERO).args(["piece-values", "--pgn", GAMES, "--bootstrap", "2", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let value = |f: &str| {
        v["values"].as_array().unwrap().iter().find(|x| x["feature"] == f).unwrap()["pawns"].as_f64().unwrap()
    };
    assert_eq!(value("P"), 1.0);
    assert!(v["games"].as_u64().unwrap() >= 990, "{v}");
    for (weaker, stronger) in [("P", "N"), ("N", "R"), ("B", "R"), ("R", "H"), ("R", "E"), ("R", "Q")] {
        assert!(value(weaker) < value(stronger), "{weaker} {} >= {stronger} {}", value(weaker), value(stronger));
    }
}

#[test]
fn no_games_is_an_error_that_says_what_to_give() {
    let out = Command::new(SZERO).args(["piece-values"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pgn FILE or --run DIR"));
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("one.pgn");
    std::fs::write(&pgn, "[Variant \"Seirawan\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n").unwrap();
    let out = Command::new(SZERO).args(["piece-values", "--pgn"]).arg(&pgn).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("too few games"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_run_that_is_not_there_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-run");
    let out = Command::new(SZERO).args(["piece-values", "--run"]).arg(&missing).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-run: no such directory"), "{err}");
    // A directory that is not a run (no shards/) is not read as a run without games.
    let out = Command::new(SZERO).args(["piece-values", "--run"]).arg(dir.path()).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no shards/ in it"), "{err}");
}
