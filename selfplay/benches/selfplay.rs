//! `cargo bench -p selfplay`: search cost and self-play throughput on this machine.
//!
//! 1. Search without a network (uniform evaluator): simulations/s on one thread.
//! 2. Self-play with a small network on the CPU: positions/s, network evaluations/s and
//!    mean evaluator batch size, for several games-per-thread settings.
//!
//! Without `--bench` (as under `cargo test --all-targets`) it runs a seconds-long smoke
//! version.

use models::evaluator::NetEvaluator;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use schess::Position;
use search::evaluator::{Evaluation, Evaluator, UniformEvaluator};
use search::{SearchConfig, Tree};
use selfplay::runner::{play, RunOptions};
use selfplay::SelfplayConfig;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// Counts calls and rows of the wrapped evaluator.
struct Counting<E> {
    inner: E,
    calls: AtomicU64,
    rows: AtomicU64,
}

impl<E: Evaluator> Evaluator for Counting<E> {
    fn evaluate(&self, h: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.rows.fetch_add(h.len() as u64, Ordering::Relaxed);
        self.inner.evaluate(h)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let cfg = SearchConfig::default();

    // 1. Search alone.
    let sims = if full { 200_000 } else { 2_000 };
    let mut tree = Tree::new(vec![Position::startpos()]);
    let mut rng = SmallRng::seed_from_u64(1);
    let t = Instant::now();
    tree.search(&UniformEvaluator, &cfg, sims, true, &mut rng).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "search, uniform evaluator, 1 thread: {sims} simulations in {secs:.2}s = {:.0} sims/s",
        sims as f64 / secs
    );

    // Self-play with the uniform evaluator (search + game overhead, no network).
    let games = if full { 64 } else { 4 };
    let sp = SelfplayConfig {
        simulations: 64,
        fast_simulations: 16,
        threads: 1,
        games_per_thread: 32,
        max_plies: 200,
        ..SelfplayConfig::default()
    };
    let (n, secs, calls, rows) =
        run(&sp, Counting { inner: UniformEvaluator, calls: AtomicU64::new(0), rows: AtomicU64::new(0) }, games);
    println!(
        "self-play, uniform evaluator, 1 thread: {n} positions in {secs:.2}s = {:.0} positions/s, {:.0} evals/s, mean batch {:.1}",
        n as f64 / secs,
        rows as f64 / secs,
        rows as f64 / calls.max(1) as f64
    );

    // 2. Self-play with a 6x64 network on the CPU.
    let settings: &[(usize, usize)] = if full { &[(1, 16), (2, 32), (2, 64)] } else { &[(1, 4)] };
    for &(threads, per_thread) in settings {
        models::tch::manual_seed(1);
        let net = models::Net::new(models::net_config(6, 64, 2), models::tch::Device::Cpu).unwrap();
        let eval = Counting { inner: NetEvaluator::new(net, 2), calls: AtomicU64::new(0), rows: AtomicU64::new(0) };
        let sp = SelfplayConfig {
            simulations: 32,
            fast_simulations: 8,
            threads,
            games_per_thread: per_thread,
            max_plies: if full { 40 } else { 6 },
            ..SelfplayConfig::default()
        };
        let games = if full { threads * per_thread } else { 2 };
        let (n, secs, calls, rows) = run(&sp, eval, games);
        println!(
            "self-play, 6x64 net (CPU), {threads} thread(s) x {per_thread} games: {:.0} positions/s, {:.0} evals/s, mean batch {:.1}",
            n as f64 / secs,
            rows as f64 / secs,
            rows as f64 / calls.max(1) as f64
        );
    }
}

fn run<E: Evaluator>(cfg: &SelfplayConfig, eval: Counting<E>, games: usize) -> (u64, f64, u64, u64) {
    let (tx, rx) = mpsc::channel();
    let stop = AtomicBool::new(false);
    let t = Instant::now();
    play(cfg, &eval, &RunOptions { games, generation: 0, seed: 3 }, &stop, tx).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let positions: u64 = rx.into_iter().map(|r| r.moves.len() as u64).sum();
    (positions, secs, eval.calls.load(Ordering::Relaxed), eval.rows.load(Ordering::Relaxed))
}
