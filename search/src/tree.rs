//! Monte Carlo tree search for one game: PUCT with first-play urgency, Dirichlet noise,
//! forced playouts and policy-target pruning (KataGo), or a Gumbel root with sequential
//! halving (Danihelka et al. 2022).
//!
//! The search is driven from outside in two steps so that many games can share one
//! evaluator call: [`Tree::select_leaf`] walks down to a position that needs an evaluation
//! (terminal positions are scored by the rules and backed up on the spot), and
//! [`Tree::expand_and_backup`] takes the evaluation. [`Tree::search`] does both in a loop
//! for a single game.
//!
//! Values: `w` of a node sums the outcomes from the point of view of the player who made
//! the move into the node, so a parent picks the child with the highest `w / n`.
//!
//! With the solver on ([`SearchConfig::solver`]), results the tree proves travel up it:
//! a terminal position is proven; a position with a move proven to win is proven won for
//! its side to move; one whose moves are all proven is proven at the best of them. A
//! proven position is scored exactly, like a terminal one, instead of being searched
//! again, and the root plays a proven win and avoids a proven loss whatever the visits.

use crate::config::{RootMode, SearchConfig};
use crate::evaluator::{context_len, masked_softmax, Evaluation, Evaluator, MATERIAL_Q_SCALE};
use crate::exchange;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel};
use schess::{Move, Position};

const NO_POS: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Node {
    mv: Option<Move>,
    /// Prior used for selection (noised at the root).
    prior: f32,
    /// Prior from the evaluator (kept so noise never accumulates across moves).
    raw_prior: f32,
    n: u32,
    w: f32,
    d: f32,
    /// Leaves below (or at) this node selected but not yet backed up: each counts as a
    /// visit that lost for the player choosing it, so that leaves selected together for
    /// one evaluator call spread over the tree (virtual loss, as in lc0).
    in_flight: u32,
    first_child: u32,
    num_children: u32,
    expanded: bool,
    /// Position index into `Tree::positions` once computed.
    pos: u32,
    /// Score of a terminal position for its side to move, once known.
    terminal: Option<(f32, f32)>,
    /// The proven result for the player who made the move into this node (the solver).
    proof: Option<Proof>,
}

/// A result the tree has proven (the solver), for the player who made the move into a
/// node: at the root's moves, for the side to move at the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Proof {
    Loss,
    Draw,
    Win,
}

impl Proof {
    /// The same result from the other side.
    fn flip(self) -> Proof {
        match self {
            Proof::Loss => Proof::Win,
            Proof::Draw => Proof::Draw,
            Proof::Win => Proof::Loss,
        }
    }

    /// The proof of a terminal score (value, draw) for the side to move there.
    fn of_terminal(value: f32) -> Proof {
        if value > 0.0 {
            Proof::Loss
        } else if value < 0.0 {
            Proof::Win
        } else {
            Proof::Draw
        }
    }

    /// (value, draw probability) for the side to move at the proven node.
    fn score(self) -> (f32, f32) {
        match self {
            Proof::Win => (-1.0, 0.0),
            Proof::Draw => (0.0, 1.0),
            Proof::Loss => (1.0, 0.0),
        }
    }
}

impl Node {
    fn new(mv: Option<Move>, prior: f32) -> Node {
        Node {
            mv,
            prior,
            raw_prior: prior,
            n: 0,
            w: 0.0,
            d: 0.0,
            in_flight: 0,
            first_child: 0,
            num_children: 0,
            expanded: false,
            pos: NO_POS,
            terminal: None,
            proof: None,
        }
    }
    fn children(&self) -> std::ops::Range<usize> {
        self.first_child as usize..(self.first_child + self.num_children) as usize
    }
}

/// A leaf waiting for its evaluation: the node path from the root and the positions the
/// evaluator needs (game history tail + the path).
#[derive(Debug, Clone)]
pub struct Leaf {
    path: Vec<u32>,
    /// Positions ending with the leaf's position.
    pub history: Vec<Position>,
    /// Material the side to move at the leaf wins by captures (centipawns;
    /// [`exchange::resolve`]), added to its evaluation; 0 unless
    /// [`SearchConfig::resolve_captures`].
    gain: i32,
}

/// What one descent of [`Tree::select`] found.
enum Selection {
    Leaf(Leaf),
    /// A leaf already in flight: wait for its evaluation.
    Collision,
    /// Nothing to evaluate (every line met ends in a known result, or no legal move).
    Nothing,
}

/// State of a Gumbel root search.
#[derive(Debug, Clone, Default)]
struct GumbelState {
    /// Gumbel sample + logit per root child (indexed by child offset).
    scores: Vec<f32>,
    /// Children still in contention.
    remaining: Vec<usize>,
    /// This phase's plan: `planned` visits to the contenders in turn (`remaining` in
    /// order, round after round), of which `taken` are done. Kept as two counters, not a
    /// list of visits: a search without a node limit plans billions of them.
    planned: u64,
    taken: u64,
    budget: u32,
    phases: u32,
    phase: u32,
    c_visit: f32,
    c_scale: f32,
    rescale: bool,
}

