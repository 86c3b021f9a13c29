//! The test that decides whether a candidate network replaces the run's best: games
//! between the two with batched evaluation ([`crate::matches::batched`]), many at once,
//! and the configured rule (SPRT, fixed games, a regression check, or always). What a
//! verdict does to a run (the claim of a generation, the log, `best.safetensors`) is the
//! run store's promotion ledger (`runstore::promotion`); this module knows no run.

use crate::config::{PromotionConfig, PromotionMode};
use crate::elo::{EloEstimate, Pentanomial, SprtDecision, SprtStatus, Wdl};
use crate::matches::batched::{run_batched_match, BatchedPlayer, Side};
use crate::matches::openings::{load_epd, OpeningBook, OpeningError};
use crate::matches::{MatchConfig, MatchEnd, MatchError, Progress};
use models::load_evaluator;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The statistics of one candidate's test: what a promotion decision rests on (stored
/// with it, field for field, in the run's promotion log).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateTest {
    /// The network it was tested against; `None` when the run had no best network yet.
    pub best: Option<PathBuf>,
    pub candidate_step: Option<u64>,
    pub best_step: Option<u64>,
    pub mode: PromotionMode,
    /// Candidate's results.
    pub wdl: Wdl,
    pub pentanomial: Pentanomial,
    /// Candidate's score per game.
    pub score: f64,
    /// Candidate's Elo over the best network (pentanomial), when games were played.
    pub elo: Option<EloEstimate>,
    pub sprt: Option<SprtStatus>,
    pub pgn: Option<PathBuf>,
    pub seconds: f64,
}

/// What a test decided, with its statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The candidate passed the test.
    pub passed: bool,
    /// The test was stopped from outside before it finished (a verdict on nothing).
    pub aborted: bool,
    pub reason: String,
    pub test: CandidateTest,
}

