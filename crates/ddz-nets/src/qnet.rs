//! The Q network's forward pass without libtorch: the same function as the trainer's network
//! (`ddz::model::QNet`), read from the same weights.
//!
//! `q = head(relu(Ws·trunk(s) + Wa·features(a)))` for every legal play of a batch of
//! decisions: the trunk runs once per state, each play adds a light head. The state's and the
//! play's first layers add the weight rows of their non-zero features only ([`crate::kernels`]).

use crate::config::{
    HAND_CLASSES, HISTORY_ROUND, HistoryEncoder, LAIZI_TOP, MAX_LAIZI_TOP, MAX_MARGIN, MAX_PRUNE_MARGIN, ModelConfig,
    NetError, PRUNE_MARGIN, SCORE_MARGIN, TWO_PLAYER_MARK,
};
use crate::kernels::{Kernel, Linear, Lstm, relu};
use crate::weights::{Weights, WeightsError, weights_file};
use ddz_engine::encode::{HIDDEN_RANKS, HISTORY_LEN, OFF_HISTORY, OFF_ROLE, ORACLE_DIM, PLANE, STATE_DIM};
use std::path::Path;

/// Q of every play of a batch of decisions, and their expected points when the network has a
/// score head.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    /// Q of each play, in the order of the plays.
    pub q: Vec<f32>,
    /// Expected game points of each play; `None` without a score head.
    pub points: Option<Vec<f32>>,
}

/// What values the plays of decisions: this crate's [`QNetwork`], or the trainer's libtorch
/// network (so that an agent, a benchmark or a check runs the same code over either).
pub trait QValues: Send {
    /// The network's sizes and switches (its margins and cuts included).
    fn config(&self) -> &ModelConfig;
    /// Q (and expected points, with a score head) of `actions` (N rows of play features), the
    /// i-th belonging to state `owner[i]` of `states` (B rows of `STATE_DIM`).
    fn values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Values;
    /// The score head's margin, or `None` without a score head.
    fn score_margin(&self) -> Option<f32> {
        let config = self.config();
        config.score_head.then_some(config.score_margin as f32)
    }
}

impl QValues for QNetwork {
    fn config(&self) -> &ModelConfig {
        &self.config
    }
    fn values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Values {
        self.values_guided(states, actions, owner, None)
    }
}

/// One network of the Q network (the shared one, or one role's).
#[derive(Clone, Debug)]
struct Tower {
    /// State features read: the first `inputs` of each state row.
    inputs: usize,
    history: Option<Lstm>,
    trunk0: Linear,
    oracle_in: Option<Linear>,
    trunk: Vec<Linear>,
    head_state: Linear,
    head_action: Linear,
    /// The hidden-hand prediction and its softmax into the head's first layer.
    hands: Option<(Linear, Linear)>,
    head_out: Vec<Linear>,
    q: Linear,
    points: Option<Linear>,
}

/// The Q network, torch-free: a shared network or one per role, built from a ddz checkpoint.
/// `Sync`: any number of threads may ask it at once.
#[derive(Clone, Debug)]
pub struct QNetwork {
    config: ModelConfig,
    towers: Vec<Tower>,
    kernel: Kernel,
    version: u64,
}

impl QNetwork {
    /// The network saved in `path` (a `.safetensors` file, or a checkpoint folder holding
    /// `model.safetensors`); its sizes and switches are read from the tensors' names and shapes,
    /// its margins from their tensors.
    pub fn load(path: &Path) -> Result<QNetwork, WeightsError> {
        let file = weights_file(path);
        let weights = Weights::read(&file)?;
        QNetwork::from_weights(&weights).map_err(|e| WeightsError::Mismatch { path: file, reason: e.into() })
    }

    /// The network these weights (a checkpoint's, or the trainer's export) describe.
    pub fn from_weights(weights: &Weights) -> Result<QNetwork, NetError> {
        let config = ModelConfig::infer(&weights.shapes())?;
        QNetwork::with_config(&config, weights)
    }

