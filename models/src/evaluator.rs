//! The interface search uses to consult a network: a batch of positions (each with its game
//! history) in; for each, priors over its legal moves and a W/D/L estimate out.
//!
//! Priors are a softmax over the legal moves only, in the order of
//! [`schess::Position::legal_moves`], so search can zip them with its own move list.

use search::evaluator::{material_q, softmax, Evaluation, Evaluator};

use crate::encoding::{encode, Inputs};
use crate::net::Net;
use crate::policy_index::index_of;
use ndarray::Array4;
use schess::Position;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tch::{Kind, Tensor};

/// A network as evaluator: one or more copies of it, each behind its own lock. With one
/// copy, calls are serialised (batch across callers with a batching layer in front of it,
/// as a GPU wants); with one copy per calling thread (self-play on a CPU), every thread
/// runs its own batches while the others search, and none waits for another's call.
pub struct NetEvaluator {
    nets: Vec<Mutex<Net>>,
    inputs: Inputs,
    /// Share of the material head in the value (see [`finish`]).
    material_mix: f32,
    /// Where the next caller starts looking for a free copy.
    next: std::sync::atomic::AtomicUsize,
    /// Network calls and positions evaluated.
    calls: AtomicU64,
    rows: AtomicU64,
}

impl NetEvaluator {
    /// `inputs` must be what the network was built for ([`crate::inputs_of`]; a `usize`
    /// is a history length without the attack planes).
    pub fn new(net: Net, inputs: impl Into<Inputs>) -> NetEvaluator {
        let material_mix = configured_mix(&net);
        NetEvaluator {
            nets: vec![Mutex::new(net)],
            inputs: inputs.into(),
            material_mix,
            next: Default::default(),
            calls: AtomicU64::new(0),
            rows: AtomicU64::new(0),
        }
    }

    /// `copies` copies of `net` (same device and precision), at least one.
    pub fn with_copies(net: Net, inputs: impl Into<Inputs>, copies: usize) -> anyhow::Result<NetEvaluator> {
        let mut nets = Vec::with_capacity(copies.max(1));
        for _ in 1..copies.max(1) {
            nets.push(Mutex::new(net.try_clone_to(net.device(), net.precision())?));
        }
        let material_mix = configured_mix(&net);
        nets.push(Mutex::new(net));
        Ok(NetEvaluator {
            nets,
            inputs: inputs.into(),
            material_mix,
            next: Default::default(),
            calls: AtomicU64::new(0),
            rows: AtomicU64::new(0),
        })
    }

    /// Overrides the network's configured material mix (0..=1; no effect without a
    /// material head).
    pub fn with_material_mix(mut self, mix: f32) -> NetEvaluator {
        self.material_mix = mix.clamp(0.0, 1.0);
        self
    }

    /// A free copy if there is one, else the caller's turn on one of them.
    fn lock(&self) -> std::sync::MutexGuard<'_, Net> {
        let start = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let n = self.nets.len();
        for k in 0..n {
            if let Ok(g) = self.nets[(start + k) % n].try_lock() {
                return g;
            }
        }
        self.nets[start % n].lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Softmax over three logits.
pub fn softmax3(l: &[f32]) -> [f32; 3] {
    let m = l[0].max(l[1]).max(l[2]);
    let e = [(l[0] - m).exp(), (l[1] - m).exp(), (l[2] - m).exp()];
    let s = e[0] + e[1] + e[2];
    [e[0] / s, e[1] / s, e[2] / s]
}

/// Inputs of a batch, encoded on the caller's thread: planes and legal-move indices.
pub struct Prepared {
    /// `[positions, planes, 8, 8]`.
    pub input: Array4<f32>,
    pub legal: Vec<Vec<usize>>,
}

/// Raw network outputs of a batch, on the CPU, row-major.
pub struct RawOutput {
    /// Each row's policy logits at its legal moves (in the order asked for), rows back to
    /// back: the rest of the policy never leaves the network's device.
    pub policy: Vec<f32>,
    /// Where each row's logits start in `policy`, and where the last ends (rows + 1).
    pub policy_starts: Vec<usize>,
    pub wdl: Vec<f32>,
    pub moves_left: Option<Vec<f32>>,
    pub material: Option<Vec<f32>>,
}

impl RawOutput {
    /// Rows in the batch.
    pub fn rows(&self) -> usize {
        self.wdl.len() / 3
    }

