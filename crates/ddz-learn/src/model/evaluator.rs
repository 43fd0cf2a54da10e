//! The hand evaluator: a small network from a hand (17 cards, or 20 with the bottom) to the
//! landlord's chance of winning with it and its expected points (per unit of stake), trained
//! on the outcomes of games played out by a play network.

use super::learner::LearnerError;
use super::weights::{WeightsError, load_var_store, save_var_store};
use crate::encode::HAND_DIM;
use std::path::Path;
use std::sync::Mutex;
use tch::{Device, Kind, Tensor, nn, nn::Module, nn::OptimizerConfig};

const HIDDEN: i64 = 256;

/// What the evaluator says of a hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandValue {
    /// Probability that the landlord wins.
    pub win: f32,
    /// The landlord's expected points at stake 1 (±2 a game, doubled per bomb and spring).
    pub points: f32,
}

/// The hand evaluator's network: a hand's features to its [`HandValue`].
pub struct HandNet {
    /// The network's variables (on the CPU).
    pub vs: nn::VarStore,
    body: nn::Sequential,
}

static INIT: Mutex<()> = Mutex::new(());

impl HandNet {
    /// A network on the CPU with initial weights drawn from `seed`.
    pub fn cpu(seed: u64) -> HandNet {
        let _drawing = INIT.lock().unwrap_or_else(|p| p.into_inner());
        tch::manual_seed(seed as i64);
        let vs = nn::VarStore::new(Device::Cpu);
        let root = vs.root();
        let body = nn::seq()
            .add(nn::linear(&root / "l0", HAND_DIM as i64, HIDDEN, Default::default()))
            .add_fn(|x| x.relu())
            .add(nn::linear(&root / "l1", HIDDEN, HIDDEN, Default::default()))
            .add_fn(|x| x.relu())
            .add(nn::linear(&root / "out", HIDDEN, 2, Default::default()));
        HandNet { vs, body }
    }

    /// Raw outputs for B hands (`features`: B × `HAND_DIM`): win logit and points.
    fn forward(&self, features: &[f32]) -> Tensor {
        let b = (features.len() / HAND_DIM) as i64;
        self.body.forward(&Tensor::from_slice(features).view([b, HAND_DIM as i64]))
    }

    /// The values of B hands.
    pub fn predict(&self, features: &[f32]) -> Vec<HandValue> {
        let out = tch::no_grad(|| self.forward(features));
        let win: Vec<f32> = Vec::try_from(out.select(1, 0).sigmoid()).expect("a float tensor");
        let points: Vec<f32> = Vec::try_from(out.select(1, 1)).expect("a float tensor");
        win.into_iter().zip(points).map(|(win, points)| HandValue { win, points }).collect()
    }

    /// Writes the weights through a temporary file and a rename.
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        save_var_store(&self.vs, path)
    }

    /// Loads a hand evaluator written by [`HandNet::save`].
    pub fn load(path: &Path) -> Result<HandNet, WeightsError> {
        let mut net = HandNet::cpu(0);
        load_var_store(&mut net.vs, path)?;
        Ok(net)
    }
}

/// Adam on win (cross-entropy) and points (squared error, scaled down) together.
pub struct HandTrainer {
    /// The network being trained.
    pub net: HandNet,
    opt: nn::Optimizer,
}

/// Points are divided by this in the loss, so that both terms weigh about the same.
const POINTS_SCALE: f64 = 4.0;

impl HandTrainer {
    /// A fresh network drawn from `seed`, trained at learning rate `lr`; the error when
    /// libtorch will not build the optimizer.
    pub fn new(seed: u64, lr: f64) -> Result<HandTrainer, LearnerError> {
        let net = HandNet::cpu(seed);
        let opt = nn::Adam::default().build(&net.vs, lr).map_err(LearnerError::Optimizer)?;
        Ok(HandTrainer { net, opt })
    }

    /// The loss on a set of hands, without updating.
    pub fn loss(&self, features: &[f32], wins: &[f32], points: &[f32]) -> f64 {
        tch::no_grad(|| loss(&self.net.forward(features), wins, points).double_value(&[]))
    }

    /// Copies the trained network's weights into `best` (the best so far, for early stopping).
    pub fn keep(&self, best: &mut HandNet) {
        best.vs.copy(&self.net.vs).expect("the same network shape");
    }

    /// One update on a batch; returns its loss before the update.
    pub fn step(&mut self, features: &[f32], wins: &[f32], points: &[f32]) -> f64 {
        let out = self.net.forward(features);
        let loss = loss(&out, wins, points);
        self.opt.backward_step(&loss);
        loss.double_value(&[])
    }
}

/// Cross-entropy of the win chance plus the squared error of the scaled points.
fn loss(out: &Tensor, wins: &[f32], points: &[f32]) -> Tensor {
    {
        let win_loss = out.select(1, 0).binary_cross_entropy_with_logits::<Tensor>(
            &Tensor::from_slice(wins),
            None,
            None,
            tch::Reduction::Mean,
        );
        let target = Tensor::from_slice(points) / POINTS_SCALE;
        let points_loss = (out.select(1, 1) / POINTS_SCALE - target).square().mean(Kind::Float);
        win_loss + points_loss
    }
}
