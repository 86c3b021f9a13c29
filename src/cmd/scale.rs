//! `szero scale`: one rating scale (Fairy-Stockfish depth 1 = 0 by default). `szero scale
//! anchors` measures each neighbouring pair of anchors once and keeps them in a JSON file
//! (a pair already measured is not played again); `szero scale rate` finds the two anchors
//! that bracket a player and rates it with a 95% interval that includes the anchors' own
//! uncertainty (`eval::scale`).

use crate::cmd::matches::play_with_progress;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use eval::matches::openings::OpeningBook;
use eval::matches::{Adjudication, MatchConfig};
use eval::players::{PlayerFactory, PlayerSpec};
use eval::scale::{AnchorResult, PairResult, PlayerResults, Scale, ScaleSettings};
use std::path::PathBuf;
use std::process::ExitCode;

/// The committed scale: Fairy-Stockfish at fixed depths, measured on this project's
/// 2-core machine (BENCHMARKS.md, "One rating scale"); the checkout's file, so that an
/// installed binary finds it from any directory, as it finds the shipped network.
pub const DEFAULT_SCALE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/scale/fairy-stockfish.json");

#[derive(Args, Debug)]
pub struct ScaleArgs {
    #[command(subcommand)]
    command: ScaleCommand,
}

#[derive(Subcommand, Debug)]
enum ScaleCommand {
    /// Measure each neighbouring pair of anchors (weakest first) and write the scale.
    Anchors(AnchorsArgs),
    /// Rate a player on a scale: it plays the anchors that bracket it.
    Rate(RateArgs),
    /// Print a scale's anchors with their ratings and intervals.
    Show(ShowArgs),
}

/// How games are played (shared by both subcommands).
#[derive(Args, Debug)]
struct Play {
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// libtorch threads of each worker's network calls.
    #[arg(long, default_value_t = 1)]
    torch_threads: usize,
    /// Games in flight per worker when a side is a fixed-playout MCTS.
    #[arg(long, default_value_t = 16)]
    games_in_flight: usize,
    /// Adjudicate a loss when both players agree on a winner by at least this expected
    /// score for --resign-moves moves each (0 disables).
    #[arg(long, default_value_t = 0.0)]
    resign_score: f32,
    #[arg(long, default_value_t = 4)]
    resign_moves: u32,
}

#[derive(Args, Debug)]
struct AnchorsArgs {
    /// Anchor player specs, weakest first (at least two; `szero match` specs).
    #[arg(long = "anchor", required = true)]
    anchors: Vec<String>,
    /// The scale file (created; when it exists, completed, or extended by anchors given after
    /// its own).
    #[arg(long)]
    out: PathBuf,
    /// Games per pair (rounded up to pairs of games).
    #[arg(long, default_value_t = 200)]
    games: usize,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 8)]
    random_plies: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Draw after this many plies.
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    #[arg(long, default_value = "seirawan")]
    variant: String,
    #[command(flatten)]
    play: Play,
}

#[derive(Args, Debug)]
struct RateArgs {
    /// The player (a `szero match` spec).
    #[arg(long)]
    player: String,
    #[arg(long, default_value = DEFAULT_SCALE)]
    scale: PathBuf,
    /// Games against each anchor it meets (rounded up to pairs).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// The anchor to start from (its index, 0 = weakest, or its spec); the search walks
    /// up while the player scores at least half and down while it scores less.
    #[arg(long, default_value = "0")]
    start: String,
    /// Seed of the openings, the same against every anchor (give one other than the
    /// scale's own, so the player meets openings the anchors were not measured on).
    #[arg(long, default_value_t = 2)]
    seed: u64,
    /// Print the rating as JSON.
    #[arg(long)]
    json: bool,
    /// Keep the player's results in this file (JSON, rewritten after each anchor). Anchors
    /// it already holds, from an earlier run of the same rating (player, games, seed), are
    /// not played again: an interrupted rating resumes from its last anchor, and one that
    /// ran off the top continues once the scale has stronger anchors (--start is then
    /// only where a rating with no results starts).
    #[arg(long)]
    results: Option<PathBuf>,
    #[command(flatten)]
    play: Play,
}

#[derive(Args, Debug)]
struct ShowArgs {
    #[arg(long, default_value = DEFAULT_SCALE)]
    scale: PathBuf,
}

