//! One search agent for an opponent it does not know: it models the other side as the rule
//! agent while the game supports that, as the network once the game rules the rule agent out,
//! and as either, weighed by a prior, while the game cannot yet tell.
//!
//! At each decision it draws worlds toward the rule model ([`crate::search::belief`]) and reads a
//! [`Verdict`] from them; before a rule verdict it draws worlds toward the network model as
//! thoroughly, since a network opponent's plays may fit the rule agent too, and if one of them
//! explains the plays as well the game cannot tell yet. Under [`Verdict::Rule`] it searches as
//! PIMC against the rule agent
//! (`pimc:NET?opp=rule&worlds=64&cards=0`); under [`Verdict::Network`] as ISMCTS with
//! belief-weighted worlds (`ismcts:NET?belief=0.1`). Under [`Verdict::Undecided`] (the first
//! decisions of a game, before the other side has shown enough plays) it runs both and makes
//! the play with the best expected value over the two models, `prior` × the rule-model value +
//! (1 − `prior`) × the network-model value: both are the searching seat's mean result, so they
//! share one scale. The prior is per seat: 0.5 as landlord, whose opening plays come before any
//! evidence, and 0 as farmers, where it cost more against the network than it gained against
//! the rule agent. The verdict and both searches see only the seat's information.

use super::ismcts::index_of;
use super::{Agent, Candidate, Guide, IsmctsAgent, LastDecision, ModelAgent, Opponents, PimcAgent, PimcSettings};
use super::{Leaf, RuleAgent, Turn};
use crate::game::{Play, Seat, State};
use crate::search::belief::{self, draw_worlds};
use crate::search::{Belief, Budget, Deadline, IsmctsSettings, argmax};
use crate::seeds::{self, Stream};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::time::{Duration, Instant};

/// What the plays so far say of the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Some drawn world explains every play of the other side as the rule agent's, at least
    /// `evidence` of those plays had a choice, and no world drawn toward the network model
    /// explains them all as the network's.
    Rule,
    /// Some world explains them, but fewer than `evidence` had a choice (too early to tell), or
    /// a world explains them as the network's too.
    Undecided,
    /// No drawn world explains them: not the rule agent.
    Network,
}

/// The knobs, with their defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoSettings {
    /// Plays with a choice the other side must have made before the rule model is trusted alone.
    pub evidence: u32,
    /// Of those, plays the network would not have made (in the world that explains them all)
    /// the other side must have made too: the plays that tell the rule agent from the network.
    pub telling: u32,
    /// The rule model's weight while undecided (0: the network model alone, 1: the rule model
    /// alone), when the searching seat is the landlord.
    pub prior_landlord: f64,
    /// The same when it is a farmer.
    pub prior_farmers: f64,
    /// Metropolis steps of the network model's own chain (0: not run). When the rule model
    /// would give its verdict, worlds are drawn toward the network model too; if one of them
    /// explains every play of the other side as the network's, the game cannot tell the two
    /// models apart yet and the verdict is `Undecided`.
    pub network_steps: usize,
    /// Worlds drawn toward each model for a verdict.
    pub verdict_worlds: usize,
    /// Worlds drawn per world kept toward the rule model, for a verdict.
    pub verdict_draws: usize,
    /// Metropolis steps per world toward the rule model, for a verdict.
    pub verdict_steps: usize,
    /// Softmax temperature of the network model's weights on the worlds its chain starts from.
    pub network_belief: f64,
    /// Worlds of the rule-model PIMC.
    pub pimc_worlds: usize,
    /// Cards left from which the rule-model PIMC solves exactly (0: never; it rolls out).
    pub pimc_cards: u32,
    /// Belief temperature of the root worlds of the network-model ISMCTS.
    pub ismcts_belief: f64,
    /// Time budget per decision in milliseconds over every phase (0: none): the verdict's
    /// world drawing may take a quarter of it, the search what is left.
    pub ms: u64,
}

impl AutoSettings {
    /// Both seats' priors at once.
    pub fn with_prior(evidence: u32, prior: f64) -> AutoSettings {
        AutoSettings { evidence, prior_landlord: prior, prior_farmers: prior, ..AutoSettings::default() }
    }

    /// The prior for the seat to act at `state`.
    pub fn prior(&self, state: &State) -> f64 {
        match state.current_player() == state.landlord() {
            true => self.prior_landlord,
            false => self.prior_farmers,
        }
    }

