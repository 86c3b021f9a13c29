//! The UCI engine behind `szero uci`: Fairy-Stockfish's move strings and `UCI_Variant`, so
//! that GUIs and tools that drive Fairy-Stockfish for S-Chess can drive us too.
//!
//! The search runs on its own thread; the input loop stays responsive, so `isready` is
//! answered and `stop` obeyed while thinking. Every malformed input is answered with an
//! `info string error: ...` line and otherwise ignored; nothing a GUI sends can crash the
//! engine. [`UciEngine`] takes lines and writes replies to any `Write`, so a whole session
//! can be scripted in-process (see the tests).

pub mod go;
pub mod info;

pub use go::{time_budget, Go};

use models::load_evaluator;
use models::{DeviceChoice, Precision};
use schess::{Game, Position, Variant};
use search::config::MAX_MINIBATCH;
use search::evaluator::{Evaluator, UniformEvaluator};
use search::{AbConfig, Engine, LeafEval, LearnedEval, PlayMode, PositionSearch};
use search::{RootMode, SearchConfig};
use search::{SearchControl, SearchResult};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Where replies go; shared by the input loop and the search thread, one whole line at a
/// time.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    pub fn new(w: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Box::new(w))))
    }

    /// Writes one line and flushes. Write errors (a closed GUI pipe) are ignored: there is
    /// no one left to tell.
    pub fn line(&self, s: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(w, "{s}").and_then(|()| w.flush());
    }

    fn error(&self, s: &str) {
        self.line(&format!("info string error: {s}"));
    }

    /// An output kept in memory, and the handle that reads it back: for driving the engine
    /// in-process (tests, fuzzing, embedding).
    pub fn captured() -> (Output, Captured) {
        let c = Captured::default();
        (Output::new(c.clone()), c)
    }
}

/// The replies written to an [`Output::captured`].
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// The replies so far, as lines, removing them.
    pub fn take_lines(&self) -> Vec<String> {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        String::from_utf8_lossy(&bytes).lines().map(str::to_string).collect()
    }
}

impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Engine settings that `setoption` changes.
#[derive(Debug, Clone, PartialEq)]
pub struct UciSettings {
    pub variant: Variant,
    /// Intra-op threads of the network library (the tree search itself is one thread).
    pub threads: usize,
    /// Memory for the search tree and the evaluation cache, in MiB.
    pub hash_mb: usize,
    /// Subtracted from every time budget: GUI and pipe latency.
    pub move_overhead_ms: u64,
    pub weights: Option<PathBuf>,
    /// Root search: Gumbel sequential halving plans its rounds for the node limit (800
    /// playouts without one; past the plan it visits its last contenders in turn).
    pub root: RootMode,
    /// MCTS: material resolution at the leaves ([`SearchConfig::resolve_captures`]).
    pub resolve_captures: bool,
    /// MCTS: leaves evaluated in one network call ([`SearchConfig::minibatch`]).
    pub minibatch: usize,
    /// Which search plays: MCTS or alpha-beta over the network.
    pub mode: PlayMode,
    /// What scores alpha-beta's leaves.
    pub leaf: LeafEval,
    /// Centipawns the network's judgment of each root move is worth in alpha-beta
    /// ([`AbConfig::root_value`]).
    pub root_value: i32,
    /// The learned evaluation `LeafEval learned` scores leaves with (`LeafEvalFile`).
    pub learned: Option<Arc<LearnedEval>>,
    pub device: DeviceChoice,
    pub precision: Precision,
}

impl Default for UciSettings {
    fn default() -> Self {
        UciSettings {
            variant: Variant::Seirawan,
            threads: 1,
            hash_mb: 512,
            move_overhead_ms: 100,
            weights: None,
            root: RootMode::Gumbel,
            resolve_captures: false,
            minibatch: DEFAULT_MINIBATCH,
            mode: PlayMode::Alphabeta,
            leaf: AbConfig::default().leaf,
            root_value: AbConfig::default().root_value,
            learned: None,
            device: DeviceChoice::Auto,
            precision: Precision::Auto,
        }
    }
}

/// Memory per tree visit (measured: ~1.4 KB, one expansion of ~35 child nodes plus a
/// position), with some margin.
const BYTES_PER_VISIT: u64 = 1_500;
/// Share of `Hash` given to the evaluation cache (rest: tree), and bytes per entry.
const CACHE_SHARE: u64 = 8;
const BYTES_PER_CACHE_ENTRY: u64 = 400;

/// Largest alpha-beta transposition table (MiB), whatever `Hash` says: more than a
/// search of this speed fills in hours, and a table is written whole when first used.
const MAX_TABLE_MB: usize = 4096;