    /// The network of `config` (whose sizes must be those of the weights) with `weights`; the
    /// margins and cuts saved as tensors are read back into the config.
    pub fn with_config(config: &ModelConfig, weights: &Weights) -> Result<QNetwork, NetError> {
        config.validate()?;
        weights.fits_shapes(&config.tensor_shapes())?;
        let mut config = config.clone();
        read_markers(&mut config, weights)?;
        let towers = config.tower_prefixes().iter().map(|p| Tower::new(&config, weights, p)).collect();
        Ok(QNetwork { config, towers, kernel: Kernel::detect(), version: weights.version })
    }

    /// A network of `config` whose weights are all zero (every Q is 0) and whose margins and
    /// cuts are the config's: what holds the place of weights not yet received.
    pub fn zeros(config: &ModelConfig) -> Result<QNetwork, NetError> {
        config.validate()?;
        let mut weights = Weights::zeros(&config.tensor_shapes());
        set_markers(config, &mut weights);
        QNetwork::with_config(config, &weights)
    }

    /// A network of `config` with weights drawn from `seed` ([`Weights::random`]) and the
    /// config's margins and cuts: some network, for tests and examples.
    pub fn random(config: &ModelConfig, seed: u64) -> Result<QNetwork, NetError> {
        config.validate()?;
        let mut weights = Weights::random(&config.tensor_shapes(), seed);
        set_markers(config, &mut weights);
        QNetwork::with_config(config, &weights)
    }

    /// Takes newer weights of the same network (the trainer's actors, at each publish).
    pub fn update(&mut self, weights: &Weights) -> Result<(), NetError> {
        *self = QNetwork::with_config(&self.config, weights)?;
        Ok(())
    }

    /// The layer sizes and switches, with the margins the weights hold.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The score head's margin, or `None` without a score head.
    pub fn score_margin(&self) -> Option<f32> {
        QValues::score_margin(self)
    }

    /// [`QValues::values`]: the play-time pass.
    pub fn values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Values {
        self.values_guided(states, actions, owner, None)
    }

    /// The version of the weights it was built from (the trainer's step; 0 from a file).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Forces a build of the kernels (tests compare them; the default is the CPU's fastest).
    pub fn with_kernel(mut self, kernel: Kernel) -> QNetwork {
        self.kernel = kernel;
        self
    }

    /// Q for `actions` (N rows of the network's play features), the i-th belonging to state
    /// `owner[i]` of `states` (B rows of `STATE_DIM`): the play-time pass.
    pub fn q_values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Vec<f32> {
        self.values_guided(states, actions, owner, None).q
    }

    /// [`QValues::values`] with the oracle's planes (B × ORACLE_DIM) and their weight:
    /// training's actors while oracle guiding is being withdrawn. Play never passes them.
    pub fn values_guided(
        &self,
        states: &[f32],
        actions: &[f32],
        owner: &[i64],
        oracle: Option<(&[f32], f64)>,
    ) -> Values {
        let width = self.config.action_layout().dim();
        assert!(states.len().is_multiple_of(STATE_DIM), "states are rows of {STATE_DIM} features");
        assert_eq!(actions.len(), owner.len() * width, "one row of {width} play features per owner");
        let b = states.len() / STATE_DIM;
        assert!(owner.iter().all(|&o| o >= 0 && (o as usize) < b), "every owner is one of the {b} states");
        let oracle = oracle.filter(|&(_, w)| w > 0.0 && self.config.oracle).map(|(p, w)| (p, w as f32));
        if let Some((planes, _)) = oracle {
            assert_eq!(planes.len(), b * ORACLE_DIM, "one oracle row per state");
        }
        let owner: Vec<usize> = owner.iter().map(|&o| o as usize).collect();
        if self.towers.len() == 1 {
            return self.towers[0].forward(self.kernel, states, actions, &owner, oracle);
        }
        // Route by role: each tower sees its states and their plays, with owners renumbered
        // within the tower; the values go back to the callers' order.
        let role = |s: usize| {
            let r = &states[s * STATE_DIM + OFF_ROLE..s * STATE_DIM + OFF_ROLE + 3];
            (1..3).fold(0, |best, i| if r[i] > r[best] { i } else { best })
        };
        let roles: Vec<usize> = (0..b).map(role).collect();
        let n = owner.len();
        let mut q = vec![0.0f32; n];
        let mut points = self.config.score_head.then(|| vec![0.0f32; n]);
        for (r, tower) in self.towers.iter().enumerate() {
            let own: Vec<usize> = (0..b).filter(|&s| roles[s] == r).collect();
            if own.is_empty() {
                continue;
            }
            let mut local = vec![usize::MAX; b];
            own.iter().enumerate().for_each(|(k, &s)| local[s] = k);
            let plays: Vec<usize> = (0..n).filter(|&i| roles[owner[i]] == r).collect();
            let sub_states: Vec<f32> =
                own.iter().flat_map(|&s| &states[s * STATE_DIM..(s + 1) * STATE_DIM]).copied().collect();
            let sub_actions: Vec<f32> =
                plays.iter().flat_map(|&i| &actions[i * width..(i + 1) * width]).copied().collect();
            let sub_owner: Vec<usize> = plays.iter().map(|&i| local[owner[i]]).collect();
            let sub_oracle: Option<(Vec<f32>, f32)> = oracle.map(|(p, w)| {
                (own.iter().flat_map(|&s| &p[s * ORACLE_DIM..(s + 1) * ORACLE_DIM]).copied().collect(), w)
            });
            let out = tower.forward(
                self.kernel,
                &sub_states,
                &sub_actions,
                &sub_owner,
                sub_oracle.as_ref().map(|(p, w)| (p.as_slice(), *w)),
            );
            for (k, &i) in plays.iter().enumerate() {
                q[i] = out.q[k];
            }
            if let (Some(all), Some(part)) = (points.as_mut(), out.points) {
                plays.iter().enumerate().for_each(|(k, &i)| all[i] = part[k]);
            }
        }
        Values { q, points }
    }
}

