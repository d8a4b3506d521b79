//! Trace importers: recorded conversations → [`Trace`]s of [`Event`]s.
//!
//! Four formats ([`Format`]):
//!
//! | format | file | one record is |
//! |---|---|---|
//! | [`Format::Tau2`] | tau2-bench results `{timestamp, info, tasks, simulations}` | a simulation ([`tau2`] module docs) |
//! | [`Format::OpenAi`] | a chat-completions message array or `{"messages": [...]}`; `.jsonl`: one conversation a line | a conversation ([`openai`] module docs) |
//! | [`Format::TauBench`] | tau-bench results `[{task_id, reward, traj, info, trial}]`; `.jsonl`: one a line | a result |
//! | [`Format::Native`] | JSON Lines, one [`Event`] a line, `{"type":"trace"}` headers | a line ([`native`] module docs, `docs/native-format.md`) |
//!
//! [`detect`] tells them apart from the extension and the first bytes; every
//! entry point also takes an explicit format (the CLI's `--format`).
//! [`write_native`] writes a trace back as native JSON Lines.
//!
//! **Compression.** Every entry point that opens a file ([`detect`],
//! [`TraceReader::open`], [`import_file`], [`for_each_trace`]) reads it plain, gzip- or zstd-compressed, told apart by
//! the magic bytes and decoded as a stream ([`compressed`]). A compressed
//! file is named by its content: `x.jsonl.gz` is a JSON Lines file whose
//! trace ids start `x#`, like those of `x.jsonl`. A cut or damaged stream is
//! an [`ImportErrorKind::CompressedTruncated`] or
//! [`ImportErrorKind::CompressedCorrupt`] error item that ends the reader.
//!
//! **Streaming.** [`TraceReader`] is an iterator of `Result<Trace,
//! ImportError>`. It holds one record at a time (and, for native files, the
//! trace being assembled), never the file: JSON
//! documents are walked value by value (tau2's `simulations` and tau-bench's
//! top-level array one element at a time), line formats line by line, each
//! record bounded ([`MAX_RECORD_BYTES`], [`MAX_LINE_BYTES`]). The one
//! exception is an OpenAI `.json` file, which is a single conversation.
//!
//! **Errors.** Nothing is skipped silently and nothing panics. A malformed
//! record yields one [`ImportError`] item per problem (file, record index,
//! JSON path, [`ImportErrorKind`]) and the reader moves on to the next
//! record; a JSON record with errors yields no trace, a bad native line is
//! left out of its trace. When the file itself stops being parseable
//! (truncated, broken structure between records, I/O error) the reader yields
//! that error, naming the record it was reading, and ends — every record
//! before it has already been delivered. Validation while importing: a result
//! must answer an earlier call of the same trace that is still open, a call
//! id may not be reused while open, tool-call arguments given as a string
//! must be JSON, the bytes must be UTF-8 (the error gives the byte offset).

pub mod compressed;
pub mod error;
pub mod native;
pub mod openai;
pub mod tau2;

mod build;
mod scan;

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

pub use compressed::Compression;
pub use error::{ImportError, ImportErrorKind};
pub use native::write_native;
pub use scan::{MAX_LINE_BYTES, MAX_RECORD_BYTES};

use crate::trace::{Event, Trace, parse_content};
use scan::{Cursor, parse_json};

/// A trace file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// tau2-bench results files.
    Tau2,
    /// OpenAI chat-completions message lists.
    #[serde(rename = "openai")]
    OpenAi,
    /// The older tau-bench results (`{task_id, reward, traj}`).
    TauBench,
    /// Turnstile's own JSON Lines events.
    Native,
}

impl Format {
    /// The name used by `--format` and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Tau2 => "tau2",
            Format::OpenAi => "openai",
            Format::TauBench => "tau-bench",
            Format::Native => "native",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a reader delivers the content of tool results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ResultContent {
    /// Parsed: the JSON value when the recorded text is JSON, else the text
    /// as a JSON string ([`parse_content`]).
    #[default]
    Parsed,
    /// Not parsed: the recorded text as a JSON string, whatever it holds
    /// (for a native file, the content's JSON text); [`parse_content`] of it
    /// is what [`ResultContent::Parsed`] gives. For a consumer that parses only
    /// the results it reads (the audit's fast path).
    Raw,
}

impl ResultContent {
    /// The content of a result whose recorded text is `text`.
    pub(crate) fn content(self, text: Option<&str>) -> Value {
        match (self, text) {
            (_, None) => Value::Null,
            (ResultContent::Parsed, Some(text)) => parse_content(text),
            (ResultContent::Raw, Some(text)) => Value::String(text.to_owned()),
        }
    }

