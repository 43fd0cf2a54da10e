//! `ddz play`: the person types plays, the agents answer, line by line. The same loop serves a
//! terminal and a pipe (one entry a line; entries are echoed so that a transcript reads well).

use super::{Event, HINTS, Session, cards_in_hand, shown};
use crate::cards::Card;
use crate::game::{PlayRecord, Rules, Seat};
use crate::lines::brief;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

/// How the game ended.
#[derive(Debug, PartialEq)]
pub enum Ending {
    /// Played to the end; the log's path.
    Finished(PathBuf),
    /// `quit` or the end of the input; the unfinished log's path.
    Quit(PathBuf),
}

/// How the screen is drawn.
#[derive(Clone, Copy, Debug)]
pub struct Screen {
    /// ANSI colour (a terminal without `NO_COLOR`).
    pub colour: bool,
    /// The input is a terminal that echoes what is typed; from a pipe the loop echoes entries.
    pub interactive: bool,
}

const HELP: &str = "Type a play as its cards in any order (33, 34567, 888k, t9j87 — T or 10 is ten, B and R the \
small and big joker), or pass when following. Commands: hint (the network's best plays), history \
(the plays so far), quit (end the game; it is saved as unfinished).\nPlays: solo, pair, trio, trio with a \
solo or a pair, chains of 5+ solos, 3+ pairs or 2+ trios (3 to A), airplanes with wings, four with two \
solos or two pairs, bombs (four of a kind) and the rocket (BR).";

const TWO_PLAYER_HELP: &str = "Two-player: 46 cards (no 3s or 4s), one opponent, and 9 cards set aside that \
nobody sees. Bidding: call or pass; after a call, rob or pass (each rob doubles the stake and concedes the farmer \
a card). The farmer wins as soon as no more cards than the conceded ones are left in their hand; one pass ends \
a trick.";

const LAIZI_HELP: &str = "Laizi: the four cards of the wild rank are wild; each stands for any rank from 3 to 2 \
(never a joker), so 5557 with 7s wild is a bomb of 5s or a trio of 5s with a 7. When your cards make more than \
one play, say which: 5557 as 5555. Bombs: the rocket > four wild cards > four natural cards > bombs with wild cards.";

impl Screen {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
    }
    fn card(&self, card: Card) -> String {
        let text = card.to_string();
        if text.contains(['♥', '♦']) || text == "R" { self.paint("31", &text) } else { text }
    }
}

/// A seat by its role once the landlord is known; during the bidding by its place beside you.
fn seat_name(session: &Session, seat: Seat) -> String {
    match session.state().role(seat) {
        Some(role) => role.name_at(session.state().table()).to_string(),
        None if session.state().table().len() == 2 && seat != session.human() => "the other player".into(),
        None if seat == session.state().table().next(session.human()) => "the player after you".into(),
        None if seat == session.state().table().prev(session.human()) => "the player before you".into(),
        None => "you".into(),
    }
}

fn seat_label(session: &Session, seat: Seat) -> String {
    let name = seat_name(session, seat);
    if seat == session.human() {
        format!("you ({name})")
    } else {
        format!("{name} ({})", session.names()[seat.index()])
    }
}

/// Plays the session to its end or until the person quits, then saves its log in `log_dir`.
pub fn run(
    session: &mut Session,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    log_dir: &Path,
    screen: Screen,
) -> io::Result<Ending> {
    intro(session, out, screen)?;
    let mut announced = session.state().landlord().is_some();
    loop {
        for event in session.play_agents() {
            show_event(session, &event, out)?;
        }
        if !announced && session.state().landlord().is_some() {
            announce_landlord(session, out, screen)?;
            announced = true;
        }
        if session.is_over() {
            finish(session, out, screen)?;
            let path = session.save(log_dir)?;
            writeln!(out, "Log: {}", path.display())?;
            return Ok(Ending::Finished(path));
        }
        show_turn(session, out, screen)?;
        // Bytes that are not UTF-8 become an entry that is refused with its reason, not an error.
        let mut bytes = Vec::new();
        let line = if input.read_until(b'\n', &mut bytes)? == 0 { None } else { Some(String::from_utf8_lossy(&bytes)) };
        let entry = line.as_deref().map_or("quit", str::trim);
        if !screen.interactive {
            // Cut like every error reply: a huge entry is not echoed back whole.
            writeln!(out, "{}", brief(entry))?;
        }
        if entry.eq_ignore_ascii_case("quit") {
            let path = session.save(log_dir)?;
            writeln!(out, "Game left unfinished. Log: {}", path.display())?;
            return Ok(Ending::Quit(path));
        }
        command(session, entry, out, screen)?;
    }
}

fn two_player(session: &Session) -> bool {
    session.state().config().rules == Rules::TwoPlayer
}

