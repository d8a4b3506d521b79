//! Trace importers: every real tau2 results file imports with counts that
//! match the raw JSON, each format reads hand-written inputs into exact event
//! sequences, malformed inputs give errors with record and path, and the
//! native reader streams.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::import::{
    Format, ImportError, ImportErrorKind, TraceReader, detect, import_file,
};
use turnstile_engine::trace::{Event, Trace};
use turnstile_rules::DateTime;

#[path = "support/tau2.rs"]
mod tau2;

use tau2::{read_stored, read_tau2, trace_files, trace_stem};

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    fs::write(&path, text).unwrap();
    path
}

fn user(text: &str) -> Event {
    Event::User { text: text.into() }
}

fn agent(text: &str) -> Event {
    Event::Agent { text: text.into() }
}

fn call(id: &str, tool: &str, args: Value, requestor: Side) -> Event {
    Event::Call {
        id: id.into(),
        tool: tool.into(),
        args,
        requestor,
    }
}

fn result(id: &str, ok: bool, content: Value) -> Event {
    Event::Result {
        id: id.into(),
        ok,
        content,
    }
}

/// Imports a file that must be clean.
fn clean(path: &Path, format: Option<Format>) -> Vec<Trace> {
    let imported = import_file(path, format).unwrap();
    assert!(imported.errors.is_empty(), "{:#?}", imported.errors);
    imported.traces
}

/// Counts of one simulation, computed from the raw JSON.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
struct Counts {
    tickets: usize,
    user_messages: usize,
    agent_messages: usize,
    agent_calls: usize,
    user_calls: usize,
    results: usize,
    failed_results: usize,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.tickets += o.tickets;
        self.user_messages += o.user_messages;
        self.agent_messages += o.agent_messages;
        self.agent_calls += o.agent_calls;
        self.user_calls += o.user_calls;
        self.results += o.results;
        self.failed_results += o.failed_results;
    }
}

fn raw_counts(simulation: &Value) -> Counts {
    let mut c = Counts::default();
    for m in simulation["messages"].as_array().unwrap() {
        let has_text = m["content"].as_str().is_some_and(|t| !t.is_empty());
        match m["role"].as_str().unwrap() {
            "user" if has_text => c.user_messages += 1,
            "assistant" if has_text => c.agent_messages += 1,
            "tool" => {
                c.results += 1;
                if m["error"].as_bool() == Some(true) {
                    c.failed_results += 1;
                }
            }
            _ => {}
        }
        for tc in m["tool_calls"].as_array().into_iter().flatten() {
            match tc["requestor"].as_str() {
                Some("user") => c.user_calls += 1,
                _ => c.agent_calls += 1,
            }
        }
    }
    c
}

fn trace_counts(trace: &Trace) -> Counts {
    let mut c = Counts::default();
    for e in &trace.events {
        match e {
            Event::User { .. } => c.user_messages += 1,
            Event::Ticket { .. } => c.tickets += 1,
            Event::Agent { .. } => c.agent_messages += 1,
            Event::Call {
                requestor: Side::User,
                ..
            } => c.user_calls += 1,
            Event::Call { .. } => c.agent_calls += 1,
            Event::Approval { .. } => {}
            Event::Result { ok, .. } => {
                c.results += 1;
                if !ok {
                    c.failed_results += 1;
                }
            }
        }
    }
    c
}

