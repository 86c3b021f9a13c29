//! Atomic file writes.
//!
//! Checkpoints are read by other processes (self-play workers pick up the newest
//! network) while the trainer writes them. Writing to a temporary file in the same
//! directory and renaming it over the target means a reader sees either the old or
//! the new complete file, never a torn one, and a crash leaves no half-written file
//! under the real name.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

pub use runstore::temp::temp_path;

/// Writes `bytes` to `path` atomically (temp file, fsync, rename, fsync of the dir).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    commit_with(path, |tmp| {
        let mut f = File::create(tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })
}

/// Lets `write` produce a file at a temporary path, then renames it to `path`.
/// The temporary file is removed if anything fails.
pub fn commit_with(path: &Path, write: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
    let tmp = temp_path(path);
    let result = write(&tmp).and_then(|()| fs::rename(&tmp, path));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
        return result;
    }
    // Make the rename itself durable; best effort (not all filesystems allow it).
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    #[test]
    fn atomic_write_replaces_and_cleans_up() {
        let dir = TempDir::new("io");
        let p = dir.join("f.bin");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let err = commit_with(&p, |tmp| {
            fs::write(tmp, b"partial")?;
            Err(io::Error::other("boom"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "temp file left behind");
    }
}
