//! A rule-based player a casual human would recognise: split the hand into combinations, lead
//! the one holding the lowest card, follow with the cheapest play that keeps the hand's
//! combinations whole, never overtake the teammate, and keep bombs for when they matter.
//!
//! Under laizi it first gives each wild card the rank that helps the split most (a trio made a
//! bomb, a chain's gap filled, a pair made a trio; [`decompose_laizi`]), and then plays that
//! split as above: a wild card stays in the combination it completes.
//!
//! In two-player games it knows the farmer's target: a seat is as close to winning as the
//! cards it must still shed (the farmer's cards left less the conceded ones), so the farmer
//! takes any play that gets it there, and the landlord treats a farmer that close as about to
//! go out: it breaks combinations and bombs to stop it, and leads high.

use super::{Agent, Turn};
use crate::search::HandShapeLeaf;
use ddz_engine::cards::{Counts, NUM_RANKS, RANK_ACE, RANK_BLACK_JOKER, RANK_RED_JOKER, RANK_TWO};
use ddz_engine::game::laizi::{WildRank, read_play};
use ddz_engine::game::{Kind, Play, Rules, Seat, View, classify};

/// The deterministic rule-based player this module describes.
#[derive(Default)]
pub struct RuleAgent;

impl RuleAgent {
    /// The rule agent (it has no settings or state).
    pub fn new() -> RuleAgent {
        RuleAgent
    }
}

/// Search's hand-shape heuristic with the rule agent's split of a hand ([`decompose`]).
pub fn hand_shape_leaf() -> HandShapeLeaf {
    HandShapeLeaf { plays_needed: |hand| decompose(hand).len() }
}

/// Splits a hand into combinations: rocket, bombs, trio chains, solo chains, pair chains, trios,
/// pairs, solos; then gives trios their kickers (the lowest spare solos, else pairs).
pub fn decompose(hand: Counts) -> Vec<Play> {
    let mut h = hand.to_array();
    let mut combos: Vec<Counts> = Vec::new();
    let take = |h: &mut [u8; NUM_RANKS], ranks: std::ops::Range<u8>, w: u8| {
        let mut c = Counts::EMPTY;
        for r in ranks {
            h[r as usize] -= w;
            c.add(r, w);
        }
        c
    };
    if h[RANK_BLACK_JOKER as usize] == 1 && h[RANK_RED_JOKER as usize] == 1 {
        combos.push(take(&mut h, RANK_BLACK_JOKER..RANK_RED_JOKER + 1, 1));
    }
    for r in 0..=RANK_TWO {
        if h[r as usize] == 4 {
            combos.push(take(&mut h, r..r + 1, 4));
        }
    }
    // Chains, longest first: trios (2+), solos (5+), pairs (3+).
    for (w, min) in [(3u8, 2u8), (1, 5), (2, 3)] {
        while let Some((start, len)) = longest_run(&h, w, min) {
            combos.push(take(&mut h, start..start + len, w));
        }
    }
    for w in [3u8, 2, 1] {
        for r in 0..NUM_RANKS as u8 {
            if h[r as usize] == w {
                combos.push(take(&mut h, r..r + 1, w));
            }
        }
    }
    let mut plays: Vec<Play> = combos.into_iter().filter_map(classify).collect();
    attach_kickers(&mut plays);
    plays.sort_by_key(|p| (p.main, std::cmp::Reverse(p.cards.len())));
    plays
}

/// Under laizi: each wild card in turn takes the rank (its own unless another does better) that
/// leaves the natural cards and the wild cards placed so far in the fewest combinations of
/// [`decompose`], then the most bombs; the split is then read back as laizi plays, each wild
/// card in a combination of the rank it took.
pub fn decompose_laizi(hand: Counts, wild: WildRank) -> Vec<Play> {
    let w = wild.rank();
    let wilds = hand.get(w);
    let natural = hand.minus(Counts::EMPTY.with(w, wilds));
    // Fewer combinations first, then more bombs.
    let score = |stands: Counts| {
        let split = decompose(natural.plus(stands));
        (split.len(), std::cmp::Reverse(split.iter().filter(|p| p.kind == Kind::Bomb).count()))
    };
    let mut stands = Counts::EMPTY;
    for _ in 0..wilds {
        let own = stands.with(w, 1);
        let mut best = (score(own), own);
        for r in (0..=RANK_TWO).filter(|&r| r != w && natural.get(r) + stands.get(r) < 4) {
            let s = score(stands.with(r, 1));
            if s < best.0 {
                best = (s, stands.with(r, 1));
            }
        }
        stands = best.1;
    }
    // Each combination's wild cards: the stand-ins of its ranks not given to an earlier one.
    let mut left = stands;
    decompose(natural.plus(stands))
        .into_iter()
        .filter_map(|combo| {
            let mut own = Counts::EMPTY;
            for (r, n) in combo.cards.iter() {
                let k = n.min(left.get(r));
                own.add(r, k);
                left = left.minus(Counts::EMPTY.with(r, k));
            }
            let taken = combo.cards.minus(own).with(w, own.len() as u8);
            // Wild cards alone stand for their own rank only (rule 3): such a part is dropped.
            read_play(taken, combo.cards, wild).ok()
        })
        .collect()
}