#[test]
fn every_tau2_trace_file_imports_with_the_counts_of_the_raw_json() {
    for path in trace_files() {
        let raw: Value = serde_json::from_slice(&read_stored(&path)).unwrap();
        let simulations = raw["simulations"].as_array().unwrap();
        let domain = raw["info"]["environment_info"]["domain_name"].as_str();
        let stem = trace_stem(&path);

        assert_eq!(detect(&path).unwrap(), Format::Tau2, "{}", path.display());
        let imported = import_file(&path, None).unwrap();
        assert!(
            imported.errors.is_empty(),
            "{}: {:#?}",
            path.display(),
            imported.errors
        );
        assert_eq!(
            imported.traces.len(),
            simulations.len(),
            "{}",
            path.display()
        );

        // A solo agent is given its task's ticket: the simulation opens with it.
        let solo = raw["info"]["agent_info"]["implementation"]
            .as_str()
            .unwrap()
            .ends_with("_solo");
        let raw_tasks = raw["tasks"].as_array().unwrap();
        let mut total = Counts::default();
        for (trace, sim) in imported.traces.iter().zip(simulations) {
            let mut expected = raw_counts(sim);
            let task = raw_tasks.iter().find(|t| t["id"] == sim["task_id"]);
            if solo && task.is_some_and(|t| t["ticket"].is_string()) {
                expected.tickets = 1;
                assert!(
                    matches!(trace.events.first(), Some(Event::Ticket { text }) if Some(text.as_str()) == task.unwrap()["ticket"].as_str()),
                    "{}: opens with its task's ticket",
                    trace.meta.id
                );
            }
            assert_eq!(trace_counts(trace), expected, "{}", trace.meta.id);
            total += expected;
            assert_eq!(
                trace.meta.id,
                format!("{stem}#{}", sim["id"].as_str().unwrap())
            );
            assert_eq!(trace.meta.task_id.as_deref(), sim["task_id"].as_str());
            assert_eq!(trace.meta.trial, sim["trial"].as_i64());
            assert_eq!(trace.meta.reward, sim["reward_info"]["reward"].as_f64());
            assert_eq!(trace.meta.domain.as_deref(), domain);
            for (i, e) in trace.events.iter().enumerate() {
                if matches!(e, Event::Result { .. }) {
                    assert!(trace.call_of(i).is_some(), "{} event {i}", trace.meta.id);
                }
            }
        }
        for (trace, sim) in imported.traces.iter().zip(simulations) {
            assert_times_are_the_messages(trace, sim);
        }
        let s = imported.summary;
        assert_eq!(s.traces, simulations.len());
        assert_eq!(
            s.messages,
            total.tickets + total.user_messages + total.agent_messages
        );
        assert_eq!(total.tickets > 0, solo, "{}", path.display());
        assert_eq!(s.calls, total.agent_calls + total.user_calls);
        assert_eq!(s.results, total.results);
        assert_eq!(s.events, s.messages + s.calls + s.results);
        assert_eq!(s.errors, 0);

        eprintln!(
            "{}: {} simulations, {} tasks, {} user + {} agent messages, {} agent + {} user calls, {} results ({} failed)",
            path.file_name().unwrap().to_string_lossy(),
            s.traces,
            raw_tasks.len(),
            total.user_messages,
            total.agent_messages,
            total.agent_calls,
            total.user_calls,
            total.results,
            total.failed_results,
        );
    }
}

#[test]
fn telecom_user_side_calls_and_tau2_details_map_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "t.json",
        r#"{"timestamp": "x", "info": {"environment_info": {"domain_name": "telecom"}},
            "tasks": [{"id": "t1", "evaluation_criteria": {"actions": [
                {"action_id": "a0", "requestor": "user", "name": "toggle_roaming", "arguments": {}, "info": null}]}},
                      {"id": "t2", "evaluation_criteria": null}],
            "simulations": [{"id": "s1", "task_id": "t1", "trial": 2, "reward_info": {"reward": 1.0},
              "messages": [
                {"role": "assistant", "content": "Hi!", "tool_calls": null},
                {"role": "user", "content": "Let me check.", "tool_calls": [
                    {"id": "u1", "name": "check_status_bar", "arguments": {}, "requestor": "user"}]},
                {"role": "tool", "id": "u1", "content": "Status: no signal", "requestor": "user", "error": false},
                {"role": "user", "content": "", "tool_calls": [
                    {"id": "u2", "name": "toggle_roaming", "arguments": "{\"on\": true}", "requestor": "user"}]},
                {"role": "tool", "id": "u2", "content": "{\"roaming\": true}", "requestor": "user"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "name": "refuel", "arguments": {"gb": 2}, "requestor": "assistant"}]},
                {"role": "tool", "id": "c1", "content": "Error: no line", "requestor": "assistant", "error": true}
              ]}]}"#,
    );
    let traces = clean(&path, None);
    assert_eq!(traces.len(), 1);
    let t = &traces[0];
    assert_eq!(t.meta.id, "t#s1");
    assert_eq!(t.meta.task_id.as_deref(), Some("t1"));
    assert_eq!(t.meta.trial, Some(2));
    assert_eq!(t.meta.reward, Some(1.0));
    assert_eq!(t.meta.domain.as_deref(), Some("telecom"));
    assert_eq!(
        t.events,
        vec![
            agent("Hi!"),
            user("Let me check."),
            call("u1", "check_status_bar", json!({}), Side::User),
            result("u1", true, json!("Status: no signal")),
            call("u2", "toggle_roaming", json!({"on": true}), Side::User),
            result("u2", true, json!({"roaming": true})),
            call("c1", "refuel", json!({"gb": 2}), Side::Agent),
            result("c1", false, json!("Error: no line")),
        ]
    );
}

fn openai_messages() -> &'static str {
    r##"[
        {"role": "system", "content": "You are a retail agent."},
        {"role": "user", "content": "Cancel #W1"},
        {"role": "assistant", "content": "Looking it up.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_order_details", "arguments": "{\"order_id\": \"#W1\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_order_details", "content": "{\"status\": \"pending\"}"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_2", "type": "function", "function": {"name": "cancel", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: not allowed", "is_error": true},
        {"role": "user", "content": [{"type": "text", "text": "ok"}, {"type": "text", "text": "bye"}]}
    ]"##
}

fn openai_events() -> Vec<Event> {
    vec![
        user("Cancel #W1"),
        agent("Looking it up."),
        call(
            "call_1",
            "get_order_details",
            json!({"order_id": "#W1"}),
            Side::Agent,
        ),
        result("call_1", true, json!({"status": "pending"})),
        call("call_2", "cancel", json!({}), Side::Agent),
        result("call_2", false, json!("Error: not allowed")),
        user("ok\nbye"),
    ]
}

