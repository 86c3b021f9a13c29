//! Material arithmetic, for the quiescence search, move ordering and MCTS leaves: what a
//! move captures or promotes to, the static exchange evaluation of a capture (the
//! material balance of the best sequence of recaptures on its square), and
//! [`resolve`], the material the side to move wins by its best sequence of captures, all
//! in centipawns. No network is consulted: this is what lets either search resolve
//! captures without calling one.

use schess::material::piece_value;
use schess::{Bitboard, Color, Move, Position, Role};

/// Centipawns of a piece (the conventional values of [`schess::material`]).
pub fn value(role: Role) -> i32 {
    if role == Role::King {
        return 20_000;
    }
    100 * piece_value(role)
}

/// The piece `m` captures, if any.
pub fn captured(pos: &Position, m: Move) -> Option<Role> {
    match m {
        Move::EnPassant { .. } => Some(Role::Pawn),
        Move::Normal { to, .. } | Move::Promotion { to, .. } => {
            pos.piece_at(to).filter(|p| p.color != pos.turn()).map(|p| p.role)
        }
        Move::Castle { .. } | Move::Place { .. } => None,
    }
}

/// Whether the move changes material at once: a capture or a promotion (what the
/// quiescence search plays).
pub fn is_tactical(pos: &Position, m: Move) -> bool {
    m.promotion().is_some() || captured(pos, m).is_some()
}

/// Material the move wins before any reply: the captured piece plus a promotion's gain.
pub fn immediate_gain(pos: &Position, m: Move) -> i32 {
    let victim = captured(pos, m).map_or(0, value);
    let promo = m.promotion().map_or(0, |r| value(r) - value(Role::Pawn));
    victim + promo
}

/// Roles from the least to the most valuable, the order attackers recapture in.
const CHEAPEST_FIRST: [Role; 8] =
    [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Hawk, Role::Elephant, Role::Queen, Role::King];

