//! The commands compose as the README says: `szero selfplay --run R` writes where
//! `szero train --run R` reads; shards written elsewhere get an error that says where.

use std::process::Command;

const SZERO: &str = env!("CARGO_BIN_EXE_szero");
const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/smoke.toml");

fn szero(args: &[&str]) -> std::process::Output {
    Command::new(SZERO).args(args).output().unwrap()
}

#[test]
fn selfplay_into_a_run_then_train_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let r = run.to_str().unwrap();
    let out = szero(&["selfplay", "--config", SMOKE, "--games", "12", "--run", r]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("mean batch"));
    assert!(!selfplay::shard::list(&run.join("shards")).unwrap().is_empty());
    let out = szero(&["train", "--config", SMOKE, "--run", r, "--steps", "5"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(run.join("trainer/latest").exists());
    // Without a terminal, the logging steps (every 5 in the smoke config) are lines of
    // their own, and the last line gives the whole call's rate.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("step 5: loss ") && l.ends_with(" samples/s")), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("trained 5 steps (now at step 5) in ") && stdout.contains(" samples/s: "), "{stdout}");

    // SIGTERM (a `timeout`) stops training at the next step: exit 0, the closing lines,
    // a candidate of the step reached. No train/data ratio here, so only the signal stops it.
    let unbounded = dir.path().join("unbounded.toml");
    let smoke = std::fs::read_to_string(SMOKE).unwrap();
    std::fs::write(&unbounded, smoke.replace("train_ratio = 8.0", "train_ratio = 1000000.0")).unwrap();
    let mut child = Command::new(SZERO)
        .args(["train", "--config", unbounded.to_str().unwrap(), "--run", r, "--steps", "100000000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.lines().any(|l| l.starts_with("step 15: ")) {
        let mut line = String::new();
        assert!(std::io::BufRead::read_line(&mut err, &mut line).unwrap() > 0, "szero train ended early:\n{seen}");
        seen.push_str(&line);
    }
    let term = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    assert!(term.success());
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}\n{seen}{stdout}", out.status);
    assert!(stdout.contains(": stopped") && stdout.contains("candidate: "), "{stdout}");
}

#[test]
fn shards_in_the_wrong_place_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let flat = dir.path().join("flat");
    let f = flat.to_str().unwrap();
    let out = szero(&["selfplay", "--config", SMOKE, "--games", "2", "--out", f]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = szero(&["train", "--config", SMOKE, "--run", f, "--steps", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{f}/shards")) && err.contains("selfplay --run"), "{err}");
    // Neither --run nor --out: a clear usage error.
    let out = szero(&["selfplay", "--config", SMOKE, "--games", "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--run"));
}

#[test]
fn training_a_run_that_is_not_there_is_an_error_unless_told_to_wait() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-run");
    let m = missing.to_str().unwrap();
    let out = szero(&["train", "--config", SMOKE, "--run", m, "--steps", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-run: no such directory") && err.contains("--wait"), "{err}");
    assert!(!missing.exists(), "the mistyped run directory was created");
    // With --wait the trainer may start first: it makes the run and waits for shards (here
    // until SIGTERM, which stops it cleanly).
    let mut child = Command::new(SZERO)
        .args(["train", "--config", SMOKE, "--run", m, "--steps", "1", "--wait", "--poll-secs", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !missing.join("trainer").exists() && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap().success());
    child.wait().unwrap();
    assert!(missing.join("trainer").is_dir());
}

/// `szero promote --config` reads the run config whole, as `train` and `run` do: a bad
/// value in another table is named, not ignored; and every promotion mode is accepted on
/// the line. The names of the earlier release (`szero gate`, `[gate]`) still work, with a
/// warning naming the new ones.
#[test]
fn promote_reads_the_whole_run_config() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[train]\nbatch_size = 0\n[promotion]\nmode = \"fixed\"\n").unwrap();
    let net = dir.path().join("none.safetensors");
    let n = net.to_str().unwrap();
    let out = szero(&["promote", "--config", bad.to_str().unwrap(), "--candidate", n, "--best", n]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("batch_size") && err.contains("bad.toml"), "{err}");
    let out = szero(&["promote", "--mode", "regression", "--candidate", n, "--best", n]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("unknown promotion mode") && err.contains("none.safetensors"), "{err}");
    let out = szero(&["promote", "--mode", "lenient", "--candidate", n, "--best", n]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown promotion mode \"lenient\""));

    let old = dir.path().join("old.toml");
    std::fs::write(&old, "[gate]\nmode = \"fixed\"\n").unwrap();
    let out = szero(&["gate", "--config", old.to_str().unwrap(), "--candidate", n, "--best", n]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`szero gate` is now `szero promote`"), "{err}");
    assert!(err.contains("[gate] table is now called [promotion]"), "{err}");
    assert!(err.contains("none.safetensors"), "the old names still run: {err}");

    // The worker stage's old name too: the warning, then the stage's own work (here, an
    // error about the config file it was given).
    let missing = dir.path().join("missing.toml");
    let run = dir.path().join("run");
    let out = szero(&["worker", "gate", "--run", run.to_str().unwrap(), "--config", missing.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`szero worker gate` is now `szero worker promote`"), "{err}");
    assert!(!out.status.success() && err.contains("missing.toml"), "{err}");
}

/// `szero bench --json` reports both inference figures (search's path and the forward pass
/// alone) and a training figure, each a positive rate.
#[test]
fn bench_reports_every_figure() {
    let out = szero(&[
        "bench",
        "--config",
        SMOKE,
        "--batches",
        "1,4",
        "--seconds",
        "0.05",
        "--train-batch",
        "8",
        "--train-seconds",
        "0.2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let points = report["inference"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for p in points {
        assert!(
            p["positions_per_sec"].as_f64().unwrap() > 0.0 && p["forward_positions_per_sec"].as_f64().unwrap() > 0.0
        );
    }
    assert!(report["training"]["samples_per_sec"].as_f64().unwrap() > 0.0);
}

/// `szero scale`: anchors measured once (a second call plays nothing), a player rated
/// between them, the table shown; a scale file of other anchors is refused, not replaced;
/// a stronger anchor after its own extends it.
#[test]
fn scale_anchors_then_rate_a_player() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scale.json");
    let f = file.to_str().unwrap();
    let anchors = ["--anchor", "random", "--anchor", "mcts:nodes=8", "--anchor", "greedy"];
    let common = ["--games", "4", "--random-plies", "4", "--max-plies", "60", "--out", f];
    let args: Vec<&str> = ["scale", "anchors"].iter().chain(&anchors).chain(&common).copied().collect();
    let out = szero(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scale: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(scale["pairs"].as_array().unwrap().len(), 2);
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(table.contains("| `random` | +0 |") && table.contains("`greedy`"), "{table}");
    // Measured pairs are kept: a second call plays no game.
    let out = szero(&args);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("games, +"), "{}", String::from_utf8_lossy(&out.stderr));
    // A player rated on it: JSON with a rating, an interval and the anchors it met.
    let out = szero(&["scale", "rate", "--scale", f, "--player", "greedy", "--games", "4", "--start", "1", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (elo, lo, hi) = (r["elo"].as_f64().unwrap(), r["elo_lo"].as_f64().unwrap(), r["elo_hi"].as_f64().unwrap());
    assert!(lo <= elo && elo <= hi, "{r}");
    assert!(!r["against"].as_array().unwrap().is_empty());
    // With --results, running the same rating again plays no game and rates the same; a
    // rating of another player into that file is refused.
    let kept = dir.path().join("greedy-results.json");
    let rate = |player: &str| {
        let k = kept.to_str().unwrap();
        let rating = ["scale", "rate", "--scale", f, "--player", player, "--games", "4", "--start", "1"];
        szero(&[&rating[..], &["--results", k, "--json"]].concat())
    };
    let first = rate("greedy");
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let again = rate("greedy");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success() && err.contains("kept from") && !err.contains("games, +"), "{err}");
    assert_eq!(again.stdout, first.stdout);
    let other = rate("random");
    assert!(!other.status.success() && String::from_utf8_lossy(&other.stderr).contains("another player"));
    let out = szero(&["scale", "show", "--scale", f]);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("`mcts:nodes=8`"));
    // Other anchors, or other settings, into the same file: refused, and the file is
    // untouched.
    let before = std::fs::read(&file).unwrap();
    let fewer: Vec<&str> =
        ["scale", "anchors", "--anchor", "random", "--anchor", "greedy"].iter().chain(&common).copied().collect();
    let out = szero(&fewer);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("other anchors"));
    let out = szero(&args[..args.len() - 2].iter().chain(&["--seed", "7", "--out", f]).copied().collect::<Vec<_>>());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // A stronger anchor after its own extends it: only the new pair is played, the
    // measured ones are kept as they were.
    let more: Vec<&str> = ["scale", "anchors"]
        .iter()
        .chain(&anchors)
        .chain(&["--anchor", "mcts:nodes=32"])
        .chain(&common)
        .copied()
        .collect();
    let out = szero(&more);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let grown: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(grown["anchors"].as_array().unwrap().len(), 4);
    assert_eq!(grown["pairs"].as_array().unwrap()[..2], scale["pairs"].as_array().unwrap()[..]);
    assert_eq!(grown["pairs"].as_array().unwrap().len(), 3);
    // A start that is not on the scale is named.
    let out = szero(&["scale", "rate", "--scale", f, "--player", "greedy", "--start", "depth9"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("depth9"));
}

#[test]
fn bench_store_measures_a_runs_prefixes_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let args = ["bench-store", "--run", store.to_str().unwrap(), "--shards", "12", "--networks", "2"];
    let out = szero(&[&args[..], &["--network-bytes", "1000"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in ["shard put", "list of 12 shards", "network get", "claim create", "delete (clean-up)"] {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }
    // Its objects were deleted, and its own directory under the store removed.
    let left: Vec<_> = std::fs::read_dir(&store).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Output into a pipe nobody reads (`szero scale show | head` once `head` has left) ends
/// szero quietly with the status a shell gives a filter its reader left (141), not with a
/// panic and a backtrace.
#[test]
fn a_closed_stdout_ends_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(SZERO)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["scale", "show"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}
