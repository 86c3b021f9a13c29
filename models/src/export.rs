//! Export for tools outside this program (Python analysis, other engines).
//!
//! [`export`] writes three files into a directory:
//! - `model.pt`: TorchScript, traced on the CPU in fp32 and in evaluation mode (all
//!   three are baked in by tracing). One input `[N, input_planes, 8, 8]` float32, any
//!   N; one output `[N, output_width]` float32 (TorchScript tracing allows one output
//!   tensor, so the heads are concatenated along dim 1: policy logits, then W/D/L
//!   logits, then the moves-left prediction and the material prediction if the net has
//!   those heads). Weights are
//!   constants: the file is for inference only.
//! - `model.safetensors`: the checkpoint (see [`crate::checkpoint`]), for training or
//!   for rebuilding the net elsewhere.
//! - `model.json`: [`ExportInfo`]: metadata and the exact output layout.
//!
//! Each file is written atomically; `model.json` is written last, so its presence
//! means the export is complete.

use crate::checkpoint::{self, CheckpointError, FormatVersions, FORMAT_MAGIC};
use crate::config::{NetConfig, BOARD_SIZE, WDL};
use crate::device::Precision;
use crate::io::{commit_with, write_atomic};
use crate::net::{Net, NetError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tch::{CModule, Device, Kind, TchError, Tensor};

pub const TORCHSCRIPT_FILE: &str = "model.pt";
pub const WEIGHTS_FILE: &str = "model.safetensors";
pub const INFO_FILE: &str = "model.json";

/// Batch size of the example input used for tracing. Not 1, so that a size-1 dimension
/// cannot be special-cased by the tracer; the traced module accepts any batch size.
const TRACE_BATCH: i64 = 2;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("tracing the network: {0}")]
    Trace(#[source] TchError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

/// Paths of the exported files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportPaths {
    pub torchscript: PathBuf,
    pub weights: PathBuf,
    pub info: PathBuf,
}

/// Content of `model.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportInfo {
    pub format: String,
    pub architecture: NetConfig,
    pub input_format_version: u32,
    pub policy_format_version: u32,
    /// Earlier positions the input planes show (`formats::encoding`); absent when the
    /// plane count matches no layout of this build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<usize>,
    /// Whether the eight attack planes follow the rest of the input.
    #[serde(default)]
    pub attack_planes: bool,
    pub training_step: u64,
    pub torchscript: String,
    pub weights: String,
    pub input: TensorSpec,
    pub output: TensorSpec,
    /// Column ranges of the output, in order, covering `0..output_width`.
    pub output_layout: Vec<OutputSlice>,
    /// The ONNX file, when one was exported too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onnx: Option<OnnxInfo>,
}

/// An ONNX model beside the TorchScript one: named input and outputs (one per head, the
/// columns of `output_layout` in the same order), a dynamic batch axis `N`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnnxInfo {
    pub file: String,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub opset: u32,
}

impl ExportInfo {
    /// Reads a `model.json`.
    pub fn read(path: &Path) -> Result<ExportInfo, ExportError> {
        let bytes = std::fs::read(path).map_err(|source| ExportError::Io { path: path.into(), source })?;
        serde_json::from_slice(&bytes).map_err(|e| ExportError::Io {
            path: path.into(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })
    }

    /// Writes this `model.json` atomically.
    pub fn write(&self, path: &Path) -> Result<(), ExportError> {
        let json = serde_json::to_vec_pretty(self).expect("ExportInfo serialises");
        write_atomic(path, &json).map_err(|source| ExportError::Io { path: path.into(), source })
    }
}

/// The project's Python (for the ONNX exporter and cross-checks): `$SZERO_PYTHON`, else
/// the venv `scripts/setup` makes under `$SZERO_CACHE` (default `~/.cache/szero`).
pub fn venv_python() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("SZERO_PYTHON") {
        return Ok(p.into());
    }
    let cache = std::env::var_os("SZERO_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/szero")))
        .ok_or("neither SZERO_CACHE nor HOME is set")?;
    let p = cache.join("venv/bin/python");
    if p.exists() {
        Ok(p)
    } else {
        Err(format!(
            "no Python venv at {}: run scripts/setup (or set SZERO_PYTHON to a python with torch and onnx)",
            p.display()
        ))
    }
}

/// Shape (with `"N"` for the batch dimension) and dtype of a tensor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TensorSpec {
    pub shape: Vec<serde_json::Value>,
    pub dtype: String,
    pub device: String,
}

/// One head's columns `start..end` of the output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputSlice {
    pub name: String,
    pub start: i64,
    pub end: i64,
    pub description: String,
}

