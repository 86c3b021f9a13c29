//! Matches between two players: game pairs from shared openings (each played with both
//! colours), several pairs at once on worker threads, adjudication, PGN output, and
//! statistics with an optional SPRT that ends the match as soon as it decides.
//!
//! A deterministic engine against itself replays the same game when the colours are
//! swapped, so such a match can play each opening once instead ([`MatchConfig::repeat`]
//! false, cutechess-cli's default without `-repeat`): one game a round, colours alternating
//! from round to round, and trinomial statistics.

pub mod adjudication;
pub mod batched;
pub mod openings;
pub mod record;

pub use adjudication::Adjudication;
pub use record::{verify_record, GameRecord};
pub use schess::Termination;

use crate::elo::{elo_estimate, EloEstimate, Pentanomial, SprtConfig, SprtDecision, SprtStatus, Wdl};
use crate::players::{Player, PlayerError, PlayerFactory};
use adjudication::{forfeit, natural_end, GameEnd, ResignTracker};
use openings::{Opening, OpeningBook};
use record::record_game;
use schess::{Color, Game};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How a match is played.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// Games to play (rounded up to whole pairs when `repeat`).
    pub games: usize,
    /// Each opening played with both colours (a pair; pentanomial statistics). When false,
    /// each opening is played once, the first player White in even rounds and Black in odd
    /// ones, and the statistics are trinomial.
    pub repeat: bool,
    /// Game pairs played at once (each worker owns its own players).
    pub concurrency: usize,
    pub adjudication: Adjudication,
    /// Stop as soon as this test decides (counts are pentanomial, from the first player's
    /// point of view).
    pub sprt: Option<SprtConfig>,
    /// Write every game here (created or truncated).
    pub pgn: Option<PathBuf>,
    /// PGN `Event` tag.
    pub event: String,
    /// Seeds the players' random choices.
    pub seed: u64,
    /// libtorch threads of each worker's network calls (0: libtorch's default).
    pub torch_threads: usize,
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            games: 2,
            repeat: true,
            concurrency: 1,
            adjudication: Adjudication::default(),
            sprt: None,
            pgn: None,
            event: "szero match".into(),
            seed: 1,
            torch_threads: 0,
        }
    }
}

/// Why a match ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchEnd {
    /// All games played.
    Completed,
    /// The SPRT decided.
    Sprt,
    /// Stopped from outside; the statistics cover the pairs finished before.
    Aborted,
}

/// Results of a match, from the first player's point of view.
#[derive(Debug, Clone)]
pub struct MatchReport {
    pub first: String,
    pub second: String,
    pub wdl: Wdl,
    /// Each opening played with both colours ([`MatchConfig::repeat`]).
    pub paired: bool,
    /// Counts of the game pairs (empty when each opening was played once).
    pub pentanomial: Pentanomial,
    /// Elo from the pentanomial counts (the right error bars for paired openings), or from
    /// W/D/L when each opening was played once.
    pub elo: EloEstimate,
    /// Elo from W/D/L as if games were independent (for comparison).
    pub elo_trinomial: EloEstimate,
    pub sprt: Option<SprtStatus>,
    pub end: MatchEnd,
    /// Games by how they ended (`checkmate`, `max-length`, ...: [`Termination`]'s names).
    pub terminations: BTreeMap<String, u64>,
    pub games: Vec<GameRecord>,
    pub elapsed: Duration,
}

impl MatchReport {
    fn new(first: String, second: String, paired: bool) -> Self {
        MatchReport {
            first,
            second,
            paired,
            wdl: Wdl::default(),
            pentanomial: Pentanomial::default(),
            elo: if paired { elo_estimate(&[0; 5]) } else { elo_estimate(&[0; 3]) },
            elo_trinomial: elo_estimate(&[0; 3]),
            sprt: None,
            end: MatchEnd::Completed,
            terminations: BTreeMap::new(),
            games: Vec::new(),
            elapsed: Duration::ZERO,
        }
    }

    /// Rounds finished: pairs, or single games when each opening was played once.
    pub fn rounds(&self) -> u64 {
        if self.paired {
            self.pentanomial.pairs()
        } else {
            self.wdl.games()
        }
    }

