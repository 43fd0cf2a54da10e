//! Do the torch-free networks ([`ddz_nets`]) compute what libtorch computes? The comparison
//! behind `ddz check-inference`: the same weights through both paths, on decisions drawn from
//! self-play under the network's rules, the worst absolute difference of every output and
//! whether the greedy choice is the same.

use crate::agents::model::greedy;

use crate::encode::{BID_DIM, HAND_DIM, STATE_DIM, encode_bid_state, encode_hand, encode_view};
use crate::game::{GameConfig, Phase, Rules, State, View};
use crate::model::bidnet::BidNet;
use crate::model::evaluator::HandNet;
use crate::model::{QNet, WeightsError};
use ddz_nets::{BidNetwork, HandNetwork, QNetwork, Weights};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::Serialize;
use std::path::{Path, PathBuf};

pub use crate::export::{Decision, self_play_decisions};

/// How far two paths' outputs are apart on a set of decisions.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Agreement {
    /// Decisions (or bidding decisions, or hands) compared.
    pub decisions: usize,
    /// Outputs compared (a Q per play; four bids; two per hand).
    pub outputs: usize,
    /// The largest absolute difference of any output.
    pub worst: f64,
    /// Decisions where the greedy choice differs.
    pub different_choices: usize,
}

impl Agreement {
    fn see(&mut self, a: &[f32], b: &[f32]) {
        self.outputs += a.len();
        for (x, y) in a.iter().zip(b) {
            self.worst = self.worst.max((*x as f64 - *y as f64).abs());
        }
    }
}

/// The features of a batch of decisions for a network of `layout`: the states, the plays and
/// each play's state.
fn features(net: &QNetwork, decisions: &[Decision]) -> (Vec<f32>, Vec<f32>, Vec<i64>) {
    let layout = net.config().action_layout();
    let width = layout.dim();
    let mut states = vec![0.0f32; decisions.len() * STATE_DIM];
    let (mut actions, mut owner) = (Vec::new(), Vec::new());
    for (k, (view, plays)) in decisions.iter().enumerate() {
        encode_view(view, &mut states[k * STATE_DIM..(k + 1) * STATE_DIM]);
        let context = layout.context(view);
        for p in plays.iter() {
            let at = actions.len();
            actions.resize(at + width, 0.0);
            layout.encode(p, &context, &mut actions[at..]);
            owner.push(k as i64);
        }
    }
    (states, actions, owner)
}

/// The Q network through libtorch and through the torch-free path on `decisions`, in batches
/// of `batch` decisions (1: one decision at a time, as an agent asks; more: as the trainer's
/// actors ask): every Q (and expected points) and the greedy choice of each decision.
pub fn compare_q(torch: &QNet, pure: &QNetwork, decisions: &[Decision], batch: usize) -> Agreement {
    let margin = pure.score_margin().unwrap_or(0.0);
    let mut agreement = Agreement::default();
    for chunk in decisions.chunks(batch.max(1)) {
        let (states, actions, owner) = features(pure, chunk);
        let (a, b) = (torch.values(&states, &actions, &owner), pure.values(&states, &actions, &owner));
        agreement.see(&a.q, &b.q);
        if let (Some(pa), Some(pb)) = (&a.points, &b.points) {
            agreement.see(pa, pb);
        }
        let mut at = 0;
        for (_, plays) in chunk {
            let part = at..at + plays.len();
            let pick =
                |v: &ddz_nets::Values| greedy(&v.q[part.clone()], v.points.as_ref().map(|p| &p[part.clone()]), margin);
            agreement.different_choices += (pick(&a) != pick(&b)) as usize;
            at += plays.len();
        }
        agreement.decisions += chunk.len();
    }
    agreement
}

/// Bidding decisions of self-play under `rules` (the rule bidder bids), `n` feature rows.
pub fn bidding_features(rules: Rules, n: usize, seed: u64) -> Vec<[f32; BID_DIM]> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut state = State::new(GameConfig { rules, bidding: true, ..GameConfig::default() });
        state.deal_random(&mut rng);
        while state.phase() == Phase::Bid && out.len() < n {
            let Some(seat) = state.current_player() else { break };
            let mut f = [0.0f32; BID_DIM];
            encode_bid_state(&state, seat, &mut f);
            out.push(f);
            let legal = state.legal_bids_vec();
            let bid = crate::agents::bid::rule_bid_at(&View::of(&state, seat), &legal);
            state.apply_bid_unchecked(bid);
        }
    }
    out
}

