//! Concrete witnesses: each abstract deviation turned into a native trace and
//! the recorded judge verdicts that replay it deterministically.
//!
//! The moves of the deviation's prefix are realised one group at a time (a
//! move and the eventless `Holds` steps that follow it). A user or agent
//! message that satisfies a dialogue step gets a recorded verdict citing it;
//! a node judged more than once (a decision asked again after the "anything
//! else?" loop) has each earlier verdict scoped to the slices before the
//! next one (`at_event`), since the recorded judge otherwise answers a node
//! with its last record, and the user message giving the earlier answer is
//! followed by an agent acknowledgement, since the judge is asked only at
//! agent events. A tool call's arguments and result are searched among
//! small candidates — every id is `W1`, strings may also be any enum
//! literal, enum and boolean fields take each of their values, and every
//! field or argument also takes the literals the bundle's checks compare it
//! with (`status == "Suspended"`, `contract_end_date >= date(...)`,
//! `gb_amount <= 2`; a list takes one as its element) — by hill climbing
//! from the defaults on the steps the reference session then satisfies (the
//! group's, and those of the next calls probed with their defaults): the
//! engine is the oracle, so no check is re-implemented here. What the
//! bundle's checks ask is read once (`Hints`): an argument that must
//! differ from another, or be missing from a list, names a second id `W2`,
//! and every record list of a result then carries a second record `W2`; a
//! call whose authorization asks `confirmed(...)` is preceded by the agent's
//! summary naming the call's values and the check's words (and, when the
//! confirmed values are read ones — a plan's price —, the values the
//! results before it returned) and the user's yes; a guard reading an
//! entity no move returns may have a read no step
//! names (and that changes no order rule) called first. The deviating event
//! ends the trace: a read with default values, a write whose arguments name
//! an id no tool returned (every guard comparing it is then false), the
//! solo agent's call of a device fix, or an agent message naming the fix it
//! instructs or making the claim. The trace's header carries the analysis'
//! `control`, which every replay of it takes.
//!
//! A witness is returned only once [`check`] has replayed it through
//! [`super::observe`] and seen exactly the predicted deviation; a group no
//! candidate realises (a state the abstraction reaches but these values do
//! not) is reported as [`WitnessError::Unrealised`]; a replay that shows
//! another deviation because the request went past the abstract state (a
//! step off the prefix satisfied) as [`WitnessError::Overtaken`]; each of
//! the shortest prefixes reaching the state (at most [`MAX_PATHS`]) is
//! tried first.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value as Json, json};
use turnstile_judge::{Record, RecordedJudge, Verdict};
use turnstile_rules::{StepId, StepOrigin, ValueType};

use super::automaton::{AgentClass, Automaton, Move};
use super::observe;
use super::{Analysis, Deviation};
use crate::bundle::model::{Control, Side};
use crate::schema::{JsonPath, JsonStep, Tool};
use crate::session::{BundleRuntime, Schedule, Session, SessionError};
use crate::trace::{Event, Trace, TraceMeta};

/// The id every candidate uses.
pub const ID: &str = "W1";
/// The second record's id, for an argument a check requires to differ
/// from another (`args.new_item_ids[*] != args.item_ids[*]`).
pub const ID2: &str = "W2";
/// An id no tool result ever carries.
pub const UNREAD_ID: &str = "W9-unread";
/// Shortest prefixes tried per deviation at most.
pub const MAX_PATHS: usize = 6;
/// Candidates tried per group of moves at most.
const MAX_TRIES: usize = 96;
/// Calls after a group whose steps its values are searched to satisfy.
const LOOKAHEAD_CALLS: usize = 2;

/// A concrete witness of one deviation.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The conversation: the valid prefix, then the deviating event.
    pub trace: Trace,
    /// The judge verdicts the prefix relies on (`--judge recorded:`).
    pub verdicts: Vec<Record>,
}

impl Witness {
    /// The trace as native JSONL: its header line, then one event per line.
    pub fn trace_jsonl(&self) -> String {
        let mut out = Vec::new();
        match crate::import::native::write_native(&mut out, &self.trace) {
            Ok(()) => String::from_utf8_lossy(&out).into_owned(),
            Err(_) => lines(self.trace.events.iter()),
        }
    }

    /// The verdicts as a recording file (a node judged more than once gets
    /// each earlier verdict scoped to the slices before the next).
    pub fn verdicts_jsonl(&self) -> String {
        lines(scoped(&self.verdicts).iter())
    }

    /// A recorded judge answering with [`Witness::verdicts`].
    pub fn judge(&self) -> RecordedJudge {
        recorded(&self.verdicts)
    }
}

fn lines<T: serde::Serialize>(items: impl Iterator<Item = T>) -> String {
    items
        .filter_map(|e| serde_json::to_string(&e).ok())
        .map(|l| l + "\n")
        .collect()
}

fn recorded(records: &[Record]) -> RecordedJudge {
    RecordedJudge::parse(&lines(scoped(records).iter())).unwrap_or_default()
}

/// The evidence event a positive verdict cites.
fn evidence_of(record: &Record) -> Option<u32> {
    match record.verdict {
        Verdict::Satisfied { evidence_event } | Verdict::Chosen { evidence_event, .. } => {
            Some(evidence_event)
        }
        _ => None,
    }
}

/// The records as the recorded judge must see them when one node is judged
/// more than once (a decision asked again after the "anything else?" loop):
/// the judge answers a node with its last record, so each earlier one is
/// repeated for every slice ending from its evidence up to the next one's
/// (`at_event`, which the lookup prefers), and only the last is unscoped.
fn scoped(records: &[Record]) -> Vec<Record> {
    let mut out = Vec::with_capacity(records.len());
    for (i, record) in records.iter().enumerate() {
        let later = records
            .iter()
            .skip(i + 1)
            .filter(|r| r.node == record.node)
            .filter_map(evidence_of)
            .min();
        match (evidence_of(record), later) {
            (Some(from), Some(to)) => out.extend((from..to).map(|at| Record {
                at_event: Some(at),
                ..record.clone()
            })),
            _ => out.push(record.clone()),
        }
    }
    out
}

/// Why no witness could be built or confirmed.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    /// The candidate values did not satisfy a step of the prefix: the
    /// abstract state may be unreachable with concrete data (the checks are
    /// not independent), or these candidates miss the values that reach it.
    #[error("no candidate values satisfy step {step} of the prefix")]
    Unrealised {
        /// The step, by name.
        step: String,
    },
    /// The replay showed another deviation because the engine is past or
    /// beside the abstract state: it satisfied a step the prefix does not
    /// (a call or dialogue step the request reached from an earlier event,
    /// e.g. a read at the event a classification is dated to), or reached a
    /// step of the predicted out-of-order read along another path.
    #[error("the request overtook the abstract state: it reached step {step} off the prefix")]
    Overtaken {
        /// The step, by name.
        step: String,
    },
    /// The replay showed another deviation than the one predicted.
    #[error("the replay disagrees with the analysis: {0}")]
    Disagrees(String),
    /// The session refused an event.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// A realised prefix: its events, verdicts and the reference session after it.
#[derive(Clone)]
struct Realised {
    events: Vec<Event>,
    records: Vec<Record>,
    session: Session,
}

/// What a realised prefix depends on: whether the user opened, the groups
/// after which an acknowledgement was inserted, the moves up to the
/// lookahead's end, and the group's end.
type RealisedKey = (bool, Vec<usize>, Vec<Move>, usize);