    /// Adds one round's games: a pair (the same opening, colours swapped) or one game.
    fn add_round(&mut self, games: Vec<GameRecord>, sprt: Option<&SprtConfig>) {
        let points: Vec<u8> = games.iter().map(GameRecord::first_half_points).collect();
        for &x in &points {
            self.wdl.add_half_points(x);
        }
        if let [x, y] = points[..] {
            self.pentanomial.add_pair(x, y);
        }
        for g in &games {
            *self.terminations.entry(g.termination.to_string()).or_default() += 1;
        }
        self.games.extend(games);
        let ldw = self.wdl.as_ldw();
        let counts: &[u64] = if self.paired { &self.pentanomial.0 } else { &ldw };
        self.elo = elo_estimate(counts);
        self.elo_trinomial = elo_estimate(&self.wdl.as_ldw());
        self.sprt = sprt.map(|s| s.status(counts));
    }

    /// The statistics as one JSON object (for scripts): players, W/D/L, pentanomial
    /// counts, score, pentanomial and trinomial Elo, SPRT, how the match and its games
    /// ended, and the time taken.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "first": self.first,
            "second": self.second,
            "games": self.wdl.games(),
            "paired": self.paired,
            "wdl": self.wdl,
            "pentanomial": self.paired.then_some(self.pentanomial),
            "score": self.wdl.score(),
            "elo": self.elo,
            "elo_trinomial": self.elo_trinomial,
            "sprt": self.sprt,
            "end": self.end,
            "terminations": self.terminations,
            "seconds": self.elapsed.as_secs_f64(),
        })
    }

    /// A human-readable summary (several lines).
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let w = &self.wdl;
        let _ = writeln!(
            s,
            "{} vs {}: {} games, +{} ={} -{} (score {:.1}%)",
            self.first,
            self.second,
            w.games(),
            w.wins,
            w.draws,
            w.losses,
            100.0 * w.score()
        );
        if self.paired {
            let p = &self.pentanomial.0;
            let _ = writeln!(s, "pentanomial [0, 0.5, 1, 1.5, 2] points per pair: {p:?}");
        } else {
            let _ = writeln!(s, "each opening played once: trinomial statistics (W/D/L)");
        }
        let e = &self.elo;
        let _ = writeln!(
            s,
            "Elo {:+.1} ± {:.1} (95%: {:+.1} .. {:+.1}), nElo {:+.1}, LOS {:.1}%",
            e.elo,
            e.elo95(),
            e.elo_lo,
            e.elo_hi,
            e.nelo,
            100.0 * e.los
        );
        if let Some(t) = &self.sprt {
            let _ = writeln!(s, "SPRT: LLR {:.2} [{:.2}, {:.2}] {:?}", t.llr, t.lower, t.upper, t.decision);
        }
        let terms: Vec<String> = self.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = write!(
            s,
            "ended: {:?}; games by termination: {}; {:.1}s",
            self.end,
            terms.join(", "),
            self.elapsed.as_secs_f64()
        );
        s
    }
}

/// Progress after each finished round (a pair, or one game when openings are not repeated).
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub games_done: usize,
    pub games_total: usize,
    pub wdl: Wdl,
    pub elo: EloEstimate,
    pub sprt: Option<SprtStatus>,
}

/// Why a match could not be played. (Causes are part of the message, not `source()`,
/// so that a `{:#}` chain does not repeat them.)
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error("cannot set up player {player}: {error}")]
    Setup { player: String, error: PlayerError },
    #[error("player {player} failed (not its fault, so the match stops): {error}")]
    Player { player: String, error: PlayerError },
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("invalid match settings: {0}")]
    Config(#[from] settings::ConfigError),
}