fn longest_run(h: &[u8; NUM_RANKS], w: u8, min: u8) -> Option<(u8, u8)> {
    let mut best: Option<(u8, u8)> = None;
    let mut start = 0u8;
    let mut len = 0u8;
    for r in 0..=RANK_ACE {
        if h[r as usize] >= w {
            if len == 0 {
                start = r;
            }
            len += 1;
            if len >= min && best.is_none_or(|(_, l)| len > l) {
                best = Some((start, len));
            }
        } else {
            len = 0;
        }
    }
    best
}

/// Gives each trio (and trio chain) the lowest spare solos, or else pairs, as kickers.
fn attach_kickers(plays: &mut Vec<Play>) {
    let is_spare = |p: &Play, kind| p.kind == kind && p.main < RANK_TWO;
    let mut i = 0;
    while i < plays.len() {
        if matches!(plays[i].kind, Kind::Trio | Kind::TrioChain) {
            let need = plays[i].len as usize;
            for kind in [Kind::Solo, Kind::Pair] {
                let spares: Vec<usize> = (0..plays.len()).filter(|&j| is_spare(&plays[j], kind)).take(need).collect();
                if spares.len() == need {
                    let cards = spares.iter().fold(plays[i].cards, |c, &j| c.plus(plays[j].cards));
                    if let Some(joined) = classify(cards) {
                        plays[i] = joined;
                        for &j in spares.iter().rev() {
                            plays.remove(j);
                            if j < i {
                                i -= 1;
                            }
                        }
                        break;
                    }
                }
            }
        }
        i += 1;
    }
}

/// How much a play costs the hand: its rank, plus a heavy charge for every combination of the
/// hand's split that it breaks.
fn cost(play: &Play, split: &[Play]) -> u32 {
    let broken = split
        .iter()
        .filter(|c| {
            c.cards.iter().any(|(r, _)| play.cards.get(r) > 0)
                && !play.cards.is_subset_of(c.cards)
                && !c.cards.is_subset_of(play.cards)
        })
        .count()
        + split.iter().filter(|c| play.cards.is_subset_of(c.cards) && play.cards != c.cards).count();
    play.main as u32 + 100 * broken as u32
}

/// How many cards `seat` must still shed to win: all it holds, but the two-player farmer's
/// conceded cards.
fn to_go(view: &View<'_>, seat: Seat) -> u32 {
    let conceded = match view.config().rules == Rules::TwoPlayer && view.landlord() != Some(seat) {
        true => view.conceded() as u32,
        false => 0,
    };
    view.cards_left(seat).saturating_sub(conceded)
}

fn index_of(plays: &[Play], cards: Counts) -> Option<usize> {
    plays.iter().position(|p| p.cards == cards)
}

/// The legal play `play` is, or one taking the same cards (under laizi, cards may be several).
fn index_of_play(plays: &[Play], play: &Play) -> Option<usize> {
    plays.iter().position(|p| p == play).or_else(|| index_of(plays, play.cards))
}

impl Agent for RuleAgent {
    fn name(&self) -> String {
        "rule".into()
    }

