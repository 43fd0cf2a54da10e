//! DouZero's networks (its `douzero` package, 1.1.0): for each role an LSTM of 128 over the 5
//! rows of `z`, its last output joined to `x`, then five dense layers of 512 with ReLU and one
//! output, Q(s, a). Built here with the package's parameter names (`lstm.weight_ih_l0`, …,
//! `dense1.weight` … `dense6.bias`), so its weights load as they are.
//!
//! A DouZero checkpoint folder holds `landlord*.ckpt`, `landlord_up*.ckpt` and
//! `landlord_down*.ckpt` (PyTorch state dicts, as DouZero's trainer writes them; the one with
//! the largest frame count in its name where there are several). On first use they are
//! converted to safetensors with the torch of the project's `.venv` (scripts/douzero_convert.py)
//! into a cache outside the user's folder, keyed by the files' content:
//! `$XDG_CACHE_HOME/ddz/douzero/SHA256/` (or `~/.cache/…`). A folder that already holds
//! `landlord.safetensors`, `landlord_up.safetensors` and `landlord_down.safetensors` loads as
//! it is.

use super::weights::{WeightsError, load_var_store};
use crate::encode::douzero::{CARDS, Observation, Z_COLS, Z_ROWS, x_len};
use crate::game::Role;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tch::nn::{self, Module, RNN};
use tch::{Device, Kind, Tensor};

/// Hidden size of the LSTM and width of the dense layers.
const LSTM_HIDDEN: i64 = 128;
const DENSE: i64 = 512;

/// One role's network.
pub struct DouzeroNet {
    _vs: nn::VarStore,
    lstm: nn::LSTM,
    dense: Vec<nn::Linear>,
}

impl DouzeroNet {
    /// An untrained network for `role` (the weights are loaded over it).
    fn new(role: Role) -> DouzeroNet {
        let vs = nn::VarStore::new(Device::Cpu);
        let root = vs.root();
        let cfg = nn::RNNConfig { batch_first: true, ..Default::default() };
        let lstm = nn::lstm(&root / "lstm", Z_COLS as i64, LSTM_HIDDEN, cfg);
        let mut dense = Vec::new();
        let mut width = x_len(role) as i64 + LSTM_HIDDEN;
        for k in 1..=6 {
            let out = if k == 6 { 1 } else { DENSE };
            dense.push(nn::linear(&root / format!("dense{k}"), width, out, Default::default()));
            width = out;
        }
        DouzeroNet { _vs: vs, lstm, dense }
    }

    /// The network of `role` from a safetensors file of DouZero's parameter names.
    pub fn load(role: Role, path: &Path) -> Result<DouzeroNet, WeightsError> {
        let mut net = DouzeroNet::new(role);
        load_var_store(&mut net._vs, path)?;
        Ok(net)
    }

    /// Q of each candidate play (its 54 card numbers, one row each) at the observation.
    pub fn q_values(&self, obs: &Observation, plays: &[[f32; CARDS]]) -> Vec<f32> {
        let _guard = tch::no_grad_guard();
        let n = plays.len() as i64;
        let z = Tensor::from_slice(&obs.z).view([1, Z_ROWS as i64, Z_COLS as i64]);
        let (out, _) = self.lstm.seq(&z);
        let last = out.select(1, Z_ROWS as i64 - 1).expand([n, LSTM_HIDDEN], false);
        let state = Tensor::from_slice(&obs.x_state).view([1, obs.x_state.len() as i64]).expand([n, -1], false);
        let actions = Tensor::from_slice(plays.as_flattened()).view([n, CARDS as i64]);
        let mut h = Tensor::cat(&[last, state, actions], 1);
        for (k, layer) in self.dense.iter().enumerate() {
            h = layer.forward(&h);
            if k < 5 {
                h = h.relu();
            }
        }
        Vec::<f32>::try_from(h.view([n]).to_kind(Kind::Float)).expect("a float tensor")
    }
}

/// The three networks of a DouZero agent, by role.
pub struct DouzeroNets {
    /// The landlord's network.
    pub landlord: DouzeroNet,
    /// The network of the farmer who plays right before the landlord.
    pub landlord_up: DouzeroNet,
    /// The network of the farmer who plays right after the landlord.
    pub landlord_down: DouzeroNet,
}

impl DouzeroNets {
    /// The network of `role`.
    pub fn of(&self, role: Role) -> &DouzeroNet {
        match role {
            Role::Landlord => &self.landlord,
            Role::LandlordUp => &self.landlord_up,
            Role::LandlordDown => &self.landlord_down,
        }
    }

    /// The networks of a DouZero checkpoint folder (converted on first use) or of a converted one.
    pub fn load(dir: &Path) -> Result<DouzeroNets, WeightsError> {
        let converted = converted_folder(dir)?;
        let load = |role: Role| DouzeroNet::load(role, &converted.join(format!("{}.safetensors", role.name())));
        Ok(DouzeroNets {
            landlord: load(Role::Landlord)?,
            landlord_up: load(Role::LandlordUp)?,
            landlord_down: load(Role::LandlordDown)?,
        })
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

/// Where `dir`'s networks are as safetensors: `dir` itself when converted, else the cache
/// folder of its checkpoints' content (converted now if it is not there yet).
fn converted_folder(dir: &Path) -> Result<PathBuf, WeightsError> {
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
