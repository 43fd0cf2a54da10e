//! Helpers shared by the integration tests.
#![allow(dead_code)]

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
        state.apply_action(a).expect("a legal action applies");
    }
}