/// Per-root-move statistics after a search.
#[derive(Debug, Clone, PartialEq)]
pub struct RootChild {
    pub mv: Move,
    pub visits: u32,
    pub prior: f32,
    /// Expected score (win - loss) for the side to move at the root, if visited.
    pub q: Option<f32>,
    /// The move's result, if the solver proved it.
    pub proof: Option<Proof>,
}

/// The search tree of one game's current position.
#[derive(Debug, Clone)]
pub struct Tree {
    nodes: Vec<Node>,
    positions: Vec<Position>,
    /// The game's positions up to and including the root.
    history: Vec<Position>,
    gumbel: Option<GumbelState>,
    /// The root's own evaluation (for FPU and Gumbel's completed Q).
    root_eval_q: f32,
    /// Positions of `history` passed to the evaluator with each leaf (its last ones).
    tail: usize,
    /// The root moves this search may choose (`go searchmoves`, a gating restriction);
    /// `None`: all. Set per search, never carried to the next root.
    root_moves: Option<Vec<Move>>,
}

/// Positions of the game history passed to the evaluator with each leaf at least: covers
/// the history planes of networks seeing up to `HISTORY_TAIL - 1` earlier positions. More
/// are passed when a repetition flag could look further back
/// ([`context_len`]).
const HISTORY_TAIL: usize = 12;

/// How deep [`exchange::resolve`] follows captures at a leaf: long enough for the usual
/// exchanges on one square and a second one beside it, short enough to cost little next
/// to a network call.
const RESOLVE_PLIES: usize = 8;

/// An evaluation's expected score and draw share with `gain` centipawns of material the
/// side to move can win added: in the logit space of [`crate::evaluator::material_q`], so
/// that a free knight moves an even position as far as material alone would value it,
/// and a position already won or lost moves little. The draw share shrinks to stay
/// consistent with the new score.
fn with_gain(eval: &Evaluation, gain: i32) -> (f32, f32) {
    let (q, d) = (eval.q(), eval.wdl[1]);
    if gain == 0 {
        return (q, d);
    }
    let q = (q.clamp(-0.999, 0.999).atanh() + gain as f32 / (100.0 * MATERIAL_Q_SCALE)).tanh();
    (q, d.min(1.0 - q.abs()))
}

/// Game positions the encoding of the root, and of every position below it, can read.
fn tail_len(history: &[Position]) -> usize {
    context_len(history, HISTORY_TAIL - 1).max(HISTORY_TAIL).min(history.len())
}

impl Tree {
    /// A tree for the last position of `history` (the game so far).
    pub fn new(history: Vec<Position>) -> Tree {
        assert!(!history.is_empty(), "a tree needs a root position");
        let root = history.last().expect("non-empty").clone();
        let mut root_node = Node::new(None, 1.0);
        root_node.pos = 0;
        let tail = tail_len(&history);
        Tree {
            nodes: vec![root_node],
            positions: vec![root],
            tail,
            history,
            gumbel: None,
            root_eval_q: 0.0,
            root_moves: None,
        }
    }

    pub fn root_position(&self) -> &Position {
        &self.positions[0]
    }

    /// Limits the moves the root may search and choose to `moves` (those of them that are
    /// legal; `None`, or none legal, lifts the limit). Call before [`Tree::setup_root`]:
    /// the Gumbel root draws its candidates from the allowed moves.
    pub fn restrict_root(&mut self, moves: Option<&[Move]>) {
        self.root_moves = crate::root_moves::limit(&self.positions[0], moves);
    }

    /// Whether root child `i` (a node index) may be searched and chosen.
    fn root_allows(&self, i: usize) -> bool {
        match (&self.root_moves, self.nodes[i].mv) {
            (Some(allowed), Some(mv)) => allowed.contains(&mv),
            _ => true,
        }
    }

    /// The root's children that may be chosen.
    fn allowed_root_children(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes[0].children().filter(|&i| self.root_allows(i))
    }

    pub fn root_visits(&self) -> u32 {
        self.nodes[0].n
    }

    pub fn is_root_expanded(&self) -> bool {
        self.nodes[0].expanded
    }

    /// Root value (win, draw, loss) for the side to move, from the visits so far.
    pub fn root_wdl(&self) -> [f32; 3] {
        let r = &self.nodes[0];
        if r.n == 0 {
            return [1.0 / 3.0; 3];
        }
        let q = -r.w / r.n as f32;
        let d = (r.d / r.n as f32).clamp(0.0, 1.0);
        let win = ((1.0 + q - d) / 2.0).clamp(0.0, 1.0);
        let loss = ((1.0 - q - d) / 2.0).clamp(0.0, 1.0);
        [win, d, loss]
    }

