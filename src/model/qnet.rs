//! Q(s, a) for all legal plays of a decision in one batched pass.
//!
//! The state trunk runs once per decision; each legal play only adds a light head:
//! `q = head(relu(Ws·trunk(s) + Wa·features(a)))`. Splitting the head's first layer this way is
//! the same function as an MLP on `[trunk(s); features(a)]`, at a fraction of the cost when a
//! decision has many legal plays. One network serves all three roles: the role is an input
//! feature, so every decision of the game trains the same weights.

use crate::encode::{ACTION_DIM, STATE_DIM};
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor, nn, nn::Module};

/// Layer sizes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// Hidden sizes of the state trunk.
    pub trunk: Vec<i64>,
    /// Width of the head's first (state + action) layer.
    pub head: i64,
    /// Hidden sizes of the head after that layer.
    pub head_hidden: Vec<i64>,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig { trunk: vec![256, 256], head: 128, head_hidden: vec![64] }
    }
}

impl ModelConfig {
    /// The layer sizes of a saved network, read from its tensor names and shapes.
    pub fn infer(shapes: &[(String, Vec<i64>)]) -> Result<ModelConfig, String> {
        let out_dim = |name: &str| shapes.iter().find(|(n, _)| n == name).map(|(_, s)| s[0]);
        let layers = |prefix: &str| -> Vec<i64> {
            (0..).map_while(|i| out_dim(&format!("{prefix}{i}.weight"))).collect()
        };
        let config = ModelConfig {
            trunk: layers("trunk"),
            head: out_dim("head_state.weight").ok_or("no head_state.weight: not a ddz Q network")?,
            head_hidden: layers("head"),
        };
        config.validate()?;
        Ok(config)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.trunk.is_empty() || self.trunk.iter().chain(&self.head_hidden).chain([&self.head]).any(|&n| n <= 0) {
            return Err("model sizes must be positive and the trunk needs at least one layer".into());
        }
        Ok(())
    }
}

/// A snapshot of all weights, detached from any device or thread (tensors are not `Sync`).
#[derive(Clone, Debug)]
pub struct Weights {
    pub version: u64,
    pub tensors: Vec<(String, Vec<i64>, Vec<f32>)>,
}

pub struct QNet {
    pub vs: nn::VarStore,
    config: ModelConfig,
    trunk: nn::Sequential,
    head_state: nn::Linear,
    head_action: nn::Linear,
    head_out: nn::Sequential,
}

impl QNet {
    pub fn new(config: &ModelConfig, device: Device) -> QNet {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let mut trunk = nn::seq();
        let mut width = STATE_DIM as i64;
        for (i, &n) in config.trunk.iter().enumerate() {
            trunk = trunk.add(nn::linear(&root / format!("trunk{i}"), width, n, Default::default())).add_fn(|x| x.relu());
            width = n;
        }
        let head_state = nn::linear(&root / "head_state", width, config.head, Default::default());
        let no_bias = nn::LinearConfig { bias: false, ..Default::default() };
        let head_action = nn::linear(&root / "head_action", ACTION_DIM as i64, config.head, no_bias);
        let mut head_out = nn::seq();
        let mut w = config.head;
        for (i, &n) in config.head_hidden.iter().enumerate() {
            head_out = head_out.add(nn::linear(&root / format!("head{i}"), w, n, Default::default())).add_fn(|x| x.relu());
            w = n;
        }
        head_out = head_out.add(nn::linear(&root / "q", w, 1, Default::default()));
        QNet { vs, config: config.clone(), trunk, head_state, head_action, head_out }
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// Q for `actions` [N, ACTION_DIM], the i-th belonging to state `owner[i]` of `states`
    /// [B, STATE_DIM]. Returns [N].
    pub fn forward(&self, states: &Tensor, actions: &Tensor, owner: &Tensor) -> Tensor {
        let h = self.head_state.forward(&self.trunk.forward(states));
        let z = (h.index_select(0, owner) + self.head_action.forward(actions)).relu();
        self.head_out.forward(&z).squeeze_dim(-1)
    }

    /// Q for flat feature buffers on the CPU (actors): `states` holds B states, `actions` N plays.
    pub fn q_values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Vec<f32> {
        let b = (states.len() / STATE_DIM) as i64;
        let n = owner.len() as i64;
        let dev = self.device();
        let s = Tensor::from_slice(states).view([b, STATE_DIM as i64]).to_device(dev);
        let a = Tensor::from_slice(actions).view([n, ACTION_DIM as i64]).to_device(dev);
        let o = Tensor::from_slice(owner).to_device(dev);
        let q = tch::no_grad(|| self.forward(&s, &a, &o));
        Vec::<f32>::try_from(q.to_device(Device::Cpu).to_kind(Kind::Float)).expect("q is a float vector")
    }

    /// All weights, copied to host memory.
    pub fn export(&self, version: u64) -> Weights {
        let mut tensors: Vec<(String, Vec<i64>, Vec<f32>)> = self
            .vs
            .variables()
            .into_iter()
            .map(|(name, t)| {
                let shape = t.size();
                let data = Vec::<f32>::try_from(t.detach().to_device(Device::Cpu).flatten(0, -1)).expect("float weights");
                (name, shape, data)
            })
            .collect();
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        Weights { version, tensors }
    }

    /// Copies `weights` in; names and shapes must match this network.
    pub fn import(&mut self, weights: &Weights) -> Result<(), String> {
        let vars = self.vs.variables();
        if vars.len() != weights.tensors.len() {
            return Err(format!("{} tensors given, the network has {}", weights.tensors.len(), vars.len()));
        }
        for (name, shape, data) in &weights.tensors {
            let var = vars.get(name).ok_or_else(|| format!("unknown tensor {name}"))?;
            if &var.size() != shape {
                return Err(format!("tensor {name}: shape {shape:?} given, the network has {:?}", var.size()));
            }
            let src = Tensor::from_slice(data).view(shape.as_slice()).to_device(var.device());
            tch::no_grad(|| {
                let mut v = var.shallow_clone();
                v.copy_(&src);
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_shapes_and_weight_round_trip() {
        crate::runtime::configure_threads(1);
        let cfg = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![4] };
        let net = QNet::new(&cfg, Device::Cpu);
        let states = vec![0.5f32; 2 * STATE_DIM];
        let actions = vec![0.25f32; 3 * ACTION_DIM];
        let q = net.q_values(&states, &actions, &[0, 0, 1]);
        assert_eq!(q.len(), 3);
        assert_eq!(q[0], q[1], "same state and action, same value");
        let mut other = QNet::new(&cfg, Device::Cpu);
        assert_ne!(other.q_values(&states, &actions, &[0, 0, 1]), q);
        other.import(&net.export(1)).unwrap();
        assert_eq!(other.q_values(&states, &actions, &[0, 0, 1]), q);
        let wrong = QNet::new(&ModelConfig { trunk: vec![32], ..cfg }, Device::Cpu);
        assert!(other.import(&wrong.export(2)).unwrap_err().contains("shape"));
    }
}
