//! Batches: samples turned into input planes and dense targets, on background threads.
//!
//! The training thread decides *which* samples form each batch (the sampler, so that the
//! order is deterministic); loader threads do the costly part, encoding planes and
//! expanding the sparse policy, a few batches ahead, and hand the batches back in the
//! order they were asked for. The device thus never waits for data unless the loader is
//! genuinely slower than training.

use crate::window::SampleRef;
use models::encoding::encode;
use models::policy_index::{index_of, POLICY_SIZE};
use ndarray::{Array, Array1, Array2, Array4, ArrayView1, Axis, Dimension};
use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use tch::{Device, Tensor};

/// A batch in host memory, each field an array shaped like the tensor it becomes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HostBatch {
    /// `[len, planes, 8, 8]`.
    pub(crate) inputs: Array4<f32>,
    /// `[len, POLICY_SIZE]`, each row summing to 1.
    pub(crate) policy: Array2<f32>,
    /// `[len, 3]`: the game result for the side to move, one-hot W/D/L.
    pub(crate) wdl: Array2<f32>,
    /// `[len, 3]`: the search's root W/D/L, side to move's view.
    pub(crate) root_wdl: Array2<f32>,
    /// `[len]`: plies left in the game after this position.
    pub(crate) moves_left: Array1<f32>,
    /// `[len]`: the side to move's live material lead `horizon` plies later (pawns),
    /// when the network has a material head.
    pub(crate) material: Option<Array1<f32>>,
    /// `[len, POLICY_SIZE]`: 1 for the legal moves, 0 elsewhere, when the policy is
    /// masked.
    pub(crate) legal: Option<Array2<f32>>,
}

/// What a batch holds besides planes, policy and result (from the network and config).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Targets {
    /// What the network sees (earlier positions, attack planes).
    pub(crate) inputs: models::encoding::Inputs,
    /// Plies ahead of the material target, when the network has a material head.
    pub(crate) material_horizon: Option<usize>,
    /// What a piece in hand counts in that target (`schess::material::weighted_balance`).
    pub(crate) hand_weight: f32,
    /// Build the legal-move mask for a policy softmax over legal moves only.
    pub(crate) legal_mask: bool,
}

/// A batch on the training device.
#[derive(Debug)]
pub struct Batch {
    pub inputs: Tensor,
    pub policy: Tensor,
    pub wdl: Tensor,
    pub root_wdl: Tensor,
    pub moves_left: Tensor,
    /// `[N]` material targets (pawns), when the batch has them.
    pub material: Option<Tensor>,
    /// `[N, POLICY_SIZE]` legal-move mask (1 legal, 0 not), when the batch has one.
    pub legal: Option<Tensor>,
}

impl HostBatch {
    /// Encodes `refs` with the targets `t` asks for.
    pub(crate) fn build(refs: &[SampleRef], t: Targets) -> HostBatch {
        let inputs = t.inputs;
        let n = refs.len();
        let mut b = HostBatch {
            inputs: Array4::zeros((n, inputs.planes(), 8, 8)),
            policy: Array2::zeros((n, POLICY_SIZE)),
            wdl: Array2::zeros((n, 3)),
            root_wdl: Array2::zeros((n, 3)),
            moves_left: Array1::zeros(n),
            material: t.material_horizon.map(|_| Array1::zeros(n)),
            legal: t.legal_mask.then(|| Array2::zeros((n, POLICY_SIZE))),
        };
        for (i, r) in refs.iter().enumerate() {
            let game = &r.game;
            let s = r.sample();
            let ply = s.ply as usize;
            let mut planes = b.inputs.index_axis_mut(Axis(0), i);
            encode(&game.positions[..=ply], inputs, planes.as_slice_mut().expect(CONTIGUOUS));
            // Sums were checked to be positive when the shard was loaded; normalising
            // makes pruned or rounded targets proper distributions.
            let sum: f32 = s.policy.iter().map(|p| p.1).sum();
            let mut row = b.policy.row_mut(i);
            for &(idx, p) in &s.policy {
                row[idx as usize] += p / sum;
            }
            let turn = game.positions[ply].turn();
            let result = match turn {
                schess::Color::White => game.result,
                schess::Color::Black => -game.result,
            };
            b.wdl[[i, (1 - result) as usize]] = 1.0;
            b.root_wdl.row_mut(i).assign(&ArrayView1::from(&s.root_wdl));
            b.moves_left[i] = game.plies.saturating_sub(ply) as f32;
            if let (Some(h), Some(material)) = (t.material_horizon, b.material.as_mut()) {
                let later = &game.positions[(ply + h).min(game.positions.len() - 1)];
                let white_lead = schess::material::weighted_balance(later, t.hand_weight);
                material[i] = if turn == schess::Color::White { white_lead } else { -white_lead };
            }
            if let Some(legal) = b.legal.as_mut() {
                let mut row = legal.row_mut(i);
                for m in game.positions[ply].legal_moves() {
                    if let Some(k) = index_of(m, turn) {
                        row[k] = 1.0;
                    }
                }
            }
        }
        b
    }

