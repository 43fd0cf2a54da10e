//! DouZero's networks (its `douzero` package, 1.1.0): for each role an LSTM of 128 over the 5
//! rows of `z`, its last output joined to `x`, then five dense layers of 512 with ReLU and one
//! output, Q(s, a). Built here with the package's parameter names (`lstm.weight_ih_l0`, …,
//! `dense1.weight` … `dense6.bias`), so its weights load as they are.
//!
//! libtorch's build of the networks is kept for `ddz check-inference`, which compares it with
//! the torch-free one that plays (`ddz_nets::DouzeroNetwork`); the folders they load from are
//! found by `ddz::agents::douzero::converted_folder`.

use super::weights::{WeightsError, load_var_store};
use crate::encode::douzero::{CARDS, Observation, Z_COLS, Z_ROWS, x_len};
use crate::game::Role;
use std::path::Path;
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

    /// The networks of a folder of converted DouZero checkpoints (`landlord.safetensors`,
    /// `landlord_down.safetensors`, `landlord_up.safetensors`).
    pub fn load(converted: &Path) -> Result<DouzeroNets, WeightsError> {
        let load = |role: Role| DouzeroNet::load(role, &converted.join(format!("{}.safetensors", role.name())));
        Ok(DouzeroNets {
            landlord: load(Role::Landlord)?,
            landlord_up: load(Role::LandlordUp)?,
            landlord_down: load(Role::LandlordDown)?,
        })
    }
}
