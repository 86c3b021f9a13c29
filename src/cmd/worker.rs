//! `szero worker STAGE --run ADDRESS`: one stage of a run as its own process, so that a
//! scheduler (a shell loop, Slurm, Kubernetes) can start any number of self-play workers
//! beside one trainer and one promotion stage, on one machine or on several sharing the run directory.
//! The stages meet only in the run directory (see the `runstore` crate), exactly as inside
//! `szero run`.

use crate::config::RunConfig;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use runstore::RunAddress;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Stage {
    /// Self-play games into the run's shards, with the newest best network.
    Selfplay,
    /// The trainer: shards in, checkpoints and candidates out. One per run.
    Train,
    /// The promotion stage: tests each new candidate against the best network and
    /// promotes it if it passes. One per run. (`gate` before the rename.)
    #[value(alias = "gate")]
    Promote,
}

#[derive(Args, Debug)]
pub struct WorkerArgs {
    stage: Stage,
    /// The run, shared by every process of it: a directory (created if new) or
    /// `s3://bucket/prefix` (endpoint and credentials from the AWS_* variables).
    #[arg(long)]
    run: RunAddress,
    /// Local directory of an S3 run (default: under ~/.cache/szero/mirrors). Workers on
    /// one machine may share it.
    #[arg(long)]
    mirror: Option<PathBuf>,
    /// Run config (TOML). Every process of a run should use the same one.
    #[arg(long, default_value = "configs/default.toml")]
    config: PathBuf,
    /// This worker's name in shard file names, TensorBoard and its self-play seed:
    /// letters, digits, `-` and `_` (default: host name and process id).
    #[arg(long)]
    id: Option<String>,
    /// Stop after this many self-play games (self-play only).
    #[arg(long)]
    games: Option<u64>,
    /// Stop after this many minutes.
    #[arg(long)]
    minutes: Option<f64>,
}

pub fn run(args: WorkerArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("cannot read config {}", args.config.display()))?;
    let mut cfg = RunConfig::parse(&text).with_context(|| format!("in config {}", args.config.display()))?;
    cfg.run.selfplay = args.stage == Stage::Selfplay;
    cfg.run.train = args.stage == Stage::Train;
    cfg.run.promote = args.stage == Stage::Promote;
    // The config's own limits are the whole run's; a worker stops on its flags (or a signal).
    cfg.run.max_minutes = 0.0;
    cfg.run.max_steps = 0;
    cfg.run.max_generations = 0;
    if let Some(m) = args.minutes {
        anyhow::ensure!(m.is_finite() && m > 0.0, "--minutes must be > 0, got {m}");
        cfg.run.max_minutes = m;
    }
    if let Some(g) = args.games {
        anyhow::ensure!(args.stage == Stage::Selfplay, "--games applies to self-play workers only");
        anyhow::ensure!(g > 0, "--games must be at least 1");
        cfg.run.max_games = g;
    }
    let id = match args.id {
        Some(id) => check_id(&id)?,
        None => default_id(),
    };
    let stop = crate::cmd::run::stop_on_interrupt("szero worker")?;
    let who = format!("szero worker {:?} {id}", args.stage);
    let run = crate::cmd::run::open_run(&who, &args.run, args.mirror.as_deref())?;
    eprintln!("{who}: {} -> {}", args.config.display(), args.run);
    crate::pipeline::run(&cfg, &text, &run, &stop, crate::pipeline::Process::Worker(&id))?;
    Ok(ExitCode::SUCCESS)
}

/// Worker names go into file names: a short word of safe characters.
fn check_id(id: &str) -> Result<String> {
    let ok = (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    anyhow::ensure!(ok, "--id must be 1 to 64 letters, digits, '-' or '_', got {id:?}");
    Ok(id.to_string())
}

/// `HOST-PID`: distinct for every process of a run, on one machine or many.
fn default_id() -> String {
    format!("{}-{}", runstore::temp::host_name(), std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_ids_are_safe_in_file_names() {
        assert!(check_id("gpu-node_7").is_ok());
        for bad in ["", "a/b", "../x", "a b", &"x".repeat(65)] {
            assert!(check_id(bad).is_err(), "{bad:?}");
        }
        assert!(check_id(&default_id()).is_ok(), "{}", default_id());
    }
}
