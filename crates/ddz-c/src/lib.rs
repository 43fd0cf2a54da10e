//! ddz's C interface (`include/ddz.h`, generated from this file by cbindgen): the legal plays of
//! a hand, the feature encoder an exported network reads, every agent ddz knows answering the
//! native bot protocol's requests, and a game handle that deals and referees whole games. A
//! program in C, C++, C# or Go links `libddz_c.so` and needs no Rust toolchain and no libtorch.
//!
//! Conventions, the same for every function:
//! - Text in and out is UTF-8 and NUL-terminated. A returned `char *` is the caller's: free it
//!   with [`ddz_string_free`].
//! - A call that fails returns `NULL` or `-1` and leaves the reason in [`ddz_last_error`] (per
//!   thread). Bad input never aborts the process: a null pointer, text that is not UTF-8, a
//!   request that does not parse and a panic inside ddz are all such failures.
//! - A `DdzAgent` may be shared between threads (it answers one request at a time); a
//!   `DdzGame` belongs to one thread at a time.

use ddz_play::agents::{Agent, AgentSpec};
use ddz_play::cards::Counts;
use ddz_play::encode::{ActionLayout, BID_DIM, STATE_DIM, encode_bid_view, encode_view};
use ddz_play::game::laizi::ids::{parse_play_notation, play_notation};
use ddz_play::game::laizi::{self, WildRank};
use ddz_play::game::{GameConfig, Play, Rules, State, View, legal_plays_vec};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

/// This library's version, e.g. `"ddz 0.1.0"`; static, never freed.
#[unsafe(no_mangle)]
pub extern "C" fn ddz_version() -> *const c_char {
    concat!("ddz ", env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The feature layout the encoder writes (`"ddz-features-2"`): an exported network's ONNX file
/// names the layout it reads in its `ddz_feature_layout` metadata; refuse a file that differs.
#[unsafe(no_mangle)]
pub extern "C" fn ddz_feature_layout() -> *const c_char {
    static LAYOUT: std::sync::OnceLock<CString> = std::sync::OnceLock::new();
    LAYOUT.get_or_init(|| CString::new(ddz_play::nets::FEATURE_LAYOUT).expect("no NUL in the layout name")).as_ptr()
}

thread_local! {
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// Why this thread's last failed call failed, or `NULL` when none has failed; the text stays
/// valid until the next failing call on this thread. Never free it.
#[unsafe(no_mangle)]
pub extern "C" fn ddz_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ref().map_or(std::ptr::null(), |m| m.as_ptr()))
}

/// Frees a string this library returned; `NULL` is ignored.
///
/// # Safety
/// `s` is `NULL` or a string returned by this library, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: the caller hands back a string made by `CString::into_raw` below.
        drop(unsafe { CString::from_raw(s) });
    }
}

/// Runs `f`, turning its error or panic into `fail` and this thread's last error.
fn guard<T>(fail: T, f: impl FnOnce() -> Result<T, String>) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        Err(format!("internal error in ddz (please report it): {what}"))
    });
    outcome.unwrap_or_else(|reason| {
        let message = CString::new(reason.replace('\0', " ")).expect("NULs were replaced");
        LAST_ERROR.with(|e| *e.borrow_mut() = Some(message));
        fail
    })
}

/// A string argument as UTF-8 text; `what` names it in the error.
///
/// # Safety
/// `s` is `NULL` or a NUL-terminated string.
unsafe fn text<'a>(s: *const c_char, what: &str) -> Result<&'a str, String> {
    if s.is_null() {
        return Err(format!("{what}: NULL where text was expected"));
    }
    // SAFETY: non-null, NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(s) }.to_str().map_err(|e| format!("{what}: not UTF-8 ({e})"))
}

/// An optional string argument: `NULL` or empty is `None`.
///
/// # Safety
/// As [`text`].
unsafe fn optional_text<'a>(s: *const c_char, what: &str) -> Result<Option<&'a str>, String> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: as the caller's.
    Ok(Some(unsafe { text(s, what) }?.trim()).filter(|t| !t.is_empty()))
}

/// Text handed to the caller, to free with [`ddz_string_free`].
fn owned(text: String) -> Result<*mut c_char, String> {
    CString::new(text).map(CString::into_raw).map_err(|e| format!("an answer with a NUL byte: {e}"))
}

