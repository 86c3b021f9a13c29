//! Fits the learned evaluation ([`search::learned`]) on finished games: a logistic
//! regression of each game's result on the features of its quiet positions (Texel's
//! method, with results instead of an engine's scores, so that nothing but szero's own
//! games goes in).
//!
//! A position is a row when it is at least `min_ply` plies in (the random opening moves
//! are left out), not in check, not just after a capture, and without a capture that wins
//! material by static exchange for the side to move: the features count material where it
//! stands, so a position in the middle of an exchange would teach the fit that a piece
//! about to be lost is worth nothing. Games, not positions, are held out to measure the
//! fit, since the positions of one game share its result.
//!
//! The weights come out in log-odds of White's score; they are scaled so that a pawn
//! (the mean of its opening and ending weights) is 100 centipawns, the unit the search's
//! margins are written in.

use crate::logistic::{fit, log_loss, Row};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use schess::{Game, Role};
use search::exchange::{is_tactical, see};
use search::learned::{self, LearnedEval, FEATURES, PHASE_FEATURES};
use serde::Serialize;

/// Which positions are rows, and how the fit is regularised.
#[derive(Debug, Clone)]
pub struct FitOptions {
    pub min_ply: usize,
    /// One position in this many (after the filters).
    pub stride: usize,
    /// Ridge penalty on the piece-square weights, in log-likelihood units: it pulls a
    /// rarely seen square towards zero. 1,000 held out best of 10, 100 and 1,000 on the
    /// first 6,000 self-play games (BENCHMARKS.md).
    pub ridge: f64,
    /// Share of games held out to measure the fit.
    pub holdout: f64,
    pub seed: u64,
    pub max_steps: usize,
    /// How the piece-square tables are fitted.
    pub squares: Squares,
}

/// How many free weights a piece-square table has in the fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Squares {
    /// One a rank plus one a file, for each piece and phase: 16 numbers instead of 64, so
    /// a few thousand games can pin them down (a square's weight is its rank's plus its
    /// file's).
    #[default]
    RankFile,
    /// One a square.
    Full,
}

impl std::str::FromStr for Squares {
    type Err = String;
    fn from_str(s: &str) -> Result<Squares, String> {
        match s {
            "rank-file" => Ok(Squares::RankFile),
            "full" => Ok(Squares::Full),
            _ => Err(format!("unknown square model '{s}' (expected rank-file or full)")),
        }
    }
}

/// The fit's own features: each evaluation feature is the sum of the fit features it
/// maps to, so a fitted weight vector expands back into the evaluation's.
struct FitFeatures {
    map: Vec<Vec<u32>>,
    count: usize,
}

impl FitFeatures {
    fn new(squares: Squares) -> FitFeatures {
        let mut map = Vec::with_capacity(FEATURES);
        let mut count = 0u32;
        let mut rank_file: std::collections::HashMap<(bool, usize, char, usize), u32> = Default::default();
        for i in 0..FEATURES {
            match (squares, learned::piece_square(i)) {
                (Squares::RankFile, Some((role, sq))) => {
                    let ending = i >= PHASE_FEATURES;
                    let mut id = |kind: char, n: usize| {
                        *rank_file.entry((ending, role, kind, n)).or_insert_with(|| {
                            count += 1;
                            count - 1
                        })
                    };
                    let ids = vec![id('r', sq.rank().index()), id('f', sq.file().index())];
                    map.push(ids);
                }
                _ => {
                    map.push(vec![count]);
                    count += 1;
                }
            }
        }
        FitFeatures { map, count: count as usize }
    }

    fn row(&self, r: &Row) -> Row {
        let mut features: Vec<(u32, f32)> = Vec::with_capacity(r.features.len() * 2);
        for &(i, x) in &r.features {
            for &j in &self.map[i as usize] {
                match features.iter_mut().find(|(k, _)| *k == j) {
                    Some((_, y)) => *y += x,
                    None => features.push((j, x)),
                }
            }
        }
        features.retain(|&(_, x)| x != 0.0);
        Row { features, target: r.target }
    }

    fn expand(&self, w: &[f64]) -> Vec<f64> {
        self.map.iter().map(|ids| ids.iter().map(|&j| w[j as usize]).sum()).collect()
    }

