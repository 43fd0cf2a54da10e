//! The DMC learner's arithmetic: mean squared error between Q(s, a) and the decision's label,
//! one optimizer step per batch of frames.

use super::qnet::{Guide, HAND_CLASSES, ModelConfig, ModelError, QNet};
use crate::encode::{HIDDEN_RANKS, HiddenHands, ORACLE_DIM, STATE_DIM};
use crate::game::Role;
use crate::runtime;
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor, nn, nn::OptimizerConfig};

/// One learned decision: the state's features, the chosen play's features, and the label the
/// network learns to predict for them.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The state's features as the deciding seat sees them, [`STATE_DIM`] long.
    pub state: Vec<f32>,
    /// The chosen play's features, [`crate::encode::ACTION_DIM`] long (longer with the network's
    /// hand-structure block: `ModelConfig::action_layout`).
    pub action: Vec<f32>,
    /// The Q head's label: a λ-return of the seat's reward from this decision on.
    pub target: f32,
    /// The score head's label: the game points of the decision's side (a λ-return of them, as
    /// `target` is of the reward), whatever the reward's scoring.
    pub points: f32,
    /// The deciding seat's role, which groups [`StepStats::loss_by_role`].
    pub role: Role,
    /// The other two hands at the decision: targets of the hidden-hand head and the oracle's
    /// input, read only by training.
    pub hidden: HiddenHands,
}

/// The optimizer of the learner's updates, as configs name it (`adam`, `rmsprop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    /// Adam with its usual defaults.
    Adam,
    /// RMSprop with DouZero's settings.
    Rmsprop,
}

/// How the learner updates the network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LearnerSettings {
    /// Which optimizer updates the weights.
    pub optimizer: Optimizer,
    /// The learning rate at the start ([`Learner::set_lr`] changes it).
    pub lr: f64,
    /// Gradient-norm clip, of each role's network on its own when per-role (0 = off).
    pub grad_clip: f64,
    /// Weight of the hidden-hand cross-entropy beside the Q loss (networks that predict hands).
    pub hand_loss_weight: f64,
    /// Feed the hidden-hand prediction to the Q head without its gradient.
    pub detach_hands: bool,
    /// Weight of the score head's squared error beside the Q loss (networks with a score head).
    pub points_loss_weight: f64,
    /// Decay of an exponential moving average of the weights kept beside them (Polyak
    /// averaging), updated after every step; 0 = none kept.
    pub ema: f64,
}

impl LearnerSettings {
    /// Adam at `lr` with DouZero's clip of 40, no auxiliary settings.
    pub fn adam(lr: f64) -> LearnerSettings {
        LearnerSettings {
            optimizer: Optimizer::Adam,
            lr,
            grad_clip: 40.0,
            hand_loss_weight: 0.0,
            detach_hands: false,
            points_loss_weight: 0.0,
            ema: 0.0,
        }
    }
}

/// Updates after which the warm-up no longer lowers the decay below any decay a config takes.
const WARM: u64 = 1 << 40;

/// An exponential moving average of a network's weights: after each update of the network,
/// `average ← d·average + (1 − d)·weights`, with `d` the decay, warmed up as `(1 + t)/(10 + t)`
/// for the first updates so that the average does not hold on to the initial weights.
pub struct Averaged {
    /// The averaged weights, as a network of the same shape.
    pub net: QNet,
    decay: f64,
    updates: u64,
}

impl Averaged {
    /// An average of `net`'s weights, starting at them, with decay `decay` (0 < decay < 1).
    pub fn of(net: &QNet, decay: f64) -> Averaged {
        let mut average = QNet::cpu(net.config(), 0);
        average.vs.set_device(net.device());
        let mut averaged = Averaged { net: average, decay, updates: 0 };
        averaged.restart(net);
        averaged
    }

    /// Starts the average again at `net`'s weights (after they were loaded or replaced).
    pub fn restart(&mut self, net: &QNet) {
        // The same variables in the same order: one config, one build.
        let _ = self.net.vs.copy(&net.vs);
        self.updates = 0;
    }

