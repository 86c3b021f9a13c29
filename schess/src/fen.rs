//! FEN: reading and writing, byte for byte as pyffish's `get_fen` prints it.
//!
//! `<board>[<hand>] <side> <castling+gating> <ep> <halfmove> <fullmove>`; see
//! `CONVENTIONS.md` for the castling/gating field. Reading also accepts Fairy-Stockfish
//! 11.1's long castling/gating field (`KQABCDEFGHkqabcdefgh`), hands in any order
//! (`[HEhe]`), and FENs without the two move counters (then `0 1`).

use crate::attacks::pawn_attacks;
use crate::bitboard::Bitboard;
use crate::error::FenError;
use crate::position::{Hand, Position, Variant};
use crate::types::{Color, File, HandPiece, Piece, Rank, Role, Square};
use std::fmt::Write as _;

impl Position {
    /// Parses an S-Chess FEN.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_variant(fen, Variant::Seirawan)
    }

    /// Parses a FEN of the given variant.
    pub fn from_fen_variant(fen: &str, variant: Variant) -> Result<Position, FenError> {
        let mut fields = tokenize(fen).into_iter();
        let board_field = fields.next().ok_or(FenError::Empty)?;
        let mut pos = Position::empty(variant);

        let (board, hand) = match board_field.find('[') {
            Some(i) => {
                let rest = &board_field[i + 1..];
                let hand = rest
                    .strip_suffix(']')
                    .ok_or_else(|| FenError::Hand(format!("{:?} has no closing ']'", &board_field[i..])))?;
                (&board_field[..i], Some(hand))
            }
            None => (board_field, None),
        };
        parse_board(&mut pos, board)?;
        if let Some(hand) = hand {
            parse_hand(&mut pos, hand)?;
        }
        if variant == Variant::Chess && pos.hands.iter().any(|h| !h.is_empty()) {
            return Err(FenError::HandInChess);
        }
        if variant != Variant::Placement && pos.assigned.any() {
            return Err(FenError::Placement(format!(
                "file assignments ('E@d') exist only in seirawan-placement, not {variant}"
            )));
        }

        for color in Color::ALL {
            match pos.pieces(color, Role::King).count() {
                0 => return Err(FenError::MissingKing(color)),
                1 => {}
                _ => return Err(FenError::TooManyKings(color)),
            }
        }
        let back_ranks = Bitboard::rank(Rank::First) | Bitboard::rank(Rank::Eighth);
        if let Some(sq) = (pos.by_role(Role::Pawn) & back_ranks).first() {
            return Err(FenError::PawnOnBackRank(sq));
        }

        pos.turn = match fields.next() {
            Some("w") => Color::White,
            Some("b") => Color::Black,
            Some(s) => return Err(FenError::Turn(s.to_string())),
            None => return Err(FenError::MissingField("side to move")),
        };
        parse_castling(&mut pos, fields.next().ok_or(FenError::MissingField("castling"))?)?;
        settle_entry_rights(&mut pos)?;
        parse_ep(&mut pos, fields.next().ok_or(FenError::MissingField("en passant"))?)?;
        if let Some(s) = fields.next() {
            pos.halfmove = s.parse().map_err(|_| FenError::Clock(s.to_string()))?;
        }
        if let Some(s) = fields.next() {
            let n: u32 = s.parse().map_err(|_| FenError::Clock(s.to_string()))?;
            pos.fullmove = n.max(1);
        }
        if let Some(s) = fields.next() {
            return Err(FenError::ExtraField(s.to_string()));
        }

        let them = pos.turn.flip();
        if pos.attackers(pos.king(them), pos.turn, pos.occupied()).any() {
            return Err(FenError::OppositeCheck(them));
        }
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// The FEN, as pyffish's `get_fen` writes it.
    pub fn fen(&self) -> String {
        let mut s = String::with_capacity(96);
        for rank in Rank::ALL.iter().rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::from_coords(File::new(file).expect("file"), *rank);
                match self.piece_at(sq) {
                    Some(p) => {
                        if empty > 0 {
                            write!(s, "{empty}").unwrap();
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(s, "{empty}").unwrap();
            }
            if *rank != Rank::First {
                s.push('/');
            }
        }
        if self.variant.has_hands() {
            s.push('[');
            for color in Color::ALL {
                for p in self.hands[color.index()].iter() {
                    s.push(Piece { color, role: p.role() }.char());
                    if let Some(f) = self.assigned_file(color, p) {
                        s.push('@');
                        s.push(f.char());
                    }
                }
            }
            s.push(']');
        }
        s.push(' ');
        s.push(self.turn.char());
        s.push(' ');
        let before = s.len();
        for color in Color::ALL {
            let rooks = self.castling_rooks(color);
            let k = rooks.contains(Square::from_coords(File::H, color.back_rank()));
            let q = rooks.contains(Square::from_coords(File::A, color.back_rank()));
            let case = |c: char| if color == Color::White { c.to_ascii_uppercase() } else { c };
            if k {
                s.push(case('k'));
            }
            if q {
                s.push(case('q'));
            }
            if !self.hands[color.index()].is_empty() {
                for sq in self.gating_rights(color) {
                    let file = sq.file();
                    let redundant =
                        (rooks.any() && sq == self.king(color)) || (k && file == File::H) || (q && file == File::A);
                    if !redundant {
                        s.push(case(file.char()));
                    }
                }
            }
        }
        // Fairy-Stockfish writes `-` only when no right at all is left, counting gating
        // rights of an empty hand that it does not print (see `dormant_gates`).
        if s.len() == before && self.dormant_gates.is_empty() {
            s.push('-');
        }
        match self.ep {
            Some(ep) => write!(s, " {ep}").unwrap(),
            None => s.push_str(" -"),
        }
        write!(s, " {} {}", self.halfmove, self.fullmove).unwrap();
        s
    }
}

/// Splits a FEN into fields. Fairy-Stockfish writes an empty castling/gating field (two
/// spaces in a row) in one corner case (see `dormant_gates`), so an empty third field is kept
/// when the field after it reads as an en-passant field; other runs of blanks are separators.
fn tokenize(fen: &str) -> Vec<&str> {
    let raw: Vec<&str> = fen.trim().split([' ', '\t', '\n', '\r']).collect();
    let mut out = Vec::with_capacity(6);
    for (i, tok) in raw.iter().enumerate() {
        if !tok.is_empty() {
            out.push(*tok);
        } else if out.len() == 2 {
            let next = raw[i + 1..].iter().find(|t| !t.is_empty());
            if next.is_some_and(|t| *t == "-" || Square::parse(t).is_some()) {
                out.push("");
            }
        }
    }
    out
}

fn parse_board(pos: &mut Position, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::Board(format!("expected 8 ranks, found {}", ranks.len())));
    }
    for (i, row) in ranks.iter().enumerate() {
        let rank = Rank::new(7 - i as u8).expect("rank index");
        let mut file = 0u32;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 {
                    return Err(FenError::Board(format!("digit 0 in rank {}", rank.char())));
                }
                file += d;
            } else {
                let piece = Piece::from_char(c).ok_or_else(|| FenError::Board(format!("unknown piece {c:?}")))?;
                if file >= 8 {
                    return Err(FenError::Board(format!("rank {} has more than 8 files", rank.char())));
                }
                let sq = Square::from_coords(File::new(file as u8).expect("file"), rank);
                pos.put(piece.color, piece.role, sq);
                file += 1;
            }
            if file > 8 {
                return Err(FenError::Board(format!("rank {} has more than 8 files", rank.char())));
            }
        }
        if file != 8 {
            return Err(FenError::Board(format!("rank {} has {file} files, not 8", rank.char())));
        }
    }
    Ok(())
}

