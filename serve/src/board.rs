//! The game a page sends with every request, and what the page is told about a position.
//!
//! The server keeps no game: each request carries its start position and moves (as szero's
//! UCI strings), so a take-back is the page dropping a move, and any number of pages share
//! one server. The rules are `schess`'s alone: the page learns the legal moves from here,
//! each with the squares it uses on the board and its gate, and sends back a move's UCI
//! string exactly as listed.

use crate::error::ApiError;
use schess::pgn::pgn_san;
use schess::{Color, Game, Move, Position, Variant};
use serde::{Deserialize, Serialize};

/// A game as the page holds it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// seirawan (default), seirawan-forced, seirawan-placement or chess.
    #[serde(default)]
    pub variant: Option<String>,
    /// The start position's FEN; the variant's own start when absent or empty.
    #[serde(default)]
    pub start: Option<String>,
    /// The moves played since, as UCI strings: a list in a JSON body, or one string of
    /// moves separated by spaces or commas (a query string's form).
    #[serde(default, deserialize_with = "moves_list_or_string")]
    pub moves: Vec<String>,
}

/// `GameRequest::moves` from a list of strings, or from one string of moves separated by
/// spaces or commas.
fn moves_list_or_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Moves {
        List(Vec<String>),
        Text(String),
    }
    Ok(
        match Moves::deserialize(d)
            .map_err(|_| serde::de::Error::custom("moves must be a list of UCI moves or one string of them"))?
        {
            Moves::List(list) => list,
            Moves::Text(text) => text
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        },
    )
}

impl GameRequest {
    /// The game these moves make, or which part of the request is wrong.
    pub fn game(&self) -> Result<Game, ApiError> {
        let variant = match self.variant.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            None => Variant::Seirawan,
            Some(name) => Variant::from_name(name).ok_or_else(|| {
                ApiError::bad(format!(
                    "unknown variant {name:?} (seirawan, seirawan-forced, seirawan-placement or chess)"
                ))
            })?,
        };
        let start = match self.start.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            None => Position::new(variant),
            Some(fen) => {
                Position::from_fen_variant(fen, variant).map_err(|e| ApiError::bad(format!("bad FEN {fen:?}: {e}")))?
            }
        };
        let mut game = Game::new(start);
        for (i, uci) in self.moves.iter().enumerate() {
            if game.outcome().is_some() {
                return Err(ApiError::bad(format!("move {} ({uci}): the game is already over", i + 1)));
            }
            game.play_uci(uci.trim()).map_err(|e| ApiError::bad(format!("move {} ({uci}): {e}", i + 1)))?;
        }
        Ok(game)
    }
}

/// One legal move as the board shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveView {
    /// What the page sends back (`b1c3e`, `e1g1`, `h1e1h`, `a7a8e`).
    pub uci: String,
    pub san: String,
    /// The square the piece leaves (the king's, for castling).
    pub from: String,
    /// Where the piece lands (the king's destination, for castling).
    pub to: String,
    /// Castling: the rook's square, which a page also accepts as the king's target.
    pub rook: Option<String>,
    /// The hand piece that enters with the move, and its square.
    pub gate: Option<GateView>,
    /// Promotion piece, lower case (`q`, `r`, `b`, `n`, `e`, `h`).
    pub promotion: Option<char>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateView {
    /// `E` or `H`.
    pub piece: char,
    pub square: String,
}

impl MoveView {
    pub fn new(pos: &Position, m: Move) -> MoveView {
        let rook = match m {
            Move::Castle { rook, .. } => Some(rook.to_string()),
            _ => None,
        };
        MoveView {
            uci: m.to_uci(),
            san: pgn_san(pos, m),
            from: m.from().to_string(),
            to: m.to().to_string(),
            rook,
            gate: m.gate().map(|(p, sq)| GateView { piece: p.role().upper_char(), square: sq.to_string() }),
            promotion: m.promotion().map(|r| r.lower_char()),
        }
    }
}

/// A move already played, for the move list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayedMove {
    pub uci: String,
    pub san: String,
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutcomeView {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// checkmate, stalemate, fifty-moves, repetition or insufficient-material.
    pub reason: String,
}

