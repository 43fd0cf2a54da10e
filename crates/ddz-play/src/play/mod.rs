//! A person against two agents (one in a two-player game): the game session that the terminal
//! game ([`terminal`]) and the web page (`serve`) share. The session holds the real state; what it shows the person is a
//! [`Screen`] of what their seat may see, and every finished game becomes a [`GameLog`].

pub mod terminal;

use crate::agents::{Agent, AgentError, AgentSpec, decide};
use crate::cards::{Card, Counts, rank_char};
use crate::game::Phase;
use crate::game::{
    Deal, GameConfig, MoveList, Play, PlayRecord, Role, Rules, Scoring, Seat, State, WildRank, classify,
};
use crate::logs::{GameLog, to_jsonl};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many plays a hint shows.
pub const HINTS: usize = 3;

/// One game: the person's seat, the agents in the other seats, and the state.
pub struct Session {
    state: State,
    human: Seat,
    agents: [Option<Box<dyn Agent>>; 3],
    names: [String; 3],
    /// A network agent that values the person's plays, when one of the agents has a network.
    hinter: Option<Box<dyn Agent>>,
    source: String,
    /// Deals played so far in this session (a deal everyone passed on is dealt again).
    deals: u64,
    seed: u64,
    /// Laizi: the wild rank the deal fixes (its file's `"wild"`), for the session's first deal.
    fixed_wild: Option<WildRank>,
}

/// What happened at the table between two of the person's decisions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// An agent bid.
    Bid {
        /// The seat that bid.
        seat: Seat,
        /// Its bid: 0 = pass, else 1 to 3 (two-player: 1 = call, or rob once someone called).
        bid: u8,
    },
    /// An agent played or passed.
    Play(PlayRecord),
    /// Everyone passed in the bidding: the cards were dealt again.
    Redeal,
    /// Laizi: the wild rank was drawn (once the landlord is known).
    Wild(WildRank),
}

/// An agent's decision taken out of its [`Session`]: the agent and a copy of the state.
pub struct AgentTurn {
    seat: Seat,
    agent: Box<dyn Agent>,
    state: State,
}

/// What an [`AgentTurn`] decided, for [`Session::apply_agent_answer`].
pub struct AgentAnswer {
    seat: Seat,
    agent: Box<dyn Agent>,
    action: AgentAction,
}

enum AgentAction {
    Bid(u8),
    Play(Play),
}

impl AgentTurn {
    /// The agent's bid or play (an agent that gives no bid passes, and says so on stderr).
    pub fn think(mut self) -> AgentAnswer {
        let action = if self.state.phase() == Phase::Bid {
            match crate::agents::play::bid(self.agent.as_mut(), &mut self.state) {
                Ok((bid, _)) => AgentAction::Bid(bid),
                Err(fault) => {
                    eprintln!("{} gave no bid, so it passes: {fault}", self.agent.name());
                    AgentAction::Bid(0) // a pass is always a legal bid
                }
            }
        } else {
            let mut plays = MoveList::new();
            self.state.legal_plays_into(&mut plays);
            AgentAction::Play(decide(self.agent.as_mut(), &self.state, &plays).play)
        };
        AgentAnswer { seat: self.seat, agent: self.agent, action }
    }
}

/// The rules every person's game is played under: the landlord fixed by the deal (seat 0 of a
/// deal) or, with `bidding`, chosen by 1–2–3 bids (two-player: calling and robbing; the first
/// bidder drawn from `seed`; a deal everyone passes on is dealt again); points × the bid, × 2 per
/// bomb or rocket (and rob) and for a spring; `variant` the standard game, laizi (its wild rank
/// drawn from `seed` once the landlord is known) or two-player (no cards conceded without
/// bidding).
pub fn rules(bidding: bool, variant: Rules, seed: u64) -> GameConfig {
    GameConfig {
        scoring: Scoring::Score,
        spring: true,
        bidding,
        first_bidder: variant.table().after(Seat::S0, seed),
        rules: variant,
        ..GameConfig::default()
    }
}

impl Session {
    /// A game on `deal` with the person in `human`; `agents` play the other seats in seat order
    /// (a two-player game takes the first). `source` names the front end in the log
    /// (`human:terminal`, `human:web`).
    pub fn new(
        deal: &Deal,
        human: Seat,
        agents: &[AgentSpec; 2],
        seed: u64,
        source: &str,
    ) -> Result<Session, AgentError> {
        Session::with_rules(deal, human, agents, seed, source, rules(false, Rules::Standard, seed))
    }