pub fn run(args: ScaleArgs) -> Result<ExitCode> {
    match args.command {
        ScaleCommand::Anchors(a) => anchors(a),
        ScaleCommand::Rate(a) => rate(a),
        ScaleCommand::Show(a) => {
            println!("{}", table(&Scale::load(&a.scale)?)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn factory(spec: &str) -> Result<PlayerFactory> {
    let parsed: PlayerSpec = spec.parse().map_err(|e| anyhow::anyhow!("player {spec:?}: {e}"))?;
    PlayerFactory::new(parsed).with_context(|| format!("player {spec:?}"))
}

/// One match of `first` against `second` under a scale's settings.
fn play(
    first: &PlayerFactory,
    second: &PlayerFactory,
    settings: &ScaleSettings,
    seed: u64,
    games: usize,
    play: &Play,
) -> Result<eval::MatchReport> {
    let variant = crate::cmd::parse_variant("variant", &settings.variant)?;
    let book = OpeningBook::Random { variant, plies: settings.random_plies, seed };
    let cfg = MatchConfig {
        games,
        concurrency: play.concurrency.max(1),
        adjudication: Adjudication {
            max_plies: settings.max_plies,
            resign_score: play.resign_score,
            resign_moves: play.resign_moves,
        },
        sprt: None,
        pgn: None,
        event: format!("szero scale {} vs {}", first.name(), second.name()),
        seed,
        torch_threads: play.torch_threads,

        ..MatchConfig::default()
    };
    play_with_progress(first, second, &book, &cfg, play.games_in_flight)
}

fn anchors(args: AnchorsArgs) -> Result<ExitCode> {
    crate::cmd::parse_variant("--variant", &args.variant)?;
    let settings = ScaleSettings {
        random_plies: args.random_plies,
        seed: args.seed,
        max_plies: args.max_plies,
        variant: args.variant.clone(),
    };
    let mut scale = match Scale::load(&args.out) {
        Ok(old) if old.settings != settings => {
            anyhow::bail!("{} holds a scale with other settings; give another --out", args.out.display())
        }
        Ok(old) => old.extended(args.anchors.clone()).ok_or_else(|| {
            anyhow::anyhow!(
                "{} holds a scale of other anchors: a scale grows only by stronger anchors after its own \
                 (give its anchors first, in order, then the new ones), or give another --out",
                args.out.display()
            )
        })?,
        Err(_) if !args.out.exists() => Scale::new(settings.clone(), args.anchors.clone())?,
        Err(e) => return Err(e.into()),
    };
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    for spec in &args.anchors {
        spec.parse::<PlayerSpec>().map_err(|e| anyhow::anyhow!("anchor {spec:?}: {e}"))?;
    }
    for i in 0..args.anchors.len() - 1 {
        if scale.pair(i).is_some_and(|p| p.pentanomial.pairs() * 2 >= args.games as u64) {
            continue;
        }
        let lower = factory(&args.anchors[i])?;
        let upper = factory(&args.anchors[i + 1])?.distinct_from(&lower);
        let report = play(&upper, &lower, &settings, settings.seed, args.games, &args.play)?;
        eprintln!("{}", report.summary().lines().next().unwrap_or_default());
        scale.put(PairResult {
            lower: args.anchors[i].clone(),
            upper: args.anchors[i + 1].clone(),
            wdl: report.wdl,
            pentanomial: report.pentanomial,
            seconds: report.elapsed.as_secs_f64(),
        });
        scale.save(&args.out).with_context(|| format!("writing {}", args.out.display()))?;
    }
    println!("{}", table(&scale)?);
    Ok(ExitCode::SUCCESS)
}

/// The anchors as a Markdown table: rating, 95% interval, and the pair each rests on.
fn table(scale: &Scale) -> Result<String> {
    let ratings = scale.ratings()?;
    let mut s = String::from(
        "| anchor | Elo on the scale | 95% interval | pair (upper's score, games, pentanomial) |\n|---|---|---|---|\n",
    );
    for (i, r) in ratings.iter().enumerate() {
        let pair = match i.checked_sub(1).and_then(|j| scale.pair(j)) {
            Some(p) => format!("{:.1}%, {} games, {:?}", 100.0 * p.wdl.score(), p.wdl.games(), p.pentanomial.0),
            None => "the zero of the scale".into(),
        };
        s.push_str(&format!(
            "| `{}` | {:+.0} | [{:+.0}, {:+.0}] | {pair} |\n",
            r.spec,
            r.elo,
            r.elo - 1.96 * r.sd,
            r.elo + 1.96 * r.sd
        ));
    }
    Ok(s)
}

fn rate(args: RateArgs) -> Result<ExitCode> {
    let scale = Scale::load(&args.scale)?;
    scale.ratings()?;
    let start = match args.start.parse::<usize>() {
        Ok(i) if i < scale.anchors.len() => i,
        Ok(i) => anyhow::bail!("--start {i}: the scale has anchors 0..{}", scale.anchors.len() - 1),
        Err(_) => scale.anchors.iter().position(|a| a == &args.start).ok_or_else(|| {
            anyhow::anyhow!("--start {:?} is neither an index nor an anchor of the scale", args.start)
        })?,
    };
    let player = factory(&args.player)?;
    let mut kept = PlayerResults {
        player: args.player.clone(),
        games: args.games,
        seed: args.seed,
        settings: scale.settings.clone(),
        results: Vec::new(),
    };
    if let Some(path) = &args.results {
        if let Some(old) = PlayerResults::load(path)? {
            if let Some(what) = old.mismatch(&args.player, args.games, args.seed, &scale.settings) {
                anyhow::bail!("{} holds the results of {what}; give another --results", path.display());
            }
            kept.results = old.results;
            for r in &kept.results {
                eprintln!("{}: kept from {}", r.anchor, path.display());
            }
        }
    }
    let mut results = scale.indexed(&kept.results)?;
    while let Some(i) = scale.next_anchor(start, &results) {
        let anchor = factory(&scale.anchors[i])?.distinct_from(&player);
        let report = play(&player, &anchor, &scale.settings, args.seed, args.games, &args.play)?;
        eprintln!("{}", report.summary().lines().next().unwrap_or_default());
        results.push((i, report.pentanomial));
        kept.results.push(AnchorResult {
            anchor: scale.anchors[i].clone(),
            wdl: report.wdl,
            pentanomial: report.pentanomial,
        });
        if let Some(path) = &args.results {
            kept.save(path).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let rating = scale.rate(&results)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rating)?);
    } else {
        println!("{}: {}", args.player, rating.summary());
    }
    Ok(ExitCode::SUCCESS)
}
