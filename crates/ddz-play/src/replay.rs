//! `ddz replay`: one game move by move, for a person to read — the hands, each play, and for
//! every decision of a network or search agent its five best candidate plays with their values
//! (Q for a network, the search's mean value and visits for a search agent).

use crate::agents::{Agent, Candidate, SeatFault, Turn, play_out};
use crate::game::{Deal, Play, Role, Seat, State};
use std::cmp::Ordering;
use std::fmt::Write;

/// The name of `seat`'s role; every seat has one here, as the rules name the landlord.
fn role_name(state: &State, seat: Seat) -> &'static str {
    state.role(seat).map_or("nobody", Role::name)
}

/// A game told move by move, and the fault that ended it early, if an agent gave no answer.
pub struct Replayed {
    /// The hands, each play and the candidates weighed, for a person to read.
    pub text: String,
    /// The agent that gave no answer, which ended the game at that decision (the text says so).
    pub fault: Option<SeatFault>,
}

/// Plays `deal` with `agents[0]` as landlord, `[1]` as landlord_down, `[2]` as landlord_up.
/// An agent that gives no answer ends the game there: the text says so, and the fault is kept.
pub fn replay(deal: &Deal, agents: &mut [Box<dyn Agent>; 3]) -> Replayed {
    let mut out = String::new();
    let mut state = State::new(Default::default());
    state.deal_hands(deal.hands, deal.bottom);
    let _ = writeln!(out, "bottom: {}", deal.bottom.counts());
    for role in Role::ALL {
        let Some(seat) = state.seat_of(role) else { continue };
        let _ = writeln!(out, "{:<14} {:<8} {}", role.name(), agents[seat].name(), state.hand(seat));
    }
    let _ = writeln!(out);
    let mut turn = 0;
    let illegal = play_out(&mut state, agents, |agent, state, at, decision| {
        let Turn { seat, plays, .. } = at;
        turn += 1;
        let role = role_name(state, seat);
        let play = decision.play.to_string();
        let _ = writeln!(out, "{turn:>3}. {role:<14} plays {play:<14} (hand {})", state.hand(seat));
        if decision.illegal {
            let _ =
                writeln!(out, "     illegal answer: {} answered outside the {} legal plays", agent.name(), plays.len());
        }
        if let Some(c) = if plays.len() > 1 { agent.candidates(at) } else { None } {
            let top: Vec<String> = best_five(&c).into_iter().map(|k| describe(&plays[k], c[k])).collect();
            let _ = writeln!(out, "     candidates: {}", top.join(" | "));
        }
    });
    let illegal = match illegal {
        Ok(n) => n,
        Err(f) => {
            let _ = writeln!(out, "\n{} gave no answer; the game ends here: {}", role_name(&state, f.seat), f.fault);
            return Replayed { text: out, fault: Some(f) };
        }
    };
    let Some(winner) = state.winner() else {
        let _ = writeln!(out, "\nthe game ended without a winner");
        return Replayed { text: out, fault: None };
    };
    let side = if state.landlord() == Some(winner) { "the landlord wins" } else { "the farmers win" };
    let bombs = state.bombs_played();
    let _ = writeln!(out, "\n{} goes out: {side} ({bombs} bomb(s)/rocket played)", role_name(&state, winner));
    if illegal > 0 {
        let _ = writeln!(out, "illegal answers: {illegal}");
    }
    Replayed { text: out, fault: None }
}

/// The five best candidates: by visits when the agent counts them, else by value; never the
/// plays the agent did not consider.
fn best_five(c: &[Candidate]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..c.len()).filter(|&k| !c[k].value.is_nan()).collect();
    order
        .sort_by(|&a, &b| (c[b].visits, c[b].value).partial_cmp(&(c[a].visits, c[a].value)).unwrap_or(Ordering::Equal));
    order.truncate(5);
    order
}

fn describe(play: &Play, c: Candidate) -> String {
    match c.visits {
        Some(n) => format!("{play} {:+.3} ({n} visits)", c.value),
        None => format!("{play} {:+.3}", c.value),
    }
}
