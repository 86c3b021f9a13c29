//! CPU (or CUDA, when present) inference throughput of a 6x64 network.
//!
//! `cargo bench -p models --bench inference` (release). Placeholder encoding sizes:
//! 64 input planes, 2000 policy logits. Prints positions/s per batch size for fp32 and
//! bf16 weights. Plain `harness = false`: criterion's statistics are not needed for a
//! throughput table, and its minimum run time would make the large batches slow.
//! `SZERO_BENCH_DEVICE=cpu|cuda|auto` (default auto), `SZERO_BENCH_SECS` per cell
//! (default 1.0).
//!
//! `cargo test --all-targets` also runs this binary, without cargo bench's `--bench`
//! argument: it then only checks that each batch size runs once (a few seconds), so
//! the test suite stays fast.

use models::{DeviceChoice, Net, NetConfig, Precision};
use std::time::{Duration, Instant};
use tch::{Device, Kind, Tensor};

const BATCHES: [i64; 6] = [1, 8, 64, 256, 1024, 4096];

fn main() {
    let device: DeviceChoice =
        std::env::var("SZERO_BENCH_DEVICE").unwrap_or_else(|_| "auto".into()).parse().expect("SZERO_BENCH_DEVICE");
    let device = device.resolve().expect("device");
    let secs: f64 = std::env::var("SZERO_BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let budget = Duration::from_secs_f64(secs);
    let smoke = !std::env::args().any(|a| a == "--bench");
    let cfg = NetConfig::small(64, 2000);
    let net = Net::new(cfg.clone(), device).expect("net");
    println!(
        "device {device:?}, torch threads {}, {} blocks x {} channels, SE {:?}, {} params, OMP_WAIT_POLICY={}",
        tch::get_num_threads(),
        cfg.blocks,
        cfg.channels,
        cfg.squeeze_excitation.map(|s| s.ratio),
        net.num_parameters(),
        std::env::var("OMP_WAIT_POLICY").unwrap_or_default(),
    );
    let nets = [
        net.try_clone_to(device, Precision::F32).expect("f32"),
        net.try_clone_to(device, Precision::Bf16).expect("bf16"),
    ];
    if smoke {
        for batch in [1, 64] {
            let xs = Tensor::randn([batch, cfg.input_planes, 8, 8], (Kind::Float, Device::Cpu));
            for n in &nets {
                let out = n.infer(&xs).expect("infer");
                assert_eq!(out.policy.size(), [batch, cfg.policy_size]);
            }
        }
        println!("smoke run ok (figures: cargo bench -p models --bench inference)");
        return;
    }
    println!("{:>6} {:>14} {:>14}", "batch", "f32 pos/s", "bf16 pos/s");
    for batch in BATCHES {
        let xs = Tensor::randn([batch, cfg.input_planes, 8, 8], (Kind::Float, Device::Cpu));
        let rates: Vec<f64> = nets.iter().map(|n| rate(n, &xs, budget)).collect();
        println!("{batch:>6} {:>14.0} {:>14.0}", rates[0], rates[1]);
    }
}

/// Positions per second, input transfer and output copy back to the CPU included
/// (that is what self-play pays).
fn rate(net: &Net, xs: &Tensor, budget: Duration) -> f64 {
    let run = || {
        let out = net.infer(xs).expect("infer");
        let _ = out.policy.to_device(Device::Cpu);
        let _ = out.wdl.to_device(Device::Cpu);
    };
    run(); // warm-up (allocations, cuDNN algorithm choice)
    let (mut n, start) = (0i64, Instant::now());
    while n == 0 || start.elapsed() < budget {
        run();
        n += 1;
    }
    if net.device().is_cuda() {
        tch::Cuda::synchronize(0);
    }
    (n * xs.size()[0]) as f64 / start.elapsed().as_secs_f64()
}