#[test]
fn openai_message_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "chat.json", openai_messages());
    assert_eq!(detect(&path).unwrap(), Format::OpenAi);
    let traces = clean(&path, None);
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].meta.id, "chat");
    assert_eq!(traces[0].events, openai_events());
}

#[test]
fn openai_messages_object_and_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let doc = format!(r#"{{"model": "gpt", "messages": {}}}"#, openai_messages());
    let path = write(&dir, "chat.json", &doc);
    assert_eq!(detect(&path).unwrap(), Format::OpenAi);
    assert_eq!(clean(&path, None)[0].events, openai_events());

    let one_line: Value = serde_json::from_str(&doc).unwrap();
    let text = format!(
        "{}\n\n{}\n",
        one_line,
        json!([{"role": "user", "content": "hello"}])
    );
    let path = write(&dir, "chats.jsonl", &text);
    assert_eq!(detect(&path).unwrap(), Format::OpenAi);
    let traces = clean(&path, None);
    assert_eq!(traces.len(), 2);
    assert_eq!(traces[0].meta.id, "chats#1");
    assert_eq!(traces[0].events, openai_events());
    assert_eq!(traces[1].meta.id, "chats#3");
    assert_eq!(traces[1].events, vec![user("hello")]);
}

#[test]
fn openai_tool_results_are_ok_without_an_explicit_error_flag() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "c.json",
        r#"[{"role": "assistant", "content": "", "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "t", "arguments": ""}}]},
            {"role": "tool", "tool_call_id": "a", "content": "Error: looks bad"}]"#,
    );
    assert_eq!(
        clean(&path, Some(Format::OpenAi))[0].events,
        vec![
            call("a", "t", json!({}), Side::Agent),
            result("a", true, json!("Error: looks bad")),
        ]
    );
}

#[test]
fn tau_bench_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "tb.json",
        r#"[
          {"task_id": 3, "reward": 1.0, "trial": 0, "info": {}, "traj": [
            {"role": "system", "content": "policy"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "x1", "type": "function", "function": {"name": "find_user_id_by_email", "arguments": "{\"email\": \"a@b.c\"}"}}]},
            {"role": "tool", "tool_call_id": "x1", "name": "find_user_id_by_email", "content": "sara_doe_496"}
          ]},
          {"task_id": 4, "reward": 0.0, "trial": 1, "info": {}, "traj": [{"role": "assistant", "content": "bye"}]}
        ]"#,
    );
    assert_eq!(detect(&path).unwrap(), Format::TauBench);
    let traces = clean(&path, None);
    assert_eq!(traces.len(), 2);
    assert_eq!(traces[0].meta.id, "tb#0");
    assert_eq!(traces[0].meta.task_id.as_deref(), Some("3"));
    assert_eq!(traces[0].meta.reward, Some(1.0));
    assert_eq!(traces[0].meta.trial, Some(0));
    assert_eq!(
        traces[0].events,
        vec![
            user("hi"),
            call(
                "x1",
                "find_user_id_by_email",
                json!({"email": "a@b.c"}),
                Side::Agent
            ),
            result("x1", true, json!("sara_doe_496")),
        ]
    );
    assert_eq!(traces[1].meta.task_id.as_deref(), Some("4"));
    assert_eq!(traces[1].events, vec![agent("bye")]);
}

const NATIVE_EVENTS: &str = r##"{"type":"user","text":"cancel #W1"}
{"type":"call","id":"c1","tool":"get_order_details","args":{"order_id":"#W1"}}
{"type":"result","id":"c1","ok":true,"content":{"status":"pending"}}
{"type":"agent","text":"done"}
{"type":"call","id":"u1","tool":"toggle_airplane_mode","requestor":"user"}
{"type":"result","id":"u1","ok":false,"content":"Error: no device"}
"##;

