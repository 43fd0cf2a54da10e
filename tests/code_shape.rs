//! The shape README's Architecture section promises, checked on the source itself: layers inside
//! each package that only point down (Cargo holds the walls between the packages), tch only in
//! `model` and `runtime`, functions of at most 80 lines, and error types (not `String`) at every
//! public boundary.

use std::path::{Path, PathBuf};

/// The library packages' source folders: the `ddz` package's and the workspace crates'.
const SOURCE_DIRS: &[&str] = &[
    "src",
    "crates/ddz-engine/src",
    "crates/ddz-agents/src",
    "crates/ddz-nets/src",
    "crates/ddz-play/src",
    "crates/ddz-learn/src",
    "crates/ddz-c/src",
];

/// Source files of the packages, with their paths relative to the workspace root.
fn sources() -> Vec<(String, String)> {
    let files = rust_files_under(SOURCE_DIRS);
    assert!(files.len() > 60, "the walk found the sources");
    files
}

/// The package folder and the top-level module a file belongs to
/// (`src/train/actor.rs` → (`src`, `train`); `crates/ddz-engine/src/game/state.rs` →
/// (`crates/ddz-engine/src`, `game`)).
fn module_of(path: &str) -> (&str, &str) {
    let dir = SOURCE_DIRS.iter().rev().find(|d| path.starts_with(&format!("{d}/"))).unwrap();
    let first = path[dir.len() + 1..].split('/').next().unwrap();
    (dir, first.strip_suffix(".rs").unwrap_or(first))
}

/// Layers of each package from the bottom; a module may use modules of lower layers of its own
/// package only, and none of its own layer except the engine pair and the model pair, each of
/// which is one layer in two files. In `ddz`, `crate::game` and the like name the other
/// packages' modules (re-exported), which Cargo keeps below it.
const LAYERS: &[(&str, &[&[&str]])] = &[
    ("crates/ddz-engine/src", &[&["lines", "seeds", "error", "files", "limits"], &["cards", "game"], &["encode"]]),
    ("crates/ddz-agents/src", &[&["search"], &["agents"]]),
    ("crates/ddz-nets/src", &[&["config", "kernels"], &["weights"], &["qnet", "small"]]),
    (
        "crates/ddz-play/src",
        &[
            &["scripts", "process"],
            &["run"],
            &["agents"],
            &["eval", "logs", "bot", "moves", "solve", "replay", "export"],
            &["play", "decisions", "review"],
            &["serve"],
            &["bench"],
        ],
    ),
    (
        "crates/ddz-learn/src",
        &[&["runtime", "model"], &["checkpoint"], &["train", "pretrain", "hands", "inference"], &["bench"]],
    ),
];
const ONE_LAYER_IN_TWO_FILES: &[&[&str]] = &[&["cards", "game"], &["runtime", "model"]];
/// What `ddz-play` re-exports from the packages below it.
const REEXPORTED: &[&str] =
    &["cards", "encode", "error", "files", "game", "limits", "lines", "nets", "seeds", "search"];
/// What `ddz-learn` takes from `ddz-play` (all of it, re-exported: below every layer of its own).
const PLAYING: &[&str] = &[
    "agents",
    "bench",
    "bot",
    "decisions",
    "eval",
    "export",
    "logs",
    "moves",
    "play",
    "process",
    "replay",
    "review",
    "run",
    "scripts",
    "serve",
    "solve",
];

fn layer(package: &str, module: &str) -> usize {
    let (_, layers) = LAYERS.iter().find(|(dir, _)| *dir == package).unwrap();
    layers
        .iter()
        .position(|l| l.contains(&module))
        .unwrap_or_else(|| panic!("module {module} is in no layer of {package}"))
}

