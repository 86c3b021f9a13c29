//! `szero uci`: play as a UCI engine on stdin/stdout (Fairy-Stockfish move strings,
//! `UCI_Variant seirawan`), for GUIs, match tools and `szero match` itself.

use anyhow::Result;
use clap::Args;
use models::{DeviceChoice, Precision};
use std::path::PathBuf;
use std::process::ExitCode;
use uci::{Output, UciEngine};

#[derive(Args, Debug)]
pub struct UciArgs {
    /// Network file to play with (also settable as the `WeightsFile` option). Default: the
    /// network shipped in the repository (`models/szero-default.safetensors`) when it is
    /// there; else a search with uniform priors and values (legal, mate-aware, weak).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Where the network runs: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
    /// Network precision: auto (bf16 on CUDA, f32 on CPU), f32 or bf16.
    #[arg(long, default_value = "auto")]
    precision: Precision,
    /// The search: alphabeta (the default) or mcts (also the `PlayMode` option).
    #[arg(long)]
    mode: Option<search::PlayMode>,
    /// Learned evaluation for alpha-beta's leaves (also the `LeafEvalFile` option; `none`:
    /// live material). Default: the one shipped in the repository
    /// (`models/szero-default.eval.json`) when it is there.
    #[arg(long)]
    eval: Option<PathBuf>,
}

pub fn run(args: UciArgs) -> Result<ExitCode> {
    let mut engine = UciEngine::new(Output::new(std::io::stdout()));
    // The `Threads` option's default from the start, not libtorch's one thread per core:
    // a search evaluates one leaf at a time, and at batch 1 two libtorch threads that
    // wait passively (OMP_WAIT_POLICY=PASSIVE) ran 6x slower than one (97 against 597
    // nodes/s with the shipped network on two cores).
    models::tch::set_num_threads(engine.settings().threads as i32);
    engine.set_device(args.device, args.precision);
    if let Some(mode) = args.mode {
        engine.set_mode(mode);
    }
    let model = args.model.clone().or_else(super::shipped_network);
    if let Some(model) = &model {
        // Before the protocol starts, so a wrong path fails loudly instead of silently
        // playing with the uniform evaluator. Diagnostics go to stderr, not to the GUI.
        let description = engine.load_weights(model).map_err(anyhow::Error::msg)?;
        eprintln!("szero uci: {} ({description})", model.display());
    }
    if let Some(eval) = &super::learned_eval(&args.eval) {
        engine.load_learned_eval(eval).map_err(anyhow::Error::msg)?;
        eprintln!("szero uci: leaves scored by {}", eval.display());
    }
    uci::run(std::io::stdin().lock(), &mut engine)?;
    Ok(ExitCode::SUCCESS)
}