fn intro(session: &Session, out: &mut dyn Write, screen: Screen) -> io::Result<()> {
    let s = session.state();
    let table = s.table();
    if two_player(session) {
        writeln!(out, "{}", screen.paint("1", "Two-player Dou Dizhu: 46 cards, 9 set aside unseen (type help)."))?;
    }
    if s.landlord().is_none() {
        let how = match two_player(session) {
            true => {
                "Bidding: call or pass; after a call, rob or pass (each rob doubles the stake and concedes a card)."
            }
            false => "Bidding: pass or bid 1, 2 or 3, above the highest bid; a 3 ends it.",
        };
        writeln!(out, "{}", screen.paint("1", how))?;
        writeln!(out, "First to bid: {}.", seat_label(session, s.config().first_bidder))?;
    } else {
        let you = s.role(session.human()).map_or("?", |r| r.name_at(table));
        writeln!(out, "{}", screen.paint("1", &format!("You play {you}.")))?;
        for &seat in table.seats().iter().filter(|&&seat| seat != session.human()) {
            writeln!(out, "{}", seat_label(session, seat))?;
        }
        announce_landlord(session, out, screen)?;
    }
    let examples = if two_player(session) { "55, 56789" } else { "33, 34567" };
    writeln!(out, "Type a play ({examples}, pass), or hint, history, help, quit.")
}

fn announce_landlord(session: &Session, out: &mut dyn Write, screen: Screen) -> io::Result<()> {
    let s = session.state();
    let landlord = s.landlord().expect("announced once known");
    let bottom: Vec<String> = s.bottom().iter().map(|c| screen.card(c)).collect();
    let stake = s.base() as u64 * (1u64 << s.robs());
    writeln!(out, "Landlord: {}. Bottom: {}. Stake: {stake}.", seat_label(session, landlord), bottom.join(" "))?;
    if two_player(session) {
        let conceded = s.conceded();
        writeln!(out, "The farmer wins with {conceded} card(s) or fewer left ({conceded} conceded).")?;
    }
    Ok(())
}

fn command(session: &mut Session, entry: &str, out: &mut dyn Write, screen: Screen) -> io::Result<()> {
    match entry.to_ascii_lowercase().as_str() {
        "help" | "?" if session.state().config().rules == Rules::Laizi => writeln!(out, "{HELP}\n{LAIZI_HELP}"),
        "help" | "?" if two_player(session) => writeln!(out, "{HELP}\n{TWO_PLAYER_HELP}"),
        "help" | "?" => writeln!(out, "{HELP}"),
        "history" => {
            for r in session.state().play_record().to_vec() {
                writeln!(out, "  {}: {}", seat_label(session, r.seat), shown(&r.play))?;
            }
            Ok(())
        }
        "hint" if session.bidding() => writeln!(out, "No hint while bidding: the network plays, the bids are yours."),
        "hint" => match session.hints() {
            Some(hints) => {
                let best: Vec<String> = hints.iter().map(|(p, q)| format!("{} (Q {q:+.2})", shown(p))).collect();
                writeln!(out, "Hint (best {HINTS}): {}", best.join(", "))
            }
            None => writeln!(out, "No hint: neither agent has a network."),
        },
        _ if session.bidding() => match session.bid_human(entry) {
            Ok(0) => writeln!(out, "  you: pass"),
            Ok(_) if two_player(session) => writeln!(out, "  you: {}", call_or_rob(session)),
            Ok(bid) => writeln!(out, "  you: bid {bid}"),
            Err(reason) => {
                writeln!(out, "{}", screen.paint("33", &format!("Not bid: {}. Try again.", brief(&reason.0))))
            }
        },
        _ => match session.play_human(entry) {
            Ok(play) => writeln!(out, "  you: {}", shown(&play)),
            Err(reason) => {
                writeln!(out, "{}", screen.paint("33", &format!("Not played: {}. Try again.", brief(&reason.0))))
            }
        },
    }
}

fn show_event(session: &Session, event: &Event, out: &mut dyn Write) -> io::Result<()> {
    match event {
        Event::Play(r) => show_play(session, r, out),
        Event::Bid { seat, bid: 0 } => writeln!(out, "  {}: pass", seat_label(session, *seat)),
        Event::Bid { seat, .. } if two_player(session) => {
            writeln!(out, "  {}: {}", seat_label(session, *seat), call_or_rob(session))
        }
        Event::Bid { seat, bid } => writeln!(out, "  {}: bid {bid}", seat_label(session, *seat)),
        Event::Redeal => writeln!(out, "Everyone passed: the cards are dealt again."),
        Event::Wild(w) => writeln!(
            out,
            "Wild rank: {w}. The four {w}s are wild: each stands for any rank from 3 to 2 (type help for more)."
        ),
    }
}

