//! An alpha-beta play mode over any [`Evaluator`], the way NNUE engines use a learnt
//! evaluation: iterative deepening, principal variation search, a transposition table,
//! killer and history move ordering, check extensions and late-move reductions, and a
//! quiescence search over captures and promotions.
//!
//! Why it exists: MCTS over a young network leaves pieces to capture sequences that a
//! one-ply search with quiescence sees at once (Fairy-Stockfish at depth 1 beat the MCTS
//! player every game). Here the network is consulted only where its judgment is needed,
//! at the quiet frontier of the tree, and material is resolved by search:
//!
//! - **Frontier nodes** (depth 0) start a quiescence search: captures and promotions,
//!   ordered and pruned by static exchange ([`see`]) and delta pruning, until
//!   the position is quiet. Each of its positions is scored by the evaluator's own value
//!   (converted to centipawns by [`score::cp_from_q`]): a network already values a piece
//!   that is about to be recaptured, so adding the material a capture wins to the value
//!   of the position before it counts that piece twice (it did: the first version, which
//!   resolved captures with material alone, gave away its queen to a recapture the
//!   network had priced in). Static exchange keeps the calls few: most frontier
//!   positions have no capture that survives it.
//! - **Batches.** At a node one ply above the frontier, the children are evaluated
//!   together in one call ([`Evaluator::evaluate`] takes many positions): all of them at
//!   a PV node, where each will be searched, and a first handful then the rest at a node
//!   expected to cut. A network runs about ten times as many positions a second at batch
//!   32-64 as at batch 1 on a CPU.
//! - **Ordering.** Every evaluated position keeps its policy priors, so from the second
//!   iteration on the network's policy orders the quiet moves of the nodes near the root;
//!   the transposition table's move, winning captures and killers come first.
//!
//! - **Root value** (the default, [`AbConfig::root_value`] with [`LeafEval::Material`]):
//!   the tree below the root is scored by live material, as fast as the control, and
//!   the network judges each root move once (one batch a move), worth at most a bounded
//!   number of centipawns: it chooses among moves the search finds materially equal and
//!   cannot buy material back. Network leaves (`LeafEval::Evaluator`) cost most of the
//!   depth instead.
//!
//! [`AbConfig::control`] is the material-only control: whatever a network adds over it
//! is what the network learnt.

pub mod score;
mod tt;

use crate::evaluator::Evaluator;
use crate::exchange::{immediate_gain, is_tactical, see};
use crate::learned::LearnedEval;
use crate::searcher::{wait_for_stop, Limits, PositionSearch, SearchControl, SearchInfo, SearchResult};
use schess::{Game, Move, Position};
use score::{cp_from_q, from_table, is_mate, mate_moves, q_from_score, to_table, INFINITE, MATE};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;
use tt::{Bound, Entry, Table};

/// Settings of the alpha-beta search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AbConfig {
    /// Transposition table size.
    pub hash_mb: usize,
    /// Evaluations kept (value and priors of each evaluated position), across the moves of
    /// a game; the cache is emptied when full.
    pub eval_cache: usize,
    /// Longest capture sequence the quiescence search plays out.
    pub qsearch_plies: usize,
    /// At a node expected to cut, children evaluated in the first batch (the rest follow
    /// in one more batch if none of them cut).
    pub first_batch: usize,
    /// What scores the leaves.
    pub leaf: LeafEval,
    /// Nodes this close to the root are evaluated for their policy priors (move ordering)
    /// even when the leaves are scored by material alone.
    pub policy_plies: usize,
    /// Centipawns the evaluator's judgment of each root move is worth (0: none). The
    /// positions after the root moves are evaluated in one batch, and each move's score is
    /// its search score plus this times the expected score the evaluator gives the mover
    /// there. With material leaves it is the network's say among moves the search finds
    /// materially equal, bounded so that it never gives material away: the search below
    /// the root stays as fast as the material control, and the network costs one batch a
    /// move. Settings written before it existed read as 0, so they play as they did.
    #[serde(default)]
    pub root_value: i32,
    /// The evaluation [`LeafEval::Learned`] scores leaves with (loaded from its file by
    /// whoever builds the player: a setting names the file, not the weights).
    #[serde(skip)]
    pub learned: Option<Arc<LearnedEval>>,
}

