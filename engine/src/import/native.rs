//! Turnstile's native trace format: JSON Lines, one [`Event`] per line,
//! exactly as `serde_json` writes [`crate::trace::Event`]. This is what the
//! live gate speaks. Documented for users in `docs/native-format.md`.
//!
//! ```text
//! # a comment
//! {"type":"trace","id":"order-42","task_id":"7","domain":"retail"}
//! {"type":"user","text":"Please cancel order #W1."}
//! {"type":"call","id":"c1","tool":"get_order_details","args":{"order_id":"#W1"},"requestor":"agent"}
//! {"type":"result","id":"c1","ok":true,"content":{"status":"pending"}}
//! {"type":"agent","text":"Order #W1 is pending. Cancel it?"}
//! ```
//!
//! - Event lines: `{"type":"user","text":..}`, `{"type":"agent","text":..}`,
//!   `{"type":"ticket","text":..}` (what the user stated before the
//!   conversation: see [`Event::Ticket`]),
//!   `{"type":"call","id":..,"tool":..,"args":{..},"requestor":"agent"|"user"}`
//!   (`args` defaults to `null`, `requestor` to `agent`),
//!   `{"type":"result","id":..,"ok":true|false,"content":..}` (`content`
//!   defaults to `null`; when `ok` is false it is the error text). Any event
//!   may carry `"at":"2024-05-15T15:00:00"`, when it happened (or was
//!   decided): what a bundle on an `event` or `system` clock reads `now()`
//!   as ([`crate::clock`]).
//! - Header lines `{"type":"trace","id":..,"task_id":..,"trial":..,
//!   "reward":..,"domain":..,"control":"dual"|"solo"}` (every field optional) start a new trace; the
//!   events after it belong to it. Without a header the events form one trace
//!   whose id is the file stem; a header without `id` gets
//!   `<file stem>#<trace index>`. A file with no header and no event holds no
//!   trace. A header with a field of the wrong type is reported and still
//!   starts a trace, with the default id.
//! - Blank lines and lines whose first non-blank character is `#` are
//!   comments and are skipped.
//! - Lines are read one at a time (bounded memory); a line longer than
//!   16 MiB, a line that is not UTF-8 or not JSON, an unknown `type`, a
//!   result whose `id` matches no open call, and a call whose `id` is still
//!   open are each reported as an error for that line (record index = the
//!   1-based line number), and that line is left out; the other lines of the
//!   same trace still import.
//!
//! An event line is read on a fast path first (`FastLine`: one flat,
//! borrowed struct, a result's content kept as its JSON text until it is
//! parsed or, with [`ResultContent::Raw`], handed on unparsed); a line it
//! does not take exactly as the [`Event`] deserializer would is read again
//! by that deserializer, which also says what is wrong.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::ResultContent;
use super::build::id_text;
use super::error::{ImportError, ImportErrorKind, type_name};
use super::scan::parse_json;
use turnstile_rules::DateTime;

use crate::bundle::model::Side;
use crate::trace::{Event, Trace, TraceMeta};

/// The importer's state between lines.
#[derive(Default)]
pub(crate) struct Native {
    current: Option<Trace>,
    open: HashSet<String>,
    started: usize,
    /// How results' content is delivered.
    pub(crate) results: ResultContent,
}

type Item = Result<Trace, ImportError>;

impl Native {
    /// Handles one line (`bytes`, starting at file offset `start`; not blank,
    /// not a comment); completed traces and errors go to `out`.
    pub(crate) fn line(
        &mut self,
        file: &Path,
        stem: &str,
        line: usize,
        bytes: &[u8],
        start: u64,
        out: &mut Vec<Item>,
    ) {
        let err = |path: &str, kind| ImportError::new(file, Some(line), path, kind);
        if let Err(e) = std::str::from_utf8(bytes) {
            let offset = start + e.valid_up_to() as u64;
            out.push(Err(err("", ImportErrorKind::NotUtf8 { offset })));
            return;
        }
        // Fast path: an event line. Anything else (a header, an error, a
        // time that is not a timestamp) is parsed again as a `Value` to say
        // what it is.
        let fast = serde_json::from_slice::<FastLine<'_>>(bytes)
            .ok()
            .and_then(|line| line.event(self.results));
        let (event, at) = match fast {
            Some(taken) => taken,
            None => match parse_json(bytes, start) {
                Ok(value) => match self.not_an_event(file, stem, line, value, out) {
                    Some(taken) => taken,
                    None => return,
                },
                Err(kind) => {
                    out.push(Err(err("", kind)));
                    return;
                }
            },
        };
        self.event(file, stem, line, event, at, out);
    }

