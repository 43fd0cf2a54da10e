//! `ddz review`: real networks reviewing real games, with mistakes planted where the right play
//! is known, and bad logs.

use ddz::agents::{Agent, AgentSpec, Everyone, play_out};
use ddz::game::{MoveList, State};
use ddz::logs::{GameLog, selfplay_logs};
use ddz::review::{Thresholds, Verdict, review};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const REVIEWER: &str = "checkpoint:models/ema-2h";

fn ddz() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ddz"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddz-review-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn reviewer() -> Box<dyn Agent> {
    REVIEWER.parse::<AgentSpec>().unwrap().build().unwrap()
}

#[test]
fn games_the_reviewer_played_itself_are_all_best_plays() {
    // The reviewer's best play at every decision is what the same network plays there.
    let mut agent = reviewer();
    let (logs, illegal) = selfplay_logs(agent.as_mut(), 4, 7, "synthetic:ema-2h").unwrap();
    assert_eq!(illegal, 0);
    for log in &logs {
        let game = log.replay().unwrap();
        let r = review(log, &game, agent.as_mut(), Thresholds::default()).unwrap();
        assert_eq!(r.decisions.len(), log.plays.len(), "every play is a decision");
        for d in &r.decisions {
            assert!(matches!(d.verdict, Verdict::Best | Verdict::Forced), "move {}: {d:?}", d.move_no);
            assert_eq!((d.loss, d.played.win), (0.0, d.best.win), "move {}", d.move_no);
        }
        assert!(r.seats.iter().all(|s| s.accuracy == 100.0), "{:?}", r.seats);
        assert_eq!(r.curve.len(), log.plays.len() + 1);
        assert_eq!(*r.curve.last().unwrap(), if r.landlord_won { 1.0 } else { 0.0 });
    }
}

#[test]
fn variant_games_are_reviewed_by_their_own_networks() {
    use ddz::game::{Action, GameConfig, Phase, Rules, WildRank, generate_deals_for};
    for rules in [Rules::Laizi, Rules::TwoPlayer] {
        let spec: AgentSpec = ddz::review::default_reviewer(rules).parse().unwrap();
        let mut agent = spec.build().unwrap();
        for (k, deal) in generate_deals_for(rules, 2, 5).iter().enumerate() {
            let mut state = State::new(GameConfig { rules, ..GameConfig::default() });
            state.deal_hands(deal.hands, deal.bottom);
            if state.phase() == Phase::Wild {
                state.apply_action(Action::Wild(WildRank::parse(["7", "Q"][k]).unwrap()));
            }
            play_out(&mut state, &mut Everyone(agent.as_mut()), |_, _, _, _| {}).unwrap();
            let log = GameLog::from_state(&state, "synthetic");
            let game = log.replay().unwrap();
            let r = review(&log, &game, agent.as_mut(), Thresholds::default()).unwrap();
            assert_eq!((r.rules, r.decisions.len(), r.seats.len()), (rules, log.plays.len(), rules.table().len()));
            for d in &r.decisions {
                assert!(matches!(d.verdict, Verdict::Best | Verdict::Forced), "{rules} move {}: {d:?}", d.move_no);
            }
            // A network of other rules is refused by name.
            let mut standard = reviewer();
            let e = review(&log, &game, standard.as_mut(), Thresholds::default()).unwrap_err().to_string();
            assert!(e.contains(&format!("cannot review a {rules} game")), "{e}");
        }
    }
}

#[test]
fn the_reviewers_chances_match_the_results_of_its_own_games() {
    // On games the network plays against itself its win chances are what happens: every bin
    // with 100 plays or more within 0.1 of its share of wins (measured: within 0.03 on 300).
    let mut agent = reviewer();
    let (logs, _) = selfplay_logs(agent.as_mut(), 120, 3, "synthetic:ema-2h").unwrap();
    let reviews: Vec<_> = logs
        .iter()
        .map(|log| review(log, &log.replay().unwrap(), agent.as_mut(), Thresholds::default()).unwrap())
        .collect();
    let bins = ddz::review::calibration(&reviews);
    let counted: usize = bins.iter().map(|b| b.decisions).sum();
    let plays: usize =
        reviews.iter().flat_map(|r| &r.decisions).filter(|d| !(d.win_at_once && d.played.win >= 1.0)).count();
    assert_eq!(counted, plays);
    for b in bins.iter().filter(|b| b.decisions >= 100) {
        assert!((b.low..=b.high).contains(&b.predicted), "{b:?}");
        assert!((b.observed - b.predicted).abs() < 0.1, "{b:?}");
    }
}

