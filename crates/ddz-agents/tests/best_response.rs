//! The best response to RLCard's agent is what it claims: played out against the agent itself
//! (its random choices drawn), the best response's plays win every game of a deal it values at
//! 1, and win at least as often as its value says elsewhere, within noise.

use ddz_agents::agents::{Agent, RlcardAgent, Turn};
use ddz_agents::search::solver::Position;
use ddz_agents::search::{BestResponse, Side};
use ddz_engine::game::{DealSet, GameConfig, MoveList, Role, State};

/// One game of `deal` (seat 0 the landlord): `side` plays the best response's plays, the other
/// side the rlcard agent drawing from `seed`. Whether `side` won.
fn play_out(deal: &ddz_engine::game::Deal, side: Side, seed: u64) -> bool {
    let mut state = State::new(GameConfig::default());
    state.deal_hands(deal.hands, deal.bottom);
    let mut policy = RlcardAgent::new(0);
    let mut br = BestResponse::new(&mut policy, side);
    let mut opponent = RlcardAgent::new(seed);
    let mut plays = MoveList::new();
    while !state.is_terminal() {
        let seat = state.current_player().unwrap();
        let role = state.role(seat).unwrap();
        let play = if side.has(role) {
            br.best_play_within(&Position::of_state(&state).unwrap(), 0).unwrap().0
        } else {
            state.legal_plays_into(&mut plays);
            let view = state.view(seat);
            plays[opponent.choose(Turn::new(&view, &plays).unwrap())]
        };
        state.apply_play(play);
    }
    let landlord_won = state.returns()[0] > 0.0;
    landlord_won == (side == Side::Landlord)
}

#[test]
fn the_best_response_wins_what_it_values_against_the_agent_itself() {
    let deals = DealSet::Dev.deals();
    for side in [Side::Landlord, Side::Farmers] {
        let mut policy = RlcardAgent::new(0);
        let mut br = BestResponse::new(&mut policy, side);
        let (mut sure, mut expected, mut won, mut games) = (0, 0.0, 0, 0);
        for deal in deals.iter().take(40) {
            let hands =
                [deal.hands[0].counts().plus(deal.bottom.counts()), deal.hands[1].counts(), deal.hands[2].counts()];
            let start = Position::new(hands.map(Some), Role::Landlord, None).unwrap();
            let Some(value) = br.win_chance_within(&start, 3_000_000) else { continue };
            for seed in 0..3 {
                let win = play_out(deal, side, seed);
                assert!(win || value < 1.0, "{side:?} valued a dev deal at 1 and lost it (seed {seed})");
                (won, games, expected) = (won + win as u32, games + 1, expected + value);
            }
            sure += (value == 1.0) as u32;
        }
        assert!(sure >= 30, "{side:?}: {sure} sure deals");
        assert!(won as f64 >= expected - 3.0, "{side:?}: won {won} of {games}, expected {expected}");
    }
}
