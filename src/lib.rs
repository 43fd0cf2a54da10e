//! ddz: a Dou Dizhu engine and Deep Monte Carlo trainer.
//!
//! Layers, each using only the ones above it: `cards` and `game` (the engine, no tensors),
//! `encode` (game facts to features), `runtime` and `model` (the only modules that know tch),
//! `agents`, then `train` and `eval`, and the tools (`moves`, `bench`).

pub mod agents;
pub mod bench;
pub mod bot;
pub mod cards;
pub mod encode;
pub mod eval;
pub mod game;
pub mod model;
pub mod moves;
pub mod pretrain;
pub mod replay;
pub mod runtime;
pub mod train;
