//! The start-up layer every command and stage goes through to get a network and an
//! evaluator from a run config, so that `szero selfplay`, `szero run` and the workers of
//! a run load, place and share networks the same way.

use crate::config::RunConfig;
use anyhow::Result;
use models::batcher::BatchingNetEvaluator;
use models::encoding::Inputs;
use models::evaluator::NetEvaluator;
use models::Net;
use search::Evaluator;
use selfplay::NetworkSharing;
use std::path::Path;
use std::time::Duration;

/// Loads a network file, or builds a fresh one from the config.
pub fn load_or_fresh(cfg: &RunConfig, model: Option<&Path>, seed: u64) -> Result<(Net, Inputs)> {
    let device = cfg.network.device.resolve()?;
    let (mut net, inputs) = match model {
        Some(path) => {
            let loaded = models::load_net(path, device, cfg.network.precision)?;
            (loaded.net, loaded.inputs)
        }
        None => {
            models::tch::manual_seed(seed as i64);
            (Net::new(cfg.network.net_config(), device)?, cfg.network.inputs())
        }
    };
    net.set_precision(cfg.network.precision);
    Ok((net, inputs))
}

/// The evaluator self-play uses (`selfplay.network_sharing`): by default on CUDA one
/// batch merged across all worker threads (the GPU wants thousands of positions per
/// call); on the CPU one copy of the network per worker thread, so that each thread's
/// network call runs while the others search.
pub fn make_evaluator(cfg: &RunConfig, net: Net, inputs: Inputs) -> Result<Box<dyn Evaluator>> {
    let threads = cfg.selfplay.worker_threads();
    let merged = match cfg.selfplay.network_sharing {
        NetworkSharing::Auto => net.device().is_cuda(),
        NetworkSharing::Merged => true,
        NetworkSharing::PerThread => false,
    };
    Ok(if merged {
        // A batch: the leaves of one group of threads (`merged_batches` groups in turn).
        let group = threads.div_ceil(cfg.selfplay.merged_batches.clamp(1, threads.max(1)));
        let rows = group * cfg.selfplay.games_per_thread;
        Box::new(BatchingNetEvaluator::new(net, inputs, group, rows, Duration::from_millis(5)))
    } else {
        Box::new(NetEvaluator::with_copies(net, inputs, threads)?)
    })
}
