//! `szero gating-report`: what the engine learns about when, where and what to gate, from
//! a run's self-play games or PGN files, and optionally from a network's policy and value.
//! The work is in the `research` crate; this is its command line.

use anyhow::Result;
use clap::Args;
use models::DeviceChoice;
use research::network::ProbeOptions;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct GatingReportArgs {
    /// Runs whose self-play shards (`<run>/shards/*.shard`) to analyse: directories (a
    /// directory of shards works too) or s3://bucket/prefix (its shards are mirrored
    /// first). Runs of different variants are compared side by side.
    #[arg(long, num_args = 1..)]
    run: Vec<runstore::RunAddress>,
    /// Local directory of an S3 run (default: under ~/.cache/szero/mirrors; only with a
    /// single --run).
    #[arg(long)]
    mirror: Option<PathBuf>,
    /// PGN files to analyse (with or instead of --run); `[Variant]`, `[FEN]` and `[Result]`
    /// tags are read, a game without a Variant tag is orthodox chess.
    #[arg(long, num_args = 1..)]
    pgn: Vec<PathBuf>,
    /// Network to probe (policy and value on gating moves), e.g. `<run>/best.safetensors`.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Positions to probe (EPD or FEN, one a line) instead of positions from the games.
    #[arg(long, requires = "model")]
    positions: Option<PathBuf>,
    /// Output directory (report.html, CSV tables, SVG charts).
    #[arg(long)]
    out: PathBuf,
    /// Threshold of the "first gate by move N" condition.
    #[arg(long, default_value_t = 10)]
    by_move: u32,
    /// Positions probed at most.
    #[arg(long, default_value_t = 256)]
    probe_positions: usize,
    /// Most likely moves per position whose gating variants get a value probe (0 = all).
    #[arg(long, default_value_t = 4)]
    probe_moves: usize,
    /// Where the network runs: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
    /// Seed of the choice of probe positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Title of the report.
    #[arg(long, default_value = "szero gating report")]
    title: String,
    /// Follow one player through PGN games against others (its name in the White/Black
    /// tags): only its games are read and every per-side table counts its sides alone, so
    /// two reports over one match set its players side by side.
    #[arg(long)]
    player: Option<String>,
    /// Count each distinct game once: a game whose moves replay an earlier one's (same
    /// rules, start and moves) is left out, and the report says how many were. Self-play
    /// replays are independent samples, so this is the check that they do not sway a table.
    #[arg(long)]
    distinct: bool,
}

pub fn run(args: GatingReportArgs) -> Result<ExitCode> {
    anyhow::ensure!(args.mirror.is_none() || args.run.len() <= 1, "--mirror names the directory of a single --run");
    let mut runs = Vec::new();
    for address in args.run {
        runs.push(match address {
            runstore::RunAddress::Local(dir) => dir,
            address => {
                let run = crate::cmd::run::open_run("szero gating-report", &address, args.mirror.as_deref())?;
                let fetched = run.pull(&run.layout().shards())?;
                eprintln!("szero gating-report: {fetched} new file(s) of {address}/shards mirrored");
                run.layout().root().to_path_buf()
            }
        });
    }
    let opts = research::Options {
        runs,
        pgn: args.pgn,
        positions: args.positions,
        out: args.out,
        by_move: args.by_move,
        probe: ProbeOptions {
            max_positions: args.probe_positions,
            value_moves: args.probe_moves,
            ..ProbeOptions::default()
        },
        seed: args.seed,
        title: args.title,
        facts: Vec::new(),
        player: args.player,
        distinct: args.distinct,
    };
    let network = match &args.model {
        Some(path) => {
            let device = args.device.resolve()?;
            // OMP_WAIT_POLICY=PASSIVE is ensured by main (it re-runs itself with it set).
            Some(research::load_network(path, device)?)
        }
        None => None,
    };
    let probe = network.as_ref().map(|(evaluator, history, description)| research::Probe {
        evaluator,
        history: *history,
        description: description.clone(),
    });
    let outcome = research::gating_report(&opts, probe)?;
    for w in outcome.warnings.iter().take(10) {
        eprintln!("szero gating-report: warning: {w}");
    }
    if outcome.warnings.len() > 10 {
        eprintln!("szero gating-report: ... {} warnings in all (warnings.txt)", outcome.warnings.len());
    }
    let t = outcome.timings;
    eprintln!(
        "szero gating-report: {} games -> {} ({} files) in {:.2} s (load {:.2} s, probe {:.2} s, build {:.2} s, write {:.2} s)",
        outcome.games,
        opts.out.join("report.html").display(),
        outcome.files.len(),
        t.total().as_secs_f64(),
        t.load.as_secs_f64(),
        t.probe.as_secs_f64(),
        t.build.as_secs_f64(),
        t.write.as_secs_f64(),
    );
    Ok(ExitCode::SUCCESS)
}
