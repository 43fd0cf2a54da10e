//! Baseline agents measured against each other on fixed deals.

use ddz::agents::{RandomAgent, RuleAgent};
use ddz::eval::head_to_head;
use ddz::game::generate_deals;

#[test]
fn rule_agent_beats_random_by_a_wide_margin_in_both_seatings() {
    let deals = generate_deals(300, 2024);
    let (as_landlord, as_farmers) = head_to_head(&deals, &mut RuleAgent::new(), &mut RandomAgent::new(1)).unwrap();
    eprintln!("rule vs random: landlord {}, farmers {}", as_landlord.wp, as_farmers.wp);
    assert!(as_landlord.wp.mean > 0.8, "as landlord: {as_landlord:?}");
    assert!(as_farmers.wp.mean > 0.9, "as farmers: {as_farmers:?}");
    assert_eq!(as_landlord.illegal_plays + as_farmers.illegal_plays, 0);
}

#[test]
fn fixed_deals_are_reproducible() {
    assert_eq!(generate_deals(50, 7), generate_deals(50, 7));
    assert_ne!(generate_deals(5, 7), generate_deals(5, 8));
    let d = &generate_deals(1, 7)[0];
    let all = d.hands.iter().fold(d.bottom, |a, h| a.union(*h));
    assert_eq!(all.len(), 54);
}

#[test]
fn what_a_spec_says_it_plays_is_what_its_agent_plays() {
    // `AgentSpec::check_rules` refuses before any game starts; `Agent::plays_rules` refuses at
    // every decision (`agents::ask`). The two agree on every kind and every rule set.
    use ddz::agents::AgentSpec;
    use ddz::game::Rules;
    let specs = [
        "random",
        "rule",
        "rlcard",
        "checkpoint:models/ema-2h",
        "checkpoint:models/laizi-1h",
        "checkpoint:models/two-player-1h",
        "douzero:models/douzero-1h",
        "pimc:models/ema-2h",
        "pimc:models/laizi-1h",
        "auto:models/ema-2h",
        "cheat:models/ema-2h",
        "ismcts:rule",
        "ismcts:models/two-player-1h",
        "ismcts:models/two-player-1h?belief=0.5",
        "ismcts:models/laizi-1h",
        "alphabeta:heuristic",
        "alphabeta:models/two-player-1h",
        "alphabeta:models/ema-2h",
    ];
    for text in specs {
        let spec: AgentSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        let agent = spec.build().unwrap_or_else(|e| panic!("{text}: {e}"));
        for rules in [Rules::Standard, Rules::Laizi, Rules::TwoPlayer] {
            let before = spec.check_rules(rules);
            let at_decisions = agent.plays_rules(rules);
            assert_eq!(before.is_ok(), at_decisions.is_ok(), "{text} under {rules}: {before:?} / {at_decisions:?}");
        }
    }
}
