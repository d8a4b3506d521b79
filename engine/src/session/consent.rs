//! Consent at a blocked write: whether the write fails on the user's
//! consent alone — the workflow with that consent granted
//! (`ConsentSpec::granted`) allows it, in the session's own evaluator —,
//! what the host's approvals, the conversation ([`consent_read`]) and a
//! model judge's answer say about that consent, the consent question a
//! model judge is asked when the reader cannot decide it ([`ConsentAsk`]),
//! and the confirmation request a `confirm` verdict carries.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use turnstile_judge::dialogue::{Stance, readable_text, reply_stance};
use turnstile_judge::{Conversation, JudgeRequest, Judgement, Question, Verdict, consent_node_id};
use turnstile_rules::{
    ConsentOutcome, Env, EventIdx, FactsBuilder, Monitor, Reason, Reply, Speaker, StepId, Symbol,
    evaluate,
};

use super::Explainer;
use super::approvals::Standing;
use super::core::{Core, consent_outcome};
use super::judging::Judged;
use super::runtime::Asked;
use super::state::{ConsentAnswer, JudgedConsent};
use super::turns;
use super::verdict::{
    Approved, Bindings, Confirmation, ConsentByJudge, ConsentState, Detail, GateVerdict, JudgeNote,
    Undecided,
};
use crate::schema::ConfirmPiece;
use crate::trace::Event;

/// The model judge's consent answers, by what identifies the question:
/// the call, the first event of its slice and one past the user's last turn
/// in it ([`ConsentAnswer`]).
pub(super) type Consents = BTreeMap<ConsentKey, JudgedConsent>;

/// How many sets of undecided classifications [`Core::undecided_verdict`]
/// tries one by one before it assumes them all together.
const MAX_ASSUMPTION_CHOICES: usize = 64;

/// What identifies a consent question: asking it again before the user says
/// something new, or before the agent asks for the decision again, cannot
/// change its answer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct ConsentKey {
    /// The call: its tool and arguments in canonical form.
    pub call: String,
    /// The agent's latest request for a decision, or the conversation's start.
    pub from: EventIdx,
    /// One past the user's last turn since `from` (`from` when none).
    pub slice_end: EventIdx,
}

impl ConsentKey {
    /// The key of a saved answer.
    pub fn of(answer: &ConsentAnswer) -> Self {
        ConsentKey {
            call: answer.call.clone(),
            from: answer.from,
            slice_end: answer.slice_end,
        }
    }

    /// The saved form of `answer` to this question.
    pub fn answered(self, answer: JudgedConsent) -> ConsentAnswer {
        ConsentAnswer {
            call: self.call,
            from: self.from,
            slice_end: self.slice_end,
            answer,
        }
    }
}

/// The consent question about one write, ready for a model judge.
#[derive(Clone, Debug)]
pub(super) struct ConsentAsk {
    /// What identifies it.
    pub key: ConsentKey,
    /// The event before which it is asked (the write).
    pub at: EventIdx,
    /// What the judge is shown.
    pub request: JudgeRequest,
}

impl ConsentAsk {
    /// What the judge's `judgement` says of the consent: only a yes whose
    /// evidence is a user message of the slice is an agreement; a no is
    /// [`JudgedConsent::NotGiven`]; anything else, or a yes citing another
    /// turn, is [`JudgedConsent::Unknown`]. With the report's note.
    pub fn read(&self, judgement: &Judgement, events: &[Event]) -> (JudgedConsent, JudgeNote) {
        let (answer, rejected) = match &judgement.verdict {
            Verdict::Satisfied { evidence_event } => {
                let evidence = EventIdx(*evidence_event);
                let said_by_user =
                    matches!(events.get(evidence.as_usize()), Some(Event::User { .. }));
                if evidence >= self.key.from && evidence < self.key.slice_end && said_by_user {
                    (JudgedConsent::Agreed { evidence }, None)
                } else {
                    (
                        JudgedConsent::Unknown,
                        Some(format!(
                            "evidence event {evidence} is not a user message since the agent's request for the decision"
                        )),
                    )
                }
            }
            Verdict::NotSatisfied => (JudgedConsent::NotGiven, None),
            Verdict::Chosen { .. } => (
                JudgedConsent::Unknown,
                Some("a label for a yes/no question".to_owned()),
            ),
            Verdict::Unknown { .. } => (JudgedConsent::Unknown, None),
        };
        let note = JudgeNote {
            at: self.at,
            node: self.request.node_id.clone(),
            rationale: judgement.rationale.clone(),
            rejected,
            request: self.request.bindings.clone(),
            verdict: judgement.verdict.clone(),
        };
        (answer, note)
    }
}

