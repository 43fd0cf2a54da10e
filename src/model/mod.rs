//! The Q network and its checkpoints: the only part of ddz that knows tch.

pub mod checkpoint;
pub mod qnet;

pub use checkpoint::{CheckpointError, init_weights_from, load_network, load_weights_file, save_weights_file};
pub use qnet::{ModelConfig, QNet, Weights};