/// Builds witnesses for the deviations of one analysis, sharing realised
/// prefixes between deviations.
pub struct Builder<'a> {
    rt: Arc<BundleRuntime>,
    analysis: &'a Analysis,
    /// What the bundle's checks ask of the candidate values.
    hints: Hints,
    /// Realised prefixes by (moves up to the lookahead's end, group end).
    done: BTreeMap<RealisedKey, Realised>,
}

impl<'a> Builder<'a> {
    /// A builder for the deviations of `analysis`, of the bundle of `rt`.
    pub fn new(rt: Arc<BundleRuntime>, analysis: &'a Analysis) -> Self {
        Builder {
            hints: Hints::of(&rt, &analysis.automaton),
            rt,
            analysis,
            done: BTreeMap::new(),
        }
    }

    /// The witness of `deviation`, confirmed by replay under every schedule.
    /// The shortest prefixes reaching its state are tried in turn (at most
    /// [`MAX_PATHS`]): the abstraction treats checks as independent, so one
    /// path may need contradictory data where another does not.
    pub fn witness(&mut self, deviation: &Deviation) -> Result<Witness, WitnessError> {
        let mut paths = vec![deviation.prefix.clone()];
        paths.extend(
            self.analysis
                .explored
                .shortest_paths(deviation.state_index, MAX_PATHS)
                .into_iter()
                .filter(|p| *p != deviation.prefix)
                // An instruction or claim deviates only on a path that
                // leaves its rule unmet.
                .filter(|p| {
                    !deviation.class.has_order_rule()
                        || self.analysis.automaton.unmet_after(p, &deviation.class)
                }),
        );
        let mut last = None;
        for prefix in paths {
            match self.witness_along(deviation, &prefix) {
                Err(e @ (WitnessError::Unrealised { .. } | WitnessError::Overtaken { .. })) => {
                    last = Some(e);
                }
                other => return other,
            }
        }
        Err(last.unwrap_or(WitnessError::Unrealised {
            step: deviation.node.clone(),
        }))
    }

    fn witness_along(
        &mut self,
        deviation: &Deviation,
        prefix: &[Move],
    ) -> Result<Witness, WitnessError> {
        let realised = self.realise(prefix)?;
        let mut events = realised.events;
        let n = events.len();
        events.extend(deviating_event(&self.rt, deviation, n));
        let witness = Witness {
            trace: Trace {
                meta: TraceMeta {
                    id: format!(
                        "witness {} {} at {}",
                        deviation.class.kind(),
                        deviation.class.tool(),
                        deviation.node
                    ),
                    control: Some(self.control()),
                    ..TraceMeta::default()
                },
                events,
            },
            verdicts: realised.records,
        };
        check(&self.rt, deviation, prefix, &witness)?;
        Ok(witness)
    }

    /// Realises `prefix`, group by group, reusing realised shorter prefixes.
    fn realise(&mut self, prefix: &[Move]) -> Result<Realised, WitnessError> {
        let groups = group_ends(prefix);
        let mut current = Realised {
            events: Vec::new(),
            records: Vec::new(),
            session: super::observe::reference_session(&self.rt, Some(self.control())),
        };
        // The user opens by stating the id every candidate uses, so a check
        // that the user said a value (`said(user, args.user_id)`) can hold
        // at the first call. Only when a later message or agent event
        // decides the turn position anyway: it must not change the state's.
        let opens = prefix.iter().any(|m| {
            matches!(
                m,
                Move::User { .. } | Move::Message { .. } | Move::Read { .. } | Move::Write { .. }
            )
        });
        if opens {
            push_all(
                &mut current,
                vec![Event::User {
                    text: format!("Hello, {ID} here."),
                }],
            )?;
        }
        let mut start = 0;
        let mut acks = Vec::new();
        for end in groups {
            // A call's values must also make the steps that follow it hold,
            // through the next [`LOOKAHEAD_CALLS`] calls and their groups (a
            // guard reads what an earlier call returned, e.g. a line read
            // two calls before its `resume_line`; those calls are probed
            // with their defaults): the key includes that lookahead.
            let horizon = lookahead_end(prefix, end);
            let key = (
                opens,
                acks.clone(),
                prefix.get(..horizon).unwrap_or_default().to_vec(),
                end,
            );
            let group = prefix.get(start..end).unwrap_or_default();
            let lookahead = prefix.get(end..horizon).unwrap_or_default();
            let next = match self.done.get(&key) {
                Some(cached) => cached.clone(),
                None => {
                    let realised = self.realise_group(&current, group, lookahead)?;
                    self.done.insert(key, realised.clone());
                    realised
                }
            };
            current = next;
            // The judge is asked only at agent events: a step the user's
            // message satisfied (a classification) whose node the prefix
            // judges again later (after the "anything else?" loop) gets its
            // first answer only if an agent event comes before the second.
            // A later message decides the turn position anyway.
            if self.judged_again(prefix, start, end) {
                push_all(
                    &mut current,
                    vec![Event::Agent {
                        text: "Noted.".to_owned(),
                    }],
                )?;
                acks.push(end);
            }
            start = end;
        }
        Ok(current)
    }

    /// Whether the group `start..end` of `prefix` is a user message
    /// satisfying a judged step whose node a later move judges again.
    fn judged_again(&self, prefix: &[Move], start: usize, end: usize) -> bool {
        let program = &self.rt.bundle.program;
        let node = |step: StepId| match program.step(step).map(|s| &s.origin) {
            Some(StepOrigin::Branch { decision, .. }) => *decision,
            _ => step,
        };
        let Some(Move::User {
            satisfies: Some(step),
        }) = prefix.get(start)
        else {
            return false;
        };
        let judged = node(*step);
        prefix.iter().skip(end).any(|m| {
            matches!(m, Move::User { satisfies: Some(s) } | Move::Message { satisfies: Some(s) }
                if node(*s) == judged)
        })
    }

    /// Realises one group (a move and the `Holds` moves after it) on top of
    /// `from`. A message is realised as it is; a call's values are searched
    /// by first-improvement hill climbing over its [`CallSpace`]: from the
    /// defaults, each single change (round-robin over the arguments and
    /// result fields) is tried and the first that satisfies more of the
    /// group's and the lookahead's steps (probed by realising the
    /// lookahead's moves with their defaults and one more agent event) is
    /// kept, until all hold, nothing improves or [`MAX_TRIES`] candidates
    /// were tried; then the best is taken and the final replay says whether
    /// it sufficed. Climbing reaches values that need two fields at once
    /// (a suspended line whose contract still runs) which no single change
    /// and no small product does.
    fn realise_group(
        &self,
        from: &Realised,
        group: &[Move],
        lookahead: &[Move],
    ) -> Result<Realised, WitnessError> {
        let Some(first) = group.first() else {
            return Ok(from.clone());
        };
        let Some(space) = self.call_space(first) else {
            let (events, records) = self
                .candidates(first, from.events.len())
                .into_iter()
                .next()
                .unwrap_or_default();
            let mut next = from.clone();
            next.records.extend(records);
            push_all(&mut next, events)?;
            return Ok(next);
        };
        let targets: Vec<StepId> = group
            .iter()
            .chain(lookahead)
            .filter_map(satisfies)
            .collect();
        let (mut best_held, mut best) = self.climb(from, &space, lookahead, &targets)?;
        // A guard may read an entity only a read the workflow never names
        // returns (retail's payment methods, from `get_user_details`, after
        // an identification by email): such a read is no move of the
        // automaton (it never deviates), so one may precede the call.
        let supports = satisfies(first)
            .and_then(|step| self.hints.supports.get(&step))
            .map_or(&[][..], Vec::as_slice);
        for tool in supports {
            if best_held == targets.len() {
                break;
            }
            let Some(support) = CallSpace::new(&self.rt, &self.hints, tool, Side::Agent, None)
            else {
                continue;
            };
            let mut base = from.clone();
            push_all(
                &mut base,
                support.events(&support.defaults(), from.events.len(), &from.events),
            )?;
            let (held, realised) = self.climb(&base, &space, lookahead, &targets)?;
            if held > best_held {
                (best_held, best) = (held, realised);
            }
        }
        Ok(best)
    }

