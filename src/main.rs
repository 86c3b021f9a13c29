//! `szero`: AlphaZero-style self-play learning for Seirawan chess.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod config;

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
    /// Play self-play games with a network (or a fresh one) and write training shards.
    Selfplay(cmd::selfplay::SelfplayArgs),
    /// Export a network as TorchScript + safetensors + metadata, for Python or C++.
    Export(cmd::export::ExportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Selfplay(args) => cmd::selfplay::run(args),
        Command::Export(args) => cmd::export::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("szero: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