#[test]
fn layers_point_down_only() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if path == "src/main.rs" || path.starts_with("src/cli/") || path.ends_with("src/lib.rs") {
            continue; // the CLI (main.rs and its src/cli/) sits on top; lib.rs only declares the modules
        }
        let (package, me) = module_of(&path);
        for (at, _) in text.match_indices("crate::") {
            let used: String =
                text[at + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if used == me
                || ONE_LAYER_IN_TWO_FILES.iter().any(|pair| pair.contains(&me) && pair.contains(&used.as_str()))
                || (package.ends_with("ddz-play/src") && REEXPORTED.contains(&used.as_str()))
                || (package.ends_with("ddz-learn/src")
                    && (REEXPORTED.contains(&used.as_str()) || PLAYING.contains(&used.as_str())))
            {
                continue;
            }
            if layer(package, &used) >= layer(package, me) {
                wrong.push(format!("{path}: {me} uses crate::{used}"));
            }
        }
    }
    assert!(wrong.is_empty(), "uses that do not point down:\n{}", wrong.join("\n"));
}

/// The CLI stays thin: main.rs parses and dispatches, and only the reports
/// (src/cli/report.rs) print to stdout, so each command's output is written in one place.
#[test]
fn main_is_short_and_only_reports_print() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if path == "src/main.rs" && text.lines().count() >= 400 {
            wrong.push(format!("{path} is {} lines (at most 399)", text.lines().count()));
        }
        let command_code = path == "src/main.rs" || (path.starts_with("src/cli/") && path != "src/cli/report.rs");
        if !command_code {
            continue;
        }
        for (n, line) in code_only(&text).lines().enumerate() {
            if prints_to_stdout(line) {
                wrong.push(format!("{path}:{}: prints to stdout outside src/cli/report.rs", n + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(prints_to_stdout("    println!(\"{x}\");") && prints_to_stdout("x; print!(\"{x}\")"));
    assert!(!prints_to_stdout("    eprintln!(\"{x}\");") && !prints_to_stdout("eprint!(\"{x}\")"));
}

/// Whether a line of code calls `print!` or `println!` (not `eprint!`, `eprintln!`).
fn prints_to_stdout(line: &str) -> bool {
    ["print!", "println!"]
        .iter()
        .any(|m| line.match_indices(m).any(|(at, _)| !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')))
}

/// Where search lives.
const SEARCH: &str = "crates/ddz-agents/src/search/";

/// Search is a library below the agents: PIMC, world sampling and leaf values live in
/// `crates/ddz-agents/src/search/`, and nothing there names an agent (the agents implement
/// search's traits).
#[test]
fn search_holds_pimc_worlds_and_leaves_and_names_no_agent() {
    let files = sources();
    for file in ["pimc.rs", "belief.rs", "leaf.rs"] {
        let module = format!("{SEARCH}{file}");
        assert!(files.iter().any(|(path, _)| *path == module), "{module} is missing");
    }
    let naming: Vec<&str> = files
        .iter()
        .filter(|(path, text)| {
            path.starts_with(SEARCH) && (text.contains("agents::") || text.contains("crate::agents"))
        })
        .map(|(path, _)| path.as_str())
        .collect();
    assert!(naming.is_empty(), "files under {SEARCH} that name the agents: {naming:?}");
}

#[test]
fn only_model_and_runtime_know_tch() {
    let users: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| names_tch(text))
        .map(|(path, _)| path)
        .filter(|path| !path.starts_with("crates/ddz-learn/src/model/") && path != "crates/ddz-learn/src/runtime.rs")
        .collect();
    assert!(users.is_empty(), "tch outside ddz-learn's model/ and runtime.rs: {users:?}");
}

/// Whether `text` names the tch crate: `tch::` as a path of its own (not the end of
/// `tokio::sync::watch::`), or `use tch`.
fn names_tch(text: &str) -> bool {
    let own_path = text
        .match_indices("tch::")
        .any(|(i, _)| text[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_')));
    own_path || text.contains("use tch")
}

/// The text with comments, strings and character literals blanked out (their braces do not
/// count), lines kept.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '"' || (c == 'r' && (next == Some('"') || next == Some('#'))) && !prev_is_ident(&chars, i) {
            i = skip_string(&chars, i, &mut out);
        } else if c == '\'' && is_char_literal(&chars, i) {
            // 'x', '\n', '\'' or '\u{..}': past the (escaped) character, on to the closing quote.
            let mut j = if chars[i + 1] == '\\' { i + 3 } else { i + 2 };
            while chars[j] != '\'' {
                j += 1;
            }
            out.extend((i..=j).map(|_| ' '));
            i = j + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// `'x'` or `'\n'`, not a lifetime `'a`.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    matches!((chars.get(i + 1), chars.get(i + 2)), (Some('\\'), _) | (Some(_), Some('\'')))
}

/// Skips a string literal (plain or raw) starting at `i`, writing blanks (newlines kept).
fn skip_string(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let raw = chars[i] == 'r';
    let mut hashes = 0;
    if raw {
        out.push(' ');
        i += 1;
        while chars[i] == '#' {
            hashes += 1;
            out.push(' ');
            i += 1;
        }
    }
    out.push(' '); // the opening quote
    i += 1;
    while i < chars.len() {
        let c = chars[i];
        if !raw && c == '\\' {
            out.push(' ');
            out.push(if chars[i + 1] == '\n' { '\n' } else { ' ' });
            i += 2;
            continue;
        }
        if c == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
            out.extend((0..=hashes).map(|_| ' '));
            return i + 1 + hashes;
        }
        out.push(if c == '\n' { '\n' } else { ' ' });
        i += 1;
    }
    i
}

/// (name, first line, lines) of every function with a body.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let code = code_only(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(at) = line.find("fn ") else { continue };
        let before = line[..at].trim();
        let is_def = before.split_whitespace().all(|w| {
            matches!(w, "pub" | "const" | "async" | "unsafe" | "extern") || w.starts_with("pub(") || w == "\"C\""
        });
        if !is_def || (at > 0 && !line[..at].ends_with(' ')) {
            continue;
        }
        let name: String = line[at + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let mut depth = 0i32;
        let mut opened = false;
        'scan: for (k, l) in lines[start..].iter().enumerate() {
            let from = if k == 0 { at } else { 0 };
            for c in l[from..].chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened && depth == 0 => break 'scan, // a declaration without a body
                    _ => {}
                }
                if opened && depth == 0 {
                    found.push((name.clone(), start + 1, k + 1));
                    break 'scan;
                }
            }
        }
    }
    found
}