/// A blocked write's verdict taken apart, with its tool's symbol.
struct Blocked<'a> {
    symbol: Symbol,
    reason: Reason,
    step: &'a Option<String>,
    request: &'a Bindings,
    remediation: &'a Option<String>,
    explanation: &'a str,
}

impl Blocked<'_> {
    /// The `confirm` standing for this block.
    fn confirm(
        &self,
        confirmation: Confirmation,
        consent: ConsentState,
        explanation: String,
        undecided: Vec<Undecided>,
    ) -> GateVerdict {
        GateVerdict::Confirm {
            step: self.step.clone(),
            request: self.request.clone(),
            confirmation: Box::new(confirmation),
            consent,
            explanation,
            undecided,
        }
    }
}

impl Core {
    /// What stands instead of `block` on the checked write `k` (the last
    /// event taken) when the write fails on consent alone: an allow when
    /// the host approved an identical call (and it is not used yet), else
    /// `confirm` unless the host declined an identical call or the
    /// conversation settles that the user refused. `None`: the block stands.
    /// A model judge's answer about this consent (`consents`) decides what
    /// the conversation leaves open: its yes allows, its no blocks, any
    /// other answer is `confirm`.
    ///
    /// When the write fails on more than consent, [`Core::undecided_verdict`]
    /// decides whether it waits only on questions the judge could not
    /// decide (`undecided`) besides consent.
    pub fn consent_verdict(
        &mut self,
        k: EventIdx,
        block: &GateVerdict,
        read: Option<ConsentOutcome>,
        judged: &Judged,
        undecided: &Judged,
        consents: &Consents,
    ) -> Option<GateVerdict> {
        let GateVerdict::Block {
            reason,
            step,
            request,
            remediation,
            explanation,
        } = block
        else {
            return None;
        };
        let Some(Event::Call { tool, .. }) = self.events.get(k.as_usize()) else {
            return None;
        };
        let blocked = Blocked {
            symbol: self.rt.bundle.domain.tool(tool)?.symbol,
            reason: *reason,
            step,
            request,
            remediation,
            explanation,
        };
        let decided = self.decided_consent_verdict(k, &blocked, read, judged, consents);
        if decided.is_some() || undecided.is_empty() {
            return decided;
        }
        self.undecided_verdict(k, &blocked, read, judged, undecided, consents)
    }

    /// [`Core::consent_verdict`] over the questions the judge answered.
    fn decided_consent_verdict(
        &mut self,
        k: EventIdx,
        blocked: &Blocked<'_>,
        read: Option<ConsentOutcome>,
        judged: &Judged,
        consents: &Consents,
    ) -> Option<GateVerdict> {
        let (authorized, env) = self.granted_allowed(k, blocked.symbol, judged)?;
        if let Some(answered) = self.host_answer(k, authorized, &env) {
            return answered;
        }
        let mut consent = self.consent_state(read);
        if consent == ConsentState::Refused {
            return None;
        }
        let confirmation = self.call_confirmation(k)?;
        // Only a session a model judge answered has anything to look up.
        if !consents.is_empty() {
            match consents.get(&self.consent_key(&confirmation, k)) {
                Some(JudgedConsent::Agreed { evidence }) => {
                    return Some(GateVerdict::Allow {
                        step: self.rt.step_name(authorized).to_owned(),
                        request: self.bindings(&env),
                        approved: None,
                        consent_by_judge: Some(ConsentByJudge {
                            evidence: *evidence,
                        }),
                    });
                }
                Some(JudgedConsent::NotGiven) => {
                    return Some(GateVerdict::Block {
                        reason: blocked.reason,
                        step: blocked.step.clone(),
                        request: blocked.request.clone(),
                        remediation: blocked.remediation.clone(),
                        explanation: format!(
                            "the judge found no consent to {}\n{}",
                            confirmation.text, blocked.explanation
                        ),
                    });
                }
                Some(JudgedConsent::Unknown) => consent = ConsentState::Unknown,
                None => {}
            }
        }
        Some(blocked.confirm(
            confirmation,
            consent,
            blocked.explanation.to_owned(),
            Vec::new(),
        ))
    }

