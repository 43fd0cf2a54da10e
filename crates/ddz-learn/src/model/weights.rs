//! Weights on disk as safetensors: atomic writes, and loads that say exactly what is wrong.

use super::qnet::QNet;
use crate::error::Cause;
use std::path::Path;

pub use ddz_nets::WeightsError;

/// Writes the network's weights to `path` (a `.safetensors` file) through a temporary file and a
/// rename, so a crash never leaves a half-written checkpoint under the final name.
pub fn save_weights_file(net: &QNet, path: &Path) -> Result<(), WeightsError> {
    save_var_store(&net.vs, path)
}

/// Loads a small network's variables from a file written by [`save_var_store`], checking the
/// header first (libtorch's reader can abort on malformed ones).
pub(crate) fn load_var_store(vs: &mut tch::nn::VarStore, path: &Path) -> Result<(), WeightsError> {
    if !path.is_file() {
        return Err(WeightsError::NotFound(path.to_path_buf()));
    }
    check_safetensors_header(path)?;
    vs.load(path).map_err(|e| WeightsError::Mismatch { path: path.to_path_buf(), reason: e.into() })
}

/// Writes any network's variables the same way (temporary file, then rename).
/// The file says which feature layout its network reads (`ddz_nets::weights::LAYOUT_KEY`).
pub(crate) fn save_var_store(vs: &tch::nn::VarStore, path: &Path) -> Result<(), WeightsError> {
    super::qnet::export_store(vs, 0).write(path)
}

/// Loads weights from `path` into `net`, checking every name and shape first.
pub fn load_weights_file(net: &mut QNet, path: &Path) -> Result<(), WeightsError> {
    if !path.is_file() {
        return Err(WeightsError::NotFound(path.to_path_buf()));
    }
    let corrupt = |reason: Cause| WeightsError::Corrupt { path: path.to_path_buf(), reason };
    let mismatch = |reason: Cause| WeightsError::Mismatch { path: path.to_path_buf(), reason };
    // libtorch's reader can abort on some malformed headers; check the header's shape first.
    check_safetensors_header(path)?;
    let tensors = tch::Tensor::read_safetensors(path).map_err(|e| corrupt(e.into()))?;
    let vars = net.vs.variables();
    if tensors.len() != vars.len() {
        return Err(mismatch(format!("{} tensors in the file, {} in the network", tensors.len(), vars.len()).into()));
    }
    for (name, t) in &tensors {
        let var =
            vars.get(name).ok_or_else(|| mismatch(format!("the file has {name}, the network does not").into()))?;
        if var.size() != t.size() {
            let mut reason = format!("{name}: {:?} in the file, {:?} in the network", t.size(), var.size());
            let width = |size: Vec<i64>| size.get(1).map(|&n| n as usize);
            if name.ends_with("trunk0.weight")
                && width(t.size()) == Some(crate::encode::STATE_DIM_V1)
                && width(var.size()) == Some(crate::encode::STATE_DIM)
            {
                reason += " (a network of the first state layout: it still evaluates and plays, and \
                           `ddz train --init-from` starts a new run from it, but its run cannot resume)";
            }
            return Err(mismatch(reason.into()));
        }
        if !bool::try_from(t.isfinite().all()).unwrap_or(false) {
            return Err(corrupt(format!("{name} holds values that are not finite (NaN or infinite)").into()));
        }
    }
    tch::no_grad(|| {
        for (name, t) in &tensors {
            let mut v = vars[name].shallow_clone();
            v.copy_(&t.to_kind(v.kind()).to_device(v.device()));
        }
    });
    net.sync_margin().map_err(|e| mismatch(e.into()))
}

