//! A search limited to some of its root's moves (UCI's `go searchmoves`, a gating
//! restriction): the one rule both play modes apply.

use schess::{Move, Position};

/// The legal moves of `pos` among `allowed`, when that limits the choice: `None` when no
/// limit is given, when it names no legal move (then every legal move is searched, so
/// there is always one to play), or when it allows every legal move.
pub fn limit(pos: &Position, allowed: Option<&[Move]>) -> Option<Vec<Move>> {
    let allowed = allowed?;
    let legal = pos.legal_moves();
    let kept: Vec<Move> = legal.iter().copied().filter(|m| allowed.contains(m)).collect();
    (!kept.is_empty() && kept.len() < legal.len()).then_some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_real_limit_limits() {
        let pos = Position::startpos();
        let legal = pos.legal_moves();
        let e4 = pos.parse_uci("e2e4").unwrap();
        let barred_elsewhere = Position::from_fen("6k1/8/8/8/8/8/8/R5K1[] w - - 0 1").unwrap().legal_moves();
        assert_eq!(limit(&pos, None), None);
        assert_eq!(limit(&pos, Some(&[e4])), Some(vec![e4]));
        assert_eq!(limit(&pos, Some(&legal)), None, "every legal move allowed");
        assert_eq!(limit(&pos, Some(&barred_elsewhere[..3])), None, "no legal move named");
    }
}
