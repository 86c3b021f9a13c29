//! The server's two searches: a move for the page's opponent ([`play`], either play mode,
//! the one `szero uci` and `szero match` use), and an analysis that reports while it runs
//! ([`analyse`], MCTS, so that each move has a prior, visits and a value, as lc0's
//! Nibbler shows them). Both are blocking and capped ([`Caps`]); the server runs them on
//! their own threads, a bounded number at a time.

use crate::board::{GameRequest, MoveView, PlayedMove, PositionView};
use crate::error::ApiError;
use schess::pgn::pgn_san;
use schess::{Game, Move};
use search::evaluator::{MaterialEvaluator, UniformEvaluator};
use search::{
    AbConfig, Engine, Evaluator, LeafEval, LearnedEval, Limits, PlayMode, PositionSearch, RootMode, SearchConfig,
    SearchControl, SearchInfo, Searcher,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uci::info::q_to_cp;

/// The most one search may take, whatever a page asks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Caps {
    pub max_time: Duration,
    /// MCTS playouts (memory grows with them: about 1.5 KB each).
    pub max_playouts: u64,
    /// Alpha-beta nodes.
    pub max_ab_nodes: u64,
}

impl Default for Caps {
    fn default() -> Self {
        Caps { max_time: Duration::from_secs(30), max_playouts: 200_000, max_ab_nodes: 20_000_000 }
    }
}

/// A search's verdict on the position, for the side to move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreView {
    /// Expected score in [-1, 1].
    pub q: f32,
    /// The same in centipawns, as UCI GUIs show it.
    pub cp: i32,
    /// Win, draw, loss.
    pub wdl: [f32; 3],
    /// Mate in this many moves (0: mated), when proven.
    pub mate: Option<i32>,
}

impl ScoreView {
    fn of(info: &SearchInfo) -> ScoreView {
        ScoreView { q: info.q, cp: q_to_cp(info.q), wdl: info.wdl, mate: info.mate }
    }
}

/// A line of moves from `game`'s position, in SAN.
fn line(game: &Game, moves: &[Move]) -> Vec<PlayedMove> {
    let mut pos = game.position().clone();
    let mut out = Vec::new();
    for &m in moves {
        if !pos.is_legal(m) {
            break;
        }
        out.push(PlayedMove { uci: m.to_uci(), san: pgn_san(&pos, m) });
        pos.play_unchecked(m);
    }
    out
}

/// A move for the page's opponent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    pub game: GameRequest,
    /// A name from the network menu (default: the server's default).
    #[serde(default)]
    pub network: Option<String>,
    /// `alphabeta` (default: szero's play mode) or `mcts`.
    #[serde(default)]
    pub mode: Option<String>,
    /// Thinking time; the default, without `nodes` either, is one second.
    #[serde(default)]
    pub movetime_ms: Option<u64>,
    /// Playouts (MCTS) or nodes (alpha-beta).
    #[serde(default)]
    pub nodes: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlayResponse {
    #[serde(rename = "move")]
    pub mv: MoveView,
    pub mode: &'static str,
    pub network: String,
    pub score: ScoreView,
    pub depth: u32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub pv: Vec<PlayedMove>,
    /// The position after the move.
    pub position: PositionView,
}

/// Checks a page's limits against the caps: time and nodes, either or both.
fn limits(movetime_ms: Option<u64>, nodes: Option<u64>, max_nodes: u64, caps: &Caps) -> Result<Limits, ApiError> {
    if movetime_ms == Some(0) || nodes == Some(0) {
        return Err(ApiError::bad("movetime_ms and nodes must be positive"));
    }
    let time = movetime_ms.map(Duration::from_millis);
    if let Some(t) = time.filter(|&t| t > caps.max_time) {
        return Err(ApiError::bad(format!(
            "{} ms is over this server's cap of {} ms a search",
            t.as_millis(),
            caps.max_time.as_millis()
        )));
    }
    if let Some(n) = nodes.filter(|&n| n > max_nodes) {
        return Err(ApiError::bad(format!("{n} nodes is over this server's cap of {max_nodes} a search")));
    }
    // Without either limit: one second. A node limit alone still stops at the time cap,
    // and a time limit at the node cap.
    let time = time.or(Some(if nodes.is_none() { Duration::from_secs(1) } else { caps.max_time }));
    Ok(Limits { nodes: Some(nodes.unwrap_or(max_nodes)), time, ..Limits::default() })
}

