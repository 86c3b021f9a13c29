//! PGN in and out of the page: a game written with `schess`'s writer (what every other
//! szero tool writes), games read with its reader and replayed move by move, and with
//! `--run` the run's own game files (`shards/*.pgn`).

use crate::board::GameRequest;
use crate::error::ApiError;
use schess::pgn::{parse, write_game};
use schess::Game;
#[cfg(test)]
use schess::GameResult;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    pub game: GameRequest,
    #[serde(default)]
    pub white: Option<String>,
    #[serde(default)]
    pub black: Option<String>,
}

/// The page's game as PGN. A finished game gets its result; an unfinished one `*`.
pub fn export(req: &ExportRequest) -> Result<String, ApiError> {
    let game = req.game.game()?;
    let mut tags = vec![("Event", "szero serve".to_string()), ("Site", "szero serve".to_string())];
    for (tag, name) in [("White", &req.white), ("Black", &req.black)] {
        if let Some(n) = name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
            tags.push((tag, n.to_string()));
        }
    }
    let outcome = game.outcome();
    if let Some(o) = outcome {
        tags.push(("Termination", crate::board::reason(o)));
    }
    Ok(write_game(&game, &tags, outcome.map(|o| o.result()), None))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    pub pgn: String,
}

/// One game read from a PGN, as the page replays it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportedGame {
    pub white: String,
    pub black: String,
    pub result: String,
    pub variant: String,
    /// The start position's FEN.
    pub start: String,
    /// The main line as UCI strings.
    pub moves: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Imported {
    pub games: Vec<ImportedGame>,
    /// What the reader passed over (unreadable tags), `LINE: message`.
    pub warnings: Vec<String>,
}

/// Most games one import returns (a run's PGN files hold 32-48 each).
const MAX_GAMES: usize = 1000;

/// Reads every game of `text`; a move that does not replay is an error naming the game,
/// its line and the move.
pub fn import(text: &str) -> Result<Imported, ApiError> {
    let parsed = parse(text);
    if parsed.games.is_empty() {
        return Err(ApiError::bad("no game found in the PGN"));
    }
    let mut games = Vec::new();
    for (i, g) in parsed.games.iter().enumerate().take(MAX_GAMES) {
        let context = |msg: String| ApiError::bad(format!("game {} (line {}): {msg}", i + 1, g.line));
        let start = g.start().map_err(context)?;
        let mut game = Game::new(start);
        for (n, san) in g.moves.iter().enumerate() {
            game.play_san(san).map_err(|e| context(format!("move {} ({san}): {e}", n + 1)))?;
        }
        let tag = |name: &str| g.tag(name).unwrap_or("?").to_string();
        games.push(ImportedGame {
            white: tag("White"),
            black: tag("Black"),
            result: g.result().unwrap_or("*").to_string(),
            variant: game.start().variant().name().to_string(),
            start: game.start().fen(),
            moves: game.moves().iter().map(|m| m.to_uci()).collect(),
        });
    }
    Ok(Imported { games, warnings: parsed.warnings })
}

/// The run's game files (`shards/*.pgn`), newest last.
pub fn run_games(run: &Path) -> Result<Vec<String>, ApiError> {
    let dir = runstore::RunLayout::new(run).shards();
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(d) => d
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".pgn") && !n.starts_with('.'))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(ApiError::internal(format!("cannot list {}: {e}", dir.display()))),
    };
    names.sort();
    Ok(names)
}

/// One of the run's game files, by the name [`run_games`] lists.
pub fn run_game_file(run: &Path, name: &str) -> Result<String, ApiError> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !plain || !name.ends_with(".pgn") {
        return Err(ApiError::bad(format!("{name:?} is not a game file's name (shards/NAME.pgn)")));
    }
    let path = runstore::RunLayout::new(run).shards().join(name);
    std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ApiError::not_found(format!("no game file {name:?} in this run")),
        _ => ApiError::internal(format!("cannot read {}: {e}", path.display())),
    })
}

/// The result a page's game ends with, for tests.
#[cfg(test)]
fn result_of(pgn: &str) -> Option<GameResult> {
    import(pgn).ok()?.games[0].result.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_with_gates_and_an_elephant_promotion_round_trips() {
        let fen = "4k3/1P6/8/8/8/8/8/4K3[] w - - 0 1";
        let req = ExportRequest {
            game: GameRequest { start: Some(fen.into()), moves: vec!["b7b8e".into()], ..GameRequest::default() },
            white: Some("me".into()),
            black: None,
        };
        let pgn = export(&req).unwrap();
        assert!(pgn.contains("[White \"me\"]") && pgn.contains("[FEN \""), "{pgn}");
        let back = import(&pgn).unwrap();
        assert_eq!(back.games[0].moves, vec!["b7b8e"]);
        assert_eq!(back.games[0].start, schess::Position::from_fen(fen).unwrap().fen());

        let gates = ["b1c3e", "g8f6h", "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "h1e1h"];
        let req = ExportRequest {
            game: GameRequest { moves: gates.iter().map(|s| s.to_string()).collect(), ..GameRequest::default() },
            white: None,
            black: None,
        };
        let back = import(&export(&req).unwrap()).unwrap();
        assert_eq!(back.games[0].moves, gates);
        assert_eq!(back.games[0].variant, "seirawan");
    }

    #[test]
    fn a_finished_game_carries_its_result() {
        let req = ExportRequest {
            game: GameRequest {
                moves: ["f2f3", "e7e5", "g2g4", "d8h4"].iter().map(|s| s.to_string()).collect(),
                ..GameRequest::default()
            },
            white: None,
            black: None,
        };
        assert_eq!(result_of(&export(&req).unwrap()), Some(GameResult::BlackWins));
    }

    #[test]
    fn bad_pgn_names_the_game_line_and_move() {
        assert!(import("hello").unwrap_err().message.contains("game 1"));
        assert!(import("").unwrap_err().message.contains("no game found"));
        let e = import("[Event \"x\"]\n[Variant \"Seirawan\"]\n\n1. e4 e5 2. Nf9 *\n").unwrap_err();
        assert!(e.message.contains("game 1 (line 1): move 3 (Nf9)"), "{}", e.message);
    }

    #[test]
    fn run_files_are_named_not_pathed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("shards")).unwrap();
        std::fs::write(dir.path().join("shards/a.pgn"), "[Event \"x\"]\n\n1. e4 *\n").unwrap();
        std::fs::write(dir.path().join("shards/a.shard"), b"").unwrap();
        assert_eq!(run_games(dir.path()).unwrap(), vec!["a.pgn"]);
        assert!(run_game_file(dir.path(), "a.pgn").unwrap().contains("e4"));
        assert_eq!(run_game_file(dir.path(), "../x.pgn").unwrap_err().status.as_u16(), 400);
        assert_eq!(run_game_file(dir.path(), "b.pgn").unwrap_err().status.as_u16(), 404);
    }
}
