//! `szero fit-eval`: fits the learned leaf evaluation of the alpha-beta search on finished
//! games (`research::eval_fit`), and writes it where `eval=FILE` (player specs) and
//! `LeafEvalFile` (UCI) read it.

use super::finished_games::GameSources;
use anyhow::{bail, Context, Result};
use clap::Args;
use research::eval_fit::{fit_eval, rows_of, FitOptions, Squares};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct FitEvalArgs {
    #[command(flatten)]
    games: GameSources,
    /// Where to write the evaluation (JSON).
    #[arg(long)]
    out: PathBuf,
    /// First ply whose position is used (leave out the random opening moves).
    #[arg(long, default_value_t = FitOptions::default().min_ply)]
    min_ply: usize,
    /// Use one quiet position in this many.
    #[arg(long, default_value_t = FitOptions::default().stride)]
    stride: usize,
    /// Ridge penalty on the piece-square weights.
    #[arg(long, default_value_t = FitOptions::default().ridge)]
    ridge: f64,
    /// Share of games held out to measure the fit.
    #[arg(long, default_value_t = FitOptions::default().holdout)]
    holdout: f64,
    #[arg(long, default_value_t = FitOptions::default().seed)]
    seed: u64,
    /// How the piece-square tables are fitted: rank-file (a rank's weight plus a file's,
    /// 16 numbers a piece and phase) or full (64).
    #[arg(long, default_value = "rank-file")]
    squares: Squares,
    /// Print the report as JSON instead of Markdown.
    #[arg(long)]
    json: bool,
}

pub fn run(args: FitEvalArgs) -> Result<ExitCode> {
    if args.games.is_empty() {
        bail!("give games: --pgn FILE or --run DIR (each can be repeated)");
    }
    if !(0.0..0.9).contains(&args.holdout) {
        bail!("--holdout {} must be in [0, 0.9)", args.holdout);
    }
    if !(args.ridge >= 0.0 && args.ridge.is_finite()) {
        bail!("--ridge {} must be a finite number >= 0", args.ridge);
    }
    let opts = FitOptions {
        min_ply: args.min_ply,
        stride: args.stride.max(1),
        ridge: args.ridge,
        holdout: args.holdout,
        seed: args.seed,
        squares: args.squares,
        ..FitOptions::default()
    };
    let mut games = Vec::new();
    args.games.for_each("fit-eval", |game, score| games.push(rows_of(game, score as f32, &opts)))?;
    let sources: Vec<String> = args
        .games
        .pgn
        .iter()
        .map(|p| format!("--pgn {}", p.display()))
        .chain(args.games.run.iter().map(|r| format!("--run {}", r.display())))
        .collect();
    let fitted_on = format!(
        "szero fit-eval {} --min-ply {} --stride {} --ridge {} --holdout {} --seed {} --squares {} ({} games)",
        sources.join(" "),
        opts.min_ply,
        opts.stride,
        opts.ridge,
        opts.holdout,
        opts.seed,
        match opts.squares {
            Squares::RankFile => "rank-file",
            Squares::Full => "full",
        },
        games.len()
    );
    let (eval, report) = fit_eval(&games, &opts, &fitted_on)?;
    eval.save(&args.out).with_context(|| format!("cannot write {}", args.out.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.markdown());
        println!("Written to {}.", args.out.display());
    }
    Ok(ExitCode::SUCCESS)
}
