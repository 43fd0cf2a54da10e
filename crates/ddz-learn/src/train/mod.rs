//! Deep Monte Carlo training: actor threads play, one learner learns.
//!
//! ```text
//! actors (threads, CPU) ──bounded channel of finished games──► learner (this thread, CPU/CUDA)
//!    ▲   batch: MSE(Q(s,a), final reward) ─► optimizer
//!    └── versioned weights every N steps; pool snapshots every M steps/minutes ◄──┘
//! ```
//!
//! A [`Trainer`] runs named steps in a loop: [`Trainer::ingest`] finished games,
//! [`Trainer::learn`] on every full batch ([`Trainer::publish`] weights and take pool
//! [`Trainer::snapshot`]s as they fall due), [`Trainer::stop_reason`], [`Trainer::checkpoint`] when due, and at the end
//! [`Trainer::shutdown`]. What should happen after a checkpoint (evaluation, for the CLI) is
//! handed in with [`Trainer::on_checkpoint`]: training never imports evaluation.

pub mod actor;
pub mod broker;
pub mod config;
pub mod curation;
pub mod monitor;
pub mod pool;
pub mod trajectory;
pub mod wire;

use crate::checkpoint;
use crate::model::bidnet::BidLearner;
use crate::model::{Frame, Learner, LearnerError, QNet, StepStats, Weights, WeightsError};
use crate::run::{self, Meta, RunError};
use actor::{Actor, GameMsg, Shared};
use broker::learner::{Arrival, LearnerLink};
use broker::{BrokerError, RunMeta};
use config::TrainConfig;
use crossbeam_channel::{Receiver, Select, Sender};
use monitor::Monitor;
use pool::{Pool, PoolEntry};
use serde::Serialize;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use trajectory::BidFrame;

/// How a run starts.
#[derive(Clone, Debug)]
pub enum Start {
    /// A new run in `config.run.dir`, from random weights or from a weights file.
    Fresh {
        /// A weights file or checkpoint folder to start from (`--init-from`); None draws the
        /// initial weights from `run.seed`.
        init_from: Option<PathBuf>,
    },
    /// Continue the run in `config.run.dir` from its newest checkpoint.
    Resume,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Ctrl-C, SIGTERM or SIGHUP asked the run to stop.
    Interrupted,
    /// `budget.max_frames` frames were learned.
    MaxFrames,
    /// `budget.max_games` games were counted.
    MaxGames,
    /// This session ran `budget.max_seconds` seconds.
    MaxSeconds,
    /// No game can arrive any more: every in-process actor hung up and there is no broker.
    ActorsStopped,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Interrupted => "interrupted (Ctrl-C or SIGTERM)",
            StopReason::MaxFrames => "max_frames",
            StopReason::MaxGames => "max_games",
            StopReason::MaxSeconds => "max_seconds",
            StopReason::ActorsStopped => "actors stopped",
        })
    }
}

/// What a training session did, as [`train`] and [`Trainer::run`] return it.
#[derive(Debug, Clone, Serialize)]
pub struct TrainSummary {
    /// The run folder.
    pub run_dir: PathBuf,
    /// The final checkpoint's folder.
    pub checkpoint: PathBuf,
    /// Learner steps of the run, earlier sessions included.
    pub steps: u64,
    /// Frames learned by the run, earlier sessions included.
    pub frames: u64,
    /// Games counted by the run, earlier sessions included.
    pub games: u64,
    /// Seconds of this session.
    pub seconds: f64,
    /// Frames learned per second in this session.
    pub frames_per_s: f64,
    /// Games counted per second in this session.
    pub games_per_s: f64,
    /// The loss of the last learner step (0 when this session made none).
    pub last_loss: f64,
    /// Mean loss over the first tenth of this session's steps (NaN when it made none).
    pub early_loss: f64,
    /// Mean loss over the last tenth of this session's steps (NaN when it made none).
    pub late_loss: f64,
    /// Why the session stopped.
    pub stopped_by: StopReason,
    /// Moving-average win rate of the learning landlord against the pool; None without such
    /// games.
    pub win_rate_vs_pool_landlord: Option<f64>,
    /// Moving-average win rate of the learning farmers against the pool; None without such
    /// games.
    pub win_rate_vs_pool_farmers: Option<f64>,
    /// Moving-average win rates in the games against the rule agent (`pool.rule_share`).
    pub win_rate_vs_rule_landlord: Option<f64>,
    /// The same for the learning farmers against the rule agent.
    pub win_rate_vs_rule_farmers: Option<f64>,
    /// Deals curation skipped in this session (`[curation]`; 0 without it).
    pub deals_skipped: u64,
}

