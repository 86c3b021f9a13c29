//! Fuzzes every string parser of `schess`: FEN, then UCI and SAN moves in the parsed
//! position (or the start position). Nothing may panic; anything accepted must round-trip.
//!
//! `cargo +nightly fuzz run parse` from this folder's parent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schess::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (fen, moves) = text.split_once('|').unwrap_or((text, ""));
    let pos = match Position::from_fen(fen) {
        Ok(pos) => {
            let again = Position::from_fen(&pos.fen()).expect("our own FEN parses");
            assert_eq!(again.key(), pos.key());
            let _ = pos.perft(1);
            pos
        }
        Err(e) => {
            let _ = e.to_string();
            Position::startpos()
        }
    };
    for word in moves.split_whitespace() {
        if let Ok(m) = pos.parse_uci(word) {
            assert_eq!(m.to_uci(), word.to_ascii_lowercase());
            assert_eq!(pos.parse_san(&pos.san(m)), Ok(m));
        }
        if let Ok(m) = pos.parse_san(word) {
            assert!(pos.is_legal(m));
        }
    }
});
