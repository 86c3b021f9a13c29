//! `szero study`: the entry rules compared by learning. One config, one budget (minutes or
//! trainer steps) of `szero run` per variant, each in its own run directory, then one
//! gating report over all of them whose first table sets the rules side by side (white
//! score, draws, decisive-game length, entries, with 95% intervals, over all games and
//! over the newest generation's) and whose later sections repeat every gating table per
//! rule (placement's file choices included).
//!
//! ```text
//! <out>/<variant>/          the variant's run (resumable like any run)
//! <out>/<variant>.done.json written when the variant has spent its budget
//! <out>/report/             report.html, CSV tables, SVG charts
//! <out>/study.json          the budget and what each variant reached
//! ```
//! Killed at any moment, the same command resumes: finished variants are skipped, and an
//! interrupted one runs for what is left of its budget (its run clock, which leaves out
//! the time it stood stopped, says how much it has spent).

use crate::config::RunConfig;
use anyhow::{bail, Context, Result};
use clap::Args;
use runstore::{Run, RunAddress, RunLayout};
use schess::Variant;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Args, Debug)]
pub struct StudyArgs {
    /// Run config (TOML) shared by every variant; its `selfplay.variant` is replaced.
    #[arg(long, default_value = "configs/default.toml")]
    config: PathBuf,
    /// Study directory (created; an existing one is resumed).
    #[arg(long)]
    out: PathBuf,
    /// Variants to compare, in order.
    #[arg(long, value_delimiter = ',', default_value = "seirawan,seirawan-forced,seirawan-placement")]
    variants: Vec<String>,
    /// Budget per variant: minutes of running.
    #[arg(long, conflicts_with = "steps")]
    minutes: Option<f64>,
    /// Budget per variant: trainer steps (the same amount of training data for each,
    /// whatever else runs on the machine).
    #[arg(long)]
    steps: Option<u64>,
    /// Seed of every variant's run (overrides `[train] seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Skip the runs and only (re)write the report from the variants' games.
    #[arg(long)]
    report_only: bool,
}

/// The budget each variant gets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    Minutes(f64),
    Steps(u64),
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Minutes(m) => write!(f, "{m} minutes"),
            Budget::Steps(s) => write!(f, "{s} trainer steps"),
        }
    }
}

/// What one variant's run reached (`<variant>.done.json`, and a row of `study.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reached {
    pub variant: String,
    pub budget: Budget,
    /// Minutes of running at its newest network file.
    pub minutes: f64,
    /// Trainer step of its newest network file.
    pub training_step: u64,
    /// Generation of its best network.
    pub generation: u32,
}

#[derive(Debug, Serialize)]
struct StudyFile<'a> {
    config: String,
    budget: Budget,
    seed: Option<u64>,
    variants: &'a [Reached],
}

fn parse_variants(names: &[String]) -> Result<Vec<Variant>> {
    let mut out = Vec::new();
    for n in names {
        let v = crate::cmd::parse_variant("--variants", n)?;
        if out.contains(&v) {
            bail!("--variants: {v} is listed twice");
        }
        out.push(v);
    }
    if out.is_empty() {
        bail!("--variants: name at least one variant");
    }
    Ok(out)
}

/// What the run at `dir` has reached so far; `None` before its first network.
fn reached(dir: &Path, variant: Variant, budget: Budget) -> Result<Option<Reached>> {
    if !RunLayout::new(dir).initial().exists() {
        return Ok(None);
    }
    let run = Run::open(&RunAddress::Local(dir.to_path_buf()), None)?;
    let networks = crate::cmd::ladder::run_networks(&run, true)?;
    let newest = networks.iter().max_by(|a, b| a.minutes.total_cmp(&b.minutes));
    let generation = run.ledger().best()?.0;
    Ok(Some(Reached {
        variant: variant.name().into(),
        budget,
        minutes: newest.map_or(0.0, |n| n.minutes),
        training_step: networks.iter().map(|n| n.training_step).max().unwrap_or(0),
        generation,
    }))
}

fn done_file(out: &Path, v: Variant) -> PathBuf {
    out.join(format!("{}.done.json", v.name()))
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).expect("study records serialise");
    models::io::write_atomic(path, format!("{text}\n").as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// Runs `variant` for what is left of `budget`; `Ok(false)` when interrupted first.
fn run_variant(
    base: &RunConfig,
    source: &Path,
    dir: &Path,
    variant: Variant,
    budget: Budget,
    seed: Option<u64>,
    interrupted: &AtomicBool,
) -> Result<bool> {
    let mut cfg = base.clone();
    cfg.set_variant(variant);
    let mut notes = vec![format!("[selfplay] variant = \"{variant}\"")];
    match budget {
        Budget::Minutes(m) => {
            let spent = reached(dir, variant, budget)?.map_or(0.0, |r| r.minutes);
            let left = m - spent;
            if left <= 0.0 {
                return Ok(true);
            }
            cfg.run.max_minutes = left;
            cfg.run.max_steps = 0;
            notes.push(format!("[run] max_minutes = {m} (szero study; {left:.2} left at this start)"));
        }
        Budget::Steps(s) => {
            cfg.run.max_steps = s;
            cfg.run.max_minutes = 0.0;
            notes.push(format!("[run] max_steps = {s} (szero study)"));
        }
    }
    if let Some(seed) = seed {
        cfg.train.seed = seed;
        notes.push(format!("[train] seed = {seed}"));
    }
    cfg.validate().context("the study's config")?;
    // The run keeps the config it really ran with (not the shared file plus comments), so
    // that what reads it later (`szero ladder`, a resumed worker) sees the variant.
    let text = effective_config(&cfg, source, &notes)?;
    let run = Run::open(&RunAddress::Local(dir.to_path_buf()), None)?;
    // The pipeline sets its stop flag itself when the budget is spent; an interrupt is
    // passed on to it and told apart afterwards.
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                if interrupted.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let result = crate::pipeline::run(&cfg, &text, &run, &stop, crate::pipeline::Process::Run);
        stop.store(true, Ordering::Relaxed);
        result
    })?;
    Ok(!interrupted.load(Ordering::Relaxed))
}