    /// [`Session::new`] under other rules (bidding: `rules(true, Rules::Standard, seed)`); an
    /// agent that cannot play them is refused here, before the game.
    pub fn with_rules(
        deal: &Deal,
        human: Seat,
        agents: &[AgentSpec; 2],
        seed: u64,
        source: &str,
        config: GameConfig,
    ) -> Result<Session, AgentError> {
        let variant = config.rules;
        let table = variant.table();
        let mut state = State::new(config);
        state.try_deal_hands(deal.hands, deal.bottom).map_err(|e| AgentError::Setting {
            spec: "the deal".into(),
            reason: format!("{e} (a {variant} game needs a deal of its own deck)"),
        })?;
        let mut seats: [Option<Box<dyn Agent>>; 3] = [None, None, None];
        let mut names = [String::from("you"), String::new(), String::new()];
        let others = table.seats().iter().copied().filter(|&s| s != human);
        for (k, (seat, spec)) in others.zip(agents).enumerate() {
            spec.check_rules(variant)?;
            let mut agent = spec.clone().refuse_cheat("a game with a person")?.build()?;
            agent.reset(seed.wrapping_mul(3).wrapping_add(k as u64));
            seats[seat] = Some(agent);
            names[seat] = spec.to_string();
        }
        names[human] = "you".into();
        let hinter = match agents.iter().find_map(|a| a.network()) {
            Some(path) => Some(AgentSpec::Checkpoint(path.to_path_buf()).build()?),
            None => None,
        };
        let fixed_wild = deal.wild;
        Ok(Session { state, human, agents: seats, names, hinter, source: source.into(), deals: 1, seed, fixed_wild })
    }

