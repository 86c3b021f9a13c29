//! The [`Trainer`]: one run directory's network, optimiser, data order and logs.
//!
//! Run directory layout (the parts the trainer touches):
//! ```text
//! <run>/shards/*.shard                      read: self-play games
//! <run>/best.safetensors                    read once: initial weights of a fresh trainer
//! <run>/trainer/                            written: checkpoints (see `checkpoint`)
//! <run>/candidates/step-<N>.safetensors     written: networks for the promotion stage (N: 9 digits)
//! <run>/tensorboard/train/                  written: TensorBoard scalars
//! ```

use crate::amp;
use crate::checkpoint::{self, TrainerState};
use crate::config::TrainConfig;
use crate::data::{HostBatch, Loader, Targets};
use crate::error::TrainError;
use crate::loss;
use crate::optim::{OptimConfig, Optimizer};
use crate::sampler::Sampler;
use crate::schedule::learning_rate;
use crate::tb::TbWriter;
use crate::window::ShardStore;
use models::{inputs_of, Net, NetConfig, Precision, FORMAT_VERSIONS};
use runstore::RunLayout;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tch::{Device, Kind, Tensor};

/// Whether `step` is a multiple of `every` (never for 0). Not `is_multiple_of`: that
/// needs Rust 1.87, the workspace supports 1.80.
fn due(step: u64, every: u64) -> bool {
    step.checked_rem(every) == Some(0)
}

/// Receives warnings (skipped shards, disabled logging, ...).
pub type WarningSink = Box<dyn Fn(&str) + Send>;

/// Averages over the last logging interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Steps completed when these were logged.
    pub step: u64,
    pub loss: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub moves_left_loss: f64,
    /// Zero without a material head.
    pub material_loss: f64,
    pub policy_accuracy: f64,
    pub value_accuracy: f64,
    /// Squared error of the expected score against the result.
    pub value_mse: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
    pub learning_rate: f64,
    pub samples_per_sec: f64,
    /// Replay window, in samples.
    pub window: u64,
    pub total_samples: u64,
}

/// Why [`Trainer::train_steps`] returned.
#[derive(Debug, Clone, PartialEq)]
pub enum StopReason {
    /// The requested number of steps is done.
    Done,
    /// Not enough data: fewer than `min_samples` samples in the run, or the train/data
    /// ratio allowance is used up. Call again once self-play has written more shards.
    NeedData { total_samples: u64, min_samples: u64, allowance: f64 },
    /// The stop flag was set.
    Stopped,
}

/// What one [`Trainer::train_steps`] call did.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainReport {
    /// Steps done by this call.
    pub steps: u64,
    pub reason: StopReason,
    /// Candidate networks written by this call.
    pub candidates: Vec<PathBuf>,
    /// The checkpoint written at the end (none when no step was done).
    pub checkpoint: Option<PathBuf>,
    /// The latest logged metrics, if any were logged.
    pub metrics: Option<Metrics>,
}

/// Sums of the per-step scalars since the last log, kept on the device.
struct Meter {
    sums: Option<Vec<Tensor>>,
    steps: u64,
    samples: u64,
    lr_sum: f64,
    since: Instant,
}

impl Meter {
    fn new() -> Meter {
        Meter { sums: None, steps: 0, samples: 0, lr_sum: 0.0, since: Instant::now() }
    }

    fn add(&mut self, values: Vec<Tensor>, samples: u64, lr: f64) {
        self.sums = Some(match self.sums.take() {
            None => values,
            Some(s) => s.iter().zip(&values).map(|(a, b)| a + b).collect(),
        });
        self.steps += 1;
        self.samples += samples;
        self.lr_sum += lr;
    }
}

/// Where a trainer starts: from a checkpoint or from scratch.
struct Resumed {
    store: ShardStore,
    sampler: Sampler,
    step: u64,
    allowance: f64,
    samples_trained: u64,
    last_checkpoint: Option<u64>,
}

