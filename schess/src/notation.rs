//! Move notation: UCI (Fairy-Stockfish's strings) and SAN (pyffish's strings, minus two
//! documented defects).
//!
//! SAN differs from pyffish `get_san` in exactly two ways, both pyffish defects:
//! * pyffish never disambiguates gating moves (`Rd1/E` for both `a1d1e` and `h1d1e`); we
//!   disambiguate them like any other move (`Rad1/E`, `Rhd1/E`). Disambiguation looks at
//!   every legal move of the same piece kind to the same square, with or without a gate.
//! * pyffish judges `+`/`#` without the gated piece on the board, so it prints a false `+`
//!   (or `#`) when the gated piece blocks the check; we print the true status.
//!
//! The SAN reader accepts both our form and pyffish's where pyffish's is unambiguous.

use crate::error::{SanError, UciError};
use crate::mv::{CastleGate, CastleSide, Move};
use crate::position::Position;
use crate::types::{File, HandPiece, Rank, Role, Square};

impl Position {
    /// Reads a move in Fairy-Stockfish's UCI form (`g1f3`, `b1c3e`, `e1g1`, `h1e1h`,
    /// `a7a8e`); the piece suffix may be upper case. The move must be legal here.
    ///
    /// `seirawan-placement` adds placements, `E@d` (also `e@d` and `E@d1`/`E@d8` naming the
    /// mover's home square). In the variants where entry is compulsory a move may also be
    /// written without its entry suffix (`b1c3` for `b1c3h`), since only one form is legal.
    pub fn parse_uci(&self, s: &str) -> Result<Move, UciError> {
        let syntax = || UciError::Syntax(s.to_string());
        if let Some(m) = self.parse_placement(s) {
            return m.ok_or_else(|| UciError::Illegal { uci: s.to_string(), fen: self.fen() });
        }
        if !s.is_ascii() || !(4..=5).contains(&s.len()) {
            return Err(syntax());
        }
        let from = Square::parse(&s[0..2]).ok_or_else(syntax)?;
        Square::parse(&s[2..4]).ok_or_else(syntax)?;
        if s.len() == 5 && Role::from_char(s.as_bytes()[4] as char).is_none() {
            return Err(syntax());
        }
        let wanted = s.to_ascii_lowercase();
        let moves = self.legal_moves_from(from);
        let bare = |m: &Move| self.variant().entry_is_forced() && m.without_gate().to_uci() == wanted;
        moves
            .iter()
            .find(|m| m.to_uci() == wanted)
            .or_else(|| moves.iter().find(|m| bare(m)))
            .copied()
            .ok_or_else(|| UciError::Illegal { uci: s.to_string(), fen: self.fen() })
    }

    /// Reads `E@d` / `E@d1`: `None` if `s` is not written as a placement, `Some(None)` if it
    /// is one but not legal here.
    fn parse_placement(&self, s: &str) -> Option<Option<Move>> {
        let (piece, target) = s.split_once('@')?;
        let mut pc = piece.chars();
        let piece = HandPiece::from_char(pc.next()?.to_ascii_uppercase())?;
        if pc.next().is_some() {
            return None;
        }
        let file = match target.len() {
            1 => File::from_char(target.chars().next()?)?,
            2 => {
                let sq = Square::parse(target)?;
                if sq.rank() != self.turn().back_rank() {
                    return Some(None);
                }
                sq.file()
            }
            _ => return None,
        };
        let on = Square::from_coords(file, self.turn().back_rank());
        let m = Move::Place { piece, on };
        Some(self.legal_moves_from(on).contains(&m).then_some(m))
    }

    /// SAN of a legal move (behaviour for an illegal move is unspecified but never panics).
    pub fn san(&self, m: Move) -> String {
        let mut s = self.san_body(m, true);
        let mut after = self.clone();
        after.play_unchecked(m);
        if after.is_check() {
            s.push(if after.has_legal_moves() { '+' } else { '#' });
        }
        s
    }

