//! `szero piece-values`: the values of the pieces measured from games (a logistic fit of
//! results on material; `research::piece_values`), for runs' self-play games and PGN.

use anyhow::{bail, Context, Result};
use clap::Args;
use research::piece_values::{measure, rows_of, GameRows, Sampling};
use schess::pgn::parse;
use schess::Game;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct PieceValuesArgs {
    /// PGN files (games with a result; unfinished ones are skipped).
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Run directories: their self-play games (`shards/`).
    #[arg(long)]
    run: Vec<PathBuf>,
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
    if args.pgn.is_empty() && args.run.is_empty() {
        bail!("give games: --pgn FILE or --run DIR (each can be repeated)");
    }
    let sampling = Sampling { min_ply: args.min_ply, stride: args.stride.max(1) };
    let mut games: Vec<GameRows> = Vec::new();
    let mut skipped = 0usize;
    for path in &args.pgn {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        for g in parse(&text).games {
            let Some(score) = g.result().and_then(|r| r.parse::<schess::GameResult>().ok()) else {
                skipped += 1;
                continue;
            };
            let replayed = g.start().and_then(|start| {
                let mut game = Game::new(start);
                for san in &g.moves {
                    game.play_san(san).map_err(|e| format!("move {san}: {e}"))?;
                }
                Ok(game)
            });
            match replayed {
                Ok(game) => games.push(rows_of(&game, white_score(score), sampling)),
                Err(e) => {
                    eprintln!("szero piece-values: {}:{}: skipped: {e}", path.display(), g.line);
                    skipped += 1;
                }
            }
        }
    }
    for run in &args.run {
        let dir = runstore::RunLayout::new(run).shards();
        for file in formats::shard::list(&dir).with_context(|| format!("{}", dir.display()))? {
            for record in formats::shard::read(&file).with_context(|| format!("{}", file.display()))? {
                match record.replay() {
                    Ok(game) => games.push(rows_of(&game, white_score(record.game_result()), sampling)),
                    Err(_) => skipped += 1,
                }
            }
        }
    }
    let Some(values) = measure(&games, args.bootstrap, args.seed) else {
        bail!("too few games with positions past ply {} to fit ({} read)", args.min_ply, games.len());
    };
    if skipped > 0 {
        eprintln!("szero piece-values: {skipped} games skipped (no result, or not replayable)");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&values)?);
    } else {
        print!("{}", values.markdown());
    }
    Ok(ExitCode::SUCCESS)
}

fn white_score(r: schess::GameResult) -> f64 {
    f64::from(r.score_for(schess::Color::White) + 1) / 2.0
}