/// The config's margins and cuts into their tensors (and the two-player marker stays 0).
fn set_markers(config: &ModelConfig, weights: &mut Weights) {
    for (name, _, data) in &mut weights.tensors {
        match name.as_str() {
            SCORE_MARGIN => data[0] = config.score_margin as f32,
            PRUNE_MARGIN => data[0] = config.prune_margin as f32,
            LAIZI_TOP => data[0] = config.laizi_top as f32,
            TWO_PLAYER_MARK => data[0] = 0.0,
            _ => {}
        }
    }
}

/// The margins and cuts the weights hold, checked as libtorch's network checks them.
fn read_markers(config: &mut ModelConfig, weights: &Weights) -> Result<(), NetError> {
    let value = |name: &str| weights.get(name).map(|v| v[0] as f64);
    if let Some(m) = value(SCORE_MARGIN) {
        if m.is_nan() || !(0.0..=MAX_MARGIN).contains(&m) {
            return Err(NetError::Mismatch(format!(
                "score_margin {m}: a margin in game points from 0 to {MAX_MARGIN}"
            )));
        }
        config.score_margin = m as f32 as f64;
    }
    if let Some(m) = value(PRUNE_MARGIN) {
        if !(0.0..=MAX_PRUNE_MARGIN as f64).contains(&m) || m.fract() != 0.0 {
            return Err(NetError::Mismatch(format!(
                "prune_margin {m}: a whole number of plays from 0 to {MAX_PRUNE_MARGIN}"
            )));
        }
        config.prune_margin = m as u32;
    }
    if let Some(m) = value(LAIZI_TOP) {
        if !(1.0..=MAX_LAIZI_TOP as f64).contains(&m) || m.fract() != 0.0 {
            return Err(NetError::Mismatch(format!(
                "laizi_top {m}: a whole number of plays from 1 to {MAX_LAIZI_TOP}"
            )));
        }
        config.laizi_top = m as u32;
    }
    Ok(())
}

