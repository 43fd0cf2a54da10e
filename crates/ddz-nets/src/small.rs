//! The small networks beside the Q network, torch-free: the bidding network, the hand
//! evaluator and DouZero's per-role networks. Each is built from the tensors its trainer saves,
//! every name and shape checked first.

use crate::config::NetError;
use crate::kernels::{Kernel, Linear, Lstm, relu, sigmoid};
use crate::weights::{Weights, WeightsError};
use ddz_engine::encode::douzero::{CARDS, Observation, Z_COLS, Z_ROWS, x_len};
use ddz_engine::encode::{BID_DIM, HAND_DIM, encode_bid_view};
use ddz_engine::game::{Role, View};
use std::path::Path;

/// Dense layers with a ReLU between each two, named and sized as a trainer saves them.
#[derive(Clone, Debug)]
struct Mlp {
    layers: Vec<Linear>,
    kernel: Kernel,
}

/// The tensors of dense layers `(name, inputs, outputs)`: `NAME.weight` and `NAME.bias` each,
/// sorted by name.
fn shapes_of(layers: &[(&str, usize, usize)]) -> Vec<(String, Vec<i64>)> {
    let mut out: Vec<(String, Vec<i64>)> = layers
        .iter()
        .flat_map(|&(name, ins, outs)| {
            [(format!("{name}.bias"), vec![outs as i64]), (format!("{name}.weight"), vec![outs as i64, ins as i64])]
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

impl Mlp {
    /// The layers `(name, inputs, outputs)` of `weights`, which must hold exactly their
    /// `NAME.weight` and `NAME.bias`.
    fn new(weights: &Weights, layers: &[(&str, usize, usize)]) -> Result<Mlp, NetError> {
        weights.fits_shapes(&shapes_of(layers))?;
        let get = |name: String| weights.get(&name).expect("the shapes were checked");
        let layers = layers
            .iter()
            .map(|&(name, ins, outs)| {
                Linear::from_torch(get(format!("{name}.weight")), ins, outs, Some(get(format!("{name}.bias"))))
            })
            .collect();
        Ok(Mlp { layers, kernel: Kernel::detect() })
    }

    fn load(path: &Path, layers: &[(&str, usize, usize)]) -> Result<Mlp, WeightsError> {
        let weights = Weights::read(path)?;
        Mlp::new(&weights, layers).map_err(|e| WeightsError::Mismatch { path: path.to_path_buf(), reason: e.into() })
    }

    /// The outputs of each of the rows of `x`.
    fn forward(&self, x: &[f32]) -> Vec<f32> {
        let rows = x.len() / self.layers[0].ins;
        let mut h = x.to_vec();
        for (k, layer) in self.layers.iter().enumerate() {
            let mut next = vec![0.0f32; rows * layer.outs];
            layer.rows(self.kernel, &h, rows, &mut next);
            if k + 1 < self.layers.len() {
                relu(&mut next);
            }
            h = next;
        }
        h
    }
}

/// Bids a seat can make: 0 (pass) to 3.
pub const BIDS: usize = 4;

/// The bidding network: a bidding decision's features to the Q of each bid.
#[derive(Clone, Debug)]
pub struct BidNetwork(Mlp);

/// The bidding network's layers, as its trainer names them.
const BID_LAYERS: [(&str, usize, usize); 3] = [("bid0", BID_DIM, 128), ("bid1", 128, 64), ("bid_out", 64, BIDS)];

impl BidNetwork {
    /// The bidding network of `weights`.
    pub fn from_weights(weights: &Weights) -> Result<BidNetwork, NetError> {
        Mlp::new(weights, &BID_LAYERS).map(BidNetwork)
    }

    /// A bidding network whose weights are all zero (every bid's Q is 0).
    pub fn zeros() -> BidNetwork {
        BidNetwork::from_weights(&Weights::zeros(&shapes_of(&BID_LAYERS))).expect("its own shapes")
    }

    /// A bidding network with weights drawn from `seed`: some network, for tests.
    pub fn random(seed: u64) -> BidNetwork {
        BidNetwork::from_weights(&Weights::random(&shapes_of(&BID_LAYERS), seed)).expect("its own shapes")
    }

    /// Its tensors' names and shapes, sorted by name.
    pub fn tensor_shapes() -> Vec<(String, Vec<i64>)> {
        shapes_of(&BID_LAYERS)
    }

    /// The bidding network saved in `path` (a run's `bid.safetensors`).
    pub fn load(path: &Path) -> Result<BidNetwork, WeightsError> {
        Mlp::load(path, &BID_LAYERS).map(BidNetwork)
    }

    /// Q of every bid for B decisions (`features`: B × `BID_DIM`).
    pub fn q_values(&self, features: &[f32]) -> Vec<[f32; BIDS]> {
        assert!(features.len().is_multiple_of(BID_DIM), "rows of {BID_DIM} features");
        self.0.forward(features).chunks_exact(BIDS).map(|c| [c[0], c[1], c[2], c[3]]).collect()
    }

    /// The legal bid with the highest Q; a pass, which is always legal, when `legal` is empty.
    pub fn best(q: &[f32; BIDS], legal: &[u8]) -> u8 {
        legal.iter().copied().max_by(|a, b| q[*a as usize].total_cmp(&q[*b as usize])).unwrap_or(0)
    }

    /// The bid at a seat's bidding decision, its view: the legal bid of highest Q.
    pub fn bid(&self, view: &View<'_>, legal: &[u8]) -> u8 {
        let mut features = [0.0f32; BID_DIM];
        encode_bid_view(view, &mut features);
        BidNetwork::best(&self.q_values(&features)[0], legal)
    }
}

/// What the evaluator says of a hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandValue {
    /// Probability that the landlord wins.
    pub win: f32,
    /// The landlord's expected points at stake 1 (±2 a game, doubled per bomb and spring).
    pub points: f32,
}

/// The hand evaluator: a hand's features to its [`HandValue`].
#[derive(Clone, Debug)]
pub struct HandNetwork(Mlp);

/// Width of the evaluator's hidden layers.
pub const HAND_HIDDEN: usize = 256;
const HAND_LAYERS: [(&str, usize, usize); 3] =
    [("l0", HAND_DIM, HAND_HIDDEN), ("l1", HAND_HIDDEN, HAND_HIDDEN), ("out", HAND_HIDDEN, 2)];

impl HandNetwork {
    /// The evaluator of `weights`.
    pub fn from_weights(weights: &Weights) -> Result<HandNetwork, NetError> {
        Mlp::new(weights, &HAND_LAYERS).map(HandNetwork)
    }

    /// An evaluator with weights drawn from `seed`: some network, for tests.
    pub fn random(seed: u64) -> HandNetwork {
        HandNetwork::from_weights(&Weights::random(&shapes_of(&HAND_LAYERS), seed)).expect("its own shapes")
    }

    /// The evaluator saved in `path`.
    pub fn load(path: &Path) -> Result<HandNetwork, WeightsError> {
        Mlp::load(path, &HAND_LAYERS).map(HandNetwork)
    }

    /// The values of B hands (`features`: B × `HAND_DIM`).
    pub fn predict(&self, features: &[f32]) -> Vec<HandValue> {
        assert!(features.len().is_multiple_of(HAND_DIM), "rows of {HAND_DIM} features");
        self.0.forward(features).chunks_exact(2).map(|c| HandValue { win: sigmoid(c[0]), points: c[1] }).collect()
    }
}

/// Hidden size of DouZero's LSTM and width of its dense layers.
const DOUZERO_LSTM: usize = 128;
const DOUZERO_DENSE: usize = 512;

/// One role's network of DouZero (its `douzero` package, 1.1.0): an LSTM of 128 over the 5
/// rows of `z`, its last output joined to `x`, then five dense layers of 512 with ReLU and one
/// output, Q(s, a); tensors named as the package names them.
#[derive(Clone, Debug)]
pub struct DouzeroNetwork {
    lstm: Lstm,
    /// The first dense layer's part that reads the LSTM's output and the state's `x` (the same
    /// for every play of a decision, so computed once), with the layer's bias.
    first_common: Linear,
    /// Its part that reads the play's 54 numbers.
    first_play: Linear,
    /// The other five dense layers.
    dense: Vec<Linear>,
    kernel: Kernel,
}

impl DouzeroNetwork {
    /// The network of `role` from its weights.
    pub fn from_weights(role: Role, weights: &Weights) -> Result<DouzeroNetwork, NetError> {
        let (h, x) = (DOUZERO_LSTM as i64, Z_COLS as i64);
        let mut want = vec![
            ("lstm.weight_ih_l0".to_string(), vec![4 * h, x]),
            ("lstm.weight_hh_l0".to_string(), vec![4 * h, h]),
            ("lstm.bias_ih_l0".to_string(), vec![4 * h]),
            ("lstm.bias_hh_l0".to_string(), vec![4 * h]),
        ];
        let mut width = x_len(role) + DOUZERO_LSTM;
        let mut sizes = Vec::new();
        for k in 1..=6 {
            let out = if k == 6 { 1 } else { DOUZERO_DENSE };
            want.push((format!("dense{k}.weight"), vec![out as i64, width as i64]));
            want.push((format!("dense{k}.bias"), vec![out as i64]));
            sizes.push((width, out));
            width = out;
        }
        want.sort_by(|a, b| a.0.cmp(&b.0));
        weights.fits_shapes(&want)?;
        let get = |name: &str| weights.get(name).expect("the shapes were checked");
        let lstm = Lstm::from_torch(
            get("lstm.weight_ih_l0"),
            get("lstm.weight_hh_l0"),
            get("lstm.bias_ih_l0"),
            get("lstm.bias_hh_l0"),
            DOUZERO_LSTM,
        );
        let mut dense: Vec<Linear> = sizes
            .iter()
            .enumerate()
            .map(|(i, &(ins, outs))| {
                let k = i + 1;
                Linear::from_torch(get(&format!("dense{k}.weight")), ins, outs, Some(get(&format!("dense{k}.bias"))))
            })
            .collect();
        let first = dense.remove(0);
        let common = first.ins - CARDS;
        let (common_w, play_w) = first.w.split_at(common * first.outs);
        let first_common = Linear { ins: common, outs: first.outs, w: common_w.to_vec(), bias: first.bias.clone() };
        let first_play = Linear { ins: CARDS, outs: first.outs, w: play_w.to_vec(), bias: None };
        Ok(DouzeroNetwork { lstm, first_common, first_play, dense, kernel: Kernel::detect() })
    }

    /// The network of `role` saved in `path` (a converted safetensors file).
    pub fn load(role: Role, path: &Path) -> Result<DouzeroNetwork, WeightsError> {
        let weights = Weights::read(path)?;
        DouzeroNetwork::from_weights(role, &weights)
            .map_err(|e| WeightsError::Mismatch { path: path.to_path_buf(), reason: e.into() })
    }

    /// Q of each candidate play (its 54 card numbers, one row each) at the observation.
    pub fn q_values(&self, obs: &Observation, plays: &[[f32; CARDS]]) -> Vec<f32> {
        let n = plays.len();
        let mut common = vec![0.0f32; self.first_common.ins];
        assert_eq!(common.len(), DOUZERO_LSTM + obs.x_state.len(), "an observation of this network's role");
        let rows = obs.z.chunks_exact(Z_COLS).take(Z_ROWS);
        self.lstm.last_output(self.kernel, rows, &mut common[..DOUZERO_LSTM]);
        common[DOUZERO_LSTM..].copy_from_slice(&obs.x_state);
        let mut base = vec![0.0f32; self.first_common.outs];
        self.first_common.sparse(self.kernel, &common, common.len(), 1, false, &mut base);
        let mut h = base.repeat(n);
        self.first_play.sparse(self.kernel, plays.as_flattened(), CARDS, n, true, &mut h);
        relu(&mut h);
        let last = self.dense.len() - 1;
        for (k, layer) in self.dense.iter().enumerate() {
            let mut next = vec![0.0f32; n * layer.outs];
            layer.rows(self.kernel, &h, n, &mut next);
            if k < last {
                relu(&mut next);
            }
            h = next;
        }
        h
    }
}