/// The bidding network through both paths on `features`: every bid's Q, and the best bid
/// among all four.
pub fn compare_bids(torch: &BidNet, pure: &BidNetwork, features: &[[f32; BID_DIM]]) -> Agreement {
    let mut agreement = Agreement::default();
    let flat = features.as_flattened();
    let (a, b) = (torch.q_values(flat), pure.q_values(flat));
    for (x, y) in a.iter().zip(&b) {
        agreement.see(x, y);
        let all = [0, 1, 2, 3];
        agreement.different_choices += (BidNet::best(x, &all) != BidNetwork::best(y, &all)) as usize;
    }
    agreement.decisions = features.len();
    agreement
}

/// Hands of random deals as the evaluator reads them: a 17-card hand, and with the bottom.
pub fn hand_features(n: usize, seed: u64) -> Vec<[f32; HAND_DIM]> {
    crate::game::generate_deals(n.div_ceil(2), seed)
        .iter()
        .flat_map(|deal| {
            let hand = deal.hands[0].counts();
            let bottom = deal.bottom.counts();
            let (mut before, mut after) = ([0.0f32; HAND_DIM], [0.0f32; HAND_DIM]);
            encode_hand(hand, None, &mut before);
            encode_hand(hand.plus(bottom), Some(bottom), &mut after);
            [before, after]
        })
        .take(n)
        .collect()
}

/// The hand evaluator through both paths on `features`: win chance and points.
pub fn compare_hands(torch: &HandNet, pure: &HandNetwork, features: &[[f32; HAND_DIM]]) -> Agreement {
    let mut agreement = Agreement::default();
    let flat = features.as_flattened();
    for (x, y) in torch.predict(flat).iter().zip(pure.predict(flat)) {
        agreement.see(&[x.win, x.points], &[y.win, y.points]);
    }
    agreement.decisions = features.len();
    agreement
}

/// One network's comparison in a [`CheckReport`].
#[derive(Clone, Debug, Serialize)]
pub struct NetworkCheck {
    /// The weights file.
    pub file: PathBuf,
    /// What it is: `q` (with its rules and batch), `bid`, `hands`, `douzero ROLE`.
    pub network: String,
    /// How far the two paths are apart.
    pub agreement: Agreement,
}

/// `ddz check-inference`: every network of a checkpoint through both paths.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// What was checked.
    pub path: PathBuf,
    /// One row per network (and batch size).
    pub networks: Vec<NetworkCheck>,
}

impl CheckReport {
    /// The largest difference of any output of any network.
    pub fn worst(&self) -> f64 {
        self.networks.iter().map(|n| n.agreement.worst).fold(0.0, f64::max)
    }
    /// Decisions whose greedy choice differs, over every network.
    pub fn different_choices(&self) -> usize {
        self.networks.iter().map(|n| n.agreement.different_choices).sum()
    }
}

/// Decision batches the Q network is compared at: one decision (an agent's question) and 16
/// (the trainer's actors ask for many games at once).
pub const CHECK_BATCHES: [usize; 2] = [1, 16];

