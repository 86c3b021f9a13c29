//! The promotion ledger: which candidate networks were tested against the run's best,
//! which of them became the best, and which network that is now. It is part of the run
//! store because every stage reads it (self-play plays the best network, the trainer's
//! candidates wait here for a decision, ladders list the generations) and because its
//! commit rules are the run's: a promotion is decided in the store, once.
//!
//! Files (names in [`RunLayout`]):
//! * `gate/promotions/gen-N.json`: the claim of generation N, created if absent in the
//!   run's store ([`Run::create_if_absent`]): of racing promotion stages, on any
//!   machines, exactly one wins a generation. The claim is the commit point.
//! * `gate/log.jsonl`: every decision, one JSON line each, appended with one write and
//!   synced, so the log stays line-complete across crashes ([`Ledger::repair`]).
//! * `gate/decisions/<unix time>-<candidate>.json`: in a run in an object store, each
//!   decision once more, written once: the log lives in the stage's mirror, and these
//!   records are how a stage on another machine (or a fresh mirror) knows every decision.
//! * `best.safetensors`: a copy of the last promoted network for users and for commands
//!   given a run, replaced atomically after the claim and the log line. The stages read
//!   the network the last claim names ([`Ledger::best`]), never catching the copy midway.
//!
//! A decision's test statistics are the promotion stage's business: the ledger carries
//! them as they are ([`Decision::test`], flattened into the same JSON object), and reads
//! what it needs of other stages' decisions as [`Record`]s.

use crate::atomic::commit_with;
use crate::{Run, RunLayout, StoreError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One decision on a candidate network (a line of `gate/log.jsonl`), with the statistics
/// of the test it rests on (`T`, whatever the promotion stage measured).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision<T> {
    /// When the decision was made (seconds since the Unix epoch).
    pub time_unix: u64,
    pub candidate: PathBuf,
    /// The candidate passed the test.
    pub passed: bool,
    /// The candidate was made the run's best network.
    pub promoted: bool,
    /// The test was stopped from outside before it finished (never promotes, never
    /// recorded: the candidate is tested again).
    pub aborted: bool,
    pub reason: String,
    /// The promoted network's name in the run (`candidates/step-N.safetensors`), so that
    /// processes with other directories (mirrors of an S3 run) find it; absent in
    /// decisions from before it existed and for networks from outside the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
    #[serde(flatten)]
    pub test: T,
}

/// A decision whose test statistics are kept as they were written (what the ledger
/// passes on between a claim, the log and the store's records).
pub type Record = Decision<serde_json::Map<String, serde_json::Value>>;

impl<T> Decision<T> {
    /// A decision not yet committed: [`Ledger::commit`] decides `promoted` and `network`.
    pub fn new(candidate: PathBuf, passed: bool, aborted: bool, reason: String, test: T) -> Decision<T> {
        Decision { time_unix: unix_now(), candidate, passed, promoted: false, aborted, reason, network: None, test }
    }

    /// Whether `self` and `other` are one decision: the same candidate (by file name,
    /// which is the same in every mirror of a run), time and outcome.
    fn same_as<U>(&self, other: &Decision<U>) -> bool {
        self.time_unix == other.time_unix
            && self.promoted == other.promoted
            && self.candidate.file_name() == other.candidate.file_name()
    }

    /// The candidate's file stem, as the stage's PGN and the decision records name it.
    pub fn candidate_stem(&self) -> String {
        candidate_stem(&self.candidate)
    }
}

impl<T: Serialize> Decision<T> {
    /// The decision as pretty-printed JSON (the log holds the compact form).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a decision serialises")
    }
}

/// A candidate's file stem, as the promotion stage's PGN and decision records name it.
pub fn candidate_stem(candidate: &Path) -> String {
    candidate.file_stem().map_or("candidate".into(), |s| s.to_string_lossy().into_owned())
}

/// Why the ledger could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{}:{line}: not a promotion decision ({reason}); the log is damaged: restore it or remove that line", path.display())]
    Log { path: PathBuf, line: usize, reason: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{run} has no initial.safetensors: not a run of `szero run`")]
    NotARun { run: String },
    #[error("{}: only the run's own networks can be promoted in a run that lives in an object store (a candidate under its candidates/)", path.display())]
    OutsideRun { path: PathBuf },
}

