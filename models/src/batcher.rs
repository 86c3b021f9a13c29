//! A network shared by many search threads, with their requests merged into one batch.
//!
//! A GPU wants batches of thousands. Each self-play thread brings a few hundred leaves per
//! round; this evaluator lets every caller encode its own inputs in parallel, then one of
//! them (the "leader") waits briefly for the others, concatenates the pending inputs (at
//! most `max_rows` rows of them, oldest first), runs the network once and hands each caller
//! its rows. No extra thread; the network is used by one thread at a time.
//!
//! With `callers` and `max_rows` set to a fraction of the threads, the threads fall into
//! groups that take turns: the network evaluates one group's leaves while the other groups
//! search, instead of every thread waiting for one lock-step batch and the device idling
//! while they all search (lc0's and KataGo's search threads overlap the same way).

use crate::evaluator::{finish, prepare, run_net};
use crate::net::Net;
use ndarray::{Array4, Axis};
use schess::Position;
use search::{Evaluation, Evaluator};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

struct Request {
    id: u64,
    /// `[n, planes, 8, 8]`.
    input: Array4<f32>,
    /// Policy indices of each position's legal moves.
    legal: Vec<Vec<usize>>,
    n: usize,
}

#[derive(Default)]
struct State {
    pending: Vec<Request>,
    pending_rows: usize,
    leader: bool,
    next_id: u64,
    done: HashMap<u64, Result<Arc<(crate::evaluator::RawOutput, usize)>, String>>,
}

/// Merges concurrent `evaluate` calls into one network batch.
pub struct BatchingNetEvaluator {
    net: Mutex<Net>,
    inputs: crate::encoding::Inputs,
    /// Share of the material head in the value (see [`crate::evaluator::finish`]).
    material_mix: f32,
    /// Start a batch once this many callers are waiting (e.g. the number of threads).
    callers: usize,
    /// ... or once this many rows are pending; a batch holds at most this many rows (but
    /// always at least one request), the rest waiting for the next.
    max_rows: usize,
    /// ... or after waiting this long for more.
    max_wait: Duration,
    state: Mutex<State>,
    cv: Condvar,
    stats: Mutex<Stats>,
}

#[derive(Default, Clone, Copy)]
struct Stats {
    calls: u64,
    rows: u64,
    /// Rows of the largest batch so far.
    largest: u64,
}

impl BatchingNetEvaluator {
    pub fn new(
        net: Net,
        inputs: impl Into<crate::encoding::Inputs>,
        callers: usize,
        max_rows: usize,
        max_wait: Duration,
    ) -> Self {
        BatchingNetEvaluator {
            material_mix: crate::evaluator::configured_mix(&net),
            net: Mutex::new(net),
            inputs: inputs.into(),
            callers: callers.max(1),
            max_rows: max_rows.max(1),
            max_wait,
            state: Mutex::new(State::default()),
            cv: Condvar::new(),
            stats: Mutex::new(Stats::default()),
        }
    }

    /// (network calls, rows evaluated) so far: their ratio is the mean batch size.
    pub fn batch_stats(&self) -> (u64, u64) {
        let s = *self.stats.lock().unwrap_or_else(|e| e.into_inner());
        (s.calls, s.rows)
    }

    /// Rows of the largest network call so far.
    pub fn largest_batch(&self) -> u64 {
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).largest
    }

    fn lead(&self, mut st: std::sync::MutexGuard<'_, State>) -> std::sync::MutexGuard<'_, State> {
        st.leader = true;
        let deadline = Instant::now() + self.max_wait;
        while st.pending.len() < self.callers && st.pending_rows < self.max_rows {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            st = self.cv.wait_timeout(st, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
        let (take, rows) = batch_len(st.pending.iter().map(|r| r.n), self.max_rows);
        let batch: Vec<Request> = st.pending.drain(..take).collect();
        st.pending_rows -= rows;
        drop(st);

        let inputs: Vec<_> = batch.iter().map(|r| r.input.view()).collect();
        let legal: Vec<&[usize]> = batch.iter().flat_map(|r| r.legal.iter().map(Vec::as_slice)).collect();
        // A panic in the network (tch panics on some libtorch errors, e.g. CUDA running out
        // of memory) becomes every caller's error: the leader must still hand out results
        // and step down, or the other callers would wait for ever.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ndarray::concatenate(Axis(0), &inputs).map_err(|e| format!("{e}")).and_then(|input| {
                let net = self.net.lock().unwrap_or_else(|e| e.into_inner());
                run_net(&net, &input, &legal).map(Arc::new).map_err(|e| format!("{e:#}"))
            })
        }))
        .unwrap_or_else(|panic| Err(format!("the network panicked: {}", crate::panic_message(&*panic))));
        {
            let mut s = self.stats.lock().unwrap_or_else(|e| e.into_inner());
            s.calls += 1;
            s.rows += rows as u64;
            s.largest = s.largest.max(rows as u64);
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut offset = 0;
        for r in &batch {
            let entry = match &result {
                Ok(raw) => Ok(Arc::new((raw.slice_rows(offset, r.n), r.n))),
                Err(e) => Err(e.clone()),
            };
            st.done.insert(r.id, entry);
            offset += r.n;
        }
        st.leader = false;
        self.cv.notify_all();
        st
    }
}

/// How many of the pending requests (their sizes in rows, oldest first) one batch takes,
/// and their rows: whole requests up to `max_rows` rows, and always the first.
fn batch_len(sizes: impl Iterator<Item = usize>, max_rows: usize) -> (usize, usize) {
    let (mut take, mut rows) = (0, 0);
    for n in sizes {
        if take > 0 && rows + n > max_rows {
            break;
        }
        take += 1;
        rows += n;
    }
    (take, rows)
}

