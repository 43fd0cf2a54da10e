//! ddz-engine: the rules of Dou Dizhu (斗地主), fast, without tensors or search.
//!
//! - [`cards`]: cards, ranks and the compact card sets the engine runs on.
//! - [`game`]: plays and their categories, the action table (27,471 plays and `pass`), move
//!   generation, the game state (bidding, play, scoring), fixed deals and deal files; laizi
//!   (wild cards) beside the standard rules in [`game::laizi`].
//! - [`encode`]: the game facts a network reads, as features (state and action planes).
//! - [`lines`], [`files`], [`limits`], [`seeds`], [`error`]: input read line by line, files
//!   written whole or not at all, the ranges of every user setting, derived seeds, and what lies
//!   under an error.
//!
//! The standard rules, checked against an independent implementation's action space and legal
//! plays (`tests/data/`):
//!
//! ```
//! use ddz_engine::game::{Kind, Play};
//!
//! let chain = Play::parse("34567").unwrap();
//! assert_eq!((chain.kind, chain.len), (Kind::SoloChain, 5));
//! assert!(Play::parse("45678").unwrap().beats(&chain));
//! assert!(!Play::parse("456789").unwrap().beats(&chain)); // a longer chain is another type
//! assert!(Play::parse("2222").unwrap().beats(&chain)); // a bomb beats any non-bomb
//! assert!(Play::parse("BR").unwrap().beats(&Play::parse("2222").unwrap())); // the rocket, all
//! assert!(Play::parse("333345").is_ok()); // four with two solos …
//! assert!(Play::parse("3333BR").is_err()); // … but the rocket is never two kickers
//! ```

#![deny(missing_docs)]

pub mod cards;
pub mod encode;
pub mod error;
pub mod files;
pub mod game;
pub mod limits;
pub mod lines;
pub mod seeds;