    /// The real state, every hand included: not for showing the person (see [`Session::view`]).
    pub fn state(&self) -> &State {
        &self.state
    }
    /// The person's seat (0 to 2; 0 or 1 in a two-player game).
    pub fn human(&self) -> Seat {
        self.human
    }
    /// Who plays each seat of the game: `you` or the agent's spec.
    pub fn names(&self) -> &[String] {
        &self.names[..self.state.table().len()]
    }
    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.state.is_terminal()
    }
    /// Whether the person is to play.
    pub fn awaits_human(&self) -> bool {
        self.state.current_player() == Some(self.human)
    }

    /// Lets the agents bid and play until it is the person's turn or the game is over; returns
    /// what they did, in order.
    pub fn play_agents(&mut self) -> Vec<Event> {
        let mut made = Vec::new();
        while let Some(turn) = self.next_agent_turn(&mut made) {
            let answer = turn.think();
            self.apply_agent_answer(answer, &mut made);
        }
        made
    }

    /// The next agent's decision, taken out of the session with a copy of the state, so that
    /// the agent thinks without holding the session (a server saves the game meanwhile); or
    /// `None` when the person is to act, the game is over, or that agent is already thinking.
    /// Deals again and draws the wild rank on the way, as the game asks.
    pub fn next_agent_turn(&mut self, made: &mut Vec<Event>) -> Option<AgentTurn> {
        self.redeal_if_all_passed(made);
        self.draw_wild(made);
        let seat = self.state.current_player().filter(|&s| s != self.human)?;
        let agent = self.agents[seat.index()].take()?;
        Some(AgentTurn { seat, agent, state: self.state.clone() })
    }

    /// Makes the decision an agent of [`Session::next_agent_turn`] came back with and gives the
    /// agent its seat again. The seat is still to act: no one else acts at an agent's turn.
    pub fn apply_agent_answer(&mut self, answer: AgentAnswer, made: &mut Vec<Event>) {
        let AgentAnswer { seat, agent, action } = answer;
        self.agents[seat.index()] = Some(agent);
        if self.state.current_player() != Some(seat) {
            return; // unreachable while only agents act at their turns; nothing is made twice
        }
        match action {
            AgentAction::Bid(bid) => {
                self.state.apply_bid_unchecked(bid);
                made.push(Event::Bid { seat, bid });
            }
            AgentAction::Play(play) => {
                self.state.apply_play_unchecked(play);
                made.push(Event::Play(PlayRecord { seat, play }));
            }
        }
    }

    /// A deal everyone passed on is dealt again (from the session's seed and deal count).
    fn redeal_if_all_passed(&mut self, made: &mut Vec<Event>) {
        if self.state.is_terminal() && self.state.landlord().is_none() {
            let mut config = self.state.config().clone();
            config.first_bidder = self.state.table().next(config.first_bidder);
            self.state = State::new(config);
            let seed = crate::seeds::redeal(self.seed, self.deals);
            self.state.deal_random(&mut <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed));
            self.deals += 1;
            made.push(Event::Redeal);
        }
    }

    /// Laizi: once the landlord is known the wild rank is drawn, from the session's seed and
    /// deal count (the same seed, the same game), unless the deal fixes it.
    fn draw_wild(&mut self, made: &mut Vec<Event>) {
        if self.state.phase() != Phase::Wild {
            return;
        }
        match self.fixed_wild.filter(|_| self.deals == 1) {
            Some(w) => self.state.apply_action(crate::game::Action::Wild(w)),
            None => {
                let seed = crate::seeds::of(crate::seeds::redeal(self.seed, self.deals), crate::seeds::Stream::WILD);
                self.state.draw_wild(&mut <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed));
            }
        }
        made.extend(self.state.wild().map(Event::Wild));
    }

    /// Whether the person is to bid (rather than to play).
    pub fn bidding(&self) -> bool {
        self.state.phase() == Phase::Bid
    }

    /// Bids or plays the person's entry, as the game asks: a bid (`pass`, `2`, `bid 2`) while
    /// bidding, else a play; returns what was done, in words (`bid 2`, `pass`, `33`).
    pub fn act_human(&mut self, entry: &str) -> Result<String, Refused> {
        if self.bidding() {
            return self.bid_human(entry).map(|b| if b == 0 { "pass".into() } else { format!("bid {b}") });
        }
        self.play_human(entry).map(|p| shown(&p))
    }

    /// Plays the person's entry (`33`, `t9J87`, `pass`; under laizi also `5557 as 5555` to
    /// choose a reading); a rejected entry changes nothing and says why.
    pub fn play_human(&mut self, entry: &str) -> Result<Play, Refused> {
        if !self.awaits_human() {
            return Err(Refused::new(if self.is_over() { "the game is over" } else { "it is not your turn" }));
        }
        let play = check_entry(&self.state, entry)?;
        self.state.try_apply_play(play).map_err(|e| Refused(e.to_string()))?;
        Ok(play)
    }

    /// Makes the person's bid (`pass`, `0`–`3`, `bid 2`; two-player `call` or `rob`, or `bid
    /// 1`); a refused one changes nothing.
    pub fn bid_human(&mut self, entry: &str) -> Result<u8, Refused> {
        if !self.awaits_human() || !self.bidding() {
            return Err(Refused::new("it is not your turn to bid"));
        }
        let text = entry.trim().to_ascii_lowercase();
        let text = text.strip_prefix("bid").unwrap_or(&text).trim();
        let two_player = self.state.config().rules == Rules::TwoPlayer;
        let bid = match text {
            "pass" | "0" => 0,
            "call" | "rob" if two_player => 1,
            t if two_player => t.parse::<u8>().map_err(|_| {
                Refused(format!("{entry:?} is not a bid: type pass, or call (rob once someone called)"))
            })?,
            t => t.parse::<u8>().map_err(|_| Refused(format!("{entry:?} is not a bid: type pass, 1, 2 or 3")))?,
        };
        let legal = self.state.legal_bids_vec();
        if two_player && !legal.contains(&bid) {
            return Err(Refused(format!("bid {bid} is not allowed: pass, or call (rob once someone called)")));
        }
        if !legal.contains(&bid) {
            let high = self.state.bids().iter().max().copied().unwrap_or(0);
            return Err(Refused(format!(
                "bid {bid} is not allowed: pass, or bid above the highest bid so far ({high}), at most 3"
            )));
        }
        self.state.try_apply_bid(bid).map_err(|e| Refused(e.to_string()))?;
        Ok(bid)
    }

    /// The network's best plays for the person, with their Q (expected outcome for the person's
    /// side, −1..1 in win/loss terms); `None` without a network or off turn.
    pub fn hints(&mut self) -> Option<Vec<(Play, f32)>> {
        if !self.awaits_human() || self.bidding() {
            return None;
        }
        let hinter = self.hinter.as_mut()?;
        let mut plays = MoveList::new();
        self.state.legal_plays_into(&mut plays);
        let view = crate::game::View::of(&self.state, self.human);
        let values = hinter.candidates(crate::agents::Turn::new(&view, &plays)?)?;
        let mut ranked: Vec<(Play, f32)> = plays.iter().copied().zip(values.iter().map(|c| c.value)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(HINTS);
        Some(ranked)
    }

    /// What the person's screen shows now.
    pub fn screen(&self) -> Screen {
        Screen::of(self)
    }

    /// The game as a log (an unfinished game's log does not replay to the end).
    pub fn log(&self) -> GameLog {
        let mut log = GameLog::from_state(&self.state, &self.source);
        log.players = self.names.iter().map(|n| if n == "you" { "human".into() } else { n.clone() }).collect();
        log
    }

    /// Appends the game to `dir`: `games.jsonl` when finished, `unfinished.jsonl` otherwise (so
    /// that the games file stays one that `ddz logs check` and `ddz pretrain` accept).
    pub fn save(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let file = dir.join(if self.is_over() { "games.jsonl" } else { "unfinished.jsonl" });
        append_line(&file, &to_jsonl(std::slice::from_ref(&self.log())))?;
        Ok(file)
    }
}

