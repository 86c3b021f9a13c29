//! The objects of a run, on a local disk or in an S3-compatible object store, behind one
//! API whose operations mean the same on both: objects are written whole (never appended
//! or changed in place), read whole, listed by directory, and created if absent
//! atomically, the one conditional write every store of the S3 kind supports (AWS S3,
//! Ceph radosgw, MinIO, R2; `../shared/notes/S3.md`). No operation needs update-if-match
//! or copy-if-not-exists, which radosgw and others lack.
//!
//! Names (keys) are relative to the run: `shards/w1-000001.shard`, `gate/promotions/...`.

mod address;
mod local;
mod s3;

pub use address::{AddressError, RunAddress};

use std::path::Path;

/// One object of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    /// The key relative to the run (`shards/a.shard`).
    pub key: String,
    pub size: u64,
    /// When it was written (the file's modification time; the object's last-modified).
    pub modified: std::time::SystemTime,
}

impl ObjectInfo {
    /// The last segment of the key.
    pub fn name(&self) -> &str {
        self.key.rsplit('/').next().unwrap_or(&self.key)
    }
}

/// Why a store operation failed. Each names the run and, where it helps, what to check.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Address(#[from] AddressError),
    /// The request got no answer, or none but a transport error, through all its retries
    /// (`detail` is `object_store`'s account: how many retries over how long).
    #[error(
        "{address}: the object store cannot be reached ({detail}); check AWS_ENDPOINT_URL and that the server runs"
    )]
    Unreachable { address: String, detail: String },
    #[error("{address}: the object store refused the credentials ({detail}); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")]
    Credentials { address: String, detail: String },
    #[error("{address}: bucket {bucket:?} does not exist (create it first)")]
    NoBucket { address: String, bucket: String },
    #[error("{address}: cannot configure the object store: {detail}")]
    Config { address: String, detail: String },
    #[error("{key:?} is not a key of a run (relative, '/'-separated, no empty, '.' or '..' segments)")]
    BadKey { key: String },
    #[error("{location}: {source}")]
    Io { location: String, source: std::io::Error },
    #[error("{location}: {detail}")]
    Other { location: String, detail: String },
}

impl StoreError {
    /// The server did not answer: a condition that may pass (a restart, a lost
    /// connection), unlike refused credentials or a missing bucket.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, StoreError::Unreachable { .. })
    }
}

/// A run's objects. Cheap to share between threads (`&Store` is `Sync`).
#[derive(Debug)]
pub struct Store {
    address: RunAddress,
    backend: Backend,
}

#[derive(Debug)]
enum Backend {
    Local(local::Local),
    S3(s3::S3),
}

impl Store {
    /// Opens the store of `address`. For S3 the endpoint, region and credentials come
    /// from the standard AWS variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ALLOW_HTTP=true` for plain http); nothing
    /// is contacted yet (see [`Store::check`]).
    pub fn open(address: &RunAddress) -> Result<Store, StoreError> {
        Store::open_with(address, &[])
    }

    /// [`Store::open`] with settings that take precedence over the environment, named as
    /// `object_store` names them (`aws_endpoint`, `aws_access_key_id`, `aws_region`, ...);
    /// a local run has none.
    pub fn open_with(address: &RunAddress, settings: &[(&str, &str)]) -> Result<Store, StoreError> {
        let backend = match address {
            RunAddress::Local(root) => Backend::Local(local::Local::new(root.clone())),
            RunAddress::S3 { bucket, prefix } => Backend::S3(s3::S3::open(address, bucket, prefix, settings)?),
        };
        Ok(Store { address: address.clone(), backend })
    }

    /// [`Store::open`] of an address given as text.
    pub fn open_str(address: &str) -> Result<Store, StoreError> {
        Store::open(&address.parse()?)
    }

    pub fn address(&self) -> &RunAddress {
        &self.address
    }

