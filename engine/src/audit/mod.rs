//! Batch auditing of recorded conversations: one trace through a session
//! under the complete `workflow` schedule, summed up as a [`TraceReport`]
//! (verdict, first deviation, blocked writes, per-request outcome and the
//! PolicyGuide paper's trace metrics); [`summary`] adds reports up per file,
//! agent model and domain; [`run`] streams many files through it in parallel,
//! delivering the reports in input order.
//!
//! Every trace goes through [`audit_trace`]: it is the one place a faster
//! per-trace path plugs in.
//!
//! **The fast path.** A reader asked for [`ResultContent::Raw`] hands tool
//! results over unparsed; [`audit_trace`] (told so by
//! [`TraceOptions::results`]) parses only the results of the tools the
//! bundle reads ([`AuditPlan::reads_result`]: a read spec or a binding from
//! the result) — every other result stays its recorded text. Nothing the
//! verdicts depend on changes (tested against the parsed path on every
//! tau2 trace); what does change is the text of a tool turn in a judge's
//! conversation slice, so a caller takes the fast path only with a judge
//! that does not read tool turns (`--judge none`, the offline judge).
//! Either way a successful result of a tool the bundle reads as JSON that
//! is not a JSON object or array is reported as an anomaly of the trace.

pub mod run;
pub mod summary;
pub mod synth;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use turnstile_judge::{Judge, JudgeRequest, Judgement, OfflineJudge, Question, Usage, Verdict};
use turnstile_rules::{Reason, StepId};

use crate::bundle::model::{NodeKind, ToolKind};
use crate::fsm::BindSource;
use crate::import::ResultContent;
use crate::session::{
    Bindings, BundleRuntime, EventReport, GateVerdict, RequestStatus, RequestView, Schedule,
    Session, SessionError,
};
use crate::trace::{Event, Trace, parse_content};
use turnstile_rules::Timing;

/// How the dialogue-semantic steps of an audit are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeMode {
    /// A judge answers them (offline, a model, recorded verdicts).
    Judged,
    /// Nothing is judged (`--judge none`): see [`AssumingJudge`]. A write the
    /// formal checks allow only thanks to an assumed step is `unverified`.
    Assumed,
}

/// The judge of `--judge none`: asks no model and records no semantic
/// verdict of its own. Each yes/no dialogue criterion is *assumed* at the
/// first event of its slice (the most permissive position, so the formal
/// checks after it are still decided), and the audit reports every write that
/// needed such an assumption as `unverified` with the steps assumed. Which
/// kind of request the conversation is about (a classification) is decided
/// by the offline keyword rules, which are code: without it no request path
/// would open and no formal check could be decided at all.
#[derive(Debug, Default, Clone, Copy)]
pub struct AssumingJudge;

/// The name [`AssumingJudge`] reports.
pub const ASSUMING_JUDGE_NAME: &str = "none";

/// The rationale of an assumed verdict.
const ASSUMED: &str = "assumed: no judge (--judge none)";

#[async_trait]
impl Judge for AssumingJudge {
    fn name(&self) -> &str {
        ASSUMING_JUDGE_NAME
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        match &request.question {
            Question::Classify { .. } => OfflineJudge.decide(request),
            Question::Criterion { .. } => match request.conversation.first() {
                Some(turn) => Judgement::new(
                    Verdict::Satisfied {
                        evidence_event: turn.event_index,
                    },
                    ASSUMED,
                ),
                None => Judgement::new(Verdict::unknown("an empty slice"), ASSUMED),
            },
        }
    }
}

/// The audit's verdict on one trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceVerdict {
    /// Every mutating call was authorized by the workflow.
    Compliant,
    /// At least one mutating call was not.
    Violation,
    /// No violation, but a write was allowed only by assuming dialogue steps
    /// nobody judged (`--judge none`).
    Unverified,
}

impl TraceVerdict {
    /// The verdict's name as reported.
    pub fn name(self) -> &'static str {
        match self {
            TraceVerdict::Compliant => "compliant",
            TraceVerdict::Violation => "violation",
            TraceVerdict::Unverified => "unverified",
        }
    }
}