/// A trace's event times are its messages' timestamps: none when no
/// message has one, else one per event, each a timestamp of its messages,
/// in the messages' order; a solo simulation's ticket, stated before the
/// conversation, has none.
fn assert_times_are_the_messages(trace: &Trace, sim: &Value) {
    let stamps: Vec<DateTime> = sim["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["timestamp"].as_str())
        .map(|t| DateTime::parse(t).unwrap())
        .collect();
    if stamps.is_empty() {
        assert!(trace.meta.times.is_empty(), "{}", trace.meta.id);
        return;
    }
    assert_eq!(
        trace.meta.times.len(),
        trace.events.len(),
        "{}",
        trace.meta.id
    );
    let mut next = stamps.iter().peekable();
    for (time, event) in trace.meta.times.iter().zip(&trace.events) {
        if matches!(event, Event::Ticket { .. }) {
            assert_eq!(*time, None, "{}: the ticket has a time", trace.meta.id);
            continue;
        }
        let time = time.unwrap_or_else(|| panic!("{}: an event without a time", trace.meta.id));
        while next.next_if(|s| **s != time).is_some() {}
        assert!(
            next.peek().is_some(),
            "{}: {time} is not a later message's timestamp",
            trace.meta.id
        );
    }
}

#[test]
fn message_timestamps_and_native_at_are_the_events_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "timed.json",
        r##"{"simulations": [{"id": "s1", "messages": [
            {"role": "user", "content": "Cancel #W1.", "timestamp": "2025-08-01T16:20:44.321269"},
            {"role": "assistant", "content": "Looking.", "timestamp": "2025-08-01T16:20:45",
             "tool_calls": [{"id": "c1", "name": "get_order_details", "arguments": {"order_id": "#W1"}}]},
            {"role": "tool", "id": "c1", "content": "{}", "timestamp": "2025-08-01T16:20:46Z"},
            {"role": "assistant", "content": "Done."}]}]}"##,
    );
    let traces = clean(&path, None);
    let at = |t: &str| Some(DateTime::parse(t).unwrap());
    // A message's calls carry its time; a message without one has none.
    assert_eq!(
        traces[0].meta.times,
        [
            at("2025-08-01T16:20:44"),
            at("2025-08-01T16:20:45"),
            at("2025-08-01T16:20:45"),
            at("2025-08-01T16:20:46"),
            None
        ]
    );
    // A timestamp with a zone is not one of the domain's times.
    let path = write(
        &dir,
        "zoned.json",
        r#"{"simulations": [{"id": "s1", "messages": [
            {"role": "user", "content": "hi", "timestamp": "2025-08-01T16:20:44+02:00"}]}]}"#,
    );
    let imported = import_file(&path, None).unwrap();
    let e = only_error(&imported.errors);
    assert_eq!(e.path, "simulations[0].messages[0].timestamp");
    assert!(
        matches!(e.kind, ImportErrorKind::InvalidTimestamp { .. }),
        "{e}"
    );

    // Native lines: `at`, `null` or none; one that is not a time is an error
    // for its line.
    let path = write(
        &dir,
        "timed.jsonl",
        r#"{"type":"user","text":"hi","at":"2024-05-15T15:00:00"}
{"type":"agent","text":"hello"}
{"type":"user","text":"bye","at":null}
{"type":"agent","text":"later","at":"2024-05-15"}
{"type":"user","text":"?","at":1715785200}"#,
    );
    let imported = import_file(&path, None).unwrap();
    let e = only_error(&imported.errors);
    assert_eq!((e.record, e.path.as_str()), (Some(5), "at"), "{e}");
    assert!(
        matches!(e.kind, ImportErrorKind::InvalidTimestamp { .. }),
        "{e}"
    );
    assert_eq!(
        imported.traces[0].meta.times,
        [
            at("2024-05-15T15:00:00"),
            None,
            None,
            at("2024-05-15T00:00:00")
        ]
    );
}

fn native_events() -> Vec<Event> {
    vec![
        user("cancel #W1"),
        call(
            "c1",
            "get_order_details",
            json!({"order_id": "#W1"}),
            Side::Agent,
        ),
        result("c1", true, json!({"status": "pending"})),
        agent("done"),
        call("u1", "toggle_airplane_mode", Value::Null, Side::User),
        result("u1", false, json!("Error: no device")),
    ]
}

#[test]
fn native_without_headers_is_one_trace_named_by_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("# recorded by hand\n\n{NATIVE_EVENTS}\n   \n");
    let path = write(&dir, "session.jsonl", &text);
    assert_eq!(detect(&path).unwrap(), Format::Native);
    let traces = clean(&path, None);
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].meta.id, "session");
    assert_eq!(traces[0].events, native_events());
    // Round trip: serialising the events gives back the same file content.
    let lines: Vec<String> = native_events()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let path = write(&dir, "again.jsonl", &lines.join("\n"));
    assert_eq!(clean(&path, None)[0].events, native_events());
    // A file that starts with a call (no header, no message first).
    let path = write(&dir, "calls.jsonl", &lines[1..].join("\n"));
    assert_eq!(clean(&path, None)[0].events, native_events()[1..]);
}

/// A ticket line imports as the ticket, writes back as it was, and the
/// OpenAI chat writer keeps it out of the conversation (a system message).
#[test]
fn a_native_ticket_round_trips_and_is_no_chat_turn() {
    let dir = tempfile::tempdir().unwrap();
    let text = concat!(
        r#"{"type":"trace","id":"solo-1","control":"solo"}"#,
        "\n",
        r#"{"type":"ticket","text":"Customer id C1001; refuel 2.0 GB if needed."}"#,
        "\n",
        r#"{"type":"call","id":"c1","tool":"get_customer_by_id","args":{"customer_id":"C1001"}}"#,
        "\n",
    );
    let path = write(&dir, "solo.jsonl", text);
    let traces = clean(&path, None);
    let ticket = Event::Ticket {
        text: "Customer id C1001; refuel 2.0 GB if needed.".into(),
    };
    assert_eq!(traces[0].events[0], ticket);
    assert!(!ticket.is_agent_event());
    let mut written = Vec::new();
    turnstile_engine::import::native::write_native(&mut written, &traces[0]).unwrap();
    let again = write(&dir, "again.jsonl", &String::from_utf8(written).unwrap());
    assert_eq!(clean(&again, None), traces);
    let chat = turnstile_engine::import::openai::chat_messages(&traces[0]);
    assert_eq!(chat[0]["role"], "system");
    assert_eq!(
        chat[0]["content"],
        "Ticket: Customer id C1001; refuel 2.0 GB if needed."
    );
}