impl Tower {
    /// The tower whose tensors are named `prefix…` in `weights` (which fit the config).
    fn new(config: &ModelConfig, weights: &Weights, prefix: &str) -> Tower {
        let tensor = |name: &str| weights.get(&format!("{prefix}{name}")).expect("the shapes were checked");
        let linear = |name: &str, ins: usize, outs: usize, bias: bool| {
            Linear::from_torch(
                tensor(&format!("{name}.weight")),
                ins,
                outs,
                bias.then(|| tensor(&format!("{name}.bias"))),
            )
        };
        let u = |n: i64| n as usize;
        let history = (config.history == HistoryEncoder::Lstm).then(|| {
            Lstm::from_torch(
                tensor("history.weight_ih_l0"),
                tensor("history.weight_hh_l0"),
                tensor("history.bias_ih_l0"),
                tensor("history.bias_hh_l0"),
                u(config.history_size),
            )
        });
        let t0 = u(config.trunk[0]);
        let trunk = config
            .trunk
            .windows(2)
            .enumerate()
            .map(|(i, p)| linear(&format!("trunk{}", i + 1), u(p[0]), u(p[1]), true))
            .collect();
        let last = u(*config.trunk.last().expect("a validated config has a trunk"));
        let head = u(config.head);
        let classes = HIDDEN_RANKS * HAND_CLASSES as usize;
        let mut width = head;
        let head_out = config
            .head_hidden
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let layer = linear(&format!("head{i}"), width, u(n), true);
                width = u(n);
                layer
            })
            .collect();
        Tower {
            inputs: config.inputs,
            history,
            trunk0: linear("trunk0", config.first_inputs(), t0, true),
            oracle_in: config.oracle.then(|| linear("oracle_in", ORACLE_DIM, t0, false)),
            trunk,
            head_state: linear("head_state", last, head, true),
            head_action: linear("head_action", config.action_layout().dim(), head, false),
            hands: config
                .hand_prediction
                .then(|| (linear("hands", last, classes, true), linear("hands_in", classes, head, false))),
            head_out,
            q: linear("q", width, 1, true),
            points: config.score_head.then(|| linear("points", width, 1, true)),
        }
    }

    /// The trunk's first layer over B states: their features, with the history planes read by
    /// the LSTM when there is one.
    fn first_layer(&self, kernel: Kernel, states: &[f32], b: usize, out: &mut [f32]) {
        let Some(lstm) = &self.history else {
            return self.trunk0.sparse(kernel, states, STATE_DIM, b, false, out);
        };
        let (width, after) = (self.trunk0.ins, OFF_HISTORY + HISTORY_LEN * PLANE);
        let rest = self.inputs - after;
        let mut x = vec![0.0f32; b * width];
        for (s, row) in states.chunks_exact(STATE_DIM).zip(x.chunks_exact_mut(width)) {
            row[..OFF_HISTORY].copy_from_slice(&s[..OFF_HISTORY]);
            row[OFF_HISTORY..OFF_HISTORY + rest].copy_from_slice(&s[after..self.inputs]);
            // The block holds the most recent play first; the rounds go in oldest first.
            let round = HISTORY_ROUND * PLANE;
            let steps = (0..HISTORY_LEN / HISTORY_ROUND).rev().map(|k| &s[OFF_HISTORY + k * round..][..round]);
            lstm.last_output(kernel, steps, &mut row[OFF_HISTORY + rest..]);
        }
        self.trunk0.sparse(kernel, &x, width, b, false, out)
    }

    fn forward(
        &self,
        kernel: Kernel,
        states: &[f32],
        actions: &[f32],
        owner: &[usize],
        oracle: Option<(&[f32], f32)>,
    ) -> Values {
        let b = states.len() / STATE_DIM;
        let mut h = vec![0.0f32; b * self.trunk0.outs];
        self.first_layer(kernel, states, b, &mut h);
        if let (Some(layer), Some((planes, weight))) = (&self.oracle_in, oracle) {
            let mut extra = vec![0.0f32; h.len()];
            layer.sparse(kernel, planes, ORACLE_DIM, b, false, &mut extra);
            h.iter_mut().zip(&extra).for_each(|(h, e)| *h += e * weight);
        }
        relu(&mut h);
        for layer in &self.trunk {
            let mut next = vec![0.0f32; b * layer.outs];
            layer.rows(kernel, &h, b, &mut next);
            relu(&mut next);
            h = next;
        }
        let head = self.head_state.outs;
        let mut s = vec![0.0f32; b * head];
        self.head_state.rows(kernel, &h, b, &mut s);
        if let Some((predict, feed)) = &self.hands {
            let mut p = vec![0.0f32; b * predict.outs];
            predict.rows(kernel, &h, b, &mut p);
            p.chunks_exact_mut(HAND_CLASSES as usize).for_each(softmax);
            let mut fed = vec![0.0f32; b * head];
            feed.rows(kernel, &p, b, &mut fed);
            s.iter_mut().zip(&fed).for_each(|(s, f)| *s += f);
        }
        // Each play: its state's head input plus its own features' rows, then the head.
        let n = owner.len();
        let mut z = vec![0.0f32; n * head];
        for (row, &o) in z.chunks_exact_mut(head).zip(owner) {
            row.copy_from_slice(&s[o * head..(o + 1) * head]);
        }
        self.head_action.sparse(kernel, actions, self.head_action.ins, n, true, &mut z);
        relu(&mut z);
        for layer in &self.head_out {
            let mut next = vec![0.0f32; n * layer.outs];
            layer.rows(kernel, &z, n, &mut next);
            relu(&mut next);
            z = next;
        }
        let mut q = vec![0.0f32; n];
        self.q.rows(kernel, &z, n, &mut q);
        let points = self.points.as_ref().map(|layer| {
            let mut p = vec![0.0f32; n];
            layer.rows(kernel, &z, n, &mut p);
            p
        });
        Values { q, points }
    }
}

