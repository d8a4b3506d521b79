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
//!   `{"type":"call","id":..,"tool":..,"args":{..},"requestor":"agent"|"user"}`
//!   (`args` defaults to `null`, `requestor` to `agent`),
//!   `{"type":"result","id":..,"ok":true|false,"content":..}` (`content`
//!   defaults to `null`; when `ok` is false it is the error text).
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

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::build::id_text;
use super::error::{ImportError, ImportErrorKind, type_name};
use super::scan::parse_json;
use crate::trace::{Event, Trace, TraceMeta};

/// The importer's state between lines.
#[derive(Default)]
pub(crate) struct Native {
    current: Option<Trace>,
    open: HashSet<String>,
    started: usize,
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
        // Fast path: an event line. Anything else (a header, an error) is
        // parsed again as a `Value` to say what it is.
        let event = match serde_json::from_slice::<Event>(bytes) {
            Ok(event) => event,
            Err(_) => match parse_json(bytes, start) {
                Ok(value) => match self.not_an_event(file, stem, line, value, out) {
                    Some(event) => event,
                    None => return,
                },
                Err(kind) => {
                    out.push(Err(err("", kind)));
                    return;
                }
            },
        };
        self.event(file, stem, line, event, out);
    }

    /// A line that did not deserialize as an event: a header, or an error.
    fn not_an_event(
        &mut self,
        file: &Path,
        stem: &str,
        line: usize,
        value: Value,
        out: &mut Vec<Item>,
    ) -> Option<Event> {
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
        match serde_json::from_value(value) {
            Ok(event) => Some(event),
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

    /// Adds a parsed event to the trace in progress, checking call ids.
    fn event(&mut self, file: &Path, stem: &str, line: usize, event: Event, out: &mut Vec<Item>) {
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
    for event in &trace.events {
        let line = serde_json::to_string(event).map_err(std::io::Error::other)?;
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
