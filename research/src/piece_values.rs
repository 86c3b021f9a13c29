//! Piece values measured from games, not written: a logistic fit of each game's result
//! on the material balance of its positions (issue 36: the values E 8 and H 7 in
//! `schess::material` are human estimates, and self-play's targets lean on them).
//!
//! Every position from ply `min_ply` on, one in `stride`, is a row: the White-minus-Black
//! count of each piece on the board (P, N, B, R, Q, E, H) and of each hand piece still
//! in hand (E, H: a piece in hand is not yet a piece in play), and White's score in the
//! game (1, 1/2, 0). Positions in check, or just after a capture (an exchange in
//! flight, whose balance the next move corrects), are left out. A logistic regression
//! with an intercept (White's edge) gives each feature a weight in log-odds; a piece's
//! value is its weight over the pawn's. The 95% intervals come from refitting on games
//! drawn with replacement (positions of one game are not independent).

use crate::logistic::{self, Row};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use schess::{Color, Game, HandPiece, Role};
use serde::Serialize;

/// The measured features, in order: the board's pieces, then the hand's.
pub const FEATURES: [&str; 9] = ["P", "N", "B", "R", "Q", "E", "H", "E in hand", "H in hand"];
const BOARD_ROLES: [Role; 7] =
    [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::Elephant, Role::Hawk];
/// Parameters of the fit: the features and the intercept.
const K: usize = FEATURES.len() + 1;
/// The pairs whose difference is measured (first minus second): whether the three big
/// pieces can be told apart, and whether a piece in hand is worth the same piece on the
/// board. A difference needs its own interval, from the same refits: two values' intervals
/// can overlap while their difference's excludes zero.
pub const DIFFERENCES: [(&str, &str); 5] = [("Q", "E"), ("Q", "H"), ("E", "H"), ("E in hand", "E"), ("H in hand", "H")];

/// Which positions of a game are rows.
#[derive(Debug, Clone, Copy)]
pub struct Sampling {
    pub min_ply: usize,
    pub stride: usize,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling { min_ply: 16, stride: 2 }
    }
}

/// A game's rows: features and White's score.
#[derive(Debug, Clone, Default)]
pub struct GameRows {
    rows: Vec<[f64; K]>,
    score: f64,
}

/// The rows of one finished game (`white_score` 1, 0.5 or 0).
pub fn rows_of(game: &Game, white_score: f64, sampling: Sampling) -> GameRows {
    let positions = game.positions();
    let mut rows = Vec::new();
    for (ply, pos) in positions.iter().enumerate().skip(sampling.min_ply.max(1)).step_by(sampling.stride.max(1)) {
        let captured = {
            let before = &positions[ply - 1];
            before.occupied().count() > pos.occupied().count()
        };
        if captured || pos.is_check() {
            continue;
        }
        let mut x = [0.0; K];
        for (i, &role) in BOARD_ROLES.iter().enumerate() {
            x[i] = pos.pieces(Color::White, role).count() as f64 - pos.pieces(Color::Black, role).count() as f64;
        }
        for (j, piece) in [HandPiece::Elephant, HandPiece::Hawk].into_iter().enumerate() {
            let has = |c: Color| f64::from(u8::from(pos.hand(c).contains(piece)));
            x[BOARD_ROLES.len() + j] = has(Color::White) - has(Color::Black);
        }
        x[K - 1] = 1.0;
        rows.push(x);
    }
    GameRows { rows, score: white_score }
}

/// The logistic fit ([`crate::logistic`]; a small ridge keeps a feature that never varies
/// from making the system singular). Returns the weights, intercept last.
fn fit(games: &[&GameRows]) -> [f64; K] {
    let rows: Vec<Row> = games
        .iter()
        .flat_map(|g| {
            g.rows.iter().map(|x| Row {
                features: x
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0.0)
                    .map(|(i, &v)| (i as u32, v as f32))
                    .collect(),
                target: g.score as f32,
            })
        })
        .collect();
    let refs: Vec<&Row> = rows.iter().collect();
    let w = logistic::fit(&refs, &[1e-6; K], 25);
    std::array::from_fn(|i| w[i])
}

