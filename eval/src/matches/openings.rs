//! Match openings: positions from an EPD file, or a few random plies from the start.
//!
//! Deterministic players would otherwise repeat the same game over and over; each opening
//! is played twice with colours swapped, so an unbalanced opening favours neither side.

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use schess::{Game, Move, Position, Variant};
use std::path::{Path, PathBuf};

/// A start for one game pair: a position and the moves (if any) that lead from it to the
/// position where the players take over. Random openings keep their moves so the PGN and
/// the repetition history are complete.
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    pub start: Position,
    pub moves: Vec<Move>,
}

impl Opening {
    pub fn game(&self) -> Game {
        let mut g = Game::new(self.start.clone());
        for &m in &self.moves {
            g.play_unchecked(m);
        }
        g
    }
}

/// Why an opening file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{}:{line}: {reason}", path.display())]
    BadLine { path: PathBuf, line: usize, reason: String },
    #[error("{}: no positions", path.display())]
    Empty { path: PathBuf },
}

/// Reads an EPD or FEN file: one position per line, `#` comments and blank lines skipped.
/// A line holds either a full six-field FEN or four EPD fields (clocks default to `0 1`),
/// optionally followed by EPD operations (`bm ...;`), which are ignored. Positions that
/// are already over are rejected.
pub fn load_epd(path: &Path, variant: Variant) -> Result<Vec<Opening>, OpeningError> {
    let text = std::fs::read_to_string(path).map_err(|error| OpeningError::Io { path: path.into(), error })?;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split(';').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |reason: String| OpeningError::BadLine { path: path.into(), line: i + 1, reason };
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            return Err(bad(format!("expected at least 4 FEN fields, found {}", fields.len())));
        }
        let clocks = fields.len() >= 6 && fields[4].parse::<u32>().is_ok() && fields[5].parse::<u32>().is_ok();
        let fen = if clocks { fields[..6].join(" ") } else { format!("{} 0 1", fields[..4].join(" ")) };
        let start = Position::from_fen_variant(&fen, variant).map_err(|e| bad(e.to_string()))?;
        let opening = Opening { start, moves: Vec::new() };
        if opening.game().outcome().is_some() {
            return Err(bad("the game is already over in this position".into()));
        }
        out.push(opening);
    }
    if out.is_empty() {
        return Err(OpeningError::Empty { path: path.into() });
    }
    Ok(out)
}

/// `plies` uniformly random legal moves from the variant's start, retried until the game
/// is still running (and the side to move has no mate in one, which would decide the game
/// at once).
pub fn random_opening(variant: Variant, plies: u32, rng: &mut SmallRng) -> Opening {
    loop {
        let mut g = Game::new(Position::new(variant));
        let mut ok = true;
        for _ in 0..plies {
            let moves = g.position().legal_moves();
            match moves.choose(rng) {
                Some(&m) if g.outcome().is_none() => g.play_unchecked(m),
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        let pos = g.position();
        if ok && g.outcome().is_none() && !pos.legal_moves().iter().any(|&m| pos.gives_checkmate(m)) {
            return Opening { start: g.start().clone(), moves: g.moves().to_vec() };
        }
    }
}

/// Where a match's openings come from.
#[derive(Debug, Clone)]
pub enum OpeningBook {
    /// Positions used in order, cycling when there are fewer than game pairs.
    List(Vec<Opening>),
    /// Random plies from the start, from a seed (pair k uses a generator seeded from the
    /// seed and k, so a match is reproducible whatever the thread interleaving).
    Random { variant: Variant, plies: u32, seed: u64 },
}

impl OpeningBook {
    /// Shuffles a list with `seed` (so different matches see different subsets).
    pub fn shuffled(mut self, seed: u64) -> Self {
        if let OpeningBook::List(v) = &mut self {
            v.shuffle(&mut SmallRng::seed_from_u64(seed));
        }
        self
    }

    /// The opening of game pair `pair`.
    pub fn get(&self, pair: usize) -> Opening {
        match self {
            OpeningBook::List(v) => v[pair % v.len()].clone(),
            OpeningBook::Random { variant, plies, seed } => {
                let mut rng = SmallRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ pair as u64);
                random_opening(*variant, *plies, &mut rng)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_epd_and_fen_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("o.epd");
        std::fs::write(
            &p,
            "# comment\n\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[EHeh] b KQBCDFGkqbcdfg - bm e7e5;\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1\n",
        )
        .unwrap();
        let v = load_epd(&p, Variant::Seirawan).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].start, Position::startpos());
        std::fs::write(&p, "not a fen at all\n").unwrap();
        assert!(matches!(load_epd(&p, Variant::Seirawan), Err(OpeningError::BadLine { line: 1, .. })));
        std::fs::write(&p, "# nothing\n").unwrap();
        assert!(matches!(load_epd(&p, Variant::Seirawan), Err(OpeningError::Empty { .. })));
    }

    #[test]
    fn random_openings_are_reproducible_and_running() {
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 8, seed: 7 };
        for k in 0..20 {
            let o = book.get(k);
            assert_eq!(o.moves.len(), 8);
            assert_eq!(o, book.get(k));
            assert!(o.game().outcome().is_none());
        }
        assert_ne!(book.get(0), book.get(1));
    }
}