    /// Statistics of the root's moves.
    pub fn root_children(&self) -> Vec<RootChild> {
        self.nodes[0]
            .children()
            .map(|i| {
                let c = &self.nodes[i];
                RootChild {
                    mv: c.mv.expect("child has a move"),
                    visits: c.n,
                    prior: c.raw_prior,
                    q: (c.n > 0).then(|| c.w / c.n as f32),
                    proof: c.proof,
                }
            })
            .collect()
    }

    fn position_of(&mut self, node: usize, parent: usize) -> usize {
        if self.nodes[node].pos == NO_POS {
            let mut p = self.positions[self.nodes[parent].pos as usize].clone();
            p.play_unchecked(self.nodes[node].mv.expect("non-root node has a move"));
            self.positions.push(p);
            self.nodes[node].pos = (self.positions.len() - 1) as u32;
        }
        self.nodes[node].pos as usize
    }

    /// Rules-based score of the position at the end of `path`, if the game is over there:
    /// (value for its side to move, draw probability). Repeating any earlier position of
    /// the game or the path counts as a draw (search-time twofold rule).
    fn terminal_value(&self, path: &[u32]) -> Option<(f32, f32)> {
        let pos = &self.positions[self.nodes[*path.last()? as usize].pos as usize];
        if !pos.has_legal_moves() {
            return Some(if pos.is_check() { (-1.0, 0.0) } else { (0.0, 1.0) });
        }
        if pos.halfmove_clock() >= 100 || pos.is_insufficient_material() {
            return Some((0.0, 1.0));
        }
        let key = pos.key();
        let window = pos.halfmove_clock() as usize;
        let path_positions =
            path[1..path.len() - 1].iter().map(|&i| &self.positions[self.nodes[i as usize].pos as usize]);
        let earlier: Vec<&Position> = self.history.iter().chain(path_positions).collect();
        let repeated = earlier.iter().rev().take(window).skip(1).step_by(2).any(|p| p.key() == key);
        repeated.then_some((0.0, 1.0))
    }

    /// The first child of `node` proven to end in `result` for the side to move at `node`.
    fn proven_child(&self, node: usize, result: Proof) -> Option<usize> {
        self.nodes[node].children().find(|&i| self.nodes[i].proof == Some(result) && (node != 0 || self.root_allows(i)))
    }

    /// After the last node of `path` was proven: proves its ancestors in turn, as far as
    /// the new proof decides them. A position is won for its side to move once one move
    /// wins, and decided once every move is proven (at the best of them).
    fn propagate_proof(&mut self, path: &[u32]) {
        for &i in path[..path.len() - 1].iter().rev() {
            let node = i as usize;
            if self.nodes[node].proof.is_some() {
                return;
            }
            let children = self.nodes[node].children();
            let best = if self.proven_child(node, Proof::Win).is_some() {
                Proof::Win
            } else {
                match children.map(|c| self.nodes[c].proof).collect::<Option<Vec<_>>>() {
                    Some(all) => all.into_iter().max().unwrap_or(Proof::Draw),
                    None => return,
                }
            };
            self.nodes[node].proof = Some(best.flip());
        }
    }

    /// The root's move with a proven result, if the solver decided the choice: a proven
    /// win, or (when `chosen` is proven lost) the most visited move not proven lost.
    fn solver_override(&self, chosen: Option<Move>) -> Option<Move> {
        if let Some(i) = self.proven_child(0, Proof::Win) {
            return self.nodes[i].mv;
        }
        let lost = |i: usize| self.nodes[i].proof == Some(Proof::Loss);
        let chosen_lost = self.nodes[0].children().any(|i| self.nodes[i].mv == chosen && lost(i));
        if !chosen_lost {
            return None;
        }
        self.most_visited(self.allowed_root_children().filter(|&i| !lost(i))).and_then(|i| self.nodes[i].mv)
    }

    /// The root's move proven to win, when the solver is on.
    fn solver_win(&self, cfg: &SearchConfig) -> Option<usize> {
        cfg.solver.then(|| self.proven_child(0, Proof::Win)).flatten()
    }

    /// The most visited of `children` (ties broken by prior).
    fn most_visited(&self, children: impl Iterator<Item = usize>) -> Option<usize> {
        children.max_by(|&a, &b| {
            let (x, y) = (&self.nodes[a], &self.nodes[b]);
            x.n.cmp(&y.n).then(x.raw_prior.total_cmp(&y.raw_prior))
        })
    }

    /// Whether the root's result is proven (its search cannot change the move).
    pub fn root_proven(&self) -> bool {
        self.nodes[0].proof.is_some() || self.proven_child(0, Proof::Win).is_some()
    }

