//! ddz: Deep Monte Carlo training of Dou Dizhu agents, their evaluation, search agents, play
//! and the tools around them — the command line, and this facade over the packages:
//!
//! - `ddz-engine`, `ddz-agents`, `ddz-nets`: the rules, the agents without networks and
//!   search, the networks' torch-free forward passes.
//! - `ddz-play`: everything that plays (evaluation, the ladder, bots, the web server), with no
//!   libtorch; all of its modules are re-exported here.
//! - `ddz-learn`: training on libtorch (`model`, `train`, `pretrain`, `hands`, `inference`,
//!   `checkpoint`, `runtime`, and `bench` with the training benches), with the `learn`
//!   feature (on by default; the torch-free player is built without it).

pub use ddz_play::*;

// The one switch between the player and the trainer, with the CLI's command table.
#[cfg(feature = "learn")]
pub use ddz_learn::{bench, checkpoint, hands, inference, model, pretrain, runtime, train};