/// Library code answers bad input with errors and states its invariants in its types, so
/// `unwrap` and `expect` stay rare there: at most this many, outside tests and the CLI.
const MOST_UNWRAPS: usize = 71;

#[test]
fn library_code_rarely_unwraps() {
    let mut count = 0;
    let mut by_file = Vec::new();
    for (path, text) in sources() {
        if path == "src/main.rs" || path.starts_with("src/cli/") {
            continue;
        }
        let code = code_only(&text);
        let library = code.split("#[cfg(test)]").next().unwrap_or_default();
        let n = library.matches(".unwrap()").count() + library.matches(".expect(").count();
        if n > 0 {
            by_file.push(format!("{n} {path}"));
        }
        count += n;
    }
    assert!(
        count <= MOST_UNWRAPS,
        "{count} unwrap/expect in library code (at most {MOST_UNWRAPS}):\n{}",
        by_file.join("\n")
    );
}

#[test]
fn no_function_is_longer_than_80_lines() {
    let mut long = Vec::new();
    for (path, text) in sources() {
        for (name, line, length) in functions(&text) {
            if length > 80 {
                long.push(format!("{path}:{line}: fn {name} is {length} lines"));
            }
        }
    }
    assert!(long.is_empty(), "functions longer than 80 lines:\n{}", long.join("\n"));
}

#[test]
fn the_length_check_sees_bodies_and_skips_strings_and_declarations() {
    let text = "fn a() {\n    let s = \"}}}\";\n    let c = '}';\n}\ntrait T {\n    fn b(&self);\n}\n\
                pub(crate) fn c<'a>(x: &'a str) -> &'a str {\n    // }\n    x\n}\n";
    let found = functions(text);
    assert_eq!(found, vec![("a".to_string(), 1, 4), ("c".to_string(), 8, 4)]);
}

