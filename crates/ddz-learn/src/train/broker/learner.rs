//! The learner's side: the run's lease and meta, weights and pool out, finished games in.

use super::{BrokerError, GROUP, Keys, Link, RunMeta, WireStats, stream_entries};
use crate::model::{Weights, weights_to_bytes};
use crate::train::actor::GameMsg;
use crate::train::wire;
use crossbeam_channel::{SendTimeoutError, Sender};
use redis::Connection;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the learner's lease on a run name lasts without renewal.
const LEASE_MS: u64 = 6000;

/// XACK and XDEL of ARGV[2..] in the stream KEYS[1] (group ARGV[1]); KEYS[2] counts the entries
/// acknowledged, so it counts each game once even when an id is acknowledged twice.
const ACK_SCRIPT: &str = "local n = redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2)) \
    redis.call('XDEL', KEYS[1], unpack(ARGV, 2)) redis.call('INCRBY', KEYS[2], n) return n";

/// Published weights: version, the play network's and the bidding network's safetensors
/// bytes, frames learned.
type Published = (u64, Arc<Vec<u8>>, Option<Arc<Vec<u8>>>, u64);

/// A finished game read from the stream, with its entry id (acknowledged once it is learned).
pub type Arrival = (String, GameMsg);

/// The learner's connection to its run in Redis, holding the run name's lease.
pub struct LearnerLink {
    link: Link,
    keys: Keys,
    token: String,
    meta: RunMeta,
    /// What was last published, to publish again if Redis comes back empty.
    weights: Option<Published>,
    pool: BTreeMap<u64, Arc<Vec<u8>>>,
    last_beat: Instant,
    stop: Arc<AtomicBool>,
    /// What the stream reader has taken in so far.
    pub stats: Arc<WireStats>,
}

impl LearnerLink {
    /// Takes the run name's lease (on `--resume`, waiting out a killed learner's lease) and
    /// writes the run's meta. A fresh run refuses a name that already holds a run.
    pub fn connect(url: &str, run: &str, meta: RunMeta, resume: bool) -> Result<LearnerLink, BrokerError> {
        let keys = Keys::new(run)?;
        let link = Link::open(url, "ddz learner")?;
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let token = format!("{}:{}:{}", hostname(), std::process::id(), since.as_millis());
        let mut this = LearnerLink {
            link,
            keys,
            token,
            meta,
            weights: None,
            pool: BTreeMap::new(),
            last_beat: Instant::now(),
            stop: Arc::new(AtomicBool::new(false)),
            stats: Arc::new(WireStats::default()),
        };
        this.claim(resume)?;
        if let Err(e) = this.check_existing(resume) {
            let _ = this.release();
            return Err(e);
        }
        this.write_meta()?;
        Ok(this)
    }

