//! Trainer checkpoints: everything needed to continue a run exactly.
//!
//! Layout under `<run>/trainer/`:
//! ```text
//! step-000001000/net.safetensors    weights (the network file format of `models`)
//! step-000001000/state.safetensors  optimiser buffers (f32) and data-order arrays (i64)
//!                                   as tensors; step, RNG, data position as JSON metadata
//! latest                            name of the newest complete checkpoint directory
//! ```
//! Both files are written atomically, then `latest` is switched atomically, so a crash at
//! any point leaves the previous checkpoint intact and referenced. Older directories
//! beyond `keep_checkpoints` are deleted afterwards.
//!
//! The only random state is the data order's generator (saved). libtorch's generator
//! only initialises a fresh network: training itself draws nothing from it (no dropout),
//! so it needs no saving.

use crate::config::OptimizerKind;
use crate::error::TrainError;
use crate::sampler::SamplerState;
use crate::window::StoreState;
use models::io::write_atomic;
use models::{Net, FORMAT_VERSIONS};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tch::{Device, Kind, Tensor};

/// Value of the state file's `format` metadata.
pub const STATE_FORMAT: &str = "szero-trainer-state-v1";
const NET_FILE: &str = "net.safetensors";
const STATE_FILE: &str = "state.safetensors";
const LATEST: &str = "latest";

/// The scalars of a checkpoint (stored as JSON in the state file's metadata).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TrainerState {
    /// Optimiser steps completed.
    pub(crate) step: u64,
    pub(crate) optimizer: OptimizerKind,
    /// Updates the optimiser state has seen (AdamW bias correction).
    pub(crate) optimizer_steps: u64,
    /// Samples that may still be trained on (train/data ratio allowance).
    pub(crate) allowance: f64,
    /// Samples trained on so far.
    pub(crate) samples_trained: u64,
    pub(crate) store: StoreState,
    pub(crate) sampler_rng: u64,
}

/// A checkpoint read back.
pub(crate) struct Loaded {
    pub(crate) state: TrainerState,
    pub(crate) sampler: SamplerState,
    pub(crate) optimizer: HashMap<String, Tensor>,
}

fn dir_name(step: u64) -> String {
    format!("step-{step:09}")
}

fn step_of(name: &str) -> Option<u64> {
    name.strip_prefix("step-")?.parse().ok()
}

/// Shape and little-endian bytes of a tensor to serialise.
type RawTensor = (Vec<usize>, Vec<u8>);

fn ids_view(ids: &[u64]) -> RawTensor {
    (vec![ids.len()], ids.iter().flat_map(|&v| (v as i64).to_le_bytes()).collect())
}

fn f32_bytes(t: &Tensor) -> Result<RawTensor, TrainError> {
    let t = t.f_to_device(Device::Cpu)?.f_to_kind(Kind::Float)?.contiguous();
    let shape = t.size().iter().map(|&d| d as usize).collect();
    let values = Vec::<f32>::try_from(t.flatten(0, -1))?;
    Ok((shape, values.iter().flat_map(|v| v.to_le_bytes()).collect()))
}

