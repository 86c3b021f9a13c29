//! Writes many cheap self-play games as shards, to measure `szero gating-report` on a
//! realistic input size (10,000 games by default): the real self-play runner with the
//! uniform evaluator and a handful of simulations, so records have the shape, length and
//! sample payload of real ones, spread over several generations for the trend section.
//!
//! ```text
//! cargo run --release -p research --example gen_games -- --games 10000 --out /tmp/bench-run
//! szero gating-report --run /tmp/bench-run --out /tmp/bench-report
//! ```

use search::evaluator::UniformEvaluator;
use selfplay::runner::{play, RunOptions};
use selfplay::SelfplayConfig;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Instant;

struct Args {
    games: usize,
    out: PathBuf,
    generations: u32,
    per_shard: usize,
    variant: String,
    threads: usize,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        games: 10_000,
        out: PathBuf::from("bench-run"),
        generations: 5,
        per_shard: 500,
        variant: "seirawan".into(),
        threads: 2,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let num = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--games" => a.games = num(value()?)?,
            "--out" => a.out = PathBuf::from(value()?),
            "--generations" => a.generations = num(value()?)?.max(1) as u32,
            "--per-shard" => a.per_shard = num(value()?)?.max(1),
            "--variant" => a.variant = value()?,
            "--threads" => a.threads = num(value()?)?.max(1),
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(a)
}

fn main() -> anyhow::Result<()> {
    let args = parse().map_err(anyhow::Error::msg)?;
    let shards = runstore::RunLayout::new(&args.out).shards();
    std::fs::create_dir_all(&shards)?;
    let cfg = SelfplayConfig {
        simulations: 4,
        fast_simulations: 2,
        full_search_fraction: 0.5,
        max_plies: 200,
        games_per_thread: 64,
        threads: args.threads,
        variant: args.variant.clone(),
        ..SelfplayConfig::default()
    };
    let started = Instant::now();
    let mut written = 0;
    for generation in 0..args.generations {
        let games = args.games * (generation as usize + 1) / args.generations as usize
            - args.games * generation as usize / args.generations as usize;
        let (tx, rx) = mpsc::channel();
        let stop = AtomicBool::new(false);
        let opts = RunOptions { games, generation, seed: 1000 + generation as u64 };
        play(&cfg, &UniformEvaluator, &opts, &stop, tx)?;
        let records: Vec<_> = rx.into_iter().collect();
        for (i, chunk) in records.chunks(args.per_shard).enumerate() {
            selfplay::shard::write(&shards.join(format!("gen{generation:04}-bench-{i:05}.shard")), chunk)?;
        }
        written += records.len();
        eprintln!("generation {generation}: {} games ({:.1} s so far)", records.len(), started.elapsed().as_secs_f64());
    }
    eprintln!("{written} games in {} in {:.1} s", shards.display(), started.elapsed().as_secs_f64());
    Ok(())
}