    /// The hill climbing of [`Builder::realise_group`] for one call on top
    /// of `from`: how many `targets` the best values satisfy, and the prefix
    /// realised with them.
    fn climb(
        &self,
        from: &Realised,
        space: &CallSpace<'_>,
        lookahead: &[Move],
        targets: &[StepId],
    ) -> Result<(usize, Realised), WitnessError> {
        let k = from.events.len();
        let mut current = space.defaults();
        let (mut best_held, mut best) = self.try_values(
            from,
            &space.events(&current, k, &from.events),
            lookahead,
            targets,
        )?;
        let mut tried = 1;
        'climb: while best_held < targets.len() {
            let changes: Vec<Assignment> = space.single_changes(&current).collect();
            for candidate in changes {
                if tried >= MAX_TRIES {
                    break 'climb;
                }
                tried += 1;
                let (held, realised) = self.try_values(
                    from,
                    &space.events(&candidate, k, &from.events),
                    lookahead,
                    targets,
                )?;
                if held > best_held {
                    (best_held, best, current) = (held, realised, candidate);
                    continue 'climb;
                }
            }
            break;
        }
        Ok((best_held, best))
    }

    /// Realises one candidate call on top of `from` and counts the
    /// `targets` satisfied once the lookahead is probed after it.
    fn try_values(
        &self,
        from: &Realised,
        events: &[Event],
        lookahead: &[Move],
        targets: &[StepId],
    ) -> Result<(usize, Realised), WitnessError> {
        let mut next = from.clone();
        push_all(&mut next, events.to_vec())?;
        let mut probe = next.clone();
        for mv in lookahead {
            let (events, records) = self
                .candidates(mv, probe.events.len())
                .into_iter()
                .next()
                .unwrap_or_default();
            probe.records.extend(records);
            push_all(&mut probe, events)?;
        }
        push_all(
            &mut probe,
            vec![Event::Agent {
                text: "(probe)".to_owned(),
            }],
        )?;
        let held = targets
            .iter()
            .filter(|s| satisfied(&probe.session, **s))
            .count();
        Ok((held, next))
    }

    /// Who calls the device tools in the analysis (and so in its witnesses).
    fn control(&self) -> Control {
        self.analysis.automaton.control()
    }

    /// The value space of a call move (`None`: not a call).
    fn call_space(&self, mv: &Move) -> Option<CallSpace<'_>> {
        match mv {
            Move::Read { tool, .. } => {
                CallSpace::new(&self.rt, &self.hints, tool, Side::Agent, None)
            }
            Move::Write { tool, satisfies } => CallSpace::new(
                &self.rt,
                &self.hints,
                tool,
                Side::Agent,
                self.hints.confirms.get(satisfies),
            )
            .map(|space| CallSpace {
                confirm_reads: self.hints.confirms_reads.contains(satisfies),
                ..space
            }),
            // The user's device call, or the agent's under solo control.
            Move::UserTool { tool, .. } => {
                let requestor = match self.control() {
                    Control::Dual => Side::User,
                    Control::Solo => Side::Agent,
                };
                CallSpace::new(&self.rt, &self.hints, tool, requestor, None)
            }
            Move::Holds { .. } | Move::User { .. } | Move::Message { .. } => None,
        }
    }

    /// The events (and verdicts) realising `mv` at event `k` by default: a
    /// message, a call with its default values, nothing for `Holds`.
    fn candidates(&self, mv: &Move, k: usize) -> Vec<(Vec<Event>, Vec<Record>)> {
        match mv {
            Move::Holds { .. } => vec![(Vec::new(), Vec::new())],
            Move::User { satisfies } => vec![message(
                &self.rt,
                // The user states the id every candidate uses, so checks
                // that the user said a value (`said(user, args.user_id)`)
                // can hold.
                Event::User {
                    text: format!("Yes, that is right; it is {ID}. Please go ahead."),
                },
                *satisfies,
                k,
            )],
            Move::Message { satisfies } => vec![message(
                &self.rt,
                Event::Agent {
                    text: "Here is where things stand.".to_owned(),
                },
                *satisfies,
                k,
            )],
            Move::Read { .. } | Move::Write { .. } | Move::UserTool { .. } => self
                .call_space(mv)
                .map(|space| (space.events(&space.defaults(), k, &[]), Vec::new()))
                .into_iter()
                .collect(),
        }
    }
}

/// Where the lookahead of the group ending at `end` ends: after the group of
/// the [`LOOKAHEAD_CALLS`]th call from there (or the prefix's end).
fn lookahead_end(prefix: &[Move], end: usize) -> usize {
    let mut calls = 0;
    for (i, mv) in prefix.iter().enumerate().skip(end) {
        if mv.is_call() {
            if calls == LOOKAHEAD_CALLS {
                return i;
            }
            calls += 1;
        } else if calls == LOOKAHEAD_CALLS && !matches!(mv, Move::Holds { .. }) {
            return i;
        }
    }
    prefix.len()
}

/// Pushes `events` into the realised prefix's session, judged by its verdicts.
fn push_all(into: &mut Realised, events: Vec<Event>) -> Result<(), WitnessError> {
    let judge = recorded(&into.records);
    for event in events {
        into.session.push(event.clone(), &judge)?;
        into.events.push(event);
    }
    Ok(())
}