    fn claim(&mut self, resume: bool) -> Result<(), BrokerError> {
        let (owner, token) = (self.keys.owner(), self.token.clone());
        let deadline = Instant::now() + Duration::from_millis(LEASE_MS + 2000);
        loop {
            let got: Option<String> = self
                .link
                .call(&self.stop, |c| {
                    redis::cmd("SET").arg(&owner).arg(&token).arg("NX").arg("PX").arg(LEASE_MS).query(c)
                })
                .map_err(|e| self.link.error(e))?;
            if got.is_some() {
                return Ok(());
            }
            let holder: Option<String> = self.query(|k, c| redis::cmd("GET").arg(k.owner()).query(c))?;
            if !resume || Instant::now() > deadline {
                return Err(BrokerError::RunInUse { run: self.keys.run().into(), owner: holder.unwrap_or_default() });
            }
            eprintln!("ddz learner: waiting for the lease of run {}'s previous learner to lapse", self.keys.run());
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// A fresh run may not take over a name that holds another run's games and weights.
    fn check_existing(&mut self, resume: bool) -> Result<(), BrokerError> {
        let stored: Option<String> = self.query(|k, c| redis::cmd("GET").arg(k.meta()).query(c))?;
        let Some(stored) = stored else { return Ok(()) };
        let dir = serde_json::from_str::<RunMeta>(&stored).map(|m| m.dir).unwrap_or_else(|_| "?".into());
        if resume && dir == self.meta.dir {
            return Ok(());
        }
        Err(BrokerError::RunExists { run: self.keys.run().into(), url: self.link.shown().into(), dir })
    }

    fn write_meta(&mut self) -> Result<(), BrokerError> {
        let meta = serde_json::to_string(&self.meta).expect("meta serializes");
        self.query(|k, c| {
            redis::pipe()
                .atomic()
                .cmd("SET")
                .arg(k.meta())
                .arg(&meta)
                .ignore()
                .cmd("SET")
                .arg(k.status())
                .arg("running")
                .ignore()
                .query::<()>(c)
        })
    }

    /// Runs one command through the link, as our error.
    fn query<T>(&mut self, f: impl Fn(&Keys, &mut Connection) -> redis::RedisResult<T>) -> Result<T, BrokerError> {
        let keys = self.keys.clone();
        self.link.call(&self.stop, |c| f(&keys, c)).map_err(|e| self.link.error(e))
    }

    /// Publishes the learner's weights, the bidding network's when there is one, and the
    /// frames learned, for the actors.
    pub fn publish_weights(
        &mut self,
        weights: &Weights,
        bid: Option<&Weights>,
        frames: u64,
    ) -> Result<(), BrokerError> {
        let bytes = Arc::new(weights_to_bytes(weights)?);
        let bid = bid.map(weights_to_bytes).transpose()?.map(Arc::new);
        self.weights = Some((weights.version, bytes, bid, frames));
        self.send_weights()
    }

    fn send_weights(&mut self) -> Result<(), BrokerError> {
        let Some((version, bytes, bid, frames)) = self.weights.clone() else { return Ok(()) };
        self.query(|k, c| {
            let mut p = redis::pipe();
            p.atomic();
            if let Some(bid) = &bid {
                p.cmd("SET").arg(k.bid_weights()).arg(bid.as_slice()).ignore();
            }
            p.cmd("SET")
                .arg(k.weights())
                .arg(bytes.as_slice())
                .ignore()
                .cmd("SET")
                .arg(k.version())
                .arg(version)
                .ignore()
                .cmd("SET")
                .arg(k.frames())
                .arg(frames)
                .ignore()
                .cmd("PUBLISH")
                .arg(k.published())
                .arg(version)
                .ignore()
                .query::<()>(c)
        })
    }

    /// Publishes the pool: new snapshots, then the list of steps, then drops the old ones.
    pub fn publish_pool(&mut self, pool: &[(u64, &Weights)]) -> Result<(), BrokerError> {
        let steps: Vec<u64> = pool.iter().map(|(s, _)| *s).collect();
        for (step, w) in pool {
            if !self.pool.contains_key(step) {
                self.pool.insert(*step, Arc::new(weights_to_bytes(w)?));
            }
        }
        let gone: Vec<u64> = self.pool.keys().copied().filter(|s| !steps.contains(s)).collect();
        for s in &gone {
            self.pool.remove(s);
        }
        self.send_pool(&gone)
    }

    fn send_pool(&mut self, gone: &[u64]) -> Result<(), BrokerError> {
        let entries: Vec<(u64, Arc<Vec<u8>>)> = self.pool.iter().map(|(s, b)| (*s, b.clone())).collect();
        // The JSON array of the steps, as serde_json writes it.
        let list = format!("[{}]", entries.iter().map(|(s, _)| s.to_string()).collect::<Vec<_>>().join(","));
        self.query(|k, c| {
            let mut p = redis::pipe();
            for (step, bytes) in &entries {
                p.cmd("SET").arg(k.pool_entry(*step)).arg(bytes.as_slice()).ignore();
            }
            p.cmd("SET").arg(k.pool()).arg(&list).ignore();
            for step in gone {
                p.cmd("DEL").arg(k.pool_entry(*step)).ignore();
            }
            p.query::<()>(c)
        })
    }

    /// Renews the lease, about once a second; when Redis has come back without the run's keys
    /// (restarted without persistence), publishes meta, weights and pool again.
    pub fn heartbeat(&mut self) -> Result<(), BrokerError> {
        if self.last_beat.elapsed() < Duration::from_secs(1) {
            return Ok(());
        }
        self.last_beat = Instant::now();
        let token = self.token.clone();
        let (holder, present): (Option<String>, bool) = self.query(|k, c| {
            redis::pipe()
                .cmd("SET")
                .arg(k.owner())
                .arg(&token)
                .arg("PX")
                .arg(LEASE_MS)
                .arg("GET")
                .cmd("EXISTS")
                .arg(k.meta())
                .query(c)
        })?;
        // Our lease lapsed (a stall of over 6 s) and another learner took the name: two
        // learners would split the games between them, so this one stops.
        if let Some(other) = holder.filter(|h| *h != token) {
            return Err(BrokerError::RunInUse { run: self.keys.run().into(), owner: other });
        }
        if !present {
            eprintln!(
                "ddz learner: Redis at {} lost run {}'s keys; publishing them again",
                self.link.shown(),
                self.keys.run()
            );
            self.write_meta()?;
            self.send_weights()?;
            self.send_pool(&[])?;
        }
        Ok(())
    }

    /// Acknowledges and deletes learned entries, adding those it acknowledged to `learned`, in
    /// one atomic script.
    pub fn ack(&mut self, ids: &[String]) -> Result<(), BrokerError> {
        if ids.is_empty() {
            return Ok(());
        }
        self.query(|k, c| {
            redis::cmd("EVAL")
                .arg(ACK_SCRIPT)
                .arg(2)
                .arg(k.games())
                .arg(k.learned())
                .arg(GROUP)
                .arg(ids)
                .query::<i64>(c)
        })?;
        Ok(())
    }

    /// Starts the thread that reads the stream into `tx`: first this consumer's entries read
    /// and not yet acknowledged (a killed learner's), then new ones.
    /// Entries whose values are out of range (labels beyond `label_bound`) are skipped as
    /// undecodable ones are; plays have `action_dim` features (the network's action layout).
    pub fn spawn_reader(
        &self,
        tx: Sender<Arrival>,
        label_bound: f32,
        action_dim: usize,
    ) -> Result<JoinHandle<()>, BrokerError> {
        let mut reader = Reader {
            link: Link::open(self.link.url(), "ddz learner")?,
            keys: self.keys.clone(),
            stop: self.stop.clone(),
            stats: self.stats.clone(),
            tx,
            label_bound,
            action_dim,
        };
        std::thread::Builder::new()
            .name("stream-reader".into())
            .spawn(move || reader.run())
            .map_err(|source| BrokerError::Thread { name: "stream-reader".into(), source })
    }

    /// Marks the run finished (actors stop) and gives the lease up; stops the reader.
    pub fn finish(&mut self) -> Result<(), BrokerError> {
        self.query(|k, c| redis::cmd("SET").arg(k.status()).arg("finished").query::<()>(c))?;
        self.release()
    }

    fn release(&mut self) -> Result<(), BrokerError> {
        self.stop.store(true, Ordering::SeqCst);
        let token = self.token.clone();
        let holder: Option<String> = self.query(|k, c| redis::cmd("GET").arg(k.owner()).query(c))?;
        if holder.as_deref() == Some(token.as_str()) {
            self.query(|k, c| redis::cmd("DEL").arg(k.owner()).query::<()>(c))?;
        }
        Ok(())
    }

    /// Stops the reader thread (it exits within its next read).
    pub fn stop_reading(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Drop for LearnerLink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

struct Reader {
    link: Link,
    keys: Keys,
    stop: Arc<AtomicBool>,
    stats: Arc<WireStats>,
    tx: Sender<Arrival>,
    /// The largest label magnitude a game of the run can carry ([`wire::check_values`]).
    label_bound: f32,
    /// Features per play in the run's network ([`wire::decode_with`]).
    action_dim: usize,
}

impl Reader {
    fn run(&mut self) {
        // "0…": our pending entries after that id; ">": entries never delivered.
        let mut backlog = Some("0".to_string());
        while !self.stop.load(Ordering::Relaxed) {
            let from = backlog.clone().unwrap_or_else(|| ">".into());
            let games = self.keys.games();
            let read = self.link.call(&self.stop, |c| {
                redis::cmd("XREADGROUP")
                    .arg("GROUP")
                    .arg(GROUP)
                    .arg(GROUP)
                    .arg("COUNT")
                    .arg(64)
                    .arg("BLOCK")
                    .arg(200)
                    .arg("STREAMS")
                    .arg(&games)
                    .arg(&from)
                    .query::<redis::Value>(c)
            });
            let entries = match read {
                Ok(reply) => stream_entries(reply),
                Err(e) if e.code() == Some("NOGROUP") => {
                    self.create_group();
                    continue;
                }
                Err(e) => {
                    if !self.stop.load(Ordering::Relaxed) {
                        eprintln!("ddz learner: reading the stream: {e}; trying again in 1 s");
                        std::thread::sleep(Duration::from_secs(1));
                    }
                    continue;
                }
            };
            if backlog.is_some() {
                backlog = entries.last().map(|(id, _)| id.clone());
            }
            for (id, payload) in entries {
                if !self.deliver(id, payload) {
                    return;
                }
            }
        }
    }

    /// The group, reading the stream from its start (created with the stream if need be).
    fn create_group(&mut self) {
        let games = self.keys.games();
        let made = self.link.call(&self.stop, |c| {
            redis::cmd("XGROUP").arg("CREATE").arg(&games).arg(GROUP).arg("0").arg("MKSTREAM").query::<()>(c)
        });
        if let Err(e) = made.as_ref().map_err(|e| e.code())
            && e != Some("BUSYGROUP")
        {
            eprintln!("ddz learner: creating the stream's consumer group: {e:?}");
            std::thread::sleep(Duration::from_secs(1));
        }
    }

    /// Decodes and checks one entry and hands it on; an entry that does not decode, or carries
    /// values no game of the run can have, is counted, said on stderr, acknowledged and
    /// deleted. False when the learner is gone.
    fn deliver(&mut self, id: String, payload: Option<Vec<u8>>) -> bool {
        let decoded = match &payload {
            Some(bytes) => wire::decode_with(bytes, self.action_dim)
                .and_then(|msg| wire::check_values(&msg, self.label_bound).map(|()| msg))
                .map_err(|e| e.to_string()),
            None => Err("the entry has no game field".into()),
        };
        match decoded {
            Ok(msg) => {
                self.stats.add(1, msg.frames.len() as u64, payload.map_or(0, |b| b.len() as u64));
                let mut item = (id, msg);
                loop {
                    match self.tx.send_timeout(item, Duration::from_millis(200)) {
                        Ok(()) => return true,
                        Err(SendTimeoutError::Timeout(back)) if !self.stop.load(Ordering::Relaxed) => item = back,
                        Err(_) => return false,
                    }
                }
            }
            Err(why) => {
                self.stats.bad.fetch_add(1, Ordering::Relaxed);
                eprintln!("ddz learner: skipping stream entry {id}: {why}");
                let games = self.keys.games();
                let _ = self.link.call(&self.stop, |c| {
                    redis::pipe()
                        .cmd("XACK")
                        .arg(&games)
                        .arg(GROUP)
                        .arg(&id)
                        .cmd("XDEL")
                        .arg(&games)
                        .arg(&id)
                        .query::<()>(c)
                });
                true
            }
        }
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname").map(|s| s.trim().to_string()).unwrap_or_else(|_| "host".into())
}
