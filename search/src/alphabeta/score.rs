//! Scores of the alpha-beta search: centipawns for the side to move, with mates at the
//! ends of the range, and the conversion to and from the expected score in [-1, 1] that
//! evaluators give.
//!
//! The conversion inverts [`crate::evaluator::material_q`]: a lead of `p` pawns has
//! expected score `tanh(p / 4)`, so `400 * atanh(q)` centipawns is the material lead an
//! evaluator's `q` is worth. With it, the material the quiescence search wins or loses
//! adds to a network's value in the units that network was trained to agree with, and the
//! material-only evaluator comes back as exactly 100 centipawns a pawn.

use crate::evaluator::MATERIAL_Q_SCALE;

/// A mate at ply 0; a mate found `n` plies from the root scores `MATE - n`.
pub const MATE: i32 = 32_000;
/// Larger than any score.
pub const INFINITE: i32 = 32_500;
/// Scores at or beyond this size are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// The largest evaluation that is not a mate: 20 pawns.
pub const MAX_EVAL: i32 = 2_000;

/// Centipawns for an expected score `q` (side to move).
pub fn cp_from_q(q: f32) -> i32 {
    let q = f64::from(q).clamp(-0.9999, 0.9999);
    let cp = 100.0 * f64::from(MATERIAL_Q_SCALE) * q.atanh();
    (cp.round() as i32).clamp(-MAX_EVAL, MAX_EVAL)
}

/// The expected score in [-1, 1] of a score (mates are ±1).
pub fn q_from_score(score: i32) -> f32 {
    if is_mate(score) {
        return score.signum() as f32;
    }
    (score as f32 / (100.0 * MATERIAL_Q_SCALE)).tanh()
}

pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// UCI's `score mate N`: moves to mate for the side to move (negative: it is mated).
pub fn mate_moves(score: i32) -> Option<i32> {
    if !is_mate(score) {
        return None;
    }
    let plies = MATE - score.abs();
    Some(if score > 0 { (plies + 1) / 2 } else { -(plies / 2) })
}

/// A score as stored in the transposition table: mates counted from the node, not the root.
pub fn to_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`to_table`] at `ply`.
pub fn from_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::material_q;

    #[test]
    fn material_round_trips_through_q() {
        for pawns in [-12.0f32, -3.0, -1.0, 0.0, 0.5, 1.0, 5.0, 9.0] {
            assert_eq!(cp_from_q(material_q(pawns)), (pawns * 100.0) as i32, "{pawns}");
        }
        assert_eq!(cp_from_q(1.0), cp_from_q(0.9999));
        assert!(cp_from_q(1.0) <= MAX_EVAL && cp_from_q(-1.0) >= -MAX_EVAL);
        assert!((q_from_score(400) - 1f32.tanh()).abs() < 1e-6);
        assert_eq!(q_from_score(MATE - 3), 1.0);
    }

    #[test]
    fn mate_scores() {
        assert_eq!(mate_moves(MATE - 1), Some(1));
        assert_eq!(mate_moves(MATE - 3), Some(2));
        assert_eq!(mate_moves(-(MATE - 2)), Some(-1));
        assert_eq!(mate_moves(-MATE), Some(0));
        assert_eq!(mate_moves(MAX_EVAL), None);
        assert_eq!(from_table(to_table(MATE - 5, 3), 3), MATE - 5);
        assert_eq!(to_table(MATE - 5, 3), MATE - 2);
        assert_eq!(from_table(to_table(-(MATE - 6), 2), 2), -(MATE - 6));
        assert_eq!(to_table(150, 7), 150);
    }
}