/// The state before move `k` (0-based) of `log`'s plays.
fn before_move(log: &GameLog, k: usize) -> State {
    let end = log.replay().unwrap().state;
    let mut state = State::new(end.config().clone());
    let mut plays = 0;
    for action in end.history() {
        if matches!(action, ddz::game::Action::Play(_)) {
            if plays == k {
                break;
            }
            plays += 1;
        }
        state.apply_action_unchecked(*action);
    }
    state
}

#[test]
fn a_planted_pass_that_gives_up_winning_at_once_is_a_blunder() {
    // In games the network played, find decisions where the player follows and holds a play
    // that empties its hand; plant a pass there, let the network play the rest, and review.
    let mut agent = reviewer();
    let (logs, _) = selfplay_logs(agent.as_mut(), 40, 11, "synthetic:ema-2h").unwrap();
    let mut planted = 0;
    for log in &logs {
        for k in 0..log.plays.len() {
            let mut state = before_move(log, k);
            let seat = state.current_player().unwrap();
            let mut plays = MoveList::new();
            state.legal_plays_into(&mut plays);
            let out_at_once = plays.iter().any(|p| p.cards.len() == state.hand(seat).len());
            let can_pass = plays.iter().any(|p| p.is_pass());
            if !(out_at_once && can_pass) {
                continue;
            }
            state.apply_play(ddz::game::Play::PASS);
            play_out(&mut state, &mut Everyone(agent.as_mut()), |_, _, _, _| {}).unwrap();
            let changed = GameLog::from_state(&state, "planted");
            let game = changed.replay().unwrap();
            let r = review(&changed, &game, agent.as_mut(), Thresholds::default()).unwrap();
            let d = &r.decisions[k];
            assert_eq!(d.played.play, "pass");
            assert_eq!(d.verdict, Verdict::Blunder, "move {}: {d:?}", k + 1);
            assert!(d.win_at_once && d.best.win == 1.0 && d.best.play != "pass", "{d:?}");
            planted += 1;
            break;
        }
    }
    assert!(planted >= 5, "only {planted} games had such a decision");
}

fn review_cli(args: &[&str]) -> std::process::Output {
    ddz().arg("review").args(args).output().unwrap()
}