/// One feature's measured value.
#[derive(Debug, Clone, Serialize)]
pub struct Value {
    pub feature: &'static str,
    /// In pawns (the pawn's weight is 1).
    pub pawns: f64,
    /// 95% bootstrap interval, in pawns.
    pub low: f64,
    pub high: f64,
    /// The weight in log-odds of White's score per piece.
    pub log_odds: f64,
}

/// One pair's difference of values (`DIFFERENCES`).
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub first: &'static str,
    pub second: &'static str,
    /// First minus second, in pawns.
    pub pawns: f64,
    /// 95% bootstrap interval of the difference (each refit's own difference), in pawns.
    pub low: f64,
    pub high: f64,
}

/// The whole measurement.
#[derive(Debug, Clone, Serialize)]
pub struct PieceValues {
    pub games: usize,
    pub positions: usize,
    pub values: Vec<Value>,
    pub differences: Vec<Difference>,
    /// White's edge, in pawns (the intercept over the pawn's weight).
    pub white_edge_pawns: f64,
    pub bootstrap: usize,
}

/// Fits the values on `games`, with `bootstrap` refits on resampled games for intervals.
pub fn measure(games: &[GameRows], bootstrap: usize, seed: u64) -> Option<PieceValues> {
    let usable: Vec<&GameRows> = games.iter().filter(|g| !g.rows.is_empty()).collect();
    if usable.len() < 2 {
        return None;
    }
    let in_pawns = |w: &[f64; K]| -> Vec<f64> { w.iter().map(|x| x / w[0]).collect() };
    let w = fit(&usable);
    let point = in_pawns(&w);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); K];
    for _ in 0..bootstrap {
        let drawn: Vec<&GameRows> = (0..usable.len()).map(|_| usable[rng.gen_range(0..usable.len())]).collect();
        for (i, v) in in_pawns(&fit(&drawn)).into_iter().enumerate() {
            samples[i].push(v);
        }
    }
    let index = |f: &str| FEATURES.iter().position(|&x| x == f).expect("a feature");
    // Each refit's own difference, taken before the samples below are sorted.
    let mut differences: Vec<(usize, usize, Vec<f64>)> = DIFFERENCES
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (index(a), index(b));
            (a, b, samples[a].iter().zip(&samples[b]).map(|(x, y)| x - y).collect())
        })
        .collect();
    let quantile = |v: &mut Vec<f64>, q: f64| -> f64 {
        if v.is_empty() {
            return f64::NAN;
        }
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * q).round() as usize]
    };
    let values = FEATURES
        .iter()
        .enumerate()
        .map(|(i, &feature)| Value {
            feature,
            pawns: point[i],
            low: quantile(&mut samples[i], 0.025),
            high: quantile(&mut samples[i], 0.975),
            log_odds: w[i],
        })
        .collect();
    let differences = differences
        .iter_mut()
        .map(|(a, b, d)| Difference {
            first: FEATURES[*a],
            second: FEATURES[*b],
            pawns: point[*a] - point[*b],
            low: quantile(d, 0.025),
            high: quantile(d, 0.975),
        })
        .collect();
    Some(PieceValues {
        games: usable.len(),
        positions: usable.iter().map(|g| g.rows.len()).sum(),
        values,
        differences,
        white_edge_pawns: point[K - 1],
        bootstrap,
    })
}

