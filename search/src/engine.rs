//! One engine for either play mode, so that every program that plays (the UCI engine,
//! match players) holds one type and lets a setting choose the search.

use crate::alphabeta::{AbConfig, AlphaBeta};
use crate::config::SearchConfig;
use crate::evaluator::Evaluator;
use crate::searcher::{Limits, PositionSearch, SearchControl, SearchInfo, SearchResult, Searcher};
use schess::{Game, Move};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How a player searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlayMode {
    /// Monte Carlo tree search ([`Searcher`]), as in self-play.
    Mcts,
    /// Alpha-beta with quiescence ([`AlphaBeta`]): szero's play mode, since MCTS over a
    /// young network leaves pieces to tactics a shallow search sees (BENCHMARKS.md).
    #[default]
    Alphabeta,
}

impl PlayMode {
    /// Its name in player specs and UCI options.
    pub fn name(self) -> &'static str {
        match self {
            PlayMode::Mcts => "mcts",
            PlayMode::Alphabeta => "alphabeta",
        }
    }
}

impl std::str::FromStr for PlayMode {
    type Err = String;

    fn from_str(s: &str) -> Result<PlayMode, String> {
        match s.to_ascii_lowercase().as_str() {
            "mcts" => Ok(PlayMode::Mcts),
            "alphabeta" | "ab" => Ok(PlayMode::Alphabeta),
            _ => Err(format!("unknown play mode '{s}' (expected mcts or alphabeta)")),
        }
    }
}

/// A search of either mode, with what it keeps between the moves of a game.
pub enum Engine {
    Mcts(Box<Searcher>),
    Alphabeta(AlphaBeta),
}

impl Engine {
    /// An engine of `mode`; `cfg`, `reuse` and `seed` are MCTS's, `ab` alpha-beta's.
    pub fn new(
        mode: PlayMode,
        evaluator: Arc<dyn Evaluator>,
        cfg: SearchConfig,
        ab: AbConfig,
        reuse: bool,
        seed: u64,
    ) -> Engine {
        match mode {
            PlayMode::Mcts => Engine::Mcts(Box::new(Searcher::new(evaluator, cfg, reuse, seed))),
            PlayMode::Alphabeta => Engine::Alphabeta(AlphaBeta::new(evaluator, ab)),
        }
    }

    pub fn mode(&self) -> PlayMode {
        match self {
            Engine::Mcts(_) => PlayMode::Mcts,
            Engine::Alphabeta(_) => PlayMode::Alphabeta,
        }
    }

    pub fn evaluator(&self) -> &Arc<dyn Evaluator> {
        match self {
            Engine::Mcts(s) => s.evaluator(),
            Engine::Alphabeta(a) => a.evaluator(),
        }
    }

    /// Replaces the evaluator (a new network); what was kept is dropped.
    pub fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) {
        match self {
            Engine::Mcts(s) => s.set_evaluator(evaluator),
            Engine::Alphabeta(a) => a.set_evaluator(evaluator),
        }
    }

    /// Forgets what was kept (new game).
    pub fn clear(&mut self) {
        match self {
            Engine::Mcts(s) => s.clear(),
            Engine::Alphabeta(a) => a.clear(),
        }
    }
}

impl PositionSearch for Engine {
    fn search_among(
        &mut self,
        game: &Game,
        root_moves: Option<&[Move]>,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> anyhow::Result<SearchResult> {
        match self {
            Engine::Mcts(s) => s.search_among(game, root_moves, limits, control, on_info),
            Engine::Alphabeta(a) => a.search_among(game, root_moves, limits, control, on_info),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::MaterialEvaluator;

    #[test]
    fn play_modes_parse_and_print() {
        for mode in [PlayMode::Mcts, PlayMode::Alphabeta] {
            assert_eq!(mode.name().parse::<PlayMode>(), Ok(mode));
        }
        assert_eq!("AB".parse::<PlayMode>(), Ok(PlayMode::Alphabeta));
        assert!("minimax".parse::<PlayMode>().unwrap_err().contains("mcts or alphabeta"));
    }

    #[test]
    fn either_engine_plays_a_legal_move() {
        let game = Game::new(schess::Position::startpos());
        for mode in [PlayMode::Mcts, PlayMode::Alphabeta] {
            let mut e =
                Engine::new(mode, Arc::new(MaterialEvaluator), SearchConfig::default(), AbConfig::default(), true, 1);
            assert_eq!(e.mode(), mode);
            let r = e
                .search(
                    &game,
                    &Limits { depth: Some(2), nodes: Some(64), ..Limits::default() },
                    &SearchControl::default(),
                    &mut |_| {},
                )
                .unwrap();
            assert!(game.position().is_legal(r.best.unwrap()));
            e.clear();
        }
    }
}