/// What scores the positions where the search stops (stand-pat values of the quiescence
/// search, and the values pruning compares with).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeafEval {
    /// The evaluator's value.
    Evaluator,
    /// The evaluator's value plus 100 centipawns a pawn of live material: the evaluator
    /// as a positional term over material, as a classical evaluation is.
    EvaluatorPlusMaterial,
    /// Live material alone (no evaluator call at the leaves; it still orders moves near
    /// the root, and judges the root's moves by `root_value`).
    #[default]
    Material,
    /// A learned evaluation ([`crate::learned`], [`AbConfig::learned`]): as cheap as
    /// material, no evaluator call at the leaves.
    Learned,
}

impl LeafEval {
    /// Its name in player specs.
    pub fn name(self) -> &'static str {
        match self {
            LeafEval::Evaluator => "net",
            LeafEval::EvaluatorPlusMaterial => "net+material",
            LeafEval::Material => "material",
            LeafEval::Learned => "learned",
        }
    }

    fn uses_evaluator(self) -> bool {
        matches!(self, LeafEval::Evaluator | LeafEval::EvaluatorPlusMaterial)
    }
}

impl std::str::FromStr for LeafEval {
    type Err = String;

    fn from_str(s: &str) -> Result<LeafEval, String> {
        match s.to_ascii_lowercase().as_str() {
            "net" => Ok(LeafEval::Evaluator),
            "net+material" => Ok(LeafEval::EvaluatorPlusMaterial),
            "material" => Ok(LeafEval::Material),
            "learned" => Ok(LeafEval::Learned),
            _ => Err(format!("unknown leaf evaluation '{s}' (expected net, net+material, material or learned)")),
        }
    }
}

/// What [`AbConfig::root_value`] is by default: measured best of 50, 150 and 400 against
/// the material control (BENCHMARKS.md, "Alpha-beta play mode").
pub const DEFAULT_ROOT_VALUE: i32 = 150;

/// The default is szero's play mode over a network: material resolved by search, the
/// network ordering the root's moves and judging between them ([`AbConfig::root_value`]).
impl Default for AbConfig {
    fn default() -> Self {
        AbConfig {
            hash_mb: 64,
            eval_cache: 400_000,
            qsearch_plies: 6,
            first_batch: 8,
            leaf: LeafEval::Material,
            policy_plies: 0,
            root_value: DEFAULT_ROOT_VALUE,
            learned: None,
        }
    }
}

impl AbConfig {
    /// The material-only control: live material scores every leaf, nothing is added at
    /// the root. (Scoring the leaves through a material *evaluator* instead, as the first
    /// control did, gives the same values at a fraction of the speed: that control scored
    /// 17.5% against this one at 100 ms a move; BENCHMARKS.md.)
    pub fn control() -> AbConfig {
        AbConfig { leaf: LeafEval::Material, root_value: 0, ..AbConfig::default() }
    }
}

/// Deepest iteration and longest line searched.
const MAX_PLY: usize = 96;
/// Positions before a frontier node handed to the evaluator with it (history planes and
/// repetition flags read a few; more would only be copied).
const EVAL_TAIL: usize = 8;
/// Margin of delta pruning in the quiescence search: a capture that cannot lift the
/// score to alpha even with this much more is not played.
const DELTA_MARGIN: i32 = 200;
/// Futility pruning one ply above the frontier: when the node's own evaluation plus this
/// is still below alpha, its quiet moves are not searched (nor evaluated).
const FUTILITY_MARGIN: i32 = 150;
/// Reverse futility pruning: a node whose evaluation exceeds beta by this much per ply
/// of depth left (at most 2) is taken to hold.
const REVERSE_FUTILITY_MARGIN: i32 = 120;
/// How often (in nodes) the clock and the stop flag are read.
const POLL_EVERY: u64 = 64;