/// Why a test could not be played.
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    #[error("invalid promotion configuration: {0}")]
    Config(#[from] settings::ConfigError),
    #[error("{}: not a usable network: {error:#}", path.display())]
    Network { path: PathBuf, error: anyhow::Error },
    #[error(transparent)]
    Openings(#[from] OpeningError),
    #[error(transparent)]
    Match(#[from] MatchError),
}

/// Plays the configured test of `candidate` against `best`, its games written to `pgn`.
/// Without a `best`, the candidate passes at once.
pub fn test_candidate(
    candidate: &Path,
    best: Option<&Path>,
    cfg: &PromotionConfig,
    stop: &AtomicBool,
    pgn: Option<PathBuf>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Verdict, TestError> {
    cfg.validate().map_err(|e| e.within("promotion"))?;
    let started = Instant::now();
    let step = |p: &Path| {
        models::checkpoint::read_metadata(p)
            .map(|m| m.training_step)
            .map_err(|e| TestError::Network { path: p.to_path_buf(), error: e.into() })
    };
    let candidate_step = step(candidate)?;
    let best_step = best.map(step).transpose()?;
    let mut d = Verdict {
        passed: true,
        aborted: false,
        reason: String::new(),
        test: CandidateTest {
            best: best.map(Path::to_path_buf),
            candidate_step: Some(candidate_step),
            best_step,
            mode: cfg.mode,
            wdl: Wdl::default(),
            pentanomial: Pentanomial::default(),
            score: 0.5,
            elo: None,
            sprt: None,
            pgn: None,
            seconds: 0.0,
        },
    };
    let Some(best) = best else {
        d.reason = "no best network yet".into();
        return Ok(finish(d, started));
    };
    if cfg.mode == PromotionMode::Always {
        d.reason = "gate mode `always`".into();
        return Ok(finish(d, started));
    }

    let player = |path: &Path, name: String| -> Result<BatchedPlayer, TestError> {
        let evaluator = load_evaluator(path, cfg.device, cfg.precision, cfg.cache_entries, None)
            .map_err(|error| TestError::Network { path: path.to_path_buf(), error })?;
        Ok(BatchedPlayer { name, evaluator, nodes: cfg.nodes, search: cfg.search.clone(), reuse: cfg.reuse_tree })
    };
    let first = player(candidate, format!("candidate-{candidate_step}"))?;
    let second = player(best, format!("best-{}", best_step.unwrap_or(0)))?;
    let seed = cfg.seed ^ candidate_step.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let book = match &cfg.openings {
        Some(path) => OpeningBook::List(load_epd(path, cfg.variant)?).shuffled(seed),
        None => OpeningBook::Random { variant: cfg.variant, plies: cfg.random_plies, seed },
    };
    let concurrency = cfg.workers();
    let match_cfg = MatchConfig {
        games: cfg.games,
        concurrency,
        adjudication: cfg.adjudication,
        sprt: (cfg.mode == PromotionMode::Sprt).then_some(cfg.sprt),
        pgn: pgn.clone(),
        event: "szero gate".into(),
        seed,
        torch_threads: cfg.torch_threads,

        ..MatchConfig::default()
    };
    let report = run_batched_match(
        Side::Search(&first),
        Side::Search(&second),
        &book,
        &match_cfg,
        cfg.games_in_flight,
        stop,
        progress,
    )?;
    d.test.wdl = report.wdl;
    d.test.pentanomial = report.pentanomial;
    d.test.score = report.wdl.score();
    d.test.elo = Some(report.elo);
    d.test.sprt = report.sprt;
    d.test.pgn = pgn;
    let threshold = |d: &mut Verdict, what: &str| {
        d.passed = d.test.score >= cfg.score_threshold;
        d.reason = format!(
            "{what}: score {:.3} {} threshold {:.3}",
            d.test.score,
            if d.passed { ">=" } else { "<" },
            cfg.score_threshold
        );
    };
    match (report.end, cfg.mode, report.sprt.map(|s| s.decision)) {
        (MatchEnd::Aborted, ..) => {
            d.passed = false;
            d.aborted = true;
            d.reason = format!("stopped after {} of {} games", report.wdl.games(), cfg.games.div_ceil(2) * 2);
        }
        (_, PromotionMode::Sprt, Some(SprtDecision::AcceptH1)) => d.reason = "SPRT accepted H1".into(),
        (_, PromotionMode::Sprt, Some(SprtDecision::AcceptH0)) => {
            d.passed = false;
            d.reason = "SPRT accepted H0".into();
        }
        (_, PromotionMode::Sprt, _) => threshold(&mut d, "SPRT undecided after all games"),
        (_, PromotionMode::Regression, _) => {
            let hi = report.elo.elo_hi;
            d.passed = no_clear_loss(&report.elo);
            d.reason = format!(
                "regression check: Elo {:+.0} (95% up to {hi:+.0}) {}",
                report.elo.elo,
                if d.passed { "is no clear loss" } else { "is a clear loss" }
            );
        }
        _ => threshold(&mut d, "fixed games"),
    }
    Ok(finish(d, started))
}

/// The regression check: the candidate did not clearly lose (the 95% interval of its Elo
/// reaches 0 or above).
pub fn no_clear_loss(elo: &EloEstimate) -> bool {
    elo.elo_hi >= 0.0
}

fn finish(mut d: Verdict, started: Instant) -> Verdict {
    d.test.seconds = started.elapsed().as_secs_f64();
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use models::{net_config, Net};
    use schess::Variant;

    /// Two different networks in `dir`, `a` (step 10) and `b` (step 20).
    fn two_nets(dir: &Path) -> (PathBuf, PathBuf) {
        let (a, b) = (dir.join("a.safetensors"), dir.join("b.safetensors"));
        save_net(&a, 1, 10);
        save_net(&b, 2, 20);
        (a, b)
    }

    fn save_net(path: &Path, seed: i64, step: u64) {
        tch::manual_seed(seed);
        let cfg = net_config(1, 8, 0);
        let net = Net::new(cfg, tch::Device::Cpu).unwrap();
        models::checkpoint::save(&net, path, models::FORMAT_VERSIONS, step).unwrap();
    }

    #[test]
    fn regression_check_rejects_only_clear_losses() {
        use crate::elo::elo_estimate;
        // Pentanomial counts (0, 0.5, 1, 1.5, 2 points per pair), 10 pairs each.
        assert!(no_clear_loss(&elo_estimate(&[1, 2, 4, 2, 1])), "an even match passes");
        assert!(no_clear_loss(&elo_estimate(&[2, 3, 3, 1, 1])), "a slight loss is not clear");
        assert!(!no_clear_loss(&elo_estimate(&[6, 3, 1, 0, 0])), "a rout fails");
    }

    /// Without a best network the candidate passes unplayed; with one, the configured
    /// games are played and the threshold decides; a stop from outside is a verdict on
    /// nothing.
    #[test]
    fn the_test_decides_by_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = two_nets(dir.path());
        let cfg = PromotionConfig {
            mode: PromotionMode::Fixed,
            games: 2,
            nodes: 4,
            concurrency: 1,
            random_plies: 2,
            score_threshold: 0.0,
            device: models::DeviceChoice::Cpu,
            adjudication: crate::matches::Adjudication { max_plies: 16, ..Default::default() },
            ..PromotionConfig::default()
        };
        let go = AtomicBool::new(false);
        let v = test_candidate(&a, None, &cfg, &go, None, &mut |_| {}).unwrap();
        assert!(v.passed && !v.aborted && v.test.wdl.games() == 0 && v.test.best.is_none(), "{v:?}");

        let pgn = dir.path().join("test.pgn");
        let v = test_candidate(&b, Some(&a), &cfg, &go, Some(pgn.clone()), &mut |_| {}).unwrap();
        assert!(v.passed && v.test.wdl.games() == 2, "{v:?}");
        assert_eq!((v.test.candidate_step, v.test.best_step), (Some(20), Some(10)));
        assert!(pgn.exists() && v.test.pgn == Some(pgn));

        let strict = PromotionConfig { score_threshold: 1.0, ..cfg.clone() };
        let v = test_candidate(&b, Some(&a), &strict, &go, None, &mut |_| {}).unwrap();
        assert!(!v.passed && v.reason.contains("threshold"), "{v:?}");

        let v = test_candidate(&b, Some(&a), &cfg, &AtomicBool::new(true), None, &mut |_| {}).unwrap();
        assert!(v.aborted && !v.passed, "{v:?}");
    }

    /// The test plays the run's rules: its games (PGN) are games of the configured
    /// variant, placements included.
    #[test]
    fn the_test_plays_the_configured_variant() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = two_nets(dir.path());
        let cfg = PromotionConfig {
            mode: PromotionMode::Fixed,
            games: 2,
            nodes: 2,
            concurrency: 1,
            device: models::DeviceChoice::Cpu,
            adjudication: crate::matches::Adjudication { max_plies: 12, ..PromotionConfig::default().adjudication },
            variant: Variant::Placement,
            ..PromotionConfig::default()
        };
        let pgn = dir.path().join("gate.pgn");
        let v = test_candidate(&b, Some(&a), &cfg, &AtomicBool::new(false), Some(pgn.clone()), &mut |_| {}).unwrap();
        assert_eq!(v.test.wdl.games(), 2);
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(text.matches("[Variant \"Seirawan-Placement\"]").count(), 2, "{text}");
        assert!(text.contains("@"), "placement moves in the games: {text}");
    }

    #[test]
    fn rejects_a_file_that_is_not_a_network() {
        let dir = tempfile::tempdir().unwrap();
        let bogus = dir.path().join("x.safetensors");
        std::fs::write(&bogus, b"nope").unwrap();
        let e = test_candidate(&bogus, None, &PromotionConfig::default(), &AtomicBool::new(false), None, &mut |_| {})
            .unwrap_err();
        assert!(matches!(e, TestError::Network { .. }), "{e}");
    }
}