    /// SAN exactly as pyffish's `get_san` writes it, defects included: gating moves are
    /// never disambiguated (so two moves can share a string), and `+`/`#` are judged with
    /// the gated piece lifted off the board, except that a check given by the gated piece
    /// itself counts. For interoperability (PGN read by Fairy-Stockfish based tools);
    /// prefer [`Position::san`] elsewhere.
    pub fn san_pyffish(&self, m: Move) -> String {
        let mut s = self.san_body(m, m.gate().is_none());
        let mut after = self.clone();
        after.play_unchecked(m);
        let check = match m.gate() {
            None => after.is_check(),
            Some((piece, sq)) => {
                let them = after.turn();
                let ksq = after.king(them);
                let mut lifted = after.clone();
                lifted.remove(them.flip(), piece.role(), sq);
                let gate_attacks =
                    Position::attacks_from(piece.role(), them.flip(), sq, after.occupied()).contains(ksq);
                lifted.is_check() || gate_attacks
            }
        };
        if check {
            s.push(if after.has_legal_moves() { '+' } else { '#' });
        }
        s
    }

    fn san_body(&self, m: Move, disambiguate: bool) -> String {
        let mut s = String::with_capacity(12);
        match m {
            Move::Place { .. } => s.push_str(&m.to_uci()),
            Move::Castle { .. } => {
                s.push_str(match m.castle_side() {
                    Some(CastleSide::King) => "O-O",
                    _ => "O-O-O",
                });
                if let Some((p, sq)) = m.gate() {
                    s.push('/');
                    s.push(p.role().upper_char());
                    s.push_str(&sq.to_string());
                }
            }
            _ => {
                let from = m.from();
                let to = m.to();
                let role = self.role_at(from).unwrap_or(Role::Pawn);
                let capture = self.occupied().contains(to) || matches!(m, Move::EnPassant { .. });
                if role == Role::Pawn {
                    if capture {
                        s.push(from.file().char());
                    }
                } else {
                    s.push(role.upper_char());
                    if disambiguate {
                        s.push_str(&self.disambiguation(role, from, to));
                    }
                }
                if capture {
                    s.push('x');
                }
                s.push_str(&to.to_string());
                if let Some(p) = m.promotion() {
                    s.push('=');
                    s.push(p.upper_char());
                }
                if let Some(p) = m.gate_piece() {
                    s.push('/');
                    s.push(p.role().upper_char());
                }
            }
        }
        s
    }

    /// The file, rank or square needed to tell `from` apart from other pieces of the same
    /// kind that can also move to `to`.
    fn disambiguation(&self, role: Role, from: Square, to: Square) -> String {
        if role == Role::King {
            return String::new();
        }
        let rivals: Vec<Square> = (self.pieces(self.turn, role).without(from))
            .filter(|&other| {
                self.legal_moves_from(other).iter().any(|m| matches!(m, Move::Normal { .. }) && m.to() == to)
            })
            .collect();
        if rivals.is_empty() {
            String::new()
        } else if rivals.iter().all(|r| r.file() != from.file()) {
            from.file().char().to_string()
        } else if rivals.iter().all(|r| r.rank() != from.rank()) {
            from.rank().char().to_string()
        } else {
            from.to_string()
        }
    }

