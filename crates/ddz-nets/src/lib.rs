//! The ddz networks without libtorch: every network the trainer saves (the Q network with each
//! of its switches, the bidding network, the hand evaluator) and DouZero's, read straight from
//! their safetensors files and computed by hand-written layers ([`kernels`]).
//!
//! What plays decides through here; libtorch (in the `ddz` package's `model`) is only where
//! gradients are. The two compute the same function: `ddz check-inference MODEL` and the tests
//! compare them on self-play positions.
//!
//! - [`config`]: a network's sizes and switches, read from its tensors' names and shapes.
//! - [`weights`]: weights in memory and in safetensors files.
//! - [`kernels`]: dense layers by the rows of non-zero inputs or by sgemm; the LSTM.
//! - [`qnet`]: the Q network.
//! - [`small`]: the bidding network, the hand evaluator, DouZero's networks.

#![warn(missing_docs)]

pub mod config;
pub mod kernels;
pub mod qnet;
pub mod small;
pub mod weights;

pub use config::{FEATURE_LAYOUT, HistoryEncoder, ModelConfig, NetError};
pub use qnet::{QNetwork, QValues, Values};
pub use small::{BIDS, BidNetwork, DouzeroNetwork, HandNetwork, HandValue};
pub use weights::{Weights, WeightsError};
