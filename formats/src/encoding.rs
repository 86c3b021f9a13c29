//! Input planes: what the network sees of a position and its recent history.
//!
//! Always from the side to move's point of view: "own" means the side to move, and for
//! Black the board is mirrored top to bottom so that its back rank is rank 1 (the same
//! convention as [`crate::policy_index`]). Each plane is 8x8, square `a1` first, row-major
//! by rank (index = rank * 8 + file, in the mirrored view for Black).
//!
//! Layout (version [`INPUT_FORMAT_VERSION`]), with `k` history steps (`history`, default 2)
//! giving `17 * (k + 1) + 20` planes:
//! * for step `t = 0..=k` (0 = current position, `t` = `t` plies earlier), 17 planes:
//!   own P N B R Q K E H (8), opponent P N B R Q K E H (8), "this position occurred before
//!   in the game" (1). Steps before the game's first position are all zero.
//! * then 14 planes about the current position: own hand E, own hand H, opponent hand E,
//!   opponent hand H (all ones when held); own gating rights, opponent gating rights
//!   (masks); own king-side castling, own queen-side, opponent king-side, opponent
//!   queen-side (all ones when the right exists); en-passant square (mask); side to move
//!   (all ones when Black moves); halfmove clock / 100 (capped at 1); all ones.
//! * then 6 planes about the entry rule (format 2): the home squares the own E, own H,
//!   opponent E and opponent H are assigned to (`seirawan-placement`; masks, empty
//!   elsewhere); "the entry rule is forced" and "the entry rule is placement" (all ones
//!   when it is), so that one network can tell the rules apart, as KataGo's inputs tell
//!   its rule sets apart.
//!
//! * optionally ([`Inputs::attacks`]), 8 planes about what attacks what in the current
//!   position, which a one-ply look would otherwise have to learn to compute: squares the
//!   own side attacks, squares the opponent attacks, the same attacked twice or more, own
//!   pieces defended, opponent pieces defended, own pieces en prise, opponent pieces en
//!   prise. "En prise": attacked, and either undefended or attacked by a piece worth less
//!   (the conventional values of [`schess::material::piece_value`]; a king attacks only
//!   what is undefended); kings are never en prise (check is in the other planes) but
//!   defend like any piece. Attacks are pseudo-legal (pins ignored), as in a static
//!   exchange.
//!
//! Format 2 appended the entry-rule planes to format 1's 14; every earlier plane is
//! unchanged, so a format-1 network upgrades exactly by giving the new planes zero weights
//! (`models::checkpoint::upgrade`). The attack planes are a choice of the network, not a
//! new format: a network's plane count says whether it has them ([`Inputs::from_planes`];
//! 8 is no multiple of 17, so the count is never ambiguous), and a network without them
//! sees exactly what it saw before.

use crate::policy_index::relative_square;
use schess::material::piece_value;
use schess::{Bitboard, Color, File, HandPiece, Position, Role, Square, Variant};

/// Bumped whenever the layout changes; stored in every network file.
pub const INPUT_FORMAT_VERSION: u32 = 2;

/// Default number of earlier positions shown to the network.
pub const DEFAULT_HISTORY: usize = 2;

const PER_STEP: usize = 17;
/// Planes about the current position in format 1.
const CONSTANT_V1: usize = 14;
const CONSTANT: usize = CONSTANT_V1 + 6;

/// The attack planes, when a network has them.
const ATTACKS: usize = 8;

/// What a network sees: how many earlier positions, and whether the attack planes.
/// A plain `usize` converts to the history length without attack planes, as every
/// network before them had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Inputs {
    /// Earlier positions shown (0 = only the current one).
    pub history: usize,
    /// The 8 attack planes after the rest.
    pub attacks: bool,
}

impl Inputs {
    /// `history` earlier positions, with the attack planes or without.
    pub const fn new(history: usize, attacks: bool) -> Self {
        Inputs { history, attacks }
    }

    /// Input planes of this layout.
    pub const fn planes(self) -> usize {
        planes(self.history) + if self.attacks { ATTACKS } else { 0 }
    }

    /// Floats per encoded position.
    pub const fn floats(self) -> usize {
        self.planes() * 64
    }