    /// Marks the average as past its warm-up: it was loaded from a run that averaged before.
    pub fn resumed(&mut self) {
        self.updates = self.updates.max(WARM);
    }

    /// Moves the average towards `net`'s weights by one step.
    fn update(&mut self, net: &QNet) {
        let d = self.decay.min((1.0 + self.updates as f64) / (10.0 + self.updates as f64));
        let now = net.vs.variables();
        tch::no_grad(|| {
            for (name, mut average) in self.net.vs.variables() {
                if let Some(w) = now.get(&name) {
                    let _ = average.lerp_(w, 1.0 - d);
                }
            }
        });
        self.updates += 1;
    }
}

/// The network being trained and its optimizer: applies one update per batch of frames.
pub struct Learner {
    /// The network being trained.
    pub net: QNet,
    /// The moving average of its weights, when the settings keep one.
    pub average: Option<Averaged>,
    opt: nn::Optimizer,
    settings: LearnerSettings,
    /// The weight the oracle's planes enter with (networks with an oracle input); 0 = withdrawn.
    oracle_weight: f64,
}

/// What one update measured.
#[derive(Clone, Debug, Default)]
pub struct StepStats {
    /// The batch's total loss before the update: the Q error plus the weighted auxiliary losses.
    pub loss: f64,
    /// Loss per role (landlord, landlord_down, landlord_up); NaN when the batch had none.
    pub loss_by_role: [f64; 3],
    /// The mean predicted Q over the batch, before the update.
    pub mean_q: f64,
    /// The learning rate of this update.
    pub lr: f64,
    /// The hidden-hand head's measures, when the network has one.
    pub hands: Option<HandStats>,
    /// The score head's mean squared error (in points²), when the network has one.
    pub points_loss: Option<f64>,
}

/// How well the hidden-hand head places the cards the seat cannot see.
#[derive(Clone, Copy, Debug, Default)]
pub struct HandStats {
    /// Cross-entropy of the predicted counts (per rank and hand).
    pub loss: f64,
    /// Share of the unseen cards that the prediction puts in the right hand: rank by rank, the
    /// unseen cards are split between the two hands in the ratio of the predicted counts.
    pub placed: f64,
    /// The same share for a uniform guess, which splits each rank in the ratio of hand sizes.
    pub placed_uniform: f64,
}

