//! Training over Redis Streams with real processes: a real `redis-server` on a free loopback
//! port (Debian's package, installed by scripts/redis.sh when missing), a learner and actor
//! processes of the `ddz` binary, real signals. Every wait is bounded.

use ddz::run;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A tiny network that publishes, snapshots and checkpoints often.
const CONFIG: &str = "[actors]\ncount = 1\ngames_in_flight = 8\n\
    [model]\ntrunk = [32]\nhead = 16\nhead_hidden = []\n\
    [learner]\nbatch_size = 64\n\
    [pool]\nsize = 3\nsnapshot_every_steps = 40\n\
    [broker]\npublish_every_steps = 5\nstream_cap = 100\n\
    [checkpoint]\nevery_minutes = 0.005\nkeep_last = 2\n\
    [log]\ntensorboard = false\n\
    [eval]\ndeals = 0\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddz-dist-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tiny.toml"), CONFIG).unwrap();
    dir
}

/// A redis-server of our own on 127.0.0.1, without persistence; killed when dropped.
struct Redis {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
}

impl Redis {
    fn start(dir: &Path) -> Redis {
        // The tests run in parallel: one install for all of them.
        static INSTALLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let installed = *INSTALLED.get_or_init(|| {
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/redis.sh");
            Command::new("bash").arg(script).arg("--install").status().is_ok_and(|s| s.success())
        });
        assert!(installed, "scripts/redis.sh --install failed");
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut r = Redis { child: None, port, dir: dir.to_path_buf() };
        r.spawn();
        r
    }

