//! Concrete witnesses: each abstract deviation turned into a native trace and
//! the recorded judge verdicts that replay it deterministically.
//!
//! The moves of the deviation's prefix are realised one group at a time (a
//! move and the eventless `Holds` steps that follow it). A user or agent
//! message that satisfies a dialogue step gets a recorded verdict citing it.
//! A tool call's arguments and result are searched among small candidates —
//! every id is `W1`, strings may also be any enum literal, enum and boolean
//! fields take each of their values — and the first candidate under which
//! the reference session satisfies the group's steps is kept: the engine is
//! the oracle, so no check is re-implemented here. The deviating event ends
//! the trace: a read with default values, a write whose arguments name an
//! id no tool returned (every guard comparing it is then false), or an agent
//! message naming the fix it instructs or making the claim.
//!
//! A witness is returned only once [`check`] has replayed it through
//! [`super::observe`] and seen exactly the predicted deviation; a group no
//! candidate realises (a state the abstraction reaches but these values do
//! not) is reported as [`WitnessError::Unrealised`], a state the request
//! passes at once as [`WitnessError::Overtaken`]; each of the shortest
//! prefixes reaching the state (at most [`MAX_PATHS`]) is tried first.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value as Json, json};
use turnstile_judge::{Record, RecordedJudge, Verdict};
use turnstile_rules::{StepId, StepOrigin, ValueType};

use super::automaton::{AgentClass, Move};
use super::observe;
use super::{Analysis, Deviation};
use crate::bundle::model::Side;
use crate::schema::{JsonPath, JsonStep, Tool};
use crate::session::{BundleRuntime, Schedule, Session, SessionError};
use crate::trace::{Event, Trace, TraceMeta};

/// The id every candidate uses.
pub const ID: &str = "W1";
/// An id no tool result ever carries.
pub const UNREAD_ID: &str = "W9-unread";
/// Shortest prefixes tried per deviation at most.
pub const MAX_PATHS: usize = 6;
/// Candidates tried per group of moves at most.
const MAX_TRIES: usize = 64;

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

    /// The verdicts as a recording file.
    pub fn verdicts_jsonl(&self) -> String {
        lines(self.verdicts.iter())
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
    RecordedJudge::parse(&lines(records.iter())).unwrap_or_default()
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
    /// The engine satisfied a step the prefix does not (a call or dialogue
    /// step the request reached from an earlier event, e.g. a read at the
    /// event a classification is dated to): the request is past the
    /// abstract state, so the predicted deviation does not arise there.
    #[error("the request overtook the abstract state: step {step} holds from an earlier event")]
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

/// Builds witnesses for the deviations of one analysis, sharing realised
/// prefixes between deviations.
pub struct Builder<'a> {
    rt: Arc<BundleRuntime>,
    analysis: &'a Analysis,
    /// Realised prefixes by (moves up to the lookahead's end, group end).
    done: BTreeMap<(Vec<Move>, usize), Realised>,
}

impl<'a> Builder<'a> {
    /// A builder for the deviations of `analysis`, of the bundle of `rt`.
    pub fn new(rt: Arc<BundleRuntime>, analysis: &'a Analysis) -> Self {
        Builder {
            rt,
            analysis,
            done: BTreeMap::new(),
        }
    }

