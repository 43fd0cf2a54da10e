//! Botzone's FightTheLandlord protocol (and the bidding FightTheLandlord2), converted to and
//! from the native request, the seat's [`View`], in this one module: a session's requests and
//! our answers become a view, and the play the agent makes on it becomes card ids.

use super::{BotError, bid_for, play_for};
use crate::agents::Agent;
use crate::cards::{Card, CardSet, Counts};
use crate::game::{Play, Role, Seat, Table, View};
use crate::lines::RequestError;
use serde::Deserialize;

/// A Botzone game in progress: what the previous requests and our answers said.
#[derive(Clone, Default)]
pub struct BotzoneSession {
    own: Vec<u32>,
    public: Vec<u32>,
    /// Each turn's two previous plays, and our answers.
    turns: Vec<[Vec<u32>; 2]>,
    answers: Vec<Vec<u32>>,
    /// The bidding version (FightTheLandlord2): our role from `landlord` and `pos`.
    role: Option<Role>,
}

/// A request of either version. A bid request (the bidding version) has `own` and `bid` (the
/// bids before ours); a play request has `history`, and the first one `own` and `publiccard`
/// (and, in the bidding version, `landlord`, `pos` and `finalbid`).
#[derive(Deserialize)]
struct BotzoneRequest {
    #[serde(default)]
    own: Option<Vec<u32>>,
    #[serde(default)]
    history: Option<[Vec<u32>; 2]>,
    #[serde(default)]
    publiccard: Option<Vec<u32>>,
    #[serde(default)]
    bid: Option<Vec<u8>>,
    #[serde(default)]
    landlord: Option<u8>,
    #[serde(default)]
    pos: Option<u8>,
    #[serde(default)]
    finalbid: Option<u8>,
}

impl BotzoneRequest {
    fn is_bid(&self) -> bool {
        self.bid.is_some() && self.history.is_none()
    }
}

