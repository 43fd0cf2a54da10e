//! `resample_from_infostate`: the invariants of OpenSpiel's ResampleInfostateTest, and
//! uniformity of the new deal on a small case.

use ddz_engine::cards::Counts;
use ddz_engine::encode::information_state_tensor;
use ddz_engine::game::{GameConfig, Phase, Rules, Seat, State};
use rand::{RngExt, SeedableRng, rngs::StdRng};
use std::collections::HashMap;

fn check_resample(state: &State, rng: &mut StdRng, changed: &mut usize) {
    let table = state.table();
    for &seat in table.seats() {
        let mut uniform = || rng.random::<f64>();
        let r = state.resample_from_infostate(seat, &mut uniform);
        assert_eq!(r.information_state_string(seat), state.information_state_string(seat));
        assert_eq!(information_state_tensor(&r, seat), information_state_tensor(state, seat));
        assert_eq!(r.current_player(), state.current_player());
        assert_eq!(r.is_chance_node(), state.is_chance_node());
        let others = |s: &State| table.others(seat).map(|q| s.hand(q)).collect::<Vec<_>>();
        assert_eq!(r.set_aside().len(), state.set_aside().len(), "the set-aside keeps its size");
        if others(&r) != others(state) {
            *changed += 1;
        }
        // The new state replays from its own history and plays on to a legal end.
        let restored = State::from_json(&r.to_json()).expect("the rewritten history replays");
        let next = table.next(seat);
        assert_eq!(restored.information_state_string(next), r.information_state_string(next));
        assert_eq!(restored.set_aside(), r.set_aside());
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
    for game in 0..60u64 {
        let rules = if game % 5 >= 3 { Rules::TwoPlayer } else { Rules::Standard };
        let mut s = State::new(GameConfig { bidding: game % 2 == 0, rules, ..GameConfig::default() });
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
    assert!(changed > checked, "resampling deals new hands ({changed} resamples of {checked} nodes changed)");
}

#[test]
fn a_resampled_world_depends_only_on_the_information_state_and_the_draws() {
    // What honest search needs: two states a seat cannot tell apart give the same world for the
    // same draws, so a world never carries the real hidden cards.
    let mut rng = StdRng::seed_from_u64(12);
    let mut checked = 0;
    for game in 0..45u64 {
        let rules = if game % 5 >= 3 { Rules::TwoPlayer } else { Rules::Standard };
        let mut s = State::new(GameConfig { bidding: game % 2 == 0, rules, ..GameConfig::default() });
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

/// Seat 0, the landlord, to move while its hidden pool is small (`hidden` of `state`'s cards in
/// the range): the first such node of random games under `config`.
fn small_case(config: GameConfig, hidden: impl Fn(&State) -> u32, range: std::ops::RangeInclusive<u32>) -> State {
    let mut rng = StdRng::seed_from_u64(5);
    (0..)
        .find_map(|_| {
            let mut s = State::new(config.clone());
            s.deal_random(&mut rng);
            while !s.is_terminal() {
                if s.current_player() == Some(Seat::S0) && s.landlord() == Some(Seat::S0) && range.contains(&hidden(&s))
                {
                    return Some(s);
                }
                let actions = s.legal_actions();
                let a = actions[rng.random_range(0..actions.len())];
                s.apply_action(a);
            }
            None
        })
        .unwrap()
}

/// Resamples seat 0's world 40,000 times and checks that seat 1's hand, drawn from `pool` (seat
/// 1's cards and the other hidden places'), follows the hypergeometric law of physical cards.
fn check_uniform(state: &State, pool: impl Fn(&State) -> Counts) {
    assert_eq!(state.phase(), Phase::Play);
    let mut rng = StdRng::seed_from_u64(6);
    let expected_pool = pool(state);
    let size1 = state.cards_left(Seat::S1) as u64;
    let total = expected_pool.len() as u64;
    let trials = 40_000;
    let mut seen: HashMap<Counts, u64> = HashMap::new();
    for _ in 0..trials {
        let mut uniform = || rng.random::<f64>();
        let r = state.resample_from_infostate(Seat::S0, &mut uniform);
        assert_eq!(pool(&r), expected_pool);
        *seen.entry(r.hand(Seat::S1)).or_default() += 1;
    }
    // Expected probability of a rank multiset for seat 1: product of C(pool_r, a_r) / C(total, size1).
    let all_outcomes = enumerate_sub_multisets(expected_pool, size1 as u32);
    let denominator = binomial(total, size1);
    let mut chi2 = 0.0;
    for outcome in &all_outcomes {
        let ways: f64 = outcome.iter().map(|(r, a)| binomial(expected_pool.get(r) as u64, a as u64)).product();
        let expected = trials as f64 * ways / denominator;
        let observed = *seen.get(outcome).unwrap_or(&0) as f64;
        chi2 += (observed - expected).powi(2) / expected;
    }
    assert_eq!(seen.len(), all_outcomes.len(), "every possible split occurs");
    let df = (all_outcomes.len() - 1) as f64;
    assert!(df >= 4.0, "the case has several outcomes ({expected_pool}, {size1})");
    assert!(chi2 < chi2_critical_999(df), "chi2 {chi2:.1} over {df} degrees of freedom");
}

#[test]
fn resampling_is_uniform_on_a_small_case() {
    // Seat 0 is the landlord: seats 1 and 2 share the pool uniformly (as physical cards).
    let hidden = |s: &State| s.cards_left(Seat::S1) + s.cards_left(Seat::S2);
    let state = small_case(GameConfig::default(), hidden, 5..=7);
    check_uniform(&state, |s| s.hand(Seat::S1).plus(s.hand(Seat::S2)));
}

#[test]
fn two_player_resampling_shares_the_farmers_cards_with_the_set_aside_uniformly() {
    // Seat 0 is the landlord: the farmer's cards and the 9 set aside are one pool.
    let config = GameConfig { rules: Rules::TwoPlayer, ..GameConfig::default() };
    let state = small_case(config, |s| s.cards_left(Seat::S1), 2..=3);
    check_uniform(&state, |s| s.hand(Seat::S1).plus(s.set_aside().counts()));
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
