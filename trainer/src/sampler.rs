//! The data order: a pass over the window's games feeding a large shuffle buffer.
//!
//! Games are visited in a random order (a "pass" over the window, restarted when it runs
//! out); each visited game puts all its in-window samples into the shuffle buffer, and
//! each sample handed out is taken from a random slot of the buffer. Positions of one
//! game are strongly correlated, so a buffer much larger than a batch keeps them in
//! different batches, while reading whole games keeps the work per game (one replay,
//! one lookup) amortised. New games are inserted at random places of the current pass,
//! so fresh data is seen within one pass without waiting for the next.
//!
//! The whole state (generator, pass, buffer) is plain ids, so a checkpoint stores it
//! and a resumed trainer continues with exactly the same batches. Samples that left
//! the window are dropped from the buffer by [`Sampler::purge`].

use crate::rng::Rng;
use crate::window::{SampleRef, ShardStore};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Everything the sampler needs to continue exactly.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SamplerState {
    pub(crate) rng: u64,
    /// Games still to visit in this pass (taken from the end).
    pub(crate) pass: Vec<u64>,
    pub(crate) buffer: Vec<u64>,
    /// Ids handed out first, in order: the batches that were prepared but not yet
    /// trained on when the checkpoint was written.
    pub(crate) carry: Vec<u64>,
}

#[derive(Debug)]
pub(crate) struct Sampler {
    rng: Rng,
    capacity: usize,
    pass: Vec<u64>,
    buffer: Vec<u64>,
    carry: VecDeque<u64>,
}

impl Sampler {
    pub(crate) fn new(seed: u64, capacity: usize) -> Sampler {
        Sampler::restore(SamplerState { rng: Rng::new(seed, 0xDA7A).state(), ..Default::default() }, capacity)
    }

    pub(crate) fn restore(state: SamplerState, capacity: usize) -> Sampler {
        Sampler {
            rng: Rng::from_state(state.rng),
            capacity,
            pass: state.pass,
            buffer: state.buffer,
            carry: state.carry.into(),
        }
    }

    /// The state, with `pending` (ids handed out but not consumed) put back in front.
    pub(crate) fn state(&self, pending: impl IntoIterator<Item = u64>) -> SamplerState {
        SamplerState {
            rng: self.rng.state(),
            pass: self.pass.clone(),
            buffer: self.buffer.clone(),
            carry: pending.into_iter().chain(self.carry.iter().copied()).collect(),
        }
    }

