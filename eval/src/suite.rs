//! Test suites of positions with one right move (EPD), and how many of them a player
//! solves, overall and by the kind of move (`capture`, `quiet`, `gate`, `mate`,
//! `promotion`).
//!
//! A suite line is a FEN (its move counters optional) followed by EPD operations:
//! `bm` with the best move in SAN, `id`, and comments of the form `c0 "uci e2e4"` (the
//! answer as a UCI string, which is what is compared) and `c1 "kind quiet"`. The suite in
//! `data/tactics/` was made by Fairy-Stockfish at high depth from real games
//! (`scripts/tactics-suite`); any player a match can play can be scored on it, so
//! szero's play modes, Fairy-Stockfish at fixed depth and the baselines are measured
//! on the same positions.

use crate::players::{Player, PlayerError};
use schess::{Game, Move, Position, Variant};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// One position of a suite.
#[derive(Debug, Clone, PartialEq)]
pub struct SuitePosition {
    pub id: String,
    pub position: Position,
    /// The one right move.
    pub best: Move,
    /// What kind of move it is (`unknown` when the line does not say).
    pub kind: String,
}

/// Why a suite file was rejected.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {reason}")]
pub struct SuiteError {
    pub file: String,
    pub line: usize,
    pub reason: String,
}

/// Reads a suite (`file` names it in errors). Empty lines and lines starting with `#`
/// are skipped; every other line must be a position with a legal `c0 "uci MOVE"` answer
/// (or a `bm` in SAN when it has no `c0`).
pub fn parse_suite(text: &str, file: &str, variant: Variant) -> Result<Vec<SuitePosition>, SuiteError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |reason: String| SuiteError { file: file.to_string(), line: n + 1, reason };
        out.push(parse_line(line, out.len(), variant).map_err(err)?);
    }
    if out.is_empty() {
        return Err(SuiteError { file: file.to_string(), line: 0, reason: "no positions".into() });
    }
    Ok(out)
}

fn parse_line(line: &str, index: usize, variant: Variant) -> Result<SuitePosition, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 5 {
        return Err("expected a FEN followed by operations".into());
    }
    // Four FEN fields, then the move counters if they are there.
    let counters = words.len() >= 6 && words[4].parse::<u32>().is_ok() && words[5].parse::<u32>().is_ok();
    let fen_len = if counters { 6 } else { 4 };
    let mut fen = words[..fen_len].join(" ");
    if !counters {
        fen.push_str(" 0 1");
    }
    let position = Position::from_fen_variant(&fen, variant).map_err(|e| format!("bad FEN: {e}"))?;
    let ops_text = words[fen_len..].join(" ");
    let mut ops = BTreeMap::new();
    for op in ops_text.split(';').map(str::trim).filter(|o| !o.is_empty()) {
        let (code, operand) = op.split_once(' ').unwrap_or((op, ""));
        ops.insert(code.to_string(), operand.trim().trim_matches('"').to_string());
    }
    let best = match (ops.get("c0").and_then(|c| c.strip_prefix("uci ")), ops.get("bm")) {
        (Some(uci), _) => position.parse_uci(uci.trim()).map_err(|e| format!("answer {uci}: {e}"))?,
        (None, Some(san)) => position.parse_san(san).map_err(|e| format!("answer {san}: {e}"))?,
        (None, None) => return Err("no answer (bm or c0 \"uci MOVE\")".into()),
    };
    let kind = ops.get("c1").and_then(|c| c.strip_prefix("kind ")).unwrap_or("unknown").trim().to_string();
    let id = ops.get("id").cloned().unwrap_or_else(|| format!("#{}", index + 1));
    Ok(SuitePosition { id, position, best, kind })
}

/// Solved and tried positions of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub solved: usize,
    pub total: usize,
}

impl Tally {
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.solved as f64 / self.total as f64
        }
    }
}

/// A player's result on a suite.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    pub player: String,
    pub all: Tally,
    pub by_kind: BTreeMap<String, Tally>,
    /// Ids of the positions solved.
    pub solved: Vec<String>,
    /// Mean thinking time per position.
    pub mean_ms: f64,
}

