//! The one game loop: the current player's agent chooses among the legal plays, the play is
//! applied, until the game ends. Every tool that plays whole games (evaluation, replay,
//! self-play logs, the engine benchmark) goes through [`play_out`], and every single decision
//! (bots, the rule seats of training) through [`decide`], so an agent's answer outside the legal
//! list is counted as illegal the same way everywhere and never silently replaced.

use super::{Agent, BidTurn, Fault, Turn, ask, check_rules};
use ddz_engine::game::{MoveList, Phase, Play, Seat, State, View};

/// Which agent plays which seat.
pub trait Seating {
    /// The agent that plays `seat` at `state`.
    fn agent(&mut self, state: &State, seat: Seat) -> &mut dyn Agent;
}

/// One agent per seat: landlord, landlord_down, landlord_up.
impl Seating for [Box<dyn Agent>; 3] {
    fn agent(&mut self, _state: &State, seat: Seat) -> &mut dyn Agent {
        self[seat].as_mut()
    }
}

/// One agent for the landlord and one for both farmers. Before the landlord is known (while
/// bidding) the seat the rules name landlord without bidding counts as the landlord's.
pub struct Sides<'a> {
    /// The agent of the landlord's seat.
    pub landlord: &'a mut dyn Agent,
    /// The agent of the two farmers' seats.
    pub farmers: &'a mut dyn Agent,
}

impl Seating for Sides<'_> {
    fn agent(&mut self, state: &State, seat: Seat) -> &mut dyn Agent {
        let landlord = state.landlord().unwrap_or(state.config().landlord_seat);
        if seat == landlord { self.landlord } else { self.farmers }
    }
}

/// The same agent in every seat.
pub struct Everyone<'a>(pub &'a mut dyn Agent);

impl Seating for Everyone<'_> {
    fn agent(&mut self, _state: &State, _seat: Seat) -> &mut dyn Agent {
        self.0
    }
}

/// One decision as it was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The play made.
    pub play: Play,
    /// Its index in the legal plays.
    pub index: usize,
    /// The agent answered an index outside the legal plays; the first legal play was made.
    pub illegal: bool,
}

/// Asks `agent` to choose among `plays` (the legal plays of the current player, never empty).
/// An answer outside the list is illegal: the decision says so, and the first legal play (pass,
/// when following) is made instead so that the game can go on.
pub fn decide(agent: &mut dyn Agent, state: &State, plays: &[Play]) -> Decision {
    let view = view_at(state);
    let turn = turn_at(state, &view, plays);
    let answer = match agent.as_cheat() {
        Some(cheat) => cheat.choose_seeing(state, turn),
        None => agent.choose(turn),
    };
    decision(answer, plays)
}

/// [`decide`] where there is no state, only the seat's view (a bot answering a request, a
/// check of key decisions): the agent's decision at `turn`, through [`ask`].
pub fn decide_turn(agent: &mut dyn Agent, turn: Turn<'_>) -> Result<Decision, Fault> {
    Ok(decision(ask(agent, turn)?, turn.plays))
}

/// The decision an answer makes: the play, or the first legal play when the answer is not one.
fn decision(answer: usize, plays: &[Play]) -> Decision {
    match plays.get(answer) {
        Some(&play) => Decision { play, index: answer, illegal: false },
        None => Decision { play: plays[0], index: 0, illegal: true },
    }
}

/// The view of the seat to act; the game loop asks only where a seat is to act.
fn view_at(state: &State) -> View<'_> {
    match state.current_player() {
        Some(seat) => View::of(state, seat),
        None => panic!("a decision without a seat to act: an engine bug, state {}", state.to_json()),
    }
}

/// The decision at `state`; the game loop asks only where a seat is to play, with its plays.
fn turn_at<'a>(state: &State, view: &'a View<'a>, plays: &'a [Play]) -> Turn<'a> {
    match Turn::new(view, plays) {
        Some(turn) => turn,
        None => panic!("a decision without a seat or legal plays: an engine bug, state {}", state.to_json()),
    }
}

