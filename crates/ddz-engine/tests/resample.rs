//! `resample_from_infostate`: the invariants of OpenSpiel's ResampleInfostateTest, and
//! uniformity of the new deal on a small case.

use ddz_engine::cards::Counts;
use ddz_engine::encode::information_state_tensor;
use ddz_engine::game::{GameConfig, Phase, Seat, State};
use rand::{RngExt, SeedableRng, rngs::StdRng};
use std::collections::HashMap;

fn check_resample(state: &State, rng: &mut StdRng, changed: &mut usize) {
    for seat in Seat::ALL {
        let mut uniform = || rng.random::<f64>();
        let r = state.resample_from_infostate(seat, &mut uniform);
        assert_eq!(r.information_state_string(seat), state.information_state_string(seat));
        assert_eq!(information_state_tensor(&r, seat), information_state_tensor(state, seat));
        assert_eq!(r.current_player(), state.current_player());
        assert_eq!(r.is_chance_node(), state.is_chance_node());
        let others = |s: &State| Seat::ALL.into_iter().filter(|&q| q != seat).map(|q| s.hand(q)).collect::<Vec<_>>();
        if others(&r) != others(state) {
            *changed += 1;
        }
        // The new state replays from its own history and plays on to a legal end.
        let restored = State::from_json(&r.to_json()).expect("the rewritten history replays");
        assert_eq!(restored.information_state_string(seat.next()), r.information_state_string(seat.next()));
        let mut play_on = r.clone();
        play_random(&mut play_on, rng);
        assert!(play_on.is_terminal());
    }
}

#[test]
fn resampled_states_are_indistinguishable_and_play_on() {
    let mut rng = StdRng::seed_from_u64(11);
    let mut changed = 0;
    let mut checked = 0;
    for game in 0..40u64 {
        let mut s = State::new(GameConfig { bidding: game % 2 == 0, ..GameConfig::default() });
        while !s.is_terminal() {
            // Every decision node, and a few chance nodes of the deal.
            if !s.is_chance_node() || s.dealt_count() % 17 == 5 {
                check_resample(&s, &mut rng, &mut changed);
                checked += 1;
            }
            let actions = s.legal_actions();
            let a = actions[rng.random_range(0..actions.len())];
            s.apply_action(a);
        }
    }
    assert!(checked > 1000, "{checked} nodes checked");
    assert!(changed > checked, "resampling deals new hands ({changed} of {} resamples changed)", checked * 3);
}

#[test]
fn a_resampled_world_depends_only_on_the_information_state_and_the_draws() {
    // What honest search needs: two states a seat cannot tell apart give the same world for the
    // same draws, so a world never carries the real hidden cards.
    let mut rng = StdRng::seed_from_u64(12);
    let mut checked = 0;
    for game in 0..30u64 {
        let mut s = State::new(GameConfig { bidding: game % 2 == 0, ..GameConfig::default() });
        while !s.is_terminal() {
            if let (false, Some(seat)) = (s.is_chance_node(), s.current_player()) {
                let other = s.resample_from_infostate(seat, &mut || rng.random::<f64>());
                let world = |state: &State| {
                    let mut same = StdRng::seed_from_u64(game * 1000 + checked);
                    state.resample_from_infostate(seat, &mut || same.random::<f64>()).to_json()
                };
                assert_eq!(world(&s), world(&other), "game {game}, seat {seat}");
                checked += 1;
            }
            let actions = s.legal_actions();
            let a = actions[rng.random_range(0..actions.len())];
            s.apply_action(a);
        }
    }
    assert!(checked > 500, "{checked} decisions checked");
}

/// log-free chi-square critical value for p = 0.001 (Wilson–Hilferty approximation).
fn chi2_critical_999(df: f64) -> f64 {
    let z = 3.090_232; // one-sided normal quantile for 0.999
    df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3)
}

fn binomial(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[test]
fn resampling_is_uniform_on_a_small_case() {
    // Find a play-phase node where seat 0 is to move and the other seats hide 5 to 7 cards.
    let mut rng = StdRng::seed_from_u64(5);
    let state = (0..)
        .find_map(|_| {
            let mut s = ddz_engine::game::new_initial_state();
            s.deal_random(&mut rng);
            while !s.is_terminal() {
                let hidden: u32 = [Seat::S1, Seat::S2].iter().map(|&q| s.cards_left(q)).sum();
                if s.current_player() == Some(Seat::S0) && s.landlord() == Some(Seat::S0) && (5..=7).contains(&hidden) {
                    return Some(s);
                }
                let actions = s.legal_actions();
                let a = actions[rng.random_range(0..actions.len())];
                s.apply_action(a);
            }
            None
        })
        .unwrap();
    assert_eq!(state.phase(), Phase::Play);
    // Seat 0 is the landlord: seats 1 and 2 share the pool uniformly (as physical cards).
    let pool = state.hand(Seat::S1).plus(state.hand(Seat::S2));
    let size1 = state.cards_left(Seat::S1) as u64;
    let total = pool.len() as u64;
    let trials = 40_000;
    let mut seen: HashMap<Counts, u64> = HashMap::new();
    for _ in 0..trials {
        let mut uniform = || rng.random::<f64>();
        let r = state.resample_from_infostate(Seat::S0, &mut uniform);
        assert_eq!(r.hand(Seat::S1).plus(r.hand(Seat::S2)), pool);
        *seen.entry(r.hand(Seat::S1)).or_default() += 1;
    }
    // Expected probability of a rank multiset for seat 1: product of C(pool_r, a_r) / C(total, size1).
    let all_outcomes = enumerate_sub_multisets(pool, size1 as u32);
    let denominator = binomial(total, size1);
    let mut chi2 = 0.0;
    for outcome in &all_outcomes {
        let ways: f64 = outcome.iter().map(|(r, a)| binomial(pool.get(r) as u64, a as u64)).product();
        let expected = trials as f64 * ways / denominator;
        let observed = *seen.get(outcome).unwrap_or(&0) as f64;
        chi2 += (observed - expected).powi(2) / expected;
    }
    assert_eq!(seen.len(), all_outcomes.len(), "every possible split occurs");
    let df = (all_outcomes.len() - 1) as f64;
    assert!(df >= 4.0, "the case has several outcomes ({pool}, {size1})");
    assert!(chi2 < chi2_critical_999(df), "chi2 {chi2:.1} over {df} degrees of freedom");
}

fn enumerate_sub_multisets(pool: Counts, size: u32) -> Vec<Counts> {
    let ranks: Vec<(u8, u8)> = pool.iter().collect();
    let mut out = Vec::new();
    fn rec(ranks: &[(u8, u8)], left: u32, cur: Counts, out: &mut Vec<Counts>) {
        match ranks.split_first() {
            None => {
                if left == 0 {
                    out.push(cur)
                }
            }
            Some((&(r, n), rest)) => {
                for a in 0..=(n as u32).min(left) {
                    rec(rest, left - a, cur.with(r, a as u8), out);
                }
            }
        }
    }
    rec(&ranks, size, Counts::EMPTY, &mut out);
    out
}

/// Plays uniformly random legal actions to the end of the game.
fn play_random(state: &mut State, rng: &mut impl rand::Rng) {
    while !state.is_terminal() {
        let actions = state.legal_actions();
        let a = actions[rng.random_range(0..actions.len())];
        state.apply_action(a);
    }
}
