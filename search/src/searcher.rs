//! One MCTS search at a time under playing limits (nodes, time, depth, stop), for every
//! program that plays: the UCI engine, match and gate players.
//!
//! [`Tree`] alone runs playouts; a playing engine must also stop on time or on request,
//! so [`Searcher`] drives the tree's step API and checks the limits between playouts. It
//! also keeps the tree between moves of a game (tree reuse) and plays a mate in one
//! without searching, so even the uniform evaluator never misses one.

use crate::config::{SearchConfig, MAX_MINIBATCH};
use crate::evaluator::{Evaluation, Evaluator};
use crate::tree::{Leaf, RootChild, Tree};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use schess::{Game, Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When a search stops (whichever limit comes first). No limit at all means "until
/// stopped" (UCI's bare `go`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    /// Playouts of this search (visits kept from earlier searches do not count).
    pub nodes: Option<u64>,
    /// Thinking time, counted from the start (or from `ponderhit`).
    pub time: Option<Duration>,
    /// Length of the principal variation.
    pub depth: Option<u32>,
    /// Keep searching until stopped, even when the limits above are met or the tree is
    /// exhausted (UCI `go infinite`: `bestmove` must wait for `stop`).
    pub infinite: bool,
    /// Never grow the tree beyond this many visits (memory bound).
    pub max_visits: Option<u64>,
}

impl Limits {
    pub fn nodes(n: u64) -> Limits {
        Limits { nodes: Some(n), ..Limits::default() }
    }

    fn unbounded(&self) -> bool {
        self.infinite || (self.nodes.is_none() && self.time.is_none() && self.depth.is_none())
    }
}

/// What every search that plays offers (MCTS's [`Searcher`], [`crate::AlphaBeta`], and
/// [`crate::Engine`] for either): one search of a game's current position under playing
/// limits, so the programs that play call them alike.
pub trait PositionSearch {
    /// Searches `game`'s current position under `limits` until one is reached or
    /// `control` says stop, choosing only among `root_moves` (UCI's `go searchmoves`; a
    /// player barred from some moves). Moves in it that are not legal are ignored;
    /// `None`, or no legal move in it, searches every legal move. `on_info` gets progress
    /// and the final state.
    fn search_among(
        &mut self,
        game: &Game,
        root_moves: Option<&[Move]>,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> anyhow::Result<SearchResult>;

    /// [`PositionSearch::search_among`] over every legal move.
    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> anyhow::Result<SearchResult> {
        self.search_among(game, None, limits, control, on_info)
    }
}

/// Signals from outside a running search.
#[derive(Debug, Default)]
pub struct SearchControl {
    /// Stop as soon as possible and report the best move so far.
    pub stop: AtomicBool,
    /// While set, time and node limits are not applied (UCI `go ponder`); clearing it
    /// (`ponderhit`) starts the clock.
    pub ponder: AtomicBool,
}

/// What a search has found so far.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchInfo {
    /// Length of the principal variation.
    pub depth: u32,
    /// Playouts in this search.
    pub nodes: u64,
    pub elapsed: Duration,
    /// Win/draw/loss probabilities for the side to move.
    pub wdl: [f32; 3],
    /// Expected score for the side to move.
    pub q: f32,
    /// Mate in this many moves for the side to move (0: it is mated), when the search
    /// proved one; otherwise `q` is the score.
    pub mate: Option<i32>,
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// `None` only when the position has no legal move.
    pub best: Option<Move>,
    /// The expected reply, if the search has one.
    pub ponder: Option<Move>,
    pub info: SearchInfo,
}

impl SearchResult {
    /// The result in a position without a legal move, for every play mode: checkmated (a
    /// loss, mate 0) or stalemated (a draw), with no move.
    pub fn no_legal_move(pos: &Position) -> SearchResult {
        let checked = pos.is_check();
        let wdl = if checked { [0.0, 0.0, 1.0] } else { [0.0, 1.0, 0.0] };
        let info = SearchInfo {
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            wdl,
            q: wdl[0] - wdl[2],
            mate: checked.then_some(0),
            pv: Vec::new(),
        };
        SearchResult { best: None, ponder: None, info }
    }
}