    /// [`ResultContent::content`] of text the reader may already own
    /// (moved into the raw content rather than copied).
    pub(crate) fn content_owned(self, text: Option<Cow<'_, str>>) -> Value {
        match (self, text) {
            (ResultContent::Raw, Some(text)) => Value::String(text.into_owned()),
            (results, text) => results.content(text.as_deref()),
        }
    }
}

/// A `--format` value that names no format.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown trace format {0:?} (expected tau2, openai, tau-bench or native)")]
pub struct ParseFormatError(pub String);

impl FromStr for Format {
    type Err = ParseFormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "tau2" | "tau2-bench" => Ok(Format::Tau2),
            "openai" | "chat" => Ok(Format::OpenAi),
            "tau-bench" | "taubench" | "tau_bench" | "tau" => Ok(Format::TauBench),
            "native" | "jsonl" | "turnstile" => Ok(Format::Native),
            _ => Err(ParseFormatError(s.to_owned())),
        }
    }
}

/// Counts of what an import delivered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    /// Traces delivered.
    pub traces: usize,
    /// Events in those traces.
    pub events: usize,
    /// User and agent messages among the events.
    pub messages: usize,
    /// Tool calls among the events.
    pub calls: usize,
    /// Tool results among the events.
    pub results: usize,
    /// Error items delivered.
    pub errors: usize,
}

impl ImportSummary {
    fn count(&mut self, item: &Result<Trace, ImportError>) {
        match item {
            Ok(trace) => {
                self.traces += 1;
                self.events += trace.events.len();
                for event in &trace.events {
                    match event {
                        Event::User { .. } | Event::Ticket { .. } | Event::Agent { .. } => {
                            self.messages += 1;
                        }
                        Event::Call { .. } => self.calls += 1,
                        Event::Result { .. } => self.results += 1,
                        // A host's answer to a confirmation: neither.
                        Event::Approval { .. } => {}
                    }
                }
            }
            Err(_) => self.errors += 1,
        }
    }
}

/// Whether `path` names a line-oriented file (`.jsonl`, `.ndjson`).
fn is_lines(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"))
}

/// What really broke a compressed file whose content stopped making sense:
/// damage that still decodes yields garbage (a JSON error, say) before the
/// decoder or the checksum notices, so the rest of the stream is read to
/// find out. Returns the compressed stream's error if there is one, else
/// `kind` unchanged. Plain files and read errors are returned as they are.
pub(crate) fn damage_behind(
    cursor: &mut Cursor,
    compression: Compression,
    kind: ImportErrorKind,
) -> ImportErrorKind {
    let already_a_read_error = matches!(
        kind,
        ImportErrorKind::Io(_)
            | ImportErrorKind::CompressedTruncated { .. }
            | ImportErrorKind::CompressedCorrupt { .. }
    );
    if compression == Compression::Plain || already_a_read_error {
        return kind;
    }
    match cursor.drain().map_err(ImportErrorKind::from) {
        Err(
            damage @ (ImportErrorKind::CompressedTruncated { .. }
            | ImportErrorKind::CompressedCorrupt { .. }),
        ) => damage,
        _ => kind,
    }
}

fn first_is_comment(line: &[u8]) -> bool {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(b) => *b == b'#',
    }
}

/// Tells a file's format: `.jsonl`/`.ndjson` files by their first record
/// (native unless it looks like an OpenAI conversation or a tau-bench
/// result; an empty file is native), other files by their top-level value
/// (an object with `simulations` or `tasks` is tau2, with `messages` OpenAI;
/// an array whose first element has `traj` is tau-bench, `role` OpenAI).
pub fn detect(path: &Path) -> Result<Format, ImportError> {
    let (compression, reader) = compressed::open(path)?;
    let content_name = compressed::content_name(path, compression);
    let mut cursor = Cursor::new(reader);
    detect_content(&mut cursor, path, &content_name).map_err(|mut e| {
        e.kind = damage_behind(&mut cursor, compression, e.kind);
        e
    })
}

