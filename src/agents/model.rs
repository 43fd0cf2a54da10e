//! Greedy on the Q network: the play with the highest Q(s, a).

use super::{Agent, Candidate};
use crate::encode::{ACTION_DIM, STATE_DIM, encode_action, encode_state};
use crate::game::{Play, State};
use crate::model::QNet;

pub struct ModelAgent {
    pub net: QNet,
    label: String,
    state_buf: Vec<f32>,
    action_buf: Vec<f32>,
}

impl ModelAgent {
    pub fn new(net: QNet, label: impl Into<String>) -> ModelAgent {
        ModelAgent { net, label: label.into(), state_buf: vec![0.0; STATE_DIM], action_buf: Vec::new() }
    }

    /// Q of every play (in order) for the current player of `state`.
    pub fn q_values(&mut self, state: &State, plays: &[Play]) -> Vec<f32> {
        let seat = state.current_player().expect("a decision node");
        encode_state(state, seat, &mut self.state_buf);
        let hand = state.hand(seat);
        self.action_buf.resize(plays.len() * ACTION_DIM, 0.0);
        for (i, p) in plays.iter().enumerate() {
            encode_action(p, hand, &mut self.action_buf[i * ACTION_DIM..(i + 1) * ACTION_DIM]);
        }
        let owner = vec![0i64; plays.len()];
        self.net.q_values(&self.state_buf, &self.action_buf, &owner)
    }
}

/// Index of the largest value (the first on ties).
pub fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

impl Agent for ModelAgent {
    fn name(&self) -> String {
        self.label.clone()
    }
    fn choose(&mut self, state: &State, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        let q = self.q_values(state, plays);
        argmax(&q)
    }
    fn candidates(&mut self, state: &State, plays: &[Play]) -> Option<Vec<Candidate>> {
        Some(self.q_values(state, plays).into_iter().map(Candidate::value).collect())
    }
}