fn ids_to_counts(ids: &[u32]) -> Result<Counts, String> {
    // Reasons only: the callers say which field.
    let set: CardSet = ids.iter().map(|&i| Card::from_id(i).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    if set.len() as usize != ids.len() {
        return Err(format!("card ids {ids:?} repeat a card"));
    }
    Ok(set.counts())
}

impl BotzoneSession {
    /// Our role: as the bidding version says, or from the first request (the landlord opens
    /// with no history; landlord_down sees only the landlord's play; landlord_up sees two).
    fn role(&self) -> Role {
        if let Some(role) = self.role {
            return role;
        }
        match &self.turns[0] {
            [a, b] if a.is_empty() && b.is_empty() => Role::Landlord,
            [a, _] if a.is_empty() => Role::LandlordDown,
            _ => Role::LandlordUp,
        }
    }

    /// Takes one input line (full or single request); returns the answer's card ids. A
    /// rejected request leaves the session as it was.
    pub fn answer(&mut self, agent: &mut dyn Agent, line: &str) -> Result<Vec<u32>, BotError> {
        let before = self.clone();
        let answer = self.answer_request(agent, line);
        if answer.is_err() {
            *self = before;
        }
        answer
    }

    /// Answers a line of either version: `{"response": bid}` to a bid request, `{"response": [ids]}`
    /// to a play request.
    pub fn respond(&mut self, agent: &mut dyn Agent, line: &str) -> Result<serde_json::Value, BotError> {
        if let Some(bid) = botzone_bid_request(line)? {
            let (own, bids) = bid;
            return answer_botzone_bid(agent, &own, &bids, crate::seeds::of_text(line)).map(serde_json::Value::from);
        }
        self.answer(agent, line).map(serde_json::Value::from)
    }

    fn answer_request(&mut self, agent: &mut dyn Agent, line: &str) -> Result<Vec<u32>, BotError> {
        self.take_request(line)?;
        if self.answers.len() + 1 != self.turns.len() {
            return Err(BotError::Session(format!(
                "{} requests but {} responses: one answer is owed per earlier request",
                self.turns.len(),
                self.answers.len()
            )));
        }
        let me = self.role();
        self.check_ids(me)?;
        let mut own = ids_to_counts(&self.own).map_err(|e| field("own", e))?;
        let bottom = ids_to_counts(&self.public).map_err(|e| field("publiccard", e))?;
        if me == Role::Landlord && own.len() == 17 {
            own = own.plus(bottom); // some versions send the landlord's 17 without the bottom
        }
        let history = self.public_history(me)?;
        let played_by_me = history.iter().filter(|(r, _)| *r == me).fold(Counts::EMPTY, |c, (_, p)| c.plus(p.cards));
        if !played_by_me.is_subset_of(own) {
            return Err(BotError::Impossible("our answers hold cards we never had".into()));
        }
        let view = View::playing(me, own.minus(played_by_me), bottom, &history, None)?;
        agent.reset(crate::seeds::of_text(line)); // the same request, the same answer
        let ids = self.card_ids(me, play_for(agent, &view)?);
        self.answers.push(ids.clone());
        Ok(ids)
    }

    /// Records a request: the full form starts the session anew, a single one adds a turn.
    fn take_request(&mut self, line: &str) -> Result<(), BotError> {
        let bad = |what: &str, e: serde_json::Error| BotError::from(RequestError::Malformed(format!("{what}{e}")));
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| bad("", e))?;
        if let Some(requests) = value.get("requests") {
            let requests: Vec<BotzoneRequest> =
                serde_json::from_value(requests.clone()).map_err(|e| bad("requests: ", e))?;
            let responses: Vec<serde_json::Value> = match value.get("responses") {
                Some(r) => serde_json::from_value(r.clone()).map_err(|e| bad("responses: ", e))?,
                None => Vec::new(),
            };
            // The bidding version's bid request and its answer come first; the play turns follow.
            let skip = requests.iter().take_while(|r| r.is_bid()).count();
            *self = BotzoneSession::default();
            for req in requests.into_iter().skip(skip) {
                self.take_play(req)?;
            }
            self.answers = responses
                .into_iter()
                .skip(skip)
                .map(|r| serde_json::from_value(r).map_err(|e| bad("responses: ", e)))
                .collect::<Result<_, _>>()?;
        } else {
            let req: BotzoneRequest = serde_json::from_value(value).map_err(|e| bad("request: ", e))?;
            self.take_play(req)?;
        }
        Ok(())
    }

    /// A play request: the first one sets our cards (and role, in the bidding version).
    fn take_play(&mut self, req: BotzoneRequest) -> Result<(), BotError> {
        let history = req
            .history
            .ok_or_else(|| BotError::from(RequestError::Malformed("request: missing field `history`".into())))?;
        if self.turns.is_empty() {
            let missing = |f: &str| {
                BotError::from(RequestError::Malformed(format!("request: the first play request needs `{f}`")))
            };
            self.own = req.own.ok_or_else(|| missing("own"))?;
            self.public = req.publiccard.ok_or_else(|| missing("publiccard"))?;
            self.role = match (req.landlord.map(Seat::try_from), req.pos.map(Seat::try_from)) {
                (Some(Ok(l)), Some(Ok(p))) => Some(Role::of_seat(Table::THREE, p, l)),
                (None, None) => None,
                _ => return Err(field("landlord", "landlord and pos must both be given, each 0, 1 or 2".into())),
            };
            if let Some(b) = req.finalbid.filter(|b| !(1..=3).contains(b)) {
                return Err(field("finalbid", format!("{b} is not 1, 2 or 3")));
            }
        }
        self.turns.push(history);
        Ok(())
    }

    /// Physical cards are in one place only: a farmer holds no bottom card, and no card of
    /// ours (nor, for the landlord, of the bottom) is played by another player, nor any card
    /// twice. Counts alone cannot see these: they are the ids' facts.
    fn check_ids(&self, me: Role) -> Result<(), BotError> {
        let ours: std::collections::HashSet<u32> = match me {
            Role::Landlord => self.own.iter().chain(&self.public).copied().collect(),
            _ => self.own.iter().copied().collect(),
        };
        if me != Role::Landlord
            && let Some(id) = self.public.iter().find(|id| ours.contains(id))
        {
            return Err(BotError::Impossible(format!(
                "card id {id} is in both own and publiccard: the bottom goes to the landlord, not to a farmer"
            )));
        }
        if me == Role::Landlord {
            // The landlord's own is its 20 cards, the bottom among them, or the 17 dealt
            // without it (some versions send those); anything else splits the bottom.
            let whole = self.own.len() == 20;
            if let Some(id) = self.public.iter().find(|id| self.own.contains(id) != whole) {
                return Err(BotError::Impossible(match whole {
                    true => {
                        format!("card id {id} of publiccard is not in own: the landlord's 20 cards hold the bottom")
                    }
                    false => format!("card id {id} is in both own (the 17 dealt) and publiccard"),
                }));
            }
        }
        let bottom: std::collections::HashSet<u32> = self.public.iter().copied().collect();
        let before = [me.next(), me.prev()];
        let mut played: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
        for (t, pair) in self.turns.iter().enumerate() {
            for (k, ids) in pair.iter().enumerate() {
                let by = before[k % 2];
                if let Some(id) = ids.iter().find(|id| by != Role::Landlord && bottom.contains(id)) {
                    return Err(BotError::Impossible(format!(
                        "turn {}: card id {id} is a bottom card (publiccard), played by {} (a farmer)",
                        t + 1,
                        by.name()
                    )));
                }
            }
            for &id in pair.iter().flatten() {
                if ours.contains(&id) {
                    return Err(BotError::Impossible(format!(
                        "turn {}: card id {id} is played by another player but is ours (own{})",
                        t + 1,
                        if me == Role::Landlord { " or publiccard" } else { "" }
                    )));
                }
                if let Some(first) = played.insert(id, t + 1) {
                    return Err(BotError::Impossible(format!(
                        "turn {}: card id {id} was already played in turn {first}",
                        t + 1
                    )));
                }
            }
        }
        Ok(())
    }

    /// The public record in play order, our answers included; the plays before the landlord's
    /// first lead are skipped.
    fn public_history(&self, me: Role) -> Result<Vec<(Role, Play)>, BotError> {
        let before = [me.next(), me.prev()];
        let play_of = |ids: &[u32], what: String| -> Result<Play, BotError> {
            let cards = ids_to_counts(ids).map_err(|e| BotError::from(RequestError::field(what.clone(), e)))?;
            crate::game::classify(cards).ok_or_else(|| BotError::Impossible(format!("{what}: {cards} is not a play")))
        };
        let mut history: Vec<(Role, Play)> = Vec::new();
        for (t, pair) in self.turns.iter().enumerate() {
            for (k, ids) in pair.iter().enumerate() {
                let role = before[k];
                if t == 0 && role.index() > me.index() {
                    continue; // that player has not played yet on our first turn
                }
                history.push((role, play_of(ids, format!("turn {}", t + 1))?));
            }
            if let Some(answer) = self.answers.get(t) {
                history.push((me, play_of(answer, format!("our answer {}", t + 1))?));
            }
        }
        Ok(history)
    }

    /// Physical cards for `play`: any of our remaining ids of each rank.
    fn card_ids(&self, me: Role, play: Play) -> Vec<u32> {
        let bottom: &[u32] = if me == Role::Landlord && self.own.len() == 17 { &self.public } else { &[] };
        let mut remaining: Vec<u32> = self.own.iter().chain(bottom).copied().collect();
        for answer in &self.answers {
            remaining.retain(|id| !answer.contains(id));
        }
        let mut ids = Vec::new();
        for (r, n) in play.cards.iter() {
            let of_rank = remaining.iter().copied().filter(|&id| Card::from_id(id).map(|c| c.rank()) == Ok(r));
            ids.extend(of_rank.take(n as usize));
        }
        ids
    }
}

