//! Probing a network: what its policy and value heads think of gating.
//!
//! * **Policy.** Every gating move has a non-gating *twin*, the same move without the gate
//!   ([`Move::without_gate`]). The ratio `p(gate) / (p(gate) + p(twin))` says how strongly
//!   the network prefers gating on that move to not gating; 0.5 is indifference (a uniform
//!   policy gives exactly 0.5). `p(E) / (p(E) + p(H))` for the same move and square says
//!   which piece it prefers.
//! * **Value.** For the few most likely moves of a position that can gate, each variant
//!   (no gate, gate E, gate H, on each square castling allows) is played and the resulting
//!   position evaluated, one forward pass per variant, batched. The value there is from the
//!   opponent's view (the side to move after the move), so it is negated: `v(move)` is the
//!   mover's expected score in [-1, 1]. Checkmate and stalemate are scored by the rules.

use crate::games::ProbeCandidate;
use crate::stats::GateVia;
use anyhow::Context;
use schess::{HandPiece, Move, Position, Square, Variant};
use search::evaluator::{values_after, Evaluator};
use std::collections::BTreeMap;
use std::path::Path;

/// How much to probe.
#[derive(Debug, Clone, Copy)]
pub struct ProbeOptions {
    /// Positions probed at most (chosen evenly from the candidates, in their order).
    pub max_positions: usize,
    /// Moves per position whose gating variants get a value probe, most likely first
    /// (by the policy mass of the move and its variants); 0 = all.
    pub value_moves: usize,
    /// Positions per forward pass.
    pub batch: usize,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions { max_positions: 256, value_moves: 4, batch: 64 }
    }
}

/// The policy on one gating move and on its twin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyObs {
    pub via: GateVia,
    pub square: Square,
    pub piece: HandPiece,
    pub prior: f32,
    /// Prior of the same move without the gate; `None` when that move is illegal (a pinned
    /// back-rank piece may leave its square only if the gated piece takes over the pin).
    pub twin_prior: Option<f32>,
}

/// Values of one gating move and of its twin, from the mover's view.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueObs {
    /// Which position (`file#game@ply` or `file:line`).
    pub origin: String,
    /// The position (so other engines can value the same moves).
    pub fen: String,
    pub uci: String,
    /// The same move without the gate (castling gates: the plain castling move).
    pub twin_uci: String,
    pub via: GateVia,
    pub square: Square,
    pub piece: HandPiece,
    pub value: f32,
    pub twin_value: Option<f32>,
    /// Value of the same move and square gating the other piece, if legal.
    pub other_piece_value: Option<f32>,
}

/// Policy mass of one probed position, split three ways.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MassSplit {
    /// On gating moves.
    pub gating: f32,
    /// On the non-gating twins of gating moves.
    pub twins: f32,
    /// On every other move.
    pub other: f32,
}

/// Everything a probe found.
#[derive(Debug, Clone, Default)]
pub struct ProbeResults {
    /// Positions probed (each had at least one legal gating move).
    pub positions: usize,
    /// Candidates without a legal gating move (skipped).
    pub without_gates: usize,
    pub mass: Vec<MassSplit>,
    pub policy: Vec<PolicyObs>,
    pub values: Vec<ValueObs>,
    /// Variants evaluated for the value probe (forward-pass rows).
    pub evaluated: usize,
}

/// Reads positions from an EPD or FEN file: one a line; blank lines and `#` comments are
/// skipped; EPD operations after the fourth field are ignored. A FEN with a hand (`[...]`)
/// is S-Chess, else orthodox chess. Unreadable lines are warnings naming file and line.
pub fn read_positions(path: &Path) -> anyhow::Result<(Vec<ProbeCandidate>, Vec<String>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read positions", path.display()))?;
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let variant = if line.contains('[') { Variant::Seirawan } else { Variant::Chess };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let parsed = Position::from_fen_variant(line, variant).or_else(|e| {
            if fields.len() >= 4 {
                Position::from_fen_variant(&format!("{} 0 1", fields[..4].join(" ")), variant)
            } else {
                Err(e)
            }
        });
        match parsed {
            Ok(pos) => {
                out.push(ProbeCandidate { history: vec![pos], origin: format!("{}:{}", file_name(path), i + 1) })
            }
            Err(e) => warnings.push(format!("{}:{}: {e}", path.display(), i + 1)),
        }
    }
    Ok((out, warnings))
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into())
}

/// `n` items spread evenly over `items` (all of them when there are fewer).
fn spread<T>(items: &[T], n: usize) -> Vec<&T> {
    if items.len() <= n {
        return items.iter().collect();
    }
    (0..n).map(|i| &items[i * items.len() / n]).collect()
}

