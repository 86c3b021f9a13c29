//! Network gating: a candidate network plays the run's best network, and replaces it only
//! if it passes the configured test. The games are played with batched evaluation
//! ([`crate::matches::batched`]), many at once.
//!
//! Layout in the run directory:
//! * `best.safetensors`: a copy of the best network, for users and for commands given a
//!   run. Replaced atomically (copy to a temporary file in the same directory, fsync,
//!   rename), so a reader never sees a torn file and a crash leaves either the old or the
//!   new network. The stages themselves read the network the last claim names
//!   ([`best_network`]).
//! * `gate/log.jsonl`: one JSON object per decision ([`GateDecision`]), appended with a
//!   single write per line and synced, so the log stays line-complete across crashes.
//! * `gate/promotions/gen-N.json`: the claim of generation N (see [`commit_decision`]),
//!   created in the run's store, so that it decides between gates on any machines.
//! * `gate/decisions/<unix time>-<candidate>.json`: in a run in an object store, each
//!   decision once more, written once: the log lives in the gate's mirror, and these
//!   records are how a gate on another machine (or a fresh mirror) knows every decision.
//! * `gate/<unix time>-<candidate>.pgn`: the games, if `save_pgn`.

use crate::config::{GateConfig, GateMode};
use crate::elo::{EloEstimate, Pentanomial, SprtDecision, SprtStatus, Wdl};
use crate::matches::batched::{run_batched_match, BatchedPlayer, Side};
use crate::matches::openings::{load_epd, OpeningBook, OpeningError};
use crate::matches::{MatchConfig, MatchEnd, MatchError, Progress};
use models::load_evaluator;
use runstore::{Run, RunLayout, StoreError};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// One gating decision with the statistics it rests on (a line of `gate/log.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateDecision {
    /// When the decision was made (seconds since the Unix epoch).
    pub time_unix: u64,
    pub candidate: PathBuf,
    /// The network it was tested against; `None` when the run had no best network yet.
    pub best: Option<PathBuf>,
    pub candidate_step: Option<u64>,
    pub best_step: Option<u64>,
    pub mode: GateMode,
    /// The candidate passed the test.
    pub passed: bool,
    /// The candidate was made the run's best network.
    pub promoted: bool,
    /// The test was stopped from outside before it finished (never promotes).
    pub aborted: bool,
    pub reason: String,
    /// Candidate's results.
    pub wdl: Wdl,
    pub pentanomial: Pentanomial,
    /// Candidate's score per game.
    pub score: f64,
    /// Candidate's Elo over the best network (pentanomial), when games were played.
    pub elo: Option<EloEstimate>,
    pub sprt: Option<SprtStatus>,
    pub pgn: Option<PathBuf>,
    pub seconds: f64,
    /// The promoted network's name in the run (`candidates/step-N.safetensors`), so that
    /// processes with other directories (mirrors of an S3 run) find it; absent in
    /// decisions from before it existed and for networks from outside the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
}

impl GateDecision {
    /// The decision as pretty-printed JSON (the log holds the compact form).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a decision serialises")
    }
}

