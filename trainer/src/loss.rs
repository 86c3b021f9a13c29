//! The training objective and the metrics logged beside it.
//!
//! - policy: cross-entropy between the search's target and the policy logits, with the
//!   softmax over the legal moves only when the batch carries a legal mask (lc0; search
//!   only ever sees legal moves, and a softmax over the whole move index would spend the
//!   first thousand steps teaching legality);
//! - value: cross-entropy between the W/D/L logits and the game result, optionally
//!   blended with the search's value (lc0's q_ratio);
//! - moves left: Huber loss on plies divided by a scale, when the network has the head;
//! - material: Huber loss on the material lead a few plies ahead, in units of
//!   `material_scale` pawns, when the network has the head.
//!
//! Weight decay is the optimiser's business (see `optim`), not a loss term. Everything
//! is computed in fp32 even when the forward pass ran under bf16 autocast.

use crate::config::TrainConfig;
use crate::data::Batch;
use models::NetOutput;
use tch::{Kind, Reduction, Tensor};

/// One batch's losses and metrics, as scalar tensors on the training device (reading
/// them synchronises with the device, so callers accumulate and read them rarely).
#[derive(Debug)]
pub struct Losses {
    /// The weighted sum that is minimised (with autograd history).
    pub total: Tensor,
    pub policy: Tensor,
    pub value: Tensor,
    /// Zero when the network has no moves-left head.
    pub moves_left: Tensor,
    /// Zero when the network has no material head.
    pub material: Tensor,
    /// Fraction of samples whose most likely move is the target's most likely move.
    pub policy_accuracy: Tensor,
    /// Fraction of samples whose most likely W/D/L outcome is the game's result.
    pub value_accuracy: Tensor,
    /// Mean squared error of the expected score (W - L) against the result (-1, 0, 1):
    /// unlike the accuracy, it rewards a calibrated 60% as much on a drawn-heavy run as
    /// on a decisive one.
    pub value_mse: Tensor,
}

/// `-sum(target * log_softmax(logits))`, averaged over the batch.
fn soft_cross_entropy(logits: &Tensor, target: &Tensor) -> Tensor {
    -(target * logits.log_softmax(1, Kind::Float)).sum_dim_intlist(1, false, Kind::Float).mean(Kind::Float)
}

fn accuracy(logits: &Tensor, target: &Tensor) -> Tensor {
    logits.argmax(1, false).eq_tensor(&target.argmax(1, false)).to_kind(Kind::Float).mean(Kind::Float)
}

/// Added to the logits of illegal moves: their softmax mass becomes 0 (exp underflows)
/// while `0 * log p` stays finite, which `-inf` would not.
const ILLEGAL_LOGIT: f64 = -1e9;

/// Huber loss (threshold 1) of `pred` against `target`, both divided by `scale`.
fn scaled_huber(pred: &Tensor, target: &Tensor, scale: f64, delta: f64) -> Tensor {
    (pred.to_kind(Kind::Float) / scale).huber_loss(&(target / scale), Reduction::Mean, delta)
}

