//! Every `szero` command the documentation shows still parses: each shell code block of
//! the README, BENCHMARKS.md, RELIABILITY.md and docs/ is read line by line (continuation
//! lines joined, `VAR=value` lines and `for V in ...` loops remembered and expanded), and
//! each `szero` command in it (also as `target/release/szero`) is run with
//! `SZERO_PARSE_ONLY=1`, which checks the command line and exits. A renamed command or
//! flag then fails here instead of in a user's terminal. What the commands do is tested
//! elsewhere; that they are still commands is tested here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    let mut in_block = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            in_block = !in_block && matches!(info.trim(), "" | "sh" | "bash" | "shell" | "console");
            pending = None;
            continue;
        }
        if !in_block {
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

/// The `szero` invocations of one shell line, as argument lists; assignments and loop
/// variables go into `vars`.
fn invocations(line: &str, vars: &mut HashMap<String, String>) -> Vec<Vec<String>> {
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

fn segment_invocations(words: &[String], vars: &mut HashMap<String, String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for segment in words.split(|w| SEPARATORS.contains(&w.as_str())) {
        let mut rest = segment;
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
            Some(cmd) if cmd == "szero" || cmd.ends_with("/szero") => out.push(rest[1..].to_vec()),
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
            for args in invocations(&command, &mut vars) {
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
    let found: Vec<Vec<String>> = lines.iter().flat_map(|(_, l)| invocations(l, &mut vars)).collect();
    assert_eq!(
        found,
        vec![vec!["match", "--p1", "ab:model=a.safetensors,root_value=0", "--games", "10", "--seed", "3"]]
    );
    assert!(invocations("szero scale anchors $(seq 3)", &mut vars).is_empty(), "unknown output: skipped");
    // And a command line that is wrong is caught.
    let out = Command::new(SZERO).args(["match", "--no-such-flag"]).env("SZERO_PARSE_ONLY", "1").output().unwrap();
    assert!(!out.status.success());
}
