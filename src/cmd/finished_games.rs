//! Finished games from PGN files and runs' self-play shards, each with White's score: what
//! the commands that fit something on game results (`piece-values`, `fit-eval`) read.

use anyhow::{Context, Result};
use schess::pgn::parse;
use schess::Game;
use std::path::PathBuf;

/// Where the games come from.
#[derive(clap::Args, Debug)]
pub struct GameSources {
    /// PGN files (games with a result; unfinished ones are skipped).
    #[arg(long)]
    pub pgn: Vec<PathBuf>,
    /// Run directories: their self-play games (`shards/`).
    #[arg(long)]
    pub run: Vec<PathBuf>,
}

impl GameSources {
    pub fn is_empty(&self) -> bool {
        self.pgn.is_empty() && self.run.is_empty()
    }

    /// Calls `each(game, white_score)` for every finished game, in file order; returns how
    /// many were skipped (no result, or moves that do not replay), each reported on
    /// stderr under `who`.
    pub fn for_each(&self, who: &str, mut each: impl FnMut(&Game, f64)) -> Result<usize> {
        let mut skipped = 0usize;
        for path in &self.pgn {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            for g in parse(&text).games {
                let Some(score) = g.result().and_then(|r| r.parse::<schess::GameResult>().ok()) else {
                    skipped += 1;
                    continue;
                };
                let replayed = g.start().and_then(|start| {
                    let mut game = Game::new(start);
                    for san in &g.moves {
                        game.play_san(san).map_err(|e| format!("move {san}: {e}"))?;
                    }
                    Ok(game)
                });
                match replayed {
                    Ok(game) => each(&game, white_score(score)),
                    Err(e) => {
                        eprintln!("szero {who}: {}:{}: skipped: {e}", path.display(), g.line);
                        skipped += 1;
                    }
                }
            }
        }
        for run in &self.run {
            // A mistyped directory would otherwise read as a run without games.
            anyhow::ensure!(run.is_dir(), "--run {}: no such directory", run.display());
            let dir = runstore::RunLayout::new(run).shards();
            anyhow::ensure!(
                dir.is_dir(),
                "--run {}: no shards/ in it: not a run directory, or a run with no self-play games yet",
                run.display()
            );
            for file in formats::shard::list(&dir).with_context(|| format!("{}", dir.display()))? {
                for record in formats::shard::read(&file).with_context(|| format!("{}", file.display()))? {
                    match record.replay() {
                        Ok(game) => each(&game, white_score(record.game_result())),
                        Err(_) => skipped += 1,
                    }
                }
            }
        }
        if skipped > 0 {
            eprintln!("szero {who}: {skipped} games skipped (no result, or not replayable)");
        }
        Ok(skipped)
    }
}

/// White's score in a game with result `r`: 1, 1/2 or 0.
fn white_score(r: schess::GameResult) -> f64 {
    f64::from(r.score_for(schess::Color::White) + 1) / 2.0
}