    /// The layout with `planes` input planes (at most 63 earlier positions), if any.
    pub fn from_planes(planes: usize) -> Option<Inputs> {
        (0..64).flat_map(|h| [Inputs::new(h, false), Inputs::new(h, true)]).find(|i| i.planes() == planes)
    }
}

impl From<usize> for Inputs {
    fn from(history: usize) -> Self {
        Inputs::new(history, false)
    }
}

impl std::fmt::Display for Inputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "history {}", self.history)?;
        if self.attacks {
            f.write_str(", attack planes")?;
        }
        Ok(())
    }
}

/// Number of input planes for `history` earlier positions (no attack planes).
pub const fn planes(history: usize) -> usize {
    PER_STEP * (history + 1) + CONSTANT
}

/// Number of input planes format 1 had for `history` earlier positions (the prefix of
/// [`planes`] that format 2 kept).
pub const fn planes_v1(history: usize) -> usize {
    PER_STEP * (history + 1) + CONSTANT_V1
}

/// Floats per encoded position (no attack planes).
pub const fn input_len(history: usize) -> usize {
    planes(history) * 64
}

fn fill_mask(out: &mut [f32], plane: usize, squares: Bitboard, turn: Color) {
    let base = plane * 64;
    for sq in squares {
        out[base + relative_square(sq, turn).index()] = 1.0;
    }
}

fn fill_plane(out: &mut [f32], plane: usize, value: f32) {
    out[plane * 64..(plane + 1) * 64].fill(value);
}

/// Did `positions[i]` occur earlier in `positions` (within its reversible window)?
fn repeated(positions: &[Position], i: usize) -> bool {
    let p = &positions[i];
    let window = (p.halfmove_clock() as usize).min(i);
    positions[i - window..i].iter().rev().skip(1).step_by(2).any(|q| q.key() == p.key())
}

/// Encodes the last position of `positions` (a game's positions from its start, or any
/// suffix of them) into `out`, which must hold [`Inputs::floats`] floats.
///
/// # Panics
/// If `positions` is empty or `out` has the wrong length (caller bugs, not input errors).
pub fn encode(positions: &[Position], inputs: impl Into<Inputs>, out: &mut [f32]) {
    let inputs = inputs.into();
    let history = inputs.history;
    assert!(!positions.is_empty(), "encode needs at least one position");
    assert_eq!(out.len(), inputs.floats(), "output buffer size");
    out.fill(0.0);
    let n = positions.len();
    let cur = &positions[n - 1];
    let us = cur.turn();
    let them = us.flip();

    for t in 0..=history.min(n - 1) {
        let i = n - 1 - t;
        let p = &positions[i];
        let base = t * PER_STEP;
        for (r, role) in Role::ALL.into_iter().enumerate() {
            fill_mask(out, base + r, p.pieces(us, role), us);
            fill_mask(out, base + 8 + r, p.pieces(them, role), us);
        }
        if repeated(positions, i) {
            fill_plane(out, base + 16, 1.0);
        }
    }

    let c = PER_STEP * (history + 1);
    for (j, (color, piece)) in
        [(us, HandPiece::Elephant), (us, HandPiece::Hawk), (them, HandPiece::Elephant), (them, HandPiece::Hawk)]
            .into_iter()
            .enumerate()
    {
        if cur.hand(color).contains(piece) {
            fill_plane(out, c + j, 1.0);
        }
    }
    fill_mask(out, c + 4, cur.gating_rights(us), us);
    fill_mask(out, c + 5, cur.gating_rights(them), us);
    for (j, (color, file)) in [(us, File::H), (us, File::A), (them, File::H), (them, File::A)].into_iter().enumerate() {
        if cur.castling_rooks(color).contains(Square::from_coords(file, color.back_rank())) {
            fill_plane(out, c + 6 + j, 1.0);
        }
    }
    if let Some(ep) = cur.ep_square() {
        fill_mask(out, c + 10, Bitboard::from_square(ep), us);
    }
    if us == Color::Black {
        fill_plane(out, c + 11, 1.0);
    }
    fill_plane(out, c + 12, (cur.halfmove_clock() as f32 / 100.0).min(1.0));
    fill_plane(out, c + 13, 1.0);
    for (j, (color, piece)) in
        [(us, HandPiece::Elephant), (us, HandPiece::Hawk), (them, HandPiece::Elephant), (them, HandPiece::Hawk)]
            .into_iter()
            .enumerate()
    {
        if let Some(file) = cur.assigned_file(color, piece) {
            fill_mask(out, c + 14 + j, Bitboard::from_square(Square::from_coords(file, color.back_rank())), us);
        }
    }
    match cur.variant() {
        Variant::Forced => fill_plane(out, c + 18, 1.0),
        Variant::Placement => fill_plane(out, c + 19, 1.0),
        Variant::Seirawan | Variant::Chess => {}
    }
    if inputs.attacks {
        fill_attacks(out, planes(history), cur);
    }
}