    /// A ridge for each fit feature from one for each evaluation feature.
    fn ridge(&self, per_feature: impl Fn(usize) -> f64) -> Vec<f64> {
        let mut r = vec![0.0; self.count];
        for (i, ids) in self.map.iter().enumerate() {
            for &j in ids {
                r[j as usize] = per_feature(i);
            }
        }
        r
    }
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            min_ply: 12,
            stride: 1,
            ridge: 1000.0,
            holdout: 0.1,
            seed: 1,
            max_steps: 12,
            squares: Squares::RankFile,
        }
    }
}

/// The rows of one finished game (`white_score` 1, 0.5 or 0).
pub fn rows_of(game: &Game, white_score: f32, opts: &FitOptions) -> Vec<Row> {
    let positions = game.positions();
    let mut rows = Vec::new();
    let mut kept = 0usize;
    for ply in opts.min_ply.max(1)..positions.len() {
        let pos = &positions[ply];
        let captured = positions[ply - 1].occupied().count() > pos.occupied().count();
        if captured || pos.is_check() || !pos.has_legal_moves() {
            continue;
        }
        if pos.legal_moves().iter().any(|&m| is_tactical(pos, m) && see(pos, m) > 0) {
            continue;
        }
        kept += 1;
        if !(kept - 1).is_multiple_of(opts.stride.max(1)) {
            continue;
        }
        let mut features = Vec::with_capacity(96);
        learned::for_each_feature(pos, |i, x| features.push((i as u32, x)));
        rows.push(Row { features, target: white_score });
    }
    rows
}

/// How well the fit predicts held-out games.
#[derive(Debug, Clone, Serialize)]
pub struct FitReport {
    pub games: usize,
    pub positions: usize,
    pub holdout_games: usize,
    pub holdout_positions: usize,
    /// Held-out mean log-loss (nats) of: a constant (the training games' mean score),
    /// material, hands and the move alone, and the whole evaluation.
    pub loss_constant: f64,
    pub loss_material: f64,
    pub loss_learned: f64,
    /// Log-odds of White's score a pawn is worth (what 100 centipawns means).
    pub pawn_log_odds: f64,
    /// Fitted values in pawns, opening and ending: P N B R Q E H, then E and H in hand.
    pub values: Vec<(String, f64, f64)>,
    pub options: String,
}

impl FitReport {
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "{} games ({} positions) fitted, {} games ({} positions) held out.\n\n\
             | held-out log-loss | nats |\n|---|---|\n| constant | {:.4} |\n| material, hands, the move | {:.4} |\n| learned evaluation | {:.4} |\n\n\
             A pawn is worth {:.3} log-odds of White's score (100 centipawns).\n\n\
             | piece | opening (pawns) | ending (pawns) |\n|---|---|---|\n",
            self.games,
            self.positions,
            self.holdout_games,
            self.holdout_positions,
            self.loss_constant,
            self.loss_material,
            self.loss_learned,
            self.pawn_log_odds
        );
        for (name, open, end) in &self.values {
            s.push_str(&format!("| {name} | {open:.2} | {end:.2} |\n"));
        }
        s.push_str(&format!("\n{}\n", self.options));
        s
    }
}

