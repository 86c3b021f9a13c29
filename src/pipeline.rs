//! `szero run`: self-play, training and promotion running concurrently over one run (a
//! directory or an S3 prefix mirrored in one: see `runstore::Run`). The stages share
//! nothing but the run, so each can be killed and restarted on its own, and every object
//! they exchange is written whole, once:
//!
//! * self-play reads the network of the last promotion and writes whole shards;
//! * the trainer reads shards, writes checkpoints and `candidates/step-N.safetensors`;
//! * the promotion stage tests the newest candidate against the best network
//!   (`eval::promotion`) and commits the verdict to the run's promotion ledger
//!   (`runstore::promotion`): on a pass it claims the next generation
//!   (`gate/promotions/gen-N.json`, created if absent: the commit point), appends the
//!   decision to `gate/log.jsonl` and replaces `best.safetensors`. A restart finishes an
//!   interrupted promotion.
//!
//! The generation of the best network is the number of claims (`runstore::Ledger::best`).

use crate::config::RunConfig;
use crate::outage::{Outage, Publisher, FINAL_PAUSE, FINAL_TRIES};
use anyhow::{Context, Result};
use eval::config::PromotionConfig;
use eval::matches::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use runstore::Run;
use selfplay::runner::{play_into, NetworkSource, RunOptions, SwappableNetwork};
use selfplay::stats::SelfplayStats;
use selfplay::writer::ShardWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use trainer::tb::TbWriter;
use trainer::{StopReason, Trainer};

/// Live counters shown by the status line.
#[derive(Default)]
pub struct Status {
    pub games: AtomicU64,
    pub positions: AtomicU64,
    /// Self-play's network calls and positions evaluated.
    pub eval_calls: AtomicU64,
    pub evaluations: AtomicU64,
    pub train_step: AtomicU64,
    pub samples_trained: AtomicU64,
    pub generation: AtomicU64,
    /// The trainer step of the newest candidate the promotion stage has decided on.
    pub gated_step: AtomicU64,
    pub last_promotion: Mutex<String>,
    pub trainer_note: Mutex<String>,
}

/// Which process of a run this is: `szero run` (every enabled stage) or one
/// `szero worker`, whose name goes into its shard file names, TensorBoard directory and
/// self-play seed so that workers started at once on one run neither collide nor repeat
/// each other's games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Process<'a> {
    Run,
    Worker(&'a str),
}

impl Process<'_> {
    /// Shard file prefix and TensorBoard directory of the self-play stage.
    fn selfplay_name(self) -> String {
        match self {
            Process::Run => "selfplay".into(),
            Process::Worker(id) => format!("selfplay-{id}"),
        }
    }

    /// Mixed into the self-play seed: nothing for `szero run` (its seeds stay as they
    /// were), FNV-1a of the name for a worker.
    fn seed_salt(self) -> u64 {
        match self {
            Process::Run => 0,
            Process::Worker(id) => {
                id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
            }
        }
    }
}

