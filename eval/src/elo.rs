//! Match statistics (`elo`): Elo with a 95% interval, normalized Elo, likelihood of superiority,
//! and the generalized SPRT (GSPRT) that fishtest uses, all from trinomial (L, D, W) or
//! pentanomial (game-pair) counts.
//!
//! The formulas are fishtest's (`stat_util.get_elo`, `LLRcalc.LLR_logistic`), so that a
//! result here means what it means on fishtest. In particular:
//! * zero counts are replaced by 1e-3 before anything is computed (fishtest's
//!   `regularize`), which keeps a 10-0 result at a large but finite Elo;
//! * the pentanomial variant treats each opening pair (played with both colours) as one
//!   sample, which removes most of the variance that unbalanced openings add;
//! * the LLR is the exact GSPRT (maximum-likelihood distributions with the hypothesised
//!   expected scores), not the normal approximation.

use serde::{Deserialize, Serialize};
use settings::check::require;
use settings::ConfigError;

/// 97.5% quantile of the standard normal distribution (two-sided 95% interval).
const Z_975: f64 = 1.959_963_984_540_054;
/// Normalized Elo per unit of t-value (fishtest's `nelo_divided_by_nt`).
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Logistic Elo difference for an expected score in (0, 1).
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Expected score for a logistic Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Standard normal cumulative distribution function.
pub fn phi(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function, to about 1e-14: the Taylor series of erf below 3, a
/// continued fraction above (where the series would cancel badly).
fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 3.0 {
        // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        return 1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum;
    }
    // erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
    let mut f = x;
    for k in (1..=60).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    (-x * x).exp() / std::f64::consts::PI.sqrt() / f
}

/// Win/draw/loss counts of one player.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points per game (draw = 1/2); 0.5 when no game was played.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (self.wins as f64 + 0.5 * self.draws as f64) / n as f64,
        }
    }

    /// Counts in fishtest's trinomial order: losses, draws, wins.
    pub fn as_ldw(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    /// Adds one game scored 0, 1/2 or 1 (as 0, 1, 2 half-points).
    pub fn add_half_points(&mut self, half_points: u8) {
        match half_points {
            0 => self.losses += 1,
            1 => self.draws += 1,
            _ => self.wins += 1,
        }
    }
}

/// Game-pair counts by the pair's total score for one player: index k holds the pairs
/// worth k/2 points (0 = lost both, 2 = two draws or a win and a loss, 4 = won both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair from the two games' half-points (0, 1 or 2 each).
    pub fn add_pair(&mut self, first: u8, second: u8) {
        self.0[(first.min(2) + second.min(2)) as usize] += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// An Elo estimate from match counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Mean score per game (after regularization).
    pub score: f64,
    /// Logistic Elo difference.
    pub elo: f64,
    /// Ends of the 95% confidence interval of `elo`.
    pub elo_lo: f64,
    pub elo_hi: f64,
    /// Normalized Elo: the score's distance from 1/2 in units of its per-game standard
    /// deviation (scaled so that small differences read like Elo); comparable across
    /// draw rates and between trinomial and pentanomial data.
    pub nelo: f64,
    /// Likelihood of superiority: the probability that the true score exceeds 1/2.
    pub los: f64,
}

impl EloEstimate {
    /// Half-width of the 95% interval, as fishtest reports it (`elo ± elo95`).
    pub fn elo95(&self) -> f64 {
        (self.elo_hi - self.elo_lo) / 2.0
    }
}

/// Counts with zeros replaced by 1e-3 (fishtest's `regularize`), as a distribution over
/// equally spaced scores 0..=1.
fn to_pdf(counts: &[f64]) -> (f64, Vec<(f64, f64)>) {
    let reg: Vec<f64> = counts.iter().map(|&c| if c == 0.0 { 1e-3 } else { c }).collect();
    let n: f64 = reg.iter().sum();
    let k = (reg.len() - 1) as f64;
    (n, reg.iter().enumerate().map(|(i, &c)| (i as f64 / k, c / n)).collect())
}

/// Mean and variance of a distribution given as (value, probability) pairs.
fn mean_var(pdf: &[(f64, f64)]) -> (f64, f64) {
    let mu: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var: f64 = pdf.iter().map(|&(a, p)| p * (a - mu).powi(2)).sum();
    (mu, var)
}