/// What the search remembers of an evaluated position.
struct Cached {
    /// The evaluator's value for the side to move, in centipawns.
    cp: i32,
    /// Priors in `legal_moves()` order.
    priors: Box<[f32]>,
}

/// An alpha-beta engine for one game at a time. Its transposition table and evaluations
/// are kept between the moves of a game, and forgotten by [`AlphaBeta::clear`].
pub struct AlphaBeta {
    evaluator: Arc<dyn Evaluator>,
    cfg: AbConfig,
    tt: Table,
    cache: HashMap<u64, Cached>,
    /// History heuristic: cutoffs by quiet moves, by side, from and to square.
    history: Vec<i32>,
}

impl AlphaBeta {
    pub fn new(evaluator: Arc<dyn Evaluator>, cfg: AbConfig) -> AlphaBeta {
        AlphaBeta { evaluator, tt: Table::new(cfg.hash_mb), cache: HashMap::new(), cfg, history: vec![0; 2 * 64 * 64] }
    }

    pub fn evaluator(&self) -> &Arc<dyn Evaluator> {
        &self.evaluator
    }

    pub fn config(&self) -> &AbConfig {
        &self.cfg
    }

    /// Replaces the evaluator (a new network): what was learnt with the old one is dropped.
    pub fn set_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) {
        self.evaluator = evaluator;
        self.clear();
    }

    /// Replaces the settings; a new table size takes effect at once.
    pub fn set_config(&mut self, cfg: AbConfig) {
        if cfg.hash_mb != self.cfg.hash_mb {
            self.tt = Table::new(cfg.hash_mb);
        }
        self.cfg = cfg;
    }

    /// Forgets everything learnt so far (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.cache.clear();
        self.history.iter_mut().for_each(|h| *h = 0);
    }
}

