//! `szero`: AlphaZero-style self-play learning for Seirawan chess.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod config;
mod pipeline;
mod rundir;

#[derive(Parser)]
#[command(name = "szero", version, about = "Learn Seirawan chess (S-Chess) from scratch by self-play")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start-up: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Learn from scratch: self-play, training and gating over one run directory
    /// (resumable: run the same command again).
    Run(cmd::run::RunArgs),
    /// Count leaf nodes of the legal move tree (move generator test and benchmark).
    Perft(cmd::perft::PerftArgs),
    /// Play self-play games with a network (or a fresh one) and write training shards.
    Selfplay(cmd::selfplay::SelfplayArgs),
    /// Export a network as TorchScript + safetensors + metadata, for Python or C++.
    Export(cmd::export::ExportArgs),
    /// Train the network on a run directory's self-play shards; writes checkpoints and candidates.
    Train(cmd::train::TrainArgs),
    /// Play as a UCI engine on stdin/stdout (Fairy-Stockfish move strings, UCI_Variant seirawan).
    Uci(cmd::uci::UciArgs),
    /// Play games between two players (networks, baselines, UCI engines): Elo, pentanomial, SPRT.
    #[command(name = "match")]
    Match(cmd::matches::MatchArgs),
    /// Test a candidate network against the best one; with --run, promote it if it passes.
    Gate(cmd::gate::GateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Perft(args) => cmd::perft::run(args),
        Command::Selfplay(args) => cmd::selfplay::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::Train(args) => cmd::train::run(args),
        Command::Uci(args) => cmd::uci::run(args),
        Command::Match(args) => cmd::matches::run(args),
        Command::Gate(args) => cmd::gate::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("szero: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
