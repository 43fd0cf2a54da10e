//! `ddz actor`: actor threads in their own process, fed weights and pool from Redis, their
//! finished games appended to the run's stream. They play exactly as the learner's in-process
//! actors do ([`Actor`]); only the way games and weights travel differs.

use super::{BrokerError, FIELD, Keys, Link, RunMeta, WireStats};
use crate::model::{Weights, weights_from_bytes};
use crate::train::actor::{Actor, GameMsg, Shared};
use crate::train::config::TrainConfig;
use crate::train::pool::{Pool, PoolEntry};
use crate::train::wire::{self, Layout};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Game indices of actor process n start at n << 40, so no two processes deal the same games
/// and none deals the learner's own actors' (which count from 0).
const INDEX_SHIFT: u32 = 40;

/// What `ddz actor` is told: where the run is and how to play for it.
pub struct ActorOptions {
    /// The Redis URL.
    pub url: String,
    /// The run's name in Redis (its keys' prefix).
    pub run: String,
    /// Actor threads; 0 = one per core.
    pub threads: usize,
    /// A config the learner's must match (the sections that shape play).
    pub check: Option<TrainConfig>,
    /// How long to wait for the run's learner; 0 = no bound.
    pub wait_seconds: f64,
    /// No progress line on stderr.
    pub quiet: bool,
}

/// What an actor process did, once it stopped.
#[derive(Debug, Clone, Serialize)]
pub struct ActorReport {
    /// Finished games sent.
    pub games: u64,
    /// Frames (decisions) in those games.
    pub frames: u64,
    /// Bytes of their stream entries.
    pub bytes: u64,
    /// Wall time from the actors' start, in seconds.
    pub seconds: f64,
    /// Seconds spent waiting for room in the stream (the learner behind).
    pub waited_seconds: f64,
    /// Weights versions taken in.
    pub versions: u64,
    /// Published weights and pool snapshots refused because they do not fit the run's network
    /// (the actors kept what they had).
    pub refused: u64,
    /// Why it stopped: `the learner finished` or `interrupted`.
    pub stopped_by: String,
}

/// Plays for run `options.run` until its learner finishes or Ctrl-C.
pub fn run_actors(options: &ActorOptions) -> Result<ActorReport, BrokerError> {
    crate::process::stop_cleanly_on_signals("after sending the finished games");
    let keys = Keys::new(&options.run)?;
    let mut remote = Remote::connect(options, keys)?;
    let threads = if options.threads > 0 {
        options.threads
    } else {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    };
    let (tx, rx) = crossbeam_channel::bounded::<GameMsg>(threads * 4);
    let mut actors: Vec<_> = (0..threads)
        .map(|i| {
            let curator = crate::train::curation::Curator::load(&remote.cfg.curation)?;
            let actor = Actor::new(i, remote.cfg.clone(), remote.shared.clone()).with_curator(curator);
            let tx = tx.clone();
            let name = format!("actor-{i}");
            std::thread::Builder::new()
                .name(name.clone())
                .spawn(move || actor.run(tx))
                .map_err(|source| BrokerError::Thread { name, source })
        })
        .collect::<Result<_, _>>()?;
    drop(tx);
    let bar = if options.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new_spinner() };
    bar.enable_steady_tick(Duration::from_millis(500));
    let started = Instant::now();
    let stopped_by = loop {
        if crate::process::interrupted() {
            break "interrupted".to_string();
        }
        if let Some(died) = ended_actor(&mut actors) {
            remote.shared.stop.store(true, Ordering::SeqCst);
            return Err(died);
        }
        let mut games: Vec<GameMsg> = rx.recv_timeout(Duration::from_millis(100)).into_iter().collect();
        games.extend(rx.try_iter().take(63));
        let sent = remote.send(&games);
        let synced = sent.and_then(|()| remote.sync());
        match synced {
            Ok(true) => break "the learner finished".to_string(),
            Ok(false) => {}
            Err(BrokerError::Stopped) => break "interrupted".to_string(),
            Err(e) => {
                remote.shared.stop.store(true, Ordering::SeqCst);
                return Err(e);
            }
        }
        let s = &remote.stats;
        bar.set_message(format!(
            "{} games, {} frames sent | weights v{} | waited {:.0} s for room",
            s.games.load(Ordering::Relaxed),
            s.frames.load(Ordering::Relaxed),
            remote.version,
            remote.waited
        ));
    };
    remote.shared.stop.store(true, Ordering::SeqCst);
    drop(rx);
    for a in actors {
        let _ = a.join();
    }
    bar.finish_and_clear();
    let s = &remote.stats;
    Ok(ActorReport {
        games: s.games.load(Ordering::Relaxed),
        frames: s.frames.load(Ordering::Relaxed),
        bytes: s.bytes.load(Ordering::Relaxed),
        seconds: started.elapsed().as_secs_f64(),
        waited_seconds: remote.waited,
        versions: remote.versions,
        refused: remote.refused,
        stopped_by,
    })
}

