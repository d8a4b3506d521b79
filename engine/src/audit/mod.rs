//! Batch auditing of recorded conversations: one trace through a session
//! under the complete `workflow` schedule, summed up as a [`TraceReport`]
//! (verdict, first deviation, blocked writes, per-request outcome and the
//! PolicyGuide paper's trace metrics); [`Summary`] adds reports up per file,
//! agent model and domain; [`run`] streams many files through an
//! [`Auditor`] in parallel, delivering the reports in input order;
//! [`Synth`] makes large corpora from real traces.
//!
//! An [`Auditor`] is the bundle's [`AuditPlan`] and the judge, chosen by
//! type ([`AuditJudge`]): nothing (`--judge none`, [`AssumingJudge`]), a
//! judge that answers at once (offline, recorded, a cache or recording over
//! either), decided on the synchronous session, or a model, awaited on the
//! caller's runtime ([`AsyncRuntime`]: the engine builds none). Every trace
//! goes through [`audit_trace`] (or [`audit_trace_async`]): it is the one
//! place a faster per-trace path plugs in.
//!
//! **The fast path.** A reader asked for [`ResultContent::Raw`] hands tool
//! results over unparsed; [`audit_trace`] (told so by
//! [`TraceOptions::results`]) parses only the results of the tools the
//! bundle reads ([`AuditPlan::reads_result`]: a read spec or a binding from
//! the result) — every other result stays its recorded text. Nothing the
//! verdicts depend on changes (tested against the parsed path on every
//! tau2 trace); what does change is the text of a tool turn in a judge's
//! conversation slice, so an [`Auditor`] takes the fast path only with a
//! judge that does not read tool turns
//! ([`SyncJudge::reads_tool_turns`]: `--judge none`, the offline judge).
//! Either way a successful result of a tool the bundle reads as JSON that
//! is not a JSON object or array is reported as an anomaly of the trace.

mod plan;
mod run;
mod summary;
mod synth;
mod trace;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use turnstile_judge::SyncJudge;
use turnstile_judge::{Judge, JudgeRequest, Judgement, OfflineJudge, Question, Usage, Verdict};
use turnstile_rules::Reason;

pub use plan::AuditPlan;
pub use run::{Counters, Item, RunOptions, STDIN, TraceWork, expand, run};
pub use summary::{Group, NodeReason, POSITION_BUCKETS, RatedGroup, Rejection, Summary};
pub use synth::Synth;
pub use trace::{TraceOptions, TraceSource, audit_trace, audit_trace_async};

use crate::import::ResultContent;
use crate::session::{Bindings, BundleRuntime, SessionError};
use crate::trace::Trace;

/// Who decides an audit's dialogue-semantic steps: the typed choice of
/// `turnstile audit --judge`.
#[derive(Clone)]
pub enum AuditJudge {
    /// `--judge none`: nothing is judged ([`AssumingJudge`]).
    Assume,
    /// A judge that answers at once on the worker thread: the offline
    /// judge or recorded verdicts, alone or behind a verdict cache or a
    /// recording.
    Immediate(Arc<dyn SyncJudge>),
    /// A model judge, awaited on `runtime`.
    Model {
        /// The judge (and its cache or recording).
        judge: Arc<dyn Judge>,
        /// The caller's runtime, which runs each trace's audit.
        runtime: Arc<dyn AsyncRuntime>,
    },
}

impl AuditJudge {
    /// How the audit decides dialogue steps with this judge.
    pub fn mode(&self) -> JudgeMode {
        match self {
            AuditJudge::Assume => JudgeMode::Assumed,
            AuditJudge::Immediate(_) | AuditJudge::Model { .. } => JudgeMode::Judged,
        }
    }

    /// Whether the judge may read the text of tool turns: then every tool
    /// result is parsed, so its questions (and its cache keys) are those
    /// `replay` asks; otherwise only the results the bundle reads are.
    pub fn reads_tool_turns(&self) -> bool {
        match self {
            AuditJudge::Assume => AssumingJudge.reads_tool_turns(),
            AuditJudge::Immediate(judge) => judge.reads_tool_turns(),
            AuditJudge::Model { .. } => true,
        }
    }
}

/// Runs a model judge's audit of one trace to completion: the caller's
/// async runtime (the engine builds none).
pub trait AsyncRuntime: Send + Sync {
    /// Runs `audit` on the calling thread (one of the audit's workers).
    fn block_on<'a>(
        &self,
        audit: Pin<Box<dyn Future<Output = Result<TraceReport, AuditError>> + 'a>>,
    ) -> Result<TraceReport, AuditError>;
}

/// Why a trace could not be audited.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The session refused an event.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The model judge's runtime could not run the audit.
    #[error("{0}")]
    Runtime(String),
}

