//! Loading a network file for a program that plays: the one place that turns a path into
//! a network with its history length and metadata, or into an evaluator for search.

use crate::checkpoint::{self, Metadata};
use crate::evaluator::{CachedEvaluator, NetEvaluator};
use crate::{DeviceChoice, Net, Precision, FORMAT_VERSIONS};
use anyhow::Context;
use search::Evaluator;
use std::path::Path;
use std::sync::Arc;

/// A network file, loaded.
pub struct LoadedNet {
    pub net: Net,
    /// What its input planes show: earlier positions, attack planes.
    pub inputs: crate::encoding::Inputs,
    pub meta: Metadata,
}

impl LoadedNet {
    /// One line for logs: the file, the architecture and the training step.
    pub fn describe(&self, path: &Path) -> String {
        let c = self.net.config();
        format!(
            "{} ({} blocks x {} channels, {}, training step {})",
            path.display(),
            c.blocks,
            c.channels,
            self.inputs,
            self.meta.training_step
        )
    }
}

/// Loads `path` (any supported format version) onto `device` in `precision`, and works
/// out what it sees (history length, attack planes) from its input planes.
pub fn load_net(path: &Path, device: tch::Device, precision: Precision) -> anyhow::Result<LoadedNet> {
    // Every checkpoint error names the file already.
    let (net, meta) = checkpoint::load(path, FORMAT_VERSIONS, device, precision)?;
    let inputs = crate::inputs_of(net.config()).with_context(|| {
        format!("{}: input planes {} match no input layout of this build", path.display(), net.config().input_planes)
    })?;
    Ok(LoadedNet { net, inputs, meta })
}

/// Loads a network file as a cached evaluator; `material_mix` overrides the share of
/// the material head in its value (the network's own setting otherwise).
pub fn load_evaluator(
    path: &Path,
    device: DeviceChoice,
    precision: Precision,
    cache_entries: usize,
    material_mix: Option<f32>,
) -> anyhow::Result<Arc<dyn Evaluator>> {
    let LoadedNet { net, inputs, .. } = load_net(path, device.resolve()?, precision)?;
    let mut net = NetEvaluator::new(net, inputs);
    if let Some(mix) = material_mix {
        net = net.with_material_mix(mix);
    }
    Ok(if cache_entries > 0 {
        Arc::new(CachedEvaluator::new(net, inputs.history, cache_entries))
    } else {
        Arc::new(net)
    })
}