    /// Ids the store must be able to resolve for an exact resume (carry and buffer).
    pub(crate) fn referenced(&self) -> impl Iterator<Item = u64> + '_ {
        self.carry.iter().chain(&self.buffer).copied()
    }

    /// Adds new games at uniformly random places of the current pass.
    pub(crate) fn add_games(&mut self, games: &[u64]) {
        for &g in games {
            self.pass.push(g);
            let j = self.rng.below(self.pass.len());
            let last = self.pass.len() - 1;
            self.pass.swap(j, last);
        }
    }

    /// Drops buffered samples before `start` (they left the window).
    pub(crate) fn purge(&mut self, start: u64) {
        self.buffer.retain(|&id| id >= start);
    }

    /// Tops the buffer up to `target` samples from the pass, starting a new pass over
    /// the window's games (at most once per call) when this one is used up.
    fn fill(&mut self, store: &ShardStore, start: u64, target: usize) {
        let mut restarted = false;
        while self.buffer.len() < target {
            let Some(game) = self.pass.pop() else {
                if restarted {
                    break;
                }
                self.pass = store.games_from(start);
                self.rng.shuffle(&mut self.pass);
                restarted = true;
                continue;
            };
            if let Some(ids) = store.game_samples(game) {
                self.buffer.extend(ids.filter(|&id| id >= start));
            }
        }
    }

    fn next_id(&mut self, store: &ShardStore, start: u64, target: usize) -> Option<u64> {
        if let Some(id) = self.carry.pop_front() {
            return Some(id);
        }
        self.fill(store, start, target);
        if self.buffer.is_empty() {
            return None;
        }
        let i = self.rng.below(self.buffer.len());
        Some(self.buffer.swap_remove(i))
    }

    /// The next `n` samples of the window `[start, start + window_len)`, with their ids;
    /// fewer only when the window has no usable sample left. Ids that no longer resolve
    /// (a shard deleted since a checkpoint) are skipped.
    pub(crate) fn next_batch(
        &mut self,
        store: &ShardStore,
        start: u64,
        window_len: u64,
        n: usize,
    ) -> (Vec<u64>, Vec<SampleRef>) {
        let target = self.capacity.min(usize::try_from(window_len).unwrap_or(usize::MAX));
        let (mut ids, mut refs) = (Vec::with_capacity(n), Vec::with_capacity(n));
        while refs.len() < n {
            let Some(id) = self.next_id(store, start, target) else {
                break;
            };
            if let Some(r) = store.resolve(id) {
                ids.push(id);
                refs.push(r);
            }
        }
        (ids, refs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TrainConfig;
    use crate::synthetic;
    use std::collections::HashMap;

    fn store(dir: &std::path::Path, shards: usize) -> (ShardStore, TrainConfig) {
        synthetic::write_shards(dir, shards, 4, 10, 3).unwrap();
        let cfg = TrainConfig { window_min: 10_000, window_max: 10_000, ..TrainConfig::default() };
        let mut s = ShardStore::new(dir);
        s.refresh(&cfg, &|w| panic!("{w}")).unwrap();
        (s, cfg)
    }

    #[test]
    fn covers_the_window_evenly_and_restores_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let (store, cfg) = store(dir.path(), 3);
        let total = store.total();
        let (start, len) = (store.window_start(&cfg), store.window_len(&cfg));
        let mut s = Sampler::new(9, 50);
        let mut seen: HashMap<u64, usize> = HashMap::new();
        for _ in 0..(total as usize) {
            let (ids, refs) = s.next_batch(&store, start, len, 4);
            assert_eq!((ids.len(), refs.len()), (4, 4));
            for id in ids {
                *seen.entry(id).or_default() += 1;
            }
        }
        // 4 draws per sample on average: every sample seen, none wildly often.
        assert_eq!(seen.len() as u64, total);
        assert!(seen.values().all(|&c| (1..=12).contains(&c)), "{seen:?}");

        // Restoring a state, with two pending batches in front, replays the same ids.
        let (pending, _) = s.next_batch(&store, start, len, 8);
        let state = s.state(pending.iter().copied());
        let mut restored = Sampler::restore(state.clone(), 50);
        assert_eq!(restored.next_batch(&store, start, len, 8).0, pending);
        for _ in 0..20 {
            assert_eq!(restored.next_batch(&store, start, len, 5).0, s.next_batch(&store, start, len, 5).0);
        }
        assert_eq!(Sampler::restore(state.clone(), 50).state([]), state);
    }

    #[test]
    fn consecutive_samples_come_from_different_games() {
        let dir = tempfile::tempdir().unwrap();
        let (store, cfg) = store(dir.path(), 3);
        let mut s = Sampler::new(1, 1000);
        let (_, refs) = s.next_batch(&store, store.window_start(&cfg), store.window_len(&cfg), 12);
        let games: std::collections::HashSet<_> = refs.iter().map(|r| std::sync::Arc::as_ptr(&r.game)).collect();
        assert!(games.len() >= 6, "{} distinct games in 12 samples", games.len());
    }

    #[test]
    fn respects_the_window_and_purges() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = store(dir.path(), 3);
        let total = store.total();
        let start = total / 2;
        let mut s = Sampler::new(2, 10_000);
        let (ids, _) = s.next_batch(&store, start, total - start, 200);
        assert!(ids.iter().all(|&id| id >= start));
        // The buffer holds earlier ids only if filled with another window; purge drops them.
        let mut s = Sampler::new(2, 10_000);
        s.next_batch(&store, 0, total, 1);
        assert!(s.referenced().any(|id| id < start));
        s.purge(start);
        assert!(s.referenced().all(|id| id >= start));
        // An empty window gives nothing (and does not loop).
        let mut s = Sampler::new(2, 100);
        assert!(s.next_batch(&store, total, 0, 3).0.is_empty());
    }
}
