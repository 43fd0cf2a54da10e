//! The game engine: plays, the action table, move generation, the game state and fixed deals.
//! It knows nothing of tensors.

pub mod action_table;
pub mod deals;
pub mod laizi;
pub mod movegen;
pub mod play;
pub mod resample;
pub mod seat;
pub mod spiel;
pub mod state;
pub mod structure;
pub mod view;

pub use action_table::{ActionId, ActionTable, NUM_ACTIONS};
pub use deals::{
    DEAL_SET_SIZE, Deal, DealError, DealSet, DealSource, MOST_DEALS, default_deals, first_repeat, generate_deals,
    generate_deals_for, read_deals, write_deals,
};
pub use laizi::{LaiziError, WildRank};
pub use movegen::{MoveList, legal_plays, legal_plays_vec};
pub use play::{BombTier, Kind, Play, PlayError, Wilds, classify};
pub use seat::{MAX_SEATS, Seat, SeatError, Table, TableSeatError, by_seat};
pub use state::{
    Action, ConfigError, GameConfig, GameError, MAX_ROBS, MOST_CONCEDED, Phase, PlayRecord, Role, Rules, Scoring, Slot,
    State, UnknownRules, new_initial_state,
};
pub use structure::{min_plays, prune_plays};
pub use view::{View, ViewError};
