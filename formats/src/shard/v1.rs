//! Shard format version 1, read for old runs: the same records with the termination as
//! free text. Its layout is frozen; nothing writes it any more.

use super::{GameRecord, Sample};
use serde::Deserialize;

/// A game as version 1 stored it (field order is the wire order).
#[derive(Deserialize)]
struct Record {
    variant: String,
    start_fen: String,
    moves: Vec<String>,
    samples: Vec<Sample>,
    result: i8,
    termination: String,
    generation: u32,
    resign_disabled: bool,
    would_have_resigned: Option<char>,
}

/// Decodes a version-1 payload (after decompression); an unknown termination text is an
/// error naming it.
pub(super) fn decode(raw: &[u8]) -> Result<Vec<GameRecord>, String> {
    let records: Vec<Record> = bincode::deserialize(raw).map_err(|e| e.to_string())?;
    records
        .into_iter()
        .map(|r| {
            Ok(GameRecord {
                termination: r.termination.parse().map_err(|e| format!("version-1 record: {e}"))?,
                variant: r.variant,
                start_fen: r.start_fen,
                moves: r.moves,
                samples: r.samples,
                result: r.result,
                generation: r.generation,
                resign_disabled: r.resign_disabled,
                would_have_resigned: r.would_have_resigned,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{decode as decode_shard, encode, ShardError, SHARD_FORMAT_VERSION};
    use super::*;
    use schess::Termination;
    use serde::Serialize;
    use std::path::Path;

    /// What version 1 wrote: `Record`'s fields with serde's encoding.
    #[derive(Serialize)]
    struct Written<'a> {
        variant: &'a str,
        start_fen: &'a str,
        moves: Vec<&'a str>,
        samples: Vec<Sample>,
        result: i8,
        termination: &'a str,
        generation: u32,
        resign_disabled: bool,
        would_have_resigned: Option<char>,
    }

    /// A version-1 shard of one game ending in `termination`: the current encoder's
    /// framing with version 1's payload.
    fn v1_shard(termination: &str) -> Vec<u8> {
        let game = Written {
            variant: "seirawan",
            start_fen: schess::STARTING_FEN,
            moves: vec!["e2e4", "e7e5"],
            samples: vec![Sample { ply: 1, policy: vec![(7, 1.0)], root_wdl: [0.2, 0.3, 0.5], visits: 16 }],
            result: -1,
            termination,
            generation: 4,
            resign_disabled: true,
            would_have_resigned: Some('w'),
        };
        let payload = zstd::encode_all(&bincode::serialize(&vec![game]).unwrap()[..], 3).unwrap();
        let mut bytes = encode(&[]).unwrap()[..super::super::HEADER_LEN].to_vec();
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        bytes[16..24].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes[24..28].copy_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes[28..32].copy_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    #[test]
    fn version_one_shards_are_still_read() {
        assert_eq!(SHARD_FORMAT_VERSION, 2);
        let games = decode_shard(&v1_shard("resign"), Path::new("old.shard")).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.termination, Termination::Resignation);
        assert_eq!((g.result, g.generation, g.would_have_resigned), (-1, 4, Some('w')));
        assert_eq!(g.moves, ["e2e4", "e7e5"]);
        assert_eq!(g.samples[0].visits, 16);
        assert_eq!(g.replay().unwrap().ply(), 2);
        for t in Termination::ALL {
            assert_eq!(decode_shard(&v1_shard(t.name()), Path::new("old.shard")).unwrap()[0].termination, t);
        }
    }

    #[test]
    fn an_unknown_version_one_termination_is_named() {
        let e = decode_shard(&v1_shard("abandoned"), Path::new("old.shard")).unwrap_err();
        assert!(matches!(e, ShardError::Decode { .. }));
        let text = e.to_string();
        assert!(text.contains("old.shard") && text.contains("\"abandoned\""), "{text}");
    }
}