/// Our 17 card ids and the bids before ours.
type BidRequestIds = (Vec<u32>, Vec<u8>);

/// A Botzone bid request's cards and earlier bids, if the line is one (a single request with `bid`
/// and no `history`, or a full form whose last request is).
fn botzone_bid_request(line: &str) -> Result<Option<BidRequestIds>, BotError> {
    let value: serde_json::Value = serde_json::from_str(line)?;
    let last = match value.get("requests") {
        Some(requests) => requests.as_array().and_then(|r| r.last()).cloned().unwrap_or_default(),
        None => value,
    };
    match serde_json::from_value::<BotzoneRequest>(last) {
        Ok(req) if req.is_bid() => {
            let own =
                req.own.ok_or_else(|| BotError::from(RequestError::Malformed("a bid request needs `own`".into())))?;
            Ok(Some((own, req.bid.unwrap_or_default())))
        }
        _ => Ok(None),
    }
}

/// The agent's bid on its 17 cards after the `bids` before it.
fn answer_botzone_bid(agent: &mut dyn Agent, own: &[u32], bids: &[u8], seed: u64) -> Result<u8, BotError> {
    let hand = ids_to_counts(own).map_err(|e| field("own", e))?;
    if bids.len() > 2 {
        return Err(field("bid", format!("{} bids before ours: at most 2", bids.len())));
    }
    let view = View::bidding(bids.len() as u8, hand, bids)?;
    agent.reset(seed);
    bid_for(agent, &view)
}