    /// Its rules read the view under every rule set (wild cards, a table of two).
    fn plays_rules(&self, _: ddz_engine::game::Rules) -> Result<(), crate::agents::Unplayable> {
        Ok(())
    }

    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { view, seat, plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        let hand = view.hand();
        // Win at once when the whole hand is one play, or (two-player farmer) when a play sheds
        // the cards still to go.
        let mine = to_go(view, seat);
        if let Some(i) = index_of(plays, hand).or_else(|| plays.iter().position(|p| p.cards.len() >= mine.max(1))) {
            return i;
        }
        let split = match view.wild() {
            Some(wild) => decompose_laizi(hand, wild),
            None => decompose(hand),
        };
        let me_landlord = view.landlord() == Some(seat);
        let enemies: Vec<Seat> =
            view.table().others(seat).filter(|&s| me_landlord || view.landlord() == Some(s)).collect();
        let enemy_min = enemies.iter().map(|&s| to_go(view, s)).min().unwrap_or(20);
        // An enemy holding one card answers only solos; one that must shed one card of several
        // (a two-player farmer with conceded cards) wins with any play it can make.
        let enemy_on_one_card = enemy_min == 1 && enemies.iter().any(|&s| view.cards_left(s) == 1);

        let Some(rival) = view.rival() else {
            // Lead: the combination holding the lowest card; against an enemy about to go out
            // on a single card, avoid solos (or lead the highest one).
            let mut leads: Vec<&Play> = split.iter().filter(|p| !matches!(p.kind, Kind::Bomb | Kind::Rocket)).collect();
            if leads.is_empty() {
                leads = split.iter().collect();
            }
            let pick = if enemy_on_one_card {
                leads.iter().find(|p| p.kind != Kind::Solo).or_else(|| leads.iter().max_by_key(|p| p.main))
            } else if view.config().rules == Rules::TwoPlayer && enemy_min <= 2 {
                // A farmer two cards from its target: lead what it can least answer.
                leads.iter().max_by_key(|p| p.main)
            } else {
                leads.first()
            };
            return pick
                .and_then(|p| index_of_play(plays, p))
                .unwrap_or_else(|| plays.iter().position(|p| !p.is_pass()).unwrap_or(0));
        };

        let pass = plays.iter().position(|p| p.is_pass()).unwrap_or(0);
        let rival_is_teammate = !me_landlord && view.landlord() != Some(rival.seat);
        if rival_is_teammate {
            return pass; // never overtake the teammate
        }
        let is_bomb = |p: &Play| matches!(p.kind, Kind::Bomb | Kind::Rocket);
        let cheapest =
            plays.iter().enumerate().filter(|(_, p)| !p.is_pass() && !is_bomb(p)).min_by_key(|(_, p)| cost(p, &split));
        if let Some((i, p)) = cheapest {
            let breaks = cost(p, &split) >= 100;
            // Break a combination only when an enemy is getting close, or to stop a high card.
            if !breaks || enemy_min <= 6 || p.main >= RANK_ACE {
                return i;
            }
            return pass;
        }
        // Only bombs beat it: bomb when an enemy is close to going out, or when we are.
        let combos_left = split.len();
        if (enemy_min <= 4 || combos_left <= 2)
            && let Some((i, _)) = plays.iter().enumerate().filter(|(_, p)| is_bomb(p)).min_by_key(|(_, p)| p.main)
        {
            return i;
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(hand: &str) -> Vec<String> {
        decompose(Counts::parse(hand).unwrap()).iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn laizi_wilds_complete_bombs_and_chains() {
        let wild = WildRank::parse("7").unwrap();
        let laizi = |hand: &str| -> Vec<String> {
            decompose_laizi(Counts::parse(hand).unwrap(), wild)
                .iter()
                .map(|p| format!("{}>{}", p.cards, p.reading()))
                .collect()
        };
        assert!(laizi("5557").contains(&"5557>5555".to_string()), "a trio made a bomb: {:?}", laizi("5557"));
        let chain = laizi("34569QQ7");
        assert!(chain.iter().any(|c| c.ends_with(">34567") || c.ends_with(">345678")), "a gap filled: {chain:?}");
        let all: u32 =
            decompose_laizi(Counts::parse("3345678999JQKK2BR").unwrap(), wild).iter().map(|p| p.cards.len()).sum();
        assert_eq!(all, 17, "every card in one combination");
    }

    #[test]
    fn the_two_player_farmer_takes_a_play_that_reaches_its_target() {
        use ddz_engine::game::{MoveList, View};
        // 17 cards, 15 conceded: any play of two cards wins, here only the rocket does.
        let request = r#"{"rules":"two_player","seat":"farmer","hand":"66778899TTJQKA2BR","bottom":"QKA","history":[["landlord","5"]],"conceded":15}"#;
        let view = View::from_json(request).unwrap();
        let mut plays = MoveList::new();
        view.legal_plays_into(&mut plays);
        let turn = Turn::new(&view, &plays).unwrap();
        assert_eq!(plays[RuleAgent.choose(turn)].to_string(), "BR");
        // Without conceded cards the same hand answers the solo cheaply, keeping the rocket.
        let plain = View::from_json(&request.replace(r#","conceded":15"#, "")).unwrap();
        plain.legal_plays_into(&mut plays);
        let pick = plays[RuleAgent.choose(Turn::new(&plain, &plays).unwrap())];
        assert_eq!(pick.kind, Kind::Solo, "{pick}");
    }

    #[test]
    fn splits_a_hand_into_sensible_combinations() {
        let s = split("3345678999JQKK2BR");
        assert!(s.contains(&"BR".to_string()), "{s:?}");
        assert!(s.iter().any(|c| c.starts_with("345678")), "a chain: {s:?}");
        assert!(s.contains(&"KK".to_string()), "{s:?}");
        let s = split("333444568");
        assert!(s.contains(&"33344456".to_string()), "an airplane takes the low solos: {s:?}");
        let total: usize = split("3345678999JQKK2BR").iter().map(|c| c.len()).sum();
        assert_eq!(total, 17, "every card in exactly one combination");
    }
}