fn parse_hand(pos: &mut Position, hand: &str) -> Result<(), FenError> {
    let mut counts = [[0usize; 2]; 2];
    let mut chars = hand.chars().peekable();
    while let Some(c) = chars.next() {
        let piece = Piece::from_char(c).ok_or_else(|| FenError::Hand(format!("unknown piece {c:?}")))?;
        let hp = HandPiece::from_role(piece.role)
            .ok_or_else(|| FenError::Hand(format!("{c:?} cannot be held in hand (only elephants and hawks can)")))?;
        counts[piece.color.index()][hp.index()] += 1;
        let count = counts[piece.color.index()][hp.index()];
        if count > 1 {
            // Report the full count for a clearer message.
            let total = hand.chars().filter(|&x| x == c).count();
            return Err(FenError::HandTooLarge { color: piece.color, piece: c, count: total.max(count) });
        }
        let h = &mut pos.hands[piece.color.index()];
        *h = h.with(hp);
        if chars.peek() == Some(&'@') {
            chars.next();
            let f = chars
                .next()
                .and_then(File::from_char)
                .ok_or_else(|| FenError::Hand(format!("'{c}@' must be followed by a file letter a-h")))?;
            pos.assigned.set(piece.color, hp, Some(f));
        }
    }
    Ok(())
}