/// [`decide`] for an agent that can fail to answer (`bot:CMD`): its fault, where it gave no
/// answer.
pub fn try_decide(agent: &mut dyn Agent, state: &State, plays: &[Play]) -> Result<Decision, Fault> {
    let view = view_at(state);
    try_decide_at(agent, state, turn_at(state, &view, plays))
}

/// [`try_decide`] at a turn of `state` already made (the game loop shows it to its observer).
fn try_decide_at(agent: &mut dyn Agent, state: &State, turn: Turn<'_>) -> Result<Decision, Fault> {
    check_rules(&*agent, turn)?;
    let answer = match agent.as_cheat() {
        Some(cheat) => cheat.choose_seeing(state, turn),
        None => ask(agent, turn)?,
    };
    Ok(decision(answer, turn.plays))
}

/// Asks the agent to act at a bidding decision and applies its bid; a bid outside the legal
/// ones is illegal and a pass is made instead. Returns the bid made and whether the answer was
/// illegal.
pub fn bid(agent: &mut dyn Agent, state: &mut State) -> Result<(u8, bool), Fault> {
    let legal = state.legal_bids_vec();
    let view = view_at(state);
    let Some(turn) = BidTurn::new(&view, &legal) else {
        panic!("asked for a bid with no seat to bid: an engine bug, state {}", state.to_json())
    };
    let (bid, illegal) = legal_bid(agent.try_bid(turn)?, &legal);
    state.apply_bid(bid);
    Ok((bid, illegal))
}

/// The bid made when an agent answers `wanted` at a decision whose legal bids are `legal`: that
/// bid, or a pass (always legal) when it is not one of them; and whether it was not.
pub fn legal_bid(wanted: u8, legal: &[u8]) -> (u8, bool) {
    if legal.contains(&wanted) { (wanted, false) } else { (0, true) }
}

/// An agent's fault and the seat it played, which ended a game early.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seat {seat}: {fault}")]
pub struct SeatFault {
    /// The seat whose agent failed (0 to 2).
    pub seat: Seat,
    /// Why it gave no answer.
    pub fault: Fault,
}