/// Runs the stages `[run]` enables until `stop` is set or a `[run]` limit is reached.
pub fn run(cfg: &RunConfig, config_text: &str, run: &Run, stop: &AtomicBool, process: Process<'_>) -> Result<()> {
    let store = run;
    let run = store.layout();
    run.create()?;
    // The config the run was started with; the first process to start writes it.
    if !store.fetch(&run.config())? {
        store.create_if_absent(&run.config(), config_text.as_bytes())?;
    }
    let removed = run.clean_temporaries();
    if removed > 0 {
        eprintln!("szero run: removed {removed} temporary file(s) left by an interrupted write");
    }
    if let Some(warning) = store.ledger().repair()? {
        eprintln!("szero run: warning: {warning}");
    }
    ensure_best(cfg, store)?;
    // The run's clock (minutes in ladders) follows the trainer: self-play workers come
    // and go without the run standing still.
    if cfg.run.train {
        runstore::clock::record_start(store, std::time::SystemTime::now())
            .with_context(|| format!("recording the start in {}", run.sessions().display()))?;
    }
    eprintln!("szero run: {}", thread_budget(cfg));
    let status = Status::default();
    status.generation.store(store.ledger().best()?.0 as u64, Ordering::Relaxed);
    let gated = store
        .ledger()
        .log::<eval::CandidateTest>()?
        .iter()
        .filter(|d| !d.aborted)
        .filter_map(|d| d.test.candidate_step)
        .max()
        .unwrap_or(0);
    status.gated_step.store(gated, Ordering::Relaxed);
    let started = Instant::now();
    let errors: Mutex<Vec<anyhow::Error>> = Mutex::new(Vec::new());
    let fail = |stage: &str, e: anyhow::Error| {
        errors.lock().unwrap_or_else(|p| p.into_inner()).push(e.context(format!("{stage} stage")));
        stop.store(true, Ordering::Relaxed);
    };
    std::thread::scope(|s| {
        if cfg.run.selfplay {
            s.spawn(|| selfplay_stage(cfg, store, process, &status, stop).unwrap_or_else(|e| fail("self-play", e)));
        }
        if cfg.run.train {
            s.spawn(|| train_stage(cfg, store, &status, stop).unwrap_or_else(|e| fail("training", e)));
        }
        if cfg.run.promote {
            s.spawn(|| promotion_stage(cfg, store, &status, stop).unwrap_or_else(|e| fail("promotion", e)));
        }
        display(cfg, &status, stop, started);
    });
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let (games, positions, evals, calls) =
        (get(&status.games), get(&status.positions), get(&status.evaluations), get(&status.eval_calls));
    eprintln!(
        "szero run: stopped after {secs:.0} s: {games} games ({:.2}/s), {positions} positions ({:.0}/s), \
         {evals} evaluations ({:.0}/s, mean batch {:.1}); trainer at step {} ({} samples trained in all), generation {}",
        games as f64 / secs,
        positions as f64 / secs,
        evals as f64 / secs,
        evals as f64 / calls.max(1) as f64,
        get(&status.train_step),
        get(&status.samples_trained),
        get(&status.generation)
    );
    match errors.into_inner().unwrap_or_else(|p| p.into_inner()).pop() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The threads each stage runs, for the log: on a small machine their sum should be
/// about the number of cores, with self-play holding most of them.
pub fn thread_budget(cfg: &RunConfig) -> String {
    let torch = |n: usize| if n == 0 { "libtorch's default".to_string() } else { n.to_string() };
    let mut parts = Vec::new();
    if cfg.run.selfplay {
        parts.push(format!(
            "self-play {} workers x {} torch threads",
            cfg.selfplay.worker_threads(),
            torch(cfg.selfplay.torch_threads)
        ));
    }
    if cfg.run.train {
        parts.push(format!(
            "trainer {} torch threads + {} loaders",
            torch(cfg.train.torch_threads),
            cfg.train.loader_threads
        ));
    }
    if cfg.run.promote && cfg.promotion.mode != eval::PromotionMode::Always {
        parts.push(format!(
            "promotion {} workers x {} torch threads",
            cfg.promotion.workers(),
            torch(cfg.promotion.torch_threads)
        ));
    }
    format!("threads: {}", parts.join(", "))
}

/// Creates the generation-0 network on a first start (the first process of a run to
/// start writes it; the others take that one), and completes a promotion that was
/// interrupted between its claim and the copy.
fn ensure_best(cfg: &RunConfig, store: &Run) -> Result<()> {
    let run = store.layout();
    if !store.fetch(&run.initial())? {
        models::tch::manual_seed(cfg.train.seed as i64);
        let net = models::Net::new(cfg.network.net_config(), models::tch::Device::Cpu)?;
        let fresh = runstore::temp::temp_path(&run.initial());
        models::checkpoint::save(&net, &fresh, models::FORMAT_VERSIONS, 0)?;
        let bytes = std::fs::read(&fresh).with_context(|| format!("reading {}", fresh.display()));
        let _ = std::fs::remove_file(&fresh);
        // Kept as the first rung of the run's strength ladder.
        if !store.create_if_absent(&run.initial(), &bytes?)? {
            store.fetch(&run.initial())?;
        }
    }
    store.ledger().complete()?;
    if !run.best().exists() {
        models::io::commit_with(&run.best(), |tmp| std::fs::copy(run.initial(), tmp).map(|_| ()))
            .with_context(|| format!("writing {}", run.best().display()))?;
    }
    Ok(())
}

/// How often a self-play worker looks for a new best network: every 2 s in a directory
/// (a file listing), every 15 s in an object store, where each look is a billed LIST
/// request (100 workers at 2 s would make 50 a second; see docs/runs.md).
fn poll_interval(store: &Run) -> Duration {
    Duration::from_secs(if store.is_mirrored() { 15 } else { 2 })
}

fn sleep_unless(stop: &AtomicBool, d: Duration) {
    let end = Instant::now() + d;
    while Instant::now() < end && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Self-play without pauses: the workers keep every game slot busy, and a watcher swaps
/// in each newly promoted network between moves.
fn selfplay_stage(
    cfg: &RunConfig,
    store: &Run,
    process: Process<'_>,
    status: &Status,
    stop: &AtomicBool,
) -> Result<()> {
    let run = store.layout();
    let name = process.selfplay_name();
    // Shards a killed process wrote but did not publish.
    let pushed = store.push(&run.shards())?;
    if pushed > 0 {
        eprintln!("szero run: published {pushed} shard file(s) written before a restart");
    }
    let mut tb = TbWriter::open(run.tensorboard(&name)).ok();
    let mut stats = SelfplayStats::default();
    // Steps continue across restarts: count the games already in the run's shards.
    let games_before = count_games(&run.shards());
    let seed = cfg.train.seed ^ 0x5E1F_u64.wrapping_mul(games_before + 1) ^ process.seed_salt();
    let load = |generation: u32, path: &Path| -> Result<Arc<dyn search::evaluator::Evaluator>> {
        let (net, inputs) = crate::startup::load_or_fresh(cfg, Some(path), 0)?;
        let evaluator = crate::startup::make_evaluator(cfg, net, inputs)
            .with_context(|| format!("self-play network of generation {generation}"))?;
        Ok(Arc::from(evaluator))
    };
    let (first, best) = store.ledger().best()?;
    let evaluator = load(first, &best)?;
    eprintln!("szero run: self-play network: {}", evaluator.describe());
    let network = SwappableNetwork::new(first, evaluator);
    // A store that stops answering for a while does not stop the games: their files wait
    // in the mirror and go up when it answers again.
    let mut publisher = Publisher::new(store, "szero run: self-play");
    let mut writer = ShardWriter::new(&run.shards(), &name, cfg.selfplay.games_per_shard, cfg.run.pgn)?
        .on_written(|path| publisher.publish(path).map_err(std::io::Error::other));
    let opts = RunOptions { games: usize::MAX, generation: first, seed };
    let played = AtomicBool::new(false);
    let mut last = (Instant::now(), (0u64, 0u64));
    std::thread::scope(|s| -> Result<()> {
        let watcher = s.spawn(|| -> Result<()> {
            let mut current = first;
            let mut outage = Outage::new("szero run: self-play's network watcher");
            while !stop.load(Ordering::Relaxed) && !played.load(Ordering::Relaxed) {
                sleep_unless(stop, poll_interval(store));
                let Some((latest, path)) = outage.ride(store.ledger().best().map_err(anyhow::Error::from))? else {
                    continue;
                };
                if latest != current {
                    network.replace(latest, load(latest, &path)?);
                    current = latest;
                }
            }
            Ok(())
        });
        let result = play_into(&cfg.selfplay, &network, &opts, stop, &mut writer, |record| {
            stats.add(record);
            status.games.fetch_add(1, Ordering::Relaxed);
            status.positions.fetch_add(record.moves.len() as u64, Ordering::Relaxed);
            if let Some((calls, rows)) = network.batch_stats() {
                status.eval_calls.store(calls, Ordering::Relaxed);
                status.evaluations.store(rows, Ordering::Relaxed);
            }
            if stats.games >= cfg.run.selfplay_log_games.max(1) as u64 {
                if let Some(tb) = tb.as_mut() {
                    let step = games_before + status.games.load(Ordering::Relaxed);
                    log_selfplay(tb, &stats, step, record.generation);
                    let now = (Instant::now(), network.batch_stats().unwrap_or_default());
                    let (calls, rows) = (now.1 .0.saturating_sub(last.1 .0), now.1 .1.saturating_sub(last.1 .1));
                    if calls > 0 {
                        let secs = now.0.duration_since(last.0).as_secs_f64().max(1e-9);
                        let _ = tb.scalar("selfplay/mean_batch", rows as f64 / calls as f64, step);
                        let _ = tb.scalar("selfplay/evaluations_per_sec", rows as f64 / secs, step);
                        let _ = tb.scalar("selfplay/positions_per_sec", stats.plies as f64 / secs, step);
                    }
                    last = now;
                }
                stats = SelfplayStats::default();
            }
        });
        played.store(true, Ordering::Relaxed);
        let watched = watcher.join().map_err(|_| anyhow::anyhow!("network watcher panicked"))?;
        result.and(watched)
    })?;
    drop(writer);
    publisher.finish(FINAL_TRIES, FINAL_PAUSE)
}

/// Self-play statistics of the last games to TensorBoard.
fn log_selfplay(tb: &mut TbWriter, stats: &SelfplayStats, step: u64, generation: u32) {
    let _ = tb.scalar("selfplay/game_length", stats.mean_length(), step);
    let _ = tb.scalar("selfplay/resign_rate", stats.resign_rate(), step);
    let _ = tb.scalar("selfplay/false_resign_rate", stats.false_resign_rate(), step);
    let per_game = |n: u64| n as f64 / stats.games.max(1) as f64;
    let _ = tb.scalar("selfplay/elephant_gates_per_game", per_game(stats.elephant_gates), step);
    let _ = tb.scalar("selfplay/hawk_gates_per_game", per_game(stats.hawk_gates), step);
    let _ = tb.scalar(
        "selfplay/white_score",
        (stats.white_wins as f64 + 0.5 * stats.draws as f64) / stats.games.max(1) as f64,
        step,
    );
    let _ = tb.scalar("selfplay/generation", generation as f64, step);
    let _ = tb.flush();
}

/// Games in a directory's shards, from their headers.
fn count_games(dir: &Path) -> u64 {
    selfplay::shard::list(dir)
        .unwrap_or_default()
        .iter()
        .filter_map(|p| selfplay::shard::read_header(p).ok())
        .map(|h| h.games as u64)
        .sum()
}

/// Commits the trainer's newest checkpoint to a mirrored run's store (the protocol is
/// the run store's: [`Run::commit_checkpoint`]), keeping the newest `keep` there.
pub(crate) fn upload_checkpoint(store: &Run, keep: usize) -> Result<()> {
    if let Some(latest) = trainer::checkpoint::latest(&store.layout().trainer())? {
        store.commit_checkpoint(&latest, keep)?;
    }
    Ok(())
}

/// A trainer on a new machine (an empty mirror) adopts the newest checkpoint committed to
/// the run's store ([`Run::pull_newest_checkpoint`]); returns its step.
pub(crate) fn restore_checkpoint(store: &Run) -> Result<Option<u64>> {
    let trainer_dir = store.layout().trainer();
    if !store.is_mirrored() || trainer::checkpoint::latest(&trainer_dir)?.is_some() {
        return Ok(None);
    }
    let Some(dir) = store.pull_newest_checkpoint()? else { return Ok(None) };
    trainer::checkpoint::adopt(&trainer_dir, &dir)?;
    Ok(trainer::checkpoint::checkpoint_step(&dir))
}

fn train_stage(cfg: &RunConfig, store: &Run, status: &Status, stop: &AtomicBool) -> Result<()> {
    let run = store.layout();
    store.pull(&run.shards())?;
    if let Some(step) = restore_checkpoint(store)? {
        eprintln!("szero run: trainer: resuming from the store's checkpoint of step {step}");
    }
    let mut trainer = Trainer::open_with(
        run.root(),
        &cfg.train,
        &cfg.network.net_config(),
        Box::new(|w| eprintln!("szero run: trainer: {w}")),
    )?;
    let mut outage = Outage::new("szero run: trainer");
    // Candidates and checkpoints to the store; false while it does not answer (then
    // `behind` until a later try gets them there).
    let publish = |outage: &mut Outage| -> Result<bool> {
        let pushed = outage.ride(store.push(&run.candidates()).map_err(anyhow::Error::from))?;
        Ok(pushed.is_some() && outage.ride(upload_checkpoint(store, cfg.train.keep_checkpoints))?.is_some())
    };
    let mut behind = false;
    // A silent store is tried again only once `Outage::due` (each try costs up to 30 s).
    let catch_up = |outage: &mut Outage, behind: &mut bool| -> Result<()> {
        if *behind && outage.due() {
            *behind = !publish(outage)?;
        }
        Ok(())
    };
    while !stop.load(Ordering::Relaxed) {
        let chunk = match cfg.run.max_steps {
            0 => cfg.run.train_chunk_steps,
            max => cfg.run.train_chunk_steps.min(max.saturating_sub(trainer.step())),
        };
        if chunk == 0 {
            // `[run] max_steps` reached: the run stops once the promotion stage has decided on the
            // candidate of this step (written here when the step is off candidate_every).
            if !run.candidate(trainer.step()).exists() {
                trainer.write_candidate()?;
                behind = true;
            }
            catch_up(&mut outage, &mut behind)?;
            *status.trainer_note.lock().unwrap_or_else(|p| p.into_inner()) = "max_steps reached".into();
            status.train_step.store(trainer.step(), Ordering::Relaxed);
            sleep_unless(stop, Duration::from_secs(1));
            continue;
        }
        // Games of workers elsewhere (a mirrored run), then the candidates this wrote and
        // its checkpoint. While the store does not answer, it trains on the games it has;
        // what it writes goes up once the store answers (pushes upload what it lacks).
        if outage.due() {
            outage.ride(store.pull(&run.shards()).map_err(anyhow::Error::from))?;
        }
        let report = trainer.train_steps(chunk, stop)?;
        behind = true;
        catch_up(&mut outage, &mut behind)?;
        status.train_step.store(trainer.step(), Ordering::Relaxed);
        status.samples_trained.store(trainer.samples_trained(), Ordering::Relaxed);
        match report.reason {
            StopReason::NeedData { total_samples, min_samples, .. } => {
                *status.trainer_note.lock().unwrap_or_else(|p| p.into_inner()) = if total_samples < min_samples {
                    format!("waiting for data ({total_samples}/{min_samples} samples)")
                } else {
                    "waiting for new games".into()
                };
                sleep_unless(stop, Duration::from_secs(2));
            }
            StopReason::Stopped => break,
            StopReason::Done => status.trainer_note.lock().unwrap_or_else(|p| p.into_inner()).clear(),
        }
    }
    Ok(())
}

fn promotion_stage(cfg: &RunConfig, store: &Run, status: &Status, stop: &AtomicBool) -> Result<()> {
    let run = store.layout();
    let mut tb = TbWriter::open(run.tensorboard("promotion")).ok();
    // While the store does not answer, the stage waits and starts its step again (a
    // promotion cut short is completed by the ledger: `Ledger::complete`).
    let mut outage = Outage::new("szero run: promotion");
    while !stop.load(Ordering::Relaxed) {
        let step = || -> Result<Option<(PathBuf, PromotionDecision)>> {
            // Promotions by other stages of the run, and the trainer's new candidates.
            store.ledger().complete()?;
            let generation = u64::from(store.ledger().best()?.0);
            status.generation.store(generation, Ordering::Relaxed);
            if cfg.run.max_generations > 0 && generation >= u64::from(cfg.run.max_generations) {
                // `max_generations` is exact: no candidate is tested past it (the status loop,
                // which also stops the run there, looks only a few times a second, and a small
                // network can be promoted several times between its looks).
                stop.store(true, Ordering::Relaxed);
                return Ok(None);
            }
            let Some(candidate) = store.ledger().next_candidate()? else {
                sleep_unless(stop, Duration::from_secs(2));
                return Ok(None);
            };
            // The one promotion step, as `szero promote --run` takes it.
            let decision = promotion_step(store, &candidate, None, &cfg.promotion, stop, &mut |_| {})?;
            Ok(Some((candidate, decision)))
        };
        let Some(stepped) = outage.ride(step())? else {
            sleep_unless(stop, Duration::from_secs(5));
            continue;
        };
        let Some((candidate, decision)) = stepped else { continue };
        if decision.aborted {
            break;
        }
        if decision.promoted {
            status.generation.fetch_add(1, Ordering::Relaxed);
        }
        let test = &decision.test;
        status.gated_step.fetch_max(test.candidate_step.unwrap_or(0), Ordering::Relaxed);
        let generation = status.generation.load(Ordering::Relaxed);
        let elo = test.elo.as_ref().map(|e| format!("{:+.0}", e.elo)).unwrap_or_else(|| "-".into());
        *status.last_promotion.lock().unwrap_or_else(|p| p.into_inner()) = format!(
            "{} {} ({:.0}%, Elo {elo})",
            candidate.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
            if decision.promoted { "promoted" } else { "rejected" },
            100.0 * test.score
        );
        if let Some(tb) = tb.as_mut() {
            let step = test.candidate_step.unwrap_or(0);
            if let Some(e) = &test.elo {
                let _ = tb.scalar("promotion/elo_vs_best", e.elo, step);
            }
            let _ = tb.scalar("promotion/score_vs_best", test.score, step);
            let _ = tb.scalar("promotion/promoted", f64::from(u8::from(decision.promoted)), step);
            let _ = tb.scalar("promotion/generation", generation as f64, step);
            let _ = tb.flush();
        }
    }
    Ok(())
}

/// A decision of the promotion stage, as its ledger holds it.
pub type PromotionDecision = runstore::Decision<eval::CandidateTest>;

/// The one promotion step, which `szero promote --run` and the promotion stage of
/// `szero run` and `szero worker promote` all take: tests `candidate` against `best` (default: the
/// network the ledger says is to beat) and commits the verdict to the run's ledger. In a
/// mirrored run the candidate must be one of the run's own files (the promotion names it
/// in the store), which is checked before any game is played; the games' PGN is published.
/// A stop from outside ends the test without a decision (neither logged nor recorded).
pub fn promotion_step(
    run: &Run,
    candidate: &Path,
    best: Option<&Path>,
    cfg: &PromotionConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PromotionDecision> {
    let ledger = run.ledger();
    ledger.check_candidate(candidate)?;
    // Other stages' promotions first: the network to beat is the last one promoted.
    ledger.complete()?;
    let best: Option<PathBuf> = match best {
        Some(best) => Some(best.to_path_buf()),
        None => ledger.to_beat()?,
    };
    let layout = run.layout();
    std::fs::create_dir_all(layout.promotion_dir())
        .with_context(|| format!("creating {}", layout.promotion_dir().display()))?;
    let stem = runstore::promotion::candidate_stem(candidate);
    let pgn = cfg.save_pgn.then(|| layout.promotion_pgn(&format!("{}-{stem}", unix_now())));
    let verdict = eval::test_candidate(candidate, best.as_deref(), cfg, stop, pgn, progress)?;
    let mut decision =
        runstore::Decision::new(candidate.to_path_buf(), verdict.passed, verdict.aborted, verdict.reason, verdict.test);
    ledger.commit(&mut decision)?;
    if let Some(pgn) = decision.test.pgn.as_ref().filter(|p| p.exists()) {
        run.publish(pgn)?;
    }
    Ok(decision)
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The status line, refreshed twice a second; also enforces the `[run]` limits.
fn display(cfg: &RunConfig, status: &Status, stop: &AtomicBool, started: Instant) {
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("valid template"));
    // Rates over the last few seconds: positions, evaluations (and calls), samples trained.
    let counters = || {
        [
            status.positions.load(Ordering::Relaxed),
            status.evaluations.load(Ordering::Relaxed),
            status.eval_calls.load(Ordering::Relaxed),
            status.samples_trained.load(Ordering::Relaxed),
        ]
    };
    let mut last = (Instant::now(), counters());
    let mut rates = [0.0f64; 4];
    // Without a terminal (logs, CI) the spinner is hidden: print a line now and then,
    // its rates over the whole time since the line before (not the last few seconds).
    let mut last_print = (Instant::now(), counters());
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(500));
        let dt = last.0.elapsed().as_secs_f64();
        if dt >= 5.0 {
            let now = counters();
            for k in 0..4 {
                rates[k] = now[k].saturating_sub(last.1[k]) as f64 / dt;
            }
            last = (Instant::now(), now);
        }
        let print = bar.is_hidden() && last_print.0.elapsed() >= Duration::from_secs(30);
        let [positions, evals, calls, samples] = if print {
            let (now, dt) = (counters(), last_print.0.elapsed().as_secs_f64());
            let since = std::array::from_fn(|k| now[k].saturating_sub(last_print.1[k]) as f64 / dt);
            last_print = (Instant::now(), now);
            since
        } else {
            rates
        };
        let batch = if calls > 0.0 { format!(", mean batch {:.0}", evals / calls) } else { String::new() };
        let generation = status.generation.load(Ordering::Relaxed);
        let note = status.trainer_note.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let line = format!(
            "gen {generation} | games {} ({positions:.0} pos/s, {evals:.0} evals/s{batch}) | train step {} ({} samples, {samples:.0}/s){} | promotion: {}",
            status.games.load(Ordering::Relaxed),
            status.train_step.load(Ordering::Relaxed),
            status.samples_trained.load(Ordering::Relaxed),
            if note.is_empty() { String::new() } else { format!(", {note}") },
            status.last_promotion.lock().unwrap_or_else(|p| p.into_inner()),
        );
        if print {
            eprintln!("[{:.0}s] {line}", started.elapsed().as_secs_f64());
        } else if !bar.is_hidden() {
            bar.set_message(line);
            bar.tick();
        }
        let out_of_time = cfg.run.max_minutes > 0.0 && started.elapsed().as_secs_f64() > cfg.run.max_minutes * 60.0;
        let enough = cfg.run.max_generations > 0 && generation >= u64::from(cfg.run.max_generations);
        let trained = cfg.run.max_steps > 0
            && status.train_step.load(Ordering::Relaxed) >= cfg.run.max_steps
            && (!cfg.run.promote || status.gated_step.load(Ordering::Relaxed) >= cfg.run.max_steps);
        let played = cfg.run.max_games > 0 && status.games.load(Ordering::Relaxed) >= cfg.run.max_games;
        if out_of_time || enough || trained || played {
            stop.store(true, Ordering::Relaxed);
        }
    }
    bar.finish();
}
