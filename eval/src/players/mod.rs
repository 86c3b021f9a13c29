//! Players for matches: the [`Player`] trait and what can go wrong when asking one for a
//! move ([`PlayerError`]) here; [`spec::PlayerSpec`], a small serde/string description from
//! which a [`factory::PlayerFactory`] (the one module that names the implementations) makes
//! one player per worker thread; the implementations: [`baseline`] (random, greedy),
//! [`mcts`] ([`search::Searcher`] with a network or a rules-only evaluator) and [`engine`]
//! (external UCI engines such as Fairy-Stockfish). Implementations import only this module.
//!
//! Spec strings are `kind[:key=value,key=value,...]` (values must not contain commas):
//!
//! | spec | player |
//! |---|---|
//! | `random` | uniformly random legal moves |
//! | `greedy` | one-ply material greed, mate-aware ([`baseline::GreedyPlayer`]) |
//! | `mcts:nodes=200` | MCTS with the uniform evaluator (rules only) |
//! | `mcts-material:nodes=200` | MCTS with uniform priors and a live-material leaf value |
//! | `mcts:model=net.safetensors,nodes=800` | MCTS with a network (`net:` is an alias) |
//! | `ab:model=net.safetensors,movetime=1000` | alpha-beta with quiescence over a network ([`search::AlphaBeta`]) |
//! | `ab-material:movetime=1000` | the same search over live material alone (the control) |
//! | `ab-material:movetime=1000,eval=e.json` | the same search over a learned evaluation (`szero fit-eval`; [`search::learned`]) |
//! | `uci:cmd=fairy-stockfish,depth=1` | an external UCI engine (`engine:` is an alias) |
//!
//! Any player also takes gating restrictions ([`restrict`]): `nogate=true`,
//! `gate_first=E|H`, `castle_gate=false`, `gate_files=abcd`, `gate_from=N`.
//!
//! Search keys (MCTS and alpha-beta): `model`, `mode` (`mcts` or `alphabeta`), `nodes`
//! (alias `sims`), `movetime` (ms per move), `depth` (instead of `nodes`); alpha-beta's
//! `leaf` (`net`, `net+material`, `material` or `learned`: what scores its leaves), `eval`
//! (the learned evaluation's file; implies `leaf=learned`),
//! `policy_plies` (nodes this close to the root are evaluated for move ordering) and
//! `root_value` (centipawns the network's value of each root move is worth, added to its
//! search score); `reuse` (tree reuse, default true), `device`,
//! `precision`, `cache` (evaluation cache entries), `mix` (share of a material head in the
//! value, 0..1), `cpuct`, `fpu`, `root` (`puct` or `gumbel`), `solver` (MCTS-solver,
//! default true), `resolve` (MCTS: add the material a leaf's side to move wins by captures
//! to its value, [`search::exchange::resolve`]; default false), `minibatch` (MCTS under a
//! clock: leaves evaluated together, 1-256, default 1; node-limited match games batch
//! across games instead), `name`. UCI keys: `cmd`, `arg` (repeatable), `depth`, `nodes`, `movetime`
//! (ms), `timeout` (ms allowed beyond `movetime`, or per move for depth/node limits,
//! default 10000), `option.NAME=VALUE` (repeatable; `UCI_Variant` is set from the game
//! unless given),
//! `init` (ms for start-up and `isready`, default 30000), `name`. Baselines take `name`
//! and nothing else.

pub mod baseline;
pub mod engine;
pub mod factory;
pub mod mcts;
pub mod restrict;
pub mod spec;

pub use factory::PlayerFactory;
pub use restrict::GatingRule;
pub use spec::{BuiltinEvaluator, EngineLimit, EngineSpec, MctsSpec, PlayerSpec, SpecError};

use schess::{Game, Move, Variant};
use std::time::Duration;

/// Something that picks moves in a game.
///
/// Implementations are driven by one thread at a time (a match worker) and must be `Send`
/// so that each worker can own its players.
pub trait Player: Send {
    /// Name for PGN tags and reports.
    fn name(&self) -> &str;

    /// Called before every game (clears search trees, sends `ucinewgame`, restarts a crashed
    /// engine).
    fn new_game(&mut self, _variant: Variant) -> Result<(), PlayerError> {
        Ok(())
    }

    /// The move to play in the game's current position, which is not over.
    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError>;

    /// The move to play among `moves`: some of the legal moves of the game's current
    /// position (a restricted player's, see [`restrict::GatingRule`]). An external engine
    /// is asked with `go searchmoves`; a move outside `moves` is its fault, and
    /// [`restrict::RestrictedPlayer`] forfeits it.
    fn choose_among(&mut self, game: &Game, moves: &[Move]) -> Result<Move, PlayerError>;

    /// The player's own assessment after its last move, as an expected score in [-1, 1]
    /// from its point of view, if it has one (used for resign adjudication).
    fn last_score(&self) -> Option<f32> {
        None
    }
}

/// Why a player produced no (legal) move.
///
/// All variants but [`PlayerError::Internal`] are the player's fault and lose it the game
/// (the reason goes into the PGN); `Internal` is ours (e.g. a network failing to run) and
/// stops the match instead, since a forfeit would then measure nothing.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error("illegal move {mv}: {reason}")]
    IllegalMove { mv: String, reason: String },
    #[error("protocol violation: {0}")]
    Protocol(String),
    #[error("engine crashed: {0}")]
    Crashed(String),
    #[error("no `{waiting_for}` within {after:?}")]
    Timeout { waiting_for: String, after: Duration },
    #[error("{0:#}")]
    Internal(anyhow::Error),
}

impl PlayerError {
    /// True when the error loses the game for the player (rather than stopping the match).
    pub fn is_forfeit(&self) -> bool {
        !matches!(self, PlayerError::Internal(_))
    }
}
