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

mod games {
    use ddz_engine::cards::Counts;
    use ddz_engine::game::laizi::WildRank;
    use ddz_engine::game::{Action, GameConfig, MoveList, Phase, Play, Rules, Scoring, Seat, State};
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    fn laizi(bidding: bool) -> GameConfig {
        GameConfig { rules: Rules::Laizi, bidding, scoring: Scoring::Score, ..GameConfig::default() }
    }

    /// A random laizi game to the end: every draw seeded, every step checked.
    fn random_game(seed: u64, bidding: bool) -> State {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut s = State::new(laizi(bidding));
        s.deal_random(&mut rng);
        let mut plays = MoveList::new();
        while !s.is_terminal() {
            match s.phase() {
                Phase::Bid => s.apply_bid(*s.legal_bids_vec().last().unwrap()),
                Phase::Wild => {
                    let outcomes = s.chance_outcomes().unwrap();
                    assert_eq!(outcomes.len(), 13, "the 13 ranks 3..2");
                    assert!(s.is_chance_node() && s.current_player().is_none());
                    s.draw_wild(&mut rng);
                }
                _ => {
                    s.legal_plays_into(&mut plays);
                    let ids = s.legal_actions();
                    assert_eq!(ids.len(), plays.len(), "one id per legal play");
                    let play = plays[rng.random_range(0..plays.len())];
                    s.apply_play(play);
                }
            }
        }
        s
    }

    #[test]
    fn random_games_conserve_cards_replay_and_score() {
        let (mut finished, mut wild_plays) = (0, 0);
        for seed in 0..40 {
            let s = random_game(seed, seed % 2 == 0);
            let Some(winner) = s.winner() else { continue }; // nobody bid
            finished += 1;
            wild_plays += s.play_record().iter().filter(|r| r.play.wilds.count() > 0).count();
            let wild = s.wild().expect("the wild rank is drawn before the first play");
            assert!(s.history().contains(&Action::Wild(wild)));
            assert_eq!(s.hand(winner), Counts::EMPTY);
            let played: u32 = Seat::ALL.iter().map(|&q| s.played_by(q).len() + s.hand(q).len()).sum();
            assert_eq!(played, 54, "cards are conserved");
            let back = State::from_json(&s.to_json()).unwrap();
            assert_eq!(back.to_json(), s.to_json(), "a save replays exactly (seed {seed})");
            assert_eq!(back.returns(), s.returns());
            let sum: f64 = s.returns().iter().sum();
            assert_eq!(sum, 0.0, "zero-sum");
            assert!(s.returns()[winner] > 0.0);
        }
        assert!(finished >= 30 && wild_plays >= 40, "{finished} games, {wild_plays} plays with wild cards");
    }

    #[test]
    fn every_legal_action_integer_applies() {
        let mut rng = StdRng::seed_from_u64(5);
        let mut s = State::new(laizi(false));
        s.deal_random(&mut rng);
        for _ in 0..30 {
            if s.is_terminal() {
                break;
            }
            let ints = s.legal_action_ints();
            for &n in &ints {
                let mut t = s.clone();
                t.try_apply_action(Action::from_int(n as i64, Rules::Laizi).unwrap()).unwrap();
            }
            s.apply_action(Action::from_int(ints[rng.random_range(0..ints.len())] as i64, Rules::Laizi).unwrap());
        }
    }

    #[test]
    fn soft_bombs_take_the_soft_multiplier_and_readings_are_preferred() {
        let c = |t: &str| Counts::parse(t).unwrap();
        let config = GameConfig { soft_bomb_multiplier: 3, ..laizi(false) };
        let mut s = State::new(config.clone());
        // The landlord (seat 0) holds 5557 and the 7s are wild.
        let hands = [c("3334445557689TJQK"), c("35677899TJJQKKAA2"), c("4667889TTJQQKAA22")];
        s.try_deal_counts(hands, c("2BR")).unwrap();
        assert_eq!(s.phase(), Phase::Wild);
        assert!(s.try_apply_play(Play::parse("3").unwrap()).is_err(), "no play before the wild rank is drawn");
        s.apply_action(Action::Wild(WildRank::parse("7").unwrap()));
        assert!(s.try_apply_action(Action::Wild(WildRank::parse("8").unwrap())).is_err(), "drawn once");
        // The standard parse of 5557 is a trio with a solo; the game records its laizi reading.
        s.apply_play(Play::parse("5557").unwrap());
        let first = s.play_record()[0].play;
        assert_eq!((first.wilds.count(), first.reading()), (1, c("5557")));
        assert_eq!(s.multiplier(), 1);
        let mut t = State::from_json(&s.to_json()).unwrap();
        assert_eq!(t.to_json(), s.to_json());
        // A soft bomb instead: ×3 with this setting.
        let mut u = State::new(config);
        u.try_deal_counts(hands, c("2BR")).unwrap();
        u.apply_action(Action::Wild(WildRank::parse("7").unwrap()));
        let soft = ddz_engine::game::laizi::read_play(c("5557"), c("5555"), WildRank::parse("7").unwrap()).unwrap();
        u.apply_play(soft);
        assert_eq!(u.multiplier(), 3, "one soft bomb at multiplier 3");
        // A standard game refuses wild cards.
        let mut std_game = State::new(GameConfig::default());
        std_game.try_deal_counts(hands, c("2BR")).unwrap();
        let err = std_game.try_apply_play(soft).unwrap_err().to_string();
        assert!(err.contains("wild cards exist only under laizi"), "{err}");
        t.apply_play(Play::PASS);
    }

    #[test]
    fn a_view_keeps_the_wild_rank_and_redeals_worlds_with_it() {
        let s = {
            let mut rng = StdRng::seed_from_u64(11);
            let mut s = State::new(laizi(false));
            s.deal_random(&mut rng);
            let mut plays = MoveList::new();
            for _ in 0..6 {
                s.legal_plays_into(&mut plays);
                let play = *plays.iter().max_by_key(|p| p.wilds.count()).unwrap();
                s.apply_play(play);
            }
            s
        };
        let seat = s.current_player().unwrap();
        let view = s.view(seat);
        assert_eq!(view.wild(), s.wild());
        assert!(view.information_state_string().contains(&format!("wild {}", s.wild().unwrap())));
        let world = view.redeal(&mut || 0.3);
        assert_eq!(world.view(seat), view, "a redealt world is the same view");
        let json = serde_json::to_string(&view).unwrap();
        assert!(json.contains("\"wild\""), "{json}");
        let back: ddz_engine::game::View = serde_json::from_str(&json).unwrap();
        let (mut a, mut b) = (MoveList::new(), MoveList::new());
        back.legal_plays_into(&mut a);
        view.legal_plays_into(&mut b);
        assert_eq!(a, b, "the request's view plays as the game's");
    }
}
