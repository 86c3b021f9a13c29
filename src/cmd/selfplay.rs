//! `szero selfplay`: play games with a network (or a fresh random one) and write shards.

use crate::config::RunConfig;
use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use models::batcher::BatchingNetEvaluator;
use models::evaluator::{Evaluator, NetEvaluator};
use models::Net;
use selfplay::runner::{play_into, FixedNetwork, RunOptions};
use selfplay::stats::SelfplayStats;
use selfplay::writer::ShardWriter;
use selfplay::NetworkSharing;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

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
    /// Run directory to add the games to: shards go to `RUN/shards`, where `szero train
    /// --run RUN` and `szero run` read them.
    #[arg(long, required_unless_present = "out", conflicts_with = "out")]
    run: Option<PathBuf>,
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

/// Loads a network file, or builds a fresh one from the config.
pub fn load_or_fresh(cfg: &RunConfig, model: Option<&Path>, seed: u64) -> Result<(Net, usize)> {
    let device = cfg.network.device.resolve()?;
    let (mut net, history) = match model {
        Some(path) => {
            let (net, _meta) = models::checkpoint::load(path, models::FORMAT_VERSIONS, device, cfg.network.precision)
                .with_context(|| format!("loading network {}", path.display()))?;
            let history = models::history_of(net.config())
                .with_context(|| format!("{}: input planes fit no known history length", path.display()))?;
            (net, history)
        }
        None => {
            models::tch::manual_seed(seed as i64);
            (Net::new(cfg.network.net_config(), device)?, cfg.network.history)
        }
    };
    net.set_precision(cfg.network.precision);
    Ok((net, history))
}

/// The evaluator self-play uses (`selfplay.network_sharing`): by default on CUDA one
/// batch merged across all worker threads (the GPU wants thousands of positions per
/// call); on the CPU one copy of the network per worker thread, so that each thread's
/// network call runs while the others search.
pub fn make_evaluator(cfg: &RunConfig, net: Net, history: usize) -> Result<Box<dyn Evaluator>> {
    let threads = cfg.selfplay.worker_threads();
    let merged = match cfg.selfplay.network_sharing {
        NetworkSharing::Auto => net.device().is_cuda(),
        NetworkSharing::Merged => true,
        NetworkSharing::PerThread => false,
    };
    Ok(if merged {
        let rows = threads * cfg.selfplay.games_per_thread;
        Box::new(BatchingNetEvaluator::new(net, history, threads, rows, Duration::from_millis(5)))
    } else {
        Box::new(NetEvaluator::with_copies(net, history, threads)?)
    })
}

pub fn run(args: SelfplayArgs) -> Result<ExitCode> {
    let cfg = match &args.config {
        Some(p) => RunConfig::load(p)?,
        None => RunConfig::default(),
    };
    let (net, history) = load_or_fresh(&cfg, args.model.as_deref(), args.seed)?;
    let evaluator = make_evaluator(&cfg, net, history)?;
    let out = match (&args.run, &args.out) {
        (Some(run), _) => run.join("shards"),
        (None, Some(out)) => out.clone(),
        (None, None) => anyhow::bail!("give --run RUN_DIR (shards go to RUN_DIR/shards) or --out DIR"),
    };
    let mut writer = ShardWriter::new(&out, &format!("gen{:04}", args.generation), cfg.selfplay.games_per_shard, args.pgn)?;
    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} games {elapsed} | {msg}").expect("valid template"));
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
    println!("{}", status_line(&stats, start.elapsed().as_secs_f64()));
    if let Some((calls, rows)) = evaluator.batch_stats() {
        println!(
            "{} network evaluations in {calls} calls (mean batch {:.1}), {:.0} evaluations/s",
            rows,
            rows as f64 / calls.max(1) as f64,
            rows as f64 / start.elapsed().as_secs_f64().max(1e-9)
        );
    }
    println!("wrote {} shard(s) to {}", writer.shards_written(), out.display());
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
