//! Whole-file writes on a local disk: a reader sees the old file, the new one or none,
//! never a torn one, and a crash leaves no half-written file under the real name.
//!
//! Checkpoints are read by other processes (self-play workers pick up the newest network)
//! while the trainer writes them, so every file of a run is written to a temporary name
//! in the same directory ([`crate::temp`]) and renamed or hard-linked into place.

use crate::temp::temp_path;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

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

/// Creates `path` with `bytes` unless it exists, atomically: the file appears whole or not
/// at all, and of writers racing for one name exactly one succeeds (a complete temporary
/// file hard-linked to the name; the link fails if the name exists). Returns whether this
/// call created it.
pub fn create_if_absent(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
    }
    let tmp = temp_path(path);
    let written = File::create(&tmp).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()));
    let linked = written.and_then(|()| fs::hard_link(&tmp, path));
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(with_path(e, path)),
    }
}

/// `e` with the path it concerns in its message.
pub(crate) fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.bin");
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