/// An MCTS engine for one game at a time, with tree reuse between its searches.
///
/// Two ways to drive it: [`Searcher::search`] runs a whole search under [`Limits`] with its
/// own evaluator; the step API ([`Searcher::begin`], [`Searcher::next_leaf`],
/// [`Searcher::apply`], [`Searcher::finish`]) lets a caller evaluate the leaves of many
/// searchers in one batch (eval's batched match games do).
pub struct Searcher {
    evaluator: Arc<dyn Evaluator>,
    cfg: SearchConfig,
    reuse: bool,
    /// The kept tree with the game (start position and moves) at its root.
    tree: Option<(Position, Vec<Move>, Tree)>,
    active: Option<Active>,
    rng: SmallRng,
}

/// The search in progress.
enum Active {
    /// Settled without searching: no legal move, or a mate in one.
    Decided(SearchResult),
    Tree(Box<TreeSearch>),
}

struct TreeSearch {
    tree: Tree,
    pos: Position,
    /// Root visits before this search (kept from earlier searches).
    base: u64,
    budget: u32,
    /// Noise-free root setup (Gumbel) still due once the root is expanded.
    needs_setup: bool,
    /// The root was expanded by this search: that evaluation is not a playout (a search
    /// of N playouts visits the root's moves N times, whether or not the tree was kept).
    expands_root: bool,
    /// Every line from the root ends in a known result: more playouts add nothing.
    exhausted: bool,
    started: Instant,
}

/// How often (in loop iterations, a power of two) the principal variation is recomputed for
/// a depth limit.
const DEPTH_CHECK_EVERY: u64 = 16;
/// Terminal positions backed up in a row before `select_leaf` gives up (every line ends).
const MAX_TERMINAL_IN_A_ROW: usize = 64;

impl Searcher {
    pub fn new(evaluator: Arc<dyn Evaluator>, cfg: SearchConfig, reuse: bool, seed: u64) -> Searcher {
        Searcher { evaluator, cfg, reuse, tree: None, active: None, rng: SmallRng::seed_from_u64(seed) }
    }

    pub fn evaluator(&self) -> &Arc<dyn Evaluator> {
        &self.evaluator
    }

