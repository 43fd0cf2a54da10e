//! Every input path fed hostile input: arbitrary bytes, valid inputs cut, spliced and salted
//! with hostile tokens (deep nesting, huge and non-finite numbers, control characters, bad
//! UTF-8). Each path must answer with an error and go on (streams) or name the input (files):
//! never panic, abort or hang. Bounded and seeded (proptest with a fixed seed), so it runs in
//! every `scripts/test`.

use ddz::agents::RuleAgent;
use ddz::game::{Deal, Rules, generate_deals};
use ddz::logs::{GameLog, read_logs};
use ddz::train::config::TrainConfig;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::path::{Path, PathBuf};

const HOSTILE: &[&str] = &[
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e309",
    "-1",
    "0",
    "18446744073709551616",
    "-9223372036854775809",
    "\"\"",
    "null",
    "true",
    "{}",
    "[]",
    "\"pass\"",
    "\"BBRR\"",
    "\"3333333333333333333333333333\"",
    "\\u0000",
    "\u{0}",
    "\u{ffff}",
    // Multi-byte characters, alone as a token too: a parser must never cut text inside one.
    " é ",
    "Sé",
    "🂡",
    "\u{202e}",
    "３",
    "\"landlord\"",
    "[[0,\"3\"]]",
    "\n",
    "\r",
    "\"",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "#",
    "=",
];

