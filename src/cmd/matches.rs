//! `szero match`: games between two players, with Elo, pentanomial counts and an optional
//! SPRT. (The module is not called `match`: that is a keyword.)

use anyhow::{bail, Context, Result};
use clap::Args;
use eval::elo::SprtConfig;
use eval::matches::openings::{load_epd, OpeningBook};
use eval::matches::{Adjudication, MatchConfig, MatchReport};
use eval::players::{PlayerFactory, PlayerSpec};
use indicatif::{ProgressBar, ProgressStyle};
use schess::Variant;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

const PLAYER_HELP: &str = "\
Player specs (--p1, --p2), `kind[:key=value,...]`:
  random | greedy                     baselines (greedy: one-ply material, mate-aware)
  mcts:nodes=200                      MCTS with the uniform evaluator (rules only)
  mcts-material:nodes=200             MCTS with uniform priors and a live-material value
  mcts:model=NET.safetensors,nodes=800[,device=cpu,root=gumbel,cpuct=1.75,reuse=false,solver=false]
  ab:model=NET.safetensors,movetime=1000   szero's play mode: alpha-beta + quiescence over
                                      live material, the network judging the root's moves
                                      (or depth=D, nodes=N; root_value=CP, leaf=net);
                                      also mode=alphabeta on mcts:
  ab-material:movetime=1000           the same search with no network (the control)
  uci:cmd=fairy-stockfish,depth=1     an external UCI engine; or nodes=N, movetime=MS;
                                      option.NAME=VALUE, arg=ARG, timeout=MS, init=MS
                                      (UCI_Variant is set from the game)
Example: szero match --p1 ab:model=best.safetensors,movetime=1000 \\
           --p2 uci:cmd=fairy-stockfish,depth=1 --games 100 --concurrency 2 --pgn out.pgn";

#[derive(Args, Debug)]
#[command(after_help = PLAYER_HELP)]
pub struct MatchArgs {
    /// First player (spec, see below): the one the results, Elo and SPRT are about.
    #[arg(long)]
    p1: PlayerSpec,
    /// Second player (the reference).
    #[arg(long)]
    p2: PlayerSpec,
    /// Games to play (rounded up to pairs: each opening is played with both colours).
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Play each opening once, colours alternating between openings (trinomial
    /// statistics), instead of with both colours: for a deterministic engine against
    /// itself, whose colour-swapped game repeats the first move for move.
    #[arg(long)]
    no_repeat: bool,
    /// Worker threads (each plays its own games).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// libtorch threads of each worker's network calls (0: libtorch's default, one per
    /// core; with one worker per core, 1 avoids oversubscription).
    #[arg(long, default_value_t = 1)]
    torch_threads: usize,
    /// When a player is MCTS: games in flight per worker, whose leaves are evaluated in
    /// one batch per network (0: one game at a time per worker).
    #[arg(long, default_value_t = 16)]
    games_in_flight: usize,
    /// Openings from an EPD/FEN file (one position per line), used in shuffled order.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Without --openings: random plies from the start position.
    #[arg(long, default_value_t = 8)]
    random_plies: u32,
    /// Seeds openings and the players' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Rules: seirawan, seirawan-placement, seirawan-forced or chess.
    #[arg(long, default_value = "seirawan")]
    variant: String,
    /// Adjudicate a draw after this many plies from the opening (0: never).
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    /// Adjudicate a loss when both players' own expected scores agree on a winner by at
    /// least this much (0 < S < 1) for --resign-moves moves each; 0 disables.
    #[arg(long, default_value_t = 0.0)]
    resign_score: f32,
    #[arg(long, default_value_t = 4)]
    resign_moves: u32,
    /// Stop early by SPRT on logistic Elo of p1 over p2: `ELO0,ELO1`.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    #[arg(long, default_value_t = 0.05)]
    sprt_alpha: f64,
    #[arg(long, default_value_t = 0.05)]
    sprt_beta: f64,
    /// Write all games here.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Print the result as one JSON object instead of the summary (for scripts).
    #[arg(long)]
    json: bool,
}

fn parse_sprt(s: &str, alpha: f64, beta: f64) -> Result<SprtConfig> {
    let Some((a, b)) = s.split_once(',') else { bail!("--sprt expects ELO0,ELO1, got {s:?}") };
    let sprt = SprtConfig { elo0: a.trim().parse()?, elo1: b.trim().parse()?, alpha, beta };
    sprt.validate().map_err(|e| anyhow::anyhow!("--sprt: {e}"))?;
    Ok(sprt)
}

pub fn run(args: MatchArgs) -> Result<ExitCode> {
    let variant = Variant::from_name(&args.variant).with_context(|| format!("unknown variant {:?}", args.variant))?;
    let sprt = args.sprt.as_deref().map(|s| parse_sprt(s, args.sprt_alpha, args.sprt_beta)).transpose()?;
    let book = match &args.openings {
        Some(path) => OpeningBook::List(load_epd(path, variant)?).shuffled(args.seed),
        None => OpeningBook::Random { variant, plies: args.random_plies, seed: args.seed },
    };
    let first = PlayerFactory::new(args.p1.clone()).context("player 1")?;
    let second = PlayerFactory::new(args.p2.clone()).context("player 2")?.distinct_from(&first);
    let cfg = MatchConfig {
        games: args.games,
        repeat: !args.no_repeat,
        concurrency: args.concurrency,
        adjudication: Adjudication {
            max_plies: args.max_plies,
            resign_score: args.resign_score,
            resign_moves: args.resign_moves,
        },
        sprt,
        pgn: args.pgn.clone(),
        event: format!("szero match {} vs {}", first.name(), second.name()),
        seed: args.seed,
        torch_threads: args.torch_threads,
    };
    let report = play_with_progress(&first, &second, &book, &cfg, args.games_in_flight)?;
    if args.json {
        println!("{}", report.to_json());
    } else {
        println!("{}", report.summary());
    }
    Ok(ExitCode::SUCCESS)
}

/// [`eval::matches::play`] with a progress bar of games, score and Elo.
pub fn play_with_progress(
    first: &PlayerFactory,
    second: &PlayerFactory,
    book: &OpeningBook,
    cfg: &MatchConfig,
    games_in_flight: usize,
) -> Result<MatchReport> {
    let bar = ProgressBar::new(cfg.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}").expect("valid template"),
    );
    let stop = AtomicBool::new(false);
    let mut on_pair = |p: &eval::matches::Progress| {
        bar.set_length(p.games_total as u64);
        bar.set_position(p.games_done as u64);
        let mut msg =
            format!("+{} ={} -{} Elo {:+.0} ± {:.0}", p.wdl.wins, p.wdl.draws, p.wdl.losses, p.elo.elo, p.elo.elo95());
        if let Some(s) = p.sprt {
            msg.push_str(&format!(" LLR {:.2}", s.llr));
        }
        bar.set_message(msg);
    };
    let report = eval::matches::play(first, second, book, cfg, games_in_flight, &stop, &mut on_pair)?;
    bar.finish_and_clear();
    Ok(report)
}
