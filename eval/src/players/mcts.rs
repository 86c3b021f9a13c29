//! The MCTS match player: [`search::Searcher`] at a fixed number of playouts a move.

use super::{Player, PlayerError};
use schess::{Game, Move};
use search::{Evaluator, Limits, SearchConfig, SearchControl, Searcher};
use std::sync::Arc;

/// A match player that searches a fixed number of playouts per move.
pub struct MctsPlayer {
    name: String,
    searcher: Searcher,
    nodes: u64,
    last_q: Option<f32>,
    control: SearchControl,
}

impl MctsPlayer {
    pub fn new(
        name: String,
        evaluator: Arc<dyn Evaluator>,
        cfg: SearchConfig,
        nodes: u64,
        reuse: bool,
        seed: u64,
    ) -> Self {
        MctsPlayer {
            name,
            searcher: Searcher::new(evaluator, cfg, reuse, seed),
            nodes,
            last_q: None,
            control: SearchControl::default(),
        }
    }
}

impl Player for MctsPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _variant: schess::Variant) -> Result<(), PlayerError> {
        self.searcher.clear();
        self.last_q = None;
        Ok(())
    }

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        let r = self
            .searcher
            .search(game, &Limits::nodes(self.nodes), &self.control, &mut |_| {})
            .map_err(PlayerError::Internal)?;
        self.last_q = Some(r.info.q);
        r.best.ok_or_else(|| PlayerError::Internal(anyhow::anyhow!("no legal move in {}", game.position().fen())))
    }

    fn last_score(&self) -> Option<f32> {
        self.last_q
    }
}