/// Probes `evaluator` (a network seeing `history` earlier positions) on `candidates`.
pub fn probe(
    evaluator: &dyn Evaluator,
    history: usize,
    candidates: &[ProbeCandidate],
    opts: ProbeOptions,
) -> anyhow::Result<ProbeResults> {
    let mut results = ProbeResults::default();
    let gating: Vec<&ProbeCandidate> =
        candidates.iter().filter(|c| c.position().legal_moves().iter().any(|m| m.gate().is_some())).collect();
    results.without_gates = candidates.len() - gating.len();
    let chosen = spread(&gating, opts.max_positions);
    results.positions = chosen.len();
    let batch = opts.batch.max(1);

    // Policy: one forward pass per position.
    let mut priors: Vec<Vec<f32>> = Vec::with_capacity(chosen.len());
    for chunk in chosen.chunks(batch) {
        let histories: Vec<&[Position]> = chunk.iter().map(|c| tail(&c.history, history + 1)).collect();
        priors.extend(evaluator.evaluate(&histories)?.into_iter().map(|e| e.priors));
    }

    // Value jobs: (position index, move) for the chosen moves' variants.
    let mut jobs: Vec<(usize, Move)> = Vec::new();
    for (i, (cand, pri)) in chosen.iter().zip(&priors).enumerate() {
        let pos = cand.position();
        let moves = pos.legal_moves();
        if pri.len() != moves.len() {
            anyhow::bail!("{}: evaluator returned {} priors for {} legal moves", cand.origin, pri.len(), moves.len());
        }
        let prior_of: BTreeMap<String, f32> = moves.iter().zip(pri).map(|(m, &p)| (m.to_uci(), p)).collect();
        let mut split = MassSplit::default();
        // Move groups: a base move and all its gating variants, with their total mass.
        let mut groups: BTreeMap<String, (f32, Vec<Move>)> = BTreeMap::new();
        for (&m, &p) in moves.iter().zip(pri) {
            let base = m.without_gate();
            let key = base.to_uci();
            let g = groups.entry(key).or_insert((0.0, Vec::new()));
            g.0 += p;
            g.1.push(m);
        }
        for (&m, &p) in moves.iter().zip(pri) {
            match (m.gate(), GateVia::of(pos, m)) {
                (Some((piece, square)), Some(via)) => {
                    split.gating += p;
                    let twin_prior = prior_of.get(&m.without_gate().to_uci()).copied();
                    results.policy.push(PolicyObs { via, square, piece, prior: p, twin_prior });
                }
                _ if groups.get(&m.to_uci()).is_some_and(|g| g.1.len() > 1) => split.twins += p,
                _ => split.other += p,
            }
        }
        results.mass.push(split);
        let mut ranked: Vec<&(f32, Vec<Move>)> = groups.values().filter(|g| g.1.len() > 1).collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        let take = if opts.value_moves == 0 { ranked.len() } else { opts.value_moves };
        for g in ranked.into_iter().take(take) {
            jobs.extend(g.1.iter().map(|&m| (i, m)));
        }
    }

    // Value: one forward pass per variant, batched; terminal positions by the rules.
    let lines: Vec<(&[Position], Move)> = jobs.iter().map(|&(i, m)| (tail(&chosen[i].history, history), m)).collect();
    let scored = values_after(evaluator, &lines, batch)?;
    results.evaluated = scored.iter().filter(|v| !v.by_rules).count();

    let value_of: BTreeMap<(usize, String), f32> =
        jobs.iter().zip(&scored).map(|(&(i, m), v)| ((i, m.to_uci()), v.score)).collect();
    for (&(i, m), v) in jobs.iter().zip(&scored) {
        let Some((piece, square)) = m.gate() else { continue };
        let pos = chosen[i].position();
        let via = GateVia::of(pos, m).expect("gating move");
        let other = other_piece(m);
        results.values.push(ValueObs {
            origin: chosen[i].origin.clone(),
            fen: pos.fen(),
            uci: m.to_uci(),
            twin_uci: m.without_gate().to_uci(),
            via,
            square,
            piece,
            value: v.score,
            twin_value: value_of.get(&(i, m.without_gate().to_uci())).copied(),
            other_piece_value: other.and_then(|o| value_of.get(&(i, o.to_uci())).copied()),
        });
    }
    Ok(results)
}

