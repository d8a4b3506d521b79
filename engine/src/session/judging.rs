//! The semantic half of a session: the verdicts the judge gave that the
//! session accepted, the questions already asked, the conversation as the
//! judge reads it, what judging cost — and the consult, the algorithm that
//! asks, as a value that stops at every round of questions and goes on with
//! the answers (so any caller can drive it: a plain loop over a synchronous
//! judge, an `await` over a model).
//!
//! A consult asks about the requests waiting at a semantic step of its
//! scope (the steps on the way to the write being decided, or every step
//! for an eager session) and, in the same round, the questions a positive
//! answer would raise next (asked ahead, filling only the room left in the
//! calls its questions need). Accepted verdicts are brought into the
//! monitor at the events they take effect; the requests then waiting on a
//! next semantic step take their answers from those asked ahead. Only a
//! question nobody foresaw is asked in a further round (the PolicyGuide
//! paper's Algorithm 1, 2026, kept as the fallback), until nothing more is
//! accepted.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use turnstile_judge::{JudgeRequest, Judgement, Turn, Usage, Verdict};
use turnstile_rules::{Env, EventIdx, Monitor, StepId, Symbol};

use super::consent::{ConsentAsk, ConsentKey, Consents};
use super::core::Core;
use super::ledger::Journal;
use super::questions::{self, Ask};
use super::runtime::BundleRuntime;
use super::state::{AcceptedVerdict, AskedQuestion, ConsentAnswer, UndecidedAnswer};
use super::turns::{self, LastTurns};
use super::verdict::JudgeNote;
use super::{SessionError, SessionWork};
use crate::trace::Event;

/// Accepted verdicts by the event they take effect at: the step and the
/// request it was asked about.
pub(super) type Judged = BTreeMap<EventIdx, BTreeSet<(StepId, Env)>>;

/// What the session knows from and about the judge.
#[derive(Clone, Debug, Default)]
pub(super) struct Judging {
    judged: Judged,
    /// The steps the judge left undecided, by the event each question was
    /// ready at: the steps a person decides (`confirm`) when a write lacks
    /// nothing else but the user's consent. Made of `undecided_answers`
    /// ([`Judging::rebuild_undecided`]).
    undecided: Judged,
    /// Every change in what the judge left undecided, in the order they
    /// apply (by the end of their questions' slices): a step stays
    /// undecided until a later question about it is decided.
    undecided_answers: BTreeSet<UndecidedAnswer>,
    asked: BTreeSet<AskedQuestion>,
    /// The model judge's answers about consent.
    consents: Consents,
    /// Ask the judge about a consent the reader could not decide
    /// ([`super::Session::judge_consent`]): a model judge.
    asks_consent: bool,
    /// The last event of each role, for the questions' keys.
    last_turns: LastTurns,
    /// Every event rendered as a judge turn (conversation turns tokenized)
    /// as it arrives, when the bundle asks a judge anything: questions take
    /// their slices from here as ranges of the shared list
    /// ([`turnstile_judge::Conversation`]), so a question copies no turn.
    rendered: Arc<Vec<Turn>>,
    usage: Usage,
    /// Ask about every waiting semantic step at every firing
    /// ([`super::Session::judge_eagerly`]) rather than only at a blocked
    /// write.
    eager: bool,
    /// The judge's share of [`SessionWork`].
    work: SessionWork,
}

/// Which steps a consult asks about.
#[derive(Clone, Copy, Debug)]
pub(super) enum Scope {
    /// The steps on a path to an authorization of this gated tool: no
    /// answer about another step can change a write's decision.
    Path(Symbol),
    /// Every step (an eager session, before each firing).
    Every,
}

/// An empty set of steps, for a scope whose tool has no path.
static NO_STEPS: BTreeSet<StepId> = BTreeSet::new();

impl Scope {
    fn steps(self, rt: &BundleRuntime) -> &BTreeSet<StepId> {
        match self {
            Scope::Path(tool) => rt.on_path.get(&tool).unwrap_or(&NO_STEPS),
            Scope::Every => &rt.every_step,
        }
    }
}