#[test]
fn the_command_writes_json_html_and_a_summary_and_refuses_bad_logs() {
    let dir = scratch("cli");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rule_selfplay_2000.jsonl");
    let two: String = std::fs::read_to_string(&shipped).unwrap().lines().take(2).map(|l| format!("{l}\n")).collect();
    let logs = dir.join("two.jsonl");
    std::fs::write(&logs, &two).unwrap();
    let path = logs.to_str().unwrap();
    let html = dir.join("review.html");
    let out = review_cli(&[path, "--game", "1", "--json", "--html", html.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "ddz.review/1");
    let game = &json["games"][0];
    let plays = serde_json::from_str::<Value>(two.lines().nth(1).unwrap()).unwrap()["plays"].as_array().unwrap().len();
    assert_eq!(game["decisions"].as_array().unwrap().len(), plays);
    for d in game["decisions"].as_array().unwrap() {
        let (best, played, loss) =
            (d["best"]["win"].as_f64().unwrap(), d["played"]["win"].as_f64().unwrap(), d["loss"].as_f64().unwrap());
        assert!((0.0..=1.0).contains(&played) && best >= played && (best - played - loss).abs() < 1e-9, "{d}");
        assert_eq!(d["top"][0], d["best"], "{d}");
        let missed_win = d["win_at_once"] == true && d["best"]["play"] != d["played"]["play"];
        let expected = match (d["legal"].as_u64().unwrap(), loss) {
            (1, _) => "forced",
            _ if missed_win && d["played"]["win"] != 1.0 => "blunder",
            (_, l) if l >= 0.15 => "blunder",
            (_, l) if l >= 0.07 => "mistake",
            (_, l) if l >= 0.03 => "inaccuracy",
            _ => d["verdict"].as_str().filter(|v| *v == "best" || *v == "good").unwrap_or("best or good"),
        };
        assert_eq!(d["verdict"], expected, "{d}");
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<svg id=\"curve\"") && page.contains("id=\"move-1\"") && !page.contains("http"),
        "self-contained"
    );
    let flagged =
        game["decisions"].as_array().unwrap().iter().filter(|d| d["verdict"] == "blunder" || d["verdict"] == "mistake");
    for d in flagged {
        assert!(page.contains(&format!("href=\"#move-{}\"", d["move_no"])), "each mistake links to its position");
    }
    // A game typed as text, one `key: value` a line: the same review as its log's.
    let log: Value = serde_json::from_str(two.lines().nth(1).unwrap()).unwrap();
    let hands: Vec<&str> = log["hands"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
    let plays: Vec<&str> = log["plays"].as_array().unwrap().iter().map(|p| p[1].as_str().unwrap()).collect();
    let typed = dir.join("typed.txt");
    let text = format!(
        "# the second game, typed\nhands: {}\nbottom: {}\nlandlord: {}\nplays: {}\n",
        hands.join(" "),
        log["bottom"].as_str().unwrap(),
        log["landlord"],
        plays.join(" ")
    );
    std::fs::write(&typed, text).unwrap();
    let out = review_cli(&[typed.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let from_text: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(from_text["games"][0]["decisions"], game["decisions"], "the typed game is the logged one");
    // --deep: every mistake and blunder checked again by a search, and no other decision.
    let out = review_cli(&[path, "--game", "1", "--json", "--deep-ms", "2000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    for d in json["games"][0]["decisions"].as_array().unwrap() {
        let flagged = d["verdict"] == "mistake" || d["verdict"] == "blunder";
        assert_eq!(d.get("deep").is_some(), flagged, "{d}");
        if flagged {
            for side in ["played", "best"] {
                assert!((0.0..=1.0).contains(&d["deep"][side].as_f64().unwrap()), "{d}");
            }
        }
    }
    // Thresholds are settable: nothing lost this much.
    let out = review_cli(&[path, "--json", "--thresholds", "0.97,0.98,0.99"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let verdicts: Vec<&Value> =
        json["games"].as_array().unwrap().iter().flat_map(|g| g["decisions"].as_array().unwrap()).collect();
    assert!(verdicts.iter().all(|d| d["verdict"] != "blunder" || d["win_at_once"] == true), "only missed wins");
    // A summary per player over the games.
    let out = review_cli(&[path, "--summary", "--json"]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["players"].as_array().unwrap().len(), 3, "{json}");
    assert_eq!(json["players"][0]["games"], 2, "{json}");
    // Bad input: each error names the file, the line and the reason, and nothing panics.
    let truncated = dir.join("truncated.jsonl");
    std::fs::write(&truncated, format!("{}{}", two.lines().next().unwrap(), "\n{\"hands\":[\"33\"")).unwrap();
    let impossible = dir.join("impossible.jsonl");
    std::fs::write(&impossible, two.replacen("[0,\"", "[1,\"", 1)).unwrap();
    let unfinished = dir.join("unfinished.jsonl");
    let first: Value = serde_json::from_str(two.lines().next().unwrap()).unwrap();
    let mut cut = first.clone();
    cut["plays"].as_array_mut().unwrap().truncate(3);
    std::fs::write(&unfinished, format!("{cut}\n")).unwrap();
    let laizi = dir.join("laizi.jsonl");
    let mut wild = first.clone();
    wild["wild"] = Value::from("7");
    std::fs::write(&laizi, format!("{wild}\n")).unwrap();
    for (file, said) in [
        (&truncated, "truncated.jsonl:2: not a game log"),
        (&impossible, "impossible.jsonl:1: move 1"),
        (&unfinished, "unfinished.jsonl:1: the game does not finish"),
        (&dir.join("nowhere.jsonl"), "nowhere.jsonl"),
        (&html, "review.html:1: \"<!doctype html>"),
    ] {
        let out = review_cli(&[file.to_str().unwrap()]);
        let error = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{error}");
        assert!(error.contains(said) && !error.contains("panicked"), "{said}: {error}");
    }
    let out = review_cli(&[laizi.to_str().unwrap(), "--deep-ms", "100"]);
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && error.contains("--deep: the search plays the standard game only"), "{error}");
    let out = review_cli(&[laizi.to_str().unwrap(), "--agent", REVIEWER]);
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && error.contains("cannot review a laizi game"), "{error}");
    let out = review_cli(&[path, "--html", html.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--html draws one game, and the logs hold 2"));
    let out = review_cli(&[path, "--thresholds", "0.2,0.1,0.3"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("rising"));
    std::fs::remove_dir_all(&dir).unwrap();
}
