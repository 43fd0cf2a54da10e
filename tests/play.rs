//! A person's games through the real binary: `ddz play` over pipes (whole games, entries
//! rejected with reasons), `ddz serve` over real HTTP (the API, its errors and bounds), the
//! bounded load test, and the logs those games write feeding `ddz logs check` and `ddz pretrain`.

use ddz::cards::Counts;
use ddz::game::{MoveList, Play, WildRank, legal_plays};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

const NETWORK: &str = "checkpoint:models/dmc-rule-2h";
const LAIZI_NETWORK: &str = "checkpoint:models/laizi-1h";
const TWO_PLAYER_NETWORK: &str = "checkpoint:models/two-player-1h";

fn ddz() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ddz"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddz-play-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `ddz play` process driven line by line.
struct Terminal {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    transcript: String,
}

/// What the screen asks for: the hand and the play to beat.
struct Prompt {
    hand: Counts,
    rival: Option<Play>,
    /// The lines since the last entry.
    text: String,
}

impl Terminal {
    fn start(args: &[&str]) -> Terminal {
        let mut child = ddz().arg("play").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Terminal { child, stdin, stdout, transcript: String::new() }
    }

    /// Reads to the next prompt; `Err` holds the text when the game ended instead.
    fn next(&mut self) -> Result<Prompt, String> {
        let (mut text, mut rival) = (String::new(), None);
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the game stopped early:\n{}", self.transcript);
            self.transcript.push_str(&line);
            text.push_str(&line);
            if let Some(rest) = line.strip_prefix("To beat: ") {
                // A laizi play with wild cards (`4K as KK`) is read by the laizi test itself.
                rival = Play::parse(rest.split(" (").next().unwrap()).ok();
            }
            if let Some(rest) = line.strip_prefix("Your hand (") {
                // Under laizi the line ends with a note on the wild rank.
                let cards = rest.split_once("): ").unwrap().1.split(" — ").next().unwrap();
                let ranks: String = cards.split_whitespace().map(|c| c.chars().next().unwrap()).collect();
                return Ok(Prompt { hand: Counts::parse(&ranks).unwrap(), rival, text });
            }
            if line.contains("Log: ") {
                return Err(text);
            }
        }
    }

    fn send(&mut self, entry: &str) {
        writeln!(self.stdin, "{entry}").unwrap();
    }

    fn finish(mut self) -> String {
        drop(self.stdin);
        std::io::Read::read_to_string(&mut self.stdout, &mut self.transcript).unwrap();
        assert!(self.child.wait().unwrap().success(), "{}", self.transcript);
        self.transcript
    }
}

/// A random legal play, typed in another order and lower case.
fn typed(prompt: &Prompt, rng: &mut SmallRng) -> String {
    let mut plays = MoveList::new();
    legal_plays(prompt.hand, prompt.rival.as_ref(), &mut plays);
    let play = plays[rng.random_range(0..plays.len())];
    if play.is_pass() { "PASS".into() } else { play.to_string().chars().rev().collect::<String>().to_lowercase() }
}

/// Plays one whole game in `seat`; at the first chances, tries entries that must be refused.
fn terminal_game(seat: &str, deal: &str, dir: &Path, seed: u64) -> String {
    let mut t =
        Terminal::start(&["--seat", seat, "--deal", deal, "--agents", NETWORK, "--log-dir", dir.to_str().unwrap()]);
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut tried_pass, mut tried_missing, mut tried_low, mut hinted) = (false, false, false, false);
    let mut prompt = t.next().unwrap();
    loop {
        let refusal = if prompt.rival.is_none() && !tried_pass {
            tried_pass = true;
            Some(("pass".to_string(), "a pass is not allowed when you lead".to_string()))
        } else if !tried_missing {
            tried_missing = true;
            let r = (0..15u8).find(|&r| prompt.hand.get(r) == 0).unwrap();
            let c = ddz::cards::rank_char(r);
            Some((c.to_string(), format!("you hold no {c}")))
        } else if let Some(low) = prompt.rival.filter(|r| r.kind == ddz::game::Kind::Solo && !tried_low).and_then(|r| {
            prompt.hand.iter().map(|(k, _)| k).find(|&k| k <= r.main).map(|k| (ddz::cards::rank_char(k), r))
        }) {
            tried_low = true;
            Some((low.0.to_string(), format!("{} does not beat {}", low.0, low.1)))
        } else {
            None
        };
        if let Some((entry, reason)) = refusal {
            t.send(&entry);
            prompt = t.next().unwrap();
            assert!(prompt.text.contains(&format!("Not played: {reason}")), "{entry}: {}", prompt.text);
            continue;
        }
        if !hinted {
            hinted = true;
            t.send("hint");
            prompt = t.next().unwrap();
            assert!(prompt.text.contains("Hint (best 3): "), "{}", prompt.text);
        }
        t.send(&typed(&prompt, &mut rng));
        match t.next() {
            Ok(p) => {
                assert!(!p.text.contains("Not played"), "a legal play was refused: {}", p.text);
                prompt = p;
            }
            Err(end) => {
                assert!(end.contains(": you win.") || end.contains(": you lose."), "{end}");
                assert!(tried_pass || seat != "landlord", "the landlord leads first");
                return t.finish();
            }
        }
    }
}

