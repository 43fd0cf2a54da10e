//! Actors in other processes, on this or other machines, feeding one learner through Redis.
//!
//! ```text
//! ddz actor ──XADD finished games (wire::Layout::Bits)──► stream ddz:RUN:games ──XREADGROUP──► learner
//!     ▲                         (capped: actors wait while it holds broker.stream_cap games)       │
//!     └── GET ddz:RUN:version / weights / pool:STEP (safetensors) ◄── SET every N steps ──────────┘
//! ```
//!
//! Every key of a run lives under `ddz:RUN:` ([`Keys`]). The learner ([`learner::LearnerLink`])
//! holds a lease on the run name (`owner`, renewed every second), writes the run's config and
//! protocol (`meta`), publishes weights and pool snapshots, and reads the stream in the consumer
//! group `learner`: an entry is acknowledged (and deleted) once its first frame is in a learner
//! step, so a learner killed and resumed reads again only what no checkpoint has counted.
//! Actor processes ([`remote`]) take the config from `meta`, play exactly as the in-process
//! actors do, and append each finished game to the stream. Both sides ride out Redis going away:
//! they retry with backoff, say so on stderr, and the learner publishes everything again when
//! Redis comes back empty.

pub mod learner;
pub mod remote;

use redis::{Client, Connection, RedisError, RedisResult};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Bumped when keys, the stream entry or the weights format change: a learner and an actor
/// must agree on it.
pub const PROTOCOL: u32 = 2;

/// The consumer group (and consumer) of the learner.
const GROUP: &str = "learner";