    /// What stands instead of `block` on the checked write `k` when it
    /// fails on questions only meaning decides that the judge could answer
    /// neither yes nor no (`undecided`: a request the offline reader cannot
    /// place, a model that failed), and at most the user's consent besides:
    /// `confirm`, carrying those questions for the person who approves the
    /// call, with the consent [`ConsentState::Given`] when the write needs
    /// no more than them. Never for a formal failure (the workflow is
    /// evaluated with only those answers and the consent assumed), a
    /// refused consent, a host's decline or a model judge's no to this
    /// call's consent; the host's approval of an identical call allows it.
    fn undecided_verdict(
        &mut self,
        k: EventIdx,
        blocked: &Blocked<'_>,
        read: Option<ConsentOutcome>,
        judged: &Judged,
        undecided: &Judged,
        consents: &Consents,
    ) -> Option<GateVerdict> {
        let open = self.open_questions(blocked.symbol, judged, undecided);
        if open.is_empty() {
            return None;
        }
        let choices = self.assumption_choices(&open);
        let assuming = |steps: &BTreeSet<StepId>| -> Judged {
            let mut assumed = judged.clone();
            for (at, keys) in undecided {
                assumed.entry(*at).or_default().extend(
                    keys.iter()
                        .filter(|(step, _)| steps.contains(step))
                        .copied(),
                );
            }
            assumed
        };
        let tried: Vec<_> = choices
            .iter()
            .map(|steps| {
                let assumed = assuming(steps);
                let outcome = self.allowed_assuming(k, &assumed);
                (steps, assumed, outcome)
            })
            .collect();
        let allowed = tried.iter().find_map(|(steps, _, outcome)| {
            let (authorized, env) = outcome.as_ref().ok()?;
            Some((*steps, *authorized, *env, None))
        });
        // Else the first choice under which the write is authorized once
        // its consent is granted, with the consent as the user gave it.
        let found = allowed.or_else(|| {
            tried.iter().find_map(|(steps, assumed, outcome)| {
                let answered = *outcome.as_ref().err()?;
                let (authorized, env) = self.granted_allowed(k, blocked.symbol, assumed)?;
                Some((*steps, authorized, env, Some(answered.or(read))))
            })
        });
        let (steps, authorized, env, answered) = found?;
        let open: Vec<(StepId, Undecided)> = open
            .into_iter()
            .filter(|(step, _)| steps.contains(step))
            .collect();
        // A consent step among the undecided questions leaves the consent
        // itself unknown, not given.
        let consent_undecided = open
            .iter()
            .any(|(step, _)| self.rt.bundle.program.consent.is_step(*step));
        let consent = match answered {
            None if consent_undecided => ConsentState::Unknown,
            None => ConsentState::Given,
            Some(answered) => {
                let consent = self.consent_state(answered);
                if consent == ConsentState::Refused {
                    return None;
                }
                consent
            }
        };
        if let Some(answered) = self.host_answer(k, authorized, &env) {
            return answered;
        }
        let confirmation = self.call_confirmation(k)?;
        // A model judge's answer about this consent: its no blocks, a yes
        // leaves the undecided questions standing, any other answer leaves
        // the consent unknown.
        let mut consent = consent;
        if consent != ConsentState::Given && !consents.is_empty() {
            match consents.get(&self.consent_key(&confirmation, k)) {
                Some(JudgedConsent::NotGiven) => return None,
                Some(JudgedConsent::Unknown) => consent = ConsentState::Unknown,
                Some(JudgedConsent::Agreed { .. }) | None => {}
            }
        }
        let open: Vec<Undecided> = open.into_iter().map(|(_, question)| question).collect();
        let asked: Vec<String> = open
            .iter()
            .map(|question| format!("{} ({})", question.question, question.step))
            .collect();
        let explanation = format!(
            "the judge could not decide: {}\n{}",
            asked.join("; "),
            blocked.explanation
        );
        Some(blocked.confirm(confirmation, consent, explanation, open))
    }

