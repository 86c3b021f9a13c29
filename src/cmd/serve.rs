//! `szero serve`: the browser board (the `serve` crate) on a local port.

use anyhow::{bail, Result};
use clap::Args;
use models::{DeviceChoice, Precision};
use serve::networks::Networks;
use serve::think::Caps;
use serve::{App, ServeConfig};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Network to offer first. Default: with --run, the run's best network; else the
    /// network shipped in the repository (`models/szero-default.safetensors`) when it is
    /// there. The page can always choose `none` (rules-only searches).
    #[arg(long)]
    model: Option<PathBuf>,
    /// A run directory: its best, initial and candidate networks join the menu, and its
    /// game files (`shards/*.pgn`) can be opened in the page.
    #[arg(long)]
    run: Option<PathBuf>,
    /// Learned evaluation for alpha-beta's leaves (`none`: live material). Default: the
    /// one shipped in the repository (`models/szero-default.eval.json`) when it is there.
    #[arg(long)]
    eval: Option<PathBuf>,
    /// Address to listen on. Only this machine can connect unless told otherwise
    /// (e.g. 0.0.0.0); the server has no authentication.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Searches (moves and analyses) at once; beyond it the server answers 503 (0: one
    /// per core).
    #[arg(long, default_value_t = 0)]
    max_searches: usize,
    /// Longest search the page may ask for, in seconds.
    #[arg(long, default_value_t = 30)]
    max_seconds: u64,
    /// Most MCTS playouts in one search (about 1.5 KB of memory each).
    #[arg(long, default_value_t = 200_000)]
    max_playouts: u64,
    /// Where networks run: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
    /// Network precision: auto (bf16 on CUDA, f32 on CPU), f32 or bf16.
    #[arg(long, default_value = "auto")]
    precision: Precision,
}

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    if let Some(m) = &args.model {
        if !m.is_file() {
            bail!("--model {}: no such file", m.display());
        }
    }
    if let Some(r) = &args.run {
        if !r.is_dir() {
            bail!("--run {}: no such directory", r.display());
        }
    }
    if args.max_seconds == 0 || args.max_playouts == 0 {
        bail!("--max-seconds and --max-playouts must be positive");
    }
    // Each search evaluates one position at a time: one libtorch thread each, as in
    // `szero uci` (more only wait on each other at batch 1).
    models::tch::set_num_threads(1);
    let model = args.model.clone().or_else(|| if args.run.is_none() { super::shipped_network() } else { None });
    let networks = Networks::new(model, args.run.clone(), args.device, args.precision);
    let max_searches = settings::threads_or_cores(args.max_searches);
    let caps =
        Caps { max_time: Duration::from_secs(args.max_seconds), max_playouts: args.max_playouts, ..Caps::default() };
    let learned = match super::learned_eval(&args.eval) {
        Some(p) => Some(std::sync::Arc::new(search::LearnedEval::load(&p)?)),
        None => None,
    };
    let app = App::new(ServeConfig { networks, run: args.run.clone(), caps, max_searches, learned });
    serve::serve(app, SocketAddr::new(args.host, args.port), |addr| {
        // The first line on stdout is the address (scripts and tests read it).
        println!("szero serve: http://{addr}/");
        eprintln!("szero serve: {max_searches} searches at once, up to {} s each; Ctrl-C stops", args.max_seconds);
    })?;
    Ok(ExitCode::SUCCESS)
}