impl ExportInfo {
    fn new(config: &NetConfig, versions: FormatVersions, training_step: u64) -> Self {
        let p = config.policy_size;
        let mut layout = vec![
            OutputSlice {
                name: "policy_logits".into(),
                start: 0,
                end: p,
                description: "unnormalised logits over the move index; mask illegal moves, then softmax".into(),
            },
            OutputSlice {
                name: "wdl_logits".into(),
                start: p,
                end: p + WDL,
                description: "win, draw, loss logits for the side to move; softmax for probabilities".into(),
            },
        ];
        let mut end = p + WDL;
        if config.moves_left.is_some() {
            layout.push(OutputSlice {
                name: "moves_left".into(),
                start: end,
                end: end + 1,
                description: "predicted remaining plies (non-negative)".into(),
            });
            end += 1;
        }
        if let Some(m) = config.material {
            layout.push(OutputSlice {
                name: "material".into(),
                start: end,
                end: end + 1,
                description: format!(
                    "predicted live material lead of the side to move, in pawns, {} plies ahead; \
                     search values positions as (1 - {mix}) * (W - L) + {mix} * tanh(material / {scale})",
                    m.horizon,
                    mix = m.value_mix,
                    scale = search::evaluator::MATERIAL_Q_SCALE
                ),
            });
        }
        let n = || serde_json::Value::from("N");
        let inputs = crate::inputs_of(config);
        ExportInfo {
            format: FORMAT_MAGIC.into(),
            architecture: config.clone(),
            input_format_version: versions.input,
            policy_format_version: versions.policy,
            history: inputs.map(|i| i.history),
            attack_planes: inputs.is_some_and(|i| i.attacks),
            training_step,
            torchscript: TORCHSCRIPT_FILE.into(),
            weights: WEIGHTS_FILE.into(),
            input: TensorSpec {
                shape: vec![n(), config.input_planes.into(), BOARD_SIZE.into(), BOARD_SIZE.into()],
                dtype: "float32".into(),
                device: "cpu".into(),
            },
            output: TensorSpec {
                shape: vec![n(), config.output_width().into()],
                dtype: "float32".into(),
                device: "cpu".into(),
            },
            output_layout: layout,
            onnx: None,
        }
    }
}

/// Writes `model.pt`, `model.safetensors` and `model.json` for `net` into `out_dir`
/// (created if needed). `net` itself is not modified: tracing uses a frozen fp32 CPU
/// copy.
pub fn export(
    net: &Net,
    out_dir: impl AsRef<Path>,
    versions: FormatVersions,
    training_step: u64,
) -> Result<ExportPaths, ExportError> {
    let dir = out_dir.as_ref();
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io { path: dir.into(), source })?;
    let paths = ExportPaths {
        torchscript: dir.join(TORCHSCRIPT_FILE),
        weights: dir.join(WEIGHTS_FILE),
        info: dir.join(INFO_FILE),
    };

    let module = trace(net)?;
    commit_with(&paths.torchscript, |tmp| module.save(tmp).map_err(std::io::Error::other))
        .map_err(|source| ExportError::Io { path: paths.torchscript.clone(), source })?;

    checkpoint::save(net, &paths.weights, versions, training_step)?;

    ExportInfo::new(net.config(), versions, training_step).write(&paths.info)?;
    Ok(paths)
}

