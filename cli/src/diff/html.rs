//! `diff --format html`: the diff as one self-contained page (no script, no
//! network) a reviewer reads before a bundle change ships: both versions,
//! the counts, a matrix of old against new verdicts, then every change
//! grouped by trace, old and new side by side with their reasons, steps,
//! requests and remediations (the first [`CAP`] changes; the page says when
//! it stops).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{Change, Decision, Report};
use crate::audit::esc;

/// Changes shown at most.
pub const CAP: usize = 2000;

/// The page.
pub fn page(report: &Report) -> String {
    let s = &report.summary;
    let mut html =
        String::from("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    let _ = write!(
        html,
        "<title>turnstile diff: {} → {}</title><style>{STYLE}</style></head><body>",
        esc(&report.old.name),
        esc(&report.new.name)
    );
    let _ = write!(
        html,
        "<h1>What the bundle change changes</h1><table class=\"sides\"><tr><th>old</th><td>{}</td><td><code>{}</code></td><td class=\"hash\">{}</td></tr><tr><th>new</th><td>{}</td><td><code>{}</code></td><td class=\"hash\">{}</td></tr></table>",
        esc(&report.old.name),
        esc(&report.old.path),
        esc(&report.old.hash),
        esc(&report.new.name),
        esc(&report.new.path),
        esc(&report.new.hash)
    );
    let _ = write!(
        html,
        "<div class=\"cards\"><div class=\"card\" id=\"changed\"><b>{}</b>verdicts changed</div><div class=\"card\"><b>{}</b>of {} traces changed</div><div class=\"card\"><b>{}</b>decided events compared</div><div class=\"card\"><b>{}</b>events replayed</div>{}</div>",
        s.changed,
        s.traces_changed,
        s.traces,
        s.decided,
        s.events,
        if s.rejected.is_empty() {
            String::new()
        } else {
            format!(
                "<div class=\"card bad\"><b>{}</b>records rejected</div>",
                s.rejected.len()
            )
        }
    );
    let _ = write!(
        html,
        "<p class=\"headline\">{}</p>",
        esc(&super::headline(s))
    );
    matrix(&mut html, &report.changes);
    changes(&mut html, &report.changes);
    if !s.rejected.is_empty() {
        html.push_str("<h2>Rejected</h2><ul class=\"rejected\">");
        for r in &s.rejected {
            let record = r.record.map(|n| format!(":{n}")).unwrap_or_default();
            let _ = write!(
                html,
                "<li><code>{}{}</code> {}</li>",
                esc(&r.file),
                record,
                esc(&r.reason)
            );
        }
        html.push_str("</ul>");
    }
    html.push_str("</body></html>\n");
    html
}

