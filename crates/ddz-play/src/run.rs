//! The run folder, which training writes and evaluation reads (the writing of checkpoints,
//! which needs the trainer's networks, is `ddz_learn::checkpoint`):
//!
//! ```text
//! RUN/config.toml                  the configuration the run uses
//! RUN/checkpoints/step-NNNNNNNNN/  model.safetensors + meta.json (+ bid.safetensors, the bidding
//!                                  network, with bidding), written in a temporary folder and
//!                                  renamed into place (a crash never leaves a partial one)
//! RUN/pool/step-NNNNNNNNN.safetensors  frozen snapshots the actors play against
//! RUN/tb/, RUN/tb-eval/            TensorBoard events of training and of evaluation
//! RUN/eval/                        learning curve (curve.csv, curve.json, curve.png)
//! RUN/lock                         held by the session training in the folder (see [`lock`])
//! ```

use ddz_nets::{ModelConfig, WeightsError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of `meta.json` this build writes and reads; a checkpoint of another version is refused.
pub const META_FORMAT: u32 = 1;

/// Everything besides the weights that a resumed run needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// The `meta.json` version, [`META_FORMAT`].
    pub format: u32,
    /// Learner steps (updates) so far.
    pub step: u64,
    /// Frames (decisions) learned so far.
    pub frames: u64,
    /// Finished games the learner has taken in so far.
    pub games: u64,
    /// Training time so far, in seconds, summed over all sessions of the run.
    pub elapsed_seconds: f64,
    /// Deals are seeded by (run seed, game index): the next index continues the sequence.
    pub next_game_index: u64,
    /// Pool snapshots by learner step (files in RUN/pool).
    pub pool_steps: Vec<u64>,
    /// The network's shape the weights were saved with; loading into another shape is refused.
    pub model: ModelConfig,
}

/// Why a run folder or one of its checkpoints could not be read, written or taken.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A weights file could not be read, written or loaded into the network.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// A checkpoint's `meta.json` is corrupt, of another format, or of another model.
    #[error("{path}: {reason}")]
    Meta {
        /// The `meta.json` file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file or folder operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The run has no checkpoint; the path is its checkpoints folder.
    #[error("no checkpoint in {0}")]
    None(PathBuf),
    /// Another session trains in the folder.
    #[error(
        "{path} is held by another training session ({holder}); two sessions on one run would \
         interleave their checkpoints: wait for it to stop, or train in another --run-dir"
    )]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// Who holds it: the PID and start time the lock file names.
        holder: String,
    },
}

/// A session's hold on its run folder: an OS lock on `RUN/lock`, released when this value is
/// dropped or the process ends in any way (a SIGKILL leaves no stale lock behind).
#[derive(Debug)]
pub struct RunLock {
    _file: std::fs::File,
}

/// The lock file of a run.
pub fn lock_file(run: &Path) -> PathBuf {
    run.join("lock")
}

/// Takes the run folder `run` (creating it if needed) for this process, or says who holds it:
/// the lock file names the holder's PID and when it started.
pub fn lock(run: &Path) -> Result<RunLock, RunError> {
    use std::io::{Read, Seek, Write};
    std::fs::create_dir_all(run).map_err(io(run))?;
    let path = lock_file(run);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io(&path))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = match holder.trim() {
                "" => "a process that has not written its PID yet".to_string(),
                text => text.to_string(),
            };
            return Err(RunError::Locked { path, holder });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(&path)(e)),
    }
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let text = format!("pid {}, started at unix time {}\n", std::process::id(), since.as_secs());
    file.set_len(0).map_err(io(&path))?;
    file.rewind().map_err(io(&path))?;
    file.write_all(text.as_bytes()).map_err(io(&path))?;
    Ok(RunLock { _file: file })
}

/// The error of a file operation on `path`.
pub fn io(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.to_path_buf(), source }
}

/// The configuration file of a run.
pub fn config_file(run: &Path) -> PathBuf {
    run.join("config.toml")
}
/// Writes `text` to `path` through a temporary file and a rename: a crash leaves the old file
/// or the new one, never half of one.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), RunError> {
    crate::files::write(path, text).map_err(io(path))
}

/// The run's session log, `RUN/sessions.jsonl`, one JSON line per training session: when, from
/// where, its budget and command line.
pub fn sessions_file(run: &Path) -> PathBuf {
    run.join("sessions.jsonl")
}
/// The learning curve's folder.
pub fn eval_dir(run: &Path) -> PathBuf {
    run.join("eval")
}
/// The folder of a run's checkpoints, `RUN/checkpoints`.
pub fn checkpoints_dir(run: &Path) -> PathBuf {
    run.join("checkpoints")
}
/// The folder of a run's pool snapshots, `RUN/pool`.
pub fn pool_dir(run: &Path) -> PathBuf {
    run.join("pool")
}
/// The pool snapshot of learner step `step`.
pub fn pool_file(run: &Path, step: u64) -> PathBuf {
    pool_dir(run).join(format!("step-{step:09}.safetensors"))
}

