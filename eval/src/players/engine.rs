//! External UCI engines as match players.
//!
//! Everything an engine sends is untrusted: lines are read on a separate thread into a
//! bounded channel (so a silent or hung engine is noticed by a timeout rather than a
//! blocked read), overlong lines are cut, non-UTF-8 is replaced, and `bestmove` is checked
//! against our own rules before it is played. An illegal or malformed move loses the game;
//! a crash or time-out loses it too, and the process is killed and started afresh before
//! the next game.

use super::spec::{EngineLimit, EngineSpec};
use super::{Player, PlayerError};
use schess::{Game, Move, Variant};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use uci::info::cp_to_q;

/// Longest line kept from an engine; the rest of a longer line arrives as further lines,
/// which no parser accepts.
const MAX_LINE: u64 = 64 * 1024;
/// Lines buffered between the reader thread and us; a flooding engine blocks on its pipe.
const CHANNEL_LINES: usize = 4096;

/// What went wrong talking to an engine process.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start `{command}`: {error}")]
    Spawn { command: String, error: std::io::Error },
    #[error("engine exited (stdout closed{})", status.as_deref().map(|s| format!(", {s}")).unwrap_or_default())]
    Exited { status: Option<String> },
    #[error("no `{waiting_for}` within {after:?}")]
    Timeout { waiting_for: &'static str, after: Duration },
    #[error("cannot write to the engine: {0}")]
    Write(std::io::Error),
}

/// Resolves a program name: as given if it contains a slash, else the first match in
/// PATH and then in `/usr/games` (where Debian installs fairy-stockfish, often not in
/// PATH).
pub fn find_program(command: &str) -> Option<PathBuf> {
    if command.contains('/') {
        return Path::new(command).is_file().then(|| PathBuf::from(command));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/games"), PathBuf::from("/usr/local/games")])
        .map(|d| d.join(command))
        .find(|p| p.is_file())
}

/// A running engine process with its output on a channel.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// `id name` from the handshake.
    pub id_name: Option<String>,
}

impl EngineProcess {
    /// Starts the program and completes the `uci`/`uciok` handshake within `timeout`.
    pub fn start(command: &str, args: &[String], timeout: Duration) -> Result<EngineProcess, EngineError> {
        let program = find_program(command).unwrap_or_else(|| PathBuf::from(command));
        let mut child = Command::new(&program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| EngineError::Spawn { command: command.to_string(), error })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = sync_channel(CHANNEL_LINES);
        std::thread::Builder::new()
            .name("uci-reader".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.by_ref().take(MAX_LINE).read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim_end_matches(['\r', '\n']).to_string();
                            if tx.send(line).is_err() {
                                break;
                            }
                        }
                    }
                }
            })
            .map_err(|error| EngineError::Spawn { command: command.to_string(), error })?;
        let mut p = EngineProcess { child, stdin, lines, id_name: None };
        p.send("uci")?;
        let deadline = Instant::now() + timeout;
        let mut id_name = None;
        p.wait_for("uciok", deadline, |line| {
            if let Some(name) = line.strip_prefix("id name ") {
                id_name = Some(name.trim().to_string());
            }
            line.trim() == "uciok"
        })?;
        p.id_name = id_name;
        Ok(p)
    }

    /// Sends one command line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).map_err(EngineError::Write)
    }

    /// Reads lines until `done` accepts one (which is returned) or the deadline passes.
    pub fn wait_for(
        &mut self,
        what: &'static str,
        deadline: Instant,
        mut done: impl FnMut(&str) -> bool,
    ) -> Result<String, EngineError> {
        let start = Instant::now();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if done(&line) => return Ok(line),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(EngineError::Timeout { waiting_for: what, after: start.elapsed() })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.wait_exit(Duration::from_millis(200));
                    return Err(EngineError::Exited { status });
                }
            }
        }
    }

    /// `isready` / `readyok` within `timeout`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("isready")?;
        self.wait_for("readyok", Instant::now() + timeout, |l| l.trim() == "readyok").map(drop)
    }

    fn wait_exit(&mut self, grace: Duration) -> Option<String> {
        let end = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status.to_string()),
                Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }
}

