//! Network checkpoints: safetensors weights with our metadata in the header.
//!
//! One self-describing file per network. The safetensors header's `__metadata__` map
//! (string -> string) carries:
//! - `format`: [`FORMAT_MAGIC`], so that any other safetensors file is refused;
//! - `architecture`: the [`NetConfig`] as JSON, so a file can be loaded without knowing
//!   its shape, and loading into a network of another shape is a clear error;
//! - `input_format_version` / `policy_format_version`: versions of the board encoding
//!   and of the move index the network was trained with. They are defined by the
//!   caller (this crate knows neither encoding) and must match exactly on load: a net
//!   trained on another encoding would otherwise play garbage without any error;
//! - `training_step`: the optimiser step the weights come from;
//! - `data_crc32`: the tensors' checksum (see [`crate::checksum`]), checked on load.
//!
//! Every variable (batch-norm running statistics included) is stored as little-endian
//! f32 under its VarStore name (e.g. `tower.0.a.bn.running_var`), whatever the
//! network's in-memory precision, so files are portable and Python can read them with
//! `safetensors.torch.load_file`. Writes are atomic (see [`crate::io`]).

use crate::config::NetConfig;
use crate::device::Precision;
use crate::io::write_atomic;
use crate::net::{Net, NetError};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use tch::{Device, Kind, TchError, Tensor};

/// Value of the `format` metadata key. Bump it when the file layout or the meaning of
/// the stored tensors changes incompatibly.
pub const FORMAT_MAGIC: &str = "szero-net-v1";

const KEY_FORMAT: &str = "format";
const KEY_ARCH: &str = "architecture";
const KEY_INPUT: &str = "input_format_version";
const KEY_POLICY: &str = "policy_format_version";
const KEY_STEP: &str = "training_step";

/// Larger headers are refused before allocating (a real one is a few tens of KB).
const MAX_HEADER_BYTES: u64 = 64 << 20;

/// Versions of the caller-defined encodings a network is tied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatVersions {
    /// Version of the board encoding (input planes).
    pub input: u32,
    /// Version of the move index (policy logits).
    pub policy: u32,
}

/// Everything a checkpoint says about itself besides the weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub format: String,
    pub architecture: NetConfig,
    pub input_format_version: u32,
    pub policy_format_version: u32,
    pub training_step: u64,
}

impl Metadata {
    pub fn versions(&self) -> FormatVersions {
        FormatVersions { input: self.input_format_version, policy: self.policy_format_version }
    }

    fn to_map(&self) -> HashMap<String, String> {
        let arch = serde_json::to_string(&self.architecture).expect("NetConfig serialises");
        HashMap::from([
            (KEY_FORMAT.to_string(), self.format.clone()),
            (KEY_ARCH.to_string(), arch),
            (KEY_INPUT.to_string(), self.input_format_version.to_string()),
            (KEY_POLICY.to_string(), self.policy_format_version.to_string()),
            (KEY_STEP.to_string(), self.training_step.to_string()),
        ])
    }
}