/// Starts `net` from the weights in `path` (`--init-from`). A network saved with the first
/// state layout (`STATE_DIM_V1` features) is widened: its first layer gets zero weights for the
/// features added since, so the widened network computes exactly the same values and learns to
/// use the new features from there. A shared network starts each network of a per-role one.
pub fn init_weights_from(net: &mut QNet, path: &Path) -> Result<(), WeightsError> {
    use crate::encode::{STATE_DIM, STATE_DIM_V1};
    let file = weights_file(path);
    let source = load_network(&file)?;
    let mut weights = source.export(0);
    if source.config().inputs == STATE_DIM_V1 && net.config().inputs == STATE_DIM {
        for (name, shape, data) in weights.tensors.iter_mut().filter(|(n, _, _)| n.ends_with("trunk0.weight")) {
            let (rows, old) = (shape[0] as usize, shape[1] as usize);
            debug_assert_eq!(old, STATE_DIM_V1, "{name}");
            let mut wide = vec![0.0; rows * STATE_DIM];
            for r in 0..rows {
                wide[r * STATE_DIM..r * STATE_DIM + old].copy_from_slice(&data[r * old..(r + 1) * old]);
            }
            *data = wide;
            shape[1] = STATE_DIM as i64;
        }
    }
    if !source.config().per_role && net.config().per_role {
        // Each role's network starts as a copy of the shared one, which already tells the
        // roles apart by the role input.
        let shared = std::mem::take(&mut weights.tensors);
        weights.tensors = crate::game::Role::ALL
            .iter()
            .flat_map(|role| {
                shared
                    .iter()
                    .map(move |(name, shape, data)| (format!("{}.{name}", role.name()), shape.clone(), data.clone()))
            })
            .collect();
    }
    net.import(&weights).map_err(|e| WeightsError::Mismatch { path: file, reason: e.into() })
}

use ddz_nets::weights::weights_file;

/// Builds a CPU network shaped like the one saved in `path` (a `.safetensors` file, or a
/// checkpoint folder holding `model.safetensors`) and loads it.
pub fn load_network(path: &Path) -> Result<QNet, WeightsError> {
    let file = weights_file(path);
    if !file.is_file() {
        return Err(WeightsError::NotFound(file));
    }
    check_safetensors_header(&file)?;
    let tensors = tch::Tensor::read_safetensors(&file)
        .map_err(|e| WeightsError::Corrupt { path: file.clone(), reason: e.into() })?;
    let shapes: Vec<(String, Vec<i64>)> = tensors.iter().map(|(n, t)| (n.clone(), t.size())).collect();
    let config = super::ModelConfig::infer(&shapes)
        .map_err(|e| WeightsError::Mismatch { path: file.clone(), reason: e.into() })?;
    let mut net = QNet::cpu(&config, 0);
    load_weights_file(&mut net, &file)?;
    Ok(net)
}

/// A safetensors file starts with an 8-byte little-endian header length and a JSON header;
/// [`WeightsError::Corrupt`] says what of it is wrong.
pub(crate) fn check_safetensors_header(path: &Path) -> Result<(), WeightsError> {
    let corrupt = |reason: Cause| WeightsError::Corrupt { path: path.to_path_buf(), reason };
    let bytes = std::fs::read(path).map_err(|e| corrupt(e.into()))?;
    ddz_nets::weights::check_header(&bytes).map_err(|why| corrupt(why.into()))?;
    ddz_nets::weights::check_layout(&bytes)
        .map_err(|why| WeightsError::Mismatch { path: path.to_path_buf(), reason: why.into() })
}

/// Published weights as safetensors bytes (f32 tensors; the version in the metadata), for
/// actors in other processes; [`WeightsError::Bytes`] when a tensor's data does not fill its
/// shape.
pub fn weights_to_bytes(weights: &super::Weights) -> Result<Vec<u8>, WeightsError> {
    weights.to_bytes()
}

