//! Two-player Dou Dizhu (docs/rules.md): hand-written cases for each rule, then properties of
//! random games.

use ddz_engine::cards::{CardSet, Counts};
use ddz_engine::game::{
    GameConfig, Kind, MoveList, Phase, Play, Role, Rules, Scoring, Seat, State, Table, View, generate_deals_for,
};
use rand::{RngExt, SeedableRng, rngs::StdRng};

fn two_player(bidding: bool, conceded: u8) -> GameConfig {
    GameConfig { rules: Rules::TwoPlayer, bidding, conceded, scoring: Scoring::Score, ..GameConfig::default() }
}

/// A fresh state of `config` dealt the first generated two-player deal of `seed`.
fn dealt(config: GameConfig, seed: u64) -> State {
    let deal = &generate_deals_for(Rules::TwoPlayer, 1, seed)[0];
    let mut state = State::new(config);
    state.try_deal_hands(deal.hands, deal.bottom).unwrap();
    state
}

/// Plays the play-phase to the end with a script: the farmer plays the lowest single it can
/// (leading or beating), the landlord passes whenever it may and else leads its lowest single;
/// returns the farmer's cards left after each of its plays.
fn farmer_sheds_singles(state: &mut State) -> Vec<u32> {
    let farmer = state.seat_of(Role::LandlordDown).unwrap();
    let mut plays = MoveList::new();
    let mut left = Vec::new();
    while let Some(seat) = state.current_player() {
        state.legal_plays_into(&mut plays);
        let single = plays.iter().filter(|p| p.kind == Kind::Solo).min_by_key(|p| p.main).copied();
        let play = match (seat == farmer, state.rival().is_some()) {
            (false, true) => Play::parse("pass").unwrap(),
            (_, _) => single.unwrap_or_else(|| Play::parse("pass").unwrap()),
        };
        state.apply_play(play);
        if seat == farmer && !play.is_pass() {
            left.push(state.cards_left(farmer));
        }
    }
    left
}

#[test]
fn the_farmer_wins_on_reaching_the_conceded_cards_at_every_count() {
    for conceded in 0..=6u8 {
        let mut state = dealt(two_player(false, conceded), 1);
        assert_eq!((state.phase(), state.conceded(), state.landlord()), (Phase::Play, conceded, Some(Seat::S0)));
        let left = farmer_sheds_singles(&mut state);
        // The script sheds one card a play: the game ends at the first count at or below the
        // conceded cards, never before.
        assert_eq!(left.last(), Some(&(conceded as u32)), "conceded {conceded}: {left:?}");
        assert!(left[..left.len() - 1].iter().all(|&n| n > conceded as u32));
        assert_eq!((state.is_terminal(), state.winner()), (true, Some(Seat::S1)));
        assert_eq!(state.cards_left(Seat::S1), conceded as u32, "the farmer still holds the conceded cards");
        // The landlord played once (the first lead): an anti-spring doubles the stake.
        assert!(state.is_spring());
        assert_eq!(state.multiplier(), 2 << state.bombs_played());
        let r = state.returns();
        assert_eq!(
            (r[Seat::S0], r[Seat::S1], r[Seat::S2]),
            (-(state.multiplier() as f64), state.multiplier() as f64, 0.0)
        );
    }
}

#[test]
fn robs_concede_cards_and_double_the_stake() {
    for robs in 0..=4u8 {
        let mut state = dealt(two_player(true, 0), 2);
        assert_eq!((state.phase(), state.current_player()), (Phase::Bid, Some(Seat::S0)));
        // Seat 0 calls, then the seats rob in turn `robs` times, then a pass (the fourth rob
        // ends the bidding by itself).
        for _ in 0..=robs {
            assert_eq!(state.legal_bids_vec(), [0, 1]);
            state.apply_bid(1);
        }
        if robs < 4 {
            state.apply_bid(0);
        }
        let landlord = Table::TWO.after(Seat::S0, robs as u64);
        assert_eq!(
            (state.phase(), state.landlord(), state.robs(), state.conceded()),
            (Phase::Play, Some(landlord), robs, robs)
        );
        assert_eq!(state.cards_left(landlord), 20);
        let left = farmer_sheds_singles(&mut state);
        assert_eq!(left.last(), Some(&(robs as u32)));
        assert_eq!(state.winner(), state.seat_of(Role::LandlordDown));
        assert_eq!(state.multiplier(), (2u64 << robs) << state.bombs_played(), "2 per rob, anti-spring, bombs");
    }
}