/// Why a checkpoint could not be written or read. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a valid safetensors file: {reason}", path.display())]
    NotSafetensors { path: PathBuf, reason: String },
    #[error("{}: no `{key}` in the safetensors metadata (not an szero network file?)", path.display())]
    MissingMetadata { path: PathBuf, key: &'static str },
    #[error("{}: metadata `{key}` = {value:?} is invalid: {reason}", path.display())]
    BadMetadata { path: PathBuf, key: &'static str, value: String, reason: String },
    #[error("{}: file format is {found:?}, this program reads {expected:?}", path.display())]
    WrongFormat { path: PathBuf, found: String, expected: &'static str },
    #[error("{}: network was trained with input format version {found}, this program uses {expected}{}", path.display(), older_hint(*found, *expected))]
    InputFormatVersion { path: PathBuf, found: u32, expected: u32 },
    #[error("{}: network was trained with policy format version {found}, this program uses {expected}{}", path.display(), older_hint(*found, *expected))]
    PolicyFormatVersion { path: PathBuf, found: u32, expected: u32 },
    #[error("{}: architecture differs from the network loaded into: {differences}", path.display())]
    ArchitectureMismatch {
        path: PathBuf,
        file: Box<NetConfig>,
        expected: Box<NetConfig>,
        /// Human-readable list of the differing fields, `field: file X, expected Y`.
        differences: String,
    },
    #[error("{}: {reason}", path.display())]
    Damaged { path: PathBuf, reason: String },
    #[error("{}: tensor `{name}` is missing", path.display())]
    MissingTensor { path: PathBuf, name: String },
    #[error("{}: unexpected tensor `{name}` (not part of the architecture)", path.display())]
    UnexpectedTensor { path: PathBuf, name: String },
    #[error("{}: tensor `{name}` has shape {found:?}, expected {expected:?}", path.display())]
    TensorShape { path: PathBuf, name: String, found: Vec<usize>, expected: Vec<i64> },
    #[error("{}: tensor `{name}` has dtype {found}, expected F32", path.display())]
    TensorDtype { path: PathBuf, name: String, found: String },
    #[error("{}: {source}", path.display())]
    Net { path: PathBuf, source: NetError },
    #[error("{}: libtorch: {source}", path.display())]
    Torch { path: PathBuf, source: TchError },
}

/// The way forward for a file older than the program.
fn older_hint(found: u32, expected: u32) -> &'static str {
    if found < expected {
        " (an older network: `szero upgrade-net --model FILE --out NEW` converts it)"
    } else {
        ""
    }
}

/// Writes `net`'s weights and metadata to `path` atomically. Returns the metadata
/// written.
pub fn save(
    net: &Net,
    path: impl AsRef<Path>,
    versions: FormatVersions,
    training_step: u64,
) -> Result<Metadata, CheckpointError> {
    let path = path.as_ref();
    let meta = Metadata {
        format: FORMAT_MAGIC.to_string(),
        architecture: net.config().clone(),
        input_format_version: versions.input,
        policy_format_version: versions.policy,
        training_step,
    };
    let bytes = to_bytes(net, &meta).map_err(|e| match e {
        SaveError::Torch(source) => CheckpointError::Torch { path: path.into(), source },
        SaveError::Safetensors(reason) => CheckpointError::NotSafetensors { path: path.into(), reason },
    })?;
    write_atomic(path, &bytes).map_err(|source| CheckpointError::Io { path: path.into(), source })?;
    Ok(meta)
}

#[derive(Debug)]
enum SaveError {
    Torch(TchError),
    Safetensors(String),
}

/// Serialises all variables as f32 with `meta` in the header.
fn to_bytes(net: &Net, meta: &Metadata) -> Result<Vec<u8>, SaveError> {
    // BTreeMap: deterministic tensor order and data layout.
    let mut data: BTreeMap<String, (Vec<usize>, Vec<u8>)> = BTreeMap::new();
    for (name, t) in net.var_store().variables() {
        let t = t.f_to_device(Device::Cpu).map_err(SaveError::Torch)?;
        let t = t.f_to_kind(Kind::Float).map_err(SaveError::Torch)?.contiguous();
        let shape = t.size().iter().map(|&d| d as usize).collect();
        let values = Vec::<f32>::try_from(t.flatten(0, -1)).map_err(SaveError::Torch)?;
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        data.insert(name, (shape, bytes));
    }
    let views = data
        .iter()
        .map(|(name, (shape, bytes))| {
            TensorView::new(Dtype::F32, shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| SaveError::Safetensors(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    crate::checksum::serialize(views, meta.to_map()).map_err(|e| SaveError::Safetensors(e.to_string()))
}

/// Reads only the header of a checkpoint and checks its format magic. Cheap: use it to
/// inspect a file (step, versions, architecture) without loading the weights.
pub fn read_metadata(path: impl AsRef<Path>) -> Result<Metadata, CheckpointError> {
    use std::io::Read;
    let path = path.as_ref();
    let io_err = |source| CheckpointError::Io { path: path.into(), source };
    let mut f = std::fs::File::open(path).map_err(io_err)?;
    let mut len = [0u8; 8];
    f.read_exact(&mut len).map_err(|e| not_safetensors(path, e.to_string()))?;
    let len = u64::from_le_bytes(len);
    if len > MAX_HEADER_BYTES {
        return Err(not_safetensors(path, format!("header length {len} is implausible")));
    }
    let mut header = vec![0u8; len as usize];
    f.read_exact(&mut header).map_err(|e| not_safetensors(path, e.to_string()))?;
    parse_header_metadata(path, &header)
}

/// Loads a checkpoint into a new network built from the file's own architecture, on
/// `device` with `precision`. Fails if the file's encodings differ from `expected`.
pub fn load(
    path: impl AsRef<Path>,
    expected: FormatVersions,
    device: Device,
    precision: Precision,
) -> Result<(Net, Metadata), CheckpointError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io { path: path.into(), source })?;
    load_bytes(&bytes, path, expected, device, precision)
}

/// [`load`] from the bytes of a file (`path` names it in errors).
pub fn load_bytes(
    bytes: &[u8],
    path: &Path,
    expected: FormatVersions,
    device: Device,
    precision: Precision,
) -> Result<(Net, Metadata), CheckpointError> {
    let meta = checked_metadata(path, bytes, expected)?;
    let needed = meta.architecture.min_weight_bytes();
    if needed > bytes.len() as u128 {
        return Err(CheckpointError::BadMetadata {
            path: path.into(),
            key: KEY_ARCH,
            value: serde_json::to_string(&meta.architecture).unwrap_or_default(),
            reason: format!("needs at least {needed} bytes of weights, the file has {}", bytes.len()),
        });
    }
    let mut net = Net::new(meta.architecture.clone(), device)
        .map_err(|source| CheckpointError::Net { path: path.into(), source })?;
    copy_weights(path, bytes, &mut net)?;
    net.set_precision(precision);
    Ok((net, meta))
}

/// Loads a checkpoint's weights into an existing network (e.g. the trainer resuming,
/// or a self-play worker swapping in a newer net). The file's architecture must equal
/// the network's exactly; on any error `net` is left unchanged.
pub fn load_into(net: &mut Net, path: impl AsRef<Path>, expected: FormatVersions) -> Result<Metadata, CheckpointError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io { path: path.into(), source })?;
    let meta = checked_metadata(path, &bytes, expected)?;
    if &meta.architecture != net.config() {
        return Err(CheckpointError::ArchitectureMismatch {
            path: path.into(),
            differences: describe_differences(&meta.architecture, net.config()),
            file: Box::new(meta.architecture),
            expected: Box::new(net.config().clone()),
        });
    }
    copy_weights(path, &bytes, net)?;
    Ok(meta)
}

fn not_safetensors(path: &Path, reason: String) -> CheckpointError {
    CheckpointError::NotSafetensors { path: path.into(), reason }
}

/// Parses the header of a whole file and checks magic and versions, in that order, so
/// the error names the most fundamental problem.
fn checked_metadata(path: &Path, bytes: &[u8], expected: FormatVersions) -> Result<Metadata, CheckpointError> {
    if bytes.len() < 8 {
        return Err(not_safetensors(path, "shorter than a safetensors header".into()));
    }
    let len = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    let end = 8u64.checked_add(len).filter(|&e| e <= bytes.len() as u64);
    let Some(end) = end else {
        return Err(not_safetensors(path, format!("header length {len} exceeds the file")));
    };
    let meta = parse_header_metadata(path, &bytes[8..end as usize])?;
    if meta.input_format_version != expected.input {
        return Err(CheckpointError::InputFormatVersion {
            path: path.into(),
            found: meta.input_format_version,
            expected: expected.input,
        });
    }
    if meta.policy_format_version != expected.policy {
        return Err(CheckpointError::PolicyFormatVersion {
            path: path.into(),
            found: meta.policy_format_version,
            expected: expected.policy,
        });
    }
    Ok(meta)
}

/// Extracts and validates our metadata from the safetensors header JSON.
fn parse_header_metadata(path: &Path, header: &[u8]) -> Result<Metadata, CheckpointError> {
    #[derive(Deserialize)]
    struct Header {
        #[serde(rename = "__metadata__", default)]
        metadata: Option<HashMap<String, String>>,
    }
    let header: Header = serde_json::from_slice(header).map_err(|e| not_safetensors(path, format!("header: {e}")))?;
    let map = header.metadata.unwrap_or_default();
    let get = |key: &'static str| map.get(key).ok_or(CheckpointError::MissingMetadata { path: path.into(), key });
    let bad = |key: &'static str, value: &str, reason: String| CheckpointError::BadMetadata {
        path: path.into(),
        key,
        value: value.to_string(),
        reason,
    };
    let format = get(KEY_FORMAT)?;
    if format != FORMAT_MAGIC {
        return Err(CheckpointError::WrongFormat { path: path.into(), found: format.clone(), expected: FORMAT_MAGIC });
    }
    let number = |key: &'static str| -> Result<u64, CheckpointError> {
        let v = get(key)?;
        v.parse().map_err(|e: std::num::ParseIntError| bad(key, v, e.to_string()))
    };
    let version = |key: &'static str| -> Result<u32, CheckpointError> {
        let n = number(key)?;
        u32::try_from(n).map_err(|e| bad(key, &n.to_string(), e.to_string()))
    };
    let arch_json = get(KEY_ARCH)?;
    let architecture: NetConfig =
        serde_json::from_str(arch_json).map_err(|e| bad(KEY_ARCH, arch_json, e.to_string()))?;
    architecture.validate().map_err(|e| bad(KEY_ARCH, arch_json, e.to_string()))?;
    Ok(Metadata {
        format: format.clone(),
        architecture,
        input_format_version: version(KEY_INPUT)?,
        policy_format_version: version(KEY_POLICY)?,
        training_step: number(KEY_STEP)?,
    })
}

