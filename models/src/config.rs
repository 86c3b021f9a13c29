//! Network architecture description.
//!
//! A [`NetConfig`] fully determines the set of tensors (names and shapes) of a network.
//! It is stored as JSON inside every checkpoint, so that a file can be loaded without
//! knowing its architecture in advance and so that loading weights into a network of
//! another shape fails with a clear error instead of a shape panic deep inside libtorch.

use serde::{Deserialize, Serialize};
use settings::check::require;

/// Board side length: inputs are `[N, input_planes, 8, 8]`.
pub const BOARD_SIZE: i64 = 8;
/// Number of squares, i.e. the spatial size flattened by the heads.
pub const SQUARES: i64 = BOARD_SIZE * BOARD_SIZE;
/// Number of value logits: win, draw, loss (from the side to move's point of view).
pub const WDL: i64 = 3;

/// Architecture of the residual policy/value network.
///
/// Unknown fields are rejected on deserialisation: a checkpoint written by a newer
/// program with architecture options this one does not know must not silently load as
/// a different network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Number of residual blocks in the tower.
    pub blocks: i64,
    /// Channels of the stem and of every residual block.
    pub channels: i64,
    /// Squeeze-excitation in every residual block (global context for an otherwise
    /// local 3x3 tower). `None` disables it.
    pub squeeze_excitation: Option<SeConfig>,
    /// Input planes of the board encoding (defined by the caller's encoder).
    pub input_planes: i64,
    /// Number of policy logits (size of the caller's move index).
    pub policy_size: i64,
    /// Channels of the 1x1 convolution before the policy's linear layer.
    pub policy_channels: i64,
    /// Channels of the 1x1 convolution before the value MLP.
    pub value_channels: i64,
    /// Hidden width of the value MLP.
    pub value_hidden: i64,
    /// Reduce the value head's board by global pooling (mean and max over the squares,
    /// KataGo's value head) instead of flattening it (lc0's). Pooling shares one weight
    /// across all squares, so a global count such as material is a single linear
    /// feature, learnt from far fewer games than 64 separate per-square weights.
    /// Absent in checkpoints written before it existed: they flatten.
    #[serde(default)]
    pub value_pooling: bool,
    /// Optional moves-left head (predicts remaining plies; helps prefer faster wins).
    pub moves_left: Option<MovesLeftConfig>,
    /// Optional material head: predicts the live material balance a few plies ahead, a
    /// dense auxiliary target (in the spirit of KataGo's score and ownership heads) that
    /// teaches the tower what a hanging piece is long before game results do. Absent in
    /// checkpoints written before it existed.
    #[serde(default)]
    pub material: Option<MaterialHeadConfig>,
}

/// Material head options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialHeadConfig {
    /// Channels of the 1x1 convolution before the pooled MLP.
    pub channels: i64,
    /// Hidden width of the MLP.
    pub hidden: i64,
    /// What the head predicts: the side to move's live material lead, in pawns, this many
    /// plies later in the game (or at its end, if that comes first).
    pub horizon: u32,
    /// How much of the value search uses comes from this head: the expected score is
    /// `(1 - mix) * value head + mix * material_q(prediction)`. 0 keeps it a training
    /// target only.
    pub value_mix: f32,
}

/// Squeeze-excitation options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeConfig {
    /// Bottleneck reduction: the hidden layer has `channels / ratio` units.
    pub ratio: i64,
}

/// Moves-left head options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovesLeftConfig {
    /// Channels of the 1x1 convolution before the MLP.
    pub channels: i64,
    /// Hidden width of the MLP.
    pub hidden: i64,
}

pub use settings::ConfigError;

impl NetConfig {
    /// A small but complete network with the given encoding sizes: 6 blocks of 64
    /// channels with squeeze-excitation and a moves-left head.
    pub fn small(input_planes: i64, policy_size: i64) -> Self {
        NetConfig {
            blocks: 6,
            channels: 64,
            squeeze_excitation: Some(SeConfig { ratio: 4 }),
            input_planes,
            policy_size,
            policy_channels: 32,
            value_channels: 32,
            value_hidden: 128,
            value_pooling: false,
            moves_left: Some(MovesLeftConfig { channels: 8, hidden: 128 }),
            material: None,
        }
    }

    /// A lower bound on the bytes of this network's f32 weights (input and tower
    /// convolutions, the policy's linear layer). A file too short to hold them is
    /// refused before anything is allocated: a hostile header must not make a loader
    /// build a network of many gigabytes.
    pub fn min_weight_bytes(&self) -> u128 {
        let n = |v: i64| v.max(0) as u128;
        let c = n(self.channels);
        let tower = n(self.blocks).saturating_mul(2 * 9).saturating_mul(c.saturating_mul(c));
        let input = n(self.input_planes).saturating_mul(9).saturating_mul(c);
        let policy = n(self.policy_channels).saturating_mul(SQUARES as u128).saturating_mul(n(self.policy_size));
        tower.saturating_add(input).saturating_add(policy).saturating_mul(4)
    }

    /// Checks that every size is usable, so that building the network cannot fail.
    pub fn validate(&self) -> Result<(), ConfigError> {
        // Zero blocks is a legal (if weak) network; every other size must be positive.
        require(self.blocks >= 0, "blocks", "at least 0", self.blocks)?;
        let mut sizes = vec![
            ("channels", self.channels),
            ("input_planes", self.input_planes),
            ("policy_size", self.policy_size),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
            ("value_hidden", self.value_hidden),
        ];
        if let Some(se) = &self.squeeze_excitation {
            sizes.push(("squeeze_excitation.ratio", se.ratio));
        }
        if let Some(ml) = &self.moves_left {
            sizes.push(("moves_left.channels", ml.channels));
            sizes.push(("moves_left.hidden", ml.hidden));
        }
        if let Some(m) = &self.material {
            sizes.push(("material.channels", m.channels));
            sizes.push(("material.hidden", m.hidden));
            require((0.0..=1.0).contains(&m.value_mix), "material.value_mix", "in [0, 1]", m.value_mix)?;
        }
        for (field, value) in sizes {
            require(value > 0, field, "positive", value)?;
        }
        if let Some(se) = &self.squeeze_excitation {
            let allowed = format!("at most channels ({}) to leave a hidden unit", self.channels);
            require(self.channels / se.ratio > 0, "squeeze_excitation.ratio", &allowed, se.ratio)?;
        }
        Ok(())
    }

    /// Width of the single output row of an exported network: policy logits, then the
    /// WDL logits, then (if present) the moves-left prediction, then (if present) the
    /// material prediction.
    pub fn output_width(&self) -> i64 {
        self.policy_size + WDL + i64::from(self.moves_left.is_some()) + i64::from(self.material.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_and_unknown_fields() {
        let cfg = NetConfig::small(64, 2000);
        let json = serde_json::to_string(&cfg).unwrap();
        assert_eq!(serde_json::from_str::<NetConfig>(&json).unwrap(), cfg);
        let extended = json.replacen('{', "{\"attention\":true,", 1);
        assert!(serde_json::from_str::<NetConfig>(&extended).is_err());
    }

    #[test]
    fn validate() {
        assert!(NetConfig::small(64, 2000).validate().is_ok());
        let mut cfg = NetConfig::small(64, 2000);
        cfg.policy_size = 0;
        assert_eq!(cfg.validate(), Err(ConfigError::new("policy_size", "positive", 0)));
        let mut cfg = NetConfig::small(64, 2000);
        cfg.squeeze_excitation = Some(SeConfig { ratio: 128 });
        assert_eq!(cfg.validate().unwrap_err().field, "squeeze_excitation.ratio");
    }
}
