//! TensorBoard scalars: the only module that touches `tensorboard-rs`.
//!
//! That crate (unmaintained since 2022) panics on any I/O error, including inside `Drop`,
//! and names its event file by second and process id, so a second writer opened in the
//! same second in the same directory truncates the first's file. This wrapper:
//! - creates the directory itself and reports failures as errors;
//! - runs every call under `catch_unwind` and turns a panic into an error, after which
//!   the writer is disabled (logging is never worth stopping training for);
//! - never lets the inner writer's `Drop` panic (it is leaked when it already failed or
//!   while unwinding);
//! - waits for the next second before opening a second writer for the same directory in
//!   this process.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tensorboard_rs::summary_writer::SummaryWriter;

/// Why TensorBoard logging failed.
#[derive(Debug, thiserror::Error)]
pub enum TbError {
    #[error("tensorboard: cannot create {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("tensorboard: writing to {} failed ({what}); logging disabled", path.display())]
    Failed { path: PathBuf, what: String },
}

/// A scalar event writer for one directory.
pub struct TbWriter {
    dir: PathBuf,
    /// `None` once a call failed.
    inner: Option<SummaryWriter>,
}

fn unix_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Seconds in which this process opened a writer, per directory.
static OPENED: Mutex<Option<HashMap<PathBuf, u64>>> = Mutex::new(None);

/// Sleeps until a writer for `dir` gets an event file name of its own.
fn claim_file_name(dir: &Path) {
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut opened = OPENED.lock().unwrap_or_else(|p| p.into_inner());
    let map = opened.get_or_insert_with(HashMap::new);
    while map.get(&key) == Some(&unix_seconds()) {
        std::thread::sleep(Duration::from_millis(50));
    }
    map.insert(key, unix_seconds());
}

impl TbWriter {
    /// Opens a new event file in `dir` (created if needed).
    pub fn open(dir: impl Into<PathBuf>) -> Result<TbWriter, TbError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|source| TbError::Io { path: dir.clone(), source })?;
        claim_file_name(&dir);
        let inner = catch_unwind(|| SummaryWriter::new(&dir))
            .map_err(|p| TbError::Failed { path: dir.clone(), what: models::panic_message(&*p).to_string() })?;
        Ok(TbWriter { dir, inner: Some(inner) })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the writer still works.
    pub fn is_ok(&self) -> bool {
        self.inner.is_some()
    }

    fn run(&mut self, f: impl FnOnce(&mut SummaryWriter)) -> Result<(), TbError> {
        let Some(w) = self.inner.as_mut() else {
            return Ok(());
        };
        match catch_unwind(AssertUnwindSafe(|| f(w))) {
            Ok(()) => Ok(()),
            Err(p) => {
                // Its background thread is gone: dropping it would panic again.
                std::mem::forget(self.inner.take());
                Err(TbError::Failed { path: self.dir.clone(), what: models::panic_message(&*p).to_string() })
            }
        }
    }

    /// Logs `value` under `tag` at `step`. Non-finite values are logged as they are
    /// (TensorBoard shows them), so a diverging run is visible.
    pub fn scalar(&mut self, tag: &str, value: f64, step: u64) -> Result<(), TbError> {
        self.run(|w| w.add_scalar(tag, value as f32, step as usize))
    }

    /// Asks the writer thread to flush to disk.
    pub fn flush(&mut self) -> Result<(), TbError> {
        self.run(SummaryWriter::flush)
    }
}

impl Drop for TbWriter {
    fn drop(&mut self) {
        let Some(w) = self.inner.take() else { return };
        if std::thread::panicking() {
            // A second panic in the inner Drop would abort the process.
            std::mem::forget(w);
            return;
        }
        let _ = catch_unwind(AssertUnwindSafe(move || drop(w)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event_files(dir: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("events.out.tfevents."))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn two_writers_in_one_directory_get_two_files() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("tb");
        for step in 0..2 {
            let mut w = TbWriter::open(&sub).unwrap();
            w.scalar("loss", 1.0 / (step + 1) as f64, step).unwrap();
            w.flush().unwrap();
        }
        let files = event_files(&sub);
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files.iter().all(|f| std::fs::metadata(f).unwrap().len() > 40));
    }

    #[test]
    fn unusable_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(matches!(TbWriter::open(file.join("tb")), Err(TbError::Io { .. })));
    }
}
