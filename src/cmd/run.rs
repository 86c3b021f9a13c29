//! `szero run`: the whole learning loop in one command (see `crate::pipeline`).

use crate::config::RunConfig;
use anyhow::{Context, Result};
use clap::Args;
use runstore::{Run, RunAddress};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Run config (TOML).
    #[arg(long, default_value = "configs/default.toml")]
    config: PathBuf,
    /// The run: a directory (created; an existing one is resumed) or `s3://bucket/prefix`
    /// (endpoint and credentials from the AWS_* variables; see docs/runs.md).
    #[arg(long, default_value = "runs/default")]
    run_dir: RunAddress,
    /// Local directory of an S3 run (default: under ~/.cache/szero/mirrors).
    #[arg(long)]
    mirror: Option<PathBuf>,
    /// Stop after this many minutes (overrides `[run] max_minutes`; 0 = never).
    #[arg(long)]
    max_minutes: Option<f64>,
    /// Stop once the trainer reaches this step and its candidate is gated (overrides
    /// `[run] max_steps`; 0 = never).
    #[arg(long)]
    max_steps: Option<u64>,
    /// Seed of the network's initialisation, the data order and self-play (overrides
    /// `[train] seed`): runs that differ only in it are independent repetitions.
    #[arg(long)]
    seed: Option<u64>,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let mut text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("cannot read config {}", args.config.display()))?;
    let mut cfg = RunConfig::parse(&text).with_context(|| format!("in config {}", args.config.display()))?;
    // Overrides are recorded at the end of the run's copy of the config.
    let mut overrides = Vec::new();
    if let Some(m) = args.max_minutes {
        anyhow::ensure!(m.is_finite() && m >= 0.0, "--max-minutes must be >= 0, got {m}");
        cfg.run.max_minutes = m;
        overrides.push(format!("[run] max_minutes = {m}"));
    }
    if let Some(s) = args.max_steps {
        cfg.run.max_steps = s;
        overrides.push(format!("[run] max_steps = {s}"));
    }
    if let Some(seed) = args.seed {
        cfg.train.seed = seed;
        overrides.push(format!("[train] seed = {seed}"));
    }
    if !overrides.is_empty() {
        text.push_str("\n# Overridden on the command line:\n");
        for o in &overrides {
            text.push_str(&format!("#   {o}\n"));
        }
    }
    let stop = stop_on_interrupt("szero run")?;
    let run = open_run("szero run", &args.run_dir, args.mirror.as_deref())?;
    eprintln!("szero run: {} -> {}", args.config.display(), args.run_dir);
    crate::pipeline::run(&cfg, &text, &run, &stop, crate::pipeline::Process::Run)?;
    Ok(ExitCode::SUCCESS)
}

/// Opens the run at `address` for a stage (contacting its store once, so that a wrong
/// endpoint, credentials or bucket fail now) and says where an S3 run is mirrored.
pub fn open_run(who: &str, address: &RunAddress, mirror: Option<&std::path::Path>) -> Result<Run> {
    let run = Run::open(address, mirror).with_context(|| format!("opening the run {address}"))?;
    if run.is_mirrored() {
        eprintln!("{who}: {address} is mirrored in {}", run.layout().root().display());
    }
    Ok(run)
}

/// A flag that Ctrl-C (or SIGTERM, as a scheduler sends) sets: the stages finish what they
/// are writing and stop. A second signal leaves at once (every file is written atomically).
pub fn stop_on_interrupt(who: &'static str) -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\n{who}: stopping (Ctrl-C again to quit at once)");
    })
    .context("installing the Ctrl-C handler")?;
    Ok(stop)
}
