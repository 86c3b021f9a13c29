//! `szero`: AlphaZero-style self-play learning for Seirawan chess.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;
mod outage;
mod pipeline;
mod startup;
// From the package's library (src/lib.rs): `crate::config::...` paths keep working.
use szero::config;

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
    /// Learn from scratch: self-play, training and promotion over one run directory
    /// (resumable: run the same command again).
    Run(cmd::run::RunArgs),
    /// One stage of a run (selfplay, train or promote) as its own process: any number of
    /// self-play workers, on any machines that share the run directory, feed one trainer
    /// and one promotion stage.
    Worker(cmd::worker::WorkerArgs),
    /// Count leaf nodes of the legal move tree (move generator test and benchmark).
    Perft(cmd::perft::PerftArgs),
    /// Play self-play games with a network (or a fresh one) and write training shards.
    Selfplay(cmd::selfplay::SelfplayArgs),
    /// Export a network as TorchScript + safetensors + metadata, for Python or C++.
    Export(cmd::export::ExportArgs),
    /// Rewrite a network file of an older encoding format (input planes, policy index) for
    /// this build; it plays exactly as before where the old format applies.
    UpgradeNet(cmd::upgrade_net::UpgradeNetArgs),
    /// Train the network on a run directory's self-play shards; writes checkpoints and candidates.
    Train(cmd::train::TrainArgs),
    /// Play as a UCI engine on stdin/stdout (Fairy-Stockfish move strings, UCI_Variant seirawan).
    Uci(cmd::uci::UciArgs),
    /// An S-Chess board in the browser: play szero, watch its search (policy, visits,
    /// value, principal variation), open and export PGN.
    Serve(cmd::serve::ServeArgs),
    /// Play games between two players (networks, baselines, UCI engines): Elo, pentanomial, SPRT.
    #[command(name = "match")]
    Match(cmd::matches::MatchArgs),
    /// Score players on a test suite (EPD, one right move each): solve rate by kind of move.
    Suite(cmd::suite::SuiteArgs),
    /// Test a candidate network against the best one; with --run, promote it if it passes
    /// (`szero gate` before the rename: still accepted, with a warning).
    #[command(alias = "gate")]
    Promote(cmd::promote::PromoteArgs),
    /// A run's strength curve: its networks against fixed reference players (JSON,
    /// Markdown table, SVG plot of Elo against training time).
    Ladder(cmd::ladder::LadderArgs),
    /// One rating scale (Fairy-Stockfish depth 1 = 0): measure its anchors' neighbouring
    /// pairs, or rate a player between the two anchors that bracket it, with a 95% interval.
    Scale(cmd::scale::ScaleArgs),
    /// Gating research: when, where and what the engine gates, from a run's games or PGN
    /// (and a network's policy and value); writes an HTML report, CSV tables, SVG charts.
    GatingReport(cmd::gating_report::GatingReportArgs),
    /// The values of the pieces measured from games: a logistic fit of results on the
    /// material balance (board and hand), with bootstrap intervals.
    PieceValues(cmd::piece_values::PieceValuesArgs),
    /// Fits the alpha-beta search's learned leaf evaluation (material, piece-square
    /// tables, hands, the move; two phases) on finished games' results.
    FitEval(cmd::fit_eval::FitEvalArgs),
    /// The entry rules compared by learning: one config and one budget of `szero run` per
    /// variant, then one gating report that sets the variants side by side.
    Study(cmd::study::StudyArgs),
    /// One position through a network's eyes: W/D/L, the likely moves with their values,
    /// gating alternatives, and optionally a short search (text or JSON).
    Analyse(cmd::analyse::AnalyseArgs),
    /// szero's inference and training throughput for one network on one device (what
    /// scripts/bench-vs-pytorch compares with PyTorch).
    Bench(cmd::bench::BenchArgs),
    /// What a run's store (a directory or s3://bucket/prefix) sustains: shards, networks
    /// and claims per second, up and down.
    BenchStore(cmd::bench_store::BenchStoreArgs),
}

/// libgomp (under libtorch) busy-waits by default, which makes torch 5-10x slower when
/// the cores are shared; it reads `OMP_WAIT_POLICY` while the libraries load, before
/// `main`. So if it is unset, run this same program again with it set.
#[cfg(unix)]
fn ensure_passive_omp() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("OMP_WAIT_POLICY").is_none() {
        if let Ok(exe) = std::env::current_exe() {
            let err = std::process::Command::new(exe)
                .args(std::env::args_os().skip(1))
                .env("OMP_WAIT_POLICY", "PASSIVE")
                .exec();
            eprintln!("szero: warning: could not re-run with OMP_WAIT_POLICY=PASSIVE: {err}");
        }
    }
}

/// Names of an earlier release still accepted on the command line, and what to use now.
fn warn_of_old_names() {
    let args: Vec<String> = std::env::args().skip(1).take(2).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["gate", ..] => {
            eprintln!("szero: warning: `szero gate` is now `szero promote`; the old name still works, for now")
        }
        ["worker", "gate"] => {
            eprintln!(
                "szero: warning: `szero worker gate` is now `szero worker promote`; the old name still works, for now"
            )
        }
        _ => {}
    }
}

/// Output piped into a reader that stops early (`szero piece-values --json | head`) ends
/// szero quietly, as it ends any Unix filter, instead of with `println!`'s panic and a
/// backtrace. Only that panic: szero keeps ignoring SIGPIPE (Rust's default), so a write
/// to a dead engine's pipe or a closed socket stays an error szero reports and handles.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            // 128 + SIGPIPE: what a shell reports for a filter its reader left.
            std::process::exit(141);
        }
        default(info)
    }));
}

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    #[cfg(unix)]
    ensure_passive_omp();
    warn_of_old_names();
    let cli = Cli::parse();
    // Only the command line is checked (tests/docs_commands.rs runs every command the
    // documentation shows this way, so a renamed flag cannot rot there unseen).
    if std::env::var_os("SZERO_PARSE_ONLY").is_some() {
        return ExitCode::SUCCESS;
    }
    let result = match cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Worker(args) => cmd::worker::run(args),
        Command::Perft(args) => cmd::perft::run(args),
        Command::Selfplay(args) => cmd::selfplay::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::Train(args) => cmd::train::run(args),
        Command::UpgradeNet(args) => cmd::upgrade_net::run(args),
        Command::Uci(args) => cmd::uci::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Match(args) => cmd::matches::run(args),
        Command::Suite(args) => cmd::suite::run(args),
        Command::Promote(args) => cmd::promote::run(args),
        Command::Ladder(args) => cmd::ladder::run(args),
        Command::Scale(args) => cmd::scale::run(args),
        Command::GatingReport(args) => cmd::gating_report::run(args),
        Command::PieceValues(args) => cmd::piece_values::run(args),
        Command::FitEval(args) => cmd::fit_eval::run(args),
        Command::Study(args) => cmd::study::run(args),
        Command::Analyse(args) => cmd::analyse::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::BenchStore(args) => cmd::bench_store::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("szero: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