/// (name, line) of every `pub` or `pub(…)` function whose error type is a bare `String`:
/// a caller cannot match on such a reason, so public boundaries return error types.
fn string_errors(text: &str) -> Vec<(String, usize)> {
    let code = code_only(text);
    let mut found = Vec::new();
    let mut line_starts = vec![0];
    line_starts.extend(code.match_indices('\n').map(|(i, _)| i + 1));
    for (k, &start) in line_starts.iter().enumerate() {
        let line = &code[start..line_starts.get(k + 1).map_or(code.len(), |&e| e - 1)];
        let Some(at) = line.find("fn ") else { continue };
        let words: Vec<&str> = line[..at].split_whitespace().collect();
        let is_pub = words.iter().any(|w| *w == "pub" || w.starts_with("pub("));
        let is_def = words.iter().all(|w| matches!(*w, "pub" | "const" | "async" | "unsafe") || w.starts_with("pub("));
        if !is_pub || !is_def {
            continue;
        }
        let signature = code[start + at..].split(['{', ';']).next().unwrap_or_default();
        let Some((_, ret)) = signature.split_once("->") else { continue };
        let ret: String = ret.split(" where ").next().unwrap_or_default().split_whitespace().collect();
        let ret = ret.replace(",>", ">");
        let is_result = ["Result<", "std::result::Result<", "core::result::Result<"].iter().any(|r| ret.starts_with(r));
        if is_result && (ret.ends_with(",String>") || ret.ends_with(",std::string::String>")) {
            let name = line[at + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            found.push((name, k + 1));
        }
    }
    found
}

#[test]
fn no_public_function_returns_a_string_error() {
    let mut dirs = SOURCE_DIRS.to_vec();
    dirs.push("python/src");
    let mut bare = Vec::new();
    for (path, text) in rust_files_under(&dirs) {
        for (name, line) in string_errors(&text) {
            bare.push(format!("{path}:{line}: fn {name}"));
        }
    }
    assert!(
        bare.is_empty(),
        "public functions returning Result<_, String> (give them an error type):\n{}",
        bare.join("\n")
    );
}

#[test]
fn the_string_error_check_sees_signatures_over_lines_and_skips_the_rest() {
    let text = "pub fn a(x: u8) -> Result<u8, String> {\n    Ok(x)\n}\n\
                pub(crate) fn b()\n    -> std::result::Result<\n        Vec<u8>,\n        String,\n    > {\n    todo!()\n}\n\
                fn private() -> Result<u8, String> {\n    Ok(0)\n}\n\
                pub fn typed() -> Result<String, MyError> {\n    todo!()\n}\n\
                pub fn nested() -> Result<Vec<String>, MyError> {\n    todo!()\n}\n\
                const S: &str = \"pub fn s() -> Result<(), String> {\";\n\
                pub fn io() -> std::io::Result<String> {\n    todo!()\n}\n";
    assert_eq!(string_errors(text), vec![("a".to_string(), 1), ("b".to_string(), 4)]);
}

/// Rust files under `dirs` (relative to the workspace root), with their relative paths and text.
fn rust_files_under(dirs: &[&str]) -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in dirs {
        if root.join(dir).is_dir() {
            walk(&root.join(dir), &mut files);
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|p| (p.strip_prefix(root).unwrap().display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

#[test]
fn seats_are_typed_outside_the_engine() {
    // Seats are `ddz::game::Seat` everywhere but inside the engine, and the turn order is the
    // game's `Table` (`next`/`prev`/`others`: a table of three or two), not arithmetic modulo
    // 3. The `% 3`s left are not seats: a test's feature pattern and a fuzz case's choice.
    let allowed_mod_3 = ["crates/ddz-learn/src/model/qnet.rs", "tests/fuzz.rs"];
    let (mut typed, mut modulo) = (Vec::new(), Vec::new());
    let mut dirs = SOURCE_DIRS.to_vec();
    dirs.extend(["tests", "crates/ddz-engine/tests", "crates/ddz-agents/tests", "python/src"]);
    for (path, text) in rust_files_under(&dirs) {
        if path.starts_with("crates/ddz-engine/src/game/") {
            continue;
        }
        for (k, line) in code_only(&text).lines().enumerate() {
            let squeezed: String = line.split_whitespace().collect();
            if squeezed.contains("seat:u8") {
                typed.push(format!("{path}:{}: {}", k + 1, line.trim()));
            }
            if (line.contains("% 3") || line.contains("% NUM_PLAYERS")) && !allowed_mod_3.contains(&path.as_str()) {
                modulo.push(format!("{path}:{}: {}", k + 1, line.trim()));
            }
        }
    }
    assert!(typed.is_empty(), "`seat: u8` outside the engine's game/ (use Seat):\n{}", typed.join("\n"));
    assert!(modulo.is_empty(), "`% 3` outside the engine's game/ (use Table's turn order):\n{}", modulo.join("\n"));
}

/// Every `.toml` under `configs/`, with its text.
fn configs() -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("configs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.push((path, text));
            }
        }
    }
    found
}

/// The most lines of a config written over another, and of configs/ in all.
const MOST_OVERLAY_LINES: usize = 15;
const MOST_CONFIG_LINES: usize = 600;

#[test]
fn configs_are_overlays_of_the_one_documented_file() {
    // configs/dmc.toml documents every key; every other config names what it changes over it
    // (or over a config that does), so that no copy drifts from it.
    let configs = configs();
    assert!(configs.len() > 3, "{} configs", configs.len());
    let mut lines = 0;
    for (path, text) in &configs {
        lines += text.lines().count();
        if path.ends_with("configs/dmc.toml") {
            assert!(!text.lines().any(|l| l.starts_with("extends")), "dmc.toml is the base of the others");
            continue;
        }
        let name = path.display();
        assert!(text.lines().any(|l| l.starts_with("extends = ")), "{name} copies keys instead of extending a config");
        assert!(text.lines().count() <= MOST_OVERLAY_LINES, "{name}: over {MOST_OVERLAY_LINES} lines");
        assert!(text.starts_with('#'), "{name}: a comment first says what it is for");
    }
    assert!(lines <= MOST_CONFIG_LINES, "configs/ holds {lines} lines, more than {MOST_CONFIG_LINES}");
}

/// A heading's anchor as GitHub makes it: lower case, punctuation but `-` and `_` dropped,
/// spaces as `-`.
fn anchor_of(heading: &str) -> String {
    let text = heading.replace('`', "").trim().to_lowercase();
    text.chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated one gets `-1`, `-2`, as on GitHub).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(heading) = line.strip_prefix('#').map(|h| h.trim_start_matches('#')) else { continue };
        if !heading.starts_with(' ') {
            continue;
        }
        let base = anchor_of(heading);
        let n = seen.iter().filter(|s| **s == base).count();
        seen.push(base.clone());
        out.push(if n == 0 { base } else { format!("{base}-{n}") });
    }
    out
}

