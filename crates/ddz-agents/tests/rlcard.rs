//! The `rlcard` agent against the Python agent it mirrors: `tests/data/rlcard_decisions.jsonl`
//! holds 500 games between RLCard's agent, ddz's rule agent and ddz's random agent, and at every
//! play decision of every seat what DouZero's `RLCardAgent` did there (written by
//! `scripts/rlcard_decisions.py`, which runs the Python agent). Replayed here, the Rust agent
//! must make the same play wherever the Python agent was sure of its play, and, wherever it drew
//! at random, draw from the same plays.

use ddz_agents::agents::{RlcardChoice, rlcard_choice};
use ddz_engine::cards::Counts;
use ddz_engine::game::{GameConfig, Play, State};
use serde::Deserialize;
use std::collections::BTreeSet;

/// One game of the stored file.
#[derive(Deserialize)]
struct Game {
    /// Each seat's cards after the deal, the landlord's (seat 0) with the bottom.
    hands: [String; 3],
    bottom: String,
    /// The plays made, in turn from the landlord.
    plays: Vec<String>,
    /// The Python agent at each of those decisions.
    rlcard: Vec<Recorded>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Recorded {
    /// The play it made without drawing.
    Play(String),
    /// The plays it drew one from.
    Uniform { uniform: Vec<String> },
}

fn cards(text: &str) -> Counts {
    if text == "pass" { Counts::EMPTY } else { Counts::parse(text).unwrap() }
}

#[test]
fn the_rust_agent_decides_as_the_python_agent_on_every_stored_decision() {
    let text = include_str!("data/rlcard_decisions.jsonl");
    let (mut sure, mut drawn, mut wrong) = (0, 0, Vec::new());
    for (g, line) in text.lines().enumerate() {
        let game: Game = serde_json::from_str(line).unwrap();
        let bottom = cards(&game.bottom);
        let hands = [cards(&game.hands[0]).minus(bottom), cards(&game.hands[1]), cards(&game.hands[2])];
        let mut state = State::new(GameConfig::default());
        state.try_deal_counts(hands, bottom).unwrap();
        assert_eq!(game.plays.len(), game.rlcard.len(), "game {}", g + 1);
        for (k, (play, recorded)) in game.plays.iter().zip(&game.rlcard).enumerate() {
            let seat = state.current_player().unwrap();
            let view = state.view(seat);
            let at = || format!("game {} play {} ({} holds {})", g + 1, k + 1, seat, view.hand());
            match (rlcard_choice(&view), recorded) {
                (RlcardChoice::Play(ours), Recorded::Play(theirs)) => {
                    sure += 1;
                    if ours != cards(theirs) {
                        wrong.push(format!("{}: Rust plays {ours}, Python {theirs}", at()));
                    }
                }
                (RlcardChoice::Uniform(ours), Recorded::Uniform { uniform }) => {
                    drawn += 1;
                    let ours: BTreeSet<Counts> = ours.into_iter().collect();
                    let theirs: BTreeSet<Counts> = uniform.iter().map(|p| cards(p)).collect();
                    if ours != theirs {
                        wrong.push(format!("{}: Rust draws from {ours:?}, Python from {theirs:?}", at()));
                    }
                }
                (ours, theirs) => wrong.push(format!("{}: Rust {ours:?}, Python {}", at(), describe(theirs))),
            }
            state.try_apply_play(Play::parse(play).unwrap()).unwrap();
        }
        assert!(state.is_terminal(), "game {} ends", g + 1);
    }
    assert!(wrong.is_empty(), "{} of {} decisions differ:\n{}", wrong.len(), sure + drawn, wrong.join("\n"));
    assert!(sure + drawn >= 20_000, "{} decisions", sure + drawn);
    assert!(sure > 10_000 && drawn > 1_000, "{sure} sure, {drawn} drawn");
}

fn describe(recorded: &Recorded) -> String {
    match recorded {
        Recorded::Play(p) => format!("plays {p}"),
        Recorded::Uniform { uniform } => format!("draws from {uniform:?}"),
    }
}
