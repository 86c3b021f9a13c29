//! The interface search consults for a batch of positions (each with its game history):
//! for each, priors over its legal moves and a W/D/L estimate. Networks implement it in
//! `models`; the rules-only evaluators here need no network, so search and its tests run
//! without libtorch.
//!
//! Priors are in the order of [`schess::Position::legal_moves`], so search can zip them
//! with its own move list.

use schess::{Move, Position};

/// What an evaluator says about one position.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// One prior per legal move, in `legal_moves()` order, summing to 1 (empty when the
    /// position has no legal moves).
    pub priors: Vec<f32>,
    /// Win, draw, loss probabilities from the side to move's point of view.
    pub wdl: [f32; 3],
    /// Predicted plies until the game ends, if the network has that head.
    pub moves_left: Option<f32>,
    /// Predicted material lead of the side to move a few plies ahead (pawns), if the
    /// network has that head. Already blended into `wdl` by the network's `value_mix`.
    pub material: Option<f32>,
}

impl Evaluation {
    /// Expected score in [-1, 1] for the side to move.
    pub fn q(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// Something that scores positions for search.
pub trait Evaluator: Send + Sync {
    /// `histories[i]` is a game's positions up to and including the one to evaluate (the
    /// last); earlier positions feed the history planes and repetition flags.
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>>;

    /// A short description for logs.
    fn describe(&self) -> String;

    /// (network calls, positions evaluated) so far, for evaluators that run a network:
    /// their ratio is the mean batch.
    fn batch_stats(&self) -> Option<(u64, u64)> {
        None
    }
}

/// A move's expected score for the side that plays it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveValue {
    /// In [-1, 1].
    pub score: f32,
    /// The move ends the game and the rules gave the score (no evaluation was needed).
    pub by_rules: bool,
}

/// The expected score of each move for the side that plays it: the rules' value where the
/// move ends the game (checkmate 1, stalemate 0), otherwise the evaluator's value of the
/// position after it, negated (the opponent is to move there). `jobs[i]` is a game's
/// positions up to the one where the move is played (earlier ones feed the history
/// planes) and the move; positions are evaluated `batch` at a time.
pub fn values_after(
    evaluator: &dyn Evaluator,
    jobs: &[(&[Position], Move)],
    batch: usize,
) -> anyhow::Result<Vec<MoveValue>> {
    let mut out = vec![MoveValue { score: 0.0, by_rules: true }; jobs.len()];
    let mut pending: Vec<(usize, Vec<Position>)> = Vec::new();
    for (i, &(history, m)) in jobs.iter().enumerate() {
        let pos = history.last().ok_or_else(|| anyhow::anyhow!("{m}: no position to play it in"))?;
        let next = pos.play(m).map_err(|e| anyhow::anyhow!("{m}: {e}"))?;
        if next.is_checkmate() {
            out[i].score = 1.0;
            continue;
        }
        if next.is_stalemate() {
            continue;
        }
        let mut line = history.to_vec();
        line.push(next);
        pending.push((i, line));
    }
    for chunk in pending.chunks(batch.max(1)) {
        let lines: Vec<&[Position]> = chunk.iter().map(|(_, l)| l.as_slice()).collect();
        let evals = evaluator.evaluate(&lines)?;
        anyhow::ensure!(
            evals.len() == lines.len(),
            "evaluator returned {} evaluations for {}",
            evals.len(),
            lines.len()
        );
        for ((i, _), e) in chunk.iter().zip(evals) {
            out[*i] = MoveValue { score: -e.q(), by_rules: false };
        }
    }
    Ok(out)
}

/// Smart pointers to an evaluator are evaluators (every method forwarded).
macro_rules! forward_evaluator {
    ($($ptr:ident)::+) => {
        impl<E: Evaluator + ?Sized> Evaluator for $($ptr)::+<E> {
            fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
                (**self).evaluate(histories)
            }
            fn describe(&self) -> String {
                (**self).describe()
            }
            fn batch_stats(&self) -> Option<(u64, u64)> {
                (**self).batch_stats()
            }
        }
    };
}
forward_evaluator!(std::sync::Arc);
forward_evaluator!(Box);

/// Equal priors and an even W/D/L: search driven only by the rules (tests, baselines).
#[derive(Debug, Clone, Copy, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        Ok(histories
            .iter()
            .map(|h| {
                let n = h.last().map_or(0, |p| p.count_legal_moves() as usize);
                Evaluation {
                    priors: vec![1.0 / n.max(1) as f32; n],
                    wdl: [1.0 / 3.0; 3],
                    moves_left: None,
                    material: None,
                }
            })
            .collect())
    }
    fn describe(&self) -> String {
        "uniform".into()
    }
}

/// Pawns of material lead that [`material_q`] maps to an expected score of
/// tanh(1) ≈ 0.76: a minor piece up is a clear edge, a queen up close to a win.
pub const MATERIAL_Q_SCALE: f32 = 4.0;

/// An expected score in (-1, 1) for a material lead of `pawns` (side to move's view).
pub fn material_q(pawns: f32) -> f32 {
    (pawns / MATERIAL_Q_SCALE).tanh()
}

/// W/D/L with expected score `q` and no draw mass (for values that are not probabilities).
pub fn wdl_from_q(q: f32) -> [f32; 3] {
    let q = q.clamp(-1.0, 1.0);
    [(1.0 + q) / 2.0, 0.0, (1.0 - q) / 2.0]
}