/// Every network at `path` through libtorch and through the torch-free path, on `decisions`
/// self-play decisions (and as many bidding decisions and hands) drawn from `seed`: a
/// checkpoint folder or weights file (its Q network, and its bidding network when the folder
/// has one), a hand evaluator, a bidding network, or a DouZero checkpoint folder.
pub fn check_inference(path: &Path, decisions: usize, seed: u64) -> Result<CheckReport, WeightsError> {
    let mut networks = Vec::new();
    if path.is_dir() && !path.join("model.safetensors").is_file() {
        check_douzero(path, decisions, seed, &mut networks)?;
        return Ok(CheckReport { path: path.to_path_buf(), networks });
    }
    let file = ddz_nets::weights::weights_file(path);
    let names = Weights::read(&file)?.shapes();
    let has = |name: &str| names.iter().any(|(n, _)| n == name);
    if has("l0.weight") {
        let agreement =
            compare_hands(&HandNet::load(&file)?, &HandNetwork::load(&file)?, &hand_features(decisions, seed));
        networks.push(NetworkCheck { file, network: "hands".into(), agreement });
    } else if has("bid0.weight") {
        check_bids(&file, Rules::Standard, decisions, seed, &mut networks)?;
    } else {
        let torch = crate::model::load_network(&file)?;
        let pure = QNetwork::load(&file)?;
        let rules = pure.config().rules;
        let own = self_play_decisions(rules, decisions, seed);
        for batch in CHECK_BATCHES {
            let agreement = compare_q(&torch, &pure, &own, batch);
            networks.push(NetworkCheck {
                file: file.clone(),
                network: format!("q ({rules}, batch {batch})"),
                agreement,
            });
        }
        let bid = file.with_file_name(crate::run::BID_FILE);
        if bid.is_file() {
            check_bids(&bid, rules, decisions, seed, &mut networks)?;
        }
    }
    Ok(CheckReport { path: path.to_path_buf(), networks })
}

fn check_bids(
    file: &Path,
    rules: Rules,
    decisions: usize,
    seed: u64,
    out: &mut Vec<NetworkCheck>,
) -> Result<(), WeightsError> {
    let agreement =
        compare_bids(&BidNet::load(file)?, &BidNetwork::load(file)?, &bidding_features(rules, decisions, seed));
    out.push(NetworkCheck { file: file.to_path_buf(), network: format!("bid ({rules})"), agreement });
    Ok(())
}

