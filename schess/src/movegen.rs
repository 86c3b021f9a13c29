//! Legal move generation.
//!
//! Moves are generated legal by construction (check evasion masks, pin lines, a king-safety
//! test per king destination) rather than generated pseudo-legally and filtered. Gating is
//! layered on top: a move is generated once without a gate, judged for legality without the
//! gated piece on the board (Fairy-Stockfish's rule, see `CONVENTIONS.md`), and then repeated
//! with each hand piece when its origin square still has a gating right.
//!
//! Generation reports moves to a [`Sink`] as bundles (one origin, a set of destinations), so
//! that perft can count a whole bundle with one popcount instead of building moves.

use crate::attacks::{between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks};
use crate::bitboard::Bitboard;
use crate::mv::{CastleGate, CastleSide, Move};
use crate::position::{Hand, Position, Variant};
use crate::types::{Color, File, HandPiece, Rank, Role, Square};
use arrayvec::ArrayVec;

/// Upper bound on the number of legal moves in a position, with room to spare (orthodox
/// chess peaks at 218; gating can triple a back-rank piece's moves).
pub const MAX_MOVES: usize = 1024;

/// A list of moves that lives on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Receives generated moves.
pub(crate) trait Sink {
    /// Moves of the non-pawn piece on `from` to each square of `targets`.
    fn piece(&mut self, from: Square, targets: Bitboard);
    /// Pushes and captures of the pawn on `from` (promotions when they reach the last rank).
    fn pawn(&mut self, from: Square, targets: Bitboard);
    fn en_passant(&mut self, from: Square, to: Square);
    fn castle(&mut self, king: Square, rook: Square);
    /// `Placement`: assigning `piece` to the home square `on`.
    fn place(&mut self, piece: HandPiece, on: Square);
}

const PROMOTION_RANKS: Bitboard = Bitboard(0xff00_0000_0000_00ff);

/// Which moves may or must bring in a hand piece, for the side to move.
#[derive(Clone, Copy)]
struct Entry {
    /// Squares a move from which may (or, when `forced`, must) gate.
    gates: Bitboard,
    hand: Hand,
    /// Entry is compulsory and the piece fixed per file (`Placement`, `Forced`): the move
    /// from a square of `gates` exists only with `piece_on[file]` gated.
    forced: bool,
    piece_on: [Option<HandPiece>; 8],
}

impl Entry {
    #[inline]
    fn forced_piece(&self, sq: Square) -> Option<HandPiece> {
        if self.gates.contains(sq) {
            self.piece_on[sq.file().index()]
        } else {
            None
        }
    }
}

struct ListSink<'a> {
    list: &'a mut MoveList,
    gates: Bitboard,
    hand: Hand,
    entry: Entry,
}

impl<'a> ListSink<'a> {
    fn new(list: &'a mut MoveList, entry: Entry) -> ListSink<'a> {
        // The optional-gate path keeps its own two fields, so Seirawan's hot loop is as before.
        let (gates, hand) = if entry.forced { (Bitboard::EMPTY, Hand::EMPTY) } else { (entry.gates, entry.hand) };
        ListSink { list, gates, hand, entry }
    }
}

impl Sink for ListSink<'_> {
    #[inline]
    fn piece(&mut self, from: Square, targets: Bitboard) {
        if self.entry.forced {
            let gate = self.entry.forced_piece(from);
            for to in targets {
                self.list.push(Move::Normal { from, to, gate });
            }
            return;
        }
        let gating = self.gates.contains(from);
        for to in targets {
            self.list.push(Move::Normal { from, to, gate: None });
            if gating {
                for p in self.hand.iter() {
                    self.list.push(Move::Normal { from, to, gate: Some(p) });
                }
            }
        }
    }
    #[inline]
    fn pawn(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            if PROMOTION_RANKS.contains(to) {
                for role in Role::PROMOTIONS {
                    self.list.push(Move::Promotion { from, to, role });
                }
            } else {
                self.list.push(Move::Normal { from, to, gate: None });
            }
        }
    }
    #[inline]
    fn en_passant(&mut self, from: Square, to: Square) {
        self.list.push(Move::EnPassant { from, to });
    }
    #[inline]
    fn castle(&mut self, king: Square, rook: Square) {
        if self.entry.forced {
            // Placement forbids pieces on both the king's and a rook's file, so at most one
            // of the two enters.
            let gate = match (self.entry.forced_piece(king), self.entry.forced_piece(rook)) {
                (Some(p), _) => Some((p, CastleGate::King)),
                (None, Some(p)) => Some((p, CastleGate::Rook)),
                (None, None) => None,
            };
            self.list.push(Move::Castle { king, rook, gate });
            return;
        }
        self.list.push(Move::Castle { king, rook, gate: None });
        for p in self.hand.iter() {
            if self.gates.contains(king) {
                self.list.push(Move::Castle { king, rook, gate: Some((p, CastleGate::King)) });
            }
            if self.gates.contains(rook) {
                self.list.push(Move::Castle { king, rook, gate: Some((p, CastleGate::Rook)) });
            }
        }
    }
    #[inline]
    fn place(&mut self, piece: HandPiece, on: Square) {
        self.list.push(Move::Place { piece, on });
    }
}

