//! Shared pieces of the converters: a trace builder that validates call/result
//! pairing as events are added and collects every problem of a record, and
//! typed accessors over `serde_json::Value` that report the JSON path of a
//! value of the wrong type.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor, value::MapAccessDeserializer};
use serde_json::{Map, Value};

use super::ResultContent;
use super::error::{ImportError, ImportErrorKind, type_name};
use turnstile_rules::DateTime;

use crate::bundle::model::Side;
use crate::trace::{Event, Trace, TraceMeta};

/// Builds one trace from one record, collecting its errors.
pub(crate) struct Builder<'a> {
    file: &'a Path,
    record: Option<usize>,
    pub(crate) events: Vec<Event>,
    /// The time of each event (the stamp of the message it came from).
    times: Vec<Option<DateTime>>,
    /// The time the events added next happened at ([`Builder::at`]).
    stamp: Option<DateTime>,
    open: HashSet<String>,
    pub(crate) errors: Vec<ImportError>,
}

impl<'a> Builder<'a> {
    pub(crate) fn new(file: &'a Path, record: Option<usize>) -> Self {
        Builder {
            file,
            record,
            events: Vec::new(),
            times: Vec::new(),
            stamp: None,
            open: HashSet::new(),
            errors: Vec::new(),
        }
    }

    /// The events added from now on happened at `time` (a message's
    /// timestamp; `None`: unknown).
    pub(crate) fn at(&mut self, time: Option<DateTime>) {
        self.stamp = time;
    }

    fn push(&mut self, event: Event) {
        self.events.push(event);
        self.times.push(self.stamp);
    }

    pub(crate) fn error(&mut self, path: impl Into<String>, kind: ImportErrorKind) {
        self.errors
            .push(ImportError::new(self.file, self.record, path, kind));
    }

    /// A message; empty text produces no event. Text the reader already
    /// owns (a string with escapes) is moved, not copied.
    pub(crate) fn text(&mut self, side: Side, text: impl AsRef<str> + Into<String>) {
        if text.as_ref().is_empty() {
            return;
        }
        let text = text.into();
        self.push(match side {
            Side::User => Event::User { text },
            Side::Agent => Event::Agent { text },
        });
    }

    /// A tool call; `path` points at the call object.
    pub(crate) fn call(&mut self, path: &str, id: &str, tool: &str, args: Value, requestor: Side) {
        if !self.open.insert(id.to_owned()) {
            self.error(
                format!("{path}.id"),
                ImportErrorKind::DuplicateCallId { id: id.to_owned() },
            );
            return;
        }
        self.push(Event::Call {
            id: id.to_owned(),
            tool: tool.to_owned(),
            args,
            requestor,
        });
    }

    /// A tool result; `path` points at the result message.
    pub(crate) fn result(&mut self, path: &str, id: &str, ok: bool, content: Value) {
        if !self.open.remove(id) {
            self.error(path, ImportErrorKind::UnknownCallId { id: id.to_owned() });
            return;
        }
        self.push(Event::Result {
            id: id.to_owned(),
            ok,
            content,
        });
    }

    /// The trace, or every error found in the record.
    pub(crate) fn finish(self, mut meta: TraceMeta) -> Result<Trace, Vec<ImportError>> {
        if self.errors.is_empty() {
            if self.times.iter().any(Option::is_some) {
                meta.times = self.times;
            }
            Ok(Trace {
                meta,
                events: self.events,
            })
        } else {
            Err(self.errors)
        }
    }
}

/// `value` as an object, or an error at `path`.
pub(crate) fn object<'v>(
    b: &mut Builder<'_>,
    value: &'v Value,
    path: &str,
) -> Option<&'v Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        other => {
            b.error(path, wrong("an object", other));
            None
        }
    }
}

/// An optional field: `Ok(None)` when missing or null.
pub(crate) fn opt<'v>(obj: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// An optional string field (missing or null is `None`); other types are an error.
pub(crate) fn opt_str<'v>(
    b: &mut Builder<'_>,
    obj: &'v Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'v str>, ()> {
    match opt(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => {
            b.error(join(path, key), wrong("a string", other));
            Err(())
        }
    }
}

/// A required string field.
pub(crate) fn req_str<'v>(
    b: &mut Builder<'_>,
    obj: &'v Map<String, Value>,
    key: &'static str,
    path: &str,
) -> Option<&'v str> {
    match opt_str(b, obj, key, path) {
        Ok(Some(s)) => Some(s),
        Ok(None) => {
            b.error(path, ImportErrorKind::MissingField { field: key });
            None
        }
        Err(()) => None,
    }
}

/// An optional boolean flag (missing or null is `false`).
pub(crate) fn flag(b: &mut Builder<'_>, obj: &Map<String, Value>, key: &str, path: &str) -> bool {
    match opt(obj, key) {
        None => false,
        Some(Value::Bool(v)) => *v,
        Some(other) => {
            b.error(join(path, key), wrong("a boolean", other));
            false
        }
    }
}

/// An optional array field (missing or null is empty).
pub(crate) fn opt_array<'v>(
    b: &mut Builder<'_>,
    obj: &'v Map<String, Value>,
    key: &str,
    path: &str,
) -> &'v [Value] {
    match opt(obj, key) {
        None => &[],
        Some(Value::Array(items)) => items,
        Some(other) => {
            b.error(join(path, key), wrong("an array", other));
            &[]
        }
    }
}