/// The attack planes of `pos` from `plane` on (the layout in the module's doc).
fn fill_attacks(out: &mut [f32], plane: usize, pos: &Position) {
    let us = pos.turn();
    let occupied = pos.occupied();
    for (side, color) in [us, us.flip()].into_iter().enumerate() {
        // Squares attacked once, and twice or more, by `color`.
        let (mut once, mut twice) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for role in Role::ALL {
            for sq in pos.pieces(color, role) {
                let a = Position::attacks_from(role, color, sq, occupied);
                twice |= once & a;
                once |= a;
            }
        }
        fill_mask(out, plane + side, once, us);
        fill_mask(out, plane + 2 + side, twice, us);
        let own = pos.by_color(color);
        fill_mask(out, plane + 4 + side, own & once, us);
        let enemy = color.flip();
        let mut en_prise = Bitboard::EMPTY;
        for sq in own & !pos.pieces(color, Role::King) {
            let attackers = pos.attackers(sq, enemy, occupied);
            if attackers.is_empty() {
                continue;
            }
            // A king takes only what is undefended, so it is never the cheaper attacker.
            let value = pos.role_at(sq).map_or(0, piece_value);
            let cheapest = (attackers & !pos.pieces(enemy, Role::King))
                .into_iter()
                .filter_map(|a| pos.role_at(a))
                .map(piece_value)
                .min();
            if !once.contains(sq) || cheapest.is_some_and(|c| c < value) {
                en_prise |= Bitboard::from_square(sq);
            }
        }
        fill_mask(out, plane + 6 + side, en_prise, us);
    }
}

