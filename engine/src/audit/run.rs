//! Streaming many trace files through the audit, in parallel and in order.
//!
//! One reader walks the inputs (files in the order given, directories
//! recursively in name order) with the streaming [`TraceReader`], and hands
//! each trace to a pool of rayon workers through a bounded channel; the
//! results come back tagged with their input position and are delivered to
//! the sink strictly in input order. So memory is bounded by the number of
//! threads and the largest trace (plus the few results waiting for a slower
//! earlier one), and the output is the same for any number of threads. With
//! one thread everything runs inline on the caller's thread.
//!
//! What a worker makes of a trace is a [`TraceWork`]: the audit's
//! [`TraceReport`] by its [`Auditor`], or anything else (`turnstile diff`
//! replays each trace under two bundles).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use super::summary::Rejection;
use super::{Auditor, TraceReport, TraceSource};
use crate::import::{Format, ResultContent, TraceReader};
use crate::trace::Trace;

/// What a worker thread makes of one trace.
pub trait TraceWork: Sync {
    /// What one trace gives.
    type Output: Send;
    /// How the readers deliver tool results to [`TraceWork::work`].
    fn results(&self) -> ResultContent;
    /// The work on one trace, or why it could not be done.
    fn work(&self, trace: Trace, source: &TraceSource) -> Result<Self::Output, String>;
}

impl TraceWork for Auditor {
    type Output = TraceReport;

    fn results(&self) -> ResultContent {
        Auditor::results(self)
    }

    fn work(&self, trace: Trace, source: &TraceSource) -> Result<TraceReport, String> {
        self.audit(trace, source).map_err(|e| e.to_string())
    }
}

/// What the run delivers, in input order: `R` is what a worker makes of
/// one trace.
#[derive(Debug)]
pub enum Item<R = TraceReport> {
    /// A file is about to be read (given or found in a directory).
    File(String),
    /// A trace's report.
    Report(Box<R>),
    /// A record or file that could not be read or audited.
    Rejected(Rejection),
}

/// Live counters for a progress display (read them from another thread).
#[derive(Debug, Default)]
pub struct Counters {
    /// Traces audited so far.
    pub traces: AtomicUsize,
    /// Events in them.
    pub events: AtomicUsize,
    /// Content bytes read so far (decompressed).
    pub bytes: AtomicU64,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads (1: inline on the caller's thread).
    pub threads: usize,
    /// The format of every file; detected per file when none.
    pub format: Option<Format>,
}

/// The input name that means standard input.
pub const STDIN: &str = "-";

/// Extensions of the files taken from a directory.
const TRACE_EXTENSIONS: [&str; 5] = ["json", "jsonl", "ndjson", "gz", "zst"];

/// The files named by `paths`, directories expanded recursively in name
/// order (only files with a trace extension); a directory that cannot be
/// listed is a rejection, an unreadable file inside one is found when read.
pub fn expand(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Rejection>) {
    let mut files = Vec::new();
    let mut rejections = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut files, &mut rejections);
        } else {
            files.push(path.clone());
        }
    }
    (files, rejections)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, rejections: &mut Vec<Rejection>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            rejections.push(Rejection {
                file: dir.display().to_string(),
                record: None,
                path: String::new(),
                reason: format!("cannot list the directory: {e}"),
            });
            return;
        }
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(e) => rejections.push(Rejection {
                file: dir.display().to_string(),
                record: None,
                path: String::new(),
                reason: format!("cannot list the directory: {e}"),
            }),
        }
    }
    paths.sort();
    for path in paths {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, files, rejections);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| TRACE_EXTENSIONS.iter().any(|t| e.eq_ignore_ascii_case(t)))
        {
            files.push(path);
        }
    }
}

/// One unit of work from the reader: a trace to audit, or an item that
/// needs none.
enum Work<R> {
    Trace(Trace, Arc<TraceSource>),
    Done(Item<R>),
}

/// The workers' queue: each unit of work with its input position.
type WorkQueue<R> = Mutex<Receiver<(usize, Work<R>)>>;

