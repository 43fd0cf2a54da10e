//! Greedy on the Q network: the play with the highest Q(s, a) (with a score head, among the
//! plays whose expected points are within the network's margin of the best).

use super::{Agent, BidTurn, Candidate, Fault, Query, Turn};
use crate::encode::{STATE_DIM, encode_view};
use crate::game::{MoveList, Play, State, View, prune_plays};
use crate::limits::PLAYS_PER_PASS;
use crate::search::{Policy, argmax};
use ddz_nets::{BidNetwork, QNetwork, QValues, Values};

/// A player greedy on a Q network's value of each legal play: the torch-free forward pass
/// ([`QNetwork`]) wherever ddz plays; the trainer's libtorch network only in checks and
/// benchmarks that compare the two.
pub struct ModelAgent<N: QValues = QNetwork> {
    /// The Q network that values the plays.
    pub net: N,
    /// The bidding network trained with it, when its checkpoint has one; else bids are the
    /// rule bidder's.
    pub bid_net: Option<BidNetwork>,
    label: String,
    state_buf: Vec<f32>,
    action_buf: Vec<f32>,
}

impl<N: QValues> ModelAgent<N> {
    /// An agent playing by `net`, with the rule bidder; `label` is its name in reports.
    pub fn new(net: N, label: impl Into<String>) -> ModelAgent<N> {
        ModelAgent { net, bid_net: None, label: label.into(), state_buf: vec![0.0; STATE_DIM], action_buf: Vec::new() }
    }

    /// Q of every play (in order) for the seat of `view`.
    pub fn q_values(&mut self, view: &View<'_>, plays: &[Play]) -> Vec<f32> {
        self.values(view, plays).q
    }

    /// [`ModelAgent::q_values`] with the score head's expected points.
    pub fn values(&mut self, view: &View<'_>, plays: &[Play]) -> Values {
        let mut one = self.values_many(&[(view, plays)]);
        one.pop().unwrap_or(Values { q: Vec::new(), points: None }) // one decision in, one out
    }

    /// The network's greedy choice among `plays` of `view` (among the kept ones, when the
    /// network prunes).
    pub fn greedy(&mut self, view: &View<'_>, plays: &[Play]) -> usize {
        let kept = self.kept(view, plays);
        let v = self.values(view, kept.as_ref().map_or(plays, |(k, _)| k));
        let pick = greedy(&v.q, v.points.as_deref(), self.net.score_margin().unwrap_or(0.0));
        kept.map_or(pick, |(_, index)| index[pick])
    }

    /// The plays the network chooses among when it prunes (or, under laizi, scores only its top
    /// plays), and their indices in `plays`; `None` when it does neither.
    fn kept(&self, view: &View<'_>, plays: &[Play]) -> Option<(MoveList, Vec<usize>)> {
        let config = self.net.config();
        let top = view.wild().filter(|_| config.laizi_top > 0);
        if !config.prune && top.is_none() {
            return None;
        }
        let mut kept: MoveList = plays.to_vec();
        if config.prune {
            prune_plays(view.hand(), &mut kept, config.prune_margin);
        }
        if let Some(wild) = top {
            crate::game::laizi::top_plays(view.hand(), wild, &mut kept, config.laizi_top as usize);
        }
        let mut index = Vec::with_capacity(kept.len());
        let mut from = 0;
        for p in &kept {
            from += plays[from..].iter().position(|q| q == p).expect("kept plays keep their order");
            index.push(from);
        }
        Some((kept, index))
    }
}