/// Why training could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// An actor thread could not be started.
    #[error("cannot start an actor thread: {0}")]
    Thread(#[source] std::io::Error),
    /// The config cannot be read, does not parse, or is invalid.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// A fresh run was asked for in a folder that already holds checkpoints.
    #[error("{0} already holds a run: continue it with --resume {0}, or pick another --run-dir")]
    RunExists(PathBuf),
    /// A file or folder of the run could not be created or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The learner failed to build or to take a step.
    #[error(transparent)]
    Learner(#[from] LearnerError),
    /// The run folder, its lock, checkpoints or weights files failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The Redis broker failed.
    #[error(transparent)]
    Broker(#[from] BrokerError),
    /// An in-process actor thread panicked; holds its panic message.
    #[error("an actor thread failed: {0}")]
    Actor(String),
    /// Training stopped before learner step `step`; the checkpoints written before stay, and
    /// none is written after.
    #[error("learner step {step}: {reason}; training stopped, the last checkpoint is the last good one")]
    NonFinite {
        /// The learner step that could not be taken.
        step: u64,
        /// The learner's reason, with how many batches in a row were refused.
        reason: String,
    },
}

impl From<WeightsError> for TrainError {
    fn from(e: WeightsError) -> TrainError {
        TrainError::Run(e.into())
    }
}

/// Batches with a non-finite loss or gradient in a row after which training stops: one such
/// batch is skipped and counted (`train/bad_batches`), a run of them means the network or its
/// games are broken.
pub const BAD_BATCHES_IN_A_ROW: u32 = 20;

/// Runs training until a budget is met or Ctrl-C; `quiet` hides the progress bar.
pub fn train(cfg: TrainConfig, start: Start, quiet: bool) -> Result<TrainSummary, TrainError> {
    Trainer::new(cfg, start, quiet)?.run()
}

/// Learner steps, frames and games so far.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    step: u64,
    frames: u64,
    games: u64,
}

/// One training session of a run: the learner, its actors and the run folder it holds.
/// Drive it with [`Trainer::run`], or step by step as the module docs describe.
pub struct Trainer {
    cfg: Arc<TrainConfig>,
    run: PathBuf,
    /// This session's hold on the run folder, for as long as the trainer lives.
    _lock: run::RunLock,
    /// What the actors read: weights, pool, counters.
    shared: Arc<Shared>,
    /// The play network's learner and the frames waiting for it.
    play: PlayLearning,
    /// The bidding network's learner and its decisions waiting (with `game.bidding`).
    bid: Option<BidLearning>,
    /// Where finished games come from: in-process actors, and actor processes over Redis.
    inbox: Inbox,
    /// The games received and not yet counted, in buffer order.
    ledger: Ledger,
    monitor: Monitor,
    now: Counters,
    at_start: Counters,
    clock: Clock,
    on_checkpoint: Option<CheckpointHook>,
    resumed: bool,
}

/// The play network's learner, the frames received and not yet learned, and what its steps
/// measured.
struct PlayLearning {
    learner: Learner,
    buffer: Vec<Frame>,
    last: StepStats,
    losses: Vec<f32>,
    /// Batches refused for a non-finite loss or gradient: in all, and in a row.
    bad_batches: (u64, u32),
}

/// The bidding network's learner, its decisions waiting and its losses since the last scalars.
struct BidLearning {
    learner: BidLearner,
    buffer: Vec<BidFrame>,
    losses: Vec<f64>,
}

/// Where finished games arrive.
struct Inbox {
    games_rx: Receiver<GameMsg>,
    /// Handed to the in-process actors when they start.
    games_tx: Option<Sender<GameMsg>>,
    /// Actors in other processes, through Redis.
    remote: Option<Remote>,
    /// False once every in-process actor has hung up.
    local_open: bool,
}

/// The session's times: what came before it, when it started, and when things were last done.
struct Clock {
    /// Training time of the sessions before this one.
    elapsed_before: f64,
    session: Instant,
    last_checkpoint: Instant,
    last_snapshot: Instant,
    /// When the rates of the last scalars were measured, and the counters then.
    rate_clock: (Instant, Counters),
}

/// Where each received game's frames start in the stream of frames, so that a game is counted
/// (and its stream entry acknowledged) once its first frame is in a learner step: a checkpoint
/// then counts each game once, and a resumed learner reads again only games no checkpoint
/// counted.
#[derive(Default)]
struct Ledger {
    games: VecDeque<Received>,
    /// Frames received and learned in this session.
    received: u64,
    learned: u64,
    /// Stream entries to acknowledge.
    to_ack: Vec<String>,
    /// Sum and count of (learner version − the version that played), over games counted since
    /// the last scalars.
    staleness: (f64, u64),
}

struct Received {
    start: u64,
    id: Option<String>,
    version: u64,
}

/// The learner's end of the Redis broker.
struct Remote {
    link: LearnerLink,
    games: Option<Receiver<Arrival>>,
    reader: Option<JoinHandle<()>>,
    /// In-process actors beside the remote ones.
    local_actors: usize,
}

/// What runs after each periodic checkpoint, with the checkpoint's folder.
type CheckpointHook = Box<dyn FnMut(&Path)>;

impl Trainer {
    /// Sets a run up: a new run folder, or the newest checkpoint of an existing one with its
    /// pool. Nothing plays until [`Trainer::run`].
    pub fn new(cfg: TrainConfig, start: Start, quiet: bool) -> Result<Trainer, TrainError> {
        cfg.validate()?;
        curation::Curator::load(&cfg.curation)?; // its file is named before the run starts
        crate::runtime::configure_threads(cfg.learner.threads);
        let run = cfg.run.dir.clone();
        if matches!(start, Start::Resume) && !run.is_dir() {
            return Err(RunError::None(run::checkpoints_dir(&run)).into());
        }
        // Before anything is read or removed: the leftovers may be another session's writes.
        let lock = run::lock(&run)?;
        run::remove_leftovers(&run);
        // The run seed draws the initial weights, so a run is reproducible from its config.
        let mut learner = Learner::new(&cfg.model, cfg.learner.settings(&cfg.auxiliary), cfg.run.device, cfg.run.seed)?;
        let (meta, mut pool) = match &start {
            Start::Resume => restore(&run, &cfg, &mut learner.net)?,
            Start::Fresh { init_from } => {
                (begin(&run, &cfg, &mut learner.net, init_from.as_deref())?, Pool::new(cfg.pool.size))
            }
        };
        restore_average(&run, &start, &mut learner)?;
        if pool.is_empty() {
            crate::model::save_weights_file(&learner.net, &run::pool_file(&run, meta.step))?;
            pool.add(PoolEntry {
                step: meta.step,
                frames: meta.frames,
                weights: Arc::new(learner.net.export(meta.step)),
            });
        }
        let bid = bid_learner(&cfg, &start, &run)?;
        let bid_weights = bid.as_ref().map(|b| b.net.export(meta.step));
        let first = learner.net.export(meta.step);
        let shared = Arc::new(Shared::new(first, bid_weights, pool, meta.next_game_index, meta.frames));
        let (games_tx, games_rx) = crossbeam_channel::bounded::<GameMsg>(cfg.learner.queue_games);
        let now = Counters { step: meta.step, frames: meta.frames, games: meta.games };
        Ok(Trainer {
            monitor: Monitor::new(&run, &cfg.log, &cfg.budget, quiet, (now.frames, now.games)),
            cfg: Arc::new(cfg),
            run,
            _lock: lock,
            shared,
            play: PlayLearning {
                learner,
                buffer: Vec::new(),
                last: StepStats::default(),
                losses: Vec::new(),
                bad_batches: (0, 0),
            },
            bid: bid.map(|learner| BidLearning { learner, buffer: Vec::new(), losses: Vec::new() }),
            inbox: Inbox { games_rx, games_tx: Some(games_tx), remote: None, local_open: true },
            ledger: Ledger::default(),
            now,
            at_start: now,
            clock: Clock {
                elapsed_before: meta.elapsed_seconds,
                session: Instant::now(),
                last_checkpoint: Instant::now(),
                last_snapshot: Instant::now(),
                rate_clock: (Instant::now(), now),
            },
            on_checkpoint: None,
            resumed: matches!(start, Start::Resume),
        })
    }

    /// Takes finished games from actor processes through Redis at `url` under run name `run`
    /// (besides `local_actors` in-process actor threads), and publishes weights and pool there.
    pub fn with_broker(mut self, url: &str, run: &str, local_actors: usize) -> Result<Trainer, TrainError> {
        // The same folder, however it is named on the command line.
        let dir = std::fs::canonicalize(&self.run).or_else(|_| std::path::absolute(&self.run)).unwrap_or_default();
        let mut stored = (*self.cfg).clone();
        stored.budget = Default::default();
        let meta = RunMeta::ours(&dir.display().to_string(), stored.to_toml());
        let mut link = LearnerLink::connect(url, run, meta, self.resumed)?;
        let (play, bid) = self.export();
        link.publish_weights(&play, bid.as_ref(), self.now.frames)?;
        let pool = self.shared.pool().entries().to_vec();
        link.publish_pool(&pool.iter().map(|e| (e.step, &*e.weights)).collect::<Vec<_>>())?;
        self.inbox.remote = Some(Remote { link, games: None, reader: None, local_actors });
        Ok(self)
    }

    /// The bidding network being learned (with `game.bidding`).
    pub fn bidding_network(&self) -> Option<&crate::model::bidnet::BidNet> {
        self.bid.as_ref().map(|b| &b.learner.net)
    }

    /// What came over the wire from actor processes: games, frames, bytes, bad entries.
    pub fn wire_stats(&self) -> Option<Arc<broker::WireStats>> {
        self.inbox.remote.as_ref().map(|r| r.link.stats.clone())
    }

    /// Called with the checkpoint's folder after each periodic checkpoint (not the final one).
    pub fn on_checkpoint(mut self, hook: impl FnMut(&Path) + 'static) -> Trainer {
        self.on_checkpoint = Some(Box::new(hook));
        self
    }

    /// Plays and learns until a budget is met, Ctrl-C or SIGTERM, or the actors stop; then
    /// checkpoints.
    pub fn run(mut self) -> Result<TrainSummary, TrainError> {
        crate::process::stop_cleanly_on_signals("after a checkpoint");
        self.record_session()?;
        if run::list(&self.run)?.is_empty() {
            self.checkpoint()?; // from now on the run can always be resumed
        }
        if let Some(remote) = self.inbox.remote.as_mut() {
            let (tx, rx) = crossbeam_channel::bounded(self.cfg.learner.queue_games);
            let action_dim = self.cfg.model.action_layout().dim();
            remote.reader = Some(remote.link.spawn_reader(tx, self.cfg.reward.label_bound(), action_dim)?);
            remote.games = Some(rx);
        }
        let actors = self.spawn_actors()?;
        self.clock.session = Instant::now();
        self.clock.last_checkpoint = Instant::now();
        self.clock.last_snapshot = Instant::now();
        let stopped = self.main_loop();
        self.shutdown(stopped, actors)
    }

    /// Where the run stands when this session starts: learner step, frames, games, and hours
    /// trained before.
    pub fn resumes_at(&self) -> (u64, u64, u64, f64) {
        (self.at_start.step, self.at_start.frames, self.at_start.games, self.clock.elapsed_before / 3600.0)
    }

    /// Writes the run's configuration as this session uses it (`RUN/config.toml`, without a
    /// budget: budgets belong to sessions) and appends the session to `RUN/sessions.jsonl`:
    /// when, from where, its budget and the command line, overrides included.
    fn record_session(&self) -> Result<(), TrainError> {
        let io = |path: PathBuf| move |source: std::io::Error| TrainError::Io { path, source };
        let mut stored = (*self.cfg).clone();
        stored.budget = Default::default();
        run::write_atomically(&run::config_file(&self.run), &stored.to_toml())?;
        let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let session = serde_json::json!({
            "unix_time": since_epoch.as_secs(),
            "step": self.at_start.step,
            "frames": self.at_start.frames,
            "games": self.at_start.games,
            "budget": self.cfg.budget,
            "seed": self.cfg.run.seed,
            "device": self.cfg.run.device,
            "command_line": broker::masked_command_line(std::env::args()),
        });
        let path = run::sessions_file(&self.run);
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(io(path.clone()))?;
        std::io::Write::write_all(&mut file, format!("{session}\n").as_bytes()).map_err(io(path))
    }

    fn main_loop(&mut self) -> Result<StopReason, TrainError> {
        loop {
            if !self.ingest() {
                return Ok(StopReason::ActorsStopped);
            }
            self.learn()?;
            if let Some(remote) = self.inbox.remote.as_mut() {
                remote.link.heartbeat()?;
            }
            self.monitor.progress(self.clock.session.elapsed().as_secs_f64(), self.now.frames, self.now.games);
            if let Some(reason) = self.stop_reason() {
                return Ok(reason);
            }
            let every = self.cfg.checkpoint.every_minutes;
            if every > 0.0 && self.clock.last_checkpoint.elapsed().as_secs_f64() >= 60.0 * every {
                let dir = self.checkpoint()?;
                if let Some(hook) = self.on_checkpoint.as_mut() {
                    hook(&dir);
                }
            }
        }
    }

    fn spawn_actors(&mut self) -> Result<Vec<JoinHandle<()>>, TrainError> {
        let tx = self.inbox.games_tx.take().expect("a trainer runs once");
        let count = self.inbox.remote.as_ref().map_or(self.cfg.actor_count(), |r| r.local_actors);
        (0..count)
            .map(|i| {
                let curator = curation::Curator::load(&self.cfg.curation)?;
                let actor = Actor::new(i, self.cfg.clone(), self.shared.clone()).with_curator(curator);
                let tx = tx.clone();
                std::thread::Builder::new()
                    .name(format!("actor-{i}"))
                    .spawn(move || actor.run(tx))
                    .map_err(TrainError::Thread)
            })
            .collect()
    }

    /// Takes the finished games waiting (or the first within 100 ms), from in-process actors and
    /// from the stream, into the buffer; false when nothing can arrive any more (every
    /// in-process actor has hung up and there is no broker).
    pub fn ingest(&mut self) -> bool {
        let (got, open) = self.inbox.take();
        for (id, msg) in got {
            self.receive(id, msg);
        }
        open
    }

    fn receive(&mut self, id: Option<String>, mut msg: GameMsg) {
        if let Some(bid) = self.bid.as_mut() {
            bid.buffer.append(&mut msg.bids);
        }
        let ledger = &mut self.ledger;
        if msg.frames.is_empty() {
            // Nothing to learn from its play (every seat passed in the bidding): counted (and
            // acknowledged) now.
            self.now.games += 1;
            ledger.to_ack.extend(id);
            return;
        }
        self.monitor.record_game(msg.learning, msg.vs_rule, msg.landlord_won);
        let ledger = &mut self.ledger;
        ledger.games.push_back(Received { start: ledger.received, id, version: msg.version });
        ledger.received += msg.frames.len() as u64;
        self.play.buffer.extend(msg.frames);
    }

    /// Counts the games whose first frame is now learned.
    fn settle(&mut self) {
        let ledger = &mut self.ledger;
        let learned = ledger.learned;
        while let Some(g) = ledger.games.pop_front_if(|g| g.start < learned) {
            self.now.games += 1;
            ledger.staleness.0 += self.now.step.saturating_sub(g.version) as f64;
            ledger.staleness.1 += 1;
            ledger.to_ack.extend(g.id);
        }
    }

    /// One learner step on every full batch in the buffer; publishes weights, takes pool
    /// snapshots and writes scalars as they fall due.
    pub fn learn(&mut self) -> Result<(), TrainError> {
        let batch = self.cfg.learner.batch_size;
        let mut consumed = 0;
        while self.play.buffer.len() - consumed >= batch {
            if self.cfg.learner.lr_decay_frames > 0 {
                self.play.learner.set_lr(self.cfg.learner.lr_at(self.now.frames));
            }
            self.play.learner.set_oracle_weight(self.cfg.auxiliary.oracle_weight(self.now.frames));
            let frames = &self.play.buffer[consumed..consumed + batch];
            // Scalars are written after this step when it is a multiple of log.every_steps.
            let logged = (self.now.step + 1).is_multiple_of(self.cfg.log.every_steps.max(1));
            let update = if logged { self.play.learner.step_measured(frames) } else { self.play.learner.step(frames) };
            consumed += batch;
            // Learned or skipped, the batch's games are done with (counted and acknowledged).
            self.ledger.learned += batch as u64;
            match update {
                Ok(stats) => (self.play.last, self.play.bad_batches.1) = (stats, 0),
                Err(e) => {
                    self.skip_bad_batch(e)?;
                    self.settle();
                    continue;
                }
            }
            self.play.losses.push(self.play.last.loss as f32);
            self.now.step += 1;
            self.now.frames += batch as u64;
            self.settle();
            self.shared.frames.store(self.now.frames, Ordering::Relaxed);
            if self.now.step.is_multiple_of(self.cfg.learner.publish_every_steps.max(1)) {
                self.publish();
            }
            if self.inbox.remote.is_some() && self.now.step.is_multiple_of(self.cfg.broker.publish_every_steps) {
                let (play, bid) = self.export();
                if let Some(remote) = self.inbox.remote.as_mut() {
                    remote.link.publish_weights(&play, bid.as_ref(), self.now.frames)?;
                }
            }
            if self.snapshot_due() {
                self.snapshot()?;
            }
            if self.now.step.is_multiple_of(self.cfg.log.every_steps.max(1)) {
                self.write_scalars();
            }
        }
        self.play.buffer.drain(..consumed);
        self.learn_bids();
        // Acknowledged before any checkpoint can count them, so a checkpoint never counts a
        // game the stream would deliver again.
        let acks = std::mem::take(&mut self.ledger.to_ack);
        if let Some(remote) = self.inbox.remote.as_mut() {
            remote.link.ack(&acks)?;
        }
        Ok(())
    }

    /// Counts and names a batch the learner refused (its weights unchanged); stops training
    /// once [`BAD_BATCHES_IN_A_ROW`] come one after another, since then the network or the
    /// games themselves are broken rather than one batch.
    fn skip_bad_batch(&mut self, e: LearnerError) -> Result<(), TrainError> {
        let step = self.now.step + 1;
        let LearnerError::NonFinite(reason) = e else { return Err(e.into()) };
        self.play.bad_batches.0 += 1;
        self.play.bad_batches.1 += 1;
        if self.play.bad_batches.1 >= BAD_BATCHES_IN_A_ROW {
            let reason = format!("{reason} ({BAD_BATCHES_IN_A_ROW} batches in a row)");
            return Err(TrainError::NonFinite { step, reason });
        }
        eprintln!("ddz train: learner step {step}: {reason}; batch skipped ({} so far)", self.play.bad_batches.0);
        Ok(())
    }

    /// One update of the bidding network on every full batch of bidding decisions.
    fn learn_bids(&mut self) {
        let Some(bid) = self.bid.as_mut() else { return };
        let n = self.cfg.game.bid_batch_size;
        while bid.buffer.len() >= n {
            let batch: Vec<BidFrame> = bid.buffer.drain(..n).collect();
            let features: Vec<f32> = batch.iter().flat_map(|b| b.features.iter().copied()).collect();
            let bids: Vec<u8> = batch.iter().map(|b| b.bid).collect();
            let targets: Vec<f32> = batch.iter().map(|b| b.target).collect();
            bid.losses.push(bid.learner.step(&features, &bids, &targets));
        }
    }

    /// The play network's weights and the bidding network's, at the current step.
    fn export(&self) -> (Weights, Option<Weights>) {
        let step = self.now.step;
        (self.play.learner.net.export(step), self.bid.as_ref().map(|b| b.learner.net.export(step)))
    }

    /// Hands the current weights to the actors.
    pub fn publish(&mut self) {
        let (play, bid) = self.export();
        self.shared.publish(play, bid);
    }

    fn snapshot_due(&self) -> bool {
        let pool = &self.cfg.pool;
        (pool.snapshot_every_steps > 0 && self.now.step.is_multiple_of(pool.snapshot_every_steps))
            || (pool.snapshot_every_minutes > 0.0
                && self.clock.last_snapshot.elapsed().as_secs_f64() >= 60.0 * pool.snapshot_every_minutes)
    }

    /// Freezes the current weights into the pool (and its folder); the snapshot the pool drops
    /// to make room is deleted once no kept checkpoint names it.
    pub fn snapshot(&mut self) -> Result<(), TrainError> {
        let step = self.now.step;
        crate::model::save_weights_file(&self.play.learner.net, &run::pool_file(&self.run, step))?;
        let entry = PoolEntry { step, frames: self.now.frames, weights: Arc::new(self.play.learner.net.export(step)) };
        let dropped = self.shared.pool_mut().add(entry);
        if dropped.is_some() {
            run::prune_pool(&self.run, &self.pool_steps())?;
        }
        if let Some(remote) = self.inbox.remote.as_mut() {
            let pool = self.shared.pool().entries().to_vec();
            remote.link.publish_pool(&pool.iter().map(|e| (e.step, &*e.weights)).collect::<Vec<_>>())?;
        }
        self.clock.last_snapshot = Instant::now();
        Ok(())
    }

    fn write_scalars(&mut self) {
        let (t0, c0) = self.clock.rate_clock;
        let dt = t0.elapsed().as_secs_f64().max(1e-9);
        let frame_rate = (self.now.frames - c0.frames) as f64 / dt;
        let game_rate = (self.now.games - c0.games) as f64 / dt;
        self.clock.rate_clock = (Instant::now(), self.now);
        let pool_len = self.shared.pool().len();
        let (step, frames, queue) = (self.now.step, self.now.frames, self.inbox.games_rx.len());
        self.monitor.scalars(step, &self.play.last, frame_rate, game_rate, queue, pool_len, frames);
        self.monitor.scalar("train/bad_batches", self.play.bad_batches.0 as f64, step);
        let skipped = self.shared.skipped_deals.load(Ordering::Relaxed);
        if skipped > 0 {
            let dealt = self.shared.next_game.load(Ordering::Relaxed).max(1);
            self.monitor.scalar("curation/skipped_share", skipped as f64 / dealt as f64, step);
        }
        let losses = self.bid.as_mut().map(|b| std::mem::take(&mut b.losses)).unwrap_or_default();
        if !losses.is_empty() {
            self.monitor.scalar("bid/loss", losses.iter().sum::<f64>() / losses.len() as f64, step);
        }
        let (sum, n) = std::mem::take(&mut self.ledger.staleness);
        if n > 0 {
            self.monitor.scalar("learner/staleness", sum / n as f64, step);
        }
        if let Some(stats) = self.wire_stats() {
            self.monitor.scalar("broker/bytes_per_frame", stats.bytes_per_frame(), step);
            self.monitor.scalar("broker/bad_entries", stats.bad.load(Ordering::Relaxed) as f64, step);
        }
    }

    /// The budget that is met, or Ctrl-C; None to go on.
    pub fn stop_reason(&self) -> Option<StopReason> {
        let budget = &self.cfg.budget;
        if crate::process::interrupted() {
            Some(StopReason::Interrupted)
        } else if budget.max_frames > 0 && self.now.frames >= budget.max_frames {
            Some(StopReason::MaxFrames)
        } else if budget.max_games > 0 && self.now.games >= budget.max_games {
            Some(StopReason::MaxGames)
        } else if budget.max_seconds > 0.0 && self.clock.session.elapsed().as_secs_f64() >= budget.max_seconds {
            Some(StopReason::MaxSeconds)
        } else {
            None
        }
    }

    /// Writes a checkpoint of the current weights and counters; returns its folder.
    pub fn checkpoint(&mut self) -> Result<PathBuf, TrainError> {
        let shared = &self.shared;
        let meta = Meta {
            format: run::META_FORMAT,
            step: self.now.step,
            frames: self.now.frames,
            games: self.now.games,
            elapsed_seconds: self.clock.elapsed_before + self.clock.session.elapsed().as_secs_f64(),
            next_game_index: shared.next_game.load(Ordering::SeqCst),
            pool_steps: self.pool_steps(),
            model: self.cfg.model.clone(),
        };
        let extras = checkpoint::Extras {
            bid: self.bid.as_ref().map(|b| &b.learner.net),
            average: self.play.learner.average.as_ref().map(|a| &a.net),
        };
        let learner = &self.play.learner.net;
        let dir = checkpoint::save_with_bid(&self.run, learner, extras, &meta, self.cfg.checkpoint.keep_last)?;
        run::prune_pool(&self.run, &meta.pool_steps)?;
        self.monitor.flush();
        self.clock.last_checkpoint = Instant::now();
        Ok(dir)
    }

    fn pool_steps(&self) -> Vec<u64> {
        self.shared.pool().entries().iter().map(|e| e.step).collect()
    }

    /// Stops the actors, waits for what runs after checkpoints, writes the final checkpoint and
    /// sums the session up.
    pub fn shutdown(
        mut self,
        stopped: Result<StopReason, TrainError>,
        actors: Vec<JoinHandle<()>>,
    ) -> Result<TrainSummary, TrainError> {
        // Actors exit at their next step, or when a send finds the channel closed: our receiver
        // is swapped for a closed stand-in, so an actor blocked on a full channel wakes up.
        self.shared.stop.store(true, Ordering::SeqCst);
        let (_, closed) = crossbeam_channel::bounded(0);
        drop(std::mem::replace(&mut self.inbox.games_rx, closed));
        let failure = actors.into_iter().filter_map(|a| a.join().err()).map(|panic| panic_message(&*panic)).last();
        if let Some(remote) = self.inbox.remote.as_mut() {
            remote.link.stop_reading();
            remote.games = None;
            if let Some(reader) = remote.reader.take() {
                let _ = reader.join();
            }
        }
        self.on_checkpoint = None; // waits for a background round still running
        let stopped_by = stopped?;
        let seconds = self.clock.session.elapsed().as_secs_f64();
        let saved = self.checkpoint()?;
        if let Some(remote) = self.inbox.remote.as_mut() {
            remote.link.finish()?; // actor processes stop
        }
        self.monitor.finish();
        if let Some(why) = failure {
            return Err(TrainError::Actor(why));
        }
        Ok(self.summary(saved, stopped_by, seconds))
    }

    fn summary(&self, checkpoint: PathBuf, stopped_by: StopReason, seconds: f64) -> TrainSummary {
        let (wl, wf) = self.monitor.win_rates();
        let (rl, rf) = self.monitor.rule_win_rates();
        let tenth = self.play.losses.len().div_ceil(10);
        TrainSummary {
            run_dir: self.run.clone(),
            checkpoint,
            steps: self.now.step,
            frames: self.now.frames,
            games: self.now.games,
            seconds,
            frames_per_s: (self.now.frames - self.at_start.frames) as f64 / seconds.max(1e-9),
            games_per_s: (self.now.games - self.at_start.games) as f64 / seconds.max(1e-9),
            last_loss: self.play.last.loss,
            early_loss: mean_of(&self.play.losses[..tenth]),
            late_loss: mean_of(&self.play.losses[self.play.losses.len() - tenth..]),
            stopped_by,
            win_rate_vs_pool_landlord: wl,
            win_rate_vs_pool_farmers: wf,
            win_rate_vs_rule_landlord: rl,
            win_rate_vs_rule_farmers: rf,
            deals_skipped: self.shared.skipped_deals.load(Ordering::Relaxed),
        }
    }
}

impl Inbox {
    /// The games waiting (or the first within 100 ms), each with its stream entry when it came
    /// from Redis; and whether more can come (an in-process actor is still there, or a broker).
    fn take(&mut self) -> (Vec<(Option<String>, GameMsg)>, bool) {
        let mut got: Vec<(Option<String>, GameMsg)> = Vec::new();
        let stream = self.remote.as_ref().and_then(|r| r.games.as_ref());
        {
            let mut select = Select::new();
            let local = self.local_open.then(|| select.recv(&self.games_rx));
            if let Some(rx) = stream {
                select.recv(rx);
            } else if local.is_none() {
                return (got, false);
            }
            if let Ok(op) = select.select_timeout(Duration::from_millis(100)) {
                if Some(op.index()) == local {
                    match op.recv(&self.games_rx) {
                        Ok(msg) => got.push((None, msg)),
                        Err(_) => self.local_open = false,
                    }
                } else if let Some(Ok((id, msg))) = stream.map(|rx| op.recv(rx)) {
                    got.push((Some(id), msg));
                }
            }
        }
        got.extend(self.games_rx.try_iter().map(|m| (None, m)));
        if let Some(rx) = stream {
            got.extend(rx.try_iter().map(|(id, m)| (Some(id), m)));
        }
        let open = self.local_open || stream.is_some();
        (got, open)
    }
}

/// A new run folder: refuses one that holds a run, writes the config and the starting weights.
fn begin(run: &Path, cfg: &TrainConfig, net: &mut QNet, init_from: Option<&Path>) -> Result<Meta, TrainError> {
    if !run::list(run)?.is_empty() {
        return Err(TrainError::RunExists(run.to_path_buf()));
    }
    let io = |path: PathBuf| move |source: std::io::Error| TrainError::Io { path, source };
    std::fs::create_dir_all(run::pool_dir(run)).map_err(io(run::pool_dir(run)))?;
    if let Some(path) = init_from {
        crate::model::init_weights_from(net, path)?;
    }
    Ok(Meta {
        format: run::META_FORMAT,
        step: 0,
        frames: 0,
        games: 0,
        elapsed_seconds: 0.0,
        next_game_index: 0,
        pool_steps: vec![],
        model: cfg.model.clone(),
    })
}

/// The bidding network's learner, with `game.bidding`: fresh, or on `--resume` from the newest
/// checkpoint's `bid.safetensors` when it has one.
fn bid_learner(cfg: &TrainConfig, start: &Start, run: &Path) -> Result<Option<BidLearner>, TrainError> {
    if !cfg.game.bidding {
        return Ok(None);
    }
    let mut bid = BidLearner::new(crate::seeds::of(cfg.run.seed, crate::seeds::Stream::BIDDING), cfg.learner.lr)?;
    if matches!(start, Start::Resume) {
        checkpoint::load_bid(&run::latest(run)?, &mut bid.net)?;
    }
    Ok(Some(bid))
}

/// The weights' average starts at the weights the run starts from, or on `--resume` from the
/// newest checkpoint's average when it kept one (its `model.safetensors`, beside the learner's
/// own weights).
fn restore_average(run: &Path, start: &Start, learner: &mut Learner) -> Result<(), TrainError> {
    let Some(average) = learner.average.as_mut() else { return Ok(()) };
    average.restart(&learner.net);
    let kept = match start {
        Start::Resume => Some(run::latest(run)?).filter(|dir| dir.join(run::LEARNER_FILE).is_file()),
        Start::Fresh { .. } => None,
    };
    if let Some(dir) = kept {
        crate::model::load_weights_file(&mut average.net, &dir.join("model.safetensors"))?;
        average.resumed();
    }
    Ok(())
}

/// The newest checkpoint of a run into `net`, and the pool it listed.
fn restore(run: &Path, cfg: &TrainConfig, net: &mut QNet) -> Result<(Meta, Pool), TrainError> {
    let meta = checkpoint::load(&run::latest(run)?, net)?;
    let mut pool = Pool::new(cfg.pool.size);
    let mut scratch = QNet::cpu(&cfg.model, 0);
    for &step in &meta.pool_steps {
        crate::model::load_weights_file(&mut scratch, &run::pool_file(run, step))?;
        pool.add(PoolEntry { step, frames: 0, weights: Arc::new(scratch.export(step)) });
    }
    Ok((meta, pool))
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

fn mean_of(v: &[f32]) -> f64 {
    if v.is_empty() { f64::NAN } else { v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64 }
}

/// The run folder's config, for `--resume`, without a budget: each session's budget is given
/// for that session (on the command line), never taken from an earlier one.
pub fn load_run_config(run: &Path) -> Result<TrainConfig, TrainError> {
    let mut cfg = TrainConfig::load(&run::config_file(run))?;
    cfg.run.dir = run.to_path_buf();
    cfg.budget = Default::default();
    Ok(cfg)
}
