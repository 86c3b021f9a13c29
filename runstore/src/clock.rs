//! A run's clock: minutes the run was running, not wall time, across kills and resumes.
//!
//! A learning curve is read against training time, but a run directory's file times
//! also count the hours it lay stopped between a kill and a resume. `szero run` records
//! the moment of each start in the run's `sessions/` (one object per start, written once,
//! so that it works on an S3 run; runs from before kept them as lines of
//! `sessions.jsonl`, still read); the time the run stood still before a
//! start is the gap between that start and the newest network file written before it.
//! Candidates come every few minutes, so a pause is known to within one candidate
//! interval, and runs from before this file existed still read right up to their first
//! resume.

use crate::{Run, RunLayout, StoreError};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Serialize, Deserialize)]
struct SessionStart {
    /// Milliseconds since the Unix epoch.
    started_unix_ms: u64,
}

/// Records `now` as a start of `run` (in its store: a mirrored run's starts are seen by
/// a ladder made anywhere).
pub fn record_start(run: &Run, now: SystemTime) -> Result<(), StoreError> {
    let ms = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis() as u64;
    let json = serde_json::to_vec(&SessionStart { started_unix_ms: ms }).expect("a start serialises");
    let path = run.layout().session(ms, &format!("{}-{}", crate::temp::host_name(), std::process::id()));
    run.create_if_absent(&path, &json)?;
    Ok(())
}

/// The recorded starts of the run in `run_dir`, oldest first (none for runs from before
/// the record; a record cut short is skipped).
pub fn read_starts(run_dir: &Path) -> std::io::Result<Vec<SystemTime>> {
    let layout = RunLayout::new(run_dir);
    let mut texts = Vec::new();
    match std::fs::read_to_string(layout.legacy_sessions()) {
        Ok(t) => texts.push(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    match std::fs::read_dir(layout.sessions()) {
        Ok(entries) => {
            for e in entries.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".json")) {
                texts.push(std::fs::read_to_string(e.path())?);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut starts: Vec<SystemTime> = texts
        .iter()
        .flat_map(|t| t.lines())
        .filter_map(|l| serde_json::from_str::<SessionStart>(l).ok())
        .map(|s| UNIX_EPOCH + Duration::from_millis(s.started_unix_ms))
        .collect();
    starts.sort();
    Ok(starts)
}

/// Maps file times of a run to minutes of running since its origin.
#[derive(Debug, Clone)]
pub struct RunClock {
    origin: SystemTime,
    /// Each pause: the start that ended it and how long the run stood still before it.
    pauses: Vec<(SystemTime, Duration)>,
}

impl RunClock {
    /// `origin`: the run's first file (its initial network); `starts`: the recorded
    /// starts; `file_times`: when the run's files were written (any order).
    pub fn new(origin: SystemTime, starts: &[SystemTime], file_times: &[SystemTime]) -> RunClock {
        let pauses = starts
            .iter()
            .filter(|&&s| s > origin)
            .filter_map(|&s| {
                let last_before = file_times.iter().copied().filter(|&t| t <= s).max()?;
                Some((s, s.duration_since(last_before).unwrap_or_default()))
            })
            .collect();
        RunClock { origin, pauses }
    }

    /// Minutes the run had been running when `t` came.
    pub fn minutes(&self, t: SystemTime) -> f64 {
        let wall = t.duration_since(self.origin).unwrap_or_default();
        let paused: Duration = self.pauses.iter().filter(|(s, _)| *s <= t).map(|(_, d)| *d).sum();
        wall.saturating_sub(paused).as_secs_f64() / 60.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minutes: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_000_000 + minutes * 60)
    }

    #[test]
    fn a_pause_between_kill_and_resume_is_not_training_time() {
        // Files every minute up to minute 3, killed, resumed at minute 100, files again.
        let files = [at(0), at(1), at(2), at(3), at(101), at(102)];
        let clock = RunClock::new(at(0), &[at(0), at(100)], &files);
        assert_eq!(clock.minutes(at(2)), 2.0);
        assert_eq!(clock.minutes(at(3)), 3.0);
        assert_eq!(clock.minutes(at(102)), 5.0);
    }

    #[test]
    fn without_records_the_clock_is_wall_time() {
        let clock = RunClock::new(at(0), &[], &[at(0), at(50)]);
        assert_eq!(clock.minutes(at(50)), 50.0);
        assert_eq!(clock.minutes(at(0)), 0.0);
    }

    #[test]
    fn starts_are_recorded_and_read_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let run = Run::local(dir.path());
        assert!(read_starts(dir.path()).unwrap().is_empty());
        record_start(&run, at(10)).unwrap();
        record_start(&run, at(5)).unwrap();
        // The lines of a run from before, one of them cut short by a kill.
        let legacy = format!("{{\"started_unix_ms\":{}}}\n{{\"started_unix", 1_000_000_000u64 + 2 * 60_000);
        std::fs::write(RunLayout::new(dir.path()).legacy_sessions(), legacy).unwrap();
        record_start(&run, at(20)).unwrap();
        assert_eq!(read_starts(dir.path()).unwrap(), vec![at(2), at(5), at(10), at(20)]);
    }
}
