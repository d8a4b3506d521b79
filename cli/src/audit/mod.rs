//! `turnstile audit`: a corpus of recorded conversations against a bundle,
//! one report per trace and a summary per file, agent model and domain
//! (a terminal table, JSON, CSV or JSON Lines; `--html` adds a
//! self-contained report page). The decisions are the engine's
//! (`turnstile_engine::audit`); this module owns the flags, the judge
//! choice, the progress bar, the output formats and the exit codes.

mod html;
mod output;

pub(crate) use html::esc;

use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use turnstile_engine::audit::{
    Auditor, Counters, Item, RunOptions, Summary, Synth, TraceReport, expand, run,
};
use turnstile_engine::import::{Format, TraceReader, write_native};
use turnstile_engine::session::BundleRuntime;

use crate::judge_args::JudgeArgs;

/// Exit code: some records or files could not be read (everything else was
/// audited).
pub const EXIT_REJECTED: u8 = 3;
/// Exit code: `--fail-on-violation` and at least one trace has a violation.
pub const EXIT_VIOLATION: u8 = 4;

/// The flags of `turnstile audit`.
#[derive(Args, Clone, Debug)]
pub struct AuditArgs {
    /// The bundle directory (or its bundle.yaml).
    #[arg(long)]
    pub bundle: PathBuf,
    /// Trace files (tau2, OpenAI chat, tau-bench, native JSONL; plain, .gz
    /// or .zst) and directories (read recursively, in name order).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The input format of every file (detected per file by default).
    #[arg(long)]
    pub input_format: Option<String>,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// `table` (default), `json` (every report and the summary), `csv` (one
    /// row per trace) or `jsonl` (one report per line).
    #[arg(long, value_enum, default_value_t = AuditFormat::Table)]
    pub format: AuditFormat,
    /// Write the report here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Also write a self-contained HTML report (charts and a drill-down into
    /// every flagged trace).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Flagged traces shown in the HTML drill-down at most.
    #[arg(long, default_value_t = html::DEFAULT_CAP)]
    pub html_cap: usize,
    /// Exit with 4 when a trace has a violation (for CI).
    #[arg(long)]
    pub fail_on_violation: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// The time events are decided at when a trace records none
    /// (`2024-05-15T15:00:00`): a bundle reading `now()` on an `event` or
    /// `system` clock needs one or the other.
    #[arg(long, value_parser = crate::parse_now)]
    pub now: Option<turnstile_rules::DateTime>,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    Table,
    Json,
    Csv,
    Jsonl,
}

