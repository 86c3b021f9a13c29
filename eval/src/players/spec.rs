//! Player specs: `kind[:key=value,...]` strings (and their serde form) describing a
//! player, parsed and printed back (see the table in [`crate::players`]).

use super::restrict::{GatingRule, KEYS as GATING_KEYS};
use models::{DeviceChoice, Precision};
use search::{AbConfig, Limits, PlayMode, SearchConfig};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Settings of a player that searches with szero's search (MCTS or alpha-beta) over a
/// network or a builtin evaluator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsSpec {
    /// Network file; without one the search uses `builtin`.
    pub model: Option<PathBuf>,
    /// The evaluator of a search without a network.
    pub builtin: BuiltinEvaluator,
    /// Which search plays.
    pub mode: PlayMode,
    /// Playouts per move (MCTS) or nodes per move (alpha-beta), unless `movetime` or
    /// `depth` is given.
    pub nodes: u64,
    /// Thinking time per move in milliseconds (instead of `nodes`).
    pub movetime: Option<u64>,
    /// Search depth per move in plies (alpha-beta; MCTS: length of the principal
    /// variation), instead of `nodes`.
    pub depth: Option<u32>,
    /// Keep the subtree of the moves played between searches.
    pub reuse: bool,
    pub device: DeviceChoice,
    pub precision: Precision,
    /// Evaluation cache entries (per generation; see `CachedEvaluator`).
    pub cache: usize,
    /// Share of the network's material head in its value, instead of the network's own
    /// setting (`mix` in spec strings).
    pub material_mix: Option<f32>,
    pub search: SearchConfig,
    /// Alpha-beta settings (`leaf`, `policy_plies`, `root_value` in spec strings).
    pub alphabeta: AbConfig,
    /// A learned evaluation file for alpha-beta's leaves (`eval` in spec strings; it
    /// implies `leaf=learned`).
    pub eval_file: Option<PathBuf>,
    /// Display name (default: derived from the model file and node count).
    pub name: Option<String>,
}

/// Evaluators that need no network: reference points for the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinEvaluator {
    /// Equal priors, even values: search guided by the rules alone (`mcts`).
    #[default]
    Uniform,
    /// Equal priors, squashed live material as the value (`mcts-material`).
    Material,
}

impl Default for MctsSpec {
    fn default() -> Self {
        MctsSpec {
            model: None,
            builtin: BuiltinEvaluator::Uniform,
            mode: PlayMode::Mcts,
            nodes: 200,
            movetime: None,
            depth: None,
            reuse: true,
            device: DeviceChoice::Auto,
            precision: Precision::Auto,
            cache: 200_000,
            material_mix: None,
            search: SearchConfig::default(),
            alphabeta: AbConfig::default(),
            eval_file: None,
            name: None,
        }
    }
}

/// How long an external engine may think per move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineLimit {
    Depth(u32),
    Nodes(u64),
    /// Milliseconds.
    Movetime(u64),
}

/// External UCI engine settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// Program to run (looked up in PATH; `/usr/games` is searched as well).
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// `setoption` pairs sent after the handshake, in order.
    #[serde(default)]
    pub options: Vec<(String, String)>,
    pub limit: EngineLimit,
    /// Milliseconds allowed beyond `movetime` (or per move for depth/node limits) before
    /// the engine loses on time.
    #[serde(default = "default_engine_timeout_ms")]
    pub timeout_ms: u64,
    /// Milliseconds allowed for start-up (`uci` to `uciok`) and each `isready`: engines
    /// may load large networks then.
    #[serde(default = "default_engine_init_ms")]
    pub init_timeout_ms: u64,
    #[serde(default)]
    pub name: Option<String>,
}

fn default_engine_timeout_ms() -> u64 {
    10_000
}

fn default_engine_init_ms() -> u64 {
    30_000
}

/// A player description: what [`crate::players::factory::PlayerFactory::new`] turns into players.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlayerSpec {
    Random {
        name: Option<String>,
    },
    Greedy {
        name: Option<String>,
    },
    Mcts(MctsSpec),
    Uci(EngineSpec),
    /// Another player barred from some gating choices (see [`GatingRule`]).
    Restricted {
        player: Box<PlayerSpec>,
        gating: GatingRule,
    },
}