/// Alpha-beta's transposition table for one move request, in MiB.
const PLAY_HASH_MB: usize = 16;

/// Plays one move in the request's position. `evaluator` is the chosen network's
/// (`None`: rules only); alpha-beta scores its leaves with `learned` where given, else
/// with live material.
pub fn play(
    req: &PlayRequest,
    network: &str,
    evaluator: Option<Arc<dyn Evaluator>>,
    learned: Option<Arc<LearnedEval>>,
    caps: &Caps,
    seed: u64,
) -> Result<PlayResponse, ApiError> {
    let mut game = req.game.game()?;
    if game.outcome().is_some() {
        return Err(ApiError::bad("the game is over: there is no move to play"));
    }
    let mode: PlayMode = match req.mode.as_deref() {
        None => PlayMode::default(),
        Some(m) => m.parse().map_err(ApiError::bad)?,
    };
    let max_nodes = match mode {
        PlayMode::Mcts => caps.max_playouts,
        PlayMode::Alphabeta => caps.max_ab_nodes,
    };
    let limits = limits(req.movetime_ms, req.nodes, max_nodes, caps)?;
    // Without a network: alpha-beta's material control, MCTS with material values.
    let ab = if evaluator.is_some() { AbConfig::default() } else { AbConfig::control() };
    let ab = match learned {
        Some(l) => AbConfig { leaf: LeafEval::Learned, learned: Some(l), ..ab },
        None => ab,
    };
    // One table per move request (the server keeps no engine between requests): a small
    // one, since a move is searched for seconds at most, and twenty requests at once
    // should not need a gigabyte.
    let ab = AbConfig { hash_mb: PLAY_HASH_MB, ..ab };
    let evaluator = evaluator.unwrap_or_else(|| match mode {
        PlayMode::Mcts => Arc::new(MaterialEvaluator),
        PlayMode::Alphabeta => Arc::new(UniformEvaluator),
    });
    let mut engine = Engine::new(mode, evaluator, SearchConfig::default(), ab, false, seed);
    let started = Instant::now();
    let result = engine
        .search(&game, &limits, &SearchControl::default(), &mut |_| {})
        .map_err(|e| ApiError::internal(format!("the search failed: {e:#}")))?;
    let best = result.best.ok_or_else(|| ApiError::internal("the search found no move"))?;
    let pv = line(&game, &result.info.pv);
    let mv = MoveView::new(game.position(), best);
    game.play(best).map_err(|e| ApiError::internal(format!("the search chose an illegal move: {e}")))?;
    Ok(PlayResponse {
        mv,
        mode: mode.name(),
        network: network.to_string(),
        score: ScoreView::of(&result.info),
        depth: result.info.depth,
        nodes: result.info.nodes,
        elapsed_ms: started.elapsed().as_millis() as u64,
        pv,
        position: PositionView::new(&game),
    })
}

/// An analysis request (query string of `GET /api/analyse`): the game as every request
/// carries it (its `moves` one string, separated by spaces or commas), the network and the
/// limits.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AnalyseQuery {
    #[serde(flatten)]
    pub game: GameRequest,
    #[serde(default)]
    pub network: Option<String>,
    /// Playouts (default: until the time cap).
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Seconds (default and most: the server's cap).
    #[serde(default)]
    pub seconds: Option<f64>,
    /// Whatever else the query holds: refused by [`AnalyseQuery::game`], so that a
    /// misspelt limit is an error and not a search without it (serde cannot deny unknown
    /// fields beside a flattened struct).
    #[serde(flatten)]
    pub unknown: std::collections::BTreeMap<String, String>,
}

