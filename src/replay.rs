//! `ddz replay`: one game move by move, for a person to read — the hands, each play, and for
//! every decision of a model agent its top five candidate plays with their Q-values.

use crate::agents::{Agent, play_out};
use crate::game::{Deal, Role, State};
use std::fmt::Write;

/// Plays `deal` with `agents[0]` as landlord, `[1]` as landlord_down, `[2]` as landlord_up.
pub fn replay(deal: &Deal, agents: &mut [Box<dyn Agent>; 3]) -> String {
    let mut out = String::new();
    let mut state = State::new(Default::default());
    state.deal_hands(deal.hands, deal.bottom).expect("a checked deal is valid");
    let _ = writeln!(out, "bottom: {}", deal.bottom.counts());
    for role in Role::ALL {
        let seat = role.index() as u8;
        let _ = writeln!(out, "{:<14} {:<8} {}", role.name(), agents[seat as usize].name(), state.hand(seat));
    }
    let _ = writeln!(out);
    let mut turn = 0;
    let illegal = play_out(&mut state, agents, |agent, state, plays, decision| {
        let seat = state.current_player().expect("a decision");
        turn += 1;
        let role = Role::ALL[seat as usize].name();
        let play = decision.play.to_string();
        let _ = writeln!(out, "{turn:>3}. {role:<14} plays {play:<14} (hand {})", state.hand(seat));
        if decision.illegal {
            let _ =
                writeln!(out, "     illegal answer: {} answered outside the {} legal plays", agent.name(), plays.len());
        }
        if let Some(q) = if plays.len() > 1 { agent.values(state, plays) } else { None } {
            let mut order: Vec<usize> = (0..plays.len()).collect();
            order.sort_by(|&a, &b| q[b].total_cmp(&q[a]));
            let top: Vec<String> = order.iter().take(5).map(|&k| format!("{} {:+.3}", plays[k], q[k])).collect();
            let _ = writeln!(out, "     candidates: {}", top.join(" | "));
        }
    });
    let winner = state.winner().expect("a finished game");
    let side = if winner == 0 { "the landlord wins" } else { "the farmers win" };
    let bombs = state.bombs_played();
    let _ = writeln!(out, "\n{} goes out: {side} ({bombs} bomb(s)/rocket played)", Role::ALL[winner as usize].name());
    if illegal > 0 {
        let _ = writeln!(out, "illegal answers: {illegal}");
    }
    out
}