    /// Row `row`'s legal-move logits.
    pub fn policy_row(&self, row: usize) -> &[f32] {
        &self.policy[self.policy_starts[row]..self.policy_starts[row + 1]]
    }

    /// Rows `start..start + n` as a batch of their own.
    pub fn slice_rows(&self, start: usize, n: usize) -> RawOutput {
        let (from, to) = (self.policy_starts[start], self.policy_starts[start + n]);
        RawOutput {
            policy: self.policy[from..to].to_vec(),
            policy_starts: self.policy_starts[start..=start + n].iter().map(|s| s - from).collect(),
            wdl: self.wdl[start * 3..(start + n) * 3].to_vec(),
            moves_left: self.moves_left.as_ref().map(|m| m[start..start + n].to_vec()),
            material: self.material.as_ref().map(|m| m[start..start + n].to_vec()),
        }
    }
}

/// Encodes a batch (planes + legal move indices): the CPU-side half of an evaluation,
/// done by the calling search thread so that a shared network thread only runs the net.
pub fn prepare(histories: &[&[Position]], inputs: Inputs) -> Prepared {
    let mut input = Array4::zeros((histories.len(), inputs.planes(), 8, 8));
    for (h, mut rows) in histories.iter().zip(input.outer_iter_mut()) {
        encode(h, inputs, rows.as_slice_mut().expect("rows of a fresh array are contiguous"));
    }
    let legal = histories
        .iter()
        .map(|h| {
            let pos = h.last().expect("non-empty history");
            let turn = pos.turn();
            pos.legal_moves().iter().map(|&m| index_of(m, turn).expect("legal moves have policy indices")).collect()
        })
        .collect();
    Prepared { input, legal }
}

/// Runs `net` on encoded positions (`[positions, planes, 8, 8]`) whose legal moves have
/// the policy indices `legal` (one list a row).
///
/// What crosses between host and device is kept small, since on a GPU the copies, not the
/// network, bound a large batch (BENCHMARKS.md, "szero on the H200"): the planes go up
/// already in the network's precision (the network converts them first thing, so doing it
/// here is exact and halves a bf16 network's upload), and only the legal moves' logits
/// come back (a position has about 40 of 2,338), gathered on the device in the network's
/// precision and widened to fp32 here.
pub fn run_net(net: &Net, input: &Array4<f32>, legal: &[&[usize]]) -> anyhow::Result<RawOutput> {
    let rows = input.shape()[0];
    anyhow::ensure!(legal.len() == rows, "{} legal-move lists for {rows} positions", legal.len());
    let xs = Tensor::try_from(input)?.to_kind(net.kind());
    let out = tch::no_grad(|| net.forward_t(&xs, false))?;
    let width = legal.iter().map(|l| l.len()).max().unwrap_or(0).max(1);
    let mut index = vec![0i64; rows * width];
    for (row, moves) in index.chunks_mut(width).zip(legal) {
        for (slot, &m) in row.iter_mut().zip(moves.iter()) {
            *slot = m as i64;
        }
    }
    let index = Tensor::from_slice(&index).view([rows as i64, width as i64]).to_device(out.policy.device());
    let to_vec = |t: &Tensor| -> anyhow::Result<Vec<f32>> {
        Ok(Vec::<f32>::try_from(t.to_device(tch::Device::Cpu).to_kind(Kind::Float).flatten(0, -1))?)
    };
    let gathered = to_vec(&tch::no_grad(|| out.policy.gather(1, &index, false)))?;
    let mut policy = Vec::with_capacity(legal.iter().map(|l| l.len()).sum());
    let mut policy_starts = Vec::with_capacity(rows + 1);
    for (row, moves) in gathered.chunks(width).zip(legal) {
        policy_starts.push(policy.len());
        policy.extend_from_slice(&row[..moves.len()]);
    }
    policy_starts.push(policy.len());
    Ok(RawOutput {
        policy,
        policy_starts,
        wdl: to_vec(&out.wdl)?,
        moves_left: out.moves_left.as_ref().map(to_vec).transpose()?,
        material: out.material.as_ref().map(to_vec).transpose()?,
    })
}

/// Turns row `row` of raw outputs into an evaluation. With a material prediction and
/// `material_mix` > 0, the expected score becomes
/// `(1 - mix) * (W - L) + mix * material_q(material)`, the draw probability kept.
pub fn finish(raw: &RawOutput, row: usize, material_mix: f32) -> Evaluation {
    let mut wdl = softmax3(&raw.wdl[row * 3..row * 3 + 3]);
    let material = raw.material.as_ref().map(|m| m[row]);
    if let Some(m) = material.filter(|_| material_mix > 0.0) {
        wdl = mix_material(wdl, m, material_mix);
    }
    Evaluation {
        priors: softmax(raw.policy_row(row).to_vec()),
        wdl,
        moves_left: raw.moves_left.as_ref().map(|m| m[row]),
        material,
    }
}

/// `wdl` with its expected score moved `mix` of the way to `material_q(material)`, the
/// draw probability kept (clamped so that it stays a distribution).
pub fn mix_material(wdl: [f32; 3], material: f32, mix: f32) -> [f32; 3] {
    if mix <= 0.0 {
        return wdl;
    }
    let d = wdl[1];
    let q = (1.0 - mix) * (wdl[0] - wdl[2]) + mix * material_q(material);
    let q = q.clamp(-(1.0 - d), 1.0 - d);
    [(1.0 - d + q) / 2.0, d, (1.0 - d - q) / 2.0]
}

/// The value mix a network's configuration asks for (0 without a material head).
pub fn configured_mix(net: &Net) -> f32 {
    net.config().material.map_or(0.0, |m| m.value_mix)
}

impl Evaluator for NetEvaluator {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        if histories.is_empty() {
            return Ok(Vec::new());
        }
        let prepared = prepare(histories, self.inputs);
        let legal: Vec<&[usize]> = prepared.legal.iter().map(Vec::as_slice).collect();
        let raw = {
            let net = self.lock();
            run_net(&net, &prepared.input, &legal)?
        };
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.rows.fetch_add(histories.len() as u64, Ordering::Relaxed);
        Ok((0..histories.len()).map(|i| finish(&raw, i, self.material_mix)).collect())
    }
    fn describe(&self) -> String {
        let net = self.lock();
        let c = net.config();
        let copies = if self.nets.len() > 1 { format!(" ({} copies)", self.nets.len()) } else { String::new() };
        format!("net {}x{} on {:?}{copies}", c.blocks, c.channels, net.device())
    }
    fn batch_stats(&self) -> Option<(u64, u64)> {
        Some((self.calls.load(Ordering::Relaxed), self.rows.load(Ordering::Relaxed)))
    }
}