/// Trains a network on a run directory's self-play shards.
pub struct Trainer {
    run: RunLayout,
    cfg: TrainConfig,
    device: Device,
    autocast: bool,
    net: Net,
    optim: Optimizer,
    step: u64,
    allowance: f64,
    samples_trained: u64,
    store: ShardStore,
    sampler: Sampler,
    loader: Loader,
    /// Ids of the batches handed to the loader and not trained on yet, oldest first.
    pending: VecDeque<Vec<u64>>,
    last_refresh: Option<u64>,
    last_checkpoint: Option<u64>,
    tb: Option<TbWriter>,
    meter: Meter,
    warn: WarningSink,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer")
            .field("run", &self.run.root())
            .field("step", &self.step)
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

impl Trainer {
    /// Opens the trainer of `run_dir`: resumes from its latest checkpoint when there is
    /// one, else starts from `<run>/best.safetensors` when that exists (continuing its
    /// `training_step` count, so candidate numbers keep growing), else from a fresh
    /// `net_config` network seeded with `cfg.seed`. Registers the run's shards before
    /// returning. Warnings go to stderr.
    pub fn open(run_dir: impl Into<PathBuf>, cfg: &TrainConfig, net_config: &NetConfig) -> Result<Trainer, TrainError> {
        Trainer::open_with(run_dir, cfg, net_config, Box::new(|w| eprintln!("szero train: warning: {w}")))
    }

    /// [`Trainer::open`] with warnings sent to `warn`.
    pub fn open_with(
        run_dir: impl Into<PathBuf>,
        cfg: &TrainConfig,
        net_config: &NetConfig,
        warn: WarningSink,
    ) -> Result<Trainer, TrainError> {
        let run = RunLayout::new(run_dir.into());
        cfg.validate().map_err(|e| e.within("train"))?;
        let device = cfg.device.resolve()?;
        let autocast = match cfg.precision.resolve(device) {
            Precision::Bf16 if !device.is_cuda() => {
                return Err(TrainError::Unsupported(
                    "train config: bf16 training needs a CUDA device (use precision = \"auto\" or \"f32\" on CPU)"
                        .into(),
                ))
            }
            Precision::Bf16 => true,
            _ => false,
        };
        let inputs = inputs_of(net_config).ok_or_else(|| {
            TrainError::Unsupported(format!(
                "network config: {} input planes match no input layout of this build's encoding",
                net_config.input_planes
            ))
        })?;
        if cfg.torch_threads > 0 {
            tch::set_num_threads(cfg.torch_threads as i32);
        }
        let trainer_dir = run.trainer();
        std::fs::create_dir_all(&trainer_dir).map_err(TrainError::io(&trainer_dir))?;

        let mut net = {
            // libtorch's generator is process-wide: seeding and drawing the initial
            // weights must not interleave with another trainer opening concurrently.
            static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
            let _guard = INIT.lock().unwrap_or_else(|p| p.into_inner());
            tch::manual_seed(cfg.seed as i64);
            Net::new(net_config.clone(), device)?
        };
        let mut optim = Optimizer::new(net.var_store(), OptimConfig::from(cfg));
        let shards_dir = run.shards();
        // The newest checkpoint that loads whole; a damaged one is reported and skipped.
        let mut usable = None;
        let mut first_error = None;
        for dir in checkpoint::resumable(&trainer_dir)? {
            let attempt = checkpoint::load(&dir).and_then(|l| checkpoint::load_weights(&dir, &mut net).map(|_| l));
            match attempt {
                Ok(loaded) => {
                    if first_error.is_some() {
                        warn(&format!("resuming from the older checkpoint {}", dir.display()));
                    }
                    usable = Some((dir, loaded));
                    break;
                }
                Err(e) => {
                    warn(&format!("checkpoint {} cannot be used: {e}", dir.display()));
                    first_error.get_or_insert(e);
                }
            }
        }
        if let (None, Some(e)) = (&usable, first_error) {
            // Every checkpoint is unusable: starting afresh would silently drop the run's
            // training, so stop and say why.
            return Err(e);
        }
        let resumed = match usable {
            Some((dir, loaded)) => {
                let s = loaded.state;
                if s.optimizer == cfg.optimizer {
                    optim.load_state(&loaded.optimizer, s.optimizer_steps).map_err(|e| TrainError::state(&dir, e))?;
                } else {
                    warn(&format!(
                        "checkpoint {} used the {:?} optimizer, the config asks for {:?}: \
                         starting with fresh optimizer state",
                        dir.display(),
                        s.optimizer,
                        cfg.optimizer
                    ));
                }
                let mut store = ShardStore::restore(&shards_dir, s.store);
                let sampler = Sampler::restore(loaded.sampler, cfg.shuffle_buffer);
                let referenced: Vec<u64> = sampler.referenced().collect();
                store.load_window(cfg, &referenced, &|w| warn(&w));
                Resumed {
                    store,
                    sampler,
                    step: s.step,
                    allowance: s.allowance,
                    samples_trained: s.samples_trained,
                    last_checkpoint: Some(s.step),
                }
            }
            None => {
                let best = run.best();
                let step = if best.exists() {
                    models::checkpoint::load_into(&mut net, &best, FORMAT_VERSIONS)?.training_step
                } else {
                    0
                };
                Resumed {
                    store: ShardStore::new(&shards_dir),
                    sampler: Sampler::new(cfg.seed, cfg.shuffle_buffer),
                    step,
                    allowance: 0.0,
                    samples_trained: 0,
                    last_checkpoint: None,
                }
            }
        };
        let tb = match TbWriter::open(run.tensorboard("train")) {
            Ok(tb) => Some(tb),
            Err(e) => {
                warn(&e.to_string());
                None
            }
        };
        let mut t = Trainer {
            loader: Loader::new(
                cfg.loader_threads,
                Targets {
                    inputs,
                    material_horizon: net_config.material.map(|m| m.horizon as usize),
                    hand_weight: cfg.material_hand_weight,
                    legal_mask: cfg.policy_mask_illegal,
                },
            ),
            cfg: cfg.clone(),
            run,
            device,
            autocast,
            net,
            optim,
            step: resumed.step,
            allowance: resumed.allowance,
            samples_trained: resumed.samples_trained,
            store: resumed.store,
            sampler: resumed.sampler,
            pending: VecDeque::new(),
            last_refresh: None,
            last_checkpoint: resumed.last_checkpoint,
            tb,
            meter: Meter::new(),
            warn,
        };
        t.refresh()?;
        Ok(t)
    }