    /// What the host's answers settle for the call at `k`, authorized at
    /// `authorized` for `env` once its consent is granted: `Some(allow)` on
    /// an unused approval of an identical call, `Some(None)` (the block
    /// stands) after a decline, `None` when the host has not answered.
    fn host_answer(
        &self,
        k: EventIdx,
        authorized: StepId,
        env: &Env,
    ) -> Option<Option<GateVerdict>> {
        let Some(Event::Call { tool, args, .. }) = self.events.get(k.as_usize()) else {
            return Some(None);
        };
        match self.approvals.standing(tool, args) {
            Standing::Approved(call, by) => Some(Some(GateVerdict::Allow {
                step: self.rt.step_name(authorized).to_owned(),
                request: self.bindings(env),
                approved: Some(Approved { by, call }),
                consent_by_judge: None,
            })),
            Standing::Declined(_) => Some(None),
            Standing::Open => None,
        }
    }

    /// The consent as the reader's outcome `read` gives it, or as
    /// [`consent_read`] reads the conversation when no failed condition
    /// read one.
    fn consent_state(&self, read: Option<ConsentOutcome>) -> ConsentState {
        match read {
            Some(ConsentOutcome::Refused | ConsentOutcome::Withdrawn) => ConsentState::Refused,
            Some(ConsentOutcome::Qualified | ConsentOutcome::Affirmative) => {
                ConsentState::Qualified
            }
            Some(ConsentOutcome::Absent) => ConsentState::Absent,
            None => consent_read(self),
        }
    }

    /// The confirmation request of the call at `k`.
    fn call_confirmation(&self, k: EventIdx) -> Option<Confirmation> {
        let Some(Event::Call { id, tool, args, .. }) = self.events.get(k.as_usize()) else {
            return None;
        };
        Some(self.confirmation(id, tool, args))
    }

    /// The questions on the way to `tool` the judge left undecided and
    /// did not answer since, for the requests they were asked about: each
    /// step once, in step order.
    fn open_questions(
        &self,
        tool: Symbol,
        judged: &Judged,
        undecided: &Judged,
    ) -> Vec<(StepId, Undecided)> {
        let Some(on_path) = self.rt.on_path.get(&tool) else {
            return Vec::new();
        };
        let answered: BTreeSet<(StepId, Env)> = judged.values().flatten().copied().collect();
        let steps: BTreeSet<StepId> = undecided
            .values()
            .flatten()
            .filter(|key| on_path.contains(&key.0) && !answered.contains(key))
            .map(|(step, _)| *step)
            .collect();
        steps
            .into_iter()
            .filter_map(|step| {
                let question = match self.rt.step(step)?.asked.as_ref()? {
                    Asked::Criterion { text, .. } => text.clone(),
                    Asked::Branch { description, .. } => description.clone(),
                };
                let name = self.rt.step_name(step).to_owned();
                Some((
                    step,
                    Undecided {
                        question,
                        step: name,
                    },
                ))
            })
            .collect()
    }

