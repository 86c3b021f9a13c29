//! A run as the stages use it: its names ([`RunLayout`]) on a local directory, and its
//! [`Store`]. For a local run the two are the same directory and every method here that
//! moves objects does nothing. For an S3 run the directory is a *mirror*: stages write
//! and read plain files there as they do on a local run, [`Run::publish`] uploads what a
//! stage committed, [`Run::pull`] brings what other processes committed, and the one
//! conditional write ([`Run::create_if_absent`]) goes to the store itself, so that it
//! decides between racing processes on any number of machines. Every name a stage
//! publishes is written once (shards are unique per writer, networks per step, claims
//! per generation), which is what makes a mirror of names correct: an object that is in
//! the mirror is the object in the store.

use crate::{RunAddress, RunLayout, Store, StoreError};
use std::path::{Path, PathBuf};

/// The run at one address, with its local directory.
#[derive(Debug)]
pub struct Run {
    layout: RunLayout,
    store: Store,
}

impl Run {
    /// Opens the run at `address` (a directory, or `s3://bucket/prefix`). An S3 run is
    /// mirrored in `mirror`, by default `$SZERO_CACHE/mirrors/<bucket>/<prefix>`
    /// (`SZERO_CACHE` defaults to `~/.cache/szero`). The store is contacted once, so
    /// that a wrong endpoint, credentials or bucket fail here, with a message naming it.
    pub fn open(address: &RunAddress, mirror: Option<&Path>) -> Result<Run, StoreError> {
        let store = Store::open(address)?;
        store.check()?;
        let root = match (address, mirror) {
            (RunAddress::Local(root), _) => root.clone(),
            (_, Some(dir)) => dir.to_path_buf(),
            (RunAddress::S3 { bucket, prefix }, None) => default_mirror(bucket, prefix),
        };
        Ok(Run { layout: RunLayout::new(root), store })
    }

    /// A local run (no store to contact).
    pub fn local(root: impl Into<PathBuf>) -> Run {
        let root = root.into();
        let store = Store::open(&RunAddress::Local(root.clone())).expect("a local store always opens");
        Run { layout: RunLayout::new(root), store }
    }

