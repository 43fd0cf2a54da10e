//! One search agent for an opponent it does not know: it models the other side as the rule
//! agent while the game supports that, and otherwise as the network.
//!
//! At each decision it draws worlds toward the rule model ([`super::belief`]); when one of them
//! explains every play of the other side by the rule agent, and the other side has made at least
//! `evidence` plays with a choice, it searches as PIMC against the rule agent
//! (`pimc:NET?opp=rule&worlds=64&cards=0`), else as ISMCTS with belief-weighted worlds
//! (`ismcts:NET?belief=0.1`). Both the test and both searches see only the seat's information.

use super::belief::{self, Belief, Opponents};
use super::leaf::Leaf;
use super::{Agent, Candidate, Guide, IsmctsAgent, ModelAgent, PimcAgent, PimcSettings};
use crate::game::{Play, State};
use crate::search::IsmctsSettings;
use rand::SeedableRng;
use rand::rngs::SmallRng;

pub struct AutoAgent {
    pimc: PimcAgent,
    ismcts: IsmctsAgent,
    probe: ModelAgent,
    evidence: u32,
    rng: SmallRng,
    label: String,
    /// Which search made the last decision (true: the rule model), for replays.
    ruled: bool,
}

/// The rule-model PIMC's settings.
pub fn pimc_settings() -> PimcSettings {
    PimcSettings { worlds: 64, cards: 0, opponents: Opponents::Rule, ..PimcSettings::default() }
}

impl AutoAgent {
    /// `nets` are three copies of one network: PIMC's, ISMCTS's and the test's.
    pub fn new(nets: [ModelAgent; 3], evidence: u32, label: impl Into<String>) -> AutoAgent {
        let [a, b, probe] = nets;
        let label = label.into();
        let pimc = PimcAgent::new(a, pimc_settings(), label.clone());
        let guide = Guide::Network(Box::new(b), Leaf::Value, 0.1);
        let ismcts = IsmctsAgent::new(guide, IsmctsSettings::default(), &label);
        AutoAgent::from_parts(pimc, ismcts, probe, evidence, label)
    }

    /// The same with other searches (smaller ones, in tests).
    pub fn from_parts(
        pimc: PimcAgent,
        ismcts: IsmctsAgent,
        probe: ModelAgent,
        evidence: u32,
        label: impl Into<String>,
    ) -> AutoAgent {
        AutoAgent { pimc, ismcts, probe, evidence, rng: SmallRng::seed_from_u64(0), label: label.into(), ruled: false }
    }

    /// Whether the game so far fits the rule model: some drawn world explains every play of
    /// the other side, and there were at least `evidence` of them with a choice.
    pub fn rule_fits(&mut self, state: &State) -> bool {
        let seat = state.current_player().expect("a decision");
        let model = Belief { opponents: Opponents::Rule, draws: 4, steps: 30, ..Belief::UNIFORM };
        let worlds = belief::draw_worlds(&mut self.probe, state, 16, model, &mut self.rng);
        worlds.iter().map(|w| belief::rule_evidence(w, seat)).any(|(asked, m)| m == 0 && asked >= self.evidence)
    }
}

impl Agent for AutoAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn choose(&mut self, state: &State, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        self.ruled = self.rule_fits(state);
        if self.ruled { self.pimc.choose(state, plays) } else { self.ismcts.choose(state, plays) }
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        self.pimc.reset(seed ^ 0x5eed);
        self.ismcts.reset(seed ^ 0xface);
    }

    fn candidates(&mut self, state: &State, plays: &[Play]) -> Option<Vec<Candidate>> {
        if self.ruled { self.pimc.candidates(state, plays) } else { self.ismcts.candidates(state, plays) }
    }
}