/// The snake-case name of a block reason (`missing_read`).
pub fn reason_name(reason: Reason) -> &'static str {
    match reason {
        Reason::NoAuthorization => "no_authorization",
        Reason::MissingRead => "missing_read",
        Reason::WrongValue => "wrong_value",
        Reason::AmountOutOfBounds => "amount_out_of_bounds",
        Reason::Ungrounded => "ungrounded",
        Reason::TooManyCalls => "too_many_calls",
        Reason::OutOfOrder => "out_of_order",
        Reason::DialogueUnmet => "dialogue_unmet",
        Reason::MissingStep => "missing_step",
        Reason::UnknownTool => "unknown_tool",
        Reason::TypeMismatch => "type_mismatch",
        Reason::AuthorizationUsed => "authorization_used",
        Reason::SessionFull => "session_full",
        Reason::WrongSide => "wrong_side",
    }
}

/// A mutating call the workflow did not authorize.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deviation {
    /// The call's event index.
    pub event: u32,
    /// The call (`call cancel_pending_order`).
    pub call: String,
    /// The first unmet step (a node id), when there is one.
    pub node: Option<String>,
    /// Why it was blocked (`missing_read`, `dialogue_unmet`, ...).
    pub reason: String,
    /// The bindings of the request that came closest.
    pub request: Bindings,
    /// What the agent should have done, from the unmet step's template.
    pub remediation: Option<String>,
    /// Whether the tool then ran successfully (its result was not an error).
    pub executed: bool,
}

/// A write allowed only by assuming dialogue steps (`--judge none`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnverifiedWrite {
    /// The call's event index.
    pub event: u32,
    /// The call.
    pub call: String,
    /// The authorizing step.
    pub node: String,
    /// The request's bindings.
    pub request: Bindings,
    /// The dialogue steps assumed for it.
    pub assumed: Vec<String>,
}

/// Where one request of the trace ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestOutcome {
    /// The request's bindings.
    pub request: Bindings,
    /// `done` (reached an exit) or `open` (waiting when the trace ended).
    pub status: String,
    /// The steps it waited at, when open.
    pub waiting_at: Vec<String>,
    /// Mutating calls of this request allowed.
    pub allowed: usize,
    /// Mutating calls of this request blocked.
    pub blocked: usize,
}

/// The PolicyGuide paper's trace metrics for one trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceMetrics {
    /// Steps satisfied on the paths of the trace's requests.
    pub steps_satisfied: usize,
    /// Steps required on those paths up to where each request (or the trace)
    /// ended: the satisfied ones plus the first unmet step of every blocked call.
    pub steps_required: usize,
    /// `steps_satisfied / steps_required` (1 when nothing was required).
    pub step_tcr: f64,
    /// Every required step satisfied.
    pub trace_tcr: bool,
    /// The benchmark's reward is 1 and there is no deviation.
    pub process_valid: bool,
    /// Reward 1 but a violation: the benchmark passed a rule-breaking trace.
    pub near_miss: bool,
    /// Agent calls of mutating tools.
    pub mutating_calls: usize,
    /// Those whose result was not an error.
    pub executed_calls: usize,
    /// Executed mutating calls that lacked an earlier read the bundle requires.
    pub executed_without_read: usize,
}

/// One event of a flagged trace's timeline (the HTML drill-down).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineEvent {
    /// The event index.
    pub event: u32,
    /// `user`, `agent`, `call <tool>`, `result`, `error`.
    pub kind: String,
    /// `allow`, `block`, `guide`, `observe`.
    pub verdict: String,
    /// The text or arguments, clipped.
    pub text: String,
}

/// Longest text kept per timeline event.
const TIMELINE_TEXT: usize = 240;

