//! `douzero:DIR`: DouZero's checkpoints playing in ddz, natively: DouZero's observation
//! ([`crate::encode::douzero`]) and its networks (the torch-free [`ddz_nets::DouzeroNetwork`]),
//! greedy on Q over the legal plays as DouZero's own `DeepAgent` is (the first of equal values;
//! a lone legal play is made without asking the network). It reads only the seat's view.
//!
//! A DouZero checkpoint folder holds `landlord*.ckpt`, `landlord_up*.ckpt` and
//! `landlord_down*.ckpt` (PyTorch state dicts, as DouZero's trainer writes them; the one with
//! the largest frame count in its name where there are several). On first use they are
//! converted to safetensors with the torch of the project's `.venv` (scripts/douzero_convert.py)
//! into a cache outside the user's folder, keyed by the files' content:
//! `$XDG_CACHE_HOME/ddz/douzero/SHA256/` (or `~/.cache/…`). A folder that already holds
//! `landlord.safetensors`, `landlord_up.safetensors` and `landlord_down.safetensors` loads as
//! it is, with no Python at all (`models/douzero-1h` ships them).

use super::{Agent, Candidate, Turn};
use crate::encode::douzero::{CARDS, Infoset, observe, write_cards};
use crate::game::Role;
use ddz_nets::DouzeroNetwork;
use ddz_nets::WeightsError;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A player with DouZero's three networks (one per role), greedy on their Q (`douzero:DIR`).
pub struct DouzeroAgent {
    /// By role, in [`Role::ALL`] order.
    nets: [DouzeroNetwork; 3],
    name: String,
}

impl DouzeroAgent {
    /// The agent of a DouZero checkpoint folder (converted to safetensors on first use).
    pub fn load(dir: &Path, name: String) -> Result<DouzeroAgent, WeightsError> {
        let converted = converted_folder(dir)?;
        let load = |role: Role| DouzeroNetwork::load(role, &converted.join(format!("{}.safetensors", role.name())));
        let nets = [load(Role::ALL[0])?, load(Role::ALL[1])?, load(Role::ALL[2])?];
        Ok(DouzeroAgent { nets, name })
    }

    /// Q of each play of `turn`, by the network of the seat's role.
    pub fn q_values(&self, turn: Turn<'_>) -> Vec<f32> {
        // A play decision has a landlord, so the infoset is always there.
        let Some(infoset) = Infoset::of(turn.view) else { return vec![0.0; turn.plays.len()] };
        let obs = observe(&infoset);
        let rows: Vec<[f32; CARDS]> = turn
            .plays
            .iter()
            .map(|p| {
                let mut row = [0.0; CARDS];
                write_cards(p.cards, &mut row);
                row
            })
            .collect();
        self.nets[obs.role.index()].q_values(&obs, &rows)
    }
}

impl Agent for DouzeroAgent {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        // The first of equal values, as numpy's argmax in DouZero's DeepAgent.
        crate::search::argmax(&self.q_values(turn))
    }
    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        Some(self.q_values(turn).into_iter().map(Candidate::value).collect())
    }
}

/// The checkpoint file of `role` in `dir`: `ROLE.ckpt`, or `ROLE_weights_FRAMES.ckpt` with the
/// most frames.
fn checkpoint_of(dir: &Path, role: Role) -> Result<PathBuf, WeightsError> {
    let entries = std::fs::read_dir(dir).map_err(|_| WeightsError::NotFound(dir.to_path_buf()))?;
    let mut best: Option<(u64, PathBuf)> = None;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(role.name()).and_then(|r| r.strip_suffix(".ckpt")) else { continue };
        // `landlord_up_weights_5.ckpt` starts with `landlord` too: the rest must not name a role.
        let frames = match rest {
            "" => 0,
            _ => match rest.strip_prefix("_weights_").and_then(|f| f.parse::<u64>().ok()) {
                Some(f) => f,
                None => continue,
            },
        };
        if best.as_ref().is_none_or(|(f, _)| frames > *f) {
            best = Some((frames, entry.path()));
        }
    }
    best.map(|(_, p)| p).ok_or_else(|| WeightsError::NotFound(dir.join(format!("{}*.ckpt", role.name()))))
}

/// Where `dir`'s networks are as safetensors (also for `ddz check-inference`): `dir` itself when converted, else the cache
/// folder of its checkpoints' content (converted now if it is not there yet).
pub fn converted_folder(dir: &Path) -> Result<PathBuf, WeightsError> {
    let files = |d: &Path| Role::ALL.map(|r| d.join(format!("{}.safetensors", r.name())));
    if files(dir).iter().all(|f| f.is_file()) {
        return Ok(dir.to_path_buf());
    }
    if !dir.is_dir() {
        return Err(WeightsError::NotFound(dir.to_path_buf()));
    }
    let ckpts = Role::ALL.map(|r| checkpoint_of(dir, r));
    let mut hash = Sha256::new();
    let mut sources = Vec::new();
    for ckpt in ckpts {
        let ckpt = ckpt?;
        let bytes = std::fs::read(&ckpt).map_err(|_| WeightsError::NotFound(ckpt.clone()))?;
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
        sources.push(ckpt);
    }
    let key: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let cache = cache_root().join(&key);
    if files(&cache).iter().all(|f| f.is_file()) {
        return Ok(cache);
    }
    convert(&sources, &cache)?;
    Ok(cache)
}

fn cache_root() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("ddz").join("douzero")
}

/// Converts the three checkpoints (landlord, landlord_down, landlord_up) into `out` with the
/// configured interpreter's torch ([`crate::scripts`]); the files appear whole or not at all.
fn convert(sources: &[PathBuf], out: &Path) -> Result<(), WeightsError> {
    let fail = |reason: String| WeightsError::Corrupt { path: sources[0].clone(), reason: reason.into() };
    let scripts = crate::scripts::configured().map_err(|e| fail(e.to_string()))?;
    eprintln!("converting DouZero checkpoints to safetensors into {} (first use only)", out.display());
    let mut args = vec![out.as_os_str()];
    args.extend(sources.iter().map(|s| s.as_os_str()));
    scripts.run("douzero_convert.py", &args).map_err(|e| fail(format!("the conversion failed: {e}")))?;
    Ok(())
}