/// Largest `RootValue`: ten pawns (beyond it the network would outbid any material).
const MAX_ROOT_VALUE: i32 = 1_000;
/// MCTS leaves a network call evaluates when a GUI sets nothing (`MinibatchSize`): 16
/// searched 3.5x the positions a second of one at a time on a CPU and won an equal-time
/// match against it (BENCHMARKS.md, "Minibatches in a lone MCTS search").
const DEFAULT_MINIBATCH: usize = 16;

/// The search settings of `settings`.
fn search_config(settings: &UciSettings) -> SearchConfig {
    SearchConfig {
        root_mode: settings.root,
        resolve_captures: settings.resolve_captures,
        minibatch: settings.minibatch,
        ..SearchConfig::default()
    }
}

/// The alpha-beta settings of `settings`: half of `Hash` for its table (the rest holds
/// its evaluations).
fn ab_config(settings: &UciSettings) -> AbConfig {
    let hash_mb = (settings.hash_mb / 2).clamp(1, MAX_TABLE_MB);
    AbConfig {
        hash_mb,
        eval_cache: (hash_mb as u64 * (1 << 20) / BYTES_PER_CACHE_ENTRY) as usize,
        leaf: settings.leaf,
        root_value: settings.root_value,
        learned: settings.learned.clone(),
        ..AbConfig::default()
    }
}

/// A search of the settings' mode with `evaluator`.
fn engine_for(settings: &UciSettings, evaluator: Arc<dyn Evaluator>) -> Engine {
    Engine::new(settings.mode, evaluator, search_config(settings), ab_config(settings), true, 0x5eed)
}

/// A search running on its thread.
struct Running {
    control: Arc<SearchControl>,
    handle: JoinHandle<Engine>,
    /// Ends only on `stop` (`go infinite`, or a bare `go`).
    unbounded: bool,
}

/// The engine state behind the protocol.
pub struct UciEngine {
    out: Output,
    settings: UciSettings,
    game: Game,
    /// `None` while a search thread owns it.
    searcher: Option<Engine>,
    running: Option<Running>,
}

/// Whether the input loop goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

impl UciEngine {
    /// An engine writing to `out`, with the uniform evaluator until a network is set.
    pub fn new(out: Output) -> UciEngine {
        let settings = UciSettings::default();
        let searcher = engine_for(&settings, Arc::new(UniformEvaluator));
        UciEngine {
            out,
            game: Game::new(Position::new(settings.variant)),
            settings,
            searcher: Some(searcher),
            running: None,
        }
    }

    /// Loads a network (as `setoption name WeightsFile` would). Returns a description of
    /// the evaluator, or why the file cannot be used.
    pub fn load_weights(&mut self, path: &Path) -> Result<String, String> {
        self.finish_search();
        let ev = load_evaluator(path, self.settings.device, self.settings.precision, self.cache_entries(), None)
            .map_err(|e| format!("cannot load network {}: {e}", path.display()))?;
        let description = ev.describe();
        self.searcher_mut().set_evaluator(ev);
        self.settings.weights = Some(path.to_path_buf());
        Ok(description)
    }

    /// Loads a learned leaf evaluation and scores alpha-beta's leaves with it (as
    /// `setoption name LeafEvalFile` would), or says why the file cannot be used.
    pub fn load_learned_eval(&mut self, path: &Path) -> Result<(), String> {
        self.finish_search();
        let eval = LearnedEval::load(path).map_err(|e| e.to_string())?;
        self.settings.learned = Some(Arc::new(eval));
        self.settings.leaf = LeafEval::Learned;
        self.update_ab_config();
        Ok(())
    }

    pub fn settings(&self) -> &UciSettings {
        &self.settings
    }

    /// Chooses the search (as `setoption name PlayMode` would); the network is kept.
    pub fn set_mode(&mut self, mode: PlayMode) {
        self.finish_search();
        self.settings.mode = mode;
        self.rebuild_engine();
    }

    /// Hands the settings' alpha-beta configuration to the alpha-beta engine, if it plays.
    fn update_ab_config(&mut self) {
        let cfg = ab_config(&self.settings);
        if let Engine::Alphabeta(ab) = self.searcher_mut() {
            ab.set_config(cfg);
        }
    }

    /// Sets the device and precision used for networks loaded from now on.
    pub fn set_device(&mut self, device: DeviceChoice, precision: Precision) {
        self.settings.device = device;
        self.settings.precision = precision;
    }

    fn cache_entries(&self) -> usize {
        (self.settings.hash_mb as u64 * (1 << 20) / CACHE_SHARE / BYTES_PER_CACHE_ENTRY / 2).max(1) as usize
    }

    fn max_visits(&self) -> u64 {
        (self.settings.hash_mb as u64 * (1 << 20) * (CACHE_SHARE - 1) / CACHE_SHARE / BYTES_PER_VISIT).max(1000)
    }

    fn searcher_mut(&mut self) -> &mut Engine {
        self.searcher.as_mut().expect("no search running")
    }