    /// The sets of undecided steps among `open` to assume together: every
    /// consent step, and of each classification one branch at a time (a
    /// classifier places the request in one branch, so assuming all its
    /// undecided branches at once describes no conversation). In step
    /// order; at most [`MAX_ASSUMPTION_CHOICES`] sets, then one with every
    /// step.
    fn assumption_choices(&self, open: &[(StepId, Undecided)]) -> Vec<BTreeSet<StepId>> {
        let mut always = BTreeSet::new();
        let mut branches: BTreeMap<_, Vec<StepId>> = BTreeMap::new();
        for (step, _) in open {
            match self.rt.step(*step).and_then(|info| info.asked.as_ref()) {
                Some(Asked::Branch { decision, .. })
                    if !self.rt.bundle.program.consent.is_step(*step) =>
                {
                    branches.entry(decision.index()).or_default().push(*step);
                }
                _ => {
                    always.insert(*step);
                }
            }
        }
        let mut choices = vec![always];
        for options in branches.values() {
            if choices.len() * options.len() > MAX_ASSUMPTION_CHOICES {
                return vec![open.iter().map(|(step, _)| *step).collect()];
            }
            choices = choices
                .iter()
                .flat_map(|chosen| {
                    options.iter().map(move |option| {
                        let mut next = chosen.clone();
                        next.insert(*option);
                        next
                    })
                })
                .collect();
        }
        choices
    }

    /// The step and request that authorize the checked write `k` (the
    /// last event taken) in the bundle's own workflow when the verdicts
    /// `assumed` stand, in the session's explainer; on a block, how the
    /// user answered the consent it failed on (`None`: no failed consent
    /// condition read an answer, or the workflow could not be evaluated).
    fn allowed_assuming(
        &self,
        k: EventIdx,
        assumed: &Judged,
    ) -> Result<(StepId, Env), Option<ConsentOutcome>> {
        match self.explainer {
            Explainer::Monitor => {
                let (last, before) = self.log.split_last().ok_or(None)?;
                let at = |event: EventIdx| -> Vec<(StepId, Env)> {
                    assumed
                        .get(&event)
                        .map(|steps| steps.iter().copied().collect())
                        .unwrap_or_default()
                };
                let mut monitor = Monitor::new(Arc::clone(&self.rt.plan));
                for facts in before {
                    monitor.push(facts, &at(facts.event)).map_err(|_| None)?;
                }
                let outcome = monitor.push(last, &at(last.event)).map_err(|_| None)?;
                match outcome.gated.as_deref().and_then(<[_]>::first) {
                    Some(allowed) => Ok(*allowed),
                    None => Err(monitor
                        .explain_block()
                        .and_then(|violation| consent_outcome(&violation))),
                }
            }
            Explainer::Datalog => {
                let mut builder = FactsBuilder::new(self.rt.bundle.arg_paths.clone());
                for facts in &self.log {
                    builder.push(facts);
                }
                let mut facts = builder.snapshot(&self.extractor.interner, k.next().0);
                facts.judged = assumed
                    .iter()
                    .flat_map(|(at, steps)| steps.iter().map(move |(s, e)| (*s, *e, *at)))
                    .collect();
                let derived = evaluate(&self.rt.bundle.program, &facts).map_err(|_| None)?;
                if let Some(allowed) = derived.allowed.get(&k).and_then(|a| a.first()) {
                    return Ok(*allowed);
                }
                Err(derived
                    .violations
                    .iter()
                    .find(|v| v.event == k)
                    .and_then(consent_outcome))
            }
        }
    }

    /// The consent question about write `k` answered `verdict`, when the
    /// verdict is a `confirm` the reader could not decide (the user
    /// replied undecidably, or never answered): never for a refusal, a
    /// formal failure or a consent the judge already answered on this
    /// slice.
    pub fn consent_question(&self, k: EventIdx, verdict: &GateVerdict) -> Option<ConsentAsk> {
        let GateVerdict::Confirm {
            step,
            request,
            confirmation,
            consent: ConsentState::Qualified | ConsentState::Absent,
            ..
        } = verdict
        else {
            return None;
        };
        let key = self.consent_key(confirmation, k);
        let turns: Vec<_> = (key.from.as_usize()..k.as_usize())
            .filter_map(|i| {
                let event = self.events.get(i)?;
                Some(turns::render(EventIdx::from_usize(i), event))
            })
            .collect();
        let node = consent_node_id(step.as_deref().unwrap_or(&confirmation.tool));
        Some(ConsentAsk {
            key,
            at: k,
            request: JudgeRequest {
                bundle_hash: self.rt.bundle.hash.clone(),
                node_id: node,
                question: Question::Consent {
                    tool: confirmation.tool.clone(),
                    call: confirmation.text.clone(),
                },
                policy_excerpt: None,
                bindings: request.clone(),
                conversation: Conversation::from(turns),
            },
        })
    }

