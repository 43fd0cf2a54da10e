//! `ddz bench train --distributed`: the learner fed by an actor process over Redis against the
//! same number of actor threads in the learner's process, run after run in the same session;
//! then Redis's memory with the stream at its cap.

use super::{BenchError, TrainBenchError, median};
use crate::train::config::TrainConfig;
use crate::train::{Start, Trainer};
use serde::Serialize;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The distributed bench's result: the learner's frames/s with actors in process and over
/// Redis, Redis's memory with the stream at its cap, and what one core does alone.
#[derive(Debug, Clone, Serialize)]
pub struct DistributedReport {
    /// Actor threads in each run, in process and in the actor process alike.
    pub actor_threads: usize,
    /// Each run's time budget, in seconds.
    pub seconds_per_run: f64,
    /// The learner's frames/s with its actors in process, per run.
    pub in_process_frames_per_s: Vec<f64>,
    /// The learner's frames/s fed by the actor process over Redis, per run.
    pub distributed_frames_per_s: Vec<f64>,
    /// The median of the in-process runs.
    pub in_process_median: f64,
    /// The median of the runs over Redis.
    pub distributed_median: f64,
    /// median(distributed ÷ in-process) over the runs.
    pub ratio_median: f64,
    /// Stream entry bytes over frames, as the learner read them (median of the runs).
    pub bytes_per_frame: f64,
    /// Finished games the stream holds at most (`broker.stream_cap`).
    pub stream_cap: u64,
    /// Redis's `used_memory` before the fill, and at its most with the stream at the cap.
    pub redis_memory_empty_bytes: u64,
    /// Redis's `used_memory` at its most while the stream filled to the cap, in bytes.
    pub redis_memory_at_cap_bytes: u64,
    /// The stream's length (games) when Redis's memory was at its most.
    pub stream_len_at_cap: u64,
    /// The Redis URL the bench used: `--broker`'s, or that of the redis-server it started.
    pub redis: String,
    /// What one core does alone.
    pub alone: Capacities,
}

/// What one core does alone, for sizing a cluster on paper: an actor thread's frames/s with
/// nothing to wait for, the learner's frames/s on frames ready in memory (its device, one
/// libtorch thread on CPU) and its cost of decoding a frame off the wire.
#[derive(Debug, Clone, Serialize)]
pub struct Capacities {
    /// One actor thread's frames/s, with nothing to wait for.
    pub actor_frames_per_s_per_thread: f64,
    /// The learner's frames/s on frames ready in memory.
    pub learner_frames_per_s: f64,
    /// Nanoseconds to decode a frame of the `bits` wire layout.
    pub decode_ns_per_frame: f64,
    /// learner ÷ actor: the actor threads (cores) one learner keeps up with.
    pub actor_threads_per_learner: f64,
}