    /// Positions in the batch.
    pub(crate) fn len(&self) -> usize {
        self.inputs.len_of(Axis(0))
    }

    /// Copies the batch to `device` as fp32 tensors (tch's conversion from ndarray keeps
    /// each array's shape).
    pub(crate) fn to_device(&self, device: Device) -> Batch {
        fn t<D: Dimension>(a: &Array<f32, D>, device: Device) -> Tensor {
            Tensor::try_from(a).expect("a standard-layout f32 array converts").to_device(device)
        }
        Batch {
            inputs: t(&self.inputs, device),
            policy: t(&self.policy, device),
            wdl: t(&self.wdl, device),
            root_wdl: t(&self.root_wdl, device),
            moves_left: t(&self.moves_left, device),
            material: self.material.as_ref().map(|a| t(a, device)),
            legal: self.legal.as_ref().map(|a| t(a, device)),
        }
    }
}

/// Rows of the freshly allocated (standard-layout) arrays are contiguous.
const CONTIGUOUS: &str = "rows of a standard-layout array are contiguous";

/// The loader threads died (a bug: batch building does not fail on valid samples).
#[derive(Debug, thiserror::Error)]
#[error("data loader thread stopped unexpectedly")]
pub struct LoaderError;

type Job = (u64, Vec<SampleRef>);

/// Builds batches on `threads` background threads (or inline with 0), returning them in
/// submission order.
pub(crate) struct Loader {
    targets: Targets,
    jobs: Option<mpsc::Sender<Job>>,
    results: mpsc::Receiver<(u64, HostBatch)>,
    workers: Vec<JoinHandle<()>>,
    /// Jobs kept for inline building when there are no threads.
    inline: VecDeque<Vec<SampleRef>>,
    ready: BTreeMap<u64, HostBatch>,
    submitted: u64,
    taken: u64,
}

impl Loader {
    pub(crate) fn new(threads: usize, targets: Targets) -> Loader {
        let (job_tx, job_rx) = mpsc::channel::<Job>();
        let (res_tx, results) = mpsc::channel();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let workers = (0..threads)
            .map(|i| {
                let (job_rx, res_tx) = (Arc::clone(&job_rx), res_tx.clone());
                std::thread::Builder::new()
                    .name(format!("szero-loader-{i}"))
                    .spawn(move || loop {
                        // Hold the lock only while receiving, not while building.
                        let job = job_rx.lock().map_err(|_| ()).and_then(|rx| rx.recv().map_err(|_| ()));
                        let Ok((seq, refs)) = job else { return };
                        if res_tx.send((seq, HostBatch::build(&refs, targets))).is_err() {
                            return;
                        }
                    })
                    .expect("spawning a loader thread")
            })
            .collect();
        Loader {
            targets,
            jobs: Some(job_tx).filter(|_| threads > 0),
            results,
            workers,
            inline: VecDeque::new(),
            ready: BTreeMap::new(),
            submitted: 0,
            taken: 0,
        }
    }

    /// Queues a batch of samples.
    pub(crate) fn submit(&mut self, refs: Vec<SampleRef>) -> Result<(), LoaderError> {
        let seq = self.submitted;
        self.submitted += 1;
        match &self.jobs {
            Some(tx) => tx.send((seq, refs)).map_err(|_| LoaderError),
            None => {
                self.inline.push_back(refs);
                Ok(())
            }
        }
    }

    /// Batches submitted and not yet taken.
    pub(crate) fn in_flight(&self) -> u64 {
        self.submitted - self.taken
    }