/// Why a spec string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown player kind `{0}` (expected random, greedy, mcts, mcts-material, net, ab, ab-material or uci)")]
    UnknownKind(String),
    #[error("`{0}` is not key=value")]
    NotKeyValue(String),
    #[error("player `{kind}` has no setting `{key}`")]
    UnknownKey { kind: String, key: String },
    #[error("bad value `{value}` for `{key}`: {reason}")]
    BadValue { key: String, value: String, reason: String },
    #[error("{0}")]
    Missing(String),
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        let s = s.trim();
        let (kind, rest) = s.split_once(':').unwrap_or((s, ""));
        let kind = kind.trim().to_ascii_lowercase();
        let mut pairs = Vec::new();
        for item in rest.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| SpecError::NotKeyValue(item.to_string()))?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
        let (rule_pairs, pairs): (Vec<_>, Vec<_>) =
            pairs.into_iter().partition(|(k, _)| GATING_KEYS.contains(&k.as_str()));
        let player = parse_kind(kind, pairs)?;
        let mut gating = GatingRule::default();
        for (k, v) in rule_pairs {
            gating.set(&k, &v).expect("a gating key")?;
        }
        if gating.is_empty() {
            return Ok(player);
        }
        Ok(PlayerSpec::Restricted { player: Box::new(player), gating })
    }
}

