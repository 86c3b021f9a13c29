//! A small PGN reader: tag pairs and the SAN moves of the main line.
//!
//! Enough for the files szero and Fairy-Stockfish based tools write (pyffish-style SAN such
//! as `Nc3/E` or `O-O/Hh1`, which [`crate::Position::parse_san`] reads): comments (`{}`
//! and `;`), variations (skipped, nested), NAGs, move numbers (`1.`, `1...`, `1.e4`),
//! `%` escape lines and the result token. Moves are checked later, against the position.

use crate::position::{Position, Variant};

/// One game: its tags, main-line SAN tokens, and the line where it starts (messages).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    /// The game termination marker of the movetext (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result_token: Option<String>,
    /// 1-based line of the game's first tag or move.
    pub line: usize,
}

impl PgnGame {
    /// The value of a tag (first occurrence, case-sensitive name as in the standard).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The result: the `Result` tag, else the movetext's marker.
    pub fn result(&self) -> Option<&str> {
        self.tag("Result").or(self.result_token.as_deref())
    }

    /// The rule set: the `Variant` tag; without one, S-Chess if the `FEN` tag has a hand
    /// (`[...]`), else orthodox chess (szero writes `Variant` only for S-Chess).
    pub fn variant(&self) -> Result<Variant, String> {
        match self.tag("Variant") {
            Some(v) => Variant::from_name(v.trim()).ok_or_else(|| format!("unsupported variant {v:?}")),
            None if self.tag("FEN").is_some_and(|f| f.contains('[')) => Ok(Variant::Seirawan),
            None => Ok(Variant::Chess),
        }
    }

    /// The start position: the `FEN` tag's, else the variant's own.
    pub fn start(&self) -> Result<Position, String> {
        let variant = self.variant()?;
        match self.tag("FEN") {
            Some(fen) => Position::from_fen_variant(fen, variant).map_err(|e| format!("FEN tag: {e}")),
            None => Ok(Position::new(variant)),
        }
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.result_token.is_none()
    }
}

/// The games of a PGN text, and problems found while reading it (`LINE: message`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub games: Vec<PgnGame>,
    pub warnings: Vec<String>,
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Reads every game of `text`. Never fails: malformed tags are warnings, unreadable move
/// tokens are kept for the replay to reject with the game's context.
pub fn parse(text: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut game = PgnGame::default();
    // Nesting of `(...)` variations, and whether a `{...}` comment is open: both may span
    // lines.
    let mut depth = 0usize;
    let mut in_comment = false;
    let mut in_movetext = false;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = raw.trim_end_matches('\r');
        if !in_comment && depth == 0 {
            let t = line.trim_start();
            if line.starts_with('%') {
                continue;
            }
            if t.starts_with('[') {
                if in_movetext || game.result_token.is_some() {
                    finish(&mut out, &mut game);
                    in_movetext = false;
                }
                if game.is_empty() {
                    game.line = lineno;
                }
                match parse_tag(t) {
                    Some(tag) => game.tags.push(tag),
                    None => out.warnings.push(format!("{lineno}: unreadable tag {t:?}")),
                }
                continue;
            }
        }
        let mut chars = line.chars();
        let mut token = String::new();
        let flush = |token: &mut String, game: &mut PgnGame, in_movetext: &mut bool| {
            if token.is_empty() {
                return;
            }
            let word = std::mem::take(token);
            // Move numbers: `12.`, `12...`, or glued to the move (`12.e4`).
            let stripped = word.trim_start_matches(|c: char| c.is_ascii_digit());
            let body = if stripped.len() < word.len() && stripped.starts_with('.') {
                stripped.trim_start_matches('.')
            } else {
                word.as_str()
            };
            if body.is_empty() {
                *in_movetext = true;
                return;
            }
            if RESULTS.contains(&body) {
                game.result_token = Some(body.to_string());
            } else if !body.starts_with('$') {
                game.moves.push(body.to_string());
            }
            *in_movetext = true;
        };
        for c in chars.by_ref() {
            if in_comment {
                if c == '}' {
                    in_comment = false;
                }
                continue;
            }
            match c {
                '{' => {
                    flush(&mut token, &mut game, &mut in_movetext);
                    in_comment = true;
                }
                ';' => {
                    flush(&mut token, &mut game, &mut in_movetext);
                    break;
                }
                '(' => {
                    flush(&mut token, &mut game, &mut in_movetext);
                    depth += 1;
                }
                ')' => {
                    flush(&mut token, &mut game, &mut in_movetext);
                    if depth == 0 {
                        out.warnings.push(format!("{lineno}: unbalanced ')'"));
                    }
                    depth = depth.saturating_sub(1);
                }
                c if c.is_whitespace() => flush(&mut token, &mut game, &mut in_movetext),
                // Inside a variation: skipped.
                _ if depth > 0 => {}
                c => {
                    if game.is_empty() && token.is_empty() {
                        game.line = lineno;
                    }
                    token.push(c)
                }
            }
        }
        if depth == 0 {
            flush(&mut token, &mut game, &mut in_movetext);
        } else {
            token.clear();
        }
    }
    if in_comment || depth > 0 {
        out.warnings.push("end of file inside a comment or variation".to_string());
    }
    finish(&mut out, &mut game);
    out
}

fn finish(out: &mut Parsed, game: &mut PgnGame) {
    let g = std::mem::take(game);
    if !g.is_empty() {
        out.games.push(g);
    }
}

/// `[Name "value"]` with `\"` and `\\` escapes.
fn parse_tag(t: &str) -> Option<(String, String)> {
    let inner = t.strip_prefix('[')?.trim_end().strip_suffix(']')?;
    let (name, rest) = inner.split_once(|c: char| c.is_whitespace())?;
    let rest = rest.trim();
    let quoted = rest.strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.extend(chars.next());
        } else {
            value.push(c);
        }
    }
    Some((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_moves_comments_and_variations() {
        let text = "% escape line\n[Event \"a \\\"b\\\"\"]\n[Result \"1-0\"]\n[Variant \"Seirawan\"]\n\n\
                    1. Nc3/E {a comment\nover lines} e5 (1... d5 2. d4 (2. e4)) 2.Nf3/H $1 Nc6 ; rest\n\
                    3. O-O/Hh1 1-0\n\n[Event \"second\"]\n\n1. e4 *\n";
        let p = parse(text);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.games.len(), 2);
        let g = &p.games[0];
        assert_eq!(g.tag("Event"), Some("a \"b\""));
        assert_eq!(g.line, 2);
        assert_eq!(g.moves, ["Nc3/E", "e5", "Nf3/H", "Nc6", "O-O/Hh1"]);
        assert_eq!(g.result(), Some("1-0"));
        assert_eq!(p.games[1].moves, ["e4"]);
        assert_eq!(p.games[1].result(), Some("*"));
        assert_eq!(p.games[1].line, 10);
    }

    #[test]
    fn bad_tags_are_warnings() {
        let p = parse("[Event unquoted]\n1. e4 e5 1/2-1/2\n");
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.games.len(), 1);
        assert_eq!(p.games[0].moves, ["e4", "e5"]);
    }
}
