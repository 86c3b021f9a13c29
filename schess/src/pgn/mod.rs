//! PGN in the form chess-variant tools expect for S-Chess: `[Variant "Seirawan"]`,
//! `[SetUp]`/`[FEN]` for non-standard starts, and SAN as pyffish writes it (see
//! [`Position::san_pyffish`]); where pyffish's form would be ambiguous (two gating moves
//! sharing one string) the disambiguated SAN is written instead, so every game reads back.
//! The writer is here; the reader ([`parse`]) beside it, so the two are tested together.

mod reader;

pub use reader::{parse, Parsed, PgnGame};

use crate::game::Game;
use crate::position::{Position, Variant};
use crate::result::GameResult;
use std::fmt::Write as _;

/// SAN for a PGN: pyffish's form when it names exactly one legal move, else ours.
pub fn pgn_san(pos: &Position, m: crate::Move) -> String {
    let s = pos.san_pyffish(m);
    if m.gate().is_some() {
        let clashes =
            pos.legal_moves().iter().filter(|&&o| o != m && o.gate().is_some() && pos.san_pyffish(o) == s).count();
        if clashes > 0 {
            return pos.san(m);
        }
    }
    s
}

/// Writes one game. `headers` come after the seven-tag roster's Event..Black and before
/// the variant tags; `result` is `None` for an unfinished game (`*`). `comment`, if any,
/// is placed after the last move (e.g. why an engine forfeited).
pub fn write_game(game: &Game, tags: &[(&str, String)], result: Option<GameResult>, comment: Option<&str>) -> String {
    let result = result.map_or("*", GameResult::as_str);
    let mut s = String::new();
    let tag = |s: &mut String, k: &str, v: &str| {
        let v = v.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(s, "[{k} \"{v}\"]");
    };
    let has = |k: &str| tags.iter().any(|(t, _)| *t == k);
    for (k, default) in
        [("Event", "?"), ("Site", "?"), ("Date", "????.??.??"), ("Round", "-"), ("White", "?"), ("Black", "?")]
    {
        match tags.iter().find(|(t, _)| *t == k) {
            Some((_, v)) => tag(&mut s, k, v),
            None => tag(&mut s, k, default),
        }
    }
    tag(&mut s, "Result", result);
    for (k, v) in tags {
        if !matches!(*k, "Event" | "Site" | "Date" | "Round" | "White" | "Black" | "Result") {
            tag(&mut s, k, v);
        }
    }
    let start = game.start();
    if !has("Variant") && start.variant() != Variant::Chess {
        tag(&mut s, "Variant", start.variant().pgn_name());
    }
    let start_fen = start.fen();
    if start_fen != start.variant().start_fen() {
        tag(&mut s, "SetUp", "1");
        tag(&mut s, "FEN", &start_fen);
    }
    s.push('\n');
    let mut line = String::new();
    let flush = |s: &mut String, line: &mut String, word: &str| {
        if line.len() + word.len() + 1 > 79 {
            s.push_str(line.trim_end());
            s.push('\n');
            line.clear();
        }
        line.push_str(word);
        line.push(' ');
    };
    let positions = game.positions();
    for (i, &m) in game.moves().iter().enumerate() {
        let pos = &positions[i];
        let number = pos.fullmove_number();
        if pos.turn() == crate::Color::White {
            flush(&mut s, &mut line, &format!("{number}."));
        } else if i == 0 {
            flush(&mut s, &mut line, &format!("{number}..."));
        }
        flush(&mut s, &mut line, &pgn_san(pos, m));
    }
    if let Some(c) = comment {
        flush(&mut s, &mut line, &format!("{{{}}}", c.replace('}', ")")));
    }
    flush(&mut s, &mut line, result);
    s.push_str(line.trim_end());
    s.push_str("\n\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_variant_and_moves() {
        let mut g = Game::new(Position::startpos());
        for m in ["b1c3e", "e7e5", "g1f3h"] {
            g.play_uci(m).unwrap();
        }
        let pgn = write_game(&g, &[("White", "a".into())], None, None);
        assert!(pgn.contains("[Variant \"Seirawan\"]"));
        assert!(!pgn.contains("[FEN"));
        assert!(pgn.contains("1. Nc3/E e5 2. Nf3/H *"), "{pgn}");
        let mut g = Game::new(Position::from_fen("4k3/8/8/8/8/8/4K3/R6R[EHeh] b AH - 0 1").unwrap());
        g.play_uci("e8d8").unwrap();
        g.play_uci("a1d1e").unwrap();
        let pgn = write_game(&g, &[], None, Some("test"));
        assert!(pgn.contains("[SetUp \"1\"]") && pgn.contains("[FEN \"4k3/8/8/8/8/8/4K3/R6R[EHeh] b AH - 0 1\"]"));
        // pyffish would write the ambiguous `Rd1/E+`; the PGN disambiguates.
        assert!(pgn.contains("1... Kd8 2. Rad1/E+ {test} *"), "{pgn}");
    }
}