/// Losses of `out` against `batch`, with the weights and shapes of `cfg`'s loss fields.
pub fn compute(out: &NetOutput, batch: &Batch, cfg: &TrainConfig) -> Losses {
    let mut policy_logits = out.policy.to_kind(Kind::Float);
    if let Some(legal) = &batch.legal {
        policy_logits = &policy_logits + (1.0 - legal) * ILLEGAL_LOGIT;
    }
    let wdl_logits = out.wdl.to_kind(Kind::Float);
    let policy = soft_cross_entropy(&policy_logits, &batch.policy);
    let value_target = if cfg.q_ratio > 0.0 {
        &batch.wdl * (1.0 - cfg.q_ratio) + &batch.root_wdl * cfg.q_ratio
    } else {
        batch.wdl.shallow_clone()
    };
    let value = soft_cross_entropy(&wdl_logits, &value_target);
    let mut total = &policy * cfg.policy_weight + &value * cfg.value_weight;
    let zero = || Tensor::zeros([], (Kind::Float, batch.wdl.device()));
    let mut head = |loss: Tensor, weight: f64| {
        if weight > 0.0 {
            total += &loss * weight;
        }
        loss.detach()
    };
    let moves_left = match &out.moves_left {
        Some(ml) => head(
            scaled_huber(ml, &batch.moves_left, cfg.moves_left_scale, cfg.moves_left_huber_delta),
            cfg.moves_left_weight,
        ),
        None => zero(),
    };
    let material = match (&out.material, &batch.material) {
        (Some(pred), Some(target)) => head(scaled_huber(pred, target, cfg.material_scale, 1.0), cfg.material_weight),
        _ => zero(),
    };
    let probs = wdl_logits.softmax(1, Kind::Float);
    let expected = probs.select(1, 0) - probs.select(1, 2);
    let result = batch.wdl.select(1, 0) - batch.wdl.select(1, 2);
    Losses {
        policy_accuracy: accuracy(&policy_logits, &batch.policy).detach(),
        value_accuracy: accuracy(&wdl_logits, &batch.wdl).detach(),
        value_mse: (expected - result).square().mean(Kind::Float).detach(),
        policy: policy.detach(),
        value: value.detach(),
        moves_left,
        material,
        total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    fn t(v: &[f32], shape: &[i64]) -> Tensor {
        Tensor::from_slice(v).view(shape)
    }

    fn batch() -> Batch {
        Batch {
            inputs: Tensor::zeros([2, 1, 8, 8], (Kind::Float, Device::Cpu)),
            policy: t(&[1.0, 0.0, 0.0, 0.0, 0.5, 0.5], &[2, 3]),
            wdl: t(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0], &[2, 3]),
            root_wdl: t(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0], &[2, 3]),
            moves_left: t(&[10.0, 40.0], &[2]),
            material: None,
            legal: None,
        }
    }

    fn v(x: &Tensor) -> f64 {
        x.double_value(&[])
    }

    #[test]
    fn known_values() {
        let out = NetOutput {
            policy: t(&[0.0, 0.0, 0.0, 3.0, 0.0, 0.0], &[2, 3]),
            wdl: t(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], &[2, 3]),
            moves_left: Some(t(&[10.0, 20.0], &[2])),
            material: None,
        };
        let cfg = TrainConfig {
            policy_weight: 1.0,
            value_weight: 2.0,
            q_ratio: 0.0,
            moves_left_weight: 0.5,
            moves_left_scale: 10.0,
            moves_left_huber_delta: 0.5,
            material_weight: 1.0,
            material_scale: 4.0,
            ..TrainConfig::default()
        };
        let l = compute(&out, &batch(), &cfg);
        let ln3 = 3f64.ln();
        // Row 0: uniform logits, target one-hot: ln 3. Row 1: logits (3,0,0), target
        // (0, .5, .5): -log softmax = ln(e^3 + 2).
        let p = (ln3 + (3f64.exp() + 2.0).ln()) / 2.0;
        assert!((v(&l.policy) - p).abs() < 1e-5);
        assert!((v(&l.value) - ln3).abs() < 1e-5);
        // Scaled errors 0 and 2 with delta 0.5: (0 + 0.5 * (2 - 0.25)) / 2.
        let ml = 0.5 * (2.0 - 0.25) / 2.0;
        assert!((v(&l.moves_left) - ml).abs() < 1e-5, "{}", v(&l.moves_left));
        assert!((v(&l.total) - (p + 2.0 * ln3 + 0.5 * ml)).abs() < 1e-5);
        // Argmax ties go to index 0: row 0 right, row 1 wrong for both heads.
        assert!((v(&l.policy_accuracy) - 0.5).abs() < 1e-6);
        assert!((v(&l.value_accuracy) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn q_ratio_blends_the_root_value_and_no_head_means_no_loss() {
        let out = NetOutput {
            policy: Tensor::zeros([2, 3], (Kind::Float, Device::Cpu)),
            wdl: t(&[0.0, 5.0, 0.0, 0.0, 5.0, 0.0], &[2, 3]),
            moves_left: None,
            material: None,
        };
        let mut cfg = TrainConfig::default();
        let plain = v(&compute(&out, &batch(), &cfg).value);
        cfg.q_ratio = 1.0;
        let l = compute(&out, &batch(), &cfg);
        // Root W/D/L is "draw" in both rows, which the logits favour: lower loss.
        assert!(v(&l.value) < plain);
        assert_eq!(v(&l.moves_left), 0.0);
    }

    #[test]
    fn legal_mask_restricts_the_policy_softmax() {
        // Row 0 targets move 0 and row 1 moves 1 and 2; an illegal move in each row has a
        // huge logit. Unmasked, it takes almost all the probability; masked, nothing.
        let out = NetOutput {
            policy: t(&[0.0, 0.0, 20.0, 20.0, 0.0, 0.0], &[2, 3]),
            wdl: Tensor::zeros([2, 3], (Kind::Float, Device::Cpu)),
            moves_left: None,
            material: Some(t(&[4.0, -2.0], &[2])),
        };
        let cfg = TrainConfig::default();
        let mut b = batch();
        let unmasked = v(&compute(&out, &b, &cfg).policy);
        assert!(unmasked > 15.0, "{unmasked}");
        b.legal = Some(t(&[1.0, 1.0, 0.0, 0.0, 1.0, 1.0], &[2, 3]));
        let masked = compute(&out, &b, &cfg);
        // Row 0: uniform over two legal moves, target one-hot: ln 2. Row 1: (0.5, 0.5) on
        // two legal moves with equal logits: ln 2.
        assert!((v(&masked.policy) - 2f64.ln()).abs() < 1e-5, "{}", v(&masked.policy));
        assert!(v(&masked.total).is_finite());
        // No material target in the batch: no material loss.
        assert_eq!(v(&masked.material), 0.0);
        b.material = Some(t(&[4.0, 2.0], &[2]));
        let l = compute(&out, &b, &cfg);
        // Errors 0 and 4 pawns = 1 unit of 4: Huber (0 + 0.5) / 2.
        assert!((v(&l.material) - 0.25).abs() < 1e-6, "{}", v(&l.material));
    }

    #[test]
    fn value_mse_measures_the_expected_score() {
        let out = NetOutput {
            policy: Tensor::zeros([2, 3], (Kind::Float, Device::Cpu)),
            wdl: t(&[50.0, 0.0, 0.0, 50.0, 0.0, 0.0], &[2, 3]),
            moves_left: None,
            material: None,
        };
        // Both predict a sure win; results are a win and a loss: errors 0 and 2.
        let l = compute(&out, &batch(), &TrainConfig::default());
        assert!((v(&l.value_mse) - 2.0).abs() < 1e-5);
    }
}
