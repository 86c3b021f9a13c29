//! How a game ends other than by the rules' own verdict being read off: the length limit
//! and resignation ([`Adjudication`]) and forfeits, each named by a [`Termination`].

use crate::players::PlayerError;
use schess::{Color, Game, Outcome, Termination};
use serde::{Deserialize, Serialize};

/// When a game is decided other than by the rules.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Adjudication {
    /// Draw after this many plies played from the opening (0 = never). S-Chess games
    /// between weak players can wander for hundreds of moves; the 50-move rule ends most.
    pub max_plies: u32,
    /// Resign when both players' own scores agree that one side wins with an expected
    /// score of at least this (in [-1, 1]; 0 disables resignation)...
    pub resign_score: f32,
    /// ...for this many consecutive moves of each player.
    pub resign_moves: u32,
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication { max_plies: 400, resign_score: 0.0, resign_moves: 4 }
    }
}

/// How a game ended.
#[derive(Debug, Clone)]
pub(crate) struct GameEnd {
    pub winner: Option<Color>,
    pub termination: Termination,
    pub reason: String,
}

/// The end of `game` by the rules or by the length limit, if it has come.
pub(crate) fn natural_end(game: &Game, opening_plies: usize, adj: &Adjudication) -> Option<GameEnd> {
    if let Some(outcome) = game.outcome() {
        return Some(GameEnd { winner: outcome.winner(), termination: outcome.into(), reason: describe(outcome) });
    }
    (adj.max_plies > 0 && game.ply() - opening_plies >= adj.max_plies as usize).then(|| GameEnd {
        winner: None,
        termination: Termination::MaxLength,
        reason: format!("draw by adjudication after {} plies", adj.max_plies),
    })
}

/// Resignation: consecutive plies on which the movers' own scores agreed on a winner.
#[derive(Debug, Default)]
pub(crate) struct ResignTracker {
    /// Positive: White winning, negative: Black.
    streak: i64,
}

impl ResignTracker {
    /// After `mover` moved with its own score `score`: the adjudicated end, if any.
    pub fn update(&mut self, adj: &Adjudication, mover: Color, score: Option<f32>) -> Option<GameEnd> {
        if adj.resign_score <= 0.0 {
            return None;
        }
        let white_view = score.map(|s| if mover == Color::White { s } else { -s });
        self.streak = match white_view {
            Some(w) if w >= adj.resign_score => self.streak.max(0) + 1,
            Some(w) if w <= -adj.resign_score => self.streak.min(0) - 1,
            _ => 0,
        };
        (self.streak.unsigned_abs() >= 2 * u64::from(adj.resign_moves.max(1))).then(|| {
            let winner = if self.streak > 0 { Color::White } else { Color::Black };
            GameEnd {
                winner: Some(winner),
                termination: Termination::Resignation,
                reason: format!("{} resigns (both sides agree)", winner.flip()),
            }
        })
    }
}

/// `loser` forfeits the game for `e`.
pub(crate) fn forfeit(loser: Color, name: &str, e: &PlayerError) -> GameEnd {
    GameEnd { winner: Some(loser.flip()), termination: termination_of(e), reason: format!("{name} forfeits: {e}") }
}

fn termination_of(e: &PlayerError) -> Termination {
    match e {
        PlayerError::IllegalMove { .. } | PlayerError::Protocol(_) => Termination::RulesInfraction,
        _ => Termination::Forfeit,
    }
}

fn describe(outcome: Outcome) -> String {
    match outcome {
        Outcome::Checkmate { winner } => format!("{winner} mates"),
        Outcome::Draw(reason) => format!("draw: {reason:?}"),
    }
}