/// Equal priors and a value from live material alone ([`schess::material::live_balance`]:
/// hand pieces count while they can still enter), squashed by [`material_q`]. Search with
/// it is the `mcts-material` baseline: a network that cannot beat it at equal nodes has
/// learnt nothing that counting does not give.
#[derive(Debug, Clone, Copy, Default)]
pub struct MaterialEvaluator;

impl Evaluator for MaterialEvaluator {
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        Ok(histories
            .iter()
            .map(|h| {
                let pos = h.last().expect("non-empty history");
                let n = pos.count_legal_moves() as usize;
                let white_lead = schess::material::live_balance(pos) as f32;
                let lead = if pos.turn() == schess::Color::White { white_lead } else { -white_lead };
                Evaluation {
                    priors: vec![1.0 / n.max(1) as f32; n],
                    wdl: wdl_from_q(material_q(lead)),
                    moves_left: None,
                    material: Some(lead),
                }
            })
            .collect())
    }
    fn describe(&self) -> String {
        "material".into()
    }
}

/// Softmax of `logits` at `indices` (numerically stable).
pub fn masked_softmax(logits: &[f32], indices: &[usize]) -> Vec<f32> {
    softmax(indices.iter().map(|&i| logits[i]).collect())
}

/// Softmax of `logits`, in place (numerically stable).
pub fn softmax(mut logits: Vec<f32>) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    logits.iter_mut().for_each(|x| *x = (*x - max).exp());
    let sum: f32 = logits.iter().sum();
    logits.iter_mut().for_each(|p| *p /= sum);
    logits
}

/// How many trailing positions of `positions` a network's encoding of its last position
/// reads with `history` steps: the steps themselves and, for each, the reversible window (back
/// to the last capture or pawn move) its repetition flag looks over. The encoding of the
/// last position, or of any position reached from it by further moves, is the same from
/// this suffix as from the whole game; a shorter suffix can miss a repetition.
pub fn context_len(positions: &[Position], history: usize) -> usize {
    let n = positions.len();
    let mut start = n.saturating_sub(history + 1);
    for j in 0..=history.min(n.saturating_sub(1)) {
        let i = n - 1 - j;
        start = start.min(i.saturating_sub(positions[i].halfmove_clock() as usize));
    }
    n - start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_priors_sum_to_one() {
        let pos = Position::startpos();
        let e = UniformEvaluator.evaluate(&[std::slice::from_ref(&pos)]).unwrap();
        assert_eq!(e[0].priors.len(), 28);
        assert!((e[0].priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn masked_softmax_covers_only_the_indices() {
        let p = masked_softmax(&[1.0, 50.0, 1.0, 3.0], &[0, 2]);
        assert_eq!(p, vec![0.5, 0.5]);
        assert!(masked_softmax(&[1.0], &[]).is_empty());
    }

    #[test]
    fn material_evaluator_scores_the_movers_live_material() {
        // White is a rook up; Black to move sees the same lead from its side.
        let w: Position = "4k3/8/8/8/8/8/8/R3K3[] w - - 0 1".parse().unwrap();
        let b: Position = "4k3/8/8/8/8/8/8/R3K3[] b - - 0 1".parse().unwrap();
        let ew = &MaterialEvaluator.evaluate(&[std::slice::from_ref(&w)]).unwrap()[0];
        let eb = &MaterialEvaluator.evaluate(&[std::slice::from_ref(&b)]).unwrap()[0];
        assert!((ew.q() - material_q(5.0)).abs() < 1e-6 && (eb.q() + material_q(5.0)).abs() < 1e-6);
        assert!((ew.priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(ew.priors.len() as u64, w.count_legal_moves());
        let start = &MaterialEvaluator.evaluate(&[&[Position::startpos()][..]]).unwrap()[0];
        assert_eq!(start.q(), 0.0);
        assert!(material_q(9.0) > material_q(5.0) && material_q(1.0) > 0.2);
    }

    #[test]
    fn values_after_moves_come_from_the_rules_or_the_evaluator() {
        // Ra8 mates; Rxb1 takes the knight (White then leads by 2 pawns); Kf1 leaves
        // White a pawn behind.
        let pos: Position = "6k1/5ppp/8/8/8/8/8/Rn4K1[] w - - 0 1".parse().unwrap();
        let history = [Position::startpos(), pos.clone()];
        let mv = |uci: &str| pos.parse_uci(uci).unwrap();
        let jobs: Vec<(&[Position], Move)> = ["a1a8", "a1b1", "g1f1"].iter().map(|u| (&history[..], mv(u))).collect();
        let v = values_after(&MaterialEvaluator, &jobs, 1).unwrap();
        assert_eq!(v[0], MoveValue { score: 1.0, by_rules: true });
        assert!(!v[1].by_rules && (v[1].score - material_q(2.0)).abs() < 1e-6, "{:?}", v[1]);
        assert!(!v[2].by_rules && (v[2].score - material_q(-1.0)).abs() < 1e-6, "{:?}", v[2]);
        assert_eq!(values_after(&MaterialEvaluator, &jobs, 64).unwrap(), v);
        let e2e4 = Position::startpos().parse_uci("e2e4").unwrap();
        let e = values_after(&MaterialEvaluator, &[(&history[..], e2e4)], 8).unwrap_err().to_string();
        assert!(e.starts_with("e2e4"), "{e}");
        assert!(values_after(&MaterialEvaluator, &[(&[][..], mv("a1a8"))], 8).is_err());
    }
}
