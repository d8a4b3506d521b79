//! `turnstile diff <old-bundle> <new-bundle> <traces…>`: what a change to a
//! bundle changes in its decisions. Every trace is replayed under both
//! versions (the audit's streaming run, so a corpus of any size is read in
//! bounded memory and in parallel); an event whose verdict differs — a call
//! allowed before and blocked now, a block for another reason or at another
//! step, a message that deviates now — is a change, reported with both
//! verdicts, their reasons, steps and remediations. A table, JSON or a
//! self-contained HTML page for a reviewer; `--fail-on-change` makes CI fail
//! on any change.

mod html;

use std::collections::BTreeMap;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};
use serde::Serialize;
use turnstile_engine::audit::{
    Counters, Item, Rejection, RunOptions, TraceSource, TraceWork, expand, run,
};
use turnstile_engine::import::{Format, ResultContent};
use turnstile_engine::session::{Bindings, BundleRuntime, GateVerdict, ReplayReport, Schedule};
use turnstile_engine::trace::Trace;

use crate::judge_args::{JudgeArgs, Judging};
use crate::test::{reason_label, replay_trace};

/// Exit code: `--fail-on-change` and some verdict changed.
pub const EXIT_CHANGED: u8 = 4;

/// The flags of `turnstile diff`.
#[derive(Args, Clone, Debug)]
pub struct DiffArgs {
    /// The bundle before the change (a directory or its bundle.yaml).
    pub old: PathBuf,
    /// The bundle after the change.
    pub new: PathBuf,
    /// Trace files (any format `replay` reads; plain, .gz or .zst) and
    /// directories (read recursively, in name order); `-` is standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// `table` (default), `json` (every change and the summary) or `html`
    /// (a page for a reviewer).
    #[arg(long, value_enum, default_value_t = DiffFormat::Table)]
    pub format: DiffFormat,
    /// Write the report here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Exit with 4 when any verdict changed (for CI).
    #[arg(long)]
    pub fail_on_change: bool,
    /// The input format of every file (detected per file by default).
    #[arg(long)]
    pub input_format: Option<String>,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Table,
    Json,
    Html,
}

/// A verdict, as far as a reviewer compares it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// `allow`, `block`, `deviate`, `guide`, ...
    pub verdict: String,
    /// Why (a block's or deviation's reason: `MissingRead`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The authorizing step of an allow; the first unmet step otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The request the verdict is about.
    #[serde(skip_serializing_if = "Bindings::is_empty")]
    pub request: Bindings,
    /// What the agent is told to do instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remediation: Option<String>,
    /// Which conditions failed, with the values read (a block), or what
    /// was missing (a deviation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

impl Decision {
    fn of(verdict: &GateVerdict) -> Decision {
        let mut decision = Decision {
            verdict: verdict.label().to_owned(),
            reason: None,
            step: None,
            request: Bindings::new(),
            remediation: None,
            explanation: None,
        };
        match verdict {
            GateVerdict::Allow { step, request, .. } => {
                decision.step = Some(step.clone());
                decision.request = request.clone();
            }
            GateVerdict::Confirm {
                step,
                request,
                explanation,
                ..
            } => {
                decision.step = step.clone();
                decision.request = request.clone();
                decision.explanation = Some(explanation.clone()).filter(|e| !e.is_empty());
            }
            GateVerdict::Block {
                reason,
                step,
                request,
                remediation,
                explanation,
            } => {
                decision.reason = Some(reason_label(*reason));
                decision.step = step.clone();
                decision.request = request.clone();
                decision.remediation = remediation.clone();
                decision.explanation = Some(explanation.clone()).filter(|e| !e.is_empty());
            }
            GateVerdict::Deviate {
                reason,
                step,
                remediation,
                explanation,
                ..
            } => {
                decision.reason = Some(reason_label(*reason));
                decision.step = step.clone();
                decision.remediation = remediation.clone();
                decision.explanation = Some(explanation.clone()).filter(|e| !e.is_empty());
            }
            _ => {}
        }
        decision
    }

    /// Whether the gate decided something here (not guidance, an
    /// observation, or a schedule that did not fire).
    fn decided(&self) -> bool {
        !matches!(self.verdict.as_str(), "guide" | "observe" | "unchecked")
    }

