//! Self-play with the uniform evaluator: complete, replayable games with sound targets.

use models::policy_index::{move_of, policy_move};
use schess::{Color, Termination};
use search::evaluator::UniformEvaluator;
use search::RootMode;
use selfplay::config::MaxLengthResult;
use selfplay::runner::{play, RunOptions};
use selfplay::SelfplayConfig;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

fn run(cfg: &SelfplayConfig, games: usize) -> Vec<selfplay::GameRecord> {
    let (tx, rx) = mpsc::channel();
    let stop = AtomicBool::new(false);
    play(cfg, &UniformEvaluator, &RunOptions { games, generation: 0, seed: 7 }, &stop, tx).unwrap();
    rx.into_iter().collect()
}

fn check(records: &[selfplay::GameRecord], cfg: &SelfplayConfig) {
    for r in records {
        let game = r.replay().expect("replays");
        assert!(game.ply() as u32 <= cfg.max_plies);
        assert!(matches!(r.result, -1..=1));
        match r.termination {
            Termination::Checkmate => {
                assert!(game.position().is_checkmate());
                // The side that just moved won.
                let winner = game.position().turn().flip();
                assert_eq!(r.result_for(winner), 1);
            }
            Termination::MaxLength => {
                assert_eq!(r.result, 0);
                if cfg.max_length_result == MaxLengthResult::Material {
                    let lead = schess::material::weighted_balance(game.position(), cfg.material_hand_weight);
                    assert!(lead.abs() < cfg.material_margin as f32);
                }
            }
            t if t.is_by_rules() => {
                assert_eq!(r.result, 0);
                assert_eq!(game.outcome().map(Termination::from), Some(t));
            }
            Termination::Resignation => assert_ne!(r.result, 0),
            Termination::MaterialAdjudication => {
                assert_eq!(cfg.max_length_result, MaxLengthResult::Material);
                assert_eq!(game.ply() as u32, cfg.max_plies);
                let lead = schess::material::weighted_balance(game.position(), cfg.material_hand_weight);
                assert!(lead.abs() >= cfg.material_margin as f32);
                assert_eq!(r.result as f32, lead.signum());
            }
            t => panic!("self-play does not end games by {t}"),
        }
        for s in &r.samples {
            let pos = &game.positions()[s.ply as usize];
            let sum: f32 = s.policy.iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-3, "policy sums to {sum}");
            for &(i, p) in &s.policy {
                assert!(p > 0.0);
                assert!(policy_move(i as usize).is_some());
                assert!(move_of(pos, i as usize).is_some(), "target on an illegal move");
            }
            assert!((s.root_wdl.iter().sum::<f32>() - 1.0).abs() < 1e-3);
        }
        let _ = Color::White;
    }
}

#[test]
fn puct_games_are_complete_and_sound() {
    let cfg = SelfplayConfig {
        simulations: 16,
        fast_simulations: 4,
        full_search_fraction: 0.5,
        max_plies: 60,
        games_per_thread: 3,
        threads: 2,
        ..SelfplayConfig::default()
    };
    let records = run(&cfg, 5);
    assert_eq!(records.len(), 5);
    assert!(records.iter().any(|r| !r.samples.is_empty()));
    check(&records, &cfg);
}

#[test]
fn gumbel_games_are_complete_and_sound() {
    let mut cfg = SelfplayConfig {
        simulations: 8,
        fast_simulations: 4,
        full_search_fraction: 1.0,
        max_plies: 40,
        games_per_thread: 2,
        threads: 1,
        ..SelfplayConfig::default()
    };
    cfg.search.root_mode = RootMode::Gumbel;
    let records = run(&cfg, 2);
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r.samples.len() == r.moves.len()));
    check(&records, &cfg);
}

#[test]
fn material_adjudication_scores_long_games_by_material() {
    let cfg = SelfplayConfig {
        simulations: 4,
        fast_simulations: 2,
        full_search_fraction: 0.5,
        max_plies: 50,
        max_length_result: MaxLengthResult::Material,
        material_margin: 2,
        games_per_thread: 8,
        threads: 1,
        ..SelfplayConfig::default()
    };
    let records = run(&cfg, 16);
    assert_eq!(records.len(), 16);
    check(&records, &cfg);
    // Near-random games of 50 plies rarely end on their own, and after 25 moves of
    // captures most stand two pawns apart.
    let adjudicated = records.iter().filter(|r| r.termination == Termination::MaterialAdjudication).count();
    assert!(adjudicated >= 4, "only {adjudicated} of 16 games adjudicated by material");
    // Counting only the pieces that entered, games are adjudicated by that count.
    let cfg = SelfplayConfig { material_hand_weight: 0.0, ..cfg };
    let records = run(&cfg, 16);
    check(&records, &cfg);
    let entered_only = records.iter().filter(|r| r.termination == Termination::MaterialAdjudication).count();
    assert!(entered_only >= 4, "only {entered_only} of 16 games adjudicated by entered material");
}

