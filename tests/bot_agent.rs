//! `bot:CMD`: outside programs as agents, through real processes. The well-behaved bot is
//! `ddz bot` itself (the built binary); the misbehaving ones are a small Python proxy in front
//! of it (tests/data/bots/proxy.py) that crashes, answers nonsense or an illegal play, sleeps,
//! or says the game left its rules.

use ddz::agents::{AgentSpec, Turn};
use ddz::eval::{EvalError, evaluate};
use ddz::game::generate_deals;
use indicatif::ProgressBar;

fn ddz() -> &'static str {
    env!("CARGO_BIN_EXE_ddz")
}

/// `bot:` running the proxy in MODE every N-th request in front of `ddz bot --agent rule`.
fn proxy(mode: &str, every: u32, knobs: &str) -> AgentSpec {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bots/proxy.py");
    format!("bot:python3 {script} {mode} {every} {} bot --agent rule{knobs}", ddz()).parse().unwrap()
}

fn eval(a: &AgentSpec, deals: usize) -> Result<ddz::eval::MatchReport, EvalError> {
    evaluate(a, &AgentSpec::Random, &generate_deals(deals, 41), 2, &ProgressBar::hidden())
}

#[test]
fn a_bot_program_plays_exactly_as_the_agent_it_serves() {
    let bot: AgentSpec = format!("bot:{} bot --agent rule", ddz()).parse().unwrap();
    let through_bot = eval(&bot, 30).unwrap();
    let direct = eval(&AgentSpec::Rule, 30).unwrap();
    assert_eq!(through_bot.overall.wp.mean, direct.overall.wp.mean);
    assert_eq!(through_bot.overall.adp.mean, direct.overall.adp.mean);
    assert_eq!(through_bot.illegal_plays(), 0);
    let proxied = eval(&proxy("none", 1, ""), 30).unwrap();
    assert_eq!(proxied.overall.adp.mean, direct.overall.adp.mean, "the proxy forwards faithfully");
}

#[test]
fn a_bot_that_crashes_stops_the_evaluation_with_its_words() {
    let err = eval(&proxy("crash", 25, ""), 10).unwrap_err().to_string();
    for part in ["deal ", "closed its output", "exited", "crashing on purpose at request 25", "\"history\""] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
}

#[test]
fn with_on_error_forfeit_a_crash_is_a_lost_game_that_the_report_counts() {
    let deals = 10;
    let report = eval(&proxy("crash", 25, "?on_error=forfeit"), deals).unwrap();
    let forfeits = report.overall.forfeits;
    assert!(forfeits > 0 && forfeits < 2 * deals as u32, "{report:?}");
    assert_eq!(report.overall.games, 2 * deals, "forfeited games count, as losses");
    assert_eq!(report.overall.opponent_forfeits, 0);
    let clean = eval(&AgentSpec::Rule, deals).unwrap();
    assert!(report.overall.wp.mean < clean.overall.wp.mean, "forfeits cost games");
    assert!(report.markdown().contains(&format!("Forfeits (counted as lost): {forfeits} by A")));
}

#[test]
fn nonsense_and_illegal_answers_are_errors_that_quote_them() {
    let err = eval(&proxy("nonsense", 3, ""), 4).unwrap_err().to_string();
    assert!(err.contains("answered \"hello, world\", not a JSON object"), "{err}");
    let err = eval(&proxy("illegal", 3, ""), 4).unwrap_err().to_string();
    assert!(err.contains("answered \"2222BR\", not one of the"), "{err}");
}

#[test]
fn a_bot_that_does_not_answer_in_time_is_stopped() {
    let start = std::time::Instant::now();
    let err = eval(&proxy("sleep", 4, "?timeout_ms=300"), 3).unwrap_err().to_string();
    assert!(err.contains("no answer within 300 ms"), "the fourth answer has no start-up allowance: {err}");
    assert!(start.elapsed().as_secs() < 20, "no hang: {:?}", start.elapsed());
    let report = eval(&proxy("sleep", 40, "?timeout_ms=300&on_error=forfeit"), 3).unwrap();
    assert!(report.overall.forfeits > 0, "{report:?}");
}

