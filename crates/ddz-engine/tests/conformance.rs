//! The engine against an independent implementation's data: the full action space and a
//! sample of situations with their exact legal plays.

use ddz_engine::cards::Counts;
use ddz_engine::game::{ActionTable, NUM_ACTIONS, Play, legal_plays_vec};
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[test]
fn action_table_equals_the_reference_action_space() {
    let text = std::fs::read_to_string(data_dir().join("action_space.tsv")).unwrap();
    let table = ActionTable::get();
    let mut seen = BTreeSet::new();
    // type -> weight -> our main rank: same type, weight order must be our main-rank order.
    let mut order: HashMap<String, BTreeMap<i64, u8>> = HashMap::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#')) {
        let (cards, types) = line.split_once('\t').unwrap_or_else(|| panic!("line {}: no tab", n + 1));
        let counts = Counts::parse(cards).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let id = table.id_of_cards(counts).unwrap_or_else(|| panic!("line {}: {cards} missing from our table", n + 1));
        let play = table.play(id);
        let (ty, weight) = types.split_once(':').unwrap_or((types, "0"));
        assert_eq!(play.type_name(), ty, "line {}: type of {cards}", n + 1);
        assert!(seen.insert(id), "line {}: {cards} listed twice", n + 1);
        let weight: i64 = weight.parse().unwrap();
        let previous = order.entry(ty.to_string()).or_default().insert(weight, play.main);
        assert!(previous.is_none() || previous == Some(play.main), "{cards}: weight {weight} maps to two main ranks");
    }
    assert_eq!(seen.len(), NUM_ACTIONS, "the reference lists every id of ours");
    for (ty, by_weight) in order {
        let mains: Vec<u8> = by_weight.values().copied().collect();
        assert!(mains.windows(2).all(|w| w[0] < w[1]), "{ty}: weights and main ranks disagree: {mains:?}");
    }
}

#[test]
fn legal_plays_equal_the_reference_sample() {
    let text = std::fs::read_to_string(data_dir().join("legal_sample.jsonl")).unwrap();
    let mut checked = 0;
    for (n, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let hand = Counts::parse(v["hand"].as_str().unwrap()).unwrap();
        let rival_text = v["rival"].as_str().unwrap();
        let rival = (!rival_text.is_empty()).then(|| Play::parse(rival_text).unwrap());
        let want: BTreeSet<String> =
            v["legal"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
        let got_list: Vec<String> = legal_plays_vec(hand, rival.as_ref()).iter().map(|p| p.to_string()).collect();
        let got: BTreeSet<String> = got_list.iter().cloned().collect();
        assert_eq!(got.len(), got_list.len(), "line {}: duplicate plays generated", n + 1);
        assert_eq!(got, want, "line {}: hand {hand} rival {rival_text:?}", n + 1);
        checked += 1;
    }
    assert_eq!(checked, 404);
}

/// The conformance data in this crate's `tests/data/` (see its README for where it came from).
fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}
