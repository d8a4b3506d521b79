//! The conversation as Turnstile sees it: a flat sequence of events (messages,
//! tool calls, tool results), whatever format it was recorded in. Event
//! indices are positions in [`Trace::events`]; every later stage (facts,
//! evidence, verdicts) refers to events by that index.

use serde::{Deserialize, Serialize};

use crate::bundle::model::Side;

/// One thing that happened in a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The user said something.
    User {
        /// What the user said.
        text: String,
    },
    /// The task's ticket: what the user stated before the conversation
    /// began, as tau2-bench hands it to a solo agent (no user simulator).
    /// A user-side statement that was never a reply: the values it names
    /// count as said by the user and its request can be classified, but it
    /// answers no agent question, so it never confirms an action. It counts
    /// only before the agent's first event (a later one states nothing).
    Ticket {
        /// The ticket's text.
        text: String,
    },
    /// The agent said something to the user.
    Agent {
        /// What the agent said.
        text: String,
    },
    /// A tool call, by the agent or (telecom) by the user on their device.
    Call {
        /// Links the call to its result.
        id: String,
        /// The tool's name.
        tool: String,
        #[serde(default)]
        /// The call's arguments, as JSON.
        args: serde_json::Value,
        #[serde(default = "agent_side")]
        /// Who made the call.
        requestor: Side,
    },
    /// The host's answer to a `confirm` verdict: the user (or, where the
    /// bundle permits, an operator) approved or declined the call `call`.
    /// Only the host sends it, as an event of its own; text inside a
    /// message never is one.
    Approval {
        /// The id of the call the gate answered `confirm`.
        call: String,
        /// Approved (`true`) or declined (`false`).
        granted: bool,
        /// Who answered.
        #[serde(default = "by_user")]
        by: Approver,
    },
    /// The result of the call with the same `id`.
    Result {
        /// The id of the call answered.
        id: String,
        /// `false` when the tool raised an error; `content` is then the error text.
        ok: bool,
        /// The result: parsed JSON when it was JSON, else the raw text as a JSON string.
        #[serde(default)]
        content: serde_json::Value,
    },
}

/// Who answered a confirmation request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approver {
    /// The user the conversation is with.
    User,
    /// An operator of the host (only where the bundle permits it).
    Operator,
}

impl Approver {
    /// The name as reported.
    pub fn label(self) -> &'static str {
        match self {
            Approver::User => "user",
            Approver::Operator => "operator",
        }
    }
}

fn by_user() -> Approver {
    Approver::User
}

fn agent_side() -> Side {
    Side::Agent
}

impl Event {
    /// Whether the agent produced the event (a message or a call).
    pub fn is_agent_event(&self) -> bool {
        match self {
            Event::Agent { .. } => true,
            Event::Call { requestor, .. } => *requestor == Side::Agent,
            _ => false,
        }
    }

    /// The length in bytes of the event's JSON (`serde_json::to_vec`),
    /// counted as it is written rather than built: a session's byte cap
    /// needs the size, not the text. `usize::MAX` if it cannot be written.
    pub fn json_size(&self) -> usize {
        let mut counter = ByteCounter(0);
        match serde_json::to_writer(&mut counter, self) {
            Ok(()) => counter.0,
            Err(_) => usize::MAX,
        }
    }
}

/// A writer that keeps only the number of bytes written to it.
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What is known about where a trace came from and how it was graded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceMeta {
    /// Stable id: file name plus simulation id / record index.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The benchmark task id.
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The trial number, when a task was run several times.
    pub trial: Option<i64>,
    /// The benchmark's final reward, when the source recorded one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The benchmark domain (`retail`, `airline`, ...).
    pub domain: Option<String>,
    /// Who called the user-side (device) tools, when the source says
    /// (tau2's agent implementation); overrides the bundle's `control`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<crate::bundle::model::Control>,
    /// The time each event happened or was decided at, by event, where the
    /// source recorded one (tau2's message timestamps, a native line's
    /// `at`): what a bundle on an `event` or `system` clock replays with.
    /// Empty when the source records none.
    #[serde(skip)]
    pub times: Vec<Option<turnstile_rules::DateTime>>,
}

/// One conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Where the trace came from.
    pub meta: TraceMeta,
    /// The events, in order.
    pub events: Vec<Event>,
}

impl Trace {
    /// The index of the call event that `result_index` answers, if any.
    pub fn call_of(&self, result_index: usize) -> Option<usize> {
        let Some(Event::Result { id, .. }) = self.events.get(result_index) else {
            return None;
        };
        self.events
            .iter()
            .take(result_index)
            .rposition(|e| matches!(e, Event::Call { id: call, .. } if call == id))
    }
}

/// Parses a tool result's text: JSON when it is JSON, else the text itself.
pub fn parse_content(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_events_round_trip_as_json() {
        let events = vec![
            Event::User {
                text: "cancel #W1".into(),
            },
            Event::Call {
                id: "c1".into(),
                tool: "get_order_details".into(),
                args: serde_json::json!({"order_id": "#W1"}),
                requestor: Side::Agent,
            },
            Event::Result {
                id: "c1".into(),
                ok: true,
                content: parse_content("{\"status\": \"pending\"}"),
            },
        ];
        for event in &events {
            let line = serde_json::to_string(event).unwrap();
            assert_eq!(&serde_json::from_str::<Event>(&line).unwrap(), event);
        }
        let call: Event = serde_json::from_str(r#"{"type":"call","id":"x","tool":"t"}"#).unwrap();
        assert!(call.is_agent_event());
        let trace = Trace {
            meta: TraceMeta::default(),
            events,
        };
        assert_eq!(trace.call_of(2), Some(1));
        assert_eq!(trace.call_of(0), None);
    }

    #[test]
    fn non_json_content_is_kept_as_text() {
        assert_eq!(
            parse_content("sara_doe_496"),
            serde_json::json!("sara_doe_496")
        );
        assert_eq!(parse_content("[1, 2]"), serde_json::json!([1, 2]));
    }
}
