//! `turnstile replay`: every trace of a file, event by event, through a
//! session under one schedule (or all three, with the deviations each one
//! caught and missed). Human tables, or JSON Lines with `--format json`.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use turnstile_engine::import::for_each_trace;
use turnstile_engine::session::{
    BundleRuntime, ConsentState, Coverage, EventReport, Explainer, GateVerdict, ReplayReport,
    RequestStatus, Schedule, coverage, replay_async, replay_at,
};
use turnstile_engine::trace::Trace;

use crate::judge_args::Judging;

/// What `replay` was asked for.
pub struct ReplayOptions {
    pub schedules: Vec<Schedule>,
    pub json: bool,
    /// Only the trace with this id (or task id).
    pub only: Option<String>,
    /// Totals only, no per-event table.
    pub summary: bool,
    /// What explains a block (`--explain`).
    pub explainer: Explainer,
    /// The time of events a trace records no time for (`--now`).
    pub now: Option<turnstile_rules::DateTime>,
}

/// Replays every trace in `file`; returns whether all of it could be read.
/// Only a model judge runs on an async runtime.
pub fn run(
    rt: &Arc<BundleRuntime>,
    file: &Path,
    judge: &Judging,
    options: &ReplayOptions,
) -> Result<bool, String> {
    let mut clean = true;
    let mut failure = None;
    let mut closed = false;
    let mut totals = Totals::default();
    let mut out = std::io::stdout().lock();
    let summary = for_each_trace(file, None, |item| {
        let trace = match item {
            Ok(trace) => trace,
            Err(e) => {
                eprintln!("error: {e}");
                clean = false;
                return ControlFlow::Continue(());
            }
        };
        if !selected(&trace, options.only.as_deref()) {
            return ControlFlow::Continue(());
        }
        let reports: Result<Vec<ReplayReport>, String> = options
            .schedules
            .iter()
            .map(|&schedule| {
                let explainer = options.explainer;
                match judge {
                    Judging::Immediate(judge) => {
                        replay_at(rt, &trace, schedule, judge.as_ref(), explainer, options.now)
                    }
                    Judging::Model(judge, runtime) => runtime.block_on(replay_async(
                        rt,
                        &trace,
                        schedule,
                        judge.as_ref(),
                        explainer,
                        options.now,
                    )),
                }
                .map_err(|e| format!("{}: {e}", trace.meta.id))
            })
            .collect();
        let reports = match reports {
            Ok(r) => r,
            Err(e) => {
                failure = Some(e);
                return ControlFlow::Break(());
            }
        };
        let written = print_trace(&mut out, &trace, &reports, options, &mut totals);
        if let Err(e) = written {
            // A closed pipe (`| head`) is the reader's choice, not an error.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                failure = Some(format!("cannot write the report: {e}"));
            }
            closed = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    })
    .map_err(|e| e.to_string())?;
    if let Some(e) = failure {
        return Err(e);
    }
    if !options.json && !closed {
        let _ = totals.print(&mut out, summary.traces);
    }
    Ok(clean)
}

fn selected(trace: &Trace, only: Option<&str>) -> bool {
    only.is_none_or(|id| trace.meta.id == id || trace.meta.task_id.as_deref() == Some(id))
}

#[derive(Default)]
struct Totals {
    traces: usize,
    gated: usize,
    blocked: usize,
    judge_calls: u64,
    by_schedule: Vec<(Schedule, usize, usize)>,
}

impl Totals {
    fn print(&self, out: &mut impl Write, read: usize) -> std::io::Result<()> {
        writeln!(
            out,
            "\n{} of {read} traces replayed: {} mutating calls, {} blocked (workflow); judge calls {}",
            self.traces, self.gated, self.blocked, self.judge_calls
        )?;
        for (schedule, caught, missed) in &self.by_schedule {
            writeln!(
                out,
                "  {schedule:<9} caught {caught} deviations, missed {missed}"
            )?;
        }
        Ok(())
    }

    fn add_coverage(&mut self, c: &Coverage) {
        let Some(schedule) = c.schedule else { return };
        match self.by_schedule.iter_mut().find(|(s, _, _)| *s == schedule) {
            Some(entry) => {
                entry.1 += c.caught.len();
                entry.2 += c.missed.len();
            }
            None => self
                .by_schedule
                .push((schedule, c.caught.len(), c.missed.len())),
        }
    }
}

