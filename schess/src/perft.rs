//! Perft test suites in the shared EPD format: `<FEN> ;D1 <n> ;D2 <n> ...`.

use crate::error::FenError;
use crate::position::Position;

/// One line of a perft suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerftCase {
    pub fen: String,
    /// `(depth, expected leaf count)`, in file order.
    pub expected: Vec<(u32, u64)>,
}

/// Why a perft suite line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpdError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for EpdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for EpdError {}

impl PerftCase {
    /// Parses one line; `line` is its 1-based number for messages.
    pub fn parse(text: &str, line: usize) -> Result<PerftCase, EpdError> {
        let err = |message: String| EpdError { line, message };
        let mut parts = text.split(';');
        let fen = parts.next().unwrap_or("").trim().to_string();
        Position::from_fen(&fen).map_err(|e: FenError| err(e.to_string()))?;
        let mut expected = Vec::new();
        for part in parts {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (tag, value) =
                part.split_once(char::is_whitespace).ok_or_else(|| err(format!("bad field {part:?}")))?;
            let depth = tag
                .strip_prefix('D')
                .and_then(|d| d.parse::<u32>().ok())
                .ok_or_else(|| err(format!("bad depth tag {tag:?}")))?;
            let nodes = value.trim().parse::<u64>().map_err(|_| err(format!("bad node count {value:?}")))?;
            expected.push((depth, nodes));
        }
        if expected.is_empty() {
            return Err(err("no ;Dn counts".to_string()));
        }
        Ok(PerftCase { fen, expected })
    }
}

/// Parses a whole suite, skipping blank lines and `#` comments.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, EpdError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| PerftCase::parse(l, i + 1))
        .collect()
}
