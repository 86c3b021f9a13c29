//! Conventional material values: the yardstick of the material-greedy baseline and of
//! self-play's optional material adjudication. Not used by the rules themselves.

use crate::{Color, Position, Role};

/// Material values in pawns. The Elephant (rook + knight) is close to a queen and the
/// Hawk (bishop + knight) a little below: the usual S-Chess estimates.
pub const fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::Elephant => 8,
        Role::Hawk => 7,
        Role::King => 0,
    }
}

/// Material of `color` on the board.
pub fn board_material(pos: &Position, color: Color) -> i32 {
    Role::ALL.iter().map(|&r| piece_value(r) * pos.pieces(color, r).count() as i32).sum()
}

/// Material of `color` in hand.
pub fn hand_material(pos: &Position, color: Color) -> i32 {
    pos.hand(color).iter().map(|p| piece_value(p.role())).sum()
}

/// Material of `color`: pieces on the board plus pieces in hand, so that gating is
/// material-neutral, as it is.
pub fn material(pos: &Position, color: Color) -> i32 {
    board_material(pos, color) + hand_material(pos, color)
}

/// Material that can still play: pieces in hand count only while `color` still has a
/// square to gate them from (a hand piece without one never enters the game).
pub fn live_material(pos: &Position, color: Color) -> i32 {
    board_material(pos, color) + live_hand_material(pos, color)
}

/// Material of `color` in hand that can still enter: none once it has no gating square.
fn live_hand_material(pos: &Position, color: Color) -> i32 {
    if pos.gating_rights(color).is_empty() {
        0
    } else {
        hand_material(pos, color)
    }
}

/// White's live material minus Black's.
pub fn live_balance(pos: &Position) -> i32 {
    live_material(pos, Color::White) - live_material(pos, Color::Black)
}

/// White's live material lead with each piece in hand counted at `hand` (0 to 1) of the
/// same piece on the board: 1 is [`live_balance`]; 0 counts only what has entered, so
/// that bringing a piece in raises its side's material. Pieces in hand count only while
/// their side can still gate, as in [`live_material`].
pub fn weighted_balance(pos: &Position, hand: f32) -> f32 {
    let side = |color| board_material(pos, color) as f32 + hand * live_hand_material(pos, color) as f32;
    side(Color::White) - side(Color::Black)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    #[test]
    fn start_position_is_balanced() {
        let p = Position::startpos();
        assert_eq!(material(&p, Color::White), 8 + 2 * 3 + 2 * 3 + 2 * 5 + 9 + 8 + 7);
        assert_eq!(live_balance(&p), 0);
    }

    #[test]
    fn hand_pieces_without_gating_squares_are_dead() {
        // White has moved every back-rank piece: its Elephant in hand can never enter.
        let p = pos("4k3/8/8/8/8/8/8/4K3[Ee] w - - 0 1");
        assert_eq!(material(&p, Color::White), 8);
        assert_eq!(live_material(&p, Color::White), 0);
        assert_eq!(live_balance(&p), 0);
        let q = pos("r3k3/8/8/8/8/8/8/4K3[Ee] w q - 0 1");
        assert_eq!(live_balance(&q), -5 - 8);
    }

    #[test]
    fn weighted_balance_counts_hand_pieces_by_their_weight() {
        // White brings its Elephant in on g1 (Nf3/E); Black holds both pieces, White the Hawk.
        let start = Position::startpos();
        let p = start.play(start.parse_uci("g1f3e").unwrap()).unwrap();
        assert_eq!(live_balance(&p), 0);
        assert_eq!(weighted_balance(&p, 1.0), 0.0);
        assert_eq!(weighted_balance(&p, 0.0), 8.0, "only White's Elephant has entered");
        assert_eq!(weighted_balance(&p, 0.5), 8.0 + 0.5 * 7.0 - 0.5 * 15.0);
    }
}