fn print_trace(
    out: &mut impl Write,
    trace: &Trace,
    reports: &[ReplayReport],
    options: &ReplayOptions,
    totals: &mut Totals,
) -> std::io::Result<()> {
    let reference = reports.iter().find(|r| r.schedule == Schedule::Workflow);
    let coverages: Vec<Coverage> = match reference {
        Some(w) => reports
            .iter()
            .filter(|r| r.schedule != Schedule::Workflow)
            .map(|r| coverage(w, r))
            .collect(),
        None => Vec::new(),
    };
    totals.traces += 1;
    if let Some(first) = reports.first() {
        totals.gated += first.gated_calls().len();
        totals.blocked += reference.map_or(0, |w| w.blocked().len());
    }
    totals.judge_calls += reports.iter().map(|r| r.usage.calls).sum::<u64>();
    for c in &coverages {
        totals.add_coverage(c);
    }
    if options.json {
        let line = serde_json::json!({
            "trace": trace.meta.id,
            "task_id": trace.meta.task_id,
            "replays": reports,
            "coverage": coverages,
        });
        return writeln!(out, "{line}");
    }
    let task = trace
        .meta
        .task_id
        .as_deref()
        .map(|t| format!(" (task {t})"))
        .unwrap_or_default();
    for report in reports {
        writeln!(
            out,
            "\n== {}{task} · schedule {} · {} events",
            trace.meta.id,
            report.schedule,
            report.events.len()
        )?;
        if !options.summary {
            for event in &report.events {
                print_event(out, event)?;
            }
        }
        let gated = report.gated_calls();
        let confirmed = report.confirmed().len();
        writeln!(
            out,
            "   mutating calls {}, blocked {}{}, unchecked deviations {}, deviations without a write {}; judge calls {}, tokens {}+{}",
            gated.len(),
            report.blocked().len(),
            if confirmed > 0 {
                format!(", held for confirmation {confirmed}")
            } else {
                String::new()
            },
            report.unchecked_deviations(),
            report.deviated().len(),
            report.usage.calls,
            report.usage.input_tokens,
            report.usage.output_tokens
        )?;
    }
    for c in &coverages {
        if let Some(schedule) = c.schedule {
            writeln!(
                out,
                "   {schedule}: caught {:?}, missed {:?} of the workflow schedule's deviations {:?}",
                c.caught, c.missed, c.deviations
            )?;
            if !c.unwritten.is_empty() {
                writeln!(
                    out,
                    "   {schedule}: reported {:?}, missed {:?} of the deviations without a write {:?}",
                    c.unwritten_caught, c.unwritten_missed, c.unwritten
                )?;
            }
        }
    }
    Ok(())
}

/// A confirmation's consent as a replay reads it: the call already ran, so
/// a write with no answer at all is a violation, one after a reply the
/// reader could not decide needs review.
fn consent_note(consent: ConsentState) -> &'static str {
    match consent {
        ConsentState::Absent => "absent (a violation: the user never answered)",
        ConsentState::Refused => "refused (a violation)",
        ConsentState::Qualified => "qualified (needs review)",
        ConsentState::Unknown => "unknown (needs review)",
        ConsentState::Given => "given; a question the judge could not decide (needs review)",
    }
}

