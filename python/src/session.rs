//! `Session`: one conversation's gate, in memory or in the SQLite store
//! `turnstile gate` and `turnstile serve` use (so Python and the CLI can
//! continue each other's sessions). Events arrive as JSON text in the
//! native trace format; each answer is the report's JSON, byte for byte
//! what `turnstile gate` prints for it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use turnstile_engine::import::native::event_time;
use turnstile_engine::session::{
    BundleRuntime, Enforcement, EventReport, Schedule, Session, SessionState,
};
use turnstile_engine::trace::Event;
use turnstile_rules::DateTime;
use turnstile_store::{Durability, DurableSession, Store};

use crate::bundle::NativeBundle;
use crate::errors::{EventError, SessionError, StoreError, durable};
use crate::judge::Judging;

/// Where the session lives.
enum Held {
    Memory(Session),
    Stored(DurableSession),
}

/// A live gate session (see the module documentation).
#[pyclass(frozen, module = "turnstile._native")]
pub struct NativeSession {
    held: Mutex<Held>,
    judging: Judging,
    runtime: Arc<BundleRuntime>,
    mode: Enforcement,
}

#[pymethods]
impl NativeSession {
    /// A new session of `bundle`, or, with `store`, the stored session
    /// `session_id` continued (or started there when it is not stored yet).
    /// `judge` names a judge; `ask` (the Python layer's wrapper around a
    /// callable) takes its place when given.
    #[new]
    #[pyo3(signature = (bundle, schedule, judge, ask=None, store=None, session_id=None, mode="enforce"))]
    #[allow(clippy::too_many_arguments)] // the Python constructor's keywords
    fn new(
        py: Python<'_>,
        bundle: &NativeBundle,
        schedule: &str,
        judge: &str,
        ask: Option<Py<PyAny>>,
        store: Option<PathBuf>,
        session_id: Option<String>,
        mode: &str,
    ) -> PyResult<NativeSession> {
        let mode = parse_mode(mode)?;
        let schedule: Schedule = schedule
            .parse()
            .map_err(|e: String| pyo3::exceptions::PyValueError::new_err(e))?;
        let runtime = Arc::clone(&bundle.runtime);
        let judging = match ask {
            Some(ask) => Judging::callable(ask),
            None => Judging::named(judge, &runtime.bundle)?,
        };
        let held = match store {
            None => Held::Memory(Session::new(Arc::clone(&runtime), schedule)),
            Some(path) => {
                let id = session_id.unwrap_or_else(|| "default".to_owned());
                let runtime = Arc::clone(&runtime);
                Held::Stored(py.detach(move || open_stored(&path, &id, runtime, schedule))?)
            }
        };
        Ok(NativeSession {
            held: Mutex::new(held),
            judging,
            runtime,
            mode,
        })
    }

    /// A session restored from `data` (what `snapshot` returned), answering
    /// exactly like the one saved.
    #[staticmethod]
    #[pyo3(signature = (bundle, data, judge, ask=None, mode="enforce"))]
    fn restore(
        py: Python<'_>,
        bundle: &NativeBundle,
        data: &[u8],
        judge: &str,
        ask: Option<Py<PyAny>>,
        mode: &str,
    ) -> PyResult<NativeSession> {
        let mode = parse_mode(mode)?;
        let state: SessionState = serde_json::from_slice(data)
            .map_err(|e| SessionError::new_err(format!("not a saved session: {e}")))?;
        let runtime = Arc::clone(&bundle.runtime);
        let judging = match ask {
            Some(ask) => Judging::callable(ask),
            None => Judging::named(judge, &runtime.bundle)?,
        };
        let restored = py.detach(|| Session::restore(Arc::clone(&runtime), state));
        let session = restored.map_err(|e| SessionError::new_err(e.to_string()))?;
        Ok(NativeSession {
            held: Mutex::new(Held::Memory(session)),
            judging,
            runtime,
            mode,
        })
    }

    /// Decides `event` (one native event as JSON text) and returns the
    /// report as JSON text. A stored session commits it first.
    fn push(&self, py: Python<'_>, event: &str) -> PyResult<String> {
        let (event, at) = parse_event(event)?;
        py.detach(|| self.decide(event, at))
            .map(|(answer, _)| answer)
    }

    /// `push`, and the nanoseconds the engine's push took of it (the
    /// benchmark of the binding's overhead subtracts them).
    fn push_timed(&self, py: Python<'_>, event: &str) -> PyResult<(String, u64)> {
        let (event, at) = parse_event(event)?;
        py.detach(|| self.decide(event, at))
            .map(|(answer, took)| (answer, u64::try_from(took.as_nanos()).unwrap_or(u64::MAX)))
    }

    /// Decides each event in turn; stops at the first that cannot be taken.
    fn push_many(&self, py: Python<'_>, events: Vec<String>) -> PyResult<Vec<String>> {
        let parsed = events
            .iter()
            .enumerate()
            .map(|(index, text)| {
                parse_event(text)
                    .map_err(|e| EventError::new_err(format!("event {index}: {}", e.value(py))))
            })
            .collect::<PyResult<Vec<_>>>()?;
        py.detach(|| {
            parsed
                .into_iter()
                .map(|(event, at)| self.decide(event, at).map(|(answer, _)| answer))
                .collect()
        })
    }

