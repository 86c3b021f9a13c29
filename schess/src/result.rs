//! The result of a finished game, in the form PGN writes it.

use crate::types::Color;
use std::fmt;
use std::str::FromStr;

/// Who won a finished game, or that it was drawn. Its text form is PGN's result token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub fn from_winner(winner: Option<Color>) -> GameResult {
        match winner {
            Some(Color::White) => GameResult::WhiteWins,
            Some(Color::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        }
    }

    /// From White's score: positive a White win, negative a Black win, 0 a draw (the
    /// form training records store).
    pub fn from_white_score(score: i8) -> GameResult {
        match score.signum() {
            1 => GameResult::WhiteWins,
            -1 => GameResult::BlackWins,
            _ => GameResult::Draw,
        }
    }

    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// 1 for a win of `color`, 0 for a draw, -1 for a loss.
    pub fn score_for(self, color: Color) -> i8 {
        match self.winner() {
            Some(w) if w == color => 1,
            Some(_) => -1,
            None => 0,
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A result token that is not `1-0`, `0-1` or `1/2-1/2` (PGN's `*`, an unfinished game,
/// included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultError(pub String);

impl fmt::Display for ResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid game result {:?} (expected 1-0, 0-1 or 1/2-1/2)", self.0)
    }
}

impl std::error::Error for ResultError {}

impl FromStr for GameResult {
    type Err = ResultError;

    fn from_str(s: &str) -> Result<GameResult, ResultError> {
        match s {
            "1-0" => Ok(GameResult::WhiteWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" => Ok(GameResult::Draw),
            _ => Err(ResultError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips_and_scores_agree() {
        for r in [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw] {
            assert_eq!(r.to_string().parse::<GameResult>(), Ok(r));
            assert_eq!(GameResult::from_winner(r.winner()), r);
            assert_eq!(GameResult::from_white_score(r.score_for(Color::White)), r);
            assert_eq!(r.score_for(Color::White), -r.score_for(Color::Black));
        }
        assert!("*".parse::<GameResult>().is_err());
        assert!("1-0 ".parse::<GameResult>().unwrap_err().to_string().contains("\"1-0 \""));
    }
}
