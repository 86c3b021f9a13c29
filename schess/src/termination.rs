//! Why a game ended: the one vocabulary of shards, match records, statistics and PGN.
//!
//! The rules end a game in one of five ways ([`Outcome`]); self-play and matches add the
//! ways they decide a game themselves (the length limit, resignation) and the ways a player
//! loses by misbehaving (illegal moves, crashes, timeouts). [`Termination`] names all of
//! them once, with a text form for files and logs and PGN's coarser `Termination` tag.

use crate::game::{DrawReason, Outcome};
use crate::result::{GameResult, ResultError};
use std::fmt;
use std::str::FromStr;

/// How a game ended. Its text form (`checkmate`, `max-length`, ...) is what shards,
/// statistics and JSON reports use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    Checkmate,
    Stalemate,
    Repetition,
    FiftyMoves,
    InsufficientMaterial,
    /// A side gave up: self-play's resignation threshold, or a match's adjudication once
    /// both players' scores agreed on the winner.
    Resignation,
    /// The length limit, decided by the live material balance.
    MaterialAdjudication,
    /// The length limit, drawn.
    MaxLength,
    /// A player sent an illegal or malformed move, or broke the protocol.
    RulesInfraction,
    /// A player crashed or did not answer in time.
    Forfeit,
}

impl Termination {
    /// Every termination. The order is part of stored formats (shards store the index):
    /// new terminations are appended, never inserted.
    pub const ALL: [Termination; 10] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::Repetition,
        Termination::FiftyMoves,
        Termination::InsufficientMaterial,
        Termination::Resignation,
        Termination::MaterialAdjudication,
        Termination::MaxLength,
        Termination::RulesInfraction,
        Termination::Forfeit,
    ];

    /// The text form.
    pub fn name(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Repetition => "repetition",
            Termination::FiftyMoves => "fifty-moves",
            Termination::InsufficientMaterial => "insufficient-material",
            Termination::Resignation => "resign",
            Termination::MaterialAdjudication => "material-adjudication",
            Termination::MaxLength => "max-length",
            Termination::RulesInfraction => "rules-infraction",
            Termination::Forfeit => "forfeit",
        }
    }

    /// PGN's `Termination` tag: `normal` for the rules' own endings, `adjudication` for
    /// what the match or self-play decided, `rules infraction` and `time forfeit` for a
    /// player's fault (crashes count as forfeits, as in cutechess).
    pub fn pgn_tag(self) -> &'static str {
        match self {
            t if t.is_by_rules() => "normal",
            Termination::RulesInfraction => "rules infraction",
            Termination::Forfeit => "time forfeit",
            _ => "adjudication",
        }
    }

    /// Whether the rules ended the game (checkmate or a draw rule), so that replaying its
    /// moves must reach the same [`Outcome`].
    pub fn is_by_rules(self) -> bool {
        matches!(
            self,
            Termination::Checkmate
                | Termination::Stalemate
                | Termination::Repetition
                | Termination::FiftyMoves
                | Termination::InsufficientMaterial
        )
    }

    /// The draw rule this termination names, if it names one.
    pub fn draw_reason(self) -> Option<DrawReason> {
        match self {
            Termination::Stalemate => Some(DrawReason::Stalemate),
            Termination::Repetition => Some(DrawReason::Repetition),
            Termination::FiftyMoves => Some(DrawReason::FiftyMoves),
            Termination::InsufficientMaterial => Some(DrawReason::InsufficientMaterial),
            _ => None,
        }
    }
}

impl From<DrawReason> for Termination {
    fn from(r: DrawReason) -> Termination {
        match r {
            DrawReason::Stalemate => Termination::Stalemate,
            DrawReason::FiftyMoves => Termination::FiftyMoves,
            DrawReason::Repetition => Termination::Repetition,
            DrawReason::InsufficientMaterial => Termination::InsufficientMaterial,
        }
    }
}

