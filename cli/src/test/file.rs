//! One test file: conversations in native JSONL (`docs/native-format.md`)
//! whose event lines may carry an `expect` and whose `trace` headers may name
//! the `schedules` they run under (and, as in any native file, the
//! `control`). The conversations are read by the engine's own native
//! importer; this module ties each expectation to its event and line, and
//! refuses (with `file:line`) whatever could otherwise pass silently: a
//! malformed expectation, one the gate can never answer on its event, a step
//! the bundle does not have, a conversation that expects nothing.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;
use turnstile_engine::import::{Format, TraceReader};
use turnstile_engine::session::Schedule;
use turnstile_engine::trace::Trace;
use turnstile_rules::EventIdx;

use super::expect::{ExpectSyntax, Expected};

/// Largest test file read (test conversations are short).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// A conversation to replay and what it expects.
#[derive(Debug)]
pub struct Conversation {
    /// The conversation, as the importer read it.
    pub trace: Trace,
    /// The line of its header (or of its first event, without one).
    pub line: usize,
    /// The schedules it runs under (`workflow` unless the header says).
    pub schedules: Vec<Schedule>,
    /// Its expectations, in event order.
    pub expectations: Vec<Expectation>,
}

/// One `expect` of one event.
#[derive(Debug)]
pub struct Expectation {
    /// The line that carries it.
    pub line: usize,
    /// The event it is about.
    pub event: EventIdx,
    /// What the gate should say.
    pub expected: Expected,
}

/// A test file, read.
#[derive(Debug, Default)]
pub struct TestFile {
    /// The conversations that can run.
    pub conversations: Vec<Conversation>,
    /// Everything wrong with the file, each at its line.
    pub errors: Vec<TestFileError>,
}

/// Something wrong with a test file, at a line when it belongs to one.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {kind}", .file.display(), .line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct TestFileError {
    /// The file.
    pub file: PathBuf,
    /// The 1-based line.
    pub line: Option<usize>,
    /// What is wrong.
    pub kind: TestErrorKind,
}

/// What is wrong with a test file.
#[derive(Debug, thiserror::Error)]
pub enum TestErrorKind {
    #[error("cannot read the file: {0}")]
    Io(#[source] std::io::Error),
    #[error("no such file or directory; a bundle's test conversations go in its tests/ directory")]
    Missing,
    #[error("the file has {0} bytes; test files are read whole, at most {MAX_FILE_BYTES}")]
    TooLarge(u64),
    /// A line the native importer refused (its message carries the line).
    #[error("{0}")]
    Import(String),
    #[error(
        "`expect` must be a string such as \"block MissingRead at cancel.read_order\", not {0}"
    )]
    ExpectNotText(&'static str),
    #[error("`expect: {text}`: {why}")]
    Malformed { text: String, why: ExpectSyntax },
    #[error("`expect: {text}`: {why}")]
    Impossible { text: String, why: String },
    #[error("`expect: {text}`: the bundle has no step `{step}`{hint}")]
    UnknownStep {
        text: String,
        step: String,
        hint: String,
    },
    #[error("`schedules`: {0}")]
    Schedules(String),
    #[error("unknown field `{field}`{hint} (this line takes {known})")]
    UnknownField {
        field: String,
        known: String,
        hint: String,
    },
    #[error("the replay reported nothing for event {0}")]
    NotReported(u32),
    #[error("conversation `{0}` expects nothing: give some event an `expect`, or it tests nothing")]
    NothingExpected(String),
    #[error("cannot tie the importer's events to the file's lines ({0})")]
    Misaligned(String),
    /// The replay itself failed (a session error).
    #[error("conversation `{trace}` cannot be replayed under {schedule}: {message}")]
    Replay {
        trace: String,
        schedule: Schedule,
        message: String,
    },
}

/// The step names of a bundle, to check `at <step>` against.
pub struct Steps(pub BTreeSet<String>);

impl Steps {
    /// "; did you mean ..." for a step the bundle lacks.
    fn hint(&self, wanted: &str) -> String {
        let tail = wanted.rsplit('.').next().unwrap_or(wanted);
        let close: Vec<&str> = self
            .0
            .iter()
            .filter(|s| s.rsplit('.').next() == Some(tail))
            .map(String::as_str)
            .collect();
        match close.as_slice() {
            [] => String::new(),
            names => format!("; did you mean `{}`?", names.join("` or `")),
        }
    }
}

/// The lines of one conversation, as scanned.
struct Scanned {
    line: usize,
    schedules: Result<Vec<Schedule>, String>,
    /// Per event: its line and the `expect` value, if any.
    events: Vec<(usize, Option<Value>)>,
    /// Fields no line of a test may carry (a misspelt `expect`), by line.
    unknown: Vec<(usize, String, &'static [&'static str])>,
}