/// Why the learner could not be built or an update was refused.
#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    /// The network could not be built from its config or placed on the device.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// libtorch would not build the optimizer; holds its message.
    #[error("building the optimizer: {0}")]
    Optimizer(#[source] tch::TchError),
    /// A loss could not be read back from the device.
    #[error("reading the loss back: {0}")]
    Readback(#[source] tch::TchError),
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
        .map_err(LearnerError::Optimizer)?;
        let average = (settings.ema > 0.0).then(|| Averaged::of(&net, settings.ema));
        Ok(Learner { net, average, opt, settings, oracle_weight: 0.0 })
    }

    /// The learning rate of the following updates (as [`StepStats::lr`] reports).
    pub fn set_lr(&mut self, lr: f64) {
        self.opt.set_lr(lr);
        self.settings.lr = lr;
    }

    /// The weight of the oracle's planes in the following updates (ignored without an oracle).
    pub fn set_oracle_weight(&mut self, weight: f64) {
        self.oracle_weight = weight;
    }

    /// One update on `frames`.
    /// A batch whose loss or gradient is not finite is refused before the weights change.
    pub fn step(&mut self, frames: &[Frame]) -> Result<StepStats, LearnerError> {
        self.update(frames, false)
    }

    /// [`Learner::step`] that also measures the hidden-hand head ([`StepStats::hands`]): a few
    /// more tensor passes, so training asks for it only on the steps whose scalars it writes.
    pub fn step_measured(&mut self, frames: &[Frame]) -> Result<StepStats, LearnerError> {
        self.update(frames, true)
    }

    fn update(&mut self, frames: &[Frame], measure: bool) -> Result<StepStats, LearnerError> {
        let (s, a, y, y_points) = self.tensors(frames);
        let dev = self.net.device();
        let owner = Tensor::arange(frames.len() as i64, (Kind::Int64, dev));
        let planes = (self.net.config().oracle && self.oracle_weight > 0.0).then(|| oracle_planes(frames, dev));
        let guide = Guide {
            oracle: planes.as_ref().map(|p| (p, self.oracle_weight)),
            detach_hands: self.settings.detach_hands,
        };
        let out = self.net.forward_guided(&s, &a, &owner, guide);
        let q = out.q;
        let sq = (&q - &y).square();
        let mut loss = sq.mean(Kind::Float);
        let mut points_loss = None;
        if let Some(points) = &out.points {
            let mse = (points - &y_points).square().mean(Kind::Float);
            points_loss = Some(mse.double_value(&[]));
            loss = &loss + &mse * self.settings.points_loss_weight;
        }
        let mut hands = None;
        if let Some(logits) = out.hands {
            let truth = hand_truth(frames, logits.device());
            let ce = logits.view([-1, HAND_CLASSES]).cross_entropy_for_logits(&truth);
            if measure {
                hands = Some(hand_stats(&logits, &truth, ce.double_value(&[])));
            }
            loss = &loss + &ce * self.settings.hand_loss_weight;
        }
        let loss_value = loss.double_value(&[]);
        if !loss_value.is_finite() {
            return Err(LearnerError::NonFinite(format!("the loss is {loss_value}")));
        }
        self.opt.zero_grad();
        loss.backward();
        let clip = if self.settings.grad_clip > 0.0 { self.settings.grad_clip } else { f64::INFINITY };
        let norms = self.net.clip_grad_norm(clip);
        if let Some(norm) = norms.iter().find(|n| !n.is_finite()) {
            self.opt.zero_grad();
            return Err(LearnerError::NonFinite(format!("the gradient norm is {norm}")));
        }
        self.opt.step();
        if let Some(average) = &mut self.average {
            average.update(&self.net);
        }
        let sq: Vec<f32> = Vec::try_from(sq.detach().to_device(Device::Cpu)).map_err(LearnerError::Readback)?;
        Ok(StepStats {
            loss: loss_value,
            loss_by_role: loss_by_role(&sq, frames),
            mean_q: q.mean(Kind::Float).double_value(&[]),
            lr: self.settings.lr,
            hands,
            points_loss,
        })
    }

    /// States [N, S], actions [N, A], targets [N] and points targets [N] on the network's device.
    fn tensors(&self, frames: &[Frame]) -> (Tensor, Tensor, Tensor, Tensor) {
        let n = frames.len() as i64;
        let dev = self.net.device();
        let mut states = Vec::with_capacity(frames.len() * STATE_DIM);
        let width = self.net.config().action_layout().dim();
        let mut actions = Vec::with_capacity(frames.len() * width);
        for f in frames {
            states.extend_from_slice(&f.state);
            actions.extend_from_slice(&f.action);
        }
        let targets: Vec<f32> = frames.iter().map(|f| f.target).collect();
        let points: Vec<f32> = frames.iter().map(|f| f.points).collect();
        (
            Tensor::from_slice(&states).view([n, STATE_DIM as i64]).to_device(dev),
            Tensor::from_slice(&actions).view([n, width as i64]).to_device(dev),
            Tensor::from_slice(&targets).to_device(dev),
            Tensor::from_slice(&points).to_device(dev),
        )
    }
}

/// The frames' other two hands as oracle planes [N, ORACLE_DIM].
fn oracle_planes(frames: &[Frame], dev: Device) -> Tensor {
    let mut planes = vec![0.0f32; frames.len() * ORACLE_DIM];
    for (f, out) in frames.iter().zip(planes.chunks_mut(ORACLE_DIM)) {
        f.hidden.write_oracle(out);
    }
    Tensor::from_slice(&planes).view([frames.len() as i64, ORACLE_DIM as i64]).to_device(dev)
}

/// The frames' true hidden counts, flattened [N · HIDDEN_RANKS], as class indices.
fn hand_truth(frames: &[Frame], dev: Device) -> Tensor {
    let counts: Vec<i64> = frames.iter().flat_map(|f| f.hidden.0.iter().map(|&c| c as i64)).collect();
    Tensor::from_slice(&counts).to_device(dev)
}

