//! Seeds derived from seeds, in one place.
//!
//! A job seeded once (a run, an evaluation, a session) hands seeds on to its parts: each game,
//! each deal, each agent of a pair. Two parts seeded alike would draw the same numbers (two
//! agents of one game making correlated choices, two deals alike), so each part takes its own
//! [`Stream`] of the job's seed, or its own index in it ([`nth`]). The values are part of the
//! file formats and reports (a run's deals, a report's games): they never change.

/// A part of a job with a stream of random numbers of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream(u64);

impl Stream {
    /// The second agent of a pair reset with one seed (the field against a lone agent, the
    /// random agent of a benchmark, the PIMC half of `auto:`).
    pub const SECOND: Stream = Stream(0x5eed);
    /// The ISMCTS half of `auto:`.
    pub const THIRD: Stream = Stream(0xface);
    /// In-process actors' draws of their opponents.
    pub const ACTORS: Stream = Stream(0xac70);
    /// The bidding learner of a run.
    pub const BIDDING: Stream = Stream(0xb1d);
    /// Deals dealt again after everyone passed, in bidding evaluations.
    pub const REDEALS: Stream = Stream(0xdea1);
    /// The positions of the advice benchmark.
    pub const ADVICE: Stream = Stream(0xad);
    /// Laizi's wild rank, drawn after the bidding.
    pub const WILD: Stream = Stream(0x1a121);
}

/// The seed of `stream` in a job seeded with `seed`.
pub fn of(seed: u64, stream: Stream) -> u64 {
    seed ^ stream.0
}

/// The seed of part `index` of a job seeded with `seed` (splitmix64 of the pair: nearby
/// indices give unrelated seeds).
pub fn nth(seed: u64, index: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of deal `index` of a deal set seeded with `seed`.
pub fn deal(seed: u64, index: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index
}

/// The seed of the `n`th deal dealt again in a session seeded with `seed` (after everyone
/// passed).
pub fn redeal(seed: u64, n: u64) -> u64 {
    seed.wrapping_add(n.wrapping_mul(0x9E37_79B9))
}

/// The seed of a text (FNV-1a): a request answered twice is answered alike.
pub fn of_text(text: &str) -> u64 {
    text.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01B3))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values are in run folders and reports: a change here would change them all.
    #[test]
    fn seeds_are_what_they_always_were() {
        assert_eq!(of(7, Stream::SECOND), 7 ^ 0x5eed);
        // splitmix64 as computed outside Rust.
        assert_eq!(nth(0, 0), 0x8209_b480_faed_1b10);
        assert_eq!(nth(3, 5), 0x224e_1109_869b_c2cf);
        assert_eq!(deal(1, 2), 0x9E37_79B9_7F4A_7C15 ^ 2);
        assert_eq!(of_text(""), 0xCBF2_9CE4_8422_2325);
        assert_eq!(redeal(5, 2), 5 + 2 * 0x9E37_79B9);
        assert_ne!(nth(1, 0), nth(1, 1));
    }
}
