//! `szero upgrade-net`: a network file of an older encoding format rewritten for this
//! build (see `models::upgrade`: the new inputs and moves get zero weights, so the
//! network plays exactly as before wherever the old format could describe the position).

use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct UpgradeNetArgs {
    /// Network file (safetensors) of an older format.
    #[arg(long)]
    model: PathBuf,
    /// Where to write the upgraded network (must differ from --model).
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: UpgradeNetArgs) -> Result<ExitCode> {
    let same = match (args.model.canonicalize(), args.out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => args.model == args.out,
    };
    if same {
        bail!("--out {} is the input file: write the upgrade beside it, so the original stays", args.out.display());
    }
    let done = models::upgrade(&args.model, &args.out)?;
    println!(
        "upgraded {} (input {} / policy {}, training step {}) to {} (input {} / policy {}); widened with zeros: {}",
        args.model.display(),
        done.from.input,
        done.from.policy,
        done.meta.training_step,
        args.out.display(),
        done.meta.input_format_version,
        done.meta.policy_format_version,
        done.widened.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}
