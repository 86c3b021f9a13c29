//! The replay window: the shards the trainer knows and the samples it may train on.
//!
//! Every sample of the run gets a global id: shards are numbered in the order the trainer
//! registers them (file-name order within one directory listing), and a shard's valid
//! samples take the next ids, game by game. The total is the number of samples ever
//! registered; the window is the newest [`window_size`] of them, i.e. the id range
//! `[total - window, total)`. Ids are what the sampler shuffles and what checkpoints
//! store, so a resumed trainer finds the very same samples again.
//!
//! Only shards overlapping the window (or referenced by a resumed checkpoint) are held
//! in memory, as replayed games: positions are needed for the input planes, and
//! replaying once at load time both validates the moves and keeps batch building cheap.
//! A shard that cannot be read (truncated, corrupted, other format) is skipped with a
//! warning naming it and never retried; a game whose record is inconsistent is skipped
//! with a warning and its samples never trained on.

use crate::config::TrainConfig;
use formats::shard::{self, GameRecord, Sample, ShardError};
use models::policy_index::POLICY_SIZE;
use schess::Position;
use serde::{Deserialize, Serialize};
use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The window size (in samples) for `total` samples registered so far:
/// `clamp(window_c * total^window_alpha, window_min, window_max)`.
pub fn window_size(total: u64, cfg: &TrainConfig) -> u64 {
    let grown = cfg.window_c * (total as f64).powf(cfg.window_alpha);
    // `as` saturates, and clamp keeps NaN-free inputs (validated) in range.
    (grown as u64).clamp(cfg.window_min, cfg.window_max)
}

/// A replayed, validated game, shared by the batches that use its samples.
#[derive(Debug)]
pub(crate) struct GameData {
    /// Every position of the game, the start first (`positions[ply]` is before
    /// `moves[ply]`).
    pub(crate) positions: Vec<Position>,
    pub(crate) samples: Vec<Sample>,
    /// Result from White's view: 1, 0 or -1.
    pub(crate) result: i8,
    /// Number of moves played.
    pub(crate) plies: usize,
}

/// One sample of a loaded game.
#[derive(Debug, Clone)]
pub(crate) struct SampleRef {
    pub(crate) game: Arc<GameData>,
    pub(crate) index: usize,
}

impl SampleRef {
    pub(crate) fn sample(&self) -> &Sample {
        &self.game.samples[self.index]
    }
}

/// A registered shard: its name and its id range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShardEntry {
    pub(crate) name: String,
    /// Global id of its first sample.
    pub(crate) first: u64,
    /// Number of valid samples.
    pub(crate) samples: u64,
}

impl ShardEntry {
    fn end(&self) -> u64 {
        self.first + self.samples
    }
}

/// What of the store a checkpoint keeps: enough to rebuild the id assignment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoreState {
    pub(crate) registry: Vec<ShardEntry>,
    pub(crate) skipped: Vec<String>,
}

#[derive(Debug)]
struct GameSlot {
    /// Global id of the game's first sample (also the game's id).
    first: u64,
    count: u64,
    /// `None` when the game's moves do not replay (its samples are never used).
    data: Option<Arc<GameData>>,
}

#[derive(Debug)]
struct LoadedShard {
    first: u64,
    end: u64,
    games: Vec<GameSlot>,
}

/// Result of [`ShardStore::refresh`].
#[derive(Debug, Default)]
pub(crate) struct Refresh {
    /// Samples registered by this refresh.
    pub(crate) new_samples: u64,
    /// Ids of the new games inside the window (for the sampler).
    pub(crate) new_games: Vec<u64>,
}

/// The shards of a run directory, their id ranges, and the loaded window.
#[derive(Debug)]
pub(crate) struct ShardStore {
    dir: PathBuf,
    registry: Vec<ShardEntry>,
    skipped: Vec<String>,
    known: HashSet<String>,
    /// Loaded shards, sorted by `first`.
    loaded: Vec<LoadedShard>,
}