    fn select_child(&self, node: usize, is_root: bool, cfg: &SearchConfig, forced: bool) -> usize {
        let parent = &self.nodes[node];
        let range = parent.children();
        let parent_q = if parent.n > 0 { -parent.w / parent.n as f32 } else { self.root_eval_q };
        let visited_policy: f32 =
            range.clone().filter(|&i| self.nodes[i].n + self.nodes[i].in_flight > 0).map(|i| self.nodes[i].prior).sum();
        let reduction = if is_root { cfg.fpu_reduction_root } else { cfg.fpu_reduction };
        let fpu = parent_q - reduction * visited_policy.sqrt();
        let sqrt_n = ((parent.n + parent.in_flight).max(1) as f32).sqrt();
        let mut best = range.start;
        let mut best_score = f32::NEG_INFINITY;
        let skip_lost = cfg.solver && range.clone().any(|i| self.nodes[i].proof != Some(Proof::Loss));
        let restricted = is_root && self.root_moves.is_some();
        for i in range {
            let c = &self.nodes[i];
            if skip_lost && c.proof == Some(Proof::Loss) || restricted && !self.root_allows(i) {
                continue;
            }
            if forced && cfg.forced_playouts_k > 0.0 && c.n > 0 {
                let n_forced = (cfg.forced_playouts_k * c.prior * parent.n as f32).sqrt();
                if (c.n as f32) < n_forced {
                    return i;
                }
            }
            // Leaves in flight below the child count as lost visits.
            let n = c.n + c.in_flight;
            let q = if n > 0 { (c.w - c.in_flight as f32) / n as f32 } else { fpu };
            let score = q + cfg.c_puct * c.prior * sqrt_n / (1.0 + n as f32);
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        best
    }

    /// Walks from the root to a leaf that needs an evaluation and returns it. Terminal
    /// positions met on the way are backed up immediately; returns `None` when
    /// `max_terminal` of them in a row left nothing to evaluate (e.g. every line is mate).
    ///
    /// The leaf counts as in flight (a virtual loss on its path) until its evaluation is
    /// backed up by [`Tree::expand_and_backup`], which every selected leaf must get.
    pub fn select_leaf(&mut self, cfg: &SearchConfig, forced_playouts: bool, max_terminal: usize) -> Option<Leaf> {
        match self.select(cfg, forced_playouts, max_terminal) {
            Selection::Leaf(leaf) => Some(leaf),
            Selection::Collision | Selection::Nothing => None,
        }
    }

    /// Up to `max` leaves to evaluate together (in one evaluator call), spread over the
    /// tree by virtual loss; fewer when the next one would be a leaf already selected (the
    /// tree is too narrow for more) or nothing is left to evaluate. Empty only when
    /// [`Tree::select_leaf`] would return `None`.
    pub fn select_leaves(&mut self, cfg: &SearchConfig, max_terminal: usize, max: usize) -> Vec<Leaf> {
        let mut leaves = Vec::with_capacity(max);
        while leaves.len() < max.max(1) {
            match self.select(cfg, false, max_terminal) {
                Selection::Leaf(leaf) => leaves.push(leaf),
                Selection::Collision | Selection::Nothing => break,
            }
        }
        leaves
    }

    fn select(&mut self, cfg: &SearchConfig, forced_playouts: bool, max_terminal: usize) -> Selection {
        for _ in 0..max_terminal.max(1) {
            let mut path = vec![0u32];
            let mut node = 0usize;
            while self.nodes[node].expanded
                && self.nodes[node].num_children > 0
                && (node == 0 || self.nodes[node].proof.is_none())
            {
                let is_root = node == 0;
                let child = if is_root && self.gumbel.is_some() {
                    self.next_gumbel_child().unwrap_or_else(|| self.select_child(0, true, cfg, false))
                } else if let Some(won) = is_root.then(|| self.solver_win(cfg)).flatten() {
                    // Below the root a node with a proven win is proven itself, and the
                    // descent stops there before choosing among its moves.
                    won
                } else {
                    self.select_child(node, is_root, cfg, forced_playouts && is_root)
                };
                self.position_of(child, node);
                path.push(child as u32);
                node = child;
            }
            if node != 0 || self.nodes[0].expanded {
                if self.nodes[node].terminal.is_none() && node != 0 {
                    self.nodes[node].terminal = self.terminal_value(&path);
                    if let Some((v, _)) = self.nodes[node].terminal.filter(|_| cfg.solver) {
                        self.nodes[node].proof = Some(Proof::of_terminal(v));
                        self.propagate_proof(&path);
                    }
                }
                if let Some((v, d)) = self.nodes[node].terminal {
                    self.backup(&path, v, d);
                    continue;
                }
                if let Some(p) = self.nodes[node].proof.filter(|_| node != 0) {
                    let (v, d) = p.score();
                    self.backup(&path, v, d);
                    continue;
                }
                if self.nodes[node].expanded {
                    // The root with no legal moves: nothing to search.
                    return Selection::Nothing;
                }
            }
            if self.nodes[node].in_flight > 0 {
                // Selected already and waiting for its evaluation.
                return Selection::Collision;
            }
            let mut history: Vec<Position> = self.history[self.history.len() - self.tail..].to_vec();
            history.extend(path[1..].iter().map(|&i| self.positions[self.nodes[i as usize].pos as usize].clone()));
            let gain = if cfg.resolve_captures {
                exchange::resolve(history.last().expect("the leaf"), RESOLVE_PLIES)
            } else {
                0
            };
            for &i in &path {
                self.nodes[i as usize].in_flight += 1;
            }
            return Selection::Leaf(Leaf { path, history, gain });
        }
        Selection::Nothing
    }

    fn backup(&mut self, path: &[u32], value: f32, draw: f32) {
        let mut v = -value;
        for &i in path.iter().rev() {
            let n = &mut self.nodes[i as usize];
            n.n += 1;
            n.w += v;
            n.d += draw;
            v = -v;
        }
    }

    /// Expands the leaf with its evaluation and backs the value up the path.
    pub fn expand_and_backup(&mut self, leaf: &Leaf, eval: &Evaluation) {
        let node = *leaf.path.last().expect("path has the root") as usize;
        let (q, d) = with_gain(eval, leaf.gain);
        for &i in &leaf.path {
            let n = &mut self.nodes[i as usize];
            n.in_flight = n.in_flight.saturating_sub(1);
        }
        if !self.nodes[node].expanded {
            let pos = &self.positions[self.nodes[node].pos as usize];
            let moves = pos.legal_moves();
            let first = self.nodes.len() as u32;
            for (k, m) in moves.iter().enumerate() {
                let p = eval.priors.get(k).copied().unwrap_or(0.0);
                self.nodes.push(Node::new(Some(*m), p));
            }
            let n = &mut self.nodes[node];
            n.first_child = first;
            n.num_children = moves.len() as u32;
            n.expanded = true;
            if node == 0 {
                self.root_eval_q = q;
            }
        }
        self.backup(&leaf.path, q, d);
    }

    /// Mixes Dirichlet noise into the root priors (call after the root is expanded).
    pub fn add_root_noise(&mut self, cfg: &SearchConfig, rng: &mut impl Rng) {
        let range = self.nodes[0].children();
        let n = range.len();
        if n < 2 || cfg.noise_epsilon <= 0.0 {
            return;
        }
        let alpha = (cfg.noise_alpha * cfg.noise_alpha_moves / n as f32).max(0.01);
        let gamma = Gamma::new(alpha as f64, 1.0).expect("positive alpha");
        let samples: Vec<f64> = (0..n).map(|_| gamma.sample(rng)).collect();
        let sum: f64 = samples.iter().sum::<f64>().max(1e-12);
        for (i, s) in range.zip(samples) {
            let c = &mut self.nodes[i];
            c.prior = (1.0 - cfg.noise_epsilon) * c.raw_prior + cfg.noise_epsilon * (s / sum) as f32;
        }
    }

    /// Resets root priors to the evaluator's (no noise).
    pub fn clear_root_noise(&mut self) {
        for i in self.nodes[0].children() {
            self.nodes[i].prior = self.nodes[i].raw_prior;
        }
    }

    /// Starts a Gumbel root search with `budget` simulations (root must be expanded).
    /// `noise` adds the Gumbel samples (self-play); without it the choice is deterministic.
    pub fn start_gumbel(&mut self, cfg: &SearchConfig, budget: u32, noise: bool, rng: &mut impl Rng) {
        let range = self.nodes[0].children();
        let n = range.len();
        if n == 0 {
            self.gumbel = None;
            return;
        }
        let gumbel = Gumbel::new(0.0f32, 1.0).expect("valid Gumbel");
        let scores: Vec<f32> = range
            .map(|i| {
                let g = if noise { gumbel.sample(rng) } else { 0.0 };
                g + self.nodes[i].raw_prior.max(1e-20).ln()
            })
            .collect();
        let m = cfg.gumbel_actions.clamp(1, self.allowed_root_children().count().max(1));
        // Equal scores (equal priors without noise, e.g. a fresh network) are ordered at
        // random, not by move generation order: otherwise every noise-free search of a
        // uniform network would consider the first m legal moves and play the same one.
        let first = self.nodes[0].first_child as usize;
        let mut order: Vec<usize> = (0..n).filter(|&k| self.root_allows(first + k)).collect();
        order.shuffle(rng);
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        order.truncate(m);
        let phases = (m as f32).log2().ceil().max(1.0) as u32;
        let mut st = GumbelState {
            scores,
            remaining: order,
            planned: 0,
            taken: 0,
            budget,
            phases,
            phase: 0,
            c_visit: cfg.gumbel_c_visit,
            c_scale: cfg.gumbel_c_scale,
            rescale: cfg.gumbel_rescale_q,
        };
        Self::plan_gumbel_phase(&mut st);
        self.gumbel = Some(st);
    }

    fn plan_gumbel_phase(st: &mut GumbelState) {
        let per = (st.budget / (st.phases * st.remaining.len() as u32)).max(1);
        st.planned = u64::from(per) * st.remaining.len() as u64;
        st.taken = 0;
    }

    /// sigma(completed Q) of every root child (the paper's monotone transform):
    /// `(c_visit + max N) * c_scale * q`, with q rescaled to [0, 1] by the smallest and
    /// largest completed Q at the root (mctx's default), or mapped from [-1, 1] to [0, 1]
    /// without rescaling.
    fn sigmas(&self) -> Vec<f32> {
        let cq = self.completed_q();
        let (c_visit, c_scale, rescale) =
            self.gumbel.as_ref().map_or((50.0, 0.1, true), |g| (g.c_visit, g.c_scale, g.rescale));
        let max_n = self.nodes[0].children().map(|i| self.nodes[i].n).max().unwrap_or(0);
        let factor = (c_visit + max_n as f32) * c_scale;
        let (lo, hi) = cq.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &q| (lo.min(q), hi.max(q)));
        cq.iter()
            .map(|&q| {
                let unit = if rescale { (q - lo) / (hi - lo).max(1e-8) } else { (q + 1.0) / 2.0 };
                factor * unit
            })
            .collect()
    }

