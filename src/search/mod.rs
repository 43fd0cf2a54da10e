//! Search over the game tree, on top of the engine.
//!
//! - [`solver`]: the exact solver of open-hand positions (alpha-beta on won/lost with a
//!   transposition table), for endgames and puzzles.

pub mod solver;

pub use solver::{Position, PositionError, Solution, Solver};