impl AnalyseQuery {
    pub fn game(&self) -> Result<Game, ApiError> {
        if let Some(key) = self.unknown.keys().next() {
            return Err(ApiError::bad(format!(
                "unknown analysis setting {key:?} (variant, start, moves, network, nodes or seconds)"
            )));
        }
        self.game.game()
    }

    pub fn limits(&self, caps: &Caps) -> Result<Limits, ApiError> {
        let ms = match self.seconds {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 => Some((s * 1000.0).ceil() as u64),
            Some(s) => return Err(ApiError::bad(format!("seconds must be positive, not {s}"))),
        };
        let ms = ms.or(Some(caps.max_time.as_millis() as u64));
        limits(ms, self.nodes, caps.max_playouts, caps)
    }
}

/// One root move in an analysis: the move as the board shows it, with the search's view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootMoveView {
    #[serde(flatten)]
    pub mv: MoveView,
    /// The network's probability for the move.
    pub prior: f32,
    pub visits: u32,
    /// The mover's expected score after the move, once visited.
    pub q: Option<f32>,
}

/// What an analysis has found so far: sent as it runs and once at the end (`done`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Update {
    pub nodes: u64,
    pub nps: u64,
    pub elapsed_ms: u64,
    pub depth: u32,
    pub score: ScoreView,
    pub pv: Vec<PlayedMove>,
    /// Most visited first, then by prior.
    pub moves: Vec<RootMoveView>,
    pub done: bool,
}