    fn next_gumbel_child(&mut self) -> Option<usize> {
        let first = self.nodes[0].first_child as usize;
        let st = self.gumbel.as_ref()?;
        if st.taken >= st.planned {
            if st.remaining.len() > 1 && st.phase + 1 < st.phases {
                self.halve_gumbel();
            } else {
                Self::plan_gumbel_phase(self.gumbel.as_mut()?);
            }
        }
        let st = self.gumbel.as_mut()?;
        let k = st.remaining[(st.taken % st.remaining.len() as u64) as usize];
        st.taken += 1;
        Some(first + k)
    }

    /// Sequential halving: keeps the better half of the contenders by
    /// gumbel + logit + sigma(completed Q) and plans the next phase's visits.
    fn halve_gumbel(&mut self) {
        let sigma = self.sigmas();
        let st = self.gumbel.as_mut().expect("gumbel state");
        let mut ranked: Vec<(usize, f32)> = st.remaining.iter().map(|&k| (k, st.scores[k] + sigma[k])).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let keep = (ranked.len() / 2).max(1);
        st.remaining = ranked.into_iter().take(keep).map(|(k, _)| k).collect();
        st.phase += 1;
        Self::plan_gumbel_phase(st);
    }

    /// Completed Q of each root child for the side to move (visited: its Q; unvisited:
    /// the mixed value estimate of the paper).
    fn completed_q(&self) -> Vec<f32> {
        let range = self.nodes[0].children();
        let total_n: u32 = range.clone().map(|i| self.nodes[i].n).sum();
        let visited_prior: f32 = range.clone().filter(|&i| self.nodes[i].n > 0).map(|i| self.nodes[i].raw_prior).sum();
        let weighted_q: f32 = range
            .clone()
            .filter(|&i| self.nodes[i].n > 0)
            .map(|i| self.nodes[i].raw_prior * self.nodes[i].w / self.nodes[i].n as f32)
            .sum();
        let v_mix = if visited_prior > 0.0 {
            (self.root_eval_q + total_n as f32 / visited_prior * weighted_q) / (1.0 + total_n as f32)
        } else {
            self.root_eval_q
        };
        range.map(|i| if self.nodes[i].n > 0 { self.nodes[i].w / self.nodes[i].n as f32 } else { v_mix }).collect()
    }

