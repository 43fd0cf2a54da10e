//! The knobs of an agent spec (`pimc:NET?worlds=16&top=4`), declared once per agent kind.
//!
//! Each kind has one table of [`Knob`]s: the name, what values it takes, a line of doc, and how
//! it reads and writes the kind's settings. That table alone parses a spec's knobs (errors name
//! the knob and what it allows), prints the canonical name (knobs at their default left out),
//! and writes the knob lists of `--help` and of docs/search.md, so the four cannot drift.

use std::fmt::Write as _;

/// What values a knob takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// A whole number from `least` to `most`. Knobs that size what a search keeps (worlds,
    /// tree nodes, a solver's table) have a `most`, so that no value can make it reserve more
    /// memory than a machine has (an abort, not an error).
    Whole {
        /// The smallest value allowed.
        least: u64,
        /// The largest value allowed.
        most: u64,
    },
    /// A finite number from `least` to `most` (`most` may be infinite).
    Number {
        /// The smallest value allowed.
        least: f64,
        /// The largest value allowed.
        most: f64,
    },
    /// One of these names.
    Choice(&'static [&'static str]),
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Range::Whole { least, most: u64::MAX } => write!(f, "a whole number of at least {least}"),
            Range::Whole { least, most } => write!(f, "a whole number from {least} to {most}"),
            Range::Number { least, most } if most.is_infinite() => write!(f, "a number of at least {least}"),
            Range::Number { least, most } => write!(f, "a number from {least} to {most}"),
            Range::Choice(names) => write!(f, "one of {}", names.join(", ")),
        }
    }
}

/// A knob's value: a whole number, a number, or the index of a choice in its [`Range::Choice`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// For [`Range::Whole`].
    Whole(u64),
    /// For [`Range::Number`].
    Number(f64),
    /// For [`Range::Choice`]: the index of the name.
    Choice(usize),
}

impl Value {
    /// The whole number (0 for another kind of value, which a table never hands over).
    pub fn whole(self) -> u64 {
        match self {
            Value::Whole(n) => n,
            _ => 0,
        }
    }

    /// The number.
    pub fn number(self) -> f64 {
        match self {
            Value::Number(x) => x,
            Value::Whole(n) => n as f64,
            Value::Choice(_) => 0.0,
        }
    }

    /// The index of the choice.
    pub fn choice(self) -> usize {
        match self {
            Value::Choice(i) => i,
            _ => 0,
        }
    }
}

/// One knob of the settings `S` of an agent kind.
pub struct Knob<S> {
    /// Its name in a spec.
    pub name: &'static str,
    /// The values it takes.
    pub range: Range,
    /// One line on what it does.
    pub doc: &'static str,
    /// Its value in `S`; `None` for a knob that only sets others (not printed).
    pub get: Option<fn(&S) -> Value>,
    /// Writes a value of `range` into `S`.
    pub set: fn(&mut S, Value),
}

/// Why a spec's knobs do not parse.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KnobError {
    /// A part of the query that is not `key=value`.
    #[error("{0:?} is not key=value")]
    NotKeyValue(String),
    /// A knob the kind does not have.
    #[error("unknown knob {key:?}: {known}")]
    Unknown {
        /// The knob as given.
        key: String,
        /// The kind's knobs, comma-separated.
        known: String,
    },
    /// A value outside the knob's range.
    #[error("{key}: {value:?} is not {range}")]
    Outside {
        /// The knob.
        key: &'static str,
        /// The value as given.
        value: String,
        /// What it allows.
        range: Range,
    },
    /// A whole number above the knob's most.
    #[error("{key} = {value} is more than the {most} allowed")]
    TooMany {
        /// The knob.
        key: &'static str,
        /// The value given.
        value: u64,
        /// The most allowed.
        most: u64,
    },
}

/// `key=value&key=value` as pairs (empty parts skipped).
pub fn pairs(query: &str) -> Result<Vec<(&str, &str)>, KnobError> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| pair.split_once('=').ok_or_else(|| KnobError::NotKeyValue(pair.to_string())))
        .collect()
}

impl<S> Knob<S> {
    /// `text` as a value of this knob.
    pub fn parse(&self, text: &str) -> Result<Value, KnobError> {
        let outside = || KnobError::Outside { key: self.name, value: text.to_string(), range: self.range };
        match self.range {
            Range::Whole { least, most } => match text.parse::<u64>() {
                Ok(n) if n > most => Err(KnobError::TooMany { key: self.name, value: n, most }),
                Ok(n) if n >= least => Ok(Value::Whole(n)),
                _ => Err(outside()),
            },
            Range::Number { least, most } => match text.parse::<f64>() {
                Ok(x) if x.is_finite() && (least..=most).contains(&x) => Ok(Value::Number(x)),
                _ => Err(outside()),
            },
            Range::Choice(names) => names.iter().position(|n| *n == text).map(Value::Choice).ok_or_else(outside),
        }
    }

