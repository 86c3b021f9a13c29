//! Game records for the report tests.

use selfplay::GameRecord;

/// A record of `moves` (UCI) from `fen`, with no training samples.
pub fn record(variant: &str, fen: &str, moves: &[&str], result: i8, generation: u32) -> GameRecord {
    GameRecord {
        variant: variant.into(),
        start_fen: fen.into(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
        samples: vec![],
        result,
        termination: schess::Termination::MaxLength,
        generation,
        resign_disabled: false,
        would_have_resigned: None,
    }
}
