//! The position: board, hands, rights, clocks and key, and how a move changes them.

use crate::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::bitboard::Bitboard;
use crate::mv::{CastleGate, Move};
use crate::types::{Color, File, HandPiece, Piece, Role, Square};
use crate::zobrist;

/// Rule set. `Seirawan` is S-Chess as Fairy-Stockfish's `seirawan` variant; `Chess` is the
/// same engine with empty hands (orthodox chess), the control for gating experiments.
/// `Placement` and `Forced` are M. Winther's two alternative entry rules (2007), which no
/// other engine plays; every choice the seed texts leave open is stated in
/// `CONVENTIONS.md` ("Alternative entry rules").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    #[default]
    Seirawan,
    Chess,
    /// "Pioneer" entry: each side first assigns each hand piece to a back-rank file (one
    /// move per piece, `E@d`); the piece then enters by itself when the piece on that
    /// file's home square first moves away, and is lost if that piece is captured there.
    Placement,
    /// Forced entry: the Hawk, then the Elephant, must enter with the side's first and
    /// second bishop, knight or queen moves from a home square.
    Forced,
}

impl Variant {
    /// The variant's name as Fairy-Stockfish's `UCI_Variant` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Seirawan => "seirawan",
            Variant::Chess => "chess",
            Variant::Placement => "seirawan-placement",
            Variant::Forced => "seirawan-forced",
        }
    }

    /// Every variant, in the order reports list them.
    pub const ALL: [Variant; 4] = [Variant::Seirawan, Variant::Placement, Variant::Forced, Variant::Chess];

    pub fn from_name(name: &str) -> Option<Variant> {
        match name.to_ascii_lowercase().as_str() {
            "seirawan" | "s-chess" | "schess" => Some(Variant::Seirawan),
            "chess" | "standard" => Some(Variant::Chess),
            "seirawan-placement" | "placement" | "pioneer" => Some(Variant::Placement),
            "seirawan-forced" | "forced" | "forced-entry" => Some(Variant::Forced),
            _ => None,
        }
    }

    /// The name for PGN's `[Variant "..."]` tag.
    pub fn pgn_name(self) -> &'static str {
        match self {
            Variant::Seirawan => "Seirawan",
            Variant::Chess => "Standard",
            Variant::Placement => "Seirawan-Placement",
            Variant::Forced => "Seirawan-Forced",
        }
    }

    /// Do the sides start with pieces in hand?
    pub fn has_hands(self) -> bool {
        self != Variant::Chess
    }

    /// Is entering a hand piece compulsory (the move that vacates an entry square always
    /// brings the piece in), rather than the mover's choice as in `seirawan`?
    pub fn entry_is_forced(self) -> bool {
        matches!(self, Variant::Placement | Variant::Forced)
    }

    /// FEN of the variant's initial position.
    pub fn start_fen(self) -> &'static str {
        match self {
            Variant::Seirawan => crate::STARTING_FEN,
            Variant::Chess => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Variant::Placement | Variant::Forced => crate::STARTING_FEN,
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The pieces one side holds in hand: at most one Elephant and one Hawk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hand(u8);

impl Hand {
    pub const EMPTY: Hand = Hand(0);
    pub const FULL: Hand = Hand(0b11);

    #[inline]
    pub const fn contains(self, p: HandPiece) -> bool {
        self.0 >> p as u8 & 1 != 0
    }
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    #[inline]
    #[must_use]
    pub const fn with(self, p: HandPiece) -> Hand {
        Hand(self.0 | 1 << p as u8)
    }
    #[inline]
    #[must_use]
    pub const fn without(self, p: HandPiece) -> Hand {
        Hand(self.0 & !(1 << p as u8))
    }
    /// The pieces held, Elephant first.
    pub fn iter(self) -> impl Iterator<Item = HandPiece> {
        HandPiece::ALL.into_iter().filter(move |&p| self.contains(p))
    }
}

/// An S-Chess position.
///
/// Invariants (upheld by FEN parsing and by [`Position::play`]): one king per side; no pawn
/// on a back rank; gating rights only on occupied squares of the owner's back rank and only
/// while the owner's hand is not empty; castling rights only with king and rook on their
/// original squares; `key` equals [`Position::compute_key`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) by_role: [Bitboard; 8],
    pub(crate) turn: Color,
    pub(crate) hands: [Hand; 2],
    /// Squares that may still gate (White's on rank 1, Black's on rank 8).
    pub(crate) gating: Bitboard,
    /// Origin squares of rooks that may still castle (a1, h1, a8, h8).
    pub(crate) castling: Bitboard,
    /// Gating rights read from a FEN for a side whose hand is empty. They allow nothing, and
    /// are not part of the key, but Fairy-Stockfish keeps them until that side moves and
    /// then prints an empty castling field instead of `-`; kept only to print the same FEN.
    pub(crate) dormant_gates: Bitboard,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) key: u64,
    pub(crate) variant: Variant,
    /// `Placement` only: the file each hand piece is assigned to, `[color][piece]`. A piece
    /// in hand without a file still waits for its placement move; once a side has placed
    /// both, its gating rights are only the assigned home squares.
    pub(crate) assigned: Assignments,
}

