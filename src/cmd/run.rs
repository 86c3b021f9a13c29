//! `szero run`: the whole learning loop in one command (see `crate::pipeline`).

use crate::config::RunConfig;
use crate::rundir::RunDir;
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Run config (TOML).
    #[arg(long, default_value = "configs/default.toml")]
    config: PathBuf,
    /// Run directory (created; an existing one is resumed).
    #[arg(long, default_value = "runs/default")]
    run_dir: PathBuf,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.config).with_context(|| format!("cannot read config {}", args.config.display()))?;
    let cfg = RunConfig::parse(&text).with_context(|| format!("in config {}", args.config.display()))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            // A second Ctrl-C: leave at once (every file is written atomically).
            std::process::exit(130);
        }
        eprintln!("\nszero run: stopping (Ctrl-C again to quit at once)");
    })
    .context("installing the Ctrl-C handler")?;
    let run = RunDir::new(&args.run_dir);
    eprintln!("szero run: {} -> {}", args.config.display(), run.root.display());
    crate::pipeline::run(&cfg, &text, &run, &stop)?;
    Ok(ExitCode::SUCCESS)
}
