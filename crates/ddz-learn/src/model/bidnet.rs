//! The bidding network: Q of each bid (pass, 1, 2, 3) from a bidding decision's features
//! ([`crate::encode::encode_bid_state`]), learned by Deep Monte Carlo beside the play network:
//! each bid's label is the points its seat's side made in the game (0 when every seat passed).

use super::learner::LearnerError;
use super::qnet::{INIT, ModelError, Weights, export_store, import_store};
use super::weights::{WeightsError, load_var_store, save_var_store};
use crate::encode::{BID_DIM, encode_bid_view};
use crate::game::View;
use std::path::Path;
use tch::{Device, Kind, Tensor, nn, nn::Module, nn::OptimizerConfig};

/// Bids a seat can make: 0 (pass) to 3.
pub const BIDS: usize = 4;

/// A small MLP from a bidding decision's features to the Q of each of the [`BIDS`] bids.
pub struct BidNet {
    /// The network's variables (on the CPU).
    pub vs: nn::VarStore,
    body: nn::Sequential,
}

impl BidNet {
    /// A network on the CPU (it is small) with initial weights drawn from `seed`.
    pub fn cpu(seed: u64) -> BidNet {
        let _drawing = INIT.lock().unwrap_or_else(|p| p.into_inner());
        tch::manual_seed(seed as i64);
        let vs = nn::VarStore::new(Device::Cpu);
        let root = vs.root();
        let body = nn::seq()
            .add(nn::linear(&root / "bid0", BID_DIM as i64, 128, Default::default()))
            .add_fn(|x| x.relu())
            .add(nn::linear(&root / "bid1", 128, 64, Default::default()))
            .add_fn(|x| x.relu())
            .add(nn::linear(&root / "bid_out", 64, BIDS as i64, Default::default()));
        BidNet { vs, body }
    }

    fn forward(&self, features: &[f32]) -> Tensor {
        let b = (features.len() / BID_DIM) as i64;
        self.body.forward(&Tensor::from_slice(features).view([b, BID_DIM as i64]))
    }

    /// Q of every bid for B decisions (`features`: B × `BID_DIM`).
    pub fn q_values(&self, features: &[f32]) -> Vec<[f32; BIDS]> {
        let out: Vec<f32> = Vec::try_from(tch::no_grad(|| self.forward(features)).flatten(0, -1)).expect("floats");
        out.chunks_exact(BIDS).map(|c| [c[0], c[1], c[2], c[3]]).collect()
    }

    /// The legal bid with the highest Q; a pass, which is always legal, when `legal` is empty.
    pub fn best(q: &[f32; BIDS], legal: &[u8]) -> u8 {
        legal.iter().copied().max_by(|a, b| q[*a as usize].total_cmp(&q[*b as usize])).unwrap_or(0)
    }

    /// A host copy of every weight, sorted by name, tagged with `version`.
    pub fn export(&self, version: u64) -> Weights {
        export_store(&self.vs, version)
    }

    /// Copies `weights` into the network; an error when their names or shapes do not fit it.
    pub fn import(&mut self, weights: &Weights) -> Result<(), ModelError> {
        import_store(&self.vs, weights)
    }

    /// Writes the weights through a temporary file and a rename.
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        save_var_store(&self.vs, path)
    }

    /// Loads a bidding network written by [`BidNet::save`].
    pub fn load(path: &Path) -> Result<BidNet, WeightsError> {
        let mut net = BidNet::cpu(0);
        load_var_store(&mut net.vs, path)?;
        Ok(net)
    }

    /// The bid at a seat's bidding decision, its view: the legal bid of highest Q.
    pub fn bid(&self, view: &View<'_>, legal: &[u8]) -> u8 {
        let mut features = [0.0f32; BID_DIM];
        encode_bid_view(view, &mut features);
        BidNet::best(&self.q_values(&features)[0], legal)
    }
}

/// Adam on the squared error between Q(s, bid) and the bid's label.
pub struct BidLearner {
    /// The network being trained.
    pub net: BidNet,
    opt: nn::Optimizer,
}

impl BidLearner {
    /// A fresh network drawn from `seed`, trained at learning rate `lr`; the error when
    /// libtorch will not build the optimizer.
    pub fn new(seed: u64, lr: f64) -> Result<BidLearner, LearnerError> {
        let net = BidNet::cpu(seed);
        let opt = nn::Adam::default().build(&net.vs, lr).map_err(LearnerError::Optimizer)?;
        Ok(BidLearner { net, opt })
    }

    /// One update on B decisions: their features, the bids made and their labels; the loss
    /// before the update.
    pub fn step(&mut self, features: &[f32], bids: &[u8], targets: &[f32]) -> f64 {
        let q = self.net.forward(features);
        let index = Tensor::from_slice(&bids.iter().map(|&b| b as i64).collect::<Vec<_>>()).unsqueeze(1);
        let chosen = q.gather(1, &index, false).squeeze_dim(1);
        let loss = (chosen - Tensor::from_slice(targets)).square().mean(Kind::Float);
        self.opt.backward_step(&loss);
        loss.double_value(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_learns_the_value_of_each_bid_and_round_trips() {
        crate::runtime::configure_threads(1);
        // Two kinds of decision: on the first, bidding 3 pays; on the second, passing does.
        let mut features = vec![0.0f32; 2 * BID_DIM];
        features[0] = 1.0;
        features[BID_DIM + 1] = 1.0;
        let mut learner = BidLearner::new(3, 0.01).unwrap();
        for _ in 0..300 {
            learner.step(&features.repeat(2), &[3, 0, 0, 3], &[6.0, 0.5, -1.0, -4.0]);
        }
        let q = learner.net.q_values(&features);
        assert!((q[0][3] - 6.0).abs() < 0.5 && (q[1][0] - 0.5).abs() < 0.5, "{q:?}");
        assert_eq!(BidNet::best(&q[0], &[0, 3]), 3);
        assert_eq!(BidNet::best(&q[1], &[0, 3]), 0);
        let dir = std::env::temp_dir().join(format!("ddz-bidnet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        learner.net.save(&dir.join("bid.safetensors")).unwrap();
        let back = BidNet::load(&dir.join("bid.safetensors")).unwrap();
        assert_eq!(back.q_values(&features), q);
        let mut other = BidNet::cpu(9);
        other.import(&learner.net.export(1)).unwrap();
        assert_eq!(other.q_values(&features), q);
        let _ = std::fs::remove_dir_all(dir);
    }
}
