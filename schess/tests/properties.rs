//! Property tests over random games: make/undo, keys, and notation round trips.

use proptest::prelude::*;
use schess::{Game, Position};

/// Plays a random game driven by `choices` and checks invariants after every move.
fn play_and_check(choices: &[u16]) -> Result<(), TestCaseError> {
    let mut game = Game::new(Position::startpos());
    for &c in choices {
        let pos = game.position().clone();
        let moves = pos.legal_moves();
        prop_assert_eq!(pos.count_legal_moves() as usize, moves.len());
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        let m = moves[c as usize % moves.len()];

        // Notation round trips.
        prop_assert_eq!(pos.parse_uci(&m.to_uci()), Ok(m));
        let san = pos.san(m);
        prop_assert_eq!(pos.parse_san(&san), Ok(m), "SAN {} in {}", san, pos.fen());

        game.play(m).unwrap();
        let next = game.position();
        // The incremental key equals a fresh one, and a FEN round trip keeps everything.
        prop_assert_eq!(next.key(), next.compute_key());
        let reparsed = Position::from_fen(&next.fen()).unwrap();
        prop_assert_eq!(reparsed.fen(), next.fen());
        prop_assert_eq!(reparsed.key(), next.key());
        // The mirrored position is the same position seen from the other side.
        let mirrored = next.mirrored();
        prop_assert_eq!(mirrored.count_legal_moves(), next.count_legal_moves());
        prop_assert_eq!(mirrored.mirrored().key(), next.key());

        // Undo restores the position and its key exactly.
        let undone = game.undo().unwrap();
        prop_assert_eq!(undone, m);
        prop_assert_eq!(game.position(), &pos);
        prop_assert_eq!(game.position().key(), pos.key());
        game.play_unchecked(m);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_invariants(choices in prop::collection::vec(any::<u16>(), 1..160)) {
        play_and_check(&choices)?;
    }

    #[test]
    fn parsers_never_panic(s in "\\PC{0,80}") {
        let pos = Position::startpos();
        let _ = Position::from_fen(&s);
        let _ = pos.parse_uci(&s);
        let _ = pos.parse_san(&s);
    }

    #[test]
    fn fen_like_strings_never_panic(
        board in "[1-8pnbrqkehPNBRQKEH/]{1,40}",
        hand in "[EHehQq]{0,4}",
        castling in "[KQkqA-Ha-h-]{1,6}",
        ep in "(-|[a-h][1-8])",
    ) {
        let fen = format!("{board}[{hand}] w {castling} {ep} 0 1");
        if let Ok(pos) = Position::from_fen(&fen) {
            // Anything accepted must be usable.
            let _ = pos.perft(2);
            prop_assert_eq!(Position::from_fen(&pos.fen()).map(|p| p.key()), Ok(pos.key()));
        }
    }
}