/// Appends whole lines under one lock, so that games finishing at once never interleave. A
/// write that fails (a full disk) is cut back to where the file ended, so the file never holds
/// a partial line for the next game to be appended onto.
fn append_line(file: &Path, text: &str) -> std::io::Result<()> {
    static WRITING: Mutex<()> = Mutex::new(());
    let _guard = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(file)?;
    let whole = f.metadata()?.len();
    let written = f.write_all(text.as_bytes()).and_then(|()| f.sync_data());
    if written.is_err() {
        let _ = f.set_len(whole);
    }
    written
}

/// Reads a person's entry as a play of the current player, with the reason when it is not one:
/// the notation, the cards held, the type, and whether it beats the play on the table. Under
/// laizi the entry may add the reading, `5557 as 5555` (or `5555/5`); cards that make more than
/// one play must.
pub fn check_entry(state: &State, entry: &str) -> Result<Play, Refused> {
    let clean = |t: &str| -> String { t.trim().to_ascii_uppercase().replace("10", "T").split([' ', ',']).collect() };
    let lower = entry.to_ascii_lowercase();
    let (cards_text, reading_text) = match lower.split_once(" as ") {
        Some((c, r)) => (clean(c), Some(clean(r))),
        None => (clean(entry), None),
    };
    if cards_text.is_empty() {
        return Err(Refused::new("type a play such as 33 or 34567, or pass"));
    }
    if let (Some(wild), true) = (state.wild(), cards_text.contains('/')) {
        let play = crate::game::laizi::ids::parse_play_notation(&cards_text, Some(wild))
            .map_err(|e| Refused(e.to_string()))?;
        return check_laizi(state, play.cards, Some(play.reading()), wild);
    }
    let cards = Counts::parse(&cards_text).map_err(|e| Refused(e.to_string()))?;
    let rival = state.rival().map(|r| r.play);
    if cards.is_empty() {
        return if rival.is_some() { Ok(Play::PASS) } else { Err(Refused::new("a pass is not allowed when you lead")) };
    }
    let seat = state.current_player().ok_or(Refused::new("the game is over"))?;
    let hand = state.hand(seat);
    if let Some((rank, held)) = (0..15u8).map(|r| (r, hand.get(r))).find(|&(r, held)| cards.get(r) > held) {
        return Err(Refused(format!("you hold {}", count_of(rank, held))));
    }
    if let Some(wild) = state.wild() {
        let reading = reading_text.map(|r| Counts::parse(&r)).transpose().map_err(|e| Refused(e.to_string()))?;
        return check_laizi(state, cards, reading, wild);
    }
    let play = classify(cards).ok_or_else(|| Refused(format!("{cards} is not a play (see `help` for the types)")))?;
    match rival {
        Some(r) if !play.beats(&r) => Err(Refused(why_not_beaten(&play, &r))),
        _ => Ok(play),
    }
}

/// Laizi: the legal play of `cards` (read as `reading` when given), or why there is none or
/// more than one.
fn check_laizi(state: &State, cards: Counts, reading: Option<Counts>, wild: WildRank) -> Result<Play, Refused> {
    let mut legal = MoveList::new();
    state.legal_plays_into(&mut legal);
    let mut fits: Vec<Play> = legal.iter().copied().filter(|p| p.cards == cards).collect();
    if let Some(r) = reading {
        fits.retain(|p| p.reading() == r);
    }
    match fits.as_slice() {
        [one] => Ok(*one),
        [] => {
            let any = crate::game::laizi::legal_plays_vec(cards, wild, None);
            let readings: Vec<String> = any.iter().filter(|p| p.cards == cards).map(shown).collect();
            Err(Refused(match (readings.is_empty(), state.rival()) {
                (true, _) => format!("{cards} is not a play, even with wild {wild}s (see `help` for the types)"),
                (false, Some(r)) => match reading {
                    Some(reading) => format!("{cards} as {reading} does not beat {}", shown(&r.play)),
                    None => format!("{cards} does not beat {}", shown(&r.play)),
                },
                (false, None) => format!("{cards} plays as {} only", readings.join(" or ")),
            }))
        }
        many => {
            let ways: Vec<String> = many.iter().map(|p| format!("`{cards} as {}`", p.reading())).collect();
            Err(Refused(format!("{cards} can be played {} ways: type {}", many.len(), ways.join(" or "))))
        }
    }
}

/// A play as people read it: its cards, and under laizi what wild cards make of them
/// (`5557 as 5555`: the 7, a wild card, stands for a 5).
pub fn shown(play: &Play) -> String {
    if play.wilds.count() == 0 {
        return play.to_string();
    }
    let reading = play.reading();
    if reading == play.cards { play.to_string() } else { format!("{} as {reading}", play.cards) }
}

fn count_of(rank: u8, n: u8) -> String {
    let c = rank_char(rank);
    match n {
        0 => format!("no {c}"),
        1 => format!("one {c}"),
        n => format!("{} {c}s", ["", "", "two", "three", "four"][n as usize]),
    }
}

