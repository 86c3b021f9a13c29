//! Evaluation for szero: how strong is a network, and is it stronger than the last one?
//!
//! - [`players`]: the [`players::Player`] trait, the player specs matches are built from and
//!   the factory that makes them; the baselines (random, greedy), the MCTS player
//!   ([`search::Searcher`] with a network or a rules-only evaluator) and external UCI engines
//!   such as Fairy-Stockfish.
//! - [`matches`](mod@matches): game pairs from [`matches::openings`] on worker threads,
//!   [`matches::adjudication`], records and PGN ([`matches::record`]), and [`elo`] (Elo,
//!   pentanomial, GSPRT); [`matches::batched`] plays network against network
//!   with many games in flight and one network call per batch of leaves.
//! - [`promotion`]: the candidate-versus-best test that decides which network self-play
//!   uses, configured by [`config::PromotionConfig`] (what a verdict does to a run is the run
//!   store's: `runstore::promotion`).
//! - [`ladder`]: a run's networks against fixed reference players, for its strength curve, timed by
//!   `runstore::clock` (minutes of running across resumes).
//! - [`suite`]: test positions with one right move, and how many a player solves by kind.

pub mod config;
pub mod elo;
pub mod ladder;
pub mod matches;
pub mod players;
pub mod promotion;
pub mod scale;
pub mod suite;

pub use config::{PromotionConfig, PromotionMode};
pub use elo::{EloEstimate, Pentanomial, SprtConfig, Wdl};
pub use matches::{run_match, Adjudication, MatchConfig, MatchReport};
pub use players::{Player, PlayerError, PlayerFactory, PlayerSpec};
pub use promotion::{test_candidate, CandidateTest, TestError, Verdict};
