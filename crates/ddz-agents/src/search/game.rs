//! What search needs from a game: the OpenSpiel-shaped State API, as a trait, so that
//! [`super::ismcts`] touches nothing else and runs on any game that provides it. Dou Dizhu's
//! [`State`] is one implementation.

use ddz_engine::game::{Action, Seat, State};

/// The returns of `state` for the seats of its table, one entry each (the engine's per-seat
/// array keeps an empty slot for a third seat at a table of two).
pub fn table_returns(state: &State) -> Vec<f64> {
    state.returns()[..state.table().len()].to_vec()
}

/// A game state as search sees it: players, chance, legal actions, returns and resampling
/// from a player's information.
pub trait SearchState: Clone {
    /// A move of the game (a chance outcome included).
    type Action: Copy + Eq + std::hash::Hash + std::fmt::Debug;
    /// How many players the game has.
    fn num_players(&self) -> usize;
    /// The player to act; `None` at chance and terminal nodes.
    fn current_player(&self) -> Option<usize>;
    /// Whether the game is over.
    fn is_terminal(&self) -> bool;
    /// Whether chance moves next (a card is dealt).
    fn is_chance_node(&self) -> bool;
    /// Outcomes of a chance node with their probabilities.
    fn chance_outcomes(&self) -> Vec<(Self::Action, f64)>;
    /// The current player's legal actions, in a fixed order.
    fn legal_actions(&self) -> Vec<Self::Action>;
    /// Applies a legal action (search only applies actions the state listed).
    fn apply_action(&mut self, action: Self::Action);
    /// The final returns by player (meaningful at terminal states).
    fn returns(&self) -> Vec<f64>;
    /// A state that `player` cannot tell from this one, drawn with `rng` (f64 in [0, 1)).
    fn resample_from_infostate(&self, player: usize, rng: &mut dyn FnMut() -> f64) -> Self;
    /// A key of what `player` knows here: equal for states the player cannot tell apart.
    fn information_state_key(&self, player: usize) -> u64;
}

impl SearchState for State {
    type Action = Action;
    fn num_players(&self) -> usize {
        self.table().len()
    }
    fn current_player(&self) -> Option<usize> {
        State::current_player(self).map(usize::from)
    }
    fn is_terminal(&self) -> bool {
        State::is_terminal(self)
    }
    fn is_chance_node(&self) -> bool {
        State::is_chance_node(self)
    }
    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        State::chance_outcomes(self).unwrap_or_default()
    }
    fn legal_actions(&self) -> Vec<Action> {
        State::legal_actions(self)
    }
    fn apply_action(&mut self, action: Action) {
        // Search applies only the actions it was listed; a bug elsewhere still stops here.
        State::apply_action(self, action)
    }
    fn returns(&self) -> Vec<f64> {
        table_returns(self)
    }
    fn resample_from_infostate(&self, player: usize, rng: &mut dyn FnMut() -> f64) -> State {
        State::resample_from_infostate(self, Seat::ALL[player], rng)
    }
    fn information_state_key(&self, player: usize) -> u64 {
        ddz_engine::game::View::of(self, Seat::ALL[player]).information_state_key()
    }
}