/// Plays as a JSON array of their notation (`["pass","3","5555/5"]`).
fn plays_json(plays: &[Play]) -> String {
    serde_json::Value::Array(plays.iter().map(|p| play_notation(p).into()).collect()).to_string()
}

// ---- legal plays ----

/// The legal plays of `hand` (notation, e.g. `"3455778899KAA22R"`) against `rival` (`NULL` or
/// `""` to lead), as a JSON array of their notation sorted by it, `"pass"` included when
/// following. With `wild` (a rank, `"7"`; `NULL` for the standard game) the hand plays by laizi
/// rules and plays that take wild cards are written `reading/stands` (`"5555/5"`). `NULL` when
/// an argument does not parse.
///
/// # Safety
/// Each argument is `NULL` or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_legal_plays(
    hand: *const c_char,
    rival: *const c_char,
    wild: *const c_char,
) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as the caller's contract.
        let (hand, rival, wild) =
            unsafe { (text(hand, "hand")?, optional_text(rival, "rival")?, optional_text(wild, "wild")?) };
        let hand = Counts::parse(hand).map_err(|e| format!("hand: {e}"))?;
        let wild = wild.map(WildRank::parse).transpose().map_err(|e| format!("wild: {e}"))?;
        let rival = rival.map(|r| parse_play_notation(r, wild)).transpose().map_err(|e| format!("rival: {e}"))?;
        if rival.is_some_and(|r| r.is_pass()) {
            return Err("rival: a pass is not a play to beat (give NULL to lead)".into());
        }
        let mut plays = match wild {
            Some(w) => laizi::legal_plays_vec(hand, w, rival.as_ref()),
            None => legal_plays_vec(hand, rival.as_ref()),
        };
        plays.sort_by_cached_key(play_notation);
        owned(plays_json(&plays))
    })
}

// ---- the encoder ----

/// Floats in the state row [`ddz_encode_request`] writes: the `state` input of an exported
/// network.
#[unsafe(no_mangle)]
pub extern "C" fn ddz_state_width() -> usize {
    STATE_DIM
}

/// Floats in one play's row: the width of an exported network's `actions` input. A network
/// reads the hand-structure block when its ONNX metadata says `ddz_hand_structure = true`, and
/// the laizi block when it plays laizi.
#[unsafe(no_mangle)]
pub extern "C" fn ddz_play_width(hand_structure: bool, laizi: bool) -> usize {
    ActionLayout { hand_structure, laizi }.dim()
}

/// A play request's view and its seat's legal plays, in the order the encoder writes them.
fn request_decision(request: &str) -> Result<(View<'static>, Vec<Play>), String> {
    let view = ddz_play::bot::read_request(request).map_err(|e| e.to_string())?;
    let plays = ddz_play::bot::decision_plays(&view).map_err(|e| e.to_string())?;
    Ok((view, plays))
}

/// The legal plays of the seat whose play request (the native bot protocol's JSON, as
/// [`ddz_game_request`] writes it) this is, as a JSON array of their notation, in the order of
/// the rows [`ddz_encode_request`] writes. `NULL` when the request does not parse, or it is not
/// that seat's turn to play.
///
/// # Safety
/// `request` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_request_plays(request: *const c_char) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as the caller's contract.
        let (_, plays) = request_decision(unsafe { text(request, "request") }?)?;
        owned(plays_json(&plays))
    })
}

