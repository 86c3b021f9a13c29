//! Gating restrictions: a player barred from some ways of bringing its hand pieces in
//! (never; the other piece first; not with castling; only on some files; not before a
//! given move), so that what a gating choice is worth can be measured as the Elo a player
//! loses when it may not make it.
//!
//! A restriction only removes moves that bring a hand piece in; the same move without its
//! gate is always legal, so a restricted player always has a move. Spec keys (any player
//! kind): `nogate=true`, `gate_first=E|H`, `castle_gate=false`, `gate_files=abcd`,
//! `gate_from=N` (not before full move N).

use super::spec::SpecError;
use super::{Player, PlayerError};
use schess::{File, Game, HandPiece, Move, Position, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a player may not do with its hand pieces. The default restricts nothing. Its
/// serde form is its spec keys (`nogate=true,gate_first=H`), as in a player spec string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct GatingRule {
    /// Never bring a hand piece in.
    pub never: bool,
    /// This piece first: the other may not come in while this one is still in hand.
    pub first: Option<HandPiece>,
    /// No gate with castling (onto the king's or the rook's square).
    pub no_castle_gate: bool,
    /// Only onto these files (`None`: any).
    pub files: Option<Vec<File>>,
    /// Not before this full move number (0 or 1: from the start).
    pub from_move: u32,
}

/// The spec keys of a gating rule, for parsers that must tell them from a player's own.
pub const KEYS: [&str; 5] = ["nogate", "gate_first", "castle_gate", "gate_files", "gate_from"];

impl GatingRule {
    /// True when nothing is barred.
    pub fn is_empty(&self) -> bool {
        *self == GatingRule::default()
    }

    /// Whether the player may play `m` in `pos` (a legal move there).
    pub fn allows(&self, pos: &Position, m: Move) -> bool {
        let entry = match m {
            Move::Place { piece, on } => Some((piece, on)),
            _ => m.gate(),
        };
        let Some((piece, square)) = entry else { return true };
        if self.never || (self.no_castle_gate && m.is_castle()) || pos.fullmove_number() < self.from_move {
            return false;
        }
        if self.first.is_some_and(|f| f != piece && pos.hand(pos.turn()).contains(f)) {
            return false;
        }
        self.files.as_ref().is_none_or(|files| files.contains(&square.file()))
    }

    /// The legal moves of `pos` the player may play (never empty while `pos` has a legal
    /// move: a gate's move without it stays).
    pub fn allowed(&self, pos: &Position) -> Vec<Move> {
        self.filter(pos, &pos.legal_moves())
    }

    /// The moves of `moves` (legal in `pos`) the player may play.
    pub fn filter(&self, pos: &Position, moves: &[Move]) -> Vec<Move> {
        moves.iter().copied().filter(|&m| self.is_empty() || self.allows(pos, m)).collect()
    }

    /// Reads one spec key of a rule into `self`: `None` when `key` is not a rule key.
    pub fn set(&mut self, key: &str, value: &str) -> Option<Result<(), SpecError>> {
        if !KEYS.contains(&key) {
            return None;
        }
        let bad = |reason: &str| SpecError::BadValue { key: key.into(), value: value.into(), reason: reason.into() };
        let flag = || value.parse::<bool>().map_err(|_| bad("expected true or false"));
        Some((|| {
            match key {
                "nogate" => self.never = flag()?,
                "castle_gate" => self.no_castle_gate = !flag()?,
                "gate_first" => {
                    let mut chars = value.chars();
                    let piece = match (chars.next().map(|c| c.to_ascii_uppercase()), chars.next()) {
                        (Some(c), None) => HandPiece::from_char(c),
                        _ => None,
                    };
                    self.first = Some(piece.ok_or_else(|| bad("expected E or H"))?);
                }
                "gate_files" => {
                    let files: Option<Vec<File>> =
                        value.chars().map(|c| File::from_char(c.to_ascii_lowercase())).collect();
                    match files {
                        Some(f) if !f.is_empty() => self.files = Some(f),
                        _ => return Err(bad("expected files a-h, e.g. abcd")),
                    }
                }
                "gate_from" => self.from_move = value.parse().map_err(|_| bad("expected a move number"))?,
                _ => unreachable!("only rule keys are set"),
            }
            Ok(())
        })())
    }