/// Lead 8 of the learning review: under Gumbel, fast searches are noise-free, so the
/// opening must still vary between games (temperature_plies applies to them).
#[test]
fn fast_search_openings_vary_under_gumbel() {
    let mut cfg = SelfplayConfig {
        simulations: 8,
        fast_simulations: 4,
        full_search_fraction: 0.0,
        max_plies: 12,
        temperature_plies: 12,
        threads: 1,
        games_per_thread: 8,
        ..SelfplayConfig::default()
    };
    cfg.search.root_mode = RootMode::Gumbel;
    let games = run(&cfg, 8);
    let openings: std::collections::HashSet<Vec<String>> = games.iter().map(|g| g.moves[..6].to_vec()).collect();
    assert!(openings.len() >= 6, "{} distinct openings of 8", openings.len());
}

/// Counts the positions it evaluates.
struct Counting(std::sync::atomic::AtomicU64);

impl search::evaluator::Evaluator for Counting {
    fn evaluate(&self, h: &[&[schess::Position]]) -> anyhow::Result<Vec<search::evaluator::Evaluation>> {
        self.0.fetch_add(h.len() as u64, std::sync::atomic::Ordering::Relaxed);
        UniformEvaluator.evaluate(h)
    }
    fn describe(&self) -> String {
        "counting".into()
    }
}

/// The old network of the swap test: on its first call it has the runner's source
/// swap in the new one (as the pipeline does after a promotion), so the swap happens at a
/// fixed point of the workers' progress however the threads are scheduled.
struct SwapOnFirstCall {
    counting: Counting,
    swap_to: std::sync::OnceLock<(std::sync::Arc<selfplay::runner::SwappableNetwork>, std::sync::Arc<Counting>)>,
}

impl search::evaluator::Evaluator for SwapOnFirstCall {
    fn evaluate(&self, h: &[&[schess::Position]]) -> anyhow::Result<Vec<search::evaluator::Evaluation>> {
        if self.counting.0.load(std::sync::atomic::Ordering::Relaxed) == 0 {
            if let Some((network, new)) = self.swap_to.get() {
                network.replace(1, new.clone());
            }
        }
        self.counting.evaluate(h)
    }
    fn describe(&self) -> String {
        "swap on first call".into()
    }
}

/// Lead 5: self-play keeps its slots busy and takes a new network between moves: games
/// started after the swap record the new generation, and the new network is used.
#[test]
fn a_new_network_is_picked_up_while_games_run() {
    use selfplay::runner::{play_from, SwappableNetwork};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    let cfg = SelfplayConfig {
        simulations: 4,
        fast_simulations: 2,
        max_plies: 30,
        threads: 2,
        games_per_thread: 4,
        ..SelfplayConfig::default()
    };
    let old = Arc::new(SwapOnFirstCall { counting: Counting(Default::default()), swap_to: Default::default() });
    let new = Arc::new(Counting(Default::default()));
    let network = Arc::new(SwappableNetwork::new(0, old.clone()));
    old.swap_to.set((network.clone(), new.clone())).ok().unwrap();
    let (tx, rx) = mpsc::channel();
    let stop = AtomicBool::new(false);
    let records: Vec<selfplay::GameRecord> = std::thread::scope(|s| {
        let worker =
            s.spawn(|| play_from(&cfg, &*network, &RunOptions { games: 40, generation: 0, seed: 3 }, &stop, tx));
        let records: Vec<_> = rx.iter().collect();
        worker.join().unwrap().unwrap();
        records
    });
    assert_eq!(records.len(), 40);
    assert!(old.counting.0.load(Ordering::Relaxed) > 0 && new.0.load(Ordering::Relaxed) > 0);
    // The swap came with the first evaluation, before any game could finish: only the
    // games in flight then (2 threads x 4 at most) started with the old generation, and
    // every refilled slot started a game of the new one.
    let older = records.iter().filter(|r| r.generation == 0).count();
    assert!((1..=8).contains(&older), "{older} of 40 games by the old network");
    // The old network's games went on with the new one between moves.
    assert!(new.0.load(Ordering::Relaxed) > old.counting.0.load(Ordering::Relaxed));
}

/// A writer that fails (here: its shard directory replaced by a file) ends `play_into`
/// with that error, promptly: the self-play threads stop instead of playing on for
/// ever with nobody to take their games (a worker once hung so, silently).
#[test]
fn a_failing_writer_ends_self_play_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    let cfg = SelfplayConfig { max_plies: 20, simulations: 4, fast_simulations: 2, ..SelfplayConfig::default() };
    let stop = AtomicBool::new(false);
    let network = selfplay::runner::FixedNetwork { generation: 0, evaluator: &UniformEvaluator };
    let (done, finished) = mpsc::channel();
    std::thread::scope(|s| {
        let (cfg, network, stop, shards) = (&cfg, &network, &stop, &shards);
        s.spawn(move || {
            let mut writer = selfplay::writer::ShardWriter::new(shards, "selfplay-x", 2, false).unwrap();
            std::fs::remove_dir(shards).unwrap();
            std::fs::write(shards, b"not a directory").unwrap();
            let writer = &mut writer;
            let opts = RunOptions { games: usize::MAX, generation: 0, seed: 3 };
            let _ = done.send(selfplay::runner::play_into(cfg, network, &opts, stop, writer, |_| {}));
        });
        let r = finished.recv_timeout(std::time::Duration::from_secs(60));
        // On a hang, stop the games so that the scope can end and the test fail.
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let r = r.expect("self-play went on for 60 s after its writer failed");
        let err = r.expect_err("a writer that cannot write is an error");
        assert!(format!("{err:#}").contains("shards"), "{err:#}");
    });
}