/// Applies the entry rule of the variant to the gating rights just read, and checks the
/// placement assignments: `Forced` keeps rights only on squares of bishops, knights and
/// queens (only they bring pieces in); `Placement` needs every assigned piece's home square
/// to keep its right, and narrows a side that has placed both pieces to those squares.
fn settle_entry_rights(pos: &mut Position) -> Result<(), FenError> {
    match pos.variant {
        Variant::Seirawan | Variant::Chess => {}
        Variant::Forced => {
            pos.gating &= pos.by_role(Role::Bishop) | pos.by_role(Role::Knight) | pos.by_role(Role::Queen);
        }
        Variant::Placement => {
            for color in Color::ALL {
                let (e, h) = (pos.assigned.get(color, HandPiece::Elephant), pos.assigned.get(color, HandPiece::Hawk));
                if let (Some(e), Some(h)) = (e, h) {
                    if e == h {
                        return Err(FenError::Placement(format!(
                            "{color}'s elephant and hawk are both assigned to the {}-file",
                            e.char()
                        )));
                    }
                    if crate::movegen::forbidden_pair(e, Some(h)) {
                        return Err(FenError::Placement(format!(
                            "{color} may not assign one piece to the king's file and the other to a rook's file ({}, {})",
                            e.char(),
                            h.char()
                        )));
                    }
                }
                let assigned = pos.assigned_squares(color);
                if let Some(sq) = (assigned & !pos.gating).first() {
                    return Err(FenError::Placement(format!(
                        "{color}'s piece is assigned to {sq}, which has no entry right in the castling/gating field"
                    )));
                }
                if pos.unplaced(color).is_empty() {
                    pos.gating &= !Bitboard::rank(color.back_rank()) | assigned;
                }
                for p in pos.unplaced(color).iter() {
                    if pos.placement_squares(color, p).is_empty() {
                        return Err(FenError::Placement(format!(
                            "{color}'s unplaced {p:?} has no file left to be placed on"
                        )));
                    }
                }
            }
            if !pos.unplaced(pos.turn).is_empty() && pos.is_check() {
                return Err(FenError::Placement(format!("{} must place a hand piece but is in check", pos.turn)));
            }
        }
    }
    Ok(())
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" || field.is_empty() {
        return Ok(());
    }
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let rank = color.back_rank();
        let hand = pos.hands[color.index()];
        let lower = c.to_ascii_lowercase();
        match lower {
            'k' | 'q' => {
                let (rook_file, side) = if lower == 'k' { (File::H, "kingside") } else { (File::A, "queenside") };
                let ksq = Square::from_coords(File::E, rank);
                let rsq = Square::from_coords(rook_file, rank);
                let own = |sq: Square, role: Role| pos.piece_at(sq) == Some(Piece { color, role });
                if !own(ksq, Role::King) || !own(rsq, Role::Rook) {
                    return Err(FenError::Castling(format!(
                        "'{c}' ({color} {side} castling) needs the king on {ksq} and a rook on {rsq}"
                    )));
                }
                pos.castling |= Bitboard::from_square(rsq);
                let gates = Bitboard::from_square(rsq).with(ksq);
                if hand.is_empty() {
                    pos.dormant_gates |= gates;
                } else {
                    pos.gating |= gates;
                }
            }
            'a'..='h' => {
                let file = File::from_char(lower).expect("file letter");
                let sq = Square::from_coords(file, rank);
                match pos.piece_at(sq) {
                    None => return Err(FenError::GatingOnEmptySquare(sq)),
                    Some(p) if p.color != color => return Err(FenError::GatingOnEnemyPiece(sq)),
                    Some(_) if hand.is_empty() => {
                        // No gating without pieces in hand: the right lies dormant, and a
                        // letter naming a corner rook is a Shredder-style castling right.
                        pos.dormant_gates |= Bitboard::from_square(sq);
                        if pos.piece_at(sq) == Some(Piece { color, role: Role::Rook })
                            && (file == File::A || file == File::H)
                            && pos.piece_at(Square::from_coords(File::E, rank))
                                == Some(Piece { color, role: Role::King })
                        {
                            pos.castling |= Bitboard::from_square(sq);
                        }
                    }
                    Some(_) => pos.gating |= Bitboard::from_square(sq),
                }
            }
            _ => return Err(FenError::Castling(format!("unexpected character {c:?} in {field:?}"))),
        }
    }
    // A king and a rook on their original squares that both may still gate have never
    // moved, so they may castle (Fairy-Stockfish reads `AEH` as `KQ`).
    for color in Color::ALL {
        let rank = color.back_rank();
        let ksq = Square::from_coords(File::E, rank);
        if pos.gating.contains(ksq) && pos.piece_at(ksq) == Some(Piece { color, role: Role::King }) {
            for file in [File::A, File::H] {
                let rsq = Square::from_coords(file, rank);
                if pos.gating.contains(rsq) && pos.piece_at(rsq) == Some(Piece { color, role: Role::Rook }) {
                    pos.castling |= Bitboard::from_square(rsq);
                }
            }
        }
    }
    Ok(())
}

