//! Telecom's agent writes on the vendored tau2 traces, scored against the
//! graded gold ([`super::graded`]): every agent call of a mutating agent tool
//! of the bundle, replayed with the offline judge under `workflow`, is
//!
//! - **gold** when it matches an agent-side action its grader checked;
//! - **wrong** when the graded gold has no agent write of that tool at all;
//! - **other** otherwise (the right tool with other arguments: another line,
//!   another bill).
//!
//! Each is counted by the gate's answer ([`Answer`]). Shared by
//! `real_traces.rs` (which prints the table in `bundles/README.md`) and
//! `telecom_traces.rs` (which asserts the counts).
#![allow(dead_code)] // each test crate uses part of it

use std::collections::BTreeMap;
use std::sync::Arc;

use turnstile_engine::bundle::model::Control;
use turnstile_engine::import::import_file;
use turnstile_engine::session::replay;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;

use super::graded::{GoldAction, graded_gold};
use super::tau2::{domain_trace_files, shipped_bundle};

/// How the gate answered a write: one column of a [`Tally`]. (An answer the
/// gate adds — asking a person to confirm — is one more variant here and
/// one more column in every table.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Answer {
    Allowed,
    Blocked,
}

impl Answer {
    /// Every answer, in column order.
    pub const ALL: [Answer; 2] = [Answer::Allowed, Answer::Blocked];

    /// The answer a write's verdict gives; a write under `workflow` is
    /// always decided.
    fn of(verdict: &GateVerdict) -> Answer {
        match verdict {
            GateVerdict::Allow { .. } => Answer::Allowed,
            GateVerdict::Block { .. } => Answer::Blocked,
            other => panic!("a write answered {}", other.label()),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Answer::Allowed => "allowed",
            Answer::Blocked => "blocked",
        }
    }
}

/// Writes by answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally(BTreeMap<Answer, usize>);

impl Tally {
    fn add(&mut self, answer: Answer) {
        *self.0.entry(answer).or_default() += 1;
    }

    fn merge(&mut self, other: &Tally) {
        for (answer, n) in &other.0 {
            *self.0.entry(*answer).or_default() += n;
        }
    }

    /// How many writes got `answer`.
    pub fn get(&self, answer: Answer) -> usize {
        self.0.get(&answer).copied().unwrap_or(0)
    }

    pub fn total(&self) -> usize {
        self.0.values().sum()
    }

    /// `allowed / blocked` as table cells.
    fn cells(&self) -> String {
        Answer::ALL
            .iter()
            .map(|a| self.get(*a).to_string())
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

/// One write, for the lists under the table.
#[derive(Clone, Debug)]
pub struct Write {
    pub trace: String,
    pub event: usize,
    pub tool: String,
    pub args: serde_json::Value,
    /// `allow` or the block's reason at its step.
    pub verdict: String,
}

/// The writes of one results file (or of several, summed).
#[derive(Clone, Debug, Default)]
pub struct FileRow {
    pub control: Option<Control>,
    pub traces: usize,
    pub gold: Tally,
    pub wrong: Tally,
    pub other: Tally,
    /// Gold writes not allowed, wrong writes allowed, other writes.
    pub gold_blocked: Vec<Write>,
    pub wrong_allowed: Vec<Write>,
    pub others: Vec<Write>,
}

impl FileRow {
    fn merge(&mut self, other: &FileRow) {
        self.traces += other.traces;
        self.gold.merge(&other.gold);
        self.wrong.merge(&other.wrong);
        self.other.merge(&other.other);
        self.gold_blocked.extend(other.gold_blocked.iter().cloned());
        self.wrong_allowed
            .extend(other.wrong_allowed.iter().cloned());
        self.others.extend(other.others.iter().cloned());
    }

    fn control_name(&self) -> &'static str {
        match self.control {
            Some(Control::Dual) => "two-party",
            Some(Control::Solo) => "solo",
            None => "",
        }
    }
}

/// What a write is against its simulation's graded gold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Gold,
    Wrong,
    Other,
}

/// Labels an agent call of `tool` with `args` against `gold`.
pub fn label(gold: &[GoldAction], tool: &str, args: &serde_json::Value) -> Label {
    let agent = gold.iter().filter(|a| a.by_agent());
    if agent.clone().any(|a| a.matches(tool, args)) {
        Label::Gold
    } else if agent.clone().any(|a| a.name == tool) {
        Label::Other
    } else {
        Label::Wrong
    }
}

