//! Deciding one event, as a protocol any caller can drive: the event is
//! classified once, then taken (extracted, noted for the judge, stored),
//! pushed into the monitor and decided. A checked write the monitor blocks
//! at a dialogue step no judge answered goes back to the event before it and
//! consults the judge; an eager session consults before every firing. A
//! consult hands its questions out ([`Progress::Asks`]) and the decision
//! goes on with the answers ([`Session::answer`]) until it is over; the
//! verdict is then made once, from the monitor's outcome, the event's
//! classification and what deciding to ask already explained. A session
//! whose judge decides consent (a model) asks it last, when that verdict is
//! a `confirm` the reader could not decide: one question, and the verdict
//! made again with its answer.

use std::sync::Arc;

use turnstile_judge::{JudgeRequest, Judgement, Usage};
use turnstile_rules::{EventFacts, EventIdx, EventOutcome, Reason, Violation};

use super::classify::Classified;
use super::consent::ConsentAsk;
use super::core::Core;
use super::judging::{Consult, Judging, Scope, Turnout};
use super::state::DeltaMark;
use super::verdict::{EventReport, GateVerdict, JudgeNote};
use super::{STATE_VERSION, Session, SessionError, SessionState};
use crate::extract::Extracted;
use crate::trace::Event;

/// Where the decision of an event stands.
#[derive(Debug)]
pub enum Progress {
    /// The event is decided. The report shows the request views only when
    /// the verdict is made of them ([`Session::with_requests`] adds them
    /// at any firing).
    Decided(EventReport),
    /// The decision needs the judge's answers to these questions: hand
    /// them, in this order, to [`Session::answer`]. Drop the requests once
    /// answered (their conversation slices share the session's turns).
    Asks(Vec<JudgeRequest>),
}

/// A decision waiting for the judge's answers.
#[derive(Clone, Debug)]
pub(super) struct Pending(Waiting);

/// What a pending decision waits on.
#[derive(Clone, Debug)]
enum Waiting {
    /// A consult's round of questions.
    Consult {
        decision: Decision,
        stage: Stage,
        consult: Consult,
    },
    /// The consent question about a write the verdict `made` is a
    /// `confirm` on.
    Consent {
        decision: Decision,
        made: Made,
        ask: ConsentAsk,
    },
}

impl Pending {
    fn decision(&self) -> &Decision {
        match &self.0 {
            Waiting::Consult { decision, .. } | Waiting::Consent { decision, .. } => decision,
        }
    }
}

/// A verdict made on a taken event, before it is booked.
#[derive(Clone, Debug)]
struct Made {
    verdict: GateVerdict,
    requests: Vec<Arc<super::RequestView>>,
    mutating: bool,
    anomalies: Vec<String>,
}

/// An event being decided.
#[derive(Clone, Debug)]
struct Decision {
    k: EventIdx,
    class: Classified,
    /// The event's size as JSON.
    bytes: usize,
    /// The judge's `questions_per_call`.
    per_call: Option<usize>,
    /// What the judge said so far.
    notes: Vec<JudgeNote>,
    /// Where the session stood before the event.
    before: Before,
}

/// Where a session stood before an event: what giving its decision up goes
/// back to.
#[derive(Clone, Copy, Debug)]
struct Before {
    mark: DeltaMark,
    usage: Usage,
    seen_before: usize,
}

/// What a consult interrupted.
#[derive(Clone, Debug)]
enum Stage {
    /// An eager session asks before the event is taken.
    Eager(Event),
    /// A checked write, taken and blocked at a step a judge decides, its
    /// push taken back: decided again once the judge answered.
    Lazy(EventFacts),
}