#[test]
fn the_rob_limit_ends_the_bidding_and_is_a_setting() {
    for max_robs in [0u8, 1, 2, 4] {
        let mut state = dealt(GameConfig { max_robs, ..two_player(true, 0) }, 3);
        state.apply_bid(0); // seat 0 passes; seat 1 calls
        for k in 0..=max_robs {
            assert_eq!(state.phase(), Phase::Bid, "robs so far {k} of {max_robs}");
            state.apply_bid(1);
        }
        assert_eq!((state.phase(), state.robs()), (Phase::Play, max_robs));
        assert_eq!(state.landlord(), Some(Table::TWO.after(Seat::S1, max_robs as u64)));
        assert!(state.try_apply_bid(1).is_err(), "no bid once the bidding is over");
    }
    let e = GameConfig { max_robs: 17, ..two_player(true, 0) }.check().unwrap_err().to_string();
    assert!(e.starts_with("max_robs = 17"), "{e}");
}

#[test]
fn two_passes_void_the_deal_and_a_pass_after_a_call_ends_the_bidding() {
    let mut state = dealt(two_player(true, 0), 4);
    state.apply_bid(0);
    state.apply_bid(0);
    assert_eq!((state.phase(), state.landlord(), state.winner()), (Phase::Over, None, None));
    assert_eq!(state.returns(), [0.0; 3]);
    // Pass, call, pass: the caller is the landlord without a rob.
    let mut state = dealt(two_player(true, 0), 4);
    for bid in [0, 1, 0] {
        state.apply_bid(bid);
    }
    assert_eq!((state.landlord(), state.robs(), state.base()), (Some(Seat::S1), 0, 1));
    assert_eq!(state.bid_of(Seat::S0), Some(0), "a seat's last bid");
    let e = dealt(two_player(true, 0), 4).try_apply_bid(2).unwrap_err().to_string();
    assert!(e.contains("not 0 (pass) or 1 (call, or rob"), "{e}");
}

#[test]
fn after_one_pass_the_last_player_leads_and_a_spring_doubles() {
    // The landlord leads its lowest single every time; the farmer always passes.
    let mut state = dealt(two_player(false, 0), 5);
    let mut plays = MoveList::new();
    while let Some(seat) = state.current_player() {
        let play = if seat == Seat::S0 {
            assert!(state.rival().is_none(), "one pass clears the trick: the landlord leads again");
            state.legal_plays_into(&mut plays);
            *plays.iter().filter(|p| p.kind == Kind::Solo).min_by_key(|p| p.main).unwrap()
        } else {
            Play::parse("pass").unwrap()
        };
        state.apply_play(play);
    }
    assert_eq!((state.winner(), state.cards_left(Seat::S0), state.cards_left(Seat::S1)), (Some(Seat::S0), 0, 17));
    assert!(state.is_spring(), "the farmer never played");
    assert_eq!(state.multiplier(), 2);
    assert_eq!(&state.returns()[..2], &[2.0, -2.0], "one farmer: the landlord wins one farmer's stake");
}

#[test]
fn the_deck_has_no_threes_or_fours_and_seat_two_is_no_seat() {
    let mut state = State::new(two_player(false, 0));
    assert_eq!(state.chance_outcomes().unwrap().len(), 46);
    let with_three = Counts::parse("3556677889TTJJQQK").unwrap();
    let others = Counts::parse("5789TJQKAAA222BR9").unwrap();
    let e = state.try_deal_counts([with_three, others, Counts::EMPTY], Counts::parse("KKA").unwrap()).unwrap_err();
    assert!(e.to_string().contains("no 3s and 4s") || e.to_string().contains("without 3s and 4s"), "{e}");
    // Three hands are no two-player deal, nor two hands a standard one.
    let deal = &generate_deals_for(Rules::Standard, 1, 1)[0];
    assert!(State::new(two_player(false, 0)).try_deal_hands(deal.hands, deal.bottom).is_err());
    let deal = &generate_deals_for(Rules::TwoPlayer, 1, 1)[0];
    assert!(State::new(GameConfig::default()).try_deal_hands(deal.hands, deal.bottom).is_err());
    let e = GameConfig { landlord_seat: Seat::S2, ..two_player(false, 0) }.check().unwrap_err().to_string();
    assert_eq!(e, "landlord_seat = 2: two_player games have seats 0 to 1");
    let e = GameConfig { conceded: 2, ..GameConfig::default() }.check().unwrap_err().to_string();
    assert!(e.contains("only two-player games concede"), "{e}");
    assert_eq!(Table::TWO.seat(2).unwrap_err().seats, 2);
}

