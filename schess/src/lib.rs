//! Rules of Seirawan chess (S-Chess), exactly as Fairy-Stockfish's `seirawan` variant plays
//! them: bitboards, legal move generation with gating, FEN, UCI and SAN notation, game end
//! and perft. No dependencies beyond a stack vector.
//!
//! Conventions and the reference's quirks are recorded in `CONVENTIONS.md` next to this
//! crate. Deliberate differences from Fairy-Stockfish:
//! * **Repetition.** A position's identity includes hands *and gating rights*, just as
//!   castling rights count in orthodox chess. Fairy-Stockfish's key omits gating rights, so
//!   it calls `b1c3 b8c6 c3b1 c6b8` twice from the start a threefold repetition at ply 8
//!   although the start position could still gate on b1/b8; here the start position never
//!   recurs and the first threefold repetition comes at ply 10.
//! * **SAN.** Gating moves are disambiguated when needed (`Rad1/E`), and `+`/`#` reflect the
//!   board with the gated piece on it. See [`notation`].
//!
//! ```
//! use schess::Position;
//! let pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 28);
//! let m = pos.parse_uci("b1c3e").unwrap();
//! assert_eq!(pos.san(m), "Nc3/E");
//! let next = pos.play(m).unwrap();
//! assert_eq!(next.fen(), "rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/REBQKBNR[Heh] b KQCDFGkqbcdfg - 1 1");
//! ```

#![forbid(unsafe_code)]

pub mod attacks;
pub mod bitboard;
mod error;
mod fen;
pub mod game;
pub mod material;
mod movegen;
mod mv;
pub mod notation;
pub mod perft;
pub mod pgn;
mod position;
mod result;
mod termination;
pub mod types;
mod zobrist;

pub use bitboard::Bitboard;
pub use error::{FenError, IllegalMove, SanError, UciError};
pub use game::{DrawReason, Game, Outcome};
pub use movegen::{MoveList, MAX_MOVES};
pub use mv::{CastleGate, CastleSide, Move};
pub use position::{Hand, Position, Variant};
pub use result::{GameResult, ResultError};
pub use termination::{Termination, TerminationError};
pub use types::{Color, File, HandPiece, Piece, Rank, Role, Square};

/// The S-Chess start position, as pyffish's `get_fen` writes it.
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1";