/// A hostile variant of `valid`, drawn from `seed`: cut, spliced, salted with hostile tokens,
/// deeply nested, or bad bytes.
fn mutate(valid: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = valid.to_vec();
    for _ in 0..rng.random_range(1..4) {
        let at = rng.random_range(0..=out.len());
        match rng.random_range(0..6) {
            0 => out.truncate(at),
            1 => {
                let end = rng.random_range(at..=out.len());
                out.drain(at..end);
            }
            2 => {
                let token = HOSTILE[rng.random_range(0..HOSTILE.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            3 => {
                let depth = rng.random_range(100..5000);
                let nest = [vec![b'['; depth], vec![b']'; depth]].concat();
                out.splice(at..at, nest);
            }
            4 => {
                let bytes: Vec<u8> = (0..rng.random_range(1..8)).map(|_| rng.random::<u8>()).collect();
                out.splice(at..at, bytes);
            }
            _ => {
                let from = rng.random_range(0..=out.len());
                let piece: Vec<u8> = out[from..(from + 40).min(out.len())].to_vec();
                out.splice(at..at, piece);
            }
        }
    }
    out
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1000,
        rng_seed: RngSeed::Fixed(0xF022),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddz-fuzz-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn native_requests() -> Vec<String> {
    vec![
        r#"{"seat":"landlord","hand":"33344567789TJQKA22BR","bottom":"3BR","history":[]}"#.into(),
        r#"{"seat":"landlord_down","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord","3"]]}"#.into(),
    ]
}

fn botzone_request(deal: &Deal) -> String {
    let ids = |cards: ddz::cards::CardSet| cards.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
    let request = serde_json::json!({"own": ids(deal.hands[0].union(deal.bottom)), "history": [[], []],
        "publiccard": ids(deal.bottom)});
    serde_json::json!({"requests": [request], "responses": []}).to_string()
}

proptest! {
    #![proptest_config(config())]

    /// Both bot protocols as a stream: one reply per line, whatever the bytes.
    #[test]
    fn bot_streams_answer_every_line(seed in any::<u64>(), which in 0usize..3) {
        let deal = &generate_deals(1, seed % 7)[0];
        let valid = if which < 2 { native_requests()[which].clone() } else { botzone_request(deal) };
        let line = mutate(valid.as_bytes(), seed);
        let input = [valid.as_bytes(), b"\n", &line, b"\n", valid.as_bytes(), b"\n"].concat();
        let protocol = if which < 2 { ddz::bot::Protocol::Native } else { ddz::bot::Protocol::Botzone };
        let mut out = Vec::new();
        ddz::bot::serve(&mut RuleAgent::new(), protocol, &input[..], &mut out).unwrap();
        let replies = String::from_utf8(out).unwrap();
        // A line that is a JSON array is a batch: its reply is the array of the answers.
        let answers = replies.lines().filter(|l| l.starts_with('{') || l.starts_with('[')).count();
        let lines = ddz::lines::split_lines(&input).count();
        prop_assert_eq!(answers, lines, "{}", replies);
    }

    /// Botzone requests whose card ids are drawn at random (out of range, repeated, in two
    /// places at once): an answer or an error naming the problem, never a panic.
    #[test]
    fn botzone_requests_of_any_ids_answer_or_name_the_error(seed in any::<u64>()) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut ids = |n: usize| (0..n).map(|_| rng.random_range(0..60u32)).collect::<Vec<u32>>();
        let (own, bottom, a, b) = (ids(17), ids(3), ids(seed as usize % 5), ids((seed / 7) as usize % 5));
        let line = serde_json::json!({"own": own, "publiccard": bottom, "history": [a, b]}).to_string();
        let mut session = ddz::bot::BotzoneSession::default();
        if let Err(e) = session.respond(&mut RuleAgent::new(), &line) {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    /// Search knobs of any size: parsed, or an error naming the knob, never an abort.
    #[test]
    fn search_knobs_of_any_size_parse_or_name_the_knob(knob in 0usize..12, value in any::<u64>()) {
        let (agent, name) = [
            ("pimc:m", "worlds"), ("pimc:m", "top"), ("pimc:m", "max_nodes"), ("pimc:m", "ms"),
            ("pimc:m", "draws"), ("pimc:m", "steps"), ("ismcts:rule", "sims"), ("ismcts:rule", "worlds"),
            ("ismcts:rule", "ms"), ("alphabeta:heuristic", "depth"), ("alphabeta:heuristic", "worlds"),
            ("alphabeta:heuristic", "ms"),
        ][knob];
        match format!("{agent}?{name}={value}").parse::<ddz::agents::AgentSpec>() {
            Ok(spec) => prop_assert!(spec.to_string().starts_with(agent.split(':').next().unwrap())),
            Err(e) => prop_assert!(e.to_string().contains(name), "{}", e),
        }
    }

    #[test]
    fn moves_answers_or_names_the_error(seed in any::<u64>()) {
        let line = mutate(br#"{"hand":"3455778899KAA22R","rival":"77"}"#, seed);
        let mut out = Vec::new();
        ddz::moves::serve(Rules::Standard, &[&line[..], b"\n{\"hand\":\"33\"}\n"].concat()[..], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        prop_assert!(text.trim_end().ends_with(r#"{"legal":["3","33"]}"#), "the stream goes on: {}", text);
    }

    #[test]
    fn laizi_moves_answer_or_name_the_error(seed in any::<u64>()) {
        let line = mutate(br#"{"hand":"3455778899KAA22R","wild":"9","rival":{"cards":"5559","as":"5555"}}"#, seed);
        let mut out = Vec::new();
        let valid = b"\n{\"hand\":\"77\",\"wild\":\"7\"}\n";
        ddz::moves::serve(Rules::Laizi, &[&line[..], valid].concat()[..], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let last = r#"{"legal":[{"as":"7","cards":"7"},{"as":"77","cards":"77"}]}"#;
        prop_assert!(text.trim_end().ends_with(last), "the stream goes on: {}", text);
    }

    #[test]
    fn solve_answers_or_names_the_error(seed in any::<u64>()) {
        let valid = br#"{"hands":{"landlord":"3456TT","landlord_down":"789J","landlord_up":"QK2"},"to_move":"landlord_down","rival":{"seat":"landlord","play":"6"}}"#;
        let line = mutate(valid, seed);
        let mut out = Vec::new();
        ddz::solve::serve(&[&line[..], b"\n", valid, b"\n"].concat()[..], &mut out, 200_000, 0).unwrap();
        let text = String::from_utf8(out).unwrap();
        prop_assert!(text.lines().last().is_some_and(|l| l.contains("\"value\"")), "the stream goes on: {}", text);
    }

    #[test]
    fn deal_and_log_files_name_the_bad_line(seed in any::<u64>()) {
        let dir = scratch("files");
        let deal = &generate_deals(1, seed % 5)[0];
        let deals = dir.join(format!("deals-{seed}.jsonl"));
        std::fs::write(&deals, [deal.to_json().as_bytes(), b"\n", &mutate(deal.to_json().as_bytes(), seed)].concat()).unwrap();
        if let Err(e) = ddz::game::read_deals(&deals) {
            prop_assert!(e.to_string().contains(&deals.display().to_string()), "{}", e);
        }
        let log = logs_line();
        let logs = dir.join(format!("logs-{seed}.jsonl"));
        std::fs::write(&logs, [&mutate(log.as_bytes(), seed)[..], b"\n", log.as_bytes(), b"\n"].concat()).unwrap();
        match read_logs(&logs, true) {
            Ok((good, _)) => prop_assert!(!good.is_empty(), "the good line after the bad one is read"),
            Err(e) => prop_assert!(e.file == logs, "{}", e),
        }
        std::fs::remove_file(&deals).unwrap();
        std::fs::remove_file(&logs).unwrap();
    }

    #[test]
    fn imports_name_the_bad_file(seed in any::<u64>()) {
        let dir = scratch("import");
        let replay = br#"{"initHands":["S3 H3 D3 C3 S4 H4 D4 C4 S5 H5 D5 C5 S6 H6 D6 C6 S7 H7 D7 C7","S8 H8 D8 C8 S9 H9 D9 C9 ST HT DT CT SJ HJ DJ CJ SQ","HQ DQ CQ SK HK DK CK SA HA DA CA S2 H2 D2 C2 BJ RJ"],"playerInfo":[{"index":0,"role":"landlord"},{"index":1,"role":"peasant"},{"index":2,"role":"peasant"}],"moveHistory":[{"playerIdx":0,"move":"S3 H3 D3 C3"},{"playerIdx":1,"move":"P"}]}"#;
        let file = dir.join(format!("replay-{seed}.json"));
        std::fs::write(&file, mutate(replay, seed)).unwrap();
        let (good, bad) = ddz::logs::import_files(std::slice::from_ref(&file), true).unwrap();
        prop_assert_eq!(good.len() + bad.len(), 1);
        if let Some(e) = bad.first() {
            prop_assert!(e.file == file, "{}", e);
        }
        std::fs::remove_file(&file).unwrap();
    }

    #[test]
    fn configs_parse_or_name_the_problem(seed in any::<u64>()) {
        let shipped = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/dmc.toml")).unwrap();
        let text = String::from_utf8_lossy(&mutate(&shipped, seed)).into_owned();
        if let Err(e) = TrainConfig::parse(&text, Path::new("fuzzed.toml")) {
            prop_assert!(e.to_string().contains("fuzzed.toml"), "{}", e);
        }
    }

    #[test]
    fn meta_and_weights_files_load_or_name_the_file(seed in any::<u64>()) {
        let (dir, valid_meta, valid_weights) = checkpoint_files();
        let ck = dir.join(format!("ck-{seed}"));
        std::fs::create_dir_all(&ck).unwrap();
        std::fs::write(ck.join("meta.json"), mutate(&valid_meta, seed)).unwrap();
        if let Err(e) = ddz::run::read_meta(&ck) {
            prop_assert!(e.to_string().contains("meta.json"), "{}", e);
        }
        let weights = ck.join("model.safetensors");
        std::fs::write(&weights, mutate_weights(&valid_weights, seed)).unwrap();
        if let Err(e) = ddz::model::load_network(&weights) {
            prop_assert!(e.to_string().contains("model.safetensors"), "{}", e);
        }
        std::fs::remove_dir_all(&ck).unwrap();
    }
}

/// One game of our log format.
fn logs_line() -> String {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rule_selfplay_2000.jsonl"))
            .unwrap();
    let log: GameLog = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    serde_json::to_string(&log).unwrap()
}

/// A real checkpoint's meta.json and weights file, written once.
fn checkpoint_files() -> (PathBuf, Vec<u8>, Vec<u8>) {
    static FILES: std::sync::OnceLock<(PathBuf, Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    FILES
        .get_or_init(|| {
            let dir = scratch("checkpoint");
            let model = ddz::model::ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
            let meta = ddz::run::Meta {
                format: ddz::run::META_FORMAT,
                step: 3,
                frames: 300,
                games: 9,
                elapsed_seconds: 1.5,
                next_game_index: 9,
                pool_steps: vec![0],
                model: model.clone(),
            };
            let saved = ddz::checkpoint::save(&dir, &ddz::model::QNet::cpu(&model, 1), &meta, 1).unwrap();
            let read = |name: &str| std::fs::read(saved.join(name)).unwrap();
            (dir, read("meta.json"), read("model.safetensors"))
        })
        .clone()
}

/// A weights file with its header or data changed: a mutated header (shapes, offsets, dtypes
/// and lengths are in it) more often than raw bytes.
fn mutate_weights(valid: &[u8], seed: u64) -> Vec<u8> {
    let n = u64::from_le_bytes(valid[..8].try_into().unwrap()) as usize;
    let (header, data) = (&valid[8..8 + n], &valid[8 + n..]);
    if seed.is_multiple_of(3) {
        return mutate(valid, seed);
    }
    let header = mutate(header, seed);
    let length = if seed % 3 == 1 { header.len() as u64 } else { SmallRng::seed_from_u64(seed).random::<u64>() };
    [&length.to_le_bytes()[..], &header, data].concat()
}

/// Values from the whole range of a setting's type, around and far beyond its declared range.
fn edge_values(limit: &ddz::limits::Limit) -> Vec<f64> {
    let (lo, hi) = (limit.least, limit.most);
    let mut values = vec![0.0, 1.0, lo, hi, lo - 1.0, hi + 1.0, -1.0, 0.5, 1e20, -1e20, 4e9, 1e8];
    values.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, u64::MAX as f64, i64::MIN as f64]);
    values
}

/// The TOML text a value is written as: a whole number where TOML holds it, else a float.
fn toml_value(x: f64) -> String {
    match x {
        x if x.is_nan() => "nan".into(),
        x if x.is_infinite() => if x > 0.0 { "inf" } else { "-inf" }.into(),
        x if x.fract() == 0.0 && x.abs() < 9e18 => format!("{}", x as i64),
        x => format!("{x:?}"),
    }
}

#[test]
fn every_setting_of_the_limits_table_is_checked_where_it_is_read() {
    use ddz::limits::LIMITS;
    let mut checked = 0;
    for limit in LIMITS {
        for x in edge_values(limit) {
            let inside = limit.holds(x);
            let outcome: Option<Result<(), String>> = match limit.name.split_once('.') {
                // A config key: the whole file read by `ddz train`'s own reader.
                Some((section, key))
                    if !["pretrain", "protocol"].contains(&section) && !limit.name.starts_with('-') =>
                {
                    let text = format!("[{section}]\n{key} = {}\n", toml_value(x));
                    Some(TrainConfig::parse(&text, Path::new("limits.toml")).map(drop).map_err(|e| e.to_string()))
                }
                // A pretraining setting, as its flags hand it over.
                Some(("pretrain", key)) => {
                    let mut c = ddz::pretrain::PretrainConfig::default();
                    let n = if x.is_finite() && x >= 0.0 { x as u64 } else { continue }; // flags are unsigned
                    match key {
                        "steps" => c.steps = n,
                        "batch_size" => c.batch_size = n as usize,
                        "val_every" => c.val_every = n,
                        "patience" => c.patience = n.min(u32::MAX as u64) as u32,
                        other => panic!("pretrain.{other}: no reader in this test"),
                    }
                    if n as f64 != x {
                        continue; // not a value the flag can hold
                    }
                    Some(c.validate().map_err(|e| e.to_string()))
                }
                // Python arguments (python/tests), --threads (cli.rs) and protocol sizes (below).
                _ => None,
            };
            let Some(outcome) = outcome else { continue };
            checked += 1;
            match (inside, outcome) {
                (true, Ok(())) => {}
                (true, Err(e)) => panic!("{} = {x}: in range but refused: {e}", limit.name),
                (false, Ok(())) => panic!("{} = {x}: out of range but taken", limit.name),
                (false, Err(e)) => {
                    let key = limit.name.rsplit('.').next().unwrap();
                    assert!(e.contains(key), "{} = {x}: the error does not name it: {e}", limit.name);
                }
            }
        }
    }
    assert!(checked > 300, "{checked} values checked");
}

#[test]
fn protocol_sizes_of_the_limits_table_are_checked_where_requests_arrive() {
    // Issue 64, class 3: the sizes of what one line may ask, at the edges of their ranges,
    // through `ddz bot`'s own server (a line too long is skipped, the next answered).
    use ddz::limits::{LIMITS, MOST_BATCH_ITEMS, MOST_LINE_BYTES};
    let request = r#"{"seat":"landlord","hand":"3445566778899TTJJQBR","bottom":"3BR","history":[]}"#;
    let serve = |input: String| -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        ddz::bot::serve(&mut RuleAgent::new(), ddz::bot::Protocol::Native, input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    };
    let declared = |name: &str| LIMITS.iter().find(|l| l.name == name).unwrap().most as u64;
    assert_eq!(
        (declared("protocol.batch_items"), declared("protocol.line_bytes")),
        (MOST_BATCH_ITEMS, MOST_LINE_BYTES)
    );
    for items in [0, 1, MOST_BATCH_ITEMS, MOST_BATCH_ITEMS + 1, 10 * MOST_BATCH_ITEMS] {
        let batch = format!("[{}]", vec![request; items as usize].join(","));
        let answers = serve(format!("{batch}\n{request}\n"));
        match items <= MOST_BATCH_ITEMS {
            true => assert_eq!(answers[0].as_array().map(Vec::len), Some(items as usize)),
            false => {
                let e = answers[0]["error"].as_str().unwrap();
                assert!(e.contains(&format!("protocol.batch_items = {items}")), "{e}");
            }
        }
        assert!(answers[1]["play"].is_string(), "the next line is answered");
    }
    for bytes in [MOST_LINE_BYTES, MOST_LINE_BYTES + 1, 8 * MOST_LINE_BYTES] {
        // The request padded with spaces to `bytes` (JSON reads past them).
        let padded = format!("{request}{}", " ".repeat(bytes as usize - request.len()));
        let answers = serve(format!("{padded}\n{request}\n"));
        match bytes <= MOST_LINE_BYTES {
            true => assert!(answers[0]["play"].is_string(), "{}", answers[0]),
            false => {
                let e = answers[0]["error"].as_str().unwrap();
                assert!(e.contains(&format!("protocol.line_bytes = {bytes}")), "{e}");
            }
        }
        assert!(answers[1]["play"].is_string(), "the next line is answered");
    }
}
