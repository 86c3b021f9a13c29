//! Self-play: many games per worker thread, their leaves evaluated in one batch per round.
//!
//! Every slot is kept busy: a finished game's slot starts the next game at once, and the
//! network is consulted afresh for every batch ([`NetworkSource`]), so a pipeline can
//! hand self-play a new best network without stopping it: games then continue with the
//! new network from their next move.

use crate::config::{MaxLengthResult, SelfplayConfig};
use crate::shard::{GameRecord, Sample};
use models::policy_index::index_of;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use schess::{Color, Game, Position, Termination, Variant};
use search::{Evaluation, Evaluator, Leaf, RootMode, Tree};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, RwLock};

/// Settings of one self-play batch beyond the config.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Games to play (`usize::MAX`: until stopped).
    pub games: usize,
    /// Generation recorded in the games (with a fixed evaluator; see [`play`]).
    pub generation: u32,
    pub seed: u64,
}

/// The network self-play plays with, asked for every batch of leaves.
pub trait NetworkSource: Sync {
    /// The generation of the current network (recorded in each game it starts).
    fn generation(&self) -> u32;
    /// Evaluates a batch with the current network.
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>>;
    /// The current network's (calls, positions) so far, if it counts them.
    fn batch_stats(&self) -> Option<(u64, u64)>;
}

/// One evaluator for the whole run.
pub struct FixedNetwork<'a> {
    pub generation: u32,
    pub evaluator: &'a dyn Evaluator,
}

impl NetworkSource for FixedNetwork<'_> {
    fn generation(&self) -> u32 {
        self.generation
    }
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        self.evaluator.evaluate(histories)
    }
    fn batch_stats(&self) -> Option<(u64, u64)> {
        self.evaluator.batch_stats()
    }
}

/// A network that can be replaced while self-play runs (a pipeline's best network).
pub struct SwappableNetwork {
    current: RwLock<(u32, Arc<dyn Evaluator>)>,
    /// (calls, positions) of the networks replaced so far.
    retired: std::sync::Mutex<(u64, u64)>,
}

impl SwappableNetwork {
    pub fn new(generation: u32, evaluator: Arc<dyn Evaluator>) -> Self {
        SwappableNetwork { current: RwLock::new((generation, evaluator)), retired: Default::default() }
    }

    /// Self-play uses `evaluator` from its next batch on.
    pub fn replace(&self, generation: u32, evaluator: Arc<dyn Evaluator>) {
        let old =
            std::mem::replace(&mut *self.current.write().unwrap_or_else(|p| p.into_inner()), (generation, evaluator));
        if let Some((c, r)) = old.1.batch_stats() {
            let mut t = self.retired.lock().unwrap_or_else(|p| p.into_inner());
            *t = (t.0 + c, t.1 + r);
        }
    }

    fn get(&self) -> (u32, Arc<dyn Evaluator>) {
        let g = self.current.read().unwrap_or_else(|p| p.into_inner());
        (g.0, Arc::clone(&g.1))
    }
}

impl NetworkSource for SwappableNetwork {
    fn generation(&self) -> u32 {
        self.get().0
    }
    fn evaluate(&self, histories: &[&[Position]]) -> anyhow::Result<Vec<Evaluation>> {
        // The lock is held only to clone the handle, never during the evaluation.
        let evaluator = self.get().1;
        evaluator.evaluate(histories)
    }
    /// Counts of every network this source has held, so that rates stay continuous
    /// across swaps.
    fn batch_stats(&self) -> Option<(u64, u64)> {
        let (c, r) = self.get().1.batch_stats()?;
        let t = *self.retired.lock().unwrap_or_else(|p| p.into_inner());
        Some((t.0 + c, t.1 + r))
    }
}

/// One game in progress.
struct Slot {
    game: Game,
    /// Generation of the network when the game started.
    generation: u32,
    tree: Tree,
    full: bool,
    setup_done: bool,
    target: u32,
    samples: Vec<Sample>,
    resign_disabled: bool,
    resign_streak: [u32; 2],
    would_resign: Option<Color>,
    resigned: Option<Color>,
}

