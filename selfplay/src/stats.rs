//! Running statistics of self-play games (progress display and TensorBoard).

use crate::shard::GameRecord;
use schess::Termination;
use std::collections::BTreeMap;

/// Totals over finished games.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SelfplayStats {
    pub games: u64,
    pub plies: u64,
    pub samples: u64,
    pub white_wins: u64,
    pub black_wins: u64,
    pub draws: u64,
    pub resigned: u64,
    /// Games played out with resignation disabled in which a side would have resigned.
    pub resign_checks: u64,
    /// ... and that side did not lose (a resignation would have been wrong).
    pub false_resigns: u64,
    /// Gating moves played, by piece.
    pub elephant_gates: u64,
    pub hawk_gates: u64,
    /// Games by termination reason.
    pub terminations: BTreeMap<String, u64>,
}

impl SelfplayStats {
    pub fn add(&mut self, r: &GameRecord) {
        self.games += 1;
        self.plies += r.moves.len() as u64;
        self.samples += r.samples.len() as u64;
        match r.result {
            1 => self.white_wins += 1,
            -1 => self.black_wins += 1,
            _ => self.draws += 1,
        }
        if r.termination == Termination::Resignation {
            self.resigned += 1;
        }
        if let Some(side) = r.would_have_resigned {
            self.resign_checks += 1;
            let color = if side == 'w' { schess::Color::White } else { schess::Color::Black };
            if r.result_for(color) >= 0 {
                self.false_resigns += 1;
            }
        }
        // A five-letter UCI move from a back rank is a gate (promotions start on the 2nd
        // or 7th rank).
        for m in r.moves.iter().map(|m| m.as_bytes()).filter(|m| m.len() == 5 && matches!(m[1], b'1' | b'8')) {
            match m[4] {
                b'e' => self.elephant_gates += 1,
                b'h' => self.hawk_gates += 1,
                _ => {}
            }
        }
        *self.terminations.entry(r.termination.to_string()).or_default() += 1;
    }

    pub fn mean_length(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }

    pub fn resign_rate(&self) -> f64 {
        self.resigned as f64 / self.games.max(1) as f64
    }

    /// Share of resign-disabled games whose would-be resignation was wrong.
    pub fn false_resign_rate(&self) -> f64 {
        self.false_resigns as f64 / self.resign_checks.max(1) as f64
    }
}