#[test]
fn a_rule_mismatch_is_counted_apart_from_wins_and_losses() {
    let deals = 10;
    let report = eval(&proxy("mismatch", 30, ""), deals).unwrap();
    let m = report.overall.rule_mismatches;
    assert!(m > 0, "{report:?}");
    assert_eq!(report.overall.games + m as usize, 2 * deals, "mismatched games leave the counts");
    assert_eq!(report.overall.forfeits, 0);
}

#[test]
fn ddz_eval_names_the_failing_bot_and_exits_non_zero() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bots/proxy.py");
    let spec = format!("bot:python3 {script} nonsense 2 {} bot --agent rule", ddz());
    let out =
        std::process::Command::new(ddz()).args(["eval", "--a", &spec, "--b", "rule", "--n", "3"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("proxy.py nonsense 2") && err.contains("not a JSON object"), "{err}");
}

#[test]
fn a_ddz_bot_answers_a_batch_in_one_line_as_it_answers_one_at_a_time() {
    use ddz::agents::{Agent, BotAgent, BotSettings, Query, RandomAgent};
    use ddz::game::{MoveList, State, View};
    use rand::SeedableRng;
    // Positions from seeded random games at every stage, each seen by the seat to act.
    let (mut rng, mut random) = (rand::rngs::StdRng::seed_from_u64(5), RandomAgent::new(5));
    let mut positions: Vec<(View<'static>, MoveList)> = Vec::new();
    for _ in 0..8 {
        let mut state = State::new(Default::default());
        state.deal_random(&mut rng);
        while !state.is_terminal() {
            let mut plays = MoveList::new();
            state.legal_plays_into(&mut plays);
            positions.push((state.view(state.current_player().unwrap()).into_owned(), plays.clone()));
            let k = random.choose(Turn::new(&state.view(state.current_player().unwrap()), &plays).unwrap());
            state.apply_play_unchecked(plays[k]);
        }
    }
    let queries: Vec<Query> =
        positions.iter().map(|(s, p)| Query { turn: Turn::new(s, p).unwrap(), seed: 0 }).collect();
    let network = format!("checkpoint:{}/models/dmc-td-2h", env!("CARGO_MANIFEST_DIR"));
    for spec in ["rule", network.as_str(), "random"] {
        let mut batched = BotAgent::ddz_bot(ddz(), spec, BotSettings::default());
        let picks = batched.try_choose_many(&queries).unwrap();
        let one_line_each =
            BotAgent::new(&format!("{} bot --agent {spec}", ddz()), BotSettings::default(), spec.into());
        let mut one_line_each = one_line_each;
        let single: Vec<usize> =
            positions.iter().map(|(s, p)| one_line_each.try_choose(Turn::new(s, p).unwrap()).unwrap()).collect();
        assert_eq!(picks, single, "{spec}");
        let mut local = spec.parse::<AgentSpec>().unwrap().build().unwrap();
        let direct: Vec<usize> = positions.iter().map(|(s, p)| local.choose(Turn::new(s, p).unwrap())).collect();
        if spec != "random" {
            // The random agent draws from the bot's seed, the request's own text.
            assert_eq!(picks, direct, "{spec}: the bot plays as the agent does in this process");
        }
    }
    assert!(positions.len() > 200, "{}", positions.len());
}

#[test]
fn a_batch_to_a_bot_that_fails_is_a_fault_naming_the_bot() {
    use ddz::agents::{Agent, BotAgent, BotSettings, Fault, Query};
    use ddz::game::{MoveList, State};
    use rand::SeedableRng;
    let mut state = State::new(Default::default());
    state.deal_random(&mut rand::rngs::StdRng::seed_from_u64(1));
    let mut plays = MoveList::new();
    state.legal_plays_into(&mut plays);
    let view = state.view(state.current_player().unwrap());
    let queries = [Query { turn: Turn::new(&view, &plays).unwrap(), seed: 0 }];
    let mut missing = BotAgent::ddz_bot(ddz(), "checkpoint:/no/such/model", BotSettings::default());
    for answer in [missing.start(), missing.try_choose_many(&queries).map(|_| ())] {
        match answer {
            Err(Fault::Failed(why)) => assert!(why.contains("/no/such/model") && why.contains("bot --agent"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
    let mut rule = BotAgent::ddz_bot(ddz(), "rule", BotSettings::default());
    rule.start().unwrap();
    assert_eq!(rule.try_choose_many(&[]).unwrap(), Vec::<usize>::new());
}