fn detect_content(
    cursor: &mut Cursor,
    path: &Path,
    content_name: &Path,
) -> Result<Format, ImportError> {
    let fail = |record, kind| ImportError::new(path, record, "", kind);
    let unknown = |reason: &str| {
        fail(
            None,
            ImportErrorKind::UnknownFormat {
                reason: reason.to_owned(),
            },
        )
    };
    let mut buf = Vec::new();
    if is_lines(content_name) {
        let mut line = 0;
        loop {
            let Some((start, too_long)) = cursor
                .line(&mut buf, MAX_LINE_BYTES)
                .map_err(|e| fail(None, e.into()))?
            else {
                return Ok(Format::Native);
            };
            line += 1;
            if too_long {
                return Err(fail(
                    Some(line),
                    ImportErrorKind::RecordTooLarge {
                        limit: MAX_LINE_BYTES,
                    },
                ));
            }
            if first_is_comment(&buf) {
                continue;
            }
            let value = parse_json(&buf, start).map_err(|kind| fail(Some(line), kind))?;
            return match &value {
                Value::Array(_) => Ok(Format::OpenAi),
                Value::Object(map) if map.contains_key("type") => Ok(Format::Native),
                Value::Object(map) if map.contains_key("messages") => Ok(Format::OpenAi),
                Value::Object(map) if map.contains_key("traj") => Ok(Format::TauBench),
                _ => Err(unknown(
                    "the first line is neither a native event nor a conversation",
                )),
            };
        }
    }
    match cursor.skip_ws().map_err(|e| fail(None, e.into()))? {
        Some(b'{') => {
            cursor.bump();
            let mut first = true;
            while let Some(key) = cursor.key(first, &mut buf).map_err(|k| fail(None, k))? {
                first = false;
                match key.as_str() {
                    "simulations" | "tasks" => return Ok(Format::Tau2),
                    "messages" => return Ok(Format::OpenAi),
                    "type" => return Ok(Format::Native),
                    _ => {
                        cursor.value(None, 0).map_err(|k| fail(None, k))?;
                    }
                }
            }
            Err(unknown(
                "an object with neither `simulations` nor `messages`",
            ))
        }
        Some(b'[') => {
            cursor.bump();
            if cursor.skip_ws().map_err(|e| fail(None, e.into()))? == Some(b']') {
                return Ok(Format::OpenAi);
            }
            let start = cursor
                .value(Some(&mut buf), MAX_RECORD_BYTES)
                .map_err(|k| fail(Some(0), k))?;
            match parse_json(&buf, start).map_err(|k| fail(Some(0), k))? {
                Value::Object(map) if map.contains_key("traj") => Ok(Format::TauBench),
                Value::Object(map) if map.contains_key("role") => Ok(Format::OpenAi),
                _ => Err(unknown(
                    "an array whose first element has neither `traj` nor `role`",
                )),
            }
        }
        Some(_) => Err(unknown("the file is not a JSON object or array")),
        None => Err(unknown("the file is empty")),
    }
}

/// Where a [`TraceReader`] is in its file.
enum Mode {
    /// tau2: before the top-level `{`.
    Tau2Start,
    /// tau2: between top-level keys.
    Tau2Keys {
        first: bool,
    },
    /// tau2: inside `simulations`; `next` is the next element's index.
    Tau2Sims {
        next: usize,
    },
    /// tau2: inside `tasks`; `next` is the next element's index.
    Tau2Tasks {
        next: usize,
    },
    /// tau-bench JSON: before the top-level `[`.
    ArrayStart,
    /// tau-bench JSON: inside the top-level array.
    ArrayElements {
        next: usize,
    },
    /// OpenAI JSON: the whole file is one conversation.
    Document,
    /// Any line-oriented file; `line` is the last line's number.
    Lines {
        line: usize,
    },
    Done,
}

