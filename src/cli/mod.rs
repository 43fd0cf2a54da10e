//! The command line of the `ddz` binary (not of the library): its arguments, one function per
//! command that calls the library, and the reports those commands print.

pub mod args;
pub mod bench;
pub mod data;
pub mod eval;
// The trainer's commands: the `learn` feature's one place in the command line.
#[cfg(feature = "learn")]
pub mod learn;
pub mod pipe;
pub mod play;
pub mod python;
pub mod report;
