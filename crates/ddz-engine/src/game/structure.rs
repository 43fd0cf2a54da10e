//! Hand structure: the fewest plays that empty a hand when its seat leads every time.
//!
//! A decomposition splits into chain-type plays (solo, pair and trio chains, airplanes) and the
//! rest. The rest (solos, pairs, trios with or without a kicker, bombs, four with two, the
//! rocket) never looks at which rank a card is, only at how many cards each rank holds, and
//! whether both jokers are there (they make the rocket, and may not be two kickers together).
//! So the fewest plays for the rest is a function of a small histogram, tabulated once.
//! Chain-type plays do depend on ranks; they are searched exhaustively as a multiset (each
//! chosen in a fixed option order, so no set is tried twice), each leaf read from the table.

use super::movegen::MoveList;
use super::play::{Kind, Play};
use crate::cards::{Counts, NUM_RANKS, RANK_ACE, RANK_BLACK_JOKER, RANK_RED_JOKER, RANK_TWO};
use std::sync::OnceLock;

/// The fewest legal plays that empty `hand` when its seat leads each of them (0 for no cards).
pub fn min_plays(hand: Counts) -> u32 {
    if hand.is_empty() {
        return 0;
    }
    let mut options = [Chain::EMPTY; MAX_OPTIONS];
    let n = chain_options(hand, &mut options);
    let mut search = Search { options: &options[..n], best: u32::MAX };
    search.run(hand, 0, 0);
    search.best
}

/// Cuts `plays` (the legal plays of `hand`) to those that leave the hand at most `margin` plays
/// worse than its best decomposition (the fewest plays after one + 1 ≤ the fewest before +
/// `margin`). The pass, bombs and the rocket always stay: their worth is tempo and control,
/// which the count cannot see. The list is never left empty (a lead always has a play on the
/// best way out, a follow keeps its pass), and its order is kept.
pub fn prune_plays(hand: Counts, plays: &mut MoveList, margin: u32) {
    let before = min_plays(hand);
    let keep = |p: &Play| {
        matches!(p.kind, Kind::Pass | Kind::Bomb | Kind::Rocket) || min_plays(hand.minus(p.cards)) < before + margin
    };
    if plays.iter().any(keep) {
        plays.retain(keep);
    }
}

/// Upper bound on chain options one hand offers: solo 36, pair 55, trio 45 (each bare, with
/// solo wings or with pair wings) when a hand holds all of 3..A.
const MAX_OPTIONS: usize = 226;

/// What a chain option adds to its core.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wings {
    /// A bare chain.
    None,
    /// An airplane with one solo per trio.
    Solo,
    /// An airplane with one pair (of distinct ranks) per trio.
    Pair,
}

/// A chain core (width cards of each rank `start..start + len`) and its wings.
#[derive(Clone, Copy)]
struct Chain {
    core: Counts,
    start: u8,
    len: u8,
    wings: Wings,
}

impl Chain {
    const EMPTY: Chain = Chain { core: Counts::EMPTY, start: 0, len: 0, wings: Wings::None };
}

/// Every chain core `hand` holds, with the airplane variants of each trio chain.
fn chain_options(hand: Counts, out: &mut [Chain; MAX_OPTIONS]) -> usize {
    let mut n = 0;
    for (width, lo, hi) in [(1u8, 5u8, 12u8), (2, 3, 10), (3, 2, 6)] {
        for start in 0..=RANK_ACE {
            for len in lo..=hi.min(RANK_ACE + 1 - start) {
                let core = (start..start + len).fold(Counts::EMPTY, |c, r| c.with(r, width));
                if !core.is_subset_of(hand) {
                    break; // longer chains from this start hold this one
                }
                let mut push = |wings| {
                    out[n] = Chain { core, start, len, wings };
                    n += 1;
                };
                push(Wings::None);
                if width == 3 && len <= 5 {
                    push(Wings::Solo);
                }
                if width == 3 && len <= 4 {
                    push(Wings::Pair);
                }
            }
        }
    }
    n
}

struct Search<'a> {
    options: &'a [Chain],
    best: u32,
}