fn parse_ep(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let sq = Square::parse(field).ok_or_else(|| FenError::EnPassant(format!("{field:?} is not a square")))?;
    let us = pos.turn;
    let expected_rank = Rank::Sixth.relative(us);
    if sq.rank() != expected_rank {
        return Err(FenError::EnPassant(format!("{sq} is not on rank {} ({} to move)", expected_rank.char(), us)));
    }
    // Keep the square only if the double push is plausible and a pawn could capture there,
    // as Fairy-Stockfish does; otherwise drop it silently.
    let them = us.flip();
    let pushed = Square::from_coords(sq.file(), Rank::Fifth.relative(us));
    let origin = Square::from_coords(sq.file(), Rank::Seventh.relative(us));
    let plausible = pos.piece_at(pushed) == Some(Piece { color: them, role: Role::Pawn })
        && pos.piece_at(sq).is_none()
        && pos.piece_at(origin).is_none();
    if plausible && (pawn_attacks(them, sq) & pos.pieces(us, Role::Pawn)).any() {
        pos.ep = Some(sq);
    }
    Ok(())
}

impl std::str::FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Position, FenError> {
        Position::from_fen(s)
    }
}

impl Hand {
    /// The hand as FEN letters of `color` (`EH`, `eh`, ...).
    pub fn fen_letters(self, color: Color) -> String {
        self.iter().map(|p| Piece { color, role: p.role() }.char()).collect()
    }
}
