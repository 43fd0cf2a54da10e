//! What actors send: each decision of a learning seat, labelled at the game's end with the final
//! reward of that seat's side (farmers share theirs). No intermediate rewards.

use super::config::RewardConfig;
use crate::game::{Role, State};

/// One learned decision: state features, the chosen play's features, and its target.
#[derive(Clone, Debug)]
pub struct Frame {
    pub state: Vec<f32>,
    pub action: Vec<f32>,
    pub target: f32,
    pub role: Role,
}

/// A decision recorded during the game, before the result is known.
#[derive(Clone, Debug)]
pub struct Decision {
    pub seat: u8,
    pub state: Vec<f32>,
    pub action: Vec<f32>,
}

/// The reward of `seat` in a finished game: its return (±1, or points in score mode), plus the
/// speed bonus for a winner.
pub fn reward(state: &State, seat: u8, cfg: &RewardConfig) -> f32 {
    let r = state.returns()[seat as usize] as f32;
    if r > 0.0 { r + cfg.speed_bonus } else { r }
}

/// Labels every decision with the final reward of its seat's side.
pub fn label(decisions: Vec<Decision>, finished: &State, cfg: &RewardConfig) -> Vec<Frame> {
    assert!(finished.is_terminal(), "label a finished game");
    decisions
        .into_iter()
        .map(|d| Frame {
            target: reward(finished, d.seat, cfg),
            role: finished.role(d.seat).expect("a played game has a landlord"),
            state: d.state,
            action: d.action,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{ACTION_DIM, STATE_DIM, encode_action, encode_state};
    use crate::game::{GameConfig, MoveList, Scoring};
    use rand::{RngExt, SeedableRng, rngs::SmallRng};

    fn play_recording(seed: u64, scoring: Scoring) -> (State, Vec<Decision>) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut s = State::new(GameConfig { scoring, ..GameConfig::default() });
        s.deal_random(&mut rng);
        let mut plays = MoveList::new();
        let mut decisions = Vec::new();
        while !s.is_terminal() {
            s.legal_plays_into(&mut plays);
            let seat = s.current_player().unwrap();
            let p = plays[rng.random_range(0..plays.len())];
            let mut st = vec![0.0; STATE_DIM];
            encode_state(&s, seat, &mut st);
            let mut a = vec![0.0; ACTION_DIM];
            encode_action(&p, s.hand(seat), &mut a);
            decisions.push(Decision { seat, state: st, action: a });
            s.apply_play(p).unwrap();
        }
        (s, decisions)
    }

    #[test]
    fn every_decision_gets_its_sides_final_reward() {
        for seed in 0..20 {
            let (s, decisions) = play_recording(seed, Scoring::WinLoss);
            let n = decisions.len();
            let frames = label(decisions, &s, &RewardConfig::default());
            assert_eq!(frames.len(), n);
            let landlord_won = s.winner() == s.landlord();
            for f in &frames {
                let side_won = (f.role == Role::Landlord) == landlord_won;
                assert_eq!(f.target, if side_won { 1.0 } else { -1.0 });
            }
            let farmer_targets: Vec<f32> = frames.iter().filter(|f| f.role.is_farmer()).map(|f| f.target).collect();
            assert!(farmer_targets.windows(2).all(|w| w[0] == w[1]), "farmers share their result");
        }
    }

    #[test]
    fn score_mode_and_speed_bonus() {
        let (s, decisions) = play_recording(3, Scoring::Score);
        let cfg = RewardConfig { scoring: Scoring::Score, speed_bonus: 0.1 };
        let frames = label(decisions, &s, &cfg);
        let m = s.multiplier() as f32;
        for f in frames {
            let base = if f.role == Role::Landlord { 2.0 * m } else { m };
            assert!((f.target.abs() - base).abs() < 1e-6 || (f.target - (base + 0.1)).abs() < 1e-6, "{} vs {base}", f.target);
        }
    }
}