/// Replays `witness` under every schedule and compares the first deviation
/// with the prediction for `prefix` (the moves the witness realises): the same event (the last call), class and coverage,
/// and every step the prefix satisfies satisfied.
pub fn check(
    rt: &Arc<BundleRuntime>,
    deviation: &Deviation,
    prefix: &[Move],
    witness: &Witness,
) -> Result<(), WitnessError> {
    let judge = witness.judge();
    let seen = observe::deviations_under(rt, &witness.trace, &Schedule::ALL, &judge)?;
    // The deviating event is the last call (a read's result follows it), or
    // the last event for an instruction or claim.
    let last = if deviation.class.is_message() {
        witness.trace.events.len().saturating_sub(1)
    } else {
        witness
            .trace
            .events
            .iter()
            .rposition(|e| matches!(e, Event::Call { .. }))
            .unwrap_or(0)
    };
    // What the prefix alone satisfied: the deviating event's own result
    // (a read's) may satisfy steps of its tool the prefix did not reach.
    let prefix_trace = Trace {
        meta: witness.trace.meta.clone(),
        events: witness
            .trace
            .events
            .get(..last)
            .unwrap_or_default()
            .to_vec(),
    };
    let reached = observe::satisfied_after(rt, &prefix_trace, &judge)?;
    match compare(rt, deviation, prefix, &reached, seen, last) {
        // A replay that misses the prediction because the request went past
        // the abstract state (a step off the prefix satisfied, e.g. a step
        // of an earlier request still waiting) is the abstraction's one-path
        // view, not a disagreement; one that still shows exactly the
        // predicted deviation is confirmed regardless.
        Err(WitnessError::Disagrees(why)) => {
            if let Some(step) = overtaken(rt, prefix, &reached) {
                return Err(WitnessError::Overtaken { step });
            }
            // A protected read the automaton finds unidentified, since the
            // prefix satisfied none of its identification steps, that the
            // engine permits: some request satisfied one along another
            // path (a branch the prefix did not take also held).
            if let AgentClass::Read(tool) = &deviation.class
                && deviation.why == crate::coverage::Why::NotIdentified
                && let Some(step) = observe::identification_after(rt, &prefix_trace, &judge, tool)?
            {
                return Err(WitnessError::Overtaken { step });
            }
            // A write the automaton finds unauthorized that the engine
            // allows through an authorization the prefix did not reach:
            // another path the data allows (a branch's other outcome).
            if let AgentClass::Write(tool) = &deviation.class {
                let after = observe::satisfied_after(rt, &witness.trace, &judge)?;
                let on_path: Vec<&str> = prefix
                    .iter()
                    .filter_map(satisfies)
                    .map(|s| rt.step_name(s))
                    .collect();
                // Some branch off the prefix held: the engine went along
                // another path (else the write was authorized on the
                // prefix's own path, and that is a disagreement).
                let branched = rt.bundle.program.steps.iter().any(|s| {
                    matches!(s.origin, StepOrigin::Branch { .. })
                        && reached.contains(&s.name)
                        && !on_path.contains(&s.name.as_str())
                });
                let off_path = rt
                    .bundle
                    .program
                    .steps
                    .iter()
                    .filter(|_| branched)
                    .find(|s| {
                        matches!(s.timing, turnstile_rules::Timing::Call(t)
                        if rt.bundle.interner.resolve(t) == tool.as_str())
                            && after.contains(&s.name)
                            && !on_path.contains(&s.name.as_str())
                    });
                if let Some(step) = off_path {
                    return Err(WitnessError::Overtaken {
                        step: step.name.clone(),
                    });
                }
            }
            Err(WitnessError::Disagrees(why))
        }
        other => other,
    }
}

/// Compares what the replay showed under each schedule (`seen`) with the
/// prediction: the deviating event `last`, its class and coverage, and
/// every step of `prefix` satisfied.
fn compare(
    rt: &BundleRuntime,
    deviation: &Deviation,
    prefix: &[Move],
    reached: &std::collections::BTreeSet<String>,
    seen: Vec<Vec<observe::Observed>>,
    last: usize,
) -> Result<(), WitnessError> {
    for (schedule, observed) in Schedule::ALL.into_iter().zip(seen) {
        let Some(seen) = observed.into_iter().next() else {
            if let Some(step) = prefix
                .iter()
                .filter_map(satisfies)
                .map(|s| rt.step_name(s))
                .find(|name| !reached.contains(*name))
            {
                return Err(WitnessError::Unrealised {
                    step: step.to_owned(),
                });
            }
            return Err(WitnessError::Disagrees(format!(
                "no deviation under {schedule}; predicted {} {} at event {last}",
                deviation.class.kind(),
                deviation.class.tool()
            )));
        };
        let missing = prefix
            .iter()
            .filter_map(satisfies)
            .map(|s| rt.step_name(s))
            .find(|name| !seen.satisfied.contains(*name));
        if let Some(step) = missing {
            return Err(WitnessError::Unrealised {
                step: step.to_owned(),
            });
        }
        // An event of the prefix itself deviates: these values did not
        // realise a valid prefix (a one-shot guard meeting the same id `W1`
        // again, say); the state is not reached, nothing is contradicted.
        if (seen.event.0 as usize) < last {
            return Err(WitnessError::Unrealised {
                step: format!(
                    "{} (its {} {} at event {} deviates)",
                    deviation.node,
                    seen.class.kind(),
                    seen.class.tool(),
                    seen.event.0
                ),
            });
        }
        let predicted_cover = deviation.covered_by(schedule);
        if seen.event.0 as usize != last
            || seen.class != deviation.class
            || seen.covered != predicted_cover
            || !seen.satisfied.contains(&deviation.node)
        {
            return Err(WitnessError::Disagrees(format!(
                "under {schedule}: predicted {} {} at event {last} after {} (covered: {predicted_cover}); \
                 replay: {} {} at event {} (covered: {}), satisfied {:?}",
                deviation.class.kind(),
                deviation.class.tool(),
                deviation.node,
                seen.class.kind(),
                seen.class.tool(),
                seen.event,
                seen.covered,
                seen.satisfied
            )));
        }
    }
    Ok(())
}

/// A step the engine satisfied that is decided by an event (a call or a
/// judged step) and that the prefix does not satisfy, by name.
fn overtaken(
    rt: &BundleRuntime,
    prefix: &[Move],
    reached: &std::collections::BTreeSet<String>,
) -> Option<String> {
    let on_path: Vec<StepId> = prefix.iter().filter_map(satisfies).collect();
    rt.bundle
        .program
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.semantic || s.timing != turnstile_rules::Timing::State)
        .filter(|(i, _)| {
            u32::try_from(*i)
                .map(StepId)
                .is_ok_and(|id| !on_path.contains(&id))
        })
        .find(|(_, s)| reached.contains(&s.name))
        .map(|(_, s)| s.name.clone())
}

fn satisfies(mv: &Move) -> Option<StepId> {
    match mv {
        Move::Holds { step } => Some(*step),
        Move::User { satisfies } | Move::Message { satisfies } | Move::Read { satisfies, .. } => {
            *satisfies
        }
        Move::Write { satisfies, .. } | Move::UserTool { satisfies, .. } => Some(*satisfies),
    }
}

/// A move, in words.
pub fn describe(mv: &Move) -> String {
    match mv {
        Move::Holds { step } => format!("step {} holds", step.0),
        Move::User { .. } => "user message".to_owned(),
        Move::Message { .. } => "agent message".to_owned(),
        Move::Read { tool, .. } => format!("read {tool}"),
        Move::Write { tool, .. } => format!("write {tool}"),
        Move::UserTool { tool, .. } => format!("user calls {tool}"),
    }
}

/// Where each group of `prefix` ends: a group is a move with the `Holds`
/// moves right after it.
fn group_ends(prefix: &[Move]) -> Vec<usize> {
    let mut ends = Vec::new();
    for (i, mv) in prefix.iter().enumerate() {
        if i > 0 && !matches!(mv, Move::Holds { .. }) {
            ends.push(i);
        }
    }
    if !prefix.is_empty() {
        ends.push(prefix.len());
    }
    ends
}

fn satisfied(session: &Session, step: StepId) -> bool {
    session.monitor().evidence().keys().any(|(s, _)| *s == step)
}

/// A message event and, if it satisfies a dialogue step, the verdict citing it.
fn message(
    rt: &BundleRuntime,
    event: Event,
    step: Option<StepId>,
    k: usize,
) -> (Vec<Event>, Vec<Record>) {
    let records = step
        .and_then(|s| verdict_for(rt, s, k))
        .into_iter()
        .collect();
    (vec![event], records)
}

/// The recorded verdict that satisfies dialogue step `step` at event `k`.
fn verdict_for(rt: &BundleRuntime, step: StepId, k: usize) -> Option<Record> {
    let program = &rt.bundle.program;
    let evidence_event = u32::try_from(k).ok()?;
    let (node, verdict) = match &program.step(step)?.origin {
        StepOrigin::Node => (
            program.step(step)?.name.clone(),
            Verdict::Satisfied { evidence_event },
        ),
        StepOrigin::Branch { decision, label } => (
            program.step(*decision)?.name.clone(),
            Verdict::Chosen {
                label: label.clone(),
                evidence_event,
            },
        ),
    };
    Some(Record {
        node,
        bundle: None,
        slice: None,
        at_event: None,
        verdict,
        rationale: Some("coverage witness".to_owned()),
    })
}