/// A player of `kind` with its own settings (gating restrictions already taken out).
fn parse_kind(kind: String, pairs: Vec<(String, String)>) -> Result<PlayerSpec, SpecError> {
    let unknown = |key: &str| SpecError::UnknownKey { kind: kind.clone(), key: key.to_string() };
    match kind.as_str() {
        "random" | "greedy" => {
            let mut name = None;
            for (k, v) in pairs {
                match k.as_str() {
                    "name" => name = Some(v),
                    _ => return Err(unknown(&k)),
                }
            }
            Ok(if kind == "random" { PlayerSpec::Random { name } } else { PlayerSpec::Greedy { name } })
        }
        "mcts" | "net" | "mcts-material" | "ab" | "ab-material" => {
            let mut m = MctsSpec::default();
            if kind.ends_with("-material") {
                m.builtin = BuiltinEvaluator::Material;
            }
            if kind.starts_with("ab") {
                m.mode = PlayMode::Alphabeta;
            }
            m.alphabeta = alphabeta_base(kind.ends_with("-material"));
            let mut nodes_given = false;
            let mut leaf_given = false;
            for (k, v) in pairs {
                match k.as_str() {
                    "model" => m.model = Some(PathBuf::from(v)),
                    "nodes" | "sims" => {
                        m.nodes = parse_value(&k, &v)?;
                        nodes_given = true;
                    }
                    "movetime" => m.movetime = Some(parse_value(&k, &v)?),
                    "depth" => m.depth = Some(parse_value(&k, &v)?),
                    "mode" => m.mode = v.parse().map_err(|e: String| bad(&k, &v, &e))?,
                    "leaf" => {
                        m.alphabeta.leaf = v.parse().map_err(|e: String| bad(&k, &v, &e))?;
                        leaf_given = true;
                    }
                    "eval" => m.eval_file = Some(PathBuf::from(v)),
                    "policy_plies" => m.alphabeta.policy_plies = parse_value(&k, &v)?,
                    "root_value" => m.alphabeta.root_value = parse_value(&k, &v)?,
                    "reuse" => m.reuse = parse_value(&k, &v)?,
                    "device" => m.device = parse_value(&k, &v)?,
                    "precision" => m.precision = parse_value(&k, &v)?,
                    "cache" => m.cache = parse_value(&k, &v)?,
                    "mix" => {
                        let mix: f32 = parse_value(&k, &v)?;
                        if !(0.0..=1.0).contains(&mix) {
                            return Err(bad(&k, &v, "must be in [0, 1]"));
                        }
                        m.material_mix = Some(mix);
                    }
                    "cpuct" => m.search.c_puct = parse_value(&k, &v)?,
                    "solver" => m.search.solver = parse_value(&k, &v)?,
                    "resolve" => m.search.resolve_captures = parse_value(&k, &v)?,
                    "minibatch" => {
                        m.search.minibatch = parse_value(&k, &v)?;
                        if !(1..=search::config::MAX_MINIBATCH).contains(&m.search.minibatch) {
                            return Err(bad(&k, &v, &format!("must be 1 to {}", search::config::MAX_MINIBATCH)));
                        }
                    }
                    "fpu" => m.search.fpu_reduction = parse_value(&k, &v)?,
                    "root" => m.search.root_mode = v.parse().map_err(|_| bad(&k, &v, "expected puct or gumbel"))?,
                    "name" => m.name = Some(v),
                    _ => return Err(unknown(&k)),
                }
            }
            if m.eval_file.is_some() && !leaf_given {
                m.alphabeta.leaf = search::LeafEval::Learned;
            }
            if m.alphabeta.leaf == search::LeafEval::Learned && m.eval_file.is_none() {
                return Err(SpecError::Missing("leaf=learned needs eval=FILE".into()));
            }
            if kind == "net" && m.model.is_none() {
                return Err(SpecError::Missing("`net` needs model=FILE".into()));
            }
            if kind.ends_with("-material") && m.model.is_some() {
                return Err(bad("model", "", &format!("{kind} searches without a network")));
            }
            if m.nodes == 0 {
                return Err(bad("nodes", "0", "must be at least 1"));
            }
            if m.movetime == Some(0) || m.depth == Some(0) {
                return Err(bad(if m.depth == Some(0) { "depth" } else { "movetime" }, "0", "must be at least 1"));
            }
            if m.mode == PlayMode::Alphabeta && !nodes_given && m.movetime.is_none() && m.depth.is_none() {
                return Err(SpecError::Missing(format!("`{kind}` needs movetime=, depth= or nodes=")));
            }
            Ok(PlayerSpec::Mcts(m))
        }
        "uci" | "engine" => {
            let (mut command, mut args, mut options) = (None, Vec::new(), Vec::new());
            let (mut limit, mut timeout_ms, mut name) = (None, default_engine_timeout_ms(), None);
            let mut init_timeout_ms = default_engine_init_ms();
            for (k, v) in pairs {
                match k.as_str() {
                    "cmd" | "command" => command = Some(v),
                    "arg" => args.push(v),
                    "depth" => limit = Some(EngineLimit::Depth(parse_value(&k, &v)?)),
                    "nodes" => limit = Some(EngineLimit::Nodes(parse_value(&k, &v)?)),
                    "movetime" => limit = Some(EngineLimit::Movetime(parse_value(&k, &v)?)),
                    "timeout" => timeout_ms = parse_value(&k, &v)?,
                    "init" => init_timeout_ms = parse_value(&k, &v)?,
                    "name" => name = Some(v),
                    _ => match k.strip_prefix("option.") {
                        Some(opt) if !opt.is_empty() => options.push((opt.to_string(), v)),
                        _ => return Err(unknown(&k)),
                    },
                }
            }
            let command = command.ok_or_else(|| SpecError::Missing("`uci` needs cmd=PROGRAM".into()))?;
            let limit = limit.ok_or_else(|| SpecError::Missing("`uci` needs depth=, nodes= or movetime=".into()))?;
            Ok(PlayerSpec::Uci(EngineSpec { command, args, options, limit, timeout_ms, init_timeout_ms, name }))
        }
        _ => Err(SpecError::UnknownKind(kind)),
    }
}

/// Alpha-beta settings a spec starts from: szero's play mode over a network, or for the
/// `-material` kinds (no network) the control (material scores every leaf, nothing is added at the
/// root), so that `ab-material:` stays the control whatever the network default becomes.
fn alphabeta_base(material: bool) -> AbConfig {
    if material {
        AbConfig::control()
    } else {
        AbConfig::default()
    }
}

fn bad(key: &str, value: &str, reason: &str) -> SpecError {
    SpecError::BadValue { key: key.into(), value: value.into(), reason: reason.into() }
}

