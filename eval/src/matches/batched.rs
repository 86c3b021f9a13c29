//! Matches with batched evaluation.
//!
//! A network evaluates a batch of positions in about the time it takes for one (GPU:
//! thousands at once; CPU: ~2.5x the throughput at batch 64), but a [`crate::Player`]
//! searches one game and asks for one position at a time. Here each worker keeps many
//! games in flight, collects the next leaf of every running search, and evaluates them in
//! one call per network. Gating, where both players are networks, runs this way, and so
//! does a network against a baseline (`greedy`, `random`, an engine): that side is asked
//! for its move directly ([`Side::Direct`]) while the searches of the other games go on.
//!
//! Results are those of [`crate::players::mcts::SearchPlayer`] with the same settings: the same
//! search per move (playout count, mate-in-one shortcut, tree reuse); only the order in
//! which positions are evaluated differs.

use super::adjudication::{natural_end, GameEnd, ResignTracker};
use super::openings::{Opening, OpeningBook};
use super::record::record_game;
use super::{drive, play_move, start_game, MatchConfig, MatchError, MatchReport, Progress, RoundSender, Shared};
use crate::players::{Player, PlayerError, PlayerFactory, PlayerSpec};
use schess::{Color, Game, Position};
use search::evaluator::Evaluator;
use search::Leaf;
use search::Searcher;
use search::{PlayMode, SearchConfig};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// An MCTS player for batched matches.
#[derive(Clone)]
pub struct BatchedPlayer {
    pub name: String,
    pub evaluator: Arc<dyn Evaluator>,
    /// Playouts per move.
    pub nodes: u64,
    pub search: SearchConfig,
    /// Keep the search tree between the player's moves.
    pub reuse: bool,
}

impl BatchedPlayer {
    /// The batched form of an MCTS player factory (`None` for other kinds of player).
    pub fn from_factory(f: &PlayerFactory) -> Option<BatchedPlayer> {
        match f.spec() {
            // Only fixed-playout MCTS can share batches across games; a timed or
            // alpha-beta player plays its games on its own.
            PlayerSpec::Mcts(m) if m.mode == PlayMode::Mcts && m.movetime.is_none() && m.depth.is_none() => {
                Some(BatchedPlayer {
                    name: f.name().to_string(),
                    evaluator: f.evaluator()?.clone(),
                    nodes: m.nodes,
                    search: m.search.clone(),
                    reuse: m.reuse,
                })
            }
            _ => None,
        }
    }
}

/// One side of a batched match.
#[derive(Clone, Copy)]
pub enum Side<'a> {
    /// A search whose leaves are evaluated in batches.
    Search(&'a BatchedPlayer),
    /// Any other player, made per game from its factory and asked for each move directly.
    Direct(&'a PlayerFactory),
}

impl Side<'_> {
    pub fn name(&self) -> &str {
        match self {
            Side::Search(p) => &p.name,
            Side::Direct(f) => f.name(),
        }
    }
}