/// A thread that ended while the process goes on is a fault: the error that says so, so that
/// the process exits non-zero instead of going on with fewer actors (or none, spinning on a
/// closed channel).
fn ended_actor(actors: &mut Vec<std::thread::JoinHandle<()>>) -> Option<BrokerError> {
    let i = actors.iter().position(|a| a.is_finished())?;
    let why = match actors.remove(i).join() {
        Err(panic) => crate::train::panic_message(&*panic),
        Ok(()) => "it stopped".to_string(),
    };
    Some(BrokerError::ActorDied { name: format!("actor-{i}"), why })
}

/// The actor process's view of the run in Redis.
struct Remote {
    link: Link,
    keys: Keys,
    cfg: Arc<TrainConfig>,
    shared: Arc<Shared>,
    version: u64,
    versions: u64,
    /// What the run's networks export: published weights must fit it ([`Weights::fits`]).
    template: Weights,
    bid_template: Option<Weights>,
    refused: u64,
    /// The newest published version refused, so that the same bytes are refused once.
    refused_version: Option<u64>,
    /// Pool snapshots refused: not fetched again.
    refused_steps: std::collections::BTreeSet<u64>,
    pool_list: String,
    pool_cache: BTreeMap<u64, Arc<Weights>>,
    /// The stream's length after our last append.
    stream_len: u64,
    waited: f64,
    last_sync: Instant,
    /// The learner has finished the run.
    finished: bool,
    stats: WireStats,
    scratch: Vec<u8>,
}