impl Search<'_> {
    /// Tries every multiset of options from `first` on over `rest`, `used` plays already made.
    fn run(&mut self, rest: Counts, first: usize, used: u32) {
        self.best = self.best.min(used + rest_plays(rest));
        if used + 1 >= self.best {
            return; // one more chain cannot beat the best already found
        }
        for (i, chain) in self.options.iter().enumerate().skip(first) {
            if !chain.core.is_subset_of(rest) {
                continue;
            }
            let left = rest.minus(chain.core);
            match chain.wings {
                Wings::None => self.run(left, i, used + 1),
                wings => {
                    let mut all = Vec::new();
                    wing_sets(left, chain, wings, &mut all);
                    for w in all {
                        self.run(left.minus(w), i, used + 1);
                    }
                }
            }
        }
    }
}

/// Every set of wings `chain` may carry out of `left` (the hand without the core): solos at most
/// three of a rank and two beside the chain (a third would read as a longer chain), never both
/// jokers; or pairs of distinct ranks below the jokers. The core's ranks are never wings.
fn wing_sets(left: Counts, chain: &Chain, wings: Wings, out: &mut Vec<Counts>) {
    let mut caps = [0u8; NUM_RANKS];
    for (r, cap) in caps.iter_mut().enumerate() {
        let r = r as u8;
        let have = left.get(r);
        if r >= chain.start && r < chain.start + chain.len {
            continue;
        }
        *cap = match wings {
            Wings::Pair => u8::from(r <= RANK_TWO && have >= 2),
            _ => {
                let beside = r + 1 == chain.start || (r == chain.start + chain.len && r <= RANK_ACE);
                have.min(if beside { 2 } else { 3 })
            }
        };
    }
    let unit = if wings == Wings::Pair { 2 } else { 1 };
    choose_wings(&caps, 0, chain.len, unit, Counts::EMPTY, out);
}

fn choose_wings(caps: &[u8; NUM_RANKS], rank: u8, left: u8, unit: u8, got: Counts, out: &mut Vec<Counts>) {
    if left == 0 {
        if got.get(RANK_BLACK_JOKER) == 0 || got.get(RANK_RED_JOKER) == 0 {
            out.push(got);
        }
        return;
    }
    if rank as usize == NUM_RANKS {
        return;
    }
    for n in 0..=caps[rank as usize].min(left) {
        choose_wings(caps, rank + 1, left - n, unit, got.with(rank, n * unit), out);
    }
}

/// The fewest chain-free plays that empty `hand`, from the histogram table.
fn rest_plays(hand: Counts) -> u32 {
    let rocket = hand.get(RANK_BLACK_JOKER) == 1 && hand.get(RANK_RED_JOKER) == 1;
    let mut h = Hist { n: [0; 5], rocket };
    let last = if rocket { RANK_TWO } else { RANK_RED_JOKER };
    for r in 0..=last {
        h.n[hand.get(r) as usize] += 1;
    }
    table()[h.index()] as u32
}

/// A chain-free hand as the structure sees it: `n[c]` ranks hold exactly `c` cards (a lone
/// joker counts as a rank of one), and `rocket` says both jokers are there, outside `n`.
#[derive(Clone, Copy)]
struct Hist {
    n: [u8; 5],
    rocket: bool,
}

/// Ranks a histogram may count in `n[1..]`: 13 plus a lone joker.
const HIST_RANKS: usize = 14;
const TABLE_SIZE: usize = 2 * (HIST_RANKS + 1).pow(4);

impl Hist {
    fn index(self) -> usize {
        let b = HIST_RANKS + 1;
        let [_, a, p, t, q] = self.n.map(usize::from);
        (((usize::from(self.rocket) * b + q) * b + t) * b + p) * b + a
    }
    fn is_empty(self) -> bool {
        !self.rocket && self.n[1..].iter().all(|&x| x == 0)
    }
    /// Takes `take` cards from one rank of each listed size, all ranks distinct; `None` if the
    /// histogram has too few ranks of some size.
    fn take(self, picks: &[(u8, u8)]) -> Option<Hist> {
        let mut need = [0u8; 5];
        for &(size, _) in picks {
            need[size as usize] += 1;
        }
        if (1..5).any(|s| need[s] > self.n[s]) {
            return None;
        }
        let mut h = self;
        for &(size, take) in picks {
            h.n[size as usize] -= 1;
            h.n[(size - take) as usize] += 1;
        }
        Some(h)
    }
    /// The histogram after one joker of the rocket is played: the other is a lone rank of one.
    fn split_rocket(self) -> Option<Hist> {
        let mut h = self;
        h.rocket = false;
        h.n[1] += 1;
        self.rocket.then_some(h)
    }
}