/// Plays a match like [`crate::run_match`], with `games_per_worker` games in flight on
/// each of `cfg.concurrency` worker threads.
pub fn run_batched_match(
    first: Side<'_>,
    second: Side<'_>,
    book: &OpeningBook,
    cfg: &MatchConfig,
    games_per_worker: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<MatchReport, MatchError> {
    let players = [first, second];
    drive(first.name(), second.name(), book, cfg, cfg.concurrency.max(1), stop, progress, &|worker, shared, tx| {
        Worker { players, shared, games: games_per_worker.max(2), seed: cfg.seed ^ (worker as u64) << 32 }.run(tx)
    })
}

/// A player of one game in flight.
enum SlotPlayer {
    /// Boxed: a searcher is large and most slots of a gate game hold one.
    Search(Box<Searcher>),
    Direct(Box<dyn Player>),
}

/// One game in flight.
struct Slot {
    pair: usize,
    /// 0: the first player has White; 1: the colours are swapped.
    index: usize,
    game: Game,
    opening_plies: usize,
    /// By player: [first, second].
    players: [SlotPlayer; 2],
    /// The player whose search is running.
    searching: Option<usize>,
    resign: ResignTracker,
    end: Option<GameEnd>,
}

impl Slot {
    /// Index (0 first, 1 second) of the player to move.
    fn mover(&self) -> usize {
        let white = self.index;
        match self.game.position().turn() {
            Color::White => white,
            Color::Black => 1 - white,
        }
    }

    fn searcher(&mut self, p: usize) -> &mut Searcher {
        match &mut self.players[p] {
            SlotPlayer::Search(s) => s,
            SlotPlayer::Direct(_) => unreachable!("only search players search"),
        }
    }
}

struct Worker<'a> {
    players: [Side<'a>; 2],
    shared: &'a Shared<'a>,
    games: usize,
    seed: u64,
}

impl Worker<'_> {
    fn new_slot(&self, pair: usize, index: usize, opening: &Opening) -> Result<Slot, MatchError> {
        let salt = (pair as u64) << 2 | (index as u64) << 1;
        let game = opening.game();
        let mut end = None;
        let mut make = |p: usize| -> Result<SlotPlayer, MatchError> {
            let seed = self.seed ^ (salt | p as u64);
            Ok(match self.players[p] {
                Side::Search(b) => {
                    SlotPlayer::Search(Box::new(Searcher::new(b.evaluator.clone(), b.search.clone(), b.reuse, seed)))
                }
                Side::Direct(f) => {
                    let mut player =
                        f.make(seed).map_err(|error| MatchError::Setup { player: f.name().to_string(), error })?;
                    // Player p has White in game 0 of a pair if it is the first player.
                    let color = if (p == 0) == (index == 0) { Color::White } else { Color::Black };
                    if let Some(e) = start_game(&mut *player, color, game.start().variant())? {
                        end.get_or_insert(e);
                    }
                    SlotPlayer::Direct(player)
                }
            })
        };
        let players = [make(0)?, make(1)?];
        Ok(Slot {
            pair,
            index,
            game,
            opening_plies: opening.moves.len(),
            players,
            searching: None,
            resign: ResignTracker::default(),
            end,
        })
    }

    fn nodes(&self, p: usize) -> u64 {
        match self.players[p] {
            Side::Search(b) => b.nodes,
            Side::Direct(_) => 0,
        }
    }

    fn run(&self, tx: &RoundSender) -> Result<(), MatchError> {
        let adj = &self.shared.cfg.adjudication;
        let mut slots: Vec<Slot> = Vec::new();
        let mut finished: HashMap<usize, [Option<crate::matches::GameRecord>; 2]> = HashMap::new();
        let mut more_pairs = true;
        loop {
            if self.shared.halted() {
                return Ok(());
            }
            while more_pairs && slots.len() + 2 <= self.games {
                match self.shared.claim() {
                    Some(k) => {
                        let opening = self.shared.book.get(k);
                        for &swapped in self.shared.colours(k) {
                            slots.push(self.new_slot(k, swapped as usize, &opening)?);
                        }
                    }
                    None => more_pairs = false,
                }
            }
            if slots.is_empty() {
                return Ok(());
            }
            // Advance every game until its running search needs an evaluation.
            let mut requests: [Vec<(usize, Leaf)>; 2] = [Vec::new(), Vec::new()];
            for (i, slot) in slots.iter_mut().enumerate() {
                while slot.end.is_none() {
                    let Some(p) = slot.searching else {
                        slot.end = natural_end(&slot.game, slot.opening_plies, adj);
                        if slot.end.is_none() {
                            let p = slot.mover();
                            match &mut slot.players[p] {
                                SlotPlayer::Direct(player) => {
                                    slot.end = play_move(&mut slot.game, &mut **player, adj, &mut slot.resign)?;
                                }
                                SlotPlayer::Search(s) => {
                                    s.begin(&slot.game, self.nodes(p).min(u32::MAX as u64) as u32);
                                    slot.searching = Some(p);
                                }
                            }
                        }
                        continue;
                    };
                    let nodes = self.nodes(p);
                    let SlotPlayer::Search(s) = &mut slot.players[p] else {
                        unreachable!("only search players search")
                    };
                    if s.playouts() >= nodes || s.is_done() {
                        let turn = slot.game.position().turn();
                        let r = s.finish(&slot.game).expect("search begun");
                        let m = r.best.ok_or_else(|| {
                            internal(self.players[p].name(), format!("no move in {}", slot.game.position().fen()))
                        })?;
                        slot.game.play_unchecked(m);
                        slot.searching = None;
                        slot.end = slot.resign.update(adj, turn, Some(r.info.q));
                        continue;
                    }
                    if let Some(leaf) = s.next_leaf() {
                        requests[p].push((i, leaf));
                        break;
                    }
                }
            }
            for (p, batch) in requests.iter().enumerate() {
                let Side::Search(player) = self.players[p] else { continue };
                if batch.is_empty() {
                    continue;
                }
                let histories: Vec<&[Position]> = batch.iter().map(|(_, leaf)| leaf.history.as_slice()).collect();
                let evals =
                    player.evaluator.evaluate(&histories).map_err(|e| internal(&player.name, format!("{e:#}")))?;
                for ((i, leaf), eval) in batch.iter().zip(&evals) {
                    slots[*i].searcher(p).apply(leaf, eval);
                }
            }
            // Report finished games, a round at a time.
            let mut k = 0;
            while k < slots.len() {
                if slots[k].end.is_none() {
                    k += 1;
                    continue;
                }
                let slot = slots.swap_remove(k);
                let white = self.players[slot.index].name();
                let black = self.players[1 - slot.index].name();
                let round = format!("{}.{}", slot.pair + 1, slot.index + 1);
                let end = slot.end.expect("finished");
                let rec = record_game(
                    &self.shared.cfg.event,
                    &slot.game,
                    end,
                    [white, black],
                    slot.index == 0,
                    slot.opening_plies,
                    round,
                );
                let entry = finished.entry(slot.pair).or_default();
                entry[slot.index] = Some(rec);
                let colours = self.shared.colours(slot.pair);
                if colours.iter().all(|&swapped| entry[swapped as usize].is_some()) {
                    let mut entry = finished.remove(&slot.pair).expect("present");
                    let games = colours.iter().map(|&swapped| entry[swapped as usize].take().expect("done")).collect();
                    if tx.send(Ok(games)).is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}

fn internal(player: &str, msg: String) -> MatchError {
    MatchError::Player { player: player.to_string(), error: PlayerError::Internal(anyhow::anyhow!(msg)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::{verify_record, Adjudication};
    use schess::Variant;
    use search::evaluator::UniformEvaluator;

    fn uniform(name: &str, nodes: u64) -> BatchedPlayer {
        BatchedPlayer {
            name: name.into(),
            evaluator: Arc::new(UniformEvaluator),
            nodes,
            search: SearchConfig::default(),
            reuse: true,
        }
    }

    #[test]
    fn batched_games_are_legal_and_complete() {
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 4, seed: 5 };
        let cfg = MatchConfig {
            games: 12,
            concurrency: 2,
            adjudication: Adjudication { max_plies: 80, ..Adjudication::default() },
            ..MatchConfig::default()
        };
        let r = run_batched_match(
            Side::Search(&uniform("a", 32)),
            Side::Search(&uniform("b", 8)),
            &book,
            &cfg,
            4,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(r.wdl.games(), 12);
        assert_eq!(r.pentanomial.pairs(), 6);
        for g in &r.games {
            verify_record(g).unwrap();
        }
        // Each pair: the same opening, colours swapped.
        for pair in r.games.chunks(2) {
            assert_eq!(pair[0].moves[..4], pair[1].moves[..4]);
            assert_ne!(pair[0].first_is_white, pair[1].first_is_white);
        }
    }

    #[test]
    fn batched_matches_can_play_each_opening_once() {
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 4, seed: 5 };
        let cfg = MatchConfig {
            games: 5,
            repeat: false,
            concurrency: 2,
            adjudication: Adjudication { max_plies: 40, ..Adjudication::default() },
            ..MatchConfig::default()
        };
        let (a, b) = (uniform("a", 16), uniform("b", 8));
        let r =
            run_batched_match(Side::Search(&a), Side::Search(&b), &book, &cfg, 4, &AtomicBool::new(false), &mut |_| {})
                .unwrap();
        assert_eq!(
            (r.wdl.games(), r.pentanomial.pairs(), r.rounds(), r.end),
            (5, 0, 5, crate::matches::MatchEnd::Completed)
        );
        let mut rounds: Vec<&str> = r.games.iter().map(|g| g.round.as_str()).collect();
        rounds.sort();
        assert_eq!(rounds, ["1.1", "2.2", "3.1", "4.2", "5.1"]);
        for g in &r.games {
            verify_record(g).unwrap();
            assert_eq!(g.first_is_white, g.round.ends_with(".1"));
        }
    }

    #[test]
    fn a_search_against_a_direct_player() {
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 4, seed: 3 };
        let cfg = MatchConfig {
            games: 8,
            concurrency: 2,
            adjudication: Adjudication { max_plies: 60, ..Adjudication::default() },
            ..MatchConfig::default()
        };
        let greedy = PlayerFactory::new("greedy".parse().unwrap()).unwrap();
        let r = run_batched_match(
            Side::Search(&uniform("a", 16)),
            Side::Direct(&greedy),
            &book,
            &cfg,
            4,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(r.wdl.games(), 8);
        for g in &r.games {
            verify_record(g).unwrap();
            let (w, b) = if g.first_is_white { ("a", "greedy") } else { ("greedy", "a") };
            assert_eq!((g.white.as_str(), g.black.as_str()), (w, b));
        }
        // Uniform search hangs pieces; greedy takes them.
        assert!(r.wdl.score() < 0.5, "{}", r.summary());
    }

    #[test]
    fn same_moves_as_the_one_at_a_time_player() {
        // Deterministic search: batching must not change a single move.
        use crate::players::mcts::SearchPlayer;
        use crate::players::Player;
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 2, seed: 9 };
        let cfg = MatchConfig {
            games: 2,
            adjudication: Adjudication { max_plies: 30, ..Adjudication::default() },
            ..MatchConfig::default()
        };
        let r = run_batched_match(
            Side::Search(&uniform("a", 24)),
            Side::Search(&uniform("b", 40)),
            &book,
            &cfg,
            2,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        let g = r.games.iter().find(|g| g.first_is_white).unwrap();
        let mut a = SearchPlayer::new("a".into(), Arc::new(UniformEvaluator), SearchConfig::default(), 24, true, 0);
        let mut b = SearchPlayer::new("b".into(), Arc::new(UniformEvaluator), SearchConfig::default(), 40, true, 0);
        let mut game = book.get(0).game();
        for &m in &g.moves[g.opening_plies..] {
            let p: &mut dyn Player = if game.position().turn() == Color::White { &mut a } else { &mut b };
            assert_eq!(p.choose(&game).unwrap(), m, "after {:?}", game.moves());
            game.play(m).unwrap();
        }
    }
}