struct CountSink {
    count: u64,
    gates: Bitboard,
    hand_count: u64,
}

impl Sink for CountSink {
    #[inline]
    fn piece(&mut self, from: Square, targets: Bitboard) {
        let per = if self.gates.contains(from) { 1 + self.hand_count } else { 1 };
        self.count += u64::from(targets.count()) * per;
    }
    #[inline]
    fn pawn(&mut self, _from: Square, targets: Bitboard) {
        let promo = u64::from((targets & PROMOTION_RANKS).count());
        self.count += u64::from(targets.count()) + promo * (Role::PROMOTIONS.len() as u64 - 1);
    }
    #[inline]
    fn en_passant(&mut self, _from: Square, _to: Square) {
        self.count += 1;
    }
    #[inline]
    fn castle(&mut self, king: Square, rook: Square) {
        let squares = u64::from(self.gates.contains(king)) + u64::from(self.gates.contains(rook));
        self.count += 1 + squares * self.hand_count;
    }
    #[inline]
    fn place(&mut self, _piece: HandPiece, _on: Square) {
        self.count += 1;
    }
}

/// Restricts generation to moves from one square (used to judge a single move cheaply).
struct FromSink<'a, S: Sink> {
    from: Square,
    inner: &'a mut S,
}

impl<S: Sink> Sink for FromSink<'_, S> {
    fn piece(&mut self, from: Square, targets: Bitboard) {
        if from == self.from {
            self.inner.piece(from, targets)
        }
    }
    fn pawn(&mut self, from: Square, targets: Bitboard) {
        if from == self.from {
            self.inner.pawn(from, targets)
        }
    }
    fn en_passant(&mut self, from: Square, to: Square) {
        if from == self.from {
            self.inner.en_passant(from, to)
        }
    }
    fn castle(&mut self, king: Square, rook: Square) {
        if king == self.from || rook == self.from {
            self.inner.castle(king, rook)
        }
    }
    fn place(&mut self, piece: HandPiece, on: Square) {
        if on == self.from {
            self.inner.place(piece, on)
        }
    }
}