impl<N: QValues> ModelAgent<N> {
    /// Q of every play of several decisions in one forward pass (each for its view's seat):
    /// batching is what makes many network rollouts affordable.
    pub fn q_values_many(&mut self, decisions: &[(&View<'_>, &[Play])]) -> Vec<Vec<f32>> {
        self.values_many(decisions).into_iter().map(|v| v.q).collect()
    }

    /// [`ModelAgent::q_values_many`] with the score head's expected points, in forward passes
    /// of at most [`PLAYS_PER_PASS`] plays (a decision with more is split over passes).
    pub fn values_many(&mut self, decisions: &[(&View<'_>, &[Play])]) -> Vec<Values> {
        self.values_in_passes(decisions, PLAYS_PER_PASS)
    }

    /// [`ModelAgent::values_many`] in passes of at most `most` plays.
    fn values_in_passes(&mut self, decisions: &[(&View<'_>, &[Play])], most: usize) -> Vec<Values> {
        let points = self.net.score_margin().map(|_| Vec::new());
        let mut out: Vec<Values> = decisions.iter().map(|_| Values { q: Vec::new(), points: points.clone() }).collect();
        // Pieces of decisions (decision, its plays from..to) gathered into passes.
        let mut pass: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
        let mut rows = 0;
        for (k, (_, plays)) in decisions.iter().enumerate() {
            let mut from = 0;
            while from < plays.len() {
                let take = (most - rows).min(plays.len() - from);
                pass.push((k, from..from + take));
                (rows, from) = (rows + take, from + take);
                if rows == most {
                    self.score_pass(decisions, &pass, &mut out);
                    (pass, rows) = (Vec::new(), 0);
                }
            }
        }
        if !pass.is_empty() {
            self.score_pass(decisions, &pass, &mut out);
        }
        out
    }

    /// One forward pass over `pieces` (each a decision's range of plays, one state row each),
    /// the values appended to each decision's in `out`.
    fn score_pass(
        &mut self,
        decisions: &[(&View<'_>, &[Play])],
        pieces: &[(usize, std::ops::Range<usize>)],
        out: &mut [Values],
    ) {
        let rows: usize = pieces.iter().map(|(_, r)| r.len()).sum();
        let layout = self.net.config().action_layout();
        let width = layout.dim();
        self.state_buf.resize(pieces.len() * STATE_DIM, 0.0);
        self.action_buf.resize(rows * width, 0.0);
        let mut owner = Vec::with_capacity(rows);
        for (k, (d, range)) in pieces.iter().enumerate() {
            let (view, plays) = decisions[*d];
            encode_view(view, &mut self.state_buf[k * STATE_DIM..(k + 1) * STATE_DIM]);
            let context = layout.context(view);
            for p in &plays[range.clone()] {
                let row = owner.len();
                layout.encode(p, &context, &mut self.action_buf[row * width..(row + 1) * width]);
                owner.push(k as i64);
            }
        }
        let all = self.net.values(&self.state_buf, &self.action_buf, &owner);
        self.state_buf.truncate(STATE_DIM);
        let mut at = 0;
        for (d, range) in pieces {
            let part = at..at + range.len();
            out[*d].q.extend_from_slice(&all.q[part.clone()]);
            if let (Some(mine), Some(p)) = (out[*d].points.as_mut(), all.points.as_ref()) {
                mine.extend_from_slice(&p[part]);
            }
            at += range.len();
        }
    }

    /// The network's greedy choice at each decision, all in one forward pass.
    pub fn greedy_many(&mut self, decisions: &[(&View<'_>, &[Play])]) -> Vec<usize> {
        if decisions.is_empty() {
            return Vec::new();
        }
        let margin = self.net.score_margin().unwrap_or(0.0);
        let kept: Vec<_> = decisions.iter().map(|(view, plays)| self.kept(view, plays)).collect();
        let asked: Vec<(&View<'_>, &[Play])> = decisions
            .iter()
            .zip(&kept)
            .map(|(&(view, plays), k)| (view, k.as_ref().map_or(plays, |(k, _)| k.as_slice())))
            .collect();
        let values = self.values_many(&asked);
        let picks = values.iter().map(|v| greedy(&v.q, v.points.as_deref(), margin));
        picks.zip(kept).map(|(pick, k)| k.map_or(pick, |(_, index)| index[pick])).collect()
    }
}

/// The network as search uses it: the same Q and greedy plays as the methods above.
/// Search asks in its worlds, at decisions: each seat to act decides on its own view of the world.
impl<N: QValues> Policy for ModelAgent<N> {
    fn q_values(&mut self, state: &State, plays: &[Play]) -> Vec<f32> {
        ModelAgent::q_values(self, &decision_view(state), plays)
    }
    fn q_values_many(&mut self, decisions: &[(&State, &[Play])]) -> Vec<Vec<f32>> {
        let views: Vec<View> = decisions.iter().map(|(s, _)| decision_view(s)).collect();
        let asked: Vec<(&View, &[Play])> = views.iter().zip(decisions).map(|(v, (_, p))| (v, *p)).collect();
        ModelAgent::q_values_many(self, &asked)
    }
    fn greedy(&mut self, state: &State, plays: &[Play]) -> usize {
        ModelAgent::greedy(self, &decision_view(state), plays)
    }
    fn greedy_many(&mut self, decisions: &[(&State, &[Play])]) -> Vec<usize> {
        let views: Vec<View> = decisions.iter().map(|(s, _)| decision_view(s)).collect();
        let asked: Vec<(&View, &[Play])> = views.iter().zip(decisions).map(|(v, (_, p))| (v, *p)).collect();
        ModelAgent::greedy_many(self, &asked)
    }
}

/// The view of the seat to act in a world's position (search asks only at decisions).
fn decision_view(state: &State) -> View<'_> {
    View::of(state, state.current_player().expect("search asks at decisions"))
}

/// A network's greedy choice: the highest Q; with a score head (`points`, the expected points of
/// each play), the highest Q among the plays whose expected points are at least the best
/// play's less `margin`, so that a choice by win probability does not give away points
/// (AlphaDou's rule). Ties go to the first.
pub fn greedy(q: &[f32], points: Option<&[f32]>, margin: f32) -> usize {
    let Some(points) = points else { return argmax(q) };
    let floor = points[argmax(points)] - margin;
    let mut best: Option<usize> = None;
    for (i, (&v, &p)) in q.iter().zip(points).enumerate() {
        if p >= floor && best.is_none_or(|b| v > q[b]) {
            best = Some(i);
        }
    }
    best.unwrap_or_else(|| argmax(points))
}

impl<N: QValues> Agent for ModelAgent<N> {
    fn name(&self) -> String {
        self.label.clone()
    }
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { view, plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        self.greedy(view, plays)
    }
    fn try_choose(&mut self, turn: Turn<'_>) -> Result<usize, Fault> {
        super::check_rules(self, turn)?;
        Ok(self.choose(turn))
    }
    /// The rules the network was trained for, and those alone: a laizi network's plays carry
    /// features a standard one has not, so either in the other's game is an error, never a
    /// quiet guess.
    fn plays_rules(&self, rules: crate::game::Rules) -> Result<(), crate::agents::Unplayable> {
        let net = self.net.config().rules;
        match net == rules {
            true => Ok(()),
            false => Err(crate::agents::Unplayable::new(
                rules,
                format!("its network was trained for {net} rules (train one with [game] rules = \"{rules}\")"),
            )),
        }
    }
    /// One forward pass for every query with more than one play (the network draws nothing, so
    /// the seeds do not matter): the choices [`Agent::choose`] makes one by one.
    fn try_choose_many(&mut self, queries: &[Query]) -> Result<Vec<usize>, Fault> {
        for q in queries {
            super::check_rules(self, q.turn)?;
        }
        let asked: Vec<usize> = (0..queries.len()).filter(|&k| queries[k].turn.plays.len() > 1).collect();
        let decisions: Vec<(&View, &[Play])> =
            asked.iter().map(|&k| (queries[k].turn.view, queries[k].turn.plays)).collect();
        let mut picks = vec![0; queries.len()];
        for (choice, &k) in self.greedy_many(&decisions).into_iter().zip(&asked) {
            picks[k] = choice;
        }
        Ok(picks)
    }
    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        let Turn { view, plays, .. } = turn;
        Some(self.q_values(view, plays).into_iter().map(Candidate::value).collect())
    }
    fn bid(&mut self, turn: BidTurn<'_>) -> u8 {
        let BidTurn { view, legal, .. } = turn;
        match &self.bid_net {
            Some(net) => net.bid(view, legal),
            None => super::bid::rule_bid(view.hand(), legal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{RuleAgent, Sides, play_out};
    use crate::game::MoveList;
    use crate::search::rollouts;
    use ddz_nets::{ModelConfig, QNetwork};
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn greedy_takes_the_best_q_among_plays_within_the_margin_of_the_best_points() {
        let q = [0.9, 0.5, 0.7, 0.6];
        let points = [-3.0, 2.0, 1.2, 1.6];
        assert_eq!(greedy(&q, None, 1.0), 0, "no score head: Q alone");
        assert_eq!(greedy(&q, Some(&points), 1.0), 2, "0.9 gives away points; 0.7 is within 1 of 2.0");
        assert_eq!(greedy(&q, Some(&points), 0.5), 3, "0.7 is 0.8 short: out of a margin of 0.5");
        assert_eq!(greedy(&q, Some(&points), 0.0), 1, "margin 0: the best points");
        assert_eq!(greedy(&q, Some(&points), 10.0), 0, "every play within: Q alone");
        assert_eq!(greedy(&[0.1], Some(&[f32::NAN]), 1.0), 0, "one play is chosen whatever its values");
    }

    #[test]
    fn a_batch_of_decisions_gets_the_choices_made_one_at_a_time() {
        use crate::agents::{Agent, Query, RandomAgent};
        use crate::game::View;
        let model =
            ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], score_head: true, ..Default::default() };
        let mut net = ModelAgent::new(QNetwork::random(&model, 4).unwrap(), "tiny");
        let (mut rng, mut random) = (StdRng::seed_from_u64(3), RandomAgent::new(3));
        let mut positions: Vec<(View<'static>, MoveList)> = Vec::new();
        for _ in 0..6 {
            let mut state = State::new(Default::default());
            state.deal_random(&mut rng);
            while !state.is_terminal() {
                let mut plays = MoveList::new();
                state.legal_plays_into(&mut plays);
                let k = random.choose(Turn::new(&state.view(state.current_player().unwrap()), &plays).unwrap());
                positions.push((state.view(state.current_player().unwrap()).into_owned(), plays.clone()));
                state.apply_play_unchecked(plays[k]);
            }
        }
        let queries: Vec<Query> =
            positions.iter().map(|(s, p)| Query { turn: Turn::new(s, p).unwrap(), seed: 0 }).collect();
        let batched = net.try_choose_many(&queries).unwrap();
        let alone: Vec<usize> = positions.iter().map(|(s, p)| net.choose(Turn::new(s, p).unwrap())).collect();
        assert_eq!(batched, alone);
        assert!(alone.iter().any(|&k| k > 0), "the choices are not all the first play");
        // Passes of 7 plays (decisions split across them) give the values one pass gives.
        let decisions: Vec<(&View, &[Play])> = positions.iter().map(|(s, p)| (s, p.as_slice())).collect();
        assert!(decisions.iter().any(|(_, p)| p.len() > 7), "some decision spans passes");
        let in_sevens = net.values_in_passes(&decisions, 7);
        let whole = net.values_in_passes(&decisions, usize::MAX);
        for (a, b) in in_sevens.iter().zip(&whole) {
            let close = |x: &[f32], y: &[f32]| x.len() == y.len() && x.iter().zip(y).all(|(x, y)| (x - y).abs() < 1e-5);
            assert!(close(&a.q, &b.q) && close(a.points.as_deref().unwrap(), b.points.as_deref().unwrap()));
        }
    }

    #[test]
    fn batched_rollouts_against_an_agent_play_the_games_one_by_one_would() {
        let model = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], ..Default::default() };
        let mut net = ModelAgent::new(QNetwork::random(&model, 3).unwrap(), "tiny");
        let mut rng = StdRng::seed_from_u64(9);
        let worlds: Vec<State> = (0..12)
            .map(|_| {
                let mut s = State::new(Default::default());
                s.deal_random(&mut rng);
                s
            })
            .collect();
        // Seat 0 is the landlord: the network plays it, the rule agent both farmers.
        let batched = rollouts(&mut net, worlds.clone(), Some((crate::game::Seat::S0, &mut RuleAgent::new())));
        let network_only = rollouts(&mut net, worlds.clone(), None);
        assert_ne!(batched, network_only, "the rule agent played the farmers");
        let mut rule = RuleAgent::new();
        for (world, returns) in worlds.into_iter().zip(batched) {
            let mut alone = world;
            play_out(&mut alone, &mut Sides { landlord: &mut net, farmers: &mut rule }, |_, _, _, _| {}).unwrap();
            assert_eq!(alone.returns(), returns);
        }
    }
}
