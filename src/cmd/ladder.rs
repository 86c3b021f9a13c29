//! `szero ladder RUN_DIR`: the run's strength curve. Every promoted generation (and with
//! `--candidates` every candidate) plays fixed reference players at a fixed node count;
//! writes `ladder.json` (every point, reused when the ladder is run again), `ladder.md`
//! (a table) and `ladder.svg` (Elo against training time, one line per rung).

use anyhow::{Context, Result};
use clap::Args;
use eval::ladder::{play_point, Ladder, LadderNetwork, LadderSettings, DEFAULT_RUNGS};
use search::RootMode;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The run (of `szero run`): a directory or s3://bucket/prefix.
    run: runstore::RunAddress,
    /// Local directory of an S3 run (default: under ~/.cache/szero/mirrors).
    #[arg(long)]
    mirror: Option<PathBuf>,
    /// Reference players, as `szero match` player specs (repeatable; default: random,
    /// greedy, mcts-material:nodes=200,root=gumbel, fairy-stockfish at depths 1, 2 and 3;
    /// without Fairy-Stockfish for the rules it does not play, seirawan-forced and
    /// seirawan-placement).
    #[arg(long = "rung")]
    rungs: Vec<String>,
    /// Games per point (rounded up to pairs: each opening is played with both colours).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Playouts per move of the networks.
    #[arg(long, default_value_t = 200)]
    nodes: u64,
    /// Also every candidate the trainer wrote, not only the promoted networks.
    #[arg(long)]
    candidates: bool,
    /// Only every k-th network (the first and the last always).
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Only the networks nearest to these minutes of training (e.g. `0,30,60,120`).
    #[arg(long, value_delimiter = ',', conflicts_with = "every")]
    at: Vec<f64>,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 6)]
    random_plies: u32,
    /// Draw after this many plies.
    #[arg(long, default_value_t = 300)]
    max_plies: u32,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Root search of the networks: gumbel or puct.
    #[arg(long, default_value = "gumbel")]
    root: RootMode,
    /// Share of a material head in the networks' value, instead of each network's own.
    #[arg(long)]
    mix: Option<f32>,
    /// The rules of the games (default: the run's `selfplay.variant`).
    #[arg(long)]
    variant: Option<String>,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Games in flight per worker (their leaves are evaluated in one batch).
    #[arg(long, default_value_t = 16)]
    games_in_flight: usize,
    /// Output directory (default: RUN_DIR/ladder).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: LadderArgs) -> Result<ExitCode> {
    if let Some(mix) = args.mix {
        anyhow::ensure!((0.0..=1.0).contains(&mix), "--mix must be in [0, 1], got {mix}");
    }
    let run = crate::cmd::run::open_run("szero ladder", &args.run, args.mirror.as_deref())?;
    let variant = match &args.variant {
        Some(v) => crate::cmd::parse_variant("--variant", v)?,
        None => run_variant(&run)?,
    };
    // Fairy-Stockfish plays seirawan and chess, not the two alternative entry rules.
    let fairy_plays = matches!(variant, schess::Variant::Seirawan | schess::Variant::Chess);
    let rungs: Vec<String> = if args.rungs.is_empty() {
        DEFAULT_RUNGS.iter().filter(|r| fairy_plays || !r.starts_with("uci:")).map(|s| s.to_string()).collect()
    } else {
        args.rungs.clone()
    };
    for r in &rungs {
        r.parse::<eval::PlayerSpec>().map_err(|e| anyhow::anyhow!("--rung {r:?}: {e}"))?;
    }
    let settings = LadderSettings {
        nodes: args.nodes,
        games: args.games,
        random_plies: args.random_plies,
        max_plies: args.max_plies,
        seed: args.seed,
        root: args.root,
        material_mix: args.mix,
        variant: variant.name().into(),
    };
    let mut nets = run_networks(&run, args.candidates)?;
    if !args.at.is_empty() {
        let mut chosen: Vec<usize> = args
            .at
            .iter()
            .filter_map(|&t| {
                (0..nets.len()).min_by(|&a, &b| (nets[a].minutes - t).abs().total_cmp(&(nets[b].minutes - t).abs()))
            })
            .collect();
        chosen.sort_unstable();
        chosen.dedup();
        nets = chosen.into_iter().map(|i| nets[i].clone()).collect();
    } else if args.every > 1 && nets.len() > 2 {
        let last = nets.len() - 1;
        nets =
            nets.into_iter().enumerate().filter(|(i, _)| i % args.every == 0 || *i == last).map(|(_, n)| n).collect();
    }
    let out = args.out.clone().unwrap_or_else(|| run.layout().ladder());
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let json = out.join("ladder.json");
    let mut ladder = Ladder::load(&json)?;
    let stop = AtomicBool::new(false);
    for net in &nets {
        for rung in &rungs {
            if let Some(p) = ladder.find(net, rung, &settings) {
                eprintln!("{} vs {rung}: {:.1}% (kept from {})", net.label, 100.0 * p.score, json.display());
                continue;
            }
            let p = play_point(net, rung, &settings, args.concurrency, args.games_in_flight, &stop)
                .with_context(|| format!("{} vs {rung}", net.label))?;
            eprintln!(
                "{} vs {rung}: +{} ={} -{} ({:.1}%), Elo {:+.0} [{:+.0}, {:+.0}], {:.0}s",
                net.label,
                p.wdl.wins,
                p.wdl.draws,
                p.wdl.losses,
                100.0 * p.score,
                p.elo.elo,
                p.elo.elo_lo,
                p.elo.elo_hi,
                p.seconds
            );
            ladder.put(p);
            ladder.save(&json)?;
        }
    }
    let md = ladder.markdown(&nets, &rungs, &settings);
    models::io::write_atomic(&out.join("ladder.md"), md.as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    let xs: Vec<f64> = nets.iter().map(|n| n.minutes).collect();
    let series: Vec<research::plots::Series> = rungs
        .iter()
        .map(|r| {
            let elo = nets.iter().map(|n| ladder.find(n, r, &settings).map_or(f64::NAN, |p| p.elo.elo)).collect();
            research::plots::Series::new(r.clone(), elo)
        })
        .collect();
    let title = format!("Elo against each rung at {} nodes", settings.nodes);
    let svg = research::plots::lines(&title, "minutes of training", "Elo", &xs, &series)?;
    models::io::write_atomic(&out.join("ladder.svg"), svg.as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    print!("{md}");
    eprintln!("wrote {}, ladder.md and ladder.svg", json.display());
    Ok(ExitCode::SUCCESS)
}

/// The rules a run learns: its config's `selfplay.variant` (seirawan for a run without a
/// config, as runs of `szero run` always have one).
fn run_variant(run: &runstore::Run) -> Result<schess::Variant> {
    let path = run.layout().config();
    if !run.fetch(&path)? {
        return Ok(schess::Variant::Seirawan);
    }
    let cfg = crate::config::RunConfig::load(&path)?;
    Ok(cfg.promotion.variant)
}

/// The networks of `run` as the ladder plays them (see `runstore::Run::networks`), each
/// with its trainer step; with `candidates`, in step order.
pub fn run_networks(run: &runstore::Run, candidates: bool) -> Result<Vec<LadderNetwork>> {
    let mut out = run
        .networks(candidates)?
        .into_iter()
        .map(|n| LadderNetwork::read(n.label, n.path, n.generation, n.minutes))
        .collect::<Result<Vec<_>>>()?;
    if candidates {
        out.sort_by_key(|n| n.training_step);
    }
    Ok(out)
}
