//! Deal curation, after DouZero+'s "coach": the shipped hand evaluator says how likely the
//! landlord is to win a deal from its 20 cards; a deal it calls near-certain either way is played
//! only with probability `curation.keep`, and the next deal is dealt in its place. The learner
//! then sees more of the decisions that decide games, and fewer from games decided by the deal.
//! The skipped deals' indices are used up, so a run stays reproducible deal by deal.

use super::config::CurationConfig;
use crate::encode::{HAND_DIM, encode_hand};
use crate::game::State;
use crate::model::WeightsError;
use crate::model::evaluator::HandNet;
use rand::RngExt;
use rand::rngs::SmallRng;

/// The evaluator and the thresholds of `[curation]`.
pub struct Curator {
    net: HandNet,
    certain: f32,
    keep: f64,
    features: Vec<f32>,
}

impl Curator {
    /// The curator `cfg` asks for: None when `curation.evaluator` is empty; an error names the
    /// evaluator's file when it does not load.
    pub fn load(cfg: &CurationConfig) -> Result<Option<Curator>, WeightsError> {
        if cfg.evaluator.as_os_str().is_empty() {
            return Ok(None);
        }
        let net = HandNet::load(&cfg.evaluator)?;
        Ok(Some(Curator { net, certain: cfg.certain as f32, keep: cfg.keep, features: vec![0.0; HAND_DIM] }))
    }

    /// The landlord's chance of winning a freshly dealt fixed-landlord game, by the evaluator.
    pub fn landlord_win_chance(&mut self, state: &State) -> f32 {
        let Some(landlord) = state.landlord() else { return 0.5 };
        let bottom = state.bottom().counts();
        let mut hand = state.hand(landlord);
        if hand.len() < 20 {
            hand = hand.plus(bottom); // the bottom not yet taken up
        }
        encode_hand(hand, Some(bottom), &mut self.features);
        self.net.predict(&self.features)[0].win
    }

    /// Whether the evaluator calls the deal near-certain, either way.
    pub fn near_certain(&mut self, state: &State) -> bool {
        let p = self.landlord_win_chance(state);
        p >= self.certain || p <= 1.0 - self.certain
    }

    /// Whether to skip this deal: a near-certain one, unless the `keep` draw keeps it.
    pub fn skips(&mut self, state: &State, rng: &mut SmallRng) -> bool {
        self.near_certain(state) && rng.random::<f64>() >= self.keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameConfig, generate_deals};
    use rand::SeedableRng;
    use std::path::{Path, PathBuf};

    fn shipped() -> CurationConfig {
        let evaluator =
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("models/hand-evaluator/model.safetensors");
        CurationConfig { evaluator, certain: 0.75, keep: 0.25 }
    }

    #[test]
    fn the_shipped_evaluator_calls_some_deals_near_certain_and_keep_keeps_a_share() {
        let mut curator = Curator::load(&shipped()).unwrap().unwrap();
        let mut rng = SmallRng::seed_from_u64(3);
        let (mut certain, mut skipped, mut low, mut high) = (0, 0, 0, 0);
        for deal in generate_deals(2000, 17) {
            let mut state = State::new(GameConfig::default());
            state.deal_hands_unchecked(deal.hands, deal.bottom); // a generated deal is valid
            let p = curator.landlord_win_chance(&state);
            assert!((0.0..=1.0).contains(&p));
            (low, high) = (low + (p <= 0.25) as u32, high + (p >= 0.75) as u32);
            certain += curator.near_certain(&state) as u32;
            skipped += curator.skips(&state, &mut rng) as u32;
        }
        assert!(low > 20 && high > 20, "both ways: {low} low, {high} high of 2000");
        assert_eq!(certain, low + high);
        // About three quarters of the near-certain deals are skipped.
        let share = skipped as f64 / certain as f64;
        assert!((0.65..0.85).contains(&share), "{skipped} of {certain} skipped");
    }

    #[test]
    fn no_evaluator_no_curator_and_a_missing_file_is_named() {
        let off = CurationConfig { evaluator: PathBuf::new(), ..shipped() };
        assert!(Curator::load(&off).unwrap().is_none());
        let missing = CurationConfig { evaluator: PathBuf::from("/nonexistent/evaluator.safetensors"), ..shipped() };
        let e = Curator::load(&missing).err().unwrap().to_string();
        assert!(e.contains("/nonexistent/evaluator.safetensors"), "{e}");
    }
}