/// Runs the audit; returns the exit code, or a message for a failure to run.
pub fn main(args: &AuditArgs, rt: Arc<BundleRuntime>) -> Result<u8, String> {
    let format = match &args.input_format {
        Some(name) => Some(
            name.parse::<Format>()
                .map_err(|e| format!("--input-format: {e}"))?,
        ),
        None => None,
    };
    let judge = args.judge.audit_judge(&[&rt.bundle])?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let auditor = Auditor::new(rt, judge, args.html.is_some()).with_now(args.now);
    let (files, walk_rejections) = expand(&args.inputs);
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut writer = output::Writer::new(args.format);
    let mut summary = Summary::default();
    let mut flagged: Vec<TraceReport> = Vec::new();
    let mut flagged_total = 0usize;
    let mut failure: Option<String> = None;
    let counters = Counters::default();
    let started = Instant::now();
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    writer.start(&mut out).map_err(write_error)?;
    for rejection in walk_rejections {
        writer.rejected(&mut out, &rejection).map_err(write_error)?;
        summary.reject(rejection);
    }
    let run_options = RunOptions { threads, format };
    let done = std::sync::atomic::AtomicBool::new(false);
    let finished = std::thread::scope(|scope| {
        let progress = show_progress.then(|| {
            let counters = &counters;
            let done = &done;
            scope.spawn(move || progress_bar(counters, done, started))
        });
        let result = run(&files, &run_options, &counters, &auditor, &mut |item| {
            let written = match item {
                Item::File(name) => {
                    summary.file(&name);
                    Ok(())
                }
                Item::Report(report) => {
                    summary.add(&report);
                    let written = writer.report(&mut out, &report);
                    if report.flagged() {
                        flagged_total += 1;
                        if flagged.len() < args.html_cap && args.html.is_some() {
                            flagged.push(*report);
                        }
                    }
                    written
                }
                Item::Rejected(rejection) => {
                    let written = writer.rejected(&mut out, &rejection);
                    summary.reject(rejection);
                    written
                }
            };
            match written {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failure = Some(write_error(e));
                    ControlFlow::Break(())
                }
            }
        });
        done.store(true, Ordering::Relaxed);
        if let Some(handle) = progress {
            let _ = handle.join();
        }
        result
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    if !finished {
        return Err("the audit stopped early".to_owned());
    }
    writer.finish(&mut out, &summary).map_err(write_error)?;
    out.flush().map_err(write_error)?;
    if let Some(path) = &args.html {
        let page = html::page(&summary, &flagged, flagged_total, args.html_cap);
        std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if !args.quiet && args.format != AuditFormat::Table {
        let total = summary.total();
        eprintln!(
            "audit: {} read, {} audited, {} rejected; {} compliant, {} violation, {} needs review, {} unverified ({:.1} s)",
            summary.read,
            summary.audited,
            summary.rejected(),
            total.compliant,
            total.violation,
            total.needs_review,
            total.unverified,
            started.elapsed().as_secs_f64()
        );
    }
    let violations = summary.total().violation > 0;
    Ok(if summary.rejected() > 0 {
        EXIT_REJECTED
    } else if args.fail_on_violation && violations {
        EXIT_VIOLATION
    } else {
        0
    })
}

fn write_error(e: std::io::Error) -> String {
    format!("cannot write the report: {e}")
}

fn progress_bar(counters: &Counters, done: &std::sync::atomic::AtomicBool, started: Instant) {
    let bar = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
    {
        bar.set_style(style);
    }
    while !done.load(Ordering::Relaxed) {
        let traces = counters.traces.load(Ordering::Relaxed);
        let events = counters.events.load(Ordering::Relaxed);
        let bytes = counters.bytes.load(Ordering::Relaxed);
        let secs = started.elapsed().as_secs_f64().max(1e-3);
        bar.set_message(format!(
            "{traces} traces, {events} events, {:.1} MB read, {:.1} MB/s",
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / secs
        ));
        bar.tick();
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
}

/// The flags of `turnstile synth`.
#[derive(Args, Clone, Debug)]
pub struct SynthArgs {
    /// Source trace files or directories (any format the audit reads).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Traces to generate.
    #[arg(long, default_value_t = 1000)]
    pub traces: usize,
    /// The generator's seed (the same seed gives the same corpus).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write here (native JSONL; gzip-compressed when the name ends in
    /// `.gz`) instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// `turnstile synth`: a large corpus of perturbed copies of real traces, as
/// native JSONL (stream it into `turnstile audit ... -`).
pub fn synth(args: &SynthArgs) -> Result<u8, String> {
    let (files, problems) = expand(&args.inputs);
    for p in &problems {
        eprintln!("error: {}: {}", p.file, p.reason);
    }
    let mut sources = Vec::new();
    for file in &files {
        let reader = TraceReader::open(file, None).map_err(|e| e.to_string())?;
        for item in reader {
            match item {
                Ok(trace) => sources.push(trace),
                Err(e) => eprintln!("skipped: {e}"),
            }
        }
    }
    if sources.is_empty() {
        return Err("no source traces".to_owned());
    }
    let raw: Box<dyn Write> = match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            let file = std::io::BufWriter::new(file);
            if path.extension().is_some_and(|e| e == "gz") {
                Box::new(flate2::write::GzEncoder::new(
                    file,
                    flate2::Compression::fast(),
                ))
            } else {
                Box::new(file)
            }
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut out = raw;
    let mut synth = Synth::new(sources, args.seed);
    for i in 0..args.traces {
        let Some(trace) = synth.trace(i) else { break };
        match write_native(&mut out, &trace) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(0),
            Err(e) => return Err(format!("cannot write: {e}")),
        }
    }
    out.flush().map_err(|e| format!("cannot write: {e}"))?;
    Ok(0)
}
