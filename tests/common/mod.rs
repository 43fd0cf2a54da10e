//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ddz::game::Seat;
use std::path::PathBuf;

/// The engine's conformance data (`crates/ddz-engine/tests/data/`), which `ddz moves` is checked
/// against too.
pub fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crates/ddz-engine/tests/data")
}

/// Sets the library's interpreter and scripts to the checkout's venv and `scripts/` (what the CLI
/// sets by default), installing `packages` into the venv first when it fails `import_check`.
pub fn checkout_scripts(import_check: &str, packages: &[&str]) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scripts = ddz::scripts::Scripts::new(root.join(".venv/bin/python"), root.join("scripts"));
    if !scripts.has(import_check) && !packages.is_empty() {
        let pip = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check"];
        let installed = std::process::Command::new(scripts.python()).args(pip).args(packages).status();
        assert!(installed.is_ok_and(|s| s.success()), "installing {packages:?}");
    }
    ddz::scripts::configure(scripts).expect("one setting for every test of the binary");
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