/// A streaming importer: an iterator of traces and error items.
pub struct TraceReader {
    file: PathBuf,
    stem: String,
    format: Format,
    /// The file's compression; plain for [`TraceReader::from_reader`].
    compression: Compression,
    cursor: Cursor,
    mode: Mode,
    domain: Option<String>,
    /// The agent model the file names (tau2's `info.agent_info.llm`).
    agent_model: Option<String>,
    /// Who called the device tools in the file's simulations (tau2 `info`).
    control: Option<crate::bundle::model::Control>,
    /// Each tau2 task's ticket, by task id: a solo simulation opens with it.
    tickets: HashMap<String, String>,
    saw_simulations: bool,
    native: native::Native,
    results: ResultContent,
    buf: Vec<u8>,
    pending: VecDeque<Result<Trace, ImportError>>,
    summary: ImportSummary,
}

impl TraceReader {
    /// Opens `path`, detecting the format when `format` is `None`.
    pub fn open(path: &Path, format: Option<Format>) -> Result<Self, ImportError> {
        let format = match format {
            Some(format) => format,
            None => detect(path)?,
        };
        let (compression, reader) = compressed::open(path)?;
        let content_name = compressed::content_name(path, compression);
        let mut reader = Self::with_names(reader, path.to_path_buf(), &content_name, format);
        reader.compression = compression;
        Ok(reader)
    }

    /// Reads `reader` as `format`; `name` is the file name used in trace ids
    /// and errors (its extension decides JSON vs JSON Lines for OpenAI and
    /// tau-bench).
    pub fn from_reader(
        reader: impl BufRead + Send + 'static,
        name: impl Into<PathBuf>,
        format: Format,
    ) -> Self {
        let file = name.into();
        let content_name = file.clone();
        Self::with_names(Box::new(reader), file, &content_name, format)
    }

    /// Reads `reader` as `format`: errors name `file`, trace ids and the
    /// JSON-vs-lines decision follow `content_name` (the file's name less a
    /// compression extension).
    fn with_names(
        reader: Box<dyn BufRead + Send>,
        file: PathBuf,
        content_name: &Path,
        format: Format,
    ) -> Self {
        let stem = content_name
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mode = match format {
            Format::Native => Mode::Lines { line: 0 },
            _ if is_lines(content_name) => Mode::Lines { line: 0 },
            Format::Tau2 => Mode::Tau2Start,
            Format::TauBench => Mode::ArrayStart,
            Format::OpenAi => Mode::Document,
        };
        TraceReader {
            file,
            stem,
            format,
            compression: Compression::Plain,
            cursor: Cursor::new(reader),
            mode,
            domain: None,
            agent_model: None,
            control: None,
            tickets: HashMap::new(),
            saw_simulations: false,
            native: native::Native::default(),
            results: ResultContent::Parsed,
            buf: Vec::new(),
            pending: VecDeque::new(),
            summary: ImportSummary::default(),
        }
    }

    /// Delivers tool results' content as `results` says (parsed by default).
    pub fn with_result_content(mut self, results: ResultContent) -> Self {
        self.results = results;
        self.native.results = results;
        self
    }

    /// The format being read.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Counts of the items yielded so far.
    pub fn summary(&self) -> ImportSummary {
        self.summary
    }

    /// The agent model the file names, once read (tau2 files name it in
    /// `info.agent_info.llm`, before their simulations).
    pub fn agent_model(&self) -> Option<&str> {
        self.agent_model.as_deref()
    }