/// Number of valid samples of a record, or why the whole game is unusable. Only checks
/// what can be checked without replaying, so that registering a shard stays cheap.
fn count_samples(rec: &GameRecord) -> Result<u64, String> {
    if !(-1..=1).contains(&rec.result) {
        return Err(format!("result {} is not -1, 0 or 1", rec.result));
    }
    for (i, s) in rec.samples.iter().enumerate() {
        let bad = |why: String| Err(format!("sample {i} (ply {}): {why}", s.ply));
        if s.ply as usize > rec.moves.len() {
            return bad(format!("ply beyond the game's {} moves", rec.moves.len()));
        }
        if s.policy.is_empty() {
            return bad("empty policy target".into());
        }
        let mut sum = 0.0f64;
        for &(idx, p) in &s.policy {
            if idx as usize >= POLICY_SIZE {
                return bad(format!("policy index {idx} >= {POLICY_SIZE}"));
            }
            if !(p.is_finite() && p >= 0.0) {
                return bad(format!("policy probability {p}"));
            }
            sum += f64::from(p);
        }
        if sum <= 0.0 {
            return bad("policy target sums to 0".into());
        }
        if s.root_wdl.iter().any(|v| !v.is_finite()) {
            return bad(format!("root W/D/L {:?}", s.root_wdl));
        }
    }
    Ok(rec.samples.len() as u64)
}

fn replay(rec: &GameRecord) -> Result<GameData, ShardError> {
    let game = rec.replay()?;
    Ok(GameData {
        positions: game.positions().to_vec(),
        samples: rec.samples.clone(),
        result: rec.result,
        plies: rec.moves.len(),
    })
}

impl ShardStore {
    /// An empty store over `<dir>` (usually `<run>/shards`).
    pub(crate) fn new(dir: impl Into<PathBuf>) -> ShardStore {
        ShardStore::restore(dir, StoreState::default())
    }

    /// A store with a checkpoint's registry, nothing loaded yet (see [`Self::load_window`]).
    pub(crate) fn restore(dir: impl Into<PathBuf>, state: StoreState) -> ShardStore {
        let known = state.registry.iter().map(|e| e.name.clone()).chain(state.skipped.iter().cloned()).collect();
        ShardStore { dir: dir.into(), registry: state.registry, skipped: state.skipped, known, loaded: Vec::new() }
    }

    pub(crate) fn state(&self) -> StoreState {
        StoreState { registry: self.registry.clone(), skipped: self.skipped.clone() }
    }

    /// Samples registered so far.
    pub(crate) fn total(&self) -> u64 {
        self.registry.last().map_or(0, ShardEntry::end)
    }

    /// First id of the window.
    pub(crate) fn window_start(&self, cfg: &TrainConfig) -> u64 {
        let total = self.total();
        total.saturating_sub(window_size(total, cfg))
    }

