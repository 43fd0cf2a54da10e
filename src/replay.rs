//! `ddz replay`: one game move by move, for a person to read — the hands, each play, and for
//! every decision of a model agent its top five candidate plays with their Q-values.

use crate::agents::Agent;
use crate::eval::Deal;
use crate::game::{MoveList, Role, State};
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
    let mut plays = MoveList::new();
    let mut turn = 0;
    while !state.is_terminal() {
        state.legal_plays_into(&mut plays);
        let seat = state.current_player().unwrap();
        let agent = &mut agents[seat as usize];
        let hand = state.hand(seat);
        let values = if plays.len() > 1 { agent.values(&state, &plays) } else { None };
        let i = agent.choose(&state, &plays).min(plays.len() - 1);
        turn += 1;
        let role = Role::ALL[seat as usize];
        let _ = writeln!(out, "{turn:>3}. {:<14} plays {:<14} (hand {hand})", role.name(), plays[i].to_string());
        if let Some(q) = values {
            let mut order: Vec<usize> = (0..plays.len()).collect();
            order.sort_by(|&a, &b| q[b].total_cmp(&q[a]));
            let top: Vec<String> = order.iter().take(5).map(|&k| format!("{} {:+.3}", plays[k], q[k])).collect();
            let _ = writeln!(out, "     candidates: {}", top.join(" | "));
        }
        state.apply_play(plays[i]).expect("a generated play is legal");
    }
    let winner = state.winner().unwrap();
    let side = if winner == 0 { "the landlord wins" } else { "the farmers win" };
    let _ = writeln!(out, "\n{} goes out: {side} ({} bomb(s)/rocket played)", Role::ALL[winner as usize].name(), state.bombs_played());
    out
}
