//! Matches against external UCI engines: the real Fairy-Stockfish (every move it sends must
//! pass our rules and every game must end with the rules' result), and scripted
//! misbehaving engines (illegal, malformed, crashing, hanging) that must lose by forfeit.

use eval::matches::openings::OpeningBook;
use eval::matches::{run_match, verify_record, Adjudication, MatchConfig, Termination};
use eval::players::engine::{find_program, UciEnginePlayer};
use eval::players::{EngineLimit, EngineSpec, Player, PlayerError, PlayerFactory, PlayerSpec};
use schess::{Game, Position, Variant};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

fn factory(spec: &str) -> PlayerFactory {
    PlayerFactory::new(spec.parse::<PlayerSpec>().unwrap()).unwrap()
}

#[test]
fn short_match_against_fairy_stockfish_depth_1() {
    if find_program("fairy-stockfish").is_none() {
        eprintln!("SKIPPED: fairy-stockfish not found in PATH or /usr/games");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("fsf.pgn");
    let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 4, seed: 11 };
    let cfg = MatchConfig {
        games: 4,
        concurrency: 2,
        adjudication: Adjudication { max_plies: 300, ..Adjudication::default() },
        pgn: Some(pgn.clone()),
        ..MatchConfig::default()
    };
    let fsf = factory("uci:cmd=fairy-stockfish,depth=1");
    let report = run_match(&factory("greedy"), &fsf, &book, &cfg, &AtomicBool::new(false), &mut |_| {}).unwrap();
    assert_eq!(report.wdl.games(), 4, "{}", report.summary());
    for g in &report.games {
        verify_record(g).unwrap();
        assert!(
            g.termination.is_by_rules() || g.termination == Termination::MaxLength,
            "{}: {} ({:?})",
            g.round,
            g.reason,
            g.termination
        );
        // Fairy-Stockfish at depth 1 sees mates in one and hanging pieces; greedy does not
        // beat it.
        assert_ne!(g.first_half_points(), 2, "greedy beat fairy-stockfish: {}", g.pgn);
    }
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Black \"fairy-stockfish-d1\"]").count(), 2);
}

/// Fairy-Stockfish under gating restrictions (`go searchmoves`): barred from gating it
/// never gates; made to bring the Hawk first it never gates the Elephant while the Hawk is
/// in hand; unrestricted it gates (so the checks can fail).
#[test]
fn fairy_stockfish_keeps_its_gating_restrictions() {
    if find_program("fairy-stockfish").is_none() {
        eprintln!("SKIPPED: fairy-stockfish not found in PATH or /usr/games");
        return;
    }
    let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 2, seed: 5 };
    let cfg = MatchConfig {
        games: 4,
        adjudication: Adjudication { max_plies: 60, ..Adjudication::default() },
        ..MatchConfig::default()
    };
    let entries = |spec: &str| -> Vec<(schess::HandPiece, bool)> {
        let report =
            run_match(&factory(spec), &factory("greedy"), &book, &cfg, &AtomicBool::new(false), &mut |_| {}).unwrap();
        let mut out = Vec::new();
        for g in &report.games {
            verify_record(g).unwrap();
            let mut pos = g.start.clone();
            for (ply, &m) in g.moves.iter().enumerate() {
                let ours = ply >= g.opening_plies && (pos.turn() == schess::Color::White) == g.first_is_white;
                if let Some(p) = m.gate_piece().filter(|_| ours) {
                    out.push((p, pos.hand(pos.turn()).contains(schess::HandPiece::Hawk)));
                }
                pos = pos.play(m).unwrap();
            }
        }
        out
    };
    assert!(!entries("uci:cmd=fairy-stockfish,depth=2").is_empty(), "Fairy-Stockfish never gated");
    assert_eq!(entries("uci:cmd=fairy-stockfish,depth=2,nogate=true"), vec![]);
    for (piece, hawk_in_hand) in entries("uci:cmd=fairy-stockfish,depth=2,gate_first=H") {
        assert!(piece == schess::HandPiece::Hawk || !hawk_in_hand);
    }
}

/// Writes an executable fake engine whose reply to `go` is `on_go` (shell code).
fn fake_engine(dir: &Path, name: &str, on_go: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name {name}'; echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn misbehaving_engines_forfeit_and_are_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "illegal",
            "echo 'info depth 1 score cp 5'; echo 'bestmove e2e5'",
            Termination::RulesInfraction,
            "illegal move e2e5",
        ),
        ("garbage", "echo 'bestmove zz99'", Termination::RulesInfraction, "malformed move `zz99`"),
        ("silent-bestmove", "echo 'bestmove'", Termination::RulesInfraction, "names no move"),
        ("crash", "exit 3", Termination::Forfeit, "engine crashed"),
        ("hang", "sleep 5", Termination::Forfeit, "no `bestmove` within"),
    ];
    for (name, on_go, termination, reason) in cases {
        let path = fake_engine(dir.path(), name, on_go);
        let spec = format!("uci:cmd={},depth=1,timeout=300", path.display());
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 2, seed: 1 };
        let cfg = MatchConfig { games: 2, ..MatchConfig::default() };
        let r =
            run_match(&factory("random"), &factory(&spec), &book, &cfg, &AtomicBool::new(false), &mut |_| {}).unwrap();
        assert_eq!(r.wdl.wins, 2, "{name}: {}", r.summary());
        for g in &r.games {
            assert_eq!(g.termination, termination, "{name}: {}", g.reason);
            assert!(g.reason.contains(reason), "{name}: {}", g.reason);
            assert!(g.pgn.contains(reason), "{name}: reason not in PGN:\n{}", g.pgn);
            verify_record(g).unwrap();
        }
    }

    // A crashed engine is started afresh for the next game.
    let path = fake_engine(dir.path(), "crash2", "exit 3");
    let spec = EngineSpec {
        command: path.display().to_string(),
        args: vec![],
        options: vec![],
        limit: EngineLimit::Depth(1),
        timeout_ms: 2000,
        init_timeout_ms: 2000,
        name: None,
    };
    let mut p = UciEnginePlayer::start("crash2".into(), spec).unwrap();
    let game = Game::new(Position::startpos());
    p.new_game(Variant::Seirawan).unwrap();
    assert!(matches!(p.choose(&game), Err(PlayerError::Crashed(_))));
    p.new_game(Variant::Seirawan).unwrap();
    assert_eq!(p.starts, 2);
}

#[test]
fn a_program_that_is_not_an_engine_fails_the_setup() {
    let spec = "uci:cmd=/bin/cat,depth=1,init=300";
    let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 2, seed: 1 };
    let err = run_match(
        &factory("random"),
        &factory(spec),
        &book,
        &MatchConfig::default(),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("uciok"), "{err}");
}