/// Checks every tensor (names, dtypes, shapes) before touching `net`, then copies.
fn copy_weights(path: &Path, bytes: &[u8], net: &mut Net) -> Result<(), CheckpointError> {
    let st = SafeTensors::deserialize(bytes).map_err(|e| not_safetensors(path, e.to_string()))?;
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| not_safetensors(path, e.to_string()))?;
    crate::checksum::verify(&st, header.metadata().as_ref())
        .map_err(|reason| CheckpointError::Damaged { path: path.into(), reason })?;
    let vars = net.var_store().variables();
    let mut staged = Vec::with_capacity(vars.len());
    // Sorted for a deterministic "first" error.
    let mut names: Vec<&String> = vars.keys().collect();
    names.sort();
    for name in names {
        let view =
            st.tensor(name).map_err(|_| CheckpointError::MissingTensor { path: path.into(), name: name.clone() })?;
        if view.dtype() != Dtype::F32 {
            return Err(CheckpointError::TensorDtype {
                path: path.into(),
                name: name.clone(),
                found: format!("{:?}", view.dtype()),
            });
        }
        let expected = vars[name].size();
        let found = view.shape().to_vec();
        if found.len() != expected.len() || found.iter().zip(&expected).any(|(&f, &e)| f as i64 != e) {
            return Err(CheckpointError::TensorShape { path: path.into(), name: name.clone(), found, expected });
        }
        let t = Tensor::f_from_data_size(view.data(), &expected, Kind::Float)
            .map_err(|source| CheckpointError::Torch { path: path.into(), source })?;
        staged.push((name.clone(), t));
    }
    let mut file_names = st.names();
    file_names.sort_unstable();
    if let Some(extra) = file_names.into_iter().find(|n| !vars.contains_key(*n)) {
        return Err(CheckpointError::UnexpectedTensor { path: path.into(), name: extra.into() });
    }
    tch::no_grad(|| {
        for (name, src) in &staged {
            let mut dst = vars[name].shallow_clone();
            dst.f_copy_(src).map_err(|source| CheckpointError::Torch { path: path.into(), source })?;
        }
        Ok(())
    })
}

