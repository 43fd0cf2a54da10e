//! Properties of the laizi move generator, checked against a brute force written from the rules
//! alone: every sub-multiset of the hand, every rank its wild cards may stand for, classified by
//! the standard classifier (which shares no code with either generator).

use ddz_engine::cards::{CardSet, Counts, RANK_TWO};
use ddz_engine::game::laizi::{WildRank, legal_plays_vec, read_play};
use ddz_engine::game::{Kind, Play, Wilds, classify, legal_plays_vec as standard_plays};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::{RngExt, SeedableRng, rngs::StdRng};
use std::collections::BTreeSet;

/// Rule 6's identity of a play: the cards it takes, its type, main rank and length.
type Key = (Counts, Kind, u8, u8);

fn key(p: &Play) -> Key {
    (p.cards, p.kind, p.main, p.len)
}

/// Calls `f` on every sub-multiset of `cards`.
fn each_subset(cards: Counts, f: &mut dyn FnMut(Counts)) {
    fn go(ranks: &[(u8, u8)], acc: Counts, f: &mut dyn FnMut(Counts)) {
        let Some((&(r, n), rest)) = ranks.split_first() else { return f(acc) };
        (0..=n).for_each(|k| go(rest, acc.with(r, k), f));
    }
    let ranks: Vec<(u8, u8)> = cards.iter().collect();
    go(&ranks, Counts::EMPTY, f);
}

/// Every multiset of exactly `k` ranks from 3 to 2.
fn multisets(k: u8) -> Vec<Counts> {
    let mut all = vec![Counts::EMPTY];
    for _ in 0..k {
        let mut next = BTreeSet::new();
        for m in &all {
            for r in 0..=RANK_TWO {
                next.insert(m.with(r, 1));
            }
        }
        all = next.into_iter().collect();
    }
    all
}

/// The laizi plays of `hand` by brute force, as rule 6 identifies them.
fn brute_force(hand: Counts, wild: WildRank, rival: Option<&Play>) -> BTreeSet<Key> {
    let w = wild.rank();
    let stand_sets: Vec<Vec<Counts>> = (0..=4).map(multisets).collect();
    let mut found = BTreeSet::new();
    each_subset(hand, &mut |taken| {
        let k = taken.get(w);
        let natural = taken.minus(Counts::EMPTY.with(w, k));
        if taken.is_empty() {
            return;
        }
        for &stands in &stand_sets[k as usize] {
            // Rule 3: wild cards alone stand for the wild rank.
            if natural.is_empty() && stands != Counts::EMPTY.with(w, k) {
                continue;
            }
            let reading = natural.plus(stands);
            if reading.iter().any(|(_, n)| n > 4) {
                continue;
            }
            let Some(p) = classify(reading) else { continue };
            let play =
                Play { cards: taken, kind: p.kind, main: p.main, len: p.len, wilds: Wilds::new(w, stands).unwrap() };
            if rival.is_none_or(|r| play.beats(r)) {
                found.insert(key(&play));
            }
        }
    });
    if rival.is_some() {
        found.insert(key(&Play::PASS));
    }
    found
}

/// `natural` cards drawn from the deck without the wild rank, plus `wilds` wild cards.
fn random_hand(rng: &mut StdRng, wild: WildRank, natural: usize, wilds: u8) -> Counts {
    let mut deck: Vec<_> = CardSet::full_deck().iter().filter(|c| c.rank() != wild.rank()).collect();
    for i in (1..deck.len()).rev() {
        let j = rng.random_range(0..=i);
        deck.swap(i, j);
    }
    deck.into_iter().take(natural).collect::<CardSet>().counts().with(wild.rank(), wilds)
}

/// Checks every play of a legal list; the preferred reading (a search over readings) on every
/// `reread`-th one.
fn check_plays(
    hand: Counts,
    wild: WildRank,
    rival: Option<&Play>,
    plays: &[Play],
    reread: usize,
) -> Result<(), TestCaseError> {
    let keys: BTreeSet<Key> = plays.iter().map(key).collect();
    prop_assert_eq!(keys.len(), plays.len(), "rule 6: no play twice");
    for (i, p) in plays.iter().enumerate().filter(|(_, p)| !p.is_pass()) {
        prop_assert!(p.cards.is_subset_of(hand), "{:?} takes cards the hand lacks", p);
        prop_assert_eq!(p.wilds.count(), p.cards.get(wild.rank()), "{:?}: every wild card stands for a rank", p);
        let c = classify(p.reading()).expect("a reading is a standard play");
        prop_assert_eq!((c.kind, c.main, c.len), (p.kind, p.main, p.len), "{:?} reads as its type", p);
        prop_assert!(rival.is_none_or(|r| p.beats(r)), "{:?} must beat the rival", p);
        if i % reread == 0 {
            let read = read_play(p.cards, p.reading(), wild);
            prop_assert_eq!(read.as_ref(), Ok(p), "the listed reading is the preferred one");
        }
    }
    Ok(())
}

