//! Fuzzes shard decoding: any bytes are games or an error, never a panic (a decoded
//! record that does not replay is an error too); decoded games encode back to bytes that
//! decode to the same games.
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfplay::shard::{decode, encode};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.shard");
    let Ok(games) = decode(data, path) else { return };
    for g in &games {
        if let Ok(game) = g.replay() {
            let _ = g.moves_left(game.moves().len().min(g.samples.len()));
        }
        let _ = g.variant();
    }
    let bytes = encode(&games).expect("decoded games encode");
    assert_eq!(decode(&bytes, path).expect("our own shard decodes"), games);
});