    /// `block MissingRead at cancel.read_order`, as `turnstile test` spells
    /// an expectation.
    pub fn short(&self) -> String {
        let mut text = self.verdict.clone();
        if let Some(reason) = &self.reason {
            text.push(' ');
            text.push_str(reason);
        }
        if let Some(step) = &self.step {
            text.push_str(" at ");
            text.push_str(step);
        }
        text
    }
}

/// One event whose verdict differs between the two bundles.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    pub file: String,
    pub trace: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    pub event: u32,
    /// The event (`call cancel_pending_order`, `agent`).
    pub kind: String,
    pub old: Decision,
    pub new: Decision,
}

impl Change {
    /// `allow → block`, or `block → block` for a change of reason or step.
    pub fn transition(&self) -> String {
        format!("{} → {}", self.old.verdict, self.new.verdict)
    }
}

/// One trace under both bundles.
#[derive(Debug)]
struct Compared {
    events: usize,
    decided: usize,
    changes: Vec<Change>,
}

/// The counts of a diff.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Traces read and replayed under both bundles.
    pub traces: usize,
    /// Of those, the traces with a change.
    pub traces_changed: usize,
    /// Events replayed.
    pub events: usize,
    /// Events either bundle decided (allow, block, deviate, confirm).
    pub decided: usize,
    /// Events whose verdict changed.
    pub changed: usize,
    /// Changes by transition (`allow → block`: 3).
    pub transitions: BTreeMap<String, usize>,
    /// Records and files that could not be read or replayed.
    pub rejected: Vec<Rejection>,
}

/// A bundle as the report names it.
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    pub path: String,
    pub name: String,
    pub hash: String,
}

impl Side {
    fn of(path: &Path, rt: &BundleRuntime) -> Side {
        Side {
            path: path.display().to_string(),
            name: rt.bundle.name.clone(),
            hash: rt.bundle.hash.clone(),
        }
    }
}

/// Everything a diff found.
#[derive(Debug, Serialize)]
pub struct Report {
    pub old: Side,
    pub new: Side,
    pub summary: Summary,
    pub changes: Vec<Change>,
}

/// A worker's job in a diff: one conversation replayed under both bundles.
struct Comparison<'a> {
    old: &'a Arc<BundleRuntime>,
    new: &'a Arc<BundleRuntime>,
    judge: &'a Judging,
}

impl TraceWork for Comparison<'_> {
    type Output = Compared;

    fn results(&self) -> ResultContent {
        ResultContent::Parsed
    }

    fn work(&self, trace: Trace, source: &TraceSource) -> Result<Compared, String> {
        let before = replay_trace(self.old, &trace, Schedule::Workflow, self.judge)?;
        let after = replay_trace(self.new, &trace, Schedule::Workflow, self.judge)?;
        Ok(compare(&before, &after, &source.file, &trace))
    }
}

/// The events of one trace whose verdicts differ.
fn compare(before: &ReplayReport, after: &ReplayReport, file: &str, trace: &Trace) -> Compared {
    let mut compared = Compared {
        events: before.events.len(),
        decided: 0,
        changes: Vec::new(),
    };
    for (old, new) in before.events.iter().zip(&after.events) {
        let (a, b) = (Decision::of(&old.verdict), Decision::of(&new.verdict));
        if !a.decided() && !b.decided() {
            continue;
        }
        compared.decided += 1;
        if (&a.verdict, &a.reason, &a.step) != (&b.verdict, &b.reason, &b.step) {
            compared.changes.push(Change {
                file: file.to_owned(),
                trace: trace.meta.id.clone(),
                task_id: trace.meta.task_id.clone(),
                event: old.event.0,
                kind: old.kind.clone(),
                old: a,
                new: b,
            });
        }
    }
    compared
}