#[test]
fn native_headers_start_traces() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}\n{NATIVE_EVENTS}{}\n{}\n{}\n",
        r#"{"type":"trace","id":"a","task_id":"7","trial":1,"reward":0.5,"domain":"retail"}"#,
        r#"{"type":"trace"}"#,
        r#"{"type":"call","id":"c1","tool":"t","args":{}}"#,
        r#"{"type":"result","id":"c1","ok":true,"content":"x"}"#,
    );
    let path = write(&dir, "many.jsonl", &text);
    let traces = clean(&path, Some(Format::Native));
    assert_eq!(traces.len(), 2);
    assert_eq!(traces[0].meta.id, "a");
    assert_eq!(traces[0].meta.task_id.as_deref(), Some("7"));
    assert_eq!(traces[0].meta.trial, Some(1));
    assert_eq!(traces[0].meta.reward, Some(0.5));
    assert_eq!(traces[0].meta.domain.as_deref(), Some("retail"));
    assert_eq!(traces[0].events, native_events());
    // The call id c1 was closed in trace a; trace 1 may use it again.
    assert_eq!(traces[1].meta.id, "many#1");
    assert_eq!(
        traces[1].events,
        vec![
            call("c1", "t", json!({}), Side::Agent),
            result("c1", true, json!("x"))
        ]
    );
}

#[test]
fn a_bad_native_header_is_reported_and_still_starts_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let text = [
        r#"{"type":"trace","id":"a"}"#,
        r#"{"type":"user","text":"1"}"#,
        r#"{"type":"trace","id":"b","trial":"first"}"#,
        r#"{"type":"user","text":"2"}"#,
    ]
    .join("\n");
    let path = write(&dir, "h.jsonl", &text);
    let imported = import_file(&path, None).unwrap();
    let got: Vec<_> = imported
        .traces
        .iter()
        .map(|t| (t.meta.id.as_str(), t.events.clone()))
        .collect();
    assert_eq!(got, [("a", vec![user("1")]), ("h#1", vec![user("2")])]);
    let e = only_error(&imported.errors);
    assert_eq!((e.record, e.path.as_str()), (Some(3), "trial"));
    assert!(matches!(
        e.kind,
        ImportErrorKind::WrongType {
            expected: "an integer",
            found: "a string"
        }
    ));
}

fn only_error(errors: &[ImportError]) -> &ImportError {
    assert_eq!(errors.len(), 1, "{errors:#?}");
    &errors[0]
}

#[test]
fn a_truncated_tau2_file_keeps_the_simulations_before_the_cut() {
    let bytes = read_tau2("traces/retail_gpt-4.1.json");
    let raw: Value = serde_json::from_slice(&bytes).unwrap();
    let sim_id = raw["simulations"][5]["id"].as_str().unwrap();
    let at = bytes
        .windows(sim_id.len())
        .position(|w| w == sim_id.as_bytes())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.json");
    fs::write(&cut, &bytes[..at + 500]).unwrap();

    let mut reader = TraceReader::open(&cut, None).unwrap();
    let items: Vec<_> = reader.by_ref().collect();
    assert_eq!(items.len(), 6);
    for (i, item) in items[..5].iter().enumerate() {
        let trace = item.as_ref().unwrap();
        assert_eq!(
            trace.meta.id,
            format!("cut#{}", raw["simulations"][i]["id"].as_str().unwrap())
        );
    }
    let e = items[5].as_ref().unwrap_err();
    assert_eq!(e.record, Some(5));
    assert_eq!(e.path, "simulations[5]");
    assert!(
        matches!(e.kind, ImportErrorKind::Truncated { offset } if offset == (at + 500) as u64),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("record 5 at simulations[5]: file is truncated")
    );
    let s = reader.summary();
    assert_eq!((s.traces, s.errors), (5, 1));
}