fn why_not_beaten(play: &Play, rival: &Play) -> String {
    use crate::game::Kind;
    if rival.kind == Kind::Rocket {
        return format!("nothing beats the rocket {rival}: pass");
    }
    let bombs = matches!(play.kind, Kind::Bomb | Kind::Rocket);
    if !bombs && (play.kind != rival.kind || play.len != rival.len) {
        let (a, b) = (play.type_name().replace('_', " "), rival.type_name().replace('_', " "));
        return format!("{play} does not beat {rival}: a {a} cannot answer a {b}");
    }
    format!("{play} does not beat {rival}")
}

/// A card as the page draws it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CardView {
    /// `3`..`2`, `B` (small joker), `R` (big joker).
    pub rank: char,
    /// `♠♥♣♦`, empty for a joker.
    pub suit: String,
    /// Whether the card is drawn red (hearts, diamonds and the big joker).
    pub red: bool,
}

impl CardView {
    fn of(card: Card) -> CardView {
        let text = card.to_string();
        let rank = crate::cards::rank_char(card.rank()); // what the text starts with
        let suit: String = text.chars().skip(1).collect();
        let red = matches!(suit.as_str(), "♥" | "♦") || rank == 'R';
        CardView { rank, suit, red }
    }
}

/// One seat as the person sees it.
#[derive(Clone, Debug, Serialize)]
pub struct SeatView {
    /// The seat (0 to 2).
    pub seat: Seat,
    /// `landlord`, `landlord_down` or `landlord_up` (two-player: `landlord` or `farmer`); empty
    /// while the landlord is unknown.
    pub role: &'static str,
    /// `you` or the agent's spec.
    pub name: String,
    /// How many cards the seat holds now.
    pub cards_left: u32,
}

/// A play on the table.
#[derive(Clone, Debug, Serialize)]
pub struct PlayView {
    /// The seat that played.
    pub seat: Seat,
    /// The play's cards as text (`33`, `34567`), or `pass`.
    pub play: String,
    /// Laizi: what the cards stand for when wild cards make them another play (`5555` for
    /// `5557` with 7s wild); absent otherwise.
    #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
}

impl PlayView {
    /// The view of `play` made by `seat`.
    pub fn of(seat: Seat, play: &Play) -> PlayView {
        let reading = play.reading();
        PlayView { seat, play: play.to_string(), reading: (reading != play.cards).then(|| reading.to_string()) }
    }
}

/// Laizi: one way to play cards that make more than one play, as the page offers it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReadingView {
    /// The cards taken from the hand.
    pub cards: String,
    /// What they stand for.
    #[serde(rename = "as")]
    pub reading: String,
    /// The entry that plays it (`5557 as 5555`).
    pub entry: String,
}

/// The end of a game from the person's side.
#[derive(Clone, Debug, Serialize)]
pub struct ResultView {
    /// The seat that emptied its hand.
    pub winner: Seat,
    /// Whether the landlord won.
    pub landlord_won: bool,
    /// Whether the person's side won.
    pub you_won: bool,
    /// The person's points: ± the stake, for the landlord once per farmer.
    pub points: f64,
    /// Bombs and rockets played (each doubles the stake).
    pub bombs: u8,
    /// Two-player: the robs of the bidding (each doubles the stake).
    #[serde(skip_serializing_if = "is_zero")]
    pub robs: u8,
    /// Whether the game ended in a spring or an anti-spring (which doubles the stake).
    pub spring: bool,
}

/// What the person's screen shows: their seat's own cards, the bottom (shown to all once the
/// landlord is known), the public plays, the cards left, the players' names and the result —
/// never the other hands. (The seat's knowledge as the engine holds it is `game::View`; this is
/// its picture for people, with suits and names.)
#[derive(Clone, Debug, Serialize)]
pub struct Screen {
    /// The rules: `standard`, `laizi` or `two_player`.
    pub rules: &'static str,
    /// The person's seat (0 to 2).
    pub you: Seat,
    /// None while bidding.
    pub landlord: Option<Seat>,
    /// The bids so far: (seat, bid), 0 = pass; each seat's bid in seat order, or in a
    /// two-player game every call and rob in turn.
    pub bids: Vec<(Seat, u8)>,
    /// The game's seats (three, or two), in seat order.
    pub seats: Vec<SeatView>,
    /// Two-player: the farmer wins once no more than this many cards are left (the robs, or
    /// the game's setting); absent under other rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conceded: Option<u8>,
    /// The person's cards.
    pub hand: Vec<CardView>,
    /// The bottom cards; empty until the landlord is known.
    pub bottom: Vec<CardView>,
    /// The seat to bid or play; None once the game is over.
    pub to_move: Option<Seat>,
    /// The play to beat, when someone leads a trick the person must follow.
    pub rival: Option<PlayView>,
    /// Every play and pass so far, in order.
    pub history: Vec<PlayView>,
    /// How the game ended; None while it runs.
    pub result: Option<ResultView>,
    /// Laizi: the wild rank once drawn (`7`); absent in the standard game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wild: Option<String>,
    /// Laizi, on the person's turn: every legal play whose cards make more than one play, so
    /// that the page asks which is meant; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub readings: Vec<ReadingView>,
}

