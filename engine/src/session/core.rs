//! The formal half of a session: the events taken, their facts
//! (extraction), the incremental monitor over them, and the verdicts made of
//! its state — allow or block (explained) for a checked write, guidance at
//! the open requests' cursors, a deviation for an instruction or claim out
//! of order — with their remediation rendered. Judge verdicts reach it as
//! facts at the events they take effect; what asks for them is
//! [`super::judging`].

use std::sync::Arc;

use turnstile_rules::{Condition, ConsentOutcome, Env, EventIdx, Reason, StepId, Violation};
use turnstile_rules::{EventFacts, EventOutcome, ExtractionDiagnostic, FactsBuilder, Monitor};

use super::approvals::Approvals;
use super::classify::{Classified, Context, describe};
use super::consent::Consents;
use super::deviation::Successes;
use super::granted::GrantedMonitors;
use super::judging::Judged;
use super::runtime::{BundleRuntime, RemedyPiece};
use super::verdict::{Bindings, EventReport, GateVerdict, Guidance, RequestStatus, RequestView};
use super::views::Stamp;
use super::{Explainer, Schedule, SessionError, SessionLimits, remedy};
use crate::bundle::model::Control;
use crate::clock::SessionClock;
use crate::decide::{Decision, explain, explain_violation, type_mismatch, type_mismatch_in};
use crate::extract::{Extracted, Extractor};
use crate::trace::Event;
use turnstile_rules::evaluate;

/// The events, their facts and the monitor over them.
#[derive(Clone, Debug)]
pub(super) struct Core {
    pub rt: Arc<BundleRuntime>,
    pub explainer: Explainer,
    pub limits: SessionLimits,
    pub schedule: Schedule,
    /// Bytes of the stored events (their JSON).
    stored_bytes: usize,
    pub extractor: Extractor,
    pub monitor: Monitor,
    pub events: Vec<Event>,
    /// The facts of every event the monitor decided.
    pub log: Vec<EventFacts>,
    /// The extraction type errors of `log`, apart: remediation and block
    /// explanations read them at each firing.
    type_errors: Vec<ExtractionDiagnostic>,
    /// Successful tool results so far, for the deviation checks.
    pub successes: Successes,
    /// Where `now()` comes from, and the time each event was decided with.
    pub clock: SessionClock,
    /// The last event was a user message (the boundary schedule fires next).
    pub after_user: bool,
    /// The last agent event was blocked (the boundary schedule checks the retry).
    pub after_block: bool,
    /// The calls held for confirmation and the host's answers.
    pub approvals: Approvals,
    /// The log as the consent-granted workflows read it, and their monitors.
    pub granted: GrantedMonitors,
}

impl Core {
    pub fn new(rt: Arc<BundleRuntime>, schedule: Schedule, limits: SessionLimits) -> Self {
        Core {
            explainer: Explainer::default(),
            limits,
            schedule,
            stored_bytes: 0,
            extractor: Extractor::with_principal_mask(&rt.bundle, rt.principal_mask),
            monitor: Monitor::new(Arc::clone(&rt.plan)),
            events: Vec::new(),
            log: Vec::new(),
            type_errors: Vec::new(),
            successes: Successes::default(),
            clock: SessionClock::new(rt.bundle.clock),
            after_user: false,
            after_block: false,
            approvals: Approvals::default(),
            granted: GrantedMonitors::default(),
            rt,
        }
    }

    /// The index the next event takes.
    pub fn next_index(&self) -> EventIdx {
        EventIdx::from_usize(self.events.len())
    }

