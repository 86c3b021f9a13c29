//! Bad FENs get errors that name the problem; odd-but-valid forms are accepted.

use schess::{Color, FenError, Position, Square, Variant};

fn err(fen: &str) -> FenError {
    Position::from_fen(fen).expect_err(fen)
}

#[test]
fn rejects_bad_fens_with_named_problems() {
    let sq = |s| Square::parse(s).unwrap();
    assert_eq!(err(""), FenError::Empty);
    assert_eq!(err("   "), FenError::Empty);
    assert_eq!(err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh]"), FenError::MissingField("side to move"));
    assert_eq!(err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w"), FenError::MissingField("castling"));
    assert_eq!(err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQkq"), FenError::MissingField("en passant"));
    assert_eq!(err("4k3/8/8/8/8/8/8/3KK3[] w - - 0 1"), FenError::TooManyKings(Color::White));
    assert_eq!(err("8/8/8/8/8/8/8/4K3[] w - - 0 1"), FenError::MissingKing(Color::Black));
    assert_eq!(err("4k2P/8/8/8/8/8/8/4K3[] w - - 0 1"), FenError::PawnOnBackRank(sq("h8")));
    assert_eq!(err("4k3/8/8/8/8/8/8/p3K3[] w - - 0 1"), FenError::PawnOnBackRank(sq("a1")));
    assert!(matches!(
        err("4k3/8/8/8/8/8/8/4K3[EEEh] w - - 0 1"),
        FenError::HandTooLarge { color: Color::White, piece: 'E', count: 3 }
    ));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[EQ] w - - 0 1"), FenError::Hand(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[EH w - - 0 1"), FenError::Hand(_)));
    assert_eq!(err("4k3/8/8/8/8/8/8/4K3[EHeh] w B - 0 1"), FenError::GatingOnEmptySquare(sq("b1")));
    assert_eq!(err("4k3/8/8/8/8/8/8/1n2K3[EHeh] w B - 0 1"), FenError::GatingOnEnemyPiece(sq("b1")));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[EHeh] w K - 0 1"), FenError::Castling(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[EHeh] w X - 0 1"), FenError::Castling(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[] x - - 0 1"), FenError::Turn(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[] w - e4 0 1"), FenError::EnPassant(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[] w - z9 0 1"), FenError::EnPassant(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[] w - - x 1"), FenError::Clock(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[] w - - 0 -1"), FenError::Clock(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3[] w - - 0 1 extra"), FenError::ExtraField(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8[] w - - 0 1"), FenError::Board(_)));
    assert!(matches!(err("4k3/9/8/8/8/8/8/4K3[] w - - 0 1"), FenError::Board(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K2[] w - - 0 1"), FenError::Board(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K2X[] w - - 0 1"), FenError::Board(_)));
    assert!(matches!(err("4k3/8/8/8/8/8/8/4K3/8[] w - - 0 1"), FenError::Board(_)));
    assert_eq!(err("4k2R/8/8/8/8/8/8/4K3[] w - - 0 1"), FenError::OppositeCheck(Color::Black));
    assert!(matches!(err("garbage"), FenError::Board(_)));
    assert!(matches!(err("é/ü"), FenError::Board(_)));
    // Every error message names the problem.
    assert!(err("4k3/8/8/8/8/8/8/4K3[EHeh] w B - 0 1").to_string().contains("b1"));
    assert!(err("4k3/8/8/8/8/8/8/3KK3[] w - - 0 1").to_string().contains("more than one king"));
}

#[test]
fn accepts_other_oracle_forms() {
    // pyffish's start_fen hand order and Fairy-Stockfish 11.1's long castling/gating field.
    let canonical = schess::STARTING_FEN;
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQABCDEFGHkqabcdefgh - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w ABCDEFGHabcdefgh - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg -",
    ] {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(pos.fen(), canonical, "{fen}");
        assert_eq!(pos.key(), Position::startpos().key());
    }
    // `EH` reads as `K`; `E` alone is a gate on e1 without castling.
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K2R[EHeh] w EH - 0 1").unwrap();
    assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/R3K2R[EHeh] w K - 0 1");
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K2R[EHeh] w E - 0 1").unwrap();
    assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/R3K2R[EHeh] w E - 0 1");
    assert!(pos.legal_moves().iter().all(|m| !m.is_castle()));
    // An en-passant square no pawn can use is dropped.
    let pos = Position::from_fen("4k3/8/8/3p4/8/8/8/4K3[] w - d6 0 2").unwrap();
    assert_eq!(pos.ep_square(), None);
    let pos = Position::from_fen("4k3/8/8/3pP3/8/8/8/4K3[] w - d6 0 2").unwrap();
    assert_eq!(pos.ep_square(), Square::parse("d6"));
    // The chess variant: no hand, no brackets.
    let pos = Position::new(Variant::Chess);
    assert_eq!(pos.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(pos.perft(3), 8902);
    assert_eq!(
        Position::from_fen_variant("4k3/8/8/8/8/8/8/4K3[E] w - - 0 1", Variant::Chess),
        Err(FenError::HandInChess)
    );
}

#[test]
fn bad_moves_are_errors() {
    let pos = Position::startpos();
    for bad in ["", "e2", "e2e4e", "e2e5", "e1h1", "h1e1", "e1g1eh", "0000", "i2i4", "e2e4x", "ñññ"] {
        assert!(pos.parse_uci(bad).is_err(), "{bad}");
    }
    assert_eq!(pos.parse_uci("b1c3E").unwrap().to_uci(), "b1c3e");
    for bad in ["", "Nc4", "Ke2", "Qd4/E", "O-O", "e5", "N", "Nac3", "x", "e8=Q", "Nc3/Q", "Nc3/Ee1"] {
        assert!(pos.parse_san(bad).is_err(), "{bad}");
    }
    assert_eq!(pos.parse_san("Nc3/E").unwrap().to_uci(), "b1c3e");
    assert_eq!(pos.parse_san("e4").unwrap().to_uci(), "e2e4");
}
