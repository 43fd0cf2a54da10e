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
