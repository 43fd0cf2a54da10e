//! `bot:CMD`: any program that speaks the native bot protocol (the JSON lines `ddz bot` serves)
//! as an agent. CMD runs once per agent (so once per evaluation worker) through `sh -c`, in its
//! own process group; each decision is one request line and one answer line.
//!
//! The protocol's requests are the seat's [`View`] in its serde form, defined once for both
//! sides: a play request (`{"seat","hand","bottom","history"}`, and `bids` after bidding) →
//! `{"play":"…"}`, and a bid request (`{"seat_index","hand","bids"}`) → `{"bid":n}`. A bot may
//! also answer `{"error":"…"}` (it cannot answer) or `{"mismatch":"…"}`: the game has left the
//! rules the bot plays by (DouZero's rule set is not quite the standard one), and the game
//! counts as a rule mismatch. A bot that
//! plays by other rules may say so in each answer (`{"play":"…","rules":"douzero"}`): a play of
//! its that the standard set does not allow here is then a rule mismatch too, not a fault.
//!
//! A bot that answers an illegal or unparsable play, an error, closes its output or takes
//! longer than `timeout_ms` is a [`Fault`]: by default the evaluation stops with an error
//! naming the bot and the request; with `on_error=forfeit` its side loses that game and the
//! report counts it. Either way the process is stopped and started afresh for the next game:
//! after a time-out its late answer must never be read as the answer to a later request.

use super::{Agent, BidTurn, Fault, Query, Turn};
use crossbeam_channel::{Receiver, RecvTimeoutError};
use ddz_engine::game::laizi::ids::parse_notation;
use ddz_engine::game::{ActionTable, Play, View};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as the one JSON line the bot reads: the seat's view, in its serde form.
fn request_line(view: &View<'_>) -> Result<String, Fault> {
    serde_json::to_string(view).map_err(|e| Fault::Failed(format!("cannot write the request: {e}")))
}

/// What a bot's failure costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnError {
    /// The evaluation stops with an error naming the bot, the deal and the request.
    #[default]
    Fail,
    /// The bot's side loses the game; reports count these forfeits.
    Forfeit,
}

/// The knobs of `bot:CMD?timeout_ms=10000&on_error=fail`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotSettings {
    /// The longest wait for one answer (the first answer of a fresh process may take a minute
    /// more).
    pub timeout: Duration,
    /// What a failure to answer costs: stop the evaluation (the default) or forfeit the game.
    pub on_error: OnError,
}

impl Default for BotSettings {
    fn default() -> Self {
        BotSettings { timeout: Duration::from_millis(10_000), on_error: OnError::Fail }
    }
}

/// What a freshly started bot may take on top of `timeout` for its first answer: starting an
/// interpreter and loading a network is not thinking time.
const START_ALLOWANCE: Duration = Duration::from_secs(60);

/// The lines of stderr kept for error messages.
const STDERR_TAIL: usize = 8;

/// A running bot: its input, its output lines as they arrive, the tail of its stderr.
struct Process {
    child: Child,
    answered: bool,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Disconnected once the whole of stderr is read.
    stderr_read: Receiver<()>,
}

/// How a bot's process starts.
#[derive(Clone, Debug)]
enum Launch {
    /// A command line for `sh -c` (`bot:CMD`).
    Shell(String),
    /// A program and its arguments, without a shell.
    Program(Vec<String>),
}

impl Launch {
    fn command(&self) -> Command {
        match self {
            Launch::Shell(line) => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(line);
                c
            }
            Launch::Program(argv) => {
                let mut c = Command::new(&argv[0]);
                c.args(&argv[1..]);
                c
            }
        }
    }
}