/// Reads every file and delivers each [`Item`] to `sink` in input order;
/// `job` works on each trace on the worker threads. `sink` may stop the
/// run early with `ControlFlow::Break`. Returns whether the run went to the
/// end.
pub fn run<W: TraceWork>(
    files: &[PathBuf],
    options: &RunOptions,
    counters: &Counters,
    job: &W,
    sink: &mut dyn FnMut(Item<W::Output>) -> ControlFlow<()>,
) -> Result<bool, String> {
    if options.threads <= 1 {
        let mut finished = true;
        read_all(files, options, job, counters, &mut |work| {
            let item = match work {
                Work::Trace(trace, source) => finish(trace, &source, job, counters),
                Work::Done(item) => item,
            };
            let flow = sink(item);
            finished &= flow.is_continue();
            flow
        });
        return Ok(finished);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .thread_name(|i| format!("audit-{i}"))
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", options.threads))?;
    let bound = options.threads.saturating_mul(4).max(4);
    let (work_tx, work_rx) = sync_channel::<(usize, Work<W::Output>)>(bound);
    let (done_tx, done_rx) = sync_channel::<(usize, Item<W::Output>)>(bound);
    let work_rx = Arc::new(Mutex::new(work_rx));
    let stop = AtomicBool::new(false);
    let mut finished = true;
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            let mut seq = 0;
            read_all(files, options, job, counters, &mut |work| {
                if stop.load(Ordering::Relaxed) || work_tx.send((seq, work)).is_err() {
                    return ControlFlow::Break(());
                }
                seq += 1;
                ControlFlow::Continue(())
            });
        });
        let pool = &pool;
        let work_rx = &work_rx;
        let workers = scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..options.threads {
                    let rx = Arc::clone(work_rx);
                    let tx = done_tx.clone();
                    s.spawn(move |_| worker(&rx, &tx, counters, job));
                }
                // The workers hold the only senders now: the collector sees
                // the end when the last one finishes.
                drop(done_tx);
            });
        });
        finished = collect(&done_rx, sink);
        if !finished {
            stop.store(true, Ordering::Relaxed);
            // Unblock the reader and the workers: drain what they still send.
            while done_rx.recv().is_ok() {}
        }
        let _ = workers.join();
    });
    Ok(finished)
}

fn worker<W: TraceWork>(
    rx: &WorkQueue<W::Output>,
    tx: &SyncSender<(usize, Item<W::Output>)>,
    counters: &Counters,
    job: &W,
) {
    loop {
        let next = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(_) => return,
        };
        let Ok((seq, work)) = next else { return };
        let item = match work {
            Work::Trace(trace, source) => finish(trace, &source, job, counters),
            Work::Done(item) => item,
        };
        if tx.send((seq, item)).is_err() {
            return;
        }
    }
}

/// Delivers the results in input order; `false` when the sink stopped.
fn collect<R>(
    rx: &Receiver<(usize, Item<R>)>,
    sink: &mut dyn FnMut(Item<R>) -> ControlFlow<()>,
) -> bool {
    let mut waiting: BTreeMap<usize, Item<R>> = BTreeMap::new();
    let mut next = 0;
    for (seq, item) in rx.iter() {
        waiting.insert(seq, item);
        while let Some(item) = waiting.remove(&next) {
            next += 1;
            if sink(item).is_break() {
                return false;
            }
        }
    }
    true
}

fn finish<W: TraceWork>(
    trace: Trace,
    source: &TraceSource,
    job: &W,
    counters: &Counters,
) -> Item<W::Output> {
    let id = trace.meta.id.clone();
    let events = trace.events.len();
    match job.work(trace, source) {
        Ok(report) => {
            counters.traces.fetch_add(1, Ordering::Relaxed);
            counters.events.fetch_add(events, Ordering::Relaxed);
            Item::Report(Box::new(report))
        }
        Err(reason) => Item::Rejected(Rejection {
            file: source.file.clone(),
            record: None,
            path: id,
            reason: format!("cannot audit the trace: {reason}"),
        }),
    }
}

/// Walks every file, handing each trace and problem to `f` in order.
fn read_all<W: TraceWork>(
    files: &[PathBuf],
    options: &RunOptions,
    job: &W,
    counters: &Counters,
    f: &mut dyn FnMut(Work<W::Output>) -> ControlFlow<()>,
) {
    let format = options.format;
    let mut done_bytes = 0u64;
    for path in files {
        let name = path.display().to_string();
        if f(Work::Done(Item::File(name.clone()))).is_break() {
            return;
        }
        let opened = if path.as_os_str() == STDIN {
            // Standard input: a stream of native JSONL (or `--input-format`).
            let stdin = std::io::BufReader::new(std::io::stdin());
            Ok(TraceReader::from_reader(
                stdin,
                "stdin.jsonl",
                format.unwrap_or(Format::Native),
            ))
        } else {
            TraceReader::open(path, format)
        };
        let mut reader = match opened {
            Ok(reader) => reader.with_result_content(job.results()),
            Err(e) => {
                if f(Work::Done(Item::Rejected(Rejection::from(&e)))).is_break() {
                    return;
                }
                continue;
            }
        };
        let mut source = Arc::new(TraceSource {
            file: name.clone(),
            model: None,
        });
        while let Some(item) = reader.next() {
            if source.model.as_deref() != reader.agent_model() {
                source = Arc::new(TraceSource {
                    file: name.clone(),
                    model: reader.agent_model().map(str::to_owned),
                });
            }
            counters
                .bytes
                .store(done_bytes + reader.bytes_read(), Ordering::Relaxed);
            let work = match item {
                Ok(trace) => Work::Trace(trace, Arc::clone(&source)),
                Err(e) => Work::Done(Item::Rejected(Rejection::from(&e))),
            };
            if f(work).is_break() {
                return;
            }
        }
        done_bytes += reader.bytes_read();
        counters.bytes.store(done_bytes, Ordering::Relaxed);
    }
}