    /// The rule-model PIMC's settings.
    pub fn pimc(&self) -> PimcSettings {
        let (worlds, cards) = (self.pimc_worlds, self.pimc_cards);
        PimcSettings { budget: Budget::count(worlds), cards, opponents: Opponents::Rule, ..PimcSettings::default() }
    }
}

impl Default for AutoSettings {
    fn default() -> Self {
        // Chosen on the `dev` deals (docs/experiments.md, "auto"): the prior gains against the
        // rule agent as landlord and costs against the network as farmers; net_steps=30 beat 0
        // and matched 60. The inner numbers are those the agent was built and measured with.
        AutoSettings {
            evidence: 3,
            telling: 0,
            prior_landlord: 0.5,
            prior_farmers: 0.0,
            network_steps: 30,
            verdict_worlds: 16,
            verdict_draws: 4,
            verdict_steps: 30,
            network_belief: 0.1,
            pimc_worlds: 64,
            pimc_cards: 0,
            ismcts_belief: 0.1,
            ms: 0,
        }
    }
}

/// A search agent that reads from the plays so far whether the other side plays like the rule
/// agent or the network, and searches against the model the game supports.
pub struct AutoAgent {
    pimc: PimcAgent,
    ismcts: IsmctsAgent,
    probe: ModelAgent,
    settings: AutoSettings,
    rng: SmallRng,
    label: String,
    /// The verdict behind the last decision, for replays.
    verdict: Verdict,
    /// The weighed values of the last undecided decision.
    last: LastDecision,
    /// The rule model of the verdict.
    rule: RuleAgent,
}

impl AutoAgent {
    /// `nets` are three copies of one network: PIMC's, ISMCTS's and the verdict's.
    pub fn new(nets: [ModelAgent; 3], settings: AutoSettings, label: impl Into<String>) -> AutoAgent {
        let [a, b, probe] = nets;
        let label = label.into();
        let pimc = PimcAgent::new(a, settings.pimc(), label.clone());
        let guide = Guide::Network(Box::new(b), Leaf::Value, settings.ismcts_belief);
        let ismcts = IsmctsAgent::new(guide, IsmctsSettings::default(), &label);
        AutoAgent::from_parts(pimc, ismcts, probe, settings, label)
    }

    /// The same with other searches (smaller ones, in tests; `settings.pimc_*` and
    /// `ismcts_belief` then go unused).
    pub fn from_parts(
        pimc: PimcAgent,
        ismcts: IsmctsAgent,
        probe: ModelAgent,
        settings: AutoSettings,
        label: impl Into<String>,
    ) -> AutoAgent {
        AutoAgent {
            pimc,
            ismcts,
            probe,
            settings,
            rng: SmallRng::seed_from_u64(0),
            label: label.into(),
            verdict: Verdict::Network,
            last: LastDecision::default(),
            rule: RuleAgent::new(),
        }
    }

    /// The verdict at `state` from `verdict_worlds` worlds drawn toward the rule model.
    pub fn verdict(&mut self, state: &State) -> Verdict {
        self.verdict_within(state, Deadline::NONE)
    }

    /// [`AutoAgent::verdict`] with its world drawing stopped at `deadline` (fewer worlds, shorter
    /// chains: the verdict from what was drawn by then).
    fn verdict_within(&mut self, state: &State, deadline: Deadline) -> Verdict {
        let Some(seat) = state.current_player() else { return Verdict::Undecided };
        let s = self.settings;
        let model = Belief { draws: s.verdict_draws, steps: s.verdict_steps, ..Belief::UNIFORM };
        let rule = &mut self.rule;
        let (n, rng) = (s.verdict_worlds, &mut self.rng);
        let worlds = draw_worlds(&mut self.probe, state, seat, n, model, Some(&mut *rule), deadline, rng);
        // Each world's evidence is a replay: past the deadline, the worlds read so far decide.
        let explained: Vec<(&State, u32)> = worlds
            .iter()
            .enumerate()
            .take_while(|&(i, _)| i == 0 || !deadline.passed())
            .map(|(_, w)| (w, belief::opponent_evidence(rule, w, seat)))
            .filter(|&(_, (_, m))| m == 0)
            .map(|(w, (asked, _))| (w, asked))
            .collect();
        if explained.is_empty() {
            return Verdict::Network;
        }
        let (need, telling) = (s.evidence, s.telling);
        let probe = &mut self.probe;
        let mut told = |w: &State| telling == 0 || belief::telling_plays(probe, rule, w, seat) >= telling;
        let fits = explained.into_iter().any(|(w, asked)| asked >= need && told(w));
        match fits && !self.network_explains(state, seat, deadline) {
            true => Verdict::Rule,
            false => Verdict::Undecided,
        }
    }