    /// Waits for a running search to end by itself (tests; `go nodes ...`).
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            self.searcher = Some(r.handle.join().unwrap_or_else(|_| self.fresh_searcher()));
        }
    }

    /// Before a command that changes the position or starts a search: lets a bounded
    /// search finish (as Stockfish does, so piped command lists work), but stops one that
    /// would only end on `stop` (we could not read that `stop` while waiting).
    pub fn settle_search(&mut self) {
        let endless = self.running.as_ref().is_some_and(|r| r.unbounded || r.control.ponder.load(Ordering::Relaxed));
        if endless {
            self.finish_search();
        } else {
            self.wait();
        }
    }

    /// Stops a running search (its `bestmove` is printed) and takes the searcher back.
    fn finish_search(&mut self) {
        if let Some(r) = &self.running {
            r.control.stop.store(true, Ordering::Relaxed);
            r.control.ponder.store(false, Ordering::Relaxed);
        }
        self.wait();
    }

    /// After a search thread panicked: a new searcher with the uniform evaluator (so the
    /// engine still plays); the error was already reported.
    fn fresh_searcher(&self) -> Engine {
        engine_for(&self.settings, Arc::new(UniformEvaluator))
    }

    /// The engine made anew for the current settings, keeping its evaluator.
    fn rebuild_engine(&mut self) {
        let ev = self.searcher_mut().evaluator().clone();
        self.searcher = Some(engine_for(&self.settings, ev));
    }

    /// Handles one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        let line = line.trim();
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else {
            return Flow::Continue;
        };
        match cmd {
            "uci" => self.cmd_uci(),
            "isready" => self.out.line("readyok"),
            "debug" => {}
            "setoption" => self.cmd_setoption(line),
            "ucinewgame" => {
                self.settle_search();
                self.searcher_mut().clear();
                self.game = Game::new(Position::new(self.settings.variant));
            }
            "position" => self.cmd_position(words),
            "go" => self.cmd_go(words),
            "stop" => self.finish_search(),
            "ponderhit" => {
                if let Some(r) = &self.running {
                    r.control.ponder.store(false, Ordering::Relaxed);
                }
            }
            "quit" => {
                self.finish_search();
                return Flow::Quit;
            }
            "d" => {
                self.out.line(&format!("info string fen {}", self.game.position().fen()));
            }
            _ => self.out.error(&format!("unknown command '{}'", truncate(cmd))),
        }
        Flow::Continue
    }

    fn cmd_uci(&self) {
        let o = &self.out;
        o.line(&format!("id name szero {}", env!("CARGO_PKG_VERSION")));
        o.line("id author the szero authors");
        o.line("option name UCI_Variant type combo default seirawan var seirawan var seirawan-forced var seirawan-placement var chess");
        o.line("option name Threads type spin default 1 min 1 max 256");
        o.line("option name Hash type spin default 512 min 1 max 1048576");
        o.line("option name Move Overhead type spin default 100 min 0 max 10000");
        o.line("option name WeightsFile type string default <empty>");
        o.line(&format!(
            "option name RootSearch type combo default {} var gumbel var puct",
            UciSettings::default().root.name()
        ));
        o.line(&format!("option name ResolveCaptures type check default {}", UciSettings::default().resolve_captures));
        o.line(&format!(
            "option name MinibatchSize type spin default {} min 1 max {MAX_MINIBATCH}",
            UciSettings::default().minibatch
        ));
        o.line(&format!(
            "option name PlayMode type combo default {} var mcts var alphabeta",
            UciSettings::default().mode.name()
        ));
        o.line(&format!(
            "option name LeafEval type combo default {} var net var net+material var material var learned",
            // The engine's own setting: `szero uci` starts with the shipped learned
            // evaluation loaded, and a GUI shows the default as what the engine plays.
            self.settings.leaf.name()
        ));
        o.line(&format!(
            "option name RootValue type spin default {} min 0 max {MAX_ROOT_VALUE}",
            UciSettings::default().root_value
        ));
        o.line("option name LeafEvalFile type string default <empty>");
        o.line("uciok");
    }

    fn cmd_setoption(&mut self, line: &str) {
        // `setoption name <name words> [value <value words>]`; names may contain spaces.
        let rest = line.trim_start_matches("setoption").trim();
        let Some(rest) = rest.strip_prefix("name ") else {
            return self.out.error("setoption needs 'name <option> [value <value>]'");
        };
        let (name, value) = match rest.find(" value ") {
            Some(i) => (rest[..i].trim(), rest[i + 7..].trim()),
            None => (rest.trim_end_matches(" value").trim(), ""),
        };
        self.settle_search();
        let spin = |max: u64, min: u64| -> Result<u64, String> {
            match value.parse::<u64>() {
                Ok(v) if (min..=max).contains(&v) => Ok(v),
                _ => Err(format!("invalid value '{}' for {name} (expected {min}..{max})", truncate(value))),
            }
        };
        let result = match name.to_ascii_lowercase().as_str() {
            "uci_variant" => match Variant::from_name(value) {
                Some(v) => {
                    self.settings.variant = v;
                    self.game = Game::new(Position::new(v));
                    self.searcher_mut().clear();
                    Ok(())
                }
                None => Err(format!(
                    "unsupported variant '{}' (seirawan, seirawan-forced, seirawan-placement or chess)",
                    truncate(value)
                )),
            },
            "threads" => spin(256, 1).map(|n| {
                self.settings.threads = n as usize;
                models::tch::set_num_threads(n as i32);
            }),
            "hash" => spin(1 << 20, 1).map(|n| {
                self.settings.hash_mb = n as usize;
                self.update_ab_config();
            }),
            "move overhead" => spin(10_000, 0).map(|n| self.settings.move_overhead_ms = n),
            "weightsfile" | "evalfile" => {
                if value.is_empty() || value == "<empty>" {
                    self.searcher_mut().set_evaluator(Arc::new(UniformEvaluator));
                    self.settings.weights = None;
                    Ok(())
                } else {
                    self.load_weights(Path::new(value))
                        .map(|d| self.out.line(&format!("info string loaded {} ({d})", truncate(value))))
                }
            }
            "rootsearch" => value.parse::<RootMode>().map(|root| {
                self.settings.root = root;
                self.update_mcts_config();
            }),
            "resolvecaptures" => match value.to_ascii_lowercase().as_str() {
                v @ ("true" | "false") => {
                    self.settings.resolve_captures = v == "true";
                    self.update_mcts_config();
                    Ok(())
                }
                _ => Err(format!("invalid value '{}' for {name} (expected true or false)", truncate(value))),
            },
            "minibatchsize" => spin(MAX_MINIBATCH as u64, 1).map(|n| {
                self.settings.minibatch = n as usize;
                self.update_mcts_config();
            }),
            "playmode" => value.parse::<PlayMode>().map(|mode| {
                self.settings.mode = mode;
                self.rebuild_engine();
            }),
            "leafeval" => value.parse::<LeafEval>().and_then(|leaf| {
                if leaf == LeafEval::Learned && self.settings.learned.is_none() {
                    return Err("LeafEval learned needs LeafEvalFile first".to_string());
                }
                self.settings.leaf = leaf;
                self.update_ab_config();
                Ok(())
            }),
            "leafevalfile" => {
                if value.is_empty() || value == "<empty>" {
                    self.settings.learned = None;
                    if self.settings.leaf == LeafEval::Learned {
                        self.settings.leaf = AbConfig::default().leaf;
                    }
                    self.update_ab_config();
                    Ok(())
                } else {
                    self.load_learned_eval(Path::new(value)).map(|()| {
                        self.out.line(&format!("info string loaded the learned evaluation {}", truncate(value)))
                    })
                }
            }
            "rootvalue" => spin(MAX_ROOT_VALUE as u64, 0).map(|n| {
                self.settings.root_value = n as i32;
                self.update_ab_config();
            }),
            _ => Err(format!("no such option '{}'", truncate(name))),
        };
        if let Err(e) = result {
            self.out.error(&e);
        }
    }

    /// Hands the MCTS settings to the engine, if it is the MCTS one.
    fn update_mcts_config(&mut self) {
        let cfg = search_config(&self.settings);
        if let Engine::Mcts(s) = self.searcher_mut() {
            s.set_config(cfg);
        }
    }

    fn cmd_position(&mut self, mut words: std::str::SplitWhitespace<'_>) {
        self.settle_search();
        let variant = self.settings.variant;
        let start = match words.next() {
            Some("startpos") => Position::new(variant),
            Some("fen") => {
                let fields: Vec<&str> = words.by_ref().take_while(|w| *w != "moves").collect();
                // `take_while` consumed "moves" if present; what is left are the moves.
                match Position::from_fen_variant(&fields.join(" "), variant) {
                    Ok(p) => p,
                    Err(e) => return self.out.error(&format!("{e}; position unchanged")),
                }
            }
            _ => return self.out.error("position needs 'startpos' or 'fen <FEN>'; position unchanged"),
        };
        let mut game = Game::new(start);
        let mut rest = words.peekable();
        if rest.peek() == Some(&"moves") {
            rest.next();
        }
        for (i, w) in rest.enumerate() {
            if let Err(e) = game.play_uci(w) {
                self.out.error(&format!("{e} (move {}); position set before it", i + 1));
                break;
            }
        }
        self.game = game;
    }

    fn cmd_go(&mut self, words: std::str::SplitWhitespace<'_>) {
        self.settle_search();
        let (go, errors) = Go::parse(words);
        for e in errors {
            self.out.error(&e);
        }
        let overhead = Duration::from_millis(self.settings.move_overhead_ms);
        let mut limits = go.limits(self.game.position().turn(), overhead);
        let mut root_moves = Vec::new();
        for w in &go.searchmoves {
            match self.game.position().parse_uci(w) {
                Ok(m) if self.game.position().is_legal(m) => root_moves.push(m),
                _ => self.out.error(&format!("searchmoves: {} is not a legal move here; left out", truncate(w))),
            }
        }
        if !go.searchmoves.is_empty() && root_moves.is_empty() {
            self.out.error("searchmoves: no legal move given; searching all moves");
        }
        let unbounded = limits.infinite || (limits.nodes.is_none() && limits.time.is_none() && limits.depth.is_none());
        limits.max_visits = Some(self.max_visits());
        let control = Arc::new(SearchControl::default());
        control.ponder.store(go.ponder, Ordering::Relaxed);
        let mut searcher = self.searcher.take().expect("search finished");
        let game = self.game.clone();
        let out = self.out.clone();
        let ctl = control.clone();
        let spawned = std::thread::Builder::new().name("search".into()).spawn(move || {
            let mut report = |info: &search::SearchInfo| out.line(&info::info_line(info));
            let allowed = (!root_moves.is_empty()).then_some(root_moves.as_slice());
            let result = searcher.search_among(&game, allowed, &limits, &ctl, &mut report);
            out.line(&bestmove_line(&game, result, &out));
            searcher
        });
        match spawned {
            Ok(handle) => self.running = Some(Running { control, handle, unbounded }),
            Err(e) => {
                self.out.error(&format!("cannot start the search thread: {e}"));
                self.searcher = Some(self.fresh_searcher());
                self.out.line("bestmove (none)");
            }
        }
    }
}

