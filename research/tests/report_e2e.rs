//! The whole report: files written, known tables, the control variant, a network probe
//! with the uniform evaluator (known answers) and with a real (tiny, untrained) network.

mod common;

use common::record;

use research::network::ProbeOptions;
use research::{gating_report, Options, Probe, ReportError};
use search::evaluator::UniformEvaluator;

fn run_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    std::fs::create_dir(&shards).unwrap();
    let s = schess::STARTING_FEN;
    let games = vec![
        record("seirawan", s, &["b1c3e", "e7e5", "g1f3", "b8c6h", "e2e4", "d7d6", "f1c4", "c8g4e", "h1e1h"], 1, 0),
        record("seirawan", s, &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1e"], -1, 1),
        record("chess", schess::Variant::Chess.start_fen(), &["e2e4", "e7e5"], 0, 1),
    ];
    selfplay::shard::write(&shards.join("gen0000-a.shard"), &games).unwrap();
    dir
}

fn read(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn writes_html_csv_and_svg_with_known_tables() {
    let run = run_dir();
    let out = tempfile::tempdir().unwrap();
    let opts = Options {
        runs: vec![run.path().to_path_buf()],
        out: out.path().to_path_buf(),
        by_move: 3,
        ..Options::default()
    };
    let probe = Probe { evaluator: &UniformEvaluator, history: 2, description: "uniform".into() };
    let outcome = gating_report(&opts, Some(probe)).unwrap();
    assert_eq!(outcome.games, 3);
    let html = read(out.path(), "report.html");
    assert!(html.contains("<svg") && html.contains("seirawan (2 games)") && html.contains("chess (1 games)"));
    assert!(!html.contains("<?xml"));
    for f in
        ["variants", "entry", "entry_moves", "by_square", "by_file", "by_via", "first_piece", "scores", "generations"]
    {
        assert!(out.path().join(format!("{f}.csv")).exists(), "{f}.csv");
    }
    for f in ["entry_moves", "by_file", "by_via", "scores", "generations_shares", "policy_by_via", "value_by_via"] {
        assert!(read(out.path(), &format!("{f}.svg")).contains("</svg>"), "{f}.svg");
    }
    assert_eq!(
        read(out.path(), "by_via.csv"),
        "via,E,H,E share,H share,E mean move,H mean move\n\
         bishop,1,0,0.3333,0.0000,4.00,\n\
         knight,1,1,0.3333,0.5000,1.00,2.00\n\
         castling-king-square,1,0,0.3333,0.0000,4.00,\n\
         castling-rook-square,0,1,0.0000,0.5000,,5.00\n"
    );
    let variants = read(out.path(), "variants.csv");
    assert!(variants.starts_with("variant,games,distinct,"));
    assert!(variants.contains("\nchess,1,1,2.00,0,1,0,0.5000,0,0.000,max-length 1\n"), "{variants}");
    let scores = read(out.path(), "scores.csv");
    assert!(scores.contains("E first,both,2,1,0,1,0.5000\n"), "{scores}");
    assert!(scores.contains("first gate after move 3,white,1,0,0,1,0.0000\n"), "{scores}");
    // Uniform policy: exactly indifferent between gating and not.
    let policy = read(out.path(), "policy_by_via.csv");
    for line in policy.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert!(cells[2] == "0.5000" || cells[2].is_empty(), "{line}");
    }
    let probe = outcome.probe.unwrap();
    assert_eq!(probe.positions, 2);
    assert!(probe.values.iter().all(|v| v.twin_value == Some(v.value)));
}

#[test]
fn control_games_alone_report_no_gating() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("chess.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n").unwrap();
    let out = dir.path().join("out");
    let opts = Options { pgn: vec![pgn], out: out.clone(), ..Options::default() };
    let outcome = gating_report(&opts, None).unwrap();
    assert_eq!(outcome.games, 1);
    let html = read(&out, "report.html");
    assert!(html.contains("chess (1 games)") && html.contains("there is no gating to analyse"), "{html}");
    assert!(!out.join("by_via.csv").exists());
}

