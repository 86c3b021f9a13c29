//! `szero`: AlphaZero-style self-play learning for Seirawan chess.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

#[derive(Parser)]
#[command(name = "szero", version, about = "Learn Seirawan chess (S-Chess) from scratch by self-play")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count leaf nodes of the legal move tree (move generator test and benchmark).
    Perft(cmd::perft::PerftArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("szero: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
