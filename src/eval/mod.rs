//! Evaluation on fixed deals: every deal played twice, A as landlord against B as farmers and
//! B as landlord against A as farmers.

pub mod deals;

pub use deals::{Deal, generate_deals};

use crate::agents::Agent;
use crate::game::{GameConfig, MoveList, Scoring, State};
use serde::Serialize;

/// The outcome of one game from the landlord's side.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GameOutcome {
    pub landlord_won: bool,
    /// Points for the landlord's side per farmer stake: ±2^(bombs+rockets) (× 2 spring).
    pub landlord_points: f64,
    pub illegal_plays: u32,
}

/// Plays one deal: `landlord` in seat 0, `farmers` in seats 1 and 2.
pub fn play_deal(deal: &Deal, landlord: &mut dyn Agent, farmers: &mut dyn Agent) -> GameOutcome {
    let config = GameConfig { scoring: Scoring::Score, ..GameConfig::default() };
    let mut state = State::new(config);
    state.deal_hands(deal.hands, deal.bottom).expect("a generated deal is valid");
    let mut plays = MoveList::new();
    let mut illegal = 0;
    while !state.is_terminal() {
        state.legal_plays_into(&mut plays);
        let seat = state.current_player().unwrap();
        let agent: &mut dyn Agent = if seat == 0 { &mut *landlord } else { &mut *farmers };
        let i = agent.choose(&state, &plays);
        let play = match plays.get(i) {
            Some(p) => *p,
            None => {
                illegal += 1;
                plays[0]
            }
        };
        state.apply_play(play).expect("a generated play is legal");
    }
    let r = state.returns();
    GameOutcome { landlord_won: state.winner() == Some(0), landlord_points: r[0] / 2.0, illegal_plays: illegal }
}

/// Win rate and average points for one seating.
#[derive(Clone, Debug, Serialize)]
pub struct SeatingResult {
    pub games: usize,
    pub wp: f64,
    pub adp: f64,
    pub illegal_plays: u32,
}

/// A against B on every deal, both seatings: (A as landlord, A as farmers), from A's side.
pub fn head_to_head(deals: &[Deal], a: &mut dyn Agent, b: &mut dyn Agent) -> (SeatingResult, SeatingResult) {
    let mut as_landlord = Vec::new();
    let mut as_farmers = Vec::new();
    for deal in deals {
        as_landlord.push(play_deal(deal, a, b));
        as_farmers.push(play_deal(deal, b, a));
    }
    let summarise = |games: &[GameOutcome], a_is_landlord: bool| {
        let n = games.len().max(1) as f64;
        let sign = if a_is_landlord { 1.0 } else { -1.0 };
        SeatingResult {
            games: games.len(),
            wp: games.iter().filter(|g| g.landlord_won == a_is_landlord).count() as f64 / n,
            adp: games.iter().map(|g| sign * g.landlord_points).sum::<f64>() / n,
            illegal_plays: games.iter().map(|g| g.illegal_plays).sum(),
        }
    };
    (summarise(&as_landlord, true), summarise(&as_farmers, false))
}