/// A key for everything [`encode`] reads of `positions` with `history` steps, so that a
/// cache keyed by it never hands out the evaluation of different inputs: each step's
/// position key (hands, gating and castling rights, en passant and side to move
/// included) and repetition flag, and the halfmove clock as the network sees it.
pub fn input_key(positions: &[Position], history: usize) -> u64 {
    let n = positions.len();
    let mut k = 0x51_7C_C1_B7_27_22_0A_95u64;
    let mut mix = |v: u64| k = (k.rotate_left(23) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for t in 0..=history.min(n.saturating_sub(1)) {
        let i = n - 1 - t;
        mix(positions[i].key());
        mix(u64::from(repeated(positions, i)));
    }
    if let Some(cur) = positions.last() {
        mix(u64::from(cur.halfmove_clock().min(100)));
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use schess::Game;
    use search::evaluator::context_len;

    #[test]
    fn start_position_planes() {
        let pos = Position::startpos();
        let mut out = vec![0.0; input_len(2)];
        encode(std::slice::from_ref(&pos), 2, &mut out);
        let plane = |p: usize| &out[p * 64..(p + 1) * 64];
        // Own pawns on rank 2, opponent pawns on rank 7.
        assert!(plane(0)[8..16].iter().all(|&v| v == 1.0));
        assert!(plane(8)[48..56].iter().all(|&v| v == 1.0));
        // Both hands full, no history, no repetition.
        let c = 17 * 3;
        assert!((0..4).all(|j| plane(c + j).iter().all(|&v| v == 1.0)));
        assert!(plane(17).iter().all(|&v| v == 0.0));
        // Own gating rights: b1 c1 d1 f1 g1 plus a1 e1 h1 (castling squares).
        assert_eq!(plane(c + 4).iter().filter(|&&v| v == 1.0).count(), 8);
        assert!(plane(c + 13).iter().all(|&v| v == 1.0));
        assert!(plane(c + 11).iter().all(|&v| v == 0.0));
    }

    #[test]
    fn entry_rule_planes() {
        let c = 17 * 3;
        let encoded = |pos: &Position| {
            let mut out = vec![0.0; input_len(2)];
            encode(std::slice::from_ref(pos), 2, &mut out);
            out
        };
        let ones = |out: &[f32], p: usize| out[p * 64..(p + 1) * 64].iter().filter(|&&v| v == 1.0).count();
        // Seirawan: the six planes are empty; the rule planes tell forced and placement.
        let seirawan = encoded(&Position::startpos());
        assert!((14..20).all(|j| ones(&seirawan, c + j) == 0));
        let forced = encoded(&Position::new(Variant::Forced));
        assert_eq!((ones(&forced, c + 18), ones(&forced, c + 19)), (64, 0));
        // Placement after White E@d and Black H@b: Black to move sees its own H on b1
        // (its back rank, mirrored) and White's E on d1 from its view (d8).
        let mut pos = Position::new(Variant::Placement);
        for m in ["E@d", "H@b"] {
            pos = pos.play(pos.parse_uci(m).unwrap()).unwrap();
        }
        let white = encoded(&pos);
        assert_eq!((ones(&white, c + 18), ones(&white, c + 19)), (0, 64));
        let at = |out: &[f32], p: usize, sq: &str| out[p * 64 + Square::parse(sq).unwrap().index()];
        assert_eq!(at(&white, c + 14, "d1"), 1.0, "own E assigned to d1");
        assert_eq!(ones(&white, c + 15), 0, "own H not yet placed");
        assert_eq!(at(&white, c + 17, "b8"), 1.0, "opponent H on b8");
        let pos = pos.play(pos.parse_uci("H@g").unwrap()).unwrap();
        let black = encoded(&pos);
        assert_eq!(at(&black, c + 15, "b1"), 1.0, "Black's own H, mirrored to b1");
        assert_eq!(at(&black, c + 16, "d8"), 1.0, "White's E, mirrored to d8");
        assert_eq!(at(&black, c + 17, "g8"), 1.0, "White's H, mirrored to g8");
        assert_eq!(ones(&black, c + 14), 0);
    }

    #[test]
    fn black_sees_the_mirror_image() {
        // After 1. e4, Black to move sees the same as White would in the mirrored position.
        let mut g = Game::new(Position::startpos());
        g.play_uci("e2e4").unwrap();
        let inputs = Inputs::new(0, true);
        let mut black = vec![0.0; inputs.floats()];
        encode(&g.positions()[1..], inputs, &mut black);
        let mirrored = g.position().mirrored();
        let mut white = vec![0.0; inputs.floats()];
        encode(std::slice::from_ref(&mirrored), inputs, &mut white);
        // All but the side-to-move plane agree, the attack planes too.
        let c = 17;
        for p in 0..inputs.planes() {
            if p != c + 11 {
                assert_eq!(&black[p * 64..(p + 1) * 64], &white[p * 64..(p + 1) * 64], "plane {p}");
            }
        }
    }

    #[test]
    fn plane_counts_name_one_layout() {
        for h in 0..64 {
            for attacks in [false, true] {
                let inputs = Inputs::new(h, attacks);
                assert_eq!(Inputs::from_planes(inputs.planes()), Some(inputs));
            }
        }
        assert_eq!(Inputs::from(2).planes(), planes(2));
        assert_eq!(Inputs::new(2, true).planes(), planes(2) + 8);
        assert_eq!(Inputs::from_planes(planes(2) + 1), None);
    }

    #[test]
    fn attack_planes() {
        // White: K e1, R d2, N c3. Black: K e8, Q d5, pawns b4 and e6.
        let pos = Position::from_fen("4k3/8/4p3/3q4/1p6/2N5/3R4/4K3[] w - - 0 1").unwrap();
        let inputs = Inputs::new(0, true);
        let mut out = vec![0.0; inputs.floats()];
        encode(std::slice::from_ref(&pos), inputs, &mut out);
        let first = planes(0);
        let set = |p: usize| -> Vec<String> {
            (0..64u8)
                .filter(|&i| out[(first + p) * 64 + i as usize] == 1.0)
                .map(|i| Square::new(i).unwrap().to_string())
                .collect()
        };
        let has = |p: usize, sq: &str| set(p).iter().any(|s| s == sq);
        // Squares attacked: the rook up to the queen, the knight's leaps, the king's; the
        // queen down to the rook, the b4 pawn diagonally forward.
        assert!(has(0, "d5") && has(0, "d4") && has(0, "b5") && has(0, "f2") && !has(0, "d6"));
        assert!(has(1, "d2") && has(1, "a2") && has(1, "c3") && has(1, "a3") && !has(1, "c2"));
        // Twice or more.
        assert_eq!(set(2), ["d1", "a2", "e2", "f2", "d5"]);
        assert_eq!(set(3), ["f5", "d7", "d8"]);
        // Defended pieces: the rook by the king; the queen and the e6 pawn by each other.
        assert_eq!(set(4), ["d2"]);
        assert_eq!(set(5), ["d5", "e6"]);
        // En prise: the knight to a pawn, the queen to a rook; the rook is attacked only by
        // the queen and defended, so it is not.
        assert_eq!(set(6), ["c3"]);
        assert_eq!(set(7), ["d5"]);
        // A defended piece next to the enemy king is not en prise to it; undefended, it is.
        let near_king = |fen: &str| {
            let pos = Position::from_fen(fen).unwrap();
            let mut out = vec![0.0; inputs.floats()];
            encode(std::slice::from_ref(&pos), inputs, &mut out);
            out[(first + 6) * 64 + Square::parse("d2").unwrap().index()]
        };
        assert_eq!(near_king("8/8/8/8/8/4k3/3N4/3R3K[] w - - 0 1"), 0.0);
        assert_eq!(near_king("8/8/8/8/8/4k3/3N4/7K[] w - - 0 1"), 1.0);
        // Without the attack planes the rest is the same encoding.
        let mut plain = vec![0.0; input_len(0)];
        encode(std::slice::from_ref(&pos), 0, &mut plain);
        assert_eq!(plain, out[..input_len(0)]);
    }

    #[test]
    fn history_and_repetition_planes() {
        let mut g = Game::new(Position::from_fen("4k3/8/8/8/8/8/8/R3K3[] w - - 0 1").unwrap());
        for m in ["a1a2", "e8d8", "a2a1", "d8e8"] {
            g.play_uci(m).unwrap();
        }
        let mut out = vec![0.0; input_len(2)];
        encode(g.positions(), 2, &mut out);
        // The current position equals the start: its repetition plane is set.
        assert!(out[16 * 64..17 * 64].iter().all(|&v| v == 1.0));
        // One ply earlier (Black's king on d8) did not repeat.
        assert!(out[33 * 64..34 * 64].iter().all(|&v| v == 0.0));
        // Two plies earlier the own rook stood on a2.
        let rook_plane = 2 * 17 + 3;
        assert_eq!(out[rook_plane * 64 + 8], 1.0);
    }

    /// Plays `moves` from `fen`.
    fn game(fen: &str, moves: &[&str]) -> Game {
        let mut g = Game::new(Position::from_fen(fen).unwrap());
        for m in moves {
            g.play_uci(m).unwrap();
        }
        g
    }

    #[test]
    fn context_len_keeps_a_repetition_far_back() {
        // The rook wanders a1-a8 and back (16 plies), the kings shuffle: the last position
        // repeats the first, 16 plies back, beyond a 12-position tail.
        let mut moves = Vec::new();
        let (up, down) = (["a1a2", "a2a3", "a3a4", "a4a5"], ["a5a4", "a4a3", "a3a2", "a2a1"]);
        for (i, m) in up.iter().chain(&down).enumerate() {
            moves.push(*m);
            moves.push(if i % 2 == 0 { "e8d8" } else { "d8e8" });
        }
        let g = game("4k3/8/8/8/8/8/8/R3K3[] w - - 0 1", &moves);
        let all = g.positions();
        assert_eq!(all.len(), 17);
        let mut full = vec![0.0; input_len(2)];
        encode(all, 2, &mut full);
        assert!(full[16 * 64..17 * 64].iter().all(|&v| v == 1.0), "the last position repeats");
        let mut short = vec![0.0; input_len(2)];
        encode(&all[all.len() - 12..], 2, &mut short);
        assert_ne!(full, short, "a 12-position tail loses the repetition");
        let len = context_len(all, 2);
        assert_eq!(len, 17);
        let mut tail = vec![0.0; input_len(2)];
        encode(&all[all.len() - len..], 2, &mut tail);
        assert_eq!(full, tail);
        // A capture or pawn move resets the window: the history steps and the one ply
        // since the last pawn move before them are all that is needed.
        let g = game("4k3/8/8/8/8/8/P7/R3K3[] w - - 0 1", &["a2a3", "e8d8", "a3a4"]);
        assert_eq!(context_len(g.positions(), 0), 1);
        assert_eq!(context_len(g.positions(), 1), 3);
        assert_eq!(context_len(g.positions(), 8), 4);
    }

    #[test]
    fn input_key_covers_what_the_network_sees() {
        let a = Position::from_fen("4k3/8/8/8/8/8/8/R3K3[] w - - 0 1").unwrap();
        let b = Position::from_fen("4k3/8/8/8/8/8/8/R3K3[] w - - 37 1").unwrap();
        assert_eq!(a.key(), b.key(), "the position key leaves the halfmove clock out");
        assert_ne!(input_key(std::slice::from_ref(&a), 2), input_key(&[b], 2));
        // The same position with the same clock, reached twice in one game and once in the
        // other: only the repetition flag tells them apart.
        let twice = game("4k3/8/8/8/8/8/8/R3K3[] w - - 0 1", &["a1a2", "e8d8", "a2a1", "d8e8"]);
        let once = game("4k3/8/8/8/8/8/8/1R2K3[] b - - 1 1", &["e8d8", "b1a1", "d8e8"]);
        let (x, y) = (twice.positions(), once.positions());
        assert_eq!(x.last().unwrap().key(), y.last().unwrap().key());
        assert_eq!(x.last().unwrap().halfmove_clock(), y.last().unwrap().halfmove_clock());
        let mut px = vec![0.0; input_len(0)];
        let mut py = vec![0.0; input_len(0)];
        encode(x, 0, &mut px);
        encode(y, 0, &mut py);
        assert_ne!(px, py);
        assert_ne!(input_key(x, 0), input_key(y, 0));
        assert_eq!(input_key(x, 0), input_key(&x[x.len() - context_len(x, 0)..], 0));
        assert_ne!(input_key(x, 0), input_key(&x[1..], 0), "a tail too short misses the repetition");
    }

    /// Lead 9: a leaf's history reaches back far enough for the encoder to see a repetition
    /// beyond the fixed 12-position tail.
    #[test]
    fn leaf_history_covers_far_repetitions() {
        let mut game = schess::Game::new(Position::from_fen("4k3/8/8/8/8/8/8/R3K3[] w - - 0 1").unwrap());
        let (up, down) =
            (["a1a2", "a2a3", "a3a4", "a4a5", "a5a6", "a6a7"], ["a7a6", "a6a5", "a5a4", "a4a3", "a3a2", "a2a1"]);
        for (i, m) in up.iter().chain(&down).enumerate() {
            game.play_uci(m).unwrap();
            game.play_uci(if i % 2 == 0 { "e8d8" } else { "d8e8" }).unwrap();
        }
        let mut tree = search::Tree::new(game.positions().to_vec());
        let cfg = search::SearchConfig::default();
        let leaf = tree.select_leaf(&cfg, false, 1).unwrap();
        let mut from_leaf = vec![0.0; input_len(2)];
        let mut from_game = vec![0.0; input_len(2)];
        encode(&leaf.history, 2, &mut from_leaf);
        encode(game.positions(), 2, &mut from_game);
        assert!(leaf.history.len() > 12);
        assert_eq!(from_leaf, from_game);
    }
}