/// Remembers evaluations by position (with its history), bounded in size: when the newer
/// of two generations fills up, the older one is dropped.
pub struct CachedEvaluator<E> {
    inner: E,
    history: usize,
    capacity: usize,
    maps: Mutex<(HashMap<u64, Evaluation>, HashMap<u64, Evaluation>)>,
}

impl<E: Evaluator> CachedEvaluator<E> {
    /// `capacity`: entries per generation (so at most twice that are held).
    pub fn new(inner: E, history: usize, capacity: usize) -> Self {
        CachedEvaluator {
            inner,
            history,
            capacity: capacity.max(1),
            maps: Mutex::new((HashMap::new(), HashMap::new())),
        }
    }

    /// The cache key: everything the network's input encoding reads of the history
    /// ([`crate::encoding::input_key`]), so equal keys mean equal inputs.
    pub fn key(&self, history: &[Position]) -> u64 {
        crate::encoding::input_key(history, self.history)
    }

    pub fn len(&self) -> usize {
        let m = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        m.0.len() + m.1.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<E: Evaluator> Evaluator for CachedEvaluator<E> {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        let keys: Vec<u64> = histories.iter().map(|h| self.key(h)).collect();
        let mut out: Vec<Option<Evaluation>> = {
            let m = self.maps.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter().map(|k| m.0.get(k).or_else(|| m.1.get(k)).cloned()).collect()
        };
        let missing: Vec<usize> = (0..histories.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let batch: Vec<&[Position]> = missing.iter().map(|&i| histories[i]).collect();
            let evals = self.inner.evaluate(&batch)?;
            let mut m = self.maps.lock().unwrap_or_else(|e| e.into_inner());
            for (&i, e) in missing.iter().zip(evals) {
                if m.0.len() >= self.capacity {
                    m.1 = std::mem::take(&mut m.0);
                }
                m.0.insert(keys[i], e.clone());
                out[i] = Some(e);
            }
        }
        Ok(out.into_iter().map(|e| e.expect("filled")).collect())
    }
    fn describe(&self) -> String {
        format!("cached {}", self.inner.describe())
    }
    fn batch_stats(&self) -> Option<(u64, u64)> {
        self.inner.batch_stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetConfig;
    use crate::encoding::planes;
    use crate::policy_index::POLICY_SIZE;
    use search::evaluator::UniformEvaluator;

    #[test]
    fn cache_key_tells_apart_inputs_that_differ_only_in_the_clock() {
        let eval = CachedEvaluator::new(UniformEvaluator, 1, 16);
        let a: Position = "4k3/8/8/8/8/8/8/R3K3[] w - - 0 1".parse().unwrap();
        let b: Position = "4k3/8/8/8/8/8/8/R3K3[] w - - 60 1".parse().unwrap();
        assert_eq!(a.key(), b.key());
        assert_ne!(eval.key(std::slice::from_ref(&a)), eval.key(std::slice::from_ref(&b)));
        eval.evaluate(&[std::slice::from_ref(&a), std::slice::from_ref(&b)]).unwrap();
        assert_eq!(eval.len(), 2);
    }

    #[test]
    fn material_mix_moves_the_expected_score_and_keeps_a_distribution() {
        let wdl = [0.2, 0.5, 0.3];
        assert_eq!(mix_material(wdl, 3.0, 0.0), wdl);
        let full = mix_material(wdl, 40.0, 1.0);
        assert!((full[0] - full[2] - 0.5).abs() < 1e-5, "capped by the draw mass: {full:?}");
        let half = mix_material(wdl, 4.0, 0.5);
        let q = 0.5 * -0.1 + 0.5 * material_q(4.0);
        assert!((half[0] - half[2] - q).abs() < 1e-5 && (half.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(half[1], 0.5);
    }

    #[test]
    fn net_evaluator_gives_legal_priors_and_cache_agrees() {
        let cfg = NetConfig::small(planes(1) as i64, POLICY_SIZE as i64);
        let net = Net::new(cfg, tch::Device::Cpu).unwrap();
        let eval = CachedEvaluator::new(NetEvaluator::new(net, 1), 1, 4);
        let a = Position::startpos();
        let b = a.play(a.parse_uci("e2e4").unwrap()).unwrap();
        let hist = [a.clone(), b.clone()];
        let batch: Vec<&[Position]> = vec![std::slice::from_ref(&a), &hist[..]];
        let first = eval.evaluate(&batch).unwrap();
        assert_eq!(first[0].priors.len(), 28);
        assert_eq!(first[1].priors.len() as u64, b.count_legal_moves());
        for e in &first {
            assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
        assert_eq!(eval.len(), 2);
        let again = eval.evaluate(&batch).unwrap();
        assert_eq!(first, again);
    }

    /// The legal-move logits gathered on the device, and the planes sent in the network's
    /// precision, give exactly what the whole policy read back as fp32 gives.
    #[test]
    fn run_net_equals_the_whole_policy_masked_on_the_host() {
        let cfg = NetConfig::small(planes(1) as i64, POLICY_SIZE as i64);
        tch::manual_seed(5);
        let f32_net = Net::new(cfg, tch::Device::Cpu).unwrap();
        let bf16_net = f32_net.try_clone_to(tch::Device::Cpu, crate::Precision::Bf16).unwrap();
        let a = Position::startpos();
        let b = a.play(a.parse_uci("e2e4").unwrap()).unwrap();
        let hist = [a.clone(), b];
        let batch: Vec<&[Position]> = vec![std::slice::from_ref(&a), &hist[..]];
        let prepared = prepare(&batch, 1.into());
        let legal: Vec<&[usize]> = prepared.legal.iter().map(Vec::as_slice).collect();
        for net in [&f32_net, &bf16_net] {
            let raw = run_net(net, &prepared.input, &legal).unwrap();
            let whole = net.infer(&Tensor::try_from(&prepared.input).unwrap()).unwrap();
            let width = POLICY_SIZE;
            let policy = Vec::<f32>::try_from(whole.policy.flatten(0, -1)).unwrap();
            let wdl = Vec::<f32>::try_from(whole.wdl.flatten(0, -1)).unwrap();
            assert_eq!(raw.wdl, wdl);
            for (row, moves) in legal.iter().enumerate() {
                let expect = search::evaluator::masked_softmax(&policy[row * width..(row + 1) * width], moves);
                assert_eq!(finish(&raw, row, 0.0).priors, expect);
            }
            let tail = raw.slice_rows(1, 1);
            assert_eq!(tail.policy_row(0), raw.policy_row(1));
            assert_eq!(tail.rows(), 1);
        }
    }
}
