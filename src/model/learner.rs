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
    /// A non-finite loss or gradient: the update was refused, the weights are unchanged.
    #[error("{0}: the update was refused")]
    NonFinite(String),
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
    /// A batch whose loss or gradient is not finite is refused before the weights change.
    pub fn step(&mut self, frames: &[Frame]) -> Result<StepStats, LearnerError> {
        let (s, a, y) = self.tensors(frames);
        let owner = Tensor::arange(frames.len() as i64, (Kind::Int64, self.net.device()));
        let q = self.net.forward(&s, &a, &owner);
        let sq = (&q - &y).square();
        let loss = sq.mean(Kind::Float);
        let loss_value = loss.double_value(&[]);
        if !loss_value.is_finite() {
            return Err(LearnerError::NonFinite(format!("the loss is {loss_value}")));
        }
        self.opt.zero_grad();
        loss.backward();
        let clip = if self.grad_clip > 0.0 { self.grad_clip } else { f64::INFINITY };
        let norms = self.net.clip_grad_norm(clip);
        if let Some(norm) = norms.iter().find(|n| !n.is_finite()) {
            self.opt.zero_grad();
            return Err(LearnerError::NonFinite(format!("the gradient norm is {norm}")));
        }
        self.opt.step();
        let sq: Vec<f32> = Vec::try_from(sq.detach().to_device(Device::Cpu)).expect("a float vector");
        Ok(StepStats {
            loss: loss_value,
            loss_by_role: loss_by_role(&sq, frames),
            mean_q: q.mean(Kind::Float).double_value(&[]),
            lr: self.lr,
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_finite_batch_is_refused_and_the_weights_stay() {
        let model = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        let settings = LearnerSettings { optimizer: Optimizer::Adam, lr: 1e-2, grad_clip: 40.0 };
        let mut learner = Learner::new(&model, settings, runtime::Device::Cpu, 5).unwrap();
        let frame = |target: f32| Frame {
            state: vec![0.5; STATE_DIM],
            action: vec![0.25; ACTION_DIM],
            target,
            role: Role::Landlord,
        };
        let before = learner.net.export(0).tensors;
        let e = learner.step(&[frame(1.0), frame(f32::NAN)]).unwrap_err();
        assert!(e.to_string().contains("loss is NaN"), "{e}");
        assert_eq!(learner.net.export(0).tensors, before, "no weight changed");
        let e = learner.step(&[frame(f32::INFINITY)]).unwrap_err();
        assert!(matches!(e, LearnerError::NonFinite(_)), "{e}");
        assert!(learner.step(&[frame(1.0), frame(-1.0)]).unwrap().loss.is_finite());
        assert_ne!(learner.net.export(0).tensors, before, "a finite batch learns");
    }
}