/// The event that deviates: a protected read with default values before
/// its identification (naming an id no result carried after it, so its
/// guard fails), a write naming an id no result carried, the solo agent's
/// call of a device fix, or an agent message naming the fix it instructs or
/// making the claim in the bundle's first phrase for it.
fn deviating_event(rt: &BundleRuntime, deviation: &Deviation, k: usize) -> Vec<Event> {
    let class = &deviation.class;
    let id = format!("c{k}");
    let tool = rt.bundle.domain.tool(class.tool());
    match class {
        AgentClass::Read(name) => vec![
            Event::Call {
                id: id.clone(),
                tool: name.clone(),
                args: tool.map_or(json!({}), |t| {
                    let named = match deviation.why {
                        crate::coverage::Why::GuardFails => UNREAD_ID,
                        _ => ID,
                    };
                    default_args(t, &rt.bundle.domain, named)
                }),
                requestor: Side::Agent,
            },
            Event::Result {
                id,
                ok: true,
                content: tool.map_or(json!({}), |t| default_result(t, &rt.bundle.domain)),
            },
        ],
        AgentClass::Write(name) => vec![Event::Call {
            id,
            tool: name.clone(),
            args: tool.map_or(json!({}), |t| default_args(t, &rt.bundle.domain, UNREAD_ID)),
            requestor: Side::Agent,
        }],
        // The session finds the solo agent's fix at its call.
        AgentClass::DeviceCall(name) => vec![Event::Call {
            id,
            tool: name.clone(),
            args: tool.map_or(json!({}), |t| default_args(t, &rt.bundle.domain, ID)),
            requestor: Side::Agent,
        }],
        // The session finds an instruction by the fix's name in the text.
        AgentClass::Instruct(name) => vec![Event::Agent {
            text: format!("Please run {name} on your phone now."),
        }],
        AgentClass::Claim(id) => {
            let phrase = rt
                .bundle
                .claims
                .iter()
                .find(|c| c.id == *id)
                .and_then(|c| c.phrases.first())
                .map_or(id.as_str(), String::as_str);
            vec![Event::Agent {
                text: format!("Thank you for waiting: your {phrase}."),
            }]
        }
    }
}

/// What the bundle's checks ask of a witness's values, read once per bundle.
struct Hints {
    /// The literals each field or argument is compared with.
    literals: Literals,
    /// Arguments a check requires to differ from another argument
    /// (`args.new_item_ids[*] != args.item_ids[*]`, the left one) or to be
    /// missing from a list (`!(args.payment_method_id in ...)`): they name
    /// the second record, [`ID2`], by default.
    distinct: std::collections::BTreeSet<String>,
    /// Whether results carry a second record (some argument is distinct).
    twins: bool,
    /// Per authorization step whose guard asks for `confirmed(...)`: the
    /// words of its first such call (`"exchange"`), which the agent's summary
    /// names beside the call's argument values.
    confirms: BTreeMap<StepId, Vec<String>>,
    /// The authorization steps whose first `confirmed(...)` names a value
    /// read earlier (`plan[line[$line].plan_id].refuel_price_per_gb`): their
    /// summary also names what the conversation's results returned.
    confirms_reads: std::collections::BTreeSet<StepId>,
    /// Per step with a check: the agent's read tools no step names (never
    /// a deviation) that read an entity the check mentions, in name order:
    /// one may be called before the step's call to supply it.
    supports: BTreeMap<StepId, Vec<String>>,
}

impl Hints {
    /// The hints of the bundle of `rt`, whose automaton is `automaton`: the
    /// read tools some step names are its moves, not supports, and a read
    /// whose result changes an order rule (a diagnosis, a verification)
    /// would change the path's flags, so neither supports a call.
    fn of(rt: &BundleRuntime, automaton: &Automaton) -> Hints {
        let resolve = |v: &Json| symbol_name(rt, v);
        let program = &rt.bundle.program;
        let tree_of = |id| {
            program
                .checks
                .get(id)
                .and_then(|c| serde_json::to_value(c).ok())
        };
        let mut distinct = std::collections::BTreeSet::new();
        for (id, _) in program.checks.iter() {
            let Some(tree) = tree_of(id) else { continue };
            let arg_name = |operand: Option<&Json>| {
                operand
                    .and_then(|o| o.get("Arg"))
                    .and_then(Json::as_array)
                    .and_then(|steps| steps.iter().rev().find_map(|s| s.get("Key")))
                    .and_then(resolve)
            };
            let mut comparisons = Vec::new();
            collect_keyed(&tree, "Compare", &mut comparisons);
            for compare in comparisons {
                if compare.get("op").and_then(Json::as_str) == Some("Ne")
                    && let (Some(left), Some(_)) =
                        (arg_name(compare.get("lhs")), arg_name(compare.get("rhs")))
                {
                    distinct.insert(left);
                }
            }
            // `!(args.payment_method_id in order[$order].payment_method_ids)`:
            // another record than the one the order names.
            let mut negated = Vec::new();
            collect_keyed(&tree, "Not", &mut negated);
            for not in negated {
                if let Some(name) = arg_name(not.get("Contains").and_then(|c| c.get("item"))) {
                    distinct.insert(name);
                }
            }
        }
        let domain = &rt.bundle.domain;
        let free_reads: Vec<&Tool> = domain
            .tools
            .values()
            .filter(|t| {
                t.side == Side::Agent
                    && t.kind == crate::bundle::model::ToolKind::Read
                    && !automaton.reads().contains(&t.name)
                    && !automaton.changes_rules(&t.name)
            })
            .collect();
        let mut supports = BTreeMap::new();
        for (i, step) in program.steps.iter().enumerate() {
            let (Some(check), Ok(id)) = (step.check, u32::try_from(i)) else {
                continue;
            };
            let Some(tree) = tree_of(check) else { continue };
            let mut fields = Vec::new();
            collect_keyed(&tree, "Field", &mut fields);
            let entities: std::collections::BTreeSet<String> = fields
                .iter()
                .filter_map(|f| f.get("entity").and_then(resolve))
                .collect();
            let tools: Vec<String> = free_reads
                .iter()
                .filter(|t| t.reads.iter().any(|r| entities.contains(&r.entity)))
                .map(|t| t.name.clone())
                .collect();
            if !tools.is_empty() {
                supports.insert(StepId(id), tools);
            }
        }
        let mut confirms = BTreeMap::new();
        let mut confirms_reads = std::collections::BTreeSet::new();
        for (i, step) in program.steps.iter().enumerate() {
            let (Some(_), Some(check), Ok(id)) = (step.authorizes, step.check, u32::try_from(i))
            else {
                continue;
            };
            let Some(tree) = tree_of(check) else { continue };
            let mut calls = Vec::new();
            collect_keyed(&tree, "Confirmed", &mut calls);
            if let Some(first) = calls.first() {
                let mut words = Vec::new();
                collect_words(first, &resolve, &mut words);
                confirms.insert(StepId(id), words);
                let mut fields = Vec::new();
                collect_keyed(first, "Field", &mut fields);
                if !fields.is_empty() {
                    confirms_reads.insert(StepId(id));
                }
            }
        }
        Hints {
            literals: literals(rt),
            twins: !distinct.is_empty(),
            distinct,
            confirms,
            confirms_reads,
            supports,
        }
    }
}

