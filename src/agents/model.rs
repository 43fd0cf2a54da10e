//! Greedy on the Q network: the play with the highest Q(s, a).

use super::{Agent, Candidate};
use crate::encode::{ACTION_DIM, STATE_DIM, encode_action, encode_state};
use crate::game::{MoveList, Play, State};
use crate::model::QNet;

pub struct ModelAgent {
    pub net: QNet,
    /// The bidding network trained with it, when its checkpoint has one; else bids are the
    /// rule bidder's.
    pub bid_net: Option<crate::model::bidnet::BidNet>,
    label: String,
    state_buf: Vec<f32>,
    action_buf: Vec<f32>,
}

impl ModelAgent {
    pub fn new(net: QNet, label: impl Into<String>) -> ModelAgent {
        ModelAgent { net, bid_net: None, label: label.into(), state_buf: vec![0.0; STATE_DIM], action_buf: Vec::new() }
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

impl ModelAgent {
    /// Q of every play of several decisions in one forward pass (each for its current player):
    /// batching is what makes many network rollouts affordable.
    pub fn q_values_many(&mut self, decisions: &[(&State, &[Play])]) -> Vec<Vec<f32>> {
        let rows: usize = decisions.iter().map(|(_, plays)| plays.len()).sum();
        self.state_buf.resize(decisions.len() * STATE_DIM, 0.0);
        self.action_buf.resize(rows * ACTION_DIM, 0.0);
        let mut owner = Vec::with_capacity(rows);
        for (k, (state, plays)) in decisions.iter().enumerate() {
            let seat = state.current_player().expect("a decision node");
            encode_state(state, seat, &mut self.state_buf[k * STATE_DIM..(k + 1) * STATE_DIM]);
            let hand = state.hand(seat);
            for p in plays.iter() {
                let row = owner.len();
                encode_action(p, hand, &mut self.action_buf[row * ACTION_DIM..(row + 1) * ACTION_DIM]);
                owner.push(k as i64);
            }
        }
        let q = self.net.q_values(&self.state_buf, &self.action_buf, &owner);
        self.state_buf.truncate(STATE_DIM);
        let mut out = Vec::with_capacity(decisions.len());
        let mut at = 0;
        for (_, plays) in decisions {
            out.push(q[at..at + plays.len()].to_vec());
            at += plays.len();
        }
        out
    }

    /// Plays every world to the end with the network greedy in every seat, all the worlds'
    /// decisions of a round in one batch; the returns of each world.
    pub fn rollouts(&mut self, worlds: Vec<State>) -> Vec<[f64; 3]> {
        self.rollouts_against(worlds, None)
    }

    /// As [`ModelAgent::rollouts`], except that with `opponents = Some((seat, agent))` the
    /// seats on the other side from `seat` are played by `agent`.
    pub fn rollouts_against(
        &mut self,
        mut worlds: Vec<State>,
        mut opponents: Option<(u8, &mut dyn Agent)>,
    ) -> Vec<[f64; 3]> {
        let mut plays: Vec<MoveList> = worlds.iter().map(|_| MoveList::new()).collect();
        loop {
            let live: Vec<usize> = (0..worlds.len()).filter(|&i| !worlds[i].is_terminal()).collect();
            if live.is_empty() {
                return worlds.iter().map(|w| w.returns()).collect();
            }
            for &i in &live {
                worlds[i].legal_plays_into(&mut plays[i]);
            }
            let mut pick = vec![0; worlds.len()];
            // Forced plays need no network, nor do the opponents' plays.
            let mut asked = Vec::with_capacity(live.len());
            for &i in live.iter().filter(|&&i| plays[i].len() > 1) {
                match &mut opponents {
                    Some((seat, agent)) if !worlds[i].same_side(mover(&worlds[i]), *seat) => {
                        pick[i] = agent.choose(&worlds[i], &plays[i]);
                    }
                    _ => asked.push(i),
                }
            }
            let decisions: Vec<(&State, &[Play])> = asked.iter().map(|&i| (&worlds[i], &plays[i][..])).collect();
            let q = if decisions.is_empty() { Vec::new() } else { self.q_values_many(&decisions) };
            for (k, &i) in asked.iter().enumerate() {
                pick[i] = argmax(&q[k]);
            }
            for &i in &live {
                let play = plays[i][pick[i]];
                worlds[i].apply_play(play).expect("a legal play");
            }
        }
    }
}

fn mover(state: &State) -> u8 {
    state.current_player().expect("a decision")
}

/// Index of the largest value (the first on ties).
pub fn argmax<T: PartialOrd>(values: &[T]) -> usize {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if v > &values[best] {
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
    fn bid(&mut self, state: &State, legal: &[u8]) -> u8 {
        match &self.bid_net {
            Some(net) => net.bid(state, legal),
            None => super::bid::rule_bid(state.hand(state.current_player().expect("a bidding decision")), legal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{RuleAgent, Sides, play_out};
    use crate::model::ModelConfig;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn batched_rollouts_against_an_agent_play_the_games_one_by_one_would() {
        let model = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], ..Default::default() };
        let mut net = ModelAgent::new(QNet::cpu(&model, 3), "tiny");
        let mut rng = StdRng::seed_from_u64(9);
        let worlds: Vec<State> = (0..12)
            .map(|_| {
                let mut s = State::new(Default::default());
                s.deal_random(&mut rng);
                s
            })
            .collect();
        // Seat 0 is the landlord: the network plays it, the rule agent both farmers.
        let batched = net.rollouts_against(worlds.clone(), Some((0, &mut RuleAgent::new())));
        let network_only = net.rollouts(worlds.clone());
        assert_ne!(batched, network_only, "the rule agent played the farmers");
        let mut rule = RuleAgent::new();
        for (world, returns) in worlds.into_iter().zip(batched) {
            let mut alone = world;
            play_out(&mut alone, &mut Sides { landlord: &mut net, farmers: &mut rule }, |_, _, _, _| {}).unwrap();
            assert_eq!(alone.returns(), returns);
        }
    }
}
