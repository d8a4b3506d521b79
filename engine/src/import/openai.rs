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
//!
//! **Two paths, one result**, as for tau2: `conversation_fast` and
//! `tau_bench_fast` deserialize a record straight into typed, borrowed
//! structs and give up (`None`) on anything they do not take exactly as
//! `conversation` / `tau_bench` would — content given as a list of
//! parts, a legacy `function_call`, an unknown role, a field of another
//! type, a call/result pairing error — and the reader then runs the `Value`
//! path, which says where each problem is.

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::ResultContent;
use super::build::{
    Builder, FastMessage, MapOnly, arguments, fast_arguments, fast_record, flag, id_text, index,
    join, object, opt, opt_array, opt_str, req_str, wrong,
};
use super::error::{ImportError, ImportErrorKind};
use crate::bundle::model::Side;
use crate::trace::{Event, Trace, TraceMeta};

/// Converts one conversation document: a message array or `{"messages": [...]}`.
/// `base` is the JSON path of `value` ("" at a file's root).
pub(crate) fn conversation(
    file: &Path,
    record: Option<usize>,
    id: String,
    value: &Value,
    base: &str,
    results: ResultContent,
) -> Result<Trace, Vec<ImportError>> {
    let mut b = Builder::new(file, record);
    let meta = TraceMeta {
        id,
        ..TraceMeta::default()
    };
    match value {
        Value::Array(messages) => add_messages(&mut b, messages, base, results),
        Value::Object(doc) => match opt(doc, "messages") {
            Some(Value::Array(messages)) => {
                add_messages(&mut b, messages, &join(base, "messages"), results);
            }
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
    results: ResultContent,
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
        Some(Value::Array(messages)) => {
            add_messages(&mut b, messages, &join(base, "traj"), results);
        }
        Some(other) => b.error(join(base, "traj"), wrong("an array", other)),
        None => b.error(base, ImportErrorKind::MissingField { field: "traj" }),
    }
    b.finish(meta)
}

fn add_messages(b: &mut Builder<'_>, messages: &[Value], base: &str, results: ResultContent) {
    for (m, message) in messages.iter().enumerate() {
        add_message(b, message, &index(base, m), results);
    }
}

fn add_message(b: &mut Builder<'_>, value: &Value, path: &str, results: ResultContent) {
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
            b.result(path, id, ok, results.content(content.as_deref()));
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

/// `trace` as an OpenAI chat-completions message list: user and agent
/// messages, each call an `assistant` (or, for a user-side call, `user`)
/// message with one `tool_calls` entry (arguments as JSON text), each result
/// a `tool` message (`"error": true` when it failed), a ticket a `system`
/// message; an approval, the host's and not the chat's, is left out. Read
/// back, it gives the same events, except the ticket (no event) and a
/// result recorded as a string that is itself JSON, which is read as that
/// JSON.
pub fn chat_messages(trace: &Trace) -> Value {
    let messages = trace.events.iter().filter_map(|event| {
        Some(match event {
            // The host's answer to a confirmation has no chat message.
            Event::Approval { .. } => return None,
            Event::User { text } => serde_json::json!({"role": "user", "content": text}),
            // A chat log has no ticket message: the ticket is a system
            // message, which the importer reads as no event (a user message
            // would read back as a reply).
            Event::Ticket { text } => serde_json::json!({
                "role": "system",
                "content": crate::extract::ticket_text(text),
            }),
            Event::Agent { text } => serde_json::json!({"role": "assistant", "content": text}),
            Event::Call {
                id,
                tool,
                args,
                requestor,
            } => serde_json::json!({
                "role": match requestor {
                    Side::User => "user",
                    Side::Agent => "assistant",
                },
                "content": null,
                "tool_calls": [{
                    "id": id,
                    "type": "function",
                    "function": {"name": tool, "arguments": args.to_string()},
                }],
            }),
            Event::Result { id, ok, content } => {
                let text = match content {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                let mut message = serde_json::json!({
                    "role": "tool",
                    "tool_call_id": id,
                    "content": text,
                });
                if !ok && let Some(fields) = message.as_object_mut() {
                    fields.insert("error".to_owned(), Value::Bool(true));
                }
                message
            }
        })
    });
    Value::Array(messages.collect())
}

/// Writes `trace` as one line of an OpenAI chat-log JSON Lines file
/// ([`chat_messages`]).
pub fn write_chat_line(out: &mut impl std::io::Write, trace: &Trace) -> std::io::Result<()> {
    writeln!(out, "{}", chat_messages(trace))
}

/// One chat message, typed and borrowed (see the module documentation).
type FastChatMessage<'a> = FastMessage<'a, FastChatCall<'a>>;

#[derive(Deserialize)]
struct FastChatCall<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    function: MapOnly<FastFunction<'a>>,
}

#[derive(Deserialize)]
struct FastFunction<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// `{"messages": [...]}` (other keys ignored, as the `Value` path does).
#[derive(Deserialize)]
struct FastDocument<'a> {
    #[serde(borrow)]
    messages: Vec<MapOnly<FastChatMessage<'a>>>,
}

/// One tau-bench result, typed and borrowed.
#[derive(Deserialize)]
struct FastTauBench<'a> {
    #[serde(default)]
    task_id: Option<Value>,
    #[serde(default)]
    reward: Option<f64>,
    #[serde(default)]
    trial: Option<i64>,
    #[serde(borrow)]
    traj: Vec<MapOnly<FastChatMessage<'a>>>,
}