impl LedgerError {
    /// The run's store did not answer ([`StoreError::is_unreachable`]).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, LedgerError::Store(e) if e.is_unreachable())
    }
}

fn io_at(path: &Path) -> impl Fn(std::io::Error) -> LedgerError + '_ {
    move |error| LedgerError::Io { path: path.to_path_buf(), error }
}

/// The promotion ledger of one run ([`Run::ledger`]).
#[derive(Debug, Clone, Copy)]
pub struct Ledger<'a> {
    run: &'a Run,
}

impl Run {
    /// The run's promotion ledger.
    pub fn ledger(&self) -> Ledger<'_> {
        Ledger { run: self }
    }
}

impl<'a> Ledger<'a> {
    fn layout(&self) -> &'a RunLayout {
        self.run.layout()
    }

    /// Checks that `candidate` can be promoted in this run: in a run in an object store
    /// only its own networks can (the promotion names them in the store). Check before
    /// testing, so that no games are played for nothing.
    pub fn check_candidate(&self, candidate: &Path) -> Result<(), LedgerError> {
        if self.run.is_mirrored() && self.run.key_of(candidate).is_none() {
            return Err(LedgerError::OutsideRun { path: candidate.to_path_buf() });
        }
        Ok(())
    }

    /// Records `decision` in the run: the one commit of every promotion stage and command.
    ///
    /// A passed, finished test first claims the next generation by creating its claim if
    /// absent (holding the decision): of two stages racing for a generation exactly one
    /// wins, and the other's decision is logged as not promoted. The claim is the commit
    /// point; the log line and the copy to `best.safetensors` follow, and
    /// [`Ledger::complete`] redoes both after a crash in between, so the log and the
    /// generation count never miss a promotion. A test cut short (`aborted`) decides
    /// nothing: it is neither logged nor recorded.
    pub fn commit<T: Serialize + Clone>(&self, decision: &mut Decision<T>) -> Result<(), LedgerError> {
        let layout = self.layout();
        decision.promoted = false;
        decision.network = self.run.key_of(&decision.candidate);
        if decision.passed && !decision.aborted {
            if decision.network.is_none() && self.run.is_mirrored() {
                return Err(LedgerError::OutsideRun { path: decision.candidate.clone() });
            }
            // Other processes' claims first: the next generation is one past all of them.
            self.run.pull(&layout.promotions())?;
            let generation = self.next_generation()?;
            let claim = layout.promotion(generation);
            let json =
                serde_json::to_vec(&Decision { promoted: true, ..decision.clone() }).expect("a decision serialises");
            if self.run.create_if_absent(&claim, &json)? {
                decision.promoted = true;
            } else {
                decision.reason = format!(
                    "{}; not promoted: another promotion stage took generation {generation} first",
                    decision.reason
                );
            }
        }
        if decision.aborted {
            return Ok(());
        }
        std::fs::create_dir_all(layout.promotion_dir()).map_err(io_at(&layout.promotion_dir()))?;
        self.append(decision)?;
        if decision.promoted {
            self.copy_to_best(&decision.candidate)?;
        }
        if self.run.is_mirrored() {
            self.record(decision)?;
        }
        Ok(())
    }

    /// Finishes promotions that a crash interrupted after their claim: appends the log
    /// line a claim has not got yet, and makes the last promoted network
    /// `best.safetensors` again if it is not. Returns whether it had to do anything. (A
    /// candidate deleted since is left alone: `best.safetensors` is then the newest
    /// network there is.) In a mirrored run this also brings other processes' decisions
    /// into this directory's log, and records in the store the decisions it lacks.
    pub fn complete(&self) -> Result<bool, LedgerError> {
        let mut done = false;
        let mut log: Vec<Record> = self.log()?;
        for (_, claim) in self.claims::<serde_json::Map<_, _>>()? {
            if !log.iter().any(|d| d.same_as(&claim)) {
                self.append(&claim)?;
                log.push(claim);
                done = true;
            }
        }
        if self.run.is_mirrored() {
            self.sync_records(&mut log)?;
        }
        let Some(last) = log.iter().rev().find(|d| d.promoted) else { return Ok(done) };
        let Some(file) = self.network_file(last)? else { return Ok(done) };
        let read = |p: &Path| std::fs::read(p).ok();
        let Some(network) = read(&file) else { return Ok(done) };
        if read(&self.layout().best()).as_ref() == Some(&network) {
            return Ok(done);
        }
        self.copy_to_best(&file)?;
        Ok(true)
    }

    /// The trainer's newest candidate that no decision covers (brought in from the store
    /// first), or `None`. Decisions are matched by file name: those other stages recorded
    /// name the candidate in their own mirror.
    pub fn next_candidate(&self) -> Result<Option<PathBuf>, LedgerError> {
        let layout = self.layout();
        self.run.pull(&layout.candidates())?;
        let log: Vec<Record> = self.log()?;
        let decided = |c: &Path| log.iter().any(|d| !d.aborted && d.candidate.file_name() == c.file_name());
        let candidates = layout.list_candidates().map_err(io_at(&layout.candidates()))?;
        Ok(candidates.into_iter().next_back().filter(|c| !decided(c)))
    }

    /// Every promotion of the run, generation 1 first: the claims (brought up to date in a
    /// mirror), or for runs from before claims existed, the promotions in the log.
    pub fn promotions<T: DeserializeOwned>(&self) -> Result<Vec<Decision<T>>, LedgerError> {
        let claims = self.claims()?;
        let logged: Vec<Decision<T>> = self.log()?.into_iter().filter(|d: &Decision<T>| d.promoted).collect();
        let claimed = claims.last().map_or(0, |(g, _)| *g) as usize;
        Ok(if claimed >= logged.len() { claims.into_iter().map(|(_, d)| d).collect() } else { logged })
    }

    /// The current generation and its network file: the network of the last promotion
    /// (immutable, and complete before it was claimed), so that a reader never catches
    /// `best.safetensors` between the claim and the copy; `best.safetensors` when that
    /// network is gone or nothing was promoted yet.
    pub fn best(&self) -> Result<(u32, PathBuf), LedgerError> {
        let promoted: Vec<Record> = self.promotions()?;
        let file = match promoted.last() {
            Some(d) => self.network_file(d)?,
            None => None,
        };
        Ok((promoted.len() as u32, file.unwrap_or_else(|| self.layout().best())))
    }

    /// The network a candidate must beat: the last one promoted, else `best.safetensors`,
    /// else the run's generation-0 network (fetched into a mirror); `None` in a run that
    /// has none yet.
    pub fn to_beat(&self) -> Result<Option<PathBuf>, LedgerError> {
        let (_, file) = self.best()?;
        if file.exists() {
            return Ok(Some(file));
        }
        let initial = self.layout().initial();
        Ok(self.run.fetch(&initial)?.then_some(initial))
    }

    /// The file of a promoted network in this process's directory of the run: its name in
    /// the run (fetched into a mirror if missing), else the path the decision recorded.
    pub fn network_file<T>(&self, decision: &Decision<T>) -> Result<Option<PathBuf>, LedgerError> {
        if let Some(key) = &decision.network {
            let path = self.layout().root().join(key);
            if self.run.fetch(&path)? {
                return Ok(Some(path));
            }
        }
        Ok(decision.candidate.exists().then(|| decision.candidate.clone()))
    }

    /// Every decision of this directory's log. A torn last line (no final newline and not
    /// a whole decision: a write cut short) is skipped; any other line that is not a
    /// decision is an error naming it, since skipping it could lose a promotion.
    pub fn log<T: DeserializeOwned>(&self) -> Result<Vec<Decision<T>>, LedgerError> {
        let path = self.layout().promotion_log();
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(LedgerError::Io { path, error }),
        };
        let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut decisions = Vec::new();
        for (i, line) in text[..complete].split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let decision = serde_json::from_slice(line).map_err(|e| LedgerError::Log {
                path: path.clone(),
                line: i + 1,
                reason: e.to_string(),
            })?;
            decisions.push(decision);
        }
        if let Ok(d) = serde_json::from_slice(&text[complete..]) {
            decisions.push(d);
        }
        Ok(decisions)
    }

    /// Cuts a torn last line (a write that a crash interrupted: no final newline) off the
    /// log. Returns a warning describing what was removed, if anything was. A torn line
    /// was never committed: its decision is taken again.
    pub fn repair(&self) -> Result<Option<String>, LedgerError> {
        let path = self.layout().promotion_log();
        let io = io_at(&path);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        if bytes.is_empty() || bytes.ends_with(b"\n") {
            return Ok(None);
        }
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if serde_json::from_slice::<Record>(&bytes[keep..]).is_ok() {
            // A whole decision without its newline (a hand edit): keep it, end the line.
            let mut f = std::fs::OpenOptions::new().append(true).open(&path).map_err(&io)?;
            f.write_all(b"\n").and_then(|()| f.sync_data()).map_err(&io)?;
            return Ok(None);
        }
        let f = std::fs::OpenOptions::new().write(true).open(&path).map_err(&io)?;
        f.set_len(keep as u64).and_then(|()| f.sync_data()).map_err(&io)?;
        let torn = String::from_utf8_lossy(&bytes[keep..]);
        let shown: String = torn.chars().take(80).collect();
        Ok(Some(format!(
            "{}: removed a torn last line ({} bytes, a write cut short by a crash): {shown:?}",
            path.display(),
            bytes.len() - keep
        )))
    }

    /// Appends one decision to the log as a single write of a whole line, then syncs. A
    /// torn line left by a crash is cut off first (see [`Ledger::repair`]), so that the
    /// new line does not run on from it.
    pub fn append<T: Serialize>(&self, decision: &Decision<T>) -> Result<(), LedgerError> {
        self.repair()?;
        let path = self.layout().promotion_log();
        let io = io_at(&path);
        let mut line = serde_json::to_string(decision).map_err(|e| io(e.into()))?;
        line.push('\n');
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(&io)?;
        f.write_all(line.as_bytes()).and_then(|()| f.sync_data()).map_err(&io)
    }

    /// The generation a promotion now would make: one past both the claims and the log
    /// (runs from before claims existed have only the log).
    fn next_generation(&self) -> Result<u32, LedgerError> {
        let layout = self.layout();
        let claimed = layout.list_promotions().map_err(io_at(&layout.promotions()))?.last().map_or(0, |(g, _)| *g);
        let logged = self.log::<serde_json::Map<_, _>>()?.iter().filter(|d| d.promoted).count() as u32;
        Ok(claimed.max(logged) + 1)
    }

    /// The claims of the run (the mirror brought up to date first), in generation order.
    fn claims<T: DeserializeOwned>(&self) -> Result<Vec<(u32, Decision<T>)>, LedgerError> {
        let layout = self.layout();
        self.run.pull(&layout.promotions())?;
        let claims = layout.list_promotions().map_err(io_at(&layout.promotions()))?;
        claims.into_iter().map(|(generation, path)| Ok((generation, read_one(&path)?))).collect()
    }

    /// Writes the store's record of a decision (`gate/decisions/`, once).
    fn record<T: Serialize>(&self, decision: &Decision<T>) -> Result<(), LedgerError> {
        let json = serde_json::to_vec(decision).expect("a decision serialises");
        let path = self.layout().decision(decision.time_unix, &decision.candidate_stem());
        self.run.create_if_absent(&path, &json)?;
        Ok(())
    }

    /// Brings a mirrored run's log and the store's decision records together: the
    /// decisions other stages recorded are appended to this log, and this log's decisions
    /// the store lacks (a stage killed between its log line and its record) are recorded.
    fn sync_records(&self, log: &mut Vec<Record>) -> Result<(), LedgerError> {
        let layout = self.layout();
        self.run.pull(&layout.decisions())?;
        let paths = layout.list_decisions().map_err(io_at(&layout.decisions()))?;
        let recorded: Vec<Record> = paths.iter().map(|p| read_one(p)).collect::<Result<_, _>>()?;
        for d in &recorded {
            if !log.iter().any(|l| l.same_as(d)) {
                self.append(d)?;
                log.push(d.clone());
            }
        }
        for d in log.iter().filter(|d| !d.aborted) {
            if !recorded.iter().any(|r| r.same_as(d)) {
                self.record(d)?;
            }
        }
        Ok(())
    }

    /// Makes `network` the run's `best.safetensors` atomically (copy to a temporary file
    /// in the same directory, fsync, rename): a reader never sees a torn file and a crash
    /// leaves either the old or the new network. Only after the decision is logged.
    fn copy_to_best(&self, network: &Path) -> Result<(), LedgerError> {
        let target = self.layout().best();
        commit_with(&target, |tmp| {
            std::fs::copy(network, tmp)?;
            std::fs::File::open(tmp)?.sync_all()
        })
        .map_err(io_at(&target))
    }
}