    /// What identifies the consent question about the call `confirmation`
    /// names, asked before event `k`: the call, the agent's latest request
    /// for a decision (the conversation's start when it never asked) and
    /// one past the user's last message since.
    fn consent_key(&self, confirmation: &Confirmation, k: EventIdx) -> ConsentKey {
        let mut from = EventIdx(0);
        let mut slice_end = None;
        for facts in self.log.iter().take(k.as_usize()).rev() {
            let Some(turn) = facts.turn else { continue };
            match turn.speaker {
                Speaker::Agent if turn.asks_decision => {
                    from = turn.event;
                    break;
                }
                Speaker::User if slice_end.is_none() => slice_end = Some(turn.event.next()),
                Speaker::User | Speaker::Agent | Speaker::Ticket => {}
            }
        }
        let call = std::iter::once(confirmation.tool.as_str())
            .chain(
                confirmation
                    .details
                    .iter()
                    .flat_map(|d| [d.name.as_str(), d.value.as_str()]),
            )
            .map(|part| serde_json::Value::from(part).to_string())
            .collect::<Vec<_>>()
            .join(" ");
        ConsentKey {
            call,
            from,
            slice_end: slice_end.unwrap_or(from),
        }
    }

    /// The first authorization of write `k` in the workflow with consent
    /// granted, in the session's own evaluator.
    fn granted_allowed(
        &mut self,
        k: EventIdx,
        tool: Symbol,
        judged: &Judged,
    ) -> Option<(StepId, Env)> {
        let granted = self.rt.granted.get(&tool)?;
        match self.explainer {
            // A write the monitor refuses on facts no consent reads (the
            // last event it took) needs no replay to know it.
            Explainer::Monitor
                if self.monitor.events() == k.next().0 && self.monitor.refused_by_facts(tool) =>
            {
                None
            }
            Explainer::Monitor => self
                .granted
                .gated_last(tool, &granted.plan, &self.log, judged)?
                .first()
                .copied(),
            Explainer::Datalog => {
                let withheld = self.granted.withheld();
                let mut builder = FactsBuilder::new(self.rt.bundle.arg_paths.clone());
                for facts in &self.log {
                    builder.push(&withheld.read(facts));
                }
                let mut facts = builder.snapshot(&self.extractor.interner, k.next().0);
                facts.judged = judged
                    .iter()
                    .flat_map(|(at, steps)| steps.iter().map(move |(s, e)| (*s, *e, *at)))
                    .collect();
                let derived = evaluate(&granted.checks, &facts).ok()?;
                derived.allowed.get(&k)?.first().copied()
            }
        }
    }

    /// Books the verdict on event `k` in the approvals: a `confirm` holds
    /// the call, an allow on an approval uses the approval up, a block
    /// notes the call blocked.
    pub fn note_verdict(&mut self, k: EventIdx, verdict: &GateVerdict) {
        match verdict {
            GateVerdict::Confirm { .. } => {
                if let Some(Event::Call { id, tool, args, .. }) = self.events.get(k.as_usize())
                    && self.approvals.hold(id, tool, args)
                {
                    self.granted.hold(k);
                }
            }
            GateVerdict::Allow {
                approved: Some(approved),
                ..
            } => self.approvals.use_up(&approved.call),
            GateVerdict::Block { .. }
                if matches!(self.events.get(k.as_usize()), Some(Event::Call { .. })) =>
            {
                self.granted.block(k);
            }
            _ => {}
        }
    }