/// The audit of one trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceReport {
    /// The file the trace came from.
    pub file: String,
    /// The trace id.
    pub trace: String,
    /// The benchmark task id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The trial number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trial: Option<i64>,
    /// The domain, when the input says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The agent model, when the input says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The benchmark's reward, when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward: Option<f64>,
    /// Events in the trace.
    pub events: usize,
    /// The verdict.
    pub verdict: TraceVerdict,
    /// The first deviation: the earliest blocked mutating call or
    /// deviation without a write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_deviation: Option<Deviation>,
    /// Every blocked mutating call, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<Deviation>,
    /// Every deviation without a write (the `deviate` verdict: an
    /// instruction or claim out of order), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deviated: Vec<Deviation>,
    /// Writes allowed only by assumed dialogue steps.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<UnverifiedWrite>,
    /// Where each request ended.
    pub requests: Vec<RequestOutcome>,
    /// The trace metrics.
    pub metrics: TraceMetrics,
    /// What judging cost.
    pub judge: JudgeCost,
    /// Malformed input met inside the trace (orphan results, reused ids...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anomalies: Vec<String>,
    /// The event timeline, kept for flagged traces when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Vec<TimelineEvent>>,
}

impl TraceReport {
    /// Whether the trace is flagged: a violation, a near miss or unverified.
    pub fn flagged(&self) -> bool {
        self.verdict != TraceVerdict::Compliant || self.metrics.near_miss
    }
}

/// What judging one trace cost (no wall-clock time: reports are the same
/// on every run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeCost {
    /// Requests sent to a model.
    pub calls: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Judgements answered from the verdict cache.
    pub cache_hits: u64,
}

impl From<Usage> for JudgeCost {
    fn from(u: Usage) -> Self {
        JudgeCost {
            calls: u.calls,
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_hits: u.cache_hits,
        }
    }
}

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

/// Per-bundle facts the audit needs, computed once.
#[derive(Debug)]
pub struct AuditPlan {
    rt: Arc<BundleRuntime>,
    /// Display names of the steps that are reads (`tool_call` nodes).
    read_steps: HashSet<String>,
    /// Per authorization step (by display name), the display names of the
    /// steps before it in the step graph: the only assumptions a write can
    /// rest on.
    ancestors: HashMap<String, HashSet<String>>,
    /// Tools whose result content the extractor looks at (a read spec or a
    /// binding from the result).
    result_tools: HashSet<String>,
    /// Those of them read as JSON (a read spec that is not a `text:` read).
    json_tools: HashSet<String>,
    mode: JudgeMode,
}

impl AuditPlan {
    /// The plan for auditing with `rt` under `mode`.
    pub fn new(rt: Arc<BundleRuntime>, mode: JudgeMode) -> Self {
        let graph = &rt.bundle.workflow.graph;
        let read_steps = rt
            .steps
            .iter()
            .enumerate()
            .filter(|(_, info)| {
                graph
                    .node_weight(info.node)
                    .is_some_and(|n| n.kind == NodeKind::ToolCall)
            })
            .filter_map(|(i, _)| u32::try_from(i).ok())
            .map(|i| rt.step_name(StepId(i)).to_owned())
            .collect();
        let program = &rt.bundle.program;
        // Backwards along edges that go deeper (a loop back to an earlier
        // step, such as the next request's classification, is not a way in).
        let depth = |s: usize| rt.steps.get(s).map_or(u32::MAX, |i| i.depth);
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); program.steps.len()];
        for (a, b) in &program.edges {
            let (a, b) = (a.0 as usize, b.0 as usize);
            if depth(a) < depth(b)
                && let Some(list) = preds.get_mut(b)
            {
                list.push(a);
            }
        }
        let mut ancestors = HashMap::new();
        for (i, step) in program.steps.iter().enumerate() {
            if step.authorizes.is_none() {
                continue;
            }
            let mut seen: HashSet<usize> = HashSet::new();
            let mut stack = vec![i];
            while let Some(s) = stack.pop() {
                for &p in preds.get(s).map_or(&[][..], Vec::as_slice) {
                    if seen.insert(p) {
                        stack.push(p);
                    }
                }
            }
            let names = seen
                .into_iter()
                .filter_map(|s| u32::try_from(s).ok())
                .map(|s| rt.step_name(StepId(s)).to_owned())
                .collect();
            if let Ok(i) = u32::try_from(i) {
                ancestors.insert(rt.step_name(StepId(i)).to_owned(), names);
            }
        }
        let (result_tools, json_tools) = result_readers(&rt);
        AuditPlan {
            rt,
            read_steps,
            ancestors,
            result_tools,
            json_tools,
            mode,
        }
    }

    /// Whether the bundle looks at the content of `tool`'s results (a read
    /// spec, or a step binding a variable from the result): the only
    /// results the fast path parses.
    pub fn reads_result(&self, tool: &str) -> bool {
        self.result_tools.contains(tool)
    }

    /// The bundle runtime.
    pub fn runtime(&self) -> &Arc<BundleRuntime> {
        &self.rt
    }

    /// How dialogue steps are decided.
    pub fn mode(&self) -> JudgeMode {
        self.mode
    }

    /// Whether a block means the call lacked a read the bundle requires.
    fn lacks_read(&self, reason: Reason, step: Option<&str>) -> bool {
        match reason {
            Reason::MissingRead | Reason::Ungrounded => true,
            Reason::MissingStep | Reason::OutOfOrder => {
                step.is_some_and(|s| self.read_steps.contains(s))
            }
            _ => false,
        }
    }
}