fn field(name: &str, reason: String) -> BotError {
    RequestError::field(name, reason).into()
}

#[cfg(test)]
mod tests {
    use super::super::{KEEP_RUNNING, Protocol, serve};
    use super::*;
    use crate::agents::RuleAgent;

    #[test]
    fn the_botzone_bidding_version_bids_then_plays_its_role() {
        let mut agent = RuleAgent::new();
        let deal = &crate::game::generate_deals(1, 6)[0];
        let ids = |set: CardSet| set.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
        let strong: Vec<u32> = CardSet::parse("BR22223456789TJQK").unwrap().iter().map(|c| c.id() as u32).collect();
        let mut session = BotzoneSession::default();
        let bid = serde_json::json!({"own": strong, "bid": [1]}).to_string();
        assert_eq!(session.respond(&mut agent, &bid).unwrap(), serde_json::json!(3));
        // We sit at pos 0 and seat 1 is the landlord: we play right before it (landlord_up), after
        // the landlord and landlord_down. The landlord led its lowest card; landlord_down passed.
        let landlord = deal.hands[1].union(deal.bottom);
        let lowest = landlord.iter().next().unwrap();
        let first = serde_json::json!({
            "own": ids(deal.hands[0]), "publiccard": ids(deal.bottom), "landlord": 1, "pos": 0, "finalbid": 2,
            "history": [[lowest.id()], []]
        });
        let full = serde_json::json!({"requests": [{"own": ids(deal.hands[0]), "bid": []}, first], "responses": [2]});
        let mut session = BotzoneSession::default();
        let answer = session.respond(&mut agent, &full.to_string()).unwrap();
        let played: Vec<u32> = serde_json::from_value(answer).unwrap();
        assert!(played.iter().all(|id| ids(deal.hands[0]).contains(id)), "{played:?}");
        assert_eq!(session.role(), Role::LandlordUp);
        let bad = serde_json::json!({"requests": [{"own": ids(deal.hands[0]), "bid": []},
            {"own": ids(deal.hands[0]), "publiccard": ids(deal.bottom), "landlord": 1, "history": [[], []]}],
            "responses": [0]});
        assert!(
            BotzoneSession::default().respond(&mut agent, &bad.to_string()).unwrap_err().to_string().contains("pos")
        );
    }

