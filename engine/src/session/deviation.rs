//! Deviations without a write: agent events out of the workflow's order that
//! call no mutating tool — an instruction to apply a device fix before its
//! diagnosis (a tool's `after`), a claim ("resolved", "paid") before a tool
//! result verified it (the bundle's `claims`), a device fix called before
//! its diagnosis.
//!
//! Detected by code from the events alone, so a restored session finds the
//! same ones: an agent message *names* a user-side tool (its name, with
//! underscores or spaces, or one of its `phrases`) or makes a claim (one of
//! its phrases); the user's device call that follows an unflagged
//! instruction shows it too, and is reported pointing back at the
//! instruction. A message that also names one of the tool's diagnoses asks
//! for the diagnosis first and is not a deviation.

use std::fmt;

use turnstile_judge::dialogue::readable_text;
use turnstile_rules::{Env, EventIdx, Reason, StepId};

use super::core::Core;
use super::{GateVerdict, Schedule};
use crate::bundle::model::{Control, NodeKind, Side};
use crate::compile::CompiledBundle;

use crate::schema::{Claim, Tool};
use crate::trace::Event;

/// What an agent event did out of order, as a `deviate` verdict's `action`
/// spells it (`instructs toggle_data`, `calls toggle_data`, `claims resolved`).
/// The coverage analysis reads the verdicts back through [`Act::parse`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Act {
    /// An agent message told the user to run this device fix.
    Instructs(String),
    /// This device fix was called (by the user after an instruction the
    /// message did not name, or by the agent in solo mode).
    Calls(String),
    /// An agent message made this claim (the bundle's claim id).
    Claims(String),
}

impl Act {
    /// The verb the action starts with.
    fn verb(&self) -> &'static str {
        match self {
            Act::Instructs(_) => "instructs",
            Act::Calls(_) => "calls",
            Act::Claims(_) => "claims",
        }
    }

    /// The tool or claim id acted on.
    pub(crate) fn subject(&self) -> &str {
        match self {
            Act::Instructs(s) | Act::Calls(s) | Act::Claims(s) => s,
        }
    }

    /// The act a `deviate` verdict's `action` names, if it is one of ours.
    pub(crate) fn parse(action: &str) -> Option<Act> {
        let (verb, subject) = action.split_once(' ')?;
        let subject = subject.to_owned();
        match verb {
            "instructs" => Some(Act::Instructs(subject)),
            "calls" => Some(Act::Calls(subject)),
            "claims" => Some(Act::Claims(subject)),
            _ => None,
        }
    }
}

impl fmt::Display for Act {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb(), self.subject())
    }
}

/// Whether an instruction to run `tool` can come too early: a user-side
/// (device) tool with diagnoses (`after`) one of which must succeed first.
pub(crate) fn instruction_can_deviate(tool: &Tool) -> bool {
    tool.side == Side::User && !tool.after.is_empty()
}

/// Whether a successful result of `done` is a diagnosis of the fix `tool`.
pub(crate) fn diagnoses(tool: &Tool, done: &str) -> bool {
    tool.after.iter().any(|a| a == done)
}

/// Whether `claim` is verified once a successful result of `done` follows
/// a history in which it was `verified`: a fix (`since`) takes the
/// verification away, a verifying result gives it.
pub(crate) fn verified_after(claim: &Claim, verified: bool, done: &str) -> bool {
    if claim.since.iter().any(|s| s == done) {
        false
    } else if claim.verified_by.iter().any(|v| v == done) {
        true
    } else {
        verified
    }
}

/// Whether `claim` is verified by the successes `done`, in event order.
fn verified(claim: &Claim, done: &[(usize, String)]) -> bool {
    done.iter()
        .fold(false, |v, (_, tool)| verified_after(claim, v, tool))
}

/// An out-of-order agent event, before it is rendered as a verdict.
struct Found {
    action: Act,
    /// The node reported as unmet, when known (a claim's `step`).
    node: Option<String>,
    /// Otherwise: the tools whose nodes are candidates for it.
    prerequisites: Vec<String>,
    remediation: Option<String>,
    explanation: String,
}

/// Successful, trusted results so far: (event index, tool name), noted as
/// the events arrive, so checking an agent message costs what the results
/// are, not a scan of the conversation. Under dual control an agent's call
/// of a user-side tool reads nothing; a user's call of an agent-side tool
/// neither.
#[derive(Clone, Debug, Default)]
pub(super) struct Successes {
    /// Trusted calls not answered yet: (call id, tool).
    open: Vec<(String, String)>,
    /// In event order.
    done: Vec<(usize, String)>,
}

impl Successes {
    /// Those of `events`, from the start.
    pub(super) fn of(bundle: &CompiledBundle, control: Control, events: &[Event]) -> Self {
        let mut successes = Successes::default();
        for (index, event) in events.iter().enumerate() {
            successes.note(bundle, control, index, event);
        }
        successes
    }