/// Random two-player games: every legal action drawn at random, bidding or not.
fn random_games(n: u64, mut check: impl FnMut(&State)) {
    let mut rng = StdRng::seed_from_u64(42);
    for game in 0..n {
        let config = GameConfig {
            first_bidder: Table::TWO.after(Seat::S0, game / 2),
            landlord_seat: Table::TWO.after(Seat::S0, game / 3),
            conceded: if game % 2 == 0 { 0 } else { (game % 5) as u8 },
            spring: game % 7 != 0,
            ..two_player(game % 2 == 0, 0)
        };
        let config = GameConfig { conceded: if config.bidding { 0 } else { config.conceded }, ..config };
        config.check().unwrap();
        let mut state = State::new(config);
        check(&state);
        while !state.is_terminal() {
            let actions = state.legal_actions();
            state.apply_action(actions[rng.random_range(0..actions.len())]);
            check(&state);
        }
    }
}

#[test]
fn random_games_deal_46_cards_and_never_show_the_set_aside() {
    let deck = Rules::TwoPlayer.deck();
    assert_eq!((deck.len(), deck.counts().get(0), deck.counts().get(1)), (46, 0, 0));
    let mut finished = 0;
    random_games(400, |state| {
        let table = state.table();
        assert_eq!(table, Table::TWO);
        let dealt: CardSet =
            state.dealt_hands().iter().fold(state.bottom().union(state.set_aside()), |a, h| a.union(*h));
        assert!(dealt.minus(deck).is_empty(), "no 3 or 4 is ever dealt");
        assert_eq!(dealt.len() as usize, state.dealt_count());
        assert_eq!(state.hand(Seat::S2), Counts::EMPTY);
        if state.dealt_count() == 46 {
            assert_eq!(state.set_aside().len(), 9);
            let mut total = state.set_aside().counts();
            for &q in table.seats() {
                total = total.plus(state.hand(q)).plus(state.played_by(q));
            }
            if state.landlord().is_none() {
                total = total.plus(state.bottom().counts());
            }
            assert_eq!(total, deck.counts(), "cards are conserved");
        }
        for &q in table.seats() {
            let view = View::of(state, q);
            // The set-aside is in no view: the own hand holds none of it, and a redealt world
            // the seat cannot tell apart moves it.
            assert!(view.hand().minus(state.hand(q)).is_empty());
            let mut k = 0.0;
            let world = view.redeal(&mut || {
                k = (k + 0.37) % 1.0;
                k
            });
            assert_eq!(View::of(&world, q), view);
            assert_eq!(world.set_aside().len(), state.set_aside().len());
            let text = view.information_state_string();
            assert!(text.contains(&format!("conceded {}", state.conceded())));
        }
        if state.is_terminal() && state.winner().is_some() {
            finished += 1;
        }
    });
    assert!(finished > 250, "{finished} of 400 games were played out");
}

#[test]
fn random_games_score_as_the_rules_say() {
    let mut checked = 0;
    random_games(400, |state| {
        let (Some(winner), Some(landlord)) = (state.winner(), state.landlord()) else { return };
        let farmer = Table::TWO.next(landlord);
        // The winner emptied its hand, or is the farmer at or below the conceded cards.
        if winner == landlord {
            assert_eq!(state.cards_left(landlord), 0);
            assert!(state.cards_left(farmer) > state.conceded() as u32);
        } else {
            assert!(state.cards_left(farmer) <= state.conceded() as u32);
            assert!(state.cards_left(landlord) > 0);
        }
        // Points from the record: 2 per bomb, rocket and rob; 2 for a spring or anti-spring.
        let record = state.play_record();
        let bombs = record.iter().filter(|r| matches!(r.play.kind, Kind::Bomb | Kind::Rocket)).count() as u32;
        let plays_by = |s: Seat| record.iter().filter(|r| r.seat == s && !r.play.is_pass()).count();
        let robs = state.bids().iter().filter(|&&b| b == 1).count().saturating_sub(1) as u32;
        let spring = match winner == landlord {
            true => plays_by(farmer) == 0,
            false => plays_by(landlord) == 1,
        };
        let stake = (1u64 << (bombs + robs)) * if spring && state.config().spring { 2 } else { 1 };
        assert_eq!(state.multiplier(), stake);
        let for_landlord = if winner == landlord { stake as f64 } else { -(stake as f64) };
        let mut want = [0.0; 3];
        (want[landlord.index()], want[farmer.index()]) = (for_landlord, -for_landlord);
        assert_eq!(state.returns(), want);
        assert_eq!(state.returns().iter().sum::<f64>(), 0.0);
        // Replays from its saved form.
        assert_eq!(State::from_json(&state.to_json()).unwrap().to_json(), state.to_json());
        checked += 1;
    });
    assert!(checked > 250, "{checked}");
}
