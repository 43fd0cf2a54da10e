//! The C interface from C: `tests/c/games.c` is compiled with the system's C compiler against
//! `include/ddz.h` and `libddz_c.so`, and plays whole games of the shipped networks (standard,
//! laizi, two-player, and with bidding) against the rule agent, encoding every play request on
//! the way. Each game it prints is replayed here through the Rust API with the same agents and
//! must end in the same record; its legal plays and its errors are checked too.

use ddz_play::agents::{Agent, AgentSpec};
use ddz_play::cards::Counts;
use ddz_play::game::laizi::ids::{parse_play_notation, play_notation};
use ddz_play::game::laizi::{self, WildRank};
use ddz_play::game::{GameConfig, Rules, State, legal_plays_vec};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder cargo wrote `libddz_c.so` to: the profile folder above this test's `deps/`.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("deps/");
    [deps, deps.parent().expect("the profile folder")]
        .into_iter()
        .find(|d| d.join("libddz_c.so").exists())
        .unwrap_or_else(|| panic!("no libddz_c.so beside {}", exe.display()))
        .to_path_buf()
}

/// Compiles `tests/c/games.c` (warnings are errors) into `out`.
fn compile(out: &Path) -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let binary = out.join("games");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/games.c"))
        .arg("-L")
        .arg(&lib)
        .arg("-lddz_c")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&binary)
        .status()
        .unwrap_or_else(|e| panic!("run the C compiler {compiler}: {e}"));
    assert!(status.success(), "{compiler} failed on tests/c/games.c");
    binary
}

/// A game the C program played, replayed in Rust: the same deal from the same seed (and the
/// wild rank drawn from it once the landlord is known), each seat asked the same native request.
fn replay(rules: Rules, bidding: bool, seed: u64, specs: &[&str]) -> String {
    let config = GameConfig { rules, bidding, ..GameConfig::default() };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut state = State::new(config);
    state.deal_random(&mut rng);
    state.draw_wild(&mut rng);
    let mut agents: Vec<Box<dyn Agent>> =
        specs.iter().map(|s| s.parse::<AgentSpec>().expect("spec").build().expect("agent")).collect();
    while let Some(seat) = state.current_player() {
        let request = serde_json::to_string(&state.view(seat)).expect("a view's request");
        let agent = agents[seat.number() as usize].as_mut();
        let answer = ddz_play::bot::answer_native_json(agent, &request).expect("an answer");
        match (answer.get("play"), answer.get("bid")) {
            (Some(play), _) => {
                let play = parse_play_notation(play.as_str().expect("a play's notation"), state.wild()).expect("play");
                state.try_apply_play(play).expect("a legal play")
            }
            (_, Some(bid)) => state.try_apply_bid(bid.as_u64().expect("a bid") as u8).expect("a legal bid"),
            _ => panic!("answer {answer}"),
        }
        state.draw_wild(&mut rng);
    }
    state.to_json()
}

#[test]
fn a_c_program_plays_whole_games_through_the_interface() {
    let out = std::env::temp_dir().join(format!("ddz-c-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let binary = compile(&out);
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models");
    let run = Command::new(&binary).arg(&models).output().expect("run the C program");
    let stdout = String::from_utf8(run.stdout).expect("UTF-8");
    assert!(run.status.success(), "the C program failed:\n{stdout}\n{}", String::from_utf8_lossy(&run.stderr));

    let (mut games, mut legal, mut errors) = (0, 0, Vec::new());
    for line in stdout.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[0] {
            "layout" => assert_eq!(fields[1], ddz_play::nets::FEATURE_LAYOUT),
            "legal" => {
                let hand = Counts::parse(fields[1]).unwrap();
                let wild = Some(fields[3]).filter(|w| !w.is_empty()).map(|w| WildRank::parse(w).unwrap());
                let rival = Some(fields[2]).filter(|r| !r.is_empty()).map(|r| parse_play_notation(r, wild).unwrap());
                let plays = match wild {
                    Some(w) => laizi::legal_plays_vec(hand, w, rival.as_ref()),
                    None => legal_plays_vec(hand, rival.as_ref()),
                };
                let mut expected: Vec<String> = plays.iter().map(play_notation).collect();
                expected.sort();
                assert_eq!(serde_json::from_str::<Vec<String>>(fields[4]).unwrap(), expected, "{line}");
                legal += 1;
            }
            "game" => {
                let (rules, bidding, seed) = (fields[1].parse().unwrap(), fields[2] == "1", fields[3].parse().unwrap());
                let specs: Vec<&str> = fields[4].split('|').filter(|s| !s.is_empty()).collect();
                let record = fields[7];
                assert_eq!(record, replay(rules, bidding, seed, &specs), "game {}", &fields[1..7].join(" "));
                let state = State::from_json(record).unwrap();
                assert!(state.is_terminal(), "{line}");
                let returns: Vec<f64> = fields[6].split(',').map(|r| r.parse().unwrap()).collect();
                assert_eq!(returns[..], state.returns()[..3], "{line}");
                games += 1;
            }
            "error" => errors.push((fields[1].to_string(), fields[2].to_string())),
            _ => {}
        }
    }
    assert_eq!((games, legal), (15, 3), "{stdout}");
    let expected = [
        ("spec", "unknown agent \"no-such-agent\""),
        ("model", "/nonexistent/model"),
        ("rules", "unknown rules \"chess\""),
        ("hand", "'X'"),
        ("null", "NULL"),
        ("request", "bad request"),
        ("play", "RRRR"),
        ("bid", "bid 2"),
        ("answer", "no idea"),
        ("returns", "not over"),
        ("bid request", "not a bid request"),
        ("state room", "1339"),
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:?}");
    for ((what, reason), (want_what, want)) in errors.iter().zip(expected) {
        assert_eq!(what, want_what);
        assert!(reason.contains(want), "error {what}: {reason:?} does not say {want:?}");
    }
    std::fs::remove_dir_all(&out).ok();
}
