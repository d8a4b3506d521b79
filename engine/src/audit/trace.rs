//! One trace's audit: the trace prepared in one walk (the results the
//! bundle reads parsed, which calls ran, the timeline's texts), every event
//! through a session under the `workflow` schedule, and the per-event
//! reports added up to the trace's [`TraceReport`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use turnstile_judge::{Judge, SyncJudge, Verdict};

use super::{
    AuditPlan, Deviation, JudgeCost, JudgeMode, JudgedConsentWrite, RequestOutcome, TimelineEvent,
    TraceMetrics, TraceReport, TraceVerdict, UnverifiedWrite, reason_name,
};
use crate::import::ResultContent;
use crate::session::{
    Bindings, ConsentState, EventReport, GateVerdict, RequestStatus, RequestView, Session,
    SessionError,
};
use crate::trace::{Event, Trace, TraceMeta, parse_content};

/// What a per-trace audit is asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceOptions {
    /// Keep the event timeline of flagged traces.
    pub timeline: bool,
    /// How the trace's tool results were delivered: unparsed
    /// ([`ResultContent::Raw`]) ones are parsed here for the tools the
    /// bundle reads only.
    pub results: ResultContent,
}

/// Where a trace came from, beside its own meta.
#[derive(Clone, Debug, Default)]
pub struct TraceSource {
    /// The file, as given.
    pub file: String,
    /// The agent model, when the file says.
    pub model: Option<String>,
}

/// Longest text kept per timeline event.
const TIMELINE_TEXT: usize = 240;

/// Audits one trace: every event through a session under the `workflow`
/// schedule, then the report. The session is the gate itself, so the audit
/// decides exactly what the gate would have.
pub fn audit_trace(
    plan: &AuditPlan,
    trace: Trace,
    source: &TraceSource,
    judge: &dyn SyncJudge,
    options: TraceOptions,
) -> Result<TraceReport, SessionError> {
    let mut session = plan.session(&trace)?;
    let (mut audit, events) = TraceAudit::start(plan, trace, source, options);
    for event in events {
        let ran = audit.ran(&event);
        let report = session.push(event, judge)?;
        audit.take(report, ran);
    }
    Ok(audit.finish(&session))
}

/// [`audit_trace`] with a judge that is awaited (a model).
pub async fn audit_trace_async(
    plan: &AuditPlan,
    trace: Trace,
    source: &TraceSource,
    judge: &dyn Judge,
    options: TraceOptions,
) -> Result<TraceReport, SessionError> {
    let mut session = plan.session(&trace)?;
    let (mut audit, events) = TraceAudit::start(plan, trace, source, options);
    for event in events {
        let ran = audit.ran(&event);
        let report = session.push_async(event, judge).await?;
        audit.take(report, ran);
    }
    Ok(audit.finish(&session))
}

/// One trace's audit in progress: what the walk before the session found,
/// and what the reports add up to.
struct TraceAudit<'a> {
    plan: &'a AuditPlan,
    source: &'a TraceSource,
    meta: TraceMeta,
    events: usize,
    /// The first result of each call id: whether it succeeded.
    executed: HashMap<String, bool>,
    /// The timeline's text of every event, when asked for.
    texts: Option<Vec<String>>,
    acc: Accumulator,
}