/// Traces a frozen fp32 CPU copy of `net` in evaluation mode.
pub fn trace(net: &Net) -> Result<CModule, ExportError> {
    let mut frozen = net.try_clone_to(Device::Cpu, Precision::F32)?;
    frozen.var_store_mut().freeze();
    let cfg = frozen.config();
    let example = Tensor::zeros([TRACE_BATCH, cfg.input_planes, BOARD_SIZE, BOARD_SIZE], (Kind::Float, Device::Cpu));
    // The closure cannot return an error; the input shape is right by construction, so
    // forward_t cannot fail here. Record the failure and report it after tracing.
    let mut failure = None;
    let module = CModule::create_by_tracing("SzeroNet", "forward", &[example], &mut |xs| match frozen
        .forward_t(&xs[0], false)
    {
        Ok(out) => vec![out.concat()],
        Err(e) => {
            failure = Some(e);
            vec![]
        }
    })
    .map_err(ExportError::Trace)?;
    match failure {
        Some(e) => Err(e.into()),
        None => Ok(module),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{randomize, tiny_config, TempDir};
    use safetensors::tensor::{Dtype, SafeTensors, TensorView};
    use std::process::Command;

    const V: FormatVersions = FormatVersions { input: 1, policy: 2 };

    fn python() -> PathBuf {
        venv_python().unwrap_or_else(|e| panic!("{e}"))
    }

    fn f32_tensor(t: &Tensor) -> (Vec<usize>, Vec<u8>) {
        let shape = t.size().iter().map(|&d| d as usize).collect();
        let v = Vec::<f32>::try_from(t.flatten(0, -1)).unwrap();
        (shape, v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }

    const PY_SCRIPT: &str = r#"
import json, sys, torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
out_dir, x_path, y_path = sys.argv[1:4]
info = json.load(open(f"{out_dir}/model.json"))
m = torch.jit.load(f"{out_dir}/{info['torchscript']}")
x = load_file(x_path)["x"]
with torch.no_grad():
    y = m(x)
assert y.shape == (x.shape[0], info["output"]["shape"][1]), (y.shape, info["output"])
assert info["output_layout"][-1]["end"] == y.shape[1]
with safe_open(f"{out_dir}/{info['weights']}", "pt") as f:
    meta = f.metadata()
    assert meta["format"] == info["format"], meta
    assert json.loads(meta["architecture"]) == info["architecture"]
    assert "stem.bn.running_var" in f.keys()
save_file({"y": y.contiguous()}, y_path)
print("python ok", tuple(y.shape))
"#;

    #[test]
    fn export_round_trip_through_python() {
        let mut net = Net::new(tiny_config(true, true), Device::Cpu).unwrap();
        randomize(&mut net, 21);
        let tmp = TempDir::new("export");
        let dir = tmp.join("out");
        let paths = export(&net, &dir, V, 99).unwrap();
        assert!(paths.torchscript.exists() && paths.weights.exists() && paths.info.exists());
        let info: ExportInfo = serde_json::from_slice(&std::fs::read(&paths.info).unwrap()).unwrap();
        assert_eq!(info, ExportInfo::new(net.config(), V, 99));

        // A batch size other than the traced one.
        let xs = Tensor::randn([5, 5, 8, 8], (Kind::Float, Device::Cpu));
        let expected = net.infer_concat(&xs).unwrap();

        // Rust-side reload of the TorchScript file.
        let module = CModule::load(&paths.torchscript).unwrap();
        let ours = tch::no_grad(|| module.forward_ts(&[&xs])).unwrap();
        assert!(ours.allclose(&expected, 0.0, 1e-6, false));

        let (shape, bytes) = f32_tensor(&xs);
        let x_path = dir.join("x.safetensors");
        let y_path = dir.join("y.safetensors");
        let x_file =
            safetensors::serialize([("x", TensorView::new(Dtype::F32, shape, &bytes).unwrap())], None).unwrap();
        std::fs::write(&x_path, x_file).unwrap();
        let script = dir.join("check.py");
        std::fs::write(&script, PY_SCRIPT).unwrap();

        let out = Command::new(python())
            .arg(&script)
            .args([&dir, &x_path, &y_path])
            .output()
            .expect("running the venv python");
        assert!(
            out.status.success(),
            "python failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );

        let y_bytes = std::fs::read(&y_path).unwrap();
        let st = SafeTensors::deserialize(&y_bytes).unwrap();
        let y = st.tensor("y").unwrap();
        assert_eq!(y.dtype(), Dtype::F32);
        let dims: Vec<i64> = y.shape().iter().map(|&d| d as i64).collect();
        assert_eq!(dims, expected.size());
        let y = Tensor::from_data_size(y.data(), &dims, Kind::Float);
        let diff = (y - &expected).abs().max().double_value(&[]);
        assert!(diff < 1e-5, "python and rust outputs differ by {diff}");
    }

    #[test]
    fn model_json_names_the_input_layout() {
        let mut cfg = crate::net_config(1, 8, crate::encoding::Inputs::new(1, true));
        cfg.policy_channels = 2;
        cfg.value_channels = 2;
        let net = Net::new(cfg, Device::Cpu).unwrap();
        let tmp = TempDir::new("export-layout");
        let paths = export(&net, tmp.path(), V, 0).unwrap();
        let info: ExportInfo = serde_json::from_slice(&std::fs::read(&paths.info).unwrap()).unwrap();
        assert_eq!((info.history, info.attack_planes), (Some(1), true));
    }

    #[test]
    fn export_without_moves_left_and_reload_weights() {
        let mut net = Net::new(tiny_config(false, false), Device::Cpu).unwrap();
        randomize(&mut net, 22);
        let tmp = TempDir::new("export");
        let paths = export(&net, tmp.path(), V, 5).unwrap();
        let info: ExportInfo = serde_json::from_slice(&std::fs::read(&paths.info).unwrap()).unwrap();
        assert_eq!(info.output_layout.len(), 2);
        assert_eq!(info.output_layout[1].end, net.config().output_width());
        assert_eq!((info.history, info.attack_planes), (None, false), "5 planes are no layout of szero's");
        // Exporting does not freeze the caller's network.
        assert!(net.var_store().trainable_variables().iter().all(Tensor::requires_grad));
        let (back, meta) = checkpoint::load(&paths.weights, V, Device::Cpu, Precision::F32).unwrap();
        assert_eq!(meta.training_step, 5);
        let xs = Tensor::randn([3, 5, 8, 8], (Kind::Float, Device::Cpu));
        assert!(back.infer_concat(&xs).unwrap().equal(&net.infer_concat(&xs).unwrap()));
    }
}
