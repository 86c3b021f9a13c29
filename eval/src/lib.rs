//! Evaluation for szero: how strong is a network, and is it stronger than the last one?
//!
//! - [`player`]: the [`player::Player`] trait and the player specs matches are built from;
//!   [`baseline`] (random, greedy), [`mcts_player`] ([`search::Searcher`] with a network or
//!   a rules-only evaluator) and [`engine_process`] (external UCI engines such as
//!   Fairy-Stockfish).
//! - [`match_runner`]: game pairs from [`openings`] on worker threads, adjudication, PGN,
//!   and [`stats`] (Elo, pentanomial, GSPRT); [`batched`] plays network against network
//!   with many games in flight and one network call per batch of leaves.
//! - [`gate`]: the candidate-versus-best test that decides which network self-play uses,
//!   configured by [`config::GateConfig`].
//! - [`ladder`]: a run's networks against fixed reference players, for its strength curve, timed by
//!   [`clock`] (minutes of running across resumes).
//! - [`uci`]: szero as a UCI engine.

pub mod baseline;
pub mod batched;
pub mod clock;
pub mod config;
pub mod engine_process;
pub mod gate;
pub mod ladder;
pub mod match_runner;
pub mod mcts_player;
pub mod openings;
pub mod player;
pub mod stats;
pub mod uci;

pub use config::{GateConfig, GateMode};
pub use gate::{run_gate, GateDecision, GateError};
pub use match_runner::{run_match, Adjudication, MatchConfig, MatchReport};
pub use player::{Player, PlayerError, PlayerFactory, PlayerSpec};
pub use stats::{EloEstimate, Pentanomial, SprtConfig, Wdl};
