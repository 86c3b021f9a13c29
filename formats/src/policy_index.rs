//! The policy index: a fixed bijection between every move S-Chess can have and the
//! network's policy outputs, always from the side to move's point of view (for Black the
//! board is mirrored top to bottom, so Black's back rank is "rank 1").
//!
//! Layout (version [`POLICY_FORMAT_VERSION`], [`POLICY_SIZE`] outputs), in this order:
//! 1. **Plain moves** `from -> to` for every pair a queen or a knight could make on an empty
//!    board (1792 pairs, by `from` then `to`). Every piece move, king step, pawn push or
//!    capture and en-passant capture is one of these; so is a promotion's geometry, but
//!    promotions have their own entries below.
//! 2. **Promotions**: from the 7th rank to the 8th (straight or diagonal), for each of
//!    Q R B N E H (22 pairs x 6 = 132), by `from`, `to`, then role.
//! 3. **Gating moves**: a plain move from a 1st-rank square, with E or H gated onto it
//!    (each of the 1st rank's queen/knight pairs x 2), by `from`, `to`, then E before H.
//! 4. **Castling**: king side then queen side, each as: no gate, E on the king's square,
//!    H on the king's square, E on the rook's square, H on the rook's square (10).
//! 5. **Placements** (`seirawan-placement`'s opening moves, `E@d`): E then H, each onto
//!    files a..h (16). A placement names a file of the mover's own back rank, so it reads
//!    the same from either side.
//!
//! Format 2 appended block 5 to format 1's 2,322 entries; every other index is unchanged,
//! so policy targets written under format 1 mean the same under format 2 (shards of
//! format 1 are still read) and a format-1 network upgrades by adding zero rows
//! (`models::checkpoint::upgrade`).
//!
//! Orders within each block are the numeric orders of squares (a1 = 0 .. h8 = 63) in the
//! side to move's view. The layout is built once; a test checks that every legal move in
//! the oracle data maps to a distinct index and back.

use schess::attacks::{knight_attacks, queen_attacks};
use schess::{Bitboard, CastleGate, CastleSide, Color, File, HandPiece, Move, Position, Rank, Role, Square};
use std::sync::OnceLock;

/// Bumped whenever the layout changes; stored in every network file.
pub const POLICY_FORMAT_VERSION: u32 = 2;

/// Policy formats whose indices this build reads (format 1 is a prefix of format 2).
pub const READABLE_POLICY_FORMATS: std::ops::RangeInclusive<u32> = 1..=POLICY_FORMAT_VERSION;

/// Outputs of format 1 (blocks 1-4), the prefix format 2 extends.
pub const POLICY_SIZE_V1: usize = 2322;

/// A move in the side to move's view, stripped of everything the index does not need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyMove {
    Plain { from: Square, to: Square },
    Promotion { from: Square, to: Square, role: Role },
    Gate { from: Square, to: Square, piece: HandPiece },
    Castle { side: CastleSide, gate: Option<(HandPiece, CastleGate)> },
    Place { piece: HandPiece, file: File },
}

const NONE: u16 = u16::MAX;

struct Tables {
    moves: Vec<PolicyMove>,
    plain: Vec<u16>,     // [from * 64 + to]
    promotion: Vec<u16>, // [(from * 64 + to) * 6 + role slot]
    gate: Vec<u16>,      // [(from * 64 + to) * 2 + piece]
    castle: [u16; 10],
    place: [u16; 16], // [piece * 8 + file]
}

fn promotion_slot(role: Role) -> Option<usize> {
    Role::PROMOTIONS.iter().position(|&r| r == role)
}

fn castle_slot(side: CastleSide, gate: Option<(HandPiece, CastleGate)>) -> usize {
    let base = if side == CastleSide::King { 0 } else { 5 };
    base + match gate {
        None => 0,
        Some((HandPiece::Elephant, CastleGate::King)) => 1,
        Some((HandPiece::Hawk, CastleGate::King)) => 2,
        Some((HandPiece::Elephant, CastleGate::Rook)) => 3,
        Some((HandPiece::Hawk, CastleGate::Rook)) => 4,
    }
}

fn reachable(from: Square) -> Bitboard {
    queen_attacks(from, Bitboard::EMPTY) | knight_attacks(from)
}

fn build() -> Tables {
    let mut t = Tables {
        moves: Vec::new(),
        plain: vec![NONE; 64 * 64],
        promotion: vec![NONE; 64 * 64 * 6],
        gate: vec![NONE; 64 * 64 * 2],
        castle: [NONE; 10],
        place: [NONE; 16],
    };
    let push = |t: &mut Tables, m: PolicyMove| -> u16 {
        t.moves.push(m);
        (t.moves.len() - 1) as u16
    };
    for from in Square::all() {
        for to in reachable(from) {
            let i = push(&mut t, PolicyMove::Plain { from, to });
            t.plain[from.index() * 64 + to.index()] = i;
        }
    }
    for from in Bitboard::rank(Rank::Seventh) {
        for to in reachable(from) & Bitboard::rank(Rank::Eighth) {
            if from.file().index().abs_diff(to.file().index()) > 1 {
                continue;
            }
            for role in Role::PROMOTIONS {
                let i = push(&mut t, PolicyMove::Promotion { from, to, role });
                t.promotion[(from.index() * 64 + to.index()) * 6 + promotion_slot(role).unwrap()] = i;
            }
        }
    }
    for from in Bitboard::rank(Rank::First) {
        for to in reachable(from) {
            for piece in HandPiece::ALL {
                let i = push(&mut t, PolicyMove::Gate { from, to, piece });
                t.gate[(from.index() * 64 + to.index()) * 2 + piece.index()] = i;
            }
        }
    }
    for side in [CastleSide::King, CastleSide::Queen] {
        let gates = [
            None,
            Some((HandPiece::Elephant, CastleGate::King)),
            Some((HandPiece::Hawk, CastleGate::King)),
            Some((HandPiece::Elephant, CastleGate::Rook)),
            Some((HandPiece::Hawk, CastleGate::Rook)),
        ];
        for gate in gates {
            let i = push(&mut t, PolicyMove::Castle { side, gate });
            t.castle[castle_slot(side, gate)] = i;
        }
    }
    for piece in HandPiece::ALL {
        for file in File::ALL {
            let i = push(&mut t, PolicyMove::Place { piece, file });
            t.place[piece.index() * 8 + file.index()] = i;
        }
    }
    t
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(build)
}