    /// Replaces the evaluator (a new network); the kept tree is dropped.
    pub fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) {
        self.evaluator = evaluator;
        self.tree = None;
    }

    /// Replaces the search settings; the kept tree is dropped (its root was set up for
    /// the old ones).
    pub fn set_config(&mut self, cfg: SearchConfig) {
        self.cfg = cfg;
        self.tree = None;
    }

    /// Forgets the kept tree (new game).
    pub fn clear(&mut self) {
        self.tree = None;
        self.active = None;
    }

    /// The kept tree advanced to `game`'s position, or a fresh one.
    fn take_tree(&mut self, game: &Game) -> Tree {
        if let Some((start, moves, tree)) = self.tree.take() {
            let played = game.moves();
            if self.reuse && start == *game.start() && played.len() >= moves.len() && played[..moves.len()] == moves[..]
            {
                return played[moves.len()..].iter().fold(tree, |t, &m| t.advance(m));
            }
        }
        Tree::new(game.positions().to_vec())
    }

    /// Starts a search of `game`'s current position; `budget` is the expected number of
    /// playouts (Gumbel's sequential halving plans with it). A position without legal
    /// moves, or with a mate in one, is settled at once: [`Searcher::is_done`] is then true.
    pub fn begin(&mut self, game: &Game, budget: u32) {
        self.begin_among(game, budget, None);
    }

    /// [`Searcher::begin`] choosing only among `root_moves` (those of them that are legal;
    /// `None`: all), as `go searchmoves` or a gating restriction asks.
    pub fn begin_among(&mut self, game: &Game, budget: u32, root_moves: Option<&[Move]>) {
        let started = Instant::now();
        let pos = game.position().clone();
        let limited = crate::root_moves::limit(&pos, root_moves);
        let legal = limited.clone().unwrap_or_else(|| pos.legal_moves().to_vec());
        let decided = |best: Option<Move>, wdl: [f32; 3], mate: Option<i32>, depth: u32| SearchResult {
            best,
            ponder: None,
            info: SearchInfo {
                depth,
                nodes: u64::from(depth),
                elapsed: started.elapsed(),
                wdl,
                q: wdl[0] - wdl[2],
                mate,
                pv: best.into_iter().collect(),
            },
        };
        self.active = Some(if legal.is_empty() {
            Active::Decided(SearchResult::no_legal_move(&pos))
        } else if let Some(&mate) = legal.iter().find(|&&m| pos.gives_checkmate(m)) {
            self.tree = None;
            Active::Decided(decided(Some(mate), [1.0, 0.0, 0.0], Some(1), 1))
        } else {
            let mut tree = self.take_tree(game);
            tree.restrict_root(limited.as_deref());
            let needs_setup = !tree.is_root_expanded();
            if !needs_setup {
                tree.setup_root(&self.cfg, budget, false, &mut self.rng);
            }
            let base = tree.root_visits() as u64;
            Active::Tree(Box::new(TreeSearch {
                tree,
                pos,
                base,
                budget,
                needs_setup,
                expands_root: needs_setup,
                exhausted: false,
                started,
            }))
        });
    }

    /// True when more playouts would change nothing (settled position, or every line of
    /// the tree ends in a known result), or no search was begun.
    pub fn is_done(&self) -> bool {
        match &self.active {
            Some(Active::Tree(t)) => t.exhausted,
            _ => true,
        }
    }

    /// Playouts so far in this search (visits of the root's moves; the root's own
    /// expansion does not count).
    pub fn playouts(&self) -> u64 {
        match &self.active {
            Some(Active::Tree(t)) => t.playouts(),
            _ => 0,
        }
    }

    /// Visits in the whole tree, kept ones included (for a memory bound).
    pub fn tree_visits(&self) -> u64 {
        match &self.active {
            Some(Active::Tree(t)) => t.tree.root_visits() as u64,
            _ => 0,
        }
    }

    /// The next position to evaluate, or `None` when the search is done.
    pub fn next_leaf(&mut self) -> Option<Leaf> {
        self.next_leaves(1).pop()
    }

    /// Up to `max` leaves to evaluate in one call (see [`Tree::select_leaves`]); empty when
    /// the search is done. Each must be given its evaluation with [`Searcher::apply`].
    pub fn next_leaves(&mut self, max: usize) -> Vec<Leaf> {
        let Some(Active::Tree(t)) = &mut self.active else {
            return Vec::new();
        };
        if t.exhausted {
            return Vec::new();
        }
        let leaves = t.tree.select_leaves(&self.cfg, MAX_TERMINAL_IN_A_ROW, max);
        // None after many terminal backups in a row: every line may end in a known
        // result, or the search keeps choosing one proven line (a draw, say) while other
        // moves are still open; more playouts then explore those. With the solver, the
        // root's proof tells the two apart; without it, the many backups must do.
        t.exhausted = leaves.is_empty() && (!self.cfg.solver || t.tree.root_proven());
        leaves
    }

    /// Feeds the evaluation of a leaf from [`Searcher::next_leaf`] back into the tree.
    pub fn apply(&mut self, leaf: &Leaf, eval: &Evaluation) {
        let Some(Active::Tree(t)) = &mut self.active else {
            return;
        };
        t.tree.expand_and_backup(leaf, eval);
        if t.needs_setup && t.tree.is_root_expanded() {
            t.tree.setup_root(&self.cfg, t.budget, false, &mut self.rng);
            t.needs_setup = false;
        }
    }

    /// What the search has found so far (`None` before [`Searcher::begin`]).
    pub fn current_info(&self) -> Option<SearchInfo> {
        match self.active.as_ref()? {
            Active::Decided(r) => Some(r.info.clone()),
            Active::Tree(t) => Some(tree_info(t)),
        }
    }

    /// Each root move's prior, visits and value so far, for a display of the search
    /// (empty when the search was settled without a tree, or before the root's expansion).
    pub fn root_children(&self) -> Vec<RootChild> {
        match &self.active {
            Some(Active::Tree(t)) if t.tree.is_root_expanded() => t.tree.root_children(),
            _ => Vec::new(),
        }
    }

    /// Ends the search: the move to play and the final info. The tree is kept for the
    /// next search of the same game.
    pub fn finish(&mut self, game: &Game) -> Option<SearchResult> {
        Some(match self.active.take()? {
            Active::Decided(mut r) => {
                r.info.elapsed = Duration::ZERO;
                r
            }
            Active::Tree(t) => {
                let info = tree_info(&t);
                let best = t.tree.choose_move(0.0, &mut self.rng).or_else(|| t.pos.legal_moves().first().copied());
                let ponder = info.pv.get(1).copied().filter(|_| info.pv.first() == best.as_ref());
                self.tree = Some((game.start().clone(), game.moves().to_vec(), t.tree));
                SearchResult { best, ponder, info }
            }
        })
    }
}