proptest! {
    // Fixed seeds: the same cases every run, so the suite never flakes.
    #![proptest_config(ProptestConfig { cases: 160, rng_seed: RngSeed::Fixed(0x1A121), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generator_equals_brute_force(seed in any::<u64>(), w in 0u8..=RANK_TWO, natural in 1usize..=7, wilds in 0u8..=4, follow in any::<bool>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let wild = WildRank::new(w).unwrap();
        let hand = random_hand(&mut rng, wild, natural, wilds);
        // A rival drawn from the laizi leads of another hand, soft bombs and wild readings included.
        let rival = follow.then(|| {
            let (size, wilds) = (rng.random_range(1..=8), rng.random_range(0..=2));
            let other = random_hand(&mut rng, wild, size, wilds);
            let leads = legal_plays_vec(other, wild, None);
            leads[rng.random_range(0..leads.len())]
        });
        let plays = legal_plays_vec(hand, wild, rival.as_ref());
        check_plays(hand, wild, rival.as_ref(), &plays, 1)?;
        let got: BTreeSet<Key> = plays.iter().map(key).collect();
        prop_assert_eq!(got, brute_force(hand, wild, rival.as_ref()), "hand {} wild {} rival {:?}", hand, wild, rival);
    }
}

proptest! {
    // Big hands list thousands of plays each: fewer cases keep the debug build quick.
    #![proptest_config(ProptestConfig { cases: 24, rng_seed: RngSeed::Fixed(0x1A123), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn big_hands_are_well_formed(seed in any::<u64>(), w in 0u8..=RANK_TWO, natural in 10usize..=16, wilds in 0u8..=4) {
        let mut rng = StdRng::seed_from_u64(seed);
        let wild = WildRank::new(w).unwrap();
        let hand = random_hand(&mut rng, wild, natural, wilds);
        let leads = legal_plays_vec(hand, wild, None);
        check_plays(hand, wild, None, &leads, 29)?;
        let rival = leads[rng.random_range(0..leads.len())];
        let other = random_hand(&mut rng, wild, natural, wilds.min(2));
        check_plays(other, wild, Some(&rival), &legal_plays_vec(other, wild, Some(&rival)), 29)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, rng_seed: RngSeed::Fixed(0x1A122), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn without_wild_cards_the_plays_are_the_standard_ones(seed in any::<u64>(), w in 0u8..=RANK_TWO, size in 1usize..=20, rival_pick in any::<u16>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let wild = WildRank::new(w).unwrap();
        let hand = random_hand(&mut rng, wild, size, 0);
        let as_set = |plays: Vec<Play>| plays.iter().map(key).collect::<BTreeSet<Key>>();
        prop_assert_eq!(as_set(legal_plays_vec(hand, wild, None)), as_set(standard_plays(hand, None)));
        // Against any standard play, a hand without wild cards answers as in the standard game.
        let plays = ddz_engine::game::ActionTable::get().plays();
        let rival = plays[1 + rival_pick as usize % (plays.len() - 1)];
        prop_assert_eq!(as_set(legal_plays_vec(hand, wild, Some(&rival))), as_set(standard_plays(hand, Some(&rival))));
    }
}

#[test]
fn four_wilds_alone_are_the_pure_bomb_and_nothing_else_of_four() {
    let wild = WildRank::parse("9").unwrap();
    let plays = legal_plays_vec(Counts::parse("9999").unwrap(), wild, None);
    let shown: Vec<String> = plays.iter().map(|p| format!("{:?}", p)).collect();
    assert_eq!(shown, ["solo(9 as 9)", "pair(99 as 99)", "trio(999 as 999)", "bomb(9999 as 9999)"]);
}