    /// What classifies the next event.
    pub fn context(&self) -> Context<'_> {
        Context {
            rt: &self.rt,
            control: self.extractor.control(),
            schedule: self.schedule,
            after_user: self.after_user,
            after_block: self.after_block,
        }
    }

    /// Whether an event of `bytes` (as JSON) would exceed the limits.
    pub fn full(&self, bytes: usize) -> bool {
        self.events.len() >= self.limits.max_events
            || self.stored_bytes.saturating_add(bytes) > self.limits.max_bytes
    }

    /// The report on an event the full session does not take: a call is
    /// blocked, anything else only observed.
    pub fn refuse_when_full(&self, event: &Event) -> EventReport {
        let k = self.next_index();
        let verdict = match event {
            Event::Call { .. } => GateVerdict::Block {
                reason: Reason::SessionFull,
                step: None,
                request: Bindings::new(),
                remediation: Some("start a new session".to_owned()),
                explanation: format!(
                    "event {k}: the session holds {} events ({} bytes); its limits are {} events and {} bytes",
                    self.events.len(),
                    self.stored_bytes,
                    self.limits.max_events,
                    self.limits.max_bytes
                ),
            },
            _ => GateVerdict::Observe,
        };
        EventReport {
            event: k,
            kind: describe(event),
            mutating: matches!(event, Event::Call { .. }),
            fired: false,
            verdict,
            requests: Vec::new(),
            judge: Vec::new(),
            anomalies: Vec::new(),
        }
    }

    /// Extracts the facts of event `k`, the next, of `bytes` as JSON.
    pub fn extract(&mut self, k: EventIdx, event: &Event, bytes: usize) -> Extracted {
        self.stored_bytes = self.stored_bytes.saturating_add(bytes);
        let mut extracted = self.extractor.event(&self.rt.bundle, k, event);
        extracted.facts.now = self.clock.tick();
        extracted
    }

    /// Stores event `k` once extracted.
    pub fn keep(&mut self, k: EventIdx, event: Event) {
        self.successes.note(
            &self.rt.bundle,
            self.extractor.control(),
            k.as_usize(),
            &event,
        );
        self.events.push(event);
    }

    /// Logs the facts of the event the monitor just decided; returns the
    /// input anomalies at it.
    pub fn log_facts(&mut self, facts: EventFacts) -> Vec<String> {
        let anomalies = facts
            .diagnostics
            .iter()
            .filter(|d| d.kind.is_anomaly())
            .map(|d| d.detail.clone())
            .collect();
        self.type_errors.extend(
            facts
                .diagnostics
                .iter()
                .filter(|d| d.kind.is_type_error())
                .cloned(),
        );
        if let Some(result) = facts.result.as_ref().filter(|result| result.ok) {
            self.granted.ran(result.call);
        }
        self.log.push(facts);
        anomalies
    }

    /// A monitor fed every logged event with the verdicts of `judged`.
    pub fn replayed(&self, judged: &Judged) -> Result<Monitor, SessionError> {
        let mut monitor = Monitor::new(Arc::clone(&self.rt.plan));
        for facts in &self.log {
            let at: Vec<(StepId, Env)> = judged
                .get(&facts.event)
                .map(|s| s.iter().copied().collect())
                .unwrap_or_default();
            monitor.push(facts, &at)?;
        }
        Ok(monitor)
    }

    /// Sets who calls the user-side tools.
    pub fn set_control(&mut self, control: Control) {
        self.extractor.set_control(control);
        self.successes = Successes::of(&self.rt.bundle, control, &self.events);
    }

    /// Books the verdict on an event for the boundary schedule.
    pub fn note_decided(&mut self, class: &Classified, verdict: &GateVerdict) {
        if class.by_user {
            self.after_user = true;
        } else if class.by_agent {
            self.after_user = false;
            self.after_block = verdict.withholds();
        }
    }

    /// The verdict on the checked write `k` (the last event taken), from
    /// the monitor's `outcome`: allowed by the first request whose path
    /// authorizes it, else blocked and explained by the session's
    /// [`Explainer`] — from `explained` when deciding whether to ask the
    /// judge already explained it. `judged`: the accepted verdicts, for
    /// the Datalog explainer; `undecided`: the questions the judge could
    /// not decide; `consents`: a model judge's answers about consent.
    pub fn write_verdict(
        &mut self,
        k: EventIdx,
        allowed: &[(StepId, Env)],
        explained: Option<Violation>,
        judged: &Judged,
        undecided: &Judged,
        consents: &Consents,
    ) -> GateVerdict {
        let (verdict, read) = self.formal_write_verdict(k, allowed, explained, judged);
        self.consent_verdict(k, &verdict, read, judged, undecided, consents)
            .unwrap_or(verdict)
    }

    /// [`Core::write_verdict`] before consent is considered: allow or
    /// block, with how the user answered the consent its block failed on
    /// (`None`: no failed consent condition read an answer).
    fn formal_write_verdict(
        &self,
        k: EventIdx,
        allowed: &[(StepId, Env)],
        explained: Option<Violation>,
        judged: &Judged,
    ) -> (GateVerdict, Option<ConsentOutcome>) {
        if let Some((step, env)) = allowed.first() {
            let allow = GateVerdict::Allow {
                step: self.rt.step_name(*step).to_owned(),
                request: self.bindings(env),
                approved: None,
                consent_by_judge: None,
            };
            return (allow, None);
        }
        let explained = match self.explainer {
            Explainer::Monitor => explained
                .or_else(|| self.monitor.explain_block())
                .map(|v| (self.monitor_block(&v), consent_outcome(&v))),
            Explainer::Datalog => self.datalog_block(
                k,
                judged
                    .iter()
                    .flat_map(|(at, steps)| steps.iter().map(move |(s, e)| (*s, *e, *at)))
                    .collect(),
            ),
        };
        explained.unwrap_or_else(|| {
            let block = GateVerdict::Block {
                reason: Reason::MissingStep,
                step: None,
                request: Bindings::new(),
                remediation: None,
                explanation: format!("event {k}: no authorizing path"),
            };
            (block, None)
        })
    }

    /// The guidance of the open requests among `requests`.
    pub fn guidance(requests: &[Arc<RequestView>]) -> GateVerdict {
        GateVerdict::Guide {
            guidance: requests
                .iter()
                .filter(|r| r.status != RequestStatus::Done)
                .flat_map(|r| {
                    r.cursor.iter().map(|c| Guidance {
                        request: r.request.clone(),
                        step: c.step.clone(),
                        remediation: c.remediation.clone(),
                    })
                })
                .collect(),
        }
    }

    /// Whether the monitor would block the write it just took.
    pub fn would_block(outcome: &EventOutcome) -> bool {
        outcome.allowed() == Some(false)
    }

    /// The block `violation` explained from the monitor's state: no Datalog
    /// run, a cost independent of the conversation's length.
    fn monitor_block(&self, violation: &Violation) -> GateVerdict {
        let explanation = explain_violation(
            &self.rt.bundle,
            &self.rt.plan.encoded,
            &self.extractor.interner,
            violation,
        );
        let mismatch = type_mismatch_in(&self.type_errors, violation, &explanation);
        self.block_verdict(violation, explanation, mismatch)
    }

    /// The block explained by the reference Datalog program over the facts
    /// so far.
    fn datalog_block(
        &self,
        k: EventIdx,
        judged: Vec<(StepId, Env, EventIdx)>,
    ) -> Option<(GateVerdict, Option<ConsentOutcome>)> {
        // Built here from the logged facts: the live path never pays for it.
        let mut builder = FactsBuilder::new(self.rt.bundle.arg_paths.clone());
        for facts in &self.log {
            builder.push(facts);
        }
        let mut facts = builder.snapshot(&self.extractor.interner, k.next().0);
        facts.judged = judged;
        let derived = evaluate(&self.rt.bundle.program, &facts).ok()?;
        let decision = Decision { facts, derived };
        let violation = decision.derived.violations.iter().find(|v| v.event == k)?;
        let explanation = explain(&self.rt.bundle, &decision, violation);
        let mismatch = type_mismatch(&decision.facts, violation, &explanation);
        Some((
            self.block_verdict(violation, explanation, mismatch),
            consent_outcome(violation),
        ))
    }

    fn block_verdict(
        &self,
        violation: &Violation,
        explanation: String,
        mismatch: Option<String>,
    ) -> GateVerdict {
        let remediation = violation
            .unmet
            .and_then(|s| self.remediation(s, &violation.request));
        GateVerdict::Block {
            reason: if mismatch.is_some() {
                Reason::TypeMismatch
            } else {
                violation.reason
            },
            step: violation.unmet.map(|s| self.rt.step_name(s).to_owned()),
            request: self.bindings(&violation.request),
            remediation,
            explanation: match mismatch {
                Some(mismatch) => format!("{mismatch}\n{explanation}"),
                None => explanation,
            },
        }
    }

    /// The remediation of `step` for the request `env`, its placeholders
    /// filled from the monitor's state.
    pub fn remediation(&self, step: StepId, env: &Env) -> Option<String> {
        let pieces = self.rt.step(step)?.remediation.as_ref()?;
        Some(self.render_remedy(pieces, env))
    }

    /// A remediation template's `pieces` for the request `env`, its
    /// placeholders filled from the monitor's state.
    pub fn render_remedy(&self, pieces: &[RemedyPiece], env: &Env) -> String {
        remedy::render(
            pieces,
            &self.monitor,
            env,
            &self.extractor.interner,
            &self.type_errors,
        )
    }

    /// A request's bindings by variable name.
    pub fn bindings(&self, env: &Env) -> Bindings {
        env.bound()
            .filter_map(|(var, value)| {
                let v = self.rt.bundle.variables.get(var.0 as usize)?;
                Some((
                    v.name.clone(),
                    self.extractor.interner.resolve(value).to_owned(),
                ))
            })
            .collect()
    }

    /// What a rendering of the request views reads besides the request.
    pub fn view_stamp(&self) -> Stamp {
        Stamp {
            reads: self.monitor.read_stamp(),
            type_errors: self.type_errors.len(),
        }
    }
}

/// How the user answered the consent a blocked write failed on: the
/// strongest answer read by its failed consent conditions (a refusal over
/// a withdrawal over a qualified reply over none), `None` when no failed
/// consent condition read one (a consent step).
pub(super) fn consent_outcome(violation: &Violation) -> Option<ConsentOutcome> {
    let rank = |outcome: ConsentOutcome| match outcome {
        ConsentOutcome::Refused => 4,
        ConsentOutcome::Withdrawn => 3,
        ConsentOutcome::Qualified => 2,
        ConsentOutcome::Absent => 1,
        ConsentOutcome::Affirmative => 0,
    };
    violation
        .failed
        .iter()
        .filter(|failed| failed.condition == Condition::Consent)
        .filter_map(|failed| failed.consent.map(|c| c.outcome))
        .max_by_key(|outcome| rank(*outcome))
}
