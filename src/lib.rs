//! ddz: Deep Monte Carlo training of Dou Dizhu agents on libtorch, their evaluation, search
//! agents, play and the tools around them.
//!
//! The packages, each using only the ones before it (Cargo holds the walls):
//! - `ddz-engine`: `cards`, `game` (the rules, the state, deals), `encode` (features), and the
//!   small shared parts `lines`, `files`, `limits`, `seeds`, `error`; re-exported here.
//! - `ddz-agents`: the `Agent` trait, the game loop, the agents without networks, and `search`;
//!   re-exported here (`agents` adds this package's agents to them).
//!
//! Layers of this package, each using only the ones listed before it:
//! - `scripts`: the Python interpreter and scripts folder, set by whoever runs the library.
//! - `runtime`, `model`: the only modules that know tch (devices and threads; networks, their
//!   updates and their files).
//! - `run`: the run folder that training writes and evaluation reads.
//! - `agents`: the network and search agents, and agents by name.
//! - `train`, `eval`, `pretrain`, `inference` (the torch-free networks checked against
//!   libtorch), and the tools `bot`, `moves`, `solve`, `replay`: none uses another.
//! - `play`: a person against two agents (the session the terminal game and the web page share);
//!   `decisions`: key-decision checks of an agent.
//! - `serve`: the web page and its JSON API.
//! - `bench`: times the engine, the trainer, the search agents and the web server.

// Every public item says what it is for; clippy's -D warnings (scripts/test) keeps it so.
#![warn(missing_docs)]

pub use ddz_agents::search;
pub use ddz_engine::{cards, encode, error, files, game, limits, lines, seeds};

pub mod agents;
pub mod bench;
pub mod bot;
pub mod decisions;
pub mod eval;
pub mod hands;
pub mod inference;
pub mod model;
pub mod moves;
pub mod play;
pub mod pretrain;
pub mod replay;
pub mod run;
pub mod runtime;
pub mod scripts;
pub mod serve;
pub mod solve;
pub mod train;