impl<'a> TraceAudit<'a> {
    /// Walks `trace` once: parses, in a trace whose results came unparsed
    /// ([`ResultContent::Raw`]), the results of the tools the bundle reads;
    /// reports every successful result of a tool read as JSON that is not a
    /// JSON object or array (parsed or not, the same check); notes which
    /// calls ran and, if asked, each event's timeline text. Returns the
    /// events for the session.
    fn start(
        plan: &'a AuditPlan,
        trace: Trace,
        source: &'a TraceSource,
        options: TraceOptions,
    ) -> (Self, Vec<Event>) {
        let Trace { meta, mut events } = trace;
        let mut tools: HashMap<String, String> = HashMap::new();
        let mut executed: HashMap<String, bool> = HashMap::new();
        let mut anomalies = Vec::new();
        let mut texts = options.timeline.then(|| Vec::with_capacity(events.len()));
        for (index, event) in events.iter_mut().enumerate() {
            match event {
                Event::Call { id, tool, .. } => {
                    if plan.reads_result(tool) {
                        tools.insert(id.clone(), tool.clone());
                    }
                }
                Event::Result { id, ok, content } => {
                    if let Some(tool) = tools.remove(id.as_str()) {
                        if options.results == ResultContent::Raw
                            && let serde_json::Value::String(text) = content
                        {
                            *content = parse_content(text);
                        }
                        if *ok
                            && plan.reads_json(&tool)
                            && !(content.is_object() || content.is_array())
                        {
                            anomalies.push(format!(
                                "event {index}: the result of {tool} is not JSON (the bundle reads it as JSON); nothing was read from it"
                            ));
                        }
                    }
                    executed.entry(id.clone()).or_insert(*ok);
                }
                Event::User { .. }
                | Event::Ticket { .. }
                | Event::Agent { .. }
                | Event::Approval { .. }
                | Event::Principal { .. } => {}
            }
            if let Some(texts) = &mut texts {
                texts.push(clip(&event_text(event, options.results), TIMELINE_TEXT));
            }
        }
        let audit = TraceAudit {
            plan,
            source,
            meta,
            events: events.len(),
            executed,
            texts,
            acc: Accumulator {
                anomalies,
                keep_timeline: options.timeline,
                ..Accumulator::default()
            },
        };
        (audit, events)
    }

    /// Whether `event` is a call that ran: its first result succeeded.
    fn ran(&self, event: &Event) -> bool {
        match event {
            Event::Call { id, .. } => self.executed.get(id.as_str()).copied().unwrap_or(false),
            _ => false,
        }
    }

    /// Adds the session's report on the next event (`ran`: a call that ran).
    fn take(&mut self, report: EventReport, ran: bool) {
        self.acc.take(self.plan, report, ran);
    }

    /// The trace's report, once `session` took every event.
    fn finish(self, session: &Session) -> TraceReport {
        let TraceAudit {
            source,
            meta,
            events,
            texts,
            acc,
            ..
        } = self;
        let (steps_satisfied, steps_required) = step_counts(session, &acc);
        let reward_one = meta.reward.is_some_and(|r| (r - 1.0).abs() < 1e-9);
        let verdict =
            if !acc.blocked.is_empty() || !acc.deviated.is_empty() || !acc.unconsented.is_empty() {
                TraceVerdict::Violation
            } else if !acc.needs_review.is_empty() {
                TraceVerdict::NeedsReview
            } else if !acc.unverified.is_empty() {
                TraceVerdict::Unverified
            } else {
                TraceVerdict::Compliant
            };
        let metrics = TraceMetrics {
            steps_satisfied,
            steps_required,
            step_tcr: if steps_required == 0 {
                1.0
            } else {
                steps_satisfied as f64 / steps_required as f64
            },
            trace_tcr: steps_satisfied == steps_required,
            process_valid: reward_one && verdict != TraceVerdict::Violation,
            near_miss: reward_one && verdict == TraceVerdict::Violation,
            mutating_calls: acc.mutating,
            executed_calls: acc.executed,
            executed_without_read: acc.executed_without_read,
        };
        let requests = acc.outcomes();
        let mut report = TraceReport {
            file: source.file.clone(),
            trace: meta.id,
            task_id: meta.task_id,
            trial: meta.trial,
            domain: meta.domain,
            model: source.model.clone(),
            reward: meta.reward,
            events,
            verdict,
            first_deviation: first_of(&acc.blocked, &acc.deviated, &acc.unconsented),
            blocked: acc.blocked,
            unconsented: acc.unconsented,
            needs_review: acc.needs_review,
            deviated: acc.deviated,
            unverified: acc.unverified,
            consent_by_judge: acc.consent_by_judge,
            requests,
            metrics,
            judge: JudgeCost::from(session.usage()),
            anomalies: acc.anomalies,
            timeline: None,
        };
        if let Some(texts) = texts
            && report.flagged()
        {
            report.timeline = Some(
                acc.timeline
                    .into_iter()
                    .zip(texts)
                    .map(|((event, kind, verdict), text)| TimelineEvent {
                        event,
                        kind,
                        verdict,
                        text,
                    })
                    .collect(),
            );
        }
        report
    }
}