/// A redis-server the bench started on a free loopback port; stopped when dropped.
struct OwnRedis(Child);

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_redis() -> Result<(OwnRedis, String), TrainBenchError> {
    let missing = |e: std::io::Error| {
        TrainBenchError::Redis(format!(
            "cannot start redis-server ({e}): install it (scripts/redis.sh --install) or pass --broker URL"
        ))
    };
    let port = TcpListener::bind("127.0.0.1:0").map_err(missing)?.local_addr().map_err(missing)?.port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .spawn()
        .map_err(missing)?;
    let url = format!("redis://127.0.0.1:{port}/");
    let own = OwnRedis(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while connect(&url).is_err() {
        if Instant::now() > deadline {
            return Err(TrainBenchError::Redis(format!("redis-server on port {port} did not answer")));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((own, url))
}

fn connect(url: &str) -> redis::RedisResult<redis::Connection> {
    redis::Client::open(url)?.get_connection_with_timeout(Duration::from_secs(2))
}

/// Redis's `used_memory`.
fn used_memory(con: &mut redis::Connection) -> u64 {
    let info: String = redis::cmd("INFO").arg("memory").query(con).unwrap_or_default();
    info.lines().find_map(|l| l.strip_prefix("used_memory:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

/// Runs `runs` pairs of `seconds` each: `threads` actor threads in process, then an actor
/// process with `threads` threads over Redis (`broker`, or a redis-server of our own); `exe` is
/// the ddz binary that runs the actor process.
pub fn bench_distributed(
    base: &TrainConfig,
    seconds: f64,
    runs: usize,
    broker: Option<&str>,
    exe: &Path,
    mut progress: impl FnMut(usize, &str, f64),
) -> Result<DistributedReport, TrainBenchError> {
    if seconds.is_nan() || seconds <= 0.0 || runs == 0 {
        return Err(BenchError::Budget.into());
    }
    let (_own, url) = match broker {
        Some(url) => (None, url.to_string()),
        None => start_redis().map(|(own, url)| (Some(own), url))?,
    };
    let scratch = std::env::temp_dir().join(format!("ddz-bench-dist-{}", std::process::id()));
    let threads = base.actor_count();
    let mut cfg = base.clone();
    cfg.actors.count = threads;
    cfg.budget = Default::default();
    cfg.budget.max_seconds = seconds;
    cfg.log.tensorboard = false;
    let (mut local, mut remote, mut bytes) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        cfg.run.dir = scratch.join(format!("local{i}"));
        local.push(crate::train::train(cfg.clone(), Start::Fresh { init_from: None }, true)?.frames_per_s);
        progress(i + 1, "in process", local[i]);
        cfg.run.dir = scratch.join(format!("remote{i}"));
        let (rate, per_frame) = remote_run(&cfg, &url, &format!("bench-{}-{i}", std::process::id()), exe, None)?;
        remote.push(rate);
        bytes.push(per_frame);
        progress(i + 1, "over Redis", rate);
    }
    let (empty, at_cap, len) = fill(&cfg, &url, &scratch, exe)?;
    let alone = capacities(&cfg, seconds)?;
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(DistributedReport {
        actor_threads: threads,
        seconds_per_run: seconds,
        in_process_median: median(local.clone()),
        distributed_median: median(remote.clone()),
        ratio_median: median(remote.iter().zip(&local).map(|(r, l)| r / l).collect()),
        in_process_frames_per_s: local,
        distributed_frames_per_s: remote,
        bytes_per_frame: median(bytes),
        stream_cap: cfg.broker.stream_cap,
        redis_memory_empty_bytes: empty,
        redis_memory_at_cap_bytes: at_cap,
        stream_len_at_cap: len,
        redis: url,
        alone,
    })
}

/// One actor thread alone for `seconds`, then the learner alone on its frames.
fn capacities(cfg: &TrainConfig, seconds: f64) -> Result<Capacities, TrainBenchError> {
    use crate::train::actor::{Actor, Shared};
    use crate::train::pool::{Pool, PoolEntry};
    let net = crate::model::QNet::cpu(&cfg.model, cfg.run.seed);
    let mut pool = Pool::new(1);
    pool.add(PoolEntry { step: 0, frames: 0, weights: Arc::new(net.export(0)) });
    let bid = cfg.game.bidding.then(|| crate::model::bidnet::BidNet::cpu(cfg.run.seed).export(0));
    let shared = Arc::new(Shared::new(net.export(0), bid, pool, 0, 0));
    crate::runtime::configure_threads(1);
    let mut actor = Actor::new(0, Arc::new(cfg.clone()), shared);
    let (t, mut games) = (Instant::now(), Vec::new());
    while t.elapsed().as_secs_f64() < seconds {
        actor.sync_weights();
        actor.refill();
        actor.decide();
        games.extend(actor.advance());
    }
    let frames: Vec<_> = games.iter().flat_map(|g| g.frames.iter().cloned()).collect();
    let actor_rate = frames.len() as f64 / t.elapsed().as_secs_f64();
    let encoded: Vec<Vec<u8>> = games
        .iter()
        .map(|g| {
            let mut b = Vec::new();
            crate::train::wire::encode(g, crate::train::wire::Layout::Bits, &mut b);
            b
        })
        .collect();
    let t = Instant::now();
    encoded.iter().for_each(|b| drop(crate::train::wire::decode(b).expect("our own bytes")));
    let decode = t.elapsed().as_nanos() as f64 / frames.len().max(1) as f64;
    let learner_rate = learner_alone(cfg, &frames, seconds)?;
    Ok(Capacities {
        actor_frames_per_s_per_thread: actor_rate,
        learner_frames_per_s: learner_rate,
        decode_ns_per_frame: decode,
        actor_threads_per_learner: learner_rate / actor_rate.max(1e-9),
    })
}

/// The learner's frames/s on `frames`, batch after batch for `seconds`.
fn learner_alone(cfg: &TrainConfig, frames: &[crate::model::Frame], seconds: f64) -> Result<f64, TrainBenchError> {
    let batch = cfg.learner.batch_size;
    if frames.len() < batch {
        return Err(TrainBenchError::Redis(format!("the actor made {} frames, less than a batch", frames.len())));
    }
    let mut learner =
        crate::model::Learner::new(&cfg.model, cfg.learner.settings(&cfg.auxiliary), cfg.run.device, cfg.run.seed)
            .map_err(crate::train::TrainError::from)?;
    let (t, mut learned, mut at) = (Instant::now(), 0usize, 0usize);
    while t.elapsed().as_secs_f64() < seconds {
        if at + batch > frames.len() {
            at = 0;
        }
        learner.step(&frames[at..at + batch]).map_err(crate::train::TrainError::from)?;
        at += batch;
        learned += batch;
    }
    Ok(learned as f64 / t.elapsed().as_secs_f64())
}

/// One learner over Redis with an actor process started first; frames/s and bytes per frame.
/// `watch`, when given, runs beside the learner until it finishes.
fn remote_run(
    cfg: &TrainConfig,
    url: &str,
    run: &str,
    exe: &Path,
    watch: Option<&(dyn Fn(&AtomicBool) + Sync)>,
) -> Result<(f64, f64), TrainBenchError> {
    let threads = cfg.actors.count.to_string();
    let mut actor = Command::new(exe)
        .args(["actor", "--broker", url, "--run", run, "--threads", &threads, "--quiet", "--wait-seconds", "60"])
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| TrainBenchError::Redis(format!("cannot start the actor process {}: {e}", exe.display())))?;
    let trainer = Trainer::new(cfg.clone(), Start::Fresh { init_from: None }, true)?.with_broker(url, run, 0)?;
    let stats = trainer.wire_stats().expect("a broker");
    let done = Arc::new(AtomicBool::new(false));
    let summary = std::thread::scope(|s| {
        if let Some(w) = watch {
            let done = done.clone();
            s.spawn(move || w(&done));
        }
        let summary = trainer.run();
        done.store(true, Ordering::SeqCst);
        summary
    })?;
    let _ = actor.wait(); // it stops when the learner finishes
    forget(url, run);
    Ok((summary.frames_per_s, stats.bytes_per_frame()))
}

/// Deletes a bench run's keys, so runs leave nothing behind in a Redis the user gave.
fn forget(url: &str, run: &str) {
    let Ok(mut con) = connect(url) else { return };
    let keys: Vec<String> = redis::cmd("KEYS").arg(format!("ddz:{run}:*")).query(&mut con).unwrap_or_default();
    if !keys.is_empty() {
        let _ = redis::cmd("DEL").arg(&keys).query::<()>(&mut con);
    }
}

/// A learner that never learns (its batch never fills), so the stream fills to the cap; Redis's
/// memory before and at its most, and the stream's length then.
fn fill(cfg: &TrainConfig, url: &str, scratch: &Path, exe: &Path) -> Result<(u64, u64, u64), TrainBenchError> {
    let mut cfg = cfg.clone();
    cfg.run.dir = PathBuf::from(scratch).join("fill");
    cfg.learner.batch_size = usize::MAX / 2;
    let mut con = connect(url).map_err(|e| TrainBenchError::Redis(e.to_string()))?;
    let empty = used_memory(&mut con);
    let run = format!("bench-{}-fill", std::process::id());
    let games = format!("ddz:{run}:games");
    // Only whole pairs are stored, so a poisoned lock still holds a valid peak.
    let peak = std::sync::Mutex::new((0u64, 0u64));
    let watch = |done: &AtomicBool| {
        let Ok(mut con) = connect(url) else { return };
        while !done.load(Ordering::SeqCst) {
            let len: u64 = redis::cmd("XLEN").arg(&games).query(&mut con).unwrap_or(0);
            let mem = used_memory(&mut con);
            let mut p = peak.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if mem > p.0 {
                *p = (mem, len);
            }
            drop(p);
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    remote_run(&cfg, url, &run, exe, Some(&watch))?; // deletes the stream afterwards
    let (at_cap, len) = *peak.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok((empty, at_cap, len))
}