#[test]
fn a_tau2_file_cut_anywhere_gives_a_prefix_of_traces_then_one_error() {
    let bytes = read_tau2("traces/telecom_gpt-4.1-mini_single.json");
    let dir = tempfile::tempdir().unwrap();
    let cut_path = dir.path().join("cut.json");
    for cut in (0..bytes.len()).step_by(389).chain([bytes.len() - 1]) {
        fs::write(&cut_path, &bytes[..cut]).unwrap();
        let items: Vec<_> = TraceReader::open(&cut_path, Some(Format::Tau2))
            .unwrap()
            .collect();
        let whole = serde_json::from_slice::<Value>(&bytes[..cut]).is_ok();
        let errors = items.iter().filter(|i| i.is_err()).count();
        if whole {
            assert_eq!((items.len(), errors), (1, 0), "cut at {cut}");
            continue;
        }
        assert_eq!(errors, 1, "cut at {cut}: {items:#?}");
        let last = items.last().unwrap().as_ref().unwrap_err();
        assert!(
            matches!(last.kind, ImportErrorKind::Truncated { offset } if offset == cut as u64),
            "cut at {cut}: {last}"
        );
        if last.path.starts_with("simulations") {
            assert_eq!(last.record, Some(0), "cut at {cut}: {last}");
        }
    }
}

#[test]
fn a_result_for_an_unknown_call_names_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "x.json",
        r#"{"simulations": [
            {"id": "ok", "messages": [{"role": "user", "content": "hi"}]},
            {"id": "bad", "messages": [
                {"role": "user", "content": "hi"},
                {"role": "tool", "id": "abc", "content": "{}"}]},
            {"id": "dup", "messages": [
                {"role": "assistant", "tool_calls": [{"id": "c", "name": "t", "arguments": {}}]},
                {"role": "assistant", "tool_calls": [{"id": "c", "name": "t", "arguments": {}}]}]},
            {"id": "after", "messages": []}]}"#,
    );
    let imported = import_file(&path, None).unwrap();
    let ids: Vec<_> = imported.traces.iter().map(|t| t.meta.id.as_str()).collect();
    assert_eq!(ids, ["x#ok", "x#after"]);
    assert_eq!(imported.errors.len(), 2, "{:#?}", imported.errors);
    let e = &imported.errors[0];
    assert_eq!(e.record, Some(1));
    assert_eq!(e.path, "simulations[1].messages[1]");
    assert!(matches!(&e.kind, ImportErrorKind::UnknownCallId { id } if id == "abc"));
    assert_eq!(
        e.to_string(),
        format!(
            "{}: record 1 at simulations[1].messages[1]: result for unknown call id \"abc\"",
            path.display()
        )
    );
    let e = &imported.errors[1];
    assert_eq!(e.record, Some(2));
    assert_eq!(e.path, "simulations[2].messages[1].tool_calls[0].id");
    assert!(matches!(&e.kind, ImportErrorKind::DuplicateCallId { id } if id == "c"));
    assert_eq!(imported.summary.errors, 2);
    assert_eq!(imported.summary.traces, 2);
}

#[test]
fn arguments_that_are_not_json_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "a.json",
        r#"{"simulations": [{"messages": [
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "t", "arguments": "{\"order_id\": "}]}]}]}"#,
    );
    let imported = import_file(&path, Some(Format::Tau2)).unwrap();
    assert!(imported.traces.is_empty());
    let e = only_error(&imported.errors);
    assert_eq!(e.record, Some(0));
    assert_eq!(e.path, "simulations[0].messages[0].tool_calls[0].arguments");
    assert!(matches!(e.kind, ImportErrorKind::InvalidArguments { .. }));

    let path = write(
        &dir,
        "b.json",
        r#"[{"role": "user", "content": "x"},
            {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
              "function": {"name": "t", "arguments": "not json"}}]}]"#,
    );
    let imported = import_file(&path, None).unwrap();
    let e = only_error(&imported.errors);
    assert_eq!(e.record, None);
    assert_eq!(e.path, "[1].tool_calls[0].function.arguments");
    assert!(matches!(e.kind, ImportErrorKind::InvalidArguments { .. }));
}

#[test]
fn a_native_line_that_is_not_json_is_reported_and_the_rest_imports() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}\n{}\nthis is not json\n{}\n{}\n{}\n{}\n",
        r#"{"type":"trace","id":"t"}"#,
        r#"{"type":"user","text":"a"}"#,
        r#"{"type":"shout","text":"b"}"#,
        r#"{"type":"result","id":"nope","ok":true}"#,
        r#"{"type":"agent","text":"c"}"#,
        r#"{"type":"call","tool":"x"}"#,
    );
    let path = write(&dir, "n.jsonl", &text);
    let imported = import_file(&path, None).unwrap();
    assert_eq!(imported.traces.len(), 1);
    assert_eq!(imported.traces[0].events, vec![user("a"), agent("c")]);
    let got: Vec<_> = imported
        .errors
        .iter()
        .map(|e| (e.record, e.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [(Some(3), ""), (Some(4), ""), (Some(5), "id"), (Some(7), "")]
    );
    // Line 3 starts at byte 53; serde_json points into it.
    assert!(matches!(
        imported.errors[0].kind,
        ImportErrorKind::Syntax { offset, .. } if (53..70).contains(&offset)
    ));
    assert!(matches!(
        imported.errors[1].kind,
        ImportErrorKind::InvalidEvent { .. }
    ));
    assert!(matches!(
        imported.errors[2].kind,
        ImportErrorKind::UnknownCallId { .. }
    ));
    assert!(matches!(
        imported.errors[3].kind,
        ImportErrorKind::InvalidEvent { .. }
    ));
}

