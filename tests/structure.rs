//! `min_plays` against a brute-force shortest path over the move generator's leads.

use ddz::cards::{CardSet, Counts, NUM_RANKS};
use ddz::game::{legal_plays_vec, min_plays};
use rand::{RngExt, SeedableRng, rngs::StdRng};
use std::collections::HashMap;

/// The fewest leads that empty `hand`, by exhaustive search. Every decomposition plays the
/// hand's lowest card in some play, so only leads holding that card are tried: still every
/// decomposition, each counted once per order of its other plays at most.
fn brute_force(hand: Counts, memo: &mut HashMap<Counts, u32>) -> u32 {
    if hand.is_empty() {
        return 0;
    }
    if let Some(&known) = memo.get(&hand) {
        return known;
    }
    let lowest = (0..NUM_RANKS as u8).find(|&r| hand.get(r) > 0).unwrap();
    let best = legal_plays_vec(hand, None)
        .into_iter()
        .filter(|p| p.cards.get(lowest) > 0)
        .map(|p| 1 + brute_force(hand.minus(p.cards), memo))
        .min()
        .expect("every hand can lead its lowest card");
    memo.insert(hand, best);
    best
}

fn random_hand(rng: &mut StdRng, size: usize) -> Counts {
    let mut deck: Vec<_> = CardSet::full_deck().iter().collect();
    for i in (1..deck.len()).rev() {
        let j = rng.random_range(0..=i);
        deck.swap(i, j);
    }
    deck.into_iter().take(size).collect::<CardSet>().counts()
}

/// A hand heavy in trios and fours: `size` cards from a few ranks, so airplanes, four with two
/// and the awkward wing rules come up far more often than in a deal.
fn dense_hand(rng: &mut StdRng, size: usize) -> Counts {
    let first = rng.random_range(0..8u8);
    let span = rng.random_range(4..8u8);
    let mut hand = Counts::EMPTY;
    while (hand.len() as usize) < size {
        let r =
            if rng.random_range(0..6) == 0 { rng.random_range(12..15u8) } else { first + rng.random_range(0..span) };
        if hand.get(r) < ddz::cards::rank_capacity(r) {
            hand.add(r, 1);
        }
    }
    hand
}

fn check(hands: impl Iterator<Item = Counts>) -> usize {
    let mut memo = HashMap::new();
    let mut n = 0;
    for hand in hands {
        assert_eq!(min_plays(hand), brute_force(hand, &mut memo), "hand {hand}");
        n += 1;
    }
    n
}

#[test]
fn min_plays_matches_brute_force_on_random_hands() {
    let mut rng = StdRng::seed_from_u64(0x5717);
    let hands: Vec<Counts> = (0..4000).map(|i| random_hand(&mut rng, 1 + i % 20)).collect();
    assert_eq!(check(hands.into_iter()), 4000);
}

#[test]
fn min_plays_matches_brute_force_on_dense_hands() {
    let mut rng = StdRng::seed_from_u64(0xD3457);
    let hands: Vec<Counts> = (0..1500).map(|i| dense_hand(&mut rng, 8 + i % 13)).collect();
    assert_eq!(check(hands.into_iter()), 1500);
}

#[test]
fn min_plays_of_hands_whose_answer_is_known() {
    let plays = |s: &str| min_plays(Counts::parse(s).unwrap());
    assert_eq!(plays("BR"), 1, "the rocket is one play");
    assert_eq!(plays("3333BR"), 2, "the rocket is never two kickers");
    assert_eq!(plays("33334444"), 2, "two fours are two plays");
    assert_eq!(plays("333444555777"), 1, "a wing trio away from the chain");
}