/// Deletes the pool snapshots that neither `live` (the pool now) nor any kept checkpoint lists.
/// A snapshot thus lives as long as a checkpoint that names it, so a run can always resume from
/// its newest checkpoint, whenever it is stopped. When a checkpoint's meta cannot be read,
/// nothing is deleted.
pub fn prune_pool(run: &Path, live: &[u64]) -> Result<(), RunError> {
    let mut keep: std::collections::HashSet<u64> = live.iter().copied().collect();
    for dir in list(run)? {
        match read_meta(&dir) {
            Ok(meta) => keep.extend(meta.pool_steps),
            Err(_) => return Ok(()),
        }
    }
    let pool = pool_dir(run);
    for entry in std::fs::read_dir(&pool).map_err(io(&pool))?.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let step = name.strip_prefix("step-").and_then(|n| n.strip_suffix(".safetensors")).and_then(|n| n.parse().ok());
        if step.is_some_and(|s| !keep.contains(&s)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Removes what an interrupted write left behind: temporary checkpoint folders and temporary
/// weights files (their names start with a dot).
pub fn remove_leftovers(run: &Path) {
    for dir in [run.to_path_buf(), checkpoints_dir(run), pool_dir(run)] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.filter_map(|e| e.ok()) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp-") || name.starts_with(".old-") {
                let _ = std::fs::remove_dir_all(entry.path());
            } else if name.starts_with('.') && name.contains(".tmp-") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Checkpoint folders, oldest first.
pub fn list(run: &Path) -> Result<Vec<PathBuf>, RunError> {
    let dir = checkpoints_dir(run);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(io(&dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("step-")))
        .collect();
    v.sort();
    Ok(v)
}

/// Reads a checkpoint folder's `meta.json`; an error when it is missing, corrupt or of
/// another [`META_FORMAT`].
pub fn read_meta(dir: &Path) -> Result<Meta, RunError> {
    let path = dir.join("meta.json");
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let meta: Meta = serde_json::from_str(&text)
        .map_err(|e| RunError::Meta { path: path.clone(), reason: format!("corrupt: {e}") })?;
    if meta.format != META_FORMAT {
        return Err(RunError::Meta { path, reason: format!("format {} (this ddz reads {META_FORMAT})", meta.format) });
    }
    Ok(meta)
}

/// The learner's own weights in a checkpoint of a run that averages them (`[learner] ema`),
/// whose `model.safetensors` is then the average: what plays is the average, what a resumed
/// run goes on learning from is this.
pub const LEARNER_FILE: &str = "learner.safetensors";

/// The bidding network's file in a checkpoint folder.
pub const BID_FILE: &str = "bid.safetensors";

/// The newest checkpoint of a run.
pub fn latest(run: &Path) -> Result<PathBuf, RunError> {
    list(run)?.pop().ok_or_else(|| RunError::None(checkpoints_dir(run)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_of_interrupted_writes_are_removed_and_nothing_else() {
        let run = std::env::temp_dir().join(format!("ddz-leftovers-{}", std::process::id()));
        let keep = [checkpoints_dir(&run).join("step-000000001"), pool_file(&run, 1), config_file(&run)];
        let stale = [
            checkpoints_dir(&run).join(".tmp-step-000000002-99"),
            checkpoints_dir(&run).join(".old-step-000000001-99"),
            pool_dir(&run).join(".step-000000002.tmp-99.safetensors"),
            run.join(".config.toml.tmp-99"),
        ];
        for dir in [&keep[0], &stale[0], &stale[1]] {
            std::fs::create_dir_all(dir).unwrap();
        }
        for file in [&keep[1], &keep[2], &stale[2], &stale[3]] {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, b"x").unwrap();
        }
        remove_leftovers(&run);
        assert!(keep.iter().all(|p| p.exists()) && stale.iter().all(|p| !p.exists()));
        write_atomically(&config_file(&run), "y").unwrap();
        assert_eq!(std::fs::read_to_string(config_file(&run)).unwrap(), "y");
        assert_eq!(std::fs::read_dir(&run).unwrap().count(), 3, "no temporary file is left");
        std::fs::remove_dir_all(&run).unwrap();
    }

    #[test]
    fn a_run_folder_is_held_by_one_session_at_a_time() {
        let dir = std::env::temp_dir().join(format!("ddz-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let held = lock(&dir).unwrap();
        let e = lock(&dir).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, RunError::Locked { .. }), "{text}");
        assert!(text.contains(&format!("pid {}", std::process::id())) && text.contains("--run-dir"), "{text}");
        drop(held);
        let again = lock(&dir).expect("free once the holder is gone");
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
