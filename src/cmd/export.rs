//! `szero export`: a network as TorchScript (traced) + safetensors + metadata JSON, and
//! with `--format onnx` an ONNX model beside them.
//!
//! libtorch cannot write ONNX, so the ONNX file comes from PyTorch's exporter in the
//! project's Python venv (`scripts/setup` installs it): `python/szero_net.py` rebuilds
//! the network there from the file's own architecture and weights, `python/export_onnx.py`
//! exports it. Both scripts are compiled into this binary, so it needs no checkout.

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use models::{ExportInfo, OnnxInfo};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// model.pt (TorchScript), model.safetensors, model.json.
    Torchscript,
    /// All of those and model.onnx.
    Onnx,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Network file (safetensors) to export.
    #[arg(long)]
    model: PathBuf,
    /// Output directory (created).
    #[arg(long)]
    out: PathBuf,
    /// `torchscript`, or `onnx` for an ONNX model as well (needs the project's Python
    /// venv: scripts/setup).
    #[arg(long, value_enum, default_value = "torchscript")]
    format: Format,
}

const SZERO_NET_PY: &str = include_str!("../../python/szero_net.py");
const EXPORT_ONNX_PY: &str = include_str!("../../python/export_onnx.py");
pub const ONNX_FILE: &str = "model.onnx";

/// Writes `<dir>/model.onnx` for the network file `weights` and records it in
/// `<dir>/model.json`.
pub fn export_onnx(weights: &Path, dir: &Path) -> Result<OnnxInfo> {
    let scripts = tempfile::tempdir().context("a temporary directory for the exporter")?;
    std::fs::write(scripts.path().join("szero_net.py"), SZERO_NET_PY)?;
    let script = scripts.path().join("export_onnx.py");
    std::fs::write(&script, EXPORT_ONNX_PY)?;
    let python = models::export::venv_python().map_err(anyhow::Error::msg)?;
    let out = Command::new(&python)
        .arg(&script)
        .arg(weights)
        .arg(dir.join(ONNX_FILE))
        .output()
        .with_context(|| format!("running {}", python.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let hint = if err.contains("No module named") { " (run scripts/setup to install torch and onnx)" } else { "" };
        bail!("the ONNX exporter failed{hint}:\n{}", err.trim_end());
    }
    let line = String::from_utf8_lossy(&out.stdout);
    let info: OnnxInfo = serde_json::from_str(line.lines().last().unwrap_or(""))
        .with_context(|| format!("unexpected output of the ONNX exporter: {line:?}"))?;
    let json = dir.join(models::export::INFO_FILE);
    let mut meta = ExportInfo::read(&json)?;
    meta.onnx = Some(info.clone());
    meta.write(&json)?;
    Ok(info)
}

/// A file's size for people: `5.4 MB`.
fn size(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) if m.len() >= 1_000_000 => format!("{:.1} MB", m.len() as f64 / 1e6),
        Ok(m) if m.len() >= 1_000 => format!("{:.1} kB", m.len() as f64 / 1e3),
        Ok(m) => format!("{} B", m.len()),
        Err(_) => "?".into(),
    }
}

pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let models::LoadedNet { net, meta, .. } =
        models::load_net(&args.model, models::tch::Device::Cpu, models::Precision::F32)?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let paths = models::export(&net, &args.out, models::FORMAT_VERSIONS, meta.training_step)?;
    let mut files = vec![
        (
            paths.torchscript.clone(),
            "TorchScript, traced: input [N, planes, 8, 8] float32, one output row per position".to_string(),
        ),
        (paths.weights.clone(), "the network's weights and metadata (safetensors)".to_string()),
    ];
    if args.format == Format::Onnx {
        let info = export_onnx(&paths.weights, &args.out)?;
        files.push((
            args.out.join(&info.file),
            format!(
                "ONNX (opset {}): input `planes` [N, planes, 8, 8], outputs {}",
                info.opset,
                info.outputs.join(", ")
            ),
        ));
    }
    files.push((paths.info.clone(), "architecture, encodings' versions and the output layout (JSON)".to_string()));
    println!("exported {} (training step {}) to {}:", args.model.display(), meta.training_step, args.out.display());
    for (path, what) in &files {
        println!("  {}  {}  {what}", path.display(), size(path));
    }
    Ok(ExitCode::SUCCESS)
}
