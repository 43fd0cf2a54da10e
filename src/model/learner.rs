//! The DMC learner's arithmetic: mean squared error between Q(s, a) and the decision's label,
//! one optimizer step per batch of frames.

use super::qnet::{ModelConfig, ModelError, QNet};
use crate::encode::{ACTION_DIM, STATE_DIM};
use crate::game::Role;
use crate::runtime;
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor, nn, nn::OptimizerConfig};

/// One learned decision: the state's features, the chosen play's features, and the label the
/// network learns to predict for them.
#[derive(Clone, Debug)]
pub struct Frame {
    pub state: Vec<f32>,
    pub action: Vec<f32>,
    pub target: f32,
    pub role: Role,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    Adam,
    Rmsprop,
}

/// How the learner updates the network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LearnerSettings {
    pub optimizer: Optimizer,
    pub lr: f64,
    /// Gradient-norm clip, of each role's network on its own when per-role (0 = off).
    pub grad_clip: f64,
}

pub struct Learner {
    pub net: QNet,
    opt: nn::Optimizer,
    grad_clip: f64,
    lr: f64,
}

/// What one update measured.
#[derive(Clone, Debug, Default)]
pub struct StepStats {
    pub loss: f64,
    /// Loss per role (landlord, landlord_down, landlord_up); NaN when the batch had none.
    pub loss_by_role: [f64; 3],
    pub mean_q: f64,
    /// The learning rate of this update.
    pub lr: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("building the optimizer: {0}")]
    Optimizer(String),
}

impl Learner {
    /// A network on `device` with initial weights drawn from `seed`, and its optimizer.
    pub fn new(
        model: &ModelConfig,
        settings: LearnerSettings,
        device: runtime::Device,
        seed: u64,
    ) -> Result<Learner, LearnerError> {
        let net = QNet::on(model, device, seed)?;
        let opt = match settings.optimizer {
            Optimizer::Adam => nn::Adam::default().build(&net.vs, settings.lr),
            Optimizer::Rmsprop => nn::RmsProp { alpha: 0.99, eps: 1e-5, momentum: 0.0, centered: false, wd: 0.0 }
                .build(&net.vs, settings.lr),
        }
        .map_err(|e| LearnerError::Optimizer(e.to_string()))?;
        Ok(Learner { net, opt, grad_clip: settings.grad_clip, lr: settings.lr })
    }

    pub fn set_lr(&mut self, lr: f64) {
        self.opt.set_lr(lr);
        self.lr = lr;
    }

    /// One update on `frames`.
    pub fn step(&mut self, frames: &[Frame]) -> StepStats {
        let (s, a, y) = self.tensors(frames);
        let owner = Tensor::arange(frames.len() as i64, (Kind::Int64, self.net.device()));
        let q = self.net.forward(&s, &a, &owner);
        let sq = (&q - &y).square();
        let loss = sq.mean(Kind::Float);
        self.opt.zero_grad();
        loss.backward();
        if self.grad_clip > 0.0 {
            self.net.clip_grad_norm(self.grad_clip);
        }
        self.opt.step();
        let sq: Vec<f32> = Vec::try_from(sq.detach().to_device(Device::Cpu)).expect("a float vector");
        StepStats {
            loss: loss.double_value(&[]),
            loss_by_role: loss_by_role(&sq, frames),
            mean_q: q.mean(Kind::Float).double_value(&[]),
            lr: self.lr,
        }
    }

    /// States [N, S], actions [N, A] and targets [N] on the network's device.
    fn tensors(&self, frames: &[Frame]) -> (Tensor, Tensor, Tensor) {
        let n = frames.len() as i64;
        let dev = self.net.device();
        let mut states = Vec::with_capacity(frames.len() * STATE_DIM);
        let mut actions = Vec::with_capacity(frames.len() * ACTION_DIM);
        for f in frames {
            states.extend_from_slice(&f.state);
            actions.extend_from_slice(&f.action);
        }
        let targets: Vec<f32> = frames.iter().map(|f| f.target).collect();
        (
            Tensor::from_slice(&states).view([n, STATE_DIM as i64]).to_device(dev),
            Tensor::from_slice(&actions).view([n, ACTION_DIM as i64]).to_device(dev),
            Tensor::from_slice(&targets).to_device(dev),
        )
    }
}

/// The mean squared error of each role's frames (NaN for a role without frames).
fn loss_by_role(squared_errors: &[f32], frames: &[Frame]) -> [f64; 3] {
    let mut sum = [0.0f64; 3];
    let mut count = [0usize; 3];
    for (e, f) in squared_errors.iter().zip(frames) {
        sum[f.role.index()] += *e as f64;
        count[f.role.index()] += 1;
    }
    std::array::from_fn(|i| if count[i] > 0 { sum[i] / count[i] as f64 } else { f64::NAN })
}

/// Role names in loss order.
pub const ROLE_NAMES: [&str; 3] = [Role::Landlord.name(), Role::LandlordDown.name(), Role::LandlordUp.name()];
