//! `szero bench`: szero's own inference and training throughput for one network on one
//! device, as a table or JSON: the figures `scripts/bench-vs-pytorch` puts beside
//! PyTorch's for the same network, and that `scripts/gpu-window` records on a GPU.
//!
//! Inference is timed through the path search uses (`models::evaluator::run_net`: host
//! planes in, host outputs back), training through the whole trainer (replay window,
//! loader thread, forward, losses, backward, optimiser) on synthetic shards.

use crate::config::RunConfig;
use anyhow::{Context, Result};
use clap::Args;
use models::tch::{self, Kind, Tensor};
use models::{DeviceChoice, Net, Precision};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Network file; without it, a fresh network of the config's `[network]`.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Run config: its `[network]` (without --model) and `[train]` (optimizer, learning
    /// rate, weight decay, loss weights) apply.
    #[arg(long, default_value = "configs/default.toml")]
    config: PathBuf,
    /// auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
    /// Inference weights and training autocast: auto (bf16 on CUDA, f32 on CPU), f32, bf16.
    #[arg(long, default_value = "auto")]
    precision: Precision,
    /// Inference batch sizes.
    #[arg(long, value_delimiter = ',', default_value = "1,8,64,256,1024,4096")]
    batches: Vec<usize>,
    /// Seconds of timing per inference batch size.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Training batch size (0: no training figure).
    #[arg(long, default_value_t = 256)]
    train_batch: usize,
    /// Seconds of timed training (after 3 warm-up steps).
    #[arg(long, default_value_t = 10.0)]
    train_seconds: f64,
    /// libtorch threads (0: libtorch's default, one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Write the network (fp32 safetensors) here, for another program to load.
    #[arg(long)]
    write_net: Option<PathBuf>,
    /// Write a seeded input batch of 8 and szero's outputs on it (`input.f32`,
    /// `output.f32`, little-endian) into this directory, for cross-checks.
    #[arg(long)]
    outputs: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct InferencePoint {
    batch: usize,
    /// Through search's path: host planes copied in, outputs copied back to host vectors.
    positions_per_sec: f64,
    calls: u64,
    /// The forward pass alone on a tensor already built, outputs left as tensors (what
    /// python/bench_torch.py times on the PyTorch side).
    forward_positions_per_sec: f64,
}

#[derive(Debug, Serialize)]
struct TrainingPoint {
    batch: usize,
    optimizer: String,
    learning_rate: f64,
    weight_decay: f64,
    samples_per_sec: f64,
    steps: u64,
}

#[derive(Debug, Serialize)]
struct Report {
    device: String,
    precision: String,
    torch_threads: i32,
    parameters: i64,
    architecture: models::NetConfig,
    inference: Vec<InferencePoint>,
    training: Option<TrainingPoint>,
}

/// Legal moves a position in the inference benchmark (python/bench_torch.py uses the same).
const LEGAL_MOVES: usize = 40;

/// Positions/s of `net` at batch `n` through search's inference path.
fn time_inference(net: &Net, n: usize, seconds: f64) -> Result<InferencePoint> {
    let planes = net.config().input_planes as usize;
    let xs = Tensor::randn([n as i64, planes as i64, 8, 8], (Kind::Float, tch::Device::Cpu));
    let input = ndarray::Array4::from_shape_vec((n, planes, 8, 8), Vec::<f32>::try_from(xs.flatten(0, -1))?)?;
    // Forty legal moves a position, spread over the policy, like a middlegame's.
    let width = net.config().policy_size as usize;
    let legal: Vec<Vec<usize>> = (0..n).map(|r| (0..LEGAL_MOVES).map(|k| (r * 7 + k * 53) % width).collect()).collect();
    let legal: Vec<&[usize]> = legal.iter().map(Vec::as_slice).collect();
    let (calls, per_call) = time_calls(seconds, 2, || models::evaluator::run_net(net, &input, &legal).map(drop))?;
    let (_, forward_per_call) = time_calls(seconds, 1, || Ok(net.infer(&xs).map(drop)?))?;
    Ok(InferencePoint {
        batch: n,
        positions_per_sec: n as f64 / per_call,
        calls,
        forward_positions_per_sec: n as f64 / forward_per_call,
    })
}

/// Runs `call` `warmup` times untimed, then for at least `seconds` (and 3 calls): the
/// timed calls and the mean seconds per call.
fn time_calls(seconds: f64, warmup: usize, mut call: impl FnMut() -> Result<()>) -> Result<(u64, f64)> {
    for _ in 0..warmup {
        call()?;
    }
    let start = Instant::now();
    let mut calls = 0u64;
    while calls < 3 || start.elapsed().as_secs_f64() < seconds {
        call()?;
        calls += 1;
    }
    Ok((calls, start.elapsed().as_secs_f64() / calls as f64))
}

