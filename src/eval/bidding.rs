//! Evaluation with bidding (`ddz eval --bidding`): the whole game, the landlord chosen by the
//! bids. On every deal each agent plays one seat against two copies of the other, in each of
//! the three seats in turn, so it bids first, second and third: six games a deal. Seat 0 bids
//! first; an all-pass deal is a drawn game (zero points) and counted as such.
//!
//! Rules of every game here: 1–2–3 bidding, points = the winning bid × 2 per bomb or rocket ×
//! 2 for a spring or anti-spring; the landlord wins or loses twice a farmer's amount.

use super::{Estimate, EvalError};
use crate::agents::bidder::{BidderSpec, WithBidder};
use crate::agents::{Agent, AgentSpec, Seating, play_out};
use crate::game::{Deal, GameConfig, Scoring, State};
use indicatif::ProgressBar;
use serde::Serialize;

/// The rules the report states.
pub const RULES: &str = "bidding 1-2-3 (seat 0 first, all pass = drawn game), points: bid × 2 per bomb or rocket × 2 for a spring, landlord twice";

/// One agent's results over the games it played alone against two copies of the other.
#[derive(Clone, Debug, Serialize)]
pub struct BiddingSide {
    pub agent: String,
    pub games: usize,
    /// Average points per game of the agent's seat (drawn games count as 0).
    pub adp: Estimate,
    /// Share of the contested games it won.
    pub wp: f64,
    /// Share of the games in which it became the landlord.
    pub landlord_share: f64,
    pub wp_as_landlord: Option<f64>,
    pub wp_as_farmer: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BiddingReport {
    pub rules: &'static str,
    pub deals: usize,
    /// Share of the games in which every seat passed.
    pub all_pass_share: f64,
    pub a: BiddingSide,
    pub b: BiddingSide,
    /// A's average points minus B's, deal by deal (each deal's three games of each), with its CI.
    pub adp_a_minus_b: Estimate,
    pub illegal: u32,
}

/// One agent alone in `seat`, the other in the two other seats.
struct Lone<'a> {
    seat: u8,
    lone: &'a mut dyn Agent,
    field: &'a mut dyn Agent,
}

impl Seating for Lone<'_> {
    fn agent(&mut self, seat: u8) -> &mut dyn Agent {
        if seat == self.seat { self.lone } else { self.field }
    }
}

/// How one game went for the lone agent.
#[derive(Clone, Copy)]
struct Outcome {
    points: f64,
    contested: bool,
    landlord: bool,
}

fn play(deal: &Deal, seat: u8, lone: &mut dyn Agent, field: &mut dyn Agent, seed: u64) -> (Outcome, u32) {
    let config = GameConfig { bidding: true, scoring: Scoring::Score, spring: true, ..GameConfig::default() };
    let mut state = State::new(config);
    state.deal_hands(deal.hands, deal.bottom).expect("a checked deal is valid");
    lone.reset(seed);
    field.reset(seed ^ 0x5eed);
    let illegal = play_out(&mut state, &mut Lone { seat, lone, field }, |_, _, _, _| {});
    let landlord = state.landlord();
    let outcome = Outcome {
        points: state.returns()[seat as usize],
        contested: landlord.is_some(),
        landlord: landlord == Some(seat),
    };
    (outcome, illegal)
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 { f64::NAN } else { part as f64 / whole as f64 }
}

fn side(agent: String, games: &[Outcome]) -> BiddingSide {
    let contested: Vec<&Outcome> = games.iter().filter(|g| g.contested).collect();
    let won = |gs: &[&&Outcome]| gs.iter().filter(|g| g.points > 0.0).count();
    let as_landlord: Vec<&&Outcome> = contested.iter().filter(|g| g.landlord).collect();
    let as_farmer: Vec<&&Outcome> = contested.iter().filter(|g| !g.landlord).collect();
    let all: Vec<&&Outcome> = contested.iter().collect();
    BiddingSide {
        agent,
        games: games.len(),
        adp: Estimate::of(&games.iter().map(|g| g.points).collect::<Vec<_>>()),
        wp: share(won(&all), all.len()),
        landlord_share: share(as_landlord.len(), games.len()),
        wp_as_landlord: (!as_landlord.is_empty()).then(|| share(won(&as_landlord), as_landlord.len())),
        wp_as_farmer: (!as_farmer.is_empty()).then(|| share(won(&as_farmer), as_farmer.len())),
    }
}

