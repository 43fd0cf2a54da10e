//! A review as one self-contained HTML page: no script, no link outside the file. The seats'
//! figures, the landlord's win chance as a plot, the mistakes first (each a link to its
//! position), then every play with the hand it was made from.

use super::{Decision, Review, Verdict};
use std::fmt::Write as _;

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 24px; background: #f6f3ea; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }
table { border-collapse: collapse; background: #fff; }
td, th { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: middle; }
.cards { display: inline-flex; gap: 2px; flex-wrap: nowrap; }
.card { display: inline-flex; align-items: center; justify-content: center; width: 22px; height: 30px;
        background: #fff; border: 1px solid #999; border-radius: 4px; font-weight: 700; font-size: 13px; }
.card.joker { color: #c62828; font-size: 10px; }
.blunder { color: #b71c1c; font-weight: 700; } .mistake { color: #e65100; font-weight: 700; }
.inaccuracy { color: #8d6e00; } .best, .good { color: #2e7d32; } .forced { color: #777; }
tr:target { background: #fff3b0; }
svg { background: #fff; border: 1px solid #ccc; }
";

/// Text safe inside HTML: player names come from the log, and a log is anyone's file.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// Cards in notation (`3345B`) drawn as cards; a pass as the word.
fn cards(text: &str) -> String {
    if text == "pass" || text.is_empty() {
        return "<i>pass</i>".into();
    }
    let mut out = String::from("<span class=\"cards\">");
    for c in text.chars() {
        let (class, face) = match c {
            'B' => ("card joker", "jkr".to_string()),
            'R' => ("card joker", "JKR".to_string()),
            'T' => ("card", "10".to_string()),
            '/' => ("", "as".to_string()),
            other => ("card", escape(&other.to_string())),
        };
        let _ = write!(out, "<span class=\"{class}\">{face}</span>");
    }
    out.push_str("</span>");
    out
}

fn percent(chance: f64) -> String {
    format!("{:.0}%", 100.0 * chance)
}

/// The landlord's win chance after every play, with the mistakes marked as links.
fn curve(review: &Review) -> String {
    let (width, height, pad) = (720.0, 220.0, 24.0);
    let steps = review.curve.len().saturating_sub(1).max(1) as f64;
    let x = |k: usize| pad + (width - 2.0 * pad) * k as f64 / steps;
    let y = |p: f64| pad + (height - 2.0 * pad) * (1.0 - p);
    // Each side's network judges the landlord's chance after its own plays; the two often
    // disagree (each is confident for its side), so each side is its own line.
    let last = review.curve.len() - 1;
    let line = |landlord: bool| -> String {
        let own = review.decisions.iter().filter(|d| (d.role == "landlord") == landlord).map(|d| d.move_no);
        let start = landlord.then_some(0);
        let steps: Vec<usize> = start.into_iter().chain(own.filter(|&k| k < last)).chain([last]).collect();
        steps.iter().map(|&k| format!("{:.1},{:.1}", x(k), y(review.curve[k]))).collect::<Vec<_>>().join(" ")
    };
    let mut svg = format!(
        "<svg id=\"curve\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\">\
         <title>the landlord's win chance after each play</title>\
         <line x1=\"{pad}\" x2=\"{}\" y1=\"{mid:.1}\" y2=\"{mid:.1}\" stroke=\"#bbb\" stroke-dasharray=\"4\"/>\
         <text x=\"2\" y=\"{}\" font-size=\"11\">100%</text><text x=\"2\" y=\"{}\" font-size=\"11\">0%</text>\
         <polyline class=\"landlord\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\" points=\"{}\"/>\
         <polyline class=\"farmers\" fill=\"none\" stroke=\"#8e24aa\" stroke-width=\"2\" stroke-dasharray=\"6 3\" points=\"{}\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#1565c0\">by the landlord</text>\
         <text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#8e24aa\">by the farmers</text>",
        width - pad,
        y(1.0) + 4.0,
        y(0.0) + 4.0,
        line(true),
        line(false),
        pad + 30.0,
        height - 8.0,
        pad + 140.0,
        height - 8.0,
        mid = y(0.5),
    );
    for d in review.decisions.iter().filter(|d| matches!(d.verdict, Verdict::Mistake | Verdict::Blunder)) {
        let p = review.curve[d.move_no];
        let _ = write!(
            svg,
            "<a href=\"#move-{n}\"><circle class=\"{v}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{c}\"><title>move {n}: {v}</title></circle></a>",
            x(d.move_no),
            y(p),
            n = d.move_no,
            v = d.verdict.name(),
            c = if d.verdict == Verdict::Blunder { "#b71c1c" } else { "#e65100" },
        );
    }
    svg.push_str("</svg>");
    svg
}

fn seats(review: &Review) -> String {
    let mut out = String::from(
        "<table><tr><th>seat</th><th>role</th><th>player</th><th>dealt</th><th>decisions</th>\
         <th>accuracy</th><th>chance lost</th><th>inaccuracies</th><th>mistakes</th><th>blunders</th></tr>",
    );
    for s in &review.seats {
        let count = |v: Verdict| s.verdicts.iter().find(|(w, _)| *w == v).map_or(0, |(_, n)| *n);
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0}%</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            s.seat.index(),
            s.role,
            escape(s.player.as_deref().unwrap_or("?")),
            cards(&review.hands[s.seat.index()]),
            s.decisions,
            s.accuracy,
            s.total_loss,
            count(Verdict::Inaccuracy),
            count(Verdict::Mistake),
            count(Verdict::Blunder),
        );
    }
    out.push_str("</table>");
    out
}

fn mistakes(review: &Review) -> String {
    let mut worst: Vec<&Decision> = review
        .decisions
        .iter()
        .filter(|d| matches!(d.verdict, Verdict::Inaccuracy | Verdict::Mistake | Verdict::Blunder))
        .collect();
    if worst.is_empty() {
        return "<p id=\"mistakes\">No inaccuracy, mistake or blunder.</p>".into();
    }
    worst.sort_by(|a, b| b.loss.total_cmp(&a.loss));
    let mut out = String::from("<ol id=\"mistakes\">");
    for d in worst {
        let _ = write!(
            out,
            "<li><a href=\"#move-{n}\">move {n}</a>, {role}: <span class=\"{v}\">{v}</span>, {}{} lost{} — played {} ({}), best {} ({})</li>",
            if d.win_at_once && d.played.win < 1.0 { "missed a win at once, " } else { "" },
            percent(d.loss),
            d.deep.as_ref().map_or(String::new(), |c| format!(
                " (a search: {} against {})",
                percent(c.played),
                percent(c.best)
            )),
            cards(&d.played.play),
            percent(d.played.win),
            cards(&d.best.play),
            percent(d.best.win),
            n = d.move_no,
            role = d.role,
            v = d.verdict.name(),
        );
    }
    out.push_str("</ol>");
    out
}

fn plays(review: &Review) -> String {
    let mut out = String::from(
        "<table id=\"plays\"><tr><th>#</th><th>role</th><th>hand</th><th>played</th><th>win</th>\
         <th>best</th><th>win</th><th>lost</th><th>verdict</th></tr>",
    );
    for d in &review.decisions {
        let _ = write!(
            out,
            "<tr id=\"move-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{v}\">{v}</td></tr>",
            d.move_no,
            d.move_no,
            d.role,
            cards(&d.hand),
            cards(&d.played.play),
            percent(d.played.win),
            cards(&d.best.play),
            percent(d.best.win),
            percent(d.loss),
            v = d.verdict.name(),
        );
    }
    out.push_str("</table>");
    out
}

/// The page of `review`.
pub fn page(review: &Review) -> String {
    let result = if review.landlord_won { "the landlord won" } else { "the farmers won" };
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>ddz review</title><style>{STYLE}</style></head>\
         <body><h1>Game review: {result}</h1>\
         <p>{} game{}, reviewed by <code>{}</code>; a win chance is the reviewer's, for the side that played. \
         Verdicts by chance lost: inaccuracy from {}, mistake from {}, blunder from {}.</p>\
         <h2>Seats</h2>{}<h2>The landlord's win chance</h2>{}<h2>Mistakes, worst first</h2>{}<h2>Every play</h2>{}</body></html>\n",
        review.rules,
        if review.source.is_empty() { String::new() } else { format!(" from {}", escape(&review.source)) },
        escape(&review.reviewer),
        percent(review.thresholds.inaccuracy),
        percent(review.thresholds.mistake),
        percent(review.thresholds.blunder),
        seats(review),
        curve(review),
        mistakes(review),
        plays(review),
    )
}