/// The fewest chain-free plays for every histogram, filled once on first use.
fn table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut memo = vec![u8::MAX; TABLE_SIZE];
        let b = HIST_RANKS as u8;
        for rocket in [false, true] {
            for q in 0..=b {
                for t in 0..=b - q {
                    for p in 0..=b - q - t {
                        for a in 0..=b - q - t - p {
                            fill(Hist { n: [0, a, p, t, q], rocket }, &mut memo);
                        }
                    }
                }
            }
        }
        memo
    })
}

/// The fewest chain-free plays for `h`, memoised in `memo`.
fn fill(h: Hist, memo: &mut [u8]) -> u8 {
    if memo[h.index()] != u8::MAX {
        return memo[h.index()];
    }
    let best = if h.is_empty() {
        0
    } else {
        let mut next = Vec::with_capacity(64);
        successors(h, &mut next);
        1 + next.into_iter().map(|s| fill(s, memo)).min().expect("a non-empty hand has a play")
    };
    memo[h.index()] = best;
    best
}

/// The histograms one chain-free play leaves.
fn successors(h: Hist, out: &mut Vec<Hist>) {
    let mut push = |x: Option<Hist>| out.extend(x);
    if h.rocket {
        let mut bare = h;
        bare.rocket = false;
        push(Some(bare)); // the rocket
        push(h.split_rocket()); // one joker alone
    }
    for c in 1..=4u8 {
        for take in 1..=c {
            push(h.take(&[(c, take)])); // solo, pair, trio, bomb
        }
    }
    for t in 3..=4u8 {
        push(h.take(&[(t, 3)]).and_then(Hist::split_rocket)); // a trio with a joker
        for k in 1..=4u8 {
            push(h.take(&[(t, 3), (k, 1)]));
            if k >= 2 {
                push(h.take(&[(t, 3), (k, 2)]));
            }
        }
    }
    four_with_two(h, &mut push);
}

/// Four of a kind with two solos (a pair, two ranks, or one joker and a rank) or two pairs.
fn four_with_two(h: Hist, push: &mut impl FnMut(Option<Hist>)) {
    for a in 1..=4u8 {
        push(h.take(&[(4, 4), (a, 1)]).and_then(Hist::split_rocket));
        if a >= 2 {
            push(h.take(&[(4, 4), (a, 2)]));
        }
        for b in a..=4u8 {
            push(h.take(&[(4, 4), (a, 1), (b, 1)]));
            if a >= 2 {
                push(h.take(&[(4, 4), (a, 2), (b, 2)]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plays(hand: &str) -> u32 {
        min_plays(Counts::parse(hand).unwrap())
    }

    #[test]
    fn small_hands_by_hand() {
        assert_eq!(plays(""), 0);
        assert_eq!(plays("BR"), 1, "the rocket is one play");
        assert_eq!(plays("3333BR"), 2, "the rocket is never two kickers");
        assert_eq!(plays("33334444"), 2, "two fours are two bombs, not four with two pairs");
        assert_eq!(plays("3333445566"), 2);
        assert_eq!(plays("333444555777"), 1, "a wing trio away from the chain");
        assert_eq!(plays("333444555666"), 1, "a trio chain of four");
        assert_eq!(plays("3456789TJQKA2"), 2);
        assert_eq!(plays("33344455566678"), 2, "the 6 trio beside the chain is no wing: 2 plays");
    }

    #[test]
    fn pruning_keeps_the_plays_near_the_best_way_out() {
        let hand = Counts::parse("33456789TT2222").unwrap();
        let mut leads = crate::game::legal_plays_vec(hand, None);
        let all = leads.len();
        prune_plays(hand, &mut leads, 0);
        let names: Vec<String> = leads.iter().map(|p| p.to_string()).collect();
        assert!(names.contains(&"2222".to_string()), "bombs stay: {names:?}");
        assert!(names.contains(&"3456789T".to_string()), "the best chain stays: {names:?}");
        assert!(!names.contains(&"4".to_string()), "a lone 4 breaks the chain: {names:?}");
        assert!(leads.len() < all);
        let mut follow = crate::game::legal_plays_vec(hand, Some(&Play::parse("K").unwrap()));
        prune_plays(hand, &mut follow, 0);
        assert_eq!(follow[0], Play::PASS, "a follow keeps its pass first");
    }
}
