//! A game: a start position, the moves played, and how it ends.

use crate::error::{SanError, UciError};
use crate::mv::Move;
use crate::position::Position;
use crate::result::GameResult;
use crate::types::Color;
use crate::IllegalMove;

/// Why a game ended in a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawReason {
    Stalemate,
    /// The halfmove clock reached 100 (gating moves do not reset it).
    FiftyMoves,
    /// The same position (pieces, side to move, hands, castling and gating rights, en
    /// passant) for the third time.
    Repetition,
    /// Neither side has mating material (pieces in hand count).
    InsufficientMaterial,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Checkmate { winner: Color },
    Draw(DrawReason),
}

impl Outcome {
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Checkmate { winner } => Some(winner),
            Outcome::Draw(_) => None,
        }
    }

    /// The result alone (who won), e.g. for PGN.
    pub fn result(self) -> GameResult {
        GameResult::from_winner(self.winner())
    }
}

/// A game with its history, for repetition detection and undo.
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    moves: Vec<Move>,
    /// `positions[i]` is the position before `moves[i]`; the last entry is the current one.
    positions: Vec<Position>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game { positions: vec![start.clone()], start, moves: Vec::new() }
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game always has a position")
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Positions from the start to the current one (inclusive).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Plays a move after checking that it is legal.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        let next = self.position().play(m)?;
        self.moves.push(m);
        self.positions.push(next);
        Ok(())
    }

    /// Plays a move known to be legal (from this position's legal move list).
    pub fn play_unchecked(&mut self, m: Move) {
        let mut next = self.position().clone();
        next.play_unchecked(m);
        self.moves.push(m);
        self.positions.push(next);
    }

    pub fn play_uci(&mut self, uci: &str) -> Result<Move, UciError> {
        let m = self.position().parse_uci(uci)?;
        self.play_unchecked(m);
        Ok(m)
    }

    pub fn play_san(&mut self, san: &str) -> Result<Move, SanError> {
        let m = self.position().parse_san(san)?;
        self.play_unchecked(m);
        Ok(m)
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        Some(m)
    }

    /// How often the current position has occurred in this game (1 = first time). Only
    /// positions since the last capture or pawn move can repeat; gating changes the hand and
    /// so the key.
    pub fn repetitions(&self) -> usize {
        let cur = self.position();
        let window = (cur.halfmove_clock() as usize).min(self.positions.len() - 1);
        self.positions[self.positions.len() - 1 - window..]
            .iter()
            .rev()
            .step_by(2)
            .filter(|p| p.key() == cur.key())
            .count()
    }

    /// The game's result under the rules, if it is over: checkmate, stalemate, threefold
    /// repetition, the 50-move rule (checkmate takes precedence), insufficient material.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        if !pos.has_legal_moves() {
            return Some(if pos.is_check() {
                Outcome::Checkmate { winner: pos.turn().flip() }
            } else {
                Outcome::Draw(DrawReason::Stalemate)
            });
        }
        if pos.halfmove_clock() >= 100 {
            return Some(Outcome::Draw(DrawReason::FiftyMoves));
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if pos.is_insufficient_material() {
            return Some(Outcome::Draw(DrawReason::InsufficientMaterial));
        }
        None
    }
}
