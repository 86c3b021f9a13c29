//! The residual policy/value network (AlphaZero / Leela Chess Zero style).
//!
//! Layout (all convolutions without bias, each followed by batch norm):
//! - stem: 3x3 conv `input_planes -> channels`, BN, ReLU;
//! - tower: `blocks` residual blocks of two 3x3 convs, optional squeeze-excitation,
//!   skip connection, ReLU;
//! - policy head: 1x1 conv to `policy_channels`, BN, ReLU, flatten, linear to
//!   `policy_size` logits;
//! - value head: 1x1 conv to `value_channels`, BN, ReLU, flatten, linear, ReLU, linear
//!   to 3 W/D/L logits;
//! - optional moves-left head: like the value head, ending in one softplus output;
//! - optional material head: 1x1 conv, mean and max pooling, MLP to one output (the
//!   predicted material lead in pawns, see [`crate::MaterialHeadConfig`]).
//!
//! The shape-dependent operations use `flatten`/`unsqueeze`/`chunk` rather than `view`
//! with the batch size, so that a traced TorchScript export (see [`crate::export`])
//! accepts any batch size, not just the one it was traced with.

use crate::config::{ConfigError, NetConfig, BOARD_SIZE, SQUARES, WDL};
use crate::device::Precision;
use tch::nn::{self, ModuleT};
use tch::{Device, Kind, TchError, Tensor};

/// Why a network could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("network input must have shape [N, {planes}, 8, 8], got {found:?}")]
    InputShape { planes: i64, found: Vec<i64> },
    #[error("libtorch: {0}")]
    Torch(#[from] TchError),
}

/// The three (or two) heads' outputs for a batch of `N` positions.
#[derive(Debug)]
pub struct NetOutput {
    /// `[N, policy_size]` unnormalised move logits (mask illegal moves before softmax).
    pub policy: Tensor,
    /// `[N, 3]` win/draw/loss logits, from the side to move's point of view.
    pub wdl: Tensor,
    /// `[N]` predicted remaining plies (non-negative), when the net has that head.
    pub moves_left: Option<Tensor>,
    /// `[N]` predicted material lead of the side to move in pawns, when the net has that
    /// head.
    pub material: Option<Tensor>,
}

/// A residual network with its variables.
///
/// Owns its [`nn::VarStore`]: the trainer builds optimisers from [`Net::var_store`],
/// checkpoints read and write it by variable name.
///
/// `Send` but not `Sync` (tch tensors are not `Sync`): give each network to one
/// evaluator thread and send it batches, rather than sharing it.
pub struct Net {
    vs: nn::VarStore,
    config: NetConfig,
    precision: Precision,
    stem: ConvBn,
    tower: Vec<ResBlock>,
    policy: PolicyHead,
    value: ValueHead,
    moves_left: Option<MovesLeftHead>,
    material: Option<MlpHead>,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Net")
            .field("config", &self.config)
            .field("device", &self.device())
            .field("precision", &self.precision)
            .finish_non_exhaustive()
    }
}

impl Net {
    /// Builds a freshly initialised fp32 network on `device`.
    pub fn new(config: NetConfig, device: Device) -> Result<Net, NetError> {
        config.validate()?;
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let c = config.channels;
        let stem = ConvBn::new(&(&root / "stem"), config.input_planes, c, 3, BnInit::One);
        let tower = (0..config.blocks).map(|i| ResBlock::new(&(&root / "tower" / i), &config)).collect();
        let policy = PolicyHead::new(&(&root / "policy"), &config);
        let value = ValueHead::new(&(&root / "value"), &config);
        let moves_left =
            config.moves_left.map(|ml| MovesLeftHead::new(&(&root / "moves_left"), c, ml.channels, ml.hidden));
        let material = config.material.map(|m| MlpHead::new(&(&root / "material"), c, m.channels, m.hidden, 1, true));
        Ok(Net { vs, config, precision: Precision::F32, stem, tower, policy, value, moves_left, material })
    }

