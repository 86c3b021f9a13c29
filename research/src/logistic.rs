//! Logistic regression of game results on position features, by Newton's method with a
//! ridge penalty: the one fitter behind the measured piece values
//! ([`crate::piece_values`]) and the learned evaluation ([`crate::eval_fit`]).
//!
//! Rows are sparse (a position has a few dozen non-zero features out of a thousand), the
//! Hessian dense (a thousand squared is eight megabytes), so each Newton step is one
//! pass over the rows, split across threads, and one Cholesky solve.

use rayon::prelude::*;

/// One position: its non-zero features and the score it led to (0, 1/2 or 1).
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub features: Vec<(u32, f32)>,
    pub target: f32,
}

impl Row {
    /// The row's log-odds under `w`.
    pub fn dot(&self, w: &[f64]) -> f64 {
        self.features.iter().map(|&(i, x)| w[i as usize] * f64::from(x)).sum()
    }
}

/// Mean log-loss of `rows` under `w` (natural log), for held-out comparisons.
pub fn log_loss(rows: &[&Row], w: &[f64]) -> f64 {
    if rows.is_empty() {
        return f64::NAN;
    }
    let total: f64 = rows
        .par_iter()
        .map(|r| {
            let p = sigmoid(r.dot(w)).clamp(1e-12, 1.0 - 1e-12);
            let y = f64::from(r.target);
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    total / rows.len() as f64
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Maximises the log-likelihood of `rows` minus `ridge[i] / 2 * w[i]^2` over the `n`
/// weights, starting from zero; at most `max_steps` Newton steps. A feature that never
/// varies keeps weight zero (the ridge makes the system solvable).
pub fn fit(rows: &[&Row], ridge: &[f64], max_steps: usize) -> Vec<f64> {
    let n = ridge.len();
    let mut w = vec![0.0; n];
    for _ in 0..max_steps {
        let (mut grad, mut hess) = rows
            .par_chunks(4096)
            .fold(
                || (vec![0.0; n], vec![0.0; n * n]),
                |(mut grad, mut hess), chunk| {
                    for r in chunk {
                        let p = sigmoid(r.dot(&w));
                        let residual = f64::from(r.target) - p;
                        let v = (p * (1.0 - p)).max(1e-9);
                        for &(i, xi) in &r.features {
                            let (i, xi) = (i as usize, f64::from(xi));
                            grad[i] += residual * xi;
                            let row = &mut hess[i * n..(i + 1) * n];
                            for &(j, xj) in &r.features {
                                row[j as usize] += v * xi * f64::from(xj);
                            }
                        }
                    }
                    (grad, hess)
                },
            )
            .reduce(
                || (vec![0.0; n], vec![0.0; n * n]),
                |(mut g, mut h), (g2, h2)| {
                    g.iter_mut().zip(g2).for_each(|(a, b)| *a += b);
                    h.iter_mut().zip(h2).for_each(|(a, b)| *a += b);
                    (g, h)
                },
            );
        for i in 0..n {
            hess[i * n + i] += ridge[i].max(1e-9);
            grad[i] -= ridge[i] * w[i];
        }
        let step = solve_positive_definite(hess, grad, n);
        let size = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        w.iter_mut().zip(&step).for_each(|(a, s)| *a += s);
        if size < 1e-7 {
            break;
        }
    }
    w
}

/// Solves `a x = b` for a symmetric positive definite `n` x `n` matrix (row-major) by
/// Cholesky decomposition.
fn solve_positive_definite(mut a: Vec<f64>, mut b: Vec<f64>, n: usize) -> Vec<f64> {
    // a = L L^T, L written over a's lower triangle.
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        let d = d.max(1e-12).sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    for i in 0..n {
        let s: f64 = (0..i).map(|k| a[i * n + k] * b[k]).sum();
        b[i] = (b[i] - s) / a[i * n + i];
    }
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| a[k * n + i] * b[k]).sum();
        b[i] = (b[i] - s) / a[i * n + i];
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_fit_recovers_known_weights_from_sparse_rows() {
        let truth = [1.5, -0.8, 0.4, 0.0];
        let mut rng = SmallRng::seed_from_u64(3);
        let rows: Vec<Row> = (0..20_000)
            .map(|_| {
                let mut features: Vec<(u32, f32)> = Vec::new();
                for i in 0..3u32 {
                    if rng.gen_bool(0.6) {
                        features.push((i, f32::from(rng.gen_range(-2i8..=2))));
                    }
                }
                features.push((3, 1.0));
                let mut r = Row { features, target: 0.0 };
                let p = sigmoid(r.dot(&truth));
                r.target = if rng.gen_bool(p) { 1.0 } else { 0.0 };
                r
            })
            .collect();
        let refs: Vec<&Row> = rows.iter().collect();
        let w = fit(&refs, &[1e-6; 4], 30);
        for (got, want) in w.iter().zip(truth) {
            assert!((got - want).abs() < 0.08, "{w:?} against {truth:?}");
        }
        assert!(log_loss(&refs, &w) < log_loss(&refs, &[0.0; 4]));
    }

    #[test]
    fn a_feature_that_never_occurs_keeps_weight_zero() {
        let rows = [Row { features: vec![(0, 1.0)], target: 1.0 }, Row { features: vec![(0, -1.0)], target: 0.0 }];
        let refs: Vec<&Row> = rows.iter().collect();
        let w = fit(&refs, &[0.1, 0.1], 20);
        assert_eq!(w[1], 0.0);
        assert!(w[0] > 1.0);
    }

    #[test]
    fn cholesky_solves_a_small_system() {
        let a = vec![4.0, 2.0, 2.0, 3.0];
        let x = solve_positive_definite(a, vec![2.0, 1.0], 2);
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
    }
}