/// A match between two players, batched whenever one side is a fixed-playout MCTS (its
/// leaves from `games_in_flight` games per worker are evaluated together, the other side
/// asked directly) and `games_in_flight` > 0; played game by game otherwise.
pub fn play(
    first: &PlayerFactory,
    second: &PlayerFactory,
    book: &OpeningBook,
    cfg: &MatchConfig,
    games_in_flight: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<MatchReport, MatchError> {
    use batched::{run_batched_match, BatchedPlayer, Side};
    let (a, b) = (BatchedPlayer::from_factory(first), BatchedPlayer::from_factory(second));
    if games_in_flight > 0 && (a.is_some() || b.is_some()) {
        let p1 = a.as_ref().map_or(Side::Direct(first), Side::Search);
        let p2 = b.as_ref().map_or(Side::Direct(second), Side::Search);
        run_batched_match(p1, p2, book, cfg, games_in_flight, stop, progress)
    } else {
        run_match(first, second, book, cfg, stop, progress)
    }
}

/// Plays a match of `first` against `second`. `stop` ends it early (between moves); the
/// report then covers the pairs finished before. `progress` is called after each pair.
pub fn run_match(
    first: &PlayerFactory,
    second: &PlayerFactory,
    book: &OpeningBook,
    cfg: &MatchConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<MatchReport, MatchError> {
    let workers = cfg.concurrency.max(1);
    drive(first.name(), second.name(), book, cfg, workers, stop, progress, &|worker, shared, tx| {
        let seed = cfg.seed.wrapping_mul(0x2545_F491_4F6C_DD1D).wrapping_add(worker as u64 * 2);
        let make = |f: &PlayerFactory, s: u64| {
            f.make(s).map_err(|error| MatchError::Setup { player: f.name().to_string(), error })
        };
        let mut a = make(first, seed)?;
        let mut b = make(second, seed + 1)?;
        while let Some(k) = shared.claim() {
            let opening = book.get(k);
            let mut games = Vec::with_capacity(2);
            for &swapped in shared.colours(k) {
                let (white, black): (&mut dyn Player, &mut dyn Player) =
                    if swapped { (&mut *b, &mut *a) } else { (&mut *a, &mut *b) };
                let round = format!("{}.{}", k + 1, swapped as u8 + 1);
                let Some(g) = play_game(shared, white, black, !swapped, &opening, round)? else {
                    return Ok(());
                };
                games.push(g);
            }
            if tx.send(Ok(games)).is_err() {
                return Ok(());
            }
        }
        Ok(())
    })
}

/// What the workers of a match share.
pub(crate) struct Shared<'a> {
    pub book: &'a OpeningBook,
    pub cfg: &'a MatchConfig,
    next: AtomicUsize,
    /// Openings to play (each a pair of games, or one game when not repeated).
    rounds: usize,
    /// Set when the match is decided or failed: workers abandon their games.
    halt: AtomicBool,
    stop: &'a AtomicBool,
}

impl Shared<'_> {
    pub fn halted(&self) -> bool {
        self.halt.load(Ordering::Relaxed) || self.stop.load(Ordering::Relaxed)
    }

    /// The next round (opening) to play, unless the match is over.
    pub fn claim(&self) -> Option<usize> {
        if self.halted() {
            return None;
        }
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        (k < self.rounds).then_some(k)
    }

    /// The games of round `k`, each as whether the colours are swapped (the second player
    /// White): both when openings are repeated, else one, alternating between rounds.
    pub fn colours(&self, k: usize) -> &'static [bool] {
        match (self.cfg.repeat, k % 2) {
            (true, _) => &[false, true],
            (false, 0) => &[false],
            (false, _) => &[true],
        }
    }
}

/// Where workers send each finished round's games, in [`Shared::colours`] order (or the
/// error that stops the match).
pub(crate) type RoundSender = mpsc::Sender<Result<Vec<GameRecord>, MatchError>>;

/// A worker: plays rounds claimed from [`Shared`] until there are none, sending each.
pub(crate) type Work<'a> = dyn Fn(usize, &Shared, &RoundSender) -> Result<(), MatchError> + Sync + 'a;