    /// The oldest submitted batch, waiting for it if needed.
    pub(crate) fn take(&mut self) -> Result<HostBatch, LoaderError> {
        assert!(self.in_flight() > 0, "take without submit");
        let seq = self.taken;
        self.taken += 1;
        if self.jobs.is_none() {
            let refs = self.inline.pop_front().expect("one job per submit");
            return Ok(HostBatch::build(&refs, self.targets));
        }
        loop {
            if let Some(b) = self.ready.remove(&seq) {
                return Ok(b);
            }
            let (s, b) = self.results.recv().map_err(|_| LoaderError)?;
            self.ready.insert(s, b);
        }
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TrainConfig;
    use crate::synthetic;
    use crate::window::ShardStore;

    fn refs(dir: &std::path::Path) -> Vec<SampleRef> {
        synthetic::write_shards(dir, 1, 3, 9, 11).unwrap();
        let mut store = ShardStore::new(dir);
        store.refresh(&TrainConfig::default(), &|w| panic!("{w}")).unwrap();
        (0..store.total()).filter_map(|id| store.resolve(id)).collect()
    }

    fn targets(history: usize) -> Targets {
        Targets { inputs: history.into(), material_horizon: Some(3), hand_weight: 1.0, legal_mask: true }
    }

    #[test]
    fn targets_match_the_record() {
        let dir = tempfile::tempdir().unwrap();
        let refs = refs(dir.path());
        let b = HostBatch::build(&refs, targets(2));
        assert_eq!(b.len(), refs.len());
        for (i, r) in refs.iter().enumerate() {
            let s = r.sample();
            let row = b.policy.row(i);
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            for &(idx, p) in &s.policy {
                assert!(row[idx as usize] >= p - 1e-6);
            }
            // The result is seen from the side to move: it flips every ply.
            let white_to_move = s.ply % 2 == 0;
            let result = if white_to_move { r.game.result } else { -r.game.result };
            let expected = match result {
                1 => [1.0, 0.0, 0.0],
                0 => [0.0, 1.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            };
            assert_eq!(b.wdl.row(i), ArrayView1::from(&expected));
            assert_eq!(b.root_wdl.row(i), ArrayView1::from(&s.root_wdl));
            assert_eq!(b.moves_left[i], (r.game.plies - s.ply as usize) as f32);
            // Planes equal a direct encoding of the game's positions.
            let mut planes = vec![0.0; models::encoding::input_len(2)];
            encode(&r.game.positions[..=s.ply as usize], 2, &mut planes);
            assert_eq!(b.inputs.index_axis(Axis(0), i).as_slice().unwrap(), &planes[..]);
            // Material three plies on (or at the end), from the side to move's view.
            let ply = s.ply as usize;
            let later = &r.game.positions[(ply + 3).min(r.game.plies)];
            let lead = schess::material::live_balance(later) as f32;
            assert_eq!(b.material.as_ref().unwrap()[i], if white_to_move { lead } else { -lead });
            // The mask is exactly the legal moves, and covers the policy target.
            let mask = b.legal.as_ref().unwrap().row(i);
            let pos = &r.game.positions[ply];
            assert_eq!(mask.iter().filter(|&&v| v == 1.0).count() as u64, pos.count_legal_moves());
            assert!(s.policy.iter().all(|&(idx, _)| mask[idx as usize] == 1.0));
        }
        let t = b.to_device(Device::Cpu);
        assert_eq!(t.inputs.size(), [refs.len() as i64, models::encoding::planes(2) as i64, 8, 8]);
        assert_eq!(t.policy.size(), [refs.len() as i64, POLICY_SIZE as i64]);
        assert_eq!(t.material.as_ref().unwrap().size(), [refs.len() as i64]);
        // The tensors hold the arrays' values in the arrays' order.
        let back: ndarray::ArrayD<f32> = (&t.inputs).try_into().unwrap();
        assert_eq!(back.as_slice().unwrap(), b.inputs.as_slice().unwrap());
        let legal: ndarray::ArrayD<f32> = t.legal.as_ref().unwrap().try_into().unwrap();
        assert_eq!(legal.into_dimensionality::<ndarray::Ix2>().unwrap(), *b.legal.as_ref().unwrap());
    }

    /// Release-mode figures of the data pipeline alone:
    /// `cargo test --release -p trainer --lib batch_building_speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn batch_building_speed() {
        let dir = tempfile::tempdir().unwrap();
        synthetic::write_shards(dir.path(), 4, 32, 60, 1).unwrap();
        let mut store = ShardStore::new(dir.path());
        let t0 = std::time::Instant::now();
        store.refresh(&TrainConfig::default(), &|w| panic!("{w}")).unwrap();
        println!("loading {} samples (read, check, replay): {:?}", store.total(), t0.elapsed());
        let refs: Vec<_> = (0..256).map(|i| store.resolve(i * 29 % store.total()).unwrap()).collect();
        let t0 = std::time::Instant::now();
        for _ in 0..20 {
            std::hint::black_box(HostBatch::build(&refs, targets(2)));
        }
        println!("building a batch of 256 (history 2): {:?}", t0.elapsed() / 20);
        let b = HostBatch::build(&refs, targets(2));
        let t0 = std::time::Instant::now();
        for _ in 0..20 {
            std::hint::black_box(b.to_device(Device::Cpu));
        }
        println!("making its tensors: {:?}", t0.elapsed() / 20);
    }

    #[test]
    fn threads_return_batches_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let refs = refs(dir.path());
        for threads in [0, 3] {
            let mut loader = Loader::new(threads, targets(1));
            let chunks: Vec<Vec<SampleRef>> = refs.chunks(2).map(<[_]>::to_vec).collect();
            for c in &chunks {
                loader.submit(c.clone()).unwrap();
            }
            assert_eq!(loader.in_flight(), chunks.len() as u64);
            for c in &chunks {
                assert_eq!(loader.take().unwrap(), HostBatch::build(c, targets(1)));
            }
            assert_eq!(loader.in_flight(), 0);
        }
    }
}