/// The name of the interned symbol a serialised check holds as `v`.
fn symbol_name(rt: &BundleRuntime, v: &Json) -> Option<String> {
    v.as_u64().and_then(|n| u32::try_from(n).ok()).map(|n| {
        rt.bundle
            .interner
            .resolve(turnstile_rules::Symbol(n))
            .to_owned()
    })
}

/// The values under `key` anywhere in a serialised check.
fn collect_keyed<'j>(tree: &'j Json, key: &str, out: &mut Vec<&'j Json>) {
    match tree {
        Json::Object(map) => {
            for (k, value) in map {
                if k == key {
                    out.push(value);
                }
                collect_keyed(value, key, out);
            }
        }
        Json::Array(items) => items.iter().for_each(|i| collect_keyed(i, key, out)),
        _ => {}
    }
}

/// The string constants under a serialised operand list.
fn collect_words(tree: &Json, resolve: &dyn Fn(&Json) -> Option<String>, out: &mut Vec<String>) {
    let mut constants = Vec::new();
    collect_keyed(tree, "Const", &mut constants);
    for constant in constants {
        if let Ok(turnstile_rules::Value::Str(sym)) =
            serde_json::from_value::<turnstile_rules::Value>(constant.clone())
            && let Some(word) = resolve(&json!(sym.0))
        {
            out.push(word);
        }
    }
}

/// Per field or argument name: the literals some check of the bundle
/// compares it with (`line[$line].status == "Suspended"`,
/// `contract_end_date >= date("2025-02-25")`, `args.gb_amount <= 2`), as
/// candidate JSON values of each value type.
type Literals = BTreeMap<String, Vec<Json>>;

/// Collects [`Literals`] from the compiled checks: in each comparison,
/// membership or count, every constant is a candidate for every field and
/// argument it mentions (an integer one also off by one, a date also the
/// day after, so strict comparisons can hold too).
fn literals(rt: &BundleRuntime) -> Literals {
    let resolve = |v: &Json| symbol_name(rt, v);
    let mut out: Literals = BTreeMap::new();
    for (_, check) in rt.bundle.program.checks.iter() {
        let Ok(tree) = serde_json::to_value(check) else {
            continue;
        };
        let mut comparisons = Vec::new();
        collect_comparisons(&tree, &mut comparisons);
        for node in comparisons {
            let (mut names, mut values) = (Vec::new(), Vec::new());
            collect_operands(node, &resolve, &mut names, &mut values);
            // `now()` (serialised as the bare name) is the clock's instant.
            let mut nows = 0;
            collect_now(node, &mut nows);
            if nows > 0 {
                values.extend(now_literals(rt));
            }
            for name in names {
                let list = out.entry(name).or_default();
                for v in &values {
                    if !list.contains(v) {
                        list.push(v.clone());
                    }
                }
            }
        }
    }
    out
}

/// The comparison-like nodes of a serialised check.
fn collect_comparisons<'j>(tree: &'j Json, out: &mut Vec<&'j Json>) {
    match tree {
        Json::Object(map) => {
            for (key, value) in map {
                if matches!(
                    key.as_str(),
                    "Compare" | "OneOf" | "CountEqual" | "Contains"
                ) {
                    out.push(value);
                }
                collect_comparisons(value, out);
            }
        }
        Json::Array(items) => items.iter().for_each(|i| collect_comparisons(i, out)),
        _ => {}
    }
}

/// The field and argument names and the constants (as candidate JSON) under
/// one serialised comparison.
fn collect_operands(
    tree: &Json,
    resolve: &dyn Fn(&Json) -> Option<String>,
    names: &mut Vec<String>,
    values: &mut Vec<Json>,
) {
    use turnstile_rules::Value;
    match tree {
        Json::Object(map) => {
            for (key, value) in map {
                match key.as_str() {
                    "Field" => names.extend(value.get("field").and_then(resolve)),
                    "Arg" => names.extend(
                        value
                            .as_array()
                            .and_then(|steps| steps.iter().rev().find_map(|s| s.get("Key")))
                            .and_then(resolve),
                    ),
                    "Const" => match serde_json::from_value::<Value>(value.clone()) {
                        Ok(Value::Str(sym)) => {
                            values.push(json!(resolve(&json!(sym.0)).unwrap_or_default()));
                        }
                        Ok(Value::Int(i)) => {
                            values.extend([json!(i), json!(i.saturating_add(1))]);
                        }
                        Ok(Value::Amount(a)) => {
                            values.extend(serde_json::from_str::<Json>(&a.to_string()));
                        }
                        Ok(Value::Date(d)) => values.extend([
                            json!(d.to_string()),
                            json!(turnstile_rules::Date(d.0.saturating_add(1)).to_string()),
                        ]),
                        Ok(Value::DateTime(t)) => values.push(json!(t.to_string())),
                        _ => {}
                    },
                    _ => {}
                }
                collect_operands(value, resolve, names, values);
            }
        }
        Json::Array(items) => items
            .iter()
            .for_each(|i| collect_operands(i, resolve, names, values)),
        _ => {}
    }
}

/// Counts the `now()` operands under a serialised comparison.
fn collect_now(tree: &Json, count: &mut usize) {
    match tree {
        Json::String(name) if name == "Now" => *count += 1,
        Json::Object(map) => map.values().for_each(|v| collect_now(v, count)),
        Json::Array(items) => items.iter().for_each(|i| collect_now(i, count)),
        _ => {}
    }
}

/// What `now()` stands for in a witness: the bundle's fixed instant, as a
/// date-time and as its day and the day after (so `flight_dates > now()`
/// can hold too); nothing on a clock that is not fixed.
fn now_literals(rt: &BundleRuntime) -> Vec<Json> {
    match rt.bundle.clock {
        Some(crate::clock::Clock::Fixed(at)) => vec![
            json!(at.to_string()),
            json!(at.date().to_string()),
            json!(turnstile_rules::Date(at.date().0.saturating_add(1)).to_string()),
        ],
        _ => Vec::new(),
    }
}

/// `options` with the literals of `name` that fit its type right after the
/// first (the default stays first; the literals are tried before the rest).
fn with_literals(options: Vec<Json>, ty: &ValueType, literals: Option<&Vec<Json>>) -> Vec<Json> {
    fn fits(ty: &ValueType, v: &Json) -> bool {
        match ty {
            ValueType::Str => v.is_string(),
            ValueType::Int => v.is_i64() || v.is_u64(),
            ValueType::Amount => v.is_number(),
            ValueType::Date => v.as_str().is_some_and(|s| s.len() == 10),
            ValueType::DateTime => v.as_str().is_some_and(|s| s.len() > 10),
            _ => false,
        }
    }
    // A list compared with a literal (`flight_dates > date(...)`, element
    // by element) takes it as its one element.
    let fitting: Vec<Json> = literals
        .into_iter()
        .flatten()
        .filter_map(|v| match ty {
            ValueType::List(inner) => fits(inner, v).then(|| json!([v])),
            _ => fits(ty, v).then(|| v.clone()),
        })
        .collect();
    let mut out: Vec<Json> = options.iter().take(1).cloned().collect();
    for v in fitting.iter().chain(options.iter().skip(1)) {
        if !out.contains(v) {
            out.push(v.clone());
        }
    }
    out
}

