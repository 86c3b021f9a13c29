//! One rating scale for every player: a chain of fixed anchor players (Fairy-Stockfish at
//! depths 1, 2, 3, ...), each neighbouring pair measured once, the first anchor at 0.
//!
//! A rating against one opponent says little once the score nears 0 or 1, and ratings
//! against different opponents cannot be compared. So a player is rated against the two
//! anchors that bracket it (it scores at least half against the lower, less than half
//! against the upper), and the two estimates are combined with the uncertainty of the
//! anchors' own places, which grows along the chain. This is what a CCRL- or
//! fishtest-style reader expects: one number, one interval, the games it rests on.

use crate::elo::{elo_estimate, EloEstimate, Pentanomial, Wdl};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// 97.5% quantile of the normal distribution: intervals are estimate ± this many standard
/// deviations.
const Z: f64 = 1.959_963_984_540_054;

/// How every game on a scale is played (the same for the anchors' pairs and for players
/// rated on it, so that ratings mean the same thing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScaleSettings {
    /// Random plies of each opening (each opening is played with both colours).
    pub random_plies: u32,
    /// Seed of the anchors' openings.
    pub seed: u64,
    /// Draw after this many plies.
    pub max_plies: u32,
    /// The rules.
    pub variant: String,
}

/// One neighbouring pair of anchors, measured: `upper` against `lower`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    pub lower: String,
    pub upper: String,
    /// From `upper`'s side.
    pub wdl: Wdl,
    /// From `upper`'s side, fishtest order.
    pub pentanomial: Pentanomial,
    pub seconds: f64,
}

/// A scale file: the anchors, weakest first, and their measured pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scale {
    pub settings: ScaleSettings,
    /// Player specs (as `szero match` reads them), weakest first.
    pub anchors: Vec<String>,
    pub pairs: Vec<PairResult>,
}

/// A player's results against a scale's anchors, kept while it is rated: a rating of
/// 100 games an anchor at 1 s a move takes over half an hour an anchor, so an interrupted
/// one resumes, and one that ran off the top of the scale continues once stronger anchors
/// are added, without replaying an anchor it has met.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerResults {
    /// The player's spec, as `szero match` reads it.
    pub player: String,
    /// Games against each anchor.
    pub games: usize,
    /// Seed of the player's openings.
    pub seed: u64,
    /// The scale's settings the games were played under.
    pub settings: ScaleSettings,
    /// In the order they were played.
    pub results: Vec<AnchorResult>,
}

/// The player's games against one anchor, from the player's side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnchorResult {
    pub anchor: String,
    pub wdl: Wdl,
    pub pentanomial: Pentanomial,
}

impl PlayerResults {
    /// The file at `path`, or `None` when there is none yet.
    pub fn load(path: &Path) -> Result<Option<PlayerResults>, ScaleError> {
        let err = |message: String| ScaleError::File { path: path.display().to_string(), message };
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| err(e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(err(e.to_string())),
        }
    }

    /// Writes the file whole, through a temporary file (`save_json`).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_json(path, self)
    }

    /// What differs between these results and a rating of `player` at `games` games an
    /// anchor, openings `seed`, on a scale with `settings` (`None`: they are the same), so
    /// that results of another rating are never mixed into this one.
    pub fn mismatch(&self, player: &str, games: usize, seed: u64, settings: &ScaleSettings) -> Option<String> {
        if self.player != player {
            Some(format!("another player ({})", self.player))
        } else if self.games != games {
            Some(format!("{} games an anchor, not {games}", self.games))
        } else if self.seed != seed {
            Some(format!("openings seed {}, not {seed}", self.seed))
        } else if &self.settings != settings {
            Some("a scale with other settings".into())
        } else {
            None
        }
    }
}

/// An anchor's place on the scale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnchorRating {
    pub spec: String,
    /// Elo above the first anchor.
    pub elo: f64,
    /// Standard deviation of `elo` (0 for the first anchor).
    pub sd: f64,
}

/// Errors of a scale file or of a rating asked of it.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    #[error("scale {path}: {message}")]
    File { path: String, message: String },
    #[error("the scale needs at least two anchors, got {0}")]
    TooFewAnchors(usize),
    #[error("the pair {lower} / {upper} has not been measured")]
    MissingPair { lower: String, upper: String },
    #[error("no games against anchor {0}")]
    NoGames(String),
    #[error("anchor {0} is not on the scale")]
    UnknownAnchor(String),
}

