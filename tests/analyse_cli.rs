//! `szero analyse` from the command line: a FEN and a PGN position, text and JSON.

use std::process::Command;

const SZERO: &str = env!("CARGO_BIN_EXE_szero");

fn analyse(args: &[&str]) -> String {
    let out = Command::new(SZERO).arg("analyse").args(args).output().unwrap();
    assert!(out.status.success(), "szero analyse {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn net(dir: &std::path::Path) -> String {
    let mut cfg = models::net_config(1, 8, 2);
    cfg.material = Some(models::MaterialHeadConfig { channels: 2, hidden: 8, horizon: 8, value_mix: 0.0 });
    let net = models::Net::new(cfg, models::tch::Device::Cpu).unwrap();
    let path = dir.join("net.safetensors");
    models::checkpoint::save(&net, &path, models::FORMAT_VERSIONS, 1).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_fen_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let model = net(dir.path());
    let fen = schess::Position::startpos().fen();
    let text = analyse(&["--model", &model, "--fen", &fen, "--top", "5", "--nodes", "16"]);
    for want in ["position", "expected score", "material", "top 5 of 28 legal moves", "search", "pv"] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&analyse(&["--model", &model, "--fen", &fen, "--top", "40", "--json"])).unwrap();
    assert_eq!(json["fen"], fen);
    assert_eq!(json["legal_moves"], 28);
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 28);
    // A fresh network's policy is uniform, and some first moves gate (Nc3/E, ...).
    let gating: Vec<&serde_json::Value> = moves.iter().filter(|m| !m["gate"].is_null()).collect();
    assert!(!gating.is_empty());
    for m in gating {
        assert!(m["gate"]["without_gate"]["uci"].as_str().unwrap().len() == 4, "{m}");
        assert!((m["prior"].as_f64().unwrap() - 1.0 / 28.0).abs() < 1e-4);
    }
    assert!(json["search"].is_null());
}

#[test]
fn a_pgn_position_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let model = net(dir.path());
    let pgn = dir.path().join("g.pgn");
    std::fs::write(&pgn, "[Event \"t\"]\n[Variant \"Seirawan\"]\n\n1. e4 e5 2. Nf3/H Nc6 *\n").unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&analyse(&["--model", &model, "--pgn", pgn.to_str().unwrap(), "--ply", "2", "--json"]))
            .unwrap();
    let mut p = schess::Position::startpos();
    for m in ["e2e4", "e7e5"] {
        p = p.play(p.parse_uci(m).unwrap()).unwrap();
    }
    assert_eq!(json["fen"], p.fen());
    assert_eq!(json["side_to_move"], "w");
    // The end of the game by default; and errors that name the problem.
    let end: serde_json::Value =
        serde_json::from_str(&analyse(&["--model", &model, "--pgn", pgn.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(end["side_to_move"], "w");
    for (args, want) in [
        (vec!["--model", &model, "--pgn", pgn.to_str().unwrap(), "--ply", "9"], "the game has 4 plies"),
        (vec!["--model", &model, "--fen", "not a fen"], "--fen"),
        (vec!["--model", "/nonexistent.safetensors", "--fen", &p.fen()], "nonexistent"),
    ] {
        let out = Command::new(SZERO).arg("analyse").args(&args).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want) && !err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A placement position through the network: its FEN hands name the assignments, the
/// legal moves are the remaining placements, each with its own prior.
#[test]
fn a_placement_position() {
    let dir = tempfile::tempdir().unwrap();
    let model = net(dir.path());
    // White's E is on d, Black's H on b; White places its H (any file but d).
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[E@dHeh@b] w KQBCDFGkqbcdfg - 0 2";
    let json: serde_json::Value = serde_json::from_str(&analyse(&[
        "--model",
        &model,
        "--fen",
        fen,
        "--variant",
        "seirawan-placement",
        "--top",
        "10",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["legal_moves"], 7);
    let moves: Vec<&str> = json["moves"].as_array().unwrap().iter().map(|m| m["uci"].as_str().unwrap()).collect();
    assert!(moves.iter().all(|m| m.starts_with("H@") && *m != "H@d"), "{moves:?}");
    let out = Command::new(SZERO).args(["analyse", "--model", &model, "--fen", fen]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("only in seirawan-placement"), "{err}");
}
