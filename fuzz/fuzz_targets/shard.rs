//! Fuzzes shard decoding: any bytes are games or an error, never a panic (a decoded
//! record that does not replay is an error too); decoded games encode back to bytes that
//! decode to the same games (bit for bit). Each input is tried as it is and with its header's length
//! and CRC made to match: otherwise almost every mutation stops at the CRC check and the
//! decompression and deserialisation behind it are never reached.
#![no_main]

use libfuzzer_sys::fuzz_target;
use selfplay::shard::{decode, encode};
use std::path::Path;

fn check(data: &[u8]) {
    let path = Path::new("fuzz.shard");
    let Ok(games) = decode(data, path) else { return };
    for g in &games {
        if let Ok(game) = g.replay() {
            let _ = g.moves_left(game.moves().len().min(g.samples.len()));
        }
        let _ = g.variant();
    }
    // Compared as bytes: a decoded record may hold NaNs (the trainer's own checks skip
    // such games), which `==` would call different from themselves.
    let bytes = encode(&games).expect("decoded games encode");
    let again = decode(&bytes, path).expect("our own shard decodes");
    assert_eq!(encode(&again).expect("encodes again"), bytes);
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if data.len() >= 32 && &data[..8] == selfplay::shard::SHARD_MAGIC {
        let mut fixed = data.to_vec();
        let payload_len = (fixed.len() - 32) as u64;
        fixed[16..24].copy_from_slice(&payload_len.to_le_bytes());
        let crc = crc32fast::hash(&fixed[32..]);
        fixed[24..28].copy_from_slice(&crc.to_le_bytes());
        check(&fixed);
    }
});
