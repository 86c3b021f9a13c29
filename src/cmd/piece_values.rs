//! `szero piece-values`: the values of the pieces measured from games (a logistic fit of
//! results on material; `research::piece_values`), for runs' self-play games and PGN.

use super::finished_games::GameSources;
use anyhow::{bail, Result};
use clap::Args;
use research::piece_values::{measure, rows_of, GameRows, Sampling};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct PieceValuesArgs {
    #[command(flatten)]
    games: GameSources,
    /// First ply whose position is used (the opening's material is nearly always even).
    #[arg(long, default_value_t = 16)]
    min_ply: usize,
    /// Use one position in this many.
    #[arg(long, default_value_t = 2)]
    stride: usize,
    /// Refits on resampled games for the 95% intervals.
    #[arg(long, default_value_t = 200)]
    bootstrap: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of a Markdown table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: PieceValuesArgs) -> Result<ExitCode> {
    if args.games.is_empty() {
        bail!("give games: --pgn FILE or --run DIR (each can be repeated)");
    }
    let sampling = Sampling { min_ply: args.min_ply, stride: args.stride.max(1) };
    let mut games: Vec<GameRows> = Vec::new();
    args.games.for_each("piece-values", |game, score| games.push(rows_of(game, score, sampling)))?;
    let Some(values) = measure(&games, args.bootstrap, args.seed) else {
        bail!("too few games with positions past ply {} to fit ({} read)", args.min_ply, games.len());
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&values)?);
    } else {
        print!("{}", values.markdown());
    }
    Ok(ExitCode::SUCCESS)
}