/// Writes checkpoint `step` into `trainer_dir` and points `latest` at it; returns its
/// directory.
pub(crate) fn save(
    trainer_dir: &Path,
    net: &Net,
    state: &TrainerState,
    sampler: &SamplerState,
    optimizer: &[(String, Tensor)],
    keep: usize,
) -> Result<PathBuf, TrainError> {
    let dir = trainer_dir.join(dir_name(state.step));
    std::fs::create_dir_all(&dir).map_err(TrainError::io(&dir))?;
    models::checkpoint::save(net, dir.join(NET_FILE), FORMAT_VERSIONS, state.step)?;

    let state_path = dir.join(STATE_FILE);
    let mut tensors: Vec<(String, RawTensor, Dtype)> = Vec::new();
    for (name, t) in optimizer {
        tensors.push((name.clone(), f32_bytes(t)?, Dtype::F32));
    }
    for (name, ids) in [("data.pass", &sampler.pass), ("data.buffer", &sampler.buffer), ("data.carry", &sampler.carry)]
    {
        tensors.push((name.to_string(), ids_view(ids), Dtype::I64));
    }
    let views = tensors
        .iter()
        .map(|(name, (shape, bytes), dtype)| {
            TensorView::new(*dtype, shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| TrainError::state(&state_path, e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let json = serde_json::to_string(state).map_err(|e| TrainError::state(&state_path, e))?;
    let meta = HashMap::from([("format".to_string(), STATE_FORMAT.to_string()), ("state".to_string(), json)]);
    let bytes = models::checksum::serialize(views, meta).map_err(|e| TrainError::state(&state_path, e))?;
    write_atomic(&state_path, &bytes).map_err(TrainError::io(&state_path))?;

    let latest = trainer_dir.join(LATEST);
    write_atomic(&latest, format!("{}\n", dir_name(state.step)).as_bytes()).map_err(TrainError::io(&latest))?;
    prune(trainer_dir, keep, state.step)?;
    Ok(dir)
}

/// Steps of the checkpoint directories on disk, newest first.
fn steps_on_disk(trainer_dir: &Path) -> Result<Vec<u64>, TrainError> {
    let mut steps: Vec<u64> = std::fs::read_dir(trainer_dir)
        .map_err(TrainError::io(trainer_dir))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| step_of(&e.file_name().to_string_lossy()))
        .collect();
    steps.sort_unstable_by(|a, b| b.cmp(a));
    Ok(steps)
}

/// Deletes checkpoint directories beyond the newest `keep` (never `current`).
fn prune(trainer_dir: &Path, keep: usize, current: u64) -> Result<(), TrainError> {
    for step in steps_on_disk(trainer_dir)?.into_iter().skip(keep.max(1)).filter(|&s| s != current) {
        let dir = trainer_dir.join(dir_name(step));
        std::fs::remove_dir_all(&dir).map_err(TrainError::io(&dir))?;
    }
    Ok(())
}

/// The checkpoints to resume from, best first: the one `latest` points at, then the
/// older ones still on disk, newest first (a damaged checkpoint falls back to the one
/// before it). Empty when `latest` does not exist. Directories newer than `latest` are
/// left out: they were being written when the trainer stopped.
pub(crate) fn resumable(trainer_dir: &Path) -> Result<Vec<PathBuf>, TrainError> {
    let Some(newest) = latest(trainer_dir)? else {
        return Ok(Vec::new());
    };
    let top = newest.file_name().and_then(|n| step_of(&n.to_string_lossy())).unwrap_or(u64::MAX);
    let older = steps_on_disk(trainer_dir)?.into_iter().filter(|&s| s < top);
    Ok(std::iter::once(newest).chain(older.map(|s| trainer_dir.join(dir_name(s)))).collect())
}

/// Makes the complete checkpoint directory `dir` (under `trainer_dir`, e.g. one
/// downloaded from a run's store) the one to resume from.
pub fn adopt(trainer_dir: &Path, dir: &Path) -> Result<(), TrainError> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let latest = trainer_dir.join(LATEST);
    if step_of(&name).is_none() {
        return Err(TrainError::state(&latest, format!("{name:?} is not a checkpoint directory name")));
    }
    write_atomic(&latest, format!("{name}\n").as_bytes()).map_err(TrainError::io(&latest))
}

/// The name of a checkpoint directory's step (`step-000001000` is 1000).
pub fn checkpoint_step(dir: &Path) -> Option<u64> {
    step_of(&dir.file_name()?.to_string_lossy())
}

/// The checkpoint `latest` points at, if any.
pub fn latest(trainer_dir: &Path) -> Result<Option<PathBuf>, TrainError> {
    let path = trainer_dir.join(LATEST);
    let name = match std::fs::read_to_string(&path) {
        Ok(s) => s.trim().to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(TrainError::io(&path)(e)),
    };
    if step_of(&name).is_none() {
        return Err(TrainError::state(&path, format!("{name:?} is not a checkpoint directory name")));
    }
    Ok(Some(trainer_dir.join(name)))
}

fn ids(st: &SafeTensors, name: &str, path: &Path) -> Result<Vec<u64>, TrainError> {
    let v = st.tensor(name).map_err(|_| TrainError::state(path, format!("no tensor `{name}`")))?;
    if v.dtype() != Dtype::I64 || v.shape().len() != 1 {
        return Err(TrainError::state(path, format!("tensor `{name}` is not a 1-d i64 array")));
    }
    Ok(v.data().chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")) as u64).collect())
}

/// Reads the state file of checkpoint directory `dir` (weights are loaded separately,
/// into the caller's network, by [`load_weights`]).
pub(crate) fn load(dir: &Path) -> Result<Loaded, TrainError> {
    let path = dir.join(STATE_FILE);
    let bytes = std::fs::read(&path).map_err(TrainError::io(&path))?;
    let st = SafeTensors::deserialize(&bytes).map_err(|e| TrainError::state(&path, e))?;
    let (_, meta) = SafeTensors::read_metadata(&bytes).map_err(|e| TrainError::state(&path, e))?;
    models::checksum::verify(&st, meta.metadata().as_ref()).map_err(|e| TrainError::state(&path, e))?;
    let meta = meta.metadata().clone().unwrap_or_default();
    match meta.get("format") {
        Some(f) if f == STATE_FORMAT => {}
        other => return Err(TrainError::state(&path, format!("format is {other:?}, expected {STATE_FORMAT:?}"))),
    }
    let json = meta.get("state").ok_or_else(|| TrainError::state(&path, "no `state` metadata"))?;
    let state: TrainerState = serde_json::from_str(json).map_err(|e| TrainError::state(&path, e))?;
    let sampler = SamplerState {
        rng: state.sampler_rng,
        pass: ids(&st, "data.pass", &path)?,
        buffer: ids(&st, "data.buffer", &path)?,
        carry: ids(&st, "data.carry", &path)?,
    };
    let mut optimizer = HashMap::new();
    for (name, view) in st.iter().filter(|(n, _)| n.starts_with("optim.")) {
        if view.dtype() != Dtype::F32 {
            return Err(TrainError::state(&path, format!("tensor `{name}` is not f32")));
        }
        let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
        optimizer.insert(name.to_string(), Tensor::f_from_data_size(view.data(), &shape, Kind::Float)?);
    }
    Ok(Loaded { state, sampler, optimizer })
}

/// Loads a checkpoint's weights into `net` (same architecture required).
pub(crate) fn load_weights(dir: &Path, net: &mut Net) -> Result<u64, TrainError> {
    Ok(models::checkpoint::load_into(net, dir.join(NET_FILE), FORMAT_VERSIONS)?.training_step)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(step: u64) -> TrainerState {
        TrainerState {
            step,
            optimizer: OptimizerKind::Sgd,
            optimizer_steps: step,
            allowance: 12.5,
            samples_trained: 640,
            store: StoreState::default(),
            sampler_rng: 77,
        }
    }

    #[test]
    fn round_trip_latest_and_pruning() {
        let dir = tempfile::tempdir().unwrap();
        let net = Net::new(models::net_config(0, 4, 0), Device::Cpu).unwrap();
        assert!(latest(dir.path()).unwrap().is_none());
        let sampler = SamplerState { rng: 77, pass: vec![1, 2, 3], buffer: vec![u64::MAX >> 1, 0], carry: vec![] };
        let opt = vec![("optim.momentum.w".to_string(), Tensor::from_slice(&[1.5f32, -2.0]).view([1, 2]))];
        for step in [10, 20, 30] {
            save(dir.path(), &net, &state(step), &sampler, &opt, 2).unwrap();
        }
        let l = latest(dir.path()).unwrap().unwrap();
        assert!(l.ends_with("step-000000030"));
        assert!(!dir.path().join("step-000000010").exists());
        assert!(dir.path().join("step-000000020").exists());
        let back = load(&l).unwrap();
        assert_eq!(back.state, state(30));
        assert_eq!(back.sampler, sampler);
        assert!(back.optimizer["optim.momentum.w"].equal(&opt[0].1));
        let mut other = Net::new(models::net_config(0, 4, 0), Device::Cpu).unwrap();
        assert_eq!(load_weights(&l, &mut other).unwrap(), 30);

        // Damaged files are errors naming the file, not panics.
        std::fs::write(l.join(STATE_FILE), b"\x10\0\0\0\0\0\0\0{}").unwrap();
        let e = load(&l).err().unwrap().to_string();
        assert!(e.contains("state.safetensors"), "{e}");
        std::fs::write(dir.path().join(LATEST), "garbage").unwrap();
        assert!(latest(dir.path()).is_err());
    }
}
