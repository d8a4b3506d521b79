//! `turnstile gate`: the live gate over stdin/stdout. One native JSONL event
//! per input line, one JSON verdict per output line. Sessions live in the
//! SQLite store at `--state`, each a `turnstile_store::DurableSession`: each
//! event and its verdict are committed there *before* the verdict is
//! written, and a restarted gate restores its session from it and continues
//! exactly where it stopped. A second gate on the same session is refused at
//! start. Only a model judge is awaited on an async runtime.
//!
//! Standard input is read as bytes, one bounded line at a time. Fail
//! closed: a line that is not valid UTF-8, longer than the limit, not an
//! event, or that cannot be stored, is answered with
//! `{"verdict": "block", "error": ...}`, is not ingested, and the gate goes
//! on with the next line. A `{"type":"trace", ...}` header line starts a new
//! session (named by its `id`, or a random id; run under its `control`,
//! `dual` or `solo`, or the bundle's) and is answered with
//! `{"verdict": "observe", "kind": "trace", "session": <id>, "control": ..}`.
//! A header whose `control` is neither is refused, and events are refused
//! until the next header. The store keeps each session's control, so a
//! restored session runs under the control it started with.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;

use turnstile_engine::bundle::Control;
use turnstile_engine::import::native::event_time;
use turnstile_engine::session::{BundleRuntime, Schedule};
use turnstile_engine::trace::Event;
use turnstile_store::{Committed, Durability, DurableError, DurableSession, Store};

use crate::judge_args::Judging;

/// The session a gate writes when neither `--session` nor a header names one.
pub const DEFAULT_SESSION: &str = "default";

/// The documented longest input line (16 MiB).
pub const DEFAULT_MAX_LINE: usize = 16 * 1024 * 1024;

pub struct GateOptions {
    pub state: PathBuf,
    pub session: Option<String>,
    pub schedule: Schedule,
    pub max_line: usize,
    pub durability: Durability,
    /// `--now`: the instant a `system` clock stands still at (tests).
    pub now: Option<turnstile_rules::DateTime>,
}

/// Runs the gate until end of input. Errors at start (the store cannot be
/// opened, the session is held by another writer, was saved under another
/// bundle or schedule) end it before any verdict. Only a model judge runs
/// on an async runtime.
pub fn run(rt: Arc<BundleRuntime>, options: &GateOptions, judge: &Judging) -> Result<(), String> {
    let store = Store::open(&options.state, options.durability).map_err(|e| e.to_string())?;
    let id = options.session.as_deref().unwrap_or(DEFAULT_SESSION);
    let mut gate = Gate {
        rt,
        store,
        schedule: options.schedule,
        now: options.now,
        current: None,
    };
    gate.current = Some(gate.open(id, None)?);
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut buffer = Vec::new();
    let mut number = 0usize;
    loop {
        let line = read_line(&mut stdin, &mut buffer, options.max_line)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        number += 1;
        let answer = match line {
            Line::End => return Ok(()),
            Line::TooLong(length) => refusal(
                number,
                &format!(
                    "the line is longer than the limit of {} bytes (at least {length} bytes)",
                    options.max_line
                ),
            ),
            Line::Complete => match std::str::from_utf8(&buffer) {
                Err(e) => refusal(number, &format!("the line is not valid UTF-8: {e}")),
                Ok(text) => {
                    let text = text.trim();
                    if text.is_empty() || text.starts_with('#') {
                        continue;
                    }
                    gate.answer(number, text, judge)
                }
            },
        };
        let mut line = answer.into_bytes();
        line.push(b'\n');
        stdout
            .write_all(&line)
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("cannot write the verdict: {e}"))?;
    }
}

/// Decides `event` (its input's time `at`) in `session` with `judge` and
/// commits it.
fn push(
    judge: &Judging,
    session: &mut DurableSession,
    event: Event,
    at: Option<turnstile_rules::DateTime>,
) -> Result<Committed, DurableError> {
    match judge {
        Judging::Immediate(judge) => session.push_at(event, at, judge.as_ref()),
        Judging::Model(judge, runtime) => {
            runtime.block_on(session.push_at_async(event, at, judge.as_ref()))
        }
    }
}

struct Gate {
    rt: Arc<BundleRuntime>,
    store: Store,
    schedule: Schedule,
    /// `--now`, given to every session.
    now: Option<turnstile_rules::DateTime>,
    /// `None` after a refused header: events are refused until the next one.
    current: Option<DurableSession>,
}

impl Gate {
    /// Claims session `id` and restores it, or prepares a new one (stored
    /// with its first event) under `control` (`None`: the bundle's).
    fn open(&self, id: &str, control: Option<Control>) -> Result<DurableSession, String> {
        let claimed = DurableSession::claim(&self.store, id).map_err(|e| e.to_string())?;
        match claimed.stored() {
            Some(meta) if meta.schedule != self.schedule => Err(format!(
                "session {id:?} uses the {} schedule, not {}",
                meta.schedule, self.schedule
            )),
            Some(_) => claimed
                .restore(Arc::clone(&self.rt))
                .map_err(|e| format!("session {id:?}: {e}")),
            None => claimed
                .start(
                    Arc::clone(&self.rt),
                    self.rt.bundle.name.clone(),
                    self.schedule,
                    control,
                )
                .map_err(|e| e.to_string()),
        }
        .map(|session| session.with_now(self.now))
    }