    /// The run's names, under its local directory (the mirror of an S3 run).
    pub fn layout(&self) -> &RunLayout {
        &self.layout
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Where the run lives, as the user wrote it.
    pub fn address(&self) -> &RunAddress {
        self.store.address()
    }

    /// Whether the run lives elsewhere than its local directory.
    pub fn is_mirrored(&self) -> bool {
        !self.address().is_local()
    }

    /// The key of a path in the run's directory (`shards/a.shard`); `None` outside it.
    pub fn key_of(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(self.layout.root()).ok()?;
        let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
        let key = parts?.join("/");
        (!key.is_empty()).then_some(key)
    }

    fn key(&self, path: &Path) -> Result<String, StoreError> {
        self.key_of(path).ok_or_else(|| StoreError::BadKey { key: path.display().to_string() })
    }

    /// The key of a directory of the run: `""` for its top.
    fn dir_key(&self, dir: &Path) -> Result<String, StoreError> {
        if dir == self.layout.root() {
            return Ok(String::new());
        }
        self.key(dir)
    }

    /// Uploads a file a stage committed in the run's directory (nothing to do locally).
    pub fn publish(&self, path: &Path) -> Result<(), StoreError> {
        if self.is_mirrored() {
            self.store.upload(&self.key(path)?, path)?;
        }
        Ok(())
    }

    /// Brings the objects of the directory `dir` that the mirror lacks; returns how many
    /// (always 0 for a local run). A file of the same name and size is the same object:
    /// names are written once.
    pub fn pull(&self, dir: &Path) -> Result<usize, StoreError> {
        if !self.is_mirrored() {
            return Ok(0);
        }
        let missing: Vec<_> = self
            .store
            .list(&self.dir_key(dir)?)?
            .into_iter()
            .map(|o| {
                let path = self.layout.root().join(&o.key);
                (o, path)
            })
            .filter(|(o, path)| !std::fs::metadata(path).is_ok_and(|m| m.len() == o.size))
            .map(|(o, path)| (o.key, path, Some(o.modified)))
            .collect();
        self.store.download_many(&missing)
    }

    /// Uploads the files of `dir` that the store lacks, e.g. those a process wrote and
    /// was killed before publishing; returns how many (0 for a local run). A name the
    /// store has is never uploaded again: names are written once, and the store's
    /// object is the one other processes may have read already.
    pub fn push(&self, dir: &Path) -> Result<usize, StoreError> {
        if !self.is_mirrored() {
            return Ok(0);
        }
        let remote: std::collections::HashSet<String> =
            self.store.list(&self.dir_key(dir)?)?.into_iter().map(|o| o.key).collect();
        let local = Store::open(&RunAddress::Local(self.layout.root().to_path_buf()))?;
        let mut pushed = 0;
        for object in local.list(&self.dir_key(dir)?)? {
            if !remote.contains(&object.key) {
                self.store.upload(&object.key, &self.layout.root().join(&object.key))?;
                pushed += 1;
            }
        }
        Ok(pushed)
    }

    /// Makes sure the mirror holds `path` (fetched from the store if it lacks it);
    /// returns whether it exists now.
    pub fn fetch(&self, path: &Path) -> Result<bool, StoreError> {
        if path.exists() {
            return Ok(true);
        }
        if !self.is_mirrored() {
            return Ok(false);
        }
        self.store.download(&self.key(path)?, path)
    }

    /// Uploads the trainer's checkpoint directory `dir` (`trainer/step-N/`, complete) and
    /// commits it (`trainer/committed/step-N`, created after its files), unless the store
    /// has that commit already; then deletes the store's committed checkpoints beyond the
    /// newest `keep`, commit first. A trainer on another machine resumes from the newest
    /// commit ([`Run::pull_newest_checkpoint`]); files without a commit are never read.
    /// Nothing to do for a local run.
    pub fn commit_checkpoint(&self, dir: &Path, keep: usize) -> Result<(), StoreError> {
        if !self.is_mirrored() {
            return Ok(());
        }
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let commit = self.layout.checkpoint_commit(&name);
        if self.store.get(&self.key(&commit)?)?.is_some() {
            return Ok(());
        }
        self.push(dir)?;
        self.create_if_absent(&commit, name.as_bytes())?;
        let commits = self.store.list(&self.key(&self.layout.checkpoint_commits())?)?;
        for old in commits.iter().rev().skip(keep.max(1)) {
            let files = self.layout.trainer().join(old.name());
            self.store.delete(&old.key)?;
            for file in self.store.list(&self.key(&files)?)? {
                self.store.delete(&file.key)?;
            }
        }
        Ok(())
    }

    /// Brings the newest committed checkpoint directory of the trainer into the mirror
    /// and returns it (`None` for a local run, or a store without a commit).
    pub fn pull_newest_checkpoint(&self) -> Result<Option<PathBuf>, StoreError> {
        if !self.is_mirrored() {
            return Ok(None);
        }
        let commits = self.store.list(&self.key(&self.layout.checkpoint_commits())?)?;
        let Some(newest) = commits.last() else { return Ok(None) };
        let dir = self.layout.trainer().join(newest.name());
        self.pull(&dir)?;
        Ok(Some(dir))
    }

    /// Creates `path` with `bytes` unless it exists, deciding in the store (see
    /// [`Store::create`]): exactly one of racing processes wins, on any machine. The
    /// winner's mirror gets the file at once; others see it on their next [`Run::pull`].
    pub fn create_if_absent(&self, path: &Path, bytes: &[u8]) -> Result<bool, StoreError> {
        let created = self.store.create(&self.key(path)?, bytes)?;
        if created && self.is_mirrored() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|source| StoreError::Io { location: dir.display().to_string(), source })?;
            }
            crate::atomic::write_atomic(path, bytes)
                .map_err(|source| StoreError::Io { location: path.display().to_string(), source })?;
        }
        Ok(created)
    }
}