/// `Placement` file assignments, one nibble per (colour, piece): 0 for none, else file + 1.
/// Packed so that `Position` stays at 128 bytes: perft and search clone it at every node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Assignments(u16);

impl Assignments {
    #[inline]
    fn shift(color: Color, p: HandPiece) -> u32 {
        4 * (color.index() * 2 + p.index()) as u32
    }
    #[inline]
    pub(crate) fn get(self, color: Color, p: HandPiece) -> Option<File> {
        let n = (self.0 >> Self::shift(color, p)) & 0xf;
        if n == 0 {
            None
        } else {
            File::new(n as u8 - 1)
        }
    }
    #[inline]
    pub(crate) fn set(&mut self, color: Color, p: HandPiece, file: Option<File>) {
        let sh = Self::shift(color, p);
        let n = file.map_or(0, |f| f.index() as u16 + 1);
        self.0 = (self.0 & !(0xf << sh)) | (n << sh);
    }
    #[inline]
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }
    /// The same assignments with the colours swapped.
    pub(crate) fn mirrored(self) -> Assignments {
        Assignments(self.0.rotate_left(8))
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::new(Variant::Seirawan)
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl Position {
    /// The variant's initial position.
    pub fn new(variant: Variant) -> Position {
        Position::from_fen_variant(variant.start_fen(), variant).expect("start FEN is valid")
    }

    /// The S-Chess initial position.
    pub fn startpos() -> Position {
        Position::new(Variant::Seirawan)
    }

    pub(crate) fn empty(variant: Variant) -> Position {
        Position {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 8],
            turn: Color::White,
            hands: [Hand::EMPTY; 2],
            gating: Bitboard::EMPTY,
            castling: Bitboard::EMPTY,
            dormant_gates: Bitboard::EMPTY,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            variant,
            assigned: Assignments::default(),
        }
    }

    // ----- accessors -----

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }
    #[inline]
    pub fn variant(&self) -> Variant {
        self.variant
    }
    #[inline]
    pub fn hand(&self, color: Color) -> Hand {
        self.hands[color.index()]
    }
    /// Squares of `color` that still have a gating right.
    #[inline]
    pub fn gating_rights(&self, color: Color) -> Bitboard {
        self.gating & Bitboard::rank(color.back_rank())
    }
    /// `Placement` only: the back-rank file `piece` of `color` is assigned to, while it is in
    /// hand and its entry right lasts.
    #[inline]
    pub fn assigned_file(&self, color: Color, piece: HandPiece) -> Option<File> {
        self.assigned.get(color, piece)
    }
    /// `Placement` only: hand pieces of `color` that still wait for their placement move.
    #[inline]
    pub fn unplaced(&self, color: Color) -> Hand {
        if self.variant != Variant::Placement {
            return Hand::EMPTY;
        }
        let mut h = self.hands[color.index()];
        for p in HandPiece::ALL {
            if self.assigned.get(color, p).is_some() {
                h = h.without(p);
            }
        }
        h
    }
    /// Origin squares of `color`'s rooks that may still castle.
    #[inline]
    pub fn castling_rooks(&self, color: Color) -> Bitboard {
        self.castling & Bitboard::rank(color.back_rank())
    }
    /// The en-passant target square, set only when an enemy pawn could capture there.
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }
    #[inline]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }
    #[inline]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }
    /// Zobrist key of everything that defines the position for repetition.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        self.pieces(color, Role::King).first().expect("position has a king of each side")
    }

    /// The role of the piece on `sq`, if any.
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            return None;
        }
        Role::ALL.into_iter().find(|r| self.by_role[r.index()].contains(sq))
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = if self.by_color[0].contains(sq) { Color::White } else { Color::Black };
        Some(Piece { color, role })
    }

    // ----- attacks -----

    /// Pieces moving like a rook along ranks and files (R, Q, E).
    #[inline]
    pub(crate) fn orthogonal_sliders(&self) -> Bitboard {
        self.by_role[Role::Rook.index()] | self.by_role[Role::Queen.index()] | self.by_role[Role::Elephant.index()]
    }
    /// Pieces moving like a bishop along diagonals (B, Q, H).
    #[inline]
    pub(crate) fn diagonal_sliders(&self) -> Bitboard {
        self.by_role[Role::Bishop.index()] | self.by_role[Role::Queen.index()] | self.by_role[Role::Hawk.index()]
    }
    /// Pieces with a knight's leap (N, E, H).
    #[inline]
    pub(crate) fn leapers(&self) -> Bitboard {
        self.by_role[Role::Knight.index()] | self.by_role[Role::Elephant.index()] | self.by_role[Role::Hawk.index()]
    }

    /// All pieces of `attacker` that attack `sq`, with `occupied` as the blockers.
    #[inline]
    pub fn attackers(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let them = self.by_color[attacker.index()];
        ((rook_attacks(sq, occupied) & self.orthogonal_sliders())
            | (bishop_attacks(sq, occupied) & self.diagonal_sliders())
            | (knight_attacks(sq) & self.leapers())
            | (king_attacks(sq) & self.by_role[Role::King.index()])
            | (pawn_attacks(attacker.flip(), sq) & self.by_role[Role::Pawn.index()]))
            & them
    }

    /// Squares a piece of `role` and `color` on `sq` attacks.
    #[inline]
    pub fn attacks_from(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
        match role {
            Role::Pawn => pawn_attacks(color, sq),
            Role::Knight => knight_attacks(sq),
            Role::Bishop => bishop_attacks(sq, occupied),
            Role::Rook => rook_attacks(sq, occupied),
            Role::Queen => bishop_attacks(sq, occupied) | rook_attacks(sq, occupied),
            Role::King => king_attacks(sq),
            Role::Elephant => rook_attacks(sq, occupied) | knight_attacks(sq),
            Role::Hawk => bishop_attacks(sq, occupied) | knight_attacks(sq),
        }
    }

    /// Pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.attackers(self.king(self.turn), self.turn.flip(), self.occupied())
    }

    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    // ----- mutation helpers -----

    #[inline]
    pub(crate) fn put(&mut self, color: Color, role: Role, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.by_color[color.index()] |= b;
        self.by_role[role.index()] |= b;
        self.key ^= zobrist::piece(color, role, sq);
    }

    #[inline]
    pub(crate) fn remove(&mut self, color: Color, role: Role, sq: Square) {
        let b = !Bitboard::from_square(sq);
        self.by_color[color.index()] &= b;
        self.by_role[role.index()] &= b;
        self.key ^= zobrist::piece(color, role, sq);
    }

    #[inline]
    fn take_from_hand(&mut self, color: Color, p: HandPiece) {
        self.hands[color.index()] = self.hands[color.index()].without(p);
        self.key ^= zobrist::hand(color, p);
    }

    /// Recomputes the key from scratch (used after setup and by tests).
    pub fn compute_key(&self) -> u64 {
        let mut k = 0;
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.pieces(color, role) {
                    k ^= zobrist::piece(color, role, sq);
                }
            }
            for p in self.hands[color.index()].iter() {
                k ^= zobrist::hand(color, p);
            }
        }
        for sq in self.castling {
            k ^= zobrist::castle(sq);
        }
        for sq in self.gating {
            k ^= zobrist::gate(sq);
        }
        if let Some(ep) = self.ep {
            k ^= zobrist::ep(ep);
        }
        for color in Color::ALL {
            for p in HandPiece::ALL {
                if let Some(f) = self.assigned.get(color, p) {
                    k ^= zobrist::assign(color, p, f);
                }
            }
        }
        if self.turn == Color::Black {
            k ^= zobrist::black_to_move();
        }
        k
    }

    /// `Placement`: assigns `p` of `us` to `file` and, once `us` has placed every hand
    /// piece, narrows its gating rights to the assigned home squares.
    fn assign(&mut self, us: Color, p: HandPiece, file: File) {
        self.assigned.set(us, p, Some(file));
        self.key ^= zobrist::assign(us, p, file);
        if self.unplaced(us).is_empty() {
            self.gating &= !Bitboard::rank(us.back_rank()) | self.assigned_squares(us);
        }
    }

    /// `Placement`: home squares of `color`'s assigned pieces.
    pub(crate) fn assigned_squares(&self, color: Color) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for f in HandPiece::ALL.into_iter().filter_map(|p| self.assigned.get(color, p)) {
            b |= Bitboard::from_square(Square::from_coords(f, color.back_rank()));
        }
        b
    }

    /// `Placement`: an assigned piece whose home square lost its entry right without the
    /// piece entering (its occupant was captured there) is lost; an assignment of a piece
    /// that entered is cleared.
    fn settle_assignments(&mut self) {
        for color in Color::ALL {
            for p in HandPiece::ALL {
                let Some(f) = self.assigned.get(color, p) else { continue };
                let sq = Square::from_coords(f, color.back_rank());
                let in_hand = self.hands[color.index()].contains(p);
                if in_hand && self.gating.contains(sq) {
                    continue;
                }
                if in_hand {
                    self.take_from_hand(color, p);
                }
                self.assigned.set(color, p, None);
                self.key ^= zobrist::assign(color, p, f);
            }
        }
    }

    /// Plays a legal move, returning the new position. Checks legality first.
    pub fn play(&self, m: Move) -> Result<Position, crate::IllegalMove> {
        if self.is_legal(m) {
            let mut p = self.clone();
            p.play_unchecked(m);
            Ok(p)
        } else {
            Err(crate::IllegalMove { uci: m.to_uci(), fen: self.fen() })
        }
    }

    /// Plays a move that must come from this position's legal move list. Nothing is
    /// checked; an illegal move leaves the position in an unspecified (but memory-safe)
    /// state.
    pub fn play_unchecked(&mut self, m: Move) {
        let us = self.turn;
        let them = us.flip();
        if let Some(ep) = self.ep.take() {
            self.key ^= zobrist::ep(ep);
        }
        self.halfmove += 1;
        let old_castling = self.castling;
        let old_gating = self.gating;
        let touched;
        match m {
            Move::Normal { from, to, gate } => {
                let role = self.role_at(from).unwrap_or(Role::Pawn);
                if let Some(captured) = self.role_at(to) {
                    self.remove(them, captured, to);
                    self.halfmove = 0;
                }
                self.remove(us, role, from);
                self.put(us, role, to);
                if role == Role::Pawn {
                    self.halfmove = 0;
                    if from.index().abs_diff(to.index()) == 16 {
                        let ep = Square::new_unchecked(((from.index() + to.index()) / 2) as u32);
                        if (pawn_attacks(us, ep) & self.pieces(them, Role::Pawn)).any() {
                            self.ep = Some(ep);
                            self.key ^= zobrist::ep(ep);
                        }
                    }
                } else if role == Role::King {
                    self.castling &= !Bitboard::rank(us.back_rank());
                }
                if let Some(p) = gate {
                    self.take_from_hand(us, p);
                    self.put(us, p.role(), from);
                }
                touched = Bitboard::from_square(from).with(to);
            }
            Move::Promotion { from, to, role } => {
                if let Some(captured) = self.role_at(to) {
                    self.remove(them, captured, to);
                }
                self.remove(us, Role::Pawn, from);
                self.put(us, role, to);
                self.halfmove = 0;
                touched = Bitboard::from_square(from).with(to);
            }
            Move::EnPassant { from, to } => {
                let captured = Square::from_coords(to.file(), from.rank());
                self.remove(them, Role::Pawn, captured);
                self.remove(us, Role::Pawn, from);
                self.put(us, Role::Pawn, to);
                self.halfmove = 0;
                touched = Bitboard::EMPTY;
            }
            Move::Place { piece, on } => {
                self.assign(us, piece, on.file());
                self.halfmove = 0;
                touched = Bitboard::EMPTY;
            }
            Move::Castle { king, rook, gate } => {
                let side = m.castle_side().expect("castle");
                self.remove(us, Role::King, king);
                self.remove(us, Role::Rook, rook);
                self.put(us, Role::King, side.king_to(us));
                self.put(us, Role::Rook, side.rook_to(us));
                if let Some((p, on)) = gate {
                    self.take_from_hand(us, p);
                    let sq = if on == CastleGate::King { king } else { rook };
                    self.put(us, p.role(), sq);
                }
                self.castling &= !Bitboard::rank(us.back_rank());
                touched = Bitboard::from_square(king).with(rook);
            }
        }
        self.castling &= !touched;
        self.gating &= !touched;
        self.dormant_gates &= !touched;
        if self.hands[us.index()].is_empty() {
            self.gating &= !Bitboard::rank(us.back_rank());
            self.dormant_gates &= !Bitboard::rank(us.back_rank());
        }
        if self.variant == Variant::Placement {
            self.settle_assignments();
            // A capture on an assigned home square can empty the other side's hand.
            if self.hands[them.index()].is_empty() {
                self.gating &= !Bitboard::rank(them.back_rank());
            }
        }
        for sq in old_castling ^ self.castling {
            self.key ^= zobrist::castle(sq);
        }
        for sq in old_gating ^ self.gating {
            self.key ^= zobrist::gate(sq);
        }
        if us == Color::Black {
            self.fullmove += 1;
        }
        self.turn = them;
        self.key ^= zobrist::black_to_move();
    }

    /// Passes the turn (for search heuristics and tests; not a legal S-Chess move).
    /// Returns `None` when the side to move is in check.
    pub fn null_move(&self) -> Option<Position> {
        if self.is_check() {
            return None;
        }
        let mut p = self.clone();
        if let Some(ep) = p.ep.take() {
            p.key ^= zobrist::ep(ep);
        }
        p.turn = p.turn.flip();
        p.key ^= zobrist::black_to_move();
        Some(p)
    }

    /// The board mirrored top to bottom with colours swapped: the same position seen from
    /// the other side (used by the network encoding and symmetry tests).
    pub fn mirrored(&self) -> Position {
        let mut p = Position::empty(self.variant);
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.pieces(color, role) {
                    p.put(color.flip(), role, sq.flip_vertical());
                }
            }
        }
        p.hands = [self.hands[1], self.hands[0]];
        p.assigned = self.assigned.mirrored();
        p.gating = self.gating.flip_vertical();
        p.castling = self.castling.flip_vertical();
        p.dormant_gates = self.dormant_gates.flip_vertical();
        p.ep = self.ep.map(Square::flip_vertical);
        p.turn = self.turn.flip();
        p.halfmove = self.halfmove;
        p.fullmove = self.fullmove;
        p.key = p.compute_key();
        p
    }

    /// Does `color` lack the material to ever checkmate? Matches Fairy-Stockfish's
    /// `has_insufficient_material` for this variant: any piece in `color`'s hand, a pawn, a
    /// rook, a queen, an elephant or a hawk is mating material; bishops need bishops on both
    /// square colours (either side's) or some other non-king piece on the board; knights
    /// need one more non-king piece of either colour on the board.
    pub fn has_insufficient_material(&self, color: Color) -> bool {
        if !self.hands[color.index()].is_empty() {
            return false;
        }
        let ours = self.by_color(color);
        let majors = self.by_role(Role::Pawn)
            | self.by_role(Role::Rook)
            | self.by_role(Role::Queen)
            | self.by_role(Role::Elephant)
            | self.by_role(Role::Hawk);
        if (ours & majors).any() {
            return false;
        }
        let non_king = self.occupied() & !self.by_role(Role::King);
        if (ours & self.by_role(Role::Knight)).any() && non_king.count() >= 2 {
            return false;
        }
        let bishops = self.by_role(Role::Bishop);
        if (ours & bishops).any() {
            const DARK: u64 = 0xAA55_AA55_AA55_AA55;
            let both_colours = bishops.0 & DARK != 0 && bishops.0 & !DARK != 0;
            if both_colours || (non_king & !bishops).any() {
                return false;
            }
        }
        true
    }

    /// Both sides lack mating material.
    pub fn is_insufficient_material(&self) -> bool {
        self.has_insufficient_material(Color::White) && self.has_insufficient_material(Color::Black)
    }

    /// `us`'s pieces pinned to the king on `ksq` (the only piece between it and an enemy
    /// slider).
    #[inline]
    pub(crate) fn pinned(&self, us: Color, ksq: Square) -> Bitboard {
        let them = self.by_color(us.flip());
        let occ = self.occupied();
        let snipers = ((rook_attacks(ksq, Bitboard::EMPTY) & self.orthogonal_sliders())
            | (bishop_attacks(ksq, Bitboard::EMPTY) & self.diagonal_sliders()))
            & them;
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = crate::attacks::between(ksq, s) & occ;
            if b.any() && !b.more_than_one() {
                pinned |= b;
            }
        }
        pinned & self.by_color(us)
    }
}
