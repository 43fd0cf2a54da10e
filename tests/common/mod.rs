//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ddz::game::Seat;
use std::path::PathBuf;

/// `../shared/conformance` beside the checkout (CI lays a copy of shared/ there).
pub fn conformance_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance");
    assert!(dir.is_dir(), "conformance data missing: {} (shared/ must sit beside the checkout)", dir.display());
    dir
}

/// A random-game driver used by several tests: plays uniformly random legal actions.
pub fn play_random(state: &mut ddz::game::State, rng: &mut impl rand::Rng) {
    use rand::RngExt;
    while !state.is_terminal() {
        let actions = state.legal_actions();
        let a = actions[rng.random_range(0..actions.len())];
        state.apply_action(a);
    }
}

/// Calls `check(real, other, plays)` at the decisions with a choice of a few seeded random games,
/// `other` being the state with the hidden hands dealt again from what the mover knows (the same
/// information for its seat); asserts that enough decisions were checked and that the hidden
/// hands differed at enough of them for the check to mean something.
pub fn at_resampled_decisions(
    seed: u64,
    mut check: impl FnMut(&ddz::game::State, &ddz::game::State, &[ddz::game::Play]),
) {
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let mut plays = ddz::game::MoveList::new();
    let (mut decisions, mut differ) = (0, 0);
    for _ in 0..3 {
        let mut s = ddz::game::State::new(Default::default());
        s.deal_random(&mut rng);
        while let Some(seat) = s.current_player() {
            s.legal_plays_into(&mut plays);
            if plays.len() > 1 {
                let other = s.resample_from_infostate(seat, &mut || rng.random::<f64>());
                differ += Seat::ALL.iter().any(|&p| other.hand(p) != s.hand(p)) as u32;
                check(&s, &other, &plays);
                decisions += 1;
            }
            s.apply_play_unchecked(plays[rng.random_range(0..plays.len())]);
        }
    }
    assert!(decisions > 20 && differ > 10, "{decisions} decisions, {differ} with other hidden hands");
}
