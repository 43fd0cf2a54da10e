//! ddz: a Dou Dizhu engine and Deep Monte Carlo trainer.
//!
//! Layers, each using only the ones listed before it:
//! - `lines`: input decoded line by line (bad bytes make one bad line).
//! - `cards`, `game`: the engine (plays, move generation, the state, fixed deals); no tensors.
//! - `search`: search over the game tree (the exact open-hand solver).
//! - `encode`: game facts to features.
//! - `runtime`, `model`: the only modules that know tch (devices and threads; networks, their
//!   updates and their files).
//! - `run`: the run folder that training writes and evaluation reads.
//! - `agents`: the `Agent` trait, the agents, agents by name, and the one game loop.
//! - `train`, `eval`, `pretrain`, and the tools `bot`, `moves`, `solve`, `replay`: none uses
//!   another.
//! - `play`: a person against two agents (the session the terminal game and the web page share).
//! - `serve`: the web page and its JSON API.
//! - `bench`: times the engine, the trainer, the search agents and the web server.

pub mod agents;
pub mod bench;
pub mod bot;
pub mod cards;
pub mod encode;
pub mod eval;
pub mod game;
pub mod lines;
pub mod model;
pub mod moves;
pub mod play;
pub mod pretrain;
pub mod replay;
pub mod run;
pub mod runtime;
pub mod search;
pub mod serve;
pub mod solve;
pub mod train;