fn parse_value<T: FromStr>(key: &str, value: &str) -> Result<T, SpecError>
where
    T::Err: fmt::Display,
{
    value.parse().map_err(|e: T::Err| bad(key, value, &e.to_string()))
}

impl fmt::Display for PlayerSpec {
    /// The spec string form (reads back with `parse`, except MCTS search fields other than
    /// `cpuct`, `fpu`, `root`, `solver`, `resolve` and `minibatch`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |f: &mut fmt::Formatter<'_>, n: &Option<String>, first: bool| match n {
            Some(n) => write!(f, "{}name={n}", if first { ":" } else { "," }),
            None => Ok(()),
        };
        match self {
            PlayerSpec::Random { name: n } => {
                f.write_str("random")?;
                name(f, n, true)
            }
            PlayerSpec::Greedy { name: n } => {
                f.write_str("greedy")?;
                name(f, n, true)
            }
            PlayerSpec::Mcts(m) => {
                let material = m.builtin == BuiltinEvaluator::Material && m.model.is_none();
                match (m.mode, material) {
                    (PlayMode::Mcts, true) => write!(f, "mcts-material:nodes={}", m.nodes)?,
                    (PlayMode::Mcts, false) => write!(f, "mcts:nodes={}", m.nodes)?,
                    (PlayMode::Alphabeta, true) => write!(f, "ab-material:nodes={}", m.nodes)?,
                    (PlayMode::Alphabeta, false) => write!(f, "ab:nodes={}", m.nodes)?,
                }
                if let Some(t) = m.movetime {
                    write!(f, ",movetime={t}")?;
                }
                if let Some(d) = m.depth {
                    write!(f, ",depth={d}")?;
                }
                let ab = alphabeta_base(material);
                if let Some(p) = &m.eval_file {
                    write!(f, ",eval={}", p.display())?;
                }
                let implied = m.eval_file.is_some() && m.alphabeta.leaf == search::LeafEval::Learned;
                if m.alphabeta.leaf != ab.leaf && !implied {
                    write!(f, ",leaf={}", m.alphabeta.leaf.name())?;
                }
                if m.alphabeta.policy_plies != ab.policy_plies {
                    write!(f, ",policy_plies={}", m.alphabeta.policy_plies)?;
                }
                if m.alphabeta.root_value != ab.root_value {
                    write!(f, ",root_value={}", m.alphabeta.root_value)?;
                }
                if let Some(p) = &m.model {
                    write!(f, ",model={}", p.display())?;
                }
                if !m.reuse {
                    f.write_str(",reuse=false")?;
                }
                if !m.search.solver {
                    f.write_str(",solver=false")?;
                }
                if m.search.resolve_captures {
                    f.write_str(",resolve=true")?;
                }
                if m.search.minibatch != 1 {
                    write!(f, ",minibatch={}", m.search.minibatch)?;
                }
                if let Some(mix) = m.material_mix {
                    write!(f, ",mix={mix}")?;
                }
                name(f, &m.name, false)
            }
            PlayerSpec::Uci(e) => {
                write!(f, "uci:cmd={}", e.command)?;
                for a in &e.args {
                    write!(f, ",arg={a}")?;
                }
                match e.limit {
                    EngineLimit::Depth(d) => write!(f, ",depth={d}")?,
                    EngineLimit::Nodes(n) => write!(f, ",nodes={n}")?,
                    EngineLimit::Movetime(t) => write!(f, ",movetime={t}")?,
                }
                if e.timeout_ms != default_engine_timeout_ms() {
                    write!(f, ",timeout={}", e.timeout_ms)?;
                }
                if e.init_timeout_ms != default_engine_init_ms() {
                    write!(f, ",init={}", e.init_timeout_ms)?;
                }
                for (k, v) in &e.options {
                    write!(f, ",option.{k}={v}")?;
                }
                name(f, &e.name, false)
            }
            PlayerSpec::Restricted { player, gating } => {
                let inner = player.to_string();
                let keys = gating.to_string();
                if inner.contains(':') {
                    write!(f, "{inner}{keys}")
                } else {
                    write!(f, "{inner}:{}", keys.trim_start_matches(','))
                }
            }
        }
    }
}

