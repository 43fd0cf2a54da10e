//! The learner: MSE between Q(s, a) and the final reward, on batches of frames.

use super::config::{LearnerConfig, Optimizer};
use super::trajectory::Frame;
use crate::encode::{ACTION_DIM, STATE_DIM};
use crate::game::Role;
use crate::model::{ModelConfig, QNet};
use tch::{Device, Kind, Tensor, nn, nn::OptimizerConfig};

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

impl Learner {
    pub fn new(model: &ModelConfig, cfg: &LearnerConfig, device: Device) -> Result<Learner, String> {
        let net = QNet::new(model, device);
        let opt = match cfg.optimizer {
            Optimizer::Adam => nn::Adam::default().build(&net.vs, cfg.lr),
            Optimizer::Rmsprop => nn::RmsProp { alpha: 0.99, eps: 1e-5, momentum: 0.0, centered: false, wd: 0.0 }.build(&net.vs, cfg.lr),
        }
        .map_err(|e| format!("building the optimizer: {e}"))?;
        Ok(Learner { net, opt, grad_clip: cfg.grad_clip, lr: cfg.lr })
    }

    pub fn set_lr(&mut self, lr: f64) {
        self.opt.set_lr(lr);
        self.lr = lr;
    }

    /// One update on `frames`.
    pub fn step(&mut self, frames: &[Frame]) -> StepStats {
        let n = frames.len() as i64;
        let dev = self.net.device();
        let mut states = Vec::with_capacity(frames.len() * STATE_DIM);
        let mut actions = Vec::with_capacity(frames.len() * ACTION_DIM);
        let mut targets = Vec::with_capacity(frames.len());
        let mut roles = Vec::with_capacity(frames.len());
        for f in frames {
            states.extend_from_slice(&f.state);
            actions.extend_from_slice(&f.action);
            targets.push(f.target);
            roles.push(f.role.index() as i64);
        }
        let s = Tensor::from_slice(&states).view([n, STATE_DIM as i64]).to_device(dev);
        let a = Tensor::from_slice(&actions).view([n, ACTION_DIM as i64]).to_device(dev);
        let y = Tensor::from_slice(&targets).to_device(dev);
        let owner = Tensor::arange(n, (Kind::Int64, dev));
        let q = self.net.forward(&s, &a, &owner);
        let sq = (&q - &y).square();
        let loss = sq.mean(Kind::Float);
        self.opt.zero_grad();
        loss.backward();
        if self.grad_clip > 0.0 {
            self.net.clip_grad_norm(self.grad_clip);
        }
        self.opt.step();
        let sq: Vec<f32> = Vec::try_from(sq.detach().to_device(Device::Cpu)).unwrap();
        let mut by_role = [0.0f64; 3];
        let mut count = [0usize; 3];
        for (e, r) in sq.iter().zip(&roles) {
            by_role[*r as usize] += *e as f64;
            count[*r as usize] += 1;
        }
        let loss_by_role = std::array::from_fn(|i| if count[i] > 0 { by_role[i] / count[i] as f64 } else { f64::NAN });
        StepStats { loss: loss.double_value(&[]), loss_by_role, mean_q: q.mean(Kind::Float).double_value(&[]), lr: self.lr }
    }
}

/// Role names in loss order.
pub const ROLE_NAMES: [&str; 3] = [Role::Landlord.name(), Role::LandlordDown.name(), Role::LandlordUp.name()];
