//! Evaluation with bidding (`ddz eval --bidding`): the whole game, the landlord chosen by the
//! bids. On every deal each agent plays one seat against two copies of the other, in each of
//! the three seats in turn, so it bids first, second and third: six games a deal. Seat 0 bids
//! first. When every seat passes, the cards are dealt again (`AllPass::Redeal`, the default, as
//! in most rooms: the k-th redeal of deal d comes from a seed of (d, k), up to 16 times) or the
//! game is drawn with zero points (`AllPass::Draw`).
//!
//! Rules of every game here: 1–2–3 bidding, points = the winning bid × 2 per bomb or rocket ×
//! 2 for a spring or anti-spring; the landlord wins or loses twice a farmer's amount.

use super::{Estimate, EvalError};
use crate::agents::bidder::{BidderSpec, WithBidder};
use crate::agents::{Agent, AgentSpec, Seating, play_out};
use crate::game::{Deal, GameConfig, Scoring, Seat, State};
use indicatif::ProgressBar;
use serde::Serialize;

/// What happens when every seat passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AllPass {
    /// Deal again (at most [`MAX_REDEALS`] times, then the game is drawn).
    Redeal,
    /// A drawn game: zero points.
    Draw,
}

/// Redeals of one game before it counts as drawn.
pub const MAX_REDEALS: u32 = 16;

/// The rules the report states.
pub fn rules(all_pass: AllPass) -> String {
    let passes = match all_pass {
        AllPass::Redeal => "all pass = dealt again",
        AllPass::Draw => "all pass = drawn game",
    };
    format!(
        "bidding 1-2-3 (seat 0 first, {passes}), points: bid × 2 per bomb or rocket × 2 for a spring, landlord twice"
    )
}

/// One agent's results over the games it played alone against two copies of the other.
#[derive(Clone, Debug, Serialize)]
pub struct BiddingSide {
    /// The agent's name, with its bidder when that is not its own.
    pub agent: String,
    /// Games it played: three a deal, one in each seat.
    pub games: usize,
    /// Average points per game of the agent's seat (drawn games count as 0).
    pub adp: Estimate,
    /// Share of the contested games it won (NaN when none was contested).
    pub wp: f64,
    /// Contested games: someone bid, so a landlord played.
    pub contested: usize,
    /// Contested games it won.
    pub won: usize,
    /// Contested games it played as landlord.
    pub contested_as_landlord: usize,
    /// Share of the games in which it became the landlord.
    pub landlord_share: f64,
    /// Share of its contested games as landlord that it won; `None` when it was never landlord.
    pub wp_as_landlord: Option<f64>,
    /// Share of its contested games as a farmer that it won; `None` when it never was one.
    pub wp_as_farmer: Option<f64>,
}

/// The result of [`evaluate_bidding`]: both agents' sides and their paired difference.
#[derive(Clone, Debug, Serialize)]
pub struct BiddingReport {
    /// The rules of the games, in words ([`rules`]).
    pub rules: String,
    /// What happened when every seat passed.
    pub all_pass: AllPass,
    /// Deals played (six games each).
    pub deals: usize,
    /// Share of the games that ended drawn because every seat passed.
    pub all_pass_share: f64,
    /// Redeals per game (with `AllPass::Redeal`).
    pub redeals_per_game: f64,
    /// Agent A's results.
    pub a: BiddingSide,
    /// Agent B's results.
    pub b: BiddingSide,
    /// A's average points minus B's, deal by deal (each deal's three games of each), with its CI.
    pub adp_a_minus_b: Estimate,
    /// Illegal plays or bids that either agent answered, over all games.
    pub illegal: u32,
}

/// One agent alone in `seat`, the other in the two other seats.
struct Lone<'a> {
    seat: Seat,
    lone: &'a mut dyn Agent,
    field: &'a mut dyn Agent,
}

impl Seating for Lone<'_> {
    fn agent(&mut self, _state: &State, seat: Seat) -> &mut dyn Agent {
        if seat == self.seat { self.lone } else { self.field }
    }
}

/// How one game went for the lone agent.
#[derive(Clone, Copy)]
struct Outcome {
    points: f64,
    contested: bool,
    landlord: bool,
    redeals: u32,
}