/// Writes `value` as JSON to `path` whole, through a temporary file, so that an
/// interruption never leaves a torn file.
fn save_json(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(value).expect("plain data serialises"))?;
    std::fs::rename(tmp, path)
}

/// Elo and its standard deviation from pentanomial counts (fishtest's estimate; the
/// standard deviation is the 95% interval's half-width over 1.96).
fn elo_sd(p: &Pentanomial) -> (EloEstimate, f64) {
    let e = elo_estimate(&p.0);
    (e, (e.elo_hi - e.elo_lo) / (2.0 * Z))
}

impl Scale {
    /// A scale of `anchors` (weakest first) with nothing measured yet.
    pub fn new(settings: ScaleSettings, anchors: Vec<String>) -> Result<Scale, ScaleError> {
        if anchors.len() < 2 {
            return Err(ScaleError::TooFewAnchors(anchors.len()));
        }
        Ok(Scale { settings, anchors, pairs: Vec::new() })
    }

    pub fn load(path: &Path) -> Result<Scale, ScaleError> {
        let err = |message: String| ScaleError::File { path: path.display().to_string(), message };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        let scale: Scale = serde_json::from_str(&text).map_err(|e| err(e.to_string()))?;
        if scale.anchors.len() < 2 {
            return Err(err(format!("needs at least two anchors, has {}", scale.anchors.len())));
        }
        Ok(scale)
    }