fn update(game: &Game, searcher: &Searcher, started: Instant, done: bool) -> Option<Update> {
    let info = searcher.current_info()?;
    let elapsed = started.elapsed();
    let pos = game.position();
    let mut moves: Vec<RootMoveView> = searcher
        .root_children()
        .into_iter()
        .map(|c| RootMoveView { mv: MoveView::new(pos, c.mv), prior: c.prior, visits: c.visits, q: c.q })
        .collect();
    moves.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
    Some(Update {
        nodes: info.nodes,
        nps: (info.nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64,
        elapsed_ms: elapsed.as_millis() as u64,
        depth: info.depth,
        score: ScoreView::of(&info),
        pv: line(game, &info.pv),
        moves,
        done,
    })
}

/// Analyses `game`'s position with MCTS until `limits`, handing an [`Update`] to `send`
/// every `every` and once at the end. `send` returning false (the page went away) stops
/// the search.
pub fn analyse(
    game: &Game,
    evaluator: Option<Arc<dyn Evaluator>>,
    limits: &Limits,
    every: Duration,
    send: &mut dyn FnMut(Update) -> bool,
) -> anyhow::Result<()> {
    if game.outcome().is_some() {
        anyhow::bail!("the game is over: there is nothing to analyse");
    }
    let evaluator = evaluator.unwrap_or_else(|| Arc::new(MaterialEvaluator));
    // PUCT at the root: visits then say what the search prefers, as lc0 users read them.
    let cfg = SearchConfig { root_mode: RootMode::Puct, ..SearchConfig::default() };
    let mut searcher = Searcher::new(evaluator.clone(), cfg, false, 1);
    let budget = limits.nodes.unwrap_or(u64::from(u32::MAX)).min(u64::from(u32::MAX)) as u32;
    searcher.begin(game, budget);
    let started = Instant::now();
    let mut last = Instant::now();
    loop {
        let out_of_limits = limits.nodes.is_some_and(|n| searcher.playouts() >= n)
            || limits.time.is_some_and(|t| started.elapsed() >= t);
        if out_of_limits || searcher.is_done() {
            break;
        }
        if let Some(leaf) = searcher.next_leaf() {
            let eval = evaluator.evaluate(&[&leaf.history])?;
            searcher.apply(&leaf, &eval[0]);
        }
        if last.elapsed() >= every {
            last = Instant::now();
            if let Some(u) = update(game, &searcher, started, false) {
                if !send(u) {
                    return Ok(());
                }
            }
        }
    }
    if let Some(u) = update(game, &searcher, started, true) {
        send(u);
    }
    searcher.finish(game);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_request(moves: &[&str], mode: &str, nodes: u64) -> PlayRequest {
        PlayRequest {
            game: GameRequest { moves: moves.iter().map(|s| s.to_string()).collect(), ..GameRequest::default() },
            network: None,
            mode: Some(mode.into()),
            movetime_ms: None,
            nodes: Some(nodes),
        }
    }

    #[test]
    fn both_play_modes_answer_with_a_legal_move_and_the_position_after_it() {
        for mode in ["alphabeta", "mcts"] {
            let r = play(&play_request(&["e2e4"], mode, 200), "none", None, None, &Caps::default(), 1).unwrap();
            assert_eq!(r.mode, mode);
            assert_eq!(r.position.history.len(), 2);
            assert_eq!(r.position.history[1].uci, r.mv.uci);
            assert_eq!(r.position.turn, "white");
        }
    }

    #[test]
    fn the_rules_only_search_takes_a_free_queen() {
        // 1.e4 d5 2.Qh5?? : ...Qxh5 is not possible, but 2.Qg4 Bxg4 is; after 1.e4 e5
        // 2.Qh5 Nc6 3.Qxf7+?? Kxf7 the queen is lost. Here: Black to move after 2.Qg4.
        let r =
            play(&play_request(&["e2e4", "d7d5", "d1g4"], "alphabeta", 5_000), "none", None, None, &Caps::default(), 1)
                .unwrap();
        assert_eq!(r.mv.uci.get(..4), Some("c8g4"), "{:?}", r.mv);
    }

    #[test]
    fn limits_over_the_caps_and_finished_games_are_refused() {
        let caps = Caps { max_time: Duration::from_millis(500), max_playouts: 100, max_ab_nodes: 1000 };
        let mut req = play_request(&[], "mcts", 101);
        assert!(play(&req, "none", None, None, &caps, 1).unwrap_err().message.contains("cap of 100"));
        req.nodes = None;
        req.movetime_ms = Some(501);
        assert!(play(&req, "none", None, None, &caps, 1).unwrap_err().message.contains("cap of 500 ms"));
        req.mode = Some("minimax".into());
        assert!(play(&req, "none", None, None, &caps, 1).unwrap_err().message.contains("unknown play mode"));
        let over = play_request(&["f2f3", "e7e5", "g2g4", "d8h4"], "mcts", 10);
        assert!(play(&over, "none", None, None, &caps, 1).unwrap_err().message.contains("game is over"));
    }

    #[test]
    fn analysis_reports_while_it_runs_and_stops_when_told() {
        let game = GameRequest::default().game().unwrap();
        let limits = Limits { nodes: Some(400), ..Limits::default() };
        let mut updates = Vec::new();
        analyse(&game, None, &limits, Duration::ZERO, &mut |u| {
            updates.push(u);
            true
        })
        .unwrap();
        let last = updates.last().unwrap();
        assert!(last.done && updates.len() > 2);
        assert!(last.nodes >= 400);
        assert_eq!(last.moves.len(), game.position().legal_moves().len());
        assert_eq!(last.moves.iter().map(|m| u64::from(m.visits)).sum::<u64>(), last.nodes);
        assert!(last.moves.iter().any(|m| m.mv.gate.as_ref().is_some_and(|g| g.piece == 'E')));
        assert!(!last.pv.is_empty());
        // A page that goes away stops the search at once.
        let mut sent = 0;
        analyse(&game, None, &Limits::default(), Duration::ZERO, &mut |_| {
            sent += 1;
            sent < 3
        })
        .unwrap();
        assert_eq!(sent, 3);
    }
}