/// How many unseen cards the prediction `logits` [N, HIDDEN_RANKS, HAND_CLASSES] places in the
/// right hand, against a uniform guess, with the cross-entropy `loss` already computed.
fn hand_stats(logits: &Tensor, truth: &Tensor, loss: f64) -> HandStats {
    let dev = logits.device();
    let n = logits.size()[0];
    let placed = tch::no_grad(|| {
        let r = (HIDDEN_RANKS / 2) as i64;
        let truth = truth.view([n, HIDDEN_RANKS as i64]).to_kind(Kind::Float);
        let (next, prev) = (truth.narrow(1, 0, r), truth.narrow(1, r, r));
        let unseen = &next + &prev;
        let share = |x: &Tensor| {
            let right = x.minimum(&next) + (&unseen - x).minimum(&prev);
            right.sum(Kind::Double).double_value(&[]) / unseen.sum(Kind::Double).double_value(&[]).max(1.0)
        };
        let classes = Tensor::arange(HAND_CLASSES, (Kind::Float, dev));
        let expected = (logits.softmax(-1, Kind::Float) * classes).sum_dim_intlist(-1, false, Kind::Float);
        let (e_next, e_prev) = (expected.narrow(1, 0, r), expected.narrow(1, r, r));
        let predicted = &unseen * &e_next / (&e_next + &e_prev).clamp_min(1e-6);
        let size_next = next.sum_dim_intlist(1, true, Kind::Float);
        let size_prev = prev.sum_dim_intlist(1, true, Kind::Float);
        let uniform = &unseen * &size_next / (&size_next + &size_prev).clamp_min(1.0);
        (share(&predicted), share(&uniform))
    });
    HandStats { loss, placed: placed.0, placed_uniform: placed.1 }
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
    use crate::encode::ACTION_DIM;

    #[test]
    fn a_non_finite_batch_is_refused_and_the_weights_stay() {
        let model = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        let settings = LearnerSettings::adam(1e-2);
        let mut learner = Learner::new(&model, settings, runtime::Device::Cpu, 5).unwrap();
        let frame = |target: f32| Frame {
            state: vec![0.5; STATE_DIM],
            action: vec![0.25; ACTION_DIM],
            target,
            points: 0.0,
            role: Role::Landlord,
            hidden: HiddenHands::default(),
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

    #[test]
    fn the_average_of_the_weights_follows_them_by_its_decay() {
        let model = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        let settings = LearnerSettings { ema: 0.9, ..LearnerSettings::adam(1e-2) };
        let mut learner = Learner::new(&model, settings, runtime::Device::Cpu, 5).unwrap();
        assert!(Learner::new(&model, LearnerSettings::adam(1e-2), runtime::Device::Cpu, 5).unwrap().average.is_none());
        let values = |net: &QNet| -> Vec<f32> { net.export(0).tensors.into_iter().flat_map(|(_, _, v)| v).collect() };
        assert_eq!(values(&learner.average.as_ref().unwrap().net), values(&learner.net), "it starts at the weights");
        let frames = random_frames(3);
        let mut before = values(&learner.net);
        let mut avg_before = before.clone();
        for (k, batch) in frames.chunks(32).take(30).enumerate() {
            learner.step(batch).unwrap();
            let (now, avg) = (values(&learner.net), values(&learner.average.as_ref().unwrap().net));
            // Each weight's average moves from where it was towards the new weight by 1 - d.
            let d = 0.9f64.min((1.0 + k as f64) / (10.0 + k as f64));
            for ((a0, a1), w) in avg_before.iter().zip(&avg).zip(&now) {
                let want = *a0 as f64 * d + *w as f64 * (1.0 - d);
                assert!((*a1 as f64 - want).abs() < 1e-5, "step {k}: {a1} vs {want}");
            }
            (before, avg_before) = (now, avg);
        }
        assert_ne!(avg_before, before, "the average lags the weights");
    }

    /// Frames of random games: every seat's decisions, labelled ±1 by the result.
    fn random_frames(games: u64) -> Vec<Frame> {
        use crate::encode::{encode_action, encode_state};
        use crate::game::{MoveList, State};
        use rand::{RngExt, SeedableRng, rngs::SmallRng};
        let mut rng = SmallRng::seed_from_u64(11);
        let mut frames = Vec::new();
        let mut plays = MoveList::new();
        for _ in 0..games {
            let mut s = State::new(Default::default());
            s.deal_random(&mut rng);
            let mut game = Vec::new();
            while let Some(seat) = s.current_player() {
                s.legal_plays_into(&mut plays);
                let p = plays[rng.random_range(0..plays.len())];
                let (mut st, mut a) = (vec![0.0; STATE_DIM], vec![0.0; ACTION_DIM]);
                encode_state(&s, seat, &mut st);
                encode_action(&p, s.hand(seat), &mut a);
                game.push((seat, st, a, HiddenHands::of(&s, seat)));
                s.apply_play_unchecked(p);
            }
            for (seat, state, action, hidden) in game {
                let role = s.role(seat).unwrap();
                let target = s.returns()[seat.index()] as f32;
                // The side's game points: the stake (doubled per bomb), twice for the landlord.
                let points = target.signum() * s.multiplier() as f32 * if role.is_farmer() { 1.0 } else { 2.0 };
                frames.push(Frame { state, action, target, points, role, hidden });
            }
        }
        frames
    }

    #[test]
    fn the_score_head_learns_the_points_beside_q() {
        crate::runtime::configure_threads(1);
        let model =
            ModelConfig { trunk: vec![64], head: 16, head_hidden: vec![8], score_head: true, ..Default::default() };
        let settings = LearnerSettings { points_loss_weight: 0.5, ..LearnerSettings::adam(3e-3) };
        let mut learner = Learner::new(&model, settings, runtime::Device::Cpu, 5).unwrap();
        let frames = random_frames(120);
        assert!(frames.iter().any(|f| f.points.abs() > 2.0), "bombs double some stakes");
        let held_out = random_frames(10);
        let first = learner.step(&held_out).unwrap();
        for _ in 0..30 {
            for batch in frames.chunks(256) {
                learner.step(batch).unwrap();
            }
        }
        learner.set_lr(1e-12);
        let last = learner.step(&held_out).unwrap();
        let (p0, p1) = (first.points_loss.unwrap(), last.points_loss.unwrap());
        eprintln!("points loss on held-out frames: {p0:.3} -> {p1:.3}; loss {:.3} -> {:.3}", first.loss, last.loss);
        assert!(p1 < 0.7 * p0, "the points' squared error falls: {p0} -> {p1}");
        assert_eq!(learner.net.score_margin(), Some(1.0), "the margin is never trained");
        let plain = ModelConfig { score_head: false, ..model };
        let mut without = Learner::new(&plain, LearnerSettings::adam(3e-3), runtime::Device::Cpu, 5).unwrap();
        assert!(without.step(&held_out).unwrap().points_loss.is_none());
    }

    #[test]
    fn the_hand_head_learns_to_place_unseen_cards_better_than_a_uniform_guess() {
        crate::runtime::configure_threads(1);
        let model =
            ModelConfig { trunk: vec![64], head: 16, head_hidden: vec![], hand_prediction: true, ..Default::default() };
        let settings = LearnerSettings { hand_loss_weight: 1.0, ..LearnerSettings::adam(3e-3) };
        let mut learner = Learner::new(&model, settings, runtime::Device::Cpu, 5).unwrap();
        let frames = random_frames(120);
        let held_out = random_frames(10);
        assert!(learner.step(&held_out).unwrap().hands.is_none(), "measured only when asked");
        let first = learner.step_measured(&held_out).unwrap().hands.unwrap();
        for _ in 0..30 {
            for batch in frames.chunks(256) {
                learner.step(batch).unwrap();
            }
        }
        learner.set_lr(1e-12);
        let last = learner.step_measured(&held_out).unwrap().hands.unwrap();
        eprintln!("hands on held-out frames: {first:?} -> {last:?}");
        assert!(last.loss < first.loss - 0.2, "the cross-entropy falls: {first:?} -> {last:?}");
        assert!(last.placed > last.placed_uniform + 0.01, "better than a uniform guess: {last:?}");
    }
}