impl Screen {
    fn of(session: &Session) -> Screen {
        let s = &session.state;
        let table = s.table();
        let two_player = s.config().rules == Rules::TwoPlayer;
        let seats = table
            .seats()
            .iter()
            .map(|&seat| SeatView {
                seat,
                role: s.role(seat).map_or("", |r| r.name_at(table)),
                name: session.names[seat].clone(),
                cards_left: s.cards_left(seat),
            })
            .collect();
        let bids = match two_player {
            true => (s.bids().iter().enumerate())
                .map(|(k, &b)| (table.after(s.config().first_bidder, k as u64), b))
                .collect(),
            false => table.seats().iter().filter_map(|&q| s.bid_of(q).map(|b| (q, b))).collect(),
        };
        let play_view = |r: &PlayRecord| PlayView::of(r.seat, &r.play);
        let result = s.winner().zip(s.landlord()).map(|(winner, landlord)| ResultView {
            winner,
            landlord_won: winner == landlord,
            you_won: (winner == landlord) == (session.human == landlord),
            points: s.returns()[session.human],
            bombs: s.bombs_played(),
            robs: s.robs(),
            spring: s.is_spring(),
        });
        Screen {
            rules: s.config().rules.name(),
            you: session.human,
            landlord: s.landlord(),
            bids,
            seats,
            conceded: two_player.then(|| s.conceded()),
            hand: cards_in_hand(s, session.human).into_iter().map(CardView::of).collect(),
            bottom: if s.bottom_revealed() { s.bottom().iter().map(CardView::of).collect() } else { Vec::new() },
            to_move: s.current_player(),
            rival: s.rival().map(play_view),
            history: s.play_record().iter().map(play_view).collect(),
            result,
            wild: s.wild().map(|w| w.to_string()),
            readings: if session.awaits_human() { ambiguous_plays(s) } else { Vec::new() },
        }
    }
}

/// The legal plays of the seat to act whose cards make more than one legal play (laizi only:
/// in the standard game cards make one play).
fn ambiguous_plays(state: &State) -> Vec<ReadingView> {
    if state.wild().is_none() {
        return Vec::new();
    }
    let mut legal = MoveList::new();
    state.legal_plays_into(&mut legal);
    let mut plays: Vec<Play> = legal.to_vec();
    plays.sort_by_key(|p| (p.cards, p.reading()));
    let shared = |i: usize| {
        (i > 0 && plays[i - 1].cards == plays[i].cards) || plays.get(i + 1).is_some_and(|q| q.cards == plays[i].cards)
    };
    (0..plays.len())
        .filter(|&i| shared(i))
        .map(|i| {
            let (cards, reading) = (plays[i].cards.to_string(), plays[i].reading().to_string());
            ReadingView { entry: format!("{cards} as {reading}"), cards, reading }
        })
        .collect()
}

/// The physical cards a seat holds now. Plays are ranks, not suits, so each play is taken to
/// have used the highest suits of its ranks; the suits are for show only.
pub fn cards_in_hand(state: &State, seat: Seat) -> Vec<Card> {
    let mut set = state.dealt_cards(seat);
    if state.landlord() == Some(seat) {
        set = set.union(state.bottom());
    }
    let mut cards: Vec<Card> = set.iter().collect();
    for (rank, n) in state.played_by(seat).iter() {
        for _ in 0..n {
            if let Some(at) = cards.iter().rposition(|c| c.rank() == rank) {
                cards.remove(at);
            }
        }
    }
    cards
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Why the person's entry (a play or a bid) was refused, in words a person reads; the game is
/// as it was.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

impl Refused {
    fn new(reason: &str) -> Refused {
        Refused(reason.to_string())
    }
}

/// A game's setup that cannot be: an unknown seat, or agents that are not one or two specs.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A seat that is no role name of the game and not `random`.
    #[error("unknown seat {0:?}: use {1} or random")]
    Seat(String, String),
    /// An agent spec that does not parse.
    #[error("agent {spec:?}: {source}")]
    Agent {
        /// The spec as given.
        spec: String,
        /// Why it does not parse.
        #[source]
        source: AgentError,
    },
    /// Neither one nor two agent specs were given; holds how many were.
    #[error("{0} agents given: give one (for both seats) or two, comma-separated")]
    AgentCount(usize),
}