/// Old verdicts down, new across; a cell on the diagonal counts changes of
/// reason or step under the same verdict.
fn matrix(html: &mut String, changes: &[Change]) {
    if changes.is_empty() {
        html.push_str("<p class=\"none\">No verdict changes: every decided event of every trace gets the same verdict, reason and step under both bundles.</p>");
        return;
    }
    let olds: BTreeSet<&str> = changes.iter().map(|c| c.old.verdict.as_str()).collect();
    let news: BTreeSet<&str> = changes.iter().map(|c| c.new.verdict.as_str()).collect();
    html.push_str(
        "<h2>Old verdict → new verdict</h2><table class=\"matrix\"><tr><th>old \\ new</th>",
    );
    for new in &news {
        let _ = write!(
            html,
            "<th><span class=\"v {new}\">{new}</span></th>",
            new = esc(new)
        );
    }
    html.push_str("</tr>");
    for old in &olds {
        let _ = write!(
            html,
            "<tr><th><span class=\"v {old}\">{old}</span></th>",
            old = esc(old)
        );
        for new in &news {
            let n = changes
                .iter()
                .filter(|c| c.old.verdict == *old && c.new.verdict == *new)
                .count();
            let shown = if n == 0 { String::new() } else { n.to_string() };
            let _ = write!(html, "<td>{shown}</td>");
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");
}

fn changes(html: &mut String, changes: &[Change]) {
    if changes.is_empty() {
        return;
    }
    let _ = write!(html, "<h2>Changes ({})</h2>", changes.len());
    let mut current: Option<(&str, &str)> = None;
    for change in changes.iter().take(CAP) {
        let key = (change.file.as_str(), change.trace.as_str());
        if current != Some(key) {
            if current.is_some() {
                html.push_str("</tbody></table></section>");
            }
            current = Some(key);
            let task = change
                .task_id
                .as_deref()
                .map(|t| format!(" · task {}", esc(t)))
                .unwrap_or_default();
            let _ = write!(
                html,
                "<section class=\"trace\"><h3>{}{task} <small>{}</small></h3><table class=\"changes\"><thead><tr><th>event</th><th>call</th><th>old</th><th>new</th></tr></thead><tbody>",
                esc(&change.trace),
                esc(&change.file)
            );
        }
        let _ = write!(
            html,
            "<tr class=\"change\"><td class=\"event\">{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            change.event,
            esc(&change.kind),
            decision(&change.old),
            decision(&change.new)
        );
    }
    if current.is_some() {
        html.push_str("</tbody></table></section>");
    }
    if changes.len() > CAP {
        let _ = write!(
            html,
            "<p class=\"cap\">The first {CAP} of {} changes are shown; `--format json` lists them all.</p>",
            changes.len()
        );
    }
}

fn decision(d: &Decision) -> String {
    let mut cell = format!("<span class=\"v {v}\">{v}</span>", v = esc(&d.verdict));
    if let Some(reason) = &d.reason {
        let _ = write!(cell, " <b>{}</b>", esc(reason));
    }
    if let Some(step) = &d.step {
        let _ = write!(cell, " at <code>{}</code>", esc(step));
    }
    if !d.request.is_empty() {
        let parts: Vec<String> = d.request.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = write!(
            cell,
            "<div class=\"req\">{{{}}}</div>",
            esc(&parts.join(", "))
        );
    }
    if let Some(text) = &d.remediation {
        let _ = write!(cell, "<div class=\"rem\">{}</div>", esc(text));
    }
    if let Some(text) = &d.explanation {
        let _ = write!(
            cell,
            "<details><summary>why</summary><pre>{}</pre></details>",
            esc(text)
        );
    }
    cell
}

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2430;max-width:1400px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:24px 0 8px}h3{font-size:14px;margin:0 0 6px}
h3 small{color:#57606a;font-weight:400;margin-left:6px}
table{border-collapse:collapse}td,th{border-bottom:1px solid #e5e8eb;padding:4px 10px;text-align:left;vertical-align:top;font-size:13px}
table.sides th{color:#57606a;font-weight:600}.hash{color:#57606a;font-family:monospace}
.cards{display:flex;gap:12px;margin:16px 0;flex-wrap:wrap}.card{border:1px solid #d8dee4;border-radius:6px;padding:8px 14px;min-width:120px;color:#57606a}
.card b{display:block;font-size:22px;color:#1d2430}.card.bad b{color:#c62828}
table.matrix td{text-align:center;min-width:70px;font-weight:600}
.v{display:inline-block;border-radius:3px;padding:0 6px;font-size:12px;font-weight:600;color:#fff;background:#57606a}
.v.allow{background:#1a7f37}.v.block{background:#c62828}.v.deviate{background:#9a6700}.v.confirm{background:#0969da}
section.trace{border:1px solid #d8dee4;border-radius:6px;padding:8px 10px;margin:10px 0}
table.changes{width:100%}table.changes td:nth-child(3),table.changes td:nth-child(4){width:40%}
.event{font-family:monospace}table.changes td:nth-child(2){white-space:nowrap}
details summary{cursor:pointer;color:#57606a;font-size:12px}pre{white-space:pre-wrap;font-size:12px;margin:4px 0;background:#f6f8fa;padding:6px;border-radius:4px}.req{color:#57606a;font-size:12px}.rem{color:#1d2430;font-size:12px;margin-top:2px;border-left:3px solid #d8dee4;padding-left:6px}
.none{color:#1a7f37;font-weight:600}.cap{color:#57606a}code{font-size:12px}
"#;
