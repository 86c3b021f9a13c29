//! The documentation's `szero` commands, checked two ways. Each shell code block of the
//! README, BENCHMARKS.md, RELIABILITY.md and docs/ is read line by line (continuation
//! lines joined, `VAR=value` lines and `for V in ...` loops remembered and expanded).
//!
//! - Every command in them (also as `target/release/szero`) still parses: it is run with
//!   `SZERO_PARSE_ONLY=1`, which checks the command line and exits. A renamed command or
//!   flag fails here instead of in a user's terminal.
//! - Every command of the README and docs/ (what a user copies; BENCHMARKS and
//!   RELIABILITY record measurements) also runs, at smoke size, in a scratch copy of the
//!   repository's inputs: its sizes shrunk (games, nodes, move times, steps), its
//!   placeholders filled, its `runs/default` a smoke run made first. It must exit 0 and
//!   leave the files it names with `--out` (and a match's `--pgn`). The commands it does
//!   not run are in [`NOT_RUN`], each with the reason; the other programs the docs show are
//!   listed in docs/development.md.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn documents() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut out: Vec<PathBuf> = ["README.md", "BENCHMARKS.md", "RELIABILITY.md"].iter().map(|f| root.join(f)).collect();
    let mut dirs = vec![root.join("docs")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The shell code blocks of a Markdown text: (line of each command, the command), with
/// continuation lines joined.
fn shell_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // The open fence's info string, if a code block is open: a closing fence of any
    // block (```toml as much as ```sh) ends it.
    let mut fence: Option<&str> = None;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            fence = if fence.is_some() { None } else { Some(info.trim()) };
            pending = None;
            continue;
        }
        if !fence.is_some_and(|f| matches!(f, "" | "sh" | "bash" | "shell" | "console")) {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((i + 1, String::new()));
        joined.push_str(line.trim());
        if let Some(body) = joined.strip_suffix('\\') {
            pending = Some((start, format!("{body} ")));
        } else {
            out.push((start, joined));
        }
    }
    out
}

/// `$NAME` and `${NAME}` replaced: known variables by their values, others by a
/// placeholder that reads as a number, a name or a path (only the command line's shape
/// matters here). Lines with a command substitution `$(...)` are left alone: what it
/// prints is not known.
fn expand(line: &str, vars: &HashMap<String, String>) -> String {
    let mut out = String::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '$' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let (name, next) = match chars.get(i + 1) {
            Some('{') => {
                let end = chars[i..].iter().position(|&c| c == '}').map_or(chars.len(), |p| i + p);
                (chars[i + 2..end].iter().collect::<String>(), end + 1)
            }
            _ => {
                let len = chars[i + 1..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == '_').count();
                (chars[i + 1..i + 1 + len].iter().collect::<String>(), i + 1 + len)
            }
        };
        out.push_str(vars.get(&name).map_or("101", String::as_str));
        i = next.max(i + 1);
    }
    out
}

const SEPARATORS: [&str; 8] = ["&&", "||", ";", "|", "&", "(", ")", "do"];

/// One `szero` command of the documentation: its arguments, and whether the shell line
/// runs it in the background (`cmd &`) beside the next ones.
#[derive(Debug, PartialEq)]
struct Invocation {
    args: Vec<String>,
    background: bool,
}

/// The `szero` invocations of one shell line; assignments and loop variables go into
/// `vars`.
fn invocations(line: &str, vars: &mut HashMap<String, String>) -> Vec<Invocation> {
    let mut out = Vec::new();
    if line.contains("$(") {
        return out;
    }
    // Expanded piece by piece, so that a loop's variable is known in its body.
    for piece in line.split(';').flat_map(|p| p.split("&&")) {
        let Some(words) = shlex::split(&expand(piece, vars)) else { continue };
        // `...` in a documented command means "more of the same".
        let words: Vec<String> = words.into_iter().take_while(|w| !w.starts_with('#')).filter(|w| w != "...").collect();
        out.extend(segment_invocations(&words, vars));
    }
    out
}