/// What can go wrong between a learner, its actors and Redis.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// The broker address does not parse as a Redis URL.
    #[error("{url} is not a Redis URL ({source}); write redis://HOST:PORT/")]
    BadUrl {
        /// The address as given, its password masked.
        url: String,
        /// Why the Redis client refused it.
        #[source]
        source: redis::RedisError,
    },
    /// A run name that is empty or holds characters other than ASCII letters, digits, '.', '_'
    /// and '-'.
    #[error("run name {0:?}: use letters, digits, '.', '_' and '-' only")]
    BadRunName(String),
    /// Redis did not answer when the link was first opened.
    #[error("cannot reach Redis at {url}: {source}")]
    Unreachable {
        /// The Redis URL, its password masked.
        url: String,
        /// The connection error.
        #[source]
        source: redis::RedisError,
    },
    /// A Redis command failed with an error not worth waiting out (or while stopping).
    #[error("Redis at {url}: {source}")]
    Redis {
        /// The Redis URL, its password masked.
        url: String,
        /// Redis's error.
        #[source]
        source: RedisError,
    },
    /// Another live learner holds the lease on this run name.
    #[error(
        "run {run} is in use by another learner (its lease, {owner}, is live); stop that learner or pick another --run name"
    )]
    RunInUse {
        /// The run name.
        run: String,
        /// The lease holder's token (host, process id and start time).
        owner: String,
    },
    /// A fresh learner found another run's keys under this name (a resume from another folder
    /// counts as fresh).
    #[error(
        "run {run} in Redis at {url} already holds a run (learner folder {dir}); continue it with --resume {dir}, \
         pick another --run name, or delete its keys: redis-cli -u {url} --scan --pattern 'ddz:{run}:*' | xargs redis-cli -u {url} del"
    )]
    RunExists {
        /// The run name.
        run: String,
        /// The Redis URL, its password masked.
        url: String,
        /// The run folder of the learner that wrote the stored run, on its machine ("?" when
        /// its meta does not parse).
        dir: String,
    },
    /// An actor cannot play the learner's run: another protocol or feature sizes, a meta or
    /// config that does not parse here, or a config that differs from the actor's own.
    #[error("run {run}: {reason}")]
    Mismatch {
        /// The run name.
        run: String,
        /// What differs.
        reason: String,
    },
    /// No learner published the run's meta within the actor's wait.
    #[error(
        "no learner has published run {run} in Redis at {url} after {seconds} s (start `ddz train --broker {url}` first)"
    )]
    NoRun {
        /// The run name.
        run: String,
        /// The Redis URL, its password masked.
        url: String,
        /// How long the actor waited, in seconds.
        seconds: f64,
    },
    /// The run's status is "finished": its learner has stopped and reads no more games.
    #[error("run {run} has finished: its learner stopped")]
    Finished {
        /// The run name.
        run: String,
    },
    /// A stop was asked for (Ctrl-C or a signal, see [`crate::process::interrupted`]) while
    /// waiting on Redis or the learner.
    #[error("stopped")]
    Stopped,
    /// Weights that could not be put into bytes to publish.
    #[error(transparent)]
    Weights(#[from] crate::model::WeightsError),
    /// An actor thread ended while the process was still running.
    #[error("the {name} thread stopped: {why}")]
    ActorDied {
        /// The thread's name.
        name: String,
        /// Its panic message, or what else is known.
        why: String,
    },
    /// A thread of this process could not be started.
    #[error("cannot start the {name} thread: {source}")]
    Thread {
        /// The thread's name.
        name: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

/// The keys of one run.
#[derive(Clone, Debug)]
pub struct Keys {
    run: String,
}

impl Keys {
    /// The keys of run `run`; [`BrokerError::BadRunName`] unless it is non-empty and only
    /// ASCII letters, digits, '.', '_' and '-'.
    pub fn new(run: &str) -> Result<Keys, BrokerError> {
        let ok = !run.is_empty() && run.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
        if ok { Ok(Keys { run: run.to_string() }) } else { Err(BrokerError::BadRunName(run.to_string())) }
    }
    /// The run name.
    pub fn run(&self) -> &str {
        &self.run
    }
    fn key(&self, name: &str) -> String {
        format!("ddz:{}:{name}", self.run)
    }
    /// [`RunMeta`] as JSON.
    pub fn meta(&self) -> String {
        self.key("meta")
    }
    /// The live learner's lease.
    pub fn owner(&self) -> String {
        self.key("owner")
    }
    /// "running" or "finished".
    pub fn status(&self) -> String {
        self.key("status")
    }
    /// The newest weights (safetensors) and their version.
    pub fn weights(&self) -> String {
        self.key("weights")
    }
    /// The bidding network's newest weights (with `game.bidding`), published with `weights`.
    pub fn bid_weights(&self) -> String {
        self.key("bid_weights")
    }
    /// The version of the newest weights; actors poll it to know when to fetch `weights`.
    pub fn version(&self) -> String {
        self.key("version")
    }
    /// The channel on which each new version is announced (`redis-cli subscribe` watches a
    /// run; actors read `version` instead, which survives their reconnects).
    pub fn published(&self) -> String {
        self.key("published")
    }
    /// Frames learned (anneals the actors' softmax temperature).
    pub fn frames(&self) -> String {
        self.key("frames")
    }
    /// The pool's steps (a JSON list); each snapshot under `pool:STEP`.
    pub fn pool(&self) -> String {
        self.key("pool")
    }
    /// The pool snapshot (safetensors) taken at learner step `step`.
    pub fn pool_entry(&self, step: u64) -> String {
        self.key(&format!("pool:{step}"))
    }
    /// The stream of finished games.
    pub fn games(&self) -> String {
        self.key("games")
    }
    /// Numbers actor processes (each deals from its own range of game indices).
    pub fn actor_ids(&self) -> String {
        self.key("actor_ids")
    }
    /// Games the learner has acknowledged, over the run's life.
    pub fn learned(&self) -> String {
        self.key("learned")
    }
}

/// What a learner tells actors about its run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// The learner's [`PROTOCOL`].
    pub protocol: u32,
    /// The learner's ddz version.
    pub ddz: String,
    /// Features per state ([`crate::encode::STATE_DIM`]).
    pub state_dim: usize,
    /// Features per action ([`crate::encode::ACTION_DIM`]).
    pub action_dim: usize,
    /// The learner's run folder, on its machine.
    pub dir: String,
    /// The run's config (TOML), as the learner uses it.
    pub config: String,
}

impl RunMeta {
    /// This build's meta, for a run in folder `dir` with config `config` (TOML).
    pub fn ours(dir: &str, config: String) -> RunMeta {
        RunMeta {
            protocol: PROTOCOL,
            ddz: env!("CARGO_PKG_VERSION").to_string(),
            state_dim: crate::encode::STATE_DIM,
            action_dim: crate::encode::ACTION_DIM,
            dir: dir.to_string(),
            config,
        }
    }

    /// Why a peer with `other` cannot work with us; None when it can.
    pub fn incompatible(&self, other: &RunMeta) -> Option<String> {
        if (self.protocol, self.state_dim, self.action_dim) != (other.protocol, other.state_dim, other.action_dim) {
            return Some(format!(
                "the learner speaks protocol {} with {}×{} features (ddz {}), this actor protocol {} with {}×{} (ddz {})",
                other.protocol,
                other.state_dim,
                other.action_dim,
                other.ddz,
                self.protocol,
                self.state_dim,
                self.action_dim,
                self.ddz
            ));
        }
        None
    }
}

/// Counters of what crossed the wire.
#[derive(Debug, Default)]
pub struct WireStats {
    /// Games sent or received.
    pub games: AtomicU64,
    /// Frames (decisions) in those games.
    pub frames: AtomicU64,
    /// Bytes of their stream entries.
    pub bytes: AtomicU64,
    /// Entries that did not decode (skipped).
    pub bad: AtomicU64,
}

impl WireStats {
    /// Counts `games` more games holding `frames` frames in `bytes` bytes.
    pub fn add(&self, games: u64, frames: u64, bytes: u64) {
        self.games.fetch_add(games, Ordering::Relaxed);
        self.frames.fetch_add(frames, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
    /// Mean bytes on the wire per frame so far (0 before any frame).
    pub fn bytes_per_frame(&self) -> f64 {
        self.bytes.load(Ordering::Relaxed) as f64 / self.frames.load(Ordering::Relaxed).max(1) as f64
    }
}

/// `url` as messages and files show it: a password becomes `***` wherever a Redis URL can hold
/// one — after the user (`redis://:pw@host`, `rediss://user:pw@host`) or as a query parameter
/// (`redis+unix:///path?pass=pw`, `unix:///path?db=0&password=pw`) — since errors, progress lines
/// and run folders end up in logs and terminals other people read. A text that is no URL keeps
/// nothing before its last `@` and no value after a `pass=` or `password=`.
pub fn masked(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            let secret_query = parsed.query_pairs().any(|(k, _)| is_secret_key(&k));
            if parsed.password().is_none() && !secret_query {
                return url.to_string();
            }
            if parsed.password().is_some() && parsed.set_password(Some("***")).is_err() {
                return "***".to_string(); // a password the URL cannot mask: show nothing of it
            }
            if secret_query {
                let pairs: Vec<(String, String)> = parsed
                    .query_pairs()
                    .map(|(k, v)| {
                        let v = if is_secret_key(&k) { "***".to_string() } else { v.into_owned() };
                        (k.into_owned(), v)
                    })
                    .collect();
                parsed.query_pairs_mut().clear().extend_pairs(pairs);
            }
            parsed.to_string()
        }
        Err(_) => {
            let tail = url.rsplit_once('@').map_or(url.to_string(), |(_, host)| format!("***@{host}"));
            mask_query_secrets(&tail)
        }
    }
}

/// A command line as files record it: every argument (or the value of a `--flag=VALUE`) goes
/// through [`masked`], which leaves anything that holds no password as it is.
pub fn masked_command_line(args: impl IntoIterator<Item = String>) -> Vec<String> {
    args.into_iter()
        .map(|arg| match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => format!("{flag}={}", masked(value)),
            _ => masked(&arg),
        })
        .collect()
}