    /// Whether some of `verdict_worlds` worlds drawn toward the network model (weighed by its
    /// softmax at `network_belief`, then `network_steps` swaps) explains every play of the
    /// other side as the network's. False when the chain is off.
    fn network_explains(&mut self, state: &State, seat: Seat, deadline: Deadline) -> bool {
        let s = self.settings;
        if s.network_steps == 0 {
            return false;
        }
        let (model, rng) = (Belief::network(s.network_belief), &mut self.rng);
        let worlds = draw_worlds(&mut self.probe, state, seat, s.verdict_worlds, model, None, deadline, rng);
        let chains = belief::refine_for_policy(&mut self.probe, worlds, seat, s.network_steps, deadline, rng);
        chains.iter().any(|(_, m)| *m == 0)
    }

    /// Both searches, weighed by the prior: the network's best few plays (PIMC's shortlist) and
    /// ISMCTS's choice are the candidates.
    /// Within `left` when given: ISMCTS gets half of it, PIMC what ISMCTS left.
    fn weighed(&mut self, turn: Turn<'_>, left: Option<Duration>) -> usize {
        let Turn { seat, plays, .. } = turn;
        let state = &super::root_world(turn);
        let p = self.settings.prior(state);
        let started = Instant::now();
        if let Some(t) = left {
            self.ismcts.set_time(Some((t / 2).max(Duration::from_millis(1))));
        }
        let result = self.ismcts.search(state, seat);
        if let Some(t) = left {
            self.pimc.set_time(Some(t.saturating_sub(started.elapsed()).max(Duration::from_millis(1))));
        }
        let mut network_value = vec![0.0; plays.len()];
        for c in &result.candidates {
            network_value[index_of(plays, c.action)] = c.value;
        }
        let mut shortlist = self.pimc.shortlist(state, plays);
        let searched = index_of(plays, result.best);
        if !shortlist.contains(&searched) {
            shortlist.push(searched);
        }
        let candidates: Vec<Play> = shortlist.iter().map(|&i| plays[i]).collect();
        let rule_value = self.pimc.scores(state, &candidates);
        let value: Vec<f64> =
            shortlist.iter().zip(&rule_value).map(|(&i, r)| p * r + (1.0 - p) * network_value[i]).collect();
        let mut shown = vec![Candidate { value: f32::NAN, visits: None }; plays.len()];
        for (k, &i) in shortlist.iter().enumerate() {
            shown[i] = Candidate::value(value[k] as f32);
        }
        self.last.remember(turn, shown);
        shortlist[argmax(&value)]
    }
}

impl Agent for AutoAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    /// As its PIMC and ISMCTS: three standard hands, with its network's rules.
    fn plays_rules(&self, rules: crate::game::Rules) -> Result<(), crate::agents::Unplayable> {
        self.pimc.plays_rules(rules)
    }

    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        let state = &super::root_world(turn);
        let prior = self.settings.prior(state);
        let budget = Budget::count(1).with_ms(self.settings.ms);
        let started = Instant::now();
        // A quarter of the time for the verdict, the rest for the search it chooses.
        let verdict_deadline = Deadline(budget.time.map(|t| started + t / 4));
        self.verdict = match self.verdict_within(state, verdict_deadline) {
            Verdict::Undecided if prior >= 1.0 => Verdict::Rule,
            Verdict::Undecided if prior <= 0.0 => Verdict::Network,
            v => v,
        };
        // With a budget, the search gets what the verdict left of it (a millisecond at least:
        // a zero would mean no limit); without one, each search keeps its own settings.
        let left = budget.deadline(started).map(|d| d.saturating_duration_since(Instant::now()));
        let left = left.map(|t| t.max(Duration::from_millis(1)));
        match self.verdict {
            Verdict::Rule => {
                if left.is_some() {
                    self.pimc.set_time(left);
                }
                self.pimc.choose(turn)
            }
            Verdict::Network => {
                if left.is_some() {
                    self.ismcts.set_time(left);
                }
                self.ismcts.choose(turn)
            }
            Verdict::Undecided => self.weighed(turn, left),
        }
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
        self.pimc.reset(seeds::of(seed, Stream::SECOND));
        self.ismcts.reset(seeds::of(seed, Stream::THIRD));
    }

    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        match self.verdict {
            Verdict::Rule => self.pimc.candidates(turn),
            Verdict::Network => self.ismcts.candidates(turn),
            Verdict::Undecided => self.last.recall(turn),
        }
    }
}
