//! Fuzzes the PGN reader and the replay of its games: nothing may panic; a game that
//! replays must round-trip (written back as PGN by schess, read again, same moves and
//! same final position).
#![no_main]

use libfuzzer_sys::fuzz_target;
use schess::pgn::{parse, PgnGame};
use schess::{Game, Position};

fn replay(g: &PgnGame) -> Option<Game> {
    let mut game = Game::new(g.start().ok()?);
    for san in &g.moves {
        game.play_san(san).ok()?;
    }
    Some(game)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = parse(&text);
    for g in &parsed.games {
        let Some(game) = replay(g) else { continue };
        let mut tags = vec![("Variant", game.positions()[0].variant().name().to_string())];
        let start = game.positions()[0].fen();
        if start != Position::new(game.positions()[0].variant()).fen() {
            tags.push(("FEN", start));
        }
        let text = schess::pgn::write_game(&game, &tags, None, None);
        let again = parse(&text);
        assert_eq!(again.games.len(), 1, "{text}");
        let back = replay(&again.games[0]).unwrap_or_else(|| panic!("our own PGN does not replay:\n{text}"));
        assert_eq!(back.moves(), game.moves(), "{text}");
        assert_eq!(back.position().key(), game.position().key(), "{text}");
    }
});