#[test]
fn following_one_player_sets_two_players_side_by_side() {
    // "a" gates at move 1 in both games (the Hawk as White, the Elephant as Black), "b" at
    // move 2 (the Elephant as Black, the Hawk as White); a third game "a" did not play.
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("match.pgn");
    let game = |w: &str, b: &str, result: &str, moves: &str| {
        format!(
            "[White \"{w}\"]\n[Black \"{b}\"]\n[Variant \"Seirawan\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n"
        )
    };
    let text = game("a", "b", "1-0", "1. Nf3/H e5 2. e4 Nc6/E")
        + &game("b", "a", "0-1", "1. e4 Nf6/E 2. Nc3/H d6")
        + &game("b", "c", "1/2-1/2", "1. e4 e5");
    std::fs::write(&pgn, text).unwrap();
    let report = |player: &str| {
        let out = dir.path().join(player);
        let opts =
            Options { pgn: vec![pgn.clone()], out: out.clone(), player: Some(player.into()), ..Options::default() };
        (gating_report(&opts, None), out)
    };
    let (a, out) = report("a");
    assert_eq!(a.unwrap().games, 2);
    let entry = read(&out, "entry.csv");
    assert!(entry.contains("\nE,both,2,1,0.5000,0.5000,0.0000,1.00,1,1,1\n"), "{entry}");
    assert!(entry.contains("\nH,both,2,1,0.5000,0.5000,0.0000,1.00,1,1,1\n"), "{entry}");
    assert!(entry.contains("\nE,white,1,0,") && entry.contains("\nH,black,1,0,"), "{entry}");
    assert!(read(&out, "report.html").contains("a's alone, in the 2 of 3 games it played (1 as White, 1 as Black"));
    let (b, out) = report("b");
    assert_eq!(b.unwrap().games, 3);
    let entry = read(&out, "entry.csv");
    assert!(entry.contains("\nE,both,3,1,0.3333,0.6667,0.0000,2.00,2,2,2\n"), "{entry}");
    match report("nobody").0 {
        Err(e @ ReportError::NoPlayerGames { .. }) => assert!(e.to_string().contains(r#""a", "b", "c""#), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn distinct_games_only_leaves_replays_out_and_says_how_many() {
    // Three plays of one line (the Elephant never enters) and one other game: over all games
    // three of four games leave the Elephant in hand on both sides, over distinct games one
    // of two.
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("selfplay.pgn");
    let game =
        |result: &str, moves: &str| format!("[Variant \"Seirawan\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n");
    let line = game("1/2-1/2", "1. Nf3/H Nf6/H 2. Nc3 Nc6 3. Nb1 Nb8 4. Nc3 Nc6");
    let text = line.repeat(3) + &game("1-0", "1. Nf3/E Nf6/E 2. Nc3/H Nc6/H");
    std::fs::write(&pgn, text).unwrap();
    let report = |distinct: bool| {
        let out = dir.path().join(format!("out-{distinct}"));
        let opts = Options { pgn: vec![pgn.clone()], out: out.clone(), distinct, ..Options::default() };
        assert_eq!(gating_report(&opts, None).unwrap().games, if distinct { 2 } else { 4 });
        (read(&out, "variants.csv"), read(&out, "never_by_game.csv"), read(&out, "report.html"))
    };
    let (variants, never, html) = report(false);
    assert!(variants.contains("\nseirawan,4,2,"), "{variants}");
    assert!(never.contains("\nE,4,3,0.7500,3,0.7500\n"), "{never}");
    assert!(!html.contains("Distinct games only"));
    let (variants, never, html) = report(true);
    assert!(variants.contains("\nseirawan,2,2,"), "{variants}");
    assert!(never.contains("\nE,2,1,0.5000,1,0.5000\n"), "{never}");
    assert!(html.contains("2 games kept, 2 replays of an earlier game"), "{html}");
}

#[test]
fn bad_input_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let missing = dir.path().join("nope.pgn");
    let err = gating_report(&Options { pgn: vec![missing], out: out.clone(), ..Options::default() }, None).unwrap_err();
    assert!(err.to_string().contains("nope.pgn"), "{err}");
    assert!(matches!(
        gating_report(&Options { out: out.clone(), ..Options::default() }, None),
        Err(ReportError::NoInput)
    ));
    let junk = dir.path().join("junk.pgn");
    std::fs::write(&junk, "[Variant \"Seirawan\"]\n\n1. Zz9 *\n").unwrap();
    let err = gating_report(&Options { pgn: vec![junk], out, ..Options::default() }, None).unwrap_err();
    assert!(matches!(err, ReportError::NoGames { .. }) && err.to_string().contains("junk.pgn:1"), "{err}");
}

#[test]
fn probes_a_real_network_from_a_checkpoint_and_a_position_file() {
    let dir = tempfile::tempdir().unwrap();
    let net = models::Net::new(models::net_config(1, 8, 2), models::tch::Device::Cpu).unwrap();
    let model = dir.path().join("tiny.safetensors");
    models::checkpoint::save(&net, &model, models::FORMAT_VERSIONS, 7).unwrap();
    let (evaluator, history, description) = research::load_network(&model, models::tch::Device::Cpu).unwrap();
    assert_eq!(history, 2);
    assert!(description.contains("training step 7"));
    let positions = dir.path().join("positions.epd");
    std::fs::write(
        &positions,
        format!(
            "# S-Chess positions\n{}\nr3k2r/8/8/8/8/8/8/R3K2R[EHeh] w KQkq - id \"castle\";\nnot a fen\n{}\n",
            schess::STARTING_FEN,
            schess::Variant::Chess.start_fen()
        ),
    )
    .unwrap();
    let run = run_dir();
    let out = dir.path().join("out");
    let opts = Options {
        runs: vec![run.path().to_path_buf()],
        positions: Some(positions),
        out: out.clone(),
        probe: ProbeOptions { value_moves: 0, ..ProbeOptions::default() },
        ..Options::default()
    };
    let probe = Probe { evaluator: &evaluator, history, description };
    let outcome = gating_report(&opts, Some(probe)).unwrap();
    assert!(outcome.warnings.iter().any(|w| w.contains("positions.epd:4")), "{:?}", outcome.warnings);
    let p = outcome.probe.unwrap();
    // Start and the castling position can gate; the chess start cannot.
    assert_eq!((p.positions, p.without_gates), (2, 1));
    // Castling position: O-O and O-O-O each with E/H on the king's or the rook's square.
    for via in ["castling-king-square", "castling-rook-square"] {
        assert!(p.values.iter().any(|v| v.via.name() == via && v.origin == "positions.epd:3"), "{via}");
    }
    for v in &p.values {
        assert!((-1.0..=1.0).contains(&v.value) && v.twin_value.is_some() && v.other_piece_value.is_some());
    }
    let split = p.mean_mass();
    assert!((split.gating + split.twins + split.other - 1.0).abs() < 1e-4);
    assert!(read(&out, "value_moves.csv").lines().count() > 1);
}

/// Runs of two entry rules in one report: a comparison table with intervals and every
/// gating table once per rule, named by it; placement games get their file table.
#[test]
fn variants_are_compared_and_split() {
    let dir = tempfile::tempdir().unwrap();
    let s = schess::STARTING_FEN;
    let write = |name: &str, games: Vec<selfplay::GameRecord>| {
        let shards = dir.path().join(name).join("shards");
        std::fs::create_dir_all(&shards).unwrap();
        selfplay::shard::write(&shards.join("gen0000-a.shard"), &games).unwrap();
        dir.path().join(name)
    };
    let seirawan = write(
        "seirawan",
        vec![
            record("seirawan", s, &["b1c3e", "e7e5", "g1f3", "b8c6h"], 1, 0),
            record("seirawan", s, &["e2e4", "e7e5", "g1f3h", "b8c6"], 0, 1),
        ],
    );
    // White puts E on d and H on g, Black H on b and E on c; the queen's move from d1
    // brings White's E in (move 4: two placement moves, then d4, then Qd3).
    let placement = write(
        "placement",
        vec![
            record("seirawan-placement", s, &["E@d", "H@b", "H@g", "E@c", "d2d4", "d7d5", "d1d3e", "c8f5e"], -1, 0),
            record("seirawan-placement", s, &["E@d", "E@b", "H@g", "H@c", "e2e4", "e7e5"], 1, 2),
        ],
    );
    let out = dir.path().join("out");
    let opts = Options { runs: vec![seirawan, placement], out: out.clone(), ..Options::default() };
    let outcome = gating_report(&opts, None).unwrap();
    assert_eq!(outcome.games, 4, "{:?}", outcome.warnings);
    let compared = read(&out, "variants_compared.csv");
    let rows: Vec<&str> = compared.lines().collect();
    assert!(rows[0].starts_with("variant,games of,games,white score,95% low,95% high,draw share"), "{compared}");
    // Placement: generations 0 and 2 -> an "all" row and a newest-generation row.
    assert!(rows.iter().any(|r| r.starts_with("seirawan-placement,generations 0..=2,2,0.5000,")), "{compared}");
    assert!(rows.iter().any(|r| r.starts_with("seirawan-placement,generation 2 (newest),1,1.0000,")), "{compared}");
    assert!(rows.iter().any(|r| r.starts_with("seirawan,generations 0..=1,2,0.7500,")), "{compared}");
    for f in ["seirawan-entry", "seirawan-placement-entry", "seirawan-placement-placement_files", "seirawan-scores"] {
        assert!(out.join(format!("{f}.csv")).exists(), "{f}.csv");
    }
    assert!(!out.join("seirawan-placement_files.csv").exists(), "no placement table for seirawan");
    let files = read(&out, "seirawan-placement-placement_files.csv");
    // White's E on d in both games: 2 of the 4 E placements, placed first both times,
    // entered once (move 4), scored 1 win 1 loss.
    assert!(files.contains("\nE,d,2,0.5000,1.0000,0.5000,4.00,2,1,0,1,0.5000,"), "{files}");
    // Black's H on b once (of the 4 H placements), placed first, never entered; a win for
    // Black, one game: no interval.
    assert!(files.contains("\nH,b,1,0.2500,1.0000,0.0000,,1,1,0,0,1.0000,,\n"), "{files}");
    let html = read(&out, "report.html");
    assert!(html.contains("seirawan-placement: Placement: files chosen"), "per-variant section titles");
}