/// The tools whose result content the extractor reads, and those of them
/// read as JSON.
fn result_readers(rt: &BundleRuntime) -> (HashSet<String>, HashSet<String>) {
    let bundle = &rt.bundle;
    let mut result_tools = HashSet::new();
    let mut json_tools = HashSet::new();
    for (name, tool) in &bundle.domain.tools {
        let reads = tool.kind != ToolKind::Generic && !tool.reads.is_empty();
        let binds = bundle
            .program
            .steps
            .iter()
            .zip(&bundle.step_binds)
            .any(|(step, binds)| {
                step.timing == Timing::Result(tool.symbol)
                    && binds
                        .iter()
                        .any(|b| matches!(b.source, BindSource::Result(_)))
            });
        if reads || binds {
            result_tools.insert(name.clone());
        }
        if reads
            && tool
                .reads
                .iter()
                .any(|r| r.text.is_none() && r.needs_structure())
        {
            json_tools.insert(name.clone());
        }
    }
    (result_tools, json_tools)
}

/// Parses, in a trace whose results came unparsed, the results of the tools
/// the bundle reads; reports every successful result of a tool read as JSON
/// that is not a JSON object or array (parsed or not, the same check).
fn prepare_results(plan: &AuditPlan, events: &mut [Event], results: ResultContent) -> Vec<String> {
    let mut tools: HashMap<String, String> = HashMap::new();
    let mut anomalies = Vec::new();
    for (index, event) in events.iter_mut().enumerate() {
        match event {
            Event::Call { id, tool, .. } => {
                if plan.result_tools.contains(tool.as_str()) {
                    tools.insert(id.clone(), tool.clone());
                }
            }
            Event::Result { id, ok, content } => {
                let Some(tool) = tools.remove(id.as_str()) else {
                    continue;
                };
                if results == ResultContent::Raw
                    && let serde_json::Value::String(text) = content
                {
                    *content = parse_content(text);
                }
                if *ok
                    && plan.json_tools.contains(&tool)
                    && !(content.is_object() || content.is_array())
                {
                    anomalies.push(format!(
                        "event {index}: the result of {tool} is not JSON (the bundle reads it as JSON); nothing was read from it"
                    ));
                }
            }
            Event::User { .. } | Event::Agent { .. } | Event::Principal { .. } => {}
        }
    }
    anomalies
}

/// Where a trace came from, beside its own meta.
#[derive(Clone, Debug, Default)]
pub struct TraceSource {
    /// The file, as given.
    pub file: String,
    /// The agent model, when the file says.
    pub model: Option<String>,
}