/// `field: file X, expected Y` for every top-level field that differs.
fn describe_differences(file: &NetConfig, expected: &NetConfig) -> String {
    let (a, b) = (serde_json::to_value(file), serde_json::to_value(expected));
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) = (a, b) else {
        return "architectures differ".into();
    };
    let diffs: Vec<String> = a
        .iter()
        .filter(|(k, v)| b.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}: file {v}, expected {}", b.get(k).unwrap_or(&serde_json::Value::Null)))
        .collect();
    diffs.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{randomize, tiny_config, TempDir};

    const V: FormatVersions = FormatVersions { input: 3, policy: 7 };

    /// A randomised tiny net saved as `net.safetensors` in a fresh directory.
    fn saved_net() -> (Net, PathBuf, TempDir) {
        let mut net = Net::new(tiny_config(true, true), Device::Cpu).unwrap();
        randomize(&mut net, 11);
        let dir = TempDir::new("ckpt");
        let path = dir.join("net.safetensors");
        save(&net, &path, V, 1234).unwrap();
        (net, path, dir)
    }

    fn assert_same_variables(a: &Net, b: &Net) {
        let (va, vb) = (a.var_store().variables(), b.var_store().variables());
        assert_eq!(va.len(), vb.len());
        for (name, t) in &va {
            assert!(t.equal(&vb[name]), "variable {name} differs");
        }
    }

    #[test]
    fn save_load_exact_round_trip() {
        let (net, path, dir) = saved_net();
        let (loaded, meta) = load(&path, V, Device::Cpu, Precision::F32).unwrap();
        assert_eq!(meta.training_step, 1234);
        assert_eq!(meta.versions(), V);
        assert_eq!(meta.format, FORMAT_MAGIC);
        assert_eq!(&meta.architecture, net.config());
        assert_eq!(read_metadata(&path).unwrap(), meta);
        assert_same_variables(&net, &loaded);
        assert!(net.var_store().variables().keys().any(|k| k.ends_with("running_var")));

        // Same outputs in eval mode (uses the running statistics).
        let xs = Tensor::randn([3, 5, 8, 8], (Kind::Float, Device::Cpu));
        assert!(net.infer_concat(&xs).unwrap().equal(&loaded.infer_concat(&xs).unwrap()));

        // load_into an existing net of the same architecture.
        let mut other = Net::new(tiny_config(true, true), Device::Cpu).unwrap();
        load_into(&mut other, &path, V).unwrap();
        assert_same_variables(&net, &other);

        // Saving again gives the same metadata and tensor bytes (the header's JSON key
        // order is the safetensors crate's HashMap order, so files are not byte-equal).
        let again = dir.join("again.safetensors");
        save(&loaded, &again, V, 1234).unwrap();
        assert_eq!(read_metadata(&again).unwrap(), meta);
        let (a, b) = (std::fs::read(&path).unwrap(), std::fs::read(&again).unwrap());
        let (a, b) = (SafeTensors::deserialize(&a).unwrap(), SafeTensors::deserialize(&b).unwrap());
        assert_eq!(a.len(), b.len());
        for (name, view) in a.iter() {
            assert!(view.data() == b.tensor(name).unwrap().data(), "{name} differs");
        }
    }

    #[test]
    fn bf16_net_saves_as_f32() {
        let (net, path, dir) = saved_net();
        let (bf, _) = load(&path, V, Device::Cpu, Precision::Bf16).unwrap();
        assert_eq!(bf.kind(), Kind::BFloat16);
        let out = dir.join("bf16-out.safetensors");
        save(&bf, &out, V, 1).unwrap();
        let (back, _) = load(&out, V, Device::Cpu, Precision::F32).unwrap();
        let w = &back.var_store().variables()["stem.conv.weight"];
        assert_eq!(w.kind(), Kind::Float);
        let orig = &net.var_store().variables()["stem.conv.weight"];
        assert!((w - orig).abs().max().double_value(&[]) < 1e-2);
    }

    #[test]
    fn wrong_versions_fail() {
        let (_, path, _dir) = saved_net();
        let e = load(&path, FormatVersions { input: 4, ..V }, Device::Cpu, Precision::F32);
        assert!(matches!(e, Err(CheckpointError::InputFormatVersion { found: 3, expected: 4, .. })));
        let e = load(&path, FormatVersions { policy: 6, ..V }, Device::Cpu, Precision::F32);
        let e = e.unwrap_err();
        assert!(matches!(e, CheckpointError::PolicyFormatVersion { found: 7, expected: 6, .. }));
        assert!(e.to_string().contains("policy format version 7"), "{e}");
    }

    #[test]
    fn wrong_format_fails() {
        let net = Net::new(tiny_config(false, false), Device::Cpu).unwrap();
        let mut meta = Metadata {
            format: "szero-net-v0".into(),
            architecture: net.config().clone(),
            input_format_version: V.input,
            policy_format_version: V.policy,
            training_step: 0,
        };
        let dir = TempDir::new("ckpt");
        let path = dir.join("format.safetensors");
        let write = |meta: &Metadata| {
            let bytes = to_bytes(&net, meta).unwrap();
            std::fs::write(&path, bytes).unwrap();
        };
        write(&meta);
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(&e, CheckpointError::WrongFormat { found, .. } if found == "szero-net-v0"));
        assert!(e.to_string().contains("szero-net-v0"), "{e}");
        assert!(matches!(read_metadata(&path), Err(CheckpointError::WrongFormat { .. })));

        // A plain safetensors file without our metadata.
        let plain =
            safetensors::serialize([("w", TensorView::new(Dtype::F32, vec![1], &[0u8; 4]).unwrap())], None).unwrap();
        std::fs::write(&path, plain).unwrap();
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(e, CheckpointError::MissingMetadata { key: "format", .. }), "{e}");

        // Not safetensors at all, and a missing file.
        std::fs::write(&path, b"garbage, not a header").unwrap();
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(e, CheckpointError::NotSafetensors { .. }), "{e}");
        let e = load(dir.join("absent"), V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(e, CheckpointError::Io { .. }), "{e}");

        // Architecture JSON that does not parse.
        meta.format = FORMAT_MAGIC.into();
        let mut map = meta.to_map();
        map.insert(KEY_ARCH.into(), "{\"blocks\":2}".into());
        let bytes =
            safetensors::serialize([("w", TensorView::new(Dtype::F32, vec![1], &[0u8; 4]).unwrap())], Some(map))
                .unwrap();
        std::fs::write(&path, bytes).unwrap();
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(e, CheckpointError::BadMetadata { key: "architecture", .. }), "{e}");

        // A header that claims a network of terabytes over a few bytes of data: refused
        // before anything is allocated.
        let mut huge = meta.clone();
        huge.architecture.blocks = 1_000;
        huge.architecture.channels = 1 << 20;
        let bytes = safetensors::serialize(
            [("w", TensorView::new(Dtype::F32, vec![1], &[0u8; 4]).unwrap())],
            Some(huge.to_map()),
        )
        .unwrap();
        std::fs::write(&path, bytes).unwrap();
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(e.to_string().contains("needs at least"), "{e}");
    }

    #[test]
    fn architecture_mismatch_fails_and_leaves_net_unchanged() {
        let (_, path, _dir) = saved_net();
        let mut cfg = tiny_config(true, true);
        cfg.channels = 16;
        let mut other = Net::new(cfg, Device::Cpu).unwrap();
        let before = other.var_store().variables()["stem.conv.weight"].copy();
        let e = load_into(&mut other, &path, V).unwrap_err();
        assert!(matches!(e, CheckpointError::ArchitectureMismatch { .. }));
        assert!(e.to_string().contains("channels: file 8, expected 16"), "{e}");
        assert!(before.equal(&other.var_store().variables()["stem.conv.weight"]));
    }

    #[test]
    fn tensor_problems_fail() {
        let net = Net::new(tiny_config(false, false), Device::Cpu).unwrap();
        let meta = Metadata {
            format: FORMAT_MAGIC.into(),
            architecture: net.config().clone(),
            input_format_version: V.input,
            policy_format_version: V.policy,
            training_step: 0,
        };
        // Claim a bigger architecture than the tensors hold.
        let mut bigger = meta.clone();
        bigger.architecture.blocks = 3;
        let dir = TempDir::new("ckpt");
        let path = dir.join("tensors.safetensors");
        std::fs::write(&path, to_bytes(&net, &bigger).unwrap()).unwrap();
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(e, CheckpointError::MissingTensor { ref name, .. } if name.starts_with("tower.2.")), "{e}");

        let mut wider = meta.clone();
        wider.architecture.value_hidden = 17;
        std::fs::write(&path, to_bytes(&net, &wider).unwrap()).unwrap();
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(e, CheckpointError::TensorShape { .. }), "{e}");

        let mut smaller = meta.clone();
        smaller.architecture.blocks = 1;
        std::fs::write(&path, to_bytes(&net, &smaller).unwrap()).unwrap();
        let e = load(&path, V, Device::Cpu, Precision::F32).unwrap_err();
        assert!(matches!(e, CheckpointError::UnexpectedTensor { ref name, .. } if name.starts_with("tower.1.")), "{e}");
    }
}