/// Searches with the searcher's own evaluator, [`SearchConfig::minibatch`] leaves a call;
/// `on_info` gets progress about once a second and the final state once. Root moves are
/// limited as [`Searcher::begin_among`] says.
impl PositionSearch for Searcher {
    fn search_among(
        &mut self,
        game: &Game,
        root_moves: Option<&[Move]>,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> anyhow::Result<SearchResult> {
        let budget = limits.nodes.unwrap_or(800).min(u32::MAX as u64) as u32;
        self.begin_among(game, budget, root_moves);
        if matches!(self.active, Some(Active::Decided(_))) {
            wait_for_stop(limits, control);
            let r = self.finish(game).expect("search begun");
            on_info(&r.info);
            return Ok(r);
        }
        let mut start = Instant::now();
        let mut pondering = control.ponder.load(Ordering::Relaxed);
        let mut last_info = Instant::now();
        let mut iterations = 0u64;
        loop {
            iterations += 1;
            if control.stop.load(Ordering::Relaxed) {
                break;
            }
            if pondering && !control.ponder.load(Ordering::Relaxed) {
                pondering = false;
                start = Instant::now();
            }
            let stuck = self.is_done() || limits.max_visits.is_some_and(|m| self.tree_visits() >= m);
            if !pondering && !limits.infinite {
                let done = limits.nodes.is_some_and(|n| self.playouts() >= n)
                    || limits.time.is_some_and(|t| start.elapsed() >= t)
                    || (limits.depth.is_some_and(|d| iterations & (DEPTH_CHECK_EVERY - 1) == 0 && self.pv_len() >= d))
                    || (stuck && !limits.unbounded());
                if done {
                    break;
                }
            }
            if stuck {
                // Nothing left to search (or no room): idle until a limit or `stop`.
                std::thread::sleep(Duration::from_millis(2));
            } else {
                // A node limit is kept exactly: no batch runs past it.
                let left = limits.nodes.map_or(u64::MAX, |n| n.saturating_sub(self.playouts())).max(1);
                let leaves = self.next_leaves(self.cfg.minibatch.min(left.min(MAX_MINIBATCH as u64) as usize));
                if !leaves.is_empty() {
                    let histories: Vec<&[Position]> = leaves.iter().map(|l| l.history.as_slice()).collect();
                    let evals = self.evaluator.evaluate(&histories)?;
                    anyhow::ensure!(
                        evals.len() == leaves.len(),
                        "the evaluator returned {} evaluations for {} positions",
                        evals.len(),
                        leaves.len()
                    );
                    for (leaf, eval) in leaves.iter().zip(&evals) {
                        self.apply(leaf, eval);
                    }
                }
            }
            if last_info.elapsed() >= Duration::from_secs(1) {
                last_info = Instant::now();
                if let Some(mut info) = self.current_info() {
                    info.elapsed = start.elapsed();
                    on_info(&info);
                }
            }
        }
        let mut r = self.finish(game).expect("search begun");
        r.info.elapsed = start.elapsed();
        on_info(&r.info);
        Ok(r)
    }
}

impl Searcher {
    fn pv_len(&self) -> u32 {
        match &self.active {
            Some(Active::Tree(t)) => pv_len(&t.tree),
            _ => 0,
        }
    }
}

impl TreeSearch {
    fn playouts(&self) -> u64 {
        let visits = self.tree.root_visits() as u64 - self.base;
        visits.saturating_sub(u64::from(self.expands_root && self.tree.is_root_expanded()))
    }
}

fn tree_info(t: &TreeSearch) -> SearchInfo {
    let pv = t.tree.principal_variation(64);
    let wdl = t.tree.root_wdl();
    let q = wdl[0] - wdl[2];
    let mates = pv.first().is_some_and(|&m| t.pos.gives_checkmate(m));
    SearchInfo {
        depth: pv.len() as u32,
        nodes: t.playouts(),
        elapsed: t.started.elapsed(),
        wdl,
        q,
        mate: mates.then_some(1),
        pv,
    }
}

fn pv_len(tree: &Tree) -> u32 {
    tree.principal_variation(256).len() as u32
}

/// For searches that must not end on their own (UCI `go infinite`, pondering).
pub(crate) fn wait_for_stop(limits: &Limits, control: &SearchControl) {
    while (limits.infinite || control.ponder.load(Ordering::Relaxed)) && !control.stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::UniformEvaluator;

    fn searcher() -> Searcher {
        Searcher::new(Arc::new(UniformEvaluator), SearchConfig::default(), true, 1)
    }

    #[test]
    fn node_limit_and_tree_reuse() {
        let mut s = searcher();
        let mut game = Game::new(Position::startpos());
        let control = SearchControl::default();
        let r = s.search(&game, &Limits::nodes(100), &control, &mut |_| {}).unwrap();
        assert_eq!(r.info.nodes, 100);
        // The root's expansion is not one of the 100: its moves got all of them.
        let root = s.tree.as_ref().unwrap().2.root_children();
        assert_eq!(root.iter().map(|c| c.visits).sum::<u32>(), 100);
        let best = r.best.unwrap();
        assert!(game.position().is_legal(best));
        game.play(best).unwrap();
        game.play_uci(&game.position().legal_moves()[0].to_uci()).unwrap();
        let r = s.search(&game, &Limits::nodes(50), &control, &mut |_| {}).unwrap();
        assert!((50..50 + 64).contains(&r.info.nodes));
        assert!(game.position().is_legal(r.best.unwrap()));
    }

    /// The uniform evaluator, counting its calls and positions.
    #[derive(Default)]
    struct Counting {
        calls: std::sync::atomic::AtomicU64,
        positions: std::sync::atomic::AtomicU64,
    }

    impl Evaluator for Counting {
        fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.positions.fetch_add(histories.len() as u64, Ordering::Relaxed);
            UniformEvaluator.evaluate(histories)
        }
        fn describe(&self) -> String {
            "counting".into()
        }
    }

