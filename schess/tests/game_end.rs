//! Game end: checkmate, stalemate, 50-move rule, repetition (with gating rights in the
//! position's identity) and insufficient material (hands count).

use schess::{Color, DrawReason, Game, Outcome, Position};

fn game_after(fen: &str, moves: &[&str]) -> Game {
    let mut g = Game::new(Position::from_fen(fen).unwrap());
    for m in moves {
        g.play_uci(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

#[test]
fn checkmate_and_stalemate() {
    let g = game_after("rnbqkb1r/pp1pnppp/3Np3/2p5/P5P1/7N/1PPPPP1P/R1BQKB1R[EHeh] b KQCDFkqcdf - 2 6", &[]);
    assert_eq!(g.outcome(), Some(Outcome::Checkmate { winner: Color::White }));
    // Stalemate by a gate (pyffish calls the move `Ne3/H#`).
    let g = game_after("8/8/8/8/8/6B1/5K2/R2N3k[EHeh] w D - 0 1", &["d1e3h"]);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Stalemate)));
    assert_eq!(Game::new(Position::startpos()).outcome(), None);
}

#[test]
fn fifty_moves_and_gating_does_not_reset_the_clock() {
    let g = game_after("4k3/8/8/8/8/8/8/R3K3[EHeh] w - - 99 80", &["a1a2"]);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::FiftyMoves)));
    let g = game_after("4k3/8/8/8/8/8/8/RN2K3[EHeh] w B - 10 20", &["b1c3e"]);
    assert_eq!(g.position().halfmove_clock(), 11);
    // Checkmate on the 100th ply is still checkmate.
    let g = game_after("7k/8/6K1/8/8/8/8/R7[] w - - 99 80", &["a1a8"]);
    assert_eq!(g.outcome(), Some(Outcome::Checkmate { winner: Color::White }));
}

#[test]
fn repetition_counts_gating_rights() {
    // Knights out and back: the start position had b1/b8 gating rights and the later ones
    // do not, so it never repeats; the position after ply 2 is the first to occur a third
    // time, at ply 10 (Fairy-Stockfish, whose key ignores gating rights, says ply 8).
    let cycle = ["b1c3", "b8c6", "c3b1", "c6b8"];
    let mut g = Game::new(Position::startpos());
    for (i, m) in cycle.iter().cycle().take(10).enumerate() {
        g.play_uci(m).unwrap();
        let expect_draw = i + 1 == 10;
        assert_eq!(g.outcome() == Some(Outcome::Draw(DrawReason::Repetition)), expect_draw, "ply {}", i + 1);
    }
    assert_eq!(g.repetitions(), 3);
    // Without gating rights (empty hands) the same cycle repeats at ply 8.
    let mut g = Game::new(Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1").unwrap());
    for m in cycle.iter().cycle().take(8) {
        g.play_uci(m).unwrap();
    }
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

#[test]
fn insufficient_material_counts_hands() {
    let cases = [
        ("4k3/8/8/8/8/8/8/4K3[EHeh] w - - 0 1", (false, false)),
        ("4k3/8/8/8/8/8/8/4K3[] w - - 0 1", (true, true)),
        ("4k3/8/8/8/8/8/8/4K3[E] w - - 0 1", (false, true)),
        ("4k3/8/8/8/8/8/8/4KH2[] w - - 0 1", (false, true)),
        ("4k3/8/8/8/8/8/8/4KB2[] w - - 0 1", (true, true)),
        ("4k3/8/8/8/8/8/8/2B1KB2[] w - - 0 1", (false, true)),
        ("4k3/8/8/8/8/8/8/3BKB2[] w - - 0 1", (true, true)),
        ("4k3/8/8/8/8/8/8/3NKN2[] w - - 0 1", (false, true)),
        ("4kn2/8/8/8/8/8/8/4KN2[] w - - 0 1", (false, false)),
        ("4k3/8/8/8/8/8/8/4KN2[e] w - - 0 1", (true, false)),
        ("4kb2/8/8/8/8/8/8/3BK3[] w - - 0 1", (false, false)),
        ("3kb3/8/8/8/8/8/8/3BK3[] w - - 0 1", (true, true)),
        ("4k3/7p/8/8/8/8/8/3NK3[] w - - 0 1", (false, false)),
    ];
    for (fen, (white, black)) in cases {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(
            (pos.has_insufficient_material(Color::White), pos.has_insufficient_material(Color::Black)),
            (white, black),
            "{fen}"
        );
    }
    let g = game_after("4k3/8/8/8/8/8/8/4K3[] w - - 0 1", &[]);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::InsufficientMaterial)));
}

#[test]
fn edge_case_rulings() {
    let legal = |fen: &str| -> Vec<String> {
        Position::from_fen(fen).unwrap().legal_moves().iter().map(|m| m.to_uci()).collect()
    };
    // A pinned back-rank piece may not leave the pin line even if the gate would shield.
    let l = legal("4k3/8/8/8/8/8/8/r2NK3[EHeh] w DE - 0 1");
    assert!(!l.iter().any(|m| m.starts_with("d1e3")));
    assert!(l.contains(&"e1f1e".to_string()));
    // A king in check along rank 1 may not step along it, even with a gate behind it.
    let l = legal("4k3/8/8/8/8/8/3P4/r3K3[EHeh] w E - 0 1");
    assert!(!l.contains(&"e1f1e".to_string()) && l.contains(&"e1e2e".to_string()));
    // A pinned piece moving along its line may gate.
    let l = legal("4k3/8/8/8/8/8/8/r2QK3[EHeh] w DE - 0 1");
    assert!(l.contains(&"d1c1e".to_string()) && l.contains(&"d1a1h".to_string()));
    assert!(!l.contains(&"d1d2e".to_string()));
    // Hand pieces without gating rights stay in hand.
    assert_eq!(legal("4k3/8/8/8/8/8/8/4K3[EHeh] w - - 0 1").len(), 5);
    // Pawns never gate; a piece back on its home square cannot gate again.
    let g = game_after(schess::STARTING_FEN, &["b1c3", "e7e5", "c3b1", "e5e4"]);
    assert!(g.position().parse_uci("b1c3e").is_err() && g.position().parse_uci("b1c3").is_ok());
    assert!(Position::startpos().parse_uci("e2e4e").is_err());
}