/// One consult of the judge in progress.
#[derive(Clone, Debug)]
pub(super) struct Consult {
    scope: Scope,
    /// The event before which the judge is asked.
    now: EventIdx,
    /// The judge's `questions_per_call`.
    per_call: Option<usize>,
    notes: Vec<JudgeNote>,
    /// Questions asked ahead, with their answers.
    ahead: Vec<(Ask, Judgement)>,
    rounds: u32,
    /// Passes begun: each satisfies at least one more step, so a consult
    /// takes at most one more than the workflow has steps.
    passes: usize,
    /// The round out: its questions, waiting for their answers.
    out: Option<Round>,
}

/// A round of questions sent to the judge.
#[derive(Clone, Debug)]
struct Round {
    /// The questions sent, in order: the first `needed` are the pass's
    /// own, the rest asked ahead.
    asks: Vec<Ask>,
    needed: usize,
    /// Verdicts this pass accepted from answers given ahead, before the
    /// round.
    accepted: Vec<(EventIdx, StepId, Env)>,
}

/// Where a consult stands after a step.
pub(super) enum Turnout {
    /// It asks the judge these questions.
    Asks(Vec<JudgeRequest>),
    /// It is over: what the judge said.
    Done(Vec<JudgeNote>),
}

impl Consult {
    /// A consult about `scope`, before event `now`.
    pub fn new(scope: Scope, now: EventIdx, per_call: Option<usize>) -> Self {
        Consult {
            scope,
            now,
            per_call,
            notes: Vec::new(),
            ahead: Vec::new(),
            rounds: 0,
            passes: 0,
            out: None,
        }
    }
}

impl Judging {
    /// Asks before every firing from now on.
    pub fn judge_eagerly(&mut self) {
        self.eager = true;
    }

    /// Whether the session asks before every firing.
    pub fn eager(&self) -> bool {
        self.eager
    }

    /// Asks the judge about a consent the reader could not decide, or not.
    pub fn set_asks_consent(&mut self, asks: bool) {
        self.asks_consent = asks;
    }

    /// Whether the judge is asked about a consent the reader could not
    /// decide.
    pub fn asks_consent(&self) -> bool {
        self.asks_consent
    }

    /// The judge's answers about consent.
    pub fn consents(&self) -> &Consents {
        &self.consents
    }

