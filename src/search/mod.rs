//! Search over the game tree, on top of the engine.
//!
//! - [`solver`]: the exact solver of open-hand positions (alpha-beta on won/lost with a
//!   transposition table), for endgames and puzzles.
//! - [`game`]: the State API that search needs, as a trait.
//! - [`evaluator`]: what values a search's leaves (a rollout, a network), as a trait.
//! - [`ismcts`]: information-set Monte Carlo tree search over worlds drawn from what a player
//!   knows, generic in the game.
//! - [`alphabeta`]: depth-limited alpha-beta over one world with a static evaluation.

pub mod alphabeta;
pub mod evaluator;
pub mod game;
pub mod ismcts;
pub mod solver;

pub use alphabeta::{AlphaBeta, AlphaBetaSettings, ordered};
pub use evaluator::{Evaluation, Evaluator};
pub use game::SearchState;
pub use ismcts::{CandidateStats, FinalChoice, Ismcts, IsmctsSettings, Keying, SearchResult};
pub use solver::{Position, PositionError, Solution, Solver};