/// Deepens one ply at a time until a limit is reached or `control` says stop; `on_info`
/// gets each finished iteration and the final state. A time limit is a budget: no
/// iteration starts that would likely not finish within it, and one that runs over is cut
/// off, keeping the best root move found so far.
impl PositionSearch for AlphaBeta {
    fn search_among(
        &mut self,
        game: &Game,
        root_moves: Option<&[Move]>,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> anyhow::Result<SearchResult> {
        let pos = game.position().clone();
        let limited = crate::root_moves::limit(&pos, root_moves);
        let mut legal = pos.legal_moves();
        if let Some(r) = &limited {
            legal.retain(|m| r.contains(m));
        }
        if self.cfg.leaf == LeafEval::Learned && self.cfg.learned.is_none() {
            anyhow::bail!("leaf=learned needs a learned evaluation (eval=FILE, UCI option EvalFile)");
        }
        let started = Instant::now();
        if legal.is_empty() {
            let r = SearchResult::no_legal_move(&pos);
            wait_for_stop(limits, control);
            on_info(&r.info);
            return Ok(r);
        }
        if self.cache.len() >= self.cfg.eval_cache {
            self.cache.clear();
        }
        // Old cutoffs still order moves, with less weight than new ones.
        self.history.iter_mut().for_each(|h| *h /= 4);
        // Enough of the game for exact repetition checks (nothing repeats across an
        // irreversible move, and the 50-move rule ends a game after 100 plies of them).
        let positions = game.positions();
        let keep = positions.len().min(pos.halfmove_clock() as usize + 1).max(1);
        let mut run = Run {
            ev: self.evaluator.clone(),
            cfg: &self.cfg,
            tt: &mut self.tt,
            cache: &mut self.cache,
            history: &mut self.history,
            stack: positions[positions.len() - keep..].to_vec(),
            limits,
            control,
            clock: started,
            pondering: control.ponder.load(Ordering::Relaxed),
            nodes: 0,
            stopped: false,
            error: None,
            killers: vec![[None; 2]; MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 1],
            root_best: None,
            root_first: None,
            root_bias: HashMap::new(),
            root_moves: limited.as_deref(),
        };
        run.ensure_evaluated(std::slice::from_ref(&pos), false);
        if self.cfg.root_value != 0 {
            run.root_bias = run.root_bias(&pos, &legal);
        }
        if let Some(e) = run.error.take() {
            return Err(e);
        }
        let root_cp = run.cache.get(&pos.key()).map_or(0, |c| c.cp);
        // Before the first iteration ends: the policy's favourite.
        let first = run.ordered(&pos, &legal, None, 0)[0];
        let mut best = Best { mv: first, score: root_cp, pv: vec![first], depth: 0 };
        let max_depth = limits.depth.map_or(MAX_PLY as u32 - 1, |d| d.clamp(1, MAX_PLY as u32 - 1));
        // A position with one legal move is played at once under a clock; one root move
        // left by `searchmoves` is what the caller wants valued, so it is searched.
        let only_move = legal.len() == 1 && limited.is_none() && limits.time.is_some() && !limits.infinite;
        for depth in 1..=max_depth {
            if only_move {
                break;
            }
            run.root_best = None;
            run.root_first = (depth > 1).then_some(best.mv);
            let score = run.negamax(depth as i32, 0, -INFINITE, INFINITE);
            if run.stopped {
                // A cut-off iteration still found its best move so far, once the first
                // (the previous best) had its score: every later one that raised alpha
                // is better.
                if let Some((mv, s)) = run.root_best.filter(|&(mv, _)| mv != best.mv) {
                    best = Best { mv, score: s, pv: vec![mv], depth: best.depth };
                }
                break;
            }
            let pv = run.pv[0].clone();
            best = Best { mv: pv.first().copied().unwrap_or(best.mv), score, pv, depth };
            on_info(&run.info(&best));
            if is_mate(score) && mate_moves(score).is_some_and(|m| m.unsigned_abs() * 2 <= depth) {
                break;
            }
            if run.out_of_budget_for_next_iteration() {
                break;
            }
        }
        if let Some(e) = run.error.take() {
            return Err(e);
        }
        wait_for_stop(limits, control);
        let info = run.info(&best);
        on_info(&info);
        let ponder = best.pv.get(1).copied();
        Ok(SearchResult { best: Some(best.mv), ponder, info })
    }
}

/// The search's answer so far.
struct Best {
    mv: Move,
    score: i32,
    pv: Vec<Move>,
    depth: u32,
}

/// One search in progress.
struct Run<'a> {
    ev: Arc<dyn Evaluator>,
    cfg: &'a AbConfig,
    tt: &'a mut Table,
    cache: &'a mut HashMap<u64, Cached>,
    history: &'a mut [i32],
    /// The game's positions since its last irreversible move, then the current line.
    stack: Vec<Position>,
    limits: &'a Limits,
    control: &'a SearchControl,
    /// When the clock started (at the start, or at `ponderhit`).
    clock: Instant,
    pondering: bool,
    nodes: u64,
    stopped: bool,
    error: Option<anyhow::Error>,
    killers: Vec<[Option<Move>; 2]>,
    pv: Vec<Vec<Move>>,
    /// The best root move of the iteration in progress, with its score.
    root_best: Option<(Move, i32)>,
    /// The previous iteration's best move, searched first at the root: a cut-off
    /// iteration's result is only trusted because its first move is that one (the
    /// table's move may be older: a deeper entry from an earlier search, which a
    /// shallower new one does not replace).
    root_first: Option<Move>,
    /// What [`AbConfig::root_value`] adds to each root move's score.
    root_bias: HashMap<Move, i32>,
    /// The only moves the root may play, when limited.
    root_moves: Option<&'a [Move]>,
}