impl Remote {
    fn connect(options: &ActorOptions, keys: Keys) -> Result<Remote, BrokerError> {
        let mut link = Link::open(&options.url, "ddz actor")?;
        let idle = AtomicBool::new(false);
        let meta = wait_for_meta(&mut link, &keys, options.wait_seconds, &idle)?;
        let cfg = check_meta(&meta, options.check.as_ref(), keys.run())?;
        let status: Option<String> =
            link.call(&idle, |c| redis::cmd("GET").arg(keys.status()).query(c)).map_err(|e| link.error(e))?;
        if status.as_deref() == Some("finished") {
            return Err(BrokerError::Finished { run: keys.run().into() });
        }
        let number: u64 =
            link.call(&idle, |c| redis::cmd("INCR").arg(keys.actor_ids()).query(c)).map_err(|e| link.error(e))?;
        // No weights yet: the actors start once the first are in (below).
        let none = Weights { version: u64::MAX, tensors: vec![] };
        let shared = Arc::new(Shared::new(none, None, Pool::new(cfg.pool.size), number << INDEX_SHIFT, 0));
        let template = crate::model::QNet::cpu(&cfg.model, 0).export(0);
        let bid_template = cfg.game.bidding.then(|| crate::model::bidnet::BidNet::cpu(0).export(0));
        let mut remote = Remote {
            link,
            keys,
            cfg: Arc::new(cfg),
            shared,
            version: u64::MAX,
            versions: 0,
            template,
            bid_template,
            refused: 0,
            refused_version: None,
            refused_steps: Default::default(),
            pool_list: String::new(),
            pool_cache: BTreeMap::new(),
            stream_len: 0,
            waited: 0.0,
            last_sync: Instant::now(),
            finished: false,
            stats: WireStats::default(),
            scratch: Vec::new(),
        };
        // Actors start only with weights and a pool to draw from.
        while remote.version == u64::MAX || remote.shared.pool().is_empty() {
            if remote.pull()? {
                return Err(BrokerError::Finished { run: remote.keys.run().into() });
            }
            if crate::process::interrupted() {
                return Err(BrokerError::Stopped);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(remote)
    }

    /// Appends finished games to the stream, waiting while it is full: each append fills at most
    /// the room left, so one process never takes the stream past its cap.
    fn send(&mut self, games: &[GameMsg]) -> Result<(), BrokerError> {
        let cap = self.cfg.broker.stream_cap;
        let mut rest = games;
        while !rest.is_empty() {
            let waiting = Instant::now();
            while self.stream_len >= cap {
                if crate::process::interrupted() {
                    return Err(BrokerError::Stopped);
                }
                std::thread::sleep(Duration::from_millis(20));
                let key = self.keys.games();
                self.stream_len = self.call(|c| redis::cmd("XLEN").arg(&key).query(c))?;
                if self.sync()? {
                    return Ok(()); // the learner finished: these games have no reader
                }
            }
            self.waited += waiting.elapsed().as_secs_f64();
            let room = ((cap - self.stream_len) as usize).min(rest.len());
            self.append(&rest[..room])?;
            rest = &rest[room..];
        }
        Ok(())
    }

    fn append(&mut self, games: &[GameMsg]) -> Result<(), BrokerError> {
        let mut pipe = redis::pipe();
        let (mut frames, mut bytes) = (0, 0);
        for g in games {
            self.scratch.clear();
            wire::encode(g, Layout::Bits, &mut self.scratch);
            pipe.cmd("XADD").arg(self.keys.games()).arg("*").arg(FIELD).arg(self.scratch.as_slice()).ignore();
            frames += g.frames.len() as u64;
            bytes += self.scratch.len() as u64;
        }
        pipe.cmd("XLEN").arg(self.keys.games());
        let (len,): (u64,) = self.call(|c| pipe.query(c))?;
        self.stream_len = len;
        self.stats.add(games.len() as u64, frames, bytes);
        Ok(())
    }

    /// Takes new weights, pool and frame count in, at most every 250 ms; true when the learner
    /// has finished.
    fn sync(&mut self) -> Result<bool, BrokerError> {
        if self.finished || self.last_sync.elapsed() < Duration::from_millis(250) {
            return Ok(self.finished);
        }
        self.last_sync = Instant::now();
        self.pull()
    }

    fn pull(&mut self) -> Result<bool, BrokerError> {
        let k = self.keys.clone();
        let (version, status, frames, pool): (Option<u64>, Option<String>, Option<u64>, Option<String>) =
            self.call(|c| redis::cmd("MGET").arg(k.version()).arg(k.status()).arg(k.frames()).arg(k.pool()).query(c))?;
        if status.as_deref() == Some("finished") {
            self.finished = true;
            return Ok(true);
        }
        if let Some(f) = frames {
            self.shared.frames.store(f, Ordering::Relaxed);
        }
        if let Some(v) = version.filter(|v| *v != self.version && Some(*v) != self.refused_version) {
            self.pull_weights(v)?;
        }
        if let Some(list) = pool.filter(|p| *p != self.pool_list) {
            self.pull_pool(&list)?;
        }
        Ok(false)
    }

    /// The newest weights, with the bidding network's when games start with bids.
    fn pull_weights(&mut self, version: u64) -> Result<(), BrokerError> {
        let k = self.keys.clone();
        let (play, bid): (Option<Vec<u8>>, Option<Vec<u8>>) =
            self.call(|c| redis::cmd("MGET").arg(k.weights()).arg(k.bid_weights()).query(c))?;
        let Some(play) = play else { return Ok(()) };
        let bidding = self.cfg.game.bidding;
        let loaded = weights_from_bytes(&play).map_err(|e| e.to_string()).and_then(|w| {
            w.fits(&self.template).map_err(|why| why.to_string())?;
            match (bidding, bid, &self.bid_template) {
                (false, _, _) => Ok((w, None)),
                (true, Some(b), Some(like)) => {
                    let b = weights_from_bytes(&b).map_err(|e| e.to_string())?;
                    b.fits(like).map_err(|why| format!("bidding network: {why}"))?;
                    Ok((w, Some(b)))
                }
                (true, _, _) => Err("no bidding weights beside them".to_string()),
            }
        });
        match loaded {
            Ok((w, bid)) => {
                self.version = version;
                self.versions += 1;
                self.shared.publish(w, bid);
            }
            Err(why) => {
                // The actors keep what they have (before the first weights that fit, they wait).
                self.refused_version = Some(version);
                self.refused += 1;
                eprintln!("ddz actor: refused the published weights (version {version}): {why}");
            }
        }
        Ok(())
    }

    /// Rebuilds the pool from the learner's list; tries again next time when a snapshot is
    /// missing (the learner dropped it meanwhile).
    fn pull_pool(&mut self, list: &str) -> Result<(), BrokerError> {
        let Ok(steps) = serde_json::from_str::<Vec<u64>>(list) else {
            eprintln!("ddz actor: the pool list {list:?} is not a list of steps");
            return Ok(());
        };
        for &step in &steps {
            if self.pool_cache.contains_key(&step) || self.refused_steps.contains(&step) {
                continue;
            }
            let key = self.keys.pool_entry(step);
            let bytes: Option<Vec<u8>> = self.call(|c| redis::cmd("GET").arg(&key).query(c))?;
            let loaded = bytes.map(|b| {
                weights_from_bytes(&b)
                    .map_err(|e| e.to_string())
                    .and_then(|w| w.fits(&self.template).map(|()| w).map_err(|why| why.to_string()))
            });
            match loaded {
                Some(Ok(w)) => {
                    self.pool_cache.insert(step, Arc::new(w));
                }
                Some(Err(why)) => {
                    self.refused += 1;
                    self.refused_steps.insert(step);
                    eprintln!("ddz actor: refused pool snapshot {step}: {why}");
                }
                None => return Ok(()),
            }
        }
        self.pool_cache.retain(|s, _| steps.contains(s));
        let mut pool = Pool::new(steps.len().max(1));
        for (&step, w) in &self.pool_cache {
            pool.add(PoolEntry { step, frames: 0, weights: w.clone() });
        }
        if !pool.is_empty() {
            *self.shared.pool_mut() = pool;
            self.pool_list = list.to_string();
        }
        Ok(())
    }

    fn call<T>(&mut self, f: impl FnMut(&mut redis::Connection) -> redis::RedisResult<T>) -> Result<T, BrokerError> {
        let stop = AtomicBool::new(crate::process::interrupted());
        self.link.call(&stop, f).map_err(|e| self.link.error(e))
    }
}

/// The run's meta, waiting up to `seconds` (0: no bound) for a learner to publish it.
fn wait_for_meta(link: &mut Link, keys: &Keys, seconds: f64, idle: &AtomicBool) -> Result<RunMeta, BrokerError> {
    let start = Instant::now();
    let mut said = false;
    loop {
        let text: Option<String> =
            link.call(idle, |c| redis::cmd("GET").arg(keys.meta()).query(c)).map_err(|e| link.error(e))?;
        if let Some(text) = text {
            return serde_json::from_str(&text).map_err(|e| BrokerError::Mismatch {
                run: keys.run().into(),
                reason: format!("the learner's meta does not parse here ({e}): is it another ddz version?"),
            });
        }
        if seconds > 0.0 && start.elapsed().as_secs_f64() >= seconds {
            return Err(BrokerError::NoRun { run: keys.run().into(), url: link.shown().into(), seconds });
        }
        if crate::process::interrupted() {
            return Err(BrokerError::Stopped);
        }
        if !said {
            eprintln!("ddz actor: waiting for run {}'s learner at {}", keys.run(), link.shown());
            said = true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The learner's config, when this actor can play it; `check`, when given, must agree with it
/// on every section that shapes play.
fn check_meta(meta: &RunMeta, check: Option<&TrainConfig>, run: &str) -> Result<TrainConfig, BrokerError> {
    let mismatch = |reason: String| BrokerError::Mismatch { run: run.into(), reason };
    if let Some(why) = RunMeta::ours("", String::new()).incompatible(meta) {
        return Err(mismatch(why));
    }
    let cfg = TrainConfig::parse(&meta.config, Path::new("the learner's config (in Redis)"))
        .map_err(|e| mismatch(e.to_string()))?;
    if let Some(mine) = check {
        let differ: Vec<&str> = [
            ("model", mine.model != cfg.model),
            ("reward", mine.reward != cfg.reward),
            ("pool", mine.pool != cfg.pool),
            ("actors", !same_but_count(mine, &cfg)),
            ("broker", mine.broker != cfg.broker),
            ("game", mine.game != cfg.game),
            ("run.seed", mine.run.seed != cfg.run.seed),
        ]
        .into_iter()
        .filter_map(|(name, differs)| differs.then_some(name))
        .collect();
        if !differ.is_empty() {
            return Err(mismatch(format!(
                "the learner's config differs from --config in [{}]; actors play the learner's config: drop --config or \
                 start the learner with this one",
                differ.join("], [")
            )));
        }
    }
    Ok(cfg)
}

/// The actors sections agree but for the thread count (each process picks its own).
fn same_but_count(a: &TrainConfig, b: &TrainConfig) -> bool {
    let mut a = a.actors.clone();
    a.count = b.actors.count;
    a == b.actors
}
