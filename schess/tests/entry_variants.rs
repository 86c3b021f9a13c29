//! The two alternative entry rules, `seirawan-placement` and `seirawan-forced`: hand-checked
//! positions for every rule and exception in `CONVENTIONS.md` ("Alternative entry rules"),
//! and property tests over random games. No oracle plays these variants.

use proptest::prelude::*;
use schess::{FenError, Game, HandPiece, Move, Position, Role, Square, Variant};

fn pos(fen: &str, v: Variant) -> Position {
    Position::from_fen_variant(fen, v).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn play(p: &Position, uci: &str) -> Position {
    let m = p.parse_uci(uci).unwrap_or_else(|e| panic!("{uci} in {}: {e}", p.fen()));
    p.play(m).unwrap()
}

fn ucis(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(|m| m.to_uci()).collect();
    v.sort();
    v
}

// ----- placement -----

#[test]
fn placement_opens_with_sixteen_assignments_per_side() {
    let start = Position::new(Variant::Placement);
    assert_eq!(start.fen(), schess::STARTING_FEN);
    let moves = ucis(&start);
    assert_eq!(moves.len(), 16, "{moves:?}");
    assert!(moves.iter().all(|m| m.contains('@')));
    assert!(moves.contains(&"E@a".to_string()) && moves.contains(&"H@h".to_string()));
    assert_eq!(start.count_legal_moves(), 16);
    assert_eq!(start.perft(2), 16 * 16);
}

#[test]
fn placement_sequence_then_automatic_entry() {
    let mut p = Position::new(Variant::Placement);
    for uci in ["E@d", "e@b", "H@b", "h@g"] {
        p = play(&p, uci);
    }
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[E@dH@be@bh@g] w KQBDkqbg - 0 3");
    // Board moves only now; the b1 knight's moves carry the hawk, the g1 knight's nothing.
    let moves = ucis(&p);
    assert_eq!(moves.len(), 20, "{moves:?}");
    assert!(moves.contains(&"b1c3h".to_string()) && moves.contains(&"g1f3".to_string()));
    assert!(!moves.contains(&"b1c3".to_string()) && !moves.contains(&"g1f3e".to_string()));
    // The bare form is read as the one legal move.
    let m = p.parse_uci("b1c3").unwrap();
    assert_eq!(m.to_uci(), "b1c3h");
    assert_eq!(p.san(m), "Nc3/H");
    assert_eq!(p.parse_san("Nc3"), Ok(m));
    let p = p.play(m).unwrap();
    assert_eq!(p.piece_at(Square::B1).map(|x| x.role), Some(Role::Hawk));
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/RHBQKBNR[E@de@bh@g] b KQDkqbg - 1 3");
    assert_eq!(Position::from_fen_variant(&p.fen(), Variant::Placement).unwrap(), p);
}

#[test]
fn placement_second_piece_respects_files() {
    let p = play(&play(&Position::new(Variant::Placement), "E@e"), "e@a");
    // White's hawk: not the e-file (taken) and not a rook's file (king's file is taken).
    assert_eq!(ucis(&p), ["H@b", "H@c", "H@d", "H@f", "H@g"]);
    // Black's hawk after e@a: not a (taken), not e (king's file with a rook's file taken).
    let p = play(&p, "H@d");
    assert_eq!(ucis(&p), ["H@b", "H@c", "H@d", "H@f", "H@g", "H@h"]);
    // Placement notation.
    let m = p.parse_uci("h@c8").unwrap();
    assert_eq!(m, Move::Place { piece: HandPiece::Hawk, on: Square::C8 });
    assert_eq!(p.san(m), "H@c");
    assert_eq!(p.parse_san("H@c"), Ok(m));
    assert!(p.parse_uci("H@c1").is_err(), "White's home square is not Black's");
    assert!(p.parse_uci("H@a").is_err(), "the elephant holds the a-file");
}

#[test]
fn placement_fen_rejects_impossible_assignments() {
    let bad = |hand: &str| {
        let fen = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{hand}] w KQBCDFGkqbcdfg - 0 1");
        Position::from_fen_variant(&fen, Variant::Placement)
    };
    assert!(matches!(bad("E@eH@aeh"), Err(FenError::Placement(_))), "king's file + rook's file");
    assert!(matches!(bad("E@hH@eeh"), Err(FenError::Placement(_))));
    assert!(matches!(bad("E@cH@ceh"), Err(FenError::Placement(_))), "one file, two pieces");
    assert!(matches!(bad("E@xHeh"), Err(FenError::Hand(_))));
    assert!(bad("E@aH@heh").is_ok(), "both rook files are allowed");
    // An assignment needs the home square's entry right.
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[E@beh] w KQCDFGkqbcdfg - 0 1";
    assert!(matches!(Position::from_fen_variant(fen, Variant::Placement), Err(FenError::Placement(_))));
    // An unplaced piece needs a file it may go to (here only the h-file is left, and the
    // elephant holds the king's file).
    let fen = "4k3/8/8/8/8/8/8/4K2R[E@eH] w K - 0 1";
    assert!(matches!(Position::from_fen_variant(fen, Variant::Placement), Err(FenError::Placement(_))));
    assert!(Position::from_fen_variant("4k3/8/8/8/8/8/8/3QK2R[E@eH] w KD - 0 1", Variant::Placement).is_ok());
    // Assignments are placement-only.
    assert!(matches!(
        Position::from_fen_variant(&bad("E@aHeh").unwrap().fen(), Variant::Seirawan),
        Err(FenError::Placement(_))
    ));
}