impl Evaluator for BatchingNetEvaluator {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        if histories.is_empty() {
            return Ok(Vec::new());
        }
        let prepared = prepare(histories, self.inputs);
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let id = st.next_id;
        st.next_id += 1;
        st.pending_rows += histories.len();
        st.pending.push(Request { id, input: prepared.input, legal: prepared.legal, n: histories.len() });
        self.cv.notify_all();
        let raw = loop {
            if let Some(r) = st.done.remove(&id) {
                break r;
            }
            if !st.leader {
                st = self.lead(st);
                continue;
            }
            st = self.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        };
        drop(st);
        let raw = raw.map_err(|e| anyhow::anyhow!(e))?;
        Ok((0..histories.len()).map(|i| finish(&raw.0, i, self.material_mix)).collect())
    }

    fn describe(&self) -> String {
        let net = self.net.lock().unwrap_or_else(|e| e.into_inner());
        let c = net.config();
        format!(
            "net {}x{} on {:?}, callers' batches merged ({} callers a batch, {} rows at most)",
            c.blocks,
            c.channels,
            net.device(),
            self.callers,
            self.max_rows
        )
    }
    fn batch_stats(&self) -> Option<(u64, u64)> {
        Some(BatchingNetEvaluator::batch_stats(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::NetEvaluator;

    #[test]
    fn a_batch_takes_whole_requests_up_to_max_rows() {
        assert_eq!(batch_len([2, 2, 2, 2].into_iter(), 4), (2, 4));
        assert_eq!(batch_len([2, 2, 2, 2].into_iter(), 5), (2, 4));
        assert_eq!(batch_len([2, 2, 2, 2].into_iter(), 100), (4, 8));
        assert_eq!(batch_len([6, 2].into_iter(), 4), (1, 6));
        assert_eq!(batch_len([1, 1, 5, 1].into_iter(), 4), (2, 2));
        assert_eq!(batch_len(std::iter::empty(), 4), (0, 0));
    }

    #[test]
    fn merged_batches_equal_single_calls() {
        let cfg = crate::net_config(1, 8, 0);
        crate::tch::manual_seed(3);
        let net = Net::new(cfg.clone(), tch::Device::Cpu).unwrap();
        let single_net = net.try_clone_to(tch::Device::Cpu, crate::Precision::F32).unwrap();
        let batched = BatchingNetEvaluator::new(net, 0, 3, 10_000, Duration::from_millis(50));
        let single = NetEvaluator::new(single_net, 0);
        let mut positions = vec![Position::startpos()];
        for m in ["e2e4", "b8c6e", "g1f3h"] {
            let p = positions.last().unwrap().clone();
            positions.push(p.play(p.parse_uci(m).unwrap()).unwrap());
        }
        let results: Vec<Vec<Evaluation>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|t| {
                    let (b, ps) = (&batched, &positions);
                    s.spawn(move || {
                        b.evaluate(&[std::slice::from_ref(&ps[t]), std::slice::from_ref(&ps[t + 1])]).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (t, r) in results.iter().enumerate() {
            let expect = single
                .evaluate(&[std::slice::from_ref(&positions[t]), std::slice::from_ref(&positions[t + 1])])
                .unwrap();
            for (a, b) in r.iter().zip(&expect) {
                assert_eq!(a.priors.len(), b.priors.len());
                for (x, y) in a.priors.iter().zip(&b.priors) {
                    assert!((x - y).abs() < 1e-5);
                }
                for (x, y) in a.wdl.iter().zip(&b.wdl) {
                    assert!((x - y).abs() < 1e-5);
                }
            }
        }
        let (calls, rows) = batched.batch_stats();
        assert_eq!(rows, 6);
        assert!(calls <= 3);
    }

    /// With `max_rows` below what all callers bring, a batch takes whole requests, oldest
    /// first, up to that many rows; the rest go in the next call, and every caller still
    /// gets its own rows. Requests of three rows against a cap of four: two pending
    /// requests start a batch (six rows), which must take only the first.
    #[test]
    fn a_batch_holds_at_most_max_rows() {
        let cfg = crate::net_config(1, 8, 0);
        crate::tch::manual_seed(4);
        let net = Net::new(cfg.clone(), tch::Device::Cpu).unwrap();
        let single = NetEvaluator::new(net.try_clone_to(tch::Device::Cpu, crate::Precision::F32).unwrap(), 0);
        let batched = BatchingNetEvaluator::new(net, 0, 4, 4, Duration::from_millis(50));
        let mut positions = vec![Position::startpos()];
        for m in ["e2e4", "b8c6e", "g1f3h", "e7e5", "f1c4"] {
            let p = positions.last().unwrap().clone();
            positions.push(p.play(p.parse_uci(m).unwrap()).unwrap());
        }
        let triple =
            |t: usize| -> Vec<&[Position]> { (t..t + 3).map(|i| std::slice::from_ref(&positions[i])).collect() };
        let results: Vec<Vec<Evaluation>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|t| {
                    let (b, triple) = (&batched, &triple);
                    s.spawn(move || (0..3).flat_map(|_| b.evaluate(&triple(t)).unwrap()).collect())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (t, r) in results.iter().enumerate() {
            let expect = single.evaluate(&triple(t)).unwrap();
            assert_eq!(r.len(), 9);
            for (a, b) in r.iter().zip(expect.iter().cycle()) {
                for (x, y) in a.wdl.iter().zip(&b.wdl) {
                    assert!((x - y).abs() < 1e-5);
                }
            }
        }
        let (calls, rows) = batched.batch_stats();
        assert_eq!((calls, rows), (9, 27), "one request a call");
        assert_eq!(batched.largest_batch(), 3);
    }
}
