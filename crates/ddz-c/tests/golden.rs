//! The C interface's encoder writes the golden vectors (docs/inference/golden/, `ddz export
//! --golden`): on every position of each rule set, the same legal plays in the same order and
//! the same features, bit for bit. A program that encodes through libddz_c feeds an exported
//! network what ddz's own agents read.

use ddz_c::{ddz_encode_request, ddz_play_width, ddz_request_plays, ddz_state_width, ddz_string_free};
use std::ffi::{CStr, CString};
use std::path::Path;

/// The non-zero entries of a row, as the golden files write them.
fn non_zero(row: &[f32]) -> Vec<(u32, f32)> {
    row.iter().enumerate().filter(|(_, x)| **x != 0.0).map(|(i, &x)| (i as u32, x)).collect()
}

#[test]
fn the_encoder_writes_the_golden_vectors_of_every_rule_set() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (model, laizi) in [("ema-2h", false), ("laizi-1h", true), ("two-player-1h", false)] {
        let net = ddz_play::nets::QNetwork::load(&root.join("models").join(model).join("model.safetensors")).unwrap();
        let hand_structure = net.config().hand_structure;
        let text = std::fs::read_to_string(root.join(format!("docs/inference/golden/{model}.jsonl"))).unwrap();
        let mut positions = 0;
        for line in text.lines() {
            let golden: ddz_play::export::Golden = serde_json::from_str(line).unwrap();
            let request = CString::new(golden.request.to_string()).unwrap();
            // SAFETY: a NUL-terminated request; the answer is freed once read.
            let listed = unsafe {
                let raw = ddz_request_plays(request.as_ptr());
                assert!(!raw.is_null(), "{model}: no plays for {}", golden.request);
                let listed: Vec<String> = serde_json::from_str(CStr::from_ptr(raw).to_str().unwrap()).unwrap();
                ddz_string_free(raw);
                listed
            };
            assert_eq!(listed, golden.legal, "{model}: the legal plays of {}", golden.request);
            let width = ddz_play_width(hand_structure, laizi);
            let mut state = vec![0.0f32; ddz_state_width()];
            let mut plays = vec![0.0f32; listed.len() * width];
            let mut n = 0usize;
            // SAFETY: the buffers hold the lengths given.
            let code = unsafe {
                ddz_encode_request(
                    request.as_ptr(),
                    hand_structure,
                    state.as_mut_ptr(),
                    state.len(),
                    plays.as_mut_ptr(),
                    plays.len(),
                    &mut n,
                )
            };
            assert_eq!((code, n), (0, listed.len()), "{model}: {}", golden.request);
            assert_eq!(non_zero(&state), golden.state, "{model}: the state row of {}", golden.request);
            let rows: Vec<Vec<(u32, f32)>> = plays.chunks_exact(width).map(non_zero).collect();
            assert_eq!(rows, golden.actions, "{model}: the play rows of {}", golden.request);
            positions += 1;
        }
        assert_eq!(positions, 200, "{model}: the golden file's positions");
    }
}
