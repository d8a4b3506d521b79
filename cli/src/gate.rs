//! `turnstile gate`: the live gate over stdin/stdout. One native JSONL event
//! per input line, one JSON verdict per output line. The session is saved to
//! the `--state` file (write to a temporary file, then rename: a crash never
//! leaves a torn state) *before* the verdict is written, and restored from it
//! on start, so a restarted gate continues exactly where it stopped.
//!
//! Fail closed: a line that is not an event, or an internal error, is
//! answered with `{"verdict": "block", "error": ...}` and is not ingested.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use turnstile_engine::session::{BundleRuntime, Schedule, Session, SessionState};
use turnstile_engine::trace::Event;
use turnstile_judge::Judge;

/// Runs the gate until end of input.
pub fn run(
    rt: Arc<BundleRuntime>,
    state: &Path,
    schedule: Schedule,
    judge: Arc<dyn Judge>,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let mut session = open(rt, state, schedule)?;
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for (index, line) in stdin.lines().enumerate() {
        let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let answer = match serde_json::from_str::<Event>(trimmed) {
            Err(e) => refusal(index + 1, &format!("not an event: {e}")),
            Ok(event) => match runtime.block_on(session.push(event, judge.as_ref())) {
                Ok(report) => {
                    save(&session, state)?;
                    serde_json::to_value(&report)
                        .unwrap_or_else(|e| refusal(index + 1, &e.to_string()))
                }
                Err(e) => refusal(index + 1, &e.to_string()),
            },
        };
        writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("cannot write the verdict: {e}"))?;
    }
    Ok(())
}

fn refusal(line: usize, error: &str) -> serde_json::Value {
    serde_json::json!({ "verdict": "block", "line": line, "error": error })
}

fn open(rt: Arc<BundleRuntime>, state: &Path, schedule: Schedule) -> Result<Session, String> {
    if !state.exists() {
        return Ok(Session::new(rt, schedule));
    }
    let text = std::fs::read_to_string(state)
        .map_err(|e| format!("cannot read {}: {e}", state.display()))?;
    let saved = SessionState::from_json(&text).map_err(|e| format!("{}: {e}", state.display()))?;
    if saved.schedule != schedule {
        return Err(format!(
            "{}: the saved session uses the {} schedule, not {schedule}",
            state.display(),
            saved.schedule
        ));
    }
    Session::restore(rt, saved).map_err(|e| format!("{}: {e}", state.display()))
}

fn save(session: &Session, state: &Path) -> Result<(), String> {
    let text = serde_json::to_string(&session.snapshot())
        .map_err(|e| format!("cannot serialize the session: {e}"))?;
    let tmp = temporary(state);
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, state))
        .map_err(|e| format!("cannot save the session to {}: {e}", state.display()))
}

fn temporary(state: &Path) -> PathBuf {
    let mut name = state
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    state.with_file_name(name)
}