/// The fields a test file's line may have, by its `type`.
fn known_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "trace" => &[
            "type",
            "id",
            "task_id",
            "trial",
            "reward",
            "domain",
            "control",
            "schedules",
        ],
        "user" | "agent" => &["type", "text", "at", "expect"],
        "ticket" => &["type", "text", "at"],
        "call" => &["type", "id", "tool", "args", "requestor", "at", "expect"],
        "result" => &["type", "id", "ok", "content", "at", "expect"],
        "approval" => &["type", "call", "granted", "by", "at"],
        "principal" => &["type", "id", "claims", "at"],
        _ => &[],
    }
}

impl TestFile {
    /// Reads `path`; a file the importer refuses has no conversations, only
    /// errors.
    pub fn read(path: &Path, steps: &Steps) -> TestFile {
        let error = |line, kind| TestFileError {
            file: path.to_path_buf(),
            line,
            kind,
        };
        let mut file = TestFile::default();
        let bytes = match std::fs::metadata(path).and_then(|m| {
            if m.len() > MAX_FILE_BYTES {
                Ok(Err(m.len()))
            } else {
                std::fs::read(path).map(Ok)
            }
        }) {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(len)) => {
                file.errors.push(error(None, TestErrorKind::TooLarge(len)));
                return file;
            }
            Err(e) => {
                file.errors.push(error(None, TestErrorKind::Io(e)));
                return file;
            }
        };
        let reader = TraceReader::from_reader(
            std::io::Cursor::new(bytes.clone()),
            path.to_path_buf(),
            Format::Native,
        );
        let mut traces = Vec::new();
        for item in reader {
            match item {
                Ok(trace) => traces.push(trace),
                Err(e) => file
                    .errors
                    .push(error(e.record, TestErrorKind::Import(e.kind.to_string()))),
            }
        }
        if !file.errors.is_empty() {
            return file;
        }
        // The importer took every line, so every line is UTF-8 JSON.
        let text = String::from_utf8_lossy(&bytes);
        let scanned = scan(&text);
        if scanned.len() != traces.len() {
            file.errors.push(error(
                None,
                TestErrorKind::Misaligned(format!(
                    "{} conversations read, {} headers found",
                    traces.len(),
                    scanned.len()
                )),
            ));
            return file;
        }
        for (trace, lines) in traces.into_iter().zip(scanned) {
            if trace.events.len() != lines.events.len() {
                file.errors.push(error(
                    Some(lines.line),
                    TestErrorKind::Misaligned(format!(
                        "{} events read, {} event lines found",
                        trace.events.len(),
                        lines.events.len()
                    )),
                ));
                continue;
            }
            let before = file.errors.len();
            for (line, field, known) in &lines.unknown {
                let hint = known
                    .iter()
                    .find(|k| {
                        field.to_lowercase().starts_with(*k) || k.starts_with(&field.to_lowercase())
                    })
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default();
                let kind = TestErrorKind::UnknownField {
                    field: field.clone(),
                    known: known.join(", "),
                    hint,
                };
                file.errors.push(error(Some(*line), kind));
            }
            let schedules = lines.schedules.unwrap_or_else(|e| {
                file.errors
                    .push(error(Some(lines.line), TestErrorKind::Schedules(e)));
                Vec::new()
            });
            let mut expectations = Vec::new();
            for (index, ((line, expect), event)) in
                lines.events.into_iter().zip(&trace.events).enumerate()
            {
                let Some(expect) = expect else { continue };
                let text = match expect {
                    Value::String(text) => text,
                    other => {
                        let kind = TestErrorKind::ExpectNotText(json_kind(&other));
                        file.errors.push(error(Some(line), kind));
                        continue;
                    }
                };
                let expected = match Expected::parse(&text) {
                    Ok(expected) => expected,
                    Err(why) => {
                        let kind = TestErrorKind::Malformed { text, why };
                        file.errors.push(error(Some(line), kind));
                        continue;
                    }
                };
                if let Some(why) = expected.impossible_on(event) {
                    let kind = TestErrorKind::Impossible { text, why };
                    file.errors.push(error(Some(line), kind));
                    continue;
                }
                if let Some(step) = expected.step()
                    && !steps.0.contains(step)
                {
                    let kind = TestErrorKind::UnknownStep {
                        step: step.to_owned(),
                        hint: steps.hint(step),
                        text,
                    };
                    file.errors.push(error(Some(line), kind));
                    continue;
                }
                let Ok(event) = u32::try_from(index) else {
                    continue;
                };
                expectations.push(Expectation {
                    line,
                    event: EventIdx(event),
                    expected,
                });
            }
            if expectations.is_empty() && file.errors.len() == before {
                let kind = TestErrorKind::NothingExpected(trace.meta.id.clone());
                file.errors.push(error(Some(lines.line), kind));
            }
            if file.errors.len() == before {
                file.conversations.push(Conversation {
                    trace,
                    line: lines.line,
                    schedules,
                    expectations,
                });
            }
        }
        file
    }
}