/// What auditing a corpus with one bundle shares: the bundle's plan, the
/// judge and what each per-trace audit is asked for.
pub struct Auditor {
    plan: AuditPlan,
    judge: AuditJudge,
    options: TraceOptions,
}

impl Auditor {
    /// Audits with `rt`'s bundle and `judge`, keeping the timeline of
    /// flagged traces when `timeline`. Tool results come unparsed
    /// ([`ResultContent::Raw`]) unless the judge reads tool turns.
    pub fn new(rt: Arc<BundleRuntime>, judge: AuditJudge, timeline: bool) -> Self {
        let results = if judge.reads_tool_turns() {
            ResultContent::Parsed
        } else {
            ResultContent::Raw
        };
        Auditor {
            plan: AuditPlan::new(rt, judge.mode()),
            judge,
            options: TraceOptions { timeline, results },
        }
    }

    /// The same audit with the events of a trace that records no time
    /// decided at `now` (`--now`; see [`AuditPlan::with_now`]).
    pub fn with_now(mut self, now: Option<turnstile_rules::DateTime>) -> Self {
        self.plan = self.plan.with_now(now);
        self
    }

    /// The same audit with tool results delivered as `results`, whatever
    /// the judge reads (to compare the fast path with the full one).
    pub fn with_results(mut self, results: ResultContent) -> Self {
        self.options.results = results;
        self
    }

    /// How the readers must deliver tool results.
    pub fn results(&self) -> ResultContent {
        self.options.results
    }

    /// The bundle's plan.
    pub fn plan(&self) -> &AuditPlan {
        &self.plan
    }

    /// Audits one trace.
    pub fn audit(&self, trace: Trace, source: &TraceSource) -> Result<TraceReport, AuditError> {
        let options = self.options;
        match &self.judge {
            AuditJudge::Assume => Ok(audit_trace(
                &self.plan,
                trace,
                source,
                &AssumingJudge,
                options,
            )?),
            AuditJudge::Immediate(judge) => Ok(audit_trace(
                &self.plan,
                trace,
                source,
                judge.as_ref(),
                options,
            )?),
            AuditJudge::Model { judge, runtime } => runtime.block_on(Box::pin(async move {
                Ok(audit_trace_async(&self.plan, trace, source, judge.as_ref(), options).await?)
            })),
        }
    }
}

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

impl SyncJudge for AssumingJudge {
    fn name(&self) -> &str {
        ASSUMING_JUDGE_NAME
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests.iter().map(assume).collect()
    }

    fn reads_tool_turns(&self) -> bool {
        false
    }
}

/// The answer of [`AssumingJudge`] to `request`.
fn assume(request: &JudgeRequest) -> Judgement {
    match &request.question {
        Question::Classify { .. } | Question::Consent { .. } => OfflineJudge.decide(request),
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
    /// No violation, but a write ran after a reply the reader could not
    /// decide as the user's yes (the gate would have asked to confirm).
    NeedsReview,
}

impl TraceVerdict {
    /// The verdict's name as reported.
    pub fn name(self) -> &'static str {
        match self {
            TraceVerdict::Compliant => "compliant",
            TraceVerdict::Violation => "violation",
            TraceVerdict::Unverified => "unverified",
            TraceVerdict::NeedsReview => "needs_review",
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
        Reason::OutOfWindow => "out_of_window",
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
        Reason::NotIdentified => "not_identified",
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

/// A write a model judge allowed: the offline reader could not decide the
/// user's consent, the judge read it in a user turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedConsentWrite {
    /// The call's event index.
    pub event: u32,
    /// The call.
    pub call: String,
    /// The authorizing step.
    pub node: String,
    /// The bindings of the request it was allowed for.
    pub request: Bindings,
    /// The user turn the judge read the consent in.
    pub evidence: u32,
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<Deviation>,
    /// Every deviation without a write (the `deviate` verdict: an
    /// instruction or claim out of order; a protected read refused), in
    /// order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deviated: Vec<Deviation>,
    /// Every write that lacked only the user's consent and met no answer
    /// at all (the agent never asked, or never got a reply): a violation
    /// (reason `unconsented`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unconsented: Vec<Deviation>,
    /// Every write that lacked only the user's consent after a reply the
    /// reader could not decide (reason `needs_review`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs_review: Vec<Deviation>,
    /// Writes allowed only by assumed dialogue steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<UnverifiedWrite>,
    /// Writes allowed on a consent a model judge read where the offline
    /// reader could not decide it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consent_by_judge: Vec<JudgedConsentWrite>,
    /// Where each request ended.
    pub requests: Vec<RequestOutcome>,
    /// The trace metrics.
    pub metrics: TraceMetrics,
    /// What judging cost.
    pub judge: JudgeCost,
    /// Malformed input met inside the trace (orphan results, reused ids...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
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