/// A two-player bid of 1 as what it was: the first is a call, every later one a rob. Told
/// after it is made (from the calls so far), so the last call made is the one named.
fn call_or_rob(session: &Session) -> &'static str {
    if session.state().bids().iter().filter(|&&b| b == 1).count() > 1 { "rob" } else { "call" }
}

fn show_play(session: &Session, r: &PlayRecord, out: &mut dyn Write) -> io::Result<()> {
    let left = session.state().cards_left(r.seat);
    writeln!(out, "  {}: {}   ({left} left)", seat_label(session, r.seat), shown(&r.play))
}

fn show_turn(session: &Session, out: &mut dyn Write, screen: Screen) -> io::Result<()> {
    let s = session.state();
    let table = s.table();
    if session.bidding() {
        match (two_player(session), s.bids().contains(&1)) {
            (true, false) => writeln!(out, "Your bid: call, or pass.")?,
            (true, true) => writeln!(out, "Your bid: rob (the stake doubles, the farmer gets a card more), or pass.")?,
            (false, _) => {
                let high = s.bids().iter().max().copied().unwrap_or(0);
                writeln!(out, "Your bid: pass, or above the highest bid so far ({high}), at most 3.")?;
            }
        }
        return show_hand(session, out, screen);
    }
    let left: Vec<String> = table
        .seats()
        .iter()
        .map(|&seat| format!("{} {}", s.role(seat).map_or("?", |r| r.name_at(table)), s.cards_left(seat)))
        .collect();
    let target = match two_player(session) {
        true => format!(" (the farmer wins at {} or fewer)", s.conceded()),
        false => String::new(),
    };
    writeln!(out, "Cards left: {}{target}", left.join(" · "))?;
    match s.rival() {
        Some(r) => writeln!(out, "To beat: {} ({})", shown(&r.play), seat_label(session, r.seat))?,
        None => writeln!(out, "You lead.")?,
    }
    show_hand(session, out, screen)
}

fn show_hand(session: &Session, out: &mut dyn Write, screen: Screen) -> io::Result<()> {
    let hand = cards_in_hand(session.state(), session.human());
    let wild = session.state().wild();
    // A wild card is marked with a star, so it stands out in the hand.
    let mark = |c: Card| {
        if wild.is_some_and(|w| w.rank() == c.rank()) { screen.paint("1;33", &format!("{c}*")) } else { screen.card(c) }
    };
    let cards: Vec<String> = hand.iter().map(|&c| mark(c)).collect();
    let note = wild.map_or(String::new(), |w| format!(" — {w}s are wild (*)"));
    writeln!(out, "Your hand ({}): {}{note}", hand.len(), cards.join(" "))?;
    write!(out, "> ")?;
    out.flush()
}

fn finish(session: &Session, out: &mut dyn Write, screen: Screen) -> io::Result<()> {
    let result = session.screen().result.ok_or_else(|| io::Error::other("the game has no result yet"))?;
    let winner = match (result.landlord_won, two_player(session)) {
        (true, _) => "The landlord wins",
        (false, true) => "The farmer wins",
        (false, false) => "The farmers win",
    };
    let verdict = if result.you_won { screen.paint("32;1", "you win") } else { screen.paint("31;1", "you lose") };
    let mut doubles = Vec::new();
    if result.bombs > 0 {
        doubles.push(format!("{} bomb(s) or rocket ×{}", result.bombs, 1u64 << result.bombs));
    }
    if result.robs > 0 {
        doubles.push(format!("{} rob(s) ×{}", result.robs, 1u64 << result.robs));
    }
    if result.spring {
        doubles.push(if result.landlord_won { "spring ×2".into() } else { "anti-spring ×2".into() });
    }
    let how = if doubles.is_empty() { String::new() } else { format!(" ({})", doubles.join(", ")) };
    writeln!(out, "{winner}: {verdict}. Your points: {:+}{how}.", result.points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::AgentSpec;
    use crate::game::generate_deals;

    #[test]
    fn a_huge_entry_is_cut_in_the_echo_and_the_reason() {
        let deal = &generate_deals(1, 7)[0];
        let mut session = Session::new(deal, Seat::S0, &[AgentSpec::Rule, AgentSpec::Rule], 7, "human:test").unwrap();
        let huge = "x".repeat(10 << 20);
        let input = format!("{huge}\nquit\n");
        let dir = std::env::temp_dir().join(format!("ddz-huge-entry-{}", std::process::id()));
        let mut out = Vec::new();
        let screen = Screen { colour: false, interactive: false };
        let ending = run(&mut session, &mut input.as_bytes(), &mut out, &dir, screen).unwrap();
        assert!(matches!(ending, Ending::Quit(_)));
        let text = String::from_utf8(out).unwrap();
        assert!(text.len() < 10_000, "the 10 MB entry is not echoed back: {} bytes out", text.len());
        assert!(text.contains("bytes in all)") && text.contains("Not played:"), "{}", brief(&text));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
