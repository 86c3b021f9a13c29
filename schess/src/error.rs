//! Error types. Every parser in this crate returns one of these; none panics on any input.

use crate::types::{Color, Square};
use std::fmt;

/// Why a FEN was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenError {
    /// The string is empty or blank.
    Empty,
    /// A required field is missing (`"side to move"`, `"castling"`, `"en passant"`).
    MissingField(&'static str),
    /// More than six fields.
    ExtraField(String),
    /// The board field is malformed (wrong number of ranks or files, bad characters).
    Board(String),
    /// The hand (`[EHeh]`) is malformed.
    Hand(String),
    /// A hand holds more than one piece of a kind (`[EEEh]`).
    HandTooLarge { color: Color, piece: char, count: usize },
    /// The side-to-move field is not `w` or `b`.
    Turn(String),
    /// The castling/gating field has a bad character or names an impossible right.
    Castling(String),
    /// A gating right names an empty square.
    GatingOnEmptySquare(Square),
    /// A gating right names a square held by the other side.
    GatingOnEnemyPiece(Square),
    /// The en-passant field is malformed or on a wrong rank.
    EnPassant(String),
    /// A move counter is not a number.
    Clock(String),
    /// A side has no king.
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings(Color),
    /// A pawn stands on the first or last rank.
    PawnOnBackRank(Square),
    /// The side that just moved is in check.
    OppositeCheck(Color),
    /// Orthodox chess (`chess` variant) has no hands.
    HandInChess,
    /// A `seirawan-placement` file assignment (`[E@d...]`) is impossible.
    Placement(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "invalid FEN: empty string"),
            FenError::MissingField(what) => write!(f, "invalid FEN: missing {what} field"),
            FenError::ExtraField(s) => write!(f, "invalid FEN: unexpected extra field {s:?}"),
            FenError::Board(s) => write!(f, "invalid FEN board: {s}"),
            FenError::Hand(s) => write!(f, "invalid FEN hand: {s}"),
            FenError::HandTooLarge { color, piece, count } => write!(
                f,
                "invalid FEN hand: {color} holds {count} of '{piece}' (an S-Chess hand holds at most one elephant and one hawk)"
            ),
            FenError::Turn(s) => write!(f, "invalid FEN side to move {s:?} (expected 'w' or 'b')"),
            FenError::Castling(s) => write!(f, "invalid FEN castling/gating field: {s}"),
            FenError::GatingOnEmptySquare(sq) => write!(f, "invalid FEN: gating right on empty square {sq}"),
            FenError::GatingOnEnemyPiece(sq) => {
                write!(f, "invalid FEN: gating right on {sq}, which holds the other side's piece")
            }
            FenError::EnPassant(s) => write!(f, "invalid FEN en-passant field: {s}"),
            FenError::Clock(s) => write!(f, "invalid FEN move counter {s:?}"),
            FenError::MissingKing(c) => write!(f, "invalid FEN: {c} has no king"),
            FenError::TooManyKings(c) => write!(f, "invalid FEN: {c} has more than one king"),
            FenError::PawnOnBackRank(sq) => write!(f, "invalid FEN: pawn on back rank square {sq}"),
            FenError::OppositeCheck(c) => write!(f, "invalid FEN: {c} is in check but it is not {c}'s turn"),
            FenError::HandInChess => write!(f, "invalid FEN: the chess variant has no pieces in hand"),
            FenError::Placement(s) => write!(f, "invalid FEN placement: {s}"),
        }
    }
}

impl std::error::Error for FenError {}

/// Why a UCI move string could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UciError {
    /// Not of the form `<from><to>[<piece>]`.
    Syntax(String),
    /// Well-formed, but not a legal move in the position.
    Illegal { uci: String, fen: String },
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::Syntax(s) => write!(f, "invalid UCI move {s:?}"),
            UciError::Illegal { uci, fen } => write!(f, "illegal move {uci} in {fen}"),
        }
    }
}

impl std::error::Error for UciError {}

/// Why a SAN string could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SanError {
    Syntax(String),
    /// No legal move fits.
    Illegal {
        san: String,
        fen: String,
    },
    /// Several legal moves fit (e.g. `Rd1/E` when both rooks may gate).
    Ambiguous {
        san: String,
        fen: String,
    },
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax(s) => write!(f, "invalid SAN {s:?}"),
            SanError::Illegal { san, fen } => write!(f, "no legal move {san} in {fen}"),
            SanError::Ambiguous { san, fen } => write!(f, "ambiguous SAN {san} in {fen}"),
        }
    }
}

impl std::error::Error for SanError {}

/// A move that is not legal in the position it was applied to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalMove {
    pub uci: String,
    pub fen: String,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {} in {}", self.uci, self.fen)
    }
}

impl std::error::Error for IllegalMove {}