impl Slot {
    fn new(cfg: &SelfplayConfig, start: &Position, generation: u32, rng: &mut impl Rng) -> Slot {
        let game = Game::new(start.clone());
        Slot {
            tree: Tree::new(game.positions().to_vec()),
            game,
            generation,
            full: rng.gen::<f32>() < cfg.full_search_fraction,
            setup_done: false,
            target: 0,
            samples: Vec::new(),
            resign_disabled: cfg.resign_threshold >= 1.0 || rng.gen::<f32>() < cfg.resign_disabled_fraction,
            resign_streak: [0, 0],
            would_resign: None,
            resigned: None,
        }
    }

    fn simulations(&self, cfg: &SelfplayConfig) -> u32 {
        if self.full {
            cfg.simulations
        } else {
            cfg.fast_simulations.max(1)
        }
    }

    /// Advances this game until it needs an evaluation (returns the leaf) or ends
    /// (returns `None`; the game is then over).
    fn next_leaf(&mut self, cfg: &SelfplayConfig, rng: &mut impl Rng) -> Option<Leaf> {
        loop {
            if self.finished(cfg).is_some() {
                return None;
            }
            if !self.tree.is_root_expanded() {
                if let Some(leaf) = self.tree.select_leaf(&cfg.search, false, 1) {
                    return Some(leaf);
                }
            }
            if !self.setup_done {
                let sims = self.simulations(cfg);
                // Full searches always explore (Dirichlet or Gumbel noise). Fast ones do in
                // the opening too under Gumbel, where the noise is what picks the move:
                // without it every fast-search opening would repeat.
                let opening = (self.game.ply() as u32) < cfg.temperature_plies;
                let noise = self.full || (opening && cfg.search.root_mode == RootMode::Gumbel);
                self.tree.setup_root(&cfg.search, sims, noise, rng);
                self.target = self.tree.root_visits() + sims;
                self.setup_done = true;
            }
            if self.tree.root_visits() < self.target {
                if let Some(leaf) = self.tree.select_leaf(&cfg.search, self.full, 64) {
                    return Some(leaf);
                }
            }
            self.finish_move(cfg, rng);
        }
    }

    fn finish_move(&mut self, cfg: &SelfplayConfig, rng: &mut impl Rng) {
        let pos = self.game.position().clone();
        let turn = pos.turn();
        if self.full {
            let target = self.tree.policy_target(&cfg.search, true);
            let moves = pos.legal_moves();
            let policy: Vec<(u16, f32)> = moves
                .iter()
                .zip(&target)
                .filter(|(_, &p)| p > 0.0)
                .map(|(&m, &p)| (index_of(m, turn).expect("legal move index") as u16, p))
                .collect();
            self.samples.push(Sample {
                ply: self.game.ply() as u16,
                policy,
                root_wdl: self.tree.value_target(),
                visits: self.tree.root_visits(),
            });
        }
        // Resignation: the best move's expected score stays below -threshold.
        let best_q = self.tree.root_children().iter().filter_map(|c| c.q).fold(f32::NEG_INFINITY, f32::max);
        if best_q.is_finite() && best_q < -cfg.resign_threshold {
            self.resign_streak[turn.index()] += 1;
        } else {
            self.resign_streak[turn.index()] = 0;
        }
        if self.resign_streak[turn.index()] >= cfg.resign_plies.max(1) && cfg.resign_threshold < 1.0 {
            if self.resign_disabled {
                self.would_resign.get_or_insert(turn);
            } else {
                self.resigned = Some(turn);
                return;
            }
        }
        let temperature = if (self.game.ply() as u32) < cfg.temperature_plies { cfg.temperature } else { 0.0 };
        let mv = self.tree.choose_move(temperature, rng).expect("a position with legal moves");
        self.game.play_unchecked(mv);
        let tree = std::mem::replace(&mut self.tree, Tree::new(vec![Position::startpos()]));
        self.tree = tree.advance(mv);
        self.setup_done = false;
        self.full = rng.gen::<f32>() < cfg.full_search_fraction;
    }

