//! `szero suite`: how many positions of a test suite (EPD, one right move each) players
//! solve, overall and by kind of move: szero's play modes, Fairy-Stockfish at fixed
//! depth and the baselines on the same positions (`data/tactics/suite.epd`).

use anyhow::{Context, Result};
use clap::Args;
use eval::players::{PlayerFactory, PlayerSpec};
use eval::suite::{parse_suite, run_suite};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// The suite: one position a line, FEN then `bm SAN;`, `c0 "uci MOVE";`, `c1 "kind K";`.
    #[arg(long, default_value = "data/tactics/suite.epd")]
    epd: PathBuf,
    /// A player to score (spec as in `szero match`; repeat for several), e.g.
    /// `ab:model=NET,movetime=1000`, `uci:cmd=fairy-stockfish,depth=1`, `greedy`.
    #[arg(long = "player", required = true)]
    players: Vec<PlayerSpec>,
    /// Rules of the suite's positions.
    #[arg(long, default_value = "seirawan")]
    variant: String,
    /// Only the first N positions.
    #[arg(long)]
    limit: Option<usize>,
    /// libtorch threads of the network calls.
    #[arg(long, default_value_t = 1)]
    torch_threads: usize,
    /// Print one JSON object per player instead of a summary line.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SuiteArgs) -> Result<ExitCode> {
    let variant = crate::cmd::parse_variant("--variant", &args.variant)?;
    let text = std::fs::read_to_string(&args.epd).with_context(|| format!("cannot read {}", args.epd.display()))?;
    let mut suite = parse_suite(&text, &args.epd.display().to_string(), variant)?;
    suite.truncate(args.limit.unwrap_or(usize::MAX));
    if args.torch_threads > 0 {
        models::tch::set_num_threads(args.torch_threads as i32);
    }
    for spec in &args.players {
        let factory = PlayerFactory::new(spec.clone()).with_context(|| format!("player {spec}"))?;
        let mut player = factory.make(1).with_context(|| format!("starting {spec}"))?;
        let report = run_suite(player.as_mut(), &suite, |i, _| {
            if !args.json && (i + 1) % 50 == 0 {
                eprintln!("{}: {}/{}", factory.name(), i + 1, suite.len());
            }
        })
        .with_context(|| format!("{} on {}", factory.name(), args.epd.display()))?;
        if args.json {
            println!("{}", serde_json::to_string(&report)?);
        } else {
            println!("{}", report.summary());
        }
    }
    Ok(ExitCode::SUCCESS)
}