    /// Bytes of (decompressed) content consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.cursor.offset()
    }

    fn error(
        &self,
        record: Option<usize>,
        path: impl Into<String>,
        kind: ImportErrorKind,
    ) -> ImportError {
        ImportError::new(&self.file, record, path, kind)
    }

    /// Reports an error after which the file cannot be read further (in a
    /// compressed file, the stream's damage when that is what caused it).
    fn fatal(&mut self, record: Option<usize>, path: impl Into<String>, kind: ImportErrorKind) {
        let kind = damage_behind(&mut self.cursor, self.compression, kind);
        let e = self.error(record, path, kind);
        self.pending.push_back(Err(e));
        self.mode = Mode::Done;
    }

    fn deliver(&mut self, converted: Result<Trace, Vec<ImportError>>) {
        match converted {
            Ok(trace) => self.pending.push_back(Ok(trace)),
            Err(errors) => self.pending.extend(errors.into_iter().map(Err)),
        }
    }

    /// Advances by one step, queueing what it produced.
    fn step(&mut self) {
        match self.mode {
            Mode::Done => {}
            Mode::Tau2Start => match self.cursor.expect(b'{') {
                Ok(()) => self.mode = Mode::Tau2Keys { first: true },
                Err(kind) => self.fatal(None, "", kind),
            },
            Mode::Tau2Keys { first } => self.tau2_key(first),
            Mode::Tau2Sims { next } => self.tau2_simulation(next),
            Mode::Tau2Tasks { next } => self.tau2_task(next),
            Mode::ArrayStart => match self.cursor.expect(b'[') {
                Ok(()) => self.mode = Mode::ArrayElements { next: 0 },
                Err(kind) => self.fatal(None, "", kind),
            },
            Mode::ArrayElements { next } => self.array_element(next),
            Mode::Document => self.document(),
            Mode::Lines { line } => self.line(line + 1),
        }
    }

    fn tau2_key(&mut self, first: bool) {
        let key = match self.cursor.key(first, &mut self.buf) {
            Ok(key) => key,
            Err(kind) => return self.fatal(None, "", kind),
        };
        self.mode = Mode::Tau2Keys { first: false };
        let Some(key) = key else {
            if !self.saw_simulations {
                let e = self.error(
                    None,
                    "",
                    ImportErrorKind::MissingField {
                        field: "simulations",
                    },
                );
                self.pending.push_back(Err(e));
            }
            match self.cursor.end() {
                Ok(()) => self.mode = Mode::Done,
                Err(kind) => self.fatal(None, "", kind),
            }
            return;
        };
        match key.as_str() {
            "simulations" => {
                self.saw_simulations = true;
                match self.cursor.expect(b'[') {
                    Ok(()) => self.mode = Mode::Tau2Sims { next: 0 },
                    Err(kind) => self.fatal(None, "simulations", kind),
                }
            }
            "tasks" => match self.cursor.expect(b'[') {
                Ok(()) => self.mode = Mode::Tau2Tasks { next: 0 },
                Err(kind) => self.fatal(None, "tasks", kind),
            },
            "info" => {
                self.buf.clear();
                let start = match self.cursor.value(Some(&mut self.buf), MAX_RECORD_BYTES) {
                    Ok(start) => start,
                    Err(kind) => return self.fatal(None, "info", kind),
                };
                match parse_json(&self.buf, start) {
                    Ok(info) => {
                        self.domain = tau2::domain_of(&info);
                        self.agent_model = tau2::agent_model_of(&info);
                        self.control = tau2::control_of(&info);
                    }
                    Err(kind) => {
                        let e = self.error(None, "info", kind);
                        self.pending.push_back(Err(e));
                    }
                }
            }
            _ => match self.cursor.value(None, 0) {
                Ok(_) => {}
                Err(kind @ ImportErrorKind::NotUtf8 { .. }) => {
                    let e = self.error(None, key, kind);
                    self.pending.push_back(Err(e));
                }
                Err(kind) => self.fatal(None, key, kind),
            },
        }
    }

    /// Positions the cursor at the next array element; `false` at the `]`.
    fn next_element(&mut self, index: usize) -> Result<bool, ImportErrorKind> {
        match self.cursor.skip_ws()? {
            Some(b']') => {
                self.cursor.bump();
                Ok(false)
            }
            Some(b',') if index > 0 => {
                self.cursor.bump();
                Ok(true)
            }
            Some(_) if index == 0 => Ok(true),
            Some(b) => Err(ImportErrorKind::Syntax {
                offset: self.cursor.offset(),
                message: format!("expected `,` or `]`, found `{}`", b as char),
            }),
            None => Err(scan::truncated(self.cursor.offset())),
        }
    }

    fn tau2_simulation(&mut self, next: usize) {
        let path = format!("simulations[{next}]");
        match self.next_element(next) {
            Ok(true) => {}
            Ok(false) => {
                self.mode = Mode::Tau2Keys { first: false };
                return;
            }
            Err(kind) => return self.fatal(Some(next), path, kind),
        }
        self.mode = Mode::Tau2Sims { next: next + 1 };
        self.buf.clear();
        let start = match self.cursor.value(Some(&mut self.buf), MAX_RECORD_BYTES) {
            Ok(start) => start,
            Err(kind) => return self.fatal(Some(next), path, kind),
        };
        let domain = self.domain.as_deref();
        let fast = tau2::simulation_fast(
            &self.file,
            &self.stem,
            next,
            &self.buf,
            domain,
            self.results,
        );
        let mut converted = match fast {
            Some(trace) => Ok(trace),
            None => match parse_json(&self.buf, start) {
                Ok(value) => {
                    tau2::simulation(&self.file, &self.stem, next, &value, domain, self.results)
                }
                Err(kind) => Err(vec![self.error(Some(next), path, kind)]),
            },
        };
        if let Ok(trace) = &mut converted {
            trace.meta.control = self.control;
            if self.control == Some(crate::bundle::model::Control::Solo) {
                let ticket = trace
                    .meta
                    .task_id
                    .as_ref()
                    .and_then(|t| self.tickets.get(t));
                tau2::with_ticket(trace, ticket);
            }
        }
        self.deliver(converted);
    }

    /// Keeps the ticket of task copy `next` (tau2 module docs).
    fn tau2_task(&mut self, next: usize) {
        let path = format!("tasks[{next}]");
        match self.next_element(next) {
            Ok(true) => {}
            Ok(false) => {
                self.mode = Mode::Tau2Keys { first: false };
                return;
            }
            Err(kind) => return self.fatal(None, path, kind),
        }
        self.mode = Mode::Tau2Tasks { next: next + 1 };
        self.buf.clear();
        let start = match self.cursor.value(Some(&mut self.buf), MAX_RECORD_BYTES) {
            Ok(start) => start,
            Err(kind @ ImportErrorKind::NotUtf8 { .. }) => {
                let e = self.error(None, path, kind);
                self.pending.push_back(Err(e));
                return;
            }
            Err(kind) => return self.fatal(None, path, kind),
        };
        let found = parse_json(&self.buf, start)
            .map_err(|kind| (path.clone(), kind))
            .and_then(|task| tau2::ticket_of(&task, &path));
        match found {
            Ok(Some(_))
                if self.saw_simulations
                    && self.control == Some(crate::bundle::model::Control::Solo) =>
            {
                // Streaming: the simulations are delivered already.
                let e = self.error(
                    None,
                    path,
                    ImportErrorKind::Unsupported {
                        what: "a solo file's tasks after its simulations: the simulations were read without their tickets",
                    },
                );
                self.pending.push_back(Err(e));
            }
            Ok(Some((task, ticket))) => {
                self.tickets.insert(task, ticket);
            }
            Ok(None) => {}
            Err((at, kind)) => {
                let e = self.error(None, at, kind);
                self.pending.push_back(Err(e));
            }
        }
    }

    fn array_element(&mut self, next: usize) {
        let path = format!("[{next}]");
        match self.next_element(next) {
            Ok(true) => {}
            Ok(false) => {
                match self.cursor.end() {
                    Ok(()) => self.mode = Mode::Done,
                    Err(kind) => self.fatal(None, "", kind),
                }
                return;
            }
            Err(kind) => return self.fatal(Some(next), path, kind),
        }
        self.mode = Mode::ArrayElements { next: next + 1 };
        self.buf.clear();
        let start = match self.cursor.value(Some(&mut self.buf), MAX_RECORD_BYTES) {
            Ok(start) => start,
            Err(kind) => return self.fatal(Some(next), path, kind),
        };
        let id = format!("{}#{next}", self.stem);
        let converted = match openai::tau_bench_fast(&self.file, next, &id, &self.buf, self.results)
        {
            Some(trace) => Ok(trace),
            None => match parse_json(&self.buf, start) {
                Ok(value) => openai::tau_bench(&self.file, next, id, &value, &path, self.results),
                Err(kind) => Err(vec![self.error(Some(next), path, kind)]),
            },
        };
        self.deliver(converted);
    }

    fn document(&mut self) {
        self.mode = Mode::Done;
        self.buf.clear();
        let start = match self.cursor.value(Some(&mut self.buf), MAX_RECORD_BYTES) {
            Ok(start) => start,
            Err(kind) => return self.fatal(None, "", kind),
        };
        let fast = openai::conversation_fast(&self.file, None, &self.stem, &self.buf, self.results);
        let converted = match fast {
            Some(trace) => Ok(trace),
            None => match parse_json(&self.buf, start) {
                Ok(value) => openai::conversation(
                    &self.file,
                    None,
                    self.stem.clone(),
                    &value,
                    "",
                    self.results,
                ),
                Err(kind) => return self.fatal(None, "", kind),
            },
        };
        self.deliver(converted);
        if let Err(kind) = self.cursor.end() {
            self.fatal(None, "", kind);
        }
    }

    fn line(&mut self, line: usize) {
        let (start, too_long) = match self.cursor.line(&mut self.buf, MAX_LINE_BYTES) {
            Ok(Some(read)) => read,
            Ok(None) => {
                let mut out = Vec::new();
                self.native.flush(&mut out);
                self.pending.extend(out);
                self.mode = Mode::Done;
                return;
            }
            Err(e) => return self.fatal(Some(line), "", e.into()),
        };
        self.mode = Mode::Lines { line };
        if too_long {
            let e = self.error(
                Some(line),
                "",
                ImportErrorKind::RecordTooLarge {
                    limit: MAX_LINE_BYTES,
                },
            );
            self.pending.push_back(Err(e));
            return;
        }
        if first_is_comment(&self.buf) {
            return;
        }
        if self.format == Format::Native {
            let mut out = Vec::new();
            self.native
                .line(&self.file, &self.stem, line, &self.buf, start, &mut out);
            self.pending.extend(out);
            return;
        }
        let id = format!("{}#{line}", self.stem);
        let fast = match self.format {
            Format::OpenAi => {
                openai::conversation_fast(&self.file, Some(line), &id, &self.buf, self.results)
            }
            Format::TauBench => {
                openai::tau_bench_fast(&self.file, line, &id, &self.buf, self.results)
            }
            Format::Native | Format::Tau2 => None,
        };
        if let Some(trace) = fast {
            self.deliver(Ok(trace));
            return;
        }
        let value = match parse_json(&self.buf, start) {
            Ok(value) => value,
            Err(kind) => {
                let e = self.error(Some(line), "", kind);
                self.pending.push_back(Err(e));
                return;
            }
        };
        match self.format {
            Format::Native => {} // handled above
            Format::OpenAi => {
                let converted =
                    openai::conversation(&self.file, Some(line), id, &value, "", self.results);
                self.deliver(converted);
            }
            Format::TauBench => {
                let converted = openai::tau_bench(&self.file, line, id, &value, "", self.results);
                self.deliver(converted);
            }
            Format::Tau2 => {
                self.fatal(
                    Some(line),
                    "",
                    ImportErrorKind::Unsupported {
                        what: "tau2 results as JSON Lines",
                    },
                );
            }
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<Trace, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                self.summary.count(&item);
                return Some(item);
            }
            if matches!(self.mode, Mode::Done) {
                return None;
            }
            self.step();
        }
    }
}

