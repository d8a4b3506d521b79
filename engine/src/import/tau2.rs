//! tau2-bench results files: `{timestamp, info, tasks[], simulations[]}`.
//!
//! The reader walks the top-level object key by key and the `simulations`
//! array element by element, so memory is bounded by the largest simulation,
//! not the file. `info.environment_info.domain_name` gives each trace's
//! domain when `info` comes before `simulations` (as in every tau2 file).
//!
//! Mapping of one simulation's `messages[]`:
//!
//! - `role: user` / `role: assistant` with non-empty `content` →
//!   [`Event::User`](crate::trace::Event::User) /
//!   [`Event::Agent`](crate::trace::Event::Agent); then each of its
//!   `tool_calls[{id, name, arguments, requestor}]` →
//!   [`Event::Call`](crate::trace::Event::Call) (`requestor` `assistant` →
//!   agent, `user` → user, defaulting to the message's role; `arguments` an
//!   object or a string holding JSON);
//! - `role: tool` → [`Event::Result`](crate::trace::Event::Result) with the
//!   message's `id`, `ok = !error`, content parsed by
//!   [`parse_content`].
//!
//! Meta: `id` = `<file stem>#<simulation id>` (or the index when there is no
//! id), `task_id`, `trial`, `reward` = `reward_info.reward`, `domain`.
//!
//! The `tasks` array (the task copies the file was graded against) is
//! skipped: graders read it themselves.

use std::path::Path;

use serde_json::Value;

use super::build::{
    Builder, arguments, flag, id_text, index, join, object, opt, opt_array, opt_str, req_str,
    requestor, wrong,
};
use super::error::{ImportError, ImportErrorKind};
use crate::bundle::model::Side;
use crate::trace::{Trace, TraceMeta, parse_content};

/// Converts simulation number `i` of a tau2 file.
pub(crate) fn simulation(
    file: &Path,
    stem: &str,
    i: usize,
    value: &Value,
    domain: Option<&str>,
) -> Result<Trace, Vec<ImportError>> {
    let base = index("simulations", i);
    let mut b = Builder::new(file, Some(i));
    let Some(sim) = object(&mut b, value, &base) else {
        return Err(b.errors);
    };
    let id = id_text(opt(sim, "id")).unwrap_or_else(|| i.to_string());
    let mut meta = TraceMeta {
        id: format!("{stem}#{id}"),
        task_id: id_text(opt(sim, "task_id")),
        trial: None,
        reward: None,
        domain: domain.map(str::to_owned),
        control: None,
    };
    match opt(sim, "trial") {
        None => {}
        Some(Value::Number(n)) if n.as_i64().is_some() => meta.trial = n.as_i64(),
        Some(other) => b.error(join(&base, "trial"), wrong("an integer", other)),
    }
    if let Some(info) = opt(sim, "reward_info") {
        let path = join(&base, "reward_info");
        if let Some(info) = object(&mut b, info, &path) {
            match opt(info, "reward") {
                None => {}
                Some(Value::Number(n)) => meta.reward = n.as_f64(),
                Some(other) => b.error(join(&path, "reward"), wrong("a number", other)),
            }
        }
    }
    let messages_path = join(&base, "messages");
    match opt(sim, "messages") {
        Some(Value::Array(messages)) => {
            for (m, message) in messages.iter().enumerate() {
                tau2_message(&mut b, message, &index(&messages_path, m));
            }
        }
        Some(other) => b.error(messages_path, wrong("an array", other)),
        None => b.error(base, ImportErrorKind::MissingField { field: "messages" }),
    }
    b.finish(meta)
}

fn tau2_message(b: &mut Builder<'_>, value: &Value, path: &str) {
    let Some(message) = object(b, value, path) else {
        return;
    };
    let Some(role) = req_str(b, message, "role", path) else {
        return;
    };
    let side = match role {
        "user" => Side::User,
        "assistant" => Side::Agent,
        "tool" => {
            let Some(id) = req_str(b, message, "id", path) else {
                return;
            };
            let ok = !flag(b, message, "error", path);
            let Ok(content) = opt_str(b, message, "content", path) else {
                return;
            };
            let content = content.map_or(Value::Null, parse_content);
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
    if let Ok(Some(text)) = opt_str(b, message, "content", path) {
        b.text(side, text);
    }
    let calls_path = join(path, "tool_calls");
    for (c, call) in opt_array(b, message, "tool_calls", path).iter().enumerate() {
        let call_path = index(&calls_path, c);
        let Some(call) = object(b, call, &call_path) else {
            continue;
        };
        let id = req_str(b, call, "id", &call_path);
        let name = req_str(b, call, "name", &call_path);
        let args = arguments(b, call.get("arguments"), &join(&call_path, "arguments"));
        let side = requestor(
            b,
            call.get("requestor"),
            side,
            &join(&call_path, "requestor"),
        );
        if let (Some(id), Some(name), Some(args), Some(side)) = (id, name, args, side) {
            b.call(&call_path, id, name, args, side);
        }
    }
}

/// Reads the domain name out of a tau2 `info` object, if it has one.
pub(crate) fn domain_of(info: &Value) -> Option<String> {
    info.get("environment_info")?
        .get("domain_name")?
        .as_str()
        .map(str::to_owned)
}

/// Reads the agent model out of a tau2 `info` object, if it names one.
pub(crate) fn agent_model_of(info: &Value) -> Option<String> {
    info.get("agent_info")?
        .get("llm")?
        .as_str()
        .map(str::to_owned)
}

/// Who called the device tools, from a tau2 `info` object: the solo agent
/// (`llm_agent_solo`, no user simulator) calls them itself; with a user
/// simulator the user does.
pub(crate) fn control_of(info: &Value) -> Option<crate::bundle::model::Control> {
    use crate::bundle::model::Control;
    let agent = info.get("agent_info")?.get("implementation")?.as_str()?;
    Some(if agent.ends_with("_solo") {
        Control::Solo
    } else {
        Control::Dual
    })
}