/// Runs `workers` threads of `work` and collects their rounds into the report: PGN,
/// statistics, SPRT (halting the workers once it decides), progress.
#[allow(clippy::too_many_arguments)]
pub(crate) fn drive(
    first: &str,
    second: &str,
    book: &OpeningBook,
    cfg: &MatchConfig,
    workers: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
    work: &Work<'_>,
) -> Result<MatchReport, MatchError> {
    if let Some(s) = &cfg.sprt {
        s.validate().map_err(|e| e.within("sprt"))?;
    }
    let started = Instant::now();
    let rounds = if cfg.repeat { cfg.games.div_ceil(2).max(1) } else { cfg.games.max(1) };
    let games_total = if cfg.repeat { 2 * rounds } else { rounds };
    let mut pgn = match &cfg.pgn {
        Some(path) => Some((
            path.clone(),
            std::fs::File::create(path).map_err(|error| MatchError::Io { path: path.clone(), error })?,
        )),
        None => None,
    };
    let mut report = MatchReport::new(first.to_string(), second.to_string(), cfg.repeat);
    let shared = Shared { book, cfg, next: AtomicUsize::new(0), rounds, halt: AtomicBool::new(false), stop };
    let (tx, rx) = mpsc::channel::<Result<Vec<GameRecord>, MatchError>>();
    let mut error = None;
    std::thread::scope(|scope| {
        for w in 0..workers.clamp(1, rounds) {
            let tx = tx.clone();
            let shared = &shared;
            scope.spawn(move || {
                if cfg.torch_threads > 0 {
                    // Thread-local once set: this worker's network calls only.
                    models::tch::set_num_threads(cfg.torch_threads as i32);
                }
                if let Err(e) = work(w, shared, &tx) {
                    shared.halt.store(true, Ordering::Relaxed);
                    let _ = tx.send(Err(e));
                }
            });
        }
        drop(tx);
        for msg in rx {
            match msg {
                Err(e) => {
                    shared.halt.store(true, Ordering::Relaxed);
                    error.get_or_insert(e);
                }
                Ok(_) if error.is_some() || shared.halt.load(Ordering::Relaxed) => {}
                Ok(games) => {
                    if let Some((path, file)) = &mut pgn {
                        let text: String = games.iter().map(|g| g.pgn.as_str()).collect();
                        if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                            shared.halt.store(true, Ordering::Relaxed);
                            error.get_or_insert(MatchError::Io { path: path.clone(), error: e });
                            continue;
                        }
                    }
                    report.add_round(games, cfg.sprt.as_ref());
                    if report.sprt.is_some_and(|s| s.decision != SprtDecision::Continue) {
                        report.end = MatchEnd::Sprt;
                        shared.halt.store(true, Ordering::Relaxed);
                    }
                    progress(&Progress {
                        games_done: report.wdl.games() as usize,
                        games_total,
                        wdl: report.wdl,
                        elo: report.elo,
                        sprt: report.sprt,
                    });
                }
            }
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    if report.end == MatchEnd::Completed && (report.rounds() as usize) < rounds {
        report.end = MatchEnd::Aborted;
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Plays one game between two [`Player`]s; `None` if the match was halted meanwhile.
fn play_game(
    shared: &Shared,
    white: &mut dyn Player,
    black: &mut dyn Player,
    first_is_white: bool,
    opening: &Opening,
    round: String,
) -> Result<Option<GameRecord>, MatchError> {
    let mut game = opening.game();
    let variant = game.start().variant();
    let adj = &shared.cfg.adjudication;
    let mut end: Option<GameEnd> = None;
    for color in [Color::White, Color::Black] {
        let p: &mut dyn Player = if color == Color::White { &mut *white } else { &mut *black };
        if let Some(e) = start_game(p, color, variant)? {
            end.get_or_insert(e);
        }
    }
    let mut resign = ResignTracker::default();
    while end.is_none() {
        end = natural_end(&game, opening.moves.len(), adj);
        if end.is_some() {
            break;
        }
        if shared.halted() {
            return Ok(None);
        }
        let player: &mut dyn Player = if game.position().turn() == Color::White { &mut *white } else { &mut *black };
        end = play_move(&mut game, player, adj, &mut resign)?;
    }
    let end = end.expect("loop ends with a result");
    let names = [white.name(), black.name()];
    Ok(Some(record_game(&shared.cfg.event, &game, end, names, first_is_white, opening.moves.len(), round)))
}

/// Asks `player` (to move in `game`) for its move and plays it: the game's adjudicated or
/// forfeited end, if that move (or the failure to make one) ended it.
pub(crate) fn play_move(
    game: &mut Game,
    player: &mut dyn Player,
    adj: &Adjudication,
    resign: &mut ResignTracker,
) -> Result<Option<GameEnd>, MatchError> {
    let turn = game.position().turn();
    match player.choose(game) {
        Ok(m) if game.position().is_legal(m) => {
            game.play_unchecked(m);
            Ok(resign.update(adj, turn, player.last_score()))
        }
        Ok(m) => {
            let e =
                PlayerError::IllegalMove { mv: m.to_uci(), reason: format!("not legal in {}", game.position().fen()) };
            Ok(Some(forfeit(turn, player.name(), &e)))
        }
        Err(e) if e.is_forfeit() => Ok(Some(forfeit(turn, player.name(), &e))),
        Err(e) => Err(MatchError::Player { player: player.name().to_string(), error: e }),
    }
}

/// Tells `player` (playing `color`) that a game starts: the forfeit if it cannot.
pub(crate) fn start_game(
    player: &mut dyn Player,
    color: Color,
    variant: schess::Variant,
) -> Result<Option<GameEnd>, MatchError> {
    match player.new_game(variant) {
        Ok(()) => Ok(None),
        Err(e) if e.is_forfeit() => Ok(Some(forfeit(color, player.name(), &e))),
        Err(e) => Err(MatchError::Player { player: player.name().to_string(), error: e }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::PlayerSpec;
    use schess::Position;
    use schess::Variant;

    fn factory(s: &str) -> PlayerFactory {
        PlayerFactory::new(s.parse::<PlayerSpec>().unwrap()).unwrap()
    }

    #[test]
    fn greedy_beats_random_and_records_are_consistent() {
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 4, seed: 3 };
        let dir = tempfile::tempdir().unwrap();
        let pgn = dir.path().join("m.pgn");
        let cfg = MatchConfig { games: 8, concurrency: 2, pgn: Some(pgn.clone()), ..MatchConfig::default() };
        let mut calls = 0;
        let r = run_match(&factory("greedy"), &factory("random"), &book, &cfg, &AtomicBool::new(false), &mut |_| {
            calls += 1
        })
        .unwrap();
        assert_eq!((r.wdl.games(), r.pentanomial.pairs(), calls, r.end), (8, 4, 4, MatchEnd::Completed));
        assert!(r.wdl.wins > r.wdl.losses, "{}", r.summary());
        for g in &r.games {
            verify_record(g).unwrap();
        }
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(text.matches("[Variant \"Seirawan\"]").count(), 8);
    }

    #[test]
    fn openings_played_once_alternate_colours_and_count_trinomially() {
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 4, seed: 3 };
        let cfg = MatchConfig { games: 7, repeat: false, concurrency: 2, ..MatchConfig::default() };
        let mut seen = Vec::new();
        let r = run_match(&factory("greedy"), &factory("random"), &book, &cfg, &AtomicBool::new(false), &mut |p| {
            seen.push((p.games_done, p.games_total))
        })
        .unwrap();
        assert_eq!((r.wdl.games(), r.pentanomial.pairs(), r.rounds(), r.end), (7, 0, 7, MatchEnd::Completed));
        assert_eq!(seen.last(), Some(&(7, 7)));
        assert_eq!(r.elo, elo_estimate(&r.wdl.as_ldw()));
        let mut games: Vec<&GameRecord> = r.games.iter().collect();
        games.sort_by_key(|g| g.round.split('.').next().unwrap().parse::<usize>().unwrap());
        for (k, g) in games.iter().enumerate() {
            verify_record(g).unwrap();
            assert_eq!((g.round.clone(), g.first_is_white), (format!("{}.{}", k + 1, k % 2 + 1), k % 2 == 0));
        }
        let json = r.to_json();
        assert_eq!((json["paired"].as_bool(), json["pentanomial"].is_null()), (Some(false), true));
        assert!(r.summary().contains("trinomial"), "{}", r.summary());
    }

    #[test]
    fn sprt_stops_early_and_stop_flag_aborts() {
        let book = OpeningBook::Random { variant: Variant::Seirawan, plies: 2, seed: 1 };
        let cfg = MatchConfig {
            games: 400,
            sprt: Some(SprtConfig { elo0: 0.0, elo1: 400.0, alpha: 0.1, beta: 0.1 }),
            adjudication: Adjudication { max_plies: 60, ..Adjudication::default() },
            ..MatchConfig::default()
        };
        let r = run_match(&factory("greedy"), &factory("random"), &book, &cfg, &AtomicBool::new(false), &mut |_| {})
            .unwrap();
        assert_eq!(r.end, MatchEnd::Sprt, "{}", r.summary());
        assert!(r.wdl.games() < 400);
        let r = run_match(&factory("random"), &factory("random"), &book, &cfg, &AtomicBool::new(true), &mut |_| {})
            .unwrap();
        assert_eq!((r.end, r.wdl.games()), (MatchEnd::Aborted, 0));
    }

    #[test]
    fn max_plies_adjudicates_a_draw() {
        let book = OpeningBook::List(vec![Opening { start: Position::startpos(), moves: vec![] }]);
        let cfg = MatchConfig {
            adjudication: Adjudication { max_plies: 6, ..Adjudication::default() },
            ..MatchConfig::default()
        };
        let r = run_match(&factory("random"), &factory("random"), &book, &cfg, &AtomicBool::new(false), &mut |_| {})
            .unwrap();
        assert_eq!(r.wdl.draws, 2);
        assert!(r.games.iter().all(|g| g.termination == Termination::MaxLength && g.moves.len() == 6));
        assert!(r.games[0].pgn.contains("[Termination \"adjudication\"]"));
    }
}