/// The features of a play request, as an exported network reads them: the state row into
/// `state` (`state_len` must be [`ddz_state_width`]) and one row per legal play, in the order of
/// [`ddz_request_plays`], into `plays` (each row [`ddz_play_width`] of `hand_structure` and of
/// the request's rules). `*n_plays` is set to the number of legal plays. Returns 0 when every
/// row was written, 1 when `plays_len` holds fewer than `*n_plays` rows (the state row is
/// written, the plays are not: call again with room for them), -1 on a request that cannot be
/// encoded.
///
/// # Safety
/// `request` is a NUL-terminated string; `state` points to `state_len` floats, `plays` to
/// `plays_len` floats (or is `NULL` with `plays_len` 0); `n_plays` to a `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_encode_request(
    request: *const c_char,
    hand_structure: bool,
    state: *mut f32,
    state_len: usize,
    plays: *mut f32,
    plays_len: usize,
    n_plays: *mut usize,
) -> i32 {
    guard(-1, || {
        // SAFETY: as the caller's contract.
        let (view, legal) = request_decision(unsafe { text(request, "request") }?)?;
        if state.is_null() || state_len != STATE_DIM {
            return Err(format!("state: room for {state_len} floats, the state row is {STATE_DIM}"));
        }
        if n_plays.is_null() {
            return Err("n_plays: NULL where a size_t* was expected".into());
        }
        let layout = ActionLayout { hand_structure, laizi: view.config().rules == Rules::Laizi };
        // SAFETY: `state` holds `state_len` floats, checked non-null above.
        encode_view(&view, unsafe { std::slice::from_raw_parts_mut(state, state_len) });
        // SAFETY: checked non-null above.
        unsafe { *n_plays = legal.len() };
        let needed = legal.len() * layout.dim();
        if plays_len < needed || plays.is_null() {
            return Ok(1);
        }
        // SAFETY: `plays` holds `plays_len >= needed` floats.
        layout.encode_plays(&view, &legal, unsafe { std::slice::from_raw_parts_mut(plays, needed) });
        Ok(0)
    })
}

/// Floats in a bidding decision's row: the `bid_state` input of an exported bidding network.
#[unsafe(no_mangle)]
pub extern "C" fn ddz_bid_width() -> usize {
    BID_DIM
}

/// The features of a bid request (the native bot protocol's, as [`ddz_game_request`] writes it
/// while bidding) into `out` (`len` must be [`ddz_bid_width`]), as an exported bidding network
/// reads them. 0, or -1 when the request is no bidding decision.
///
/// # Safety
/// `request` is a NUL-terminated string; `out` points to `len` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_encode_bid_request(request: *const c_char, out: *mut f32, len: usize) -> i32 {
    guard(-1, || {
        // SAFETY: as the caller's contract.
        let view = ddz_play::bot::read_request(unsafe { text(request, "request") }?).map_err(|e| e.to_string())?;
        if view.landlord().is_some() || view.current_player() != Some(view.seat()) {
            return Err("not a bid request: the bidding is over, or it is another seat's turn".into());
        }
        if out.is_null() || len != BID_DIM {
            return Err(format!("out: room for {len} floats, the bidding row is {BID_DIM}"));
        }
        // SAFETY: `out` holds `len` floats, checked non-null above.
        encode_bid_view(&view, unsafe { std::slice::from_raw_parts_mut(out, len) });
        Ok(0)
    })
}

// ---- agents ----

/// An agent of ddz, built from its spec.
pub struct DdzAgent {
    /// One answer at a time: an agent keeps its draws and buffers.
    agent: Mutex<Box<dyn Agent>>,
}

/// The agent of `spec` (`ddz eval --help` lists them: `rule`, `random`, `checkpoint:DIR` for a
/// trained network, `pimc:…`, …), or `NULL` when the spec does not parse or its files do not
/// load. Networks decide through ddz's own forward pass: no libtorch. Free it with
/// [`ddz_agent_free`].
///
/// # Safety
/// `spec` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_agent_new(spec: *const c_char) -> *mut DdzAgent {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as the caller's contract.
        let spec: AgentSpec = unsafe { text(spec, "spec") }?.parse().map_err(|e| format!("spec: {e}"))?;
        let agent = spec.build().map_err(|e| e.to_string())?;
        Ok(Box::into_raw(Box::new(DdzAgent { agent: Mutex::new(agent) })))
    })
}

/// The agent's answer to a request of the native bot protocol (what `ddz bot` answers to that
/// line, docs/bots-and-logs.md): `{"play":"…"}` to a play request, `{"bid":n}` to a bid request, or the
/// array of answers to an array of requests. `NULL` when the request cannot be answered.
///
/// # Safety
/// `agent` comes from [`ddz_agent_new`] and is not freed; `request` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_agent_answer(agent: *const DdzAgent, request: *const c_char) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as the caller's contract.
        let (agent, request) = unsafe { (agent.as_ref().ok_or("agent: NULL")?, text(request, "request")?) };
        let mut agent = agent.agent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let answer = ddz_play::bot::answer_native_json(agent.as_mut(), request).map_err(|e| e.to_string())?;
        owned(answer.to_string())
    })
}

