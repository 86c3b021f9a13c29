//! `szero bench-store --run ADDRESS`: what a run's store sustains for the objects a run
//! writes: shards (one upload per finished shard of each worker), networks (candidates
//! up, best networks down) and claims, for comparing the S3 backend with the local one
//! on the same machine. Writes under a fresh prefix of the address and removes it after.

use anyhow::{Context, Result};
use clap::Args;
use runstore::{RunAddress, RunLayout, Store};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchStoreArgs {
    /// The store to measure: a directory or s3://bucket/prefix.
    #[arg(long)]
    run: RunAddress,
    /// Shards to upload (and list).
    #[arg(long, default_value_t = 200)]
    shards: usize,
    /// Bytes per shard (default: a shard of 8 games of the default config, 62.5 kB).
    #[arg(long, default_value_t = 62_500)]
    shard_bytes: usize,
    /// Networks to upload and download.
    #[arg(long, default_value_t = 10)]
    networks: usize,
    /// Bytes per network (default: the default config's 5.4 MB).
    #[arg(long, default_value_t = 5_448_356)]
    network_bytes: usize,
}

/// Rate of `n` operations taking `secs`, with the mean time of one.
fn line(what: &str, n: usize, bytes: usize, secs: f64) -> String {
    let secs = secs.max(1e-9);
    format!(
        "{what:<22} {n:>5} in {secs:>7.3} s: {:>8.1}/s, {:>7.2} ms each, {:>7.1} MB/s",
        n as f64 / secs,
        1e3 * secs / n.max(1) as f64,
        (n * bytes) as f64 / secs / 1e6
    )
}

pub fn run(args: BenchStoreArgs) -> Result<ExitCode> {
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis();
    let scratch = format!("bench-store-{stamp}");
    let address = match &args.run {
        RunAddress::Local(dir) => RunAddress::Local(dir.join(&scratch)),
        RunAddress::S3 { bucket, prefix } if prefix.is_empty() => {
            RunAddress::S3 { bucket: bucket.clone(), prefix: scratch }
        }
        RunAddress::S3 { bucket, prefix } => {
            RunAddress::S3 { bucket: bucket.clone(), prefix: format!("{prefix}/{scratch}") }
        }
    };
    let store = Store::open(&address)?;
    store.check().with_context(|| format!("opening {address}"))?;
    println!("szero bench-store: {address}");
    // Bytes that do not compress or repeat (a pseudo-random pattern).
    let bytes = |n: usize, seed: u64| -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    };
    // The objects are named as a run names them (its layout relative to the store's root),
    // so that the figures are those of a run's own prefixes.
    let layout = RunLayout::new("");
    let key = |p: std::path::PathBuf| p.to_string_lossy().into_owned();
    let shard_key = |i: usize| key(layout.shards().join(format!("bench-{i:06}.shard")));
    let network_key = |i: usize| key(layout.candidate(i as u64));
    let claim_key = |i: usize| key(layout.promotion(i as u32 + 1));
    let shard = bytes(args.shard_bytes, 1);
    let t = Instant::now();
    for i in 0..args.shards {
        store.put(&shard_key(i), &shard)?;
    }
    println!("{}", line("shard put", args.shards, args.shard_bytes, t.elapsed().as_secs_f64()));
    let t = Instant::now();
    let listed = store.list(&key(layout.shards()))?.len();
    anyhow::ensure!(listed == args.shards, "listed {listed} shards, wrote {}", args.shards);
    println!("{}", line(&format!("list of {listed} shards"), 1, 0, t.elapsed().as_secs_f64()));
    let t = Instant::now();
    for i in 0..args.shards {
        store.get(&shard_key(i))?.context("a shard just written is missing")?;
    }
    println!("{}", line("shard get", args.shards, args.shard_bytes, t.elapsed().as_secs_f64()));
    let keys: Vec<String> = (0..args.shards).map(shard_key).collect();
    let t = Instant::now();
    let got = store.get_many(&keys.iter().map(String::as_str).collect::<Vec<_>>())?;
    anyhow::ensure!(got.iter().all(Option::is_some), "a shard just written is missing");
    println!("{}", line("shard get (concurrent)", args.shards, args.shard_bytes, t.elapsed().as_secs_f64()));
    let network = bytes(args.network_bytes, 2);
    let t = Instant::now();
    for i in 0..args.networks {
        store.put(&network_key(i), &network)?;
    }
    println!("{}", line("network put", args.networks, args.network_bytes, t.elapsed().as_secs_f64()));
    let t = Instant::now();
    for i in 0..args.networks {
        store.get(&network_key(i))?.context("a network just written is missing")?;
    }
    println!("{}", line("network get", args.networks, args.network_bytes, t.elapsed().as_secs_f64()));
    let claims = args.shards.min(100);
    let t = Instant::now();
    for i in 0..claims {
        anyhow::ensure!(store.create(&claim_key(i), b"{}")?, "claim {i} existed");
    }
    println!("{}", line("claim create", claims, 2, t.elapsed().as_secs_f64()));
    let t = Instant::now();
    let prefixes = [layout.shards(), layout.candidates(), layout.promotions()].map(key);
    for o in prefixes.iter().map(|p| store.list(p)).collect::<Result<Vec<_>, _>>()?.into_iter().flatten() {
        store.delete(&o.key)?;
    }
    println!("{}", line("delete (clean-up)", args.shards + args.networks + claims, 0, t.elapsed().as_secs_f64()));
    if let RunAddress::Local(dir) = &address {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(ExitCode::SUCCESS)
}