    /// Optimiser steps completed.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The network being trained (fp32, on the training device).
    pub fn net(&self) -> &Net {
        &self.net
    }

    pub fn device(&self) -> Device {
        self.device
    }

    pub fn run_dir(&self) -> &Path {
        self.run.root()
    }

    /// Samples the run's shards hold (all ever registered, including those that left
    /// the window).
    pub fn total_samples(&self) -> u64 {
        self.store.total()
    }

    /// Samples in the replay window.
    pub fn window(&self) -> u64 {
        self.store.window_len(&self.cfg)
    }

    /// Samples that may still be trained on before new data is needed.
    pub fn allowance(&self) -> f64 {
        self.allowance
    }

    /// Samples trained on so far.
    pub fn samples_trained(&self) -> u64 {
        self.samples_trained
    }

    /// Registers new shards, moves the window and grows the train/data allowance.
    pub fn refresh(&mut self) -> Result<(), TrainError> {
        let warn = &self.warn;
        let r = self.store.refresh(&self.cfg, &|w| warn(&w))?;
        self.sampler.purge(self.store.window_start(&self.cfg));
        self.sampler.add_games(&r.new_games);
        if r.new_samples > 0 {
            let ratio = self.cfg.train_ratio;
            let cap = ratio * self.store.window_len(&self.cfg) as f64;
            self.allowance = (self.allowance + ratio * r.new_samples as f64).min(cap.max(self.allowance));
        }
        self.last_refresh = Some(self.step);
        Ok(())
    }

    fn can_train(&self) -> bool {
        self.store.total() >= self.cfg.min_samples && self.allowance >= self.cfg.batch_size as f64
    }