    #[test]
    fn physically_impossible_card_ids_are_errors_naming_them() {
        let mut agent = RuleAgent::new();
        let deal = &crate::game::generate_deals(1, 4)[0];
        let ids = |set: CardSet| set.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
        let (farmer, bottom, landlord) = (ids(deal.hands[1]), ids(deal.bottom), ids(deal.hands[0]));
        let mut ask = |own: &[u32], history: [&[u32]; 2]| {
            let line = serde_json::json!({"own": own, "publiccard": bottom, "history": history}).to_string();
            BotzoneSession::default().answer(&mut agent, &line).map_err(|e| e.to_string())
        };
        // landlord_down, after the landlord's lead of one of its cards: fine.
        let lead = [landlord[0]];
        ask(&farmer, [&[], &lead]).unwrap();
        // The landlord "led" a card that is in our own hand.
        let e = ask(&farmer, [&[], &[farmer[3]]]).unwrap_err();
        assert!(e.contains(&format!("card id {} is played by another player but is ours", farmer[3])), "{e}");
        // A farmer whose own hand holds a bottom card.
        let mut with_bottom = farmer.clone();
        with_bottom[0] = bottom[0];
        let e = ask(&with_bottom, [&[], &lead]).unwrap_err();
        assert!(e.contains(&format!("card id {} is in both own and publiccard", bottom[0])), "{e}");
        // landlord_up: both others played, one of them a card the other already played.
        let up = ids(deal.hands[2]);
        let e = ask(&up, [&lead, &lead]).unwrap_err();
        assert!(e.contains(&format!("card id {} was already played", lead[0])), "{e}");
        // landlord_up: our teammate (landlord_down) played a bottom card.
        let e = ask(&up, [&lead, &[bottom[1]]]).unwrap_err();
        assert!(e.contains(&format!("card id {} is a bottom card (publiccard), played by landlord_down", bottom[1])));
        // The landlord: 20 ids that leave out a bottom card, 17 that hold one.
        let mut twenty = landlord.clone();
        twenty.extend(&farmer[..3]);
        let e = ask(&twenty, [&[], &[]]).unwrap_err();
        assert!(e.contains(&format!("card id {} of publiccard is not in own", bottom[0])), "{e}");
        let mut seventeen = landlord.clone();
        seventeen[5] = bottom[2];
        let e = ask(&seventeen, [&[], &[]]).unwrap_err();
        assert!(e.contains(&format!("card id {} is in both own (the 17 dealt) and publiccard", bottom[2])), "{e}");
        // Both forms of the landlord's hand are fine.
        ask(&landlord, [&[], &[]]).unwrap();
        ask(&ids(deal.hands[0].union(deal.bottom)), [&[], &[]]).unwrap();
    }

    #[test]
    fn a_rejected_botzone_request_leaves_the_session_as_it_was() {
        let mut agent = RuleAgent::new();
        let deal = &crate::game::generate_deals(1, 3)[0];
        let ids = |set: CardSet| set.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
        let own = ids(deal.hands[0].union(deal.bottom));
        let mut twice = own.clone();
        twice[1] = twice[0]; // a card held twice: rejected after the request was read
        let request = |own: &[u32]| {
            serde_json::json!({"own": own, "history": [[], []], "publiccard": ids(deal.bottom)}).to_string()
        };
        let mut session = BotzoneSession::default();
        assert!(session.answer(&mut agent, &request(&twice)).unwrap_err().to_string().contains("repeat"));
        let ids = session.answer(&mut agent, &request(&own)).expect("the next valid request is answered");
        assert!(!ids.is_empty(), "the landlord leads");
        let mut out = Vec::new();
        let input = [&b"\xff\n"[..], request(&own).as_bytes(), b"\n"].concat();
        serve(&mut agent, Protocol::Botzone, &input[..], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("line 1: not UTF-8") && lines[1] == KEEP_RUNNING, "{text}");
        assert!(lines[2].starts_with("{\"response\":["), "bad bytes are one bad line: {text}");
    }
}
