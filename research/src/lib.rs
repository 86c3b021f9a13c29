//! Research tools for szero. First question (issue #8): what does self-play learn about
//! *gating* in S-Chess: when the Elephant and the Hawk enter, where, behind which piece,
//! which comes first, how often one never enters, how that goes with results and across
//! generations, and what a trained network's policy and value say about it.
//!
//! - [`games`]: self-play shards of a run, or PGN files ([`schess::pgn`]), into [`stats::GameSummary`]s.
//! - [`stats`]: the gating statistics.
//! - [`network`]: probing a network's policy and value on gating moves.
//! - [`plots`], [`report`], [`analysis`]: SVG charts, the HTML page and CSV tables.
//!
//! [`gating_report`] does it all; `szero gating-report` is its command line.

pub mod analysis;
pub mod eval_fit;
pub mod games;
pub mod logistic;
pub mod network;
pub mod piece_values;
pub mod plots;
pub mod report;
pub mod stats;

use games::{LoadError, LoadOptions, Loaded};
use network::{ProbeOptions, ProbeResults};
use report::Report;
use search::evaluator::Evaluator;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `gating_report` reads and writes.
#[derive(Debug, Clone)]
pub struct Options {
    /// Run directories (their `shards/`), or directories of shards.
    pub runs: Vec<PathBuf>,
    pub pgn: Vec<PathBuf>,
    /// Positions (EPD/FEN, one a line) to probe instead of positions from the games.
    pub positions: Option<PathBuf>,
    pub out: PathBuf,
    /// Threshold of the "first gate by move N" condition.
    pub by_move: u32,
    pub probe: ProbeOptions,
    /// Seed of the choice of probe positions.
    pub seed: u64,
    pub title: String,
    /// Facts about where the games come from (a study's budget, say), shown first.
    pub facts: Vec<(String, String)>,
    /// Follow one player (a PGN `White`/`Black` name) through games against others: only
    /// its games are read, and every per-side table counts its sides alone, so two reports
    /// over the same match set its two players side by side. `None`: every side.
    pub player: Option<String>,
    /// Count each distinct game once: a game that replays an earlier one's moves
    /// ([`stats::keep_distinct`]) is left out, and the report says how many were.
    pub distinct: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runs: Vec::new(),
            pgn: Vec::new(),
            positions: None,
            out: PathBuf::from("gating-report"),
            by_move: 10,
            probe: ProbeOptions::default(),
            seed: 1,
            title: "Gating report".into(),
            facts: Vec::new(),
            player: None,
            distinct: false,
        }
    }
}

/// A network to probe.
pub struct Probe<'a> {
    pub evaluator: &'a dyn Evaluator,
    /// Earlier positions the network sees.
    pub history: usize,
    /// Shown in the report.
    pub description: String,
}

/// Why no report was written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("nothing to read: give a run directory and/or PGN files")]
    NoInput,
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("no usable games in the input ({warnings} warnings; first: {first})")]
    NoGames { warnings: usize, first: String },
    #[error(
        "no game of player {player:?} in the input (players named there: {seen}; a run's self-play \
         names no players, only PGN White/Black tags do)"
    )]
    NoPlayerGames { player: String, seen: String },
    #[error("positions: {0:#}")]
    Positions(anyhow::Error),
    #[error("probing the network: {0:#}")]
    Probe(anyhow::Error),
    #[error(transparent)]
    Plot(#[from] plots::PlotError),
    #[error(transparent)]
    Write(#[from] report::WriteError),
}

/// Time spent in each phase.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    pub load: Duration,
    pub probe: Duration,
    pub build: Duration,
    pub write: Duration,
}

impl Timings {
    pub fn total(&self) -> Duration {
        self.load + self.probe + self.build + self.write
    }
}

/// What a report run produced.
#[derive(Debug)]
pub struct Outcome {
    pub report: Report,
    pub files: Vec<PathBuf>,
    pub games: usize,
    pub warnings: Vec<String>,
    pub timings: Timings,
    pub probe: Option<ProbeResults>,
}