impl SuiteReport {
    /// One line: the player, the overall rate and each kind's.
    pub fn summary(&self) -> String {
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(k, t)| format!("{k} {}/{} ({:.0}%)", t.solved, t.total, 100.0 * t.rate()))
            .collect();
        format!(
            "{}: {}/{} ({:.1}%) solved, {:.0} ms/position; {}",
            self.player,
            self.all.solved,
            self.all.total,
            100.0 * self.all.rate(),
            self.mean_ms,
            kinds.join(", ")
        )
    }
}

/// Asks `player` for its move in each position (a new game each time, so nothing is
/// carried from one position to the next) and counts the right answers.
pub fn run_suite(
    player: &mut dyn Player,
    suite: &[SuitePosition],
    mut on_position: impl FnMut(usize, bool),
) -> Result<SuiteReport, PlayerError> {
    let mut report = SuiteReport {
        player: player.name().to_string(),
        all: Tally::default(),
        by_kind: BTreeMap::new(),
        solved: Vec::new(),
        mean_ms: 0.0,
    };
    let mut thinking = Duration::ZERO;
    for (i, p) in suite.iter().enumerate() {
        player.new_game(p.position.variant())?;
        let game = Game::new(p.position.clone());
        let t = Instant::now();
        let answer = player.choose(&game)?;
        thinking += t.elapsed();
        let ok = answer == p.best;
        let tally = report.by_kind.entry(p.kind.clone()).or_default();
        tally.total += 1;
        report.all.total += 1;
        if ok {
            tally.solved += 1;
            report.all.solved += 1;
            report.solved.push(p.id.clone());
        }
        on_position(i, ok);
    }
    report.mean_ms = thinking.as_secs_f64() * 1000.0 / suite.len().max(1) as f64;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::baseline::GreedyPlayer;

    const SUITE: &str = "\
# two positions
4k3/8/8/3r4/8/8/8/3RK3[] w - - bm Rxd5; id \"t1\"; c0 \"uci d1d5\"; c1 \"kind capture\";
6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1 bm Ra8#; id \"t2\"; c1 \"kind mate\";
";

    #[test]
    fn parses_and_scores_a_suite() {
        let suite = parse_suite(SUITE, "s.epd", Variant::Seirawan).unwrap();
        assert_eq!(suite.len(), 2);
        assert_eq!(
            (suite[0].id.as_str(), suite[0].best.to_uci(), suite[0].kind.as_str()),
            ("t1", "d1d5".into(), "capture")
        );
        assert_eq!((suite[1].best.to_uci(), suite[1].kind.as_str()), ("a1a8".into(), "mate"));
        let mut greedy = GreedyPlayer::new("greedy", 1);
        let r = run_suite(&mut greedy, &suite, |_, _| {}).unwrap();
        assert_eq!(r.all, Tally { solved: 2, total: 2 });
        assert_eq!(r.by_kind["mate"], Tally { solved: 1, total: 1 });
        assert!(r.summary().starts_with("greedy: 2/2 (100.0%) solved"), "{}", r.summary());
    }

    #[test]
    fn bad_suites_name_the_line() {
        for (text, want) in [
            ("", "s.epd:0: no positions"),
            ("4k3/8/8/3r4/8/8/8/3RK3[] w - - bm Rxe4;", "s.epd:1: answer Rxe4"),
            ("4k3/8/8/3r4/8/8/8/3RK3[] w - - id \"x\";", "s.epd:1: no answer"),
            ("\n4k3/8/8/3r4/8/8/8/3RK3[] x - - bm Rxd5;", "s.epd:2: bad FEN"),
            ("e2e4", "s.epd:1: expected a FEN"),
            ("4k3/8/8/3r4/8/8/8/3RK3[] w - - c0 \"uci e1e3\";", "s.epd:1: answer e1e3"),
        ] {
            let e = parse_suite(text, "s.epd", Variant::Seirawan).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
