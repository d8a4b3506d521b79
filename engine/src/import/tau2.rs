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
//!   [`Event::User`] / [`Event::Agent`]; then each of its
//!   `tool_calls[{id, name, arguments, requestor}]` → [`Event::Call`]
//!   (`requestor` `assistant` → agent, `user` → user, defaulting to the
//!   message's role; `arguments` an object or a string holding JSON);
//! - `role: tool` → [`Event::Result`] with the
//!   message's `id`, `ok = !error`, content parsed by
//!   [`parse_content`](crate::trace::parse_content).
//!
//! Meta: `id` = `<file stem>#<simulation id>` (or the index when there is no
//! id), `task_id`, `trial`, `reward` = `reward_info.reward`, `domain`, and
//! each event's time: its message's `timestamp` (the wall clock of the
//! simulation run, not the policy's "current time"; a bundle on a `fixed`
//! clock ignores it).
//!
//! **The ticket.** A solo agent (`info.agent_info.implementation` ending in
//! `_solo`: no user simulator) is given its task's `ticket` — the user's
//! request as tau2 writes it for an agent that cannot ask ("Customer name:
//! John Smith, phone number: 555-123-2002 … they will refuel 2.0 GB of data
//! if necessary"). The reader keeps each task's ticket from the file's
//! `tasks` array (the task copies the file was graded against; tau2 writes
//! them before `simulations`) and, in a solo file, opens each simulation
//! with it as [`Event::Ticket`]. A two-party
//! simulation gets none: its agent never saw the ticket, the user simulator
//! speaks for itself. A task whose `ticket` is not a string is reported at
//! `tasks[i].ticket`; the rest of the task copy is not read. In a solo file
//! whose `tasks` come after its `simulations`, each task with a ticket is
//! reported (the simulations were delivered without it: the reader streams).
//!
//! **Two paths, one result.** `simulation_fast` deserializes a simulation
//! straight into typed, borrowed structs (strings without escapes are not
//! copied until they become events; no `serde_json::Value` tree except for
//! ids and call arguments). It gives up — returns `None` — on anything it
//! does not take exactly as `simulation` would (a field of another type, an
//! unknown role or requestor, a call/result pairing error), and the caller
//! then runs `simulation` over a `Value`, which says where each problem is.
//! So the fast path never changes what is imported, only how fast.

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::ResultContent;
use super::build::{
    Builder, FastMessage, MapOnly, arguments, fast_arguments, fast_record, flag, id_text, index,
    join, object, opt, opt_array, opt_str, req_str, requestor, wrong,
};
use super::error::{ImportError, ImportErrorKind};
use turnstile_rules::DateTime;

use crate::bundle::model::Side;
use crate::trace::{Event, Trace, TraceMeta};

/// Converts simulation number `i` of a tau2 file.
pub(crate) fn simulation(
    file: &Path,
    stem: &str,
    i: usize,
    value: &Value,
    domain: Option<&str>,
    results: ResultContent,
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
        times: Vec::new(),
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
                tau2_message(&mut b, message, &index(&messages_path, m), results);
            }
        }
        Some(other) => b.error(messages_path, wrong("an array", other)),
        None => b.error(base, ImportErrorKind::MissingField { field: "messages" }),
    }
    b.finish(meta)
}

fn tau2_message(b: &mut Builder<'_>, value: &Value, path: &str, results: ResultContent) {
    let Some(message) = object(b, value, path) else {
        return;
    };
    let Some(role) = req_str(b, message, "role", path) else {
        return;
    };
    let stamp = match opt(message, "timestamp") {
        None => None,
        Some(Value::String(text)) => match DateTime::parse(text) {
            Ok(time) => Some(time),
            Err(e) => {
                b.error(
                    join(path, "timestamp"),
                    ImportErrorKind::InvalidTimestamp {
                        message: e.to_string(),
                    },
                );
                None
            }
        },
        Some(other) => {
            b.error(join(path, "timestamp"), wrong("a timestamp", other));
            None
        }
    };
    b.at(stamp);
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
            b.result(path, id, ok, results.content(content));
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

/// One simulation, typed and borrowed (see the module documentation).
#[derive(Deserialize)]
struct FastSimulation<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    task_id: Option<Value>,
    #[serde(default)]
    trial: Option<i64>,
    #[serde(default)]
    reward_info: Option<MapOnly<FastReward>>,
    #[serde(borrow)]
    messages: Vec<MapOnly<FastMessage<'a, FastCall<'a>>>>,
}