/// The values one call may take: an option list per argument and per result
/// field (`spec:field`), each default first.
struct CallSpace<'r> {
    tool: &'r Tool,
    requestor: Side,
    dimensions: Vec<(String, Vec<Json>)>,
    /// Words the user must confirm before the call (its guard's
    /// `confirmed(...)`): the call is preceded by the agent's summary naming
    /// them and its argument values, and the user's yes.
    confirm: Option<&'r [String]>,
    /// Whether the confirmed values include read ones: the summary also
    /// names the values of the results before the call.
    confirm_reads: bool,
    /// Each record list of the result carries a second record ([`ID2`]).
    twins: bool,
}

/// One value per dimension of a [`CallSpace`].
type Assignment = Vec<(String, Json)>;

impl<'r> CallSpace<'r> {
    fn new(
        rt: &'r BundleRuntime,
        hints: &'r Hints,
        tool: &str,
        requestor: Side,
        confirm: Option<&'r Vec<String>>,
    ) -> Option<CallSpace<'r>> {
        let literals = &hints.literals;
        let domain = &rt.bundle.domain;
        let spec = domain.tool(tool)?;
        let enum_words: Vec<String> = domain
            .enums
            .values()
            .flat_map(|e| e.values.iter().cloned())
            .collect();
        let resolve = |sym| rt.bundle.interner.resolve(sym).to_owned();
        let dimensions = spec
            .params
            .iter()
            .map(|(name, ty)| {
                let mut values = with_literals(
                    options(ty, domain, &enum_words, &resolve, true),
                    ty,
                    literals.get(name),
                );
                // An argument a check requires to differ from another one
                // names the second record by default.
                if hints.distinct.contains(name) {
                    values.insert(0, with_id(ty, ID2));
                }
                (name.clone(), values)
            })
            .chain(result_options(spec, domain, &resolve, Some(literals)))
            .filter(|(_, values)| !values.is_empty())
            .collect();
        Some(CallSpace {
            tool: spec,
            requestor,
            dimensions,
            confirm: confirm.map(Vec::as_slice),
            confirm_reads: false,
            twins: hints.twins,
        })
    }

    /// Every dimension at its first option.
    fn defaults(&self) -> Assignment {
        self.dimensions
            .iter()
            .filter_map(|(name, values)| Some((name.clone(), values.first()?.clone())))
            .collect()
    }

    /// `from` with one dimension changed, round-robin over the dimensions:
    /// every one gets its next option (its first literal, if any) before
    /// any gets a further one.
    fn single_changes<'a>(&'a self, from: &'a Assignment) -> impl Iterator<Item = Assignment> + 'a {
        let widest = self
            .dimensions
            .iter()
            .map(|(_, v)| v.len())
            .max()
            .unwrap_or(0);
        (0..widest).flat_map(move |level| {
            self.dimensions.iter().filter_map(move |(name, values)| {
                let value = values.get(level)?;
                let current = from.iter().find(|(n, _)| n == name).map(|(_, v)| v);
                (current != Some(value)).then(|| {
                    from.iter()
                        .map(|(n, v)| {
                            (n.clone(), if n == name { value.clone() } else { v.clone() })
                        })
                        .collect()
                })
            })
        })
    }

    /// The call and its successful result carrying `values`, at event `k`
    /// after the events `before` (and after the confirmation it needs, if
    /// any).
    fn events(&self, values: &Assignment, k: usize, before: &[Event]) -> Vec<Event> {
        let (args, fields): (Vec<_>, Vec<_>) = values
            .iter()
            .cloned()
            .partition(|(name, _)| self.tool.params.contains_key(name));
        let mut events = Vec::new();
        if let Some(words) = self.confirm {
            let mut named: Vec<String> = Vec::new();
            for (_, value) in &args {
                scalars(value, &mut named);
            }
            if self.confirm_reads {
                for event in before {
                    if let Event::Result {
                        ok: true, content, ..
                    } = event
                    {
                        scalars(content, &mut named);
                    }
                }
                named.sort();
                named.dedup();
            }
            events.push(Event::Agent {
                text: format!(
                    "To confirm: {} for {}. Shall I proceed?",
                    words.join(", "),
                    named.join(", ")
                ),
            });
            events.push(Event::User {
                text: "Yes, please go ahead.".to_owned(),
            });
        }
        let id = format!("c{}", k + events.len());
        events.push(Event::Call {
            id: id.clone(),
            tool: self.tool.name.clone(),
            args: Json::Object(args.into_iter().collect()),
            requestor: self.requestor,
        });
        events.push(Event::Result {
            id,
            ok: true,
            content: build_result(self.tool, &fields, self.twins),
        });
        events
    }
}

/// Candidate JSON values of a type; `wide`: strings may be enum literals too.
fn options(
    ty: &ValueType,
    domain: &crate::schema::Domain,
    enum_words: &[String],
    resolve: &dyn Fn(turnstile_rules::Symbol) -> String,
    wide: bool,
) -> Vec<Json> {
    match ty {
        ValueType::Str if wide => std::iter::once(json!(ID))
            .chain(enum_words.iter().map(|w| json!(w)))
            .collect(),
        ValueType::Str => vec![json!(ID)],
        ValueType::Int => vec![json!(1), json!(0)],
        ValueType::Amount => vec![json!(10), json!(0)],
        ValueType::Bool => vec![json!(true), json!(false)],
        ValueType::Date => vec![json!("2024-05-15")],
        ValueType::DateTime => vec![json!("2024-05-15T10:00:00")],
        // No field or parameter is declared a duration.
        ValueType::Duration => Vec::new(),
        ValueType::Enum(sym) => {
            let name = resolve(*sym);
            domain
                .enums
                .get(&name)
                .map(|e| e.values.iter().map(|v| json!(v)).collect())
                .unwrap_or_default()
        }
        ValueType::List(inner) => options(inner, domain, enum_words, resolve, false)
            .into_iter()
            .take(1)
            .map(|v| json!([v]))
            .collect(),
        ValueType::Object(fields) => {
            let mut object = Map::new();
            for (name, ty) in fields {
                if let Some(v) = options(ty, domain, enum_words, resolve, false)
                    .into_iter()
                    .next()
                {
                    object.insert(resolve(*name), v);
                }
            }
            vec![Json::Object(object)]
        }
    }
}

/// Options per `(read spec index, field)` of a tool's result; with
/// `literals`, each field's check literals too.
fn result_options(
    tool: &Tool,
    domain: &crate::schema::Domain,
    resolve: &dyn Fn(turnstile_rules::Symbol) -> String,
    literals: Option<&Literals>,
) -> Vec<(String, Vec<Json>)> {
    let mut out = Vec::new();
    for (i, read) in tool.reads.iter().enumerate() {
        if let Some(text) = &read.text {
            // A report's field is decided by the phrase it contains: each
            // pattern's phrase, the fallback by none.
            for (field, patterns) in &text.fields {
                let phrases = patterns
                    .iter()
                    .map(|(needle, _)| json!(needle.clone().unwrap_or_default()))
                    .collect();
                out.push((format!("{i}:{field}"), phrases));
            }
            continue;
        }
        let Some(entity) = domain.entities.get(&read.entity) else {
            continue;
        };
        for (field, ty) in &entity.fields {
            if read.fields.contains_key(field) {
                let plain = options(ty, domain, &[], resolve, false);
                let values = match literals {
                    Some(l) => with_literals(plain, ty, l.get(field)),
                    None => plain,
                };
                out.push((format!("{i}:{field}"), values));
            }
        }
    }
    out
}