    /// Reads SAN: ours, pyffish's (where unambiguous) and common variants (`0-0`, `e8Q`,
    /// trailing `+ # ! ?`).
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        let syntax = || SanError::Syntax(san.to_string());
        let s = san.trim_end_matches(['+', '#', '!', '?']);
        if s.is_empty() || !s.is_ascii() {
            return Err(syntax());
        }
        if let Some(m) = self.parse_placement(s) {
            return m.ok_or_else(|| SanError::Illegal { san: san.to_string(), fen: self.fen() });
        }
        // Where entry is compulsory, a move written without its entry means the one legal
        // form of it.
        let any_gate = self.variant().entry_is_forced() && !s.contains('/');
        let (body, gate) = match s.rfind('/') {
            Some(i) => (&s[..i], Some(parse_gate(&s[i + 1..]).ok_or_else(syntax)?)),
            None => (s, None),
        };
        let candidates: Vec<Move> = if let Some(side) = parse_castle(body) {
            self.legal_moves()
                .into_iter()
                .filter(|m| m.castle_side() == Some(side))
                .filter(|m| match (gate, m.gate()) {
                    (None, None) => true,
                    (None, Some(_)) => any_gate,
                    (Some((p, sq)), Some((mp, msq))) => p == mp && sq.is_none_or(|sq| sq == msq),
                    _ => false,
                })
                .collect()
        } else {
            if matches!(gate, Some((_, Some(_)))) {
                return Err(syntax());
            }
            let gate = gate.map(|(p, _)| p);
            let spec = parse_move_body(body).ok_or_else(syntax)?;
            self.legal_moves()
                .into_iter()
                .filter(|m| !m.is_castle())
                .filter(|m| {
                    m.to() == spec.to && (m.gate_piece() == gate || any_gate) && m.promotion() == spec.promotion
                })
                .filter(|m| !m.is_placement())
                .filter(|m| self.role_at(m.from()) == Some(spec.role))
                .filter(|m| spec.file.is_none_or(|f| m.from().file() == f))
                .filter(|m| spec.rank.is_none_or(|r| m.from().rank() == r))
                .collect()
        };
        match candidates.as_slice() {
            [m] => Ok(*m),
            [] => Err(SanError::Illegal { san: san.to_string(), fen: self.fen() }),
            _ => Err(SanError::Ambiguous { san: san.to_string(), fen: self.fen() }),
        }
    }
}

/// `E`, `H`, or for castling `Ee1`, `Hh8`.
fn parse_gate(s: &str) -> Option<(HandPiece, Option<Square>)> {
    let mut chars = s.chars();
    let p = HandPiece::from_char(chars.next()?)?;
    let rest = chars.as_str();
    if rest.is_empty() {
        Some((p, None))
    } else {
        Some((p, Some(Square::parse(rest)?)))
    }
}

fn parse_castle(s: &str) -> Option<CastleSide> {
    match s {
        "O-O" | "0-0" => Some(CastleSide::King),
        "O-O-O" | "0-0-0" => Some(CastleSide::Queen),
        _ => None,
    }
}

struct MoveSpec {
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    to: Square,
    promotion: Option<Role>,
}

fn parse_move_body(s: &str) -> Option<MoveSpec> {
    let mut b = s.as_bytes();
    let mut role = Role::Pawn;
    if let Some(&c) = b.first() {
        if c.is_ascii_uppercase() {
            role = Role::from_char(c as char)?;
            if role == Role::Pawn {
                return None;
            }
            b = &b[1..];
        }
    }
    // Promotion: "=Q" or a trailing piece letter.
    let mut promotion = None;
    if let Some(&c) = b.last() {
        if c.is_ascii_uppercase() {
            promotion = Some(Role::from_char(c as char).filter(|r| !matches!(r, Role::Pawn | Role::King))?);
            b = &b[..b.len() - 1];
            if b.last() == Some(&b'=') {
                b = &b[..b.len() - 1];
            }
        }
    }
    if promotion.is_some() && role != Role::Pawn {
        return None;
    }
    if b.len() < 2 {
        return None;
    }
    let to = Square::parse(std::str::from_utf8(&b[b.len() - 2..]).ok()?)?;
    let mut rest = &b[..b.len() - 2];
    if rest.last() == Some(&b'x') {
        rest = &rest[..rest.len() - 1];
    }
    let (mut file, mut rank) = (None, None);
    for &c in rest {
        if let Some(f) = File::from_char(c as char) {
            if file.is_some() || rank.is_some() {
                return None;
            }
            file = Some(f);
        } else if let Some(r) = Rank::from_char(c as char) {
            if rank.is_some() {
                return None;
            }
            rank = Some(r);
        } else {
            return None;
        }
    }
    Some(MoveSpec { role, file, rank, to, promotion })
}

impl Move {
    /// Builds the castling move of `side` for the king on `king` (no legality check).
    pub fn castle(king: Square, side: CastleSide, gate: Option<(HandPiece, CastleGate)>) -> Move {
        let rank = king.rank();
        let rook = Square::from_coords(if side == CastleSide::King { File::H } else { File::A }, rank);
        Move::Castle { king, rook, gate }
    }
}