    /// Writes the file whole, through a temporary file (`save_json`).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_json(path, self)
    }

    /// The same scale with stronger anchors after its own, its measured pairs kept: how a
    /// scale grows when a player rates above its strongest anchor. Its zero stays where it
    /// is, so every rating made on it stays valid. `None` unless the scale's anchors are
    /// the first of `anchors`, in order.
    pub fn extended(mut self, anchors: Vec<String>) -> Option<Scale> {
        if !anchors.starts_with(&self.anchors) {
            return None;
        }
        self.anchors = anchors;
        Some(self)
    }

    /// A player's results as anchor indices on this scale, for [`Scale::next_anchor`] and
    /// [`Scale::rate`]; an anchor that is not on it is an error.
    pub fn indexed(&self, results: &[AnchorResult]) -> Result<Vec<(usize, Pentanomial)>, ScaleError> {
        results
            .iter()
            .map(|r| {
                let i = self.anchors.iter().position(|a| a == &r.anchor);
                i.map(|i| (i, r.pentanomial)).ok_or_else(|| ScaleError::UnknownAnchor(r.anchor.clone()))
            })
            .collect()
    }

    /// The measured pair of anchors `i` and `i + 1`, if any.
    pub fn pair(&self, i: usize) -> Option<&PairResult> {
        let (lower, upper) = (&self.anchors[i], &self.anchors[i + 1]);
        self.pairs.iter().find(|p| &p.lower == lower && &p.upper == upper)
    }

    /// Records a pair (replacing an earlier measurement of the same pair).
    pub fn put(&mut self, result: PairResult) {
        self.pairs.retain(|p| !(p.lower == result.lower && p.upper == result.upper));
        self.pairs.push(result);
    }

    /// Every anchor's place: the first at 0, each next one at the previous plus the
    /// measured difference of their pair; variances add along the chain.
    pub fn ratings(&self) -> Result<Vec<AnchorRating>, ScaleError> {
        let mut out = vec![AnchorRating { spec: self.anchors[0].clone(), elo: 0.0, sd: 0.0 }];
        let mut var = 0.0;
        for i in 0..self.anchors.len() - 1 {
            let pair = self.pair(i).ok_or_else(|| ScaleError::MissingPair {
                lower: self.anchors[i].clone(),
                upper: self.anchors[i + 1].clone(),
            })?;
            let (e, sd) = elo_sd(&pair.pentanomial);
            var += sd * sd;
            out.push(AnchorRating { spec: self.anchors[i + 1].clone(), elo: out[i].elo + e.elo, sd: var.sqrt() });
        }
        Ok(out)
    }

    /// The anchor a player should meet next, given its results so far (anchor index and
    /// pentanomial counts from the player's side), or `None` once it is bracketed or has
    /// run off either end. The search starts at `start` and walks up while the player
    /// scores at least half, down while it scores less.
    pub fn next_anchor(&self, start: usize, results: &[(usize, Pentanomial)]) -> Option<usize> {
        if results.is_empty() {
            return Some(start.min(self.anchors.len() - 1));
        }
        let wins = |i: usize| results.iter().find(|(a, _)| *a == i).map(|(_, p)| score(p) >= 0.5);
        let (last, _) = results.last().expect("not empty");
        let next =
            if wins(*last)? { last.checked_add(1).filter(|&n| n < self.anchors.len()) } else { last.checked_sub(1) };
        let next = next?;
        // Bracketed: the lower of the two scored >= 1/2, the upper < 1/2.
        let (lo, hi) = if next > *last { (*last, next) } else { (next, *last) };
        if wins(lo) == Some(true) && wins(hi) == Some(false) {
            return None;
        }
        match wins(next) {
            Some(_) => None,
            None => Some(next),
        }
    }

    /// A player's rating from its results against anchors (index, pentanomial counts
    /// from the player's side).
    pub fn rate(&self, results: &[(usize, Pentanomial)]) -> Result<Rating, ScaleError> {
        let anchors = self.ratings()?;
        for (i, p) in results {
            if *i >= anchors.len() {
                return Err(ScaleError::UnknownAnchor(format!("#{i}")));
            }
            if p.pairs() == 0 {
                return Err(ScaleError::NoGames(anchors[*i].spec.clone()));
            }
        }
        let find = |i: usize| results.iter().find(|(a, _)| *a == i).map(|(_, p)| p);
        let against: Vec<Against> = results
            .iter()
            .map(|(i, p)| {
                let (e, sd) = elo_sd(p);
                let anchor = anchors[*i].spec.clone();
                Against { anchor, pairs: p.pairs(), score: score(p), elo: e.elo, sd, pentanomial: *p }
            })
            .collect();
        // The highest bracket: anchor i scored >= 1/2 and anchor i + 1 < 1/2.
        let bracket = (0..anchors.len() - 1)
            .rev()
            .find(|&i| find(i).is_some_and(|p| score(p) >= 0.5) && find(i + 1).is_some_and(|p| score(p) < 0.5));
        let (elo, sd, place) = match bracket {
            Some(i) => {
                // r = R_i + w E_i + (1 - w)(D_i + E_{i+1}), D_i the pair's difference: the
                // lower anchor's own uncertainty is shared by both estimates, the pair's
                // only by the upper one. w minimises the variance.
                let (e_lo, s_lo) = elo_sd(find(i).expect("bracketed"));
                let (e_hi, s_hi) = elo_sd(find(i + 1).expect("bracketed"));
                let d = anchors[i + 1].elo - anchors[i].elo;
                let s_d2 = anchors[i + 1].sd.powi(2) - anchors[i].sd.powi(2);
                let (v_lo, v_hi) = (s_lo * s_lo, s_d2 + s_hi * s_hi);
                let w = if v_lo + v_hi > 0.0 { v_hi / (v_lo + v_hi) } else { 0.5 };
                let elo = anchors[i].elo + w * e_lo.elo + (1.0 - w) * (d + e_hi.elo);
                let var = anchors[i].sd.powi(2) + w * w * v_lo + (1.0 - w).powi(2) * v_hi;
                (elo, var.sqrt(), Placement::Between(anchors[i].spec.clone(), anchors[i + 1].spec.clone()))
            }
            None => {
                // Not bracketed: the nearest anchor alone, and where the player stands.
                let top = anchors.len() - 1;
                let place = if find(top).is_some_and(|p| score(p) >= 0.5) {
                    Placement::AboveTop
                } else if find(0).is_some_and(|p| score(p) < 0.5) {
                    Placement::BelowBottom
                } else {
                    Placement::Unbracketed
                };
                let (i, p) = results
                    .iter()
                    .min_by(|a, b| (score(&a.1) - 0.5).abs().total_cmp(&(score(&b.1) - 0.5).abs()))
                    .ok_or_else(|| ScaleError::NoGames("any anchor".into()))?;
                let (e, s) = elo_sd(p);
                (anchors[*i].elo + e.elo, (anchors[*i].sd.powi(2) + s * s).sqrt(), place)
            }
        };
        Ok(Rating { elo, elo_lo: elo - Z * sd, elo_hi: elo + Z * sd, sd, placement: place, against })
    }
}

/// Points per game of pentanomial counts (fishtest order: pair scores 0, 1/4, ..., 1).
fn score(p: &Pentanomial) -> f64 {
    match p.pairs() {
        0 => 0.5,
        n => p.0.iter().enumerate().map(|(k, &c)| k as f64 / 4.0 * c as f64).sum::<f64>() / n as f64,
    }
}