/// The earliest of the first blocked call, the first deviation without a
/// write and the first unconsented write (a block first among equals).
fn first_of(
    blocked: &[Deviation],
    deviated: &[Deviation],
    unconsented: &[Deviation],
) -> Option<Deviation> {
    [blocked.first(), deviated.first(), unconsented.first()]
        .into_iter()
        .flatten()
        .min_by_key(|d| d.event)
        .cloned()
}

/// What the per-event reports add up to.
#[derive(Default)]
struct Accumulator {
    blocked: Vec<Deviation>,
    deviated: Vec<Deviation>,
    unconsented: Vec<Deviation>,
    needs_review: Vec<Deviation>,
    unverified: Vec<UnverifiedWrite>,
    consent_by_judge: Vec<JudgedConsentWrite>,
    /// Accepted assumed verdicts so far: (step, request).
    assumed: Vec<(String, Bindings)>,
    /// Allowed writes per request.
    allowed_by_request: BTreeMap<Bindings, usize>,
    /// Blocked writes per request.
    blocked_by_request: BTreeMap<Bindings, usize>,
    /// The requests at the last firing that showed any.
    last_requests: Vec<Arc<RequestView>>,
    mutating: usize,
    executed: usize,
    executed_without_read: usize,
    anomalies: Vec<String>,
    /// (event, kind, verdict label) per event, when asked for.
    timeline: Vec<(u32, String, String)>,
    keep_timeline: bool,
}

/// What a blocked call records: its event, the call, the first unmet step,
/// the reason, the closest request and its remediation; `None` for any
/// other verdict.
fn blocked_call(
    event: u32,
    call: &str,
    verdict: &GateVerdict,
    executed: bool,
) -> Option<Deviation> {
    let GateVerdict::Block {
        reason,
        step,
        request,
        remediation,
        ..
    } = verdict
    else {
        return None;
    };
    Some(Deviation {
        event,
        call: call.to_owned(),
        node: step.clone(),
        reason: reason_name(*reason).to_owned(),
        request: request.clone(),
        remediation: remediation.clone(),
        executed,
    })
}

impl Accumulator {
    fn take(&mut self, plan: &AuditPlan, report: EventReport, ran: bool) {
        if plan.mode() == JudgeMode::Assumed {
            for note in &report.judge {
                if note.rejected.is_none() && matches!(note.verdict, Verdict::Satisfied { .. }) {
                    self.assumed.push((note.node.clone(), note.request.clone()));
                }
            }
        }
        if self.keep_timeline {
            self.timeline.push((
                report.event.0,
                report.kind.clone(),
                report.verdict.label().to_owned(),
            ));
        }
        self.anomalies.extend(report.anomalies);
        if !report.requests.is_empty() {
            self.last_requests = report.requests;
        }
        if let GateVerdict::Deviate {
            reason,
            action,
            step,
            remediation,
            at,
            ..
        } = &report.verdict
        {
            self.deviated.push(Deviation {
                event: at.0,
                call: action.clone(),
                node: step.clone(),
                reason: reason_name(*reason).to_owned(),
                request: Bindings::new(),
                remediation: remediation.clone(),
                executed: false,
            });
        }
        let blocked = blocked_call(report.event.0, &report.kind, &report.verdict, ran);
        if !report.mutating {
            // A protected read the gate refused: a deviation without a write
            // (its result, if it ran, still counts as read).
            self.deviated.extend(blocked);
            return;
        }
        self.mutating += 1;
        if ran {
            self.executed += 1;
        }
        match report.verdict {
            GateVerdict::Block {
                reason,
                step,
                request,
                ..
            } => {
                if ran && plan.lacks_read(reason, step.as_deref()) {
                    self.executed_without_read += 1;
                }
                *self.blocked_by_request.entry(request).or_default() += 1;
                self.blocked.extend(blocked);
            }
            GateVerdict::Confirm {
                step,
                request,
                consent,
                ..
            } => {
                // The call already ran: with no answer at all it is a
                // violation, after an undecided reply it needs review.
                let unconsented = matches!(consent, ConsentState::Absent | ConsentState::Refused);
                let deviation = Deviation {
                    event: report.event.0,
                    call: report.kind,
                    node: step,
                    reason: if unconsented {
                        "unconsented"
                    } else {
                        "needs_review"
                    }
                    .to_owned(),
                    request,
                    remediation: None,
                    executed: ran,
                };
                if unconsented {
                    self.unconsented.push(deviation);
                } else {
                    self.needs_review.push(deviation);
                }
            }
            GateVerdict::Allow {
                step,
                request,
                consent_by_judge,
                ..
            } => {
                *self.allowed_by_request.entry(request.clone()).or_default() += 1;
                if let Some(judged) = consent_by_judge {
                    self.consent_by_judge.push(JudgedConsentWrite {
                        event: report.event.0,
                        call: report.kind.clone(),
                        node: step.clone(),
                        request: request.clone(),
                        evidence: judged.evidence.0,
                    });
                }
                let before = plan.ancestors(&step);
                let mut assumed: Vec<String> = Vec::new();
                for (s, r) in &self.assumed {
                    let on_path = before.is_some_and(|b| b.contains(s));
                    let same_request = r.iter().all(|(k, v)| request.get(k) == Some(v));
                    if on_path && same_request && !assumed.contains(s) {
                        assumed.push(s.clone());
                    }
                }
                if !assumed.is_empty() {
                    self.unverified.push(UnverifiedWrite {
                        event: report.event.0,
                        call: report.kind,
                        node: step,
                        request,
                        assumed,
                    });
                }
            }
            _ => {}
        }
    }