/// Softmax in place (one rank's count classes).
fn softmax(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    x.iter_mut().for_each(|v| *v = (*v - max).exp());
    let sum: f32 = x.iter().sum();
    x.iter_mut().for_each(|v| *v /= sum);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HistoryEncoder;
    use ddz_engine::encode::ACTION_DIM;

    #[test]
    fn a_random_network_writes_reads_back_and_refuses_what_does_not_fit() {
        let config = ModelConfig {
            trunk: vec![16, 8],
            head: 8,
            head_hidden: vec![4],
            per_role: true,
            history: HistoryEncoder::Lstm,
            history_size: 5,
            score_head: true,
            score_margin: 0.5,
            ..Default::default()
        };
        let net = QNetwork::random(&config, 3).unwrap();
        assert_eq!(net.config(), &config);
        let states: Vec<f32> = (0..2 * STATE_DIM).map(|i| (i % 7 == 0) as u8 as f32).collect();
        let actions: Vec<f32> = (0..3 * ACTION_DIM).map(|i| (i % 5 == 0) as u8 as f32).collect();
        let v = net.values(&states, &actions, &[0, 1, 1]);
        assert!(v.q.iter().all(|q| q.is_finite()) && v.points.is_some());
        assert_ne!(v, QNetwork::random(&config, 4).unwrap().values(&states, &actions, &[0, 1, 1]), "the seed draws");
        let file = std::env::temp_dir().join(format!("ddz-nets-random-{}.safetensors", std::process::id()));
        let weights = Weights::random(&config.tensor_shapes(), 3);
        weights.write(&file).unwrap();
        let back = QNetwork::load(&file).unwrap();
        assert!(back.config().per_role);
        // A tensor of another shape is named with both shapes.
        let mut odd = weights.clone();
        let at = odd.tensors.iter().position(|(n, _, _)| n == "landlord.q.weight").unwrap();
        odd.tensors[at].1 = vec![1, 3];
        odd.tensors[at].2.truncate(3);
        let e = QNetwork::with_config(&config, &odd).unwrap_err().to_string();
        assert!(e.contains("landlord.q.weight") && e.contains("[1, 3]") && e.contains("[1, 4]"), "{e}");
        assert!(QNetwork::zeros(&config).unwrap().values(&states, &actions, &[0, 1, 1]).q.iter().all(|&q| q == 0.0));
        // A file whose network reads another feature layout is refused, saying which.
        let mut bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes[..200]).into_owned();
        assert!(text.contains(crate::config::FEATURE_LAYOUT), "the file names its layout: {text}");
        let at = bytes
            .windows(crate::config::FEATURE_LAYOUT.len())
            .position(|w| w == crate::config::FEATURE_LAYOUT.as_bytes())
            .unwrap();
        *bytes[at..].iter_mut().find(|b| **b == b'2').unwrap() = b'9';
        std::fs::write(&file, &bytes).unwrap();
        let e = QNetwork::load(&file).unwrap_err().to_string();
        assert!(e.contains("ddz-features-9") && e.contains("this ddz encodes ddz-features-2"), "{e}");
        std::fs::remove_file(&file).unwrap();
    }
}