impl Position {
    /// Runs legal move generation into `sink`.
    pub(crate) fn generate<S: Sink>(&self, sink: &mut S) {
        if self.variant == Variant::Placement && !self.unplaced(self.turn).is_empty() {
            self.generate_placements(sink);
            return;
        }
        let us = self.turn;
        let them = us.flip();
        let ours = self.by_color(us);
        let occ = self.occupied();
        let ksq = self.king(us);
        let checkers = self.attackers(ksq, them, occ);

        // King steps: judged with the king lifted off the board, so that it cannot hide
        // behind itself along a checking line (and, per the oracle, never behind a gate).
        let occ_no_king = occ.without(ksq);
        let mut safe = Bitboard::EMPTY;
        for to in king_attacks(ksq) & !ours {
            if self.attackers(to, them, occ_no_king).is_empty() {
                safe |= Bitboard::from_square(to);
            }
        }
        sink.piece(ksq, safe);

        if checkers.more_than_one() {
            return;
        }
        let target = match checkers.first() {
            Some(c) => between(ksq, c).with(c),
            None => !ours,
        };
        let pinned = self.pinned(us, ksq);

        if checkers.is_empty() {
            self.generate_castling(sink, ksq, occ);
        }

        let restrict = |from: Square, t: Bitboard| if pinned.contains(from) { t & line(ksq, from) } else { t };
        for from in self.pieces(us, Role::Knight) & !pinned {
            sink.piece(from, knight_attacks(from) & target);
        }
        for from in self.pieces(us, Role::Bishop) {
            sink.piece(from, restrict(from, bishop_attacks(from, occ) & target));
        }
        for from in self.pieces(us, Role::Rook) {
            sink.piece(from, restrict(from, rook_attacks(from, occ) & target));
        }
        for from in self.pieces(us, Role::Queen) {
            sink.piece(from, restrict(from, (rook_attacks(from, occ) | bishop_attacks(from, occ)) & target));
        }
        // A knight's leap never stays on a line through its origin, so the pin mask also
        // removes every leap of a pinned elephant or hawk.
        for from in self.pieces(us, Role::Elephant) {
            sink.piece(from, restrict(from, (rook_attacks(from, occ) | knight_attacks(from)) & target));
        }
        for from in self.pieces(us, Role::Hawk) {
            sink.piece(from, restrict(from, (bishop_attacks(from, occ) | knight_attacks(from)) & target));
        }

        let theirs = self.by_color(them);
        let (up, double_rank): (i8, Rank) = match us {
            Color::White => (8, Rank::Second),
            Color::Black => (-8, Rank::Seventh),
        };
        for from in self.pieces(us, Role::Pawn) {
            let mut t = pawn_attacks(us, from) & theirs;
            if let Some(one) = from.offset(up) {
                if !occ.contains(one) {
                    t |= Bitboard::from_square(one);
                    if from.rank() == double_rank {
                        if let Some(two) = one.offset(up) {
                            if !occ.contains(two) {
                                t |= Bitboard::from_square(two);
                            }
                        }
                    }
                }
            }
            sink.pawn(from, restrict(from, t & target));
        }

        if let Some(ep) = self.ep {
            let captured = Square::from_coords(
                ep.file(),
                match us {
                    Color::White => Rank::Fifth,
                    Color::Black => Rank::Fourth,
                },
            );
            for from in pawn_attacks(them, ep) & self.pieces(us, Role::Pawn) {
                // Rare enough to judge by replaying the board change: this also covers the
                // two pawns leaving one rank at once and the capture of a checking pawn.
                let occ2 = occ.without(from).without(captured).with(ep);
                if (self.attackers(ksq, them, occ2) & !Bitboard::from_square(captured)).is_empty() {
                    sink.en_passant(from, ep);
                }
            }
        }
    }

    fn generate_castling<S: Sink>(&self, sink: &mut S, ksq: Square, occ: Bitboard) {
        let us = self.turn;
        for rook in self.castling_rooks(us) {
            let side = if rook.file() > ksq.file() { CastleSide::King } else { CastleSide::Queen };
            let kto = side.king_to(us);
            let rto = side.rook_to(us);
            let must_be_empty = (between(ksq, rook) | Bitboard::from_square(kto) | Bitboard::from_square(rto))
                .without(ksq)
                .without(rook);
            if (occ & must_be_empty).any() {
                continue;
            }
            let path = between(ksq, kto).with(kto);
            if path.into_iter().all(|sq| self.attackers(sq, us.flip(), occ).is_empty()) {
                sink.castle(ksq, rook);
            }
        }
    }

    /// `Placement`, while the side to move still has unplaced hand pieces: its only moves
    /// assign one of them to a back-rank file whose home square keeps its entry right and
    /// has no piece assigned yet, never one piece to the king's file and the other to a
    /// rook's file (castling would bring in both).
    fn generate_placements<S: Sink>(&self, sink: &mut S) {
        let us = self.turn;
        for piece in self.unplaced(us).iter() {
            for sq in self.placement_squares(us, piece) {
                sink.place(piece, sq);
            }
        }
    }

    /// `Placement`: the home squares `color` may assign `piece` to (see
    /// `generate_placements`).
    pub(crate) fn placement_squares(&self, color: Color, piece: HandPiece) -> Bitboard {
        let taken = self.assigned_file(color, piece.other());
        self.gating_rights(color)
            .filter(|sq| Some(sq.file()) != taken && !forbidden_pair(sq.file(), taken))
            .fold(Bitboard::EMPTY, Bitboard::with)
    }