/// Every telecom results file's row, by file name.
pub fn telecom_write_rows() -> BTreeMap<String, FileRow> {
    let bundle = Arc::new(shipped_bundle("telecom"));
    let writes: Vec<String> = bundle
        .domain
        .agent_writes()
        .map(|t| t.name.clone())
        .collect();
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut rows = BTreeMap::new();
    for file in domain_trace_files("telecom") {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let gold = graded_gold("telecom", &file);
        let imported = import_file(&file, None).unwrap();
        assert!(imported.errors.is_empty(), "{name}: {:?}", imported.errors);
        let mut row = FileRow::default();
        for trace in &imported.traces {
            row.traces += 1;
            row.control = trace.meta.control;
            let report = replay(&rt, trace, Schedule::Workflow, &OfflineJudge).unwrap();
            let graded = gold
                .get(&trace.meta.id)
                .unwrap_or_else(|| panic!("{}: no graded gold", trace.meta.id));
            for (k, event) in trace.events.iter().enumerate() {
                let Event::Call { tool, args, .. } = event else {
                    continue;
                };
                if !event.is_agent_event() || !writes.contains(tool) {
                    continue;
                }
                let verdict = &report.events[k].verdict;
                let answer = Answer::of(verdict);
                let write = Write {
                    trace: trace.meta.id.clone(),
                    event: k,
                    tool: tool.clone(),
                    args: args.clone(),
                    verdict: match verdict {
                        GateVerdict::Block { reason, step, .. } => {
                            format!("{reason:?} at {}", step.as_deref().unwrap_or("?"))
                        }
                        other => other.label().to_owned(),
                    },
                };
                match label(graded, tool, args) {
                    Label::Gold => {
                        row.gold.add(answer);
                        if answer != Answer::Allowed {
                            row.gold_blocked.push(write);
                        }
                    }
                    Label::Wrong => {
                        row.wrong.add(answer);
                        if answer == Answer::Allowed {
                            row.wrong_allowed.push(write);
                        }
                    }
                    Label::Other => {
                        row.other.add(answer);
                        row.others.push(write);
                    }
                }
            }
        }
        rows.insert(name, row);
    }
    rows
}

/// The rows of one control mode, summed.
pub fn total(rows: &BTreeMap<String, FileRow>, control: Control) -> FileRow {
    let mut sum = FileRow {
        control: Some(control),
        ..FileRow::default()
    };
    for row in rows.values().filter(|r| r.control == Some(control)) {
        sum.merge(row);
    }
    sum
}

/// The table in `bundles/README.md`, with the writes behind its
/// exceptions listed under it.
pub fn print_table(rows: &BTreeMap<String, FileRow>) {
    let columns = |label: &str| {
        Answer::ALL
            .iter()
            .map(|a| format!("{label} {}", a.name()))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let header = format!(
        "| file | control | traces | {} | {} | {} |",
        columns("gold"),
        columns("wrong"),
        columns("other")
    );
    let rule = format!("|---|---|---:|{}", "---:|".repeat(3 * Answer::ALL.len()));
    println!("\n### telecom\n\n{header}\n{rule}");
    let line = |name: &str, row: &FileRow| {
        println!(
            "| {name} | {} | {} | {} | {} | {} |",
            row.control_name(),
            row.traces,
            row.gold.cells(),
            row.wrong.cells(),
            row.other.cells()
        );
    };
    for control in [Control::Dual, Control::Solo] {
        for (name, row) in rows.iter().filter(|(_, r)| r.control == Some(control)) {
            line(name, row);
        }
        let sum = total(rows, control);
        line(&format!("**all {}**", sum.control_name()), &sum);
    }
    for control in [Control::Dual, Control::Solo] {
        let sum = total(rows, control);
        for w in &sum.gold_blocked {
            println!(
                "- gold, not allowed: {} event {}: {} {} — {}",
                w.trace, w.event, w.tool, w.args, w.verdict
            );
        }
        for w in &sum.wrong_allowed {
            println!(
                "- wrong, allowed: {} event {}: {} {}",
                w.trace, w.event, w.tool, w.args
            );
        }
        for w in &sum.others {
            println!(
                "- other: {} event {}: {} {} — {}",
                w.trace, w.event, w.tool, w.args, w.verdict
            );
        }
    }
}
