//! szero's one search, used by every program that searches: self-play, the promotion
//! test and match players, the UCI engine, analysis.
//!
//! - [`evaluator`]: the interface search consults (priors and W/D/L for a batch of
//!   positions), with the rules-only evaluators; networks implement it in `models`.
//! - [`tree`]: the MCTS tree of one game (PUCT or a Gumbel root), driven one leaf at a
//!   time so that many trees can share one evaluator call.
//! - [`searcher`]: one search under playing limits (nodes, time, depth, stop, ponder), with
//!   tree reuse between moves.
//! - [`exchange`]: material arithmetic without a network: static exchange, and the
//!   material a capture sequence wins (what both searches resolve at their leaves).
//! - [`learned`]: a learned evaluation cheap enough for every alpha-beta leaf.
//! - [`alphabeta`]: the other play mode: alpha-beta with quiescence over the same
//!   evaluators, the network at the quiet frontier evaluated in batches.
//! - [`engine`]: one type for either mode, what the playing programs hold.
//! - [`root_moves`]: the rule both modes follow when told to choose among some moves only.
//! - [`config`]: the search settings, and the checks every config table words its
//!   errors with.
//!
//! Nothing here needs libtorch, so the search and its tests build and run without it.

pub mod alphabeta;
pub mod config;
pub mod engine;
pub mod evaluator;
pub mod exchange;
pub mod learned;
pub mod root_moves;
pub mod searcher;
pub mod tree;

pub use alphabeta::{AbConfig, AlphaBeta, LeafEval, DEFAULT_ROOT_VALUE};
pub use config::{RootMode, SearchConfig};
pub use engine::{Engine, PlayMode};
pub use evaluator::{Evaluation, Evaluator};
pub use learned::LearnedEval;
pub use searcher::{Limits, PositionSearch, SearchControl, SearchInfo, SearchResult, Searcher};
pub use tree::{Leaf, Proof, RootChild, Tree};