/// Tool-call arguments: an object (or any JSON value), or a string holding JSON.
pub(crate) fn arguments(b: &mut Builder<'_>, value: Option<&Value>, path: &str) -> Option<Value> {
    match value {
        None | Some(Value::Null) => Some(Value::Object(Map::new())),
        Some(Value::String(text)) if text.trim().is_empty() => Some(Value::Object(Map::new())),
        Some(Value::String(text)) => match serde_json::from_str(text) {
            Ok(args) => Some(args),
            Err(e) => {
                b.error(
                    path,
                    ImportErrorKind::InvalidArguments {
                        message: e.to_string(),
                    },
                );
                None
            }
        },
        Some(other) => Some(other.clone()),
    }
}

/// A tool-call requestor: `assistant`/`agent` or `user`.
pub(crate) fn requestor(
    b: &mut Builder<'_>,
    value: Option<&Value>,
    default: Side,
    path: &str,
) -> Option<Side> {
    match value {
        None | Some(Value::Null) => Some(default),
        Some(Value::String(s)) => match s.as_str() {
            "assistant" | "agent" => Some(Side::Agent),
            "user" => Some(Side::User),
            _ => {
                b.error(
                    path,
                    ImportErrorKind::UnknownRequestor {
                        requestor: s.clone(),
                    },
                );
                None
            }
        },
        Some(other) => {
            b.error(path, wrong("a string", other));
            None
        }
    }
}

/// [`arguments`] on an owned value, for the typed fast readers; `None` for
/// a string that is not JSON (the `Value` path says where).
pub(crate) fn fast_arguments(value: Option<Value>) -> Option<Value> {
    match value {
        None | Some(Value::Null) => Some(Value::Object(Map::new())),
        Some(Value::String(text)) if text.trim().is_empty() => Some(Value::Object(Map::new())),
        Some(Value::String(text)) => serde_json::from_str(&text).ok(),
        Some(other) => Some(other),
    }
}

/// A record read by a typed fast reader: `None` unless every byte is UTF-8
/// (serde skips the strings of fields a typed struct ignores without
/// checking them; the `Value` path reports the bad byte's offset).
pub(crate) fn fast_record<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    let text = std::str::from_utf8(bytes).ok()?;
    serde_json::from_str(text).ok()
}

/// A typed fast-reader struct read from a JSON object only. A derived
/// `Deserialize` also takes an array as the struct's fields in order, which
/// the `Value` path rejects (`object`); wrapping the struct keeps the two
/// paths taking the same records.
pub(crate) struct MapOnly<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MapOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Fields<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer
            .deserialize_map(Fields(PhantomData))
            .map(MapOnly)
    }
}

/// One message of a tau2 simulation or an OpenAI conversation, typed and
/// borrowed for the fast readers: the fields of both formats (each reader
/// reads its own; a field of the wrong type sends the record to the `Value`
/// path, which ignores the other format's) and the call shape `C` of its
/// format.
#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de>"))]
pub(crate) struct FastMessage<'a, C> {
    #[serde(borrow)]
    pub(crate) role: Cow<'a, str>,
    /// Text only: OpenAI's list of parts takes the `Value` path.
    #[serde(default, borrow)]
    pub(crate) content: Option<Cow<'a, str>>,
    /// tau2: the call a result answers.
    #[serde(default, borrow)]
    pub(crate) id: Option<Cow<'a, str>>,
    /// OpenAI: the call a result answers.
    #[serde(default, borrow)]
    pub(crate) tool_call_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(crate) error: Option<bool>,
    /// OpenAI's other error flag.
    #[serde(default)]
    pub(crate) is_error: Option<bool>,
    #[serde(default)]
    pub(crate) tool_calls: Option<Vec<MapOnly<C>>>,
    /// OpenAI's legacy call (present, not null: reported as unsupported by
    /// the `Value` path).
    #[serde(default)]
    pub(crate) function_call: Option<IgnoredAny>,
    /// tau2: when the message was written.
    #[serde(default, borrow)]
    pub(crate) timestamp: Option<Cow<'a, str>>,
}

impl<C> FastMessage<'_, C> {
    /// Adds the message, whose `content` the caller took out of it (so
    /// text with escapes, already owned, is moved into its event), as the
    /// `Value` paths do: a `tool` message is a result answering `call_id` (`None`: the record takes the `Value`
    /// path), failed when `failed`; a `user` or `assistant` message its
    /// text. Returns the side a user or agent message's calls are made from,
    /// `Some(None)` for a result, `None` for another role.
    pub(crate) fn add_to(
        &self,
        b: &mut Builder<'_>,
        content: Option<Cow<'_, str>>,
        call_id: Option<&str>,
        failed: bool,
        results: ResultContent,
    ) -> Option<Option<Side>> {
        let side = match self.role.as_ref() {
            "user" => Side::User,
            "assistant" => Side::Agent,
            "tool" => {
                b.result("", call_id?, !failed, results.content_owned(content));
                return Some(None);
            }
            _ => return None,
        };
        if let Some(text) = content {
            b.text(side, text);
        }
        Some(Some(side))
    }
}

/// An id that may be recorded as a string or a number.
pub(crate) fn id_text(value: Option<&Value>) -> Option<String> {
    match value {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

pub(crate) fn wrong(expected: &'static str, found: &Value) -> ImportErrorKind {
    ImportErrorKind::WrongType {
        expected,
        found: type_name(found),
    }
}

/// `base.key`, or `key` at the root.
pub(crate) fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_owned()
    } else {
        format!("{base}.{key}")
    }
}

/// `base[index]`.
pub(crate) fn index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}