#[derive(Deserialize)]
struct FastReward {
    #[serde(default)]
    reward: Option<f64>,
}

#[derive(Deserialize)]
struct FastCall<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default, borrow)]
    requestor: Option<Cow<'a, str>>,
}

/// Simulation number `i` of a tau2 file from its bytes, on the fast path;
/// `None` when the record needs `simulation` (see the module documentation).
pub(crate) fn simulation_fast(
    file: &Path,
    stem: &str,
    i: usize,
    bytes: &[u8],
    domain: Option<&str>,
    results: ResultContent,
) -> Option<Trace> {
    let MapOnly(sim): MapOnly<FastSimulation<'_>> = fast_record(bytes)?;
    let id = id_text(sim.id.as_ref()).unwrap_or_else(|| i.to_string());
    let meta = TraceMeta {
        id: format!("{stem}#{id}"),
        task_id: id_text(sim.task_id.as_ref()),
        trial: sim.trial,
        reward: sim.reward_info.and_then(|r| r.0.reward),
        domain: domain.map(str::to_owned),
        control: None,
        times: Vec::new(),
    };
    let mut b = Builder::new(file, Some(i));
    for MapOnly(mut message) in sim.messages {
        // A timestamp that does not parse is reported by the `Value` path.
        let stamp = match message.timestamp.as_deref() {
            None => None,
            Some(text) => Some(DateTime::parse(text).ok()?),
        };
        b.at(stamp);
        let failed = message.error.unwrap_or(false);
        let content = message.content.take();
        let Some(side) = message.add_to(&mut b, content, message.id.as_deref(), failed, results)?
        else {
            continue;
        };
        for MapOnly(call) in message.tool_calls.unwrap_or_default() {
            let args = fast_arguments(call.arguments)?;
            let side = match call.requestor.as_deref() {
                None => side,
                Some("assistant" | "agent") => Side::Agent,
                Some("user") => Side::User,
                Some(_) => return None,
            };
            b.call("", &call.id, &call.name, args, side);
        }
    }
    // A pairing error needs its JSON path: the slow path says where.
    b.finish(meta).ok()
}

/// The id and ticket of task copy `task` (`tasks[i]`, at `path`): `None`
/// for a task without a ticket or an id to find it by.
pub(crate) fn ticket_of(
    task: &Value,
    path: &str,
) -> Result<Option<(String, String)>, (String, ImportErrorKind)> {
    let Some(task) = task.as_object() else {
        return Err((path.to_owned(), wrong("an object", task)));
    };
    let Some(id) = id_text(task.get("id")) else {
        return Ok(None);
    };
    match task.get("ticket") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(ticket)) => Ok(Some((id, ticket.clone()))),
        Some(other) => Err((join(path, "ticket"), wrong("a string", other))),
    }
}