fn segment_invocations(words: &[String], vars: &mut HashMap<String, String>) -> Vec<Invocation> {
    let mut out = Vec::new();
    let mut start = 0;
    while start <= words.len() {
        let end =
            words[start..].iter().position(|w| SEPARATORS.contains(&w.as_str())).map_or(words.len(), |p| start + p);
        let background = words.get(end).is_some_and(|w| w == "&");
        let mut rest = &words[start..end];
        start = end + 1;
        // Leading assignments (`VAR=x cmd` or a bare `VAR=x`), and wrappers.
        while let Some((first, tail)) = rest.split_first() {
            if let Some((name, value)) = first.split_once('=').filter(|(n, _)| is_name(n)) {
                if tail.is_empty() {
                    vars.insert(name.to_string(), value.to_string());
                }
                rest = tail;
            } else if matches!(first.as_str(), "time" | "nice" | "exec" | "-n" | "10" | "-10" | "19") {
                rest = tail;
            } else {
                break;
            }
        }
        match rest.first().map(String::as_str) {
            Some("for") if rest.len() >= 4 && rest[2] == "in" => {
                vars.insert(rest[1].clone(), rest[3].clone());
            }
            Some(cmd) if cmd == "szero" || cmd.ends_with("/szero") => {
                out.push(Invocation { args: rest[1..].to_vec(), background })
            }
            _ => {}
        }
    }
    out
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

#[test]
fn every_documented_szero_command_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut vars = HashMap::new();
        for (line, command) in shell_lines(&text) {
            for Invocation { args, .. } in invocations(&command, &mut vars) {
                let out = Command::new(SZERO).args(&args).env("SZERO_PARSE_ONLY", "1").output().unwrap();
                checked += 1;
                if !out.status.success() {
                    let err = String::from_utf8_lossy(&out.stderr);
                    let rel = doc.strip_prefix(ROOT).unwrap_or(&doc).display().to_string();
                    failures.push(format!("{rel}:{line}: szero {}\n  {}", args.join(" "), err.trim()));
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} documented commands found: is the extraction broken?");
    assert!(
        failures.is_empty(),
        "{} of {checked} documented commands no longer parse:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_extraction_reads_variables_loops_and_continuations() {
    let text = "```sh\nNET=a.safetensors\ncommon=\"--games 10 --seed 3\"\nfor S in 0 50; do szero match --p1 ab:model=$NET,root_value=$S \\\n  $common; done\n```\n";
    let mut vars = HashMap::new();
    let lines = shell_lines(text);
    let found: Vec<Invocation> = lines.iter().flat_map(|(_, l)| invocations(l, &mut vars)).collect();
    let args = ["match", "--p1", "ab:model=a.safetensors,root_value=0", "--games", "10", "--seed", "3"];
    assert_eq!(found, vec![Invocation { args: args.map(String::from).to_vec(), background: false }]);
    let found = invocations("szero worker train --run r & szero worker promote --run r", &mut vars);
    assert_eq!(found.iter().map(|i| i.background).collect::<Vec<_>>(), [true, false]);
    // A closing fence of another language ends its block: the prose after it is not read.
    assert!(shell_lines("```toml\na = 1\n```\nszero run is the main job\n").is_empty());
    assert!(invocations("szero scale anchors $(seq 3)", &mut vars).is_empty(), "unknown output: skipped");
    // And a command line that is wrong is caught.
    let out = Command::new(SZERO).args(["match", "--no-such-flag"]).env("SZERO_PARSE_ONLY", "1").output().unwrap();
    assert!(!out.status.success());
}

/// Documented commands this test does not run (a word of the command, and why).
const NOT_RUN: &[(&str, &str)] = &[(
    "s3://",
    "needs an S3 server and its keys: `s3_workers_e2e` runs `szero run` and every worker on a run in radosgw",
)];

/// The documents whose commands run at smoke size: the README and docs/.
fn user_documents() -> Vec<PathBuf> {
    documents().into_iter().filter(|p| !p.ends_with("BENCHMARKS.md") && !p.ends_with("RELIABILITY.md")).collect()
}

/// Options whose value is a size, and the value a smoke run gives them.
const SMOKE_SIZES: &[(&str, &str)] = &[
    ("--games", "2"),
    ("--concurrency", "1"),
    ("--steps", "2"),
    ("--nodes", "8"),
    ("--max-minutes", "0.3"),
    ("--minutes", "0.3"),
    ("--depth", "2"),
];

/// Keys of a player spec that set its effort, and their smoke values.
const SMOKE_SPEC_KEYS: &[(&str, &str)] = &[("movetime", "10"), ("nodes", "8"), ("depth", "2")];

/// Options whose value is a player spec.
const SPEC_OPTIONS: &[&str] = &["--p1", "--p2", "--player", "--anchor", "--rung"];

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQBCDFGkqbcdfg - 0 1";

/// The scratch directory the commands run in, and what the placeholders stand for.
struct Workspace {
    dir: tempfile::TempDir,
    /// How many `SPEC` placeholders were filled (anchors alternate between two depths).
    specs: usize,
    /// How many `DIR` placeholders were filled (each gets its own directory).
    dirs: usize,
}

impl Workspace {
    /// A scratch directory with the repository's inputs (`models`, `data`, `configs`
    /// linked; `docs` copied, since commands write reports into it) and a smoke run in
    /// `runs/default`, made as `scripts/run` makes it but at the smoke config's size.
    fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(ROOT);
        for d in ["models", "data", "configs"] {
            std::os::unix::fs::symlink(root.join(d), dir.path().join(d)).unwrap();
        }
        let status = Command::new("cp").arg("-r").arg(root.join("docs")).arg(dir.path()).status().unwrap();
        assert!(status.success());
        // `szero perft --epd /tmp/s.epd` reads the file two oracle scripts write; here the
        // committed suite, cut to depth 2.
        let epd: String = std::fs::read_to_string(root.join("schess/tests/data/perft-seirawan.epd"))
            .unwrap()
            .lines()
            .take(20)
            .map(|l| l.split(" ;D3").next().unwrap().to_string() + "\n")
            .collect();
        std::fs::write(dir.path().join("s.epd"), epd).unwrap();
        let ws = Workspace { dir, specs: 0, dirs: 0 };
        let run = ["run", "--config", "configs/smoke.toml", "--run-dir", "runs/default", "--max-steps", "20"];
        let out = ws.command(&run.map(String::from)).output().unwrap();
        assert!(out.status.success(), "the smoke run failed: {}", String::from_utf8_lossy(&out.stderr));
        assert!(ws.path("runs/default/best.safetensors").exists());
        ws
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn command(&self, args: &[String]) -> Command {
        let mut c = Command::new(SZERO);
        c.args(args).current_dir(self.dir.path()).env("OMP_WAIT_POLICY", "PASSIVE");
        c
    }

    /// A placeholder or an input the docs leave to the reader, filled.
    fn fill(&mut self, word: &str) -> String {
        match word {
            "configs/default.toml" | "configs/h200.toml" => "configs/smoke.toml".into(),
            "SPEC" => {
                self.specs += 1;
                format!("uci:cmd=fairy-stockfish,depth={}", 1 + self.specs % 2)
            }
            "RUN" => "runs/default".into(),
            "M" | "best.safetensors" | "net.safetensors" => "runs/default/best.safetensors".into(),
            "DIR" => {
                self.dirs += 1;
                format!("out-{}", self.dirs)
            }
            // The README's match writes games.pgn; a second file of games is committed.
            "a.pgn" => "games.pgn".into(),
            "b.pgn" | "game.pgn" => "docs/gating-report-fairy-stockfish/games.pgn".into(),
            "f.epd" => "docs/research/restrictions/openings.epd".into(),
            "<FEN>" => START_FEN.into(),
            "/tmp/s.epd" => "s.epd".into(),
            w => w.replace("RULE", "seirawan"),
        }
    }

    /// The smoke-size form of a documented command.
    fn smoke(&mut self, args: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in args {
            let prev = out.last().map(String::as_str).unwrap_or("");
            if let Some((_, v)) = SMOKE_SIZES.iter().find(|(o, _)| *o == prev) {
                out.push(v.to_string());
            } else if SPEC_OPTIONS.contains(&prev) && w != "SPEC" {
                out.push(smoke_spec(w));
            } else if prev == "--port" {
                out.push("0".into());
            } else {
                let filled = self.fill(w);
                out.push(filled);
            }
        }
        // Commands that run until stopped get a stop.
        if out.first().is_some_and(|c| c == "worker") && !out.iter().any(|w| w == "--minutes" || w == "--games") {
            out.extend(["--minutes".into(), "0.3".into()]);
        }
        if out.first().is_some_and(|c| c == "serve") && !out.iter().any(|w| w == "--port") {
            out.extend(["--port".into(), "0".into()]);
        }
        out
    }

    /// Runs one smoke command to its end (a server: until its page answers), then checks
    /// the files it names.
    fn run(&self, args: &[String]) -> Result<(), String> {
        if args.first().is_some_and(|c| c == "serve") {
            return self.serve(args);
        }
        let child = self.command(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        wait_for(child, Duration::from_secs(600))?;
        self.check_outputs(args)
    }

    fn check_outputs(&self, args: &[String]) -> Result<(), String> {
        let mut named = Vec::new();
        for pair in args.windows(2) {
            match pair[0].as_str() {
                "--out" => named.push(&pair[1]),
                "--pgn" if args[0] == "match" => named.push(&pair[1]),
                _ => {}
            }
        }
        for f in named {
            let p = self.path(f);
            let present = if p.is_dir() {
                std::fs::read_dir(&p).map(|mut d| d.next().is_some()).unwrap_or(false)
            } else {
                std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false)
            };
            if !present {
                return Err(format!("it exited 0 but left no {f}"));
            }
        }
        Ok(())
    }

    /// `szero serve`: started on a free port, its board page fetched, stopped.
    fn serve(&self, args: &[String]) -> Result<(), String> {
        let mut child = self.command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let page = first
            .trim()
            .strip_prefix("szero serve: http://")
            .and_then(|a| a.strip_suffix('/'))
            .map(|addr| http_get(addr, "/"));
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        match page {
            Some(Ok(body)) if body.starts_with("HTTP/1.1 200") && body.contains("<html") => Ok(()),
            Some(Ok(body)) => Err(format!("the board page did not answer 200: {}", body.lines().next().unwrap_or(""))),
            Some(Err(e)) => Err(format!("the board page: {e}")),
            None => Err(format!("no address printed: {first:?}; {}", String::from_utf8_lossy(&out.stderr))),
        }
    }
}

/// A spec with its effort keys at smoke size (`ab:model=M,movetime=1000` → `movetime=10`).
fn smoke_spec(spec: &str) -> String {
    let Some((kind, keys)) = spec.split_once(':') else { return spec.to_string() };
    let keys: Vec<String> = keys
        .split(',')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            match SMOKE_SPEC_KEYS.iter().find(|(s, _)| *s == k) {
                Some((_, smoke)) => format!("{k}={smoke}"),
                None if k == "model" && v == "best.safetensors" => "model=runs/default/best.safetensors".into(),
                None => kv.replace("RULE", "seirawan"),
            }
        })
        .collect();
    format!("{kind}:{}", keys.join(","))
}

fn wait_for(mut child: Child, limit: Duration) -> Result<(), String> {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            return Err(format!("still running after {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(6).collect();
        Err(format!("{}: {}", out.status, tail.into_iter().rev().collect::<Vec<_>>().join("\n  ")))
    }
}

fn http_get(addr: &str, path: &str) -> Result<String, String> {
    let mut s = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").map_err(|e| e.to_string())?;
    let mut body = String::new();
    s.read_to_string(&mut body).map_err(|e| e.to_string())?;
    Ok(body)
}

/// Commands started in the background (`cmd &`): what the docs call them, the process,
/// its smoke arguments.
type Background = Vec<(String, Child, Vec<String>)>;

/// What ran, and what failed with why.
#[derive(Default)]
struct Tally {
    ran: Vec<String>,
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, what: String, args: &[String], result: Result<(), String>) {
        if let Err(e) = result {
            self.failures.push(format!("{what}\n  as: szero {}\n  {e}", args.join(" ")));
        }
        self.ran.push(what);
    }

    /// Waits for what the shell started in the background, as the next command would.
    fn settle(&mut self, ws: &Workspace, background: &mut Background) {
        for (what, child, args) in background.drain(..) {
            let r = wait_for(child, Duration::from_secs(300)).and_then(|()| ws.check_outputs(&args));
            self.record(what, &args, r);
        }
    }
}

#[test]
fn every_command_of_the_readme_and_docs_runs_at_smoke_size() {
    let mut ws = Workspace::new();
    let mut tally = Tally::default();
    for doc in user_documents() {
        let rel = doc.strip_prefix(ROOT).unwrap().display().to_string();
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut vars = HashMap::new();
        let mut background = Background::new();
        for (line, command) in shell_lines(&text) {
            for inv in invocations(&command, &mut vars) {
                let what = format!("{rel}:{line}: szero {}", inv.args.join(" "));
                if let Some((_, why)) = NOT_RUN.iter().find(|(w, _)| inv.args.iter().any(|a| a.contains(w))) {
                    println!("not run: {what} ({why})");
                    continue;
                }
                let args = ws.smoke(&inv.args);
                if inv.background {
                    let child = ws.command(&args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
                    background.push((what, child, args));
                    continue;
                }
                tally.settle(&ws, &mut background);
                let t = Instant::now();
                let r = ws.run(&args);
                println!("{:>6.1} s  {what}", t.elapsed().as_secs_f64());
                tally.record(what, &args, r);
            }
        }
        tally.settle(&ws, &mut background);
    }
    let Tally { ran, failures } = tally;
    assert!(ran.len() >= 20, "only {} documented commands ran: is the extraction broken?", ran.len());
    assert!(
        failures.is_empty(),
        "{} of {} documented commands failed at smoke size:\n{}",
        failures.len(),
        ran.len(),
        failures.join("\n")
    );
}

#[test]
fn smoke_sizes_shrink_effort_and_fill_placeholders() {
    let mut ws = Workspace { dir: tempfile::tempdir().unwrap(), specs: 0, dirs: 0 };
    let args: Vec<String> =
        "match --p1 ab:model=best.safetensors,movetime=1000 --p2 uci:cmd=fairy-stockfish,depth=8 --games 200"
            .split(' ')
            .map(String::from)
            .collect();
    assert_eq!(
        ws.smoke(&args).join(" "),
        "match --p1 ab:model=runs/default/best.safetensors,movetime=10 --p2 uci:cmd=fairy-stockfish,depth=2 --games 2"
    );
    let args: Vec<String> =
        "worker train --run runs/r --config configs/default.toml".split(' ').map(String::from).collect();
    assert_eq!(ws.smoke(&args).join(" "), "worker train --run runs/r --config configs/smoke.toml --minutes 0.3");
    let args: Vec<String> =
        "scale anchors --anchor SPEC --anchor SPEC --out x.json".split(' ').map(String::from).collect();
    assert_eq!(
        ws.smoke(&args).join(" "),
        "scale anchors --anchor uci:cmd=fairy-stockfish,depth=2 --anchor uci:cmd=fairy-stockfish,depth=1 --out x.json"
    );
}