    /// Builds a network with the same architecture and copies this one's variables
    /// into it, on another device and/or precision. Used to make an inference copy
    /// (e.g. bf16 on the GPU) of a training network, and by the export.
    pub fn try_clone_to(&self, device: Device, precision: Precision) -> Result<Net, NetError> {
        let mut other = Net::new(self.config.clone(), device)?;
        other.vs.copy(&self.vs)?;
        other.set_precision(precision);
        Ok(other)
    }

    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The weights' precision (never [`Precision::Auto`]).
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The element kind of the weights, which inputs are cast to.
    pub fn kind(&self) -> Kind {
        self.precision.kind(self.device())
    }

    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// Mutable access, for optimisers and loading. Do not add variables.
    pub fn var_store_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vs
    }

    /// Total number of scalar weights (trainable and batch-norm statistics).
    pub fn num_parameters(&self) -> i64 {
        self.vs.variables().values().map(Tensor::numel).map(|n| n as i64).sum()
    }

    /// Casts every weight (batch-norm statistics included) to `precision`, resolved
    /// for the current device (`Auto` means bf16 on CUDA, fp32 on CPU).
    pub fn set_precision(&mut self, precision: Precision) {
        let precision = precision.resolve(self.device());
        match precision {
            Precision::Bf16 => self.vs.bfloat16(),
            _ => self.vs.float(),
        }
        self.precision = precision;
    }

    /// Moves every weight to `device`, keeping the precision.
    pub fn set_device(&mut self, device: Device) {
        self.vs.set_device(device);
    }

    /// Checks that `xs` is `[N, input_planes, 8, 8]` (N may be 0).
    fn check_input(&self, xs: &Tensor) -> Result<(), NetError> {
        let size = xs.size();
        let ok =
            size.len() == 4 && size[1] == self.config.input_planes && size[2] == BOARD_SIZE && size[3] == BOARD_SIZE;
        if ok {
            Ok(())
        } else {
            Err(NetError::InputShape { planes: self.config.input_planes, found: size })
        }
    }

    /// Forward pass. `train` selects batch statistics (and updates the running ones)
    /// rather than the running statistics. The input is moved to the network's device
    /// and kind when needed. Outputs are in the network's precision, with autograd
    /// history unless called under `tch::no_grad`.
    pub fn forward_t(&self, xs: &Tensor, train: bool) -> Result<NetOutput, NetError> {
        self.check_input(xs)?;
        let xs = xs.to_device(self.device()).to_kind(self.kind());
        let mut h = self.stem.forward_t(&xs, train).relu();
        for block in &self.tower {
            h = block.forward_t(&h, train);
        }
        Ok(NetOutput {
            policy: self.policy.forward_t(&h, train),
            wdl: self.value.forward_t(&h, train),
            moves_left: self.moves_left.as_ref().map(|m| m.forward_t(&h, train)),
            material: self.material.as_ref().map(|m| m.forward_t(&h, train).squeeze_dim(1)),
        })
    }

    /// Inference: evaluation mode, no autograd, outputs as fp32 on the network's device
    /// whatever the weights' precision (so callers never see bf16).
    pub fn infer(&self, xs: &Tensor) -> Result<NetOutput, NetError> {
        let out = tch::no_grad(|| self.forward_t(xs, false))?;
        Ok(NetOutput {
            policy: out.policy.to_kind(Kind::Float),
            wdl: out.wdl.to_kind(Kind::Float),
            moves_left: out.moves_left.map(|m| m.to_kind(Kind::Float)),
            material: out.material.map(|m| m.to_kind(Kind::Float)),
        })
    }

    /// Inference returning the single `[N, output_width]` row layout of the exported
    /// TorchScript module: policy logits, WDL logits, then moves-left and material if
    /// present.
    pub fn infer_concat(&self, xs: &Tensor) -> Result<Tensor, NetError> {
        Ok(self.infer(xs)?.concat())
    }
}

impl NetOutput {
    /// Concatenates the heads along dim 1 (the exported layout).
    pub fn concat(&self) -> Tensor {
        let mut parts = vec![self.policy.shallow_clone(), self.wdl.shallow_clone()];
        for m in [&self.moves_left, &self.material].into_iter().flatten() {
            parts.push(m.unsqueeze(1));
        }
        Tensor::cat(&parts, 1)
    }
}

