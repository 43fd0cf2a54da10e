//! ddz-agents: Dou Dizhu players and search over the `ddz-engine` rules, without networks.
//!
//! - [`agents`]: the [`agents::Agent`] trait (a seat's decisions), the one game loop
//!   ([`agents::play_out`]), and the agents that need no network: random, the rule agent and
//!   its bidder, and a bot program behind a pipe.
//! - [`search`]: the searches, generic over small traits (a policy, a leaf evaluator, an
//!   opponent model) so that any player can drive them: the exact open-hand solver, PIMC,
//!   ISMCTS and alpha-beta, with worlds drawn from what a seat knows.
//!
//! The `ddz` crate adds the networks (libtorch) and the agents built on them.

#![deny(missing_docs)]

pub mod agents;
pub mod search;