    /// A short tag for player names (`nogate`, `first-H`, `files-abcd`, ...).
    pub fn tag(&self) -> String {
        let mut parts = Vec::new();
        if self.never {
            parts.push("nogate".to_string());
        }
        if let Some(p) = self.first {
            parts.push(format!("first-{}", p.role().upper_char()));
        }
        if self.no_castle_gate {
            parts.push("no-castle-gate".into());
        }
        if let Some(f) = &self.files {
            parts.push(format!("files-{}", files_text(f)));
        }
        if self.from_move > 1 {
            parts.push(format!("from-{}", self.from_move));
        }
        parts.join("-")
    }
}

impl From<GatingRule> for String {
    fn from(r: GatingRule) -> String {
        r.to_string().trim_start_matches(',').to_string()
    }
}

impl TryFrom<String> for GatingRule {
    type Error = SpecError;

    fn try_from(text: String) -> Result<GatingRule, SpecError> {
        let mut rule = GatingRule::default();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| SpecError::NotKeyValue(item.to_string()))?;
            rule.set(k.trim(), v.trim())
                .ok_or_else(|| SpecError::UnknownKey { kind: "gating rule".into(), key: k.into() })??;
        }
        Ok(rule)
    }
}

fn files_text(files: &[File]) -> String {
    files.iter().map(|f| f.char()).collect()
}

impl fmt::Display for GatingRule {
    /// The rule's spec keys, each after a comma (empty for no rule).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.never {
            f.write_str(",nogate=true")?;
        }
        if let Some(p) = self.first {
            write!(f, ",gate_first={}", p.role().upper_char())?;
        }
        if self.no_castle_gate {
            f.write_str(",castle_gate=false")?;
        }
        if let Some(files) = &self.files {
            write!(f, ",gate_files={}", files_text(files))?;
        }
        if self.from_move > 1 {
            write!(f, ",gate_from={}", self.from_move)?;
        }
        Ok(())
    }
}

/// A player that plays by a [`GatingRule`]: asked for a move, it hands its inner player
/// only the moves the rule allows (all of them, through the plain call, when the rule
/// removes none), and a move outside them is the inner player's fault.
pub struct RestrictedPlayer {
    inner: Box<dyn Player>,
    rule: GatingRule,
}

impl RestrictedPlayer {
    pub fn new(inner: Box<dyn Player>, rule: GatingRule) -> Self {
        RestrictedPlayer { inner, rule }
    }

    /// The inner player's choice among `allowed`; a move outside them is its fault.
    fn pick(&mut self, game: &Game, allowed: &[Move]) -> Result<Move, PlayerError> {
        let mv = self.inner.choose_among(game, allowed)?;
        if allowed.contains(&mv) {
            Ok(mv)
        } else {
            Err(PlayerError::IllegalMove {
                mv: mv.to_uci(),
                reason: format!("barred by its gating rule ({})", self.rule.tag()),
            })
        }
    }
}

