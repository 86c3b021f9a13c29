//! The run: the one channel between szero's stages. Self-play writes shards, the trainer
//! writes checkpoints and candidates, the promotion stage logs decisions and promotes,
//! self-play picks up the best network; each stage can be killed at any moment and
//! resumed, because each reads only what the others committed here. The promotion ledger
//! ([`promotion`]) and the run's clock ([`clock`]) are here too: every piece of the run's
//! state is read and written through [`Run`].
//!
//! This crate owns every name in a run, so that no stage, command or report spells a path
//! of its own:
//!
//! ```text
//! <run>/config.toml                          the config the run was started with
//! <run>/best.safetensors                     the best network (a copy, written after its promotion is logged)
//! <run>/initial.safetensors                  generation 0 (the first rung of strength ladders)
//! <run>/sessions/start-MS-WHO.json           when each start of a trainer began (running time)
//! <run>/shards/*.shard, *.pgn                self-play games (names unique per writer)
//! <run>/candidates/step-NNNNNNNNN.safetensors networks the trainer proposes, one per step
//! <run>/trainer/                             trainer checkpoints (their own layout: trainer::checkpoint)
//! <run>/trainer/committed/step-N             in a store: checkpoint step-N/ is uploaded whole
//! <run>/gate/log.jsonl                       every promotion decision (the ledger: promotion.rs)
//! <run>/gate/promotions/gen-N.json           the claim of generation N, created if absent
//! <run>/gate/*.pgn                           the promotion tests' games
//! <run>/tensorboard/<stage>/                 TensorBoard event files per stage
//! <run>/ladder/                              `szero ladder`'s tables and plot
//! ```
//!
//! Commit rules: files are written whole to a temporary name in the same directory and
//! renamed (a reader never sees half a file; [`RunLayout::clean_temporaries`] removes
//! what a killed writer left); networks are never rewritten under the same name; a
//! promotion is committed by creating its generation's claim if absent
//! ([`create_if_absent`]: one winner among racing stages), then logged, and
//! `best.safetensors` is a copy made afterwards (see [`promotion`]).

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

pub mod atomic;
pub mod clock;
mod networks;
pub mod promotion;
mod run;
mod store;
pub mod temp;

pub use atomic::create_if_absent;
use atomic::with_path;
pub use networks::RunNetwork;
pub use promotion::{Decision, Ledger, LedgerError};
pub use run::Run;
pub use store::{AddressError, ObjectInfo, RunAddress, Store, StoreError};

/// The names of one run directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLayout {
    root: PathBuf,
}