impl Session {
    /// Takes the next event and decides it as far as it can without the
    /// judge: [`Progress::Decided`], or [`Progress::Asks`] the questions the
    /// decision needs. `questions_per_call`: the judge's (see
    /// [`turnstile_judge::SyncJudge::questions_per_call`]). Refused with
    /// [`SessionError::Pending`] while another decision waits for answers.
    /// After any other error the session may be part-way through the event:
    /// rebuild it from its saved state (as a store does).
    pub fn begin(
        &mut self,
        event: Event,
        questions_per_call: Option<usize>,
    ) -> Result<Progress, SessionError> {
        if self.pending.is_some() {
            return Err(SessionError::Pending);
        }
        let bytes = event.json_size();
        if self.core.full(bytes) {
            return Ok(Progress::Decided(self.core.refuse_when_full(&event)));
        }
        let decision = Decision {
            k: self.core.next_index(),
            class: self.core.context().classify(&event),
            bytes,
            per_call: questions_per_call,
            notes: Vec::new(),
            before: Before {
                mark: self.mark(),
                usage: self.judging.usage(),
                seen_before: self.ledger.seen_before(),
            },
        };
        if self.judging.eager() && decision.class.fires && self.core.rt.asks_judge {
            let consult = Consult::new(Scope::Every, decision.k, questions_per_call);
            return self.consult(decision, Stage::Eager(event), consult);
        }
        self.take(decision, event)
    }