    /// The session's state as JSON bytes, for `restore`.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.detach(|| {
            let held = self.lock()?;
            let state = match &*held {
                Held::Memory(session) => session.snapshot(),
                Held::Stored(durable) => durable.session().snapshot(),
            };
            serde_json::to_vec(&state)
                .map_err(|e| SessionError::new_err(format!("the session cannot be saved: {e}")))
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The stored session's id; `None` in memory.
    #[getter]
    fn session_id(&self) -> PyResult<Option<String>> {
        Ok(match &*self.lock()? {
            Held::Memory(_) => None,
            Held::Stored(durable) => Some(durable.id().to_owned()),
        })
    }

    /// Events taken so far.
    #[getter]
    fn events(&self) -> PyResult<usize> {
        Ok(match &*self.lock()? {
            Held::Memory(session) => session.events().len(),
            Held::Stored(durable) => durable.session().events().len(),
        })
    }

    /// `enforce` or `shadow`.
    #[getter]
    fn mode(&self) -> &'static str {
        self.mode.name()
    }

    /// The bundle's content id.
    #[getter]
    fn bundle_id(&self) -> String {
        self.runtime.bundle.hash.clone()
    }
}

impl NativeSession {
    fn lock(&self) -> PyResult<MutexGuard<'_, Held>> {
        self.held.lock().map_err(|_| {
            SessionError::new_err("the session was left inconsistent by an earlier failure")
        })
    }

    /// Decides one event with the session's judge: the answer's JSON, and
    /// how long the engine's push (with the store's commit) took.
    fn decide(&self, event: Event, at: Option<DateTime>) -> PyResult<(String, Duration)> {
        let mut held = self.lock()?;
        let started = Instant::now();
        match (&mut *held, &self.judging) {
            (Held::Memory(session), Judging::Immediate(judge)) => {
                let report = session.push_at(event, at, judge.as_ref());
                let took = started.elapsed();
                let report = report.map_err(|e| SessionError::new_err(e.to_string()))?;
                Ok((self.answer_memory(report)?, took))
            }
            (Held::Memory(session), Judging::Model(judge, runtime)) => {
                let report = runtime.block_on(session.push_at_async(event, at, judge.as_ref()));
                let took = started.elapsed();
                let report = report.map_err(|e| SessionError::new_err(e.to_string()))?;
                Ok((self.answer_memory(report)?, took))
            }
            (Held::Stored(session), Judging::Immediate(judge)) => {
                let committed = session.push_at(event, at, judge.as_ref());
                let took = started.elapsed();
                let committed = committed.map_err(|e| durable(&e))?;
                Ok((self.answer(&committed.report, &committed.json)?, took))
            }
            (Held::Stored(session), Judging::Model(judge, runtime)) => {
                let committed = runtime.block_on(session.push_at_async(event, at, judge.as_ref()));
                let took = started.elapsed();
                let committed = committed.map_err(|e| durable(&e))?;
                Ok((self.answer(&committed.report, &committed.json)?, took))
            }
        }
    }

    /// The answer to a report of a session in memory.
    fn answer_memory(&self, report: EventReport) -> PyResult<String> {
        let json = serde_json::to_string(&report)
            .map_err(|e| SessionError::new_err(format!("the report cannot be written: {e}")))?;
        match self.mode {
            Enforcement::Enforce => Ok(json),
            Enforcement::Shadow => self.answer(&report, &json),
        }
    }

    /// The answer to `report` (recorded as `json`) in the session's mode.
    fn answer(&self, report: &EventReport, json: &str) -> PyResult<String> {
        self.mode
            .answer(report, json)
            .map_err(|e| SessionError::new_err(format!("the verdict cannot be answered: {e}")))
    }
}

/// Claims session `id` in the store at `path`: restored when stored,
/// started (stored with its first event) when not.
fn open_stored(
    path: &std::path::Path,
    id: &str,
    runtime: Arc<BundleRuntime>,
    schedule: Schedule,
) -> PyResult<DurableSession> {
    let store =
        Store::open(path, Durability::Full).map_err(|e| StoreError::new_err(e.to_string()))?;
    let claimed =
        DurableSession::claim(&store, id).map_err(|e| StoreError::new_err(e.to_string()))?;
    match claimed.stored() {
        Some(meta) if meta.schedule != schedule => Err(SessionError::new_err(format!(
            "session {id:?} uses the {} schedule, not {schedule}",
            meta.schedule
        ))),
        Some(_) => claimed.restore(runtime).map_err(|e| durable(&e)),
        None => {
            let name = runtime.bundle.name.clone();
            claimed
                .start(runtime, name, schedule, None)
                .map_err(|e| durable(&e))
        }
    }
}

/// One native event and its time, or `EventError` saying what is wrong.
fn parse_event(text: &str) -> PyResult<(Event, Option<DateTime>)> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| EventError::new_err(format!("not an event: {e}")))?;
    if !value.is_object() {
        return Err(EventError::new_err(
            "not an event: an event is a JSON object",
        ));
    }
    let at = event_time(&value).map_err(|e| EventError::new_err(format!("not an event: {e}")))?;
    let event: Event = serde_json::from_value(value)
        .map_err(|e| EventError::new_err(format!("not an event: {e}")))?;
    Ok((event, at))
}

fn parse_mode(mode: &str) -> PyResult<Enforcement> {
    mode.parse()
        .map_err(|e: String| pyo3::exceptions::PyValueError::new_err(e))
}