/// Elo estimate from counts in fishtest order: 3 entries (losses, draws, wins) or 5
/// (pentanomial, see [`Pentanomial`]). For pentanomial data the sample is the pair; its
/// mean is still the per-game score.
pub fn elo_estimate(counts: &[u64]) -> EloEstimate {
    assert!(counts.len() == 3 || counts.len() == 5, "3 or 5 counts");
    let c: Vec<f64> = counts.iter().map(|&x| x as f64).collect();
    let (n, pdf) = to_pdf(&c);
    let (mu, var) = mean_var(&pdf);
    let sd = var.sqrt();
    let half = Z_975 * sd / n.sqrt();
    let clamp = |s: f64| s.clamp(1e-9, 1.0 - 1e-9);
    // Per-game deviation: a pair's score is the mean of two games.
    let sigma_game = if counts.len() == 5 { (2.0 * var).sqrt() } else { sd };
    EloEstimate {
        score: mu,
        elo: elo_from_score(clamp(mu)),
        elo_lo: elo_from_score(clamp(mu - half)),
        elo_hi: elo_from_score(clamp(mu + half)),
        nelo: if sigma_game > 0.0 { (mu - 0.5) / sigma_game * NELO_PER_T } else { 0.0 },
        los: if sd > 0.0 { phi((mu - 0.5) / (sd / n.sqrt())) } else { 0.5 },
    }
}

/// Solves fishtest's secular equation sum_i p_i a_i / (1 + x a_i) = 0 for x (the values
/// `a_i` must straddle 0). The left side falls monotonically on the valid interval, so
/// bisection converges surely.
fn secular(pdf: &[(f64, f64)]) -> f64 {
    let max = pdf.iter().map(|&(a, _)| a).fold(f64::MIN, f64::max);
    let min = pdf.iter().map(|&(a, _)| a).fold(f64::MAX, f64::min);
    let f = |x: f64| pdf.iter().map(|&(a, p)| p * a / (1.0 + x * a)).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / max + 1e-9, -1.0 / min - 1e-9);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The distribution closest (in likelihood) to `pdf` whose mean is `s`.
fn mle_with_mean(pdf: &[(f64, f64)], s: f64) -> Vec<(f64, f64)> {
    let shifted: Vec<(f64, f64)> = pdf.iter().map(|&(a, p)| (a - s, p)).collect();
    let x = secular(&shifted);
    pdf.iter().map(|&(a, p)| (a, p / (1.0 + x * (a - s)))).collect()
}

/// Generalized log-likelihood ratio of H1 (Elo = `elo1`) against H0 (Elo = `elo0`) for
/// counts in fishtest order (3 or 5 entries): fishtest's `LLR_logistic`.
pub fn llr_logistic(elo0: f64, elo1: f64, counts: &[u64]) -> f64 {
    assert!(counts.len() == 3 || counts.len() == 5, "3 or 5 counts");
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let c: Vec<f64> = counts.iter().map(|&x| x as f64).collect();
    let (n, pdf) = to_pdf(&c);
    let (s0, s1) = (score_from_elo(elo0), score_from_elo(elo1));
    let p0 = mle_with_mean(&pdf, s0);
    let p1 = mle_with_mean(&pdf, s1);
    n * pdf.iter().zip(p0.iter().zip(&p1)).map(|(&(_, p), (&(_, q0), &(_, q1)))| p * (q1.ln() - q0.ln())).sum::<f64>()
}

/// Parameters of a sequential probability ratio test on logistic Elo.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SprtConfig {
    /// Elo under the null hypothesis (H0: the first player is not better than this).
    pub elo0: f64,
    /// Elo under the alternative (H1: the first player is at least this much better).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds (false promotion).
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds (missed improvement).
    pub beta: f64,
}

impl Default for SprtConfig {
    fn default() -> Self {
        SprtConfig { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 }
    }
}

/// What an SPRT says after some games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// Neither bound reached yet.
    Continue,
    /// LLR at or below the lower bound: H0 (no improvement of `elo1`).
    AcceptH0,
    /// LLR at or above the upper bound: H1.
    AcceptH1,
}

/// An SPRT evaluation: the LLR, the bounds and the decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: SprtDecision,
}