    /// Goes on with the pending decision given the judge's `answers` to the
    /// questions it asked, in their order (a missing answer is unknown).
    /// [`SessionError::NotPending`] if no decision waits for answers.
    pub fn answer(&mut self, answers: Vec<Judgement>) -> Result<Progress, SessionError> {
        let Some(pending) = self.pending.take() else {
            return Err(SessionError::NotPending);
        };
        match pending.0 {
            Waiting::Consult {
                decision,
                stage,
                mut consult,
            } => {
                let turnout = self.judging.answer(
                    &mut consult,
                    answers,
                    &mut self.core,
                    self.ledger.journal(),
                )?;
                self.then(decision, stage, consult, turnout)
            }
            Waiting::Consent {
                mut decision,
                mut made,
                ask,
            } => {
                let judgement = answers
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| Judgement::unknown("the judge returned no answer"));
                let note = self.judging.answer_consent(
                    &ask,
                    &judgement,
                    &self.core.events,
                    self.ledger.journal(),
                );
                decision.notes.push(note);
                // The write was blocked: made again with the answer booked.
                made.verdict = self.core.write_verdict(
                    decision.k,
                    &[],
                    None,
                    self.judging.judged_map(),
                    self.judging.undecided_map(),
                    self.judging.consents(),
                );
                Ok(Progress::Decided(self.book(decision, made)))
            }
        }
    }

    /// From now on, asks the judge about a consent the offline reader could
    /// not decide (`asks`): a write whose every other condition holds and
    /// whose user replied undecidably or not at all. The judge's yes allows
    /// it, its no blocks it, any other answer leaves it `confirm`. For a
    /// model judge ([`turnstile_judge::Judge::decides_consent`]): `push`
    /// and `push_async` set it from the judge they are given.
    pub fn judge_consent(&mut self, asks: bool) {
        self.judging.set_asks_consent(asks);
    }

    /// Whether a decision waits for the judge's answers.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Gives the pending decision up: the session goes back to what it was
    /// before the event (its events, verdicts, questions, usage and
    /// requests seen), as a restore of that state would rebuild it. Returns
    /// whether a decision was pending.
    pub fn abandon(&mut self) -> Result<bool, SessionError> {
        let Some(pending) = self.pending.take() else {
            return Ok(false);
        };
        let before = pending.decision().before;
        let journal = self.ledger.before(before.mark);
        let state = SessionState {
            version: STATE_VERSION,
            bundle: self.core.rt.bundle.hash.clone(),
            schedule: self.core.schedule,
            control: Some(self.control()),
            events: self
                .core
                .events
                .get(..before.mark.events)
                .unwrap_or_default()
                .to_vec(),
            times: self
                .core
                .clock
                .decided()
                .get(..before.mark.events)
                .unwrap_or_default()
                .to_vec(),
            judged: journal.judged,
            asked: journal.asked,
            consents: journal.consents,
            undecided: journal.undecided,
            seen: journal.seen,
            after_user: self.core.after_user,
            after_block: self.core.after_block,
            usage: before.usage,
        };
        let mut back = Session::rebuild(
            Arc::clone(&self.core.rt),
            state,
            self.core.limits,
            Some(before.seen_before),
        )?;
        back.core.explainer = self.core.explainer;
        back.core.clock.set_now(self.core.clock.now_given());
        if self.judging.eager() {
            back.judging.judge_eagerly();
        }
        back.judging.set_asks_consent(self.judging.asks_consent());
        back.judging.carry_work(self.judging.work());
        *self = back;
        Ok(true)
    }

    /// Runs `consult` until it asks or is over.
    fn consult(
        &mut self,
        decision: Decision,
        stage: Stage,
        mut consult: Consult,
    ) -> Result<Progress, SessionError> {
        let turnout = self
            .judging
            .advance(&mut consult, &mut self.core, self.ledger.journal())?;
        self.then(decision, stage, consult, turnout)
    }

    /// After a step of a consult: its questions out, or the decision on.
    fn then(
        &mut self,
        mut decision: Decision,
        stage: Stage,
        consult: Consult,
        turnout: Turnout,
    ) -> Result<Progress, SessionError> {
        let notes = match turnout {
            Turnout::Asks(requests) => {
                self.pending = Some(Box::new(Pending(Waiting::Consult {
                    decision,
                    stage,
                    consult,
                })));
                return Ok(Progress::Asks(requests));
            }
            Turnout::Done(notes) => notes,
        };
        decision.notes.extend(notes);
        match stage {
            Stage::Eager(event) => self.take(decision, event),
            Stage::Lazy(facts) => {
                let judged = self.judging.judged_at(decision.k);
                let outcome = self.core.monitor.push(&facts, &judged)?;
                Ok(self.finish(decision, facts, &outcome, None))
            }
        }
    }

    /// Takes the event and decides it from the formal state and the
    /// verdicts already booked; consults the judge only when that blocks a
    /// checked write while some request waits at a semantic step on the way
    /// to it that no judge has answered on this slice. An allowed write, and
    /// every other event, costs no judge call.
    fn take(&mut self, decision: Decision, event: Event) -> Result<Progress, SessionError> {
        let k = decision.k;
        let facts = take_event(&mut self.core, &mut self.judging, k, event, decision.bytes);
        let outcome = self.core.monitor.push(&facts, &self.judging.judged_at(k))?;
        let mut explained = None;
        let blocked_write = decision
            .class
            .asks_for
            .filter(|tool| self.core.rt.on_path.contains_key(tool) && Core::would_block(&outcome));
        if let Some(tool) = blocked_write {
            // Any request waiting at an unasked dialogue step on the way to
            // the tool may lift the block, not only the one whose path came
            // closest: after the "anything else?" loop a second request of
            // the same tool waits at its dialogue steps while the first
            // one's used authorization explains the block.
            if self.judging.any_question(&self.core, tool) {
                // Back to the event before the write, where the questions
                // are asked (the logged facts stop there): the write's push
                // is undone, at the cost of what it changed, not replayed.
                self.core.monitor.undo_last()?;
                self.judging.note_undo();
                let consult = Consult::new(Scope::Path(tool), k, decision.per_call);
                return self.consult(decision, Stage::Lazy(facts), consult);
            }
            explained = self.core.monitor.explain_block();
        }
        Ok(self.finish(decision, facts, &outcome, explained))
    }

    /// The decided event: its facts logged, its verdict made from the
    /// monitor's `outcome` (`explained`: the block already explained) and
    /// booked — unless the verdict is a `confirm` the judge is asked about
    /// first ([`Session::judge_consent`]).
    fn finish(
        &mut self,
        decision: Decision,
        facts: EventFacts,
        outcome: &EventOutcome,
        explained: Option<Violation>,
    ) -> Progress {
        let k = decision.k;
        let mut anomalies = self.core.log_facts(facts);
        anomalies.extend(self.core.note_answers(k));
        let (verdict, requests) = self.verdict(k, &decision.class, outcome, explained);
        let made = Made {
            mutating: outcome.gated.is_some()
                || matches!(
                    verdict,
                    GateVerdict::Block {
                        reason: Reason::UnknownTool,
                        ..
                    }
                ),
            verdict,
            requests,
            anomalies,
        };
        if self.judging.asks_consent()
            && let Some(ask) = self.core.consent_question(k, &made.verdict)
        {
            let request = ask.request.clone();
            self.pending = Some(Box::new(Pending(Waiting::Consent {
                decision,
                made,
                ask,
            })));
            return Progress::Asks(vec![request]);
        }
        Progress::Decided(self.book(decision, made))
    }

    /// The report on the decided event, its verdict booked.
    fn book(&mut self, decision: Decision, made: Made) -> EventReport {
        let Decision {
            k, class, notes, ..
        } = decision;
        self.core.note_verdict(k, &made.verdict);
        self.ledger.decided(class.fires, &self.core.monitor);
        self.core.note_decided(&class, &made.verdict);
        EventReport {
            event: k,
            mutating: made.mutating,
            kind: class.kind,
            fired: class.fires,
            verdict: made.verdict,
            requests: made.requests,
            judge: notes,
            anomalies: made.anomalies,
        }
    }

    /// The verdict on event `k`, and the request views when it is made of
    /// them (guidance, or a deviation where guidance would be).
    fn verdict(
        &mut self,
        k: EventIdx,
        class: &Classified,
        outcome: &EventOutcome,
        explained: Option<Violation>,
    ) -> (GateVerdict, Vec<Arc<super::RequestView>>) {
        if let Some(refused) = &class.refused {
            return (refused.clone(), Vec::new());
        }
        if !class.by_agent {
            let verdict = self
                .core
                .device_call_deviation(k, self.judging.last_agent())
                .unwrap_or(GateVerdict::Observe);
            return (verdict, Vec::new());
        }
        if !class.fires {
            let would_block = Core::would_block(outcome);
            return (GateVerdict::Unchecked { would_block }, Vec::new());
        }
        if outcome.protected.as_ref().is_some_and(Vec::is_empty) {
            let verdict = self.core.unpermitted_read(k, || self.judging.judged());
            return (verdict, Vec::new());
        }
        if let Some(allowed) = &outcome.gated {
            let verdict = self.core.write_verdict(
                k,
                allowed,
                explained,
                self.judging.judged_map(),
                self.judging.undecided_map(),
                self.judging.consents(),
            );
            return (verdict, Vec::new());
        }
        let requests = self.ledger.firing_requests(&self.core);
        let verdict = self
            .core
            .agent_deviation(k)
            .unwrap_or_else(|| Core::guidance(&requests));
        (verdict, requests)
    }
}

