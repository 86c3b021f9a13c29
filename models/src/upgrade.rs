//! Upgrading a network file to this build's encodings.
//!
//! Format 2 of both encodings only *appended*: six input planes about the entry rule
//! ([`crate::encoding`]) and sixteen placement moves ([`crate::policy_index`]). A format-1
//! network therefore becomes a format-2 one by giving the new input planes zero weights in
//! the stem and the new moves zero rows in the policy head. The upgraded network computes
//! exactly the old outputs on every position format 1 could describe (the new planes are
//! zero there, and the old logits are untouched); on placement positions its placement
//! logits start at zero, i.e. uniform among the legal placements, until training teaches
//! them. Loading a format-1 file is still refused by name; this module is the explicit
//! conversion (`szero upgrade-net`), so a file's version always says what it was trained on.

use crate::checkpoint::{self, CheckpointError, FormatVersions, Metadata};
use crate::{encoding, inputs_of, policy_index, Net, Precision, FORMAT_VERSIONS};
use std::path::Path;
use tch::{Device, Tensor};

/// The encodings of format 1.
pub const FORMAT_VERSIONS_V1: FormatVersions = FormatVersions { input: 1, policy: 1 };

/// Why a file could not be upgraded.
#[derive(Debug, thiserror::Error)]
pub enum UpgradeError {
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(
        "{path}: encodings are input {} / policy {}; upgrade-net converts input 1 / policy 1 (format 1) \
         to this build's input {} / policy {}",
        found.input, found.policy, FORMAT_VERSIONS.input, FORMAT_VERSIONS.policy
    )]
    Versions { path: String, found: FormatVersions },
    #[error("{path}: the network does not look like a format-1 szero network: {reason}")]
    Shape { path: String, reason: String },
    #[error("{path}: libtorch: {source}")]
    Torch { path: String, source: tch::TchError },
}

/// What [`upgrade`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Upgraded {
    pub from: FormatVersions,
    /// Metadata of the file written.
    pub meta: Metadata,
    /// Names of the tensors that were widened with zeros.
    pub widened: Vec<String>,
}

/// Reads the format-1 network `input` and writes it as a format-2 network to `output`
/// (atomically; `input` is never touched). A file that is already of this build's format
/// is refused, so a script cannot widen a network twice.
pub fn upgrade(input: &Path, output: &Path) -> Result<Upgraded, UpgradeError> {
    let shown = input.display().to_string();
    let found = checkpoint::read_metadata(input)?.versions();
    if found != FORMAT_VERSIONS_V1 {
        return Err(UpgradeError::Versions { path: shown, found });
    }
    let (old, meta) = checkpoint::load(input, FORMAT_VERSIONS_V1, Device::Cpu, Precision::F32)?;
    let shape_err = |reason: String| UpgradeError::Shape { path: shown.clone(), reason };
    let old_cfg = old.config().clone();
    let history = (0..64)
        .find(|&h| encoding::planes_v1(h) as i64 == old_cfg.input_planes)
        .ok_or_else(|| shape_err(format!("{} input planes match no format-1 history length", old_cfg.input_planes)))?;
    if old_cfg.policy_size != policy_index::POLICY_SIZE_V1 as i64 {
        return Err(shape_err(format!(
            "policy size {} (format 1 has {})",
            old_cfg.policy_size,
            policy_index::POLICY_SIZE_V1
        )));
    }
    let mut cfg = old_cfg;
    cfg.input_planes = encoding::planes(history) as i64;
    cfg.policy_size = policy_index::POLICY_SIZE as i64;
    debug_assert_eq!(inputs_of(&cfg), Some(history.into()));
    let torch_err = |source| UpgradeError::Torch { path: shown.clone(), source };
    let mut new = Net::new(cfg, Device::Cpu).map_err(|e| shape_err(e.to_string()))?;
    let old_vars = old.var_store().variables();
    let mut widened = Vec::new();
    let _guard = tch::no_grad_guard();
    for (name, mut var) in new.var_store_mut().variables() {
        let from = old_vars.get(&name).ok_or_else(|| shape_err(format!("no tensor `{name}`")))?;
        let value = widen(from, &var.size()).ok_or_else(|| {
            shape_err(format!("tensor `{name}` has shape {:?}, which does not embed in {:?}", from.size(), var.size()))
        })?;
        if from.size() != var.size() {
            widened.push(name.clone());
        }
        var.f_copy_(&value).map_err(torch_err)?;
    }
    widened.sort();
    let meta = checkpoint::save(&new, output, FORMAT_VERSIONS, meta.training_step)?;
    Ok(Upgraded { from: found, meta, widened })
}