/// Initial batch-norm scale.
#[derive(Clone, Copy)]
enum BnInit {
    One,
    /// Zero scale on the last BN of a residual block makes each block start as the
    /// identity, which speeds up early training of deeper towers (Goyal et al. 2017).
    Zero,
}

/// Convolution without bias (the batch norm has one) followed by batch norm.
#[derive(Debug)]
struct ConvBn {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
}

impl ConvBn {
    fn new(p: &nn::Path, c_in: i64, c_out: i64, k: i64, bn_init: BnInit) -> ConvBn {
        let conv_cfg = nn::ConvConfig { padding: k / 2, bias: false, ..Default::default() };
        let bn_cfg = nn::BatchNormConfig {
            ws_init: nn::Init::Const(match bn_init {
                BnInit::One => 1.0,
                BnInit::Zero => 0.0,
            }),
            ..Default::default()
        };
        ConvBn { conv: nn::conv2d(p / "conv", c_in, c_out, k, conv_cfg), bn: nn::batch_norm2d(p / "bn", c_out, bn_cfg) }
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        self.bn.forward_t(&xs.apply(&self.conv), train)
    }
}

/// Squeeze-excitation: global average pool, bottleneck MLP, then a per-channel
/// sigmoid scale and bias (the Leela Chess Zero variant), giving the local 3x3 tower
/// a cheap global view of the board.
#[derive(Debug)]
struct SqueezeExcitation {
    fc1: nn::Linear,
    fc2: nn::Linear,
}

impl SqueezeExcitation {
    fn new(p: &nn::Path, channels: i64, ratio: i64) -> Self {
        let hidden = channels / ratio;
        SqueezeExcitation {
            fc1: nn::linear(p / "fc1", channels, hidden, Default::default()),
            fc2: nn::linear(p / "fc2", hidden, 2 * channels, Default::default()),
        }
    }

    fn forward(&self, xs: &Tensor) -> Tensor {
        let pooled = xs.mean_dim(&[2i64, 3][..], false, None::<Kind>);
        let g = pooled.apply(&self.fc1).relu().apply(&self.fc2);
        let wb = g.chunk(2, 1);
        let scale = wb[0].sigmoid().unsqueeze(-1).unsqueeze(-1);
        let bias = wb[1].unsqueeze(-1).unsqueeze(-1);
        xs * scale + bias
    }
}

#[derive(Debug)]
struct ResBlock {
    a: ConvBn,
    b: ConvBn,
    se: Option<SqueezeExcitation>,
}

impl ResBlock {
    fn new(p: &nn::Path, cfg: &NetConfig) -> Self {
        let c = cfg.channels;
        ResBlock {
            a: ConvBn::new(&(p / "a"), c, c, 3, BnInit::One),
            b: ConvBn::new(&(p / "b"), c, c, 3, BnInit::Zero),
            se: cfg.squeeze_excitation.map(|se| SqueezeExcitation::new(&(p / "se"), c, se.ratio)),
        }
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let mut h = self.b.forward_t(&self.a.forward_t(xs, train).relu(), train);
        if let Some(se) = &self.se {
            h = se.forward(&h);
        }
        (h + xs).relu()
    }
}

#[derive(Debug)]
struct PolicyHead {
    conv: ConvBn,
    fc: nn::Linear,
}

impl PolicyHead {
    fn new(p: &nn::Path, cfg: &NetConfig) -> Self {
        let pc = cfg.policy_channels;
        PolicyHead {
            conv: ConvBn::new(p, cfg.channels, pc, 1, BnInit::One),
            fc: nn::linear(p / "fc", pc * SQUARES, cfg.policy_size, zero_init()),
        }
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        self.conv.forward_t(xs, train).relu().flatten(1, -1).apply(&self.fc)
    }
}

