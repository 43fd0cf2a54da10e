//! The rule bidder: a hand-strength score (rocket, jokers, bombs, 2s, aces, a long chain) and
//! three thresholds (two-player: a threshold to call and a rising one to rob). Every agent
//! without a bidding model bids with it ([`super::Agent::bid`]).

use ddz_engine::cards::{Counts, RANK_ACE, RANK_BLACK_JOKER, RANK_RED_JOKER, RANK_TWO};
use ddz_engine::game::{Rules, View};

/// Strength of a hand for taking the landlord: about 4 for an ordinary 17-card hand, 10 or
/// more for one that usually wins with the bottom.
pub fn hand_strength(hand: Counts) -> f32 {
    let (small, big) = (hand.get(RANK_BLACK_JOKER), hand.get(RANK_RED_JOKER));
    let mut s = if small + big == 2 { 8.0 } else { 3.0 * small as f32 + 4.0 * big as f32 };
    s += 2.0 * hand.get(RANK_TWO) as f32 + 0.5 * hand.get(RANK_ACE) as f32;
    s += 5.0 * (0..=RANK_TWO).filter(|&r| hand.get(r) == 4).count() as f32;
    // The longest solo chain (3 to A): five cards that leave together.
    let (mut run, mut longest) = (0u32, 0u32);
    for r in 0..=RANK_ACE {
        run = if hand.get(r) > 0 { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest >= 5 {
        s += (longest - 4).min(3) as f32;
    }
    s
}

/// The bid the strength asks for: 3 from 12, 2 from 10, 1 from 8, else pass.
pub fn wanted_bid(strength: f32) -> u8 {
    match strength {
        s if s >= 12.0 => 3,
        s if s >= 10.0 => 2,
        s if s >= 8.0 => 1,
        _ => 0,
    }
}

/// The rule bidder's bid among `legal` (0 = pass is always legal): the wanted bid when it is
/// still allowed, else pass.
pub fn rule_bid(hand: Counts, legal: &[u8]) -> u8 {
    let want = wanted_bid(hand_strength(hand));
    if legal.contains(&want) { want } else { 0 }
}

/// Two-player: the strength from which the rule bidder calls (about half of the 17-card hands
/// of the 46-card deck reach it), and from which it robs once someone called (about a quarter);
/// each earlier rob raises the bar, since every rob concedes the farmer a card.
pub const TWO_PLAYER_CALL: f32 = 9.0;
/// See [`TWO_PLAYER_CALL`].
pub const TWO_PLAYER_ROB: f32 = 11.0;
/// How much each earlier rob raises [`TWO_PLAYER_ROB`].
pub const TWO_PLAYER_ROB_STEP: f32 = 1.5;

/// The rule bidder's bid at `view`'s bidding decision among `legal`, under the game's rules.
pub fn rule_bid_at(view: &View<'_>, legal: &[u8]) -> u8 {
    if view.config().rules != Rules::TwoPlayer {
        return rule_bid(view.hand(), legal);
    }
    let called = view.bids().contains(&1);
    let bar = match called {
        false => TWO_PLAYER_CALL,
        true => TWO_PLAYER_ROB + TWO_PLAYER_ROB_STEP * view.robs() as f32,
    };
    u8::from(hand_strength(view.hand()) >= bar && legal.contains(&1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_hands_bid_high_and_weak_ones_pass() {
        let strong = Counts::parse("BR22223456789TJQK").unwrap();
        let weak = Counts::parse("33445566789TJQKKA").unwrap();
        assert_eq!(rule_bid(strong, &[0, 1, 2, 3]), 3);
        assert_eq!(rule_bid(weak, &[0, 1, 2, 3]), 0);
        assert_eq!(rule_bid(strong, &[0]), 0, "nothing above a 3");
    }

    #[test]
    fn about_a_third_of_random_hands_bid() {
        let deals = ddz_engine::game::generate_deals(2000, 3);
        let bids: Vec<u8> = deals.iter().map(|d| rule_bid(d.hands[0].counts(), &[0, 1, 2, 3])).collect();
        let share = bids.iter().filter(|&&b| b > 0).count() as f64 / bids.len() as f64;
        assert!((0.2..0.5).contains(&share), "{share}");
    }
}