/// `cfg` as TOML, headed by where it came from and what the study changed.
fn effective_config(cfg: &RunConfig, source: &Path, notes: &[String]) -> Result<String> {
    let mut text = format!("# szero study: {} with\n", source.display());
    for n in notes {
        text.push_str(&format!("#   {n}\n"));
    }
    text.push_str(&toml::to_string(cfg).context("writing the study's config as TOML")?);
    Ok(text)
}

pub fn run(args: StudyArgs) -> Result<ExitCode> {
    let variants = parse_variants(&args.variants)?;
    let budget = match (args.minutes, args.steps) {
        (Some(m), None) if m.is_finite() && m > 0.0 => Budget::Minutes(m),
        (None, Some(s)) if s > 0 => Budget::Steps(s),
        (None, None) => bail!("give the budget per variant: --minutes M or --steps N"),
        _ => bail!("the budget must be positive: --minutes M (> 0) or --steps N (> 0)"),
    };
    let text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("cannot read config {}", args.config.display()))?;
    let cfg = RunConfig::parse(&text).with_context(|| format!("in config {}", args.config.display()))?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let interrupted = crate::cmd::run::stop_on_interrupt("szero study")?;
    let mut rows = Vec::new();
    for &v in &variants {
        let dir = args.out.join(v.name());
        let done = done_file(&args.out, v);
        if !args.report_only && !done.exists() {
            eprintln!("szero study: {v}: {budget} of szero run in {}", dir.display());
            if !run_variant(&cfg, &args.config, &dir, v, budget, args.seed, &interrupted)? {
                eprintln!("szero study: interrupted during {v}; run the same command to resume");
                return Ok(ExitCode::from(130));
            }
            let r =
                reached(&dir, v, budget)?.with_context(|| format!("{}: the run wrote no network", dir.display()))?;
            write_json(&done, &r)?;
        }
        match reached(&dir, v, budget)? {
            Some(r) => rows.push(r),
            None => bail!("{}: no run of {v} yet (run without --report-only first)", dir.display()),
        }
    }
    write_json(
        &args.out.join("study.json"),
        &StudyFile { config: args.config.display().to_string(), budget, seed: args.seed, variants: &rows },
    )?;
    let facts = vec![
        (
            "Study".to_string(),
            format!(
                "{budget} of szero run per variant, config {}{}",
                args.config.display(),
                args.seed.map_or(String::new(), |s| format!(", seed {s}"))
            ),
        ),
        (
            "Reached".to_string(),
            rows.iter()
                .map(|r| {
                    format!(
                        "{}: {:.1} min, trainer step {}, generation {}",
                        r.variant, r.minutes, r.training_step, r.generation
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        ),
    ];
    let opts = research::Options {
        runs: variants.iter().map(|v| args.out.join(v.name())).collect(),
        out: args.out.join("report"),
        title: format!("Entry rules compared by self-play: {budget} per variant"),
        facts,
        ..research::Options::default()
    };
    let outcome = research::gating_report(&opts, None)?;
    for w in outcome.warnings.iter().take(10) {
        eprintln!("szero study: warning: {w}");
    }
    eprintln!(
        "szero study: {} games of {} variants -> {}",
        outcome.games,
        variants.len(),
        opts.out.join("report.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The config a study's run keeps reads back as the one it ran with, variant included.
    #[test]
    fn the_effective_config_reads_back() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/default.toml"));
        let mut cfg = RunConfig::load(path).unwrap();
        cfg.set_variant(Variant::Placement);
        cfg.run.max_steps = 2000;
        let text = effective_config(&cfg, path, &["[run] max_steps = 2000".into()]).unwrap();
        assert!(text.starts_with("# szero study: "), "{text}");
        let back = RunConfig::parse(&text).unwrap();
        assert_eq!(back, cfg);
        assert_eq!(back.promotion.variant, Variant::Placement);
    }

    #[test]
    fn variants_are_checked() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_variants(&names(&["seirawan", "forced", "seirawan-placement"])).unwrap(),
            [Variant::Seirawan, Variant::Forced, Variant::Placement]
        );
        let twice = parse_variants(&names(&["seirawan", "seirawan"])).unwrap_err().to_string();
        assert!(twice.contains("twice"), "{twice}");
        let unknown = parse_variants(&names(&["xiangqi"])).unwrap_err().to_string();
        assert!(unknown.contains("xiangqi"), "{unknown}");
    }
}