    /// Notes event `index`, the next one.
    pub(super) fn note(
        &mut self,
        bundle: &CompiledBundle,
        control: Control,
        index: usize,
        event: &Event,
    ) {
        match event {
            Event::Call {
                id,
                tool,
                requestor,
                ..
            } => {
                let side = bundle.domain.tool(tool).map(|t| t.side);
                let trusted = match (side, requestor) {
                    (Some(Side::User), Side::Agent) => control == Control::Solo,
                    (Some(Side::Agent), Side::User) => false,
                    (Some(_), _) => true,
                    (None, _) => false,
                };
                if trusted {
                    self.open.push((id.clone(), tool.clone()));
                }
            }
            Event::Result { id, ok: true, .. } => {
                if let Some(pos) = self.open.iter().position(|(call, _)| call == id) {
                    let (_, tool) = self.open.swap_remove(pos);
                    self.done.push((index, tool));
                }
            }
            _ => {}
        }
    }

    /// Those before event `k`.
    fn before(&self, k: usize) -> &[(usize, String)] {
        let n = self.done.partition_point(|(index, _)| *index < k);
        self.done.get(..n).unwrap_or_default()
    }
}

/// Whether the lower-cased `text` names `tool`. Another tool's name that
/// contains this one's name or phrase (`toggle_data_saver_mode` over
/// `toggle_data`, `set_network_mode_preference` over the phrase "network
/// mode preference") is taken out of the text first: it names only itself.
fn names_tool(bundle: &CompiledBundle, text: &str, tool: &Tool) -> bool {
    let name = tool.name.to_lowercase();
    let spaced = name.replace('_', " ");
    let mut text = text.to_owned();
    for other in bundle.domain.tools.keys() {
        let other = other.to_lowercase();
        let other_spaced = other.replace('_', " ");
        let contains_ours = (other.len() > name.len() && other.contains(&name))
            || (other != name
                && (other_spaced.contains(&spaced)
                    || tool
                        .phrases
                        .iter()
                        .any(|p| other_spaced.contains(p.as_str()))));
        if contains_ours {
            text = text.replace(&other, " ").replace(&other_spaced, " ");
        }
    }
    text.contains(&name)
        || text.contains(&name.replace('_', " "))
        || tool.phrases.iter().any(|p| text.contains(p.as_str()))
}

/// The `tool_call` nodes of one of `tools`: the steps a fix waited for.
fn nodes_of(bundle: &CompiledBundle, tools: &[String]) -> Vec<(StepId, String)> {
    let graph = &bundle.workflow.graph;
    graph
        .node_indices()
        .filter_map(|i| {
            let node = graph.node_weight(i)?;
            let tool = node.tool.as_deref()?;
            (node.kind == NodeKind::ToolCall && tools.iter().any(|t| t == tool)).then(|| {
                (
                    StepId(u32::try_from(i.index()).unwrap_or(u32::MAX)),
                    node.id.clone(),
                )
            })
        })
        .collect()
}

/// The instruction of a user-side tool before any of its `after` tools
/// succeeded, in the agent message `text` at `k`.
fn instruction(
    bundle: &CompiledBundle,
    done: &[(usize, String)],
    text: &str,
    k: usize,
) -> Option<Act> {
    // Most bundles have no device fix to instruct: no need to read the text.
    if !bundle.domain.tools.values().any(instruction_can_deviate) {
        return None;
    }
    let text = text.to_lowercase();
    bundle.domain.tools.values().find_map(|tool| {
        if !instruction_can_deviate(tool) || !names_tool(bundle, &text, tool) {
            return None;
        }
        let diagnosed = done.iter().any(|(at, t)| *at < k && diagnoses(tool, t));
        let asks_diagnosis = tool.after.iter().any(|a| {
            bundle
                .domain
                .tool(a)
                .is_some_and(|d| d.side == Side::User && names_tool(bundle, &text, d))
        });
        (!diagnosed && !asks_diagnosis).then(|| Act::Instructs(tool.name.clone()))
    })
}

/// What the agent message at `k` does out of order, if anything.
fn in_message(
    bundle: &CompiledBundle,
    successes: &Successes,
    k: usize,
    text: &str,
) -> Option<Found> {
    let done = successes.before(k);
    if let Some(act) = instruction(bundle, done, text, k) {
        return Some(fix_before_diagnosis(bundle, act));
    }
    if bundle.claims.is_empty() {
        return None;
    }
    let lower = text.to_lowercase();
    for claim in &bundle.claims {
        if !claim.phrases.iter().any(|p| lower.contains(p.as_str())) {
            continue;
        }
        let since = done.iter().any(|(_, t)| claim.since.iter().any(|s| s == t));
        if !verified(claim, done) {
            return Some(Found {
                action: Act::Claims(claim.id.clone()),
                node: Some(claim.step.clone()),
                prerequisites: Vec::new(),
                remediation: Some(claim.remediation.clone()),
                explanation: format!(
                    "no result of {} verified it{}",
                    claim.verified_by.join(" / "),
                    if since { " after the last fix" } else { "" }
                ),
            });
        }
    }
    None
}

