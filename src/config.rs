//! The run configuration: one TOML file with a table per stage. Every field has a
//! default; unknown fields anywhere are errors (a typo must not silently change a run).
//!
//! ```toml
//! [network]   # architecture of a fresh network, device and precision
//! [selfplay]  # search and game settings (selfplay::SelfplayConfig)
//! ```

use anyhow::{Context, Result};
use models::{DeviceChoice, NetConfig, Precision};
use selfplay::SelfplayConfig;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Network architecture (for generation 0) and where networks run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// Residual blocks.
    pub blocks: i64,
    /// Channels per block.
    pub channels: i64,
    /// Earlier positions the network sees (input history planes).
    pub history: usize,
    /// `auto` (CUDA when available), `cpu`, `cuda` or `cuda:N`.
    pub device: DeviceChoice,
    /// Inference precision: `auto` (bf16 on CUDA, f32 on CPU), `f32` or `bf16`.
    pub precision: Precision,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            blocks: 6,
            channels: 64,
            history: models::encoding::DEFAULT_HISTORY,
            device: DeviceChoice::Auto,
            precision: Precision::Auto,
        }
    }
}

impl NetworkConfig {
    pub fn net_config(&self) -> NetConfig {
        models::net_config(self.blocks, self.channels, self.history)
    }
}

/// A whole run configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    pub network: NetworkConfig,
    pub selfplay: SelfplayConfig,
}

impl RunConfig {
    pub fn load(path: &Path) -> Result<RunConfig> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
        RunConfig::parse(&text).with_context(|| format!("in config {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<RunConfig> {
        let cfg: RunConfig = toml::from_str(text)?;
        cfg.network.net_config().validate()?;
        anyhow::ensure!(
            schess::Variant::from_name(&cfg.selfplay.variant).is_some(),
            "selfplay.variant {:?} is not a known variant (seirawan or chess)",
            cfg.selfplay.variant
        );
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_unknown_fields() {
        assert_eq!(RunConfig::parse("").unwrap(), RunConfig::default());
        let err = RunConfig::parse("[selfplay]\nsimulatons = 5\n").unwrap_err();
        assert!(format!("{err:#}").contains("simulatons"), "{err:#}");
        let err = RunConfig::parse("[network]\nblocks = 0\n").unwrap_err();
        assert!(format!("{err:#}").contains("blocks"), "{err:#}");
        let cfg = RunConfig::parse("[selfplay]\nsimulations = 5\n[selfplay.search]\nroot_mode = \"gumbel\"\n").unwrap();
        assert_eq!(cfg.selfplay.simulations, 5);
        assert_eq!(cfg.selfplay.search.root_mode, selfplay::RootMode::Gumbel);
    }
}