/// `t` placed at the start of a zero tensor of `shape` (each of `t`'s dimensions at most
/// the new one), or `None` if it does not fit.
fn widen(t: &Tensor, shape: &[i64]) -> Option<Tensor> {
    let old = t.size();
    if old.len() != shape.len() || old.iter().zip(shape).any(|(a, b)| a > b) {
        return None;
    }
    let out = Tensor::zeros(shape, (t.kind(), t.device()));
    let mut view = out.shallow_clone();
    for (d, &n) in old.iter().enumerate() {
        view = view.narrow(d as i64, 0, n);
    }
    view.copy_(t);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::NetEvaluator;
    use crate::testutil::{randomize, TempDir};
    use schess::{Position, Variant};
    use search::Evaluator;

    /// A format-1 network with every weight set (output layers too, so that the test
    /// sees real logits), saved as format 1.
    fn v1_net(dir: &Path) -> (Net, std::path::PathBuf) {
        let mut cfg = crate::NetConfig::small(encoding::planes_v1(2) as i64, policy_index::POLICY_SIZE_V1 as i64);
        cfg.blocks = 1;
        cfg.channels = 8;
        let mut net = Net::new(cfg, Device::Cpu).unwrap();
        randomize(&mut net, 7);
        let path = dir.join("v1.safetensors");
        checkpoint::save(&net, &path, FORMAT_VERSIONS_V1, 42).unwrap();
        (net, path)
    }

    #[test]
    fn upgrade_keeps_every_format_one_output_and_is_refused_twice() {
        let dir = TempDir::new("upgrade");
        let (old, v1) = v1_net(dir.path());
        // Loading format 1 is refused by name, with the way out.
        let err = checkpoint::load(&v1, FORMAT_VERSIONS, Device::Cpu, Precision::F32).err().unwrap().to_string();
        assert!(err.contains("input format version 1") && err.contains("upgrade-net"), "{err}");

        let v2 = dir.path().join("v2.safetensors");
        let done = upgrade(&v1, &v2).unwrap();
        assert_eq!(done.from, FORMAT_VERSIONS_V1);
        assert_eq!(done.meta.versions(), FORMAT_VERSIONS);
        assert_eq!(done.meta.training_step, 42);
        assert_eq!(done.widened, ["policy.fc.bias", "policy.fc.weight", "stem.conv.weight"]);
        let (new, _) = checkpoint::load(&v2, FORMAT_VERSIONS, Device::Cpu, Precision::F32).unwrap();

        // Old and new agree on a seirawan game's positions: the old net fed format-1
        // planes (the prefix of format 2's) and the new one fed format 2.
        let mut game = schess::Game::new(Position::startpos());
        for m in ["e2e4", "e7e5", "g1f3e", "b8c6h", "f1c4"] {
            game.play_uci(m).unwrap();
        }
        let positions = game.positions();
        let mut planes = vec![0.0; encoding::input_len(2)];
        encoding::encode(positions, 2, &mut planes);
        let v1_len = encoding::planes_v1(2) * 64;
        let xs_old = Tensor::from_slice(&planes[..v1_len]).view([1, encoding::planes_v1(2) as i64, 8, 8]);
        let xs_new = Tensor::from_slice(&planes).view([1, encoding::planes(2) as i64, 8, 8]);
        let (a, b) = (old.infer(&xs_old).unwrap(), new.infer(&xs_new).unwrap());
        let old_policy = a.policy.squeeze();
        let new_policy = b.policy.squeeze();
        assert_eq!(new_policy.size(), [policy_index::POLICY_SIZE as i64]);
        assert!(new_policy.narrow(0, 0, policy_index::POLICY_SIZE_V1 as i64).allclose(&old_policy, 1e-6, 1e-6, false));
        assert!(new_policy.narrow(0, policy_index::POLICY_SIZE_V1 as i64, 16).abs().max().double_value(&[]) == 0.0);
        assert!(a.wdl.allclose(&b.wdl, 1e-6, 1e-6, false));

        // The upgraded network plays placement: uniform priors over the 16 placements.
        let eval = NetEvaluator::new(new, 2);
        let start = Position::new(Variant::Placement);
        let out = eval.evaluate(&[std::slice::from_ref(&start)]).unwrap();
        let priors = &out[0].priors;
        assert_eq!(priors.len(), 16);
        assert!(priors.iter().all(|p| (p - 1.0 / 16.0).abs() < 1e-5), "{priors:?}");

        // A second upgrade is refused, by the versions found.
        let again = upgrade(&v2, &dir.path().join("v3.safetensors")).err().unwrap().to_string();
        assert!(again.contains("input 2 / policy 2"), "{again}");
    }
}
