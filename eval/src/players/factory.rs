//! Makes players from specs: the one module that names every implementation.

use super::baseline::{GreedyPlayer, RandomPlayer};
use super::engine::UciEnginePlayer;
use super::mcts::SearchPlayer;
use super::restrict::RestrictedPlayer;
use super::spec::{BuiltinEvaluator, PlayerSpec};
use super::{Player, PlayerError};
use models::load_evaluator;
use search::evaluator::{Evaluator, MaterialEvaluator, UniformEvaluator};
use search::{AbConfig, Engine, LearnedEval};
use std::sync::Arc;

/// Makes players from a spec, loading shared resources (a network) once.
pub struct PlayerFactory {
    spec: PlayerSpec,
    name: String,
    evaluator: Option<Arc<dyn Evaluator>>,
    /// The learned leaf evaluation of an alpha-beta spec, read once.
    learned: Option<Arc<LearnedEval>>,
}

impl PlayerFactory {
    /// Loads what the spec needs (a network file is read and checked here, so a bad path
    /// fails before any game starts).
    pub fn new(spec: PlayerSpec) -> anyhow::Result<PlayerFactory> {
        let learned = match spec.unrestricted() {
            PlayerSpec::Mcts(m) => match &m.eval_file {
                Some(path) => Some(Arc::new(LearnedEval::load(path)?)),
                None => None,
            },
            _ => None,
        };
        let evaluator: Option<Arc<dyn Evaluator>> = match spec.unrestricted() {
            PlayerSpec::Mcts(m) => Some(match &m.model {
                Some(path) => load_evaluator(path, m.device, m.precision, m.cache, m.material_mix)?,
                None => match m.builtin {
                    BuiltinEvaluator::Uniform => Arc::new(UniformEvaluator),
                    BuiltinEvaluator::Material => Arc::new(MaterialEvaluator),
                },
            }),
            _ => None,
        };
        Ok(PlayerFactory { name: spec.display_name(), spec, evaluator, learned })
    }

    /// Gives the factory another name (e.g. to tell two equal specs apart in a report).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// This factory, renamed (`NAME-b`) if `other` has its name: two players of one
    /// match must be told apart in its report and PGN.
    pub fn distinct_from(self, other: &PlayerFactory) -> Self {
        if self.name == other.name {
            let name = format!("{}-b", self.name);
            self.with_name(name)
        } else {
            self
        }
    }

    pub fn spec(&self) -> &PlayerSpec {
        &self.spec
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The loaded evaluator of an MCTS spec (shared by all its players).
    pub fn evaluator(&self) -> Option<&Arc<dyn Evaluator>> {
        self.evaluator.as_ref()
    }

    /// A new player. `seed` varies the random choices of baselines; external engines are
    /// started (and their handshake checked) here.
    pub fn make(&self, seed: u64) -> Result<Box<dyn Player>, PlayerError> {
        self.make_spec(&self.spec, seed)
    }

    fn make_spec(&self, spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player>, PlayerError> {
        let name = self.name.clone();
        Ok(match spec {
            PlayerSpec::Random { .. } => Box::new(RandomPlayer::new(name, seed)),
            PlayerSpec::Greedy { .. } => Box::new(GreedyPlayer::new(name, seed)),
            PlayerSpec::Mcts(m) => {
                let ev = self.evaluator.clone().expect("evaluator loaded for MCTS");
                let ab = AbConfig { learned: self.learned.clone(), ..m.alphabeta.clone() };
                let engine = Engine::new(m.mode, ev, m.search.clone(), ab, m.reuse, seed);
                Box::new(SearchPlayer::with_engine(name, engine, m.limits()))
            }
            PlayerSpec::Uci(e) => Box::new(UciEnginePlayer::start(name, e.clone())?),
            PlayerSpec::Restricted { player, gating } => {
                Box::new(RestrictedPlayer::new(self.make_spec(player, seed)?, gating.clone()))
            }
        })
    }
}