/// Samples/s of the trainer for `net_cfg` on synthetic shards.
fn time_training(cfg: &RunConfig, net_cfg: &models::NetConfig, args: &BenchArgs) -> Result<TrainingPoint> {
    let dir = tempfile::tempdir()?;
    let samples: u64 =
        trainer::synthetic::write_shards(&runstore::RunLayout::new(dir.path()).shards(), 8, 32, 60, 1)?.iter().sum();
    let train = trainer::TrainConfig {
        device: args.device,
        precision: args.precision,
        torch_threads: args.threads,
        batch_size: args.train_batch,
        min_samples: 0,
        train_ratio: 1e9,
        window_min: samples,
        warmup_steps: 0,
        checkpoint_every: u64::MAX,
        candidate_every: u64::MAX,
        log_every: u64::MAX,
        ..cfg.train.clone()
    };
    let mut t = trainer::Trainer::open_with(dir.path(), &train, net_cfg, Box::new(|w| eprintln!("szero bench: {w}")))?;
    let stop = AtomicBool::new(false);
    let budget = Duration::from_secs_f64(args.train_seconds);
    let (mut start, mut last) = (None, None);
    t.train_steps_with(u64::MAX, &stop, &mut |step, _| {
        let now = Instant::now();
        match start {
            None if step >= 3 => start = Some((now, step)),
            Some((t0, _)) => {
                last = Some((now, step));
                if now - t0 >= budget {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            None => {}
        }
    })?;
    let ((t0, s0), (t1, s1)) = start.zip(last).context("training stopped before it could be timed")?;
    let steps = s1 - s0;
    Ok(TrainingPoint {
        batch: args.train_batch,
        optimizer: format!("{:?}", train.optimizer).to_lowercase(),
        learning_rate: train.learning_rate,
        weight_decay: train.weight_decay,
        samples_per_sec: (steps as usize * args.train_batch) as f64 / (t1 - t0).as_secs_f64(),
        steps,
    })
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    if args.threads > 0 {
        tch::set_num_threads(args.threads as i32);
    }
    let cfg = RunConfig::load(&args.config)?;
    let device = args.device.resolve()?;
    let precision = args.precision.resolve(device);
    let mut net = match &args.model {
        Some(path) => models::load_net(path, device, precision)?.net,
        None => {
            tch::manual_seed(cfg.train.seed as i64);
            Net::new(cfg.network.net_config(), device)?
        }
    };
    net.set_precision(precision);
    if let Some(path) = &args.write_net {
        let fp32 = net.try_clone_to(tch::Device::Cpu, Precision::F32)?;
        models::checkpoint::save(&fp32, path, models::FORMAT_VERSIONS, 0)?;
    }
    if let Some(dir) = &args.outputs {
        std::fs::create_dir_all(dir)?;
        tch::manual_seed(1);
        let xs = Tensor::randn([8, net.config().input_planes, 8, 8], (Kind::Float, tch::Device::Cpu));
        let out = net.infer_concat(&xs)?.to_device(tch::Device::Cpu).to_kind(Kind::Float);
        let bytes = |t: &Tensor| -> Result<Vec<u8>> {
            let v: Vec<f32> = Vec::try_from(t.flatten(0, -1))?;
            Ok(v.iter().flat_map(|x| x.to_le_bytes()).collect())
        };
        std::fs::write(dir.join("input.f32"), bytes(&xs)?)?;
        std::fs::write(dir.join("output.f32"), bytes(&out)?)?;
    }
    let inference =
        args.batches.iter().map(|&n| time_inference(&net, n.max(1), args.seconds)).collect::<Result<Vec<_>>>()?;
    let training = (args.train_batch > 0).then(|| time_training(&cfg, net.config(), &args)).transpose()?;
    let report = Report {
        device: format!("{device:?}"),
        precision: format!("{precision:?}").to_lowercase(),
        torch_threads: tch::get_num_threads(),
        parameters: net.num_parameters(),
        architecture: net.config().clone(),
        inference,
        training,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let c = &report.architecture;
    println!(
        "{}x{} network ({} weights) on {}, {}, {} libtorch threads",
        c.blocks, c.channels, report.parameters, report.device, report.precision, report.torch_threads
    );
    for p in &report.inference {
        println!(
            "inference  batch {:>5}: {:>10.0} positions/s ({:.0} for the forward pass alone)",
            p.batch, p.positions_per_sec, p.forward_positions_per_sec
        );
    }
    if let Some(t) = &report.training {
        println!(
            "training   batch {:>5}: {:>10.0} samples/s ({}, {} steps)",
            t.batch, t.samples_per_sec, t.optimizer, t.steps
        );
    }
    Ok(ExitCode::SUCCESS)
}