impl PieceValues {
    /// The values as a Markdown table beside the human values szero uses.
    pub fn markdown(&self) -> String {
        let human = |f: &str| match f {
            "P" => "1",
            "N" | "B" => "3",
            "R" => "5",
            "Q" => "9",
            "E" | "E in hand" => "8",
            "H" | "H in hand" => "7",
            _ => "-",
        };
        let mut s = String::from("| piece | measured (pawns) | 95% interval | log-odds a piece | `schess::material` |\n|---|---|---|---|---|\n");
        for v in &self.values {
            s.push_str(&format!(
                "| {} | {:.2} | [{:.2}, {:.2}] | {:.3} | {} |\n",
                v.feature,
                v.pawns,
                v.low,
                v.high,
                v.log_odds,
                human(v.feature)
            ));
        }
        s.push_str(&format!(
            "\n{} games, {} positions; intervals from {} refits on games drawn with replacement. White's edge: {:.2} pawns.\n",
            self.games, self.positions, self.bootstrap, self.white_edge_pawns
        ));
        s.push_str("\n| difference | pawns | 95% interval | told apart |\n|---|---|---|---|\n");
        for d in &self.differences {
            let apart = if d.low > 0.0 || d.high < 0.0 { "yes" } else { "no (the interval contains zero)" };
            s.push_str(&format!(
                "| {} - {} | {:+.2} | [{:+.2}, {:+.2}] | {apart} |\n",
                d.first, d.second, d.pawns, d.low, d.high
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic games whose results follow known weights recover them.
    #[test]
    fn the_fit_recovers_known_values() {
        let truth = [0.6, 1.8, 1.8, 3.0, 5.4, 4.8, 4.2, 2.4, 2.0, 0.1];
        let mut rng = SmallRng::seed_from_u64(7);
        let games: Vec<GameRows> = (0..3000)
            .map(|_| {
                let mut x = [0.0; K];
                for xi in x.iter_mut().take(K - 1) {
                    *xi = f64::from(rng.gen_range(-2i32..=2)) * if rng.gen_bool(0.5) { 1.0 } else { 0.0 };
                }
                x[K - 1] = 1.0;
                let z: f64 = x.iter().zip(&truth).map(|(a, b)| a * b).sum::<f64>() * 0.25;
                let p = 1.0 / (1.0 + (-z).exp());
                GameRows { rows: vec![x], score: if rng.gen_bool(p) { 1.0 } else { 0.0 } }
            })
            .collect();
        let m = measure(&games, 30, 1).unwrap();
        for (v, t) in m.values.iter().zip(truth) {
            let want = t / truth[0];
            assert!((v.pawns - want).abs() < 0.35 * want.max(1.0), "{}: {} against {want}", v.feature, v.pawns);
            assert!(v.low <= v.pawns && v.pawns <= v.high, "{v:?}");
        }
        // Q (5.4) against E (4.8): 1 pawn apart; E in hand (2.4) against E: 4 pawns below.
        let diff = |a: &str, b: &str| m.differences.iter().find(|d| d.first == a && d.second == b).unwrap();
        let qe = diff("Q", "E");
        assert!((qe.pawns - 1.0).abs() < 0.6 && qe.low <= qe.pawns && qe.pawns <= qe.high, "{qe:?}");
        let he = diff("E in hand", "E");
        assert!(he.high < 0.0, "a piece in hand worth half the same on the board is told apart: {he:?}");
        assert_eq!(m.differences.len(), DIFFERENCES.len());
    }

    #[test]
    fn rows_leave_out_checks_and_captures_and_count_hands() {
        let mut game = Game::new(schess::Position::new(schess::Variant::Seirawan));
        for m in ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3e", "d5a5"] {
            game.play_uci(m).unwrap();
        }
        let rows = rows_of(&game, 1.0, Sampling { min_ply: 1, stride: 1 });
        // Plies 1..=6; ply 3 and 4 follow captures.
        assert_eq!(rows.rows.len(), 4);
        let last = rows.rows.last().unwrap();
        assert_eq!(last[0], 0.0, "a pawn each gone");
        assert_eq!(last[7], -1.0, "White's elephant entered, Black's is in hand");
        assert_eq!(last[5], 1.0, "and is on the board");
    }
}