impl SprtConfig {
    /// Checks that the parameters make a test.
    pub fn validate(&self) -> Result<(), ConfigError> {
        // Written as a negation so that NaN bounds fail too.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let ordered = self.elo1 > self.elo0;
        require(ordered, "elo1", &format!("greater than elo0 ({})", self.elo0), self.elo1)?;
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            require(v > 0.0 && v < 0.5, name, "in (0, 0.5)", v)?;
        }
        Ok(())
    }

    /// Wald's bounds: (ln(beta / (1 - alpha)), ln((1 - beta) / alpha)).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The test's state for counts in fishtest order (3 or 5 entries; use pentanomial
    /// counts whenever games come in pairs).
    pub fn status(&self, counts: &[u64]) -> SprtStatus {
        let llr = llr_logistic(self.elo0, self.elo1, counts);
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        };
        SprtStatus { llr, lower, upper, decision }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values computed with an independent Python transcription of fishtest's
    // stat_util.get_elo and LLRcalc.LLR_logistic (regularize, secular equation, MLE).

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_a_score() {
        assert!(close(elo_from_score(0.75), 190.848_501_887_865, 1e-9));
        assert!(close(elo_from_score(0.5), 0.0, 1e-12));
        assert!(close(score_from_elo(elo_from_score(0.3)), 0.3, 1e-12));
        assert!(close(phi(0.0), 0.5, 1e-9));
        assert!(close(phi(1.959_963_984_540_054), 0.975, 1e-7));
        assert!(close(phi(-3.0), 0.001_349_898_031_630_094_6, 1e-8));
    }

    #[test]
    fn trinomial_estimate() {
        // 30 wins, 20 draws, 10 losses.
        let e = elo_estimate(&[10, 20, 30]);
        assert!(close(e.score, 2.0 / 3.0, 1e-12));
        assert!(close(e.elo, 120.411_998_265_592_47, 1e-6));
        assert!(close(e.elo_lo, 50.641_956_990_924, 1e-3));
        assert!(close(e.elo_hi, 201.161_730_867_575_22, 1e-3));
        assert!(close(e.nelo, 155.377_917_406_195_68, 1e-6));
        assert!(close(e.los, 0.999_733_997_247_430_4, 1e-6));
    }

    #[test]
    fn pentanomial_estimate() {
        let e = elo_estimate(&[3, 27, 40, 25, 5]);
        assert!(close(e.elo, 3.474_471_674_037_067, 1e-6));
        assert!(close(e.elo_lo, -27.782_845_208_935_047, 1e-3));
        assert!(close(e.elo_hi, 34.788_284_446_154_2, 1e-3));
        assert!(close(e.nelo, 5.362_324_370_145_008, 1e-6));
        assert!(close(e.los, 0.586_390_573_848_080_1, 1e-6));
        let e = elo_estimate(&[100, 1000, 2000, 1100, 90]);
        assert!(close(e.elo, 3.239_586_521_221_516, 1e-6));
        assert!(close(e.elo95(), (7.483_960_507_106_829 + 1.003_820_727_634_529_7) / 2.0, 1e-3));
        assert!(close(e.los, 0.932_712_967_248_185_4, 1e-6));
        // Symmetric counts: even, with a symmetric interval.
        let e = elo_estimate(&[1, 10, 20, 10, 1]);
        assert!(close(e.elo, 0.0, 1e-9) && close(e.elo_hi, 43.116_511_177_175_155, 1e-3));
        assert!(close(e.elo_lo, -e.elo_hi, 1e-9) && close(e.los, 0.5, 1e-9));
        // All wins stays finite thanks to regularization.
        assert!(elo_estimate(&[0, 0, 0, 0, 7]).elo.is_finite());
    }

    #[test]
    fn gsprt_llr_matches_fishtest() {
        assert!(close(llr_logistic(0.0, 5.0, &[100, 1000, 2000, 1100, 90]), 0.787_601_001_539_317_6, 1e-6));
        assert!(close(llr_logistic(0.0, 2.0, &[407, 2918, 5953, 3120, 452]), 3.405_041_416_744_242_4, 1e-6));
        assert!(close(llr_logistic(-1.0, 3.0, &[3, 27, 40, 25, 5]), 0.039_140_459_317_660_65, 1e-6));
        assert!(close(llr_logistic(0.0, 10.0, &[10, 20, 30]), 0.829_121_343_803_782_7, 1e-6));
        assert_eq!(llr_logistic(0.0, 10.0, &[0; 5]), 0.0);
    }

    #[test]
    fn sprt_bounds_and_decisions() {
        let sprt = SprtConfig { elo0: 0.0, elo1: 2.0, alpha: 0.05, beta: 0.05 };
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_438_979_166_440_3, 1e-12) && close(hi, 2.944_438_979_166_440_3, 1e-12));
        assert_eq!(sprt.status(&[407, 2918, 5953, 3120, 452]).decision, SprtDecision::AcceptH1);
        assert_eq!(sprt.status(&[452, 3120, 5953, 2918, 407]).decision, SprtDecision::AcceptH0);
        assert_eq!(sprt.status(&[1, 2, 3, 2, 1]).decision, SprtDecision::Continue);
        assert!(SprtConfig { elo0: 5.0, elo1: 0.0, ..sprt }.validate().is_err());
        assert!(sprt.validate().is_ok());
    }

    #[test]
    fn wdl_and_pairs() {
        let mut w = Wdl::default();
        let mut p = Pentanomial::default();
        for (a, b) in [(2, 0), (1, 1), (2, 2), (0, 1)] {
            w.add_half_points(a);
            w.add_half_points(b);
            p.add_pair(a, b);
        }
        assert_eq!(w, Wdl { wins: 3, draws: 3, losses: 2 });
        assert_eq!(p, Pentanomial([0, 1, 2, 0, 1]));
        assert_eq!(w.as_ldw(), [2, 3, 3]);
        assert!(close(w.score(), 4.5 / 8.0, 1e-12));
    }
}
