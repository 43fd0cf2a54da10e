//! `bot:CMD`: outside programs as agents, through real processes. The well-behaved bot is
//! `ddz bot` itself (the built binary); the misbehaving ones are a small Python proxy in front
//! of it (tests/data/bots/proxy.py) that crashes, answers nonsense or an illegal play, sleeps,
//! or says the game left its rules.

use ddz::agents::AgentSpec;
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