impl Process {
    fn start(launch: &Launch) -> Result<Process, String> {
        let mut child = launch
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start it: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err("cannot start it: its pipes did not open".into());
        };
        let (send, lines) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let end = line.is_err();
                if send.send(line).is_err() || end {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = Arc::clone(&tail);
        let (read, stderr_read) = crossbeam_channel::bounded::<()>(0);
        std::thread::spawn(move || {
            let _read = read; // dropped at the end of stderr
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = keep.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_TAIL {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(Process { child, answered: false, stdin, lines, stderr: tail, stderr_read })
    }

    /// Sends one request line and waits for one answer line.
    fn ask(&mut self, request: &str, timeout: Duration) -> Result<String, String> {
        let sent = writeln!(self.stdin, "{request}").and_then(|_| self.stdin.flush());
        if let Err(e) = sent {
            return Err(format!("its input is closed ({e}){}", self.exit_and_stderr()));
        }
        let wait = if self.answered { timeout } else { timeout + START_ALLOWANCE };
        match self.lines.recv_timeout(wait) {
            Ok(Ok(line)) => {
                self.answered = true;
                Ok(line)
            }
            Ok(Err(e)) => Err(format!("reading its output: {e}")),
            Err(RecvTimeoutError::Timeout) => Err(format!("no answer within {} ms", wait.as_millis())),
            Err(RecvTimeoutError::Disconnected) => Err(format!("it closed its output{}", self.exit_and_stderr())),
        }
    }

    /// How the process ended, if it has, and the last lines of its stderr.
    fn exit_and_stderr(&mut self) -> String {
        // Give an exiting process a moment, so that its status and last words are in.
        let mut status = None;
        for _ in 0..20 {
            status = self.child.try_wait().ok().flatten();
            if status.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if status.is_some() {
            // Its last words may still be in the pipe: wait for the reader to reach the end.
            let _ = self.stderr_read.recv_timeout(Duration::from_secs(2));
        }
        let mut out = match status {
            Some(s) => format!("; it exited ({s})"),
            None => String::new(),
        };
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if !tail.is_empty() {
            out += &format!("; its stderr ends: {}", tail.iter().cloned().collect::<Vec<_>>().join(" / "));
        }
        out
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // The whole group: `sh -c` may have started the bot as a child of its own.
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals that process group and touches no memory.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An agent played by an outside program over the native bot protocol.
pub struct BotAgent {
    launch: Launch,
    /// The command as error messages name it.
    command: String,
    settings: BotSettings,
    name: String,
    process: Option<Process>,
    /// The bot answers a JSON array of play requests with the array of their answers (as
    /// `ddz bot` does), so [`Agent::try_choose_many`] is one line each way.
    batches: bool,
}

impl BotAgent {
    /// The agent of `command` run by `sh -c` (started on its first request), named `name` in
    /// reports.
    pub fn new(command: &str, settings: BotSettings, name: String) -> BotAgent {
        let launch = Launch::Shell(command.to_string());
        BotAgent { launch, command: command.to_string(), settings, name, process: None, batches: false }
    }

    /// A `ddz bot --agent SPEC` process of the ddz binary `binary`, started without a shell and
    /// asked for many decisions in one line.
    pub fn ddz_bot(binary: &str, spec: &str, settings: BotSettings) -> BotAgent {
        let argv = [binary, "bot", "--agent", spec].map(str::to_string).to_vec();
        let command = format!("{binary} bot --agent {spec}");
        BotAgent {
            launch: Launch::Program(argv),
            command,
            settings,
            name: spec.to_string(),
            process: None,
            batches: true,
        }
    }

    /// Starts a batch-taking bot and waits for its answer to an empty batch, so that a bot that
    /// cannot start (a bad spec, a missing file) fails here, with its reason, rather than at
    /// its first decision.
    pub fn start(&mut self) -> Result<(), Fault> {
        let line = self.ask_process("[]").map_err(|reason| self.fault(&reason, "[]"))?;
        match serde_json::from_str(&line) {
            Ok(serde_json::Value::Array(a)) if a.is_empty() => Ok(()),
            other => {
                self.answer_object(other.ok(), &line, "[]")?;
                Err(self.fault(&format!("answered {:?} to an empty batch", cut(&line)), "[]"))
            }
        }
    }

    /// One request and its answer as JSON. A failure stops the process (a fresh one answers the
    /// next request) and is a fault of the kind `on_error` asks for; `{"mismatch":…}` is the
    /// bot's word that the game has left its rules.
    fn ask(&mut self, request: &str) -> Result<serde_json::Map<String, serde_json::Value>, Fault> {
        let line = self.ask_process(request).map_err(|reason| self.fault(&reason, request))?;
        self.answer_object(serde_json::from_str(&line).ok(), &line, request)
    }

    /// An answer (`text` as it came) that is an object and neither an error nor a mismatch.
    fn answer_object(
        &mut self,
        value: Option<serde_json::Value>,
        text: &str,
        request: &str,
    ) -> Result<serde_json::Map<String, serde_json::Value>, Fault> {
        let Some(serde_json::Value::Object(answer)) = value else {
            return Err(self.fault(&format!("answered {:?}, not a JSON object", cut(text)), request));
        };
        if let Some(why) = answer.get("mismatch") {
            return Err(Fault::Mismatch(self.describe(&text_of(why), request)));
        }
        if let Some(why) = answer.get("error") {
            return Err(self.fault(&format!("answered an error: {}", text_of(why)), request));
        }
        Ok(answer)
    }

    fn ask_process(&mut self, request: &str) -> Result<String, String> {
        let process = match &mut self.process {
            Some(process) => process,
            none => none.insert(Process::start(&self.launch)?),
        };
        process.ask(request, self.settings.timeout)
    }

    /// The index among `plays` of an answer's `"play"`.
    fn play_index(
        &mut self,
        answer: &serde_json::Map<String, serde_json::Value>,
        plays: &[Play],
        request: &str,
    ) -> Result<usize, Fault> {
        let text = match answer.get("play") {
            Some(serde_json::Value::String(s)) => s.clone(),
            _ => return Err(self.fault("answered no \"play\" string", request)),
        };
        // Under laizi a play with wild cards is named by its reading (`5555/5`): match ids.
        let table = ActionTable::get();
        let found = parse_notation(&text).and_then(|id| plays.iter().position(|q| table.id(q) == id));
        found.ok_or_else(|| {
            self.fault(&format!("answered {:?}, not one of the {} legal plays", cut(&text), plays.len()), request)
        })
    }

    fn describe(&self, reason: &str, request: &str) -> String {
        format!("bot {:?}: {reason} (request {})", self.command, cut(request))
    }

    /// The fault for `reason`; the process is stopped so that the next game starts clean.
    fn fault(&mut self, reason: &str, request: &str) -> Fault {
        self.process = None;
        let text = self.describe(reason, request);
        match self.settings.on_error {
            OnError::Fail => Fault::Failed(text),
            OnError::Forfeit => Fault::Forfeit(text),
        }
    }
}

fn text_of(v: &serde_json::Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A long line cut for an error message.
fn cut(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

impl Agent for BotAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Outside [`Agent::try_choose`] a fault is said on stderr and is an answer outside the
    /// legal plays, which the game loop counts as illegal.
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { plays, .. } = turn;
        self.try_choose(turn).unwrap_or_else(|fault| {
            eprintln!("{fault}");
            plays.len()
        })
    }

    fn try_choose(&mut self, turn: Turn<'_>) -> Result<usize, Fault> {
        let Turn { plays, .. } = turn;
        let request = request_line(turn.view)?;
        let answer = self.ask(&request)?;
        self.play_index(&answer, plays, &request)
    }

    /// One line for all the queries when the bot takes batches (the seeds are the bot's own,
    /// drawn from each request, as for a single request); else one line each.
    fn try_choose_many(&mut self, queries: &[Query]) -> Result<Vec<usize>, Fault> {
        if !self.batches {
            return super::one_by_one(self, queries);
        }
        // A bot line holds at most the protocol's batch: more go in lines of that many.
        let most = ddz_engine::limits::MOST_BATCH_ITEMS as usize;
        if queries.len() > most {
            let mut picks = Vec::with_capacity(queries.len());
            for part in queries.chunks(most) {
                picks.extend(self.try_choose_many(part)?);
            }
            return Ok(picks);
        }
        let requests: Vec<String> = queries.iter().map(|q| request_line(q.turn.view)).collect::<Result<_, _>>()?;
        let line = format!("[{}]", requests.join(","));
        let text = self.ask_process(&line).map_err(|reason| self.fault(&reason, &line))?;
        let answers = match serde_json::from_str(&text) {
            Ok(serde_json::Value::Array(answers)) if answers.len() == queries.len() => answers,
            Ok(serde_json::Value::Array(answers)) => {
                let why = format!("answered {} answers to {} requests", answers.len(), queries.len());
                return Err(self.fault(&why, &line));
            }
            other => {
                self.answer_object(other.ok(), &text, &line)?;
                return Err(self.fault(&format!("answered {:?}, not a JSON array", cut(&text)), &line));
            }
        };
        let mut picks = Vec::with_capacity(queries.len());
        for ((answer, q), request) in answers.into_iter().zip(queries).zip(&requests) {
            let text = answer.to_string();
            let answer = self.answer_object(Some(answer), &text, request)?;
            picks.push(self.play_index(&answer, q.turn.plays, request)?);
        }
        Ok(picks)
    }

    /// Outside [`Agent::try_bid`] a fault is said on stderr and is an illegal bid.
    fn bid(&mut self, turn: BidTurn<'_>) -> u8 {
        self.try_bid(turn).unwrap_or_else(|fault| {
            eprintln!("{fault}");
            u8::MAX
        })
    }

    fn try_bid(&mut self, turn: BidTurn<'_>) -> Result<u8, Fault> {
        let BidTurn { legal, .. } = turn;
        let request = request_line(turn.view)?;
        let answer = self.ask(&request)?;
        match answer.get("bid").and_then(|b| b.as_u64()) {
            Some(b) if b <= 3 && legal.contains(&(b as u8)) => Ok(b as u8),
            Some(b) => Err(self.fault(&format!("bid {b}, not one of {legal:?}"), &request)),
            None => Err(self.fault("answered no \"bid\" number", &request)),
        }
    }
}