/// One game of deal `k` (and its redeals) with `lone` in `seat`.
fn play(
    k: usize,
    deal: &Deal,
    seat: Seat,
    agents: (&mut dyn Agent, &mut dyn Agent),
    all_pass: AllPass,
) -> Result<(Outcome, u32), EvalError> {
    let (lone, field) = agents;
    let config = GameConfig { bidding: true, scoring: Scoring::Score, spring: true, ..GameConfig::default() };
    let (mut illegal, mut redeals) = (0, 0);
    let mut this = deal.clone();
    loop {
        let mut state = State::new(config.clone());
        state.deal_hands(this.hands, this.bottom);
        let seed = (k as u64) * 8 + seat.index() as u64 + 1024 * redeals as u64;
        lone.reset(seed);
        field.reset(crate::seeds::of(seed, crate::seeds::Stream::SECOND));
        // A forfeit or a rule mismatch has no fair place in the paired comparison: an error too.
        let played = play_out(&mut state, &mut Lone { seat, lone, field }, |_, _, _, _| {});
        illegal += played.map_err(|f| {
            let who = if f.seat == seat { lone.name() } else { field.name() };
            EvalError::Fault { deal: k, seating: format!("bidding, {who} in seat {}", f.seat), reason: f.fault }
        })?;
        let landlord = state.landlord();
        if landlord.is_none() && all_pass == AllPass::Redeal && redeals < MAX_REDEALS {
            redeals += 1;
            this = crate::game::generate_deals(
                1,
                crate::seeds::of((k as u64) << 8 | redeals as u64, crate::seeds::Stream::REDEALS),
            )
            .remove(0);
            continue;
        }
        let outcome = Outcome {
            points: state.returns()[seat.index()],
            contested: landlord.is_some(),
            landlord: landlord == Some(seat),
            redeals,
        };
        return Ok((outcome, illegal));
    }
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
        contested: all.len(),
        won: won(&all),
        contested_as_landlord: as_landlord.len(),
        landlord_share: share(as_landlord.len(), games.len()),
        wp_as_landlord: (!as_landlord.is_empty()).then(|| share(won(&as_landlord), as_landlord.len())),
        wp_as_farmer: (!as_farmer.is_empty()).then(|| share(won(&as_farmer), as_farmer.len())),
    }
}

/// An agent and who bids for it.
pub struct Bidding<'a> {
    /// The agent that plays the cards.
    pub agent: &'a AgentSpec,
    /// Who bids for it: the agent itself, or another bidder.
    pub bidder: &'a BidderSpec,
}

impl Bidding<'_> {
    fn name(&self) -> String {
        match self.bidder {
            BidderSpec::Own => self.agent.to_string(),
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
    all_pass: AllPass,
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
        for seat in Seat::ALL {
            let (oa, ia) = play(k, deal, seat, (agent_a.as_mut(), agent_b.as_mut()), all_pass)?;
            let (ob, ib) = play(k, deal, seat, (agent_b.as_mut(), agent_a.as_mut()), all_pass)?;
            illegal += ia + ib;
            (sum_a, sum_b) = (sum_a + oa.points, sum_b + ob.points);
            games_a.push(oa);
            games_b.push(ob);
            progress.inc(2);
        }
        diffs.push((sum_a - sum_b) / 3.0);
    }
    let all = games_a.iter().chain(&games_b);
    let drawn = all.clone().filter(|g| !g.contested).count();
    let redeals: u32 = all.clone().map(|g| g.redeals).sum();
    let games = games_a.len() + games_b.len();
    Ok(BiddingReport {
        rules: rules(all_pass),
        all_pass,
        deals: deals.len(),
        all_pass_share: share(drawn, games),
        redeals_per_game: redeals as f64 / games as f64,
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
    /// The report as Markdown: a summary line, the rules, one table row per agent and the
    /// paired difference.
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
            "With bidding on {} deals, each agent alone against two of the other in every seat ({} games each).\nRules: {}.\n\n| agent | games | ADP (95% CI) | WP | landlord share | WP as landlord | WP as farmer |\n|---|---:|---:|---:|---:|---:|---:|\n{}{}\nADP of A − ADP of B, deal by deal: {}; drawn (all passed): {:.1}% of games; redeals: {:.3} a game; illegal plays or bids: {}",
            self.deals,
            self.a.games,
            self.rules,
            row(&self.a),
            row(&self.b),
            self.adp_a_minus_b,
            100.0 * self.all_pass_share,
            self.redeals_per_game,
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
        let rule = Bidding { agent: &AgentSpec::Rule, bidder: &BidderSpec::Own };
        let random = Bidding { agent: &AgentSpec::Random, bidder: &BidderSpec::Own };
        let r = evaluate_bidding(&rule, &random, &deals, AllPass::Draw, &ProgressBar::hidden()).unwrap();
        assert_eq!((r.a.games, r.b.games, r.illegal), (120, 120, 0));
        let redealt = evaluate_bidding(&rule, &random, &deals, AllPass::Redeal, &ProgressBar::hidden()).unwrap();
        assert_eq!(redealt.all_pass_share, 0.0, "every deal everyone passed on was dealt again");
        assert!(redealt.redeals_per_game > 0.0 && r.all_pass_share > 0.0);
        assert!(r.adp_a_minus_b.mean - r.adp_a_minus_b.ci95 > 0.0, "rule beats random: {}", r.markdown());
        assert!(r.a.landlord_share > 0.0 && r.a.landlord_share < 1.0);
        assert!(r.all_pass_share < 0.6);
        assert!(r.markdown().contains("Rules: bidding 1-2-3 (seat 0 first, all pass = drawn game)"));
    }
}