impl Drop for EngineProcess {
    /// Asks the engine to quit, then kills it if it has not within a moment: a hung
    /// engine must not outlive the match.
    fn drop(&mut self) {
        let _ = self.send("quit");
        if self.wait_exit(Duration::from_millis(300)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An external UCI engine as a [`Player`].
pub struct UciEnginePlayer {
    name: String,
    spec: EngineSpec,
    process: Option<EngineProcess>,
    variant: Variant,
    last_score: Option<f32>,
    /// How often the process was started (1 = never restarted).
    pub starts: u32,
}

impl UciEnginePlayer {
    /// Starts the engine now, so that a wrong command fails before any game.
    pub fn start(name: String, spec: EngineSpec) -> Result<UciEnginePlayer, EngineError> {
        let mut p =
            UciEnginePlayer { name, spec, process: None, variant: Variant::Seirawan, last_score: None, starts: 0 };
        p.ensure_running()?;
        Ok(p)
    }

    fn timeout(&self) -> Duration {
        Duration::from_millis(self.spec.timeout_ms)
    }

    fn init_timeout(&self) -> Duration {
        Duration::from_millis(self.spec.init_timeout_ms)
    }

    fn ensure_running(&mut self) -> Result<&mut EngineProcess, EngineError> {
        if self.process.is_none() {
            let mut p = EngineProcess::start(&self.spec.command, &self.spec.args, self.init_timeout())?;
            self.starts += 1;
            let sets_variant = self.spec.options.iter().any(|(k, _)| k.eq_ignore_ascii_case("UCI_Variant"));
            if !sets_variant {
                p.send(&format!("setoption name UCI_Variant value {}", self.variant.name()))?;
            }
            for (k, v) in &self.spec.options {
                p.send(&format!("setoption name {k} value {v}"))?;
            }
            p.sync(self.init_timeout())?;
            self.process = Some(p);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    /// Drops (kills) the process after a failure; the next game starts a new one.
    fn fail(&mut self, e: EngineError) -> PlayerError {
        self.process = None;
        e.into()
    }

    fn position_command(game: &Game) -> String {
        let start = game.start();
        let mut s = if start.fen() == start.variant().start_fen() {
            "position startpos".to_string()
        } else {
            format!("position fen {}", start.fen())
        };
        if !game.moves().is_empty() {
            s.push_str(" moves");
            for m in game.moves() {
                s.push(' ');
                s.push_str(&m.to_uci());
            }
        }
        s
    }

    /// Score from an `info` line, as an expected score for the engine.
    fn parse_score(line: &str) -> Option<f32> {
        let mut it = line.split_whitespace();
        if it.next() != Some("info") || line.split_whitespace().nth(1) == Some("string") {
            return None;
        }
        while let Some(tok) = it.next() {
            if tok == "score" {
                return match (it.next()?, it.next()?.parse::<i32>().ok()?) {
                    ("cp", cp) => Some(cp_to_q(cp)),
                    ("mate", m) => Some(if m > 0 { 1.0 } else { -1.0 }),
                    _ => None,
                };
            }
        }
        None
    }
}

impl Player for UciEnginePlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, variant: Variant) -> Result<(), PlayerError> {
        if variant != self.variant {
            self.variant = variant;
            self.process = None;
        }
        self.last_score = None;
        let timeout = self.init_timeout();
        let result = self.ensure_running().and_then(|p| {
            p.send("ucinewgame")?;
            p.sync(timeout)
        });
        result.map_err(|e| self.fail(e))
    }

    fn choose(&mut self, game: &Game) -> Result<Move, PlayerError> {
        self.go(game, None)
    }

    fn choose_among(&mut self, game: &Game, moves: &[Move]) -> Result<Move, PlayerError> {
        self.go(game, Some(moves))
    }

    fn last_score(&self) -> Option<f32> {
        self.last_score
    }
}

impl UciEnginePlayer {
    /// Asks for a move (among `searchmoves` when given) and parses it as a legal move.
    fn go(&mut self, game: &Game, searchmoves: Option<&[Move]>) -> Result<Move, PlayerError> {
        let mut go = match self.spec.limit {
            EngineLimit::Depth(d) => format!("go depth {d}"),
            EngineLimit::Nodes(n) => format!("go nodes {n}"),
            EngineLimit::Movetime(ms) => format!("go movetime {ms}"),
        };
        if let Some(moves) = searchmoves {
            go.push_str(" searchmoves");
            for m in moves {
                go.push(' ');
                go.push_str(&m.to_uci());
            }
        }
        let allowed = match self.spec.limit {
            EngineLimit::Movetime(ms) => Duration::from_millis(ms) + self.timeout(),
            _ => self.timeout(),
        };
        let position = Self::position_command(game);
        let mut score = None;
        let reply = self.ensure_running().and_then(|p| {
            p.send(&position)?;
            p.send(&go)?;
            p.wait_for("bestmove", Instant::now() + allowed, |line| {
                if let Some(s) = Self::parse_score(line) {
                    score = Some(s);
                }
                line.split_whitespace().next() == Some("bestmove")
            })
        });
        let line = reply.map_err(|e| self.fail(e))?;
        self.last_score = score;
        let Some(text) = line.split_whitespace().nth(1) else {
            return Err(PlayerError::Protocol(format!("`{line}` names no move")));
        };
        game.position().parse_uci(text).map_err(|e| match e {
            schess::UciError::Syntax(_) => PlayerError::Protocol(format!("malformed move `{text}` in `{line}`")),
            schess::UciError::Illegal { .. } => PlayerError::IllegalMove {
                mv: text.to_string(),
                reason: format!("not legal in {}", game.position().fen()),
            },
        })
    }
}

/// An engine failure is the engine's fault: it forfeits the game.
impl From<EngineError> for PlayerError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Timeout { waiting_for, after } => {
                PlayerError::Timeout { waiting_for: waiting_for.into(), after }
            }
            other => PlayerError::Crashed(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_and_parses_scores() {
        assert!(find_program("sh").is_some());
        assert!(find_program("no-such-program-szero").is_none());
        assert_eq!(UciEnginePlayer::parse_score("info depth 3 score mate -2 pv a2a3"), Some(-1.0));
        let q = UciEnginePlayer::parse_score("info depth 3 score cp 90 nodes 5").unwrap();
        assert!((q - 0.5).abs() < 0.01, "{q}");
        assert_eq!(UciEnginePlayer::parse_score("info string score cp x"), None);
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let e = EngineProcess::start("no-such-program-szero", &[], Duration::from_secs(1)).err().unwrap();
        assert!(matches!(e, EngineError::Spawn { .. }), "{e}");
    }
}