/// Text outside fenced code blocks.
fn prose(text: &str) -> String {
    text.split("```").step_by(2).collect::<Vec<_>>().join("\n")
}

/// The relative link targets of a Markdown text (`](target)`, web links left out).
fn link_targets(text: &str) -> Vec<String> {
    prose(text)
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split([')', ' ']).next())
        .filter(|t| !t.starts_with("http://") && !t.starts_with("https://") && !t.starts_with("mailto:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_link_of_readme_docs_and_model_cards_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    for dir in ["docs", "models"] {
        let mut dirs = vec![root.join(dir)];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    pages.push(path);
                }
            }
        }
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for target in link_targets(&text) {
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            let ok = match std::fs::read_to_string(&path) {
                _ if !path.exists() => false,
                Ok(linked)
                    if !anchor.is_empty() && file.ends_with(".md") || (file.is_empty() && !anchor.is_empty()) =>
                {
                    anchors(&linked).iter().any(|a| a == anchor)
                }
                _ => true,
            };
            if !ok {
                broken.push(format!("{}: {target}", page.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(pages.len() > 20, "{} pages", pages.len());
    assert!(broken.is_empty(), "links that resolve to nothing:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_sees_files_and_anchors() {
    assert_eq!(anchor_of(" The headroom: `ddz headroom`"), "the-headroom-ddz-headroom");
    assert_eq!(anchors("# A\n## A\n```\n# not\n```\n#nope\n"), ["a", "a-1", "not"]);
    assert_eq!(link_targets("[x](a.md#b) [y](https://e) ```[z](c.md)``` [w](d.png)"), ["a.md#b", "d.png"]);
}
