//! The local backend: a key is the file of that relative path under the run directory,
//! so a local run stays a plain directory a user can browse.

use super::{io_error, ObjectInfo, StoreError};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub(super) struct Local {
    root: PathBuf,
}

impl Local {
    pub(super) fn new(root: PathBuf) -> Local {
        Local { root }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    fn parent_dir(&self, path: &Path) -> Result<(), StoreError> {
        match path.parent() {
            Some(dir) => std::fs::create_dir_all(dir).map_err(|source| io_error(dir, source)),
            None => Ok(()),
        }
    }

    pub(super) fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key);
        self.parent_dir(&path)?;
        crate::atomic::write_atomic(&path, bytes).map_err(|source| io_error(&path, source))
    }

    pub(super) fn create(&self, key: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        let path = self.path(key);
        crate::atomic::create_if_absent(&path, bytes).map_err(|source| io_error(&path, source))
    }

    pub(super) fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(key);
        match std::fs::read(&path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(io_error(&path, source)),
        }
    }

    pub(super) fn list(&self, dir: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        let path = if dir.is_empty() { self.root.clone() } else { self.path(dir) };
        let entries = match std::fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(io_error(&path, source)),
        };
        let mut out = Vec::new();
        for e in entries {
            let e = e.map_err(|source| io_error(&path, source))?;
            let meta = e.metadata().map_err(|source| io_error(&e.path(), source))?;
            if meta.is_file() {
                let name = e.file_name().to_string_lossy().into_owned();
                let key = if dir.is_empty() { name } else { format!("{dir}/{name}") };
                let modified = meta.modified().map_err(|source| io_error(&e.path(), source))?;
                out.push(ObjectInfo { key, size: meta.len(), modified });
            }
        }
        Ok(out)
    }

    pub(super) fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(io_error(&path, source)),
        }
    }
}
