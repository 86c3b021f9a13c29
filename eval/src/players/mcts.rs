//! The player that searches with szero's own search ([`search::Engine`]: MCTS or
//! alpha-beta) under fixed limits per move.

use super::{Player, PlayerError};
use schess::{Game, Move};
use search::{AbConfig, Engine, Evaluator, Limits, PlayMode, PositionSearch, SearchConfig, SearchControl};
use std::sync::Arc;

/// A match player that searches each move under the same limits (nodes, time or depth).
pub struct SearchPlayer {
    name: String,
    engine: Engine,
    limits: Limits,
    last_q: Option<f32>,
    control: SearchControl,
}

impl SearchPlayer {
    /// An MCTS player of `nodes` playouts a move.
    pub fn new(
        name: String,
        evaluator: Arc<dyn Evaluator>,
        cfg: SearchConfig,
        nodes: u64,
        reuse: bool,
        seed: u64,
    ) -> Self {
        let engine = Engine::new(PlayMode::Mcts, evaluator, cfg, AbConfig::default(), reuse, seed);
        SearchPlayer::with_engine(name, engine, Limits::nodes(nodes))
    }

    /// A player of either mode under `limits`.
    pub fn with_engine(name: String, engine: Engine, limits: Limits) -> Self {
        SearchPlayer { name, engine, limits, last_q: None, control: SearchControl::default() }
    }
}

impl Player for SearchPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _variant: schess::Variant) -> Result<(), PlayerError> {
        self.engine.clear();
        self.last_q = None;
        Ok(())
    }

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        self.search(game, None)
    }

    fn choose_among(&mut self, game: &Game, moves: &[Move]) -> Result<Move, PlayerError> {
        self.search(game, Some(moves))
    }

    fn last_score(&self) -> Option<f32> {
        self.last_q
    }
}

impl SearchPlayer {
    fn search(&mut self, game: &Game, moves: Option<&[Move]>) -> Result<Move, PlayerError> {
        let r = self
            .engine
            .search_among(game, moves, &self.limits, &self.control, &mut |_| {})
            .map_err(PlayerError::Internal)?;
        self.last_q = Some(r.info.q);
        r.best.ok_or_else(|| PlayerError::Internal(anyhow::anyhow!("no legal move in {}", game.position().fen())))
    }
}