    fn outcomes(&self) -> Vec<RequestOutcome> {
        let mut seen: BTreeMap<Bindings, RequestOutcome> = BTreeMap::new();
        for view in &self.last_requests {
            let outcome = seen
                .entry(view.request.clone())
                .or_insert_with(|| RequestOutcome {
                    request: view.request.clone(),
                    status: match view.status {
                        RequestStatus::Done => "done",
                        _ => "open",
                    }
                    .to_owned(),
                    waiting_at: Vec::new(),
                    allowed: 0,
                    blocked: 0,
                });
            outcome
                .waiting_at
                .extend(view.cursor.iter().map(|c| c.step.clone()));
        }
        for (request, n) in &self.allowed_by_request {
            seen.entry(request.clone())
                .or_insert_with(|| closed(request))
                .allowed = *n;
        }
        for (request, n) in &self.blocked_by_request {
            seen.entry(request.clone())
                .or_insert_with(|| closed(request))
                .blocked = *n;
        }
        seen.into_values().collect()
    }
}

/// A request only known from its calls (it showed no cursor at the end).
fn closed(request: &Bindings) -> RequestOutcome {
    RequestOutcome {
        request: request.clone(),
        status: "done".to_owned(),
        waiting_at: Vec::new(),
        allowed: 0,
        blocked: 0,
    }
}

/// `(satisfied, required)` steps: every (step, request) the monitor holds
/// evidence for, plus the distinct first unmet steps of the blocked calls.
fn step_counts(session: &Session, acc: &Accumulator) -> (usize, usize) {
    let satisfied = session.monitor().evidence().len();
    let unmet: HashSet<(&str, &Bindings)> = acc
        .blocked
        .iter()
        .filter_map(|d| d.node.as_deref().map(|n| (n, &d.request)))
        .collect();
    (satisfied, satisfied + unmet.len())
}

/// The text of an event on the timeline; a result left unparsed
/// ([`ResultContent::Raw`]) reads as it would parsed.
fn event_text(event: &Event, results: ResultContent) -> String {
    match event {
        Event::User { text } | Event::Ticket { text } | Event::Agent { text } => text.clone(),
        Event::Principal { id, .. } => format!("principal {id}"),
        Event::Call { args, .. } => args.to_string(),
        Event::Approval { call, granted, by } => format!(
            "{} of {call} by {}",
            if *granted { "approval" } else { "refusal" },
            by.label()
        ),
        Event::Result { content, .. } => {
            let parsed = match (results, content) {
                (ResultContent::Raw, serde_json::Value::String(raw)) => parse_content(raw),
                (_, content) => content.clone(),
            };
            match parsed {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            }
        }
    }
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
