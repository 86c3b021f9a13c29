//! `szero perft`: node counts for one position, or a whole EPD suite checked against its
//! expected counts.

use anyhow::{Context, Result};
use clap::Args;
use schess::perft::parse_suite;
use schess::Position;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Position to count from (default: the S-Chess start position).
    #[arg(long, conflicts_with = "epd")]
    fen: Option<String>,
    /// Depth in plies. With --epd: the maximum depth to check (default: every depth listed).
    #[arg(long)]
    depth: Option<u32>,
    /// Print each root move (UCI) with its count, then the total, like Fairy-Stockfish's
    /// `go perft`.
    #[arg(long, conflicts_with = "epd")]
    divide: bool,
    /// Check every line of a suite `FEN ;D1 n ;D2 n ...`; exits non-zero on any mismatch.
    #[arg(long)]
    epd: Option<PathBuf>,
}

pub fn run(args: PerftArgs) -> Result<ExitCode> {
    match &args.epd {
        Some(path) => run_suite(path, args.depth),
        None => run_single(&args),
    }
}

fn run_single(args: &PerftArgs) -> Result<ExitCode> {
    let fen = args.fen.as_deref().unwrap_or(schess::STARTING_FEN);
    let pos = Position::from_fen(fen)?;
    let depth = args.depth.context("--depth is required with --fen or the start position")?;
    let start = Instant::now();
    let total = if args.divide {
        let mut out = std::io::stdout().lock();
        let mut total = 0;
        for (m, n) in pos.perft_divide(depth) {
            writeln!(out, "{m}: {n}")?;
            total += n;
        }
        writeln!(out)?;
        total
    } else {
        pos.perft(depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("Nodes searched: {total}");
    eprintln!("time {:.3}s, {:.1} Mnodes/s", secs, total as f64 / secs.max(1e-9) / 1e6);
    Ok(ExitCode::SUCCESS)
}

fn run_suite(path: &PathBuf, max_depth: Option<u32>) -> Result<ExitCode> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let suite = parse_suite(&text).with_context(|| format!("in {}", path.display()))?;
    anyhow::ensure!(!suite.is_empty(), "{} holds no perft cases", path.display());
    let (mut passed, mut failed) = (0u64, 0u64);
    let mut nodes = 0u64;
    let start = Instant::now();
    for case in &suite {
        let pos = Position::from_fen(&case.fen)?;
        for &(depth, expected) in &case.expected {
            if max_depth.is_some_and(|d| depth > d) {
                continue;
            }
            let got = pos.perft(depth);
            nodes += got;
            if got == expected {
                passed += 1;
            } else {
                failed += 1;
                println!("mismatch: {} depth {depth} expected {expected} got {got}", case.fen);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!("{nodes} nodes in {secs:.2}s ({:.1} Mnodes/s)", nodes as f64 / secs.max(1e-9) / 1e6);
    println!("perft: {passed} passed, {failed} failed");
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