/// Fits the evaluation on `games` (each game's rows), holding out a share of them.
pub fn fit_eval(games: &[Vec<Row>], opts: &FitOptions, fitted_on: &str) -> anyhow::Result<(LearnedEval, FitReport)> {
    let mut rng = SmallRng::seed_from_u64(opts.seed);
    let (mut train, mut held) = (Vec::new(), Vec::new());
    let (mut train_games, mut held_games) = (0, 0);
    for g in games.iter().filter(|g| !g.is_empty()) {
        if rng.gen_bool(opts.holdout.clamp(0.0, 0.9)) {
            held.extend(g.iter());
            held_games += 1;
        } else {
            train.extend(g.iter());
            train_games += 1;
        }
    }
    anyhow::ensure!(train.len() >= 1000, "too few positions to fit: {} (need 1000)", train.len());
    let is_count = |i: usize| {
        let j = i % PHASE_FEATURES;
        [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::Elephant, Role::Hawk]
            .iter()
            .any(|&r| learned::material_index(r, false) == Some(j))
    };
    let is_board = |i: usize| {
        let j = i % PHASE_FEATURES;
        !is_count(i) && j < learned::hand_index(schess::HandPiece::Elephant, false)
    };
    let space = FitFeatures::new(opts.squares);
    let train_rows: Vec<Row> = train.iter().map(|r| space.row(r)).collect();
    let train_refs: Vec<&Row> = train_rows.iter().collect();
    // Material, hands and the move are few and well determined; only the squares need
    // holding back.
    let ridge = space.ridge(|i| if is_board(i) { opts.ridge } else { 1e-3 });
    let w = space.expand(&fit(&train_refs, &ridge, opts.max_steps));
    // The same fit without the squares: what the piece-square tables add.
    let material_ridge = space.ridge(|i| if is_board(i) { 1e12 } else { 1e-3 });
    let w_material = space.expand(&fit(&train_refs, &material_ridge, opts.max_steps));
    let mean: f64 = train.iter().map(|r| f64::from(r.target)).sum::<f64>() / train.len() as f64;
    let loss_constant = {
        let p = mean.clamp(1e-6, 1.0 - 1e-6);
        let total: f64 =
            held.iter().map(|r| f64::from(r.target)).map(|y| -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())).sum();
        total / held.len().max(1) as f64
    };
    let pawn = |w: &[f64]| {
        let p = |ending| w[learned::material_index(Role::Pawn, ending).expect("a material role")];
        (p(false) + p(true)) / 2.0
    };
    let pawn_log_odds = pawn(&w);
    anyhow::ensure!(
        pawn_log_odds > 1e-4,
        "the fit gives a pawn no value ({pawn_log_odds:.5} log-odds): the games do not say enough"
    );
    let scale = 100.0 / pawn_log_odds;
    let weights: Vec<f32> = w.iter().map(|x| (x * scale) as f32).collect();
    let eval = LearnedEval::new(weights, fitted_on).map_err(anyhow::Error::msg)?;
    let in_pawns = |i: usize| w[i] / pawn_log_odds;
    let mut values: Vec<(String, f64, f64)> =
        [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::Elephant, Role::Hawk]
            .iter()
            .map(|&r| {
                let i = |ending| learned::material_index(r, ending).expect("a material role");
                (r.upper_char().to_string(), in_pawns(i(false)), in_pawns(i(true)))
            })
            .collect();
    for piece in schess::HandPiece::ALL {
        let i = |ending| learned::hand_index(piece, ending);
        values.push((format!("{} in hand", piece.role().upper_char()), in_pawns(i(false)), in_pawns(i(true))));
    }
    let report = FitReport {
        games: train_games,
        positions: train.len(),
        holdout_games: held_games,
        holdout_positions: held.len(),
        loss_constant,
        loss_material: log_loss(&held, &w_material),
        loss_learned: log_loss(&held, &w),
        pawn_log_odds,
        values,
        options: format!(
            "Rows from ply {} on, one in {}; squares fitted {}; ridge {} on squares; {} of games held out (seed {}).",
            opts.min_ply,
            opts.stride,
            match opts.squares {
                Squares::RankFile => "as a rank plus a file",
                Squares::Full => "one by one",
            },
            opts.ridge,
            opts.holdout,
            opts.seed
        ),
    };
    Ok((eval, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Games won by the side with more material teach the fit that material wins; a
    /// player that keeps its pieces on better squares teaches the squares.
    #[test]
    fn games_won_by_material_give_material_value() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut games = Vec::new();
        for g in 0..200 {
            let mut game = Game::new(schess::Position::new(schess::Variant::Seirawan));
            for _ in 0..60 {
                let moves = game.position().legal_moves();
                if moves.is_empty() || game.outcome().is_some() {
                    break;
                }
                let m = moves[rng.gen_range(0..moves.len())];
                game.play(m).unwrap();
            }
            let balance = schess::material::live_balance(game.position());
            let score = if balance > 0 {
                1.0
            } else if balance < 0 {
                0.0
            } else {
                0.5
            };
            let opts = FitOptions { min_ply: 4, ..FitOptions::default() };
            games.push(rows_of(&game, if g % 10 == 0 { 0.5 } else { score }, &opts));
        }
        let opts = FitOptions { max_steps: 8, ridge: 200.0, ..FitOptions::default() };
        let (eval, report) = fit_eval(&games, &opts, "test").unwrap();
        assert!(report.loss_learned < report.loss_constant, "{}", report.markdown());
        let queen = report.values.iter().find(|v| v.0 == "Q").unwrap();
        assert!(queen.1 > 2.0, "{}", report.markdown());
        assert_eq!(eval.weights.len(), FEATURES);
    }
}
