//! Loading games: self-play shards of a run directory, or PGN files.
//!
//! Games are replayed once, move by move, into [`GameSummary`]s (positions are not kept),
//! in parallel over shard files and games. While replaying, one position per game may be
//! set aside, with its history, as a candidate for probing a network ([`ProbeCandidate`]).
//!
//! Bad input never stops the report: an unreadable shard, a game that does not replay, or
//! a PGN game with an illegal move becomes a warning that names the file (and the game);
//! only an input that yields no file at all is an error.

use crate::stats::{GameSummary, SummaryBuilder};
use formats::shard::{self, GameRecord, ShardError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use schess::pgn::{self, PgnGame};
use schess::Position;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// A position to show a network, with the positions before it (the last one is probed).
#[derive(Debug, Clone)]
pub struct ProbeCandidate {
    pub history: Vec<Position>,
    /// Where it came from (`file#game@ply`), for tables and debugging.
    pub origin: String,
}

impl ProbeCandidate {
    pub fn position(&self) -> &Position {
        self.history.last().expect("a probe candidate has a position")
    }
}

/// One replayed game: its summary and, when probing, its candidate position.
type Replayed = (GameSummary, Option<ProbeCandidate>);

/// How to load.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// Keep one candidate position per game for network probing, with this many earlier
    /// positions; `None` keeps none (no network to probe).
    pub probe_history: Option<usize>,
    /// Seed of the (deterministic) choice of candidate positions.
    pub seed: u64,
}

/// Games loaded from one or more inputs.
#[derive(Debug, Default)]
pub struct Loaded {
    pub games: Vec<GameSummary>,
    pub probes: Vec<ProbeCandidate>,
    /// Problems that skipped a file or a game, each naming the file.
    pub warnings: Vec<String>,
    /// Files read successfully.
    pub files: usize,
    /// Games that could not be used (counted in `warnings` too).
    pub skipped_games: usize,
}

impl Loaded {
    pub fn append(&mut self, mut other: Loaded) {
        self.games.append(&mut other.games);
        self.probes.append(&mut other.probes);
        self.warnings.append(&mut other.warnings);
        self.files += other.files;
        self.skipped_games += other.skipped_games;
    }
}

/// Errors that stop loading altogether.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The source error is in the chain (shown by `{:#}`), not repeated here.
    #[error("cannot read {}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: no shard files (*.shard) there", .0.display())]
    NoShards(PathBuf),
    #[error(transparent)]
    Shard(#[from] ShardError),
}

/// Loads every shard of `<run>/shards` (or of `dir` itself when it holds shards).
pub fn load_run(run: &Path, opts: LoadOptions) -> Result<Loaded, LoadError> {
    let shards = runstore::RunLayout::new(run).shards();
    let dir = if shards.is_dir() { shards } else { run.to_path_buf() };
    if !dir.is_dir() {
        return Err(LoadError::Io {
            path: run.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such run directory"),
        });
    }
    let files = shard::list(&dir)?;
    if files.is_empty() {
        return Err(LoadError::NoShards(dir));
    }
    Ok(load_shard_files(&files, opts))
}

/// Loads the given shard files; unreadable files and bad games become warnings.
pub fn load_shard_files(files: &[PathBuf], opts: LoadOptions) -> Loaded {
    let parts: Vec<Loaded> = files
        .par_iter()
        .map(|path| match shard::read(path) {
            Err(e) => Loaded { warnings: vec![format!("skipped shard: {e}")], ..Loaded::default() },
            Ok(records) => {
                let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
                let mut part = load_records(&records, &name, path, opts);
                part.files = 1;
                part
            }
        })
        .collect();
    merge(parts)
}

fn merge(parts: Vec<Loaded>) -> Loaded {
    let mut out = Loaded::default();
    for p in parts {
        out.append(p);
    }
    out
}

/// Summarises records of one shard (`name` labels probe positions, `path` warnings).
pub fn load_records(records: &[GameRecord], name: &str, path: &Path, opts: LoadOptions) -> Loaded {
    let results: Vec<Result<Replayed, String>> = records
        .par_iter()
        .enumerate()
        .map(|(i, rec)| {
            let start = rec
                .variant()
                .map_err(|e| e.to_string())
                .and_then(|v| Position::from_fen_variant(&rec.start_fen, v).map_err(|e| format!("start FEN: {e}")))?;
            let mut replay = Replay::new(&start, Some(rec.generation), opts, seed_for(name, i, opts.seed));
            for (ply, uci) in rec.moves.iter().enumerate() {
                let m = replay.pos.parse_uci(uci).map_err(|e| format!("move {}: {e}", ply + 1))?;
                replay.push(m);
            }
            let origin = format!("{name}#{i}");
            Ok(replay.finish(Some(rec.result.signum()), rec.termination.name(), &origin))
        })
        .enumerate()
        .map(|(i, r)| r.map_err(|e: String| format!("{}: game {}: {e}", path.display(), i + 1)))
        .collect();
    collect(results)
}

