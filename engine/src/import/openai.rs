//! OpenAI chat-completions message lists and the older tau-bench results.
//!
//! A conversation is a list of messages `{role, content, tool_calls,
//! tool_call_id}`:
//!
//! - `system` and `developer` messages carry no conversation event and are
//!   left out (they are the prompt, not the dialogue);
//! - `user` / `assistant` with non-empty `content` → a user / agent message
//!   (content may also be a list of parts; the `text` parts are joined with
//!   a newline, any other part is an error);
//! - each `tool_calls[{id, type, function: {name, arguments}}]` of an
//!   `assistant` (or `user`) message → an agent (or user) call; `arguments` is a string holding JSON (an object is
//!   accepted too);
//! - `tool` (`tool_call_id`, `content`) → a result. The format has no error
//!   flag: a result is `ok` unless the message carries `"error": true` or
//!   `"is_error": true`, even when its text reads like an error.
//! - legacy `function_call` / `role: function` messages are reported as
//!   unsupported rather than dropped.
//!
//! tau-bench (the predecessor of tau2) stores `[{task_id, reward, info,
//! traj, trial}]` where `traj` is such a message list.

use std::path::Path;

use serde_json::Value;

use super::build::{
    Builder, arguments, flag, id_text, index, join, object, opt, opt_array, opt_str, req_str, wrong,
};
use super::error::{ImportError, ImportErrorKind};
use crate::bundle::model::Side;
use crate::trace::{Trace, TraceMeta, parse_content};

/// Converts one conversation document: a message array or `{"messages": [...]}`.
/// `base` is the JSON path of `value` ("" at a file's root).
pub(crate) fn conversation(
    file: &Path,
    record: Option<usize>,
    id: String,
    value: &Value,
    base: &str,
) -> Result<Trace, Vec<ImportError>> {
    let mut b = Builder::new(file, record);
    let meta = TraceMeta {
        id,
        ..TraceMeta::default()
    };
    match value {
        Value::Array(messages) => add_messages(&mut b, messages, base),
        Value::Object(doc) => match opt(doc, "messages") {
            Some(Value::Array(messages)) => add_messages(&mut b, messages, &join(base, "messages")),
            Some(other) => b.error(join(base, "messages"), wrong("an array", other)),
            None => b.error(base, ImportErrorKind::MissingField { field: "messages" }),
        },
        other => b.error(base, wrong("an array of messages or an object", other)),
    }
    b.finish(meta)
}

/// Converts one tau-bench result `{task_id, reward, traj, trial, info}`.
pub(crate) fn tau_bench(
    file: &Path,
    record: usize,
    id: String,
    value: &Value,
    base: &str,
) -> Result<Trace, Vec<ImportError>> {
    let mut b = Builder::new(file, Some(record));
    let Some(doc) = object(&mut b, value, base) else {
        return Err(b.errors);
    };
    let mut meta = TraceMeta {
        id,
        task_id: id_text(opt(doc, "task_id")),
        ..TraceMeta::default()
    };
    match opt(doc, "reward") {
        None => {}
        Some(Value::Number(n)) => meta.reward = n.as_f64(),
        Some(other) => b.error(join(base, "reward"), wrong("a number", other)),
    }
    match opt(doc, "trial") {
        None => {}
        Some(Value::Number(n)) if n.as_i64().is_some() => meta.trial = n.as_i64(),
        Some(other) => b.error(join(base, "trial"), wrong("an integer", other)),
    }
    match opt(doc, "traj") {
        Some(Value::Array(messages)) => add_messages(&mut b, messages, &join(base, "traj")),
        Some(other) => b.error(join(base, "traj"), wrong("an array", other)),
        None => b.error(base, ImportErrorKind::MissingField { field: "traj" }),
    }
    b.finish(meta)
}

fn add_messages(b: &mut Builder<'_>, messages: &[Value], base: &str) {
    for (m, message) in messages.iter().enumerate() {
        add_message(b, message, &index(base, m));
    }
}

fn add_message(b: &mut Builder<'_>, value: &Value, path: &str) {
    let Some(message) = object(b, value, path) else {
        return;
    };
    let Some(role) = req_str(b, message, "role", path) else {
        return;
    };
    if opt(message, "function_call").is_some() {
        b.error(
            join(path, "function_call"),
            ImportErrorKind::Unsupported {
                what: "legacy `function_call` (use `tool_calls`)",
            },
        );
        return;
    }
    let side = match role {
        "system" | "developer" => return,
        "user" => Side::User,
        "assistant" => Side::Agent,
        "tool" => {
            let Some(id) = req_str(b, message, "tool_call_id", path) else {
                return;
            };
            let ok = !(flag(b, message, "error", path) || flag(b, message, "is_error", path));
            let Some(content) = content_text(b, message, path) else {
                return;
            };
            let content = content.map_or(Value::Null, |text| parse_content(&text));
            b.result(path, id, ok, content);
            return;
        }
        other => {
            b.error(
                join(path, "role"),
                ImportErrorKind::UnknownRole {
                    role: other.to_owned(),
                },
            );
            return;
        }
    };
    if let Some(Some(text)) = content_text(b, message, path) {
        b.text(side, &text);
    }
    let calls_path = join(path, "tool_calls");
    for (c, call) in opt_array(b, message, "tool_calls", path).iter().enumerate() {
        let call_path = index(&calls_path, c);
        let Some(call) = object(b, call, &call_path) else {
            continue;
        };
        let id = req_str(b, call, "id", &call_path);
        let function_path = join(&call_path, "function");
        let Some(function) = opt(call, "function") else {
            b.error(
                call_path,
                ImportErrorKind::MissingField { field: "function" },
            );
            continue;
        };
        let Some(function) = object(b, function, &function_path) else {
            continue;
        };
        let name = req_str(b, function, "name", &function_path);
        let args = arguments(
            b,
            function.get("arguments"),
            &join(&function_path, "arguments"),
        );
        if let (Some(id), Some(name), Some(args)) = (id, name, args) {
            b.call(&call_path, id, name, args, side);
        }
    }
}

/// The message's text: `Some(None)` for none, `None` after an error.
fn content_text(
    b: &mut Builder<'_>,
    message: &serde_json::Map<String, Value>,
    path: &str,
) -> Option<Option<String>> {
    match opt(message, "content") {
        Some(Value::Array(parts)) => {
            let parts_path = join(path, "content");
            let mut texts = Vec::new();
            for (p, part) in parts.iter().enumerate() {
                let part_path = index(&parts_path, p);
                let part = object(b, part, &part_path)?;
                match opt_str(b, part, "type", &part_path) {
                    Ok(Some("text")) => texts.push(req_str(b, part, "text", &part_path)?),
                    Ok(_) => {
                        b.error(
                            join(&part_path, "type"),
                            ImportErrorKind::Unsupported {
                                what: "a content part that is not text",
                            },
                        );
                        return None;
                    }
                    Err(()) => return None,
                }
            }
            Some(Some(texts.join("\n")))
        }
        _ => opt_str(b, message, "content", path)
            .ok()
            .map(|text| text.map(str::to_owned)),
    }
}
