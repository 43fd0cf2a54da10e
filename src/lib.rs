//! ddz: a Dou Dizhu engine and Deep Monte Carlo trainer.
//!
//! Layers, each using only the ones listed before it:
//! - `lines`: input decoded line by line (bad bytes make one bad line); `error`: what lies under
//!   an error.
//! - `cards`, `game`: the engine (plays, move generation, the state, fixed deals); no tensors.
//! - `search`: search over the game tree (the exact open-hand solver).
//! - `encode`: game facts to features.
//! - `runtime`, `model`: the only modules that know tch (devices and threads; networks, their
//!   updates and their files).
//! - `run`: the run folder that training writes and evaluation reads.
//! - `agents`: the `Agent` trait, the agents, agents by name, and the one game loop.
//! - `train`, `eval`, `pretrain`, and the tools `bot`, `moves`, `solve`, `replay`: none uses
//!   another.
//! - `play`: a person against two agents (the session the terminal game and the web page share);
//!   `decisions`: key-decision checks of an agent.
//! - `serve`: the web page and its JSON API.
//! - `bench`: times the engine, the trainer, the search agents and the web server.

// Every public item says what it is for; clippy's -D warnings (scripts/test) keeps it so.
#![warn(missing_docs)]

pub mod agents;
#[cfg(feature = "torch")]
pub mod bench;
#[cfg(feature = "torch")]
pub mod bot;
pub mod cards;
#[cfg(feature = "torch")]
pub mod decisions;
pub mod encode;
pub mod error;
#[cfg(feature = "torch")]
pub mod eval;
pub mod files;
pub mod game;
#[cfg(feature = "torch")]
pub mod hands;
pub mod limits;
pub mod lines;
#[cfg(feature = "torch")]
pub mod model;
pub mod moves;
#[cfg(feature = "torch")]
pub mod play;
#[cfg(feature = "torch")]
pub mod pretrain;
#[cfg(feature = "torch")]
pub mod replay;
#[cfg(feature = "torch")]
pub mod run;
#[cfg(feature = "torch")]
pub mod runtime;
pub mod search;
pub mod seeds;
#[cfg(feature = "torch")]
pub mod serve;
pub mod solve;
#[cfg(feature = "torch")]
pub mod train;