/// Opens a solo simulation with its task's ticket (module docs).
pub(crate) fn with_ticket(trace: &mut Trace, ticket: Option<&String>) {
    if let Some(text) = ticket {
        trace.events.insert(0, Event::Ticket { text: text.clone() });
        // Stated before the conversation: no message time of its own.
        if !trace.meta.times.is_empty() {
            trace.meta.times.insert(0, None);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::compressed;
    use crate::trace::{Event, parse_content};

    fn slow(sim: &Value, results: ResultContent) -> Result<Trace, Vec<ImportError>> {
        simulation(Path::new("f.json"), "f", 3, sim, Some("retail"), results)
    }

    fn fast(sim: &Value, results: ResultContent) -> Option<Trace> {
        let bytes = serde_json::to_vec(sim).unwrap();
        simulation_fast(Path::new("f.json"), "f", 3, &bytes, Some("retail"), results)
    }

    /// The parsed content of every result of a trace read raw.
    fn parsed(mut trace: Trace) -> Trace {
        for event in &mut trace.events {
            if let Event::Result { content, .. } = event
                && let Value::String(raw) = content
            {
                let value = parse_content(raw);
                *content = value;
            }
        }
        trace
    }

    #[test]
    fn the_fast_path_imports_every_vendored_simulation_as_the_slow_path_does() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/tau2/traces");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let bytes = compressed::read_all(&entry.unwrap().path()).unwrap();
            let file: Value = serde_json::from_slice(&bytes).unwrap();
            for sim in file["simulations"].as_array().unwrap() {
                let want = slow(sim, ResultContent::Parsed).unwrap();
                assert_eq!(fast(sim, ResultContent::Parsed).as_ref(), Some(&want));
                let raw = fast(sim, ResultContent::Raw).unwrap();
                assert_eq!(raw.events.len(), want.events.len());
                assert_eq!(parsed(raw), want);
                seen += 1;
            }
        }
        assert!(seen > 300, "{seen} simulations");
    }

    /// The streaming reader (the record scanner, then the fast path) gives,
    /// for every simulation of every vendored file, the trace the `Value`
    /// path gives from a parse of the whole file (a solo one opened with
    /// its task's ticket).
    #[test]
    fn the_streaming_reader_imports_every_vendored_file_as_a_whole_parse_does() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/tau2/traces");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let stem = name.strip_suffix(".json.zst").unwrap();
            let file: Value =
                serde_json::from_slice(&compressed::read_all(&path).unwrap()).unwrap();
            let domain = domain_of(&file["info"]);
            let tickets: std::collections::HashMap<String, String> = file["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|t| ticket_of(t, "tasks[]").unwrap())
                .collect();
            let read: Vec<Trace> = crate::import::TraceReader::open(&path, None)
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let sims = file["simulations"].as_array().unwrap();
            assert_eq!(read.len(), sims.len(), "{name}");
            for (i, (got, sim)) in read.into_iter().zip(sims).enumerate() {
                let mut want = simulation(
                    &path,
                    stem,
                    i,
                    sim,
                    domain.as_deref(),
                    ResultContent::Parsed,
                )
                .unwrap();
                want.meta.control = control_of(&file["info"]);
                if want.meta.control == Some(crate::bundle::model::Control::Solo) {
                    let ticket = tickets.get(want.meta.task_id.as_ref().unwrap());
                    assert!(ticket.is_some(), "{name} #{i}: a solo task has a ticket");
                    with_ticket(&mut want, ticket);
                }
                assert_eq!(got, want, "{name} #{i}");
                seen += 1;
            }
        }
        assert!(seen > 300, "{seen} simulations");
    }

    #[test]
    fn records_the_fast_path_does_not_take_go_the_slow_way() {
        let sim = |messages: Value| serde_json::json!({"id": "s", "messages": messages});
        let cases = [
            // Accepted by the slow path, refused by the typed one: a user
            // message with a numeric id (never read).
            (
                sim(serde_json::json!([{"role": "user", "content": "hi", "id": 5}])),
                true,
            ),
            // Errors the slow path reports with their JSON path.
            (
                sim(serde_json::json!([{"role": "robot", "content": "hi"}])),
                false,
            ),
            (
                sim(serde_json::json!([{"role": "tool", "id": "x", "content": "{}"}])),
                false,
            ),
            (
                sim(serde_json::json!([{"role": "assistant", "tool_calls": [
                    {"id": "c", "name": "t", "arguments": "{not json"}]}])),
                false,
            ),
            (
                sim(serde_json::json!([{"role": "assistant", "tool_calls": [
                    {"id": "c", "name": "t", "requestor": "robot"}]}])),
                false,
            ),
            (
                serde_json::json!({"id": "s", "trial": 1.5, "messages": []}),
                false,
            ),
            (serde_json::json!({"id": "s"}), false),
            // A derived struct would take an array as its fields in order;
            // the Value path wants objects.
            (sim(serde_json::json!([["user", "hi"]])), false),
            (
                serde_json::json!({"id": "s", "reward_info": [1.0], "messages": []}),
                false,
            ),
            (serde_json::json!(["s", null, null, null, []]), false),
        ];
        // Bytes that are not UTF-8 in a field nobody reads: the Value path
        // reports them, so the fast path must not take the record.
        let mut bytes = br#"{"id": "s", "note": "caf"#.to_vec();
        bytes.push(0xff);
        bytes.extend_from_slice(br#"", "messages": []}"#);
        assert!(serde_json::from_slice::<Value>(&bytes).is_err());
        assert!(
            simulation_fast(
                Path::new("f.json"),
                "f",
                3,
                &bytes,
                None,
                ResultContent::Raw
            )
            .is_none()
        );
        for (value, imports) in cases {
            assert_eq!(fast(&value, ResultContent::Parsed), None, "{value}");
            assert_eq!(
                slow(&value, ResultContent::Parsed).is_ok(),
                imports,
                "{value}"
            );
        }
    }

    /// The file's bytes with its keys in the order given (tau2 writes
    /// `info`, `tasks`, then `simulations`).
    fn read(file: &Value, keys: &[&str]) -> Vec<Result<Trace, ImportError>> {
        let fields: Vec<String> = keys
            .iter()
            .map(|k| format!("{}:{}", Value::from(*k), file[*k]))
            .collect();
        let bytes = format!("{{{}}}", fields.join(",")).into_bytes();
        crate::import::TraceReader::from_reader(
            std::io::Cursor::new(bytes),
            "f.json",
            crate::import::Format::Tau2,
        )
        .collect()
    }

    const TAU2_ORDER: &[&str] = &["info", "tasks", "simulations"];

    fn results(implementation: &str, ticket: Value) -> Value {
        serde_json::json!({
            "info": {"agent_info": {"implementation": implementation},
                     "environment_info": {"domain_name": "telecom"}},
            "tasks": [{"id": "t1", "ticket": ticket}, {"id": "t2"}],
            "simulations": [
                {"id": "s1", "task_id": "t1", "messages": [
                    {"role": "assistant", "content": "Hello."}]},
                {"id": "s2", "task_id": "t2", "messages": []}
            ]
        })
    }

    #[test]
    fn a_solo_simulation_opens_with_its_tasks_ticket_and_a_two_party_one_does_not() {
        let ticket = "Customer name: John Smith, phone number: 555-123-2002.";
        let solo: Vec<Trace> = read(&results("llm_agent_solo", ticket.into()), TAU2_ORDER)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            solo[0].events,
            vec![
                Event::Ticket {
                    text: ticket.into()
                },
                Event::Agent {
                    text: "Hello.".into()
                }
            ]
        );
        assert!(solo[1].events.is_empty(), "a task without a ticket");
        let dual: Vec<Trace> = read(&results("llm_agent", ticket.into()), TAU2_ORDER)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            dual[0].events,
            vec![Event::Agent {
                text: "Hello.".into()
            }]
        );
    }

    #[test]
    fn a_ticket_that_is_not_text_is_reported_where_it_is() {
        let items = read(
            &results("llm_agent_solo", serde_json::json!(["no"])),
            TAU2_ORDER,
        );
        let errors: Vec<String> = items
            .iter()
            .filter_map(|i| i.as_ref().err().map(ToString::to_string))
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("tasks[0].ticket"), "{}", errors[0]);
        let traces: Vec<&Trace> = items.iter().filter_map(|i| i.as_ref().ok()).collect();
        assert_eq!(traces.len(), 2, "the simulations still import");
        assert!(
            !traces[0]
                .events
                .iter()
                .any(|e| matches!(e, Event::Ticket { .. }))
        );
    }

    #[test]
    fn tickets_after_the_simulations_are_reported_not_lost() {
        let file = results("llm_agent_solo", "Customer id C1.".into());
        let items = read(&file, &["info", "simulations", "tasks"]);
        let errors: Vec<String> = items
            .iter()
            .filter_map(|i| i.as_ref().err().map(ToString::to_string))
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("tasks[0]") && errors[0].contains("without their tickets"),
            "{}",
            errors[0]
        );
        // A two-party file never uses tickets: nothing to report.
        let dual = results("llm_agent", "Customer id C1.".into());
        let items = read(&dual, &["info", "simulations", "tasks"]);
        assert!(items.iter().all(Result::is_ok));
    }
}
