//! Checkpoints of a run written and read back by the trainer: the networks' weights and
//! `meta.json` in one folder, renamed into place whole. The folder's layout and the reading
//! that play needs are [`crate::run`]'s.

use crate::model::bidnet::BidNet;
use crate::model::{QNet, WeightsError, load_weights_file, save_weights_file};
use crate::run::{BID_FILE, LEARNER_FILE, Meta, RunError, checkpoints_dir, io, list, read_meta};
use std::path::{Path, PathBuf};

/// Writes a checkpoint and keeps only the newest `keep_last`.
pub fn save(run: &Path, net: &QNet, meta: &Meta, keep_last: usize) -> Result<PathBuf, RunError> {
    save_with_bid(run, net, Extras::default(), meta, keep_last)
}

/// What a checkpoint may hold beside the play network.
#[derive(Default, Clone, Copy)]
pub struct Extras<'a> {
    /// The bidding network ([`BID_FILE`]).
    pub bid: Option<&'a BidNet>,
    /// The moving average of the play network's weights (`[learner] ema`): saved as the
    /// checkpoint's network, `model.safetensors`, with the learner's own weights beside it in
    /// [`LEARNER_FILE`].
    pub average: Option<&'a QNet>,
}

/// [`save`], with the bidding network and the weights' average beside the play network when
/// there are.
pub fn save_with_bid(
    run: &Path,
    net: &QNet,
    extras: Extras<'_>,
    meta: &Meta,
    keep_last: usize,
) -> Result<PathBuf, RunError> {
    let dir = checkpoints_dir(run);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let name = format!("step-{:09}", meta.step);
    let tmp = dir.join(format!(".tmp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    match extras.average {
        Some(average) => {
            save_weights_file(average, &tmp.join("model.safetensors"))?;
            save_weights_file(net, &tmp.join(LEARNER_FILE))?;
        }
        None => save_weights_file(net, &tmp.join("model.safetensors"))?,
    }
    if let Some(bid) = extras.bid {
        bid.save(&tmp.join(BID_FILE))?;
    }
    let meta_path = tmp.join("meta.json");
    let text = serde_json::to_string_pretty(meta).map_err(|e| io(&meta_path)(e.into()))?;
    std::fs::write(&meta_path, text).map_err(io(&meta_path))?;
    let final_dir = dir.join(&name);
    if final_dir.exists() {
        // A checkpoint of the same step: move it aside rather than delete it first, so that a
        // crash in between leaves a checkpoint under one name or the other.
        let aside = dir.join(format!(".old-{name}-{}", std::process::id()));
        std::fs::rename(&final_dir, &aside).map_err(io(&final_dir))?;
        std::fs::rename(&tmp, &final_dir).map_err(io(&final_dir))?;
        let _ = std::fs::remove_dir_all(&aside);
    } else {
        std::fs::rename(&tmp, &final_dir).map_err(io(&final_dir))?;
    }
    let all = list(run)?;
    for old in all.iter().take(all.len().saturating_sub(keep_last)) {
        let _ = std::fs::remove_dir_all(old);
    }
    Ok(final_dir)
}

/// Reads a checkpoint's meta and loads the learner's weights into `net` (which must match its
/// model): [`LEARNER_FILE`] where the run averaged its weights, else `model.safetensors`.
pub fn load(dir: &Path, net: &mut QNet) -> Result<Meta, RunError> {
    let meta = read_meta(dir)?;
    if &meta.model != net.config() {
        return Err(RunError::Meta {
            path: dir.join("meta.json"),
            reason: format!("model {:?} in the checkpoint, {:?} in the config", meta.model, net.config()),
        });
    }
    let learner = dir.join(LEARNER_FILE);
    let file = if learner.is_file() { learner } else { dir.join("model.safetensors") };
    load_weights_file(net, &file)?;
    Ok(meta)
}

/// Loads a checkpoint's bidding network into `net`; a checkpoint without one leaves `net` as
/// it is (a run that starts bidding from a checkpoint of fixed-landlord play).
pub fn load_bid(dir: &Path, net: &mut BidNet) -> Result<(), RunError> {
    let path = dir.join(BID_FILE);
    if path.is_file() {
        // Copied into the network in place: its optimizer holds on to its variables.
        let saved = BidNet::load(&path)?;
        net.vs.copy(&saved.vs).map_err(|e| WeightsError::Mismatch { path, reason: e.into() })?;
    }
    Ok(())
}
