//! The pretraining update: imitate recorded choices with the same Q network and head that RL
//! trains, by the cross-entropy of the softmax over each decision's legal plays.

use super::learner::LearnerError;
use super::qnet::{ModelConfig, QNet};
use crate::encode::STATE_DIM;
use crate::runtime;
use tch::{Kind, Tensor, nn, nn::OptimizerConfig};

/// B decisions, already encoded: their states, all their legal plays (N in all), for each play
/// its decision (`owner`) and its place among that decision's plays (`positions`), and the place
/// of the play that was chosen in each decision.
#[derive(Clone, Debug, Default)]
pub struct ChoiceBatch {
    /// B × `STATE_DIM` features.
    pub states: Vec<f32>,
    /// N × [`crate::encode::ACTION_DIM`] features (more with the network's hand-structure block).
    pub actions: Vec<f32>,
    /// N indices: the decision (0 to B − 1) each play belongs to.
    pub owner: Vec<i64>,
    /// N indices: each play's place among its decision's plays.
    pub positions: Vec<i64>,
    /// B indices into each decision's plays.
    pub chosen: Vec<i64>,
    /// The most legal plays of any decision in the batch.
    pub widest: usize,
}

/// A Q network learning to imitate recorded choices, with its Adam optimizer.
pub struct Imitation {
    /// The network being trained.
    pub net: QNet,
    opt: nn::Optimizer,
}

impl Imitation {
    /// A network on `device` with initial weights drawn from `seed`, trained by Adam at `lr`.
    pub fn new(model: &ModelConfig, device: runtime::Device, lr: f64, seed: u64) -> Result<Imitation, LearnerError> {
        let net = QNet::on(model, device, seed)?;
        let opt = nn::Adam::default().build(&net.vs, lr).map_err(LearnerError::Optimizer)?;
        Ok(Imitation { net, opt })
    }

    /// One update; returns the batch's loss before it.
    pub fn step(&mut self, batch: &ChoiceBatch) -> f64 {
        let (loss, _) = self.loss(batch);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        loss.double_value(&[])
    }

    /// The batch's mean loss and how many of its decisions the network ranks the chosen play
    /// first in, without learning.
    pub fn score(&self, batch: &ChoiceBatch) -> (f64, i64) {
        tch::no_grad(|| {
            let (loss, hits) = self.loss(batch);
            (loss.double_value(&[]), hits)
        })
    }

    fn loss(&self, batch: &ChoiceBatch) -> (Tensor, i64) {
        let dev = self.net.device();
        let b = batch.chosen.len() as i64;
        let w = batch.widest as i64;
        let s = Tensor::from_slice(&batch.states).view([b, STATE_DIM as i64]).to_device(dev);
        let width = self.net.config().action_layout().dim() as i64;
        let a = Tensor::from_slice(&batch.actions).view([batch.owner.len() as i64, width]).to_device(dev);
        let o = Tensor::from_slice(&batch.owner).to_device(dev);
        let q = self.net.forward(&s, &a, &o);
        // Scatter the scores into a [B, widest] table padded with a very low score, then take
        // the softmax of each row.
        let flat: Vec<i64> = batch.owner.iter().zip(&batch.positions).map(|(o, p)| o * w + p).collect();
        let flat = Tensor::from_slice(&flat).to_device(dev);
        let padded = Tensor::full([b * w], -1e9, (Kind::Float, dev)).index_put(&[Some(flat)], &q, false).view([b, w]);
        let logp = padded.log_softmax(1, Kind::Float);
        let target = Tensor::from_slice(&batch.chosen).to_device(dev);
        let loss = -logp.gather(1, &target.unsqueeze(1), false).mean(Kind::Float);
        let hits = padded.argmax(1, false).eq_tensor(&target).sum(Kind::Int64).int64_value(&[]);
        (loss, hits)
    }
}
