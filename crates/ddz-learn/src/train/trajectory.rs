//! What actors send: each decision of a learning seat, labelled at the game's end with the final
//! reward of that seat's side (farmers share theirs). No intermediate rewards.
//!
//! With `reward.lambda < 1` the label is a λ-return instead: the final reward mixed with the
//! acting network's own Q of the seat's later decisions. Every later decision of the seat
//! shares in the final reward, so the label still carries only the game's result, never a
//! shaped reward; it only trades some of the Monte Carlo return's variance for bias.

use super::config::RewardConfig;
use crate::encode::HiddenHands;
use crate::game::{Seat, State};
use crate::model::Frame;

/// A decision recorded during the game, before the result is known.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The seat that decided (0 to 2).
    pub seat: Seat,
    /// The seat's state features (`STATE_DIM`).
    pub state: Vec<f32>,
    /// The chosen play's action features (`ACTION_DIM`).
    pub action: Vec<f32>,
    /// Q of the chosen play under the network that chose it, when there was a choice.
    pub q: Option<f32>,
    /// The chosen play's expected points under that network, when it has a score head.
    pub points: Option<f32>,
    /// The other two hands, for the training-only heads and inputs.
    pub hidden: HiddenHands,
}

/// A bidding decision, labelled with the points its seat's side made.
#[derive(Clone, Debug, PartialEq)]
pub struct BidFrame {
    /// The bidding decision's features (`BID_DIM`).
    pub features: Vec<f32>,
    /// The bid made: 0 (pass) to 3.
    pub bid: u8,
    /// The label: the points the seat's side made in the game ([`points`]).
    pub target: f32,
}

/// The points `seat`'s side made in a finished game, whatever the reward's scoring: the stake
/// (the winning bid × 2 per bomb or rocket × 2 for a spring), the landlord's doubled; 0 when
/// every seat passed.
pub fn points(state: &State, seat: Seat) -> f32 {
    let (Some(winner), Some(landlord)) = (state.winner(), state.landlord()) else { return 0.0 };
    let stake = state.multiplier() as f32 * if seat == landlord { 2.0 } else { 1.0 };
    if (winner == landlord) == (seat == landlord) { stake } else { -stake }
}

/// The reward of `seat` in a finished game: its return (±1, or points in score mode), plus the
/// speed bonus for a winner.
pub fn reward(state: &State, seat: Seat, cfg: &RewardConfig) -> f32 {
    let r = state.returns()[seat] as f32;
    if r > 0.0 { r + cfg.speed_bonus } else { r }
}

/// Labels every decision with the final reward of its seat's side (`cfg.lambda = 1`), or with
/// the λ-return over the seat's own later decisions: going backwards from the seat's last
/// decision, whose label is the final reward, `G_i = (1 - λ)·q_{i+1} + λ·G_{i+1}`, where
/// `q_{i+1}` is the Q the acting network gave the seat's next chosen play. A next decision
/// without a choice has no Q, and passes `G_{i+1}` on unchanged. The score head's label is
/// made the same way from the side's game points and the network's expected points.
pub fn label(decisions: Vec<Decision>, finished: &State, cfg: &RewardConfig) -> Vec<Frame> {
    assert!(finished.is_terminal(), "label a finished game");
    // No landlord: every seat passed at bidding, and no play was made to label.
    let landlord = finished.landlord();
    // The chain a decision's λ-return runs along: the seat's own later decisions, or with a
    // farmer team the side's (both farmers' in play order).
    let chain = |seat: Seat| match landlord {
        Some(l) if cfg.farmer_team && seat != l => finished.table().next(l).index(),
        _ => seat.index(),
    };
    let targets = lambda_returns(&decisions, cfg.lambda, chain, |d| d.q, |seat| reward(finished, seat, cfg));
    let points = lambda_returns(&decisions, cfg.lambda, chain, |d| d.points, |seat| self::points(finished, seat));
    decisions
        .into_iter()
        .zip(targets.into_iter().zip(points))
        .map(|(d, (target, points))| Frame {
            target,
            points,
            role: finished.role(d.seat).expect("a played game has a landlord"),
            state: d.state,
            action: d.action,
            hidden: d.hidden,
        })
        .collect()
}