    /// The entry rule for the side to move.
    fn entry(&self) -> Entry {
        let us = self.turn;
        let hand = self.hand(us);
        let gates = self.gating_rights(us);
        let mut piece_on = [None; 8];
        match self.variant {
            Variant::Seirawan | Variant::Chess => Entry { gates, hand, forced: false, piece_on },
            Variant::Placement => {
                for p in hand.iter() {
                    if let Some(f) = self.assigned_file(us, p) {
                        piece_on[f.index()] = Some(p);
                    }
                }
                Entry { gates: gates & self.assigned_squares(us), hand, forced: true, piece_on }
            }
            Variant::Forced => {
                // The Hawk first, then the Elephant; only bishops, knights and the queen
                // bring them in.
                let next = if hand.contains(HandPiece::Hawk) { Some(HandPiece::Hawk) } else { hand.iter().next() };
                piece_on = [next; 8];
                let carriers =
                    self.pieces(us, Role::Bishop) | self.pieces(us, Role::Knight) | self.pieces(us, Role::Queen);
                Entry { gates: gates & carriers, hand, forced: true, piece_on }
            }
        }
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut ListSink::new(&mut list, self.entry()));
        list
    }

    /// Legal moves whose origin is `from` (the king's square for castling, the home square
    /// for a placement).
    pub fn legal_moves_from(&self, from: Square) -> MoveList {
        let mut list = MoveList::new();
        let mut inner = ListSink::new(&mut list, self.entry());
        self.generate(&mut FromSink { from, inner: &mut inner });
        list
    }

    /// Number of legal moves, without building them.
    pub fn count_legal_moves(&self) -> u64 {
        let entry = self.entry();
        // A compulsory entry replaces the plain move instead of adding to it.
        let (gates, hand_count) =
            if entry.forced { (Bitboard::EMPTY, 0) } else { (entry.gates, u64::from(entry.hand.count())) };
        let mut sink = CountSink { count: 0, gates, hand_count };
        self.generate(&mut sink);
        sink.count
    }

    /// Is `m` legal here?
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves_from(m.from()).contains(&m)
    }

    /// The side to move has at least one legal move.
    pub fn has_legal_moves(&self) -> bool {
        self.count_legal_moves() > 0
    }

    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// Does the legal move `m` checkmate?
    pub fn gives_checkmate(&self, m: Move) -> bool {
        let mut next = self.clone();
        next.play_unchecked(m);
        next.is_checkmate()
    }

    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// Number of leaf nodes of the legal move tree of `depth` plies (bulk-counted at the
    /// last ply).
    pub fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.count_legal_moves(),
            _ => {
                let mut total = 0;
                for m in self.legal_moves() {
                    let mut child = self.clone();
                    child.play_unchecked(m);
                    total += child.perft(depth - 1);
                }
                total
            }
        }
    }

    /// Perft split by root move, in UCI byte order (like Fairy-Stockfish's `go perft`).
    pub fn perft_divide(&self, depth: u32) -> Vec<(Move, u64)> {
        let mut out: Vec<(Move, u64)> = self
            .legal_moves()
            .into_iter()
            .map(|m| {
                let mut child = self.clone();
                child.play_unchecked(m);
                (m, if depth <= 1 { 1 } else { child.perft(depth - 1) })
            })
            .collect();
        out.sort_by_key(|(m, _)| m.to_uci());
        out
    }
}

/// `Placement`: may a piece go to `file` when the other hand piece is on `taken`? Not one
/// on the king's file (e) and the other on a rook's file (a, h).
pub(crate) fn forbidden_pair(file: File, taken: Option<File>) -> bool {
    let rook = |f: File| f == File::A || f == File::H;
    match taken {
        Some(t) => (file == File::E && rook(t)) || (t == File::E && rook(file)),
        None => false,
    }
}

#[allow(dead_code)]
fn _assert_sizes() {
    // A move is four bytes: lists stay small and cache-friendly.
    const _: () = assert!(std::mem::size_of::<Move>() <= 4);
}
