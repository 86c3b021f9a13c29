//! `szero selfplay`: play games with a network (or a fresh random one) and write shards.

use crate::config::RunConfig;
use crate::outage::{Publisher, FINAL_PAUSE, FINAL_TRIES};
use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use search::evaluator::Evaluator;
use selfplay::runner::{play_into, FixedNetwork, RunOptions};
use selfplay::stats::SelfplayStats;
use selfplay::writer::ShardWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Run config (TOML); its [network] and [selfplay] tables apply.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Network file (safetensors). Without it: a fresh random network (generation 0).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Number of games.
    #[arg(long, default_value_t = 64)]
    games: usize,
    /// The run to add the games to (a directory or `s3://bucket/prefix`): shards go to its
    /// `shards/`, where `szero train --run RUN` and `szero run` read them.
    #[arg(long, required_unless_present = "out", conflicts_with = "out")]
    run: Option<runstore::RunAddress>,
    /// Local directory of an S3 run (default: under ~/.cache/szero/mirrors).
    #[arg(long, requires = "run")]
    mirror: Option<PathBuf>,
    /// Or any directory for the shards (and PGN) themselves.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Generation number recorded in the games.
    #[arg(long, default_value_t = 0)]
    generation: u32,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write each shard's games as PGN.
    #[arg(long)]
    pgn: bool,
}

pub fn run(args: SelfplayArgs) -> Result<ExitCode> {
    let cfg = match &args.config {
        Some(p) => RunConfig::load(p)?,
        None => RunConfig::default(),
    };
    let (net, inputs) = crate::startup::load_or_fresh(&cfg, args.model.as_deref(), args.seed)?;
    let evaluator = crate::startup::make_evaluator(&cfg, net, inputs)?;
    let run = match &args.run {
        Some(address) => Some(crate::cmd::run::open_run("szero selfplay", address, args.mirror.as_deref())?),
        None => None,
    };
    let out = match (&run, &args.out) {
        (Some(run), _) => {
            // Shards an interrupted earlier call wrote but did not publish.
            run.push(&run.layout().shards())?;
            run.layout().shards()
        }
        (None, Some(out)) => out.clone(),
        (None, None) => anyhow::bail!("give --run RUN (shards go to RUN/shards) or --out DIR"),
    };
    // Names are unique per process on one machine; an S3 run's writers may be on many.
    let prefix = match &run {
        Some(run) if run.is_mirrored() => format!("gen{:04}-{}", args.generation, runstore::temp::host_name()),
        _ => format!("gen{:04}", args.generation),
    };
    let mut publisher = run.as_ref().map(|run| Publisher::new(run, "szero selfplay"));
    let mut writer = ShardWriter::new(&out, &prefix, cfg.selfplay.games_per_shard, args.pgn)?.on_written(|path| {
        match publisher.as_mut() {
            Some(publisher) => publisher.publish(path).map_err(std::io::Error::other),
            None => Ok(()),
        }
    });
    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} | {msg}").expect("valid template"),
    );
    let stop = AtomicBool::new(false);
    let opts = RunOptions { games: args.games, generation: args.generation, seed: args.seed };
    let start = Instant::now();
    let mut stats = SelfplayStats::default();
    let network = FixedNetwork { generation: args.generation, evaluator: evaluator.as_ref() };
    let result = play_into(&cfg.selfplay, &network, &opts, &stop, &mut writer, |record| {
        stats.add(record);
        bar.inc(1);
        bar.set_message(status_line(&stats, start.elapsed().as_secs_f64()));
    });
    bar.finish();
    result?;
    let shards_written = writer.shards_written();
    drop(writer);
    if let Some(publisher) = publisher {
        publisher.finish(FINAL_TRIES, FINAL_PAUSE)?;
    }
    println!("{}", status_line(&stats, start.elapsed().as_secs_f64()));
    if let Some((calls, rows)) = evaluator.batch_stats() {
        println!(
            "{} network evaluations in {calls} calls (mean batch {:.1}), {:.0} evaluations/s",
            rows,
            rows as f64 / calls.max(1) as f64,
            rows as f64 / start.elapsed().as_secs_f64().max(1e-9)
        );
    }
    println!("wrote {shards_written} shard(s) to {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// One line of throughput and game statistics.
pub fn status_line(s: &SelfplayStats, secs: f64) -> String {
    let secs = secs.max(1e-9);
    format!(
        "{:.2} games/s, {:.0} positions/s, avg {:.0} plies, W/D/L {}/{}/{}, resign {:.0}% (false {}/{}), gates E {} H {}",
        s.games as f64 / secs,
        s.plies as f64 / secs,
        s.mean_length(),
        s.white_wins,
        s.draws,
        s.black_wins,
        100.0 * s.resign_rate(),
        s.false_resigns,
        s.resign_checks,
        s.elephant_gates,
        s.hawk_gates
    )
}
