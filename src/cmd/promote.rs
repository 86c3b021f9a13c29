//! `szero promote` (`szero gate` before the rename): test a candidate network against the
//! best one and, with `--run`, promote it if it passes: the promotion stage's one step
//! ([`crate::pipeline::promotion_step`]), as `szero run` takes it after each candidate.

use anyhow::{Context, Result};
use clap::Args;
use eval::config::{PromotionConfig, PromotionMode};
use indicatif::{ProgressBar, ProgressStyle};
use runstore::{Run, RunAddress};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// Exit status: 0 when the candidate passed (and, with --run, was promoted), 1 when it did
/// not, 2 on errors.
#[derive(Args, Debug)]
pub struct PromoteArgs {
    /// The new network: a file, or with --run a name in the run
    /// (`candidates/step-000001000.safetensors`, fetched from an S3 run).
    #[arg(long)]
    candidate: PathBuf,
    /// The network to beat (default: `<run>/best.safetensors`).
    #[arg(long)]
    best: Option<PathBuf>,
    /// The run (a directory or `s3://bucket/prefix`): a passing candidate is promoted
    /// (its claim `gate/promotions/gen-N.json`, then `best.safetensors`) and the decision
    /// is appended to `gate/log.jsonl`. Without it nothing is written.
    #[arg(long)]
    run: Option<RunAddress>,
    /// Local directory of an S3 run (default: under ~/.cache/szero/mirrors).
    #[arg(long, requires = "run")]
    mirror: Option<PathBuf>,
    /// Run configuration (TOML): read and checked whole, as `szero run` and `szero train`
    /// read it; its `[promotion]` table holds the settings. Defaults otherwise.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Override promotion.mode: sprt, fixed, always or regression.
    #[arg(long)]
    mode: Option<PromotionMode>,
    /// Override promotion.games.
    #[arg(long)]
    games: Option<usize>,
    /// Override promotion.nodes (playouts per move).
    #[arg(long)]
    nodes: Option<u64>,
    /// Override promotion.concurrency.
    #[arg(long)]
    concurrency: Option<usize>,
    /// Override promotion.device (auto, cpu, cuda:N).
    #[arg(long)]
    device: Option<models::DeviceChoice>,
    /// The rules of the games (default: the config's `selfplay.variant`, else seirawan).
    #[arg(long)]
    variant: Option<String>,
}

fn load_config(args: &PromoteArgs) -> Result<PromotionConfig> {
    let mut cfg = match &args.config {
        Some(path) => crate::config::RunConfig::load(path)?.promotion,
        None => PromotionConfig::default(),
    };
    if let Some(mode) = args.mode {
        cfg.mode = mode;
    }
    if let Some(g) = args.games {
        cfg.games = g;
    }
    if let Some(n) = args.nodes {
        cfg.nodes = n;
    }
    if let Some(c) = args.concurrency {
        cfg.concurrency = c;
    }
    if let Some(d) = args.device {
        cfg.device = d;
    }
    if let Some(v) = &args.variant {
        cfg.variant = crate::cmd::parse_variant("--variant", v)?;
    }
    cfg.validate().map_err(|e| e.within("promotion"))?;
    Ok(cfg)
}

pub fn run(args: PromoteArgs) -> Result<ExitCode> {
    let cfg = load_config(&args)?;
    let bar = ProgressBar::new(cfg.games.div_ceil(2) as u64 * 2);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}").expect("valid template"),
    );
    let mut progress = |p: &eval::matches::Progress| {
        bar.set_length(p.games_total as u64);
        bar.set_position(p.games_done as u64);
        let llr = p.sprt.map(|s| format!(" LLR {:.2}", s.llr)).unwrap_or_default();
        bar.set_message(format!(
            "candidate +{} ={} -{} Elo {:+.0}{llr}",
            p.wdl.wins, p.wdl.draws, p.wdl.losses, p.elo.elo
        ));
    };
    let stop = AtomicBool::new(false);
    let run = match &args.run {
        Some(address) => Some(crate::cmd::run::open_run("szero promote", address, args.mirror.as_deref())?),
        None => None,
    };
    let decision = match &run {
        Some(run) => {
            let candidate = candidate_file(run, &args.candidate)?;
            crate::pipeline::promotion_step(run, &candidate, args.best.as_deref(), &cfg, &stop, &mut progress)?
        }
        None => {
            // Only the test: no run to commit to (the same decision, never promoted).
            let best = args.best.as_deref().context("without --run, --best is required")?;
            let v = eval::test_candidate(&args.candidate, Some(best), &cfg, &stop, None, &mut progress)?;
            runstore::Decision::new(args.candidate.clone(), v.passed, v.aborted, v.reason, v.test)
        }
    };
    bar.finish_and_clear();
    println!("{}", decision.to_json_pretty());
    eprintln!(
        "{}: {}{}",
        if decision.passed { "PASSED" } else { "FAILED" },
        decision.reason,
        if decision.promoted { " (promoted to best)" } else { "" }
    );
    Ok(if decision.passed { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The candidate as a file: the path given, or a name in the run (fetched into the mirror
/// of an S3 run). A path that is neither is passed on, to be named by the error.
fn candidate_file(run: &Run, given: &Path) -> Result<PathBuf> {
    if given.exists() || given.is_absolute() {
        return Ok(given.to_path_buf());
    }
    let inside = run.layout().root().join(given);
    Ok(if run.fetch(&inside)? { inside } else { given.to_path_buf() })
}