/// The `bestmove` line; a failed search still names a legal move (after reporting why).
fn bestmove_line(game: &Game, result: anyhow::Result<SearchResult>, out: &Output) -> String {
    match result {
        Ok(SearchResult { best: Some(m), ponder, .. }) => match ponder {
            Some(p) => format!("bestmove {m} ponder {p}"),
            None => format!("bestmove {m}"),
        },
        Ok(_) => "bestmove (none)".into(),
        Err(e) => {
            out.error(&format!("search failed: {e:#}"));
            match game.position().legal_moves().first() {
                Some(m) => format!("bestmove {m}"),
                None => "bestmove (none)".into(),
            }
        }
    }
}

/// Keeps echoed input short (a GUI or fuzzer may send anything).
fn truncate(s: &str) -> String {
    if s.chars().count() > 64 {
        format!("{}...", s.chars().take(64).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Runs the protocol on `input` until `quit` or end of input.
pub fn run(input: impl BufRead, engine: &mut UciEngine) -> std::io::Result<()> {
    for line in input.split(b'\n') {
        let line = line?;
        if engine.handle(&String::from_utf8_lossy(&line)) == Flow::Quit {
            return Ok(());
        }
    }
    // End of input: let a bounded search finish (`echo "go nodes 100" | szero uci`).
    engine.settle_search();
    engine.handle("quit");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> (UciEngine, Captured) {
        let (out, buf) = Output::captured();
        (UciEngine::new(out), buf)
    }

    /// Sends `lines` (waiting for each search to end) and returns the replies.
    fn session(e: &mut UciEngine, buf: &Captured, lines: &[&str]) -> Vec<String> {
        for l in lines {
            e.handle(l);
            e.wait();
        }
        buf.take_lines()
    }

    #[test]
    fn scripted_session_with_exact_replies() {
        let (mut e, buf) = engine();
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            session(
                &mut e,
                &buf,
                &["uci", "isready", "", "   ", "xyzzy 1 2", "setoption name UCI_Variant value seirawan", "isready"]
            ),
            [
                format!("id name szero {version}").as_str(),
                "id author the szero authors",
                "option name UCI_Variant type combo default seirawan var seirawan var seirawan-forced var seirawan-placement var chess",
                "option name Threads type spin default 1 min 1 max 256",
                "option name Hash type spin default 512 min 1 max 1048576",
                "option name Move Overhead type spin default 100 min 0 max 10000",
                "option name WeightsFile type string default <empty>",
                "option name RootSearch type combo default gumbel var gumbel var puct",
                "option name ResolveCaptures type check default false",
                "option name MinibatchSize type spin default 16 min 1 max 256",
                "option name PlayMode type combo default alphabeta var mcts var alphabeta",
                "option name LeafEval type combo default material var net var net+material var material var learned",
                "option name RootValue type spin default 150 min 0 max 1000",
                "option name LeafEvalFile type string default <empty>",
                "uciok",
                "readyok",
                "info string error: unknown command 'xyzzy'",
                "readyok",
            ]
        );
        assert_eq!(
            session(
                &mut e,
                &buf,
                &[
                    "setoption name UCI_Variant value xiangqi",
                    "setoption name Threads value many",
                    "setoption name Hash value 0",
                    "setoption name Frobnicate value 3",
                    "setoption nme Hash",
                    "setoption name Move Overhead value 50",
                    "setoption name RootSearch value alphabeta",
                    "setoption name RootSearch value puct",
                    "setoption name ResolveCaptures value sometimes",
                    "setoption name ResolveCaptures value true",
                    "setoption name WeightsFile value /nonexistent/net.safetensors",
                ]
            ),
            [
                "info string error: unsupported variant 'xiangqi' (seirawan, seirawan-forced, seirawan-placement or chess)",
                "info string error: invalid value 'many' for Threads (expected 1..256)",
                "info string error: invalid value '0' for Hash (expected 1..1048576)",
                "info string error: no such option 'Frobnicate'",
                "info string error: setoption needs 'name <option> [value <value>]'",
                // Move Overhead and RootSearch puct are accepted silently; the missing
                // network file is reported.
                "info string error: unknown root search 'alphabeta' (expected puct or gumbel)",
                "info string error: invalid value 'sometimes' for ResolveCaptures (expected true or false)",
                "info string error: cannot load network /nonexistent/net.safetensors: /nonexistent/net.safetensors: No such file or directory (os error 2)",
            ]
        );
        assert_eq!(e.settings().move_overhead_ms, 50);
        assert_eq!(e.settings().root, RootMode::Puct);
        assert!(e.settings().resolve_captures);
        let out = session(
            &mut e,
            &buf,
            &[
                "position",
                "position fen not/a/fen w - - 0 1",
                "position startpos moves e2e4 e7e5 e4e5",
                "d",
                "position startpos moves b1c3e e7e5 g1f3h",
                "d",
                "position fen 4k3/8/8/8/8/8/8/r2NK3[EHeh] w DE - 0 1 moves e1f1e",
                "d",
                "position fen 4k3/8/8/8/8/8/8/r2NK3[EHeh] w DE - 0 1 moves d1e3",
                "d",
            ],
        );
        assert_eq!(
            out,
            [
                "info string error: position needs 'startpos' or 'fen <FEN>'; position unchanged",
                "info string error: invalid FEN board: expected 8 ranks, found 3; position unchanged",
                "info string error: illegal move e4e5 in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 2 (move 3); position set before it",
                "info string fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 2",
                // FENs as pyffish's get_fen writes them.
                "info string fen rnbqkbnr/pppp1ppp/8/4p3/8/2N2N2/PPPPPPPP/REBQKBHR[eh] b KQkqbcdfg - 1 2",
                "info string fen 4k3/8/8/8/8/8/8/r2NEK2[Heh] b D - 1 1",
                // Pinned back-rank knight: illegal (the gate would not shield the king).
                "info string error: illegal move d1e3 in 4k3/8/8/8/8/8/8/r2NK3[EHeh] w DE - 0 1 (move 1); position set before it",
                "info string fen 4k3/8/8/8/8/8/8/r2NK3[EHeh] w DE - 0 1",
            ]
        );
    }

    #[test]
    fn go_searches_and_reports() {
        let (mut e, buf) = engine();
        // MCTS: one info line and `bestmove` (alpha-beta adds one line per iteration).
        session(&mut e, &buf, &["setoption name PlayMode value mcts"]);
        let out = session(&mut e, &buf, &["position startpos moves e2e4", "go nodes 64"]);
        assert_eq!(out.len(), 2, "{out:?}");
        let info = &out[0];
        assert!(
            info.starts_with("info depth ") && info.contains(" nodes 64 ") && info.contains(" score cp "),
            "{info}"
        );
        assert!(info.contains(" wdl ") && info.contains(" pv "), "{info}");
        let best = out[1].split_whitespace().nth(1).unwrap();
        let mut g = Game::new(Position::startpos());
        g.play_uci("e2e4").unwrap();
        assert!(g.position().parse_uci(best).is_ok(), "{}", out[1]);

        // Malformed go parameters are reported and skipped; the search still runs.
        let out = session(&mut e, &buf, &["go nodes 32 wtime abc frobs"]);
        assert_eq!(out[0], "info string error: invalid value 'abc' for wtime");
        assert_eq!(out[1], "info string error: unknown go parameter 'frobs'");
        assert!(out[2].contains(" nodes 32 ") && out[3].starts_with("bestmove "), "{out:?}");

        // Mate in one is found and announced.
        let out = session(&mut e, &buf, &["position fen 6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1", "go depth 3"]);
        assert!(out[0].contains("score mate 1") && out[1] == "bestmove a1a8", "{out:?}");

        // Checkmated: no move.
        let out = session(&mut e, &buf, &["position fen R5k1/5ppp/8/8/8/8/8/6K1[] b - - 0 1", "go movetime 10"]);
        assert_eq!(out.last().unwrap(), "bestmove (none)");
    }

    /// `LeafEvalFile` loads a learned evaluation and scores leaves with it; a bad file or
    /// `LeafEval learned` without one is an error that changes nothing.
    #[test]
    fn a_learned_leaf_evaluation_over_uci() {
        let (mut e, buf) = engine();
        let out = session(&mut e, &buf, &["setoption name LeafEval value learned"]);
        assert_eq!(out, ["info string error: LeafEval learned needs LeafEvalFile first"]);
        let out = session(&mut e, &buf, &["setoption name LeafEvalFile value /nonexistent/e.json"]);
        assert!(out[0].starts_with("info string error: cannot read the evaluation file"), "{out:?}");
        assert_eq!(e.settings().leaf, LeafEval::Material);
        let dir = std::env::temp_dir().join(format!("szero-uci-learned-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("e.json");
        LearnedEval::material().save(&file).unwrap();
        let set = format!("setoption name LeafEvalFile value {}", file.display());
        let out = session(&mut e, &buf, &[&set]);
        assert!(out[0].starts_with("info string loaded the learned evaluation"), "{out:?}");
        assert_eq!(e.settings().leaf, LeafEval::Learned);
        let out = session(&mut e, &buf, &["position fen 6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1", "go depth 3"]);
        assert_eq!(out.last().unwrap(), "bestmove a1a8", "{out:?}");
        let out = session(&mut e, &buf, &["setoption name LeafEvalFile value <empty>"]);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(e.settings().leaf, LeafEval::Material);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `PlayMode alphabeta` searches by iterative deepening: one info line per finished
    /// depth, then the final one and `bestmove`; mates are announced as with MCTS.
    #[test]
    fn alphabeta_play_mode_over_uci() {
        let (mut e, buf) = engine();
        let out = session(
            &mut e,
            &buf,
            &["setoption name PlayMode value alphabeta", "position startpos moves e2e4", "go depth 2"],
        );
        assert_eq!(out.len(), 4, "{out:?}");
        assert!(out[0].starts_with("info depth 1 ") && out[1].starts_with("info depth 2 "), "{out:?}");
        assert!(out[2].contains(" score cp ") && out[2].contains(" pv "), "{out:?}");
        let best = out[3].split_whitespace().nth(1).unwrap();
        let mut g = Game::new(Position::startpos());
        g.play_uci("e2e4").unwrap();
        assert!(g.position().parse_uci(best).is_ok(), "{}", out[3]);
        let out = session(&mut e, &buf, &["position fen 6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1", "go movetime 200"]);
        assert!(out.iter().any(|l| l.contains("score mate 1")) && out.last().unwrap() == "bestmove a1a8", "{out:?}");
        let out = session(&mut e, &buf, &["setoption name PlayMode value minimax"]);
        assert_eq!(out, vec!["info string error: unknown play mode 'minimax' (expected mcts or alphabeta)"]);
        assert_eq!(e.settings().mode, PlayMode::Alphabeta);
    }

    /// `go searchmoves` limits both play modes to the moves given (the mate in one, a1a8,
    /// left out here); moves that are not legal are reported and left out.
    #[test]
    fn searchmoves_limits_the_root_in_both_modes() {
        let (mut e, buf) = engine();
        for mode in ["mcts", "alphabeta"] {
            let out = session(
                &mut e,
                &buf,
                &[
                    &format!("setoption name PlayMode value {mode}"),
                    "position fen 6k1/5ppp/8/8/8/8/8/R5K1[] w - - 0 1",
                    "go searchmoves a1a2 g1f2 z9z9 a1a9 nodes 64",
                ],
            );
            assert!(out.iter().any(|l| l.contains("searchmoves: z9z9 is not a legal move")), "{mode}: {out:?}");
            let best = out.last().unwrap().split_whitespace().nth(1).unwrap();
            assert!(best == "a1a2" || best == "g1f2", "{mode}: {out:?}");
            let out = session(&mut e, &buf, &["go nodes 64"]);
            assert_eq!(out.last().unwrap().split_whitespace().nth(1), Some("a1a8"), "{mode}: {out:?}");
        }
    }

    /// Both alternative entry rules are played through UCI: placements are searched and
    /// named `E@d`, and a forced entry is a gating move.
    #[test]
    fn alternative_entry_rules_over_uci() {
        let (mut e, buf) = engine();
        let out = session(
            &mut e,
            &buf,
            &["setoption name UCI_Variant value seirawan-placement", "position startpos moves E@d h@b", "go nodes 32"],
        );
        let best = out.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
        assert!(best.starts_with("H@") && best != "H@d", "{out:?}");
        let out = session(&mut e, &buf, &[&format!("position startpos moves E@d h@b {best} E@c b1c3"), "go nodes 16"]);
        assert!(out.last().unwrap().starts_with("bestmove "), "{out:?}");
        let out = session(
            &mut e,
            &buf,
            &["setoption name UCI_Variant value seirawan-forced", "position startpos moves g1f3", "d"],
        );
        assert_eq!(out, ["info string fen rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBHR[Eeh] b KQBCDFkqbcdfg - 1 1"]);
    }

    #[test]
    fn stop_and_isready_while_thinking() {
        let (mut e, buf) = engine();
        e.handle("position startpos");
        e.handle("go infinite");
        std::thread::sleep(Duration::from_millis(50));
        e.handle("isready");
        assert_eq!(buf.take_lines().last().map(String::as_str), Some("readyok"));
        e.handle("stop");
        let out = buf.take_lines();
        assert!(out.last().unwrap().starts_with("bestmove "), "{out:?}");
        // `quit` during a search ends it too, printing bestmove first.
        e.handle("go wtime 100000 btime 100000");
        assert_eq!(e.handle("quit"), Flow::Quit);
        assert!(buf.take_lines().last().unwrap().starts_with("bestmove "));
    }

    #[test]
    fn junk_never_crashes() {
        let (mut e, buf) = engine();
        let junk = [
            "go depth",
            "go movetime -5",
            "go nodes 18446744073709551615 movetime 5",
            "go depth 99999999999 movetime 5",
            "go searchmoves e2e4 d2d4 nodes 5",
            "go mate 2 movetime 5",
            "go ponder nodes 5",
            "ponderhit",
            "position fen",
            "position fen moves e2e4",
            "position startpos moves",
            "position startpos moves e2e4 e2e4",
            "position startpos moves \u{e9}\u{e9}\u{e9}\u{e9}",
            "position fen 8/8/8/8/8/8/8/8[] w - - 0 1",
            "position fen 4k3/8/8/8/8/8/8/4K3[EEEEhh] w - - 0 1",
            "setoption",
            "setoption name",
            "setoption name Hash value",
            "setoption name Hash value 99999999999999999999",
            "setoption name UCI_Variant",
            "setoption name WeightsFile value <empty>",
            "\u{0}\u{1}\u{7f}",
            &"x".repeat(10_000),
        ];
        for line in junk {
            e.handle(line);
            e.handle("stop");
            e.handle("isready");
            let out = buf.take_lines();
            assert_eq!(out.last().map(String::as_str), Some("readyok"), "after {line:?}: {out:?}");
            assert!(out.iter().all(|l| l.len() < 400), "echoed too much: {out:?}");
        }
        e.handle("position startpos");
        e.handle("go nodes 10");
        e.wait();
        assert!(buf.take_lines().last().unwrap().starts_with("bestmove "));
    }

    #[test]
    fn run_loop_reads_until_quit_or_end_of_input() {
        let (out, buf) = Output::captured();
        let mut e = UciEngine::new(out);
        let input =
            b"setoption name PlayMode value mcts\nisready\n\xff\xfe garbage\ngo nodes 20\ngo nodes 10\ngo nodes 5\n";
        run(std::io::Cursor::new(input.as_slice()), &mut e).unwrap();
        let out = buf.take_lines();
        // Bounded searches run to completion one after the other, even when piped, and
        // the last one is not cut short by the end of input.
        assert_eq!(out.len(), 8, "{out:?}");
        assert_eq!(out[..2], ["readyok", "info string error: unknown command '\u{fffd}\u{fffd}'"]);
        assert!(out[2].contains(" nodes 20 ") && out[3].starts_with("bestmove"), "{out:?}");
        assert!(out[4].contains(" nodes 10 ") && out[5].starts_with("bestmove"), "{out:?}");
        assert!(out[6].contains(" nodes 5 ") && out[7].starts_with("bestmove"), "{out:?}");
        let (out, buf) = Output::captured();
        let mut e = UciEngine::new(out);
        run(std::io::Cursor::new(b"quit\nisready\n".as_slice()), &mut e).unwrap();
        assert!(buf.take_lines().is_empty());
    }

    #[test]
    fn fast_games_do_not_flag() {
        // A fast game against the clock: every search must end within its budget. The clock
        // is wide (3 s a side, about 100 ms a move) so that a test machine too loaded to run
        // the search thread for a few hundred milliseconds does not flag (CI once saw a
        // 383 ms stall against a 300 ms clock); an engine that searched past its budget, or
        // took the whole clock as its move time, still flags within the first moves.
        let (mut e, buf) = engine();
        let mut game = Game::new(Position::startpos());
        let mut clock = [3_000u64, 3_000];
        for _ in 0..12 {
            let (w, b) = (clock[0], clock[1]);
            let moves: Vec<String> = game.moves().iter().map(|m| m.to_uci()).collect();
            e.handle(&format!("position startpos moves {}", moves.join(" ")));
            let t = std::time::Instant::now();
            e.handle(&format!("go wtime {w} btime {b}"));
            e.wait();
            let used = t.elapsed().as_millis() as u64;
            let side = game.position().turn().index();
            assert!(used < clock[side], "flagged: used {used} of {}", clock[side]);
            clock[side] -= used;
            let out = buf.take_lines();
            let best = out.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
            game.play_uci(&best).unwrap();
            if game.outcome().is_some() {
                break;
            }
        }
    }
}