/// One decision stored as a file of its own (a claim or a decision record).
fn read_one<T: DeserializeOwned>(path: &Path) -> Result<Decision<T>, LedgerError> {
    let text = std::fs::read(path).map_err(io_at(path))?;
    serde_json::from_slice(&text).map_err(|e| LedgerError::Log {
        path: path.to_path_buf(),
        line: 1,
        reason: e.to_string(),
    })
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a promotion stage might measure (the ledger carries it untouched).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Score {
        score: f64,
        best: Option<PathBuf>,
    }

    fn decision(candidate: &Path, passed: bool) -> Decision<Score> {
        Decision::new(candidate.to_path_buf(), passed, false, "test".into(), Score { score: 0.75, best: None })
    }

    /// A run directory with two "networks" (the ledger copies bytes; it never reads them).
    fn run_with_two() -> (tempfile::TempDir, Run, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let run = Run::local(dir.path());
        run.layout().create().unwrap();
        let (a, b) = (run.layout().candidate(10), run.layout().candidate(20));
        std::fs::write(&a, b"network a").unwrap();
        std::fs::write(&b, b"network b").unwrap();
        (dir, run, a, b)
    }

    #[test]
    fn decisions_are_logged_promotions_counted_and_the_best_copied() {
        let (_dir, run, a, b) = run_with_two();
        let ledger = run.ledger();
        assert_eq!(ledger.next_candidate().unwrap(), Some(b.clone()), "the newest candidate waits");
        assert_eq!(ledger.to_beat().unwrap(), None, "nothing to beat yet");
        let mut d = decision(&a, true);
        ledger.commit(&mut d).unwrap();
        assert!(d.promoted && d.network.as_deref() == Some("candidates/step-000000010.safetensors"), "{d:?}");
        assert_eq!(std::fs::read(run.layout().best()).unwrap(), b"network a");
        assert_eq!(ledger.best().unwrap(), (1, a.clone()));

        let mut failed = decision(&b, false);
        ledger.commit(&mut failed).unwrap();
        assert!(!failed.promoted);
        assert_eq!(ledger.next_candidate().unwrap(), None, "decided, it is not offered again");
        assert_eq!(ledger.best().unwrap(), (1, a.clone()));
        // A test stopped from outside decides nothing: not logged, tested again.
        let c = run.layout().candidate(30);
        std::fs::write(&c, b"network c").unwrap();
        let mut stopped = Decision::new(c.clone(), false, true, "stopped".into(), Score { score: 0.5, best: None });
        ledger.commit(&mut stopped).unwrap();
        assert_eq!(ledger.next_candidate().unwrap(), Some(c));

        let log: Vec<Decision<Score>> = ledger.log().unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].test, Score { score: 0.75, best: None }, "the test's statistics ride along");
        let promoted: Vec<Decision<Score>> = ledger.promotions().unwrap();
        assert_eq!(promoted.len(), 1);
        assert!(promoted[0].same_as(&log[0]));
    }

    /// A crash mid-append leaves a torn last line: it is skipped, cut off (with a
    /// warning) before the next append, and never merges with it; a damaged line in the
    /// middle is an error naming it, never a silently lost promotion.
    #[test]
    fn torn_and_damaged_log_lines() {
        let (_dir, run, a, _) = run_with_two();
        let ledger = run.ledger();
        let mut d = decision(&a, false);
        ledger.commit(&mut d).unwrap();
        let log = run.layout().promotion_log();
        let line = std::fs::read_to_string(&log).unwrap();
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let torn = &line[..line.len() / 2];

        std::fs::write(&log, format!("{line}{line}{torn}")).unwrap();
        assert_eq!(ledger.log::<Score>().unwrap().len(), 2, "the torn line is skipped");
        ledger.append(&d).unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), line.repeat(3), "cut off before the append");

        std::fs::write(&log, format!("{line}{torn}")).unwrap();
        let warning = ledger.repair().unwrap().expect("a warning");
        assert!(warning.contains("torn last line"), "{warning}");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), line);
        assert_eq!(ledger.repair().unwrap(), None);

        // A whole decision whose newline is missing (a hand edit) is a decision.
        std::fs::write(&log, format!("{line}{}", line.trim_end())).unwrap();
        assert_eq!(ledger.log::<Score>().unwrap().len(), 2);
        assert_eq!(ledger.repair().unwrap(), None);
        assert_eq!(std::fs::read_to_string(&log).unwrap(), line.repeat(2));

        std::fs::write(&log, format!("{line}{torn}\n{line}")).unwrap();
        let e = ledger.log::<Score>().unwrap_err().to_string();
        assert!(e.contains("log.jsonl:2:") && e.contains("damaged"), "{e}");
    }

    /// The claim commits a promotion; the log line and the copy follow. A copy that fails
    /// (a crash there) leaves the promotion logged, and the next start completes it; so
    /// does a crash between a claim and its log line.
    #[test]
    fn a_promotion_is_completed_after_a_crash() {
        let (_dir, run, a, b) = run_with_two();
        let ledger = run.ledger();
        // best.safetensors cannot be written while a directory stands in its place.
        std::fs::create_dir(run.layout().best()).unwrap();
        let mut d = decision(&a, true);
        assert!(ledger.commit(&mut d).is_err());
        let log: Vec<Record> = ledger.log().unwrap();
        assert!(log.len() == 1 && log[0].promoted && log[0].candidate == a);
        std::fs::remove_dir(run.layout().best()).unwrap();
        assert!(ledger.complete().unwrap());
        assert_eq!(std::fs::read(run.layout().best()).unwrap(), b"network a");
        assert!(!ledger.complete().unwrap(), "nothing left to complete");

        // A crash after the claim of generation 2, before its log line and copy.
        let claim = Decision { promoted: true, ..decision(&b, true) };
        let json = serde_json::to_vec(&claim).unwrap();
        assert!(crate::create_if_absent(&run.layout().promotion(2), &json).unwrap());
        assert!(ledger.complete().unwrap());
        assert_eq!(ledger.log::<Score>().unwrap().iter().filter(|d| d.promoted).count(), 2);
        assert_eq!(std::fs::read(run.layout().best()).unwrap(), b"network b");
        assert!(!ledger.complete().unwrap());
    }

    /// Stages that decide at once for one generation: exactly one promotes, the others'
    /// decisions are logged as not promoted, and every claim has its log line.
    #[test]
    fn of_stages_racing_for_a_generation_one_promotes() {
        let (_dir, run, a, b) = run_with_two();
        let mut da = decision(&a, true);
        run.ledger().commit(&mut da).unwrap();
        // A stage that computed generation 1 too, before a's claim landed, loses it.
        let json = serde_json::to_vec(&Decision { promoted: true, ..decision(&b, true) }).unwrap();
        assert!(!crate::create_if_absent(&run.layout().promotion(1), &json).unwrap());
        let won: usize = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        let mut d = decision(&b, true);
                        run.ledger().commit(&mut d).unwrap();
                        usize::from(d.promoted)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        let claims = run.layout().list_promotions().unwrap();
        assert_eq!(claims.len(), 1 + won);
        let log: Vec<Decision<Score>> = run.ledger().log().unwrap();
        assert_eq!(log.iter().filter(|d| d.promoted).count(), claims.len(), "one log line per claim");
        assert!(log.iter().filter(|d| !d.promoted).all(|d| d.reason.contains("took generation")), "{log:?}");
    }

    /// Logs written before the ledger moved here (by `eval::gate`, every field in one
    /// object) read as they are.
    #[test]
    fn a_log_line_of_an_earlier_version_reads() {
        let (_dir, run, _, _) = run_with_two();
        let line = r#"{"time_unix":1764800000,"candidate":"/r/candidates/step-000000040.safetensors","best":null,"candidate_step":40,"best_step":null,"mode":"sprt","passed":true,"promoted":true,"aborted":false,"reason":"no best network yet","wdl":{"wins":0,"draws":0,"losses":0},"pentanomial":[0,0,0,0,0],"score":0.5,"elo":null,"sprt":null,"pgn":null,"seconds":0.01}"#;
        std::fs::write(run.layout().promotion_log(), format!("{line}\n")).unwrap();
        let log: Vec<Record> = run.ledger().log().unwrap();
        assert_eq!(log.len(), 1);
        assert!(log[0].promoted && log[0].network.is_none());
        assert_eq!(log[0].test["candidate_step"], 40);
        let back = serde_json::to_value(&log[0]).unwrap();
        assert_eq!(back, serde_json::from_str::<serde_json::Value>(line).unwrap(), "written back unchanged");
    }
}