impl Run<'_> {
    fn top(&self) -> &Position {
        self.stack.last().expect("the root is on the stack")
    }

    fn push(&mut self, m: Move) {
        let next = child(self.top(), m);
        self.stack.push(next);
    }

    fn pop(&mut self) {
        self.stack.pop();
    }

    /// Reads the stop flag, the clock and the node limit (every [`POLL_EVERY`] nodes and
    /// after each evaluator call); true once the search must stop.
    fn poll(&mut self, force: bool) -> bool {
        if self.stopped {
            return true;
        }
        // The node limit is exact (a comparison); the clock and the flags are read less often.
        if !self.pondering && !self.limits.infinite && self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
            return true;
        }
        if !force && !self.nodes.is_multiple_of(POLL_EVERY) {
            return false;
        }
        if self.control.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return true;
        }
        if self.pondering {
            if self.control.ponder.load(Ordering::Relaxed) {
                return false;
            }
            self.pondering = false;
            self.clock = Instant::now();
        }
        if self.limits.infinite {
            return false;
        }
        self.stopped = self.limits.time.is_some_and(|t| self.clock.elapsed() >= t);
        self.stopped
    }

    /// After a finished iteration: whether the next one should not start. The next
    /// iteration takes several times as long as this one, so one that starts after
    /// half the budget would likely be cut off before its first move is resolved.
    fn out_of_budget_for_next_iteration(&mut self) -> bool {
        if self.poll(true) {
            return true;
        }
        if self.pondering || self.limits.infinite {
            return false;
        }
        self.limits.time.is_some_and(|t| self.clock.elapsed() >= t.mul_f32(0.5))
    }

    fn info(&self, best: &Best) -> SearchInfo {
        let q = q_from_score(best.score);
        SearchInfo {
            depth: best.depth,
            nodes: self.nodes,
            elapsed: self.clock.elapsed(),
            wdl: crate::evaluator::wdl_from_q(q),
            q,
            mate: mate_moves(best.score),
            pv: if best.pv.is_empty() { vec![best.mv] } else { best.pv.clone() },
        }
    }

    /// [`AbConfig::root_value`] times the expected score the evaluator gives the mover
    /// after each root move (one batch); nothing for moves that end the game.
    fn root_bias(&mut self, pos: &Position, moves: &[Move]) -> HashMap<Move, i32> {
        let (moves, positions): (Vec<Move>, Vec<Position>) =
            moves.iter().map(|&m| (m, child(pos, m))).filter(|(_, p)| p.has_legal_moves()).unzip();
        self.ensure_evaluated(&positions, true);
        let weight = self.cfg.root_value as f32;
        moves
            .into_iter()
            .zip(&positions)
            .filter_map(|(m, p)| self.cache.get(&p.key()).map(|c| (m, (-weight * q_from_score(c.cp)).round() as i32)))
            .collect()
    }

    /// Runs the evaluator, in one call, on those of `positions` that are not cached yet:
    /// children of the top of the stack, or (`children` false) the top itself.
    fn ensure_evaluated(&mut self, positions: &[Position], children: bool) {
        let todo: Vec<&Position> = positions.iter().filter(|p| !self.cache.contains_key(&p.key())).collect();
        if todo.is_empty() || self.error.is_some() {
            return;
        }
        let tail_end = if children { self.stack.len() } else { self.stack.len() - 1 };
        let tail = &self.stack[tail_end.saturating_sub(EVAL_TAIL)..tail_end];
        let lines: Vec<Vec<Position>> = todo
            .iter()
            .map(|p| {
                let mut line = Vec::with_capacity(tail.len() + 1);
                line.extend_from_slice(tail);
                line.push((*p).clone());
                line
            })
            .collect();
        let refs: Vec<&[Position]> = lines.iter().map(Vec::as_slice).collect();
        match self.ev.evaluate(&refs) {
            Ok(evals) if evals.len() == refs.len() => {
                for (line, e) in lines.iter().zip(evals) {
                    let key = line.last().expect("a line ends in its position").key();
                    self.cache.insert(key, Cached { cp: cp_from_q(e.q()), priors: e.priors.into() });
                }
            }
            Ok(evals) => {
                self.error = Some(anyhow::anyhow!("evaluator returned {} evaluations for {}", evals.len(), refs.len()));
                self.stopped = true;
            }
            Err(e) => {
                self.error = Some(e);
                self.stopped = true;
            }
        }
        self.poll(true);
    }

    /// The leaf value of `pos` for its side to move, if it is known without a new
    /// evaluator call.
    fn known_value(&self, pos: &Position) -> Option<i32> {
        let material = || {
            let white = 100 * schess::material::live_balance(pos);
            if pos.turn() == schess::Color::White {
                white
            } else {
                -white
            }
        };
        match self.cfg.leaf {
            LeafEval::Material => Some(material()),
            LeafEval::Evaluator => self.cache.get(&pos.key()).map(|c| c.cp),
            LeafEval::EvaluatorPlusMaterial => self.cache.get(&pos.key()).map(|c| c.cp + material()),
            LeafEval::Learned => Some(self.cfg.learned.as_ref().map_or_else(material, |l| l.evaluate(pos))),
        }
    }

    /// Whether the top of the stack is drawn by the rules whatever follows: a repetition
    /// (of the game's positions or the line's; one is enough inside the search), the
    /// 50-move rule or insufficient material.
    fn is_draw(&self) -> bool {
        let pos = self.top();
        pos.halfmove_clock() >= 100 || pos.is_insufficient_material() || repeats(&self.stack)
    }

    /// Moves in the order to search them: the table's move, captures that do not lose
    /// material (by what they win), killers, quiet moves by policy prior (where the
    /// position was evaluated) and history, then captures that lose material.
    fn ordered(&self, pos: &Position, moves: &[Move], tt_move: Option<Move>, ply: usize) -> Vec<Move> {
        let priors = self.cache.get(&pos.key()).map(|c| &c.priors).filter(|p| p.len() == moves.len());
        let side = pos.turn().index() * 4096;
        let killers = self.killers[ply];
        let mut scored: Vec<(i64, Move)> = moves
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                let key = if Some(m) == tt_move {
                    4_000_000_000
                } else if is_tactical(pos, m) {
                    let s = i64::from(see(pos, m));
                    if s >= 0 {
                        3_000_000_000 + s * 1000 + i64::from(immediate_gain(pos, m))
                    } else {
                        -1_000_000_000 + s
                    }
                } else if killers[0] == Some(m) {
                    2_000_000_001
                } else if killers[1] == Some(m) {
                    2_000_000_000
                } else {
                    let prior = priors.map_or(0, |p| (f64::from(p[i]) * 1e8) as i64);
                    prior + i64::from(self.history[side + m.from().index() * 64 + m.to().index()])
                };
                (key, m)
            })
            .collect();
        scored.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
        scored.into_iter().map(|(_, m)| m).collect()
    }

    /// Principal variation search of the top of the stack to `depth` plies (then the
    /// quiescence search) within (alpha, beta).
    fn negamax(&mut self, mut depth: i32, ply: usize, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        self.pv[ply].clear();
        if self.poll(false) {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        if ply > 0 {
            if self.is_draw() {
                return 0;
            }
            // No line from here can be better than a mate now, nor worse than being mated.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let pos = self.top().clone();
        let in_check = pos.is_check();
        if in_check && ply < MAX_PLY / 2 {
            depth += 1;
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.frontier(ply, alpha, beta);
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if let Some(r) = self.root_moves.filter(|_| ply == 0) {
            moves.retain(|m| r.contains(m));
        }
        let key = pos.key();
        let entry = self.tt.probe(key);
        if let Some(e) = entry {
            if ply > 0 && !pv_node && e.depth >= depth {
                let s = from_table(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }
        // The evaluator's value of this node, when an earlier iteration (or search) had it
        // as a frontier node: it allows pruning without evaluating anything new.
        let static_eval = if in_check || pv_node { None } else { self.known_value(&pos) };
        if let Some(eval) = static_eval {
            if depth <= 2 && eval - REVERSE_FUTILITY_MARGIN * depth >= beta && !is_mate(beta) {
                return eval;
            }
            // Null move: if passing still holds beta at reduced depth, a real move will.
            if depth >= 3 && eval >= beta && !is_mate(beta) && has_pieces(&pos) {
                if let Some(null) = pos.null_move() {
                    self.stack.push(null);
                    let score = -self.negamax(depth - 3, ply + 1, -beta, -beta + 1);
                    self.pop();
                    if self.stopped {
                        return 0;
                    }
                    if score >= beta {
                        return if is_mate(score) { beta } else { score };
                    }
                }
            }
        }
        let futile = depth == 1 && static_eval.is_some_and(|e| e + FUTILITY_MARGIN <= alpha);
        let tt_move = match (ply, self.root_first) {
            (0, Some(first)) => Some(first),
            _ => entry.and_then(|e| e.mv),
        }
        .filter(|m| moves.contains(m));
        if ply < self.cfg.policy_plies {
            self.ensure_evaluated(std::slice::from_ref(&pos), false);
        }
        let mut order = self.ordered(&pos, &moves, tt_move, ply);
        if futile {
            // Only moves that change material or give check can lift a futile node.
            order.retain(|&m| is_tactical(&pos, m) || child(&pos, m).is_check());
            if order.is_empty() {
                return static_eval.map_or(alpha, |e| e + FUTILITY_MARGIN);
            }
        }
        // One ply above the frontier: evaluate the children that will be frontier nodes
        // together (a child in check is searched a ply deeper instead).
        let frontier_children = depth == 1 && self.cfg.leaf.uses_evaluator();
        let mut batched = 0;
        let alpha_orig = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        for (i, &m) in order.iter().enumerate() {
            if frontier_children && i >= batched {
                let n = if pv_node || i > 0 { order.len() - i } else { self.cfg.first_batch.max(1) };
                let children: Vec<Position> = order[i..(i + n).min(order.len())]
                    .iter()
                    .map(|&c| child(&pos, c))
                    .filter(|p| !p.is_check() && p.has_legal_moves())
                    .collect();
                batched = (i + n).min(order.len());
                self.ensure_evaluated(&children, true);
                if self.stopped {
                    return 0;
                }
            }
            let tactical = is_tactical(&pos, m);
            self.push(m);
            let gives_check = self.top().is_check();
            let quiet = !tactical && !gives_check && !in_check && !self.killers[ply].contains(&Some(m));
            let reduction = if depth >= 3 && i >= 3 && quiet { 1 + i32::from(depth >= 5 && i >= 10) } else { 0 };
            let new_depth = depth - 1;
            // A root move's bias shifts its window, so that the search below sees the
            // bounds its own (unbiased) score must beat. Not once a bound is a mate: no
            // bias changes how a move compares with a mate, and a shifted mate bound is
            // no bound at all (mate-distance pruning below would return a false mate).
            let bias = if ply == 0 && !is_found_mate(alpha) && !is_found_mate(beta) {
                self.root_bias.get(&m).copied().unwrap_or(0)
            } else {
                0
            };
            let (lo, hi) = (alpha - bias, beta - bias);
            let mut score;
            if i == 0 {
                score = -self.negamax(new_depth, ply + 1, -hi, -lo);
            } else {
                score = -self.negamax(new_depth - reduction, ply + 1, -lo - 1, -lo);
                if score > lo && reduction > 0 && !self.stopped {
                    score = -self.negamax(new_depth, ply + 1, -lo - 1, -lo);
                }
                if score > lo && score < hi && !self.stopped {
                    score = -self.negamax(new_depth, ply + 1, -hi, -lo);
                }
            }
            if !is_mate(score) {
                score += bias;
            }
            self.pop();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(m);
                    head[ply].extend_from_slice(&tail[0]);
                    if ply == 0 {
                        self.root_best = Some((m, score));
                    }
                    if alpha >= beta {
                        if !tactical {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            let h =
                                &mut self.history[pos.turn().index() * 4096 + m.from().index() * 64 + m.to().index()];
                            *h = (*h + depth * depth).min(1_000_000);
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(Entry { key, mv: best_move, score: to_table(best, ply), depth, bound });
        best
    }

    /// A frontier node: the quiescence search from it.
    fn frontier(&mut self, ply: usize, alpha: i32, beta: i32) -> i32 {
        self.quiesce(ply, alpha, beta, 0)
    }

    /// Quiescence search: the side to move may stand on the evaluator's value of its
    /// position or play a capture or promotion that does not lose material by static
    /// exchange (in check: any evasion), until the position is quiet. Every position's
    /// score is the evaluator's own value of it, so a capture the network already
    /// expects is not counted twice; the children of a node are evaluated in one batch,
    /// and only those that static exchange and delta pruning leave are evaluated at all.
    fn quiesce(&mut self, ply: usize, mut alpha: i32, beta: i32, qply: usize) -> i32 {
        self.nodes += 1;
        if self.poll(false) {
            return 0;
        }
        let pos = self.top().clone();
        let in_check = pos.is_check();
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if ply > 0 && self.is_draw() {
            return 0;
        }
        if self.cfg.leaf.uses_evaluator() {
            self.ensure_evaluated(std::slice::from_ref(&pos), false);
            if self.stopped {
                return 0;
            }
        }
        let stand = self.known_value(&pos).unwrap_or(0);
        let mut best = if in_check { -MATE + ply as i32 } else { stand };
        if !in_check {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        }
        if qply >= self.cfg.qsearch_plies || ply >= MAX_PLY - 1 {
            return stand;
        }
        let mut candidates: Vec<(i32, Move)> = moves
            .iter()
            .filter_map(|&m| {
                let gain = immediate_gain(&pos, m);
                if in_check {
                    return Some((gain, m));
                }
                if !is_tactical(&pos, m) || stand + gain + DELTA_MARGIN <= alpha {
                    return None;
                }
                let s = see(&pos, m);
                (s >= 0).then_some((s * 16 + gain, m))
            })
            .collect();
        candidates.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
        let children: Vec<Position> =
            candidates.iter().map(|&(_, m)| child(&pos, m)).filter(|p| !p.is_check() && p.has_legal_moves()).collect();
        if self.cfg.leaf.uses_evaluator() {
            self.ensure_evaluated(&children, true);
        }
        for (_, m) in candidates {
            self.push(m);
            let score = -self.quiesce(ply + 1, -beta, -alpha, qply + 1);
            self.pop();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// Whether a window bound is a mate score (the open bounds, ±[`INFINITE`], are not).
fn is_found_mate(bound: i32) -> bool {
    is_mate(bound) && bound.abs() < INFINITE
}

/// The position after `m`, a legal move of `pos`.
fn child(pos: &Position, m: Move) -> Position {
    let mut next = pos.clone();
    next.play_unchecked(m);
    next
}

/// Whether the side to move has a piece besides pawns and king on the board (null-move
/// pruning is unsafe in pawn endings, where zugzwang is common).
fn has_pieces(pos: &Position) -> bool {
    let us = pos.by_color(pos.turn());
    (us & !(pos.by_role(schess::Role::Pawn) | pos.by_role(schess::Role::King))).any()
}

/// Whether the last of `line` occurred before in it (same side to move, no irreversible
/// move between).
fn repeats(line: &[Position]) -> bool {
    let Some((pos, earlier)) = line.split_last() else { return false };
    let window = (pos.halfmove_clock() as usize).min(earlier.len());
    (2..=window).step_by(2).any(|back| earlier[earlier.len() - back].key() == pos.key())
}

#[cfg(test)]
mod tests;