    fn need_data(&self) -> StopReason {
        StopReason::NeedData {
            total_samples: self.store.total(),
            min_samples: self.cfg.min_samples,
            allowance: self.allowance,
        }
    }

    /// Hands batches to the loader until `prefetch_batches` are in flight.
    fn prefetch(&mut self) -> Result<(), TrainError> {
        let start = self.store.window_start(&self.cfg);
        let len = self.store.window_len(&self.cfg);
        while self.loader.in_flight() < self.cfg.prefetch_batches as u64 {
            let (ids, refs) = self.sampler.next_batch(&self.store, start, len, self.cfg.batch_size);
            if refs.len() < self.cfg.batch_size {
                break; // no usable sample in the window
            }
            self.loader.submit(refs)?;
            self.pending.push_back(ids);
        }
        Ok(())
    }

    /// Trains up to `n` steps. Returns early when the data allowance is used up (or the
    /// run has fewer than `min_samples`), or when `stop` is set. Writes candidates every
    /// `candidate_every` steps, checkpoints every `checkpoint_every` steps and at the end.
    pub fn train_steps(&mut self, n: u64, stop: &AtomicBool) -> Result<TrainReport, TrainError> {
        self.train_steps_with(n, stop, &mut |_, _| {})
    }

    /// [`Trainer::train_steps`], calling `on_step(step, metrics)` after every step
    /// (`metrics` on logging steps).
    pub fn train_steps_with(
        &mut self,
        n: u64,
        stop: &AtomicBool,
        on_step: &mut dyn FnMut(u64, Option<&Metrics>),
    ) -> Result<TrainReport, TrainError> {
        if self.autocast && !amp::use_bf16_for_cuda_autocast() {
            // fp16 autocast would need loss scaling, which we do not do.
            (self.warn)("libtorch did not accept bf16 for CUDA autocast: training in fp32 instead");
            self.autocast = false;
        }
        let target = self.step.saturating_add(n);
        let first = self.step;
        let mut report =
            TrainReport { steps: 0, reason: StopReason::Done, candidates: Vec::new(), checkpoint: None, metrics: None };
        while self.step < target {
            if stop.load(Ordering::Relaxed) {
                report.reason = StopReason::Stopped;
                break;
            }
            if due(self.step, self.cfg.refresh_every) && self.last_refresh != Some(self.step) {
                self.refresh()?;
            }
            if !self.can_train() {
                self.refresh()?;
                if !self.can_train() {
                    report.reason = self.need_data();
                    break;
                }
            }
            self.prefetch()?;
            let Some(_) = self.pending.front() else {
                report.reason = self.need_data();
                break;
            };
            let host = self.loader.take()?;
            self.pending.pop_front();
            self.train_batch(&host)?;
            self.step += 1;
            self.allowance -= host.len() as f64;
            self.samples_trained += host.len() as u64;
            let metrics = if due(self.step, self.cfg.log_every) { Some(self.log()) } else { None };
            if due(self.step, self.cfg.checkpoint_every) {
                self.save_checkpoint()?;
            }
            if due(self.step, self.cfg.candidate_every) {
                report.candidates.push(self.write_candidate()?);
            }
            on_step(self.step, metrics.as_ref());
            if metrics.is_some() {
                report.metrics = metrics;
            }
        }
        report.steps = self.step - first;
        if report.steps > 0 && self.last_checkpoint != Some(self.step) {
            report.checkpoint = Some(self.save_checkpoint()?);
        }
        if let Some(tb) = &mut self.tb {
            if let Err(e) = tb.flush() {
                (self.warn)(&e.to_string());
                self.tb = None;
            }
        }
        Ok(report)
    }

