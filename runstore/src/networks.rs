//! The networks of a run as a reader of its history sees them (strength ladders, the
//! gating study): generation 0, each promoted generation and the trainer's candidates,
//! each with its place on the run's clock ([`crate::clock`]).

use crate::clock::{read_starts, RunClock};
use crate::promotion::{LedgerError, Record};
use crate::Run;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One network of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunNetwork {
    /// `initial`, `gen N` or the candidate's file stem.
    pub label: String,
    pub path: PathBuf,
    /// Its generation, if it was (or is) the run's best network.
    pub generation: Option<u32>,
    /// Minutes of running (pauses between a kill and a resume left out) from the run's
    /// start to the file's creation.
    pub minutes: f64,
}

impl Run {
    /// Generation 0, the promoted networks and, with `candidates`, every other candidate
    /// (in step order; a promoted candidate is listed once, as its generation). A
    /// mirrored run's networks, claims and starts are brought into its directory first,
    /// with the store's times (the clock reads them).
    pub fn networks(&self, candidates: bool) -> Result<Vec<RunNetwork>, LedgerError> {
        let layout = self.layout();
        for dir in [layout.root().to_path_buf(), layout.candidates(), layout.promotions(), layout.sessions()] {
            self.pull(&dir)?;
        }
        let initial = layout.initial();
        if !initial.exists() {
            return Err(LedgerError::NotARun { run: self.address().to_string() });
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| LedgerError::Io { path, error }
        };
        let candidate_files = layout.list_candidates().map_err(io(&layout.candidates()))?;
        let mut file_times = vec![modified(&initial)?];
        for f in &candidate_files {
            file_times.push(modified(f)?);
        }
        let starts = read_starts(layout.root()).map_err(io(&layout.sessions()))?;
        let clock = RunClock::new(file_times[0], &starts, &file_times);
        let entry = |label: String, path: PathBuf, generation: Option<u32>| -> Result<RunNetwork, LedgerError> {
            let minutes = clock.minutes(modified(&path)?);
            Ok(RunNetwork { label, path, generation, minutes })
        };
        let mut out = vec![entry("initial".into(), initial, Some(0))?];
        let ledger = self.ledger();
        let promoted: Vec<Record> = ledger.promotions()?;
        let mut promoted_files = Vec::new();
        for (k, d) in promoted.iter().enumerate() {
            // A promoted candidate may have been cleaned up; the best network is its copy.
            let path = match ledger.network_file(d)? {
                Some(p) => p,
                None if k + 1 == promoted.len() => layout.best(),
                None => continue,
            };
            if path.exists() {
                promoted_files.push(path.clone());
                out.push(entry(format!("gen {}", k + 1), path, Some(k as u32 + 1))?);
            }
        }
        if candidates {
            for f in candidate_files.into_iter().filter(|f| !promoted_files.contains(f)) {
                let label = f.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
                out.push(entry(label, f, None)?);
            }
        }
        Ok(out)
    }
}

fn modified(path: &Path) -> Result<SystemTime, LedgerError> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|error| LedgerError::Io { path: path.to_path_buf(), error })
}