/// The conversations of a file that the importer read without error, as
/// lines: a `trace` header starts one, and events before any header form
/// one of their own (the importer's rules, `docs/native-format.md`).
fn scan(text: &str) -> Vec<Scanned> {
    let mut out: Vec<Scanned> = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(trimmed) else {
            continue;
        };
        let kind = fields.get("type").and_then(Value::as_str).unwrap_or("");
        let known = known_fields(kind);
        let mut unknown: Vec<(usize, String, &'static [&'static str])> = fields
            .keys()
            .filter(|k| !known.contains(&k.as_str()))
            .map(|k| (number, k.clone(), known))
            .collect();
        // By name: the same whichever order the JSON library keeps.
        unknown.sort_by(|a, b| a.1.cmp(&b.1));
        if kind == "trace" {
            out.push(Scanned {
                line: number,
                schedules: schedules(fields.get("schedules")),
                events: Vec::new(),
                unknown,
            });
            continue;
        }
        if out.is_empty() {
            out.push(Scanned {
                line: number,
                schedules: Ok(vec![Schedule::Workflow]),
                events: Vec::new(),
                unknown: Vec::new(),
            });
        }
        if let Some(current) = out.last_mut() {
            current.events.push((number, fields.get("expect").cloned()));
            current.unknown.extend(unknown);
        }
    }
    out
}