impl RunLayout {
    pub fn new(root: impl Into<PathBuf>) -> RunLayout {
        RunLayout { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates the directories the stages write into.
    pub fn create(&self) -> std::io::Result<()> {
        for d in [self.shards(), self.candidates(), self.trainer(), self.promotion_dir(), self.root.join(TENSORBOARD)] {
            std::fs::create_dir_all(&d).map_err(|e| with_path(e, &d))?;
        }
        Ok(())
    }

    /// The config the run was started with (a reference copy).
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// The best network: what self-play plays and candidates are tested against.
    pub fn best(&self) -> PathBuf {
        self.root.join(BEST_FILE)
    }

    /// The generation-0 network, kept for comparisons.
    pub fn initial(&self) -> PathBuf {
        self.root.join("initial.safetensors")
    }

    /// One record per start of a run's trainer ([`clock`]).
    pub fn sessions(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// The record of a start at `unix_ms` by the process `who`.
    pub fn session(&self, unix_ms: u64, who: &str) -> PathBuf {
        self.sessions().join(format!("start-{unix_ms:013}-{who}.json"))
    }

    /// The starts of runs from before [`RunLayout::sessions`], one JSON line each.
    pub fn legacy_sessions(&self) -> PathBuf {
        self.root.join("sessions.jsonl")
    }

    pub fn shards(&self) -> PathBuf {
        self.root.join("shards")
    }

    pub fn candidates(&self) -> PathBuf {
        self.root.join("candidates")
    }

    /// The candidate the trainer writes at `step`. Zero-padded, so that names sort by step.
    pub fn candidate(&self, step: u64) -> PathBuf {
        self.candidates().join(format!("step-{step:09}.safetensors"))
    }

    /// Candidate networks, in step order (temporary files left out). A missing directory
    /// is an empty list: a run whose trainer has not written yet.
    pub fn list_candidates(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut out: Vec<PathBuf> = names_in(&self.candidates())?
            .into_iter()
            .filter(|(name, _)| !name.starts_with('.') && name.ends_with(".safetensors"))
            .map(|(_, path)| path)
            .collect();
        out.sort();
        Ok(out)
    }

    /// Trainer checkpoints and state.
    pub fn trainer(&self) -> PathBuf {
        self.root.join("trainer")
    }

    /// The commit of the trainer checkpoint directory `name` in a store (`trainer/step-N/`
    /// is uploaded first, then this is created): a restored trainer takes the newest.
    pub fn checkpoint_commit(&self, name: &str) -> PathBuf {
        self.checkpoint_commits().join(name)
    }

    /// Where [`RunLayout::checkpoint_commit`]s are.
    pub fn checkpoint_commits(&self) -> PathBuf {
        self.trainer().join("committed")
    }

    /// The promotion ledger's directory. It keeps the name `gate/` it had before the
    /// promotion stage was renamed ("gating" is the S-Chess rule): runs in object stores
    /// cannot rename a prefix in one step, and runs of every release share this layout.
    pub fn promotion_dir(&self) -> PathBuf {
        self.root.join("gate")
    }

    /// Every promotion decision, one JSON line each.
    pub fn promotion_log(&self) -> PathBuf {
        self.promotion_dir().join("log.jsonl")
    }

    /// Promotion claims: one file per generation, created if absent (see
    /// [`create_if_absent`]), so that two stages can never both promote a generation.
    pub fn promotions(&self) -> PathBuf {
        self.promotion_dir().join("promotions")
    }

    /// The claim of `generation` (from 1).
    pub fn promotion(&self, generation: u32) -> PathBuf {
        self.promotions().join(format!("gen-{generation:06}.json"))
    }

    /// The generations claimed so far, in order, with their files.
    pub fn list_promotions(&self) -> std::io::Result<Vec<(u32, PathBuf)>> {
        let mut out: Vec<(u32, PathBuf)> = names_in(&self.promotions())?
            .into_iter()
            .filter_map(|(name, path)| {
                let generation = name.strip_prefix("gen-")?.strip_suffix(".json")?.parse().ok()?;
                Some((generation, path))
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// The decisions of a run in an object store, one object each, written once: the
    /// store's copy of the log (which lives in the promotion stage's mirror), so that a stage on
    /// another machine knows what was decided.
    pub fn decisions(&self) -> PathBuf {
        self.promotion_dir().join("decisions")
    }

    /// The record of the decision on `candidate_stem` taken at `time_unix`.
    pub fn decision(&self, time_unix: u64, candidate_stem: &str) -> PathBuf {
        self.decisions().join(format!("{time_unix:011}-{candidate_stem}.json"))
    }

    /// The decision records here, oldest first (temporary files left out).
    pub fn list_decisions(&self) -> std::io::Result<Vec<PathBuf>> {
        let mut out: Vec<PathBuf> = names_in(&self.decisions())?
            .into_iter()
            .filter(|(name, _)| !name.starts_with('.') && name.ends_with(".json"))
            .map(|(_, path)| path)
            .collect();
        out.sort();
        Ok(out)
    }

    /// The games of a promotion test named `stem`.
    pub fn promotion_pgn(&self, stem: &str) -> PathBuf {
        self.promotion_dir().join(format!("{stem}.pgn"))
    }

    /// TensorBoard event files of one stage (`selfplay`, `train`, `promotion`).
    pub fn tensorboard(&self, stage: &str) -> PathBuf {
        self.root.join(TENSORBOARD).join(stage)
    }

    /// Where `szero ladder` writes by default.
    pub fn ladder(&self) -> PathBuf {
        self.root.join("ladder")
    }

    /// Removes temporary files left by writers that were killed mid-write, and only
    /// theirs (see [`temp`]: other processes of the run may be writing now); returns
    /// how many.
    pub fn clean_temporaries(&self) -> usize {
        let host = temp::host_name();
        let mut removed = 0;
        for dir in [self.root.clone(), self.shards(), self.candidates(), self.trainer(), self.promotion_dir()] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if temp::is_abandoned(&name, temp::age(&e.path()), &host) && std::fs::remove_file(e.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }
}

const BEST_FILE: &str = "best.safetensors";
const TENSORBOARD: &str = "tensorboard";

/// The entries of `dir` as (file name, path); none when `dir` does not exist (a run whose
/// stage has not written there yet).
fn names_in(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(with_path(e, dir)),
    };
    entries
        .map(|e| e.map(|e| (e.file_name().to_string_lossy().into_owned(), e.path())).map_err(|e| with_path(e, dir)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_sort_by_step_and_temporaries_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunLayout::new(dir.path());
        assert!(run.list_candidates().unwrap().is_empty(), "no directory yet: no candidates");
        run.create().unwrap();
        for step in [1000, 20, 300] {
            std::fs::write(run.candidate(step), b"x").unwrap();
        }
        // A temporary file of a writer that is gone, and one of this (live) process.
        std::fs::write(run.candidates().join(".step-000000400.safetensors.tmp.4294967294.1"), b"x").unwrap();
        std::fs::write(temp::temp_path(&run.candidate(500)), b"x").unwrap();
        std::fs::write(run.candidates().join("notes.txt"), b"x").unwrap();
        let names: Vec<String> =
            run.list_candidates().unwrap().iter().map(|p| p.file_name().unwrap().to_string_lossy().into()).collect();
        assert_eq!(names, ["step-000000020.safetensors", "step-000000300.safetensors", "step-000001000.safetensors"]);
        assert_eq!(run.clean_temporaries(), 1);
        assert!(run.tensorboard("promotion").starts_with(dir.path().join("tensorboard")));
    }

    #[test]
    fn of_racing_creators_exactly_one_wins_and_the_file_is_whole() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunLayout::new(dir.path());
        let path = run.promotion(3);
        let winners: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let path = &path;
                    s.spawn(move || {
                        create_if_absent(path, format!("writer {i}").repeat(1000).as_bytes()).unwrap().then_some(i)
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(winners.len(), 1, "{winners:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("writer {}", winners[0]).repeat(1000));
        assert_eq!(run.list_promotions().unwrap(), vec![(3, path)]);
        let left: Vec<_> = std::fs::read_dir(run.promotions()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file stays");
    }

    #[test]
    fn an_unreadable_candidates_directory_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunLayout::new(dir.path());
        std::fs::write(run.candidates(), b"a file where the directory should be").unwrap();
        let e = run.list_candidates().unwrap_err().to_string();
        assert!(e.contains("candidates"), "{e}");
    }
}