/// The weights in safetensors bytes written by [`weights_to_bytes`]; the reason when they are not.
pub fn weights_from_bytes(bytes: &[u8]) -> Result<super::Weights, WeightsError> {
    super::Weights::from_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelConfig;

    #[test]
    fn save_load_and_clear_errors() {
        let dir = std::env::temp_dir().join(format!("ddz-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], per_role: false, ..Default::default() };
        let net = QNet::cpu(&cfg, 11);
        let path = dir.join("w.safetensors");
        save_weights_file(&net, &path).unwrap();
        let mut other = QNet::cpu(&cfg, 12);
        load_weights_file(&mut other, &path).unwrap();
        assert_eq!(other.export(0).tensors, net.export(0).tensors);

        let missing = load_weights_file(&mut other, &dir.join("nope.safetensors")).unwrap_err();
        assert!(matches!(missing, WeightsError::NotFound(_)));

        let bytes = std::fs::read(&path).unwrap();
        let truncated = dir.join("truncated.safetensors");
        std::fs::write(&truncated, &bytes[..bytes.len() - 10]).unwrap();
        let e = load_weights_file(&mut other, &truncated).unwrap_err();
        assert!(matches!(e, WeightsError::Corrupt { .. }), "{e}");
        std::fs::write(&truncated, b"garbage").unwrap();
        assert!(matches!(load_weights_file(&mut other, &truncated).unwrap_err(), WeightsError::Corrupt { .. }));

        let mut poisoned = net.export(0);
        poisoned.tensors[0].2[0] = f32::NAN;
        other.import(&poisoned).unwrap();
        let nan_path = dir.join("nan.safetensors");
        save_weights_file(&other, &nan_path).unwrap();
        let e = load_weights_file(&mut other, &nan_path).unwrap_err();
        assert!(matches!(e, WeightsError::Corrupt { .. }) && e.to_string().contains("not finite"), "{e}");

        let mut bigger = QNet::cpu(&ModelConfig { trunk: vec![16], ..cfg.clone() }, 13);
        let e = load_weights_file(&mut bigger, &path).unwrap_err();
        assert!(e.to_string().contains("does not match"), "{e}");
        let e = init_weights_from(&mut bigger, &path).unwrap_err();
        assert!(e.to_string().contains("does not match"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn structure_and_pruning_travel_with_the_weights() {
        use crate::encode::{ACTION_DIM, STATE_DIM, STRUCTURE_DIM};
        let dir = std::env::temp_dir().join(format!("ddz-structure-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        let cases = [(false, false, 1), (true, false, 1), (false, true, 3), (true, true, 0)];
        for (hand_structure, prune, prune_margin) in cases {
            let cfg = ModelConfig { hand_structure, prune, prune_margin, ..small.clone() };
            let net = QNet::cpu(&cfg, 21);
            let path = dir.join(format!("n-{hand_structure}-{prune}.safetensors"));
            save_weights_file(&net, &path).unwrap();
            let loaded = load_network(&path).unwrap();
            let c = loaded.config();
            assert_eq!((c.hand_structure, c.prune), (hand_structure, prune));
            assert_eq!(c.prune_margin, if prune { prune_margin } else { 1 }, "a margin is read only where it is on");
            let width = if hand_structure { ACTION_DIM + STRUCTURE_DIM } else { ACTION_DIM };
            assert_eq!(c.action_layout().dim(), width);
            let actions: Vec<f32> = (0..3 * width).map(|i| ((i * 7) % 11) as f32 / 11.0).collect();
            let state = vec![0.5; STATE_DIM];
            assert_eq!(loaded.q_values(&state, &actions, &[0, 0, 0]), net.q_values(&state, &actions, &[0, 0, 0]));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn laizi_top_travels_with_the_weights_and_needs_laizi() {
        use crate::game::Rules;
        let dir = std::env::temp_dir().join(format!("ddz-laizi-top-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small =
            ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], rules: Rules::Laizi, ..Default::default() };
        for top in [0, 1, 100, 10_000] {
            let net = QNet::cpu(&ModelConfig { laizi_top: top, ..small.clone() }, 3);
            let path = dir.join(format!("top-{top}.safetensors"));
            save_weights_file(&net, &path).unwrap();
            let c = load_network(&path).unwrap().config().clone();
            assert_eq!((c.rules, c.laizi_top), (Rules::Laizi, top));
        }
        let standard = ModelConfig { laizi_top: 100, rules: Rules::Standard, ..small.clone() };
        assert!(standard.validate().unwrap_err().to_string().contains("laizi_top = 100 cuts laizi's plays"));
        let e = ModelConfig { laizi_top: 10_001, ..small }.validate().unwrap_err().to_string();
        assert!(e.contains("at most 10000"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_first_layout_network_widens_into_the_same_values() {
        use crate::encode::{ACTION_DIM, STATE_DIM, STATE_DIM_V1};
        let dir = std::env::temp_dir().join(format!("ddz-widen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for per_role in [false, true] {
            let cfg = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], per_role, ..Default::default() };
            let old = QNet::cpu(&ModelConfig { inputs: STATE_DIM_V1, ..cfg.clone() }, 14);
            let path = dir.join(format!("old-{per_role}.safetensors"));
            save_weights_file(&old, &path).unwrap();
            let mut new = QNet::cpu(&cfg, 15);
            let e = load_weights_file(&mut new, &path).unwrap_err().to_string();
            assert!(e.contains("first state layout") && e.contains("--init-from"), "{e}");
            init_weights_from(&mut new, &path).unwrap();
            let states: Vec<f32> = (0..3 * STATE_DIM).map(|i| ((i * 7) % 11) as f32 / 11.0).collect();
            let actions: Vec<f32> = (0..4 * ACTION_DIM).map(|i| ((i * 5) % 13) as f32 / 13.0).collect();
            let owner = [0, 1, 2, 1];
            let (a, b) = (old.q_values(&states, &actions, &owner), new.q_values(&states, &actions, &owner));
            assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-5), "{a:?} vs {b:?}");

            // A checkpoint folder of the current layout starts a run as well.
            let folder = dir.join(format!("step-{per_role}"));
            std::fs::create_dir_all(&folder).unwrap();
            save_weights_file(&new, &folder.join("model.safetensors")).unwrap();
            let mut again = QNet::cpu(&cfg, 16);
            init_weights_from(&mut again, &folder).unwrap();
            assert_eq!(again.export(0).tensors, new.export(0).tensors);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_shared_network_starts_every_network_of_a_per_role_one() {
        use crate::encode::{ACTION_DIM, OFF_ROLE, STATE_DIM, STATE_DIM_V1};
        let dir = std::env::temp_dir().join(format!("ddz-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], per_role: true, ..Default::default() };
        // Of either layout: a first-layout shared network is widened and then copied.
        for inputs in [STATE_DIM, STATE_DIM_V1] {
            let shared = QNet::cpu(&ModelConfig { per_role: false, inputs, ..cfg.clone() }, 17);
            let path = dir.join(format!("shared-{inputs}.safetensors"));
            save_weights_file(&shared, &path).unwrap();
            let mut split = QNet::cpu(&cfg, 18);
            init_weights_from(&mut split, &path).unwrap();
            // States of all three roles get the shared network's values.
            let mut states: Vec<f32> = (0..3 * STATE_DIM).map(|i| ((i * 7) % 11) as f32 / 11.0).collect();
            for role in 0..3 {
                states[role * STATE_DIM + OFF_ROLE..role * STATE_DIM + OFF_ROLE + 3].fill(0.0);
                states[role * STATE_DIM + OFF_ROLE + role] = 1.0;
            }
            let actions: Vec<f32> = (0..4 * ACTION_DIM).map(|i| ((i * 5) % 13) as f32 / 13.0).collect();
            let owner = [0, 1, 2, 1];
            let (a, b) = (shared.q_values(&states, &actions, &owner), split.q_values(&states, &actions, &owner));
            assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-5), "{a:?} vs {b:?}");
        }
        // The other way round stays an error that names the mismatch.
        let split_path = dir.join("split.safetensors");
        save_weights_file(&QNet::cpu(&cfg, 19), &split_path).unwrap();
        let mut shared = QNet::cpu(&ModelConfig { per_role: false, ..cfg.clone() }, 20);
        let e = init_weights_from(&mut shared, &split_path).unwrap_err().to_string();
        assert!(e.contains("does not match"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_shipped_two_hour_network_reads_the_first_layout() {
        use crate::encode::{ACTION_DIM, STATE_DIM, STATE_DIM_V1};
        let net =
            load_network(&Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("models/dmc-2h")).unwrap();
        assert_eq!(net.config().inputs, STATE_DIM_V1);
        assert_eq!(net.q_values(&vec![0.0; STATE_DIM], &vec![0.0; ACTION_DIM], &[0]).len(), 1);
    }
}