/// Query keys whose values are passwords in the URL forms the redis crate reads.
fn is_secret_key(key: &str) -> bool {
    matches!(key.to_ascii_lowercase().as_str(), "pass" | "password")
}

/// `text` with the value of every `pass=` / `password=` parameter replaced by `***`.
fn mask_query_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(eq) = rest.find('=') {
        let (before, after) = rest.split_at(eq);
        let key = before.rsplit(['?', '&', ';']).next().unwrap_or(before);
        out.push_str(before);
        out.push('=');
        let end = after[1..].find(['&', ';', ' ']).map_or(after.len(), |i| i + 1);
        if is_secret_key(key) {
            out.push_str("***");
        } else {
            out.push_str(&after[1..end]);
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// One Redis connection that reconnects: [`Link::call`] retries while Redis is unreachable.
pub struct Link {
    url: String,
    /// The URL as messages show it ([`masked`]).
    shown: String,
    /// Who speaks in messages on stderr ("ddz learner", "ddz actor").
    who: &'static str,
    client: Client,
    con: Option<Connection>,
    down_since: Option<Instant>,
}

impl Link {
    /// Connects once: an unreachable Redis at start is an error naming the URL.
    pub fn open(url: &str, who: &'static str) -> Result<Link, BrokerError> {
        let shown = masked(url);
        let client = Client::open(url).map_err(|source| BrokerError::BadUrl { url: shown.clone(), source })?;
        let mut link = Link { url: url.to_string(), shown: shown.clone(), who, client, con: None, down_since: None };
        link.connect()
            .and_then(|c| redis::cmd("PING").query::<String>(c))
            .map_err(|source| BrokerError::Unreachable { url: shown, source })?;
        Ok(link)
    }

    /// The URL to connect with (it may hold a password: print [`Link::shown`] instead).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The URL as messages show it, its password masked.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    fn connect(&mut self) -> RedisResult<&mut Connection> {
        let con = match self.con.take() {
            Some(con) => con,
            None => {
                let con = self.client.get_connection_with_timeout(Duration::from_secs(2))?;
                con.set_read_timeout(Some(Duration::from_secs(10)))?;
                con.set_write_timeout(Some(Duration::from_secs(10)))?;
                con
            }
        };
        Ok(self.con.insert(con))
    }

    /// Runs `f` on a live connection. While Redis is unreachable (refused, reset, timed out,
    /// loading its data) it reconnects with backoff from 0.2 s to 5 s, saying so on stderr, until
    /// it answers or `stop` is set; other errors (a wrong type, no such group…) are returned.
    pub fn call<T>(
        &mut self,
        stop: &AtomicBool,
        mut f: impl FnMut(&mut Connection) -> RedisResult<T>,
    ) -> RedisResult<T> {
        let mut wait = Duration::from_millis(200);
        loop {
            match self.connect().and_then(&mut f) {
                Ok(v) => {
                    if let Some(since) = self.down_since.take() {
                        let down = since.elapsed().as_secs_f64();
                        eprintln!("{}: Redis at {} is back after {down:.1} s", self.who, self.shown);
                    }
                    return Ok(v);
                }
                Err(e) if unreachable(&e) && !stop.load(Ordering::Relaxed) => {
                    self.con = None;
                    self.down_since.get_or_insert_with(Instant::now);
                    eprintln!(
                        "{}: Redis at {} unreachable ({e}); retrying in {:.1} s",
                        self.who,
                        self.shown,
                        wait.as_secs_f64()
                    );
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
                Err(e) => {
                    if unreachable(&e) {
                        self.con = None;
                    }
                    return Err(e);
                }
            }
        }
    }

    /// A Redis error as ours, naming the URL.
    pub fn error(&self, e: RedisError) -> BrokerError {
        BrokerError::Redis { url: self.shown.clone(), source: e }
    }
}

/// Errors that mean "Redis is not there right now", worth waiting out.
fn unreachable(e: &RedisError) -> bool {
    e.is_io_error() || e.is_connection_dropped() || e.is_timeout() || matches!(e.code(), Some("LOADING" | "BUSY"))
}

/// The entries of an XREADGROUP reply: (id, the `g` field's bytes, or None when the entry is
/// gone or has no such field).
fn stream_entries(reply: redis::Value) -> Vec<(String, Option<Vec<u8>>)> {
    use redis::Value;
    let streams = match reply {
        Value::Array(s) => s,
        Value::Map(m) => m.into_iter().map(|(k, v)| Value::Array(vec![k, v])).collect(),
        _ => return vec![], // nil: BLOCK timed out
    };
    let mut out = Vec::new();
    for stream in streams {
        let Value::Array(mut pair) = stream else { continue };
        let Some(Value::Array(entries)) = pair.pop() else { continue };
        for entry in entries {
            let Value::Array(mut parts) = entry else { continue };
            if parts.is_empty() {
                continue;
            }
            let fields = if parts.len() > 1 { parts.remove(1) } else { Value::Nil };
            let id = match parts.remove(0) {
                Value::BulkString(b) => String::from_utf8_lossy(&b).into_owned(),
                Value::SimpleString(s) => s,
                _ => continue,
            };
            let payload = match fields {
                Value::Array(mut kv) if kv.len() >= 2 => match kv.swap_remove(1) {
                    Value::BulkString(b) => Some(b),
                    _ => None,
                },
                _ => None,
            };
            out.push((id, payload));
        }
    }
    out
}

/// The field that holds a game in a stream entry.
const FIELD: &str = "g";

#[cfg(test)]
mod tests {
    #[test]
    fn messages_never_show_a_password() {
        assert_eq!(super::masked("redis://:s3cret@10.0.0.5:6379/"), "redis://:***@10.0.0.5:6379/");
        assert_eq!(super::masked("redis://ddz:s3cret@host/0"), "redis://ddz:***@host/0");
        assert_eq!(super::masked("redis://127.0.0.1:6379/"), "redis://127.0.0.1:6379/");
        assert_eq!(super::masked("redis//:s3cret@host"), "***@host", "no URL: nothing before the @");
        // Unix sockets: the password is a query parameter.
        assert_eq!(
            super::masked("redis+unix:///tmp/r.sock?db=1&pass=s3cret"),
            "redis+unix:///tmp/r.sock?db=1&pass=***"
        );
        assert_eq!(super::masked("unix:///tmp/r.sock?password=s3cret"), "unix:///tmp/r.sock?password=***");
        assert_eq!(super::masked("rediss://u:s3cret@h:1/?pass=s3cret"), "rediss://u:***@h:1/?pass=***");
        assert_eq!(super::masked("redis+unix:///tmp/r.sock?db=1"), "redis+unix:///tmp/r.sock?db=1");
        assert_eq!(super::masked("not a url?pass=s3cret&db=2"), "not a url?pass=***&db=2");
    }

    #[test]
    fn recorded_command_lines_never_hold_a_password() {
        let line = ["ddz", "train", "--broker", "redis://:s3cret@h/", "--broker=unix:///s?pass=s3cret", "--run", "x"];
        let masked = super::masked_command_line(line.map(String::from));
        assert!(!masked.join(" ").contains("s3cret"), "{masked:?}");
        assert_eq!(masked[3], "redis://:***@h/");
        assert_eq!(masked[4], "--broker=unix:///s?pass=***");
        assert_eq!(&masked[5..], ["--run", "x"]);
    }
}