/// Frees an agent; `NULL` is ignored.
///
/// # Safety
/// `agent` is `NULL` or comes from [`ddz_agent_new`], not yet freed, and no other thread uses it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_agent_free(agent: *mut DdzAgent) {
    if !agent.is_null() {
        // SAFETY: made by `Box::into_raw` in `ddz_agent_new`.
        drop(unsafe { Box::from_raw(agent) });
    }
}

// ---- games ----

/// A game in progress, with every seat's cards: the referee of a table whose players are
/// agents or the program's own code.
pub struct DdzGame {
    state: State,
    /// Draws the deal, and laizi's wild rank when bidding ends.
    rng: StdRng,
}

impl DdzGame {
    /// After each action: a chance node (laizi's wild rank, drawn once the landlord is known) is
    /// resolved here, so the game is always at a seat's decision or over.
    fn settle(&mut self) {
        self.state.draw_wild(&mut self.rng);
    }

    fn apply_play(&mut self, text: &str) -> Result<(), String> {
        let play = parse_play_notation(text, self.state.wild()).map_err(|e| format!("play {text:?}: {e}"))?;
        self.state.try_apply_play(play).map_err(|e| format!("play {text:?}: {e}"))?;
        self.settle();
        Ok(())
    }

    fn apply_bid(&mut self, bid: i64) -> Result<(), String> {
        let b = u8::try_from(bid).map_err(|_| format!("bid {bid}: bids are 0 (pass) to 3"))?;
        self.state.try_apply_bid(b).map_err(|e| format!("bid {bid}: {e}"))?;
        self.settle();
        Ok(())
    }
}

/// A new game under `rules` (`"standard"`, `"laizi"` or `"two_player"`; docs/rules.md), dealt
/// from `seed` (the same seed, the same game). Without `bidding` seat 0 is the landlord and the
/// game starts at its first play; with it, the game starts at seat 0's bid. `NULL` for unknown
/// rules. Free it with [`ddz_game_free`].
///
/// # Safety
/// `rules` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_new(rules: *const c_char, bidding: bool, seed: u64) -> *mut DdzGame {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as the caller's contract.
        let rules: Rules = unsafe { text(rules, "rules") }?.parse().map_err(|e| format!("rules: {e}"))?;
        let config = GameConfig { rules, bidding, ..GameConfig::default() };
        config.check().map_err(|e| e.to_string())?;
        let mut game = DdzGame { state: State::new(config), rng: StdRng::seed_from_u64(seed) };
        game.state.deal_random(&mut game.rng);
        game.settle();
        Ok(Box::into_raw(Box::new(game)))
    })
}

/// The game behind a pointer, or the error that names it.
///
/// # Safety
/// `game` is `NULL` or comes from [`ddz_game_new`], not yet freed.
unsafe fn game_ref<'a>(game: *const DdzGame) -> Result<&'a DdzGame, String> {
    // SAFETY: as the caller's contract.
    unsafe { game.as_ref() }.ok_or_else(|| "game: NULL".to_string())
}

/// As [`game_ref`], to change it.
///
/// # Safety
/// As [`game_ref`], and no other reference to it is in use.
unsafe fn game_mut<'a>(game: *mut DdzGame) -> Result<&'a mut DdzGame, String> {
    // SAFETY: as the caller's contract.
    unsafe { game.as_mut() }.ok_or_else(|| "game: NULL".to_string())
}

/// Seats at the table: 3, or 2 in a two-player game; -1 for `NULL`.
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_seats(game: *const DdzGame) -> i32 {
    // SAFETY: as the caller's contract.
    guard(-1, || Ok(unsafe { game_ref(game) }?.state.table().len() as i32))
}

/// The seat to act (0, 1 or 2), or -1 once the game is over.
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_current_seat(game: *const DdzGame) -> i32 {
    // SAFETY: as the caller's contract.
    guard(-1, || Ok(unsafe { game_ref(game) }?.state.current_player().map_or(-1, |s| s.number() as i32)))
}

/// What the seat to act may see, as the native bot protocol's request: a bid request while
/// bidding, a play request after. Hand it to [`ddz_agent_answer`] (or to
/// [`ddz_encode_request`]). `NULL` once the game is over.
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_request(game: *const DdzGame) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as the caller's contract.
        let state = &unsafe { game_ref(game) }?.state;
        let seat = state.current_player().ok_or("the game is over")?;
        owned(serde_json::to_string(&state.view(seat)).map_err(|e| e.to_string())?)
    })
}