/// A seat of a game under `rules` by role name, or `random` (drawn from `seed`).
pub fn parse_seat(text: &str, rules: Rules, seed: u64) -> Result<Seat, SetupError> {
    // Roles name seats as the deal's rules place them: the landlord first, then turn order.
    let landlord = GameConfig::default().landlord_seat;
    let table = rules.table();
    match text {
        "random" => Ok(table.after(Seat::S0, seed)),
        _ => Role::parse_at(table, text).map(|r| table.after(landlord, r.index() as u64)).ok_or_else(|| {
            let names: Vec<&str> = Role::at(table).iter().map(|r| r.name_at(table)).collect();
            SetupError::Seat(text.to_string(), names.join(", "))
        }),
    }
}

/// One or two agent specs for the other two seats (one spec plays both); an agent that sees
/// hidden cards (`cheat:`) is refused: a person plays only agents that see what their seat sees.
pub fn parse_agents(text: &str) -> Result<[AgentSpec; 2], SetupError> {
    let specs: Vec<AgentSpec> = text
        .split(',')
        .map(|s| {
            let spec = s.trim().parse::<AgentSpec>().and_then(|spec| spec.refuse_cheat("a game with a person"));
            spec.map_err(|source| SetupError::Agent { spec: s.to_string(), source })
        })
        .collect::<Result<_, _>>()?;
    match specs.as_slice() {
        [one] => Ok([one.clone(), one.clone()]),
        [a, b] => Ok([a.clone(), b.clone()]),
        _ => Err(SetupError::AgentCount(specs.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::generate_deals;

    fn session(human: Seat) -> Session {
        let deal = &generate_deals(1, 7)[0];
        Session::new(deal, human, &[AgentSpec::Rule, AgentSpec::Rule], 7, "human:test").unwrap()
    }

    #[test]
    fn entries_are_read_leniently_and_rejected_with_reasons() {
        let mut s = session(Seat::S0);
        let hand = s.state.hand(Seat::S0);
        assert_eq!(check_entry(&s.state, "pass").unwrap_err().0, "a pass is not allowed when you lead");
        let missing = (0..15u8).find(|&r| hand.get(r) == 0).unwrap();
        let text = format!("{}", rank_char(missing));
        assert_eq!(check_entry(&s.state, &text).unwrap_err().0, format!("you hold no {text}"));
        let (low, _) = hand.iter().next().unwrap();
        let lower = rank_char(low).to_ascii_lowercase().to_string();
        assert_eq!(check_entry(&s.state, &lower).unwrap().to_string(), rank_char(low).to_string());
        assert!(check_entry(&s.state, "x").unwrap_err().0.contains("unknown card"));
        let played = s.play_human(&lower).unwrap();
        assert_eq!(played.cards.len(), 1);
        assert!(s.play_human("3").unwrap_err().0.contains("not your turn"));
    }

    #[test]
    fn bids_are_checked_and_a_deal_everyone_passes_on_is_dealt_again() {
        let deals = generate_deals(40, 9);
        let mut redealt = false;
        for (k, deal) in deals.iter().enumerate() {
            let specs = [AgentSpec::Rule, AgentSpec::Rule];
            let config = rules(true, Rules::Standard, k as u64);
            let mut s = Session::with_rules(deal, Seat::S0, &specs, k as u64, "human:test", config).unwrap();
            let mut events = s.play_agents();
            if !s.bidding() {
                continue; // someone bid 3 before the person
            }
            assert!(s.bid_human("4").unwrap_err().0.contains("not allowed"));
            assert!(s.bid_human("two").unwrap_err().0.contains("not a bid"));
            assert_eq!(s.bid_human("pass"), Ok(0));
            events.extend(s.play_agents());
            if events.contains(&Event::Redeal) {
                redealt = true;
                assert!(s.state().bids().len() < 3 || s.state().landlord().is_some(), "a fresh bidding");
                assert_eq!(s.deals, 2);
                break;
            }
        }
        assert!(redealt, "one of 40 deals is passed by everyone");
    }

    #[test]
    fn a_laizi_game_draws_its_wild_rank_from_the_seed_unless_the_deal_fixes_it() {
        let deal = generate_deals(1, 7).remove(0);
        let specs = [AgentSpec::Rule, AgentSpec::Rule];
        let wild_of = |deal: &Deal, seed: u64| {
            let config = rules(false, Rules::Laizi, seed);
            let mut s = Session::with_rules(deal, Seat::S1, &specs, seed, "human:test", config).unwrap();
            let events = s.play_agents();
            let w = s.state().wild().expect("drawn once the landlord is known");
            assert_eq!(events.first(), Some(&Event::Wild(w)), "the first event says so");
            w
        };
        let drawn: std::collections::HashSet<WildRank> = (0..12).map(|seed| wild_of(&deal, seed)).collect();
        assert!(drawn.len() > 3, "the seed draws it: {drawn:?}");
        assert_eq!(wild_of(&deal, 3), wild_of(&deal, 3), "the same seed, the same rank");
        let fixed = Deal { wild: WildRank::new(11), ..deal.clone() };
        assert!((0..12).all(|seed| wild_of(&fixed, seed) == WildRank::new(11).unwrap()));
    }

    #[test]
    fn a_two_player_game_calls_robs_shows_one_opponent_and_the_conceded_cards() {
        let deals = crate::game::generate_deals_for(Rules::TwoPlayer, 30, 5);
        let specs = [AgentSpec::Rule, AgentSpec::Rule];
        let (mut robbed, mut played) = (false, 0);
        for (k, deal) in deals.iter().enumerate() {
            let config = rules(true, Rules::TwoPlayer, k as u64);
            let mut s = Session::with_rules(deal, Seat::S1, &specs, k as u64, "human:test", config).unwrap();
            assert_eq!(s.names().len(), 2);
            s.play_agents();
            while s.bidding() {
                assert!(s.bid_human("3").unwrap_err().0.contains("pass, or call (rob once someone called)"));
                // Call, then rob whenever asked: the rule agent robs back with strong hands.
                let entry = if s.state().bids().contains(&1) { "rob" } else { "call" };
                assert_eq!(s.bid_human(entry), Ok(1));
                s.play_agents();
            }
            let Some(landlord) = s.state().landlord() else { continue }; // both passed: dealt again
            robbed |= s.state().robs() > 0;
            let screen = s.screen();
            assert_eq!((screen.rules, screen.seats.len(), screen.conceded), ("two_player", 2, Some(s.state().robs())));
            assert!(screen.seats.iter().all(|v| ["landlord", "farmer"].contains(&v.role)), "{:?}", screen.seats);
            assert!(!screen.bids.is_empty() && screen.bids.iter().all(|(seat, _)| seat.index() < 2));
            while !s.is_over() {
                let mut plays = MoveList::new();
                s.state.legal_plays_into(&mut plays);
                s.play_human(&plays[plays.len() - 1].to_string()).unwrap();
                s.play_agents();
            }
            let result = s.screen().result.unwrap();
            assert_eq!(result.landlord_won, s.state().winner() == Some(landlord));
            assert_eq!(result.robs, s.state().robs());
            let log = s.log();
            assert_eq!((log.hands.len(), log.rules), (2, Some(Rules::TwoPlayer)));
            let replayed = log.replay().unwrap().state;
            assert_eq!((replayed.winner(), replayed.robs()), (s.state().winner(), s.state().robs()));
            assert_eq!(replayed.play_record(), s.state().play_record());
            played += 1;
        }
        assert!(played > 20 && robbed, "{played} games, robbed: {robbed}");
        // A deal of three hands is no deal of a two-player game: refused by name.
        let three = &generate_deals(1, 5)[0];
        let config = rules(false, Rules::TwoPlayer, 0);
        let e = Session::with_rules(three, Seat::S0, &specs, 0, "human:test", config).err().unwrap().to_string();
        assert!(e.contains("a two_player game needs a deal of its own deck"), "{e}");
        assert!(parse_seat("landlord_up", Rules::TwoPlayer, 0).unwrap_err().to_string().contains("landlord, farmer"));
        assert_eq!(parse_seat("farmer", Rules::TwoPlayer, 0).unwrap(), Seat::S1);
    }

    #[test]
    fn a_solo_cannot_answer_a_pair() {
        let mut state = State::new(rules(false, Rules::Standard, 0));
        let deal = &generate_deals(1, 3)[0];
        state.deal_hands_unchecked(deal.hands, deal.bottom);
        let mut plays = MoveList::new();
        state.legal_plays_into(&mut plays);
        let pair = plays.iter().copied().find(|p| p.kind == crate::game::Kind::Pair).unwrap();
        state.apply_play_unchecked(pair);
        let hand = state.hand(Seat::S1);
        let (solo, _) = hand.iter().last().unwrap();
        let e = check_entry(&state, &rank_char(solo).to_string()).unwrap_err();
        assert!(e.0.contains("a solo cannot answer a pair"), "{e}");
    }

    #[test]
    fn the_view_shows_only_the_persons_cards_and_the_log_replays() {
        let mut s = session(Seat::S1);
        s.play_agents();
        assert!(s.awaits_human());
        let view = s.screen();
        assert_eq!(view.hand.len(), 17);
        let shown: String = view.hand.iter().map(|c| c.rank).collect();
        assert_eq!(Counts::parse(&shown).unwrap(), s.state.hand(Seat::S1));
        let text = serde_json::to_string(&view).unwrap();
        assert!(!text.contains("\"hands\""));
        while !s.is_over() {
            let mut plays = MoveList::new();
            s.state.legal_plays_into(&mut plays);
            s.play_human(&plays[0].to_string()).unwrap();
            s.play_agents();
        }
        let log = s.log();
        assert_eq!(log.players, ["rule", "human", "rule"]);
        assert_eq!(log.replay().unwrap().state.winner(), s.state.winner());
        assert!(s.screen().result.is_some());
    }
}
