//! Search over the game tree, on top of the engine: the searches themselves, generic over what
//! they ask of players ([`Policy`]: a network's Q and greedy play; [`Evaluator`]: a position's
//! value; [`OpponentModel`]: the play another player makes), so that no search names an agent.
//! The agents layer above pairs them with its networks and agents, as thin search agents.
//!
//! - [`solver`]: the exact solver of open-hand positions (alpha-beta on won/lost with a
//!   transposition table), for endgames and puzzles.
//! - [`best_response`]: the clairvoyant best response to a policy known in full (expectimax
//!   over open-hand positions): the most any agent can win against that policy.
//! - [`exploit`]: search against a policy known in full: worlds by the chance it had of its
//!   plays, candidates scored by the best response to it in each.
//! - [`game`]: the State API that search needs, as a trait.
//! - [`policy`]: the policy and opponent-model traits, and batched rollouts over them.
//! - [`evaluator`]: what values a search's leaves, as a trait; [`leaf`]: its evaluators (a
//!   policy's value, rollouts, the hand-shape heuristic).
//! - [`belief`]: worlds drawn from what a player knows, weighed by the other seats' plays
//!   under the policy or an opponent model, and Metropolis chains toward either.
//! - [`average`]: candidates' scores averaged over sampled worlds.
//! - [`pimc`]: perfect-information Monte Carlo, exact in the endgame, rollouts before.
//! - [`ismcts`]: information-set Monte Carlo tree search over worlds drawn from what a player
//!   knows, generic in the game.
//! - [`alphabeta`]: depth-limited alpha-beta over one world with a static evaluation, and its
//!   mean over drawn worlds.

pub mod alphabeta;
pub mod average;
pub mod belief;
pub mod best_response;
pub mod budget;
pub mod evaluator;
pub mod exploit;
pub mod game;
pub mod ismcts;
pub mod leaf;
pub mod pimc;
pub mod policy;
pub mod solver;

pub use alphabeta::{AlphaBeta, AlphaBetaSettings, ordered};
pub use average::WorldMeans;
pub use belief::{Belief, MISMATCH};
pub use best_response::{BestResponse, KnownPolicy, Side};
pub use budget::{Budget, Deadline};
pub use evaluator::{Evaluation, Evaluator};
pub use exploit::ExploitSearch;
pub use game::SearchState;
pub use ismcts::{CandidateStats, FinalChoice, Ismcts, IsmctsSettings, Keying, SearchResult};
pub use leaf::{HandShapeLeaf, Leaf, NetworkLeaf, RolloutLeaf, plays_of};
pub use pimc::PimcSearch;
pub use policy::{Greedy, OpponentModel, Policy, argmax, rollouts};
pub use solver::{Position, PositionError, Solution, Solver};