/// Loads the games, probes the network if any, and writes the report into `opts.out`.
pub fn gating_report(opts: &Options, probe: Option<Probe>) -> Result<Outcome, ReportError> {
    if opts.runs.is_empty() && opts.pgn.is_empty() {
        return Err(ReportError::NoInput);
    }
    let mut timings = Timings::default();
    let t = Instant::now();
    let load_opts = LoadOptions {
        probe_history: probe.as_ref().filter(|_| opts.positions.is_none()).map(|p| p.history),
        seed: opts.seed,
    };
    let mut loaded = Loaded::default();
    for run in &opts.runs {
        loaded.append(games::load_run(run, load_opts)?);
    }
    for p in &opts.pgn {
        loaded.append(games::load_pgn(p, load_opts)?);
    }
    if loaded.games.is_empty() {
        return Err(ReportError::NoGames {
            warnings: loaded.warnings.len(),
            first: loaded.warnings.first().cloned().unwrap_or_else(|| "none".into()),
        });
    }
    let followed = match &opts.player {
        Some(player) => Some(follow(&mut loaded.games, player)?),
        None => None,
    };
    let replays = opts.distinct.then(|| stats::keep_distinct(&mut loaded.games));
    timings.load = t.elapsed();

    let t = Instant::now();
    let mut warnings = std::mem::take(&mut loaded.warnings);
    let probed = match &probe {
        None => None,
        Some(p) => {
            let candidates = match &opts.positions {
                Some(file) => {
                    let (c, w) = network::read_positions(file).map_err(ReportError::Positions)?;
                    warnings.extend(w);
                    c
                }
                None => std::mem::take(&mut loaded.probes),
            };
            Some(network::probe(p.evaluator, p.history, &candidates, opts.probe).map_err(ReportError::Probe)?)
        }
    };
    timings.probe = t.elapsed();

    let t = Instant::now();
    let mut meta = opts.facts.clone();
    meta.extend([
        ("Inputs".to_string(), describe_inputs(opts)),
        ("Files read".to_string(), format!("{} ({} games skipped)", loaded.files, loaded.skipped_games)),
    ]);
    meta.extend(followed);
    meta.extend(replays.map(|n| {
        let kept = loaded.games.len();
        (
            "Distinct games only".to_string(),
            format!("{kept} games kept, {n} replays of an earlier game's moves left out"),
        )
    }));
    let mut report = analysis::build(analysis::Input {
        title: opts.title.clone(),
        games: &loaded.games,
        meta,
        warnings: warnings.clone(),
        by_move: opts.by_move,
        probe: probed.as_ref().zip(probe.as_ref()).map(|(r, p)| (r, p.description.clone())),
    })?;
    timings.build = t.elapsed();
    // Measured before writing, so the page can state how long it took to make.
    report.meta.push((
        "Generation time".into(),
        format!(
            "load and replay {:.2} s, network probe {:.2} s, statistics and charts {:.2} s",
            timings.load.as_secs_f64(),
            timings.probe.as_secs_f64(),
            timings.build.as_secs_f64()
        ),
    ));

    let t = Instant::now();
    let files = report.write(&opts.out)?;
    timings.write = t.elapsed();
    Ok(Outcome { games: loaded.games.len(), report, files, warnings, timings, probe: probed })
}

/// Keeps the games `player` played, counting its sides alone; the report's line on it.
fn follow(games: &mut Vec<stats::GameSummary>, player: &str) -> Result<(String, String), ReportError> {
    let read = games.len();
    let mut seen = std::collections::BTreeSet::new();
    games.retain_mut(|g| {
        seen.extend(g.players.iter().flatten().cloned());
        g.follow(player)
    });
    if games.is_empty() {
        let mut names: Vec<String> = seen.into_iter().take(6).map(|n| format!("{n:?}")).collect();
        if names.is_empty() {
            names.push("none".into());
        }
        return Err(ReportError::NoPlayerGames { player: player.to_string(), seen: names.join(", ") });
    }
    let white = games.iter().filter(|g| g.studied == stats::Sides::White).count();
    let black = games.iter().filter(|g| g.studied == stats::Sides::Black).count();
    Ok((
        "Sides studied".into(),
        format!(
            "{player}'s alone, in the {} of {read} games it played ({white} as White, {black} as Black, {} on both \
             sides); game totals (results, distinct games, gates per game) count both sides",
            games.len(),
            games.len() - white - black
        ),
    ))
}

fn describe_inputs(opts: &Options) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(opts.runs.iter().map(|r| format!("run {}", r.display())));
    parts.extend(opts.pgn.iter().map(|p| format!("PGN {}", p.display())));
    if let Some(p) = &opts.positions {
        parts.push(format!("positions {}", p.display()));
    }
    parts.join("; ")
}

/// Loads a network checkpoint for probing (F32; `device` as resolved by the caller).
pub fn load_network(
    path: &Path,
    device: models::tch::Device,
) -> anyhow::Result<(models::evaluator::NetEvaluator, usize, String)> {
    let loaded = models::load_net(path, device, models::Precision::F32)?;
    let description = loaded.describe(path);
    let history = loaded.inputs.history;
    Ok((models::evaluator::NetEvaluator::new(loaded.net, loaded.inputs), history, description))
}
