//! `szero train`: train the network on a run directory's self-play shards.
//!
//! Resumes from the run's latest trainer checkpoint when there is one (else starts from
//! `<run>/best.safetensors`, else from a fresh network), trains until `--steps` are done
//! or the train/data ratio allows no more, and leaves a checkpoint and a candidate
//! network (`<run>/candidates/step-<N>.safetensors`) behind.

use crate::config::RunConfig;
use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use trainer::{Metrics, StopReason, Trainer};

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Run config (TOML); its [train] and [network] tables apply (the whole file is
    /// checked, as for `szero run`). Default: `<run>/config.toml` if it exists, else
    /// built-in defaults.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The run, a directory or `s3://bucket/prefix` (reads `shards/`, writes `trainer/`,
    /// `candidates/`, `tensorboard/train/`; an S3 run's checkpoint is committed to the
    /// store, and a trainer with an empty mirror resumes from it).
    #[arg(long)]
    run: runstore::RunAddress,
    /// Local directory of an S3 run (default: under ~/.cache/szero/mirrors).
    #[arg(long)]
    mirror: Option<PathBuf>,
    /// Optimiser steps to train. Default: until the train/data ratio allows no more.
    #[arg(long)]
    steps: Option<u64>,
    /// Require an existing trainer checkpoint to resume from (without this flag the
    /// trainer resumes when one exists and starts fresh otherwise).
    #[arg(long)]
    resume: bool,
    /// When the data runs out, wait for self-play to write more shards instead of
    /// stopping (checks every `--poll-secs`).
    #[arg(long, requires = "steps")]
    wait: bool,
    /// Seconds between checks for new shards with `--wait`.
    #[arg(long, default_value_t = 10)]
    poll_secs: u64,
}

/// Prints above the progress bar, or to stderr when the bar is hidden (not a terminal),
/// where `ProgressBar::println` would drop the line.
fn say(bar: &ProgressBar, line: &str) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

fn describe(m: &Metrics) -> String {
    format!(
        "loss {:.3} (policy {:.3}, value {:.3}, material {:.3}) acc {:.0}%/{:.0}% value mse {:.3} lr {:.2e} {:.0} samples/s",
        m.loss,
        m.policy_loss,
        m.value_loss,
        m.material_loss,
        100.0 * m.policy_accuracy,
        100.0 * m.value_accuracy,
        m.value_mse,
        m.learning_rate,
        m.samples_per_sec
    )
}

pub fn run(args: TrainArgs) -> Result<ExitCode> {
    // A mistyped directory would otherwise be created, trained on nothing, and left behind.
    if let runstore::RunAddress::Local(dir) = &args.run {
        if !args.wait && !dir.is_dir() {
            bail!(
                "--run {}: no such directory (to start a trainer before self-play has written \
                 anything, give --wait)",
                dir.display()
            );
        }
    }
    let store = crate::cmd::run::open_run("szero train", &args.run, args.mirror.as_deref())?;
    let run = store.layout();
    let root = run.root().to_path_buf();
    let default_config = run.config();
    store.fetch(&default_config)?;
    let config = args.config.clone().or_else(|| default_config.exists().then_some(default_config));
    let RunConfig { train: cfg, network, .. } = match &config {
        Some(path) => RunConfig::load(path)?,
        None => RunConfig::default(),
    };
    let shards = run.shards();
    store.pull(&shards)?;
    let here = selfplay::shard::list(&root).unwrap_or_default();
    if !here.is_empty() && selfplay::shard::list(&shards).unwrap_or_default().is_empty() {
        bail!(
            "{} holds {} shard(s) itself, but szero train reads a run's shards from {}: \
             move them there (or write them with `szero selfplay --run {}`)",
            root.display(),
            here.len(),
            shards.display(),
            args.run
        );
    }
    if let Some(step) = crate::pipeline::restore_checkpoint(&store)? {
        eprintln!("szero train: resuming from the store's checkpoint of step {step}");
    }
    if args.resume && trainer::checkpoint::latest(&run.trainer())?.is_none() {
        bail!("--resume: no trainer checkpoint in {}", run.trainer().display());
    }

    let bar = match args.steps {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} steps (eta {eta}) {msg}")
                .expect("valid template"),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {pos} steps {msg}").expect("valid template"),
        ),
    };
    let warn_bar = bar.clone();
    let mut trainer = Trainer::open_with(
        &root,
        &cfg,
        &network.net_config(),
        Box::new(move |w| say(&warn_bar, &format!("warning: {w}"))),
    )
    .with_context(|| format!("opening the trainer of {}", args.run))?;
    say(
        &bar,
        &format!(
            "training on {:?} from step {}: {} samples in the run, window {}, allowance {:.0} samples",
            trainer.device(),
            trainer.step(),
            trainer.total_samples(),
            trainer.window(),
            trainer.allowance()
        ),
    );

    // Ctrl-C or SIGTERM (a `timeout`) stops at the next step and still writes the
    // candidate and the closing lines.
    let stop = crate::cmd::run::stop_on_interrupt("szero train")?;
    let first_step = trainer.step();
    // Time spent training, not waiting for shards (`--wait`).
    let mut training = Duration::ZERO;
    let mut remaining = args.steps.unwrap_or(u64::MAX);
    let mut last_candidate = None;
    let reason = loop {
        let started = std::time::Instant::now();
        let report = trainer.train_steps_with(remaining, &stop, &mut |step, metrics| {
            bar.inc(1);
            if let Some(m) = metrics {
                // Without a terminal (a log file, a script) the bar is hidden: the
                // logging steps become lines, as lc0's and KataGo's trainers print them.
                if bar.is_hidden() {
                    eprintln!("step {step}: {}", describe(m));
                } else {
                    bar.set_message(describe(m));
                }
            }
        })?;
        training += started.elapsed();
        remaining -= report.steps;
        last_candidate = report.candidates.last().cloned().or(last_candidate);
        match report.reason {
            StopReason::NeedData { .. } if args.wait && remaining > 0 => {
                bar.set_message("waiting for new shards");
                std::thread::sleep(Duration::from_secs(args.poll_secs.max(1)));
                store.pull(&shards)?;
                trainer.refresh()?;
            }
            reason => break reason,
        }
    };
    bar.finish_and_clear();

    let trained = trainer.step() - first_step;
    let secs = training.as_secs_f64();
    if trained > 0 && last_candidate.as_ref() != Some(&run.candidate(trainer.step())) {
        last_candidate = Some(trainer.write_candidate()?);
    }
    // Into an S3 run's store: the candidates, then the checkpoint they came from.
    store.push(&run.candidates())?;
    crate::pipeline::upload_checkpoint(&store, cfg.keep_checkpoints)?;
    let why = match reason {
        StopReason::Done => "requested steps done".to_string(),
        StopReason::Stopped => "stopped".to_string(),
        StopReason::NeedData { total_samples, min_samples, .. } if total_samples < min_samples => {
            format!("waiting for data: {total_samples} samples, training starts at {min_samples}")
        }
        StopReason::NeedData { allowance, .. } => {
            format!("train/data ratio reached (allowance {allowance:.0} samples): needs new self-play data")
        }
    };
    let rate = (trained * cfg.batch_size as u64) as f64 / secs.max(1e-9);
    println!("trained {trained} steps (now at step {}) in {secs:.1} s, {rate:.0} samples/s: {why}", trainer.step());
    if let Some(c) = last_candidate {
        println!("candidate: {}", c.display());
    }
    Ok(ExitCode::SUCCESS)
}