/// Runs the diff with the two compiled bundles; returns the exit code.
pub fn main(
    args: &DiffArgs,
    old: Arc<BundleRuntime>,
    new: Arc<BundleRuntime>,
) -> Result<u8, String> {
    let format = match &args.input_format {
        Some(name) => Some(
            name.parse::<Format>()
                .map_err(|e| format!("--input-format: {e}"))?,
        ),
        None => None,
    };
    let judge = args.judge.judging(&[&old.bundle, &new.bundle])?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let (files, walk_rejections) = expand(&args.inputs);
    let mut report = Report {
        old: Side::of(&args.old, &old),
        new: Side::of(&args.new, &new),
        summary: Summary {
            rejected: walk_rejections,
            ..Summary::default()
        },
        changes: Vec::new(),
    };
    let work = Comparison {
        old: &old,
        new: &new,
        judge: &judge,
    };
    let options = RunOptions { threads, format };
    let counters = Counters::default();
    let summary = &mut report.summary;
    let changes = &mut report.changes;
    let finished = run(&files, &options, &counters, &work, &mut |item| {
        match item {
            Item::File(_) => {}
            Item::Report(compared) => {
                summary.traces += 1;
                summary.events += compared.events;
                summary.decided += compared.decided;
                if !compared.changes.is_empty() {
                    summary.traces_changed += 1;
                }
                for change in &compared.changes {
                    *summary.transitions.entry(change.transition()).or_default() += 1;
                }
                summary.changed += compared.changes.len();
                changes.extend(compared.changes);
            }
            Item::Rejected(rejection) => summary.rejected.push(rejection),
        }
        ControlFlow::Continue(())
    })?;
    if !finished {
        return Err("the diff stopped early".to_owned());
    }
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let written = match args.format {
        DiffFormat::Table => table(&mut out, &report),
        DiffFormat::Json => serde_json::to_writer_pretty(&mut out, &report)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
        DiffFormat::Html => out.write_all(html::page(&report).as_bytes()),
    };
    written
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the report: {e}"))?;
    if args.format != DiffFormat::Table {
        eprintln!("{}", headline(&report.summary));
    }
    Ok(if !report.summary.rejected.is_empty() {
        crate::audit::EXIT_REJECTED
    } else if args.fail_on_change && report.summary.changed > 0 {
        EXIT_CHANGED
    } else {
        0
    })
}

/// The one-line summary: how many calls changed, and how.
pub fn headline(summary: &Summary) -> String {
    let transitions: Vec<String> = summary
        .transitions
        .iter()
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    let mut line = format!(
        "diff: {} of {} trace{} change: {} verdict{} of {} decided event{} ({} events)",
        summary.traces_changed,
        summary.traces,
        if summary.traces == 1 { "" } else { "s" },
        summary.changed,
        if summary.changed == 1 { "" } else { "s" },
        summary.decided,
        if summary.decided == 1 { "" } else { "s" },
        summary.events
    );
    if !transitions.is_empty() {
        line.push_str(&format!(": {}", transitions.join(", ")));
    }
    if !summary.rejected.is_empty() {
        line.push_str(&format!("; {} rejected", summary.rejected.len()));
    }
    line
}

fn table(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    writeln!(
        out,
        "old: {} ({} {})\nnew: {} ({} {})",
        report.old.path,
        report.old.name,
        report.old.hash,
        report.new.path,
        report.new.name,
        report.new.hash
    )?;
    for rejection in &report.summary.rejected {
        let record = rejection
            .record
            .map(|r| format!(":{r}"))
            .unwrap_or_default();
        writeln!(
            out,
            "rejected: {}{record}: {}",
            rejection.file, rejection.reason
        )?;
    }
    if !report.changes.is_empty() {
        let rows: Vec<[String; 5]> = report
            .changes
            .iter()
            .map(|c| {
                let task = c
                    .task_id
                    .as_deref()
                    .map(|t| format!(" (task {t})"))
                    .unwrap_or_default();
                [
                    format!("{}{task}", c.trace),
                    c.event.to_string(),
                    c.kind.clone(),
                    c.old.short(),
                    c.new.short(),
                ]
            })
            .collect();
        let head = ["trace", "event", "call", "old", "new"];
        let mut widths = head.map(str::len);
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: [&str; 5]| {
            let mut text = String::new();
            for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
                if i + 1 == cells.len() {
                    text.push_str(cell);
                } else {
                    text.push_str(&format!("{cell:<w$}  "));
                }
            }
            text
        };
        writeln!(out, "\n{}", line(head))?;
        for [trace, event, call, old, new] in &rows {
            writeln!(out, "{}", line([trace, event, call, old, new]))?;
        }
    }
    writeln!(out, "\n{}", headline(&report.summary))
}