/// Makes the seat to act's play, in notation (`"34567"`, `"pass"`; laizi `"5555/5"`). 0, or -1
/// when it is no legal play here (the game is then unchanged).
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed; `play` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_play(game: *mut DdzGame, play: *const c_char) -> i32 {
    guard(-1, || {
        // SAFETY: as the caller's contract.
        let (game, play) = unsafe { (game_mut(game)?, text(play, "play")?) };
        game.apply_play(play).map(|()| 0)
    })
}

/// Makes the seat to act's bid (0 = pass, or 1 to 3 above the highest so far). 0, or -1 when
/// it is no legal bid here (the game is then unchanged).
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_bid(game: *mut DdzGame, bid: i32) -> i32 {
    // SAFETY: as the caller's contract.
    guard(-1, || unsafe { game_mut(game) }?.apply_bid(bid.into()).map(|()| 0))
}

/// Makes what an agent answered to [`ddz_game_request`]: `{"play":"…"}` or `{"bid":n}`. 0, or
/// -1 when the answer is none of those or not legal here (an `{"error":…}` answer's reason
/// becomes the error).
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed; `answer` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_apply_answer(game: *mut DdzGame, answer: *const c_char) -> i32 {
    guard(-1, || {
        // SAFETY: as the caller's contract.
        let (game, answer) = unsafe { (game_mut(game)?, text(answer, "answer")?) };
        let value: serde_json::Value = serde_json::from_str(answer).map_err(|e| format!("answer: {e}"))?;
        match (value.get("play"), value.get("bid"), value.get("error")) {
            (Some(serde_json::Value::String(play)), None, None) => game.apply_play(play),
            (None, Some(bid), None) => {
                game.apply_bid(bid.as_i64().ok_or_else(|| format!("answer: bid {bid} is not a whole number"))?)
            }
            (_, _, Some(error)) => Err(format!("the agent answered an error: {error}")),
            _ => Err(format!("answer: {answer} is neither {{\"play\":\"…\"}} nor {{\"bid\":n}}")),
        }
        .map(|()| 0)
    })
}

/// The legal plays of the seat to act, as a JSON array of their notation (`NULL` while bidding
/// or once the game is over).
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_legal_plays(game: *const DdzGame) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as the caller's contract.
        let state = &unsafe { game_ref(game) }?.state;
        let seat = state.current_player().ok_or("the game is over")?;
        let plays = ddz_play::bot::decision_plays(&state.view(seat)).map_err(|e| e.to_string())?;
        owned(plays_json(&plays))
    })
}

/// Writes each seat's return into `out` (`len` at least [`ddz_game_seats`]), by the game's
/// scoring (docs/rules.md; zero for a game nobody bid on). The number of seats, or -1 while the
/// game is not over.
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed; `out` points to `len` doubles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_returns(game: *const DdzGame, out: *mut f64, len: usize) -> i32 {
    guard(-1, || {
        // SAFETY: as the caller's contract.
        let state = &unsafe { game_ref(game) }?.state;
        if !state.is_terminal() {
            return Err("the game is not over".into());
        }
        let seats = state.table().len();
        if out.is_null() || len < seats {
            return Err(format!("out: room for {len} returns, the game has {seats} seats"));
        }
        // SAFETY: `out` holds `len >= seats` doubles.
        unsafe { std::slice::from_raw_parts_mut(out, seats) }.copy_from_slice(&state.returns()[..seats]);
        Ok(seats as i32)
    })
}

/// The whole game so far, every hand included, as the State API's JSON (Python's
/// `State.from_json` rebuilds it exactly): for logs, never for a seat's decision.
///
/// # Safety
/// `game` comes from [`ddz_game_new`] and is not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_to_json(game: *const DdzGame) -> *mut c_char {
    // SAFETY: as the caller's contract.
    guard(std::ptr::null_mut(), || owned(unsafe { game_ref(game) }?.state.to_json()))
}

/// Frees a game; `NULL` is ignored.
///
/// # Safety
/// `game` is `NULL` or comes from [`ddz_game_new`], not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ddz_game_free(game: *mut DdzGame) {
    if !game.is_null() {
        // SAFETY: made by `Box::into_raw` in `ddz_game_new`.
        drop(unsafe { Box::from_raw(game) });
    }
}
