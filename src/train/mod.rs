//! Deep Monte Carlo training: actor threads play, one learner learns.
//!
//! ```text
//! actors (threads, CPU) ──bounded channel of finished games──► learner (this thread, CPU/CUDA)
//!    ▲   batch: MSE(Q(s,a), final reward) ─► optimizer
//!    └── versioned weights every N steps; pool snapshots every M steps/minutes ◄──┘
//! ```

pub mod actor;
pub mod checkpoint;
pub mod config;
pub mod learner;
pub mod monitor;
pub mod pool;
pub mod trajectory;

use actor::{GameMsg, Shared};
use config::TrainConfig;
use learner::{Learner, StepStats};
use monitor::Monitor;
use pool::{Pool, PoolEntry};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use trajectory::Frame;

/// How a run starts.
#[derive(Clone, Debug)]
pub enum Start {
    /// A new run in `config.run.dir`, from random weights or from a weights file.
    Fresh { init_from: Option<PathBuf> },
    /// Continue the run in `config.run.dir` from its newest checkpoint.
    Resume,
}

#[derive(Debug, Clone, Serialize)]
pub struct TrainSummary {
    pub run_dir: PathBuf,
    pub checkpoint: PathBuf,
    pub steps: u64,
    pub frames: u64,
    pub games: u64,
    /// Seconds of this session.
    pub seconds: f64,
    /// Frames learned per second in this session.
    pub frames_per_s: f64,
    pub games_per_s: f64,
    pub last_loss: f64,
    /// Mean loss over the first and the last tenth of this session's steps.
    pub early_loss: f64,
    pub late_loss: f64,
    pub stopped_by: String,
    pub win_rate_vs_pool_landlord: Option<f64>,
    pub win_rate_vs_pool_farmers: Option<f64>,
    /// Moving-average win rates in the games against the rule agent (`pool.rule_share`).
    pub win_rate_vs_rule_landlord: Option<f64>,
    pub win_rate_vs_rule_farmers: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("{0}")]
    Setup(String),
    #[error(transparent)]
    Checkpoint(#[from] checkpoint::RunCheckpointError),
    #[error("an actor thread failed: {0}")]
    Actor(String),
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Makes Ctrl-C stop training cleanly (after a checkpoint) instead of killing the process.
pub fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130); // a second Ctrl-C: stop now
            }
            eprintln!("\nstopping after the next checkpoint (Ctrl-C again to quit at once)");
        });
    });
}

fn setup<E: std::fmt::Display>(context: &str) -> impl Fn(E) -> TrainError + '_ {
    move |e| TrainError::Setup(format!("{context}: {e}"))
}

