//! Import errors: where a malformed record is (file, record index, JSON path)
//! and what is wrong with it.
//!
//! The record index is the position of the record in its container: the
//! simulation index in a tau2 file, the element index in a tau-bench array,
//! and the **1-based line number** in any line-oriented file (native JSONL,
//! OpenAI or tau-bench JSONL). The JSON path is relative to the file's root
//! for JSON documents (`simulations[3].messages[7].tool_calls[0].arguments`)
//! and relative to the line for line-oriented files (`args`, `id`); it is
//! empty when the whole record is at fault.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

use super::compressed::{Compression, DecompressError};

/// One malformed record, or a failure to read the file at all.
#[derive(Debug, Error)]
#[error("{}{}: {kind}", .file.display(), location(*.record, .path))]
pub struct ImportError {
    /// The file being imported.
    pub file: PathBuf,
    /// The record index (see the module documentation), when the problem
    /// belongs to one record.
    pub record: Option<usize>,
    /// The JSON path of the offending value; empty for the whole record.
    pub path: String,
    /// What is wrong (already part of the `Display` text, so not a `source`).
    pub kind: ImportErrorKind,
}

/// What is wrong with a record or a file.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ImportErrorKind {
    /// The file could not be opened or read.
    #[error("cannot read: {0}")]
    Io(#[source] std::io::Error),
    /// A gzip or zstd file whose compressed data ends before the stream's
    /// end marker (the file was cut short).
    #[error(
        "truncated {format} stream: the compressed data ends after {offset} decompressed bytes"
    )]
    CompressedTruncated {
        /// The compression format of the file.
        format: Compression,
        /// Decompressed bytes delivered before the cut.
        offset: u64,
    },
    /// A gzip or zstd file whose compressed data does not decode or fails
    /// its checksum.
    #[error("corrupt {format} stream after {offset} decompressed bytes: {message}")]
    CompressedCorrupt {
        /// The compression format of the file.
        format: Compression,
        /// Decompressed bytes delivered before the failure.
        offset: u64,
        /// The decoder's description of the failure.
        message: String,
    },
    /// The bytes are not UTF-8.
    #[error("invalid UTF-8 at byte offset {offset}")]
    NotUtf8 {
        /// Absolute byte offset of the first invalid byte in the file.
        offset: u64,
    },
    /// The bytes are not JSON.
    #[error("invalid JSON at byte offset {offset}: {message}")]
    Syntax {
        /// Absolute byte offset in the file, as near as known.
        offset: u64,
        /// The JSON parser's description of the error.
        message: String,
    },
    /// The file ends in the middle of a record or of the document.
    #[error("file is truncated: it ends at byte offset {offset} in the middle of a value")]
    Truncated {
        /// The file's length.
        offset: u64,
    },
    /// A record is larger than the importer's per-record bound.
    #[error("record is larger than {limit} bytes")]
    RecordTooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
    /// A required field is missing.
    #[error("missing field `{field}`")]
    MissingField {
        /// The field's name.
        field: &'static str,
    },
    /// A value has the wrong JSON type.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// The JSON type the format requires there.
        expected: &'static str,
        /// The JSON type found.
        found: &'static str,
    },
    /// A message role the format does not define.
    #[error("unknown role {role:?}")]
    UnknownRole {
        /// The role as written.
        role: String,
    },
    /// A tool-call requestor other than `assistant`/`agent` or `user`.
    #[error("unknown requestor {requestor:?} (expected \"assistant\" or \"user\")")]
    UnknownRequestor {
        /// The requestor as written.
        requestor: String,
    },
    /// Tool-call arguments given as a string that is not JSON.
    #[error("tool-call arguments are not valid JSON: {message}")]
    InvalidArguments {
        /// The JSON parser's description of the error.
        message: String,
    },
    /// A tool result whose id matches no earlier, still open call.
    #[error("result for unknown call id {id:?}")]
    UnknownCallId {
        /// The result's call id.
        id: String,
    },
    /// A call id used again while the earlier call with that id has no result yet.
    #[error("call id {id:?} reused while the earlier call with that id is still open")]
    DuplicateCallId {
        /// The reused call id.
        id: String,
    },
    /// An event's time that is not a timestamp.
    #[error("{message}")]
    InvalidTimestamp {
        /// Why it is not one.
        message: String,
    },
    /// A native line that is not a valid event.
    #[error("invalid event: {message}")]
    InvalidEvent {
        /// Why the line is not an event.
        message: String,
    },
    /// A construct the importer deliberately does not support.
    #[error("unsupported: {what}")]
    Unsupported {
        /// The construct.
        what: &'static str,
    },
    /// The format could not be recognised (see [`super::detect`]).
    #[error("cannot tell the trace format: {reason}")]
    UnknownFormat {
        /// Why no format fits.
        reason: String,
    },
}

impl From<std::io::Error> for ImportErrorKind {
    /// A decoding failure of a compressed file arrives as an `io::Error`
    /// carrying a [`DecompressError`]; it gets its own kind.
    fn from(error: std::io::Error) -> Self {
        match error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<DecompressError>())
        {
            Some(failed) => failed.clone().into_kind(),
            None => ImportErrorKind::Io(error),
        }
    }
}

fn location(record: Option<usize>, path: &str) -> Location<'_> {
    Location { record, path }
}

/// Renders `: record 3 at simulations[3].messages[7]` (each part when known).
struct Location<'a> {
    record: Option<usize>,
    path: &'a str,
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(record) = self.record {
            write!(f, ": record {record}")?;
            if !self.path.is_empty() {
                write!(f, " at {}", self.path)?;
            }
        } else if !self.path.is_empty() {
            write!(f, ": at {}", self.path)?;
        }
        Ok(())
    }
}

impl ImportError {
    pub(crate) fn new(
        file: impl Into<PathBuf>,
        record: Option<usize>,
        path: impl Into<String>,
        kind: ImportErrorKind,
    ) -> Self {
        ImportError {
            file: file.into(),
            record,
            path: path.into(),
            kind,
        }
    }
}

/// The name of a JSON value's type, for [`ImportErrorKind::WrongType`].
pub(crate) fn type_name(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