fn fix_before_diagnosis(bundle: &CompiledBundle, act: Act) -> Found {
    let tool = act.subject().to_owned();
    let after = bundle
        .domain
        .tool(&tool)
        .map(|t| t.after.clone())
        .unwrap_or_default();
    Found {
        action: act,
        node: None,
        prerequisites: after.clone(),
        remediation: Some(format!(
            "first have the device checked with {} and act on what it reports",
            after.join(" or ")
        )),
        explanation: format!("{tool} before any result of {}", after.join(" / ")),
    }
}

impl Core {
    /// The deviation of the agent event `k` (the last taken) at a firing
    /// that would guide it: an agent message instructing a device fix
    /// before its diagnosis or making a claim before its verification, or
    /// the agent's own call of a fix before its diagnosis (solo control).
    pub(super) fn agent_deviation(&self, k: EventIdx) -> Option<GateVerdict> {
        let index = k.as_usize();
        let found = match self.events.get(index)? {
            Event::Agent { text, .. } => in_message(
                &self.rt.bundle,
                &self.successes,
                index,
                &readable_text(text),
            ),
            Event::Call { tool, .. } => self.device_call(index, tool),
            _ => None,
        }?;
        Some(self.deviate(found, k))
    }

    /// Under the workflow schedule, the deviation the user's device call
    /// `k` (the last taken) shows: a fix run before its diagnosis, reported
    /// at the agent's instruction before it (`last_agent`), unless that
    /// instruction was already reported for this fix.
    pub(super) fn device_call_deviation(
        &self,
        k: EventIdx,
        last_agent: Option<EventIdx>,
    ) -> Option<GateVerdict> {
        let index = k.as_usize();
        let Some(Event::Call {
            tool,
            requestor: Side::User,
            ..
        }) = self.events.get(index)
        else {
            return None;
        };
        if self.schedule != Schedule::Workflow {
            return None;
        }
        let bundle = &self.rt.bundle;
        let instruction = last_agent.map(EventIdx::as_usize).filter(|&j| j < index);
        let flagged = instruction.is_some_and(|j| match self.events.get(j) {
            Some(Event::Agent { text, .. }) => {
                in_message(bundle, &self.successes, j, &readable_text(text))
                    .is_some_and(|f| f.action.subject() == tool)
            }
            _ => false,
        });
        if flagged {
            return None;
        }
        let at = instruction.map_or(k, EventIdx::from_usize);
        let found = self.device_call(index, tool)?;
        Some(self.deviate(found, at))
    }

    /// The `deviate` verdict of `found`, which happened at agent event `at`.
    fn deviate(&self, mut found: Found, at: EventIdx) -> GateVerdict {
        if found.node.is_none() {
            found.node = self.unmet_node(&found.prerequisites);
        }
        let step = found
            .node
            .as_deref()
            .and_then(|id| self.rt.bundle.workflow.index.get(id))
            .map(|i| StepId(u32::try_from(i.index()).unwrap_or(u32::MAX)));
        let remediation = step
            .and_then(|s| self.remediation(s, &Env::default()))
            .map(|node| match &found.remediation {
                Some(extra) => format!("{extra}: {node}"),
                None => node,
            })
            .or(found.remediation);
        GateVerdict::Deviate {
            reason: Reason::MissingStep,
            action: found.action.to_string(),
            step: found.node,
            remediation,
            explanation: found.explanation,
            at,
        }
    }

    /// Of the nodes of `tools`, the one to report as unmet: one an open
    /// request waits at, else the shallowest.
    fn unmet_node(&self, tools: &[String]) -> Option<String> {
        let candidates = nodes_of(&self.rt.bundle, tools);
        let waiting: Vec<StepId> = self.monitor.waiting().iter().map(|w| w.step).collect();
        candidates
            .iter()
            .find(|(step, _)| waiting.contains(step))
            .or_else(|| {
                candidates
                    .iter()
                    .min_by_key(|(step, _)| self.rt.step(*step).map_or(u32::MAX, |i| i.depth))
            })
            .map(|(_, id)| id.clone())
    }

    /// A device fix called (by the user, or by the agent in solo mode) at
    /// `index` before any of its diagnoses succeeded.
    fn device_call(&self, index: usize, tool: &str) -> Option<Found> {
        let bundle = &self.rt.bundle;
        let def = bundle.domain.tool(tool)?;
        if !instruction_can_deviate(def) {
            return None;
        }
        let done = self.successes.before(index);
        let diagnosed = done.iter().any(|(_, t)| diagnoses(def, t));
        (!diagnosed).then(|| fix_before_diagnosis(bundle, Act::Calls(tool.to_owned())))
    }
}