    /// The result (from White's view) and termination if the game is over.
    fn finished(&self, cfg: &SelfplayConfig) -> Option<(i8, Termination)> {
        if let Some(loser) = self.resigned {
            return Some((if loser == Color::White { -1 } else { 1 }, Termination::Resignation));
        }
        if let Some(outcome) = self.game.outcome() {
            return Some((outcome.result().score_for(Color::White), outcome.into()));
        }
        if self.game.ply() as u32 >= cfg.max_plies {
            if cfg.max_length_result == MaxLengthResult::Material {
                let lead = schess::material::weighted_balance(self.game.position(), cfg.material_hand_weight);
                if lead.abs() >= cfg.material_margin.max(1) as f32 {
                    return Some((if lead > 0.0 { 1 } else { -1 }, Termination::MaterialAdjudication));
                }
            }
            return Some((0, Termination::MaxLength));
        }
        None
    }

    fn into_record(self, cfg: &SelfplayConfig) -> GameRecord {
        let (result, termination) = self.finished(cfg).expect("finished game");
        GameRecord {
            variant: self.game.start().variant().name().to_string(),
            start_fen: self.game.start().fen(),
            moves: self.game.moves().iter().map(|m| m.to_uci()).collect(),
            samples: self.samples,
            result,
            termination,
            generation: self.generation,
            resign_disabled: self.resign_disabled,
            would_have_resigned: self.would_resign.map(|c| c.char()),
        }
    }
}

/// Plays `opts.games` self-play games with `threads` workers, sending each finished game
/// to `sink` as it completes. When `stop` is set it returns promptly, dropping unfinished
/// games.
pub fn play(
    cfg: &SelfplayConfig,
    evaluator: &dyn Evaluator,
    opts: &RunOptions,
    stop: &AtomicBool,
    sink: mpsc::Sender<GameRecord>,
) -> anyhow::Result<()> {
    play_from(cfg, &FixedNetwork { generation: opts.generation, evaluator }, opts, stop, sink)
}

