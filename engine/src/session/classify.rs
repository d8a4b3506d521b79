//! What an event is, decided once as it arrives and carried through its
//! decision: who made it, whether the schedule fires on it, whether it is
//! refused outright (a tool the bundle does not declare, or a device tool
//! the agent calls under dual control), and which gated tool it writes with
//! (the only events whose decision can ask the judge).

use turnstile_rules::{Reason, Symbol};

use super::runtime::BundleRuntime;
use super::schedule::Schedule;
use super::verdict::{Bindings, GateVerdict};
use crate::bundle::model::{Control, Side, ToolKind};
use crate::trace::Event;

/// One event, classified.
#[derive(Clone, Debug)]
pub(super) struct Classified {
    /// A short description for reports (`user`, `call get_order`, ...).
    pub kind: String,
    /// A user's message.
    pub by_user: bool,
    /// The agent made it: its own claim, a call of a write tool the bundle
    /// declares agent-side (whoever the event says sent it), or a refused
    /// call.
    pub by_agent: bool,
    /// The schedule fires on it (a refused call always fires).
    pub fires: bool,
    /// The block a refused call gets, whatever the monitor says.
    pub refused: Option<GateVerdict>,
    /// The gated tool of a checked write the judge may be asked about: an
    /// agent call of a gated tool the schedule fires on, when the bundle
    /// asks a judge anything.
    pub asks_for: Option<Symbol>,
}

/// Who decides what the session knows when an event arrives.
pub(super) struct Context<'a> {
    pub rt: &'a BundleRuntime,
    pub control: Control,
    pub schedule: Schedule,
    /// The last event was a user message.
    pub after_user: bool,
    /// The last agent event was blocked.
    pub after_block: bool,
}

impl Context<'_> {
    /// Classifies `event`, looking its tool up once.
    pub fn classify(&self, event: &Event) -> Classified {
        let bundle = &self.rt.bundle;
        let (name, requestor) = match event {
            Event::Call {
                tool, requestor, ..
            } => (Some(tool.as_str()), Some(*requestor)),
            _ => (None, None),
        };
        let tool = name.and_then(|name| bundle.domain.tool(name));
        let declared_agent_write =
            tool.is_some_and(|t| t.side == Side::Agent && t.kind == ToolKind::Write);
        let agent = event.is_agent_event() || declared_agent_write;
        let gated = agent && tool.is_some_and(|t| bundle.program.gated_tools.contains(&t.symbol));
        let refused = match (name, tool) {
            (Some(name), None) if !bundle.pass_through.iter().any(|(t, _)| t == name) => {
                Some(self.unknown_tool(name))
            }
            (Some(name), Some(tool))
                if requestor == Some(Side::Agent)
                    && tool.side == Side::User
                    && self.control == Control::Dual =>
            {
                Some(wrong_side(name))
            }
            _ => None,
        };
        let by_agent = agent || refused.is_some();
        let scheduled = agent
            && match self.schedule {
                Schedule::Workflow => true,
                Schedule::Boundary => self.after_user || self.after_block,
                Schedule::Action => gated,
            };
        let fires = by_agent && (scheduled || refused.is_some());
        let asks_for = tool
            .filter(|_| fires && refused.is_none() && self.rt.asks_judge && gated)
            .map(|t| t.symbol);
        Classified {
            kind: describe(event),
            by_user: matches!(event, Event::User { .. } | Event::Ticket { .. }),
            by_agent,
            fires,
            refused,
            asks_for,
        }
    }

    /// A block for a call of a tool the bundle neither declares nor lets
    /// through, with the closest declared tool as a hint.
    fn unknown_tool(&self, tool: &str) -> GateVerdict {
        let bundle = &self.rt.bundle;
        let wanted = tool.trim().to_lowercase();
        let closest = bundle
            .domain
            .tools
            .keys()
            .map(|name| {
                (
                    crate::compile::edit_distance(&name.to_lowercase(), &wanted),
                    name,
                )
            })
            .min();
        let hint = match closest {
            Some((distance, name)) if distance <= 3 => format!("did you mean `{name}`?"),
            _ => "call only the tools the bundle declares".to_owned(),
        };
        GateVerdict::Block {
            reason: Reason::UnknownTool,
            step: None,
            request: Bindings::new(),
            remediation: Some(hint),
            explanation: format!("tool {tool:?} is not declared by bundle `{}`", bundle.name),
        }
    }
}

/// Under dual control, the block of the agent's own call of a user-side
/// (device) tool: only the user may call it.
fn wrong_side(tool: &str) -> GateVerdict {
    GateVerdict::Block {
        reason: Reason::WrongSide,
        step: None,
        request: Bindings::new(),
        remediation: Some(format!(
            "ask the user to run {tool} on their device and report what it shows"
        )),
        explanation: format!(
            "{tool} is a user-side (device) tool; under dual control only the user calls it"
        ),
    }
}

/// A short description of an event for tables.
pub(super) fn describe(event: &Event) -> String {
    match event {
        Event::User { .. } => "user".to_owned(),
        Event::Ticket { .. } => "ticket".to_owned(),
        Event::Agent { .. } => "agent".to_owned(),
        Event::Call {
            tool, requestor, ..
        } => match requestor {
            Side::Agent => format!("call {tool}"),
            Side::User => format!("user call {tool}"),
        },
        Event::Result { ok: true, .. } => "result".to_owned(),
        Event::Result { ok: false, .. } => "error".to_owned(),
        Event::Approval {
            call,
            granted: true,
            by,
        } => format!("approval of {call} by {}", by.label()),
        Event::Approval {
            call,
            granted: false,
            by,
        } => format!("refusal of {call} by {}", by.label()),
    }
}