    fn spawn(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.connection().is_err() {
            assert!(Instant::now() < deadline, "redis-server did not answer on port {}", self.port);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn connection(&self) -> redis::RedisResult<redis::Connection> {
        let mut c = redis::Client::open(self.url())?.get_connection_with_timeout(Duration::from_secs(1))?;
        redis::cmd("PING").query::<String>(&mut c)?;
        Ok(c)
    }

    fn get(&self, key: &str) -> Option<u64> {
        self.connection().ok().and_then(|mut c| redis::cmd("GET").arg(key).query::<Option<u64>>(&mut c).ok().flatten())
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

fn ddz(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ddz"));
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd
}

fn learner(dir: &Path, url: &str, name: &str, extra: &[&str]) -> Child {
    let config = dir.join("tiny.toml");
    let run = dir.join("run");
    let mut args = vec!["train", "--device", "cpu", "--config", config.to_str().unwrap()];
    args.extend(["--run-dir", run.to_str().unwrap(), "--broker", url, "--run", name]);
    args.extend(extra);
    ddz(&args).spawn().unwrap()
}

fn actor(url: &str, name: &str) -> Child {
    ddz(&["actor", "--broker", url, "--run", name, "--threads", "1", "--quiet", "--json", "--wait-seconds", "60"])
        .spawn()
        .unwrap()
}

/// Waits for `child` to exit within `seconds`; its status, stdout and stderr.
fn finish(mut child: Child, seconds: u64) -> (bool, String, String) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let (_, out, err) = drain(&mut child);
            panic!("still running after {seconds} s\nstdout: {out}\nstderr: {err}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (_, out, err) = drain(&mut child);
    (status.success(), out, err)
}

fn drain(child: &mut Child) -> ((), String, String) {
    let (mut out, mut err) = (String::new(), String::new());
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut err);
    }
    ((), out, err)
}

/// Polls `ready` every 50 ms for up to `seconds`.
fn wait_until(seconds: u64, what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while !ready() {
        assert!(Instant::now() < deadline, "waited {seconds} s for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn newest(run: &Path) -> run::Meta {
    run::read_meta(&run::list(run).unwrap().pop().expect("a checkpoint")).unwrap()
}

#[test]
#[ignore = "slow: real processes (scripts/test runs it)"]
fn a_learner_and_two_actor_processes_train_with_bidding_and_an_actor_killed_costs_only_its_games() {
    let dir = scratch("two-actors");
    // With bidding: bids travel in the games, the bidding network with the weights.
    std::fs::write(dir.join("tiny.toml"), format!("{CONFIG}[game]\nbidding = true\n")).unwrap();
    let redis = Redis::start(&dir);
    let url = redis.url();
    // A stream entry that is not a game: counted, said and skipped, never a crash.
    let mut c = redis.connection().unwrap();
    redis::cmd("XADD").arg("ddz:two:games").arg("*").arg("g").arg("not a game").query::<String>(&mut c).unwrap();
    // Nor is a game that decodes but carries a label no game can have (it made the loss
    // infinite and stayed pending, stopping every session at its first step).
    let poison = ddz::train::actor::GameMsg {
        frames: vec![ddz::model::Frame {
            state: vec![0.0; ddz::encode::STATE_DIM],
            action: vec![0.0; ddz::encode::ACTION_DIM],
            target: 3e38,
            points: 0.0,
            role: ddz::game::Role::Landlord,
            hidden: Default::default(),
        }],
        learning: ddz::train::actor::Learning::AllSeats,
        vs_rule: false,
        landlord_won: true,
        bids: vec![],
        version: 0,
        index: 0,
    };
    let mut bytes = Vec::new();
    ddz::train::wire::encode(&poison, ddz::train::wire::Layout::Bits, &mut bytes);
    redis::cmd("XADD").arg("ddz:two:games").arg("*").arg("g").arg(&bytes).query::<String>(&mut c).unwrap();
    let learner = learner(&dir, &url, "two", &["--max-frames", "60000"]);
    let (a, b) = (actor(&url, "two"), actor(&url, "two"));
    wait_until(60, "games learned from both actors", || redis.get("ddz:two:learned").unwrap_or(0) >= 40);
    let mut a = a;
    a.kill().unwrap(); // SIGKILL
    a.wait().unwrap();
    let learned_at_kill = redis.get("ddz:two:learned").unwrap();
    let (ok, out, err) = finish(learner, 120);
    assert!(ok, "learner failed\n{out}\n{err}");
    assert!(out.contains("stopped by max_frames"), "{out}");
    assert!(err.contains("skipping stream entry") && err.contains("not a ddz game"), "{err}");
    assert!(err.contains("frame 0: label 3"), "the poison game is named and skipped: {err}");
    let (ok, out, err) = finish(b, 30);
    assert!(ok, "the other actor stops when the learner finishes\n{out}\n{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["stopped_by"], "the learner finished");
    assert!(report["games"].as_u64().unwrap() > 0 && report["versions"].as_u64().unwrap() > 1, "{report}");
    // Every game the learner counted, it acknowledged, and the other way round.
    let meta = newest(&dir.join("run"));
    let learned = redis.get("ddz:two:learned").unwrap();
    assert!(learned > learned_at_kill, "training went on after the kill");
    assert_eq!(meta.games, learned, "games counted = stream entries acknowledged");
    let newest = run::list(&dir.join("run")).unwrap().pop().unwrap();
    assert!(newest.join(run::BID_FILE).is_file(), "the bidding network learned beside");
    assert!(meta.frames >= 60_000);
}

#[test]
#[ignore = "slow: real processes (scripts/test runs it)"]
fn the_learner_killed_and_resumed_reads_on_and_counts_nothing_twice() {
    let dir = scratch("resume");
    let redis = Redis::start(&dir);
    let url = redis.url();
    let run = dir.join("run");
    let first = learner(&dir, &url, "resume", &["--max-seconds", "120"]);
    let worker = actor(&url, "resume");
    wait_until(60, "a checkpoint past step 30", || !run::list(&run).unwrap().is_empty() && newest(&run).step >= 30);
    let mut first = first;
    first.kill().unwrap(); // SIGKILL: no final checkpoint, the lease is left to lapse
    first.wait().unwrap();
    let before = newest(&run);
    let learned_before = redis.get("ddz:resume:learned").unwrap();
    assert!(before.games <= learned_before, "a checkpoint counts only acknowledged games");
    let target = (before.frames + 15_000).to_string();
    let mut args = vec!["train", "--resume", run.to_str().unwrap(), "--broker", &url, "--run", "resume"];
    args.extend(["--max-frames", &target]);
    let (ok, out, err) = finish(ddz(&args).spawn().unwrap(), 120);
    assert!(ok, "resumed learner failed\n{out}\n{err}");
    assert!(err.contains(&format!("resuming {} at step {}", run.display(), before.step)), "{err}");
    let after = newest(&run);
    let learned_after = redis.get("ddz:resume:learned").unwrap();
    assert!(after.frames >= before.frames + 15_000);
    assert_eq!(
        after.games - before.games,
        learned_after - learned_before,
        "the resumed learner counted exactly the games it acknowledged"
    );
    let (ok, _, err) = finish(worker, 30);
    assert!(ok, "the actor rode out the learner's restart\n{err}");
}

#[test]
#[ignore = "slow: real processes (scripts/test runs it)"]
fn redis_restarted_empty_mid_run_both_sides_wait_and_go_on() {
    let dir = scratch("restart");
    let mut redis = Redis::start(&dir);
    let url = redis.url();
    let learner = learner(&dir, &url, "restart", &["--max-seconds", "120"]);
    let worker = actor(&url, "restart");
    wait_until(60, "games learned", || redis.get("ddz:restart:learned").unwrap_or(0) >= 20);
    redis.stop();
    std::thread::sleep(Duration::from_secs(2));
    redis.spawn(); // empty: no persistence
    // The learner publishes the run again; the actor takes it in and sends games, which the
    // learner reads through a new consumer group.
    wait_until(60, "games learned after the restart", || redis.get("ddz:restart:learned").unwrap_or(0) >= 20);
    let mut c = redis.connection().unwrap();
    redis::cmd("SET").arg("ddz:restart:status").arg("finished").query::<()>(&mut c).unwrap();
    let (ok, out, err) = finish(worker, 30);
    assert!(ok, "{out}\n{err}");
    assert!(err.contains("unreachable") && err.contains("is back"), "the actor said it waited: {err}");
    Command::new("kill").args(["-INT", &learner.id().to_string()]).status().unwrap();
    let (ok, out, err) = finish(learner, 60);
    assert!(ok, "{out}\n{err}");
    assert!(err.contains("unreachable") && err.contains("is back"), "the learner said it waited: {err}");
    assert!(err.contains("publishing them again"), "{err}");
}

#[test]
#[ignore = "slow: real processes (scripts/test runs it)"]
fn bad_urls_names_in_use_and_config_mismatches_are_clear_errors() {
    let dir = scratch("errors");
    let redis = Redis::start(&dir);
    let url = redis.url();
    // Nothing listens on port 1.
    let (ok, _, err) = finish(ddz(&["actor", "--broker", "redis://127.0.0.1:1/", "--run", "x"]).spawn().unwrap(), 30);
    assert!(!ok && err.contains("cannot reach Redis at redis://127.0.0.1:1/"), "{err}");
    let (ok, _, err) = finish(learner(&dir, "redis://127.0.0.1:1/", "x", &["--max-frames", "100"]), 30);
    assert!(!ok && err.contains("cannot reach Redis at redis://127.0.0.1:1/"), "{err}");
    let (ok, _, err) = finish(ddz(&["actor", "--broker", "http://x", "--run", "x"]).spawn().unwrap(), 30);
    assert!(!ok && err.contains("not a Redis URL"), "{err}");
    // A live learner holds its run name.
    let holder = learner(&dir, &url, "taken", &["--max-seconds", "60"]);
    wait_until(30, "the learner's lease", || {
        redis
            .connection()
            .is_ok_and(|mut c| redis::cmd("EXISTS").arg("ddz:taken:owner").query::<bool>(&mut c).unwrap_or(false))
    });
    let other = scratch("errors-other");
    let (ok, _, err) = finish(learner(&other, &url, "taken", &["--max-frames", "100"]), 30);
    assert!(!ok && err.contains("run taken is in use by another learner"), "{err}");
    // An actor whose --config disagrees with the learner's.
    let mismatched = dir.join("wide.toml");
    std::fs::write(&mismatched, CONFIG.replace("trunk = [32]", "trunk = [64]")).unwrap();
    let args = ["actor", "--broker", &url, "--run", "taken", "--config", mismatched.to_str().unwrap()];
    let (ok, _, err) = finish(ddz(&args).spawn().unwrap(), 30);
    assert!(!ok && err.contains("differs from --config in [model]"), "{err}");
    Command::new("kill").args(["-INT", &holder.id().to_string()]).status().unwrap();
    assert!(finish(holder, 60).0);
    // Once that run has finished, a new run may not take its name over.
    let (ok, _, err) = finish(learner(&other, &url, "taken", &["--max-frames", "100"]), 30);
    assert!(!ok && err.contains("already holds a run"), "{err}");
    // An actor of a finished run says so.
    let (ok, _, err) = finish(ddz(&["actor", "--broker", &url, "--run", "taken"]).spawn().unwrap(), 30);
    assert!(!ok && err.contains("run taken has finished"), "{err}");
}

#[test]
#[ignore = "slow: real processes (scripts/test runs it)"]
fn weights_and_snapshots_that_do_not_fit_are_refused_and_the_actor_plays_on() {
    use ddz::model::{ModelConfig, QNet, weights::weights_to_bytes};
    let dir = scratch("misfit");
    let redis = Redis::start(&dir);
    let url = redis.url();
    // A learner publishes its run (meta, weights, pool) and is then killed, so nothing but this
    // test writes the run's keys from here on.
    let mut learner = learner(&dir, &url, "misfit", &["--max-seconds", "120"]);
    wait_until(60, "published weights and pool", || redis.get("ddz:misfit:version").is_some());
    wait_until(60, "the pool", || {
        redis
            .connection()
            .is_ok_and(|mut c| redis::cmd("EXISTS").arg("ddz:misfit:pool").query::<bool>(&mut c).unwrap_or(false))
    });
    learner.kill().unwrap();
    learner.wait().unwrap();
    let mut c = redis.connection().unwrap();
    let good: Vec<u8> = redis::cmd("GET").arg("ddz:misfit:weights").query(&mut c).unwrap();
    let version: u64 = redis::cmd("GET").arg("ddz:misfit:version").query(&mut c).unwrap();
    let pool: String = redis::cmd("GET").arg("ddz:misfit:pool").query(&mut c).unwrap();
    // Weights of a wider network than the run's (trunk [32]), as weights and as a snapshot.
    let wide = ModelConfig { trunk: vec![64], head: 16, head_hidden: vec![], ..Default::default() };
    let misfit = weights_to_bytes(&QNet::cpu(&wide, 3).export(version + 1)).unwrap();
    let mut steps: Vec<u64> = serde_json::from_str(&pool).unwrap();
    steps.push(999_999);
    redis::pipe()
        .cmd("SET")
        .arg("ddz:misfit:pool:999999")
        .arg(misfit.as_slice())
        .ignore()
        .cmd("SET")
        .arg("ddz:misfit:pool")
        .arg(serde_json::to_string(&steps).unwrap())
        .ignore()
        .cmd("SET")
        .arg("ddz:misfit:weights")
        .arg(misfit.as_slice())
        .ignore()
        .cmd("SET")
        .arg("ddz:misfit:version")
        .arg(version + 1)
        .ignore()
        .query::<()>(&mut c)
        .unwrap();
    let actor = actor(&url, "misfit");
    // It refuses both and waits for weights that fit: no game is played with none.
    std::thread::sleep(Duration::from_secs(3));
    let xlen = |c: &mut redis::Connection| redis::cmd("XLEN").arg("ddz:misfit:games").query::<u64>(c).unwrap();
    let before = xlen(&mut c);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(xlen(&mut c), before, "games were played before any weights that fit");
    // Weights that fit come: it plays on.
    redis::pipe()
        .cmd("SET")
        .arg("ddz:misfit:weights")
        .arg(good.as_slice())
        .ignore()
        .cmd("SET")
        .arg("ddz:misfit:version")
        .arg(version + 2)
        .ignore()
        .query::<()>(&mut c)
        .unwrap();
    wait_until(60, "games from the actor", || xlen(&mut c) > before);
    Command::new("kill").args(["-INT", &actor.id().to_string()]).status().unwrap();
    let (ok, out, err) = finish(actor, 60);
    assert!(ok, "{err}");
    assert!(err.contains("refused the published weights") && err.contains("refused pool snapshot 999999"), "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["refused"], 2, "{out}");
    assert!(report["games"].as_u64().unwrap() > 0, "{out}");
}

#[test]
#[ignore = "slow: real processes (scripts/test runs it)"]
fn a_password_in_the_broker_url_is_written_nowhere() {
    let dir = scratch("secret");
    let redis = Redis::start(&dir);
    let mut c = redis.connection().unwrap();
    redis::cmd("CONFIG").arg("SET").arg("requirepass").arg("s3cret").query::<()>(&mut c).unwrap();
    let url = format!("redis://:s3cret@127.0.0.1:{}/", redis.port);
    let learner = learner(&dir, &url, "secret", &["--max-frames", "300"]);
    let actor = actor(&url, "secret");
    let (ok, out, err) = finish(learner, 120);
    assert!(ok, "{err}");
    assert!(!out.contains("s3cret") && !err.contains("s3cret"), "{out}\n{err}");
    let (_, out, err) = finish(actor, 60);
    assert!(!out.contains("s3cret") && !err.contains("s3cret"), "{out}\n{err}");
    let mut folders = vec![dir.join("run")];
    let mut files = 0;
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files += 1;
                let bytes = std::fs::read(&path).unwrap();
                assert!(!bytes.windows(6).any(|w| w == b"s3cret"), "{} holds the password", path.display());
            }
        }
    }
    assert!(files > 3, "the run wrote its files");
    let sessions = std::fs::read_to_string(dir.join("run/sessions.jsonl")).unwrap();
    assert!(sessions.contains("redis://:***@127.0.0.1"), "{sessions}");
}

#[test]
#[ignore = "slow: real processes (scripts/test runs it)"]
fn a_network_with_the_hand_structure_block_trains_over_redis() {
    let dir = scratch("structure");
    std::fs::write(dir.join("tiny.toml"), CONFIG.replace("[model]\n", "[model]\nhand_structure = true\n")).unwrap();
    let redis = Redis::start(&dir);
    let url = redis.url();
    let learner = learner(&dir, &url, "structure", &["--max-frames", "400"]);
    let actor = actor(&url, "structure");
    let (ok, _, err) = finish(learner, 120);
    assert!(ok, "{err}");
    assert!(!err.contains("does not decode") && !err.contains("skipped"), "every entry decodes: {err}");
    let (_, out, err) = finish(actor, 60);
    assert!(out.contains("\"frames\""), "{out}\n{err}");
    // Every learned frame came through Redis (no actor threads in the learner's process).
    assert!(newest(&dir.join("run")).frames >= 400);
}
