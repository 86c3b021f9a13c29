//! The `go` command of the UCI protocol: its parameters parsed (bad words reported, never
//! fatal) and turned into search limits, with the time management of a clock. Protocol
//! only: the engine that runs the search is [`super::UciEngine`].

use schess::Color;
use search::Limits;
use std::time::Duration;

/// Parameters of a `go` command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Go {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    pub movetime: Option<u64>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// `searchmoves`: the root moves the search may choose (UCI strings, unchecked).
    pub searchmoves: Vec<String>,
}

impl Go {
    /// Parses the words after `go`; bad words are reported in the error list and skipped.
    pub fn parse<'a>(words: impl Iterator<Item = &'a str>) -> (Go, Vec<String>) {
        let mut go = Go::default();
        let mut errors = Vec::new();
        let mut words = words.peekable();
        while let Some(w) = words.next() {
            let mut num = |name: &str| -> Option<u64> {
                match words.next() {
                    // Some GUIs send negative clocks when flagging: treat as zero.
                    Some(v) if v.starts_with('-') && v[1..].parse::<u64>().is_ok() => Some(0),
                    Some(v) => match v.parse::<u64>() {
                        Ok(n) => Some(n),
                        Err(_) => {
                            errors.push(format!("invalid value '{v}' for {name}"));
                            None
                        }
                    },
                    None => {
                        errors.push(format!("missing value for {name}"));
                        None
                    }
                }
            };
            match w {
                "wtime" => go.wtime = num(w),
                "btime" => go.btime = num(w),
                "winc" => go.winc = num(w),
                "binc" => go.binc = num(w),
                "movestogo" => go.movestogo = num(w),
                "movetime" => go.movetime = num(w),
                "nodes" => go.nodes = num(w),
                "depth" => go.depth = num(w).map(|d| d.min(u32::MAX as u64) as u32),
                "mate" => {
                    // Searched like `depth 2n-1`: MCTS has no mate search of its own.
                    go.depth = num(w).map(|m| (2 * m).saturating_sub(1).min(u32::MAX as u64) as u32);
                }
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                "searchmoves" => {
                    // Moves up to the next keyword: a move starts with a file and a rank.
                    while let Some(m) = words.next_if(|w| {
                        w.len() >= 4 && w.as_bytes()[0].is_ascii_lowercase() && w.as_bytes()[1].is_ascii_digit()
                    }) {
                        go.searchmoves.push(m.to_string());
                    }
                    if go.searchmoves.is_empty() {
                        errors.push("searchmoves without moves; searching all moves".into());
                    }
                }
                other => errors.push(format!("unknown go parameter '{other}'")),
            }
        }
        (go, errors)
    }

    /// Search limits for the side to move, with `overhead` kept in reserve.
    pub fn limits(&self, turn: Color, overhead: Duration) -> Limits {
        let mut limits = Limits { nodes: self.nodes, depth: self.depth, infinite: self.infinite, ..Limits::default() };
        let (time, inc) = match turn {
            Color::White => (self.wtime, self.winc),
            Color::Black => (self.btime, self.binc),
        };
        if let Some(mt) = self.movetime {
            limits.time = Some(Duration::from_millis(mt).saturating_sub(overhead).max(Duration::from_millis(1)));
        } else if let Some(t) = time {
            limits.time = Some(time_budget(
                Duration::from_millis(t),
                Duration::from_millis(inc.unwrap_or(0)),
                self.movestogo,
                overhead,
            ));
        }
        limits
    }
}

/// Thinking time for one move with `time` left on the clock, `inc` per move and
/// `movestogo` moves to the next time control (sudden death: assume 30 more moves).
///
/// Never more than 40% of what is left after the overhead (80% on the last move before a
/// time control), so a long search cannot flag even if the game runs longer than assumed;
/// the overhead covers the time between the limit check and `bestmove` reaching the GUI.
pub fn time_budget(time: Duration, inc: Duration, movestogo: Option<u64>, overhead: Duration) -> Duration {
    let left = time.saturating_sub(overhead);
    let mtg = movestogo.unwrap_or(30).clamp(1, 50) as u32;
    let target = left / mtg + inc * 3 / 4;
    let cap = if mtg == 1 { left * 4 / 5 } else { left * 2 / 5 };
    target.min(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_management_never_spends_what_is_not_there() {
        let ms = Duration::from_millis;
        assert_eq!(time_budget(ms(30_000), ms(0), None, ms(100)), ms(29_900) / 30);
        assert_eq!(time_budget(ms(50), ms(0), None, ms(100)), ms(0));
        assert_eq!(time_budget(ms(1000), ms(5000), None, ms(100)), ms(360));
        assert_eq!(time_budget(ms(10_000), ms(0), Some(1), ms(100)), ms(7920));
        let (go, errs) = Go::parse("wtime 1000 btime -5 movestogo 10".split_whitespace());
        assert!(errs.is_empty());
        assert_eq!(go.limits(Color::Black, ms(10)).time, Some(ms(0)));
        assert_eq!(go.limits(Color::White, ms(10)).time, Some(ms(99)));
        assert_eq!(Go::parse("movetime 5".split_whitespace()).0.limits(Color::White, ms(100)).time, Some(ms(1)));
    }
}
