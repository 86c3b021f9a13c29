//! The record of a finished match game: moves, result, termination and its PGN.

use super::adjudication::GameEnd;
use schess::{Color, Game, GameResult, Move, Position, Termination};

/// One finished game.
#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    /// `pair.game`, both from 1.
    pub round: String,
    pub white: String,
    pub black: String,
    /// Whether the match's first player had White.
    pub first_is_white: bool,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    pub termination: Termination,
    /// Why it ended, in words (also the PGN's final comment).
    pub reason: String,
    pub start: Position,
    /// All moves from `start`, the opening's included.
    pub moves: Vec<Move>,
    /// How many of `moves` were the opening's.
    pub opening_plies: usize,
    pub pgn: String,
}

impl GameRecord {
    pub fn result(&self) -> GameResult {
        GameResult::from_winner(self.winner)
    }

    /// The first player's half-points: 0, 1 or 2.
    pub fn first_half_points(&self) -> u8 {
        let first = if self.first_is_white { Color::White } else { Color::Black };
        match self.winner {
            None => 1,
            Some(c) if c == first => 2,
            Some(_) => 0,
        }
    }
}

/// The record (with PGN) of a finished game.
pub(crate) fn record_game(
    event: &str,
    game: &Game,
    end: GameEnd,
    names: [&str; 2],
    first_is_white: bool,
    opening_plies: usize,
    round: String,
) -> GameRecord {
    let result = GameResult::from_winner(end.winner);
    let tags = [
        ("Event", event.to_string()),
        ("Site", "szero".to_string()),
        ("Date", today()),
        ("Round", round.clone()),
        ("White", names[0].to_string()),
        ("Black", names[1].to_string()),
        ("Termination", end.termination.pgn_tag().to_string()),
        ("PlyCount", game.ply().to_string()),
    ];
    let pgn = schess::pgn::write_game(game, &tags, Some(result), Some(&end.reason));
    GameRecord {
        round,
        white: names[0].to_string(),
        black: names[1].to_string(),
        first_is_white,
        winner: end.winner,
        termination: end.termination,
        reason: end.reason,
        start: game.start().clone(),
        moves: game.moves().to_vec(),
        opening_plies,
        pgn,
    }
}

/// Today's date (UTC) as PGN writes it, `YYYY.MM.DD`.
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Replays a record under our rules: every move legal, and (for games ended by the rules)
/// the recorded result is the rules' result. For tests and audits.
pub fn verify_record(rec: &GameRecord) -> Result<(), String> {
    let mut g = Game::new(rec.start.clone());
    for (i, &m) in rec.moves.iter().enumerate() {
        g.play(m).map_err(|e| format!("{}: ply {}: {e}", rec.round, i + 1))?;
    }
    let outcome = g.outcome();
    match rec.termination {
        t if t.is_by_rules() => match outcome {
            Some(o) if o.winner() == rec.winner && Termination::from(o) == t => Ok(()),
            other => Err(format!("{}: recorded {} {t} but the rules say {other:?}", rec.round, rec.result())),
        },
        _ if outcome.is_some() => Err(format!("{}: adjudicated although the game was over: {outcome:?}", rec.round)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }
}