    /// The move the Gumbel search settles on: the best remaining action by
    /// gumbel + logit + sigma(q) (the first of equals, in the random order of ties).
    pub fn gumbel_choice(&self) -> Option<Move> {
        let st = self.gumbel.as_ref()?;
        let first = self.nodes[0].first_child as usize;
        let sigma = self.sigmas();
        let mut best: Option<(usize, f32)> = None;
        for &k in &st.remaining {
            let score = st.scores[k] + sigma[k];
            // (is_none_or would need Rust 1.82; the workspace supports 1.80.)
            if match best {
                None => true,
                Some((_, b)) => score > b,
            } {
                best = Some((k, score));
            }
        }
        let choice = best.and_then(|(k, _)| self.nodes[first + k].mv);
        self.solver_override(choice).or(choice)
    }

    /// The value a position's training target should take from the search, W/D/L for
    /// the side to move. PUCT: the root's visit-weighted mean. Gumbel: the mean under the
    /// improved policy of the completed values, Σ π'(a) · v(a): sequential halving spends
    /// most early visits on actions it then discards, so the visit mean of a small search
    /// drags the value towards those actions' (poor) results.
    pub fn value_target(&self) -> [f32; 3] {
        if self.gumbel.is_none() || !self.nodes[0].expanded || self.nodes[0].num_children == 0 {
            return self.root_wdl();
        }
        let pi = self.improved_policy();
        let cq = self.completed_q();
        let root = &self.nodes[0];
        let root_d = if root.n > 0 { (root.d / root.n as f32).clamp(0.0, 1.0) } else { 0.0 };
        let mut wdl = [0.0f32; 3];
        for ((i, &p), &q) in self.nodes[0].children().zip(&pi).zip(&cq) {
            let c = &self.nodes[i];
            let d = if c.n > 0 { (c.d / c.n as f32).clamp(0.0, 1.0) } else { root_d };
            let w = ((1.0 + q - d) / 2.0).clamp(0.0, 1.0);
            let l = ((1.0 - q - d) / 2.0).clamp(0.0, 1.0);
            wdl[0] += p * w;
            wdl[1] += p * d;
            wdl[2] += p * l;
        }
        let sum = wdl.iter().sum::<f32>().max(1e-12);
        wdl.map(|x| x / sum)
    }

