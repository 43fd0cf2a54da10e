//! `resample_from_infostate`: a state that one player cannot tell from the real one.
//!
//! The player's own cards, the bottom once shown, the bids and every public play stay; the other
//! players' hidden cards are dealt again uniformly (as physical cards are: every assignment of the
//! unseen cards to the hidden places, with the right sizes, is equally likely). Before the bottom
//! is shown it is one more hidden place, and so are the cards not yet dealt; two-player's 9
//! set-aside cards are one for the whole game. Cards the landlord
//! is known to hold — bottom cards it has not been seen to play — stay with the landlord.
//!
//! The deal in the history is rewritten to match, so the result replays and serialises like any
//! state.

use super::seat::{MAX_SEATS, Seat, by_seat};
use super::state::{Action, Slot, State};
use crate::cards::{Card, CardSet, Counts, NUM_CARDS, NUM_RANKS};

/// Places a card can be dealt to, as array indices: the seats 0..3, the bottom, the set-aside.
const BOTTOM: usize = MAX_SEATS;
const SET_ASIDE: usize = MAX_SEATS + 1;
const PLACES: usize = MAX_SEATS + 2;

fn place_of(slot: Slot) -> usize {
    match slot {
        Slot::Seat(seat) => seat.index(),
        Slot::Bottom => BOTTOM,
        Slot::SetAside => SET_ASIDE,
    }
}

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
        let rules = self.config().rules;
        // Physical cards now in each place (seats 0..3, bottom, set-aside), before the bottom
        // joined a hand.
        let dealt = self.dealt_hands();
        let mut places: [CardSet; PLACES] = [dealt[0], dealt[1], dealt[2], self.bottom(), self.set_aside()];
        let mut hands: [Counts; MAX_SEATS] = by_seat(|q| self.hand(q));
        let mut undealt = rules.deck().minus(places.iter().fold(CardSet::EMPTY, |a, s| a.union(*s)));

        match self.landlord() {
            None => self.redeal_before_play(p, &mut places, &mut hands, &mut undealt, rng),
            Some(landlord) => self.redeal_in_play(p, landlord.index(), &mut places, &mut hands, rng),
        }

        let mut out = self.clone();
        out.replace_hidden([places[0], places[1], places[2]], places[BOTTOM], places[SET_ASIDE], undealt, hands);
        // Rewrite the deal so that replaying the history gives this state.
        let mut remaining: [Vec<Card>; PLACES] = std::array::from_fn(|s| places[s].iter().collect());
        let history = out.history_mut();
        for position in (0..history.len()).rev() {
            if let Action::Deal(_) = history[position] {
                let place = place_of(Slot::of_position(rules, position));
                history[position] = Action::Deal(remaining[place].pop().expect("place sizes are preserved"));
            }
        }
        out
    }

    /// Deal or bidding: nobody has played; every card `p` does not hold is unseen.
    fn redeal_before_play(
        &self,
        p: usize,
        places: &mut [CardSet; PLACES],
        hands: &mut [Counts; MAX_SEATS],
        undealt: &mut CardSet,
        rng: &mut dyn FnMut() -> f64,
    ) {
        let mut pool: Vec<Card> = self.config().rules.deck().minus(places[p]).iter().collect();
        shuffle(&mut pool, rng);
        let mut next = pool.into_iter();
        for (q, place) in places.iter_mut().enumerate() {
            if q != p {
                let n = place.len() as usize;
                *place = next.by_ref().take(n).collect();
            }
        }
        *undealt = next.collect();
        for q in (0..MAX_SEATS).filter(|&q| q != p) {
            hands[q] = places[q].counts();
        }
    }

    /// In play: the unseen cards of the other seats (and of the set-aside, in two-player), less
    /// the bottom cards the landlord is known to hold, are shared out again by sizes; then
    /// physical cards follow the ranks.
    fn redeal_in_play(
        &self,
        p: usize,
        l: usize,
        places: &mut [CardSet; PLACES],
        hands: &mut [Counts; MAX_SEATS],
        rng: &mut dyn FnMut() -> f64,
    ) {
        let landlord = Seat::ALL[l];
        let bottom = self.bottom().counts();
        // Bottom cards the landlord has not been seen to play are known to all.
        let mut known = [Counts::EMPTY; MAX_SEATS];
        if l != p {
            let played = self.played_by(landlord);
            for r in 0..NUM_RANKS as u8 {
                let k = bottom.get(r).saturating_sub(played.get(r)).min(hands[l].get(r));
                known[l].add(r, k);
            }
        }
        let others: Vec<usize> = self.table().seats().iter().map(|s| s.index()).filter(|&q| q != p).collect();
        let set_aside = places[SET_ASIDE].counts();
        let mut pool: Vec<u8> = Vec::with_capacity(NUM_CARDS);
        for hidden in others.iter().map(|&q| hands[q].minus(known[q])).chain([set_aside]) {
            for (r, n) in hidden.iter() {
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
        let set_aside: Counts = next.fold(Counts::EMPTY, |c, r| c.with(r, 1));
        // Physical cards: each other seat was dealt its hand plus what it played, less the
        // bottom for the landlord; give it cards of those ranks from the unseen ones, and the
        // set-aside the rest.
        let unseen = self.config().rules.deck().minus(places[p]).minus(places[BOTTOM]);
        let mut by_rank: Vec<Vec<Card>> = vec![Vec::new(); NUM_RANKS];
        for c in unseen.iter() {
            by_rank[c.rank() as usize].push(c);
        }
        for cards in &mut by_rank {
            shuffle(cards, rng);
        }
        let mut take = |ranks: Counts| {
            let mut cards = CardSet::EMPTY;
            for (r, n) in ranks.iter() {
                for _ in 0..n {
                    cards.insert(by_rank[r as usize].pop().expect("cards are conserved"));
                }
            }
            cards
        };
        for &q in &others {
            let mut dealt = hands[q].plus(self.played_by(Seat::ALL[q]));
            if q == l {
                dealt = dealt.minus(bottom);
            }
            places[q] = take(dealt);
        }
        places[SET_ASIDE] = take(set_aside);
    }
}
