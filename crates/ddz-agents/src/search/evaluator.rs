//! What values the leaves of a search: the trait every search here (ISMCTS, alpha-beta) takes
//! its leaf values and action orders from, and what it answers.

use super::game::SearchState;

/// What an evaluator says of a non-terminal decision state.
pub struct Evaluation {
    /// The state's value for each player.
    pub values: Vec<f64>,
    /// An estimate of each given action's value for the player to act, when the evaluator has
    /// one (a Q network): PUCT priors and first values of the children.
    pub action_values: Option<Vec<f64>>,
}

/// Values the leaves of a search: a rollout, or a network's values of the state and its
/// actions.
pub trait Evaluator<S: SearchState> {
    /// Values `state`, whose player to act has `actions` (its legal actions in this world).
    fn evaluate(&mut self, state: &S, actions: &[S::Action]) -> Evaluation;
    /// Only what orders `actions`, best first (higher is better), for searches that value the
    /// state elsewhere: an evaluator whose state value is costly (a rollout, a network playing
    /// on) answers this without computing it.
    fn action_order(&mut self, state: &S, actions: &[S::Action]) -> Option<Vec<f64>> {
        self.evaluate(state, actions).action_values
    }
}