#[test]
fn whole_terminal_games_refuse_bad_entries_and_write_logs_for_pretraining() {
    let dir = scratch("terminal");
    for (k, seat) in ["landlord", "landlord_down", "landlord_up"].iter().enumerate() {
        let transcript = terminal_game(seat, &k.to_string(), &dir, k as u64);
        assert!(transcript.contains(&format!("You play {seat}.")), "{transcript}");
    }
    // Quitting saves the game as unfinished, apart from the finished ones.
    let mut t =
        Terminal::start(&["--seat", "landlord", "--seed", "5", "--agents", "rule", "--log-dir", dir.to_str().unwrap()]);
    t.next().unwrap();
    t.send("quit");
    assert!(t.finish().contains("Game left unfinished. Log: "));
    let games = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&games).unwrap();
    assert_eq!(text.lines().count(), 3);
    for line in text.lines() {
        let log: Value = serde_json::from_str(line).unwrap();
        assert_eq!(log["source"], "human:terminal");
        assert_eq!(log["players"].as_array().unwrap().iter().filter(|p| *p == "human").count(), 1, "{log}");
    }
    assert_eq!(std::fs::read_to_string(dir.join("unfinished.jsonl")).unwrap().lines().count(), 1);
    let check = ddz().args(["logs", "check", games.to_str().unwrap()]).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    assert!(String::from_utf8_lossy(&check.stdout).contains("3 valid game(s), 0 invalid"));
    let out = dir.join("pretrained");
    let pre = ddz()
        .args(["pretrain", "--logs", games.to_str().unwrap(), "--out", out.to_str().unwrap(), "--steps", "2"])
        .args(["--device", "cpu", "--player", "human"])
        .output()
        .unwrap();
    assert!(pre.status.success(), "{}", String::from_utf8_lossy(&pre.stderr));
    assert!(out.join("model.safetensors").is_file());
    let samples = || {
        let report: Value = serde_json::from_str(&std::fs::read_to_string(out.join("pretrain.json")).unwrap()).unwrap();
        report["summary"]["train_samples"].as_u64().unwrap() + report["summary"]["val_samples"].as_u64().unwrap()
    };
    let people = samples();
    let everyone = ddz()
        .args(["pretrain", "--logs", games.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--steps", "1", "--device", "cpu"])
        .output()
        .unwrap();
    assert!(everyone.status.success());
    let all = samples();
    assert!(people > 0 && people < all, "the person's decisions only: {people} of {all}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_terminal_game_with_bidding_starts_with_the_bids_and_logs_them() {
    let dir = scratch("bidding");
    let args = ["--bidding", "--seat", "landlord", "--seed", "11", "--agents", NETWORK, "--log-dir"];
    let mut t = Terminal::start(&[&args[..], &[dir.to_str().unwrap()]].concat());
    let mut rng = SmallRng::seed_from_u64(4);
    let (mut refused, mut bids) = (false, 0);
    let mut prompt = t.next().unwrap();
    loop {
        if prompt.text.contains("Your bid:") {
            if !refused {
                refused = true;
                t.send("5");
                prompt = t.next().unwrap();
                assert!(prompt.text.contains("Not bid: bid 5 is not allowed"), "{}", prompt.text);
                continue;
            }
            t.send("bid 3"); // above any bid still open, so always allowed
            bids += 1;
        } else {
            assert_eq!(bids, 1, "the bidding comes first");
            t.send(&typed(&prompt, &mut rng));
        }
        match t.next() {
            Ok(p) => prompt = p,
            Err(end) => {
                assert!(end.contains(": you win.") || end.contains(": you lose."), "{end}");
                break;
            }
        }
    }
    let transcript = t.finish();
    assert!(
        transcript.contains("Landlord: you (landlord). Bottom: ") && transcript.contains("Stake: 3."),
        "{transcript}"
    );
    let games = dir.join("games.jsonl");
    let log: Value = serde_json::from_str(std::fs::read_to_string(&games).unwrap().trim()).unwrap();
    assert_eq!(log["bids"].as_array().unwrap().last().unwrap(), 3, "{log}");
    let check = ddz().args(["logs", "check", games.to_str().unwrap()]).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The laizi play a screen line names: `5557 as 5555` (cards, then what they stand for) or cards.
fn laizi_play(text: &str, wild: WildRank) -> Play {
    let (cards, reading) = text.split_once(" as ").unwrap_or((text, text));
    if cards == "pass" {
        return Play::PASS;
    }
    let (cards, reading) = (Counts::parse(cards).unwrap(), Counts::parse(reading).unwrap());
    ddz::game::laizi::read_play(cards, reading, wild).unwrap()
}

#[test]
fn a_laizi_terminal_game_shows_the_wild_rank_asks_for_readings_and_logs_for_pretraining() {
    let dir = scratch("laizi");
    let log_dir = dir.to_str().unwrap();
    // A standard network cannot play laizi: said before the game, naming the agent.
    let wrong = ddz().args(["play", "--rules", "laizi", "--agents", NETWORK, "--log-dir", log_dir]).output().unwrap();
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success() && said.contains("trained for standard rules"), "{said}");
    let mut asked = 0;
    for (seed, bidding) in [(3u64, false), (8, true)] {
        let seed_text = seed.to_string();
        let mut args = vec!["--rules", "laizi", "--seat", "landlord", "--seed", &seed_text, "--log-dir", log_dir];
        if bidding {
            args.push("--bidding");
        }
        let mut t = Terminal::start(&args);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut wild: Option<WildRank> = None;
        let mut prompt = t.next().unwrap();
        loop {
            if let Some(w) = prompt.text.split("Wild rank: ").nth(1) {
                wild = Some(WildRank::parse(&w[..1]).unwrap());
            }
            if prompt.text.contains("Your bid:") {
                assert!(wild.is_none(), "the wild rank is drawn after the bidding");
                t.send("bid 3");
                prompt = t.next().unwrap();
                continue;
            }
            let w = wild.expect("the wild rank is shown before the first play");
            let rival = prompt.text.lines().find_map(|l| l.strip_prefix("To beat: ")).map(|r| {
                let text = r.split_once(" (").unwrap().0;
                laizi_play(text, w)
            });
            let plays = ddz::game::laizi::legal_plays_vec(prompt.hand, w, rival.as_ref());
            let twins = |play: &Play| plays.iter().filter(|p| p.cards == play.cards).count();
            // Once, cards with more than one reading where the hand has some; else any play.
            let ambiguous: Vec<Play> = plays.iter().copied().filter(|p| twins(p) > 1).collect();
            let play = match ambiguous.is_empty() || asked > 0 {
                true => plays[rng.random_range(0..plays.len())],
                false => ambiguous[rng.random_range(0..ambiguous.len())],
            };
            let twins = twins(&play);
            if twins > 1 {
                // The cards alone make more than one play: the person is asked which.
                asked += 1;
                t.send(&play.cards.to_string());
                prompt = t.next().unwrap();
                assert!(prompt.text.contains(&format!("can be played {twins} ways: type `")), "{}", prompt.text);
                t.send(&format!("{} as {}", play.cards, play.reading()));
            } else if play.is_pass() {
                t.send("pass");
            } else {
                t.send(&play.cards.to_string().to_lowercase());
            }
            match t.next() {
                Ok(p) => {
                    assert!(!p.text.contains("Not played"), "a legal play was refused: {}", p.text);
                    prompt = p;
                }
                Err(end) => {
                    assert!(end.contains(": you win.") || end.contains(": you lose."), "{end}");
                    break;
                }
            }
        }
        let transcript = t.finish();
        assert!(transcript.contains("s are wild (*)"), "{transcript}");
    }
    assert!(asked > 0, "the seeds give the person cards with more than one reading");
    let games = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&games).unwrap();
    assert_eq!(text.lines().count(), 2);
    for line in text.lines() {
        let log: Value = serde_json::from_str(line).unwrap();
        assert!(log["wild"].as_str().is_some_and(|w| w.len() == 1), "{log}");
    }
    let net = variant_logs_pretrain(&dir, &games, "laizi", "configs/laizi.toml");
    assert_eq!(net.config().rules, ddz::game::Rules::Laizi);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A variant's game logs pass `ddz logs check`, pretrain a network of its rules with the
/// variant's `config`, and are refused by the standard config, naming the rules; the network.
fn variant_logs_pretrain(dir: &Path, games: &Path, rules: &str, config: &str) -> ddz::model::QNet {
    let check = ddz().args(["logs", "check", games.to_str().unwrap()]).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    let out = dir.join("pretrained");
    let pretrain = |config: &str| {
        ddz()
            .args(["pretrain", "--logs", games.to_str().unwrap(), "--out", out.to_str().unwrap(), "--steps", "2"])
            .args(["--device", "cpu", "--config", config])
            .output()
            .unwrap()
    };
    let standard = pretrain("configs/dmc.toml");
    let said = String::from_utf8_lossy(&standard.stderr);
    assert!(!standard.status.success() && said.contains(&format!("the logs hold {rules} games")), "{said}");
    let variant = pretrain(config);
    assert!(variant.status.success(), "{}", String::from_utf8_lossy(&variant.stderr));
    // A file mixing rule sets: with --skip-invalid, the standard games are left out, not the file.
    let mixed = dir.join("mixed.jsonl");
    let shipped = std::fs::read_to_string("tests/data/rule_selfplay_2000.jsonl").unwrap();
    let standard: String = shipped.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(&mixed, format!("{standard}{}", std::fs::read_to_string(games).unwrap())).unwrap();
    let skipping = ddz()
        .args(["pretrain", "--logs", mixed.to_str().unwrap(), "--out", out.to_str().unwrap(), "--steps", "2"])
        .args(["--device", "cpu", "--config", config, "--skip-invalid"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&skipping.stderr);
    assert!(skipping.status.success(), "{said}");
    assert!(said.contains(&format!("skipped 3 game(s) of other rules than the network's ({rules} rules)")), "{said}");
    ddz::model::load_network(&out.join("model.safetensors")).unwrap()
}

#[test]
fn a_two_player_terminal_game_calls_robs_and_logs_for_pretraining() {
    let dir = scratch("two-player");
    let log_dir = dir.to_str().unwrap();
    // A standard network cannot play two-player games: said before the game.
    let wrong =
        ddz().args(["play", "--rules", "two_player", "--agents", NETWORK, "--log-dir", log_dir]).output().unwrap();
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success() && said.contains("trained for standard rules"), "{said}");
    let mut robbed = false;
    for (seed, seat, bidding) in [(3u64, "farmer", true), (4, "landlord", true), (5, "farmer", false)] {
        let seed_text = seed.to_string();
        let mut args = vec!["--rules", "two_player", "--seat", seat, "--seed", &seed_text, "--log-dir", log_dir];
        args.extend(["--agents", TWO_PLAYER_NETWORK]);
        if bidding {
            args.push("--bidding");
        }
        let mut t = Terminal::start(&args);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut prompt = t.next().unwrap();
        loop {
            if prompt.text.contains("Your bid: call") {
                t.send("call");
            } else if prompt.text.contains("Your bid: rob") {
                robbed = true;
                t.send("rob");
            } else {
                assert!(!prompt.hand.iter().any(|(r, _)| r < 2), "no 3s or 4s: {}", prompt.text);
                assert!(prompt.text.contains("(the farmer wins at "), "{}", prompt.text);
                t.send(&typed(&prompt, &mut rng));
            }
            match t.next() {
                Ok(p) => {
                    assert!(!p.text.contains("Not played") && !p.text.contains("Not bid"), "{}", p.text);
                    prompt = p;
                }
                Err(end) => {
                    let verdict = end.contains("The farmer wins: ") || end.contains("The landlord wins: ");
                    assert!(verdict && !end.contains("farmers"), "{end}");
                    break;
                }
            }
        }
        let transcript = t.finish();
        assert!(transcript.contains("Two-player Dou Dizhu: 46 cards"), "{transcript}");
        assert!(transcript.contains("card(s) or fewer left ("), "{transcript}");
        assert!(!transcript.contains("the player before you"), "one opponent: {transcript}");
    }
    assert!(robbed, "a seed gives the person a rob to make");
    let games = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&games).unwrap();
    assert_eq!(text.lines().count(), 3);
    for line in text.lines() {
        let log: Value = serde_json::from_str(line).unwrap();
        assert_eq!((log["rules"].as_str(), log["hands"].as_array().unwrap().len()), (Some("two_player"), 2), "{log}");
    }
    let net = variant_logs_pretrain(&dir, &games, "two_player", "configs/two_player.toml");
    assert_eq!(net.config().rules, ddz::game::Rules::TwoPlayer);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `ddz serve` process on a free port, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::of(ddz().args(["serve", "--port", "0"]).args(args))
    }

    /// A server started by `command`, once it has printed its address.
    fn of(command: &mut Command) -> Server {
        let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the address is printed");
        Server { child, base: url.trim_end_matches('/').to_string() }
    }
}