    /// Contacts the store once, so that a wrong endpoint, bad credentials or a missing
    /// bucket are reported at start rather than after an hour of self-play.
    pub fn check(&self) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Local(_) => Ok(()),
            Backend::S3(s) => s.check(),
        }
    }

    /// Writes `bytes` as the whole object `key`, replacing any object of that name.
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(l) => l.put(key, bytes),
            Backend::S3(s) => s.put(key, bytes),
        }
    }

    /// Creates `key` with `bytes` unless it exists, atomically: of writers racing for one
    /// key exactly one gets `true`, and the object is whole.
    pub fn create(&self, key: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(l) => l.create(key, bytes),
            Backend::S3(s) => s.create(key, bytes),
        }
    }

    /// The object `key`, or `None` if there is none.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(l) => l.get(key),
            Backend::S3(s) => s.get(key),
        }
    }

    /// The objects directly in the directory `dir` (`""` for the run's top), sorted by
    /// key; temporary files of local writers are left out. A directory nothing was
    /// written to is empty, not an error.
    pub fn list(&self, dir: &str) -> Result<Vec<ObjectInfo>, StoreError> {
        if !dir.is_empty() {
            check_key(dir)?;
        }
        let mut out = match &self.backend {
            Backend::Local(l) => l.list(dir)?,
            Backend::S3(s) => s.list(dir)?,
        };
        out.retain(|o| !o.name().starts_with('.'));
        out.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(out)
    }

    /// The objects `keys` (`None` for each that is missing), fetched concurrently where
    /// the backend gains from it; in the order of `keys`.
    pub fn get_many(&self, keys: &[&str]) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
        for key in keys {
            check_key(key)?;
        }
        match &self.backend {
            Backend::Local(l) => keys.iter().map(|k| l.get(k)).collect(),
            Backend::S3(s) => s.get_many(keys).into_iter().collect(),
        }
    }

    /// Removes `key`; a missing object is no error.
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(l) => l.delete(key),
            Backend::S3(s) => s.delete(key),
        }
    }

    /// Uploads the local file `from` as `key`.
    pub fn upload(&self, key: &str, from: &Path) -> Result<(), StoreError> {
        let bytes = std::fs::read(from).map_err(|source| io_error(from, source))?;
        self.put(key, &bytes)
    }

    /// Downloads `key` to the local file `to` (written atomically); `false` if there is
    /// no such object.
    pub fn download(&self, key: &str, to: &Path) -> Result<bool, StoreError> {
        let Some(bytes) = self.get(key)? else { return Ok(false) };
        write_file(to, &bytes, None)?;
        Ok(true)
    }

    /// Downloads many objects, each `(key, file, modification time)`: the file gets the
    /// time given (that of the object, from a listing: a run's clock reads its files'
    /// times). Fetches [`PARALLEL`](s3::PARALLEL) at a time from S3;
    /// returns how many existed. Files are written as they arrive, so an error leaves the
    /// ones before it in place.
    pub fn download_many(
        &self,
        items: &[(String, std::path::PathBuf, Option<std::time::SystemTime>)],
    ) -> Result<usize, StoreError> {
        let mut found = 0;
        for chunk in items.chunks(4 * s3::PARALLEL) {
            let keys: Vec<&str> = chunk.iter().map(|(k, _, _)| k.as_str()).collect();
            for ((_, to, modified), bytes) in chunk.iter().zip(self.get_many(&keys)?) {
                if let Some(bytes) = bytes {
                    write_file(to, &bytes, *modified)?;
                    found += 1;
                }
            }
        }
        Ok(found)
    }

    /// The location of `key` for messages: a path or an `s3://` URL.
    pub fn location(&self, key: &str) -> String {
        match &self.address {
            RunAddress::Local(root) => root.join(key).display().to_string(),
            a => format!("{a}/{key}"),
        }
    }
}

/// Writes a downloaded object to `to` atomically, with the modification time `modified`.
fn write_file(to: &Path, bytes: &[u8], modified: Option<std::time::SystemTime>) -> Result<(), StoreError> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|source| io_error(dir, source))?;
    }
    crate::atomic::commit_with(to, |tmp| {
        let mut f = std::fs::File::create(tmp)?;
        std::io::Write::write_all(&mut f, bytes)?;
        if let Some(t) = modified {
            f.set_modified(t)?;
        }
        f.sync_all()
    })
    .map_err(|source| io_error(to, source))
}

fn io_error(path: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io { location: path.display().to_string(), source }
}

/// Keys are relative `/`-separated names without empty, `.` or `..` segments, so that a
/// key means the same file under a local run and the same object under a prefix.
fn check_key(key: &str) -> Result<(), StoreError> {
    let ok = !key.is_empty()
        && !key.starts_with('/')
        && key.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
        && !key.contains('\\');
    if ok {
        Ok(())
    } else {
        Err(StoreError::BadKey { key: key.into() })
    }
}

#[cfg(test)]
pub(crate) mod tests;
