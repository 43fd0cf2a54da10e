//! Linking libtorch for the `ddz` binary and its tests: the same as the learning package's
//! (its build script, included), which does nothing when the `learn` feature is off.
include!("crates/ddz-learn/build.rs");
