//! The networks, their arithmetic and their files: the only part of ddz, with `runtime`, that
//! knows tch.
//!
//! - [`qnet`]: the Q network, Q(s, a) for all legal plays of a decision in one pass.
//! - [`weights`]: weights files (safetensors), written atomically and checked on load.
//! - [`learner`]: the DMC update (MSE to the label) and its optimizer.
//! - [`imitation`]: the pretraining update (cross-entropy over a decision's legal plays).
//! - [`bidnet`]: the bidding network (Q of each bid) and its DMC update.
//! - [`evaluator`]: the hand evaluator (a hand to the landlord's chance and points) and its update.

pub mod bidnet;
pub mod douzero;
pub mod evaluator;
pub mod imitation;
pub mod learner;
pub mod qnet;
pub mod weights;

pub use imitation::{ChoiceBatch, Imitation};
pub use learner::{Frame, Learner, LearnerError, LearnerSettings, Optimizer, StepStats};
pub use qnet::{HistoryEncoder, ModelConfig, ModelError, QNet, Values, Weights};
pub use weights::{
    WeightsError, init_weights_from, load_network, load_weights_file, save_weights_file, weights_from_bytes,
    weights_to_bytes,
};