    /// A line the fast path did not take: an event it leaves to the
    /// [`Event`] deserializer, a header, or an error.
    fn not_an_event(
        &mut self,
        file: &Path,
        stem: &str,
        line: usize,
        value: Value,
        out: &mut Vec<Item>,
    ) -> Option<(Event, Option<DateTime>)> {
        let err = |path: &str, kind| ImportError::new(file, Some(line), path, kind);
        let kind = match &value {
            Value::Object(map) => match map.get("type") {
                Some(Value::String(kind)) => kind.as_str(),
                Some(other) => {
                    out.push(Err(err(
                        "type",
                        ImportErrorKind::WrongType {
                            expected: "a string",
                            found: type_name(other),
                        },
                    )));
                    return None;
                }
                None => {
                    out.push(Err(err(
                        "",
                        ImportErrorKind::MissingField { field: "type" },
                    )));
                    return None;
                }
            },
            other => {
                out.push(Err(err(
                    "",
                    ImportErrorKind::WrongType {
                        expected: "an object",
                        found: type_name(other),
                    },
                )));
                return None;
            }
        };
        if kind == "trace" {
            // A bad header is reported and still starts a trace (with the
            // default id), so the events after it are not attributed to the
            // trace before it.
            let meta = header(&value, stem, self.started).unwrap_or_else(|(path, kind)| {
                out.push(Err(err(path, kind)));
                TraceMeta {
                    id: format!("{stem}#{}", self.started),
                    ..TraceMeta::default()
                }
            });
            self.flush(out);
            self.start(meta);
            return None;
        }
        let at = match event_time(&value) {
            Ok(at) => at,
            Err(message) => {
                out.push(Err(err(
                    "at",
                    ImportErrorKind::InvalidTimestamp { message },
                )));
                return None;
            }
        };
        match serde_json::from_value(value) {
            Ok(event) => Some((event, at)),
            Err(e) => {
                out.push(Err(err(
                    "",
                    ImportErrorKind::InvalidEvent {
                        message: e.to_string(),
                    },
                )));
                None
            }
        }
    }

    /// Adds a parsed event, which happened at `at`, to the trace in
    /// progress, checking call ids.
    fn event(
        &mut self,
        file: &Path,
        stem: &str,
        line: usize,
        event: Event,
        at: Option<DateTime>,
        out: &mut Vec<Item>,
    ) {
        let err = |path: &str, kind| ImportError::new(file, Some(line), path, kind);
        // Events before any header form a trace named by the file stem.
        if self.current.is_none() {
            self.start(TraceMeta {
                id: stem.to_owned(),
                ..TraceMeta::default()
            });
        }
        match &event {
            Event::Call { id, .. } if !self.open.insert(id.clone()) => {
                out.push(Err(err(
                    "id",
                    ImportErrorKind::DuplicateCallId { id: id.clone() },
                )));
                return;
            }
            Event::Result { id, .. } if !self.open.remove(id) => {
                out.push(Err(err(
                    "id",
                    ImportErrorKind::UnknownCallId { id: id.clone() },
                )));
                return;
            }
            _ => {}
        }
        if let Some(trace) = &mut self.current {
            trace.events.push(event);
            // Times are kept once some event has one.
            let times = &mut trace.meta.times;
            if at.is_some() || !times.is_empty() {
                times.resize(trace.events.len() - 1, None);
                times.push(at);
            }
        }
    }

    fn start(&mut self, meta: TraceMeta) {
        self.started += 1;
        self.open.clear();
        self.current = Some(Trace {
            meta,
            events: Vec::new(),
        });
    }