/// Audits one trace: every event through a session under the `workflow`
/// schedule, then the report. The session is the gate itself, so the audit
/// decides exactly what the gate would have.
pub async fn audit_trace(
    plan: &AuditPlan,
    trace: Trace,
    source: &TraceSource,
    judge: &dyn Judge,
    options: TraceOptions,
) -> Result<TraceReport, SessionError> {
    let mut trace = trace;
    let content_anomalies = prepare_results(plan, &mut trace.events, options.results);
    let mut executed: HashMap<&str, bool> = HashMap::new();
    for event in &trace.events {
        if let Event::Result { id, ok, .. } = event {
            executed.entry(id.as_str()).or_insert(*ok);
        }
    }
    let call_ids: Vec<Option<String>> = trace
        .events
        .iter()
        .map(|e| match e {
            Event::Call { id, .. } => executed.get(id.as_str()).map(|_| id.clone()),
            _ => None,
        })
        .collect();
    let executed: HashMap<String, bool> = executed
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    let texts: Option<Vec<String>> = options.timeline.then(|| {
        trace
            .events
            .iter()
            .map(|e| clip(&event_text(e, options.results), TIMELINE_TEXT))
            .collect()
    });
    let meta = trace.meta;
    let events_total = trace.events.len();
    let mut session = Session::new(Arc::clone(&plan.rt), Schedule::Workflow);
    let mut acc = Accumulator {
        anomalies: content_anomalies,
        keep_timeline: options.timeline,
        ..Accumulator::default()
    };
    for (i, event) in trace.events.into_iter().enumerate() {
        let report = session.push(event, judge).await?;
        let ran = call_ids
            .get(i)
            .and_then(Option::as_ref)
            .and_then(|id| executed.get(id))
            .copied()
            .unwrap_or(false);
        acc.take(plan, report, ran);
    }
    let metrics_base = step_counts(&session, &acc);
    let reward_one = meta.reward.is_some_and(|r| (r - 1.0).abs() < 1e-9);
    let verdict = if !acc.blocked.is_empty() || !acc.deviated.is_empty() {
        TraceVerdict::Violation
    } else if !acc.unverified.is_empty() {
        TraceVerdict::Unverified
    } else {
        TraceVerdict::Compliant
    };
    let (steps_satisfied, steps_required) = metrics_base;
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
        events: events_total,
        verdict,
        first_deviation: first_of(&acc.blocked, &acc.deviated),
        blocked: acc.blocked,
        deviated: acc.deviated,
        unverified: acc.unverified,
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
    Ok(report)
}

/// The earlier of the first blocked call and the first deviation without a
/// write.
fn first_of(blocked: &[Deviation], deviated: &[Deviation]) -> Option<Deviation> {
    match (blocked.first(), deviated.first()) {
        (Some(b), Some(d)) if d.event < b.event => Some(d.clone()),
        (Some(b), _) => Some(b.clone()),
        (None, d) => d.cloned(),
    }
}

/// What the per-event reports add up to.
#[derive(Default)]
struct Accumulator {
    blocked: Vec<Deviation>,
    deviated: Vec<Deviation>,
    unverified: Vec<UnverifiedWrite>,
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

impl Accumulator {
    fn take(&mut self, plan: &AuditPlan, report: EventReport, ran: bool) {
        if plan.mode == JudgeMode::Assumed {
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
        if !report.mutating {
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
                remediation,
                ..
            } => {
                if ran && plan.lacks_read(reason, step.as_deref()) {
                    self.executed_without_read += 1;
                }
                *self.blocked_by_request.entry(request.clone()).or_default() += 1;
                self.blocked.push(Deviation {
                    event: report.event.0,
                    call: report.kind,
                    node: step,
                    reason: reason_name(reason).to_owned(),
                    request,
                    remediation,
                    executed: ran,
                });
            }
            GateVerdict::Allow { step, request } => {
                *self.allowed_by_request.entry(request.clone()).or_default() += 1;
                let before = plan.ancestors.get(&step);
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
        Event::User { text } | Event::Agent { text } => text.clone(),
        Event::Principal { id, .. } => format!("principal {id}"),
        Event::Call { args, .. } => args.to_string(),
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