    /// Gumbel's improved policy: softmax(logits + sigma(completed Q)) over all root moves.
    fn improved_policy(&self) -> Vec<f32> {
        let sigma = self.sigmas();
        let logits: Vec<f32> =
            self.nodes[0].children().zip(&sigma).map(|(i, &s)| self.nodes[i].raw_prior.max(1e-20).ln() + s).collect();
        let idx: Vec<usize> = (0..logits.len()).collect();
        masked_softmax(&logits, &idx)
    }

    /// The search's policy target over the root's moves (in legal-move order), summing to 1.
    ///
    /// PUCT: visit counts, with forced playouts pruned when `prune` is set. Gumbel:
    /// softmax(logits + sigma(completed Q)).
    pub fn policy_target(&self, cfg: &SearchConfig, prune: bool) -> Vec<f32> {
        let range = self.nodes[0].children();
        if range.is_empty() {
            return Vec::new();
        }
        if self.gumbel.is_some() {
            return self.improved_policy();
        }
        let mut visits: Vec<f32> = range.clone().map(|i| self.nodes[i].n as f32).collect();
        if prune && cfg.forced_playouts_k > 0.0 {
            let total = self.nodes[0].n.max(1) as f32;
            let sqrt_n = total.sqrt();
            let (best_k, best) = range
                .clone()
                .enumerate()
                .max_by_key(|(_, i)| self.nodes[*i].n)
                .map(|(k, i)| (k, &self.nodes[i]))
                .expect("non-empty");
            let best_q = if best.n > 0 { best.w / best.n as f32 } else { 0.0 };
            let best_u = best_q + cfg.c_puct * best.prior * sqrt_n / (1.0 + best.n as f32);
            for (k, i) in range.clone().enumerate() {
                let c = &self.nodes[i];
                if k == best_k || c.n == 0 {
                    continue;
                }
                let q = c.w / c.n as f32;
                let n_forced = (cfg.forced_playouts_k * c.prior * total).sqrt();
                let gap = best_u - q;
                let min_n =
                    if gap > 0.0 { (cfg.c_puct * c.prior * sqrt_n / gap - 1.0).ceil().max(0.0) } else { c.n as f32 };
                let reduced = (c.n as f32 - n_forced).max(min_n).min(c.n as f32);
                visits[k] = if reduced <= 1.0 { 0.0 } else { reduced };
            }
        }
        let sum: f32 = visits.iter().sum();
        if sum <= 0.0 {
            let n = visits.len() as f32;
            return vec![1.0 / n; visits.len()];
        }
        visits.iter().map(|v| v / sum).collect()
    }

    /// The most visited root move (ties broken by prior); with the solver's proofs, a
    /// proven win first and a proven loss last.
    pub fn best_move(&self) -> Option<Move> {
        let most_visited = self.most_visited(self.allowed_root_children()).and_then(|i| self.nodes[i].mv);
        self.solver_override(most_visited).or(most_visited)
    }

    /// Samples a root move with probability proportional to visits^(1/temperature).
    /// A proven win is played and a proven loss never sampled while another move is not.
    pub fn sample_move(&self, temperature: f32, rng: &mut impl Rng) -> Option<Move> {
        if let Some(i) = self.proven_child(0, Proof::Win) {
            return self.nodes[i].mv;
        }
        let range = self.nodes[0].children();
        let lost = |i: usize| self.nodes[i].proof == Some(Proof::Loss);
        let skip_lost = range.clone().any(|i| !lost(i) && self.root_allows(i));
        let weights: Vec<f64> = range
            .clone()
            .map(|i| {
                if skip_lost && lost(i) || !self.root_allows(i) {
                    0.0
                } else {
                    (self.nodes[i].n as f64).powf(1.0 / temperature.max(1e-3) as f64)
                }
            })
            .collect();
        let sum: f64 = weights.iter().sum();
        if sum <= 0.0 {
            return self.best_move();
        }
        let mut x = rng.gen::<f64>() * sum;
        for (i, w) in range.zip(weights) {
            if x < w {
                return self.nodes[i].mv;
            }
            x -= w;
        }
        self.best_move()
    }