    /// The witness of `deviation`, confirmed by replay under every schedule.
    /// The shortest prefixes reaching its state are tried in turn (at most
    /// [`MAX_PATHS`]): the abstraction treats checks as independent, so one
    /// path may need contradictory data where another does not.
    pub async fn witness(&mut self, deviation: &Deviation) -> Result<Witness, WitnessError> {
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
                    !deviation.class.is_message()
                        || self.analysis.automaton.unmet_after(p, &deviation.class)
                }),
        );
        let mut last = None;
        for prefix in paths {
            match self.witness_along(deviation, &prefix).await {
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

    async fn witness_along(
        &mut self,
        deviation: &Deviation,
        prefix: &[Move],
    ) -> Result<Witness, WitnessError> {
        let realised = self.realise(prefix).await?;
        let mut events = realised.events;
        let n = events.len();
        events.extend(deviating_event(&self.rt, &deviation.class, n));
        let witness = Witness {
            trace: Trace {
                meta: TraceMeta {
                    id: format!(
                        "witness {} {} at {}",
                        deviation.class.kind(),
                        deviation.class.tool(),
                        deviation.node
                    ),
                    ..TraceMeta::default()
                },
                events,
            },
            verdicts: realised.records,
        };
        check(&self.rt, deviation, prefix, &witness).await?;
        Ok(witness)
    }

    /// Realises `prefix`, group by group, reusing realised shorter prefixes.
    async fn realise(&mut self, prefix: &[Move]) -> Result<Realised, WitnessError> {
        let groups = group_ends(prefix);
        let mut current = Realised {
            events: Vec::new(),
            records: Vec::new(),
            session: super::observe::reference_session(&self.rt),
        };
        let mut start = 0;
        for end in groups {
            // A call's values must also make the formal steps that follow
            // it hold, up to the next call: the key includes that lookahead.
            let horizon = prefix
                .iter()
                .enumerate()
                .skip(end)
                .find(|(_, m)| m.is_call())
                .map_or(prefix.len(), |(i, _)| i);
            let key = (prefix.get(..horizon).unwrap_or_default().to_vec(), end);
            let group = prefix.get(start..end).unwrap_or_default();
            let lookahead = prefix.get(end..horizon).unwrap_or_default();
            let next = match self.done.get(&key) {
                Some(cached) => cached.clone(),
                None => {
                    let realised = self.realise_group(&current, group, lookahead).await?;
                    self.done.insert(key, realised.clone());
                    realised
                }
            };
            current = next;
            start = end;
        }
        Ok(current)
    }

    /// Realises one group (a move and the `Holds` moves after it) on top of
    /// `from`. A call's candidates are tried in order; the first under which
    /// the group's and the lookahead's steps hold (probed by realising the
    /// lookahead's messages and one more agent event) wins, else the one
    /// satisfying most of them: the final replay says whether it sufficed.
    async fn realise_group(
        &self,
        from: &Realised,
        group: &[Move],
        lookahead: &[Move],
    ) -> Result<Realised, WitnessError> {
        let Some(first) = group.first() else {
            return Ok(from.clone());
        };
        let candidates = self.candidates(first, from.events.len());
        let is_call = first.is_call();
        let targets: Vec<StepId> = group
            .iter()
            .chain(lookahead)
            .filter_map(satisfies)
            .collect();
        let mut best: Option<(usize, Realised)> = None;
        for (events, records) in candidates {
            let mut next = from.clone();
            next.records.extend(records);
            push_all(&mut next, events).await?;
            if !is_call {
                return Ok(next);
            }
            let mut probe = next.clone();
            for mv in lookahead {
                let (events, records) = self
                    .candidates(mv, probe.events.len())
                    .into_iter()
                    .next()
                    .unwrap_or_default();
                probe.records.extend(records);
                push_all(&mut probe, events).await?;
            }
            push_all(
                &mut probe,
                vec![Event::Agent {
                    text: "(probe)".to_owned(),
                }],
            )
            .await?;
            let held = targets
                .iter()
                .filter(|s| satisfied(&probe.session, **s))
                .count();
            if held == targets.len() {
                return Ok(next);
            }
            if best.as_ref().is_none_or(|(b, _)| held > *b) {
                best = Some((held, next));
            }
        }
        Ok(best.map_or_else(|| from.clone(), |(_, r)| r))
    }

    /// The events (and verdicts) realising `mv` at event `k`, best first;
    /// a message has one, a call several candidates, `Holds` none.
    fn candidates(&self, mv: &Move, k: usize) -> Vec<(Vec<Event>, Vec<Record>)> {
        match mv {
            Move::Holds { .. } => vec![(Vec::new(), Vec::new())],
            Move::User { satisfies } => vec![message(
                &self.rt,
                Event::User {
                    text: "Yes, that is right; please go ahead.".to_owned(),
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
            Move::Read { tool, .. } | Move::Write { tool, .. } => {
                call_candidates(&self.rt, tool, Side::Agent, k)
                    .into_iter()
                    .map(|e| (e, Vec::new()))
                    .collect()
            }
            Move::UserTool { tool, .. } => call_candidates(&self.rt, tool, Side::User, k)
                .into_iter()
                .map(|e| (e, Vec::new()))
                .collect(),
        }
    }
}

/// Pushes `events` into the realised prefix's session, judged by its verdicts.
async fn push_all(into: &mut Realised, events: Vec<Event>) -> Result<(), WitnessError> {
    let judge = recorded(&into.records);
    for event in events {
        into.session.push(event.clone(), &judge).await?;
        into.events.push(event);
    }
    Ok(())
}

/// Replays `witness` under every schedule and compares the first deviation
/// with the prediction for `prefix` (the moves the witness realises): the same event (the last call), class and coverage,
/// and every step the prefix satisfies satisfied.
pub async fn check(
    rt: &Arc<BundleRuntime>,
    deviation: &Deviation,
    prefix: &[Move],
    witness: &Witness,
) -> Result<(), WitnessError> {
    let judge = witness.judge();
    let seen = observe::deviations_under(rt, &witness.trace, &Schedule::ALL, &judge).await?;
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
    let reached = observe::satisfied_after(rt, &witness.trace, &judge).await?;
    if let Some(step) = overtaken(rt, prefix, &reached) {
        return Err(WitnessError::Overtaken { step });
    }
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

/// The event that deviates: a read with default values, a write naming an id
/// no result carried, or an agent message naming the fix it instructs or
/// making the claim in the bundle's first phrase for it.
fn deviating_event(rt: &BundleRuntime, class: &AgentClass, k: usize) -> Vec<Event> {
    let id = format!("c{k}");
    let tool = rt.bundle.domain.tool(class.tool());
    match class {
        AgentClass::Read(name) => vec![
            Event::Call {
                id: id.clone(),
                tool: name.clone(),
                args: tool.map_or(json!({}), |t| default_args(t, &rt.bundle.domain, ID)),
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

/// Candidate (call, result) pairs for `tool` called by `requestor` at event
/// `k`, defaults first.
fn call_candidates(rt: &BundleRuntime, tool: &str, requestor: Side, k: usize) -> Vec<Vec<Event>> {
    let domain = &rt.bundle.domain;
    let Some(spec) = domain.tool(tool) else {
        return Vec::new();
    };
    let enum_words: Vec<String> = domain
        .enums
        .values()
        .flat_map(|e| e.values.iter().cloned())
        .collect();
    let resolve = |sym| rt.bundle.interner.resolve(sym).to_owned();
    let param_options: Vec<(String, Vec<Json>)> = spec
        .params
        .iter()
        .map(|(name, ty)| {
            (
                name.clone(),
                options(ty, domain, &enum_words, &resolve, true),
            )
        })
        .collect();
    let field_options = result_options(spec, domain, &resolve);
    let args_list = product(&param_options, MAX_TRIES);
    let results = product(&field_options, MAX_TRIES);
    let id = format!("c{k}");
    let mut out = Vec::new();
    // Results vary fastest: a read's check is usually about what it returns.
    for args in &args_list {
        for fields in &results {
            if out.len() >= MAX_TRIES {
                return out;
            }
            let content = build_result(spec, fields);
            out.push(vec![
                Event::Call {
                    id: id.clone(),
                    tool: tool.to_owned(),
                    args: Json::Object(args.clone().into_iter().collect()),
                    requestor,
                },
                Event::Result {
                    id: id.clone(),
                    ok: true,
                    content,
                },
            ]);
        }
    }
    out
}

/// Every combination of the options, first options first, at most `cap`.
fn product(options: &[(String, Vec<Json>)], cap: usize) -> Vec<Vec<(String, Json)>> {
    let mut out: Vec<Vec<(String, Json)>> = vec![Vec::new()];
    for (name, values) in options {
        let mut next = Vec::new();
        for value in values {
            for partial in &out {
                if next.len() >= cap {
                    break;
                }
                let mut combined = partial.clone();
                combined.push((name.clone(), value.clone()));
                next.push(combined);
            }
        }
        if next.is_empty() {
            next = out.clone();
        }
        out = next;
    }
    out
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

/// Options per `(read spec index, field)` of a tool's result.
fn result_options(
    tool: &Tool,
    domain: &crate::schema::Domain,
    resolve: &dyn Fn(turnstile_rules::Symbol) -> String,
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
                out.push((
                    format!("{i}:{field}"),
                    options(ty, domain, &[], resolve, false),
                ));
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
    let fields: Vec<(String, Json)> = result_options(tool, domain, &resolve)
        .into_iter()
        .filter_map(|(k, v)| Some((k, v.into_iter().next()?)))
        .collect();
    build_result(tool, &fields)
}

/// The result JSON carrying `fields` (keyed `spec:field`) at the paths the
/// tool's read specs name, every record id [`ID`].
fn build_result(tool: &Tool, fields: &[(String, Json)]) -> Json {
    if tool.reads.iter().any(|r| r.text.is_some()) {
        return text_report(fields);
    }
    let mut root = Json::Null;
    for (i, read) in tool.reads.iter().enumerate() {
        let mut record = Json::Null;
        let mut from_root: Vec<(&JsonPath, Json)> = Vec::new();
        let each = read.each.is_some();
        if let Some(p) = place(each, &read.id, json!(ID), &mut record) {
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
    if root.is_null() { json!({}) } else { root }
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