/// The λ-return of every decision, from each seat's `last` value and the `estimate` of the
/// acting network at the next decision of the same `chain` (0 to 2; a seat's own index, or one
/// index shared by the farmers).
fn lambda_returns(
    decisions: &[Decision],
    lambda: f32,
    chain: impl Fn(Seat) -> usize,
    estimate: impl Fn(&Decision) -> Option<f32>,
    last: impl Fn(Seat) -> f32,
) -> Vec<f32> {
    let mut labels = vec![0.0f32; decisions.len()];
    // Per chain, the label and the estimate of the chain's decision after the one being labelled.
    let mut next: [Option<(f32, Option<f32>)>; 3] = [None; 3];
    for (i, d) in decisions.iter().enumerate().rev() {
        let slot = &mut next[chain(d.seat)];
        labels[i] = match *slot {
            None => last(d.seat),
            Some((g, Some(q))) if lambda < 1.0 => (1.0 - lambda) * q + lambda * g,
            Some((g, _)) => g,
        };
        *slot = Some((labels[i], estimate(d)));
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{ACTION_DIM, STATE_DIM, encode_action, encode_state};
    use crate::game::{GameConfig, MoveList, Role, Scoring};
    use rand::{RngExt, SeedableRng, rngs::SmallRng};

    fn play_recording(seed: u64, scoring: Scoring) -> (State, Vec<Decision>) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut s = State::new(GameConfig { scoring, ..GameConfig::default() });
        s.deal_random(&mut rng);
        let mut plays = MoveList::new();
        let mut decisions = Vec::new();
        while !s.is_terminal() {
            s.legal_plays_into(&mut plays);
            let seat = s.current_player().unwrap();
            let p = plays[rng.random_range(0..plays.len())];
            let mut st = vec![0.0; STATE_DIM];
            encode_state(&s, seat, &mut st);
            let mut a = vec![0.0; ACTION_DIM];
            encode_action(&p, s.hand(seat), &mut a);
            let hidden = HiddenHands::of(&s, seat);
            let (q, points) = (Some(0.5 - seat.index() as f32 * 0.25), Some(seat.index() as f32 - 1.5));
            decisions.push(Decision { seat, state: st, action: a, q, points, hidden });
            s.apply_play_unchecked(p);
        }
        (s, decisions)
    }

    /// With bidding, a deal every seat passes ends with no landlord and nothing to label; it
    /// once stopped every actor that dealt one (a panic in the labelling).
    #[test]
    fn a_deal_every_seat_passed_labels_nothing() {
        for farmer_team in [false, true] {
            let mut s = State::new(GameConfig { bidding: true, ..GameConfig::default() });
            s.deal_random(&mut SmallRng::seed_from_u64(3));
            for _ in 0..3 {
                s.try_apply_bid(0).unwrap();
            }
            assert!(s.is_terminal() && s.landlord().is_none());
            let cfg = RewardConfig { farmer_team, ..RewardConfig::default() };
            assert!(label(Vec::new(), &s, &cfg).is_empty());
        }
    }

    #[test]
    fn every_decision_gets_its_sides_final_reward() {
        for seed in 0..20 {
            let (s, decisions) = play_recording(seed, Scoring::WinLoss);
            let n = decisions.len();
            let frames = label(decisions, &s, &RewardConfig { lambda: 1.0, ..RewardConfig::default() });
            assert_eq!(frames.len(), n);
            let landlord_won = s.winner() == s.landlord();
            for f in &frames {
                let side_won = (f.role == Role::Landlord) == landlord_won;
                assert_eq!(f.target, if side_won { 1.0 } else { -1.0 });
            }
            let farmer_targets: Vec<f32> = frames.iter().filter(|f| f.role.is_farmer()).map(|f| f.target).collect();
            assert!(farmer_targets.windows(2).all(|w| w[0] == w[1]), "farmers share their result");
        }
    }

    #[test]
    fn score_mode_and_speed_bonus() {
        let (s, decisions) = play_recording(3, Scoring::Score);
        let cfg = RewardConfig { scoring: Scoring::Score, speed_bonus: 0.1, lambda: 1.0, farmer_team: false };
        let frames = label(decisions, &s, &cfg);
        let m = s.multiplier() as f32;
        for f in frames {
            let base = if f.role == Role::Landlord { 2.0 * m } else { m };
            assert!(
                (f.target.abs() - base).abs() < 1e-6 || (f.target - (base + 0.1)).abs() < 1e-6,
                "{} vs {base}",
                f.target
            );
        }
    }

    #[test]
    fn lambda_returns_mix_the_final_reward_with_the_seats_next_q() {
        let (s, decisions) = play_recording(5, Scoring::WinLoss);
        let lambda = 0.75f32;
        let cfg = RewardConfig { lambda, ..RewardConfig::default() };
        let seats: Vec<Seat> = decisions.iter().map(|d| d.seat).collect();
        let qs: Vec<Option<f32>> = decisions.iter().map(|d| d.q).collect();
        let estimates: Vec<Option<f32>> = decisions.iter().map(|d| d.points).collect();
        let frames = label(decisions, &s, &cfg);
        for seat in Seat::ALL {
            let mine: Vec<usize> = (0..seats.len()).filter(|&i| seats[i] == seat).collect();
            let last = *mine.last().unwrap();
            let r = s.returns()[seat] as f32;
            assert_eq!(frames[last].target, r, "the seat's last decision gets the final reward");
            assert_eq!(frames[last].points, points(&s, seat), "… and its side's game points");
            for w in mine.windows(2) {
                let (i, j) = (w[0], w[1]);
                let want = (1.0 - lambda) * qs[j].unwrap() + lambda * frames[j].target;
                assert!((frames[i].target - want).abs() < 1e-6, "decision {i}: {} vs {want}", frames[i].target);
                let want = (1.0 - lambda) * estimates[j].unwrap() + lambda * frames[j].points;
                assert!((frames[i].points - want).abs() < 1e-6, "decision {i}: {} vs {want}", frames[i].points);
            }
            // The first decision's label is not the plain reward: the recorded Q differs from it.
            if mine.len() > 1 {
                assert_ne!(frames[mine[0]].target, r);
            }
        }
    }

    #[test]
    fn a_farmer_team_chains_the_farmers_returns_through_both_farmers() {
        let (s, decisions) = play_recording(5, Scoring::WinLoss);
        let lambda = 0.75f32;
        let landlord = s.landlord().unwrap();
        let cfg = RewardConfig { lambda, farmer_team: true, ..RewardConfig::default() };
        let seats: Vec<Seat> = decisions.iter().map(|d| d.seat).collect();
        let qs: Vec<Option<f32>> = decisions.iter().map(|d| d.q).collect();
        let alone = label(decisions.clone(), &s, &RewardConfig { lambda, ..RewardConfig::default() });
        let team = label(decisions, &s, &cfg);
        let farmers: Vec<usize> = (0..seats.len()).filter(|&i| seats[i] != landlord).collect();
        assert!(farmers.len() > 4 && farmers.iter().any(|&i| seats[i] != seats[farmers[0]]));
        let last = *farmers.last().unwrap();
        assert_eq!(team[last].target, s.returns()[seats[last]] as f32, "the side's last decision: the reward");
        for w in farmers.windows(2) {
            let (i, j) = (w[0], w[1]);
            let want = (1.0 - lambda) * qs[j].unwrap() + lambda * team[j].target;
            assert!((team[i].target - want).abs() < 1e-6, "decision {i} learns from the side's next, {j}");
        }
        // Both farmers moved between each other's decisions, so the chains differ from the
        // seats' own; the landlord's labels are the same either way.
        assert!(farmers.iter().any(|&i| team[i].target != alone[i].target));
        for i in (0..seats.len()).filter(|&i| seats[i] == landlord) {
            assert_eq!(team[i].target, alone[i].target);
        }
    }

    #[test]
    fn lambda_zero_is_the_next_q_and_decisions_without_a_choice_pass_the_label_on() {
        let (s, mut decisions) = play_recording(8, Scoring::WinLoss);
        let seat = decisions[0].seat;
        let mine: Vec<usize> = (0..decisions.len()).filter(|&i| decisions[i].seat == seat).collect();
        assert!(mine.len() >= 3);
        decisions[mine[1]].q = None;
        decisions[mine[2]].q = Some(0.3);
        let frames = label(decisions, &s, &RewardConfig { lambda: 0.0, ..RewardConfig::default() });
        assert_eq!(frames[mine[1]].target, 0.3, "λ = 0: the next decision's Q");
        assert_eq!(frames[mine[0]].target, 0.3, "no Q at the next decision: its label passes on");
    }
}
