//! ddz-play: everything that plays Dou Dizhu with the ddz agents and networks, and no
//! libtorch: the networks decide through `ddz-nets`.
//!
//! The packages below it (re-exported here): `ddz-engine` (`cards`, `game`, `encode`, and the
//! small shared parts `lines`, `files`, `limits`, `seeds`, `error`), `ddz-agents` (the `Agent`
//! trait, the game loop, the agents without networks, `search`) and `ddz-nets` (the networks'
//! forward passes, as `nets`).
//!
//! Layers of this package, each using only the ones listed before it:
//! - `scripts`, `process`: the Python interpreter and scripts folder; stopping on signals.
//! - `run`: the run folder that training writes and evaluation reads.
//! - `agents`: the network and search agents, and agents by name.
//! - `eval`, `logs` (game logs: formats, import, checks), `export` (networks as ONNX), and the
//!   tools `bot`, `moves`, `solve`, `replay`: none uses another.
//! - `play`: a person against two agents (the session the terminal game and the web page share);
//!   `decisions`: key-decision checks of an agent.
//! - `serve`: the web page and its JSON API.
//! - `bench`: times the engine, the search agents and the web server.

// Every public item says what it is for; clippy's -D warnings (scripts/test) keeps it so.
#![warn(missing_docs)]

pub use ddz_agents::search;
pub use ddz_engine::{cards, encode, error, files, game, limits, lines, seeds};
pub use ddz_nets as nets;

pub mod agents;
pub mod bench;
pub mod bot;
pub mod decisions;
pub mod eval;
pub mod export;
pub mod logs;
pub mod moves;
pub mod play;
pub mod process;
pub mod replay;
pub mod review;
pub mod run;
pub mod scripts;
pub mod serve;
pub mod solve;
