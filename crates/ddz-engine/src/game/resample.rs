//! `resample_from_infostate`: a state that one player cannot tell from the real one.
//!
//! The player's own cards, the bottom once shown, the bids and every public play stay; the other
//! players' hidden cards are dealt again uniformly (as physical cards are: every assignment of the
//! unseen cards to the hidden places, with the right sizes, is equally likely). Before the bottom
//! is shown it is one more hidden place, and so are the cards not yet dealt. Cards the landlord
//! is known to hold — bottom cards it has not been seen to play — stay with the landlord.
//!
//! The deal in the history is rewritten to match, so the result replays and serialises like any
//! state.

use super::seat::{Seat, by_seat};
use super::state::{Action, NUM_PLAYERS, State};
use crate::cards::{Card, CardSet, Counts, NUM_CARDS, NUM_RANKS};

/// Where the card dealt at `position` went: a seat, or the bottom (`NUM_PLAYERS`).
fn slot_of_position(position: usize) -> usize {
    if position < NUM_PLAYERS * super::state::HAND_SIZE { position % NUM_PLAYERS } else { NUM_PLAYERS }
}

const BOTTOM: usize = NUM_PLAYERS;

/// Fisher–Yates with a caller's generator of f64 in [0, 1).
fn shuffle<T>(items: &mut [T], rng: &mut dyn FnMut() -> f64) {
    for i in (1..items.len()).rev() {
        let j = ((rng() * (i + 1) as f64) as usize).min(i);
        items.swap(i, j);
    }
}

impl State {
    /// A new state that `seat` cannot tell from this one; `rng` returns f64 in [0, 1).
    pub fn resample_from_infostate(&self, seat: Seat, rng: &mut dyn FnMut() -> f64) -> State {
        let p = seat.index();
        // Physical cards now in each slot (seats 0..3, bottom), before the bottom joined a hand.
        let mut slots: [CardSet; NUM_PLAYERS + 1] =
            [self.dealt_cards(Seat::S0), self.dealt_cards(Seat::S1), self.dealt_cards(Seat::S2), self.bottom()];
        let mut hands: [Counts; NUM_PLAYERS] = by_seat(|q| self.hand(q));
        let mut undealt = CardSet::full_deck().minus(slots.iter().fold(CardSet::EMPTY, |a, s| a.union(*s)));

        match self.landlord() {
            None => self.redeal_before_play(p, &mut slots, &mut hands, &mut undealt, rng),
            Some(landlord) => self.redeal_in_play(p, landlord.index(), &mut slots, &mut hands, rng),
        }

        let mut out = self.clone();
        out.replace_hidden([slots[0], slots[1], slots[2]], slots[BOTTOM], undealt, hands);
        // Rewrite the deal so that replaying the history gives this state.
        let mut remaining: [Vec<Card>; NUM_PLAYERS + 1] = std::array::from_fn(|s| slots[s].iter().collect());
        let history = out.history_mut();
        for position in (0..history.len()).rev() {
            if let Action::Deal(_) = history[position] {
                let slot = slot_of_position(position);
                history[position] = Action::Deal(remaining[slot].pop().expect("slot sizes are preserved"));
            }
        }
        out
    }

    /// Deal or bidding: nobody has played; every card `p` does not hold is unseen.
    fn redeal_before_play(
        &self,
        p: usize,
        slots: &mut [CardSet; NUM_PLAYERS + 1],
        hands: &mut [Counts; NUM_PLAYERS],
        undealt: &mut CardSet,
        rng: &mut dyn FnMut() -> f64,
    ) {
        let mut pool: Vec<Card> = CardSet::full_deck().minus(slots[p]).iter().collect();
        shuffle(&mut pool, rng);
        let mut next = pool.into_iter();
        for (q, slot) in slots.iter_mut().enumerate() {
            if q != p {
                let n = slot.len() as usize;
                *slot = next.by_ref().take(n).collect();
            }
        }
        *undealt = next.collect();
        for q in (0..NUM_PLAYERS).filter(|&q| q != p) {
            hands[q] = slots[q].counts();
        }
    }

    /// In play: the unseen cards of the other seats, less the bottom cards the landlord is known
    /// to hold, are shared out again by hand sizes; then physical cards follow the ranks.
    fn redeal_in_play(
        &self,
        p: usize,
        l: usize,
        slots: &mut [CardSet; NUM_PLAYERS + 1],
        hands: &mut [Counts; NUM_PLAYERS],
        rng: &mut dyn FnMut() -> f64,
    ) {
        let landlord = Seat::ALL[l];
        let bottom = self.bottom().counts();
        // Bottom cards the landlord has not been seen to play are known to all.
        let mut known = [Counts::EMPTY; NUM_PLAYERS];
        if l != p {
            let played = self.played_by(landlord);
            for r in 0..NUM_RANKS as u8 {
                let k = bottom.get(r).saturating_sub(played.get(r)).min(hands[l].get(r));
                known[l].add(r, k);
            }
        }
        let others: Vec<usize> = (0..NUM_PLAYERS).filter(|&q| q != p).collect();
        let mut pool: Vec<u8> = Vec::with_capacity(NUM_CARDS);
        for &q in &others {
            for (r, n) in hands[q].minus(known[q]).iter() {
                pool.extend(std::iter::repeat_n(r, n as usize));
            }
        }
        // In rank order before the shuffle, not in the order of who holds what: the new world
        // then depends only on what `p` knows and on the draws (search that samples worlds
        // must not see hidden cards through them).
        pool.sort_unstable();
        shuffle(&mut pool, rng);
        let mut next = pool.into_iter();
        for &q in &others {
            let n = hands[q].minus(known[q]).len() as usize;
            hands[q] = next.by_ref().take(n).fold(known[q], |c, r| c.with(r, 1));
        }
        // Physical cards: each other seat was dealt its hand plus what it played, less the
        // bottom for the landlord; give it cards of those ranks from the unseen ones.
        let unseen = CardSet::full_deck().minus(slots[p]).minus(slots[BOTTOM]);
        let mut by_rank: Vec<Vec<Card>> = vec![Vec::new(); NUM_RANKS];
        for c in unseen.iter() {
            by_rank[c.rank() as usize].push(c);
        }
        for cards in &mut by_rank {
            shuffle(cards, rng);
        }
        for &q in &others {
            let mut dealt = hands[q].plus(self.played_by(Seat::ALL[q]));
            if q == l {
                dealt = dealt.minus(bottom);
            }
            slots[q] = CardSet::EMPTY;
            for (r, n) in dealt.iter() {
                for _ in 0..n {
                    let card = by_rank[r as usize].pop().expect("cards are conserved");
                    slots[q].insert(card);
                }
            }
        }
    }
}