impl MctsSpec {
    /// The search limits of one move: `movetime` and `depth` where given, else `nodes`.
    pub fn limits(&self) -> Limits {
        if self.movetime.is_none() && self.depth.is_none() {
            return Limits::nodes(self.nodes);
        }
        Limits { time: self.movetime.map(std::time::Duration::from_millis), depth: self.depth, ..Limits::default() }
    }

    /// The limit in a player's default name: `200` (nodes), `1000ms`, `d3`.
    fn limit_name(&self) -> String {
        match (self.movetime, self.depth) {
            (Some(t), Some(d)) => format!("{t}ms-d{d}"),
            (Some(t), None) => format!("{t}ms"),
            (None, Some(d)) => format!("d{d}"),
            (None, None) => self.nodes.to_string(),
        }
    }
}

impl PlayerSpec {
    /// The network file the player searches with, if it uses one.
    pub fn model(&self) -> Option<&std::path::Path> {
        match self {
            PlayerSpec::Mcts(m) => m.model.as_deref(),
            PlayerSpec::Restricted { player, .. } => player.model(),
            _ => None,
        }
    }

    /// The player without its gating restriction, if it has one.
    pub fn unrestricted(&self) -> &PlayerSpec {
        match self {
            PlayerSpec::Restricted { player, .. } => player.unrestricted(),
            other => other,
        }
    }

