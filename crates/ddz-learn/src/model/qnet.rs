//! Q(s, a) for all legal plays of a decision in one batched pass.
//!
//! The state trunk runs once per decision; each legal play only adds a light head:
//! `q = head(relu(Ws·trunk(s) + Wa·features(a)))`. Splitting the head's first layer this way is
//! the same function as an MLP on `[trunk(s); features(a)]`, at a fraction of the cost when a
//! decision has many legal plays.
//!
//! Either one network serves all three roles (the role is an input feature, so every decision
//! of the game trains the same weights), or each role has its own network (`per_role`), as in
//! DouZero. A per-role network routes each state by its role feature, so callers never name the
//! role; decisions before the landlord is known (bidding) go to the landlord's network.

use crate::encode::{HIDDEN_RANKS, HISTORY_LEN, OFF_HISTORY, OFF_ROLE, ORACLE_DIM, PLANE, STATE_DIM};
use crate::game::{Role, Rules};
use crate::runtime::{self, DeviceError};
use std::sync::Mutex;
use tch::{Device, Kind, Tensor, nn, nn::Module, nn::RNN};

/// What is wrong with a network's sizes or weights.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// Layer sizes that no network can have, or a layout ddz does not read.
    #[error("{0}")]
    Invalid(String),
    /// Weights whose names or shapes do not fit the network.
    #[error("{0}")]
    Mismatch(String),
    /// Weights whose tensors do not fit the network's.
    #[error(transparent)]
    Shapes(#[from] ddz_nets::weights::ShapeMismatch),
    /// The device asked for does not parse or is not there.
    #[error(transparent)]
    Device(#[from] DeviceError),
}

pub use ddz_nets::config::{
    HAND_CLASSES, HISTORY_ROUND, HistoryEncoder, MAX_LAIZI_TOP, MAX_MARGIN, MAX_PRUNE_MARGIN, MOST_WEIGHTS, MOST_WIDTH,
    ModelConfig, TWO_PLAYER_MARK,
};
pub use ddz_nets::{Values, Weights};

impl From<ddz_nets::NetError> for ModelError {
    fn from(e: ddz_nets::NetError) -> ModelError {
        match e {
            ddz_nets::NetError::Invalid(why) => ModelError::Invalid(why),
            ddz_nets::NetError::Mismatch(why) => ModelError::Mismatch(why),
            ddz_nets::NetError::Shapes(why) => ModelError::Shapes(why),
        }
    }
}

/// Training-time extras of a forward pass. [`QNet::forward`] passes none: at play time no
/// hidden card can reach the network.
#[derive(Clone, Copy, Default)]
pub struct Guide<'a> {
    /// Oracle planes [B, ORACLE_DIM] (the two other hands) and the weight they enter with;
    /// ignored when the weight is 0 or the network has no oracle input.
    pub oracle: Option<(&'a Tensor, f64)>,
    /// Feed the hidden-hand prediction to the Q head without its gradient, so that the Q loss
    /// does not shape the prediction (only its own cross-entropy does).
    pub detach_hands: bool,
}

/// Q of each play, its expected points when the network has a score head, and the hidden-hand
/// logits [B, HIDDEN_RANKS, HAND_CLASSES] of each state when the network predicts them.
pub struct Output {
    /// Q of each play, in the order of the actions passed.
    pub q: Tensor,
    /// Expected game points of each play, in the same order; `None` without a score head.
    pub points: Option<Tensor>,
    /// Hidden-hand logits [B, HIDDEN_RANKS, HAND_CLASSES]; `None` without the hidden-hand head.
    pub hands: Option<Tensor>,
}

/// One Q network: trunk (whose first layer may also take the oracle's planes), split first head
/// layer, head, and optionally the hidden-hand head whose prediction feeds the head.
struct Tower {
    /// State features read: the first `inputs` of each state row.
    inputs: i64,
    /// The LSTM over the history block, when the history is not read flat.
    history: Option<nn::LSTM>,
    trunk0: nn::Linear,
    /// Oracle guiding: the two other hands into the first layer, scaled by a weight that
    /// training withdraws to zero.
    oracle_in: Option<nn::Linear>,
    trunk: nn::Sequential,
    head_state: nn::Linear,
    head_action: nn::Linear,
    /// Hidden-hand prediction from the trunk, and its softmax into the head's first layer.
    hands: Option<(nn::Linear, nn::Linear)>,
    head_out: nn::Sequential,
    q: nn::Linear,
    /// The score head's expected points, from the head's last hidden layer as Q.
    points: Option<nn::Linear>,
}

impl Tower {
    fn new(root: &nn::Path, config: &ModelConfig) -> Tower {
        let no_bias = nn::LinearConfig { bias: false, ..Default::default() };
        let history = (config.history == HistoryEncoder::Lstm).then(|| {
            let rounds = nn::RNNConfig { batch_first: true, ..Default::default() };
            nn::lstm(root / "history", (HISTORY_ROUND * PLANE) as i64, config.history_size, rounds)
        });
        let first_inputs = match history {
            Some(_) => (config.inputs - HISTORY_LEN * PLANE) as i64 + config.history_size,
            None => config.inputs as i64,
        };
        let trunk0 = nn::linear(root / "trunk0", first_inputs, config.trunk[0], Default::default());
        let oracle_in =
            config.oracle.then(|| nn::linear(root / "oracle_in", ORACLE_DIM as i64, config.trunk[0], no_bias));
        let mut trunk = nn::seq();
        let mut width = config.trunk[0];
        for (i, &n) in config.trunk.iter().enumerate().skip(1) {
            trunk =
                trunk.add(nn::linear(root / format!("trunk{i}"), width, n, Default::default())).add_fn(|x| x.relu());
            width = n;
        }
        let head_state = nn::linear(root / "head_state", width, config.head, Default::default());
        let head_action = nn::linear(root / "head_action", config.action_layout().dim() as i64, config.head, no_bias);
        let classes = HIDDEN_RANKS as i64 * HAND_CLASSES;
        let hands = config.hand_prediction.then(|| {
            (
                nn::linear(root / "hands", width, classes, Default::default()),
                nn::linear(root / "hands_in", classes, config.head, no_bias),
            )
        });
        let mut head_out = nn::seq();
        let mut w = config.head;
        for (i, &n) in config.head_hidden.iter().enumerate() {
            head_out =
                head_out.add(nn::linear(root / format!("head{i}"), w, n, Default::default())).add_fn(|x| x.relu());
            w = n;
        }
        let q = nn::linear(root / "q", w, 1, Default::default());
        let points = config.score_head.then(|| nn::linear(root / "points", w, 1, Default::default()));
        Tower {
            inputs: config.inputs as i64,
            history,
            trunk0,
            oracle_in,
            trunk,
            head_state,
            head_action,
            hands,
            head_out,
            q,
            points,
        }
    }

    /// The first layer's input: the state's features, with the history planes replaced by the
    /// LSTM's last output when there is one.
    fn first_inputs(&self, x: Tensor) -> Tensor {
        let Some(lstm) = &self.history else { return x };
        let (b, flat) = (x.size()[0], (HISTORY_LEN * PLANE) as i64);
        let steps = (HISTORY_LEN / HISTORY_ROUND) as i64;
        // The block holds the most recent play first; rounds go in oldest first.
        let rounds = x.narrow(1, OFF_HISTORY as i64, flat).view([b, steps, (HISTORY_ROUND * PLANE) as i64]).flip([1]);
        let (out, _) = lstm.seq(&rounds);
        let after = OFF_HISTORY as i64 + flat;
        Tensor::cat(
            &[x.narrow(1, 0, OFF_HISTORY as i64), x.narrow(1, after, self.inputs - after), out.select(1, -1)],
            1,
        )
    }

    fn forward(&self, states: &Tensor, actions: &Tensor, owner: &Tensor, guide: Guide) -> Output {
        let x = if self.inputs == STATE_DIM as i64 { states.shallow_clone() } else { states.narrow(1, 0, self.inputs) };
        let first = self.trunk0.forward(&self.first_inputs(x));
        let first = match (&self.oracle_in, guide.oracle) {
            (Some(layer), Some((planes, weight))) if weight > 0.0 => first + layer.forward(planes) * weight,
            _ => first,
        };
        let h = self.trunk.forward(&first.relu());
        let mut s = self.head_state.forward(&h);
        let hands = self.hands.as_ref().map(|(predict, feed)| {
            let logits = predict.forward(&h).view([-1, HIDDEN_RANKS as i64, HAND_CLASSES]);
            let p = logits.softmax(-1, Kind::Float).flatten(1, -1);
            s = &s + feed.forward(&if guide.detach_hands { p.detach() } else { p });
            logits
        });
        let z = (s.index_select(0, owner) + self.head_action.forward(actions)).relu();
        let last = self.head_out.forward(&z);
        let points = self.points.as_ref().map(|p| p.forward(&last).squeeze_dim(-1));
        Output { q: self.q.forward(&last).squeeze_dim(-1), points, hands }
    }
}

/// The Q network: scores every legal play of a batch of decisions, with one network shared by
/// the roles or one per role.
pub struct QNet {
    /// The network's variables, on its device.
    pub vs: nn::VarStore,
    config: ModelConfig,
    /// One tower, or one per role in [`Role::ALL`] order.
    towers: Vec<Tower>,
    /// Each tower's parameters (handles to the variables in `vs`), grouped once here for
    /// [`QNet::clip_grad_norm`], which runs on every learner step.
    tower_params: Vec<Vec<Tensor>>,
    /// The score head's margin, a variable that is never trained, so that it travels with
    /// the weights (files, snapshots, published weights).
    margin: Option<Tensor>,
    /// The pruning margin, when the network prunes: kept the same way.
    prune: Option<Tensor>,
    /// Laizi's `laizi_top`, when on: kept the same way.
    top: Option<Tensor>,
}

/// libtorch draws initial weights from one process-wide generator: seeding it and drawing
/// happen under this lock, so that a network's initial weights depend only on its seed, also
/// when other threads build networks at the same time (tests run in parallel).
pub(crate) static INIT: Mutex<()> = Mutex::new(());

impl QNet {
    /// A network on the CPU whose initial weights are drawn from `seed`.
    pub fn cpu(config: &ModelConfig, seed: u64) -> QNet {
        QNet::build(config, Device::Cpu, seed)
    }

    /// A network on `device` (resolved here: `auto` takes a GPU when there is one) whose
    /// initial weights are drawn from `seed`.
    pub fn on(config: &ModelConfig, device: runtime::Device, seed: u64) -> Result<QNet, ModelError> {
        Ok(QNet::build(config, device.resolve()?.torch(), seed))
    }

    fn build(config: &ModelConfig, device: Device, seed: u64) -> QNet {
        let _drawing = INIT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        tch::manual_seed(seed as i64);
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let towers = if config.per_role {
            Role::ALL.iter().map(|r| Tower::new(&(&root / r.name()), config)).collect()
        } else {
            vec![Tower::new(&root, config)]
        };
        let margin = config.score_head.then(|| {
            let m = root.zeros_no_train("score_margin", &[1]);
            let _ = tch::no_grad(|| m.shallow_clone().fill_(config.score_margin));
            m
        });
        let prune = config.prune.then(|| {
            let m = root.zeros_no_train("prune_margin", &[1]);
            let _ = tch::no_grad(|| m.shallow_clone().fill_(config.prune_margin as i64));
            m
        });
        let top = (config.laizi_top > 0).then(|| {
            let m = root.zeros_no_train("laizi_top", &[1]);
            let _ = tch::no_grad(|| m.shallow_clone().fill_(config.laizi_top as i64));
            m
        });
        if config.rules == Rules::TwoPlayer {
            let _mark = root.zeros_no_train(TWO_PLAYER_MARK, &[1]); // held by the var store
        }
        let variables = vs.variables();
        let tower_params = if config.per_role {
            Role::ALL
                .iter()
                .map(|r| {
                    let prefix = format!("{}.", r.name());
                    variables
                        .iter()
                        .filter(|(name, _)| name.starts_with(&prefix))
                        .map(|(_, t)| t.shallow_clone())
                        .collect()
                })
                .collect()
        } else {
            let untrained = ["score_margin", "prune_margin", "laizi_top", TWO_PLAYER_MARK];
            vec![
                variables.into_iter().filter(|(name, _)| !untrained.contains(&name.as_str())).map(|(_, t)| t).collect(),
            ]
        };
        QNet { vs, config: config.clone(), towers, tower_params, margin, prune, top }
    }

    /// The layer sizes and options the network was built with.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The score head's margin as the weights hold it (a loaded network's own), or `None`
    /// without a score head.
    pub fn score_margin(&self) -> Option<f32> {
        self.margin.as_ref().map(|m| m.double_value(&[0]) as f32)
    }

    /// Reads the margin back from the weights into the config, after weights were loaded; a
    /// margin out of range (weights from elsewhere) is refused.
    pub(crate) fn sync_margin(&mut self) -> Result<(), ModelError> {
        let Some(m) = self.score_margin() else { return self.sync_prune() };
        let m = m as f64;
        if m.is_nan() || !(0.0..=MAX_MARGIN).contains(&m) {
            return Err(ModelError::Mismatch(format!(
                "score_margin {m}: a margin in game points from 0 to {MAX_MARGIN}"
            )));
        }
        self.config.score_margin = m;
        self.sync_prune()
    }

    /// Reads the pruning margin back from the weights, as [`QNet::sync_margin`] the score's.
    fn sync_prune(&mut self) -> Result<(), ModelError> {
        let Some(m) = &self.prune else { return self.sync_top() };
        let m = m.double_value(&[0]);
        if !(0.0..=MAX_PRUNE_MARGIN as f64).contains(&m) || m.fract() != 0.0 {
            return Err(ModelError::Mismatch(format!(
                "prune_margin {m}: a whole number of plays from 0 to {MAX_PRUNE_MARGIN}"
            )));
        }
        self.config.prune_margin = m as u32;
        self.sync_top()
    }

    /// Reads `laizi_top` back from the weights, as [`QNet::sync_margin`] the score's margin.
    fn sync_top(&mut self) -> Result<(), ModelError> {
        let Some(m) = &self.top else { return Ok(()) };
        let m = m.double_value(&[0]);
        if !(1.0..=MAX_LAIZI_TOP as f64).contains(&m) || m.fract() != 0.0 {
            return Err(ModelError::Mismatch(format!(
                "laizi_top {m}: a whole number of plays from 1 to {MAX_LAIZI_TOP}"
            )));
        }
        self.config.laizi_top = m as u32;
        Ok(())
    }
    pub(crate) fn device(&self) -> Device {
        self.vs.device()
    }

    /// Where the network computes.
    pub fn placement(&self) -> runtime::Device {
        match self.vs.device() {
            Device::Cuda(n) => runtime::Device::Cuda(n),
            _ => runtime::Device::Cpu,
        }
    }

    /// Q for `actions` [N, ACTION_DIM], the i-th belonging to state `owner[i]` of `states`
    /// [B, STATE_DIM]. Returns [N]. This is the play-time pass: it reads the seat's features only.
    pub fn forward(&self, states: &Tensor, actions: &Tensor, owner: &Tensor) -> Tensor {
        self.forward_guided(states, actions, owner, Guide::default()).q
    }

    /// [`QNet::forward`] with training's extras: the oracle's planes, and the hidden-hand
    /// logits of every state (in `states` order) when the network predicts them.
    pub fn forward_guided(&self, states: &Tensor, actions: &Tensor, owner: &Tensor, guide: Guide) -> Output {
        if self.towers.len() == 1 {
            return self.towers[0].forward(states, actions, owner, guide);
        }
        // Route by role: each tower sees its states and their plays, with owners renumbered
        // within the tower; the pieces are put back in the callers' order at the end.
        let device = states.device();
        let role = states.narrow(1, OFF_ROLE as i64, 3).argmax(1, false);
        let action_role = role.index_select(0, owner);
        let (mut pieces, mut points, mut order) = (Vec::new(), Vec::new(), Vec::new());
        let (mut hands, mut state_order) = (Vec::new(), Vec::new());
        for (r, tower) in self.towers.iter().enumerate() {
            let own_states = role.eq(r as i64).nonzero().squeeze_dim(1);
            if own_states.size()[0] == 0 {
                continue;
            }
            let own_actions = action_role.eq(r as i64).nonzero().squeeze_dim(1);
            let local = Tensor::arange(own_states.size()[0], (Kind::Int64, device));
            let renumber =
                Tensor::full([states.size()[0]], -1, (Kind::Int64, device)).index_copy(0, &own_states, &local);
            let local_owner = renumber.index_select(0, &owner.index_select(0, &own_actions));
            let planes = guide.oracle.map(|(p, w)| (p.index_select(0, &own_states), w));
            let out = tower.forward(
                &states.index_select(0, &own_states),
                &actions.index_select(0, &own_actions),
                &local_owner,
                Guide { oracle: planes.as_ref().map(|(p, w)| (p, *w)), ..guide },
            );
            pieces.push(out.q);
            points.extend(out.points);
            order.push(own_actions);
            hands.extend(out.hands);
            state_order.push(own_states);
        }
        if pieces.is_empty() {
            let none = || Tensor::zeros([0], (Kind::Float, device));
            return Output { q: none(), points: self.config.score_head.then(none), hands: None };
        }
        let inverse = Tensor::cat(&order, 0).argsort(0, false);
        let hands = (!hands.is_empty())
            .then(|| Tensor::cat(&hands, 0).index_select(0, &Tensor::cat(&state_order, 0).argsort(0, false)));
        let points = (!points.is_empty()).then(|| Tensor::cat(&points, 0).index_select(0, &inverse));
        Output { q: Tensor::cat(&pieces, 0).index_select(0, &inverse), points, hands }
    }

    /// Q for flat feature buffers on the CPU (actors): `states` holds B states, `actions` N plays.
    pub fn q_values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Vec<f32> {
        self.values_guided(states, actions, owner, None).q
    }

    /// [`QNet::q_values`] with the score head's expected points, when the network has one.
    pub fn values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Values {
        self.values_guided(states, actions, owner, None)
    }

    /// [`QNet::values`] with the oracle's planes (B × ORACLE_DIM) and their weight: training's
    /// actors while oracle guiding is being withdrawn.
    pub fn values_guided(
        &self,
        states: &[f32],
        actions: &[f32],
        owner: &[i64],
        oracle: Option<(&[f32], f64)>,
    ) -> Values {
        let b = (states.len() / STATE_DIM) as i64;
        let n = owner.len() as i64;
        let dev = self.device();
        let s = Tensor::from_slice(states).view([b, STATE_DIM as i64]).to_device(dev);
        let a = Tensor::from_slice(actions).view([n, self.config.action_layout().dim() as i64]).to_device(dev);
        let o = Tensor::from_slice(owner).to_device(dev);
        let planes = oracle
            .filter(|&(_, w)| w > 0.0 && self.config.oracle)
            .map(|(p, w)| (Tensor::from_slice(p).view([b, ORACLE_DIM as i64]).to_device(dev), w));
        let guide = Guide { oracle: planes.as_ref().map(|(p, w)| (p, *w)), detach_hands: false };
        let out = tch::no_grad(|| self.forward_guided(&s, &a, &o, guide));
        let host = |t: Tensor| Vec::<f32>::try_from(t.to_device(Device::Cpu).to_kind(Kind::Float)).expect("floats");
        Values { q: host(out.q), points: out.points.map(host) }
    }

    /// Scales the gradients so that their L2 norm is at most `max_norm`, each role's network
    /// on its own when there are three (as DouZero clips each of its networks), so that one
    /// role's large errors do not shrink the other networks' steps. Returns the norms before
    /// clipping, one per network (0 for a network without gradients).
    pub fn clip_grad_norm(&self, max_norm: f64) -> Vec<f64> {
        tch::no_grad(|| {
            self.tower_params
                .iter()
                .map(|group| {
                    let grads: Vec<Tensor> = group.iter().map(|t| t.grad()).filter(Tensor::defined).collect();
                    if grads.is_empty() {
                        return 0.0;
                    }
                    let norms: Vec<Tensor> = grads.iter().map(Tensor::norm).collect();
                    let norm = Tensor::stack(&norms, 0).norm().double_value(&[]);
                    let scale = max_norm / (norm + 1e-6);
                    if scale < 1.0 {
                        for mut g in grads {
                            let _ = g.g_mul_scalar_(scale);
                        }
                    }
                    norm
                })
                .collect()
        })
    }

    /// The same network for play: its weights in the torch-free forward pass.
    pub fn network(&self) -> ddz_nets::QNetwork {
        ddz_nets::QNetwork::from_weights(&self.export(0)).expect("a network's own weights fit it")
    }

    /// All weights, copied to host memory.
    pub fn export(&self, version: u64) -> Weights {
        export_store(&self.vs, version)
    }

    /// Copies `weights` in; names and shapes must match this network.
    pub fn import(&mut self, weights: &Weights) -> Result<(), ModelError> {
        import_store(&self.vs, weights)?;
        self.sync_margin()
    }
}

/// libtorch's network values plays as the torch-free one does: `ddz check-inference` and
/// `ddz bench inference` run the same agent over both.
impl ddz_nets::QValues for QNet {
    fn config(&self) -> &ModelConfig {
        &self.config
    }
    fn values(&self, states: &[f32], actions: &[f32], owner: &[i64]) -> Values {
        self.values_guided(states, actions, owner, None)
    }
}

/// Every variable of `vs`, copied to host memory, sorted by name.
pub(crate) fn export_store(vs: &nn::VarStore, version: u64) -> Weights {
    let mut tensors: Vec<(String, Vec<i64>, Vec<f32>)> = vs
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

/// Copies `weights` into `vs`; names and shapes must match.
pub(crate) fn import_store(vs: &nn::VarStore, weights: &Weights) -> Result<(), ModelError> {
    let vars = vs.variables();
    if vars.len() != weights.tensors.len() {
        return Err(ModelError::Mismatch(format!(
            "{} tensors given, the network has {}",
            weights.tensors.len(),
            vars.len()
        )));
    }
    for (name, shape, data) in &weights.tensors {
        let var = vars.get(name).ok_or_else(|| ModelError::Mismatch(format!("unknown tensor {name}")))?;
        if &var.size() != shape {
            return Err(ModelError::Mismatch(format!(
                "tensor {name}: shape {shape:?} given, the network has {:?}",
                var.size()
            )));
        }
        let src = Tensor::from_slice(data).view(shape.as_slice()).to_device(var.device());
        tch::no_grad(|| {
            let mut v = var.shallow_clone();
            v.copy_(&src);
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{ACTION_DIM, STATE_DIM_V1};

    #[test]
    fn forward_shapes_and_weight_round_trip() {
        crate::runtime::configure_threads(1);
        let cfg = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![4], per_role: false, ..Default::default() };
        let net = QNet::cpu(&cfg, 1);
        let states = vec![0.5f32; 2 * STATE_DIM];
        let actions = vec![0.25f32; 3 * ACTION_DIM];
        let q = net.q_values(&states, &actions, &[0, 0, 1]);
        assert_eq!(q.len(), 3);
        // Rows of one batch may take different vector paths: equal up to rounding.
        assert!((q[0] - q[1]).abs() <= 1e-5 * q[0].abs().max(1.0), "same state and action, same value: {q:?}");
        let mut other = QNet::cpu(&cfg, 2);
        assert_ne!(other.q_values(&states, &actions, &[0, 0, 1]), q);
        other.import(&net.export(1)).unwrap();
        let again = other.q_values(&states, &actions, &[0, 0, 1]);
        assert!(again.iter().zip(&q).all(|(a, b)| (a - b).abs() <= 1e-6 * b.abs().max(1.0)), "{again:?} vs {q:?}");
        let wrong = QNet::cpu(&ModelConfig { trunk: vec![32], ..cfg }, 3);
        assert!(other.import(&wrong.export(2)).unwrap_err().to_string().contains("shape"));
    }

    #[test]
    fn per_role_network_routes_each_state_to_its_role() {
        crate::runtime::configure_threads(1);
        let cfg = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![4], per_role: true, ..Default::default() };
        let net = QNet::cpu(&cfg, 1);
        assert_eq!(
            net.vs.variables().len(),
            3 * QNet::cpu(&ModelConfig { per_role: false, ..cfg.clone() }, 1).vs.variables().len()
        );
        // Six states, two per role, interleaved: up, landlord, down, landlord, up, down.
        let roles = [2usize, 0, 1, 0, 2, 1];
        let mut states: Vec<f32> =
            (0..roles.len() * STATE_DIM).map(|i| (i % 5) as f32 / 5.0 + (i / STATE_DIM) as f32 * 0.1).collect();
        for (i, &role) in roles.iter().enumerate() {
            states[i * STATE_DIM + OFF_ROLE..i * STATE_DIM + OFF_ROLE + 3].fill(0.0);
            states[i * STATE_DIM + OFF_ROLE + role] = 1.0;
        }
        let owner = [3i64, 5, 0, 1, 4, 2, 3, 1, 5];
        let actions: Vec<f32> = (0..owner.len() * ACTION_DIM).map(|i| (i % 7) as f32 / 7.0).collect();
        let q = net.q_values(&states, &actions, &owner);
        // Each play alone, with only its state, gets the same value: routing keeps the order
        // and renumbers the owners within each network.
        for (i, &o) in owner.iter().enumerate() {
            let s = &states[o as usize * STATE_DIM..(o as usize + 1) * STATE_DIM];
            let a = &actions[i * ACTION_DIM..(i + 1) * ACTION_DIM];
            assert!((net.q_values(s, a, &[0])[0] - q[i]).abs() < 1e-5, "play {i}");
        }
        // Changing the landlord_down network changes exactly the values of the landlord_down states.
        let mut other = QNet::cpu(&cfg, 2);
        let mut w = net.export(1);
        for (name, _, data) in &mut w.tensors {
            if name.starts_with("landlord_down.") {
                data.iter_mut().for_each(|x| *x += 0.1);
            }
        }
        other.import(&w).unwrap();
        let q2 = other.q_values(&states, &actions, &owner);
        for (i, &o) in owner.iter().enumerate() {
            let changed = (q2[i] - q[i]).abs() > 1e-4;
            let same = (q2[i] - q[i]).abs() <= 1e-6 * q[i].abs().max(1.0);
            assert!(
                if roles[o as usize] == 1 { changed } else { same },
                "play {i} of state {o}: {} vs {}",
                q2[i],
                q[i]
            );
        }
        let shapes: Vec<(String, Vec<i64>)> = net.vs.variables().into_iter().map(|(n, t)| (n, t.size())).collect();
        assert_eq!(ModelConfig::infer(&shapes).unwrap(), cfg);
    }

    #[test]
    fn per_role_gradients_are_clipped_per_network() {
        crate::runtime::configure_threads(1);
        let cfg = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![4], per_role: true, ..Default::default() };
        let net = QNet::cpu(&cfg, 1);
        // One landlord state and one landlord_up state; no landlord_down state.
        let mut states: Vec<f32> = (0..2 * STATE_DIM).map(|i| (i % 5) as f32 / 5.0).collect();
        states[OFF_ROLE..OFF_ROLE + 3].copy_from_slice(&[1.0, 0.0, 0.0]);
        states[STATE_DIM + OFF_ROLE..STATE_DIM + OFF_ROLE + 3].copy_from_slice(&[0.0, 0.0, 1.0]);
        let s = Tensor::from_slice(&states).view([2, STATE_DIM as i64]);
        let a = Tensor::from_slice(&vec![0.5f32; 2 * ACTION_DIM]).view([2, ACTION_DIM as i64]);
        let q = net.forward(&s, &a, &Tensor::from_slice(&[0i64, 1]));
        // The landlord's output is weighted a million times the landlord_up one's, so its
        // gradient is far larger for any initial weights (about 1e6 times; 100 is the margin the
        // test needs: the bound below then lies strictly between the two norms).
        (q.get(0) * 1e3 + q.get(1) * 1e-3).backward();
        let before = net.clip_grad_norm(f64::INFINITY);
        assert!(before[0] > 100.0 * before[2] && before[2] > 0.0 && before[1] == 0.0, "{before:?}");
        let max = (before[0] * before[2]).sqrt();
        net.clip_grad_norm(max);
        let after = net.clip_grad_norm(f64::INFINITY);
        assert!((after[0] - max).abs() < 1e-3 * max, "landlord clipped to the bound: {after:?}");
        assert!((after[2] - before[2]).abs() < 1e-6 * before[2], "landlord_up untouched: {after:?}");
        assert_eq!(after[1], 0.0);
        // The clipped gradients are the variable store's own, which the optimizer reads.
        let stored: f64 = net
            .vs
            .variables()
            .iter()
            .filter(|(n, _)| n.starts_with("landlord."))
            .map(|(_, t)| t.grad().square().sum(Kind::Double).double_value(&[]))
            .sum();
        assert!((stored.sqrt() - max).abs() < 1e-3 * max, "{} vs {max}", stored.sqrt());
    }

    #[test]
    fn the_oracle_enters_only_guided_passes_and_hands_come_back_in_state_order() {
        crate::runtime::configure_threads(1);
        for per_role in [false, true] {
            let cfg = ModelConfig {
                trunk: vec![16, 8],
                head: 8,
                head_hidden: vec![4],
                per_role,
                oracle: true,
                hand_prediction: true,
                ..Default::default()
            };
            let net = QNet::cpu(&cfg, 1);
            let shapes: Vec<(String, Vec<i64>)> = net.vs.variables().into_iter().map(|(n, t)| (n, t.size())).collect();
            assert_eq!(ModelConfig::infer(&shapes).unwrap(), cfg, "the switches are read back from the tensors");
            let roles = [2usize, 0, 1, 0];
            let mut states: Vec<f32> = (0..roles.len() * STATE_DIM).map(|i| ((i * 7) % 11) as f32 / 11.0).collect();
            for (i, &role) in roles.iter().enumerate() {
                states[i * STATE_DIM + OFF_ROLE..i * STATE_DIM + OFF_ROLE + 3].fill(0.0);
                states[i * STATE_DIM + OFF_ROLE + role] = 1.0;
            }
            let s = Tensor::from_slice(&states).view([4, STATE_DIM as i64]);
            let a = Tensor::from_slice(&vec![0.5f32; 4 * ACTION_DIM]).view([4, ACTION_DIM as i64]);
            let owner = Tensor::from_slice(&[0i64, 1, 2, 3]);
            let planes = Tensor::ones([4, ORACLE_DIM as i64], (Kind::Float, Device::Cpu));
            let play = net.forward(&s, &a, &owner);
            let off = net.forward_guided(&s, &a, &owner, Guide { oracle: Some((&planes, 0.0)), ..Default::default() });
            assert!(play.allclose(&off.q, 0.0, 0.0, false), "weight 0 is the play-time pass exactly");
            let on = net.forward_guided(&s, &a, &owner, Guide { oracle: Some((&planes, 0.5)), ..Default::default() });
            assert!(!play.allclose(&on.q, 1e-6, 1e-6, false), "a weighted oracle changes Q");
            let hands = off.hands.unwrap();
            assert_eq!(hands.size(), [4, HIDDEN_RANKS as i64, HAND_CLASSES]);
            // Each state's hand logits are those of the state alone.
            for i in 0..4 {
                let alone = net.forward_guided(
                    &s.narrow(0, i, 1),
                    &a.narrow(0, i, 1),
                    &Tensor::from_slice(&[0i64]),
                    Guide::default(),
                );
                assert!(
                    alone.hands.unwrap().allclose(&hands.narrow(0, i, 1), 1e-5, 1e-5, false),
                    "per_role {per_role}: state {i}"
                );
            }
        }
    }

    #[test]
    fn a_network_of_the_first_layout_reads_only_its_features() {
        crate::runtime::configure_threads(1);
        let cfg =
            ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![4], inputs: STATE_DIM_V1, ..Default::default() };
        let net = QNet::cpu(&cfg, 1);
        let shapes: Vec<(String, Vec<i64>)> = net.vs.variables().into_iter().map(|(n, t)| (n, t.size())).collect();
        assert_eq!(ModelConfig::infer(&shapes).unwrap(), cfg);
        let states: Vec<f32> = (0..STATE_DIM).map(|i| (i % 3) as f32 / 3.0).collect();
        let actions = vec![0.25f32; ACTION_DIM];
        let q = net.q_values(&states, &actions, &[0]);
        let mut later = states.clone();
        later[STATE_DIM_V1..].iter_mut().for_each(|x| *x += 1.0);
        let q_later = net.q_values(&later, &actions, &[0]);
        assert!(
            (q_later[0] - q[0]).abs() <= 1e-6 * q[0].abs().max(1.0),
            "features after the first layout are not read"
        );
        let mut earlier = states.clone();
        earlier[..STATE_DIM_V1].iter_mut().for_each(|x| *x += 1.0);
        assert_ne!(net.q_values(&earlier, &actions, &[0]), q);

        let odd: Vec<(String, Vec<i64>)> =
            shapes.into_iter().map(|(n, s)| if n == "trunk0.weight" { (n, vec![16, 1300]) } else { (n, s) }).collect();
        assert!(ModelConfig::infer(&odd).unwrap_err().to_string().contains("1300 state features"));
    }

    #[test]
    fn the_lstm_history_replaces_the_planes_and_reads_their_order() {
        crate::runtime::configure_threads(1);
        for per_role in [false, true] {
            let cfg = ModelConfig {
                trunk: vec![16],
                head: 8,
                head_hidden: vec![4],
                per_role,
                history: HistoryEncoder::Lstm,
                history_size: 6,
                ..Default::default()
            };
            let net = QNet::cpu(&cfg, 1);
            let shapes: Vec<(String, Vec<i64>)> = net.vs.variables().into_iter().map(|(n, t)| (n, t.size())).collect();
            assert_eq!(ModelConfig::infer(&shapes).unwrap(), cfg, "read back from the tensors");
            let first = shapes.iter().find(|(n, _)| n.ends_with("trunk0.weight")).unwrap();
            assert_eq!(first.1, [16, (STATE_DIM - HISTORY_LEN * PLANE) as i64 + 6], "the LSTM replaces the planes");
            let mut states = vec![0.0f32; STATE_DIM];
            states[OFF_ROLE] = 1.0;
            // Two different plays, the older one in the oldest round.
            states[OFF_HISTORY..OFF_HISTORY + 4].fill(1.0);
            states[OFF_HISTORY + 12 * PLANE..OFF_HISTORY + 12 * PLANE + 2].fill(1.0);
            let actions = vec![0.25f32; ACTION_DIM];
            let q = net.q_values(&states, &actions, &[0]);
            let mut swapped = states.clone();
            let (recent, old) = swapped[OFF_HISTORY..].split_at_mut(12 * PLANE);
            recent[..PLANE].swap_with_slice(&mut old[..PLANE]);
            assert_ne!(net.q_values(&swapped, &actions, &[0]), q, "the order of the plays is read");
        }
    }

    #[test]
    fn sizes_are_counted_before_allocation_and_absurd_ones_refused() {
        crate::runtime::configure_threads(1);
        let small = ModelConfig { trunk: vec![16, 8], head: 8, head_hidden: vec![4], ..Default::default() };
        for cfg in [
            small.clone(),
            ModelConfig { per_role: true, oracle: true, hand_prediction: true, ..small.clone() },
            ModelConfig { history: HistoryEncoder::Lstm, history_size: 6, ..small.clone() },
            ModelConfig { inputs: STATE_DIM_V1, head_hidden: vec![], ..small.clone() },
            ModelConfig { score_head: true, ..small.clone() },
            ModelConfig { score_head: true, per_role: true, ..small.clone() },
        ] {
            let net = QNet::cpu(&cfg, 1);
            let counted: i64 = net.vs.variables().values().map(|t| t.numel() as i64).sum();
            assert_eq!(cfg.weights(), counted as u128, "{cfg:?}");
        }
        let huge = ModelConfig { trunk: vec![60_000, 60_000], ..Default::default() };
        let e = huge.validate().unwrap_err().to_string();
        assert!(e.contains("weights") && e.contains("at most 100000000"), "{e}");
        let wide = ModelConfig { trunk: vec![100_000], ..Default::default() };
        assert!(wide.validate().unwrap_err().to_string().contains("100000 units: at most 65536"));
        assert!(ModelConfig::default().validate().is_ok());
        let margin = ModelConfig { score_margin: -1.0, ..Default::default() };
        assert!(margin.validate().unwrap_err().to_string().contains("score_margin = -1"));
    }

    #[test]
    fn the_score_head_and_its_margin_travel_with_the_weights() {
        crate::runtime::configure_threads(1);
        for per_role in [false, true] {
            let cfg = ModelConfig {
                trunk: vec![16],
                head: 8,
                head_hidden: vec![4],
                per_role,
                score_head: true,
                score_margin: 0.75,
                ..Default::default()
            };
            let net = QNet::cpu(&cfg, 1);
            assert_eq!(net.score_margin(), Some(0.75));
            let mut states = vec![0.0f32; 2 * STATE_DIM];
            states[OFF_ROLE] = 1.0;
            states[STATE_DIM + OFF_ROLE + 1] = 1.0;
            let actions: Vec<f32> = (0..3 * ACTION_DIM).map(|i| (i % 7) as f32 / 7.0).collect();
            let v = net.values(&states, &actions, &[0, 1, 1]);
            let points = v.points.clone().expect("a score head");
            assert_eq!((v.q.len(), points.len()), (3, 3));
            assert_ne!(points, v.q, "a head of its own");
            assert!(
                QNet::cpu(&ModelConfig { score_head: false, ..cfg.clone() }, 1)
                    .values(&states, &actions, &[0, 1, 1])
                    .points
                    .is_none()
            );

            // Saved and loaded: the head is found by its shapes, the margin read from the weights.
            let file =
                std::env::temp_dir().join(format!("ddz-score-head-{per_role}-{}.safetensors", std::process::id()));
            crate::model::save_weights_file(&net, &file).unwrap();
            let back = crate::model::load_network(&file).unwrap();
            assert_eq!(back.config(), &cfg, "every size and the margin read back");
            assert_eq!(back.values(&states, &actions, &[0, 1, 1]), v);
            // A margin outside its range in a file is refused on load.
            let mut weights = net.export(0);
            weights.tensors.iter_mut().find(|t| t.0 == "score_margin").unwrap().2[0] = -3.0;
            let mut odd = QNet::cpu(&cfg, 2);
            assert!(odd.import(&weights).unwrap_err().to_string().contains("score_margin -3"));
            std::fs::remove_file(&file).unwrap();
        }
    }
}