impl Server {
    /// Sends `signal` (`-TERM`, `-INT`) and waits for the exit, panicking past `most`; the
    /// exit status and how long the stop took.
    fn stop_within(&mut self, signal: &str, most: Duration) -> (std::process::ExitStatus, Duration) {
        let pid = self.child.id().to_string();
        let stop = std::time::Instant::now();
        assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
        loop {
            match self.child.try_wait().unwrap() {
                Some(status) => return (status, stop.elapsed()),
                None if stop.elapsed() > most => panic!("still serving {most:?} after {signal}"),
                None => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// Status and JSON body of a request with a raw body.
fn call(method: &str, url: &str, body: Option<&str>) -> (u16, Value) {
    let agent = client();
    let mut reply = match (method, body) {
        ("GET", _) => agent.get(url).call().unwrap(),
        (_, Some(b)) => agent.post(url).header("Content-Type", "application/json").send(b).unwrap(),
        (_, None) => agent.post(url).send_empty().unwrap(),
    };
    let status = reply.status().as_u16();
    let text = reply.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {url}: not JSON ({e}): {text}")))
}

#[test]
fn the_web_api_shows_one_seat_and_answers_bad_requests_with_json_errors() {
    let dir = scratch("api");
    let server = Server::start(&[
        "--agents",
        NETWORK,
        "--log-dir",
        dir.to_str().unwrap(),
        "--max-games",
        "2",
        "--idle-minutes",
        "0.05",
    ]);
    let base = &server.base;
    let page = client().get(&format!("{base}/")).call().unwrap().body_mut().read_to_string().unwrap();
    assert!(page.contains("<button id=\"play\"") && !page.contains("src=\"http") && !page.contains("href=\"http"));

    let (status, game) = call("POST", &format!("{base}/api/games"), Some(r#"{"seat":"landlord_up","deal":3}"#));
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_string();
    assert!(id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    let view = &game["view"];
    assert_eq!((view["you"].as_u64(), view["to_move"].as_u64()), (Some(2), Some(2)));
    assert_eq!(view["hand"].as_array().unwrap().len(), 17);
    let deal = &ddz::game::default_deals()[3];
    let shown: String = view["hand"].as_array().unwrap().iter().map(|c| c["rank"].as_str().unwrap()).collect();
    assert_eq!(Counts::parse(&shown).unwrap(), deal.hands[2].counts(), "the person's own cards");
    let text = game.to_string();
    for other in [0, 1] {
        assert!(!text.contains(&deal.hands[other].counts().to_string()), "another seat's hand was sent: {text}");
    }
    assert_eq!(game["agent_plays"].as_array().unwrap().len(), 2, "both agents played before the person");

    let play = |body: &str| call("POST", &format!("{base}/api/games/{id}/play"), Some(body));
    let missing = (0..15u8).find(|&r| deal.hands[2].counts().get(r) == 0).unwrap();
    let (s, e) = play(&json!({ "play": ddz::cards::rank_char(missing).to_string() }).to_string());
    assert_eq!(
        (s, e["error"].as_str().unwrap()),
        (400, format!("you hold no {}", ddz::cards::rank_char(missing)).as_str())
    );
    let (s, e) = play(r#"{"play" "33"}"#);
    assert_eq!(s, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("bad request body"), "{e}");
    let (s, e) = play(r#"{"cards":"33"}"#);
    assert_eq!(s, 422, "{e}");
    let (s, e) = play(&json!({ "play": "3".repeat(10_000) }).to_string());
    assert_eq!(s, 413, "{e}");
    let (s, e) = call("POST", &format!("{base}/api/games/{}/play", "0".repeat(32)), Some(r#"{"play":"3"}"#));
    assert_eq!(s, 404, "{e}");
    assert!(e["error"].as_str().unwrap().contains("unknown game"));
    let (s, e) = call("POST", &format!("{base}/api/games"), Some(r#"{"seat":"north"}"#));
    assert_eq!((s, e["error"].as_str().unwrap().contains("unknown seat")), (400, true), "{e}");
    let (s, hints) = call("POST", &format!("{base}/api/games/{id}/hint"), None);
    assert_eq!((s, hints["hints"].as_array().unwrap().len()), (200, 3), "{hints}");

    // Bounded: a third live game is refused; idle games expire and are saved as unfinished.
    let (s, _) = call("POST", &format!("{base}/api/games"), Some("{}"));
    assert_eq!(s, 201);
    let (s, e) = call("POST", &format!("{base}/api/games"), Some("{}"));
    assert_eq!(s, 503, "{e}");
    std::thread::sleep(Duration::from_millis(5000));
    let (s, _) = call("GET", &format!("{base}/api/games/{id}"), None);
    assert_eq!(s, 404, "an idle game expires");
    let unfinished = std::fs::read_to_string(dir.join("unfinished.jsonl")).unwrap();
    assert_eq!(unfinished.lines().count(), 2, "{unfinished}");
    let (s, _) = call("POST", &format!("{base}/api/games"), Some("{}"));
    assert_eq!(s, 201, "room again after the expiry; the server kept serving");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_finished_game_frees_its_slot_clients_are_bounded_and_every_error_is_json() {
    let dir = scratch("slots");
    let args = ["--agents", NETWORK, "--log-dir", dir.to_str().unwrap(), "--max-games", "1"];
    let server = Server::start(&[&args[..], &["--starts-per-minute", "3"]].concat());
    let base = &server.base;
    let (s, game) = call("POST", &format!("{base}/api/games"), Some(r#"{"seat":"landlord"}"#));
    assert_eq!(s, 201, "{game}");
    let (s, e) = call("POST", &format!("{base}/api/games"), Some("{}"));
    assert_eq!(s, 503, "one live game is the most: {e}");
    assert!(e["error"].as_str().unwrap().starts_with("1 games are being played"), "{e}");
    // Play it out with the hints: the last reply says it was saved, and the slot is free.
    let last = play_out_with_hints(base, game);
    assert_eq!(last["saved"], true, "{last}");
    assert_eq!(std::fs::read_to_string(dir.join("games.jsonl")).unwrap().lines().count(), 1);
    let (s, e) = call("POST", &format!("{base}/api/games"), Some("{}"));
    assert_eq!(s, 201, "the finished game holds no slot: {e}");
    // A client's fourth game within a minute.
    call("POST", &format!("{base}/api/games"), Some("{}"));
    let (s, e) = call("POST", &format!("{base}/api/games"), Some("{}"));
    assert_eq!(s, 429, "{e}");
    assert!(e["error"].as_str().unwrap().contains("started 3 games in the last minute"), "{e}");
    // A wrong method and an over-long URL: JSON like every other error.
    let mut reply = client().delete(&format!("{base}/api/games")).call().unwrap();
    let body: Value = serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(reply.status().as_u16(), 405, "{body}");
    assert!(body["error"].as_str().unwrap().contains("DELETE is not a method of /api/games"), "{body}");
    let (s, e) = call("GET", &format!("{base}/api/games/{}", "0".repeat(5000)), None);
    assert_eq!(s, 414, "{e}");
    assert!(e["error"].as_str().unwrap().contains("at most 2048"), "{e}");
    drop(server);
    let huge = ddz().args(["serve", "--port", "0", "--idle-minutes", "1e30"]).output().unwrap();
    let err = String::from_utf8_lossy(&huge.stderr);
    assert!(!huge.status.success() && err.contains("at most 10080"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn games_in_play_are_saved_as_unfinished_when_the_server_is_stopped() {
    for signal in ["-TERM", "-INT"] {
        let dir = scratch("stop");
        let mut server = Server::start(&["--agents", NETWORK, "--log-dir", dir.to_str().unwrap()]);
        for _ in 0..2 {
            let (s, e) = call("POST", &format!("{}/api/games", server.base), Some("{}"));
            assert_eq!(s, 201, "{e}");
        }
        let pid = server.child.id().to_string();
        assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
        let status = server.child.wait().unwrap();
        assert!(status.success(), "{signal}: a clean stop: {status:?}");
        let unfinished = std::fs::read_to_string(dir.join("unfinished.jsonl")).unwrap();
        assert_eq!(unfinished.lines().count(), 2, "{signal}: {unfinished}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn clients_that_never_finish_a_request_neither_lock_others_out_nor_hold_up_a_stop() {
    let dir = scratch("slow");
    let mut server = Server::start(&["--agents", NETWORK, "--log-dir", dir.to_str().unwrap()]);
    let (s, e) = call("POST", &format!("{}/api/games", server.base), Some("{}"));
    assert_eq!(s, 201, "{e}");
    let address = server.base.trim_start_matches("http://").to_string();
    // 300 clients that send half a request's headers and then nothing, and one that sends a
    // body of 100 bytes it announced as 1,000.
    let half = "GET / HTTP/1.1\r\nHost: x\r\n";
    let stalled: Vec<std::net::TcpStream> = (0..300)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(&address).unwrap();
            c.write_all(half.as_bytes()).unwrap();
            c
        })
        .collect();
    let mut slow_body = std::net::TcpStream::connect(&address).unwrap();
    let head = "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n";
    slow_body.write_all(format!("{head}{}", " ".repeat(100)).as_bytes()).unwrap();
    // Everyone else is answered meanwhile.
    let started = std::time::Instant::now();
    let (s, e) = call("GET", &format!("{}/api/openapi.json", server.base), None);
    assert!(s == 200 && started.elapsed() < Duration::from_secs(5), "{s} after {:?}: {e}", started.elapsed());
    // The server closes each stalled connection after its header deadline (10 s): reading
    // gives the end of the stream or an error, never a wait past the deadline.
    let mut closed = 0;
    for mut c in stalled.into_iter().take(20) {
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut buf = [0u8; 512];
        let read = std::io::Read::read(&mut c, &mut buf);
        let waited = matches!(&read, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut));
        closed += !waited as usize;
        assert!(started.elapsed() < Duration::from_secs(25), "connection still open after {:?}", started.elapsed());
    }
    assert_eq!(closed, 20);
    // A stop with clients that never finish their headers, and the one whose body is still
    // coming (a request in flight, which a graceful stop would wait for): the games in play
    // are saved, within seconds.
    let mut stalled_again: Vec<std::net::TcpStream> = Vec::new();
    for _ in 0..50 {
        let mut c = std::net::TcpStream::connect(&address).unwrap();
        c.write_all(half.as_bytes()).unwrap();
        stalled_again.push(c);
    }
    std::thread::sleep(Duration::from_millis(200));
    // Waited for 10 s at most (a server that never stops fails here; the drop kills it).
    let (status, took) = server.stop_within("-TERM", Duration::from_secs(10));
    assert!(status.success(), "a clean stop: {status:?}");
    assert!(took < Duration::from_secs(8), "stopped after {took:?}");
    let unfinished = std::fs::read_to_string(dir.join("unfinished.jsonl")).unwrap();
    assert_eq!(unfinished.lines().count(), 1, "{unfinished}");
    drop((stalled_again, slow_body));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A search agent with no time budget (`ms=`): 10 million simulations, minutes per decision.
const SLOW_AGENT: &str = "ismcts:random?sims=10000000";

#[test]
fn a_stop_saves_the_games_whose_agents_are_thinking_and_does_not_wait_for_them() {
    let dir = scratch("thinking");
    let mut server = Server::start(&["--agents", SLOW_AGENT, "--log-dir", dir.to_str().unwrap()]);
    let base = server.base.clone();
    // Game one: the person leads, then the agent after them thinks.
    let (s, game) = call("POST", &format!("{base}/api/games"), Some(r#"{"seat":"landlord","deal":2}"#));
    assert_eq!(s, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_string();
    let lead = game["view"]["hand"][0]["rank"].as_str().unwrap().to_string();
    let url = format!("{base}/api/games/{id}/play");
    let body = json!({ "play": lead }).to_string();
    let played = std::thread::spawn(move || client().post(&url).header("Content-Type", "application/json").send(&body));
    // Game two: the agent in the landlord's seat thinks before the start is answered.
    let url = format!("{base}/api/games");
    let started = std::thread::spawn(move || {
        client().post(&url).header("Content-Type", "application/json").send(r#"{"seat":"landlord_down","deal":4}"#)
    });
    std::thread::sleep(Duration::from_millis(1500));
    // The game is there to look at while its agent thinks: a look never waits for an agent.
    let look = std::time::Instant::now();
    let (s, shown) = call("GET", &format!("{base}/api/games/{id}"), None);
    assert_eq!((s, shown["view"]["to_move"].as_u64()), (200, Some(1)), "{shown}");
    assert!(look.elapsed() < Duration::from_secs(2), "a look waited {:?}", look.elapsed());
    let (status, took) = server.stop_within("-TERM", Duration::from_secs(15));
    assert!(status.success(), "a clean stop: {status:?}");
    // The grace for answers being written (5 s), then the save, never the agents' minutes.
    assert!(took < Duration::from_secs(9), "stopped after {took:?}");
    let unfinished = std::fs::read_to_string(dir.join("unfinished.jsonl")).unwrap();
    let mut plays: Vec<usize> = unfinished
        .lines()
        .map(|line| {
            let log: Value = serde_json::from_str(line).unwrap();
            assert!(log["players"].to_string().contains("ismcts"), "{log}");
            log["plays"].as_array().unwrap().len()
        })
        .collect();
    plays.sort();
    assert_eq!(plays, [0, 1], "both games, the person's lead in one: {unfinished}");
    // Both requests in flight were cut by the stop, not answered after it.
    assert!(played.join().unwrap().is_err() && started.join().unwrap().is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clients_that_pipeline_requests_and_never_read_are_cut_after_the_write_deadline() {
    let dir = scratch("unread");
    let server = Server::start(&["--agents", NETWORK, "--log-dir", dir.to_str().unwrap()]);
    let address = server.base.trim_start_matches("http://").to_string();
    // 4,000 requests for the page (16 KB each, 65 MB in all) sent at once, no answer read.
    const REQUESTS: usize = 4000;
    let page_bytes = client().get(&format!("{}/", server.base)).call().unwrap().body_mut().read_to_string().unwrap();
    let page_bytes = page_bytes.len();
    let greedy: Vec<std::net::TcpStream> = (0..3)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(&address).unwrap();
            c.write_all("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(REQUESTS).as_bytes()).unwrap();
            c
        })
        .collect();
    // Others are answered meanwhile.
    let (s, e) = call("GET", &format!("{}/api/openapi.json", server.base), None);
    assert_eq!(s, 200, "{e}");
    std::thread::sleep(ddz::serve::WRITE_TIME + Duration::from_secs(3));
    // Each connection was closed: what the kernel's buffers held arrives, then the end of the
    // stream (or a reset), far short of every answer.
    for mut c in greedy {
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut got = 0usize;
        let mut buf = vec![0u8; 1 << 16];
        let end = loop {
            match std::io::Read::read(&mut c, &mut buf) {
                Ok(0) => break "closed".to_string(),
                Ok(n) => got += n,
                Err(e) => break format!("{:?}", e.kind()),
            }
        };
        assert!(matches!(end.as_str(), "closed" | "ConnectionReset"), "the connection was left open: {end}");
        assert!(got < REQUESTS * page_bytes / 2, "{got} bytes: nearly every answer was written");
    }
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_web_api_plays_laizi_asking_for_readings_and_logs_the_wild_rank() {
    let dir = scratch("api-laizi");
    let server = Server::start(&["--rules", "laizi", "--agents", "rule", "--log-dir", dir.to_str().unwrap()]);
    let base = &server.base;
    let mut asked = 0;
    for deal in 0..3 {
        let body = json!({ "seat": "landlord", "deal": deal }).to_string();
        let (s, mut last) = call("POST", &format!("{base}/api/games"), Some(&body));
        assert_eq!(s, 201, "{last}");
        let id = last["id"].as_str().unwrap().to_string();
        let wild = WildRank::parse(last["view"]["wild"].as_str().expect("the view shows the wild rank")).unwrap();
        let mut rng = SmallRng::seed_from_u64(deal);
        while last["view"]["result"].is_null() {
            let view = &last["view"];
            let ranks: String = view["hand"].as_array().unwrap().iter().map(|c| c["rank"].as_str().unwrap()).collect();
            let rival = view["rival"].as_object().map(|r| {
                let cards = r["play"].as_str().unwrap();
                laizi_play(&format!("{cards} as {}", r.get("as").and_then(Value::as_str).unwrap_or(cards)), wild)
            });
            let plays = ddz::game::laizi::legal_plays_vec(Counts::parse(&ranks).unwrap(), wild, rival.as_ref());
            let twins = |play: &Play| plays.iter().filter(|p| p.cards == play.cards).count();
            // The view lists exactly the plays whose cards make more than one play.
            let listed: Vec<String> =
                view["readings"].as_array().map_or(vec![], |r| r.iter().map(|r| r["entry"].to_string()).collect());
            let mut expected: Vec<String> = plays
                .iter()
                .filter(|p| twins(p) > 1)
                .map(|p| json!(format!("{} as {}", p.cards, p.reading())).to_string())
                .collect();
            let mut sorted = listed.clone();
            sorted.sort();
            expected.sort();
            assert_eq!(sorted, expected);
            let ambiguous: Vec<Play> = plays.iter().copied().filter(|p| twins(p) > 1).collect();
            let play = match ambiguous.is_empty() || asked > 1 {
                true => plays[rng.random_range(0..plays.len())],
                false => ambiguous[rng.random_range(0..ambiguous.len())],
            };
            let url = format!("{base}/api/games/{id}/play");
            let entry = if twins(&play) > 1 {
                asked += 1;
                let (s, refused) = call("POST", &url, Some(&json!({ "play": play.cards.to_string() }).to_string()));
                assert_eq!(s, 400, "{refused}");
                assert!(refused["error"].as_str().unwrap().contains("ways: type `"), "{refused}");
                format!("{} as {}", play.cards, play.reading())
            } else {
                play.to_string()
            };
            let (s, reply) = call("POST", &url, Some(&json!({ "play": entry }).to_string()));
            assert_eq!(s, 200, "{entry}: {reply}");
            last = reply;
        }
        assert_eq!(last["saved"], true, "{last}");
    }
    assert!(asked > 0, "some deal gives the person cards with more than one reading");
    // Advice on a laizi position lists the plays with wild cards by their reading.
    let request = json!({"seat": "landlord", "hand": "33445567789TJQKA22BR", "bottom": "89R", "history": [],
                         "wild": "7"});
    let hand = Counts::parse("33445567789TJQKA22BR").unwrap();
    let (s, advice) = call("POST", &format!("{base}/api/advise"), Some(&request.to_string()));
    assert_eq!(s, 200, "{advice}");
    let plays: Vec<&str> = advice["plays"].as_array().unwrap().iter().map(|p| p["play"].as_str().unwrap()).collect();
    let wild = WildRank::parse("7").unwrap();
    assert_eq!(plays.len(), ddz::game::laizi::legal_plays_vec(hand, wild, None).len());
    assert!(plays.contains(&"77/77") && plays.contains(&"3333/33"), "{plays:?}");
    let games = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&games).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.lines().all(|l| serde_json::from_str::<Value>(l).unwrap()["wild"].is_string()), "{text}");
    let check = ddz().args(["logs", "check", games.to_str().unwrap()]).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    // A search agent or a standard network cannot play laizi: the server says so and does not start.
    let refused = ddz().args(["serve", "--rules", "laizi", "--agents", NETWORK, "--port", "0"]).output().unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("trained for standard rules"), "{said}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Plays game `id` out with the server's hints; the last reply.
fn play_out_with_hints(base: &str, mut last: Value) -> Value {
    let id = last["id"].as_str().unwrap().to_string();
    while last["view"]["result"].is_null() {
        let (s, hints) = call("POST", &format!("{base}/api/games/{id}/hint"), None);
        assert_eq!(s, 200, "{hints}");
        let play = hints["hints"][0]["play"].as_str().unwrap().to_string();
        let (s, reply) =
            call("POST", &format!("{base}/api/games/{id}/play"), Some(&json!({ "play": play }).to_string()));
        assert_eq!(s, 200, "{reply}");
        last = reply;
    }
    last
}

#[test]
fn finished_games_are_reviewed_over_the_api_and_on_the_review_page() {
    let dir = scratch("review");
    let server = Server::start(&["--agents", NETWORK, "--log-dir", dir.to_str().unwrap()]);
    let base = &server.base;
    let (s, game) = call("POST", &format!("{base}/api/games"), Some(r#"{"seat":"landlord_down","deal":5}"#));
    assert_eq!(s, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_string();
    let (s, e) = call("POST", &format!("{base}/api/games/{id}/review"), None);
    assert_eq!(s, 409, "not over yet: {e}");
    let last = play_out_with_hints(base, game);
    assert!(!last["view"]["result"].is_null());
    let (s, reviewed) = call("POST", &format!("{base}/api/games/{id}/review"), None);
    assert_eq!(s, 200, "{reviewed}");
    let review = &reviewed["review"];
    assert_eq!(review["schema"], "ddz.review/1");
    assert_eq!(review["seats"][1]["player"], "human", "{review}");
    let human = review["decisions"].as_array().unwrap().iter().filter(|d| d["seat"] == 1).count();
    assert!(human > 0 && reviewed["html"].as_str().unwrap().contains("<svg id=\"curve\""));
    // A log posted: a game of the shipped file, then bad ones, each a JSON error.
    let shipped = std::fs::read_to_string("tests/data/rule_selfplay_2000.jsonl").unwrap();
    let line = shipped.lines().next().unwrap();
    let (s, reviewed) = call("POST", &format!("{base}/api/review"), Some(line));
    assert_eq!((s, reviewed["review"]["source"].as_str()), (200, Some("synthetic:rule")), "{reviewed}");
    let mut cut: Value = serde_json::from_str(line).unwrap();
    cut["plays"].as_array_mut().unwrap().truncate(4);
    for (body, status, said) in [
        (cut.to_string(), 400, "the game does not finish"),
        (r#"{"hands":["33"]}"#.to_string(), 422, "missing field"),
        ("not json".to_string(), 400, "bad request body"),
        (format!("{{\"source\":\"{}\"}}", "x".repeat(100_000)), 413, ""),
    ] {
        let (s, e) = call("POST", &format!("{base}/api/review"), Some(&body));
        assert_eq!(s, status, "{e}");
        assert!(e["error"].as_str().unwrap().contains(said), "{e}");
    }
    let page = client().get(&format!("{base}/review")).call().unwrap().body_mut().read_to_string().unwrap();
    assert!(page.contains("id=\"go\"") && !page.contains("src=\"http"), "the review page, self-contained");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_game_the_disk_cannot_take_is_said_and_leaves_no_partial_line() {
    // A file-size limit of 1 KiB for the server (SIGXFSZ ignored, so a write past it fails with
    // EFBIG as on a full disk): a game's log line, a few KiB, cannot be written whole.
    let dir = scratch("full");
    let bin = env!("CARGO_BIN_EXE_ddz");
    let script =
        format!("trap '' XFSZ; ulimit -f 1; exec {bin} serve --port 0 --agents {NETWORK} --log-dir {}", dir.display());
    let server = Server::of(Command::new("bash").args(["-c", &script]));
    // Fixed deals, the person playing the hints: the same games every run.
    let mut saved = Vec::new();
    for deal in 0..3 {
        let body = json!({ "seat": "landlord", "deal": deal }).to_string();
        let (s, game) = call("POST", &format!("{}/api/games", server.base), Some(&body));
        assert_eq!(s, 201, "{game}");
        let last = play_out_with_hints(&server.base, game);
        saved.push(last["saved"].as_bool().expect("the last reply says whether the game was saved"));
    }
    assert!(saved.contains(&false), "some game did not fit: {saved:?}");
    // The file holds exactly the games said to be saved, each whole: a failed write was cut back.
    let written = std::fs::read_to_string(dir.join("games.jsonl")).unwrap_or_default();
    assert!(written.is_empty() || written.ends_with('\n'), "no partial line: {written:?}");
    assert_eq!(written.lines().count(), saved.iter().filter(|&&s| s).count(), "{saved:?}");
    for line in written.lines() {
        serde_json::from_str::<Value>(line).expect("a whole game line");
    }
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_hundred_games_at_once_lose_nothing() {
    let dir = scratch("load");
    let out = ddz()
        .args(["bench", "serve", "--agents", NETWORK, "--latency-games", "3", "--games", "100", "--timeout", "300"])
        .args(["--json", "--log-dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["nothing_lost"], true, "{r}");
    assert_eq!((r["concurrent_finished"].as_u64(), r["logged"].as_u64()), (Some(100), Some(103)), "{r}");
    assert_eq!(r["advice_requests"].as_u64(), Some(4 * ddz::bench::serve::ADVICE_CLIENTS as u64), "{r}");
    assert!(r["advice_concurrent_p90_ms"].as_f64().unwrap() > 0.0, "{r}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: installs Chromium and selenium on first use (scripts/test runs it)"]
fn a_whole_game_in_headless_chromium_by_clicking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let setup = Command::new("bash").arg(root.join("scripts/browser-setup.sh")).status().unwrap();
    assert!(setup.success(), "scripts/browser-setup.sh failed");
    let dir = scratch("browser");
    let server = Server::start(&["--agents", NETWORK, "--log-dir", dir.to_str().unwrap()]);
    for seat in ["landlord", "landlord_up"] {
        let out = Command::new(root.join(".venv/bin/python"))
            .arg(root.join("tests/browser/play_game.py"))
            .args([&format!("{}/", server.base), "--seat", seat, "--review"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(!result["plays"].as_array().unwrap().is_empty(), "{result}");
        if seat == "landlord" {
            assert_eq!(result["tried_pass"], true, "the refused pass was shown: {result}");
        }
        // "Review this game" at the end: the review page shows every play of the game.
        let plays = result["plays"].as_array().unwrap().len() as u64;
        assert!(result["reviewed_plays"].as_u64().unwrap() > plays, "{result}");
    }
    // The review page with a pasted log: the report is drawn, and a mistake clicked shows its
    // play's row.
    let log = root.join("tests/data/rule_selfplay_2000.jsonl");
    let out = Command::new(root.join(".venv/bin/python"))
        .arg(root.join("tests/browser/review_game.py"))
        .args([&format!("{}/review", server.base), log.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first: Value = serde_json::from_str(std::fs::read_to_string(&log).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(result["plays"].as_u64(), Some(first["plays"].as_array().unwrap().len() as u64), "{result}");
    assert!(result["mistakes"].as_u64().unwrap() > 0 && result["went_to"].as_str().unwrap().starts_with("move-"));
    drop(server);
    // With bidding: the page shows bid buttons first, and the log holds the bids.
    let server = Server::start(&["--agents", NETWORK, "--log-dir", dir.to_str().unwrap(), "--bidding"]);
    let out = Command::new(root.join(".venv/bin/python"))
        .arg(root.join("tests/browser/play_game.py"))
        .args([&format!("{}/", server.base), "--seat", "landlord_down"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    drop(server);
    let games = dir.join("games.jsonl");
    let text = std::fs::read_to_string(&games).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.lines().last().unwrap().contains(r#""bids":["#), "the bidding game logs its bids");
    assert!(text.lines().all(|l| l.contains(r#""source":"human:web""#)));
    let check = ddz().args(["logs", "check", games.to_str().unwrap()]).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    // Laizi: the page shows the wild rank and asks which reading is meant. The first deal whose
    // landlord holds cards with more than one reading at its lead (deal N plays from seed N).
    let laizi_dir = dir.join("laizi");
    let server =
        Server::start(&["--rules", "laizi", "--agents", LAIZI_NETWORK, "--log-dir", laizi_dir.to_str().unwrap()]);
    let deal = (0..50)
        .find(|n| {
            let body = json!({ "seat": "landlord", "deal": n }).to_string();
            let (_, game) = call("POST", &format!("{}/api/games", server.base), Some(&body));
            game["view"]["readings"].as_array().is_some_and(|r| !r.is_empty())
        })
        .expect("one of 50 deals gives the landlord a choice of readings");
    let out = Command::new(root.join(".venv/bin/python"))
        .arg(root.join("tests/browser/play_game.py"))
        .args([&format!("{}/?deal={deal}", server.base), "--seat", "landlord"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(result["wild"].is_string(), "{result}");
    assert!(!result["readings_chosen"].as_array().unwrap().is_empty(), "{result}");
    drop(server);
    let laizi_games = std::fs::read_to_string(laizi_dir.join("games.jsonl")).unwrap();
    assert_eq!(laizi_games.lines().count(), 1);
    assert!(laizi_games.contains(r#""wild":""#), "{laizi_games}");
    // Two-player with bidding: one opponent on the table, calls and robs, the conceded cards.
    let two_dir = dir.join("two-player");
    let args = ["--rules", "two_player", "--bidding", "--agents", TWO_PLAYER_NETWORK, "--log-dir"];
    let server = Server::start(&[&args[..], &[two_dir.to_str().unwrap()]].concat());
    let out = Command::new(root.join(".venv/bin/python"))
        .arg(root.join("tests/browser/play_game.py"))
        .args([&format!("{}/", server.base), "--seat", "farmer"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["opponents_shown"], 1, "{result}");
    assert!(result["target"].as_str().unwrap().contains("conceded"), "{result}");
    assert!(result["bids"].as_array().is_some_and(|b| b.contains(&json!(1))), "the person called or robbed: {result}");
    drop(server);
    let two_games = std::fs::read_to_string(two_dir.join("games.jsonl")).unwrap();
    assert!(two_games.contains(r#""rules":"two_player""#), "{two_games}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_web_api_plays_two_player_games_with_calls_robs_and_the_conceded_cards() {
    let dir = scratch("api-two-player");
    let log_dir = dir.to_str().unwrap();
    let server = Server::start(&["--rules", "two_player", "--bidding", "--agents", "rule", "--log-dir", log_dir]);
    let page = client().get(&format!("{}/", server.base)).call().unwrap().body_mut().read_to_string().unwrap();
    assert!(page.contains(r#"<body data-rules="two_player">"#), "the page draws a table of two");
    let (s, e) = call("POST", &format!("{}/api/games", server.base), Some(r#"{"seat":"landlord_up"}"#));
    assert_eq!(s, 400);
    assert!(e["error"].as_str().unwrap().contains("use landlord, farmer or random"), "{e}");
    let mut finished = 0;
    for deal in 0..6 {
        let body = json!({ "seat": "farmer", "deal": deal }).to_string();
        let (s, mut game) = call("POST", &format!("{}/api/games", server.base), Some(&body));
        assert_eq!(s, 201, "{game}");
        let id = game["id"].as_str().unwrap().to_string();
        loop {
            let view = &game["view"];
            assert_eq!((view["rules"].as_str(), view["seats"].as_array().unwrap().len()), (Some("two_player"), 2));
            if view["result"].is_object() {
                assert!(view["conceded"].is_u64(), "{view}");
                finished += 1;
                break;
            }
            let entry = if view["landlord"].is_null() {
                let called = view["bids"].as_array().unwrap().iter().any(|b| b[1] == 1);
                if called { "rob" } else { "call" }.to_string()
            } else {
                let hand: String =
                    view["hand"].as_array().unwrap().iter().map(|c| c["rank"].as_str().unwrap()).collect();
                let rival = view["rival"]["play"].as_str().and_then(|p| Play::parse(p).ok());
                let mut plays = MoveList::new();
                legal_plays(Counts::parse(&hand).unwrap(), rival.as_ref(), &mut plays);
                plays[plays.len() - 1].to_string()
            };
            let (s, next) = call(
                "POST",
                &format!("{}/api/games/{id}/play", server.base),
                Some(&json!({ "play": entry }).to_string()),
            );
            assert_eq!(s, 200, "{entry}: {next}");
            game = next;
        }
    }
    assert_eq!(finished, 6);
    // Advice on a two-player position: the request names the rules and the conceded cards.
    let request = json!({"rules":"two_player","seat":"farmer","hand":"66778899TTJQKA2BR","bottom":"QKA","history":[["landlord","5"]],"conceded":15});
    let (s, advice) = call("POST", &format!("{}/api/advise", server.base), Some(&request.to_string()));
    assert_eq!(s, 200, "{advice}");
    assert_eq!(advice["play"], "BR", "the rule agent takes the play that reaches the target: {advice}");
    drop(server);
    let games = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 6);
    assert!(games.lines().all(|l| l.contains(r#""rules":"two_player""#)), "{games}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn advice_ranks_every_legal_play_and_the_openapi_description_matches_the_routes() {
    let dir = scratch("advise");
    let search = "ismcts:models/dmc-rule-2h?sims=30";
    let server = Server::start(&["--agents", &format!("{NETWORK},{search}"), "--log-dir", dir.to_str().unwrap()]);
    let base = &server.base;
    let advise = |body: &str| call("POST", &format!("{base}/api/advise"), Some(body));
    let request = json!({"seat": "landlord_down", "hand": "5566778899TTJJQQK", "bottom": "3BR",
                         "history": [["landlord", "3"]]});
    let (s, advice) = advise(&request.to_string());
    assert_eq!(s, 200, "{advice}");
    let plays: Vec<&str> = advice["plays"].as_array().unwrap().iter().map(|p| p["play"].as_str().unwrap()).collect();
    let hand = Counts::parse("5566778899TTJJQQK").unwrap();
    let legal: Vec<String> =
        ddz::game::legal_plays_vec(hand, Some(&Play::parse("3").unwrap())).iter().map(|p| p.to_string()).collect();
    let mut sorted = plays.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    sorted.sort();
    let mut want = legal.clone();
    want.sort();
    assert_eq!(sorted, want, "every legal play once");
    let values: Vec<f64> = advice["plays"].as_array().unwrap().iter().map(|p| p["value"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "best first: {values:?}");
    assert_eq!(advice["play"].as_str(), Some(plays[0]), "a network plays its best");
    // The same answer as `ddz bot` gives that request, and the same answer again.
    let mut bot = ddz().args(["bot", "--agent", NETWORK]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    writeln!(bot.stdin.take().unwrap(), "{request}").unwrap();
    let mut line = String::new();
    BufReader::new(bot.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let _ = bot.wait();
    assert_eq!(serde_json::from_str::<Value>(&line).unwrap()["play"], advice["play"]);
    assert_eq!(advise(&request.to_string()).1, advice);

    // The second agent, a search: values and visits.
    let mut second = request.clone();
    second["agent"] = json!(1);
    let (s, searched) = advise(&second.to_string());
    assert_eq!(s, 200, "{searched}");
    assert!(searched["agent"].as_str().unwrap().starts_with("ismcts"), "{searched}");
    assert!(searched["plays"].as_array().unwrap().iter().any(|p| p["visits"].as_u64().unwrap_or(0) > 0), "{searched}");
    let (s, bid) = advise(r#"{"seat_index":1,"hand":"3455667789TJQKA2R","bids":[1]}"#);
    assert_eq!((s, bid["bids"].clone()), (200, json!([0, 2, 3])), "{bid}");

    for (body, status, says) in [
        (r#"{"seat":"landlord","hand":"33","bottom":"3BR","agent":2}"#, 400, "agent: 2 is not 0 or 1"),
        (r#"{"seat":"landlord","hand":"3X","bottom":"3BR"}"#, 400, "hand:"),
        (r#"[1,2]"#, 400, "a JSON object"),
        (r#"{"seat":"north","hand":"33","bottom":"3BR"}"#, 400, "unknown seat"),
        (r#"{"seat":"landlord","hand":"33","bottom":"3BR","cheat":true}"#, 400, "unknown field"),
    ] {
        let (s, e) = advise(body);
        assert_eq!(s, status, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().contains(says), "{body}: {e}");
    }
    let (s, e) = advise(&json!({"seat": "landlord", "hand": "3".repeat(10_000), "bottom": "3BR"}).to_string());
    assert_eq!(s, 413, "{e}");

    // Every documented route and method answers with a documented status; every route of the
    // router is documented; a method not documented is refused.
    let (s, spec) = call("GET", &format!("{base}/api/openapi.json"), None);
    assert_eq!(s, 200);
    let (_, game) = call("POST", &format!("{base}/api/games"), Some(r#"{"seat":"landlord"}"#));
    let id = game["id"].as_str().unwrap();
    let paths = spec["paths"].as_object().unwrap();
    for (path, ops) in paths {
        let url = format!("{base}{}", path.replace("{id}", id));
        for (method, op) in ops.as_object().unwrap() {
            let body = match path.as_str() {
                "/api/games" => Some("{}".to_string()),
                "/api/games/{id}/play" => Some(r#"{"play":"pass"}"#.to_string()),
                "/api/advise" => Some(request.to_string()),
                "/api/review" => Some(
                    std::fs::read_to_string("tests/data/rule_selfplay_2000.jsonl")
                        .unwrap()
                        .lines()
                        .next()
                        .unwrap()
                        .to_string(),
                ),
                _ => None,
            };
            let reply = match method.as_str() {
                "get" => client().get(&url).call().unwrap(),
                "post" => match &body {
                    Some(b) => client().post(&url).header("Content-Type", "application/json").send(b).unwrap(),
                    None => client().post(&url).send_empty().unwrap(),
                },
                other => panic!("{path}: method {other} not tested"),
            };
            let status = reply.status().as_u16().to_string();
            assert!(op["responses"].get(&status).is_some(), "{method} {path}: {status} is not documented");
        }
        let refused = client().delete(&url).call().unwrap().status().as_u16();
        assert_eq!(refused, 405, "DELETE {path}");
    }
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/ddz-play/src/serve/mod.rs"))
            .unwrap();
    for route in source.split(".route(\"").skip(1).map(|r| r.split('"').next().unwrap()) {
        assert!(paths.contains_key(route), "route {route} is not in openapi.json");
    }
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
