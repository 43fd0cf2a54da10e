//! ddz-learn: Deep Monte Carlo training of the ddz networks on libtorch, and the tools that
//! learn: pretraining from logs, the hand evaluator; the only package that links libtorch.
//! Everything that plays is `ddz-play`'s, re-exported here, so that `crate::agents` and the
//! like name it.
//!
//! Layers of this package, each using only the ones listed before it:
//! - `runtime`, `model`: the only modules that know tch (devices and threads; networks, their
//!   updates and their files).
//! - `checkpoint`: a run's checkpoints written and read back with the trainer's networks.
//! - `train`, `pretrain`, `hands`, `inference` (the torch-free networks checked against
//!   libtorch): none uses another.
//! - `bench`: times the trainer and the two forward passes.

// Every public item says what it is for; clippy's -D warnings (scripts/test) keeps it so.
#![warn(missing_docs)]

pub use ddz_play::*;

pub mod bench;
pub mod checkpoint;
pub mod hands;
pub mod inference;
pub mod model;
pub mod pretrain;
pub mod runtime;
pub mod train;