/// Streams every trace and error item of `path` to `f` (which may stop the
/// import early with `ControlFlow::Break`). Fails only when the file cannot
/// be opened or its format cannot be told; everything else is an item.
pub fn for_each_trace(
    path: &Path,
    format: Option<Format>,
    mut f: impl FnMut(Result<Trace, ImportError>) -> ControlFlow<()>,
) -> Result<ImportSummary, ImportError> {
    let mut reader = TraceReader::open(path, format)?;
    for item in reader.by_ref() {
        if f(item).is_break() {
            break;
        }
    }
    Ok(reader.summary())
}

/// Everything imported from one file, in memory: for tests and small files.
#[derive(Debug, Default)]
pub struct Imported {
    /// The traces read without error, in file order.
    pub traces: Vec<Trace>,
    /// Every problem met, in file order.
    pub errors: Vec<ImportError>,
    /// What was read, counted.
    pub summary: ImportSummary,
}

/// Imports a whole file into memory (prefer [`TraceReader`] for large ones).
pub fn import_file(path: &Path, format: Option<Format>) -> Result<Imported, ImportError> {
    let mut imported = Imported::default();
    imported.summary = for_each_trace(path, format, |item| {
        match item {
            Ok(trace) => imported.traces.push(trace),
            Err(e) => imported.errors.push(e),
        }
        ControlFlow::Continue(())
    })?;
    Ok(imported)
}