/// The same move gating the other hand piece on the same square.
fn other_piece(m: Move) -> Option<Move> {
    let swap = HandPiece::other;
    match m {
        Move::Normal { from, to, gate: Some(p) } => Some(Move::Normal { from, to, gate: Some(swap(p)) }),
        Move::Castle { king, rook, gate: Some((p, at)) } => {
            Some(Move::Castle { king, rook, gate: Some((swap(p), at)) })
        }
        _ => None,
    }
}

fn tail<T>(v: &[T], n: usize) -> &[T] {
    &v[v.len().saturating_sub(n)..]
}

/// Mean and count of a series, for aggregates.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Mean {
    pub n: u64,
    sum: f64,
    sum_sq: f64,
}

impl Mean {
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
    /// Standard error of the mean (`None` below two observations).
    pub fn stderr(&self) -> Option<f64> {
        if self.n < 2 {
            return None;
        }
        let n = self.n as f64;
        let var = ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0);
        Some((var / n).sqrt())
    }
}

/// Policy aggregates for one key and piece.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PolicyAgg {
    /// `p(gate) / (p(gate) + p(twin))` over moves whose twin is legal.
    pub vs_twin: Mean,
    /// `p(gate)`.
    pub prior: Mean,
}

/// Value aggregates for one key and piece.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ValueAgg {
    /// `v(gate) - v(twin)`.
    pub vs_twin: Mean,
    /// Share of moves where gating scored higher than not gating.
    pub better: Mean,
    /// `v(this piece) - v(the other piece)` for the same move and square.
    pub vs_other: Mean,
}

impl ProbeResults {
    /// Policy aggregates by `key`, per piece (index = `HandPiece::index`).
    pub fn policy_by<K: Ord>(&self, key: impl Fn(&PolicyObs) -> K) -> BTreeMap<K, [PolicyAgg; 2]> {
        let mut out: BTreeMap<K, [PolicyAgg; 2]> = BTreeMap::new();
        for o in &self.policy {
            let a = &mut out.entry(key(o)).or_default()[o.piece.index()];
            a.prior.add(o.prior as f64);
            if let Some(t) = o.twin_prior {
                let s = o.prior + t;
                if s > 0.0 {
                    a.vs_twin.add((o.prior / s) as f64);
                }
            }
        }
        out
    }

    /// Value aggregates by `key`, per piece.
    pub fn value_by<K: Ord>(&self, key: impl Fn(&ValueObs) -> K) -> BTreeMap<K, [ValueAgg; 2]> {
        let mut out: BTreeMap<K, [ValueAgg; 2]> = BTreeMap::new();
        for o in &self.values {
            let a = &mut out.entry(key(o)).or_default()[o.piece.index()];
            if let Some(t) = o.twin_value {
                a.vs_twin.add((o.value - t) as f64);
                a.better.add(if o.value > t { 1.0 } else { 0.0 });
            }
            if let Some(x) = o.other_piece_value {
                a.vs_other.add((o.value - x) as f64);
            }
        }
        out
    }

    /// Mean mass split over probed positions.
    pub fn mean_mass(&self) -> MassSplit {
        let n = self.mass.len().max(1) as f32;
        let mut m = MassSplit::default();
        for s in &self.mass {
            m.gating += s.gating / n;
            m.twins += s.twins / n;
            m.other += s.other / n;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use search::evaluator::UniformEvaluator;

    #[test]
    fn uniform_policy_is_indifferent() {
        let pos = Position::startpos();
        let cands = vec![ProbeCandidate { history: vec![pos.clone()], origin: "start".into() }];
        let r =
            probe(&UniformEvaluator, 2, &cands, ProbeOptions { value_moves: 0, ..ProbeOptions::default() }).unwrap();
        assert_eq!(r.positions, 1);
        // Start: 4 knight moves x (plain, E, H) + 16 pawn moves = 28 moves.
        assert_eq!(r.policy.len(), 8);
        let m = r.mean_mass();
        assert!((m.gating - 8.0 / 28.0).abs() < 1e-6 && (m.twins - 4.0 / 28.0).abs() < 1e-6);
        for a in r.policy_by(|o| o.via).values().flatten() {
            assert!((a.vs_twin.mean().unwrap() - 0.5).abs() < 1e-6);
        }
        // Uniform values: every variant scores 1/3 - 1/3 = 0 for the mover.
        assert_eq!(r.values.len(), 8);
        assert_eq!(r.evaluated, 12);
        for a in r.value_by(|o| o.square).values().flatten() {
            assert_eq!(a.vs_twin.mean(), Some(0.0));
            assert_eq!(a.vs_other.mean(), Some(0.0));
        }
    }
}