    /// The principal variation: most visited moves from the root down.
    pub fn principal_variation(&self, max_len: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut node = 0usize;
        while pv.len() < max_len && self.nodes[node].expanded {
            let Some(best) = self.nodes[node]
                .children()
                .filter(|&i| self.nodes[i].n > 0 && (node != 0 || self.root_allows(i)))
                .max_by_key(|&i| self.nodes[i].n)
            else {
                break;
            };
            pv.push(self.nodes[best].mv.expect("child move"));
            node = best;
        }
        pv
    }

    /// Moves the root to the child reached by `mv`, keeping its subtree (tree reuse).
    /// Returns a fresh tree if that child was never expanded.
    pub fn advance(self, mv: Move) -> Tree {
        let mut history = self.history;
        let mut next_pos = history.last().expect("root").clone();
        next_pos.play_unchecked(mv);
        history.push(next_pos.clone());
        let child = self.nodes[0].children().find(|&i| self.nodes[i].mv == Some(mv));
        let Some(child) = child.filter(|&c| self.nodes[c].expanded) else {
            return Tree::new(history);
        };
        // Copy the subtree breadth-first into a fresh arena.
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let mut positions = Vec::new();
        let mut root = self.nodes[child].clone();
        root.mv = None;
        root.pos = NO_POS;
        nodes.push(root);
        positions.push(next_pos);
        nodes[0].pos = 0;
        let mut queue = vec![(child, 0usize)];
        while let Some((old, new)) = queue.pop() {
            let range = self.nodes[old].children();
            let first = nodes.len();
            for i in range.clone() {
                let mut n = self.nodes[i].clone();
                if n.pos != NO_POS {
                    positions.push(self.positions[n.pos as usize].clone());
                    n.pos = (positions.len() - 1) as u32;
                }
                nodes.push(n);
            }
            nodes[new].first_child = first as u32;
            for (k, i) in range.enumerate() {
                if self.nodes[i].expanded {
                    queue.push((i, first + k));
                }
            }
        }
        let tail = tail_len(&history);
        let mut tree = Tree { nodes, positions, tail, history, gumbel: None, root_eval_q: 0.0, root_moves: None };
        tree.root_eval_q = if tree.nodes[0].n > 0 { -tree.nodes[0].w / tree.nodes[0].n as f32 } else { 0.0 };
        tree.clear_root_noise();
        tree
    }

    /// Runs `simulations` playouts for this tree alone (batch of one leaf at a time).
    pub fn search(
        &mut self,
        evaluator: &dyn Evaluator,
        cfg: &SearchConfig,
        simulations: u32,
        noise: bool,
        rng: &mut impl Rng,
    ) -> anyhow::Result<()> {
        self.prepare_root(evaluator, cfg, simulations, noise, rng)?;
        let target = self.root_visits() + simulations;
        while self.root_visits() < target {
            let Some(leaf) = self.select_leaf(cfg, noise, 64) else { break };
            self.evaluate_leaf(evaluator, &leaf)?;
        }
        Ok(())
    }

    /// Evaluates one leaf on its own and backs it up.
    fn evaluate_leaf(&mut self, evaluator: &dyn Evaluator, leaf: &Leaf) -> anyhow::Result<()> {
        let eval = evaluator.evaluate(&[&leaf.history])?;
        let eval = eval.first().ok_or_else(|| anyhow::anyhow!("evaluator returned no evaluation"))?;
        self.expand_and_backup(leaf, eval);
        Ok(())
    }

    /// Expands the root if needed, then sets up noise or the Gumbel root for a search of
    /// `simulations` playouts.
    pub fn prepare_root(
        &mut self,
        evaluator: &dyn Evaluator,
        cfg: &SearchConfig,
        simulations: u32,
        noise: bool,
        rng: &mut impl Rng,
    ) -> anyhow::Result<()> {
        if !self.nodes[0].expanded {
            if let Some(leaf) = self.select_leaf(cfg, false, 1) {
                self.evaluate_leaf(evaluator, &leaf)?;
            }
        }
        self.setup_root(cfg, simulations, noise, rng);
        Ok(())
    }

    /// Noise or Gumbel setup once the root is expanded.
    pub fn setup_root(&mut self, cfg: &SearchConfig, simulations: u32, noise: bool, rng: &mut impl Rng) {
        self.clear_root_noise();
        match cfg.root_mode {
            RootMode::Puct => {
                self.gumbel = None;
                if noise {
                    self.add_root_noise(cfg, rng);
                }
            }
            RootMode::Gumbel => self.start_gumbel(cfg, simulations, noise, rng),
        }
    }

    /// The move to play after a search: Gumbel's choice, or visits with temperature.
    pub fn choose_move(&self, temperature: f32, rng: &mut impl Rng) -> Option<Move> {
        if self.gumbel.is_some() {
            return self.gumbel_choice();
        }
        if temperature > 0.0 {
            self.sample_move(temperature, rng)
        } else {
            self.best_move()
        }
    }
}