/// A linear output layer that starts at zero, so that a fresh network has a uniform
/// policy, an even W/D/L and the same moves-left guess everywhere (softplus(0), about
/// 0.69). Generation 0 is
/// then plain search with uniform priors, a fair first opponent for the promotion test, instead of
/// a random network whose arbitrary preferences (an early queen sortie, say) happen to
/// win or lose games; the hidden layers keep their random initialisation, so gradients
/// still flow.
fn zero_init() -> nn::LinearConfig {
    nn::LinearConfig { ws_init: nn::Init::Const(0.0), bs_init: Some(nn::Init::Const(0.0)), bias: true }
}

/// 1x1 conv, flatten (or pool), two-layer MLP: shared shape of the value and
/// moves-left heads.
#[derive(Debug)]
struct MlpHead {
    conv: ConvBn,
    pool: bool,
    fc1: nn::Linear,
    fc2: nn::Linear,
}

impl MlpHead {
    fn new(p: &nn::Path, c_in: i64, channels: i64, hidden: i64, out: i64, pool: bool) -> Self {
        // Pooling yields the mean and the max of each channel.
        let features = if pool { 2 * channels } else { channels * SQUARES };
        MlpHead {
            conv: ConvBn::new(p, c_in, channels, 1, BnInit::One),
            pool,
            fc1: nn::linear(p / "fc1", features, hidden, Default::default()),
            fc2: nn::linear(p / "fc2", hidden, out, zero_init()),
        }
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let h = self.conv.forward_t(xs, train).relu();
        let features = if self.pool {
            let flat = h.flatten(2, -1);
            let (max, _) = flat.max_dim(2, false);
            Tensor::cat(&[flat.mean_dim(&[2i64][..], false, None), max], 1)
        } else {
            h.flatten(1, -1)
        };
        features.apply(&self.fc1).relu().apply(&self.fc2)
    }
}

#[derive(Debug)]
struct ValueHead(MlpHead);

impl ValueHead {
    fn new(p: &nn::Path, cfg: &NetConfig) -> Self {
        ValueHead(MlpHead::new(p, cfg.channels, cfg.value_channels, cfg.value_hidden, WDL, cfg.value_pooling))
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        self.0.forward_t(xs, train)
    }
}

/// Predicts the number of remaining plies. Softplus rather than ReLU keeps the output
/// non-negative without a dead zone where the gradient vanishes.
#[derive(Debug)]
struct MovesLeftHead(MlpHead);