    /// Number of samples in the window.
    pub(crate) fn window_len(&self, cfg: &TrainConfig) -> u64 {
        self.total() - self.window_start(cfg)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Registers the shards that appeared since the last call, loads those inside the
    /// (moved) window and unloads those that left it.
    pub(crate) fn refresh(&mut self, cfg: &TrainConfig, warn: &dyn Fn(String)) -> Result<Refresh, ShardError> {
        let new: Vec<PathBuf> = shard::list(&self.dir)?
            .into_iter()
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| !self.known.contains(n)))
            .collect();
        // Register in name order. Decoded records of the newest shards are kept (up to
        // a window's worth of samples) so that loading them does not read them twice.
        let mut kept: VecDeque<(usize, Vec<GameRecord>)> = VecDeque::new();
        let mut kept_samples = 0u64;
        let first_new = self.registry.len();
        for path in &new {
            let name = path.file_name().and_then(|n| n.to_str()).expect("filtered above").to_string();
            self.known.insert(name.clone());
            let records = match shard::read(path) {
                Ok(r) => r,
                Err(e) => {
                    warn(format!("skipping shard {e}"));
                    self.skipped.push(name);
                    continue;
                }
            };
            let samples = records.iter().filter_map(|r| count_samples(r).ok()).sum();
            let first = self.total();
            self.registry.push(ShardEntry { name, first, samples });
            kept_samples += samples;
            kept.push_back((self.registry.len() - 1, records));
            while kept_samples > cfg.window_max && kept.len() > 1 {
                let (i, _) = kept.pop_front().expect("non-empty");
                kept_samples -= self.registry[i].samples;
            }
        }
        let start = self.window_start(cfg);
        self.loaded.retain(|s| s.end > start);
        let mut out =
            Refresh { new_samples: self.registry[first_new..].iter().map(|e| e.samples).sum(), new_games: Vec::new() };
        for i in first_new..self.registry.len() {
            let entry = &self.registry[i];
            if entry.end() <= start || entry.samples == 0 {
                continue;
            }
            let records = match kept.iter().position(|(k, _)| *k == i) {
                Some(pos) => kept.remove(pos).map(|(_, r)| r),
                None => None,
            };
            if let Some(shard) = self.load_entry(i, records, warn) {
                out.new_games.extend(
                    shard
                        .games
                        .iter()
                        .filter(|g| g.data.is_some() && g.count > 0 && g.first + g.count > start)
                        .map(|g| g.first),
                );
                self.insert_loaded(shard);
            }
        }
        Ok(out)
    }

    /// Loads the window's shards and those holding `ids` (a restored checkpoint's
    /// pending samples), warning about any that can no longer be read.
    pub(crate) fn load_window(&mut self, cfg: &TrainConfig, ids: &[u64], warn: &dyn Fn(String)) {
        let start = self.window_start(cfg);
        let mut wanted: Vec<usize> = (0..self.registry.len())
            .filter(|&i| self.registry[i].end() > start && self.registry[i].samples > 0)
            .collect();
        for &id in ids {
            if let Some(i) = self.registry_index(id) {
                wanted.push(i);
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        for i in wanted {
            let first = self.registry[i].first;
            if self.loaded.iter().any(|s| s.first == first && s.end > first) {
                continue;
            }
            if let Some(shard) = self.load_entry(i, None, warn) {
                self.insert_loaded(shard);
            }
        }
    }

    fn registry_index(&self, id: u64) -> Option<usize> {
        let i = self.registry.partition_point(|e| e.end() <= id);
        (i < self.registry.len() && self.registry[i].first <= id).then_some(i)
    }

    fn insert_loaded(&mut self, shard: LoadedShard) {
        let at = self.loaded.partition_point(|s| s.first < shard.first);
        self.loaded.insert(at, shard);
    }

    /// Reads (unless `records` are given), validates and replays registry entry `i`.
    fn load_entry(&self, i: usize, records: Option<Vec<GameRecord>>, warn: &dyn Fn(String)) -> Option<LoadedShard> {
        let entry = &self.registry[i];
        let path = self.path(&entry.name);
        let records = match records {
            Some(r) => r,
            None => match shard::read(&path) {
                Ok(r) => r,
                Err(e) => {
                    warn(format!("shard no longer readable, its samples are skipped: {e}"));
                    return None;
                }
            },
        };
        let mut games = Vec::with_capacity(records.len());
        let mut next = entry.first;
        for (g, rec) in records.iter().enumerate() {
            let count = match count_samples(rec) {
                Ok(c) => c,
                Err(why) => {
                    warn(format!("{}: skipping game {g}: {why}", path.display()));
                    0
                }
            };
            let data = if count > 0 {
                match replay(rec) {
                    Ok(d) => Some(Arc::new(d)),
                    Err(e) => {
                        warn(format!("{}: skipping game {g}: {e}", path.display()));
                        None
                    }
                }
            } else {
                None
            };
            games.push(GameSlot { first: next, count, data });
            next += count;
        }
        if next != entry.end() {
            warn(format!(
                "{}: holds {} samples, but {} when first registered; its samples are skipped",
                path.display(),
                next - entry.first,
                entry.samples
            ));
            return None;
        }
        Some(LoadedShard { first: entry.first, end: entry.end(), games })
    }

    fn slot(&self, id: u64) -> Option<&GameSlot> {
        let s = self.loaded.partition_point(|s| s.end <= id);
        let shard = self.loaded.get(s).filter(|s| s.first <= id)?;
        let g = shard.games.partition_point(|g| g.first + g.count <= id);
        shard.games.get(g).filter(|g| g.first <= id)
    }

    /// The loaded sample with global id `id`.
    pub(crate) fn resolve(&self, id: u64) -> Option<SampleRef> {
        let slot = self.slot(id)?;
        let game = slot.data.clone()?;
        Some(SampleRef { game, index: (id - slot.first) as usize })
    }

    /// The sample ids of the loaded, usable game with id `game`.
    pub(crate) fn game_samples(&self, game: u64) -> Option<std::ops::Range<u64>> {
        let slot = self.slot(game).filter(|s| s.first == game && s.data.is_some())?;
        Some(slot.first..slot.first + slot.count)
    }

    /// Ids of the loaded, usable games with samples at or after `start`, in id order.
    pub(crate) fn games_from(&self, start: u64) -> Vec<u64> {
        self.loaded
            .iter()
            .flat_map(|s| &s.games)
            .filter(|g| g.data.is_some() && g.count > 0 && g.first + g.count > start)
            .map(|g| g.first)
            .collect()
    }

    /// Number of shards held in memory.
    #[cfg(test)]
    pub(crate) fn loaded_shards(&self) -> usize {
        self.loaded.len()
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic;
    use std::sync::Mutex;

    fn cfg(min: u64, max: u64) -> TrainConfig {
        TrainConfig { window_min: min, window_max: max, ..TrainConfig::default() }
    }

    #[test]
    fn window_grows_sublinearly_within_bounds() {
        let c = TrainConfig::default();
        assert_eq!(window_size(0, &c), c.window_min);
        assert_eq!(window_size(1_000, &c), c.window_min);
        let w = window_size(1_000_000, &c);
        assert!((200_000..300_000).contains(&w), "{w}");
        assert_eq!(window_size(u64::MAX, &c), c.window_max);
        let mut prev = 0;
        for t in (0..10_000_000).step_by(100_000) {
            let w = window_size(t, &c);
            assert!(w >= prev);
            prev = w;
        }
    }

    #[test]
    fn registers_in_order_skips_bad_shards_and_slides() {
        let dir = tempfile::tempdir().unwrap();
        let shards = dir.path().join("shards");
        let sizes = synthetic::write_shards(&shards, 3, 2, 12, 5).unwrap();
        // A truncated and a garbage shard between good ones.
        let good = std::fs::read(shards.join("shard-000001.shard")).unwrap();
        std::fs::write(shards.join("shard-000001b.shard"), &good[..good.len() - 7]).unwrap();
        std::fs::write(shards.join("shard-000001c.shard"), b"not a shard at all, just text").unwrap();
        std::fs::write(shards.join("ignored.txt"), b"x").unwrap();

        let warnings = Mutex::new(Vec::new());
        let warn = |w: String| warnings.lock().unwrap().push(w);
        let total: u64 = sizes.iter().sum();
        let c = cfg(total, total);
        let mut store = ShardStore::new(&shards);
        let r = store.refresh(&c, &warn).unwrap();
        assert_eq!(r.new_samples, total);
        assert_eq!(store.total(), total);
        assert_eq!(r.new_games.len(), 6);
        let w = warnings.lock().unwrap().clone();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w.iter().any(|m| m.contains("shard-000001b.shard") && m.contains("truncated")), "{w:?}");
        assert!(w.iter().any(|m| m.contains("shard-000001c.shard")), "{w:?}");
        assert_eq!(store.state().skipped.len(), 2);

        // Ids resolve to the right samples, in registration order.
        let first = store.resolve(0).unwrap();
        assert_eq!(first.index, 0);
        let last = store.resolve(total - 1).unwrap();
        assert_eq!(last.index, last.game.samples.len() - 1);
        assert!(store.resolve(total).is_none());
        let g = r.new_games[1];
        assert_eq!(store.game_samples(g).unwrap().start, g);
        assert!(store.game_samples(g + 1).is_none());

        // Nothing new: nothing registered, no new warnings (bad shards are not retried).
        let r = store.refresh(&c, &warn).unwrap();
        assert_eq!(r.new_samples, 0);
        assert_eq!(warnings.lock().unwrap().len(), 2);

        // A fourth shard as large as the first slides the fixed-size window past it.
        let more = synthetic::write_shard(&shards.join("shard-000009.shard"), 2, 12, 99).unwrap();
        assert_eq!(more, sizes[0]);
        let r = store.refresh(&c, &warn).unwrap();
        assert_eq!(r.new_samples, more);
        assert_eq!(store.window_start(&c), more);
        assert_eq!(store.loaded_shards(), 3);
        assert!(store.resolve(0).is_none());
        assert!(store.resolve(more).is_some());
        assert_eq!(store.games_from(more).len(), 6);
    }

    #[test]
    fn restore_rebuilds_the_same_ids() {
        let dir = tempfile::tempdir().unwrap();
        synthetic::write_shards(dir.path(), 2, 3, 10, 1).unwrap();
        let c = cfg(1_000, 1_000);
        let mut store = ShardStore::new(dir.path());
        store.refresh(&c, &|w| panic!("{w}")).unwrap();
        let mut again = ShardStore::restore(dir.path(), store.state());
        assert_eq!(again.total(), store.total());
        assert!(again.resolve(0).is_none());
        again.load_window(&c, &[], &|w| panic!("{w}"));
        for id in 0..store.total() {
            let (a, b) = (store.resolve(id).unwrap(), again.resolve(id).unwrap());
            assert_eq!(a.sample(), b.sample());
        }
        // A shard deleted after the checkpoint: warned about, its samples skipped.
        std::fs::remove_file(dir.path().join("shard-000000.shard")).unwrap();
        let warnings = Mutex::new(Vec::new());
        let mut third = ShardStore::restore(dir.path(), store.state());
        third.load_window(&c, &[], &|w| warnings.lock().unwrap().push(w));
        assert_eq!(warnings.lock().unwrap().len(), 1);
        assert!(third.resolve(0).is_none());
        assert!(third.resolve(store.total() - 1).is_some());
        assert_eq!(third.loaded_shards(), 1);
    }

    #[test]
    fn inconsistent_games_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let mut games = synthetic::games(3, 10, 4);
        games[0].samples[0].policy[0].0 = 9999;
        games[1].moves[2] = "a1a1".into();
        let n2 = games[2].samples.len() as u64;
        let n1 = games[1].samples.len() as u64;
        shard::write(&dir.path().join("a.shard"), &games).unwrap();
        let warnings = Mutex::new(Vec::new());
        let mut store = ShardStore::new(dir.path());
        let r = store.refresh(&cfg(100, 100), &|w| warnings.lock().unwrap().push(w)).unwrap();
        // Game 0 fails the cheap check (not counted); game 1 fails its replay (counted,
        // never used).
        assert_eq!(r.new_samples, n1 + n2);
        assert_eq!(r.new_games, vec![n1]);
        let w = warnings.lock().unwrap().clone();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("a.shard") && w[0].contains("game 0") && w[0].contains("9999"), "{w:?}");
        assert!(w[1].contains("game 1"), "{w:?}");
        assert!(store.resolve(0).is_none());
        assert!(store.resolve(n1).is_some());
    }
}
