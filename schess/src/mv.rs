//! The move type: every S-Chess move, including the gate that may come with it.

use crate::types::{Color, HandPiece, Role, Square};
use std::fmt;

/// Which vacated square a castling move gates onto.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastleGate {
    /// The king's origin square (`e1`/`e8`): UCI `e1g1e`.
    King,
    /// The rook's origin square (`h1`, `a1`, ...): UCI `h1e1e`.
    Rook,
}

/// Castling side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastleSide {
    King,
    Queen,
}

impl CastleSide {
    /// Where the king ends up.
    pub fn king_to(self, color: Color) -> Square {
        match (self, color) {
            (CastleSide::King, Color::White) => Square::G1,
            (CastleSide::Queen, Color::White) => Square::C1,
            (CastleSide::King, Color::Black) => Square::G8,
            (CastleSide::Queen, Color::Black) => Square::C8,
        }
    }
    /// Where the rook ends up.
    pub fn rook_to(self, color: Color) -> Square {
        match (self, color) {
            (CastleSide::King, Color::White) => Square::F1,
            (CastleSide::Queen, Color::White) => Square::D1,
            (CastleSide::King, Color::Black) => Square::F8,
            (CastleSide::Queen, Color::Black) => Square::D8,
        }
    }
}

/// A move of S-Chess.
///
/// Gating is part of the move: a gate can only be attached to the kinds of move that can
/// carry one (a pawn move or a promotion never gates; castling gates onto the king's or the
/// rook's square, never both). Whether a particular move is legal in a position is decided by
/// [`crate::Position::legal_moves`]; a `Move` on its own is only well-formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece or pawn move or capture (including double pawn pushes), with an optional gate
    /// onto `from`. Movegen never attaches a gate to a pawn move.
    Normal { from: Square, to: Square, gate: Option<HandPiece> },
    /// A pawn reaching the last rank, promoting to `role` (Q R B N E H). Never gates.
    Promotion { from: Square, to: Square, role: Role },
    /// An en-passant capture; `to` is the square the capturing pawn lands on.
    EnPassant { from: Square, to: Square },
    /// Castling, encoded by the king's and the rook's origin squares.
    Castle { king: Square, rook: Square, gate: Option<(HandPiece, CastleGate)> },
    /// `seirawan-placement` only: assigns a hand piece to the file of `on`, the mover's
    /// home square on that file, where it will enter. Nothing moves on the board. UCI and
    /// SAN: `E@d` (the piece letter is upper case for both colours, as in drops).
    Place { piece: HandPiece, on: Square },
}

impl Move {
    /// Origin square (the king's for castling).
    #[inline]
    pub fn from(self) -> Square {
        match self {
            Move::Normal { from, .. } | Move::Promotion { from, .. } | Move::EnPassant { from, .. } => from,
            Move::Castle { king, .. } => king,
            Move::Place { on, .. } => on,
        }
    }

    /// Destination square (the king's destination for castling; the home square for a
    /// placement).
    #[inline]
    pub fn to(self) -> Square {
        match self {
            Move::Normal { to, .. } | Move::Promotion { to, .. } | Move::EnPassant { to, .. } => to,
            Move::Place { on, .. } => on,
            Move::Castle { king, rook, .. } => castle_side(king, rook).king_to(color_of_back_rank(king)),
        }
    }

    /// The gated piece and the square it is placed on, if any.
    #[inline]
    pub fn gate(self) -> Option<(HandPiece, Square)> {
        match self {
            Move::Normal { from, gate: Some(p), .. } => Some((p, from)),
            Move::Castle { king, gate: Some((p, CastleGate::King)), .. } => Some((p, king)),
            Move::Castle { rook, gate: Some((p, CastleGate::Rook)), .. } => Some((p, rook)),
            _ => None,
        }
    }

    /// The gate piece alone.
    #[inline]
    pub fn gate_piece(self) -> Option<HandPiece> {
        self.gate().map(|(p, _)| p)
    }

    pub fn promotion(self) -> Option<Role> {
        match self {
            Move::Promotion { role, .. } => Some(role),
            _ => None,
        }
    }

    pub fn is_castle(self) -> bool {
        matches!(self, Move::Castle { .. })
    }

    /// Is this a placement (`E@d`), which moves nothing on the board?
    pub fn is_placement(self) -> bool {
        matches!(self, Move::Place { .. })
    }

    /// The same move without its gate.
    #[must_use]
    pub fn without_gate(self) -> Move {
        match self {
            Move::Normal { from, to, .. } => Move::Normal { from, to, gate: None },
            Move::Castle { king, rook, .. } => Move::Castle { king, rook, gate: None },
            m => m,
        }
    }

    /// The castling side of a castling move.
    pub fn castle_side(self) -> Option<CastleSide> {
        match self {
            Move::Castle { king, rook, .. } => Some(castle_side(king, rook)),
            _ => None,
        }
    }

    /// UCI notation as Fairy-Stockfish writes it (`b1c3e`, `e1g1`, `h1e1h`, `a7a8e`).
    pub fn to_uci(self) -> String {
        self.to_string()
    }
}

#[inline]
fn castle_side(king: Square, rook: Square) -> CastleSide {
    if rook.file() > king.file() {
        CastleSide::King
    } else {
        CastleSide::Queen
    }
}

#[inline]
fn color_of_back_rank(sq: Square) -> Color {
    if sq.rank() == crate::types::Rank::First {
        Color::White
    } else {
        Color::Black
    }
}

impl fmt::Display for Move {
    /// Fairy-Stockfish's UCI form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::Normal { from, to, gate } => {
                write!(f, "{from}{to}")?;
                if let Some(p) = gate {
                    write!(f, "{}", p.role().lower_char())?;
                }
                Ok(())
            }
            Move::Promotion { from, to, role } => write!(f, "{from}{to}{}", role.lower_char()),
            Move::EnPassant { from, to } => write!(f, "{from}{to}"),
            Move::Place { piece, on } => write!(f, "{}@{}", piece.role().upper_char(), on.file().char()),
            Move::Castle { king, rook, gate } => match gate {
                // Gate on the rook square: Fairy-Stockfish names the rook square first and
                // the king's origin second.
                Some((p, CastleGate::Rook)) => write!(f, "{rook}{king}{}", p.role().lower_char()),
                Some((p, CastleGate::King)) => write!(f, "{king}{}{}", self.to(), p.role().lower_char()),
                None => write!(f, "{king}{}", self.to()),
            },
        }
    }
}