/// DouZero's three networks on standard self-play decisions, each on its role's.
fn check_douzero(dir: &Path, decisions: usize, seed: u64, out: &mut Vec<NetworkCheck>) -> Result<(), WeightsError> {
    use crate::encode::douzero::{CARDS, Infoset, observe, write_cards};
    let folder = crate::agents::douzero::converted_folder(dir)?;
    let torch = crate::model::douzero::DouzeroNets::load(&folder)?;
    let own = self_play_decisions(Rules::Standard, decisions, seed);
    for role in crate::game::Role::ALL {
        let file = folder.join(format!("{}.safetensors", role.name()));
        let pure = ddz_nets::DouzeroNetwork::load(role, &file)?;
        let mut agreement = Agreement::default();
        for (view, plays) in own.iter().filter(|(v, _)| v.role() == Some(role)) {
            let obs = observe(&Infoset::of(view).expect("a play decision has a landlord"));
            let rows: Vec<[f32; CARDS]> = plays
                .iter()
                .map(|p| {
                    let mut row = [0.0; CARDS];
                    write_cards(p.cards, &mut row);
                    row
                })
                .collect();
            let (a, b) = (torch.of(role).q_values(&obs, &rows), pure.q_values(&obs, &rows));
            agreement.see(&a, &b);
            agreement.different_choices += (crate::search::argmax(&a) != crate::search::argmax(&b)) as usize;
            agreement.decisions += 1;
        }
        out.push(NetworkCheck { file, network: format!("douzero {}", role.name()), agreement });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{ORACLE_DIM, STATE_DIM_V1};
    use crate::model::{HistoryEncoder, ModelConfig, save_weights_file};

    /// Every switch a network can have, in every combination that trains (laizi_top only under
    /// laizi), as small random networks saved to a file and read back by the torch-free path.
    fn every_config() -> Vec<ModelConfig> {
        let mut out = Vec::new();
        for rules in [Rules::Standard, Rules::Laizi, Rules::TwoPlayer] {
            for bits in 0..64u32 {
                let on = |k: u32| bits >> k & 1 == 1;
                let config = ModelConfig {
                    trunk: vec![16, 8],
                    head: 8,
                    head_hidden: if on(5) { vec![] } else { vec![6, 4] },
                    per_role: on(0),
                    history: if on(1) { HistoryEncoder::Lstm } else { HistoryEncoder::Flat },
                    history_size: 5,
                    hand_structure: on(2),
                    hand_prediction: on(3),
                    score_head: on(4),
                    score_margin: 0.25,
                    oracle: bits % 7 == 0,
                    prune: bits % 5 == 0,
                    prune_margin: 2,
                    laizi_top: if rules == Rules::Laizi && bits.is_multiple_of(3) { 12 } else { 0 },
                    inputs: if bits % 11 == 0 && rules == Rules::Standard { STATE_DIM_V1 } else { STATE_DIM },
                    rules,
                };
                out.push(config);
            }
        }
        out
    }

    #[test]
    fn both_paths_compute_the_same_values_for_every_switch() {
        crate::runtime::configure_threads(1);
        let dir = std::env::temp_dir().join(format!("ddz-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let decisions: Vec<(Rules, Vec<Decision>)> =
            [Rules::Standard, Rules::Laizi, Rules::TwoPlayer].map(|r| (r, self_play_decisions(r, 24, 5))).into();
        for (i, config) in every_config().into_iter().enumerate() {
            let torch = QNet::cpu(&config, i as u64 + 1);
            let file = dir.join(format!("net-{i}.safetensors"));
            save_weights_file(&torch, &file).unwrap();
            let pure = QNetwork::load(&file).unwrap_or_else(|e| panic!("{config:?}: {e}"));
            let loaded = crate::model::load_network(&file).unwrap();
            assert_eq!(
                pure.config(),
                loaded.config(),
                "the config read back from the file, as libtorch's loader reads it"
            );
            let own = &decisions.iter().find(|(r, _)| *r == config.rules).unwrap().1;
            for batch in [1, 7] {
                let a = compare_q(&torch, &pure, own, batch);
                assert!(a.worst <= 1e-5, "{config:?}, batch {batch}: {a:?}");
                assert_eq!(a.different_choices, 0, "{config:?}: {a:?}");
            }
            // The kernels' two builds agree too.
            let plain = pure.clone().with_kernel(ddz_nets::kernels::Kernel::Plain);
            assert!(compare_q(&torch, &plain, own, 5).worst <= 1e-5, "{config:?}: the plain kernels");
            if config.oracle {
                // Training's actors feed the oracle while its weight is withdrawn.
                let (states, actions, owner) = features(&pure, &own[..4]);
                let b = states.len() / STATE_DIM;
                let planes: Vec<f32> = (0..b * ORACLE_DIM).map(|k| k.is_multiple_of(3) as u8 as f32).collect();
                let a = torch.values_guided(&states, &actions, &owner, Some((&planes, 0.4)));
                let p = pure.values_guided(&states, &actions, &owner, Some((&planes, 0.4)));
                let unguided = pure.values(&states, &actions, &owner);
                assert_ne!(p.q, unguided.q, "the oracle is read");
                assert!(a.q.iter().zip(&p.q).all(|(x, y)| (x - y).abs() <= 1e-5), "{config:?}: oracle");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_bidding_network_and_the_evaluator_agree_too() {
        crate::runtime::configure_threads(1);
        let dir = std::env::temp_dir().join(format!("ddz-check-small-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bid = BidNet::cpu(3);
        bid.save(&dir.join("bid.safetensors")).unwrap();
        let pure = BidNetwork::load(&dir.join("bid.safetensors")).unwrap();
        for rules in [Rules::Standard, Rules::TwoPlayer] {
            let a = compare_bids(&bid, &pure, &bidding_features(rules, 200, 1));
            assert!(a.worst <= 1e-5 && a.different_choices == 0 && a.decisions == 200, "{rules}: {a:?}");
        }
        let hand = HandNet::cpu(4);
        hand.save(&dir.join("hand.safetensors")).unwrap();
        let pure = HandNetwork::load(&dir.join("hand.safetensors")).unwrap();
        let a = compare_hands(&hand, &pure, &hand_features(101, 2));
        assert!(a.worst <= 1e-5 && a.decisions == 101, "{a:?}");
        // A file of the other network is refused, naming a tensor.
        let e = BidNetwork::load(&dir.join("hand.safetensors")).unwrap_err().to_string();
        assert!(e.contains("hand.safetensors") && e.contains("tensor"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
