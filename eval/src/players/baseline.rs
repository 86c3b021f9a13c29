//! Built-in baseline players: fixed reference points on the Elo ladder that need no
//! network and no external program, so the very first generations can be measured.

use super::{Player, PlayerError};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use schess::{Game, Move, Position};

use schess::material::material;

/// Plays uniformly random legal moves.
pub struct RandomPlayer {
    name: String,
    rng: SmallRng,
}

impl RandomPlayer {
    pub fn new(name: impl Into<String>, seed: u64) -> Self {
        RandomPlayer { name: name.into(), rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        self.choose_among(game, &game.position().legal_moves())
    }

    fn choose_among(&mut self, game: &Game, moves: &[Move]) -> Result<Move, PlayerError> {
        moves.choose(&mut self.rng).copied().ok_or_else(|| no_moves(game))
    }
}

fn no_moves(game: &Game) -> PlayerError {
    PlayerError::Internal(anyhow::anyhow!("asked for a move in a finished game: {}", game.position().fen()))
}

/// One-ply material greed: mates in one when it can, otherwise takes the move that leaves
/// the best material balance, avoiding moves that let the opponent mate in one. Ties are
/// broken at random, so games vary.
///
/// Deliberately weak (no look-ahead beyond the mate check): it is the step above random
/// play on the ladder, and it punishes hanging pieces, which a beginner network does.
pub struct GreedyPlayer {
    name: String,
    rng: SmallRng,
}

/// Score of a move that mates; of one that allows a mate in one.
const MATE: i32 = 100_000;

impl GreedyPlayer {
    pub fn new(name: impl Into<String>, seed: u64) -> Self {
        GreedyPlayer { name: name.into(), rng: SmallRng::seed_from_u64(seed) }
    }

    /// The mover's score of `m`: material balance after it, +MATE for mate, -MATE if the
    /// opponent then has a mate in one, 0 (a draw) for stalemate.
    pub fn score_move(pos: &Position, m: Move) -> i32 {
        let me = pos.turn();
        let mut next = pos.clone();
        next.play_unchecked(m);
        if !next.has_legal_moves() {
            return if next.is_check() { MATE } else { 0 };
        }
        if allows_mate_in_one(&next) {
            return -MATE;
        }
        material(&next, me) - material(&next, me.flip())
    }
}

/// Whether the side to move in `pos` has a move that checkmates.
fn allows_mate_in_one(pos: &Position) -> bool {
    pos.legal_moves().iter().any(|&r| pos.gives_checkmate(r))
}

impl Player for GreedyPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        self.choose_among(game, &game.position().legal_moves())
    }

    fn choose_among(&mut self, game: &Game, moves: &[Move]) -> Result<Move, PlayerError> {
        let pos = game.position();
        let scored: Vec<(Move, i32)> = moves.iter().map(|&m| (m, Self::score_move(pos, m))).collect();
        let best = scored.iter().map(|&(_, s)| s).max().ok_or_else(|| no_moves(game))?;
        let top: Vec<Move> = scored.iter().filter(|&&(_, s)| s == best).map(|&(m, _)| m).collect();
        Ok(*top.choose(&mut self.rng).expect("non-empty"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_mates_captures_and_avoids_mate() {
        let mut g = GreedyPlayer::new("g", 1);
        // Back-rank mate available: Ra8#.
        let game = Game::new(Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1").unwrap());
        assert_eq!(g.choose(&game).unwrap().to_uci(), "a1a8");
        // A free queen on d5.
        let game = Game::new(Position::from_fen("4k3/8/8/3q4/8/8/8/3RK3[] w - - 0 1").unwrap());
        assert_eq!(g.choose(&game).unwrap().to_uci(), "d1d5");
        // Taking the pawn on a7 with the rook lets Black mate on e1 (Re8-e1#): avoid it.
        let pos = Position::from_fen("4r1k1/p4ppp/8/8/8/8/5PPP/R5K1[] w - - 0 1").unwrap();
        assert_eq!(GreedyPlayer::score_move(&pos, pos.parse_uci("a1a7").unwrap()), -MATE);
        let m = g.choose(&Game::new(pos)).unwrap();
        assert_ne!(m.to_uci(), "a1a7");
    }

    #[test]
    fn random_plays_legal_moves() {
        let mut r = RandomPlayer::new("r", 3);
        let mut game = Game::new(Position::startpos());
        while game.outcome().is_none() && game.ply() < 200 {
            let m = r.choose(&game).unwrap();
            game.play(m).unwrap();
        }
    }
}
