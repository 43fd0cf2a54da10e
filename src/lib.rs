//! ddz: a Dou Dizhu engine and Deep Monte Carlo trainer.
//!
//! Layers, each using only the ones above it: `cards` and `game` (the engine, no tensors),
//! `encode` (game facts to features), `runtime` (libtorch settings), and the tools (`moves`,
//! `bench`).

pub mod bench;
pub mod cards;
pub mod encode;
pub mod game;
pub mod moves;
pub mod runtime;