fn print_event(out: &mut impl Write, event: &EventReport) -> std::io::Result<()> {
    let head = format!("{:>4}  {:<34}", event.event, clip(&event.kind, 34));
    match &event.verdict {
        GateVerdict::Observe => writeln!(out, "{head} ·"),
        GateVerdict::Unchecked { would_block } => writeln!(
            out,
            "{head} unchecked{}",
            if *would_block {
                "  (a deviation: the monitor would block it)"
            } else {
                ""
            }
        ),
        GateVerdict::Allow {
            step,
            request,
            approved,
            consent_by_judge,
        } => match (approved, consent_by_judge) {
            (None, None) => writeln!(out, "{head} ALLOW  {step} {}", show(request)),
            (None, Some(judged)) => writeln!(
                out,
                "{head} ALLOW  {step} {} (consent read by the judge in event {})",
                show(request),
                judged.evidence
            ),
            (Some(approval), _) => writeln!(
                out,
                "{head} ALLOW  {step} {} (approved by the {} for call {})",
                show(request),
                approval.by.label(),
                approval.call
            ),
        },
        GateVerdict::Block {
            reason,
            step,
            request,
            remediation,
            explanation,
        } => {
            // A block no step explains (an unknown tool, a protected read's
            // guard) names none.
            let at = step
                .as_deref()
                .map(|s| format!(" at {s}"))
                .unwrap_or_default();
            writeln!(out, "{head} BLOCK  {reason:?}{at} {}", show(request))?;
            if let Some(text) = remediation {
                writeln!(out, "{:42}remediation: {text}", "")?;
            }
            // The "event k: tool blocked (reason)" line repeats the header;
            // a type-mismatch line before it does not.
            for line in explanation.lines().filter(|l| !l.starts_with("event ")) {
                writeln!(out, "{:42}{}", "", line.trim_start())?;
            }
            Ok(())
        }
        GateVerdict::Confirm {
            step,
            request,
            confirmation,
            consent,
            explanation,
            ..
        } => {
            writeln!(
                out,
                "{head} CONFIRM  consent {} at {} {}",
                consent_note(*consent),
                step.as_deref().unwrap_or("?"),
                show(request)
            )?;
            writeln!(out, "{:42}ask: {}", "", confirmation.text)?;
            for line in explanation.lines().filter(|l| !l.starts_with("event ")) {
                writeln!(out, "{:42}{}", "", line.trim_start())?;
            }
            Ok(())
        }
        GateVerdict::Deviate {
            reason,
            action,
            step,
            remediation,
            explanation,
            at,
        } => {
            writeln!(
                out,
                "{head} DEVIATE  {action} (event {at}): {reason:?} at {}",
                step.as_deref().unwrap_or("?")
            )?;
            if let Some(text) = remediation {
                writeln!(out, "{:42}remediation: {text}", "")?;
            }
            writeln!(out, "{:42}{explanation}", "")
        }
        GateVerdict::Guide { .. } => {
            let mut first = true;
            for request in &event.requests {
                let status = match request.status {
                    RequestStatus::Open => "new",
                    RequestStatus::Continuing => "",
                    RequestStatus::Done => "done",
                };
                let cursor: Vec<String> = request
                    .cursor
                    .iter()
                    .map(|c| {
                        let judge = if c.needs_judge { " (judge)" } else { "" };
                        format!("{}{judge}", c.step)
                    })
                    .collect();
                let lead = if first {
                    format!("{head} guide ")
                } else {
                    format!("{:47}", "")
                };
                first = false;
                writeln!(
                    out,
                    "{lead} {} {status} → {}",
                    show(&request.request),
                    if cursor.is_empty() {
                        "finished".to_owned()
                    } else {
                        cursor.join(" | ")
                    }
                )?;
            }
            if first {
                writeln!(out, "{head} guide")?;
            }
            Ok(())
        }
    }?;
    for note in &event.judge {
        writeln!(
            out,
            "{:42}judge {} {}: {}",
            "",
            note.node,
            show(&note.request),
            verdict_text(note)
        )?;
    }
    Ok(())
}

fn verdict_text(note: &turnstile_engine::session::JudgeNote) -> String {
    use turnstile_judge::Verdict;
    let base = match &note.verdict {
        Verdict::Satisfied { evidence_event } => format!("yes (event {evidence_event})"),
        Verdict::Chosen {
            label,
            evidence_event,
        } => format!("{label} (event {evidence_event})"),
        Verdict::NotSatisfied => "no".to_owned(),
        Verdict::Unknown { reason } => format!("unknown: {reason}"),
    };
    match &note.rejected {
        Some(why) => format!("{base}, rejected: {why}"),
        None => base,
    }
}

fn show(bindings: &std::collections::BTreeMap<String, String>) -> String {
    let parts: Vec<String> = bindings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}}", parts.join(", "))
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let cut: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{cut}…")
}