/// Number of policy outputs.
pub const POLICY_SIZE: usize = POLICY_SIZE_V1 + 16;

/// Number of policy outputs, computed from the layout (equals [`POLICY_SIZE`]).
pub fn policy_size() -> usize {
    tables().moves.len()
}

/// A square in the side to move's view.
#[inline]
pub fn relative_square(sq: Square, turn: Color) -> Square {
    match turn {
        Color::White => sq,
        Color::Black => sq.flip_vertical(),
    }
}

/// The index of a move played by `turn`. Every well-formed move has one; `None` only for a
/// move no S-Chess position can contain (e.g. a gate from a square off the back rank).
pub fn index_of(m: Move, turn: Color) -> Option<usize> {
    let t = tables();
    let rel = |sq| relative_square(sq, turn);
    let i = match m {
        Move::Normal { from, to, gate: None } | Move::EnPassant { from, to } => {
            t.plain[rel(from).index() * 64 + rel(to).index()]
        }
        Move::Normal { from, to, gate: Some(p) } => t.gate[(rel(from).index() * 64 + rel(to).index()) * 2 + p.index()],
        Move::Promotion { from, to, role } => {
            t.promotion[(rel(from).index() * 64 + rel(to).index()) * 6 + promotion_slot(role)?]
        }
        Move::Castle { gate, .. } => t.castle[castle_slot(m.castle_side()?, gate)],
        Move::Place { piece, on } => t.place[piece.index() * 8 + on.file().index()],
    };
    (i != NONE).then_some(i as usize)
}

/// The move shape behind an index.
pub fn policy_move(index: usize) -> Option<PolicyMove> {
    tables().moves.get(index).copied()
}

/// The legal move of `pos` with this index, if there is one.
pub fn move_of(pos: &Position, index: usize) -> Option<Move> {
    pos.legal_moves().into_iter().find(|&m| index_of(m, pos.turn()) == Some(index))
}

/// Indices of all legal moves of `pos`, in legal-move order.
pub fn legal_indices(pos: &Position) -> Vec<(Move, usize)> {
    let turn = pos.turn();
    pos.legal_moves()
        .into_iter()
        .map(|m| (m, index_of(m, turn).expect("every legal move has a policy index")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_stable() {
        assert_eq!(policy_size(), POLICY_SIZE);
        // Every entry is distinct and maps back to itself.
        let t = tables();
        let set: std::collections::HashSet<_> = t.moves.iter().collect();
        assert_eq!(set.len(), t.moves.len());
    }

    /// Pseudo-random games of every variant: every legal move maps to a distinct index
    /// that maps back to it.
    #[test]
    fn every_variant_has_distinct_indices() {
        use schess::Variant;
        for variant in Variant::ALL {
            let mut pos = Position::new(variant);
            let mut state = 12345u64;
            let mut placements = 0;
            for _ in 0..120 {
                let moves = legal_indices(&pos);
                if moves.is_empty() {
                    break;
                }
                let set: std::collections::HashSet<usize> = moves.iter().map(|(_, i)| *i).collect();
                assert_eq!(set.len(), moves.len(), "{}", pos.fen());
                for &(m, i) in &moves {
                    assert_eq!(move_of(&pos, i), Some(m), "{variant} {m}");
                    placements += usize::from(m.is_placement());
                }
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                pos = pos.play(moves[(state >> 33) as usize % moves.len()].0).unwrap();
            }
            assert_eq!(placements > 0, variant == Variant::Placement, "{variant}");
        }
    }

    #[test]
    fn placements_extend_format_one() {
        // The first 2,322 entries are format 1's; the 16 placements follow, E then H.
        assert!(policy_move(POLICY_SIZE_V1 - 1).is_some_and(|m| matches!(m, PolicyMove::Castle { .. })));
        let start = Position::new(schess::Variant::Placement);
        let mut white: Vec<usize> = legal_indices(&start).into_iter().map(|(_, i)| i).collect();
        white.sort();
        assert_eq!(white, (POLICY_SIZE_V1..POLICY_SIZE).collect::<Vec<_>>());
        assert_eq!(
            policy_move(POLICY_SIZE_V1 + 8 + 3),
            Some(PolicyMove::Place { piece: HandPiece::Hawk, file: File::D })
        );
        // Black's placements read as the same files.
        let black = start.play(start.parse_uci("E@d").unwrap()).unwrap();
        let h_at_b = black.parse_uci("H@b").unwrap();
        assert_eq!(index_of(h_at_b, Color::Black), Some(POLICY_SIZE_V1 + 8 + 1));
    }

    #[test]
    fn black_moves_mirror_white_moves() {
        let white = Position::startpos();
        let black = white.mirrored();
        let mut w: Vec<usize> = legal_indices(&white).into_iter().map(|(_, i)| i).collect();
        let mut b: Vec<usize> = legal_indices(&black).into_iter().map(|(_, i)| i).collect();
        w.sort();
        b.sort();
        assert_eq!(w, b);
    }
}
