//! `szero export`: a network as TorchScript (traced) + safetensors + metadata JSON.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Network file (safetensors) to export.
    #[arg(long)]
    model: PathBuf,
    /// Output directory (created).
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let (net, meta) = models::checkpoint::load(&args.model, models::FORMAT_VERSIONS, models::tch::Device::Cpu, models::Precision::F32)
        .with_context(|| format!("loading {}", args.model.display()))?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let paths = models::export(&net, &args.out, models::FORMAT_VERSIONS, meta.training_step)?;
    println!("{paths:#?}");
    Ok(ExitCode::SUCCESS)
}
