//! Uniformly random over the legal plays.

use super::{Agent, Turn};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// A player that picks uniformly among the legal plays, from seeded draws.
pub struct RandomAgent {
    rng: SmallRng,
}

impl RandomAgent {
    /// An agent whose draws start from `seed` (each game reseeds it through `reset`).
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent { rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { plays, .. } = turn;
        self.rng.random_range(0..plays.len())
    }
    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }
    /// Any legal play is a random agent's play, under every rule set.
    fn plays_rules(&self, _: ddz_engine::game::Rules) -> Result<(), crate::agents::Unplayable> {
        Ok(())
    }
}