#[test]
fn an_overlong_native_line_is_an_error_for_that_line_only() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(turnstile_engine::import::MAX_LINE_BYTES);
    let text = format!(
        "{}\n{{\"type\":\"user\",\"text\":\"{long}\"}}\n{}\n",
        r#"{"type":"user","text":"a"}"#, r#"{"type":"agent","text":"b"}"#
    );
    let path = write(&dir, "long.jsonl", &text);
    let imported = import_file(&path, None).unwrap();
    assert_eq!(imported.traces.len(), 1);
    assert_eq!(imported.traces[0].events, vec![user("a"), agent("b")]);
    let e = only_error(&imported.errors);
    assert_eq!(e.record, Some(2));
    assert!(matches!(e.kind, ImportErrorKind::RecordTooLarge { .. }));
}

#[test]
fn tau_bench_jsonl_is_one_result_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}\n{}\n",
        r#"{"task_id": 1, "reward": 0.0, "traj": [{"role": "user", "content": "hi"}]}"#,
        r#"{"task_id": 2, "reward": 1.0, "traj": [{"role": "tool", "tool_call_id": "z", "content": "x"}]}"#,
    );
    let path = write(&dir, "tb.jsonl", &text);
    assert_eq!(detect(&path).unwrap(), Format::TauBench);
    let imported = import_file(&path, None).unwrap();
    assert_eq!(imported.traces.len(), 1);
    assert_eq!(imported.traces[0].meta.id, "tb#1");
    assert_eq!(imported.traces[0].events, vec![user("hi")]);
    let e = only_error(&imported.errors);
    assert_eq!((e.record, e.path.as_str()), (Some(2), "traj[0]"));
    assert!(matches!(&e.kind, ImportErrorKind::UnknownCallId { id } if id == "z"));
}

#[test]
fn non_utf8_bytes_are_errors_with_their_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes =
        br#"{"simulations": [{"messages": []}, {"messages": [{"role": "user", "content": "caf"#
            .to_vec();
    let bad = bytes.len();
    bytes.extend_from_slice(b"\xff\"}]}, {\"messages\": []}]}");
    let path = dir.path().join("u.json");
    fs::write(&path, &bytes).unwrap();
    let imported = import_file(&path, None).unwrap();
    assert_eq!(imported.traces.len(), 2);
    let e = only_error(&imported.errors);
    assert_eq!(e.record, Some(1));
    assert_eq!(e.path, "simulations[1]");
    assert!(
        matches!(e.kind, ImportErrorKind::NotUtf8 { offset } if offset == bad as u64),
        "{e}"
    );

    // In a task copy (tau2 `tasks`, read for its ticket), the error names
    // the task and the simulations after it still import.
    let mut bytes = br#"{"tasks": [{"id": "caf"#.to_vec();
    let bad = bytes.len();
    bytes.extend_from_slice(b"\xe9\"}], \"simulations\": [{\"messages\": []}]}");
    let path = dir.path().join("t.json");
    fs::write(&path, &bytes).unwrap();
    let imported = import_file(&path, None).unwrap();
    assert_eq!(imported.traces.len(), 1);
    let e = only_error(&imported.errors);
    assert_eq!((e.record, e.path.as_str()), (None, "tasks[0]"));
    assert!(matches!(e.kind, ImportErrorKind::NotUtf8 { offset } if offset == bad as u64));

    let mut bytes = b"{\"type\":\"user\",\"text\":\"a\"}\n{\"type\":\"user\",\"text\":\"".to_vec();
    let bad = bytes.len();
    bytes.extend_from_slice(b"\xc3\x28\"}\n{\"type\":\"agent\",\"text\":\"b\"}\n");
    let path = dir.path().join("u.jsonl");
    fs::write(&path, &bytes).unwrap();
    let imported = import_file(&path, Some(Format::Native)).unwrap();
    assert_eq!(imported.traces[0].events, vec![user("a"), agent("b")]);
    let e = only_error(&imported.errors);
    assert_eq!(e.record, Some(2));
    assert!(matches!(e.kind, ImportErrorKind::NotUtf8 { offset } if offset == bad as u64));
}