    #[test]
    fn minibatches_evaluate_leaves_together_and_keep_the_limits() {
        let counting = Arc::new(Counting::default());
        let cfg = SearchConfig { minibatch: 8, ..SearchConfig::default() };
        let mut s = Searcher::new(counting.clone(), cfg, true, 1);
        let game = Game::new(Position::startpos());
        let r = s.search(&game, &Limits::nodes(400), &SearchControl::default(), &mut |_| {}).unwrap();
        assert_eq!(r.info.nodes, 400, "the node limit is exact");
        let (calls, positions) = (counting.calls.load(Ordering::Relaxed), counting.positions.load(Ordering::Relaxed));
        assert_eq!(positions, 401, "each playout one position, and the root's expansion");
        assert!(calls <= 401 / 6, "{positions} positions in {calls} calls");
        // A mate in two is still found and proven with leaves in flight.
        let game = Game::new(Position::from_fen("7k/8/8/8/8/8/R7/1R4K1[] w - - 0 1").unwrap());
        let r = s.search(&game, &Limits::nodes(3000), &SearchControl::default(), &mut |_| {}).unwrap();
        let after = game.position().play(r.best.unwrap()).unwrap();
        assert!(after.legal_moves().iter().all(|&m| {
            let p = after.play(m).unwrap();
            p.legal_moves().iter().any(|&w| p.gives_checkmate(w))
        }));
        assert!(s.tree.as_ref().unwrap().2.root_proven(), "proven, and the search stopped: {:?}", r.info);
        assert!(r.info.nodes < 3000);
    }