/// `$SZERO_CACHE/mirrors/<bucket>/<prefix>`, `SZERO_CACHE` defaulting to `~/.cache/szero`
/// (the cache `scripts/setup` uses).
fn default_mirror(bucket: &str, prefix: &str) -> PathBuf {
    let cache = std::env::var_os("SZERO_CACHE").map(PathBuf::from).unwrap_or_else(|| {
        std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(".")).join(".cache/szero")
    });
    let mut dir = cache.join("mirrors").join(bucket);
    for part in prefix.split('/').filter(|p| !p.is_empty()) {
        dir.push(part);
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two processes on two machines: each with its own mirror of one store.
    fn two_mirrors(name: &str) -> Option<(Run, Run, tempfile::TempDir)> {
        let address = crate::store::tests::s3_run(name)?;
        let dir = tempfile::tempdir().unwrap();
        let a = Run::open(&address, Some(&dir.path().join("a"))).unwrap();
        let b = Run::open(&address, Some(&dir.path().join("b"))).unwrap();
        Some((a, b, dir))
    }

    #[test]
    fn what_one_mirror_publishes_the_other_pulls() {
        let Some((a, b, _dir)) = two_mirrors("mirrors") else { return };
        assert!(a.is_mirrored());
        let shard = a.layout().shards().join("w1-0001.shard");
        std::fs::create_dir_all(a.layout().shards()).unwrap();
        std::fs::write(&shard, b"games").unwrap();
        assert_eq!(b.pull(&b.layout().shards()).unwrap(), 0, "not published yet");
        a.publish(&shard).unwrap();
        assert_eq!(b.pull(&b.layout().shards()).unwrap(), 1);
        assert_eq!(b.pull(&b.layout().shards()).unwrap(), 0, "already there");
        let pulled = b.layout().shards().join("w1-0001.shard");
        assert_eq!(std::fs::read(&pulled).unwrap(), b"games");
        // With the store's time: a run's clock reads file times.
        let listed = b.store().list("shards").unwrap();
        assert_eq!(std::fs::metadata(&pulled).unwrap().modified().unwrap(), listed[0].modified);
        std::fs::write(a.layout().root().join("config.toml"), b"x").unwrap();
        a.publish(&a.layout().root().join("config.toml")).unwrap();
        assert_eq!(b.pull(b.layout().root()).unwrap(), 1, "the top of the run");
        // A file written and not published (its writer was killed) goes up with push.
        std::fs::write(a.layout().shards().join("w1-0002.shard"), b"more").unwrap();
        assert_eq!(a.push(&a.layout().shards()).unwrap(), 1);
        assert_eq!(a.push(&a.layout().shards()).unwrap(), 0);
        // One object, fetched on demand.
        let far = b.layout().shards().join("w1-0002.shard");
        assert!(b.fetch(&far).unwrap());
        assert!(!b.fetch(&b.layout().shards().join("none.shard")).unwrap());
        // The claim is decided in the store, not in either mirror.
        let claim_a = a.layout().promotion(1);
        let claim_b = b.layout().promotion(1);
        assert!(a.create_if_absent(&claim_a, b"a").unwrap());
        assert!(!b.create_if_absent(&claim_b, b"b").unwrap());
        assert_eq!(b.pull(&b.layout().promotions()).unwrap(), 1);
        assert_eq!(std::fs::read(&claim_b).unwrap(), b"a");
        assert_eq!(b.key_of(&claim_b).as_deref(), Some("gate/promotions/gen-000001.json"));
    }

    #[test]
    fn a_committed_checkpoint_moves_to_another_machine_and_old_ones_go() {
        let Some((a, b, _dir)) = two_mirrors("checkpoints") else { return };
        let write = |run: &Run, step: u64| -> PathBuf {
            let dir = run.layout().trainer().join(format!("step-{step:09}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("model.safetensors"), format!("net {step}")).unwrap();
            std::fs::write(dir.join("state.json"), b"{}").unwrap();
            dir
        };
        assert_eq!(b.pull_newest_checkpoint().unwrap(), None, "nothing committed yet");
        let first = write(&a, 10);
        a.commit_checkpoint(&first, 1).unwrap();
        a.commit_checkpoint(&first, 1).unwrap(); // once only
        let got = b.pull_newest_checkpoint().unwrap().expect("a committed checkpoint");
        assert_eq!(got.file_name(), first.file_name());
        assert_eq!(std::fs::read(got.join("model.safetensors")).unwrap(), b"net 10");
        // A newer one replaces it in the store (keep 1): commit and files both go.
        let second = write(&a, 20);
        a.commit_checkpoint(&second, 1).unwrap();
        let keys = |dir: &str| -> Vec<String> { a.store().list(dir).unwrap().into_iter().map(|o| o.key).collect() };
        assert_eq!(keys("trainer/committed"), ["trainer/committed/step-000000020"]);
        assert!(keys("trainer/step-000000010").is_empty());
        assert_eq!(keys("trainer/step-000000020").len(), 2);
        let got = b.pull_newest_checkpoint().unwrap().unwrap();
        assert_eq!(std::fs::read(got.join("model.safetensors")).unwrap(), b"net 20");
    }

    #[test]
    fn a_local_run_commits_no_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let run = Run::local(dir.path());
        let step = run.layout().trainer().join("step-000000010");
        std::fs::create_dir_all(&step).unwrap();
        run.commit_checkpoint(&step, 1).unwrap();
        assert!(!run.layout().checkpoint_commits().exists());
        assert_eq!(run.pull_newest_checkpoint().unwrap(), None);
    }

    /// The store goes away mid-run: publishing fails with an error that says so, the file
    /// stays in the mirror, and the push at the next start uploads it.
    #[test]
    fn a_store_that_is_down_loses_nothing() {
        let Some(address) = crate::store::tests::s3_run("down") else { return };
        let dir = tempfile::tempdir().unwrap();
        let up = Run::open(&address, Some(dir.path())).unwrap();
        let down = Store::open_with(&address, &[("aws_endpoint", "http://127.0.0.1:9")]).unwrap();
        let down = Run { layout: RunLayout::new(dir.path()), store: down };
        let shard = down.layout().shards().join("w-0001.shard");
        std::fs::create_dir_all(down.layout().shards()).unwrap();
        std::fs::write(&shard, b"games").unwrap();
        let e = down.publish(&shard).unwrap_err();
        assert!(matches!(e, StoreError::Unreachable { .. }), "{e}");
        assert_eq!(std::fs::read(&shard).unwrap(), b"games", "the file stays");
        assert!(up.store().list("shards").unwrap().is_empty());
        assert_eq!(up.push(&up.layout().shards()).unwrap(), 1);
        assert_eq!(up.store().get("shards/w-0001.shard").unwrap().as_deref(), Some(&b"games"[..]));
    }

    #[test]
    fn a_local_run_moves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let run = Run::local(dir.path());
        assert!(!run.is_mirrored());
        std::fs::create_dir_all(run.layout().shards()).unwrap();
        std::fs::write(run.layout().shards().join("a.shard"), b"x").unwrap();
        assert_eq!(run.pull(&run.layout().shards()).unwrap(), 0);
        assert_eq!(run.push(&run.layout().shards()).unwrap(), 0);
        run.publish(&run.layout().shards().join("a.shard")).unwrap();
        assert!(run.create_if_absent(&run.layout().promotion(1), b"x").unwrap());
        assert!(!run.create_if_absent(&run.layout().promotion(1), b"y").unwrap());
        assert_eq!(run.key_of(Path::new("/elsewhere")), None);
    }

    #[test]
    fn mirrors_default_under_the_cache() {
        let dir = default_mirror("bkt", "exp/one");
        assert!(dir.ends_with("mirrors/bkt/exp/one"), "{}", dir.display());
    }
}