#[test]
fn structural_problems_are_reported_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    // A simulation without messages, a message with an unknown role, content of the wrong type.
    let path = write(
        &dir,
        "s.json",
        r#"{"simulations": [{"id": 1}, {"messages": [{"role": "robot"}, {"role": "user", "content": 5}]}]}"#,
    );
    let imported = import_file(&path, None).unwrap();
    assert!(imported.traces.is_empty());
    let got: Vec<_> = imported
        .errors
        .iter()
        .map(|e| (e.record, e.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (Some(0), "simulations[0]"),
            (Some(1), "simulations[1].messages[0].role"),
            (Some(1), "simulations[1].messages[1].content"),
        ]
    );
    // No simulations at all.
    let path = write(&dir, "e.json", r#"{"tasks": []}"#);
    let imported = import_file(&path, None).unwrap();
    assert!(matches!(
        only_error(&imported.errors).kind,
        ImportErrorKind::MissingField {
            field: "simulations"
        }
    ));
    // Garbage between records ends the file with an error naming the record.
    let path = write(&dir, "g.json", r#"[{"traj": []} {"traj": []}]"#);
    let imported = import_file(&path, Some(Format::TauBench)).unwrap();
    assert_eq!(imported.traces.len(), 1);
    let e = only_error(&imported.errors);
    assert_eq!((e.record, e.path.as_str()), (Some(1), "[1]"));
    assert!(matches!(e.kind, ImportErrorKind::Syntax { offset: 14, .. }));
}

#[test]
fn formats_are_named_and_detected() {
    for (name, format) in [
        ("tau2", Format::Tau2),
        ("openai", Format::OpenAi),
        ("tau-bench", Format::TauBench),
        ("native", Format::Native),
    ] {
        assert_eq!(name.parse::<Format>().unwrap(), format);
        assert_eq!(format.to_string(), name);
        assert_eq!(serde_json::to_value(format).unwrap(), json!(name));
    }
    assert!("yaml".parse::<Format>().is_err());
    // Readers can be handed to worker threads.
    fn send<T: Send>() {}
    send::<TraceReader>();
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "empty.jsonl", "");
    assert_eq!(detect(&path).unwrap(), Format::Native);
    assert!(clean(&path, None).is_empty());
    let path = write(&dir, "odd.json", r#"{"hello": [1, 2, {"x": "}"}]}"#);
    assert!(matches!(
        detect(&path).unwrap_err().kind,
        ImportErrorKind::UnknownFormat { .. }
    ));
    let missing = dir.path().join("missing.json");
    assert!(matches!(
        import_file(&missing, None).unwrap_err().kind,
        ImportErrorKind::Io(_)
    ));
}

/// A reader that counts the bytes handed out.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicUsize>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n, Ordering::Relaxed);
        Ok(n)
    }
}

#[test]
fn native_files_stream_trace_by_trace() {
    const TRACES: usize = 20;
    const PER_TRACE: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    {
        let mut out = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        for t in 0..TRACES {
            writeln!(out, r#"{{"type":"trace","id":"t{t}"}}"#).unwrap();
            for i in 0..PER_TRACE / 2 {
                writeln!(
                    out,
                    r##"{{"type":"call","id":"c{i}","tool":"get_order_details","args":{{"order_id":"#W{i}"}}}}"##
                )
                .unwrap();
                writeln!(
                    out,
                    r#"{{"type":"result","id":"c{i}","ok":true,"content":{{"status":"pending"}}}}"#
                )
                .unwrap();
            }
        }
    }
    let total = fs::metadata(&path).unwrap().len() as usize;
    let read = Arc::new(AtomicUsize::new(0));
    let source: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(
        1 << 16,
        Counting {
            inner: fs::File::open(&path).unwrap(),
            read: Arc::clone(&read),
        },
    ));
    let mut reader = TraceReader::from_reader(source, &path, Format::Native);
    let mut seen = 0;
    for item in reader.by_ref() {
        let trace = item.unwrap();
        assert_eq!(trace.meta.id, format!("t{seen}"));
        assert_eq!(trace.events.len(), PER_TRACE);
        // Trace k is delivered once the header of trace k+1 has been read,
        // long before the end of the file.
        let bound = total / TRACES * (seen + 2) + (1 << 16);
        assert!(
            read.load(Ordering::Relaxed) <= bound,
            "trace {seen}: read {} of {total} bytes",
            read.load(Ordering::Relaxed)
        );
        seen += 1;
    }
    assert_eq!(seen, TRACES);
    let s = reader.summary();
    assert_eq!(s.events, TRACES * PER_TRACE);
    assert_eq!(
        (s.calls, s.results, s.errors),
        (TRACES * PER_TRACE / 2, TRACES * PER_TRACE / 2, 0)
    );
}

#[test]
fn every_tau2_trace_converts_to_native_and_back_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for file in trace_files() {
        let traces = clean(&file, None);
        let out = dir.path().join("converted.jsonl");
        let mut writer = std::io::BufWriter::new(fs::File::create(&out).unwrap());
        for trace in &traces {
            turnstile_engine::import::native::write_native(&mut writer, trace).unwrap();
        }
        writer.flush().unwrap();
        drop(writer);
        let back = clean(&out, Some(Format::Native));
        assert_eq!(back.len(), traces.len(), "{}", file.display());
        for (a, b) in traces.iter().zip(&back) {
            assert_eq!(a.events, b.events, "{}: {}", file.display(), a.meta.id);
            assert_eq!(a.meta, b.meta, "{}", file.display());
        }
    }
}