    /// A readable default name.
    pub fn display_name(&self) -> String {
        match self {
            PlayerSpec::Random { name } => name.clone().unwrap_or_else(|| "random".into()),
            PlayerSpec::Greedy { name } => name.clone().unwrap_or_else(|| "greedy".into()),
            PlayerSpec::Mcts(m) => m.name.clone().unwrap_or_else(|| {
                let builtin = match m.builtin {
                    BuiltinEvaluator::Uniform => "uniform",
                    BuiltinEvaluator::Material => "material",
                };
                let model = m
                    .model
                    .as_ref()
                    .and_then(|p| p.file_stem())
                    .map_or(builtin.into(), |s| s.to_string_lossy().into_owned());
                let mode = match m.mode {
                    PlayMode::Mcts => "mcts",
                    PlayMode::Alphabeta => "ab",
                };
                let model = match m.eval_file.as_ref().and_then(|p| p.file_stem()) {
                    Some(e) => format!("{model}+{}", e.to_string_lossy()),
                    None => model,
                };
                let model = if m.search.resolve_captures && m.mode == PlayMode::Mcts {
                    format!("{model}+resolve")
                } else {
                    model
                };
                format!("{mode}-{model}-{}", m.limit_name())
            }),
            PlayerSpec::Uci(e) => e.name.clone().unwrap_or_else(|| {
                let prog = std::path::Path::new(&e.command)
                    .file_name()
                    .map_or(e.command.clone(), |s| s.to_string_lossy().into_owned());
                match e.limit {
                    EngineLimit::Depth(d) => format!("{prog}-d{d}"),
                    EngineLimit::Nodes(n) => format!("{prog}-n{n}"),
                    EngineLimit::Movetime(t) => format!("{prog}-{t}ms"),
                }
            }),
            PlayerSpec::Restricted { player, gating } => format!("{}-{}", player.display_name(), gating.tag()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use search::RootMode;

    #[test]
    fn parses_spec_strings() {
        assert_eq!("random".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random { name: None });
        assert_eq!("greedy:name=g".parse::<PlayerSpec>().unwrap(), PlayerSpec::Greedy { name: Some("g".into()) });
        let PlayerSpec::Mcts(m) = "mcts:nodes=50,root=gumbel,reuse=false".parse::<PlayerSpec>().unwrap() else {
            panic!()
        };
        assert_eq!((m.nodes, m.reuse, m.search.root_mode, m.model), (50, false, RootMode::Gumbel, None));
        assert!(m.search.solver, "the solver is on by default");
        let off: PlayerSpec = "mcts-material:nodes=50,solver=false".parse().unwrap();
        let PlayerSpec::Mcts(m) = &off else { panic!() };
        assert!(!m.search.solver);
        let resolved: PlayerSpec = "mcts:model=n.safetensors,nodes=400,resolve=true".parse().unwrap();
        let PlayerSpec::Mcts(r) = &resolved else { panic!() };
        assert!(r.search.resolve_captures);
        assert_eq!(resolved.display_name(), "mcts-n+resolve-400");
        assert_eq!(resolved.to_string().parse::<PlayerSpec>().unwrap(), resolved);
        assert!("mcts:nodes=5,resolve=sometimes".parse::<PlayerSpec>().is_err());
        let batched: PlayerSpec = "mcts:movetime=1000,minibatch=16".parse().unwrap();
        let PlayerSpec::Mcts(b) = &batched else { panic!() };
        assert_eq!(b.search.minibatch, 16);
        assert_eq!(batched.to_string().parse::<PlayerSpec>().unwrap(), batched);
        assert!("mcts:nodes=5,minibatch=0".parse::<PlayerSpec>().is_err());
        assert!("mcts:nodes=5,minibatch=100000".parse::<PlayerSpec>().is_err());
        assert_eq!(off.to_string().parse::<PlayerSpec>().unwrap(), off);
        assert!("mcts:nodes=5,solver=maybe".parse::<PlayerSpec>().is_err());
        let PlayerSpec::Mcts(m) = "net:model=a/b.safetensors,sims=8".parse::<PlayerSpec>().unwrap() else { panic!() };
        assert_eq!(m.model.as_deref(), Some(std::path::Path::new("a/b.safetensors")));
        assert_eq!(m.nodes, 8);
        let s: PlayerSpec = "uci:cmd=fairy-stockfish,depth=1,option.Move Overhead=0,arg=x,init=500".parse().unwrap();
        let PlayerSpec::Uci(e) = &s else { panic!() };
        assert_eq!(e.limit, EngineLimit::Depth(1));
        assert_eq!(e.options, vec![("Move Overhead".to_string(), "0".to_string())]);
        assert_eq!(s.display_name(), "fairy-stockfish-d1");
        let mm: PlayerSpec = "mcts-material:nodes=200".parse().unwrap();
        let PlayerSpec::Mcts(m) = &mm else { panic!() };
        assert_eq!((m.builtin, m.nodes, m.model.is_none()), (BuiltinEvaluator::Material, 200, true));
        assert_eq!(mm.display_name(), "mcts-material-200");
        assert_eq!(mm.to_string().parse::<PlayerSpec>().unwrap(), mm);
        assert_eq!(s.to_string().parse::<PlayerSpec>().unwrap(), s);
        let ab: PlayerSpec = "ab:model=n.safetensors,movetime=1000".parse().unwrap();
        let PlayerSpec::Mcts(m) = &ab else { panic!() };
        assert_eq!((m.mode, m.movetime, m.depth), (PlayMode::Alphabeta, Some(1000), None));
        assert_eq!(m.limits().time, Some(std::time::Duration::from_millis(1000)));
        assert_eq!(m.limits().nodes, None);
        assert_eq!(ab.display_name(), "ab-n-1000ms");
        assert_eq!(ab.to_string().parse::<PlayerSpec>().unwrap(), ab);
        assert_eq!(
            (m.alphabeta.leaf, m.alphabeta.root_value),
            (search::LeafEval::Material, search::DEFAULT_ROOT_VALUE)
        );
        let abm: PlayerSpec = "ab-material:depth=3".parse().unwrap();
        let PlayerSpec::Mcts(c) = &abm else { panic!() };
        assert_eq!(c.alphabeta, AbConfig::control());
        assert_eq!(abm.display_name(), "ab-material-d3");
        assert_eq!(abm.to_string().parse::<PlayerSpec>().unwrap(), abm);
        let timed: PlayerSpec = "mcts:model=n.safetensors,movetime=500,mode=mcts".parse().unwrap();
        assert_eq!(timed.display_name(), "mcts-n-500ms");
        assert_eq!(timed.to_string().parse::<PlayerSpec>().unwrap(), timed);
        let hybrid: PlayerSpec =
            "ab:model=n.safetensors,movetime=100,leaf=net+material,policy_plies=2,root_value=0".parse().unwrap();
        let PlayerSpec::Mcts(m) = &hybrid else { panic!() };
        assert_eq!(
            (m.alphabeta.leaf, m.alphabeta.policy_plies, m.alphabeta.root_value),
            (search::LeafEval::EvaluatorPlusMaterial, 2, 0)
        );
        assert_eq!(hybrid.to_string().parse::<PlayerSpec>().unwrap(), hybrid);
        let PlayerSpec::Mcts(m) = "net:model=n.safetensors,mode=alphabeta,nodes=5000".parse().unwrap() else {
            panic!()
        };
        assert_eq!((m.mode, m.limits().nodes), (PlayMode::Alphabeta, Some(5000)));
        let learned: PlayerSpec = "ab-material:movetime=100,eval=fit/gen1.json".parse().unwrap();
        let PlayerSpec::Mcts(m) = &learned else { panic!() };
        assert_eq!(m.alphabeta.leaf, search::LeafEval::Learned);
        assert_eq!(m.alphabeta.root_value, 0);
        assert_eq!(learned.display_name(), "ab-material+gen1-100ms");
        assert_eq!(learned.to_string().parse::<PlayerSpec>().unwrap(), learned);
        let err = "ab-material:movetime=100,leaf=learned".parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(err.contains("eval=FILE"), "{err}");
    }

    #[test]
    fn gating_restrictions_wrap_any_player_that_can_limit_its_moves() {
        let r: PlayerSpec = "uci:cmd=fairy-stockfish,depth=8,nogate=true,gate_files=abcd".parse().unwrap();
        let PlayerSpec::Restricted { player, gating } = &r else { panic!("{r:?}") };
        assert!(matches!(**player, PlayerSpec::Uci(_)));
        assert!(gating.never && gating.files.as_ref().is_some_and(|f| f.len() == 4));
        assert_eq!(r.display_name(), "fairy-stockfish-d8-nogate-files-abcd");
        assert_eq!(r.to_string().parse::<PlayerSpec>().unwrap(), r);
        let g: PlayerSpec = "greedy:gate_first=h".parse().unwrap();
        assert_eq!(g.to_string(), "greedy:gate_first=H");
        assert_eq!(g.to_string().parse::<PlayerSpec>().unwrap(), g);
        assert_eq!(g.unrestricted(), &PlayerSpec::Greedy { name: None });
        let ab: PlayerSpec = "ab:model=n.safetensors,movetime=100,castle_gate=false".parse().unwrap();
        assert_eq!(ab.model(), Some(std::path::Path::new("n.safetensors")));
        // The serde form (ladder and match files) round-trips too.
        let json = serde_json::to_string(&ab).unwrap();
        assert_eq!(serde_json::from_str::<PlayerSpec>(&json).unwrap(), ab);
        // A rule that restricts nothing is no restriction.
        assert_eq!("random:nogate=false".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random { name: None });
        // MCTS limits its root's moves too.
        let m: PlayerSpec = "mcts:nodes=50,gate_from=10".parse().unwrap();
        assert!(matches!(&m, PlayerSpec::Restricted { player, .. } if matches!(**player, PlayerSpec::Mcts(_))));
        assert_eq!(m.to_string().parse::<PlayerSpec>().unwrap(), m);
    }

    #[test]
    fn rejects_bad_specs() {
        for bad in [
            "alphabeta",
            "mcts:nodes=x",
            "mcts:nodes=0",
            "mcts:foo=1",
            "net:nodes=5",
            "uci:depth=1",
            "uci:cmd=x",
            "random:nodes=3",
            "mcts:nodes",
            "mcts-material:model=x.safetensors",
            "ab:model=x.safetensors",
            "ab-material:movetime=0",
            "ab-material:depth=0",
            "ab-material:model=x.safetensors,depth=2",
            "mcts:mode=minimax",
            "ab-material:depth=2,leaf=nnue",
            "greedy:gate_first=Q",
            "uci:cmd=x,depth=1,gate_files=z",
        ] {
            assert!(bad.parse::<PlayerSpec>().is_err(), "{bad} accepted");
        }
    }
}
