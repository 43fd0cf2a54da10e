//! Pre-generated deals: the same seed gives the same deals on any machine.

use crate::cards::{Card, CardSet};
use crate::game::state::{BOTTOM_SIZE, HAND_SIZE};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// Three 17-card hands (seat 0 is the landlord) and the 3-card bottom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    pub hands: [CardSet; 3],
    pub bottom: CardSet,
}

/// `n` deals from `seed` (deal i uses its own generator, so a prefix is stable).
pub fn generate_deals(n: usize, seed: u64) -> Vec<Deal> {
    (0..n as u64)
        .map(|i| {
            let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i);
            let mut cards: Vec<Card> = Card::deck().collect();
            for k in (1..cards.len()).rev() {
                cards.swap(k, rng.random_range(0..=k));
            }
            let hand = |s: usize| cards[s * HAND_SIZE..(s + 1) * HAND_SIZE].iter().copied().collect();
            Deal { hands: [hand(0), hand(1), hand(2)], bottom: cards[3 * HAND_SIZE..3 * HAND_SIZE + BOTTOM_SIZE].iter().copied().collect() }
        })
        .collect()
}