    /// Emits the trace in progress, if any (at a header or the end of the file).
    pub(crate) fn flush(&mut self, out: &mut Vec<Item>) {
        if let Some(trace) = self.current.take() {
            out.push(Ok(trace));
        }
    }
}

/// Any event line, flat and borrowed: the fast path of [`Native::line`].
#[derive(Deserialize)]
struct FastLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool: Option<Cow<'a, str>>,
    #[serde(default)]
    args: Option<Value>,
    /// `Some(null)` when given as `null`, which [`Event`] refuses.
    #[serde(default, deserialize_with = "present")]
    requestor: Option<Value>,
    #[serde(default)]
    ok: Option<bool>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    /// When the event happened (or was decided), as ISO text.
    #[serde(default, borrow)]
    at: Option<Cow<'a, str>>,
}

/// A field that is present, even as `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl FastLine<'_> {
    /// The event, as [`Event`]'s deserializer reads it, and its time;
    /// `None` when the line is not one it takes (a header, a missing
    /// field, a time that is not a timestamp...).
    fn event(self, results: ResultContent) -> Option<(Event, Option<DateTime>)> {
        let owned = |text: Option<Cow<'_, str>>| text.map(Cow::into_owned);
        let at = match &self.at {
            None => None,
            Some(text) => Some(DateTime::parse(text).ok()?),
        };
        let event = match self.kind.as_ref() {
            "user" => Event::User {
                text: owned(self.text)?,
            },
            "ticket" => Event::Ticket {
                text: owned(self.text)?,
            },
            "agent" => Event::Agent {
                text: owned(self.text)?,
            },
            "call" => Event::Call {
                id: owned(self.id)?,
                tool: owned(self.tool)?,
                args: self.args.unwrap_or(Value::Null),
                requestor: match self.requestor {
                    None => Side::Agent,
                    Some(Value::String(side)) => match side.as_str() {
                        "agent" => Side::Agent,
                        "user" => Side::User,
                        _ => return None,
                    },
                    Some(_) => return None,
                },
            },
            "result" => Event::Result {
                id: owned(self.id)?,
                ok: self.ok?,
                content: match (self.content, results) {
                    (None, _) => Value::Null,
                    (Some(raw), ResultContent::Parsed) => serde_json::from_str(raw.get()).ok()?,
                    (Some(raw), ResultContent::Raw) => Value::String(raw.get().to_owned()),
                },
            },
            _ => return None,
        };
        Some((event, at))
    }
}

/// The time of a native event line (its `at`: ISO text, or `null`), or why
/// it is not one.
pub fn event_time(line: &Value) -> Result<Option<DateTime>, String> {
    match line.get("at") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => DateTime::parse(text)
            .map(Some)
            .map_err(|e| format!("`at`: {e}")),
        Some(other) => Err(format!(
            "`at` is {}, not a timestamp such as \"2024-05-15T15:00:00\"",
            type_name(other)
        )),
    }
}

