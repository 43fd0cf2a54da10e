//! ddz: a Dou Dizhu engine and Deep Monte Carlo trainer.

pub mod cards;
pub mod game;
