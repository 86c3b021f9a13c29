//! Groups finished games into shard files (and a PGN beside each), written atomically.

use crate::shard::{self, GameRecord, ShardError};
use models::io::write_atomic;
use std::path::{Path, PathBuf};

/// Collects games and writes a shard every `games_per_shard` games.
pub struct ShardWriter<'a> {
    dir: PathBuf,
    prefix: String,
    games_per_shard: usize,
    pending: Vec<GameRecord>,
    written: usize,
    pgn: bool,
    /// Called with each file once it is complete (e.g. to upload it to the run's store).
    on_written: Option<OnWritten<'a>>,
}

type OnWritten<'a> = Box<dyn FnMut(&Path) -> std::io::Result<()> + 'a>;

impl<'a> ShardWriter<'a> {
    /// Files are named `<prefix>-<unix ms>-<pid>-<n>.shard`, unique across restarts and
    /// concurrent writers. `pgn`: also write the games as `<same name>.pgn`.
    pub fn new(dir: &Path, prefix: &str, games_per_shard: usize, pgn: bool) -> Result<ShardWriter<'a>, ShardError> {
        std::fs::create_dir_all(dir).map_err(|source| ShardError::Io { path: dir.to_path_buf(), source })?;
        Ok(ShardWriter {
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
            games_per_shard: games_per_shard.max(1),
            pending: Vec::new(),
            written: 0,
            pgn,
            on_written: None,
        })
    }

    /// Calls `f` with each file (PGN first, then its shard) once it is written whole; an
    /// error from `f` is the write's error, and the file stays for a later retry.
    pub fn on_written(mut self, f: impl FnMut(&Path) -> std::io::Result<()> + 'a) -> ShardWriter<'a> {
        self.on_written = Some(Box::new(f));
        self
    }

    /// Adds a game; returns the shard's path when one was written.
    pub fn push(&mut self, game: GameRecord) -> Result<Option<PathBuf>, ShardError> {
        self.pending.push(game);
        if self.pending.len() >= self.games_per_shard {
            return self.flush();
        }
        Ok(None)
    }

    /// Writes whatever is pending.
    pub fn flush(&mut self) -> Result<Option<PathBuf>, ShardError> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        let stem = format!("{}-{ms}-{}-{:05}", self.prefix, std::process::id(), self.written);
        let path = self.dir.join(format!("{stem}.shard"));
        if self.pgn {
            let text: String = self.pending.iter().filter_map(|g| pgn_of(g).ok()).collect();
            let pgn_path = self.dir.join(format!("{stem}.pgn"));
            write_atomic(&pgn_path, text.as_bytes())
                .map_err(|source| ShardError::Io { path: pgn_path.clone(), source })?;
            self.announce(&pgn_path)?;
        }
        shard::write(&path, &self.pending)?;
        self.pending.clear();
        self.written += 1;
        self.announce(&path)?;
        Ok(Some(path))
    }

    fn announce(&mut self, path: &Path) -> Result<(), ShardError> {
        match self.on_written.as_mut() {
            Some(f) => f(path).map_err(|source| ShardError::Io { path: path.to_path_buf(), source }),
            None => Ok(()),
        }
    }

    /// Shards written so far.
    pub fn shards_written(&self) -> usize {
        self.written
    }
}

/// A game record as PGN.
pub fn pgn_of(r: &GameRecord) -> Result<String, ShardError> {
    let game = r.replay()?;
    let result = schess::GameResult::from_white_score(r.result);
    let players = format!("szero gen {}", r.generation);
    let tags = [
        ("Event", "szero self-play".to_string()),
        ("White", players.clone()),
        ("Black", players),
        ("Termination", r.termination.pgn_tag().to_string()),
    ];
    Ok(schess::pgn::write_game(&game, &tags, Some(result), Some(r.termination.name())))
}