#[test]
fn placement_capture_on_home_square_loses_the_piece() {
    // White's elephant waits on d1 under the queen; Black's bishop takes the queen there.
    let p = pos("4k3/8/8/8/b7/8/8/3QK2R[E@dH@h] b KD - 0 1", Variant::Placement);
    assert_eq!(p.fen(), "4k3/8/8/8/b7/8/8/3QK2R[E@dH@h] b KD - 0 1");
    let after = play(&p, "a4d1");
    assert_eq!(after.fen(), "4k3/8/8/8/8/8/8/3bK2R[H@h] w K - 0 2");
    assert_eq!(after.key(), after.compute_key());
    // Castling with the hawk assigned behind the rook brings it in on h1, the only form.
    let moves = ucis(&after);
    assert!(moves.contains(&"h1e1h".to_string()) && !moves.contains(&"e1g1".to_string()), "{moves:?}");
    let castled = play(&after, "e1g1");
    assert_eq!(castled.fen(), "4k3/8/8/8/8/8/8/3b1RKH[] b - - 1 2");
}

#[test]
fn placement_king_file_piece_enters_on_king_moves_and_castling() {
    let p = pos("4k3/8/8/8/8/8/8/R3K3[E@e] w Q - 0 1", Variant::Placement);
    let moves = ucis(&p);
    assert!(moves.contains(&"e1c1e".to_string()) && moves.contains(&"e1d1e".to_string()), "{moves:?}");
    assert!(!moves.contains(&"e1c1".to_string()) && !moves.contains(&"e1d1".to_string()));
    // Rook moves carry nothing: the a-file has no assignment.
    assert!(moves.contains(&"a1a2".to_string()));
    assert_eq!(play(&p, "e1c1").fen(), "4k3/8/8/8/8/8/8/2KRE3[] b - - 1 1");
    let stepped = play(&p, "e1f2");
    assert_eq!(stepped.piece_at(Square::E1).map(|x| x.role), Some(Role::Elephant));
    assert!(stepped.hand(schess::Color::White).is_empty());
}

// ----- forced entry -----

#[test]
fn forced_first_piece_move_brings_the_hawk() {
    let start = Position::new(Variant::Forced);
    assert_eq!(start.fen(), schess::STARTING_FEN);
    let moves = ucis(&start);
    assert_eq!(moves.len(), 20);
    assert!(moves.contains(&"b1c3h".to_string()) && moves.contains(&"g1h3h".to_string()));
    assert!(!moves.contains(&"b1c3".to_string()) && !moves.contains(&"b1c3e".to_string()));
    assert_eq!(start.perft(2), 400);
    let p = play(&start, "b1c3");
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/RHBQKBNR[Eeh] b KQCDFGkqbcdfg - 1 1");
    // The second: the elephant, by any bishop, knight or queen move from home.
    let p = play(&play(&p, "e7e5"), "e2e4");
    let p = play(&p, "d7d6");
    let moves = ucis(&p);
    for m in ["g1f3e", "f1c4e", "d1h5e"] {
        assert!(moves.contains(&m.to_string()), "{m} in {moves:?}");
    }
    // The developed knight, the king and the rooks move without an entry.
    for m in ["c3d5", "e1e2", "b1a1"] {
        assert!(moves.contains(&m.to_string()) || m == "b1a1", "{m} in {moves:?}");
    }
    assert!(!moves.iter().any(|m| m.starts_with("e1") && m.len() == 5), "the king never gates");
    let p = play(&p, "e1e2");
    assert_eq!(p.hand(schess::Color::White).count(), 1, "a king move keeps the elephant in hand");
}