    fn answer(&mut self, number: usize, text: &str, judge: &Judging) -> String {
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => return refusal(number, &format!("not an event: {e}")),
        };
        if value.get("type").and_then(|t| t.as_str()) == Some("trace") {
            return self.start(number, &value);
        }
        let at = match event_time(&value) {
            Ok(at) => at,
            Err(e) => return refusal(number, &format!("not an event: {e}")),
        };
        let event: Event = match serde_json::from_value(value) {
            Ok(e) => e,
            Err(e) => return refusal(number, &format!("not an event: {e}")),
        };
        let Some(current) = self.current.as_mut() else {
            return refusal(
                number,
                "no session: the last trace header was refused; send a new header",
            );
        };
        match push(judge, current, event, at) {
            Ok(committed) => committed.json,
            Err(e) => refusal(number, &e.to_string()),
        }
    }

    /// A trace header: the gate moves to a new session.
    fn start(&mut self, number: usize, header: &serde_json::Value) -> String {
        let control = match header.get("control") {
            None | Some(serde_json::Value::Null) => None,
            Some(value) => match serde_json::from_value::<Control>(value.clone()) {
                Ok(control) => Some(control),
                Err(_) => {
                    self.current = None;
                    return refusal(
                        number,
                        &format!("the header's control is not \"dual\" or \"solo\": {value}"),
                    );
                }
            },
        };
        let id = match header.get("id") {
            None | Some(serde_json::Value::Null) => crate::serve::new_session_id(),
            Some(serde_json::Value::String(id)) => id.clone(),
            Some(other) => {
                self.current = None;
                return refusal(number, &format!("the header's id is not a string: {other}"));
            }
        };
        // Release the previous session's lock first: the header may name it.
        self.current = None;
        let opened = self.open(&id, control).and_then(|session| {
            if session.is_stored() {
                return Err(format!(
                    "session {id:?} already exists in the store: a header starts a new session (to continue one, restart the gate with --session)"
                ));
            }
            Ok(session)
        });
        let current = match opened {
            Ok(current) => current,
            Err(e) => return refusal(number, &e),
        };
        let control = current.session().control();
        self.current = Some(current);
        json_text(
            // Keys in sorted order, as every answer writes them in every build.
            &serde_json::json!({ "control": control, "kind": "trace", "session": id, "verdict": "observe" }),
        )
    }
}

fn refusal(line: usize, error: &str) -> String {
    json_text(&serde_json::json!({ "error": error, "line": line, "verdict": "block" }))
}

/// A `Value` as one line of JSON (`Display` cannot fail on a `Value`
/// built here: its keys are strings). The `Value`s built here list their
/// keys in sorted order, so their bytes are the same with and without
/// `serde_json`'s `preserve_order`, like the reports'.
fn json_text(value: &serde_json::Value) -> String {
    value.to_string()
}

enum Line {
    /// A line (without its newline) is in the buffer.
    Complete,
    /// The line was longer than the limit; it was read to its end and
    /// dropped. The count is how many bytes were seen before giving up
    /// keeping them (at least the limit plus one).
    TooLong(usize),
    End,
}

/// Reads one line into `buffer`, keeping at most `max` bytes: a longer line
/// is consumed to its newline without being stored, so memory stays bounded
/// by the limit whatever the input.
fn read_line(input: &mut impl BufRead, buffer: &mut Vec<u8>, max: usize) -> std::io::Result<Line> {
    buffer.clear();
    let mut length = 0usize;
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (piece, newline) = match chunk.iter().position(|b| *b == b'\n') {
            Some(at) => (chunk.get(..at).unwrap_or_default(), true),
            None => (chunk, false),
        };
        let consumed = piece.len() + usize::from(newline);
        length = length.saturating_add(piece.len());
        if !too_long {
            if length > max {
                too_long = true;
                buffer.clear();
            } else {
                buffer.extend_from_slice(piece);
            }
        }
        input.consume(consumed);
        if newline {
            break;
        }
    }
    Ok(if too_long {
        Line::TooLong(length)
    } else if any {
        Line::Complete
    } else {
        Line::End
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn lines_are_bounded_and_an_overlong_line_is_skipped_whole() {
        let input = b"short\nthis one is too long\n\nlast";
        let mut reader = std::io::BufReader::with_capacity(4, &input[..]);
        let mut buffer = Vec::new();
        let mut seen = Vec::new();
        loop {
            match read_line(&mut reader, &mut buffer, 8).unwrap() {
                Line::End => break,
                Line::TooLong(n) => seen.push(format!("too long {n}")),
                Line::Complete => seen.push(String::from_utf8(buffer.clone()).unwrap()),
            }
        }
        assert_eq!(seen, ["short", "too long 20", "", "last"]);
    }
}