    /// What event `k` tells the approvals: the host's answer (an anomaly
    /// when it opens nothing), or a user turn that withdraws (voiding every
    /// approval not yet used) or says yes (lifting the refusals).
    pub fn note_answers(&mut self, k: EventIdx) -> Option<String> {
        match self.events.get(k.as_usize())? {
            Event::Approval { call, granted, by } => self
                .approvals
                .answer(call, *granted, *by, self.rt.bundle.operator_approvals)
                .err()
                .map(|why| format!("event {k}: {why}")),
            // No answer a user turn could change: the turn need not be read.
            Event::User { text } if self.approvals.open_to_the_user() => {
                let affirms = self
                    .log
                    .get(k.as_usize())
                    .and_then(|facts| facts.turn)
                    .is_some_and(|turn| turn.reply == Reply::Affirms);
                if reply_stance(&readable_text(text)) == Stance::Refuse {
                    self.approvals.withdraw();
                } else if affirms {
                    self.approvals.affirm();
                }
                None
            }
            _ => None,
        }
    }

    /// The confirmation request of the call `id` of `tool` with `args`.
    fn confirmation(&self, id: &str, tool: &str, args: &serde_json::Value) -> Confirmation {
        let mut details: Vec<Detail> = args
            .as_object()
            .map(|object| {
                object
                    .iter()
                    .map(|(name, value)| Detail {
                        name: name.clone(),
                        value: shown(value),
                    })
                    .collect()
            })
            .unwrap_or_default();
        details.sort_by(|a, b| a.name.cmp(&b.name));
        let template = self
            .rt
            .bundle
            .domain
            .tool(tool)
            .and_then(|t| t.confirmation.as_deref());
        let text = match template {
            Some(pieces) => pieces
                .iter()
                .map(|piece| match piece {
                    ConfirmPiece::Text(text) => text.clone(),
                    ConfirmPiece::Param(name) => details
                        .iter()
                        .find(|d| d.name == *name)
                        .map(|d| d.value.clone())
                        .unwrap_or_else(|| format!("(no {name})")),
                })
                .collect(),
            None if details.is_empty() => format!("Run {tool}?"),
            None => format!(
                "Run {tool} with {}?",
                details
                    .iter()
                    .map(|d| format!("{} {}", d.name, d.value))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Confirmation {
            call: id.to_owned(),
            details,
            text,
            tool: tool.to_owned(),
        }
    }
}

/// An argument's value as a confirmation shows it.
fn shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// What the conversation says about the user's consent when no failed
/// `confirmed(...)` read it (a consent step), as of the last event: the user's replies since the agent's latest request for a
/// decision. No request or no reply is [`ConsentState::Absent`]; a reply
/// the reader reads as a refusal or withdrawal is [`ConsentState::Refused`]
/// (whatever follows it before the agent asks again); any other reply is
/// [`ConsentState::Qualified`] (the reader could not decide it).
///
/// The one place the gate reads the user's answer for `confirm`: it uses
/// the reply stance of `turnstile_judge::dialogue`.
pub(super) fn consent_read(core: &Core) -> ConsentState {
    let mut replies = Vec::new();
    let mut asked = false;
    for facts in core.log.iter().rev() {
        let Some(turn) = facts.turn else { continue };
        match turn.speaker {
            Speaker::Agent if turn.asks_decision => {
                asked = true;
                break;
            }
            Speaker::User => replies.push(turn),
            // A ticket states the request before the conversation: it
            // answers no request for a decision.
            Speaker::Agent | Speaker::Ticket => {}
        }
    }
    if !asked || replies.is_empty() {
        return ConsentState::Absent;
    }
    // A refusal since the request stands: only the agent's next request
    // for the decision opens it again (as `confirmed(...)` reads it).
    let refused = replies.iter().any(|turn| {
        matches!(core.events.get(turn.event.as_usize()),
            Some(Event::User { text }) if reply_stance(&readable_text(text)) == Stance::Refuse)
    });
    if refused {
        ConsentState::Refused
    } else {
        ConsentState::Qualified
    }
}
