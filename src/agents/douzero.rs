//! `douzero:DIR`: DouZero's checkpoints playing in ddz, natively: DouZero's observation
//! ([`crate::encode::douzero`]) and its networks ([`crate::model::douzero`]), greedy on Q over
//! the legal plays as DouZero's own `DeepAgent` is (the first of equal values; a lone legal
//! play is made without asking the network). It reads only the seat's view.

use super::{Agent, Candidate, Turn};
use crate::encode::douzero::{CARDS, Infoset, observe, write_cards};
use crate::model::WeightsError;
use crate::model::douzero::DouzeroNets;
use std::path::Path;

/// A player with DouZero's three networks (one per role), greedy on their Q (`douzero:DIR`).
pub struct DouzeroAgent {
    nets: DouzeroNets,
    name: String,
}

impl DouzeroAgent {
    /// The agent of a DouZero checkpoint folder (converted to safetensors on first use).
    pub fn load(dir: &Path, name: String) -> Result<DouzeroAgent, WeightsError> {
        Ok(DouzeroAgent { nets: DouzeroNets::load(dir)?, name })
    }

    /// Q of each play of `turn`, by the network of the seat's role.
    pub fn q_values(&self, turn: Turn<'_>) -> Vec<f32> {
        // A play decision has a landlord, so the infoset is always there.
        let Some(infoset) = Infoset::of(turn.view) else { return vec![0.0; turn.plays.len()] };
        let obs = observe(&infoset);
        let rows: Vec<[f32; CARDS]> = turn
            .plays
            .iter()
            .map(|p| {
                let mut row = [0.0; CARDS];
                write_cards(p.cards, &mut row);
                row
            })
            .collect();
        self.nets.of(obs.role).q_values(&obs, &rows)
    }
}

impl Agent for DouzeroAgent {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        // The first of equal values, as numpy's argmax in DouZero's DeepAgent.
        crate::search::argmax(&self.q_values(turn))
    }
    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        Some(self.q_values(turn).into_iter().map(Candidate::value).collect())
    }
}