/// Why gating could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("invalid gate configuration: {0}")]
    Config(#[from] settings::ConfigError),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{}:{line}: not a gate decision ({reason}); the log is damaged: restore it or remove that line", path.display())]
    Log { path: PathBuf, line: usize, reason: String },
    #[error("{}: not a usable network: {error:#}", path.display())]
    Network { path: PathBuf, error: anyhow::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{}: only the run's own networks can be promoted in a run that lives in an object store (a candidate under its candidates/)", path.display())]
    OutsideRun { path: PathBuf },
    #[error(transparent)]
    Openings(#[from] OpeningError),
    #[error(transparent)]
    Match(#[from] MatchError),
}

/// Gates `candidate` against `<run_dir>/best.safetensors`: plays the test, promotes the
/// candidate if it passes (or if there is no best network yet), and appends the decision
/// to `<run_dir>/gate/log.jsonl`. `stop` ends the test early without promoting.
pub fn run_gate(
    run_dir: &Path,
    candidate: &Path,
    cfg: &GateConfig,
    stop: &AtomicBool,
) -> Result<GateDecision, GateError> {
    run_gate_with(&Run::local(run_dir), candidate, None, cfg, stop, &mut |_| {})
}

/// [`run_gate`] on any run (a directory or a mirrored S3 run), with an explicit opponent
/// (default: the run's best network) and progress reports after each game pair: the one
/// promotion step, which `szero gate --run` and the gate stage of `szero run` and
/// `szero worker gate` all take (one after another, over [`next_candidate`]). In a
/// mirrored run the candidate must be one of the run's own files (the promotion names it
/// in the store), which is checked before any game is played; the games' PGN is published.
pub fn run_gate_with(
    run: &Run,
    candidate: &Path,
    best: Option<&Path>,
    cfg: &GateConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<GateDecision, GateError> {
    if run.is_mirrored() && run.key_of(candidate).is_none() {
        return Err(GateError::OutsideRun { path: candidate.to_path_buf() });
    }
    let layout = run.layout();
    let gate_dir = layout.gate();
    std::fs::create_dir_all(&gate_dir).map_err(|error| GateError::Io { path: gate_dir, error })?;
    // Other gates' promotions first: the best network is the last one promoted.
    complete_promotion(run)?;
    let best = match best {
        Some(best) => Some(best.to_path_buf()),
        None => current_best(run)?,
    };
    let pgn = cfg.save_pgn.then(|| layout.gate_pgn(&format!("{}-{}", unix_now(), candidate_stem(candidate))));
    let mut decision = test_candidate(candidate, best.as_deref(), cfg, stop, pgn, progress)?;
    commit_decision(run, &mut decision)?;
    if let Some(pgn) = decision.pgn.as_ref().filter(|p| p.exists()) {
        run.publish(pgn)?;
    }
    Ok(decision)
}

/// The trainer's newest candidate that no gate has decided on (brought in from the store
/// first), or `None`. A decision cut short (`aborted`: a gate stopped mid-test) decides
/// nothing, so its candidate is gated again. Decisions are matched by file name: those
/// other gates recorded name the candidate in their own mirror.
pub fn next_candidate(run: &Run) -> Result<Option<PathBuf>, GateError> {
    let layout = run.layout();
    run.pull(&layout.candidates())?;
    let log = read_log(layout.root())?;
    let decided = |c: &Path| log.iter().any(|d| !d.aborted && d.candidate.file_name() == c.file_name());
    let candidates = layout.list_candidates().map_err(|error| GateError::Io { path: layout.candidates(), error })?;
    Ok(candidates.into_iter().next_back().filter(|c| !decided(c)))
}

/// The network to beat: the last one promoted, else `best.safetensors`, else the run's
/// generation-0 network (fetched into a mirror); `None` in a run that has none yet.
fn current_best(run: &Run) -> Result<Option<PathBuf>, GateError> {
    let (_, file) = best_network(run)?;
    if file.exists() {
        return Ok(Some(file));
    }
    let initial = run.layout().initial();
    Ok(run.fetch(&initial)?.then_some(initial))
}

/// Records `decision` in the run: the one promotion path of every stage and command.
///
/// A passed, finished test first claims the next generation by creating its claim file
/// if absent (`gate/promotions/gen-N.json`, holding the decision): of two gates racing
/// for a generation exactly one wins, and the other's decision is logged as not promoted.
/// The claim is the commit point; the log line and the copy to `best.safetensors`
/// follow, and [`complete_promotion`] redoes both after a crash in between, so the log and
/// the generation count never miss a promotion.
pub fn commit_decision(run: &Run, decision: &mut GateDecision) -> Result<(), GateError> {
    let layout = run.layout();
    decision.promoted = false;
    decision.network = run.key_of(&decision.candidate);
    if decision.passed && !decision.aborted {
        if decision.network.is_none() && run.is_mirrored() {
            return Err(GateError::OutsideRun { path: decision.candidate.clone() });
        }
        // Other processes' claims first: the next generation is one past all of them.
        run.pull(&layout.promotions())?;
        let generation = next_generation(layout)?;
        let claim = layout.promotion(generation);
        let json =
            serde_json::to_vec(&GateDecision { promoted: true, ..decision.clone() }).expect("a decision serialises");
        if run.create_if_absent(&claim, &json)? {
            decision.promoted = true;
        } else {
            decision.reason =
                format!("{}; not promoted: another gate promoted generation {generation} first", decision.reason);
        }
    }
    // A test cut short decides nothing: it is neither logged nor recorded, so every
    // mirror's log is the store's decisions, and the candidate is tested again.
    if decision.aborted {
        return Ok(());
    }
    append_log(layout.root(), decision)?;
    if decision.promoted {
        promote(layout.root(), &decision.candidate)?;
    }
    if run.is_mirrored() {
        record_decision(run, decision)?;
    }
    Ok(())
}

/// Whether two log entries are one decision: the same candidate (by file name, which is
/// the same in every mirror of a run), time and outcome.
fn same_decision(a: &GateDecision, b: &GateDecision) -> bool {
    a.time_unix == b.time_unix && a.promoted == b.promoted && a.candidate.file_name() == b.candidate.file_name()
}

/// Writes the store's record of a decision (`gate/decisions/`, once).
fn record_decision(run: &Run, decision: &GateDecision) -> Result<(), GateError> {
    let stem = candidate_stem(&decision.candidate);
    let json = serde_json::to_vec(decision).expect("a decision serialises");
    run.create_if_absent(&run.layout().decision(decision.time_unix, &stem), &json)?;
    Ok(())
}

/// The decision records of a mirrored run (brought up to date first), oldest first.
fn read_decisions(run: &Run) -> Result<Vec<GateDecision>, GateError> {
    let layout = run.layout();
    run.pull(&layout.decisions())?;
    let paths = layout.list_decisions().map_err(|error| GateError::Io { path: layout.decisions(), error })?;
    paths.iter().map(|path| read_decision(path)).collect()
}

/// Brings a mirrored run's gate log and the store's decision records together: the
/// decisions other gates recorded are appended to this log, and this log's decisions the
/// store lacks (a gate killed between its log line and its record) are recorded.
fn sync_decisions(run: &Run, log: &mut Vec<GateDecision>) -> Result<(), GateError> {
    let recorded = read_decisions(run)?;
    for d in &recorded {
        if !log.iter().any(|l| same_decision(l, d)) {
            append_log(run.layout().root(), d)?;
            log.push(d.clone());
        }
    }
    for d in log.iter().filter(|d| !d.aborted) {
        if !recorded.iter().any(|r| same_decision(r, d)) {
            record_decision(run, d)?;
        }
    }
    Ok(())
}

/// The generation a promotion now would make: one past both the claims and the log
/// (runs from before claims existed have only the log).
fn next_generation(run: &RunLayout) -> Result<u32, GateError> {
    let io = |error| GateError::Io { path: run.promotions(), error };
    let claimed = run.list_promotions().map_err(io)?.last().map_or(0, |(g, _)| *g);
    let logged = read_log(run.root())?.iter().filter(|d| d.promoted).count() as u32;
    Ok(claimed.max(logged) + 1)
}

/// The claims of a run (the mirror brought up to date first), in generation order.
fn read_claims(run: &Run) -> Result<Vec<(u32, GateDecision)>, GateError> {
    let layout = run.layout();
    run.pull(&layout.promotions())?;
    let claims = layout.list_promotions().map_err(|error| GateError::Io { path: layout.promotions(), error })?;
    claims.into_iter().map(|(generation, path)| Ok((generation, read_decision(&path)?))).collect()
}

/// One decision stored as a file of its own (a claim or a decision record).
fn read_decision(path: &Path) -> Result<GateDecision, GateError> {
    let text = std::fs::read(path).map_err(|error| GateError::Io { path: path.to_path_buf(), error })?;
    serde_json::from_slice(&text).map_err(|e| GateError::Log {
        path: path.to_path_buf(),
        line: 1,
        reason: e.to_string(),
    })
}

/// A candidate's file stem, as gate PGN and decision records name it.
pub fn candidate_stem(candidate: &Path) -> String {
    candidate.file_stem().map_or("candidate".into(), |s| s.to_string_lossy().into_owned())
}

/// The file of a promoted network in this process's directory of the run: its name in
/// the run (fetched into a mirror if missing), else the path the gate recorded.
pub fn network_file(run: &Run, decision: &GateDecision) -> Result<Option<PathBuf>, GateError> {
    if let Some(key) = &decision.network {
        let path = run.layout().root().join(key);
        if run.fetch(&path)? {
            return Ok(Some(path));
        }
    }
    Ok(decision.candidate.exists().then(|| decision.candidate.clone()))
}

/// Every promotion of the run, generation 1 first: the claims (brought up to date in a
/// mirror), or for runs from before claims existed, the promotions in the gate log.
pub fn promotions(run: &Run) -> Result<Vec<GateDecision>, GateError> {
    let claims = read_claims(run)?;
    let log = read_log(run.layout().root())?;
    let logged: Vec<GateDecision> = log.into_iter().filter(|d| d.promoted).collect();
    let claimed = claims.last().map_or(0, |(g, _)| *g) as usize;
    Ok(if claimed >= logged.len() { claims.into_iter().map(|(_, d)| d).collect() } else { logged })
}

/// The current generation and its network file: the network of the last promotion
/// (immutable, and complete before it was claimed), so that a reader never catches
/// `best.safetensors` between the claim and the copy; `best.safetensors` when that
/// network is gone or nothing was promoted yet.
pub fn best_network(run: &Run) -> Result<(u32, PathBuf), GateError> {
    let promoted = promotions(run)?;
    let file = match promoted.last() {
        Some(d) => network_file(run, d)?,
        None => None,
    };
    Ok((promoted.len() as u32, file.unwrap_or_else(|| run.layout().best())))
}

/// Finishes promotions that a crash interrupted after their claim: appends the log line a
/// claim has not got yet, and makes the last promoted network `best.safetensors` again
/// if it is not. Returns whether it had to do anything. (A candidate deleted since is left
/// alone: `best.safetensors` is then the newest network there is.) In a mirrored run this
/// also brings the promotions and decisions of other processes' gates into this
/// directory's log, and records in the store the decisions of this log it lacks.
pub fn complete_promotion(run: &Run) -> Result<bool, GateError> {
    let root = run.layout().root();
    let mut done = false;
    let mut log = read_log(root)?;
    for (_, claim) in read_claims(run)? {
        if !log.iter().any(|d| same_decision(d, &claim)) {
            append_log(root, &claim)?;
            log.push(claim);
            done = true;
        }
    }
    if run.is_mirrored() {
        sync_decisions(run, &mut log)?;
    }
    let Some(last) = log.iter().rev().find(|d| d.promoted) else { return Ok(done) };
    let Some(file) = network_file(run, last)? else { return Ok(done) };
    let read = |p: &Path| std::fs::read(p).ok();
    let Some(network) = read(&file) else { return Ok(done) };
    if read(&run.layout().best()).as_ref() == Some(&network) {
        return Ok(done);
    }
    promote(root, &file)?;
    Ok(true)
}

/// Plays the configured test of `candidate` against `best` (no promotion, no log).
/// Without a `best`, the candidate passes at once.
pub fn test_candidate(
    candidate: &Path,
    best: Option<&Path>,
    cfg: &GateConfig,
    stop: &AtomicBool,
    pgn: Option<PathBuf>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<GateDecision, GateError> {
    cfg.validate().map_err(|e| e.within("gate"))?;
    let started = Instant::now();
    let step = |p: &Path| {
        models::checkpoint::read_metadata(p)
            .map(|m| m.training_step)
            .map_err(|e| GateError::Network { path: p.to_path_buf(), error: e.into() })
    };
    let candidate_step = step(candidate)?;
    let best_step = best.map(step).transpose()?;
    let mut d = GateDecision {
        time_unix: 0,
        candidate: candidate.to_path_buf(),
        best: best.map(Path::to_path_buf),
        candidate_step: Some(candidate_step),
        best_step,
        mode: cfg.mode,
        passed: true,
        promoted: false,
        aborted: false,
        reason: String::new(),
        wdl: Wdl::default(),
        pentanomial: Pentanomial::default(),
        score: 0.5,
        elo: None,
        sprt: None,
        pgn: None,
        seconds: 0.0,
        network: None,
    };
    let Some(best) = best else {
        d.reason = "no best network yet".into();
        return Ok(finish(d, started));
    };
    if cfg.mode == GateMode::Always {
        d.reason = "gate mode `always`".into();
        return Ok(finish(d, started));
    }

    let player = |path: &Path, name: String| -> Result<BatchedPlayer, GateError> {
        let evaluator = load_evaluator(path, cfg.device, cfg.precision, cfg.cache_entries, None)
            .map_err(|error| GateError::Network { path: path.to_path_buf(), error })?;
        Ok(BatchedPlayer { name, evaluator, nodes: cfg.nodes, search: cfg.search.clone(), reuse: cfg.reuse_tree })
    };
    let first = player(candidate, format!("candidate-{candidate_step}"))?;
    let second = player(best, format!("best-{}", best_step.unwrap_or(0)))?;
    let seed = cfg.seed ^ candidate_step.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let book = match &cfg.openings {
        Some(path) => OpeningBook::List(load_epd(path, cfg.variant)?).shuffled(seed),
        None => OpeningBook::Random { variant: cfg.variant, plies: cfg.random_plies, seed },
    };
    let concurrency = cfg.workers();
    let match_cfg = MatchConfig {
        games: cfg.games,
        concurrency,
        adjudication: cfg.adjudication,
        sprt: (cfg.mode == GateMode::Sprt).then_some(cfg.sprt),
        pgn: pgn.clone(),
        event: "szero gate".into(),
        seed,
        torch_threads: cfg.torch_threads,

        ..MatchConfig::default()
    };
    let report = run_batched_match(
        Side::Search(&first),
        Side::Search(&second),
        &book,
        &match_cfg,
        cfg.games_in_flight,
        stop,
        progress,
    )?;
    d.wdl = report.wdl;
    d.pentanomial = report.pentanomial;
    d.score = report.wdl.score();
    d.elo = Some(report.elo);
    d.sprt = report.sprt;
    d.pgn = pgn;
    let threshold = |d: &mut GateDecision, what: &str| {
        d.passed = d.score >= cfg.score_threshold;
        d.reason = format!(
            "{what}: score {:.3} {} threshold {:.3}",
            d.score,
            if d.passed { ">=" } else { "<" },
            cfg.score_threshold
        );
    };
    match (report.end, cfg.mode, report.sprt.map(|s| s.decision)) {
        (MatchEnd::Aborted, ..) => {
            d.passed = false;
            d.aborted = true;
            d.reason = format!("stopped after {} of {} games", report.wdl.games(), cfg.games.div_ceil(2) * 2);
        }
        (_, GateMode::Sprt, Some(SprtDecision::AcceptH1)) => d.reason = "SPRT accepted H1".into(),
        (_, GateMode::Sprt, Some(SprtDecision::AcceptH0)) => {
            d.passed = false;
            d.reason = "SPRT accepted H0".into();
        }
        (_, GateMode::Sprt, _) => threshold(&mut d, "SPRT undecided after all games"),
        (_, GateMode::Regression, _) => {
            let hi = report.elo.elo_hi;
            d.passed = no_clear_loss(&report.elo);
            d.reason = format!(
                "regression check: Elo {:+.0} (95% up to {hi:+.0}) {}",
                report.elo.elo,
                if d.passed { "is no clear loss" } else { "is a clear loss" }
            );
        }
        _ => threshold(&mut d, "fixed games"),
    }
    Ok(finish(d, started))
}

/// The regression check: the candidate did not clearly lose (the 95% interval of its Elo
/// reaches 0 or above).
pub fn no_clear_loss(elo: &EloEstimate) -> bool {
    elo.elo_hi >= 0.0
}

fn finish(mut d: GateDecision, started: Instant) -> GateDecision {
    d.time_unix = unix_now();
    d.seconds = started.elapsed().as_secs_f64();
    d
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Makes `candidate` the run's best network atomically (see the module docs). Only
/// after its decision is logged: see [`commit_decision`].
fn promote(run_dir: &Path, candidate: &Path) -> Result<(), GateError> {
    let target = RunLayout::new(run_dir).best();
    models::io::commit_with(&target, |tmp| {
        std::fs::copy(candidate, tmp)?;
        std::fs::File::open(tmp)?.sync_all()
    })
    .map_err(|error| GateError::Io { path: target, error })
}

/// Appends one decision to `gate/log.jsonl` as a single write of a whole line, then syncs.
/// A torn line left by a crash is cut off first (see [`repair_log`]), so that the new
/// line does not run on from it.
pub fn append_log(run_dir: &Path, decision: &GateDecision) -> Result<(), GateError> {
    repair_log(run_dir)?;
    let path = RunLayout::new(run_dir).gate_log();
    let io = |error| GateError::Io { path: path.clone(), error };
    let mut line = serde_json::to_string(decision).map_err(|e| io(e.into()))?;
    line.push('\n');
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(io)?;
    f.write_all(line.as_bytes()).and_then(|()| f.sync_data()).map_err(io)
}

/// Cuts a torn last line (a write that a crash interrupted: no final newline) off the
/// gate log. Returns a warning describing what was removed, if anything was. A torn line
/// was never committed: its decision is taken again.
pub fn repair_log(run_dir: &Path) -> Result<Option<String>, GateError> {
    let path = RunLayout::new(run_dir).gate_log();
    let io = |error| GateError::Io { path: path.clone(), error };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(None);
    }
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if serde_json::from_slice::<GateDecision>(&bytes[keep..]).is_ok() {
        // A whole decision without its newline (a hand edit): keep it, end the line.
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).map_err(io)?;
        f.write_all(b"\n").and_then(|()| f.sync_data()).map_err(io)?;
        return Ok(None);
    }
    let f = std::fs::OpenOptions::new().write(true).open(&path).map_err(io)?;
    f.set_len(keep as u64).and_then(|()| f.sync_data()).map_err(io)?;
    let torn = String::from_utf8_lossy(&bytes[keep..]);
    let shown: String = torn.chars().take(80).collect();
    Ok(Some(format!(
        "{}: removed a torn last line ({} bytes, a write cut short by a crash): {shown:?}",
        path.display(),
        bytes.len() - keep
    )))
}

/// Reads every decision of a run's gate log. A torn last line (no final newline and not
/// a whole decision: a write cut short) is skipped; any other line that is not a decision
/// is an error naming it, since skipping it could lose a promotion.
pub fn read_log(run_dir: &Path) -> Result<Vec<GateDecision>, GateError> {
    let path = RunLayout::new(run_dir).gate_log();
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(GateError::Io { path, error }),
    };
    let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut decisions = Vec::new();
    for (i, line) in text[..complete].split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let decision = serde_json::from_slice(line).map_err(|e| GateError::Log {
            path: path.clone(),
            line: i + 1,
            reason: e.to_string(),
        })?;
        decisions.push(decision);
    }
    if let Ok(d) = serde_json::from_slice(&text[complete..]) {
        decisions.push(d);
    }
    Ok(decisions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use models::{net_config, Net};
    use schess::Variant;

    /// Two different networks in `dir`, `a` (step 10) and `b` (step 20).
    fn two_nets(dir: &Path) -> (PathBuf, PathBuf) {
        let (a, b) = (dir.join("a.safetensors"), dir.join("b.safetensors"));
        save_net(&a, 1, 10);
        save_net(&b, 2, 20);
        (a, b)
    }

    fn save_net(path: &Path, seed: i64, step: u64) {
        tch::manual_seed(seed);
        let cfg = net_config(1, 8, 0);
        let net = Net::new(cfg, tch::Device::Cpu).unwrap();
        models::checkpoint::save(&net, path, models::FORMAT_VERSIONS, step).unwrap();
    }

    #[test]
    fn regression_check_rejects_only_clear_losses() {
        use crate::elo::elo_estimate;
        // Pentanomial counts (0, 0.5, 1, 1.5, 2 points per pair), 10 pairs each.
        assert!(no_clear_loss(&elo_estimate(&[1, 2, 4, 2, 1])), "an even match passes");
        assert!(no_clear_loss(&elo_estimate(&[2, 3, 3, 1, 1])), "a slight loss is not clear");
        assert!(!no_clear_loss(&elo_estimate(&[6, 3, 1, 0, 0])), "a rout fails");
    }

    /// A crash mid-append leaves a torn last line: it is skipped, cut off (with a
    /// warning) before the next append, and never merges with it; a damaged line in the
    /// middle is an error naming it, never a silently lost promotion.
    #[test]
    fn torn_and_damaged_gate_log_lines() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let a = run.join("a.safetensors");
        save_net(&a, 1, 10);
        let cfg = GateConfig { device: models::DeviceChoice::Cpu, ..GateConfig::default() };
        let decision = run_gate(run, &a, &cfg, &AtomicBool::new(false)).unwrap();
        let log = RunLayout::new(run).gate_log();
        let line = std::fs::read_to_string(&log).unwrap();
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let torn = &line[..line.len() / 2];

        std::fs::write(&log, format!("{line}{line}{torn}")).unwrap();
        assert_eq!(read_log(run).unwrap().len(), 2, "the torn line is skipped");
        append_log(run, &decision).unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), line.repeat(3), "cut off before the append");

        std::fs::write(&log, format!("{line}{torn}")).unwrap();
        let warning = repair_log(run).unwrap().expect("a warning");
        assert!(warning.contains("torn last line"), "{warning}");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), line);
        assert_eq!(repair_log(run).unwrap(), None);

        // A whole decision whose newline is missing (a hand edit) is a decision.
        std::fs::write(&log, format!("{line}{}", line.trim_end())).unwrap();
        assert_eq!(read_log(run).unwrap().len(), 2);
        assert_eq!(repair_log(run).unwrap(), None);
        assert_eq!(std::fs::read_to_string(&log).unwrap(), line.repeat(2));

        std::fs::write(&log, format!("{line}{torn}\n{line}")).unwrap();
        let e = read_log(run).unwrap_err().to_string();
        assert!(e.contains("log.jsonl:2:") && e.contains("damaged"), "{e}");
    }

    #[test]
    fn first_candidate_is_promoted_then_a_test_is_played_and_logged() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let (a, b) = two_nets(run);
        let cfg = GateConfig {
            mode: GateMode::Fixed,
            games: 2,
            nodes: 4,
            concurrency: 1,
            random_plies: 2,
            score_threshold: 0.0,
            device: models::DeviceChoice::Cpu,
            adjudication: crate::matches::Adjudication { max_plies: 16, ..Default::default() },
            ..GateConfig::default()
        };
        let stop = AtomicBool::new(false);
        let d = run_gate(run, &a, &cfg, &stop).unwrap();
        assert!(d.passed && d.promoted && d.best.is_none(), "{d:?}");
        assert_eq!(std::fs::read(RunLayout::new(run).best()).unwrap(), std::fs::read(&a).unwrap());

        let d = run_gate(run, &b, &cfg, &stop).unwrap();
        assert_eq!(d.wdl.games(), 2);
        assert!(d.passed && d.promoted, "{d:?}");
        assert_eq!((d.candidate_step, d.best_step), (Some(20), Some(10)));
        assert_eq!(std::fs::read(RunLayout::new(run).best()).unwrap(), std::fs::read(&b).unwrap());
        assert!(d.pgn.as_ref().is_some_and(|p| p.exists()));

        // A threshold it does not reach (every game won) keeps the best network.
        let strict = GateConfig { score_threshold: 1.0, ..cfg.clone() };
        let d = run_gate(run, &a, &strict, &stop).unwrap();
        assert!(!d.passed && !d.promoted);
        assert_eq!(std::fs::read(RunLayout::new(run).best()).unwrap(), std::fs::read(&b).unwrap());

        // Stopped from outside: nothing promoted, nothing logged, and the candidate still
        // waits for a decision.
        let layout = RunLayout::new(run);
        std::fs::create_dir_all(layout.candidates()).unwrap();
        let candidate = layout.candidate(30);
        save_net(&candidate, 3, 30);
        let d = run_gate(run, &candidate, &cfg, &AtomicBool::new(true)).unwrap();
        assert!(d.aborted && !d.promoted);
        assert_eq!(next_candidate(&Run::local(run)).unwrap(), Some(candidate.clone()));
        // Decided, it is not offered again.
        run_gate(run, &candidate, &cfg, &stop).unwrap();
        assert_eq!(next_candidate(&Run::local(run)).unwrap(), None);

        let log = read_log(run).unwrap();
        assert_eq!(log.len(), 4, "the aborted test is not in the log");
        assert!(log.iter().all(|d| !d.aborted));
        assert_eq!(log.iter().take(3).map(|d| d.promoted).collect::<Vec<_>>(), [true, true, false]);
        // No temporary files left behind.
        let leftovers: Vec<_> = std::fs::read_dir(run)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
            .collect();
        assert!(leftovers.is_empty());
    }

    /// Lead of the run-store issue: the log entry commits a promotion, the copy follows.
    /// A copy that fails (a crash there) leaves the promotion logged, and the next start
    /// completes it; the old order (copy, then log) lost the log entry instead.
    #[test]
    fn a_promotion_is_logged_before_the_copy_and_completed_after_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let a = run.join("a.safetensors");
        save_net(&a, 1, 10);
        std::fs::create_dir_all(RunLayout::new(run).gate()).unwrap();
        let mut d =
            test_candidate(&a, None, &GateConfig::default(), &AtomicBool::new(false), None, &mut |_| {}).unwrap();
        // best.safetensors cannot be written while a directory stands in its place.
        std::fs::create_dir(RunLayout::new(run).best()).unwrap();
        assert!(commit_decision(&Run::local(run), &mut d).is_err());
        let log = read_log(run).unwrap();
        assert_eq!(log.len(), 1);
        assert!(log[0].promoted && log[0].candidate == a);
        std::fs::remove_dir(RunLayout::new(run).best()).unwrap();
        assert!(complete_promotion(&Run::local(run)).unwrap());
        assert_eq!(std::fs::read(RunLayout::new(run).best()).unwrap(), std::fs::read(&a).unwrap());
        assert!(!complete_promotion(&Run::local(run)).unwrap(), "nothing left to complete");
        assert_eq!(RunLayout::new(run).list_promotions().unwrap().len(), 1);

        // A crash after the claim of generation 2, before its log line and copy.
        let b = run.join("b.safetensors");
        save_net(&b, 2, 20);
        let mut d = test_candidate(
            &b,
            Some(&a),
            &GateConfig { mode: GateMode::Always, ..GateConfig::default() },
            &AtomicBool::new(false),
            None,
            &mut |_| {},
        )
        .unwrap();
        d.promoted = true;
        let claim = serde_json::to_vec(&d).unwrap();
        assert!(runstore::create_if_absent(&RunLayout::new(run).promotion(2), &claim).unwrap());
        assert!(complete_promotion(&Run::local(run)).unwrap());
        let log = read_log(run).unwrap();
        assert_eq!(log.iter().filter(|d| d.promoted).count(), 2);
        assert_eq!(std::fs::read(RunLayout::new(run).best()).unwrap(), std::fs::read(&b).unwrap());
        assert!(!complete_promotion(&Run::local(run)).unwrap());
    }

    /// The gate plays the run's rules: its games (PGN) are games of the configured
    /// variant, placements included.
    #[test]
    fn the_gate_plays_the_configured_variant() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = two_nets(dir.path());
        let cfg = GateConfig {
            mode: GateMode::Fixed,
            games: 2,
            nodes: 2,
            concurrency: 1,
            device: models::DeviceChoice::Cpu,
            adjudication: crate::matches::Adjudication { max_plies: 12, ..GateConfig::default().adjudication },
            variant: Variant::Placement,
            ..GateConfig::default()
        };
        let pgn = dir.path().join("gate.pgn");
        let d = test_candidate(&b, Some(&a), &cfg, &AtomicBool::new(false), Some(pgn.clone()), &mut |_| {}).unwrap();
        assert_eq!(d.wdl.games(), 2);
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(text.matches("[Variant \"Seirawan-Placement\"]").count(), 2, "{text}");
        assert!(text.contains("@"), "placement moves in the games: {text}");
    }

    /// Two gates that decide at once for the same generation: one promotes, the other's
    /// decision is logged as not promoted, and the generation count is one.
    #[test]
    fn of_two_gates_racing_for_a_generation_one_promotes() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let (a, b) = two_nets(run);
        std::fs::create_dir_all(RunLayout::new(run).gate()).unwrap();
        let cfg = GateConfig::default();
        let decide = |c: &Path| test_candidate(c, None, &cfg, &AtomicBool::new(false), None, &mut |_| {}).unwrap();
        let (mut da, mut db) = (decide(&a), decide(&b));
        // Both tested against the same (absent) best; a claims generation 1 first.
        commit_decision(&Run::local(run), &mut da).unwrap();
        // b computed the same next generation before a's claim landed: simulate by
        // claiming generation 1 for b directly, as the racing gate would.
        let json = serde_json::to_vec(&GateDecision { promoted: true, ..db.clone() }).unwrap();
        assert!(!runstore::create_if_absent(&RunLayout::new(run).promotion(1), &json).unwrap());
        // Through commit_decision b now claims generation 2 (a's promotion is visible).
        commit_decision(&Run::local(run), &mut db).unwrap();
        let claims = RunLayout::new(run).list_promotions().unwrap();
        assert_eq!(claims.iter().map(|c| c.0).collect::<Vec<_>>(), [1, 2]);
        let first: GateDecision = serde_json::from_slice(&std::fs::read(&claims[0].1).unwrap()).unwrap();
        assert_eq!(first.candidate, a);
        // Racing threads for one generation: exactly one wins it.
        let won: usize = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        let mut d = decide(&b);
                        commit_decision(&Run::local(run), &mut d).unwrap();
                        usize::from(d.promoted)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        let claims = RunLayout::new(run).list_promotions().unwrap();
        let log = read_log(run).unwrap();
        assert_eq!(claims.len(), 2 + won);
        assert_eq!(log.iter().filter(|d| d.promoted).count(), claims.len(), "one log line per claim");
        assert!(log.iter().filter(|d| !d.promoted).all(|d| d.reason.contains("another gate")), "{log:?}");
    }

    #[test]
    fn rejects_a_file_that_is_not_a_network() {
        let dir = tempfile::tempdir().unwrap();
        let bogus = dir.path().join("x.safetensors");
        std::fs::write(&bogus, b"nope").unwrap();
        let e = run_gate(dir.path(), &bogus, &GateConfig::default(), &AtomicBool::new(false)).unwrap_err();
        assert!(matches!(e, GateError::Network { .. }), "{e}");
    }
}