    #[test]
    fn plays_mate_in_one_and_reports_it() {
        let mut s = searcher();
        let game = Game::new(Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1").unwrap());
        let r = s.search(&game, &Limits::nodes(10), &SearchControl::default(), &mut |_| {}).unwrap();
        assert_eq!(r.best.unwrap().to_uci(), "a1a8");
        assert_eq!(r.info.mate, Some(1));
        assert_eq!(r.info.pv, vec![r.best.unwrap()]);
    }

    /// `go nodes 18446744073709551615 movetime 5` (or `go infinite`) under the Gumbel
    /// root: sequential halving used to list every planned visit up front, 8 GB for an
    /// unlimited budget, and the engine died of it (found by tests/uci_abuse.rs).
    #[test]
    fn gumbel_root_without_a_node_limit_starts_at_once() {
        let cfg = SearchConfig { root_mode: crate::RootMode::Gumbel, ..SearchConfig::default() };
        let mut s = Searcher::new(Arc::new(UniformEvaluator), cfg, true, 1);
        let game = Game::new(Position::startpos());
        let t = Instant::now();
        let limits = Limits { nodes: Some(u64::MAX), time: Some(Duration::from_millis(50)), ..Limits::default() };
        let r = s.search(&game, &limits, &SearchControl::default(), &mut |_| {}).unwrap();
        assert!(t.elapsed() < Duration::from_secs(2), "took {:?}", t.elapsed());
        assert!(r.info.nodes > 0 && game.position().is_legal(r.best.unwrap()));
    }

    #[test]
    fn stops_on_time_and_on_flag() {
        let mut s = searcher();
        let game = Game::new(Position::startpos());
        let t = Instant::now();
        let limits = Limits { time: Some(Duration::from_millis(50)), ..Limits::default() };
        s.search(&game, &limits, &SearchControl::default(), &mut |_| {}).unwrap();
        // Wide, for loaded test machines; without the time check it would never stop.
        assert!(t.elapsed() < Duration::from_secs(3), "took {:?}", t.elapsed());
        let control = SearchControl::default();
        control.stop.store(true, Ordering::Relaxed);
        let r = s.search(&game, &Limits { infinite: true, ..Limits::default() }, &control, &mut |_| {}).unwrap();
        assert!(r.best.is_some());
    }

    #[test]
    fn a_proven_line_chosen_again_and_again_does_not_end_the_search() {
        // After 1.e4, MCTS over live material keeps choosing a line the solver has
        // proven: 64 backups in a row once ended this search at 23,780 of its playouts.
        let cfg = SearchConfig { root_mode: crate::RootMode::Puct, ..SearchConfig::default() };
        let mut s = Searcher::new(Arc::new(crate::evaluator::MaterialEvaluator), cfg, false, 1);
        let mut game = Game::new(Position::startpos());
        game.play_uci("e2e4").unwrap();
        let r = s.search(&game, &Limits::nodes(40_000), &SearchControl::default(), &mut |_| {}).unwrap();
        assert_eq!(r.info.nodes, 40_000);
    }

    #[test]
    fn a_proven_root_ends_the_search_early() {
        // Black's only move, Kb8, loses by force (Rc1 and Rc8 mate): once the solver has
        // proven it, more playouts change nothing and the search stops long before its time.
        let fen = "k7/8/1K6/8/8/8/8/1R6[] b - - 0 1";
        let game = Game::new(Position::from_fen(fen).unwrap());
        let mut s = searcher();
        let t = Instant::now();
        let limits = Limits { time: Some(Duration::from_secs(20)), ..Limits::default() };
        let r = s.search(&game, &limits, &SearchControl::default(), &mut |_| {}).unwrap();
        assert!(t.elapsed() < Duration::from_secs(10), "took {:?}", t.elapsed());
        assert!(s.tree.as_ref().unwrap().2.root_proven());
        assert_eq!(r.best.map(|m| m.to_uci()).as_deref(), Some("a8b8"));
    }
}