    /// One optimiser step on `host`.
    fn train_batch(&mut self, host: &HostBatch) -> Result<(), TrainError> {
        let batch = host.to_device(self.device);
        self.optim.zero_grad();
        let out = if self.autocast {
            tch::autocast(true, || self.net.forward_t(&batch.inputs, true))?
        } else {
            self.net.forward_t(&batch.inputs, true)?
        };
        let l = loss::compute(&out, &batch, &self.cfg);
        l.total.backward();
        let grad_norm = self.optim.clip_grad_norm(self.cfg.grad_clip_norm);
        let lr = learning_rate(&self.cfg, self.step);
        self.optim.step(lr);
        let values = vec![
            l.total.detach(),
            l.policy,
            l.value,
            l.moves_left,
            l.policy_accuracy,
            l.value_accuracy,
            grad_norm.to_device(self.device).to_kind(Kind::Float),
            l.material,
            l.value_mse,
        ];
        self.meter.add(values, host.len() as u64, lr);
        Ok(())
    }

    /// Reads the meter (synchronising with the device), logs to TensorBoard, resets.
    fn log(&mut self) -> Metrics {
        let m = std::mem::replace(&mut self.meter, Meter::new());
        let steps = m.steps.max(1) as f64;
        let mean: Vec<f64> = m.sums.unwrap_or_default().iter().map(|t| t.double_value(&[]) / steps).collect();
        let get = |i: usize| mean.get(i).copied().unwrap_or(f64::NAN);
        let metrics = Metrics {
            step: self.step,
            loss: get(0),
            policy_loss: get(1),
            value_loss: get(2),
            moves_left_loss: get(3),
            policy_accuracy: get(4),
            value_accuracy: get(5),
            grad_norm: get(6),
            material_loss: get(7),
            value_mse: get(8),
            learning_rate: m.lr_sum / steps,
            samples_per_sec: m.samples as f64 / m.since.elapsed().as_secs_f64().max(1e-9),
            window: self.window(),
            total_samples: self.total_samples(),
        };
        if let Some(tb) = &mut self.tb {
            let scalars = [
                ("loss/total", metrics.loss),
                ("loss/policy", metrics.policy_loss),
                ("loss/value", metrics.value_loss),
                ("loss/moves_left", metrics.moves_left_loss),
                ("loss/material", metrics.material_loss),
                ("accuracy/policy_top1", metrics.policy_accuracy),
                ("accuracy/value", metrics.value_accuracy),
                ("value/mse", metrics.value_mse),
                ("train/learning_rate", metrics.learning_rate),
                ("train/grad_norm", metrics.grad_norm),
                ("train/samples_per_sec", metrics.samples_per_sec),
                ("data/window", metrics.window as f64),
                ("data/total_samples", metrics.total_samples as f64),
                ("data/allowance", self.allowance),
            ];
            let result = scalars.iter().try_for_each(|(tag, v)| tb.scalar(tag, *v, self.step));
            if let Err(e) = result {
                (self.warn)(&e.to_string());
                self.tb = None;
            }
        }
        metrics
    }

    /// Writes a checkpoint of the current state now; returns its directory.
    pub fn save_checkpoint(&mut self) -> Result<PathBuf, TrainError> {
        let pending: Vec<u64> = self.pending.iter().flatten().copied().collect();
        let sampler = self.sampler.state(pending);
        let state = TrainerState {
            step: self.step,
            optimizer: self.optim.kind(),
            optimizer_steps: self.optim.steps(),
            allowance: self.allowance,
            samples_trained: self.samples_trained,
            store: self.store.state(),
            sampler_rng: sampler.rng,
        };
        let dir = checkpoint::save(
            &self.run.trainer(),
            &self.net,
            &state,
            &sampler,
            &self.optim.state_tensors(),
            self.cfg.keep_checkpoints,
        )?;
        self.last_checkpoint = Some(self.step);
        Ok(dir)
    }

    /// Writes the current network as the candidate of this step (atomically); returns
    /// its path.
    pub fn write_candidate(&self) -> Result<PathBuf, TrainError> {
        let path = self.run.candidate(self.step);
        let dir = path.parent().expect("candidates dir");
        std::fs::create_dir_all(dir).map_err(TrainError::io(dir))?;
        models::checkpoint::save(&self.net, &path, FORMAT_VERSIONS, self.step)?;
        Ok(path)
    }

    /// Directory of the shards read.
    pub fn shards_dir(&self) -> &Path {
        self.store.dir()
    }
}