/// A tool's default arguments: every value its first candidate, ids `id`.
fn default_args(tool: &Tool, domain: &crate::schema::Domain, id: &str) -> Json {
    let resolve = |_| String::new();
    let mut args = Map::new();
    for (name, ty) in &tool.params {
        let value = match ty {
            ValueType::Str => json!(id),
            ValueType::List(inner) if **inner == ValueType::Str => json!([id]),
            _ => options(ty, domain, &[], &resolve, false)
                .into_iter()
                .next()
                .unwrap_or(Json::Null),
        };
        args.insert(name.clone(), value);
    }
    Json::Object(args)
}

/// A tool's default result: each field at its first candidate.
fn default_result(tool: &Tool, domain: &crate::schema::Domain) -> Json {
    let resolve = |_| String::new();
    let fields: Vec<(String, Json)> = result_options(tool, domain, &resolve, None)
        .into_iter()
        .filter_map(|(k, v)| Some((k, v.into_iter().next()?)))
        .collect();
    build_result(tool, &fields, false)
}

/// The result JSON carrying `fields` (keyed `spec:field`) at the paths the
/// tool's read specs name, every record id [`ID`]; with `twins`, each record
/// list also holds a copy of its record with the id [`ID2`].
fn build_result(tool: &Tool, fields: &[(String, Json)], twins: bool) -> Json {
    if tool.reads.iter().any(|r| r.text.is_some()) {
        return text_report(fields);
    }
    let mut root = Json::Null;
    for (i, read) in tool.reads.iter().enumerate() {
        let mut record = Json::Null;
        let mut from_root: Vec<(&JsonPath, Json)> = Vec::new();
        let each = read.each.is_some();
        // A composite id (`key`) is made of other fields and the call's
        // arguments, which the witness fills as it fills any of them.
        if read.key.is_empty()
            && let Some(p) = place(each, &read.id, json!(ID), &mut record)
        {
            from_root.push(p);
        }
        for (field, path) in &read.fields {
            let key = format!("{i}:{field}");
            let Some(value) = fields
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
            else {
                continue;
            };
            let value = match (&value, path.selects_many()) {
                (Json::Array(items), true) => items.first().cloned().unwrap_or(Json::Null),
                _ => value,
            };
            if let Some(p) = place(each, path, value, &mut record) {
                from_root.push(p);
            }
        }
        match &read.each {
            Some(each) => set_path(&mut root, &each.steps, record),
            None => merge(&mut root, record),
        }
        for (path, value) in from_root {
            set_path(&mut root, &path.steps, value);
        }
    }
    if twins {
        for read in &tool.reads {
            if let Some(each) = &read.each
                && !read.id.from_root
            {
                add_twin(&mut root, &each.steps, &read.id.steps);
            }
        }
    }
    if root.is_null() { json!({}) } else { root }
}

/// Adds, to the record list at `steps` (under `at`), a copy of its first
/// record whose id (at `id` within the record) is [`ID2`], unless there is
/// one already.
fn add_twin(at: &mut Json, steps: &[JsonStep], id: &[JsonStep]) {
    let Some((step, rest)) = steps.split_first() else {
        return;
    };
    let twin = |first: &Json| {
        let mut copy = first.clone();
        set_path(&mut copy, id, json!(ID2));
        copy
    };
    match (step, at) {
        (JsonStep::Key(key), Json::Object(map)) => {
            if let Some(next) = map.get_mut(key) {
                add_twin(next, rest, id);
            }
        }
        (JsonStep::Index(i), Json::Array(items)) => {
            if let Some(next) = items.get_mut(*i) {
                add_twin(next, rest, id);
            }
        }
        (JsonStep::EachItem, Json::Array(items)) if rest.is_empty() => {
            if items.len() == 1
                && let Some(first) = items.first()
            {
                let copy = twin(first);
                items.push(copy);
            }
        }
        (JsonStep::EachValue, Json::Object(map)) if rest.is_empty() => {
            if !map.contains_key(ID2)
                && let Some(first) = map.get(ID)
            {
                let copy = twin(first);
                map.insert(ID2.to_owned(), copy);
            }
        }
        (JsonStep::EachItem, Json::Array(items)) => {
            if let Some(next) = items.first_mut() {
                add_twin(next, rest, id);
            }
        }
        (JsonStep::EachValue, Json::Object(map)) => {
            if let Some(next) = map.get_mut(ID) {
                add_twin(next, rest, id);
            }
        }
        _ => {}
    }
}

/// `value` of type `ty` naming the record `id`: the id, or a list of it.
fn with_id(ty: &ValueType, id: &str) -> Json {
    match ty {
        ValueType::List(_) => json!([id]),
        _ => json!(id),
    }
}

/// The scalar values in `value` (list elements and object fields too), as
/// a summary names them.
fn scalars(value: &Json, out: &mut Vec<String>) {
    match value {
        Json::String(s) => out.push(s.clone()),
        Json::Number(n) => out.push(n.to_string()),
        Json::Bool(b) => out.push(b.to_string()),
        Json::Array(items) => items.iter().for_each(|i| scalars(i, out)),
        Json::Object(map) => map.values().for_each(|v| scalars(v, out)),
        Json::Null => {}
    }
}

/// A plain-text report containing each chosen phrase on a line of its own.
fn text_report(fields: &[(String, Json)]) -> Json {
    let lines: Vec<&str> = fields
        .iter()
        .filter_map(|(_, v)| v.as_str())
        .filter(|l| !l.is_empty())
        .collect();
    Json::String(lines.join("\n"))
}

/// Sets a record's value, or returns it when its path starts at the root of
/// a result whose records are selected by `each` (set once the record is placed).
fn place<'p>(
    each: bool,
    path: &'p JsonPath,
    value: Json,
    record: &mut Json,
) -> Option<(&'p JsonPath, Json)> {
    if path.from_root && each {
        Some((path, value))
    } else {
        set_path(record, &path.steps, value);
        None
    }
}

fn merge(into: &mut Json, from: Json) {
    match (into, from) {
        (Json::Object(a), Json::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Json::Null), v);
            }
        }
        (slot, value) => {
            if slot.is_null() || !value.is_null() {
                *slot = value;
            }
        }
    }
}

/// Sets `value` at `steps` under `at`, creating objects and one-element lists.
fn set_path(at: &mut Json, steps: &[JsonStep], value: Json) {
    let Some((step, rest)) = steps.split_first() else {
        merge(at, value);
        return;
    };
    match step {
        JsonStep::Key(key) => {
            if !at.is_object() {
                *at = Json::Object(Map::new());
            }
            if let Json::Object(map) = at {
                set_path(map.entry(key.clone()).or_insert(Json::Null), rest, value);
            }
        }
        JsonStep::Index(i) => {
            if !at.is_array() {
                *at = Json::Array(Vec::new());
            }
            if let Json::Array(items) = at {
                while items.len() <= *i {
                    items.push(Json::Null);
                }
                if let Some(slot) = items.get_mut(*i) {
                    set_path(slot, rest, value);
                }
            }
        }
        JsonStep::EachItem => {
            if !at.is_array() {
                *at = Json::Array(vec![Json::Null]);
            }
            if let Some(slot) = at.as_array_mut().and_then(|items| items.first_mut()) {
                set_path(slot, rest, value);
            }
        }
        JsonStep::EachValue => {
            if !at.is_object() {
                *at = Json::Object(Map::new());
            }
            if let Json::Object(map) = at {
                set_path(map.entry(ID.to_owned()).or_insert(Json::Null), rest, value);
            }
        }
    }
}