/// Writes `trace` in the native format: its header line, then one line per
/// event. Reading the result back gives the same trace.
pub fn write_native(
    out: &mut impl std::io::Write,
    trace: &crate::trace::Trace,
) -> std::io::Result<()> {
    let mut header = serde_json::to_value(&trace.meta).map_err(std::io::Error::other)?;
    if let Some(fields) = header.as_object_mut() {
        fields.insert("type".to_owned(), serde_json::Value::from("trace"));
    }
    writeln!(out, "{header}")?;
    for (k, event) in trace.events.iter().enumerate() {
        let line = match trace.meta.times.get(k).copied().flatten() {
            None => serde_json::to_string(event),
            Some(at) => serde_json::to_value(event).map(|mut line| {
                if let Some(fields) = line.as_object_mut() {
                    fields.insert("at".to_owned(), Value::from(at.to_string()));
                }
                line.to_string()
            }),
        }
        .map_err(std::io::Error::other)?;
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The meta of a `{"type":"trace",...}` header line.
fn header(
    value: &Value,
    stem: &str,
    ordinal: usize,
) -> Result<TraceMeta, (&'static str, ImportErrorKind)> {
    let wrong = |field: &'static str, expected: &'static str, found: &Value| {
        (
            field,
            ImportErrorKind::WrongType {
                expected,
                found: type_name(found),
            },
        )
    };
    let get = |key: &str| value.get(key).filter(|v| !v.is_null());
    let text = |key: &'static str| match get(key) {
        None => Ok(None),
        Some(v) => id_text(Some(v))
            .map(Some)
            .ok_or_else(|| wrong(key, "a string", v)),
    };
    let mut meta = TraceMeta {
        id: text("id")?.unwrap_or_else(|| format!("{stem}#{ordinal}")),
        task_id: text("task_id")?,
        domain: text("domain")?,
        ..TraceMeta::default()
    };
    if let Some(v) = get("trial") {
        meta.trial = Some(v.as_i64().ok_or_else(|| wrong("trial", "an integer", v))?);
    }
    if let Some(v) = get("reward") {
        meta.reward = Some(v.as_f64().ok_or_else(|| wrong("reward", "a number", v))?);
    }
    if let Some(v) = get("control") {
        meta.control = Some(
            serde_json::from_value(v.clone()).map_err(|_| wrong("control", "dual or solo", v))?,
        );
    }
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse_content;

    /// The fast path takes a line exactly as [`Event`]'s deserializer does,
    /// or leaves it to it.
    #[test]
    fn the_fast_line_agrees_with_the_event_deserializer() {
        let lines = [
            r#"{"type":"user","text":"hi"}"#,
            r#"{"text":"hi","type":"agent","extra":[1,2]}"#,
            r#"{"type":"user"}"#,
            r#"{"type":"user","text":null}"#,
            r#"{"type":"call","id":"c1","tool":"t","args":{"a":[1,{"b":null}]}}"#,
            r#"{"type":"call","id":"c1","tool":"t","args":null,"requestor":"user"}"#,
            r#"{"type":"call","id":"c1","tool":"t"}"#,
            r#"{"type":"call","id":"c1","tool":"t","requestor":null}"#,
            r#"{"type":"call","id":"c1","tool":"t","requestor":"robot"}"#,
            r#"{"type":"call","id":"c1"}"#,
            r#"{"type":"result","id":"c1","ok":true,"content":{"status": "pending", "n": 1.5}}"#,
            r#"{"type":"result","id":"c1","ok":false,"content":"boom"}"#,
            r#"{"type":"result","id":"c1","ok":true,"content":null}"#,
            r#"{"type":"result","id":"c1","ok":true}"#,
            r#"{"type":"result","id":"c1","ok":null}"#,
            r#"{"type":"result","id":"c1"}"#,
            r#"{"type":"trace","id":"x"}"#,
            r#"{"type":"other"}"#,
            r#"{"type":"user","text":"a","text":"b"}"#,
        ];
        for line in lines {
            let full = serde_json::from_str::<Event>(line).ok();
            let fast = |results| {
                serde_json::from_str::<FastLine<'_>>(line)
                    .ok()
                    .and_then(|l| l.event(results))
            };
            let parsed = fast(ResultContent::Parsed).map(|(event, _)| event);
            if parsed.is_some() {
                assert_eq!(parsed, full, "{line}");
            }
            if full.is_none() {
                assert_eq!(parsed, None, "{line}");
            }
            // Raw: the content's JSON text, which parses to the content.
            let raw = fast(ResultContent::Raw).map(|(event, _)| match event {
                Event::Result {
                    id,
                    ok,
                    content: Value::String(raw),
                } => Event::Result {
                    id,
                    ok,
                    content: parse_content(&raw),
                },
                other => other,
            });
            assert_eq!(raw, parsed, "{line}");
        }
        // The lines the fast path takes.
        let taken = lines
            .iter()
            .filter(|l| {
                serde_json::from_str::<FastLine<'_>>(l)
                    .ok()
                    .and_then(|l| l.event(ResultContent::Parsed))
                    .is_some()
            })
            .count();
        assert_eq!(taken, 9);
    }
}