/// [`play`] with the network taken from `network` for every batch (`opts.generation` is
/// not used: each game records the generation it started with).
pub fn play_from(
    cfg: &SelfplayConfig,
    network: &dyn NetworkSource,
    opts: &RunOptions,
    stop: &AtomicBool,
    sink: mpsc::Sender<GameRecord>,
) -> anyhow::Result<()> {
    let variant = Variant::from_name(&cfg.variant).ok_or_else(|| {
        anyhow::anyhow!("unknown variant {:?} (seirawan, seirawan-forced, seirawan-placement or chess)", cfg.variant)
    })?;
    let start = Position::new(variant);
    let threads = cfg.worker_threads();
    let started = AtomicUsize::new(0);
    let errors = std::sync::Mutex::new(Vec::new());
    // A dedicated rayon pool with one long-lived worker per thread (each runs many games).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("selfplay-{i}"))
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start self-play threads: {e}"))?;
    // Every worker gets its share of a short batch of games up front; refills then come
    // from the shared count, so no worker sits idle while another has games queued.
    let per_worker = cfg.games_per_thread.max(1).min(opts.games.div_ceil(threads).max(1));
    pool.scope(|scope| {
        for t in 0..threads {
            let sink = sink.clone();
            let (started, errors, start) = (&started, &errors, &start);
            scope.spawn(move |_| {
                if cfg.torch_threads > 0 {
                    // Per thread: libtorch's intra-op thread count is thread-local once set.
                    models::tch::set_num_threads(cfg.torch_threads as i32);
                }
                let mut rng = SmallRng::seed_from_u64(opts.seed ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let w = Worker { cfg, network, opts, start, started, stop, sink: &sink, slots: per_worker };
                if let Err(e) = w.run(&mut rng) {
                    errors.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                    stop.store(true, Ordering::Relaxed);
                }
            });
        }
    });
    match errors.into_inner().unwrap_or_else(|p| p.into_inner()).pop() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// One self-play worker thread and what it shares with the others.
struct Worker<'a> {
    cfg: &'a SelfplayConfig,
    network: &'a dyn NetworkSource,
    opts: &'a RunOptions,
    start: &'a Position,
    started: &'a AtomicUsize,
    stop: &'a AtomicBool,
    sink: &'a mpsc::Sender<GameRecord>,
    /// Games in flight.
    slots: usize,
}

impl Worker<'_> {
    /// Claims one more game of the run, unless stopped or all are claimed.
    fn claim(&self) -> bool {
        !self.stop.load(Ordering::Relaxed) && self.started.fetch_add(1, Ordering::Relaxed) < self.opts.games
    }

    fn run(&self, rng: &mut SmallRng) -> anyhow::Result<()> {
        let cfg = self.cfg;
        let mut slots: Vec<Slot> = Vec::new();
        for _ in 0..self.slots {
            if !self.claim() {
                break;
            }
            slots.push(Slot::new(cfg, self.start, self.network.generation(), rng));
        }
        while !slots.is_empty() {
            if self.stop.load(Ordering::Relaxed) {
                // Abandon the games in flight: a stop must be prompt, and a half-played
                // game is not a sample.
                return Ok(());
            }
            let mut leaves: Vec<(usize, Leaf)> = Vec::with_capacity(slots.len());
            let mut i = 0;
            while i < slots.len() {
                match slots[i].next_leaf(cfg, rng) {
                    Some(leaf) => {
                        leaves.push((i, leaf));
                        i += 1;
                    }
                    None => {
                        let done = slots.swap_remove(i);
                        // Leaves already collected keep their slot indices: the swapped-in
                        // slot has not been visited yet this round.
                        if self.sink.send(done.into_record(cfg)).is_err() {
                            // Nobody takes games any more (the writer failed and said why):
                            // playing on would only burn the CPU, and keep its caller
                            // waiting for this thread for ever.
                            return Ok(());
                        }
                        if self.claim() {
                            slots.push(Slot::new(cfg, self.start, self.network.generation(), rng));
                        }
                    }
                }
            }
            if leaves.is_empty() {
                continue;
            }
            let histories: Vec<&[Position]> = leaves.iter().map(|(_, l)| l.history.as_slice()).collect();
            let evals = self.network.evaluate(&histories)?;
            anyhow::ensure!(
                evals.len() == leaves.len(),
                "evaluator returned {} of {} evaluations",
                evals.len(),
                leaves.len()
            );
            for ((slot, leaf), eval) in leaves.iter().zip(&evals) {
                slots[*slot].tree.expand_and_backup(leaf, eval);
            }
        }
        Ok(())
    }
}

/// Plays like [`play_from`] on a worker thread while this thread hands each finished
/// game to `on_game` and then to `writer`; flushes the writer at the end (also after an
/// error, so the games already played are kept). A writer's error ends the self-play
/// promptly and is returned: the receiving end goes away with it, and the workers stop
/// at their next finished game.
pub fn play_into(
    cfg: &SelfplayConfig,
    network: &dyn NetworkSource,
    opts: &RunOptions,
    stop: &AtomicBool,
    writer: &mut crate::writer::ShardWriter,
    mut on_game: impl FnMut(&GameRecord),
) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel();
    let result = std::thread::scope(|s| -> anyhow::Result<()> {
        let worker = s.spawn(|| play_from(cfg, network, opts, stop, tx));
        for record in rx {
            on_game(&record);
            writer.push(record)?;
        }
        worker.join().map_err(|_| anyhow::anyhow!("self-play worker panicked"))?
    });
    writer.flush()?;
    result
}