/// Takes event `k`: extracted, noted for the judge, stored. Returns its
/// facts, which the monitor has not seen yet.
fn take_event(
    core: &mut Core,
    judging: &mut Judging,
    k: EventIdx,
    event: Event,
    bytes: usize,
) -> EventFacts {
    let Extracted { facts, turn } = core.extract(k, &event, bytes);
    judging.note(&core.rt, k, &event, turn);
    core.keep(k, event);
    facts
}

/// Takes the next event of a session being restored, with the verdicts
/// already accepted (no judge is asked).
pub(super) fn ingest(
    core: &mut Core,
    judging: &mut Judging,
    event: Event,
) -> Result<(), SessionError> {
    let bytes = event.json_size();
    let k = core.next_index();
    let class = core.context().classify(&event);
    let facts = take_event(core, judging, k, event, bytes);
    let outcome = core.monitor.push(&facts, &judging.judged_at(k))?;
    core.log_facts(facts);
    // The approvals are rebuilt as the events were decided: only a write's
    // verdict and the host's and user's answers change them.
    core.note_answers(k);
    let verdict = match (&class.refused, &outcome.gated) {
        (Some(refused), _) => Some(refused.clone()),
        (None, Some(allowed)) if class.by_agent && class.fires => Some(core.write_verdict(
            k,
            allowed,
            None,
            judging.judged_map(),
            judging.undecided_map(),
            judging.consents(),
        )),
        _ => None,
    };
    if let Some(verdict) = &verdict {
        core.note_verdict(k, verdict);
    }
    core.note_decided(&class, verdict.as_ref().unwrap_or(&GateVerdict::Observe));
    Ok(())
}