/// Sorts results into games and warnings (each error is already a complete warning).
fn collect(results: Vec<Result<Replayed, String>>) -> Loaded {
    let mut out = Loaded::default();
    for r in results {
        match r {
            Ok((g, p)) => {
                out.games.push(g);
                out.probes.extend(p);
            }
            Err(e) => {
                out.warnings.push(e);
                out.skipped_games += 1;
            }
        }
    }
    out
}

/// Loads a PGN file. An unreadable file is an error; a game that does not replay is a
/// warning naming the file and the game's first line.
pub fn load_pgn(path: &Path, opts: LoadOptions) -> Result<Loaded, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io { path: path.to_path_buf(), source })?;
    let text = String::from_utf8_lossy(&bytes);
    let parsed = pgn::parse(&text);
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
    let results: Vec<_> = parsed
        .games
        .par_iter()
        .enumerate()
        .map(|(i, g)| {
            pgn_game(g, &name, i, opts).map_err(|e| format!("{}:{}: game {}: {e}", path.display(), g.line, i + 1))
        })
        .collect();
    let mut out = collect(results);
    out.warnings.extend(parsed.warnings.into_iter().map(|w| format!("{}:{w}", path.display())));
    out.files = 1;
    Ok(out)
}

fn pgn_game(g: &PgnGame, name: &str, index: usize, opts: LoadOptions) -> Result<Replayed, String> {
    let start = g.start()?;
    let mut replay = Replay::new(&start, None, opts, seed_for(name, index, opts.seed));
    for (i, san) in g.moves.iter().enumerate() {
        let m = replay.pos.parse_san(san).map_err(|e| {
            let hint = if g.tag("Variant").is_none() { " (no Variant tag: read as chess)" } else { "" };
            format!("move {} {san:?}: {e}{hint}", i + 1)
        })?;
        replay.push(m);
    }
    let result =
        g.result().and_then(|r| r.parse::<schess::GameResult>().ok()).map(|r| r.score_for(schess::Color::White));
    let termination = g.tag("Termination").unwrap_or("unknown").to_string();
    let (mut summary, probe) = replay.finish(result, &termination, &format!("{name}#{index}"));
    summary.players = ["White", "Black"].map(|tag| g.tag(tag).map(str::to_string));
    Ok((summary, probe))
}

fn seed_for(name: &str, index: usize, seed: u64) -> u64 {
    // FNV-1a: stable across runs and platforms (std's hasher is randomised).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in name.bytes().chain((index as u64).to_le_bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One game being replayed: the summary so far, and (when probing) the recent positions
/// and a reservoir of one candidate position.
struct Replay {
    pos: Position,
    builder: SummaryBuilder,
    probe_history: Option<usize>,
    recent: VecDeque<Position>,
    candidate: Option<(usize, Vec<Position>)>,
    eligible: u32,
    rng: SmallRng,
    ply: usize,
}

impl Replay {
    fn new(start: &Position, generation: Option<u32>, opts: LoadOptions, seed: u64) -> Replay {
        Replay {
            pos: start.clone(),
            builder: SummaryBuilder::new(start, generation),
            probe_history: opts.probe_history,
            recent: VecDeque::new(),
            candidate: None,
            eligible: 0,
            rng: SmallRng::seed_from_u64(seed),
            ply: 0,
        }
    }

    /// Considers the current position (at `ply`) as the game's probe candidate: one chosen
    /// uniformly among those where the side to move could still gate.
    fn observe(&mut self, ply: usize) {
        let Some(h) = self.probe_history else { return };
        self.recent.push_back(self.pos.clone());
        if self.recent.len() > h + 1 {
            self.recent.pop_front();
        }
        let turn = self.pos.turn();
        if !self.pos.hand(turn).is_empty() && self.pos.gating_rights(turn).any() {
            self.eligible += 1;
            if self.rng.gen_range(0..self.eligible) == 0 {
                self.candidate = Some((ply, self.recent.iter().cloned().collect()));
            }
        }
    }

    /// Plays `m`; the position before it is a probe candidate (one after the game's last
    /// move has nothing to choose).
    fn push(&mut self, m: schess::Move) {
        self.observe(self.ply);
        self.builder.record(&self.pos, m);
        self.pos.play_unchecked(m);
        self.ply += 1;
    }

    fn finish(self, result: Option<i8>, termination: &str, origin: &str) -> (GameSummary, Option<ProbeCandidate>) {
        let summary = self.builder.finish(&self.pos, result, termination);
        let probe = self.candidate.map(|(ply, history)| ProbeCandidate { history, origin: format!("{origin}@{ply}") });
        (summary, probe)
    }
}