/// An agent and who bids for it.
pub struct Bidding<'a> {
    pub agent: &'a AgentSpec,
    pub bidder: &'a BidderSpec,
}

impl Bidding<'_> {
    fn name(&self) -> String {
        match self.bidder {
            BidderSpec::Rule => self.agent.to_string(),
            b => format!("{} bidding by {b}", self.agent),
        }
    }
    fn build(&self) -> Result<Box<dyn Agent>, EvalError> {
        Ok(WithBidder::wrap(self.agent.build()?, self.bidder)?)
    }
}

/// A and B with bidding on every deal (six games a deal); `progress` counts the games.
pub fn evaluate_bidding(
    a: &Bidding,
    b: &Bidding,
    deals: &[Deal],
    progress: &ProgressBar,
) -> Result<BiddingReport, EvalError> {
    if deals.is_empty() {
        return Err(EvalError::NoDeals);
    }
    let (mut agent_a, mut agent_b) = (a.build()?, b.build()?);
    let (mut games_a, mut games_b, mut diffs) = (Vec::new(), Vec::new(), Vec::new());
    let mut illegal = 0;
    for (k, deal) in deals.iter().enumerate() {
        let (mut sum_a, mut sum_b) = (0.0, 0.0);
        for seat in 0..3u8 {
            let seed = (k as u64) * 8 + seat as u64;
            let (oa, ia) = play(deal, seat, agent_a.as_mut(), agent_b.as_mut(), seed);
            let (ob, ib) = play(deal, seat, agent_b.as_mut(), agent_a.as_mut(), seed);
            illegal += ia + ib;
            (sum_a, sum_b) = (sum_a + oa.points, sum_b + ob.points);
            games_a.push(oa);
            games_b.push(ob);
            progress.inc(2);
        }
        diffs.push((sum_a - sum_b) / 3.0);
    }
    let all = games_a.iter().chain(&games_b);
    let all_pass = all.clone().filter(|g| !g.contested).count();
    Ok(BiddingReport {
        rules: RULES,
        deals: deals.len(),
        all_pass_share: share(all_pass, games_a.len() + games_b.len()),
        a: side(a.name(), &games_a),
        b: side(b.name(), &games_b),
        adp_a_minus_b: Estimate::of(&diffs),
        illegal,
    })
}

fn pct(x: Option<f64>) -> String {
    x.filter(|v| v.is_finite()).map_or("—".into(), |v| format!("{v:.3}"))
}

impl BiddingReport {
    pub fn markdown(&self) -> String {
        let row = |s: &BiddingSide| {
            format!(
                "| {} | {} | {} | {:.3} | {:.3} | {} | {} |\n",
                s.agent,
                s.games,
                s.adp,
                s.wp,
                s.landlord_share,
                pct(s.wp_as_landlord),
                pct(s.wp_as_farmer)
            )
        };
        format!(
            "With bidding on {} deals, each agent alone against two of the other in every seat ({} games each).\nRules: {}.\n\n| agent | games | ADP (95% CI) | WP | landlord share | WP as landlord | WP as farmer |\n|---|---:|---:|---:|---:|---:|---:|\n{}{}\nADP of A − ADP of B, deal by deal: {}; all-pass games: {:.1}%; illegal plays or bids: {}",
            self.deals,
            self.a.games,
            self.rules,
            row(&self.a),
            row(&self.b),
            self.adp_a_minus_b,
            100.0 * self.all_pass_share,
            self.illegal
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_against_random_with_bidding() {
        let deals = crate::game::generate_deals(40, 5);
        let rule = Bidding { agent: &AgentSpec::Rule, bidder: &BidderSpec::Rule };
        let random = Bidding { agent: &AgentSpec::Random, bidder: &BidderSpec::Rule };
        let r = evaluate_bidding(&rule, &random, &deals, &ProgressBar::hidden()).unwrap();
        assert_eq!((r.a.games, r.b.games, r.illegal), (120, 120, 0));
        assert!(r.adp_a_minus_b.mean - r.adp_a_minus_b.ci95 > 0.0, "rule beats random: {}", r.markdown());
        assert!(r.a.landlord_share > 0.0 && r.a.landlord_share < 1.0);
        assert!(r.all_pass_share < 0.6);
        assert!(r.markdown().contains("Rules: bidding 1-2-3"));
    }
}
