//! Training-sample shards: the only thing the trainer learns from.
//!
//! A shard holds whole games. Each game keeps its start position and every move played (so
//! the input planes of any ply, history included, can be rebuilt by replaying), the result,
//! and one [`Sample`] per recorded ply: the policy target (sparse policy index ->
//! probability), the root's value estimate, and the visit count behind it. Storing games
//! rather than planes keeps shards small (~30 bytes a ply) and independent of the input
//! encoding's version; the policy targets depend on the policy index, whose version is in
//! the header.
//!
//! File layout (all integers little-endian):
//! ```text
//! 0   8  magic  b"SZSHARD\0"
//! 8   4  format version (SHARD_FORMAT_VERSION; version 1 is still read, see [`v1`])
//! 12  4  policy index version (crate::policy_index::POLICY_FORMAT_VERSION; 1 is read too)
//! 16  8  payload length in bytes
//! 24  4  CRC-32 of the payload
//! 28  4  number of games
//! 32  .. payload: zstd(bincode(Vec<GameRecord>))
//! ```
//! Files are written atomically (temporary file + rename), so a reader never sees a
//! half-written shard; a truncated or corrupted file fails the length or CRC check and is
//! reported, never misread.

use crate::policy_index::{POLICY_FORMAT_VERSION, READABLE_POLICY_FORMATS};
use runstore::atomic::write_atomic;
use schess::{Color, Game, Position, Termination, Variant};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod v1;

pub const SHARD_MAGIC: &[u8; 8] = b"SZSHARD\0";
/// 2: the termination is stored as its index in [`Termination::ALL`] (version 1 stored
/// free text).
pub const SHARD_FORMAT_VERSION: u32 = 2;
const HEADER_LEN: usize = 32;

/// One recorded ply of a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Index into the game's moves: the position before `moves[ply]`.
    pub ply: u16,
    /// Search policy target over legal moves: (policy index, probability), summing to 1.
    pub policy: Vec<(u16, f32)>,
    /// Root value estimate (win, draw, loss) from the side to move's view.
    pub root_wdl: [f32; 3],
    /// Root visits (or simulations) behind the target.
    pub visits: u32,
}

/// A finished self-play game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Rule set (`seirawan` or `chess`).
    pub variant: String,
    pub start_fen: String,
    /// Every move played, in UCI.
    pub moves: Vec<String>,
    pub samples: Vec<Sample>,
    /// Result from White's view: 1 win, 0 draw, -1 loss.
    pub result: i8,
    /// How the game ended.
    #[serde(with = "termination_index")]
    pub termination: Termination,
    /// Generation of the network that played it (0 = random initial network).
    pub generation: u32,
    /// Resignation was disabled in this game (to measure false resigns).
    pub resign_disabled: bool,
    /// In a resign-disabled game: the side that would have resigned, if any, as 'w'/'b'.
    pub would_have_resigned: Option<char>,
}

impl GameRecord {
    /// Result from `color`'s point of view.
    pub fn result_for(&self, color: Color) -> i8 {
        self.game_result().score_for(color)
    }

    /// The stored result (White's score) as a game result.
    pub fn game_result(&self) -> schess::GameResult {
        schess::GameResult::from_white_score(self.result)
    }

    pub fn variant(&self) -> Result<Variant, ShardError> {
        Variant::from_name(&self.variant)
            .ok_or_else(|| ShardError::Invalid(format!("unknown variant {:?}", self.variant)))
    }

    /// Replays the game, returning it with all positions (checks every move).
    pub fn replay(&self) -> Result<Game, ShardError> {
        let start = Position::from_fen_variant(&self.start_fen, self.variant()?)
            .map_err(|e| ShardError::Invalid(format!("start FEN: {e}")))?;
        let mut game = Game::new(start);
        for (i, m) in self.moves.iter().enumerate() {
            game.play_uci(m).map_err(|e| ShardError::Invalid(format!("move {}: {e}", i + 1)))?;
        }
        Ok(game)
    }

    /// Moves left after the position of `ply` (for the moves-left head).
    pub fn moves_left(&self, ply: usize) -> usize {
        self.moves.len().saturating_sub(ply)
    }
}

/// A termination on the wire: its index in [`Termination::ALL`] (one byte).
mod termination_index {
    use schess::Termination;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &Termination, s: S) -> Result<S::Ok, S::Error> {
        let i = Termination::ALL.iter().position(|x| x == t).expect("ALL lists every termination");
        s.serialize_u8(i as u8)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Termination, D::Error> {
        let i = u8::deserialize(d)?;
        Termination::ALL
            .get(usize::from(i))
            .copied()
            .ok_or_else(|| D::Error::custom(format!("unknown termination {i}")))
    }
}