impl Player for RestrictedPlayer {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn new_game(&mut self, variant: Variant) -> Result<(), PlayerError> {
        self.inner.new_game(variant)
    }

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        let legal = game.position().legal_moves();
        let allowed = self.rule.filter(game.position(), &legal);
        if allowed.len() == legal.len() {
            // Nothing barred: the plain call (no `searchmoves`, no root limit).
            return self.inner.choose(game);
        }
        self.pick(game, &allowed)
    }

    fn choose_among(&mut self, game: &Game, moves: &[Move]) -> Result<Move, PlayerError> {
        let allowed = self.rule.filter(game.position(), moves);
        // Never leave a player nothing: a bare move is always allowed, so this only
        // happens when `moves` held nothing but barred entries.
        self.pick(game, if allowed.is_empty() { moves } else { &allowed })
    }

    fn last_score(&self) -> Option<f32> {
        self.inner.last_score()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(keys: &[(&str, &str)]) -> GatingRule {
        let mut r = GatingRule::default();
        for (k, v) in keys {
            r.set(k, v).expect("a rule key").unwrap();
        }
        r
    }

    fn allowed(r: &GatingRule, fen: &str) -> Vec<String> {
        let pos: Position = fen.parse().unwrap();
        r.allowed(&pos).iter().map(|m| m.to_uci()).collect()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1";
    /// White may castle either way, with both pieces in hand.
    const CASTLE: &str = "r3k2r/pppqbppp/2npbn2/4p3/4P3/2NPBN2/PPPQBPPP/R3K2R[EHeh] w KQkq - 0 8";

    #[test]
    fn every_restriction_removes_only_entries_and_keeps_the_bare_move() {
        let all = allowed(&GatingRule::default(), START);
        let never = allowed(&rule(&[("nogate", "true")]), START);
        assert!(never.len() < all.len());
        assert!(never.iter().all(|m| m.len() == 4), "{never:?}");
        assert!(never.contains(&"g1f3".to_string()));
        let first_h = allowed(&rule(&[("gate_first", "H")]), START);
        assert!(first_h.contains(&"g1f3h".to_string()) && !first_h.contains(&"g1f3e".to_string()));
        let queenside = allowed(&rule(&[("gate_files", "abcd")]), START);
        assert!(queenside.contains(&"b1c3e".to_string()) && !queenside.contains(&"g1f3e".to_string()));
        assert!(queenside.contains(&"g1f3".to_string()));
        let late = allowed(&rule(&[("gate_from", "10")]), START);
        assert_eq!(late, never);
        let every = allowed(&GatingRule::default(), CASTLE);
        let moves = allowed(&rule(&[("castle_gate", "false")]), CASTLE);
        for castle_gate in ["e1g1e", "h1e1h"] {
            assert!(every.contains(&castle_gate.to_string()) && !moves.contains(&castle_gate.to_string()), "{every:?}");
        }
        assert!(moves.contains(&"e1g1".to_string()) && moves.contains(&"e1c1".to_string()));
        // A king's move that is not castling still gates.
        assert!(moves.contains(&"e1f1e".to_string()), "{moves:?}");
    }

    #[test]
    fn the_first_piece_rule_lifts_once_that_piece_is_in() {
        let r = rule(&[("gate_first", "E")]);
        // The Elephant is already in: the Hawk may come.
        let moves = allowed(&r, "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBER[Heh] w KQBCDFkqbcdfg - 2 2");
        assert!(moves.contains(&"b1c3h".to_string()), "{moves:?}");
    }

    #[test]
    fn keys_parse_print_and_reject() {
        let r = rule(&[
            ("nogate", "true"),
            ("gate_first", "h"),
            ("castle_gate", "false"),
            ("gate_files", "ABcd"),
            ("gate_from", "12"),
        ]);
        assert_eq!(r.to_string(), ",nogate=true,gate_first=H,castle_gate=false,gate_files=abcd,gate_from=12");
        assert_eq!(r.tag(), "nogate-first-H-no-castle-gate-files-abcd-from-12");
        let mut x = GatingRule::default();
        assert!(x.set("nodes", "5").is_none());
        assert!(x.set("gate_first", "Q").unwrap().is_err());
        assert!(x.set("gate_files", "xyz").unwrap().is_err());
        assert!(x.set("nogate", "maybe").unwrap().is_err());
        assert!(x.is_empty());
        // The serde form is the spec keys.
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, "\"nogate=true,gate_first=H,castle_gate=false,gate_files=abcd,gate_from=12\"");
        assert_eq!(serde_json::from_str::<GatingRule>(&json).unwrap(), r);
        assert!(serde_json::from_str::<GatingRule>("\"nodes=3\"").is_err());
    }
}