impl From<Outcome> for Termination {
    fn from(o: Outcome) -> Termination {
        match o {
            Outcome::Checkmate { .. } => Termination::Checkmate,
            Outcome::Draw(r) => r.into(),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A text that names no termination, or an outcome text that is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminationError(pub String);

impl fmt::Display for TerminationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TerminationError {}

impl From<ResultError> for TerminationError {
    fn from(e: ResultError) -> TerminationError {
        TerminationError(e.to_string())
    }
}

impl FromStr for Termination {
    type Err = TerminationError;

    fn from_str(s: &str) -> Result<Termination, TerminationError> {
        Termination::ALL.into_iter().find(|t| t.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Termination::ALL.iter().map(|t| t.name()).collect();
            TerminationError(format!("unknown termination {s:?} (expected one of {})", names.join(", ")))
        })
    }
}

impl FromStr for DrawReason {
    type Err = TerminationError;

    fn from_str(s: &str) -> Result<DrawReason, TerminationError> {
        let t: Termination = s.parse()?;
        t.draw_reason().ok_or_else(|| TerminationError(format!("{s:?} is not a draw rule")))
    }
}

impl fmt::Display for DrawReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Termination::from(*self).fmt(f)
    }
}

/// An outcome's text form is its result and how the rules reached it: `1-0 checkmate`,
/// `1/2-1/2 repetition`.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.result(), Termination::from(*self))
    }
}

impl FromStr for Outcome {
    type Err = TerminationError;

    fn from_str(s: &str) -> Result<Outcome, TerminationError> {
        let bad = || TerminationError(format!("invalid outcome {s:?} (expected e.g. `1-0 checkmate`)"));
        let (result, how) = s.split_once(' ').ok_or_else(bad)?;
        let result: GameResult = result.parse()?;
        match (how.parse::<Termination>()?, result.winner()) {
            (Termination::Checkmate, Some(winner)) => Ok(Outcome::Checkmate { winner }),
            (t, None) => t.draw_reason().map(Outcome::Draw).ok_or_else(bad),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Color;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for t in Termination::ALL {
            assert_eq!(t.name().parse::<Termination>(), Ok(t));
        }
        let mut names: Vec<&str> = Termination::ALL.iter().map(|t| t.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Termination::ALL.len());
        let e = "mate".parse::<Termination>().unwrap_err().to_string();
        assert!(e.contains("\"mate\"") && e.contains("max-length"), "{e}");
    }

    #[test]
    fn pgn_tags_separate_the_rules_from_adjudication_and_faults() {
        assert_eq!(Termination::Repetition.pgn_tag(), "normal");
        assert_eq!(Termination::MaxLength.pgn_tag(), "adjudication");
        assert_eq!(Termination::Resignation.pgn_tag(), "adjudication");
        assert_eq!(Termination::RulesInfraction.pgn_tag(), "rules infraction");
        assert_eq!(Termination::Forfeit.pgn_tag(), "time forfeit");
        let by_rules = Termination::ALL.iter().filter(|t| t.is_by_rules()).count();
        assert_eq!(by_rules, 5);
    }

    #[test]
    fn outcomes_have_a_text_form() {
        let all = [
            Outcome::Checkmate { winner: Color::White },
            Outcome::Checkmate { winner: Color::Black },
            Outcome::Draw(DrawReason::Stalemate),
            Outcome::Draw(DrawReason::FiftyMoves),
            Outcome::Draw(DrawReason::Repetition),
            Outcome::Draw(DrawReason::InsufficientMaterial),
        ];
        for o in all {
            assert_eq!(o.to_string().parse::<Outcome>(), Ok(o), "{o}");
            assert!(Termination::from(o).is_by_rules());
        }
        assert_eq!(Outcome::Checkmate { winner: Color::Black }.to_string(), "0-1 checkmate");
        assert_eq!(DrawReason::FiftyMoves.to_string(), "fifty-moves");
        for bad in ["1/2-1/2 checkmate", "1-0 stalemate", "1-0 resign", "checkmate", "1-0  checkmate"] {
            assert!(bad.parse::<Outcome>().is_err(), "{bad}");
        }
    }
}