/// Plays `state` to the end, bidding included. `observe` sees each play decision after the agent
/// made it and before it is applied, with the agent (for its values of the plays), the state
/// (observers are tools, not players: a replay shows every hand) and the turn.
/// Returns how many of the agents' answers were illegal, or the fault of an agent that gave
/// no answer (the state is left at that decision). It stops at a chance node: a laizi game with
/// bidding stops at its wild rank, which the caller draws ([`State::draw_wild`]) before calling
/// again.
pub fn play_out(
    state: &mut State,
    seating: &mut impl Seating,
    mut observe: impl FnMut(&mut dyn Agent, &State, Turn<'_>, Decision),
) -> Result<u32, SeatFault> {
    let mut plays = MoveList::new();
    let mut illegal = 0;
    while let Some(seat) = state.current_player() {
        let at = |fault| SeatFault { seat, fault };
        if state.phase() == Phase::Bid {
            illegal += bid(seating.agent(state, seat), state).map_err(at)?.1 as u32;
            continue;
        }
        state.legal_plays_into(&mut plays);
        let agent = seating.agent(state, seat);
        let view = view_at(state);
        let turn = turn_at(state, &view, &plays);
        let decision = try_decide_at(agent, state, turn).map_err(at)?;
        illegal += decision.illegal as u32;
        observe(agent, state, turn, decision);
        state.apply_play_unchecked(decision.play);
    }
    Ok(illegal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::RuleAgent;
    use ddz_engine::game::generate_deals;

    /// Answers one past the last legal play: always illegal.
    struct OffByOne;
    impl Agent for OffByOne {
        fn name(&self) -> String {
            "off-by-one".into()
        }
        fn choose(&mut self, turn: Turn<'_>) -> usize {
            turn.plays.len()
        }
    }

    #[test]
    fn every_illegal_answer_is_counted_and_the_game_still_ends() {
        let deal = &generate_deals(1, 5)[0];
        let mut state = State::new(Default::default());
        state.deal_hands_unchecked(deal.hands, deal.bottom);
        let (mut rule, mut bad) = (RuleAgent::new(), OffByOne);
        let mut seen = (0, 0);
        let played = play_out(&mut state, &mut Sides { landlord: &mut bad, farmers: &mut rule }, |_, _, t, d| {
            seen.0 += 1;
            if d.illegal {
                seen.1 += 1;
                assert_eq!(t.seat, Seat::S0, "only the landlord answers out of range");
                assert_eq!(d.index, 0);
            }
        });
        let illegal = played.unwrap();
        assert!(state.is_terminal());
        assert!(illegal > 0 && illegal == seen.1, "{illegal} vs {seen:?}");
    }

    /// Panics on every decision whose hand holds the big joker (a stand-in for a search that
    /// indexes a table out of bounds); plays the standard game only, the default.
    struct Brittle;
    impl Agent for Brittle {
        fn name(&self) -> String {
            "brittle".into()
        }
        fn choose(&mut self, turn: Turn<'_>) -> usize {
            assert!(turn.view.hand().get(ddz_engine::cards::RANK_RED_JOKER) == 0, "a joker in hand");
            turn.plays.len() - 1
        }
    }

    /// The first decision of a deal of `rules` whose landlord's hand holds (or not) the red joker.
    fn first_decision(rules: ddz_engine::game::Rules, red_joker: bool) -> (State, Vec<Play>) {
        use ddz_engine::game::{Action, GameConfig, WildRank, generate_deals_for};
        let deal = generate_deals_for(rules, 200, 8)
            .into_iter()
            .find(|d| (d.hands[0].counts().get(ddz_engine::cards::RANK_RED_JOKER) > 0) == red_joker)
            .unwrap();
        let mut state = State::new(GameConfig { rules, ..GameConfig::default() });
        state.deal_hands(deal.hands, deal.bottom);
        if state.phase() == Phase::Wild {
            state.apply_action(Action::Wild(WildRank::parse("7").unwrap()));
        }
        let mut plays = MoveList::new();
        state.legal_plays_into(&mut plays);
        (state, plays.to_vec())
    }

    #[test]
    fn a_panic_or_other_rules_cost_only_their_own_decision() {
        use super::super::{Query, ask_many};
        use ddz_engine::game::Rules;
        let (calm, calm_plays) = first_decision(Rules::Standard, false);
        let (joker, joker_plays) = first_decision(Rules::Standard, true);
        let (laizi, laizi_plays) = first_decision(Rules::Laizi, false);
        let views = [&calm, &joker, &laizi].map(|s| s.view(s.current_player().unwrap()));
        let plays = [calm_plays, joker_plays, laizi_plays];
        let turn = |k: usize| Turn::new(&views[k], &plays[k]).unwrap();
        let mut agent = Brittle;
        let panicked = ask(&mut agent, turn(1)).unwrap_err();
        assert!(matches!(&panicked, Fault::Failed(why) if why.contains("a joker in hand")), "{panicked}");
        assert_eq!(ask(&mut agent, turn(0)), Ok(plays[0].len() - 1), "the agent answers on");
        let other_rules = ask(&mut agent, turn(2)).unwrap_err();
        assert!(other_rules.to_string().contains("brittle cannot play a game of laizi rules"), "{other_rules}");
        // The game loop refuses the laizi game at its first decision, before the agent sees it.
        assert!(try_decide(&mut agent, &laizi, &plays[2]).is_err());
        // A batch: each query answered or refused on its own.
        let queries: Vec<Query> = [0, 1, 2, 0].iter().map(|&k| Query { turn: turn(k), seed: 1 }).collect();
        let answers = ask_many(&mut agent, &queries);
        assert_eq!(answers[0], Ok(plays[0].len() - 1));
        assert_eq!(answers[3], answers[0]);
        assert_eq!(answers[1], Err(panicked));
        assert_eq!(answers[2], Err(other_rules));
    }
}