/// Errors reading or writing shards.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a shard (bad magic)")]
    BadMagic { path: PathBuf },
    #[error("{path}: shard format version {found}, this build reads versions 1 to {expected}")]
    Version { path: PathBuf, found: u32, expected: u32 },
    #[error("{path}: policy index version {found}, this build reads 1 to {expected}")]
    PolicyVersion { path: PathBuf, found: u32, expected: u32 },
    #[error("{path}: truncated ({got} payload bytes of {expected})")]
    Truncated { path: PathBuf, got: usize, expected: usize },
    #[error("{path}: checksum mismatch (corrupted)")]
    Checksum { path: PathBuf },
    #[error("{path}: cannot decode payload: {message}")]
    Decode { path: PathBuf, message: String },
    #[error("invalid game record: {0}")]
    Invalid(String),
}

/// Serialises games into shard bytes.
pub fn encode(games: &[GameRecord]) -> Result<Vec<u8>, ShardError> {
    let raw = bincode::serialize(games).map_err(|e| ShardError::Invalid(e.to_string()))?;
    let payload = zstd::encode_all(&raw[..], 3).map_err(|e| ShardError::Invalid(e.to_string()))?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(SHARD_MAGIC);
    out.extend_from_slice(&SHARD_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&POLICY_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&(games.len() as u32).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Parses shard bytes; `path` is only used in error messages.
pub fn decode(bytes: &[u8], path: &Path) -> Result<Vec<GameRecord>, ShardError> {
    let path_buf = || path.to_path_buf();
    if bytes.len() < HEADER_LEN || &bytes[..8] != SHARD_MAGIC {
        return Err(if bytes.len() >= 8 && &bytes[..8] == SHARD_MAGIC {
            ShardError::Truncated { path: path_buf(), got: 0, expected: HEADER_LEN }
        } else {
            ShardError::BadMagic { path: path_buf() }
        });
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    let version = u32_at(8);
    if !(1..=SHARD_FORMAT_VERSION).contains(&version) {
        return Err(ShardError::Version { path: path_buf(), found: version, expected: SHARD_FORMAT_VERSION });
    }
    let policy = u32_at(12);
    // Format 2 of the policy index only appended moves: format-1 targets mean the same.
    if !READABLE_POLICY_FORMATS.contains(&policy) {
        return Err(ShardError::PolicyVersion { path: path_buf(), found: policy, expected: POLICY_FORMAT_VERSION });
    }
    let len = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes")) as usize;
    let payload = &bytes[HEADER_LEN..];
    if payload.len() != len {
        return Err(ShardError::Truncated { path: path_buf(), got: payload.len(), expected: len });
    }
    if crc32fast::hash(payload) != u32_at(24) {
        return Err(ShardError::Checksum { path: path_buf() });
    }
    let decode_error = |message: String| ShardError::Decode { path: path_buf(), message };
    let raw = decompress(payload, MAX_RAW_BYTES).map_err(decode_error)?;
    let games: Vec<GameRecord> = if version == 1 {
        v1::decode(&raw).map_err(decode_error)?
    } else {
        bincode::deserialize(&raw).map_err(|e| decode_error(e.to_string()))?
    };
    if games.len() != u32_at(28) as usize {
        return Err(decode_error("game count differs from header".into()));
    }
    Ok(games)
}

/// A payload never decompresses to more than this (a real shard of 64 games is a few MB):
/// a damaged or hostile file whose CRC happens to match must not exhaust memory.
const MAX_RAW_BYTES: u64 = 1 << 30;

fn decompress(payload: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut raw = Vec::new();
    zstd::stream::read::Decoder::new(payload)
        .and_then(|d| d.take(limit + 1).read_to_end(&mut raw))
        .map_err(|e| e.to_string())?;
    if raw.len() as u64 > limit {
        return Err(format!("the payload decompresses to more than {limit} bytes"));
    }
    Ok(raw)
}

/// Writes a shard atomically.
pub fn write(path: &Path, games: &[GameRecord]) -> Result<(), ShardError> {
    let bytes = encode(games)?;
    write_atomic(path, &bytes).map_err(|source| ShardError::Io { path: path.to_path_buf(), source })
}

/// Reads and checks a shard.
pub fn read(path: &Path) -> Result<Vec<GameRecord>, ShardError> {
    let bytes = std::fs::read(path).map_err(|source| ShardError::Io { path: path.to_path_buf(), source })?;
    decode(&bytes, path)
}

/// What a shard's header says (read without the payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub format_version: u32,
    pub policy_version: u32,
    pub payload_len: u64,
    pub games: u32,
}

/// Reads only the 32-byte header (e.g. to count games cheaply).
pub fn read_header(path: &Path) -> Result<Header, ShardError> {
    use std::io::Read;
    let io = |source| ShardError::Io { path: path.to_path_buf(), source };
    let mut buf = [0u8; HEADER_LEN];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut buf)).map_err(io)?;
    if &buf[..8] != SHARD_MAGIC {
        return Err(ShardError::BadMagic { path: path.to_path_buf() });
    }
    let u32_at = |i: usize| u32::from_le_bytes(buf[i..i + 4].try_into().expect("4 bytes"));
    Ok(Header {
        format_version: u32_at(8),
        policy_version: u32_at(12),
        payload_len: u64::from_le_bytes(buf[16..24].try_into().expect("8 bytes")),
        games: u32_at(28),
    })
}