/// Everything the page needs to draw a position and let the user move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionView {
    pub fen: String,
    pub variant: String,
    /// The start position's FEN (for a new game from it, and the PGN).
    pub start: String,
    pub turn: &'static str,
    pub check: bool,
    pub outcome: Option<OutcomeView>,
    /// The hand pieces of each side (`EH`, `eh`, or fewer).
    pub hands: Hands,
    pub legal: Vec<MoveView>,
    pub history: Vec<PlayedMove>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hands {
    pub white: String,
    pub black: String,
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl PositionView {
    pub fn new(game: &Game) -> PositionView {
        let pos = game.position();
        let outcome = game.outcome();
        let legal = if outcome.is_some() {
            Vec::new()
        } else {
            pos.legal_moves().iter().map(|&m| MoveView::new(pos, m)).collect()
        };
        let history = game
            .moves()
            .iter()
            .zip(game.positions())
            .map(|(&m, p)| PlayedMove { uci: m.to_uci(), san: pgn_san(p, m) })
            .collect();
        let hand = |c: Color| {
            let letters: String = pos.hand(c).iter().map(|p| p.role().upper_char()).collect();
            if c == Color::White {
                letters
            } else {
                letters.to_ascii_lowercase()
            }
        };
        PositionView {
            fen: pos.fen(),
            variant: pos.variant().name().to_string(),
            start: game.start().fen(),
            turn: color_name(pos.turn()),
            check: pos.is_check(),
            outcome: outcome.map(|o| OutcomeView { result: o.result().as_str().to_string(), reason: reason(o) }),
            hands: Hands { white: hand(Color::White), black: hand(Color::Black) },
            legal,
            history,
        }
    }
}

/// How a game ended, in a word or two.
pub(crate) fn reason(o: schess::Outcome) -> String {
    use schess::{DrawReason, Outcome};
    match o {
        Outcome::Checkmate { .. } => "checkmate",
        Outcome::Draw(DrawReason::Stalemate) => "stalemate",
        Outcome::Draw(DrawReason::FiftyMoves) => "fifty-moves",
        Outcome::Draw(DrawReason::Repetition) => "repetition",
        Outcome::Draw(DrawReason::InsufficientMaterial) => "insufficient-material",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(moves: &[&str]) -> GameRequest {
        GameRequest { moves: moves.iter().map(|s| s.to_string()).collect(), ..GameRequest::default() }
    }

    #[test]
    fn the_start_lists_gating_moves_with_their_piece() {
        let view = PositionView::new(&request(&[]).game().unwrap());
        assert_eq!(view.turn, "white");
        assert_eq!(view.hands.clone().normalised(), Hands { white: "EH".into(), black: "eh".into() });
        let nc3e = view.legal.iter().find(|m| m.uci == "b1c3e").expect("Nc3 gating an elephant");
        assert_eq!(nc3e.from, "b1");
        assert_eq!(nc3e.to, "c3");
        assert_eq!(nc3e.gate, Some(GateView { piece: 'E', square: "b1".into() }));
        assert_eq!(nc3e.san, "Nc3/E");
    }

    impl Hands {
        /// Letters sorted, for comparisons that do not care about the hand's order.
        fn normalised(self) -> Hands {
            let sort = |s: String| {
                let mut v: Vec<char> = s.chars().collect();
                v.sort_unstable();
                v.into_iter().collect()
            };
            Hands { white: sort(self.white), black: sort(self.black) }
        }
    }

    #[test]
    fn castling_gates_name_the_rook_square_and_the_gate() {
        let game = request(&["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]).game().unwrap();
        let view = PositionView::new(&game);
        let castles: Vec<&MoveView> = view.legal.iter().filter(|m| m.rook.is_some()).collect();
        let ucis: Vec<&str> = castles.iter().map(|m| m.uci.as_str()).collect();
        for u in ["e1g1", "e1g1e", "e1g1h", "h1e1e", "h1e1h"] {
            assert!(ucis.contains(&u), "{u} missing from {ucis:?}");
        }
        let rook_gate = castles.iter().find(|m| m.uci == "h1e1h").unwrap();
        assert_eq!((rook_gate.from.as_str(), rook_gate.to.as_str()), ("e1", "g1"));
        assert_eq!(rook_gate.rook.as_deref(), Some("h1"));
        assert_eq!(rook_gate.gate, Some(GateView { piece: 'H', square: "h1".into() }));
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let e = request(&["e2e4", "e2e4"]).game().unwrap_err();
        assert!(e.message.contains("move 2 (e2e4)"), "{}", e.message);
        let e = GameRequest { start: Some("not a fen".into()), ..GameRequest::default() }.game().unwrap_err();
        assert!(e.message.contains("bad FEN"), "{}", e.message);
        let e = GameRequest { variant: Some("crazyhouse".into()), ..GameRequest::default() }.game().unwrap_err();
        assert!(e.message.contains("unknown variant"), "{}", e.message);
    }

    #[test]
    fn a_finished_game_has_its_outcome_and_no_moves() {
        let game = request(&["f2f3", "e7e5", "g2g4", "d8h4"]).game().unwrap();
        let view = PositionView::new(&game);
        assert_eq!(view.outcome, Some(OutcomeView { result: "0-1".into(), reason: "checkmate".into() }));
        assert!(view.legal.is_empty() && view.check);
        assert_eq!(view.history.last().unwrap().san, "Qh4#");
        let e = request(&["f2f3", "e7e5", "g2g4", "d8h4", "a2a3"]).game().unwrap_err();
        assert!(e.message.contains("already over"), "{}", e.message);
    }
}
