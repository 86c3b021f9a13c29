//! Material arithmetic of single moves, for the quiescence search and move ordering:
//! what a move captures or promotes to, and the static exchange evaluation of a capture
//! (the material balance of the best sequence of recaptures on its square), in
//! centipawns. No network is consulted: this is what lets the search resolve captures
//! without calling one.

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