/// Shard files of a directory (`*.shard`, complete files only), sorted by name.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, ShardError> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(source) => return Err(ShardError::Io { path: dir.to_path_buf(), source }),
    };
    for entry in entries {
        let entry = entry.map_err(|source| ShardError::Io { path: dir.to_path_buf(), source })?;
        let p = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with('.') && name.ends_with(".shard") {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decompression_bomb_is_refused() {
        let bomb = zstd::encode_all(&vec![0u8; 1 << 20][..], 3).unwrap();
        assert!(bomb.len() < 1 << 12, "{} bytes", bomb.len());
        let e = decompress(&bomb, 1 << 16).unwrap_err();
        assert!(e.contains("more than 65536 bytes"), "{e}");
        assert_eq!(decompress(&bomb, 1 << 20).unwrap().len(), 1 << 20);
    }

    fn game() -> GameRecord {
        GameRecord {
            variant: "seirawan".into(),
            start_fen: schess::STARTING_FEN.into(),
            moves: vec!["b1c3e".into(), "e7e5".into()],
            samples: vec![
                Sample { ply: 0, policy: vec![(3, 0.75), (10, 0.25)], root_wdl: [0.5, 0.3, 0.2], visits: 100 },
                Sample { ply: 1, policy: vec![(7, 1.0)], root_wdl: [0.2, 0.3, 0.5], visits: 100 },
            ],
            result: 0,
            termination: Termination::MaxLength,
            generation: 3,
            resign_disabled: false,
            would_have_resigned: None,
        }
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.shard");
        write(&path, &[game(), game()]).unwrap();
        assert_eq!(read(&path).unwrap(), vec![game(), game()]);
        assert_eq!(list(dir.path()).unwrap(), vec![path.clone()]);
        assert_eq!(read_header(&path).unwrap().games, 2);
        assert_eq!(game().replay().unwrap().ply(), 2);
    }

    #[test]
    fn corruption_and_truncation_are_detected() {
        let bytes = encode(&[game()]).unwrap();
        let p = Path::new("x.shard");
        let mut flipped = bytes.clone();
        let last = flipped.len() - 5;
        flipped[last] ^= 0x40;
        assert!(matches!(decode(&flipped, p), Err(ShardError::Checksum { .. })));
        assert!(matches!(decode(&bytes[..bytes.len() - 3], p), Err(ShardError::Truncated { .. })));
        assert!(matches!(decode(&bytes[..20], p), Err(ShardError::Truncated { .. })));
        assert!(matches!(decode(b"garbage garbage garbage garbage!!", p), Err(ShardError::BadMagic { .. })));
        let mut version = bytes.clone();
        version[8] = 99;
        assert!(matches!(decode(&version, p), Err(ShardError::Version { .. })));
    }

    /// Policy format 2 only appended moves: shards of format 1 are read as they are; a
    /// format this build does not know is refused by name.
    #[test]
    fn policy_format_one_is_read_and_unknown_ones_refused() {
        let bytes = encode(&[game()]).unwrap();
        let p = Path::new("x.shard");
        assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), POLICY_FORMAT_VERSION);
        let mut old = bytes.clone();
        old[12..16].copy_from_slice(&1u32.to_le_bytes());
        assert_eq!(decode(&old, p).unwrap(), [game()]);
        let mut newer = bytes;
        newer[12..16].copy_from_slice(&(POLICY_FORMAT_VERSION + 1).to_le_bytes());
        let e = decode(&newer, p).unwrap_err();
        assert!(matches!(e, ShardError::PolicyVersion { found: 3, .. }), "{e}");
        assert!(e.to_string().contains("reads 1 to 2"), "{e}");
    }

    #[test]
    fn bad_moves_in_a_record_are_reported() {
        let mut g = game();
        g.moves.push("e1e8".into());
        assert!(matches!(g.replay(), Err(ShardError::Invalid(_))));
    }
}
