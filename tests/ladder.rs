//! `ddz ladder` through the real binary: a small roster with an outside program in it, the
//! report files, the ratings' order, and a resumed ladder that replays only what changed.

use std::path::Path;
use std::process::Command;

fn ddz() -> &'static str {
    env!("CARGO_BIN_EXE_ddz")
}

fn ladder(out: &Path, agents: &str) -> String {
    let run = Command::new(ddz())
        .args(["ladder", "--deals", "test", "--n", "30", "--threads", "2", "--agents", agents, "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8(run.stdout).unwrap()
}

fn modified(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn a_ladder_rates_its_roster_writes_its_reports_and_resumes() {
    let out = std::env::temp_dir().join(format!("ddz-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let bot = format!("served=bot:{} bot --agent rule", ddz());
    let text = ladder(&out, &format!("random,rule,{bot}"));
    assert!(text.contains("Deal set: test (30 deals, both seatings)"), "{text}");
    for file in ["ladder.md", "ladder.json", "ladder.png", "ratings.csv", "pairs/random--rule.json"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ladder.json")).unwrap()).unwrap();
    let rating = |label: &str| {
        let k = json["labels"].as_array().unwrap().iter().position(|l| l == label).unwrap();
        json["ratings"][k]["rating"].as_f64().unwrap()
    };
    assert!(rating("rule") > rating("random") + 300.0, "{json}");
    // The bot is the rule agent: the same games, so an even match.
    let k = |label: &str| json["labels"].as_array().unwrap().iter().position(|l| l == label).unwrap();
    assert_eq!(json["cells"][k("rule")][k("random")]["wp"], json["cells"][k("served")][k("random")]["wp"]);
    let (r, x) = (&json["cells"][k("rule")][k("random")], &json["cells"][k("random")][k("rule")]);
    let num = |v: &serde_json::Value| v.as_f64().unwrap();
    assert!((num(&r["wp"]) - (num(&r["wp_landlord"]) + num(&r["wp_farmers"])) / 2.0).abs() < 1e-9, "{r}");
    assert!((num(&r["wp_landlord"]) - (1.0 - num(&x["wp_farmers"]))).abs() < 1e-9, "the mirror cell: {x}");
    // Resumed with one agent changed: the kept pairing stays as it was, the new ones are played.
    let kept = out.join("pairs/random--rule.json");
    let before = modified(&kept);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let text = ladder(&out, "random,rule,ismcts:rule?sims=2");
    assert_eq!(modified(&kept), before, "a finished pairing is not played again");
    assert!(text.contains("play the first 30 only") && text.contains("ismcts:rule"), "{text}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_ladder_plays_again_what_changed_behind_the_same_names() {
    let out = std::env::temp_dir().join(format!("ddz-ladder-content-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let (deals, weights) = (out.join("deals.jsonl"), out.join("net.safetensors"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let deal_file = |seed: &str| {
        let run =
            Command::new(ddz()).args(["deals", "--n", "20", "--seed", seed, "--out"]).arg(&deals).output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    };
    let play = || {
        let agents = format!("rule,net=checkpoint:{}", weights.display());
        let run = Command::new(ddz())
            .args(["ladder", "--threads", "2", "--agents", &agents, "--deals"])
            .arg(&deals)
            .arg("--out")
            .arg(out.join("ladder"))
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let pair = out.join("ladder/pairs/rule--net.json");
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(pair).unwrap()).unwrap()
    };
    deal_file("1");
    std::fs::copy(root.join("models/dmc-1h/model.safetensors"), &weights).unwrap();
    let first = play();
    assert_eq!(play(), first, "nothing changed: nothing played again");
    // Other deals under the same file name: played again.
    deal_file("2");
    let second = play();
    assert_ne!(second["deals_hash"], first["deals_hash"]);
    assert_ne!(second["report"], first["report"]);
    assert_eq!(second["b_hash"], first["b_hash"]);
    // Other weights behind the same path: played again.
    std::fs::copy(root.join("models/dmc-default-2h/model.safetensors"), &weights).unwrap();
    let third = play();
    assert_ne!(third["b_hash"], second["b_hash"]);
    assert_eq!(third["deals_hash"], second["deals_hash"]);
    // A pairing kept before hashes were recorded is taken by its names once and stamped.
    let pair = out.join("ladder/pairs/rule--net.json");
    let mut legacy = third.clone();
    for key in ["a_hash", "b_hash", "deals_hash"] {
        legacy.as_object_mut().unwrap().remove(key);
    }
    legacy["wins"] = serde_json::json!(legacy["wins"].as_u64().unwrap() + 1); // as kept, not replayed
    std::fs::write(&pair, serde_json::to_string(&legacy).unwrap()).unwrap();
    let stamped = play();
    assert_eq!((&stamped["wins"], &stamped["b_hash"]), (&legacy["wins"], &third["b_hash"]));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_ladder_with_bidding_plays_all_six_seatings() {
    let out = std::env::temp_dir().join(format!("ddz-ladder-bidding-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = Command::new(ddz())
        .args(["ladder", "--bidding", "--deals", "test", "--n", "20", "--agents", "random,rule", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.contains("20 deals, all six seatings with bidding"), "{text}");
    let pair: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pairs/random--rule.json")).unwrap()).unwrap();
    let games = pair["games"].as_u64().unwrap();
    assert!(pair["bidding"] == true && games > 100 && games <= 120, "six games a deal, the contested ones: {pair}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ladder.json")).unwrap()).unwrap();
    assert!(json["ratings"][1]["rating"].as_f64().unwrap() > json["ratings"][0]["rating"].as_f64().unwrap() + 200.0);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_two_player_ladder_plays_its_own_roster_and_refuses_agents_of_other_rules() {
    let out = std::env::temp_dir().join(format!("ddz-ladder-two-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = |extra: &[&str]| {
        Command::new(ddz())
            .args(["ladder", "--rules", "two_player", "--deals", "test", "--n", "60", "--threads", "2", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let done = run(&[]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let text = String::from_utf8(done.stdout).unwrap();
    assert!(text.contains("two-player (46 cards, 9 set aside)"), "the report states its rules: {text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ladder.json")).unwrap()).unwrap();
    let rating = |label: &str| {
        let k = json["labels"].as_array().unwrap().iter().position(|l| l == label).unwrap();
        json["ratings"][k]["rating"].as_f64().unwrap()
    };
    assert!(rating("two-player-1h") > rating("rule") && rating("rule") > rating("random"), "{json}");
    let refused = run(&["--agents", "rule,dmc=checkpoint:models/dmc-rule-2h"]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("dmc") && said.contains("trained for standard rules"), "{said}");
    std::fs::remove_dir_all(&out).unwrap();
}