/// Runs training until a budget is met or Ctrl-C; `quiet` hides the progress bar.
pub fn train(cfg: TrainConfig, start: Start, quiet: bool) -> Result<TrainSummary, TrainError> {
    cfg.validate().map_err(TrainError::Setup)?;
    let run = cfg.run.dir.clone();
    let device = crate::runtime::parse_device(&cfg.run.device).map_err(TrainError::Setup)?;
    crate::runtime::configure_threads(cfg.learner.threads);
    tch::manual_seed(cfg.run.seed as i64); // reproducible initial weights
    let mut learner = Learner::new(&cfg.model, &cfg.learner, device).map_err(TrainError::Setup)?;
    let mut pool = Pool::new(cfg.pool.size);

    let meta = match &start {
        Start::Resume => {
            let dir = checkpoint::latest(&run)?;
            let meta = checkpoint::load(&dir, &mut learner.net)?;
            let mut scratch = crate::model::QNet::new(&cfg.model, tch::Device::Cpu);
            for &step in &meta.pool_steps {
                crate::model::load_weights_file(&mut scratch, &checkpoint::pool_file(&run, step)).map_err(checkpoint::RunCheckpointError::from)?;
                pool.add(PoolEntry { step, frames: 0, weights: Arc::new(scratch.export(step)) });
            }
            meta
        }
        Start::Fresh { init_from } => {
            if !checkpoint::list(&run)?.is_empty() {
                return Err(TrainError::Setup(format!(
                    "{} already holds a run: continue it with --resume {0}, or pick another --run-dir",
                    run.display()
                )));
            }
            std::fs::create_dir_all(checkpoint::pool_dir(&run)).map_err(setup(&run.display().to_string()))?;
            std::fs::write(run.join("config.toml"), cfg.to_toml()).map_err(setup("writing config.toml"))?;
            if let Some(path) = init_from {
                crate::model::init_weights_from(&mut learner.net, path).map_err(checkpoint::RunCheckpointError::from)?;
            }
            checkpoint::Meta {
                format: checkpoint::META_FORMAT,
                step: 0,
                frames: 0,
                games: 0,
                elapsed_seconds: 0.0,
                next_game_index: 0,
                pool_steps: vec![],
                model: cfg.model.clone(),
            }
        }
    };
    let (mut step, mut frames, mut games) = (meta.step, meta.frames, meta.games);
    if pool.is_empty() {
        crate::model::save_weights_file(&learner.net, &checkpoint::pool_file(&run, step)).map_err(checkpoint::RunCheckpointError::from)?;
        pool.add(PoolEntry { step, frames, weights: Arc::new(learner.net.export(step)) });
    }

    let shared = Arc::new(Shared {
        weights: Mutex::new(Arc::new(learner.net.export(step))),
        version: AtomicU64::new(step),
        pool: RwLock::new(pool),
        stop: AtomicBool::new(false),
        next_game: AtomicU64::new(meta.next_game_index),
        frames: AtomicU64::new(frames),
    });
    let (tx, rx) = crossbeam_channel::bounded::<GameMsg>(cfg.learner.queue_games);
    let cfg = Arc::new(cfg);
    let actors: Vec<_> = (0..cfg.actor_count())
        .map(|i| {
            let (cfg, shared, tx) = (cfg.clone(), shared.clone(), tx.clone());
            std::thread::Builder::new()
                .name(format!("actor-{i}"))
                .spawn(move || actor::run_actor(i, &cfg, shared, tx))
                .expect("spawning an actor thread")
        })
        .collect();
    drop(tx);

    install_interrupt_handler();
    INTERRUPTED.store(false, Ordering::SeqCst);
    let mut monitor = Monitor::new(&run, &cfg.log, &cfg.budget, quiet);
    let session = Instant::now();
    let (start_frames, start_games) = (frames, games);
    let mut last_checkpoint = Instant::now();
    let mut last_snapshot = Instant::now();
    let mut buffer: Vec<Frame> = Vec::new();
    let mut last = StepStats::default();
    let mut losses: Vec<f32> = Vec::new();
    let mut evaluator: Option<std::thread::JoinHandle<()>> = None;
    let mut rate_clock = (Instant::now(), frames, games);
    let budget = &cfg.budget;
    let stopped_by;
    loop {
        let mut handle = |msg: GameMsg, buffer: &mut Vec<Frame>, games: &mut u64| {
            *games += 1;
            monitor.record_game(msg.learning, msg.vs_rule, msg.landlord_won);
            buffer.extend(msg.frames);
        };
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(msg) => handle(msg, &mut buffer, &mut games),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                stopped_by = "actors stopped".to_string();
                break;
            }
        }
        while let Ok(msg) = rx.try_recv() {
            handle(msg, &mut buffer, &mut games);
        }
        let batch = cfg.learner.batch_size;
        let mut consumed = 0;
        while buffer.len() - consumed >= batch {
            if cfg.learner.lr_decay_frames > 0 {
                learner.set_lr(cfg.learner.lr_at(frames));
            }
            last = learner.step(&buffer[consumed..consumed + batch]);
            losses.push(last.loss as f32);
            consumed += batch;
            step += 1;
            frames += batch as u64;
            shared.frames.store(frames, Ordering::Relaxed);
            if step % cfg.learner.publish_every_steps.max(1) == 0 {
                shared.publish(learner.net.export(step));
            }
            let snapshot_due = (cfg.pool.snapshot_every_steps > 0 && step % cfg.pool.snapshot_every_steps == 0)
                || (cfg.pool.snapshot_every_minutes > 0.0 && last_snapshot.elapsed().as_secs_f64() >= 60.0 * cfg.pool.snapshot_every_minutes);
            if snapshot_due {
                crate::model::save_weights_file(&learner.net, &checkpoint::pool_file(&run, step)).map_err(checkpoint::RunCheckpointError::from)?;
                let dropped = shared.pool.write().unwrap().add(PoolEntry { step, frames, weights: Arc::new(learner.net.export(step)) });
                if let Some(d) = dropped {
                    let _ = std::fs::remove_file(checkpoint::pool_file(&run, d.step));
                }
                last_snapshot = Instant::now();
            }
            if step % cfg.log.every_steps.max(1) == 0 {
                let (t0, f0, g0) = rate_clock;
                let dt = t0.elapsed().as_secs_f64().max(1e-9);
                let (frame_rate, game_rate) = ((frames - f0) as f64 / dt, (games - g0) as f64 / dt);
                rate_clock = (Instant::now(), frames, games);
                let pool_len = shared.pool.read().unwrap().len();
                monitor.scalars(step, &last, frame_rate, game_rate, rx.len(), pool_len, frames);
            }
        }
        buffer.drain(..consumed);

        let seconds = session.elapsed().as_secs_f64();
        monitor.progress(seconds, frames, games);
        let reason = if INTERRUPTED.load(Ordering::SeqCst) {
            Some("interrupted (Ctrl-C)")
        } else if budget.max_frames > 0 && frames >= budget.max_frames {
            Some("max_frames")
        } else if budget.max_games > 0 && games >= budget.max_games {
            Some("max_games")
        } else if budget.max_seconds > 0.0 && seconds >= budget.max_seconds {
            Some("max_seconds")
        } else {
            None
        };
        if let Some(r) = reason {
            stopped_by = r.to_string();
            break;
        }
        if cfg.checkpoint.every_minutes > 0.0 && last_checkpoint.elapsed().as_secs_f64() >= 60.0 * cfg.checkpoint.every_minutes {
            let meta = make_meta(&cfg, &shared, step, frames, games, meta.elapsed_seconds + seconds);
            checkpoint::save(&run, &learner.net, &meta, cfg.checkpoint.keep_last)?;
            monitor.flush();
            last_checkpoint = Instant::now();
            if cfg.eval.deals > 0 && evaluator.as_ref().is_none_or(|h| h.is_finished()) {
                let (run, n) = (run.clone(), cfg.eval.deals);
                evaluator = Some(std::thread::spawn(move || {
                    let deals: Vec<_> = crate::eval::default_deals().into_iter().take(n).collect();
                    if let Err(e) = crate::eval::curve::evaluate_run(&run, &deals, &[], 1, |_| {}) {
                        eprintln!("evaluation during training: {e}");
                    }
                }));
            }
        }
    }

    // Stop the actors: they exit at their next step, or when a send finds the channel closed.
    shared.stop.store(true, Ordering::SeqCst);
    drop(rx);
    let mut failure = None;
    for a in actors {
        if let Err(panic) = a.join() {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            failure = Some(why);
        }
    }
    if let Some(e) = evaluator {
        let _ = e.join();
    }
    let seconds = session.elapsed().as_secs_f64();
    let meta = make_meta(&cfg, &shared, step, frames, games, meta.elapsed_seconds + seconds);
    let saved = checkpoint::save(&run, &learner.net, &meta, cfg.checkpoint.keep_last)?;
    monitor.finish();
    if let Some(why) = failure {
        return Err(TrainError::Actor(why));
    }
    let (wl, wf) = monitor.win_rates();
    let (rl, rf) = monitor.rule_win_rates();
    Ok(TrainSummary {
        run_dir: run,
        checkpoint: saved,
        steps: step,
        frames,
        games,
        seconds,
        frames_per_s: (frames - start_frames) as f64 / seconds.max(1e-9),
        games_per_s: (games - start_games) as f64 / seconds.max(1e-9),
        last_loss: last.loss,
        early_loss: mean_of(&losses[..losses.len().div_ceil(10)]),
        late_loss: mean_of(&losses[losses.len() - losses.len().div_ceil(10)..]),
        stopped_by,
        win_rate_vs_pool_landlord: wl,
        win_rate_vs_pool_farmers: wf,
        win_rate_vs_rule_landlord: rl,
        win_rate_vs_rule_farmers: rf,
    })
}

fn mean_of(v: &[f32]) -> f64 {
    if v.is_empty() { f64::NAN } else { v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64 }
}

fn make_meta(cfg: &TrainConfig, shared: &Shared, step: u64, frames: u64, games: u64, elapsed: f64) -> checkpoint::Meta {
    checkpoint::Meta {
        format: checkpoint::META_FORMAT,
        step,
        frames,
        games,
        elapsed_seconds: elapsed,
        next_game_index: shared.next_game.load(Ordering::SeqCst),
        pool_steps: shared.pool.read().unwrap().entries().iter().map(|e| e.step).collect(),
        model: cfg.model.clone(),
    }
}

/// The run folder's config, for `--resume`.
pub fn load_run_config(run: &Path) -> Result<TrainConfig, TrainError> {
    let path = run.join("config.toml");
    let mut cfg = TrainConfig::load(&path).map_err(|e| TrainError::Setup(e.to_string()))?;
    cfg.run.dir = run.to_path_buf();
    Ok(cfg)
}