/// [`conversation`] from the record's bytes on the fast path; `None` when
/// the record needs the `Value` path (see the module documentation).
pub(crate) fn conversation_fast(
    file: &Path,
    record: Option<usize>,
    id: &str,
    bytes: &[u8],
    results: ResultContent,
) -> Option<Trace> {
    let first = bytes.iter().find(|c| !c.is_ascii_whitespace())?;
    let messages = if *first == b'[' {
        fast_record::<Vec<MapOnly<FastChatMessage<'_>>>>(bytes)?
    } else {
        fast_record::<MapOnly<FastDocument<'_>>>(bytes)?.0.messages
    };
    let meta = TraceMeta {
        id: id.to_owned(),
        ..TraceMeta::default()
    };
    let mut b = Builder::new(file, record);
    fast_messages(&mut b, messages, results)?;
    b.finish(meta).ok()
}

/// [`tau_bench`] from the record's bytes on the fast path; `None` when the
/// record needs the `Value` path.
pub(crate) fn tau_bench_fast(
    file: &Path,
    record: usize,
    id: &str,
    bytes: &[u8],
    results: ResultContent,
) -> Option<Trace> {
    let MapOnly(doc): MapOnly<FastTauBench<'_>> = fast_record(bytes)?;
    let meta = TraceMeta {
        id: id.to_owned(),
        task_id: id_text(doc.task_id.as_ref()),
        reward: doc.reward,
        trial: doc.trial,
        ..TraceMeta::default()
    };
    let mut b = Builder::new(file, Some(record));
    fast_messages(&mut b, doc.traj, results)?;
    b.finish(meta).ok()
}