#[test]
fn forced_castling_and_rooks_never_gate() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R[EHeh] w KQkq - 0 1", Variant::Forced);
    // No bishop, knight or queen at home: nothing can enter, and nothing is lost.
    assert!(p.legal_moves().iter().all(|m| m.gate().is_none()));
    assert!(ucis(&p).contains(&"e1g1".to_string()));
    assert_eq!(p.fen(), "r3k2r/8/8/8/8/8/8/R3K2R[EHeh] w KQkq - 0 1");
}

#[test]
fn forced_hawk_before_elephant() {
    // The hawk already entered: the queen's move from d1 brings in the elephant.
    let p = pos("4k3/8/8/8/8/8/8/3QK3[E] w D - 0 1", Variant::Forced);
    assert!(ucis(&p).contains(&"d1d4e".to_string()));
    assert!(!ucis(&p).contains(&"d1d4".to_string()));
    // Both in hand: the hawk comes first.
    let p = pos("4k3/8/8/8/8/8/8/3QK3[EH] w D - 0 1", Variant::Forced);
    assert!(ucis(&p).contains(&"d1d4h".to_string()));
    assert!(!ucis(&p).iter().any(|m| m.ends_with('e')));
}

// ----- properties -----

fn check_game(variant: Variant, choices: &[u16]) -> Result<(), TestCaseError> {
    let mut game = Game::new(Position::new(variant));
    let mut entered = 0u32;
    for &c in choices {
        let pos = game.position().clone();
        let moves = pos.legal_moves();
        prop_assert_eq!(pos.count_legal_moves() as usize, moves.len());
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        let us = pos.turn();
        let hand = pos.hand(us);
        for m in &moves {
            let role = pos.role_at(m.from());
            if variant == Variant::Forced && !hand.is_empty() {
                let carrier = matches!(role, Some(Role::Bishop | Role::Knight | Role::Queen));
                let home = pos.gating_rights(us).contains(m.from()) && !m.is_castle();
                prop_assert_eq!(m.gate().is_some(), carrier && home, "{} in {}", m, pos.fen());
                if let Some(p) = m.gate_piece() {
                    prop_assert!(p == HandPiece::Hawk || !hand.contains(HandPiece::Hawk));
                }
            }
            if variant == Variant::Placement {
                if let Some((p, sq)) = m.gate() {
                    prop_assert_eq!(pos.assigned_file(us, p), Some(sq.file()));
                }
                prop_assert_eq!(m.is_placement(), !pos.unplaced(us).is_empty());
            }
        }
        let m = moves[c as usize % moves.len()];
        prop_assert_eq!(pos.parse_uci(&m.to_uci()), Ok(m));
        let san = pos.san(m);
        prop_assert_eq!(pos.parse_san(&san), Ok(m), "SAN {} in {}", san, pos.fen());
        if m.gate().is_some() {
            entered += 1;
        }
        game.play(m).unwrap();
        let next = game.position();
        // Hands only shrink; each piece enters at most once.
        prop_assert!(next.hand(us).count() <= hand.count());
        prop_assert!(entered <= 4);
        prop_assert_eq!(next.key(), next.compute_key());
        let reparsed = Position::from_fen_variant(&next.fen(), variant).unwrap();
        prop_assert_eq!(reparsed.fen(), next.fen());
        prop_assert_eq!(reparsed.key(), next.key());
        let mirrored = next.mirrored();
        prop_assert_eq!(mirrored.count_legal_moves(), next.count_legal_moves());
        prop_assert_eq!(mirrored.mirrored().key(), next.key());
        // A fresh position's perft equals the incremental one's.
        prop_assert_eq!(reparsed.perft(2), next.perft(2));
        let undone = game.undo().unwrap();
        prop_assert_eq!(undone, m);
        prop_assert_eq!(game.position(), &pos);
        game.play_unchecked(m);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn placement_random_games(choices in proptest::collection::vec(any::<u16>(), 0..160)) {
        check_game(Variant::Placement, &choices)?;
    }
    #[test]
    fn forced_random_games(choices in proptest::collection::vec(any::<u16>(), 0..160)) {
        check_game(Variant::Forced, &choices)?;
    }
}

#[test]
fn pgn_names_the_variant() {
    for (v, tag, first) in [
        (Variant::Placement, "[Variant \"Seirawan-Placement\"]", "1. E@d"),
        (Variant::Forced, "[Variant \"Seirawan-Forced\"]", "1. Nc3/H"),
    ] {
        let mut g = Game::new(Position::new(v));
        let m = g.position().parse_uci(if v == Variant::Placement { "E@d" } else { "b1c3" }).unwrap();
        g.play(m).unwrap();
        let pgn = schess::pgn::write_game(&g, &[], None, None);
        assert!(pgn.contains(tag), "{pgn}");
        assert!(pgn.contains(first), "{pgn}");
        assert!(!pgn.contains("[FEN"), "the start position is the variant's own: {pgn}");
    }
}