    /// The answers about consent as saved.
    pub fn consent_answers(&self) -> impl Iterator<Item = ConsentAnswer> + '_ {
        self.consents
            .iter()
            .map(|(key, answer)| key.clone().answered(*answer))
    }

    /// Books the judge's `judgement` on the consent question `ask` (its
    /// usage, its answer, the journal's row); returns the report's note.
    pub fn answer_consent(
        &mut self,
        ask: &ConsentAsk,
        judgement: &Judgement,
        events: &[Event],
        journal: &mut Journal,
    ) -> JudgeNote {
        self.usage += judgement.usage;
        let (answer, note) = ask.read(judgement, events);
        self.consents.insert(ask.key.clone(), answer);
        journal.consent(ask.key.clone().answered(answer));
        note
    }

    /// Accepted verdicts as `(step, request, evidence event)`.
    pub fn judged(&self) -> Vec<(StepId, Env, EventIdx)> {
        self.judged
            .iter()
            .flat_map(|(k, steps)| steps.iter().map(move |(s, e)| (*s, *e, *k)))
            .collect()
    }

    /// The accepted verdicts by the event they take effect at.
    pub fn judged_map(&self) -> &Judged {
        &self.judged
    }

    /// The steps the judge could not decide, by the event each question
    /// was ready at.
    pub fn undecided_map(&self) -> &Judged {
        &self.undecided
    }

    /// The changes in what the judge left undecided, in the order they
    /// apply.
    pub fn undecided_answers(&self) -> impl Iterator<Item = &UndecidedAnswer> {
        self.undecided_answers.iter()
    }

    /// `undecided` made again from `undecided_answers`, each change applied
    /// in order: a live session and a restored one hold the same.
    fn rebuild_undecided(&mut self) {
        let mut open = Judged::new();
        for answer in &self.undecided_answers {
            for step in &answer.steps {
                let key = (*step, answer.request);
                open.values_mut().for_each(|steps| {
                    steps.remove(&key);
                });
                if answer.open {
                    open.entry(answer.ready).or_default().insert(key);
                }
            }
        }
        open.retain(|_, steps| !steps.is_empty());
        self.undecided = open;
    }

    /// The verdicts that take effect at event `k`.
    pub fn judged_at(&self, k: EventIdx) -> Vec<(StepId, Env)> {
        self.judged
            .get(&k)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The questions asked so far.
    pub fn asked(&self) -> impl Iterator<Item = AskedQuestion> + '_ {
        self.asked.iter().copied()
    }

    /// Judge usage so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The judge's share of the work counted so far.
    pub fn work(&self) -> SessionWork {
        self.work
    }

    /// The last agent message so far.
    pub fn last_agent(&self) -> Option<EventIdx> {
        self.last_turns.last_agent()
    }

    /// A session's verdicts, questions and usage as saved.
    pub fn restored(
        judged: impl IntoIterator<Item = AcceptedVerdict>,
        asked: impl IntoIterator<Item = AskedQuestion>,
        consents: &[ConsentAnswer],
        undecided: &[UndecidedAnswer],
        usage: Usage,
    ) -> Self {
        let mut judging = Judging {
            asked: asked.into_iter().collect(),
            consents: consents
                .iter()
                .map(|answer| (ConsentKey::of(answer), answer.answer))
                .collect(),
            usage,
            ..Judging::default()
        };
        for verdict in judged {
            judging
                .judged
                .entry(verdict.evidence)
                .or_default()
                .insert((verdict.step, verdict.request));
        }
        judging.undecided_answers = undecided.iter().cloned().collect();
        judging.rebuild_undecided();
        judging
    }

    /// Counts `work` done before this value took over (a session rebuilt
    /// from its saved state keeps counting where it was).
    pub fn carry_work(&mut self, work: SessionWork) {
        self.work = work;
    }

    /// Notes event `k` as it is taken, with the extractor's `turn` of a
    /// message: rendered for the judge when the bundle asks it anything.
    pub fn note(&mut self, rt: &BundleRuntime, k: EventIdx, event: &Event, turn: Option<Turn>) {
        self.last_turns.note(k, event);
        if !rt.asks_judge {
            return;
        }
        let turn = match event {
            // A message's turn comes from the extractor, tokenized once
            // for its cues and for the judge.
            Event::User { .. } | Event::Ticket { .. } | Event::Agent { .. } => {
                turn.unwrap_or_else(|| turns::render(k, event).tokenized())
            }
            Event::Call { .. }
            | Event::Result { .. }
            | Event::Approval { .. }
            | Event::Principal { .. } => turns::render(k, event),
        };
        // The list is shared only while a judge holds a question's slice
        // of it; one kept beyond the call costs one copy here.
        if Arc::strong_count(&self.rendered) > 1 {
            self.work.turns_copied += self.rendered.len() as u64;
        }
        Arc::make_mut(&mut self.rendered).push(turn);
        self.work.turns_rendered += 1;
    }

    /// Whether a question not asked yet on this slice waits at a step on
    /// the way to `tool`'s authorizations: a blocked write that no answer
    /// can lift asks nothing.
    pub fn any_question(&self, core: &Core, tool: Symbol) -> bool {
        let on_path = Scope::Path(tool).steps(&core.rt);
        let any = questions::any_question(
            &core.rt,
            &core.monitor,
            &self.last_turns,
            &self.asked,
            on_path,
        );
        // Every debug test run checks the shortcut against the questions.
        debug_assert_eq!(
            any,
            !self.questions(core, &core.monitor, on_path).is_empty()
        );
        any
    }

    /// Notes that the push of the write being decided was taken back, to
    /// ask about the event before it.
    pub fn note_undo(&mut self) {
        self.work.pushes_undone += 1;
    }

    /// Runs `consult` until it needs the judge or is over.
    pub fn advance(
        &mut self,
        consult: &mut Consult,
        core: &mut Core,
        journal: &mut Journal,
    ) -> Result<Turnout, SessionError> {
        let rt = Arc::clone(&core.rt);
        let on_path = consult.scope.steps(&rt);
        while consult.passes <= rt.steps.len() {
            consult.passes += 1;
            let mut accepted = Vec::new();
            let mut open = Vec::new();
            for ask in self.questions(core, &core.monitor, on_path) {
                match consult
                    .ahead
                    .iter()
                    .position(|(a, _)| a.same_question(&ask))
                {
                    Some(i) => {
                        let (asked, judgement) = consult.ahead.swap_remove(i);
                        let now = consult.now;
                        accepted.extend(self.record(
                            &rt,
                            &asked,
                            judgement,
                            now,
                            &mut consult.notes,
                            journal,
                        ));
                    }
                    None => open.push(ask),
                }
            }
            if !open.is_empty() {
                if consult.rounds > 0 {
                    self.work.fallback_rounds += 1;
                }
                consult.rounds += 1;
                let needed = open.len();
                let room = consult.per_call.map_or(usize::MAX, |per_call| {
                    needed.div_ceil(per_call).saturating_mul(per_call) - needed
                });
                let opens = open.iter().any(|ask| {
                    ask.steps
                        .iter()
                        .any(|(step, _)| rt.opens_semantic.get(step.0 as usize) == Some(&true))
                });
                if room > 0 && opens {
                    let extra = self.questions_ahead(core, &open, on_path)?;
                    open.extend(extra.into_iter().take(room));
                }
                let requests = questions::with_slices(&mut open, &self.rendered, consult.now);
                let sent: usize = requests.iter().map(|r| r.conversation.len()).sum();
                self.work.turns_sent += sent as u64;
                consult.out = Some(Round {
                    asks: open,
                    needed,
                    accepted,
                });
                return Ok(Turnout::Asks(requests));
            }
            if !self.bring_in(core, &accepted)? {
                break;
            }
        }
        Ok(Turnout::Done(std::mem::take(&mut consult.notes)))
    }

    /// Books the judge's answers to `consult`'s round (in the order asked;
    /// a missing one is unknown), then runs it on.
    pub fn answer(
        &mut self,
        consult: &mut Consult,
        judgements: Vec<Judgement>,
        core: &mut Core,
        journal: &mut Journal,
    ) -> Result<Turnout, SessionError> {
        let Some(Round {
            asks,
            needed,
            mut accepted,
        }) = consult.out.take()
        else {
            return Err(SessionError::NotPending);
        };
        let mut judgements = judgements.into_iter();
        for (i, ask) in asks.into_iter().enumerate() {
            let judgement = judgements
                .next()
                .unwrap_or_else(|| Judgement::unknown("the judge returned no answer"));
            // Every call is paid for, whether its answer is used or not.
            self.usage += judgement.usage;
            if i < needed {
                let now = consult.now;
                accepted.extend(self.record(
                    &core.rt,
                    &ask,
                    judgement,
                    now,
                    &mut consult.notes,
                    journal,
                ));
            } else {
                consult.ahead.push((ask, judgement));
            }
        }
        if !self.bring_in(core, &accepted)? {
            return Ok(Turnout::Done(std::mem::take(&mut consult.notes)));
        }
        self.advance(consult, core, journal)
    }

    /// The questions not yet asked on this slice about the requests waiting
    /// in `monitor` at a semantic step of `on_path`.
    fn questions(&self, core: &Core, monitor: &Monitor, on_path: &BTreeSet<StepId>) -> Vec<Ask> {
        let mut asks = questions::questions(
            &core.rt,
            monitor,
            &core.extractor.interner,
            &self.last_turns,
            &self.asked,
        );
        asks.retain(|ask| ask.steps.iter().any(|(step, _)| on_path.contains(step)));
        asks
    }

    /// The questions a positive answer to `asks` would raise next: on a
    /// monitor where every step `asks` decides (and, in turn, every step
    /// those answers would open) is assumed satisfied where it would take
    /// effect at the earliest, the requests then waiting on a semantic step.
    /// A guess: a criterion whose real evidence comes later opens its
    /// successor later, on another slice, and is asked in a further round.
    fn questions_ahead(
        &mut self,
        core: &Core,
        asks: &[Ask],
        on_path: &BTreeSet<StepId>,
    ) -> Result<Vec<Ask>, SessionError> {
        let mut assumed = self.judged.clone();
        let mut known: BTreeSet<(StepId, Env)> = BTreeSet::new();
        let assume = |ask: &Ask, assumed: &mut Judged, known: &mut BTreeSet<(StepId, Env)>| {
            for (step, _) in &ask.steps {
                known.insert((*step, ask.env));
                assumed
                    .entry(ask.ready)
                    .or_default()
                    .insert((*step, ask.env));
            }
        };
        for ask in asks {
            assume(ask, &mut assumed, &mut known);
        }
        let mut ahead: Vec<Ask> = Vec::new();
        for _ in 0..core.rt.steps.len() {
            let monitor = core.replayed(&assumed)?;
            self.work.events_replayed += core.log.len() as u64;
            let next: Vec<Ask> = self
                .questions(core, &monitor, on_path)
                .into_iter()
                .filter(|a| a.steps.iter().all(|(s, _)| !known.contains(&(*s, a.env))))
                .collect();
            if next.is_empty() {
                break;
            }
            for ask in &next {
                assume(ask, &mut assumed, &mut known);
            }
            ahead.extend(next);
        }
        Ok(ahead)
    }

    /// Books one judgement; returns the verdict it added, if it satisfied
    /// a step anew: the event it takes effect at, the step and the request.
    fn record(
        &mut self,
        rt: &BundleRuntime,
        ask: &Ask,
        judgement: Judgement,
        now: EventIdx,
        notes: &mut Vec<JudgeNote>,
        journal: &mut Journal,
    ) -> Option<(EventIdx, StepId, Env)> {
        // Asked again only once the conversation has moved on: a judge that
        // failed on this slice (and so kept the gate closed) gets another
        // chance with the next message, not at every event.
        if self.asked.insert(ask.key()) {
            journal.asked(ask.key());
        }
        let mut accepted = None;
        let rejected = match questions::accept(ask, &judgement) {
            Ok((step, evidence)) => {
                let at = ask.effective_at(evidence);
                if self.judged.entry(at).or_default().insert((step, ask.env)) {
                    accepted = Some((at, step, ask.env));
                    journal.judged(AcceptedVerdict {
                        step,
                        evidence: at,
                        request: ask.env,
                    });
                }
                None
            }
            Err(why) if judgement.verdict.is_satisfied() => Some(why),
            Err(_) => None,
        };
        // A yes the session cannot use (its evidence outside the slice, a
        // label not offered) is no usable answer, as an unknown is.
        let open = matches!(judgement.verdict, Verdict::Unknown { .. }) || rejected.is_some();
        self.note_undecided(rt, ask, open, journal);
        notes.push(JudgeNote {
            at: now,
            node: ask.request.node_id.clone(),
            request: ask.request.bindings.clone(),
            verdict: judgement.verdict,
            rationale: judgement.rationale,
            rejected,
        });
        accepted
    }

    /// Notes what `ask`'s answer changes in what the judge left undecided,
    /// for the steps a person's approval settles
    /// ([`BundleRuntime::approval_settles`]; any other undecided step stays
    /// unmet, as a no would): `open` (neither yes nor no) leaves them
    /// undecided where the question was ready; a decided answer closes
    /// those left undecided before.
    fn note_undecided(&mut self, rt: &BundleRuntime, ask: &Ask, open: bool, journal: &mut Journal) {
        let settled = ask
            .steps
            .iter()
            .map(|(step, _)| *step)
            .filter(|step| rt.approval_settles(*step));
        let steps: Vec<StepId> = if open {
            settled.collect()
        } else {
            settled
                .filter(|step| {
                    self.undecided
                        .values()
                        .any(|keys| keys.contains(&(*step, ask.env)))
                })
                .collect()
        };
        if steps.is_empty() {
            return;
        }
        let answer = UndecidedAnswer {
            slice_end: ask.key().slice_end,
            ready: ask.ready,
            steps,
            request: ask.env,
            open,
        };
        if self.undecided_answers.insert(answer.clone()) {
            journal.undecided(answer);
            self.rebuild_undecided();
        }
    }

    /// Brings the monitor up to the verdicts just `accepted` (already in
    /// `judged`); `false` when there are none. Verdicts that take effect at
    /// the last event logged (a confirmation in the latest turn) amend the
    /// monitor in place; one citing an earlier event replays the logged
    /// facts into a fresh monitor, since the monitor only moves forward.
    fn bring_in(
        &mut self,
        core: &mut Core,
        accepted: &[(EventIdx, StepId, Env)],
    ) -> Result<bool, SessionError> {
        if accepted.is_empty() {
            return Ok(false);
        }
        let last = EventIdx::from_usize(core.log.len().saturating_sub(1));
        if !core.log.is_empty() && accepted.iter().all(|(at, _, _)| *at == last) {
            let verdicts: Vec<(StepId, Env)> =
                accepted.iter().map(|&(_, step, env)| (step, env)).collect();
            core.monitor.amend_last(last, &verdicts)?;
            self.work.verdicts_amended += verdicts.len() as u64;
            return Ok(true);
        }
        core.monitor = core.replayed(&self.judged)?;
        self.work.events_replayed += core.log.len() as u64;
        Ok(true)
    }
}