/// A header's `schedules`: absent (workflow), `"all"`, one name, or a list
/// of names.
fn schedules(value: Option<&Value>) -> Result<Vec<Schedule>, String> {
    let names: Vec<&str> = match value {
        None | Some(Value::Null) => return Ok(vec![Schedule::Workflow]),
        Some(Value::String(name)) if name == "all" => return Ok(Schedule::ALL.to_vec()),
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| format!("a list of schedule names, not {}", json_kind(v)))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "\"all\", a schedule name or a list of them, not {}",
                json_kind(other)
            ));
        }
    };
    if names.is_empty() {
        return Err("an empty list runs nothing; name workflow, boundary or action".to_owned());
    }
    let mut out: Vec<Schedule> = Vec::new();
    for name in names {
        let schedule: Schedule = name.parse()?;
        if !out.contains(&schedule) {
            out.push(schedule);
        }
    }
    Ok(out)
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl fmt::Display for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.trace.meta.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Steps {
        Steps(
            ["cancel.confirm", "cancel.authorize", "identify.find_user"]
                .into_iter()
                .map(str::to_owned)
                .collect(),
        )
    }

    fn read(text: &str) -> TestFile {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, text).unwrap();
        TestFile::read(&path, &steps())
    }

    fn errors(file: &TestFile) -> Vec<String> {
        file.errors
            .iter()
            .map(|e| format!("{}: {}", e.line.unwrap_or(0), e.kind))
            .collect()
    }

    #[test]
    fn expectations_are_tied_to_their_events_and_lines() {
        let file = read(concat!(
            "# a comment\n",
            "{\"type\":\"trace\",\"id\":\"a\",\"schedules\":[\"workflow\",\"action\"],\"control\":\"solo\"}\n",
            "{\"type\":\"user\",\"text\":\"hi\"}\n",
            "\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\",\"args\":{},\"expect\":\"block MissingRead at cancel.confirm\"}\n",
            "{\"type\":\"trace\",\"id\":\"b\",\"schedules\":\"all\"}\n",
            "{\"type\":\"agent\",\"text\":\"toggle it\",\"expect\":\"deviate\"}\n",
        ));
        assert!(file.errors.is_empty(), "{:?}", errors(&file));
        let [a, b] = file.conversations.as_slice() else {
            panic!("two conversations")
        };
        assert_eq!((a.line, a.schedules.len()), (2, 2));
        assert_eq!(
            a.trace.meta.control.map(|c| format!("{c:?}")),
            Some("Solo".into())
        );
        assert_eq!(a.expectations.len(), 1);
        assert_eq!(
            (a.expectations[0].line, a.expectations[0].event),
            (5, EventIdx(1))
        );
        assert_eq!(b.schedules, Schedule::ALL.to_vec());
        assert_eq!(b.expectations[0].event, EventIdx(0));
    }

    #[test]
    fn what_could_pass_silently_is_an_error_at_its_line() {
        let file = read(concat!(
            "{\"type\":\"trace\",\"id\":\"a\"}\n",
            "{\"type\":\"user\",\"text\":\"hi\",\"expect\":\"allow\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\",\"expect\":\"block Nope\"}\n",
            "{\"type\":\"result\",\"id\":\"c1\",\"ok\":true,\"expect\":\"deviate\"}\n",
            "{\"type\":\"call\",\"id\":\"c2\",\"tool\":\"t\",\"expect\":\"allow at cancel.authorise\"}\n",
            "{\"type\":\"call\",\"id\":\"c3\",\"tool\":\"t\",\"expect\":{\"verdict\":\"allow\"}}\n",
            "{\"type\":\"trace\",\"id\":\"b\",\"schedules\":[\"hourly\"]}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\",\"expect\":\"allow\"}\n",
            "{\"type\":\"trace\",\"id\":\"c\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\"}\n",
        ));
        let errors = errors(&file);
        assert_eq!(errors.len(), 7, "{errors:#?}");
        assert!(errors[0].starts_with("2: `expect: allow`: the gate never decides a user message"));
        assert!(errors[1].starts_with("3: `expect: block Nope`: unknown block reason"));
        assert!(
            errors[2].starts_with("4: `expect: deviate`: the gate never decides a tool result")
        );
        assert!(
            errors[3].contains("5: `expect: allow at cancel.authorise`: the bundle has no step")
        );
        assert!(errors[4].starts_with("6: `expect` must be a string"));
        assert!(errors[5].starts_with("7: `schedules`: unknown schedule \"hourly\""));
        assert!(errors[6].starts_with("9: conversation `c` expects nothing"));
        assert!(file.conversations.is_empty());
    }

    #[test]
    fn misspelt_fields_are_errors_not_silence() {
        let file = read(concat!(
            "{\"type\":\"trace\",\"id\":\"a\",\"schedule\":\"all\",\"expect\":\"allow\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\",\"expect\":\"allow\"}\n",
            "{\"type\":\"call\",\"id\":\"c2\",\"tool\":\"t\",\"expected\":\"block\"}\n",
        ));
        let errors = errors(&file);
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert!(
            errors[0].starts_with("1: unknown field `expect`"),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("1: unknown field `schedule`; did you mean `schedules`?"),
            "{errors:?}"
        );
        assert!(
            errors[2].starts_with("3: unknown field `expected`; did you mean `expect`?"),
            "{errors:?}"
        );
        assert!(file.conversations.is_empty());
    }

    #[test]
    fn every_field_of_the_native_format_is_taken() {
        let file = read(concat!(
            "{\"type\":\"trace\",\"id\":\"a\"}\n",
            "{\"type\":\"ticket\",\"text\":\"t\",\"at\":\"2026-10-02T12:00:00\"}\n",
            "{\"type\":\"principal\",\"id\":\"p\",\"claims\":{},\"at\":\"2026-10-02\"}\n",
            "{\"type\":\"user\",\"text\":\"hi\",\"at\":\"2026-10-02T12:00:01\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\",\"at\":\"2026-10-02T12:00:02\",\"expect\":\"allow\"}\n",
            "{\"type\":\"approval\",\"call\":\"c1\",\"granted\":true,\"by\":\"user\",\"at\":null}\n",
            "{\"type\":\"result\",\"id\":\"c1\",\"ok\":true,\"at\":\"2026-10-02T12:00:03\"}\n",
            "{\"type\":\"agent\",\"text\":\"done\",\"at\":\"2026-10-02T12:00:04\"}\n",
        ));
        assert!(errors(&file).is_empty(), "{:#?}", errors(&file));
        assert_eq!(file.conversations.len(), 1);
    }

    #[test]
    fn a_line_the_importer_refuses_makes_the_file_an_error() {
        let file = read(concat!(
            "{\"type\":\"trace\",\"id\":\"a\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\",\"expect\":\"allow\"}\n",
            "{\"type\":\"result\",\"id\":\"c9\",\"ok\":true}\n",
            "not json\n",
        ));
        let errors = errors(&file);
        assert_eq!(errors.len(), 2, "{errors:#?}");
        assert!(errors[0].starts_with("3: "), "{errors:?}");
        assert!(errors[1].starts_with("4: "), "{errors:?}");
        assert!(file.conversations.is_empty());
    }

    #[test]
    fn events_before_any_header_are_a_conversation() {
        let file = read("{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"t\",\"expect\":\"allow\"}\n");
        assert!(file.errors.is_empty());
        assert_eq!(file.conversations[0].trace.meta.id, "t");
        assert_eq!(file.conversations[0].line, 1);
    }
}
