//! The trainer killed at random moments — during learner steps, pool snapshots and checkpoint
//! writes alike — must always resume, and its counters must never go backwards. A real
//! process, real signals, real files; the moments are drawn from a seeded generator.

use ddz::run;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A tiny run that snapshots and checkpoints all the time, with a pool that is always full.
const CONFIG: &str = "[actors]\ncount = 1\ngames_in_flight = 8\n\
    [model]\ntrunk = [32]\nhead = 16\nhead_hidden = []\n\
    [learner]\nbatch_size = 64\n\
    [pool]\nsize = 2\nsnapshot_every_steps = 2\n\
    [checkpoint]\nevery_minutes = 0.004\nkeep_last = 2\n\
    [eval]\ndeals = 0\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddz-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `ddz train`: a fresh run while the folder holds no checkpoint, else `--resume`.
fn start(dir: &Path) -> Child {
    let run = dir.join("run");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ddz"));
    if run::list(&run).unwrap().is_empty() {
        cmd.args(["train", "--device", "cpu", "--config"]).arg(dir.join("tiny.toml")).arg("--run-dir").arg(&run);
    } else {
        cmd.args(["train", "--resume"]).arg(&run);
    }
    cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
}

fn signal(child: &Child, name: &str) {
    assert!(Command::new("kill").args([name, &child.id().to_string()]).status().unwrap().success());
}

/// The newest checkpoint's meta, after checking that everything it names is there.
fn newest(run: &Path) -> Option<run::Meta> {
    let dir = run::list(run).unwrap().pop()?;
    let meta = run::read_meta(&dir).unwrap_or_else(|e| panic!("the newest checkpoint is whole: {e}"));
    assert!(dir.join("model.safetensors").is_file(), "{}", dir.display());
    for step in &meta.pool_steps {
        assert!(run::pool_file(run, *step).is_file(), "{} names snapshot {step}", dir.display());
    }
    Some(meta)
}

fn assert_not_behind(now: &run::Meta, before: &Option<run::Meta>) {
    if let Some(b) = before {
        assert!(
            now.step >= b.step
                && now.frames >= b.frames
                && now.games >= b.games
                && now.next_game_index >= b.next_game_index,
            "counters went back: {b:?} -> {now:?}"
        );
    }
}

/// Waits until the process has started its session (the signal handler is in place then).
fn wait_for_session(run: &Path, sessions_before: usize, child: &mut Child) {
    let start = Instant::now();
    let count = || std::fs::read_to_string(run::sessions_file(run)).map(|t| t.lines().count()).unwrap_or(0);
    while count() <= sessions_before {
        assert!(child.try_wait().unwrap().is_none(), "ddz train exited early");
        assert!(start.elapsed() < Duration::from_secs(60), "no session started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[ignore = "slow: 50 killed training processes (scripts/test runs it)"]
fn sigkill_at_random_moments_never_stops_a_run_from_resuming() {
    let dir = scratch("kill");
    std::fs::write(dir.join("tiny.toml"), CONFIG).unwrap();
    let run = dir.join("run");
    let mut rng = SmallRng::seed_from_u64(20261130);
    let mut before: Option<run::Meta> = None;
    for _ in 0..50 {
        let mut child = start(&dir);
        std::thread::sleep(Duration::from_millis(rng.random_range(200..2500)));
        signal(&child, "-KILL");
        child.wait().unwrap();
        if let Some(meta) = newest(&run) {
            assert_not_behind(&meta, &before);
            before = Some(meta);
        }
    }
    let before = before.expect("some checkpoint was written in 50 tries");
    // One last session that ends by itself.
    let out = Command::new(env!("CARGO_BIN_EXE_ddz"))
        .args(["train", "--max-games", &(before.games + 200).to_string(), "--resume"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_not_behind(&newest(&run).unwrap(), &Some(before));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: training processes stopped by SIGTERM (scripts/test runs it)"]
fn sigterm_at_random_moments_ends_each_session_with_a_fresh_checkpoint() {
    let dir = scratch("term");
    std::fs::write(dir.join("tiny.toml"), CONFIG).unwrap();
    let run = dir.join("run");
    let mut rng = SmallRng::seed_from_u64(11302026);
    let mut before: Option<run::Meta> = None;
    for session in 0..50 {
        let mut child = start(&dir);
        wait_for_session(&run, session, &mut child);
        std::thread::sleep(Duration::from_millis(rng.random_range(0..1000)));
        signal(&child, "-TERM");
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "session {session}: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
        let meta = newest(&run).expect("a checkpoint");
        assert_not_behind(&meta, &before);
        let trained = before.as_ref().map_or(0.0, |b| b.elapsed_seconds);
        assert!(meta.elapsed_seconds > trained, "session {session} ended with its own checkpoint");
        before = Some(meta);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_session_on_a_run_folder_is_refused_and_a_killed_one_leaves_no_lock() {
    let dir = scratch("lock");
    std::fs::write(dir.join("tiny.toml"), CONFIG).unwrap();
    let run = dir.join("run");
    let mut first = start(&dir);
    wait_for_session(&run, 0, &mut first);
    // A fresh run and a resumed one alike: the folder is the first session's.
    let (config, run_dir) = (dir.join("tiny.toml").into_os_string(), run.clone().into_os_string());
    let fresh = ["train".into(), "--config".into(), config, "--run-dir".into(), run_dir.clone()];
    let resume = ["train".into(), "--resume".into(), run_dir, "--device".into(), "cpu".into()];
    for args in [fresh, resume] {
        let second = Command::new(env!("CARGO_BIN_EXE_ddz")).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert!(!second.status.success(), "{args:?}: refused");
        assert!(
            stderr.contains("held by another training session") && stderr.contains(&format!("pid {}", first.id())),
            "{args:?}: names the holder: {stderr}"
        );
    }
    signal(&first, "-KILL");
    first.wait().unwrap();
    let before = newest(&run);
    let games = before.as_ref().map_or(0, |m| m.games) + 100;
    let out = Command::new(env!("CARGO_BIN_EXE_ddz"))
        .args(["train", "--max-games", &games.to_string(), "--resume"])
        .arg(&run)
        .output()
        .unwrap();
    // A run killed before its first checkpoint has nothing to resume, but it is not locked.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("held by another"), "the killed session's lock died with it: {stderr}");
    if before.is_some() {
        assert!(out.status.success(), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