    /// A value of this knob as a spec writes it.
    pub fn show(&self, value: Value) -> String {
        match (self.range, value) {
            (Range::Choice(names), Value::Choice(i)) => names.get(i).copied().unwrap_or("?").to_string(),
            (_, Value::Whole(n)) => n.to_string(),
            (_, v) => v.number().to_string(),
        }
    }
}

/// The settings of `table`'s kind with the knobs of `query` (`key=value&…`) set, the rest at
/// their defaults; later knobs win.
pub fn parse<S: Default>(table: &[Knob<S>], query: &str) -> Result<S, KnobError> {
    let mut settings = S::default();
    for (key, text) in pairs(query)? {
        let Some(knob) = table.iter().find(|k| k.name == key) else {
            let known = table.iter().map(|k| k.name).collect::<Vec<_>>().join(", ");
            return Err(KnobError::Unknown { key: key.to_string(), known });
        };
        (knob.set)(&mut settings, knob.parse(text)?);
    }
    Ok(settings)
}

/// The knobs of `settings` that differ from the defaults, as `key=value&…` in table order.
pub fn print<S: Default>(table: &[Knob<S>], settings: &S) -> String {
    let default = S::default();
    let mut out = Vec::new();
    for knob in table {
        let Some(get) = knob.get else { continue };
        let (value, usual) = (get(settings), get(&default));
        if value != usual {
            out.push(format!("{}={}", knob.name, knob.show(value)));
        }
    }
    out.join("&")
}

/// The knobs with their defaults, as `key=value&…` in table order (for help texts).
pub fn defaults<S: Default>(table: &[Knob<S>]) -> String {
    let default = S::default();
    let shown = table.iter().filter_map(|k| k.get.map(|get| format!("{}={}", k.name, k.show(get(&default)))));
    shown.collect::<Vec<_>>().join("&")
}

/// Where a knob list is written: a help text or a Markdown table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Indented lines for `--help`.
    Help,
    /// Rows of a Markdown table: knob, default, values, what it does.
    Markdown,
}

/// Every knob of `table` with its default, values and doc, in `format`.
pub fn describe<S: Default>(table: &[Knob<S>], format: Format) -> String {
    let default = S::default();
    let mut out = String::new();
    for knob in table {
        let usual = knob.get.map_or("—".to_string(), |get| knob.show(get(&default)));
        let _ = match format {
            Format::Help => {
                let text = format!("{} (default {usual}; {})", knob.doc, knob.range);
                let lines = wrap(&text, 76);
                let rest: String = lines[1..].iter().map(|l| format!("\n{:22}{l}", "")).collect();
                writeln!(out, "      {:<15} {}{rest}", knob.name, lines[0])
            }
            Format::Markdown => writeln!(out, "| `{}` | `{usual}` | {} | {} |", knob.name, knob.range, knob.doc),
        };
    }
    out
}

/// `text` in lines of at most `width` characters, broken at spaces (at least one line).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let (mut lines, mut line) = (Vec::new(), String::new());
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq)]
    struct Toy {
        n: u64,
        x: f64,
        pick: usize,
    }

    const TOY: &[Knob<Toy>] = &[
        Knob {
            name: "n",
            range: Range::Whole { least: 1, most: 10 },
            doc: "a count",
            get: Some(|t| Value::Whole(t.n)),
            set: |t, v| t.n = v.whole(),
        },
        Knob {
            name: "x",
            range: Range::Number { least: 0.0, most: f64::INFINITY },
            doc: "a number",
            get: Some(|t| Value::Number(t.x)),
            set: |t, v| t.x = v.number(),
        },
        Knob {
            name: "pick",
            range: Range::Choice(&["a", "b"]),
            doc: "a choice",
            get: Some(|t| Value::Choice(t.pick)),
            set: |t, v| t.pick = v.choice(),
        },
    ];

    #[test]
    fn a_table_parses_prints_and_refuses() {
        let t = parse(TOY, "n=3&pick=b&x=0.5").unwrap();
        assert_eq!(t, Toy { n: 3, x: 0.5, pick: 1 });
        assert_eq!(print(TOY, &t), "n=3&x=0.5&pick=b");
        assert_eq!(print(TOY, &Toy::default()), "", "defaults are left out");
        assert_eq!(parse(TOY, &print(TOY, &t)).unwrap(), t);
        assert_eq!(defaults(TOY), "n=0&x=0&pick=a");
        let err = |q: &str| parse(TOY, q).unwrap_err().to_string();
        assert_eq!(err("n=0"), "n: \"0\" is not a whole number from 1 to 10");
        assert_eq!(err("n=11"), "n = 11 is more than the 10 allowed");
        assert_eq!(err("x=-1"), "x: \"-1\" is not a number of at least 0");
        assert_eq!(err("x=inf"), "x: \"inf\" is not a number of at least 0");
        assert_eq!(err("pick=c"), "pick: \"c\" is not one of a, b");
        assert_eq!(err("m=1"), "unknown knob \"m\": n, x, pick");
        assert_eq!(err("n"), "\"n\" is not key=value");
        assert!(describe(TOY, Format::Markdown).contains("| `n` | `0` | a whole number from 1 to 10 | a count |"));
    }
}
