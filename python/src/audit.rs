//! `audit`: recorded conversations audited by the engine's streaming run
//! (`turnstile_engine::audit::run`, what `turnstile audit` runs), one trace
//! report at a time. The run works on its own threads; the Python iterator
//! takes each report, in input order, through a bounded channel with the
//! GIL released, and adds it to the same `Summary` the CLI prints, so the
//! aggregate is byte for byte `turnstile audit --format json`'s.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pyo3::prelude::*;
use turnstile_engine::audit::{
    AuditJudge, Auditor, Counters, Item, RunOptions, Summary, expand, run,
};

use crate::bundle::NativeBundle;
use crate::errors::{JudgeError, TurnstileError};
use crate::judge::Judging;

/// Reports waiting for the Python side at most.
const QUEUE: usize = 64;

/// What the run thread ends with: whether it went to the end, or why not.
type Outcome = Result<bool, String>;

/// A running audit (see the module documentation).
#[pyclass(module = "turnstile._native")]
pub struct NativeAudit {
    items: Mutex<Option<Receiver<Item>>>,
    runner: Mutex<Option<JoinHandle<Outcome>>>,
    summary: Mutex<Summary>,
}

#[pymethods]
impl NativeAudit {
    /// Starts auditing `paths` (files or directories) with `bundle`.
    /// `judge`: `offline`, `recorded:<file>` or `none`; `ask` (a
    /// callable's asker) takes its place when given.
    #[new]
    #[pyo3(signature = (bundle, paths, threads, judge, ask=None))]
    fn new(
        bundle: &NativeBundle,
        paths: Vec<PathBuf>,
        threads: Option<usize>,
        judge: &str,
        ask: Option<Py<PyAny>>,
    ) -> PyResult<NativeAudit> {
        let runtime = Arc::clone(&bundle.runtime);
        let judge = match (ask, judge) {
            (Some(ask), _) => audit_judge(Judging::callable(ask))?,
            (None, "none") => AuditJudge::Assume,
            (None, name) => audit_judge(Judging::named(name, &runtime.bundle)?)?,
        };
        let threads = threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);
        let auditor = Auditor::new(runtime, judge, false);
        let (files, rejections) = expand(&paths);
        let mut summary = Summary::default();
        for rejection in rejections {
            summary.reject(rejection);
        }
        let (sender, receiver) = sync_channel::<Item>(QUEUE);
        let runner = std::thread::Builder::new()
            .name("turnstile-audit".to_owned())
            .spawn(move || {
                let options = RunOptions {
                    threads,
                    format: None,
                };
                run(
                    &files,
                    &options,
                    &Counters::default(),
                    &auditor,
                    &mut |item| {
                        // The Python side dropped the iterator: stop.
                        match sender.send(item) {
                            Ok(()) => ControlFlow::Continue(()),
                            Err(_) => ControlFlow::Break(()),
                        }
                    },
                )
            })
            .map_err(|e| TurnstileError::new_err(format!("cannot start the audit: {e}")))?;
        Ok(NativeAudit {
            items: Mutex::new(Some(receiver)),
            runner: Mutex::new(Some(runner)),
            summary: Mutex::new(summary),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next trace's report as JSON text (what `turnstile audit --format
    /// jsonl` prints for it); rejected records are counted in the summary.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<String>> {
        py.detach(|| self.next_report())
    }

    /// The aggregate so far as JSON text: at the end, the `summary` of
    /// `turnstile audit --format json`.
    fn summary(&self) -> PyResult<String> {
        let summary = self.summary.lock().map_err(|_| poisoned())?;
        Ok(summary.to_json().to_string())
    }
}

impl NativeAudit {
    fn next_report(&self) -> PyResult<Option<String>> {
        let mut items = self.items.lock().map_err(|_| poisoned())?;
        let Some(receiver) = items.as_ref() else {
            return Ok(None);
        };
        while let Ok(item) = receiver.recv() {
            let mut summary = self.summary.lock().map_err(|_| poisoned())?;
            match item {
                Item::File(name) => summary.file(&name),
                Item::Rejected(rejection) => summary.reject(rejection),
                Item::Report(report) => {
                    summary.add(&report);
                    let json = serde_json::to_string(&report).map_err(|e| {
                        TurnstileError::new_err(format!("the report cannot be written: {e}"))
                    })?;
                    return Ok(Some(json));
                }
            }
        }
        *items = None;
        let runner = self.runner.lock().map_err(|_| poisoned())?.take();
        match runner.map(JoinHandle::join) {
            None | Some(Ok(Ok(true))) => Ok(None),
            Some(Ok(Ok(false))) => Err(TurnstileError::new_err("the audit stopped early")),
            Some(Ok(Err(e))) => Err(TurnstileError::new_err(e)),
            Some(Err(_)) => Err(TurnstileError::new_err("the audit's thread failed")),
        }
    }
}

/// The audit's form of a session judge: a model judge is not offered here.
fn audit_judge(judging: Judging) -> PyResult<AuditJudge> {
    match judging {
        Judging::Immediate(judge) => Ok(AuditJudge::Immediate(judge)),
        Judging::Model(..) => Err(JudgeError::new_err(
            "audit from Python takes the offline judge, recorded verdicts, none or a callable; use `turnstile audit --judge openai` for a model",
        )),
    }
}

fn poisoned() -> PyErr {
    TurnstileError::new_err("the audit was left inconsistent by an earlier failure")
}

/// The aggregate of trace reports audited elsewhere (JSON texts, in input
/// order; `files`: the files read, in input order), as JSON text: what
/// `turnstile audit --format json` prints as `summary` for the same run.
#[pyfunction]
pub fn summarize(py: Python<'_>, files: Vec<String>, reports: Vec<String>) -> PyResult<String> {
    py.detach(|| {
        let mut summary = Summary::default();
        for file in &files {
            summary.file(file);
        }
        for (index, text) in reports.iter().enumerate() {
            let report: turnstile_engine::audit::TraceReport =
                serde_json::from_str(text).map_err(|e| {
                    TurnstileError::new_err(format!("report {index} is not a trace report: {e}"))
                })?;
            summary.add(&report);
        }
        Ok(summary.to_json().to_string())
    })
}
