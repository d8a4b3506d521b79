//! MCP in the session's terms and back: a `tools/call` as a call event of
//! the agent, the server's answer as a result event (its content as JSON
//! when it is JSON), a verdict as what happens to the call (it runs, the
//! user is asked, or the client gets a tool error saying why not), a
//! confirmation request as an `elicitation/create` and the user's answer
//! as an `approval` event.

use std::collections::BTreeMap;

use rmcp::model::{
    CallToolResult, ContentBlock, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    JsonObject, MetaObject,
};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::session::{Confirmation, EventReport, GateVerdict};
use turnstile_engine::trace::{Approver, Event, parse_content};

/// The `_meta` key under which a refused call's tool error carries the
/// session's report on it.
pub const VERDICT_META: &str = "turnstile/verdict";

/// The agent's call of `tool`, as the session takes it.
pub fn call(id: String, tool: &str, arguments: Option<&JsonObject>) -> Event {
    Event::Call {
        id,
        tool: tool.to_owned(),
        args: arguments.map_or(serde_json::Value::Null, |a| {
            serde_json::Value::Object(a.clone())
        }),
        requestor: Side::Agent,
    }
}

/// The server's answer to call `id`. The content is the text the tool
/// returned, parsed when it is JSON (several text blocks are read as one
/// text); a result with no text is read from its structured content, or
/// else its content blocks as JSON.
pub fn result(id: String, answer: &CallToolResult) -> Event {
    let texts: Vec<&str> = answer
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
        .collect();
    let content = if !texts.is_empty() {
        parse_content(&texts.join("\n"))
    } else if let Some(structured) = &answer.structured_content {
        structured.clone()
    } else {
        serde_json::to_value(&answer.content).unwrap_or(serde_json::Value::Null)
    };
    Event::Result {
        id,
        ok: answer.is_error != Some(true),
        content,
    }
}

/// Call `id` failed before the server answered it (`why`).
pub fn failure(id: String, why: &str) -> Event {
    Event::Result {
        id,
        ok: false,
        content: serde_json::Value::String(why.to_owned()),
    }
}

/// What the verdict on a call does with it.
pub enum Disposition {
    /// The call goes to the server.
    Run,
    /// The call waits for the user's consent: ask them this.
    Confirm(Box<Confirmation>),
    /// The call does not run; the client gets this tool error.
    Refuse(CallToolResult),
}

/// A call runs when the session allowed it, or decided nothing against it
/// (guidance for a read; a write the schedule does not check); a write
/// that lacks only the user's consent is held for it (`confirm`); a
/// block, and an out-of-order action (`deviate`), keep it from running.
pub fn disposition(report: &EventReport) -> Disposition {
    match &report.verdict {
        GateVerdict::Allow { .. }
        | GateVerdict::Guide { .. }
        | GateVerdict::Observe
        | GateVerdict::Unchecked { .. } => Disposition::Run,
        GateVerdict::Confirm { confirmation, .. } => Disposition::Confirm(confirmation.clone()),
        GateVerdict::Block {
            remediation,
            explanation,
            ..
        }
        | GateVerdict::Deviate {
            remediation,
            explanation,
            ..
        } => {
            let text = remediation.as_deref().unwrap_or(explanation);
            Disposition::Refuse(refusal(text.to_owned(), Some(report)))
        }
    }
}

/// The `elicitation/create` that asks the user: the confirmation's text as
/// the message, and an empty requested schema (the answer is the action
/// alone: accept, decline or cancel).
pub fn elicitation(confirmation: &Confirmation) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: confirmation.text.clone(),
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    }
}

/// The user's answer to the confirmation of call `call`: only `accept`
/// grants it; `decline` and `cancel` refuse it.
pub fn approval(call: &str, action: &ElicitationAction) -> Event {
    Event::Approval {
        call: call.to_owned(),
        granted: *action == ElicitationAction::Accept,
        by: Approver::User,
    }
}

/// The tool error of a call the user did not approve.
pub fn not_approved(
    action: &ElicitationAction,
    confirmation: &Confirmation,
    report: &EventReport,
) -> CallToolResult {
    let answer = match action {
        ElicitationAction::Decline => "declined",
        _ => "dismissed",
    };
    refusal(
        format!(
            "The user {answer} the request \"{}\"; the call did not run.",
            confirmation.text
        ),
        Some(report),
    )
}

/// A tool error with `text`, carrying the session's report when there is
/// one (`_meta["turnstile/verdict"]`).
pub fn refusal(text: String, report: Option<&EventReport>) -> CallToolResult {
    let mut error = CallToolResult::error(vec![ContentBlock::text(text)]);
    if let Some(verdict) = report.and_then(|r| serde_json::to_value(r).ok()) {
        let mut meta = JsonObject::new();
        meta.insert(VERDICT_META.to_owned(), verdict);
        error.meta = Some(MetaObject(meta));
    }
    error
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn text(answer: &str, is_error: bool) -> CallToolResult {
        let blocks = vec![ContentBlock::text(answer.to_owned())];
        if is_error {
            CallToolResult::error(blocks)
        } else {
            CallToolResult::success(blocks)
        }
    }

    #[test]
    fn json_text_is_read_as_json_and_an_error_is_not_ok() {
        let Event::Result { ok, content, .. } = result("c".into(), &text("{\"a\": [1]}", false))
        else {
            panic!("not a result")
        };
        assert!(ok);
        assert_eq!(content, serde_json::json!({"a": [1]}));
        let Event::Result { ok, content, .. } = result("c".into(), &text("Order not found", true))
        else {
            panic!("not a result")
        };
        assert!(!ok);
        assert_eq!(content, serde_json::json!("Order not found"));
    }

    #[test]
    fn only_accept_grants_and_the_request_asks_the_confirmation_with_an_empty_schema() {
        let granted = |action| match approval("mcp-4", &action) {
            Event::Approval { call, granted, by } => {
                assert_eq!((call.as_str(), by), ("mcp-4", Approver::User));
                granted
            }
            _ => panic!("not an approval"),
        };
        assert!(granted(ElicitationAction::Accept));
        assert!(!granted(ElicitationAction::Decline));
        assert!(!granted(ElicitationAction::Cancel));
        let confirmation = Confirmation {
            call: "mcp-4".to_owned(),
            details: Vec::new(),
            text: "Cancel order #W1?".to_owned(),
            tool: "cancel_pending_order".to_owned(),
        };
        let asked = serde_json::to_value(elicitation(&confirmation)).unwrap();
        assert_eq!(asked["message"], "Cancel order #W1?");
        assert_eq!(
            asked["requestedSchema"],
            serde_json::json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn structured_content_is_read_when_there_is_no_text() {
        let mut answer = CallToolResult::success(Vec::new());
        answer.structured_content = Some(serde_json::json!({"status": "pending"}));
        let Event::Result { content, .. } = result("c".into(), &answer) else {
            panic!("not a result")
        };
        assert_eq!(content, serde_json::json!({"status": "pending"}));
    }
}