/// Where a rated player stands among the anchors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Placement {
    /// Scored at least half against the first, less than half against the second.
    Between(String, String),
    /// Scored at least half against the strongest anchor: the rating is a floor.
    AboveTop,
    /// Scored less than half against the weakest anchor: the rating is a ceiling.
    BelowBottom,
    /// The results do not bracket the player (too few anchors played).
    Unbracketed,
}

/// A player's result against one anchor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Against {
    pub anchor: String,
    pub pairs: u64,
    pub score: f64,
    /// Elo over that anchor and its standard deviation.
    pub elo: f64,
    pub sd: f64,
    /// The pairs' counts the rest is computed from (fishtest order).
    pub pentanomial: Pentanomial,
}

/// A rating on a scale, with its 95% interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rating {
    pub elo: f64,
    pub elo_lo: f64,
    pub elo_hi: f64,
    pub sd: f64,
    pub placement: Placement,
    pub against: Vec<Against>,
}

impl Rating {
    /// One line: the rating, its interval and what it rests on.
    pub fn summary(&self) -> String {
        let place = match &self.placement {
            Placement::Between(a, b) => format!("between {a} and {b}"),
            Placement::AboveTop => {
                "above the strongest anchor: a floor, add a stronger anchor (`szero scale anchors` with the \
                 scale's anchors and the new one after them)"
                    .into()
            }
            Placement::BelowBottom => "below the weakest anchor: a ceiling, add a weaker anchor".into(),
            Placement::Unbracketed => "not bracketed".into(),
        };
        let games: Vec<String> = self
            .against
            .iter()
            .map(|a| {
                format!(
                    "{} games vs {} ({:.1}%, {:+.0} ± {:.0})",
                    2 * a.pairs,
                    a.anchor,
                    100.0 * a.score,
                    a.elo,
                    Z * a.sd
                )
            })
            .collect();
        format!(
            "{:+.0} Elo [{:+.0}, {:+.0}] on the scale, {place}; from {}",
            self.elo,
            self.elo_lo,
            self.elo_hi,
            games.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> ScaleSettings {
        ScaleSettings { random_plies: 8, seed: 1, max_plies: 400, variant: "seirawan".into() }
    }

    fn pair(lower: &str, upper: &str, pent: [u64; 5]) -> PairResult {
        PairResult {
            lower: lower.into(),
            upper: upper.into(),
            wdl: Wdl::default(),
            pentanomial: Pentanomial(pent),
            seconds: 0.0,
        }
    }

    fn three() -> Scale {
        let mut s = Scale::new(settings(), vec!["a".into(), "b".into(), "c".into()]).unwrap();
        // b over a: 75% (elo ~ +191); c over b: 50%.
        s.put(pair("a", "b", [0, 10, 20, 40, 30]));
        s.put(pair("b", "c", [10, 20, 40, 20, 10]));
        s
    }

    /// A stronger anchor joins after the others: their pairs and places are kept, and
    /// only the new pair is missing. Other anchors, or the same in another order, are not
    /// an extension.
    #[test]
    fn a_scale_grows_by_stronger_anchors_only() {
        let s = three();
        let before = s.ratings().unwrap();
        let names = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let mut four = s.clone().extended(names(&["a", "b", "c", "d"])).unwrap();
        assert_eq!(four.pairs, s.pairs);
        assert!(four.pair(2).is_none());
        assert!(matches!(four.ratings(), Err(ScaleError::MissingPair { .. })));
        four.put(pair("c", "d", [10, 20, 40, 20, 10]));
        let after = four.ratings().unwrap();
        assert_eq!(&after[..3], &before[..]);
        assert_eq!(s.clone().extended(names(&["a", "b", "c"])), Some(s.clone()));
        assert_eq!(s.clone().extended(names(&["b", "c", "d"])), None);
        assert_eq!(s.clone().extended(names(&["a", "c", "b", "d"])), None);
        assert_eq!(s.extended(names(&["a", "b"])), None);
    }

    /// A player's kept results: read back as written, placed on the scale by anchor, and
    /// refused for another rating or an anchor the scale lacks.
    #[test]
    fn player_results_round_trip_and_refuse_other_ratings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        assert_eq!(PlayerResults::load(&path).unwrap(), None);
        let s = three();
        let win = Pentanomial([0, 0, 10, 20, 20]);
        let kept = PlayerResults {
            player: "p".into(),
            games: 100,
            seed: 2,
            settings: settings(),
            results: vec![AnchorResult { anchor: "b".into(), wdl: Wdl::default(), pentanomial: win }],
        };
        kept.save(&path).unwrap();
        let back = PlayerResults::load(&path).unwrap().unwrap();
        assert_eq!(back, kept);
        assert_eq!(s.indexed(&back.results).unwrap(), vec![(1, win)]);
        assert_eq!(back.mismatch("p", 100, 2, &settings()), None);
        assert!(back.mismatch("q", 100, 2, &settings()).unwrap().contains("another player"));
        assert!(back.mismatch("p", 50, 2, &settings()).unwrap().contains("100 games"));
        assert!(back.mismatch("p", 100, 3, &settings()).unwrap().contains("seed 2"));
        let elsewhere = ScaleSettings { seed: 9, ..settings() };
        assert!(back.mismatch("p", 100, 2, &elsewhere).is_some());
        let stray = [AnchorResult { anchor: "z".into(), wdl: Wdl::default(), pentanomial: win }];
        assert!(matches!(s.indexed(&stray), Err(ScaleError::UnknownAnchor(a)) if a == "z"));
        std::fs::write(&path, "{").unwrap();
        assert!(PlayerResults::load(&path).unwrap_err().to_string().contains("results.json"));
    }

    #[test]
    fn anchors_chain_their_pairs_and_variances_add() {
        let r = three().ratings().unwrap();
        assert_eq!(r[0].elo, 0.0);
        let (ab, sab) = elo_sd(&Pentanomial([0, 10, 20, 40, 30]));
        let (bc, sbc) = elo_sd(&Pentanomial([10, 20, 40, 20, 10]));
        assert!((r[1].elo - ab.elo).abs() < 1e-9);
        assert!((r[2].elo - ab.elo - bc.elo).abs() < 1e-9);
        assert!((r[2].sd - (sab * sab + sbc * sbc).sqrt()).abs() < 1e-9);
        let mut missing = three();
        missing.pairs.pop();
        assert!(matches!(missing.ratings(), Err(ScaleError::MissingPair { .. })));
    }

    #[test]
    fn a_bracketed_player_lies_between_its_anchors() {
        let s = three();
        let anchors = s.ratings().unwrap();
        // 62.5% against b, 37.5% against c.
        let results = [(1, Pentanomial([5, 10, 40, 30, 15])), (2, Pentanomial([15, 30, 40, 10, 5]))];
        let r = s.rate(&results).unwrap();
        assert_eq!(r.placement, Placement::Between("b".into(), "c".into()));
        assert!(r.elo > anchors[1].elo && r.elo < anchors[2].elo + 100.0, "{r:?}");
        assert!(r.elo_lo < r.elo && r.elo < r.elo_hi);
        // The lower anchor's uncertainty is in every estimate: the interval is never
        // narrower than its own.
        assert!(r.sd >= anchors[1].sd);
        // Symmetric results around the midpoint of two equal anchors: the midpoint.
        let mid = anchors[1].elo + (anchors[2].elo - anchors[1].elo) / 2.0;
        assert!((r.elo - mid).abs() < 30.0, "{} vs {mid}", r.elo);
    }

    #[test]
    fn the_search_walks_to_a_bracket_and_stops() {
        let s = three();
        let win = Pentanomial([0, 0, 10, 20, 20]);
        let lose = Pentanomial([20, 20, 10, 0, 0]);
        assert_eq!(s.next_anchor(1, &[]), Some(1));
        assert_eq!(s.next_anchor(1, &[(1, win)]), Some(2));
        assert_eq!(s.next_anchor(1, &[(1, win), (2, lose)]), None);
        assert_eq!(s.next_anchor(1, &[(1, lose)]), Some(0));
        assert_eq!(s.next_anchor(1, &[(1, lose), (0, win)]), None);
        // Off the top: nothing more to play, and the rating says it is a floor.
        assert_eq!(s.next_anchor(2, &[(2, win)]), None);
        assert_eq!(s.rate(&[(2, win)]).unwrap().placement, Placement::AboveTop);
        assert_eq!(s.rate(&[(0, lose)]).unwrap().placement, Placement::BelowBottom);
    }

    #[test]
    fn files_round_trip_and_bad_ones_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scale.json");
        let s = three();
        s.save(&path).unwrap();
        assert_eq!(Scale::load(&path).unwrap(), s);
        std::fs::write(&path, "{").unwrap();
        let e = Scale::load(&path).unwrap_err().to_string();
        assert!(e.contains("scale.json"), "{e}");
        assert!(matches!(Scale::new(settings(), vec!["a".into()]), Err(ScaleError::TooFewAnchors(1))));
    }
}