/// Static exchange evaluation: the material `m` wins (negative: loses) if both sides then
/// recapture on its square with their cheapest piece for as long as it pays. Pins are
/// ignored and promotions count their gain once, as in most engines.
pub fn see(pos: &Position, m: Move) -> i32 {
    let (from, to) = match m {
        Move::Normal { from, to, .. } | Move::Promotion { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Castle { .. } | Move::Place { .. } => return 0,
    };
    let Some(mover) = pos.role_at(from) else { return 0 };
    let mut occupied = pos.occupied().without(from);
    if let Move::EnPassant { .. } = m {
        // The captured pawn stands beside `to`, on the mover's rank.
        let captured_sq = schess::Square::new((from.index() & !7 | to.index() & 7) as u8).expect("a square");
        occupied = occupied.without(captured_sq);
    }
    let mut gains = [0i32; 40];
    gains[0] = immediate_gain(pos, m);
    // What stands on `to` now and can be taken next.
    let mut on_square = m.promotion().unwrap_or(mover);
    let mut side = pos.turn().flip();
    let mut n = 1;
    while n < gains.len() {
        let attackers = pos.attackers(to, side, occupied) & occupied;
        let Some((role, sq)) = cheapest(pos, attackers, side) else { break };
        gains[n] = value(on_square) - gains[n - 1];
        if role == Role::King && (pos.attackers(to, side.flip(), occupied.without(sq)) & occupied).any() {
            // The king may not take into a defended square.
            break;
        }
        occupied = occupied.without(sq);
        on_square = role;
        side = side.flip();
        n += 1;
    }
    // Each side may stop recapturing when that is better for it.
    while n > 1 {
        n -= 1;
        gains[n - 1] = -(-gains[n - 1]).max(gains[n]);
    }
    gains[0]
}

/// A bound on [`resolve`]'s answer, also what being mated inside it counts: more than any
/// material, but finite, so that a value shifted by it stays a value.
pub const RESOLVE_LIMIT: i32 = 2_000;

/// The material (centipawns, side to move's view) that the side to move wins by its best
/// sequence of captures and promotions from `pos`, each side free to stop capturing
/// when that is better for it (a quiescence search over material alone, at most
/// `plies` deep): 0 in a quiet position, positive when something can be taken for
/// profit. Captures that lose material by static exchange are not tried; in check every
/// evasion is, and a mate within it counts [`RESOLVE_LIMIT`]. Gating adds no material,
/// so only the ungated form of a capture is searched.
///
/// A network that overlooks a hanging piece values the position as if it were safe;
/// MCTS adds this to the network's value at its leaves so that the capture is seen
/// without spending playouts on it (the alpha-beta mode has its own quiescence search).
pub fn resolve(pos: &Position, plies: usize) -> i32 {
    quiesce(pos, -RESOLVE_LIMIT, RESOLVE_LIMIT, plies)
}

/// Negamax over captures with scores relative to `pos`'s own material (so standing pat
/// is 0): a capture scores its immediate gain minus what the opponent then wins.
fn quiesce(pos: &Position, mut alpha: i32, beta: i32, plies: usize) -> i32 {
    let in_check = pos.is_check();
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return if in_check { -RESOLVE_LIMIT } else { 0 };
    }
    if plies == 0 {
        return 0;
    }
    let mut best = if in_check { -RESOLVE_LIMIT } else { 0 };
    if best >= beta {
        return best;
    }
    alpha = alpha.max(best);
    let mut candidates: Vec<(i32, Move)> = moves
        .iter()
        .filter(|m| m.gate().is_none())
        .filter_map(|&m| {
            if in_check {
                return Some((immediate_gain(pos, m), m));
            }
            if !is_tactical(pos, m) {
                return None;
            }
            let s = see(pos, m);
            (s >= 0).then(|| (s * 16 + immediate_gain(pos, m), m))
        })
        .collect();
    candidates.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
    for (_, m) in candidates {
        let gain = immediate_gain(pos, m);
        let mut next = pos.clone();
        next.play_unchecked(m);
        // The child's window, in its own frame: our score is `gain - theirs`.
        let score = (gain - quiesce(&next, gain - beta, gain - alpha, plies - 1)).clamp(-RESOLVE_LIMIT, RESOLVE_LIMIT);
        if score > best {
            best = score;
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

fn cheapest(pos: &Position, attackers: Bitboard, side: Color) -> Option<(Role, schess::Square)> {
    CHEAPEST_FIRST.iter().find_map(|&r| (attackers & pos.pieces(side, r)).first().map(|sq| (r, sq)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos: Position = fen.parse().unwrap();
        see(&pos, pos.parse_uci(uci).unwrap())
    }

    #[test]
    fn exchanges() {
        // A free rook.
        assert_eq!(see_of("4k3/8/8/3r4/8/8/8/3RK3[] w - - 0 1", "d1d5"), 500);
        // Rook takes a pawn defended by a pawn: loses the exchange of rook for pawn.
        assert_eq!(see_of("4k3/8/4p3/3p4/8/8/8/3RK3[] w - - 0 1", "d1d5"), 100 - 500);
        // Pawn takes a knight defended by a pawn: wins a knight for a pawn.
        assert_eq!(see_of("4k3/8/4p3/3n4/4P3/8/8/4K3[] w - - 0 1", "e4d5"), 300 - 100);
        // Doubled rooks against one defender: RxP, RxR, RxR wins a pawn and a rook for a rook.
        assert_eq!(see_of("3rk3/8/8/3p4/8/8/3R4/3RK3[] w - - 0 1", "d2d5"), 100);
        // A hawk (knight move) defends: the elephant's capture of a bishop loses.
        assert_eq!(see_of("4k3/8/2h5/3b4/8/8/8/3EK3[] w - - 0 1", "d1d5"), 300 - 800);
        // Quiet moves have nothing to exchange.
        assert_eq!(see_of("4k3/8/8/8/8/8/8/3RK3[] w - - 0 1", "d1d5"), 0);
        // The king may capture only an undefended piece.
        assert_eq!(see_of("4k3/8/8/8/8/8/3p4/4K3[] w - - 0 1", "e1d2"), 100);
        // A king recaptures only on an undefended square.
        assert_eq!(see_of("8/8/8/8/8/2k5/3p4/3RK3[] w - - 0 1", "d1d2"), 100);
        assert_eq!(see_of("4K3/8/8/8/8/2k5/3p4/3R4[] w - - 0 1", "d1d2"), 100 - 500);
    }

    fn resolve_of(fen: &str) -> i32 {
        resolve(&fen.parse().unwrap(), 8)
    }

    #[test]
    fn resolution_of_capture_sequences() {
        // Quiet: nothing to take.
        assert_eq!(resolve_of("4k3/8/8/8/8/8/8/3RK3[] w - - 0 1"), 0);
        // A hanging rook is won.
        assert_eq!(resolve_of("4k3/8/8/3r4/8/8/8/3RK3[] w - - 0 1"), 500);
        // A pawn defended by a pawn is not taken with the rook (standing pat is better).
        assert_eq!(resolve_of("4k3/8/4p3/3p4/8/8/8/3RK3[] w - - 0 1"), 0);
        // Two things hang: the better one is taken, and the reply takes back what it can.
        // White takes the queen on d5 (900); black's rook then takes the undefended knight on
        // a4 (300).
        assert_eq!(resolve_of("r3k3/8/8/3q4/N7/8/8/3RK3[] w - - 0 1"), 900 - 300);
        // A promotion counts its gain, the best piece's (a queen: 800).
        assert_eq!(resolve_of("4k3/1P6/8/8/8/8/8/4K3[] w - - 0 1"), 800);
        // Black to move: its rook for white's, the king taking back, gains nothing.
        assert_eq!(resolve_of("4k3/8/8/3r4/8/8/8/3RK3[] b - - 0 1"), 0);
        // In check with only losing evasions: the king must step away and leave its rook.
        assert_eq!(resolve_of("4k3/8/8/8/8/8/2n5/R3K3[] w - - 0 1"), -500);
        // Mated: the limit.
        assert_eq!(resolve_of("R3k3/8/4K3/8/8/8/8/8[] b - - 0 1"), -RESOLVE_LIMIT);
        // No plies: nothing is resolved.
        assert_eq!(resolve(&"4k3/8/8/3r4/8/8/8/3RK3[] w - - 0 1".parse().unwrap(), 0), 0);
    }

    #[test]
    fn gains_and_tactical_moves() {
        let pos: Position = "4k3/1P6/8/8/8/8/7r/4K3[] w - - 0 1".parse().unwrap();
        let promo = pos.parse_uci("b7b8e").unwrap();
        assert!(is_tactical(&pos, promo));
        assert_eq!(immediate_gain(&pos, promo), 700);
        let quiet = pos.parse_uci("e1d1").unwrap();
        assert!(!is_tactical(&pos, quiet));
        assert_eq!(captured(&pos, quiet), None);
    }
}