/// Adds typed messages as `add_message` would; `None` on anything it
/// reports an error for.
fn fast_messages(
    b: &mut Builder<'_>,
    messages: Vec<MapOnly<FastChatMessage<'_>>>,
    results: ResultContent,
) -> Option<()> {
    for MapOnly(mut message) in messages {
        if message.function_call.is_some() {
            return None;
        }
        if matches!(message.role.as_ref(), "system" | "developer") {
            continue;
        }
        let failed = message.error.unwrap_or(false) || message.is_error.unwrap_or(false);
        let content = message.content.take();
        let call_id = message.tool_call_id.as_deref();
        let Some(side) = message.add_to(b, content, call_id, failed, results)? else {
            continue;
        };
        for MapOnly(call) in message.tool_calls.unwrap_or_default() {
            let MapOnly(function) = call.function;
            let args = fast_arguments(function.arguments)?;
            b.call("", &call.id, &function.name, args, side);
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Synth;
    use crate::import::{Format, TraceReader};
    use crate::trace::parse_content;
    use serde_json::json;

    fn file() -> &'static Path {
        Path::new("chat.jsonl")
    }

    /// A trace as an OpenAI message list ([`chat_messages`]), varied by
    /// `seed` over the other shapes the format allows: a system prompt,
    /// arguments as an object, `is_error` and an explicit `"error": false`.
    fn messages(trace: &Trace, seed: usize) -> Value {
        let Value::Array(mut list) = chat_messages(trace) else {
            unreachable!()
        };
        for (k, message) in list.iter_mut().enumerate() {
            let vary = (seed + k) % 2 == 1;
            let fields = message.as_object_mut().unwrap();
            if let Some(call) = fields.get_mut("tool_calls").and_then(|c| c.get_mut(0))
                && vary
            {
                let text = call["function"]["arguments"].as_str().unwrap().to_owned();
                call["function"]["arguments"] = serde_json::from_str(&text).unwrap();
            }
            if fields["role"] == "tool" && vary {
                let failed = fields.remove("error").is_some();
                fields.insert("is_error".into(), Value::Bool(failed));
            } else if fields["role"] == "tool" && !fields.contains_key("error") {
                fields.insert("error".into(), Value::Bool(false));
            }
        }
        if seed.is_multiple_of(3) {
            list.insert(0, json!({"role": "system", "content": "You are an agent."}));
        }
        Value::Array(list)
    }

    /// Every result of a trace read raw, parsed.
    fn parsed(mut trace: Trace) -> Trace {
        for event in &mut trace.events {
            if let Event::Result { content, .. } = event
                && let Value::String(raw) = content
            {
                *content = parse_content(raw);
            }
        }
        trace
    }

    /// fast = `Value` path on one conversation (as a list and as a
    /// document) and one tau-bench record built from it, parsed and raw.
    fn same_on_both_paths(list: &Value, id: &str) {
        let slow = |v: &Value, r| conversation(file(), Some(1), id.to_owned(), v, "", r);
        let doc = json!({"model": "m", "messages": list});
        for value in [list, &doc] {
            let bytes = serde_json::to_vec(value).unwrap();
            let want = slow(value, ResultContent::Parsed).unwrap();
            let fast = conversation_fast(file(), Some(1), id, &bytes, ResultContent::Parsed);
            assert_eq!(fast.as_ref(), Some(&want), "{id}");
            let raw = conversation_fast(file(), Some(1), id, &bytes, ResultContent::Raw).unwrap();
            assert_eq!(raw, slow(value, ResultContent::Raw).unwrap(), "{id}");
            assert_eq!(parsed(raw), want, "{id}");
        }
        let record = json!({"task_id": 7, "reward": 1, "trial": 0, "info": {}, "traj": list});
        let bytes = serde_json::to_vec(&record).unwrap();
        for results in [ResultContent::Parsed, ResultContent::Raw] {
            let want = tau_bench(file(), 2, id.to_owned(), &record, "", results).unwrap();
            assert_eq!(
                tau_bench_fast(file(), 2, id, &bytes, results).as_ref(),
                Some(&want),
                "{id}"
            );
        }
    }

    fn vendored() -> Vec<Trace> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/tau2/traces");
        let mut traces = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            traces.extend(TraceReader::open(&path, None).unwrap().map(Result::unwrap));
        }
        traces.sort_by(|a, b| a.meta.id.cmp(&b.meta.id));
        traces
    }

    #[test]
    fn the_fast_path_reads_every_vendored_and_synthetic_conversation_as_the_value_path() {
        let traces = vendored();
        assert!(traces.len() > 300, "{} traces", traces.len());
        for (seed, trace) in traces.iter().enumerate() {
            same_on_both_paths(&messages(trace, seed), &trace.meta.id);
        }
        let mut synth = Synth::new(traces, 11);
        for i in 0..300 {
            let trace = synth.trace(i).unwrap();
            same_on_both_paths(&messages(&trace, i), &trace.meta.id);
        }
    }

    #[test]
    fn a_chat_log_written_from_traces_reads_back_as_those_traces() {
        let traces: Vec<Trace> = vendored().into_iter().take(60).collect();
        let mut out = Vec::new();
        for trace in &traces {
            write_chat_line(&mut out, trace).unwrap();
        }
        let back: Vec<Trace> =
            TraceReader::from_reader(std::io::Cursor::new(out), "chat.jsonl", Format::OpenAi)
                .map(Result::unwrap)
                .collect();
        assert_eq!(back.len(), traces.len());
        for (got, want) in back.iter().zip(&traces) {
            let text = |content: &Value| match content {
                Value::String(s) => parse_content(s),
                other => other.clone(),
            };
            assert_eq!(got.events.len(), want.events.len());
            for (g, w) in got.events.iter().zip(&want.events) {
                match (g, w) {
                    (
                        Event::Result { id, ok, content },
                        Event::Result {
                            id: wid,
                            ok: wok,
                            content: wcontent,
                        },
                    ) => assert_eq!((id, ok, content), (wid, wok, &text(wcontent))),
                    _ => assert_eq!(g, w),
                }
            }
        }
    }

    #[test]
    fn readers_of_chat_logs_and_tau_bench_files_deliver_the_value_paths_traces() {
        let traces: Vec<Trace> = vendored().into_iter().take(40).collect();
        let lists: Vec<Value> = traces
            .iter()
            .enumerate()
            .map(|(i, t)| messages(t, i))
            .collect();
        let lines: String = lists.iter().map(|l| format!("{l}\n")).collect();
        let read = |text: String, name: &str, format| {
            TraceReader::from_reader(std::io::Cursor::new(text.into_bytes()), name, format)
                .with_result_content(ResultContent::Raw)
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        let got = read(lines, "chat.jsonl", Format::OpenAi);
        assert_eq!(got.len(), lists.len());
        for (i, (trace, list)) in got.iter().zip(&lists).enumerate() {
            let id = format!("chat#{}", i + 1);
            let want = conversation(file(), Some(i + 1), id, list, "", ResultContent::Raw);
            assert_eq!(Some(trace), want.as_ref().ok());
        }
        let records: Vec<Value> = lists
            .iter()
            .map(|l| json!({"task_id": "t", "reward": 0.0, "traj": l}))
            .collect();
        let got = read(
            Value::Array(records.clone()).to_string(),
            "results.json",
            Format::TauBench,
        );
        for (i, (trace, record)) in got.iter().zip(&records).enumerate() {
            let id = format!("results#{i}");
            let want = tau_bench(file(), i, id, record, "", ResultContent::Raw);
            assert_eq!(Some(trace), want.as_ref().ok());
        }
    }

    #[test]
    fn records_the_fast_path_does_not_take_go_the_value_path() {
        let call = |function: Value| {
            json!([{"role": "assistant", "tool_calls": [
            {"id": "c", "type": "function", "function": function}]}])
        };
        let cases = [
            // Taken by the Value path, not by the typed one.
            (
                json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
                true,
            ),
            (
                json!([{"role": "user", "content": "hi", "error": "no"}]),
                true,
            ),
            // Errors the Value path reports with their JSON path.
            (json!([{"role": "robot", "content": "hi"}]), false),
            (
                json!([{"role": "assistant", "function_call": {"name": "f"}}]),
                false,
            ),
            (json!([{"role": "tool", "content": "{}"}]), false),
            (
                json!([{"role": "tool", "tool_call_id": "x", "content": "{}"}]),
                false,
            ),
            (call(json!({"name": "t", "arguments": "{not json"})), false),
            (call(json!({"arguments": "{}"})), false),
            (call(json!(["t", "{}"])), false),
            (json!([["user", "hi"]]), false),
            (json!([{"role": "user", "content": 5}]), false),
            (json!({"messages": null}), false),
            (json!({"model": "m"}), false),
        ];
        for (value, imports) in cases {
            let bytes = serde_json::to_vec(&value).unwrap();
            let fast = conversation_fast(file(), None, "x", &bytes, ResultContent::Parsed);
            assert_eq!(fast, None, "{value}");
            let slow = conversation(file(), None, "x".into(), &value, "", ResultContent::Parsed);
            assert_eq!(slow.is_ok(), imports, "{value}: {slow:?}");
        }
        let records = [
            json!({"task_id": 1, "reward": "1", "traj": []}),
            json!({"task_id": 1, "trial": 1.5, "traj": []}),
            json!({"task_id": 1}),
            json!([1, 1.0, 0, []]),
        ];
        for value in records {
            let bytes = serde_json::to_vec(&value).unwrap();
            assert_eq!(
                tau_bench_fast(file(), 0, "x", &bytes, ResultContent::Parsed),
                None,
                "{value}"
            );
            assert!(tau_bench(file(), 0, "x".into(), &value, "", ResultContent::Parsed).is_err());
        }
        let mut bytes = br#"[{"role": "user", "content": "hi", "note": "caf"#.to_vec();
        bytes.push(0xff);
        bytes.extend_from_slice(br#""}]"#);
        assert_eq!(
            conversation_fast(file(), None, "x", &bytes, ResultContent::Raw),
            None
        );
    }
}