impl MovesLeftHead {
    fn new(p: &nn::Path, c_in: i64, channels: i64, hidden: i64) -> Self {
        MovesLeftHead(MlpHead::new(p, c_in, channels, hidden, 1, false))
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        self.0.forward_t(xs, train).softplus().squeeze_dim(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{randomize, tiny_config};

    #[test]
    fn net_is_send() {
        fn send<T: Send>() {}
        send::<Net>();
    }

    #[test]
    fn forward_shapes() {
        for (se, ml) in [(true, true), (false, false), (true, false)] {
            let cfg = tiny_config(se, ml);
            let net = Net::new(cfg.clone(), Device::Cpu).unwrap();
            let xs = Tensor::randn([4, 5, 8, 8], (Kind::Float, Device::Cpu));
            for train in [false, true] {
                let out = net.forward_t(&xs, train).unwrap();
                assert_eq!(out.policy.size(), [4, 37]);
                assert_eq!(out.wdl.size(), [4, 3]);
                assert_eq!(out.moves_left.as_ref().map(Tensor::size), ml.then(|| vec![4]));
                assert_eq!(out.concat().size(), [4, cfg.output_width()]);
            }
        }
    }

    #[test]
    fn pooled_value_head() {
        let mut cfg = tiny_config(false, true);
        cfg.value_pooling = true;
        let mut net = Net::new(cfg, Device::Cpu).unwrap();
        // Mean and max of each of the 2 value channels feed the MLP.
        assert_eq!(net.var_store().variables()["value.fc1.weight"].size(), [16, 4]);
        randomize(&mut net, 7);
        // A fixed input, not the global generator's (other tests draw from it at the same
        // time, and an unlucky draw can leave every pooled feature at zero).
        let xs = Tensor::arange(4 * 5 * 64, (Kind::Float, Device::Cpu)).sin().reshape([4, 5, 8, 8]);
        let out = net.forward_t(&xs, false).unwrap();
        assert_eq!(out.wdl.size(), [4, 3]);
        // The pooled features still carry the input.
        let other = net.forward_t(&(xs.shallow_clone() * 2.0), false).unwrap();
        assert!(!out.wdl.allclose(&other.wdl, 1e-6, 1e-6, false));
    }

    #[test]
    fn material_head_shapes_and_export_layout() {
        let mut cfg = tiny_config(false, true);
        cfg.material = Some(crate::MaterialHeadConfig { channels: 2, hidden: 8, horizon: 8, value_mix: 0.5 });
        let mut net = Net::new(cfg.clone(), Device::Cpu).unwrap();
        let xs = Tensor::randn([4, 5, 8, 8], (Kind::Float, Device::Cpu));
        let out = net.forward_t(&xs, false).unwrap();
        // Zero-initialised output layer: a fresh head predicts an even balance.
        assert_eq!(out.material.as_ref().unwrap().size(), [4]);
        assert_eq!(out.material.as_ref().unwrap().abs().max().double_value(&[]), 0.0);
        randomize(&mut net, 9);
        let out = net.infer(&xs).unwrap();
        let row = out.concat();
        assert_eq!(row.size(), [4, cfg.output_width()]);
        let last = row.select(1, cfg.output_width() - 1);
        assert!(last.allclose(out.material.as_ref().unwrap(), 1e-6, 1e-6, false));
    }

    #[test]
    fn moves_left_non_negative() {
        let mut net = Net::new(tiny_config(true, true), Device::Cpu).unwrap();
        randomize(&mut net, 3);
        let xs = Tensor::randn([64, 5, 8, 8], (Kind::Float, Device::Cpu)) * 10.0;
        let ml = net.infer(&xs).unwrap().moves_left.unwrap();
        assert!(ml.min().double_value(&[]) >= 0.0);
    }

    #[test]
    fn bad_input_shape_is_an_error() {
        let net = Net::new(tiny_config(false, false), Device::Cpu).unwrap();
        let xs = Tensor::zeros([2, 6, 8, 8], (Kind::Float, Device::Cpu));
        assert!(matches!(net.forward_t(&xs, false), Err(NetError::InputShape { planes: 5, .. })));
        assert!(net.infer(&Tensor::zeros([5, 8, 8], (Kind::Float, Device::Cpu))).is_err());
    }

    #[test]
    fn invalid_config_is_an_error() {
        let mut cfg = tiny_config(false, false);
        cfg.channels = 0;
        assert!(matches!(Net::new(cfg, Device::Cpu), Err(NetError::Config(_))));
    }

    #[test]
    fn bf16_inference_close_to_f32() {
        let mut net = Net::new(tiny_config(true, true), Device::Cpu).unwrap();
        randomize(&mut net, 5);
        let bf = net.try_clone_to(Device::Cpu, Precision::Bf16).unwrap();
        assert_eq!(bf.kind(), Kind::BFloat16);
        let xs = Tensor::randn([3, 5, 8, 8], (Kind::Float, Device::Cpu));
        let a = net.infer_concat(&xs).unwrap();
        let b = bf.infer_concat(&xs).unwrap();
        assert_eq!(b.kind(), Kind::Float);
        let scale = a.abs().max().double_value(&[]).max(1.0);
        let diff = (a - b).abs().max().double_value(&[]);
        assert!(diff < 0.1 * scale, "bf16 drifted: {diff} (scale {scale})");
    }

    #[test]
    fn training_mode_updates_running_stats() {
        let net = Net::new(tiny_config(false, false), Device::Cpu).unwrap();
        let before = net.var_store().variables()["stem.bn.running_mean"].copy();
        let xs = Tensor::randn([8, 5, 8, 8], (Kind::Float, Device::Cpu)) + 1.0;
        let _ = net.forward_t(&xs, true).unwrap();
        let after = &net.var_store().variables()["stem.bn.running_mean"];
        assert!(!before.equal(after));
    }
}
