//! `turnstile test`: a bundle's test conversations (its `tests/` directory,
//! or the files and directories given), each replayed through the gate
//! under the schedules its header names, every `expect` compared with the
//! verdict observed. Each mismatch is reported with its file and line, the
//! conversation, the event, the expected and the observed verdict (with the
//! observed step, remediation and failed conditions); `--junit` writes the
//! same as JUnit XML for CI. Exit 0 only when every expectation of at least
//! one conversation was met and no file has an error.

mod expect;
mod file;
mod junit;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use turnstile_engine::session::{
    BundleRuntime, Explainer, GateVerdict, ReplayReport, Schedule, replay, replay_async,
};
use turnstile_engine::trace::Trace;
use turnstile_rules::{EventIdx, StepId};

use crate::judge_args::{JudgeArgs, Judging};
pub(crate) use expect::reason_label;
use expect::{Expected, Observed};
use file::{Steps, TestErrorKind, TestFile, TestFileError};

/// The flags of `turnstile test`.
#[derive(Args, Clone, Debug)]
pub struct TestArgs {
    /// The bundle directory (or its bundle.yaml).
    pub bundle: PathBuf,
    /// Test files (native JSONL) and directories (their `.jsonl` files,
    /// recursively); default: the bundle's `tests/` directory.
    pub paths: Vec<PathBuf>,
    /// Also write the results as JUnit XML to this file (for CI).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// List every expectation checked, not only the failures.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

/// Replays `trace` under `schedule`: the one place `test` and `diff` ask the
/// engine for a conversation's verdicts.
pub(crate) fn replay_trace(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &Judging,
) -> Result<ReplayReport, String> {
    match judge {
        Judging::Immediate(judge) => replay(rt, trace, schedule, judge.as_ref()),
        Judging::Model(judge, runtime) => runtime.block_on(replay_async(
            rt,
            trace,
            schedule,
            judge.as_ref(),
            Explainer::default(),
            None,
        )),
    }
    .map_err(|e| e.to_string())
}

/// One expectation checked under one schedule.
#[derive(Debug)]
pub struct Check {
    /// The line of the `expect`.
    pub line: usize,
    /// The event it is about, and how the report describes it.
    pub event: EventIdx,
    pub kind: String,
    pub expected: Expected,
    /// What the replay said about the event.
    pub observed: Observed,
    pub passed: bool,
}

/// One conversation replayed under one schedule.
#[derive(Debug)]
pub struct Run {
    pub trace: String,
    pub line: usize,
    pub schedule: Schedule,
    pub checks: Vec<Check>,
}

/// Everything one test file gave.
#[derive(Debug)]
pub struct FileResult {
    pub file: PathBuf,
    pub runs: Vec<Run>,
    pub errors: Vec<TestFileError>,
}

impl FileResult {
    fn failures(&self) -> usize {
        self.runs
            .iter()
            .flat_map(|r| &r.checks)
            .filter(|c| !c.passed)
            .count()
    }
}

/// The test files under `paths` (directories: their `.jsonl` files,
/// recursively, in name order).
fn test_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<TestFileError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if !path.exists() {
            errors.push(TestFileError {
                file: path.clone(),
                line: None,
                kind: TestErrorKind::Missing,
            });
            continue;
        }
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let (found, rejected) = turnstile_engine::audit::expand(std::slice::from_ref(path));
        files.extend(found.into_iter().filter(|f| {
            f.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
        }));
        errors.extend(rejected.into_iter().map(|r| TestFileError {
            file: PathBuf::from(r.file),
            line: None,
            kind: TestErrorKind::Import(r.reason),
        }));
    }
    (files, errors)
}

/// The directory `tests/` beside the bundle's manifest.
fn default_tests(bundle: &Path) -> PathBuf {
    let dir = if bundle.is_file() {
        bundle.parent().unwrap_or(Path::new("."))
    } else {
        bundle
    };
    dir.join("tests")
}

/// Runs every test file; `Ok(true)` when all passed.
pub fn run(rt: &Arc<BundleRuntime>, judge: Judging, args: &TestArgs) -> Result<bool, String> {
    let paths = if args.paths.is_empty() {
        vec![default_tests(&args.bundle)]
    } else {
        args.paths.clone()
    };
    let (files, walk_errors) = test_files(&paths);
    let steps = Steps(
        (0..rt.steps.len())
            .filter_map(|i| u32::try_from(i).ok())
            .map(|i| rt.step_name(StepId(i)).to_owned())
            .collect(),
    );
    let mut results: Vec<FileResult> = files
        .iter()
        .map(|path| test_file(rt, &judge, path, &steps))
        .collect();
    if !walk_errors.is_empty() {
        results.push(FileResult {
            file: PathBuf::new(),
            runs: Vec::new(),
            errors: walk_errors,
        });
    }
    let mut out = std::io::stdout().lock();
    let totals = report(&mut out, &results, args.verbose, &paths)
        .map_err(|e| format!("cannot write the report: {e}"))?;
    if let Some(path) = &args.junit {
        std::fs::write(path, junit::document(&results))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(totals.passed())
}

/// Reads and runs one test file.
fn test_file(rt: &Arc<BundleRuntime>, judge: &Judging, path: &Path, steps: &Steps) -> FileResult {
    let read = TestFile::read(path, steps);
    let mut result = FileResult {
        file: path.to_path_buf(),
        runs: Vec::new(),
        errors: read.errors,
    };
    for conversation in &read.conversations {
        for &schedule in &conversation.schedules {
            let report = match replay_trace(rt, &conversation.trace, schedule, judge) {
                Ok(report) => report,
                Err(message) => {
                    result.errors.push(TestFileError {
                        file: path.to_path_buf(),
                        line: Some(conversation.line),
                        kind: TestErrorKind::Replay {
                            trace: conversation.trace.meta.id.clone(),
                            schedule,
                            message,
                        },
                    });
                    continue;
                }
            };
            let mut checks = Vec::new();
            for e in &conversation.expectations {
                let Some(observed) = Observed::of(&report.events, e.event) else {
                    result.errors.push(TestFileError {
                        file: path.to_path_buf(),
                        line: Some(e.line),
                        kind: TestErrorKind::NotReported(e.event.0),
                    });
                    continue;
                };
                let kind = report
                    .events
                    .iter()
                    .find(|r| r.event == e.event)
                    .map(|r| r.kind.clone())
                    .unwrap_or_default();
                checks.push(Check {
                    line: e.line,
                    event: e.event,
                    kind,
                    passed: e.expected.met_by(&observed),
                    expected: e.expected.clone(),
                    observed,
                });
            }
            result.runs.push(Run {
                trace: conversation.trace.meta.id.clone(),
                line: conversation.line,
                schedule,
                checks,
            });
        }
    }
    result
}

/// The counts the summary line and the exit code come from.
#[derive(Default)]
struct Totals {
    files: usize,
    conversations: usize,
    runs: usize,
    checks: usize,
    failed: usize,
    errors: usize,
}

impl Totals {
    fn passed(&self) -> bool {
        self.failed == 0 && self.errors == 0 && self.checks > 0
    }
}

fn report(
    out: &mut impl Write,
    results: &[FileResult],
    verbose: bool,
    paths: &[PathBuf],
) -> std::io::Result<Totals> {
    let mut totals = Totals::default();
    for result in results {
        if !result.file.as_os_str().is_empty() {
            totals.files += 1;
        }
        let conversations: BTreeMap<&str, ()> =
            result.runs.iter().map(|r| (r.trace.as_str(), ())).collect();
        totals.conversations += conversations.len();
        totals.runs += result.runs.len();
        totals.checks += result.runs.iter().map(|r| r.checks.len()).sum::<usize>();
        totals.failed += result.failures();
        totals.errors += result.errors.len();
        for error in &result.errors {
            writeln!(out, "error: {error}")?;
        }
        for run in &result.runs {
            let failed = run.checks.iter().filter(|c| !c.passed).count();
            if failed == 0 && !verbose {
                continue;
            }
            writeln!(
                out,
                "{} {}:{} `{}` under {}",
                if failed == 0 { "ok  " } else { "FAIL" },
                result.file.display(),
                run.line,
                run.trace,
                run.schedule
            )?;
            for check in &run.checks {
                if check.passed && !verbose {
                    continue;
                }
                write_check(out, &result.file, check)?;
            }
        }
    }
    if totals.checks == 0 && totals.errors == 0 {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        writeln!(
            out,
            "error: no test conversations in {}: write native JSONL conversations whose events carry `expect` (docs/language.md, \"Testing a bundle\")",
            shown.join(", ")
        )?;
    }
    writeln!(
        out,
        "test: {} file{}, {} conversation{} ({} run{}), {} expectation{} checked: {} passed, {} failed; {} error{}",
        totals.files,
        plural(totals.files),
        totals.conversations,
        plural(totals.conversations),
        totals.runs,
        plural(totals.runs),
        totals.checks,
        plural(totals.checks),
        totals.checks - totals.failed,
        totals.failed,
        totals.errors,
        plural(totals.errors),
    )?;
    Ok(totals)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One checked expectation, with what the gate said and why.
fn write_check(out: &mut impl Write, file: &Path, check: &Check) -> std::io::Result<()> {
    writeln!(
        out,
        "     {}:{}  event {} ({})  expected {}, observed {}",
        file.display(),
        check.line,
        check.event.0,
        check.kind,
        check.expected,
        check.observed.summary()
    )?;
    if check.passed {
        return Ok(());
    }
    for line in details(&check.observed) {
        writeln!(out, "        {line}")?;
    }
    Ok(())
}

/// The observed verdict's request, remediation and explanation, line by line.
pub fn details(observed: &Observed) -> Vec<String> {
    let shown = observed.deviations.first().unwrap_or(&observed.verdict);
    let mut lines = Vec::new();
    let show = |request: &BTreeMap<String, String>| {
        let parts: Vec<String> = request.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("request {{{}}}", parts.join(", "))
    };
    match shown {
        GateVerdict::Allow { request, .. } => lines.push(show(request)),
        GateVerdict::Block {
            request,
            remediation,
            explanation,
            ..
        } => {
            lines.push(show(request));
            if let Some(text) = remediation {
                lines.push(format!("remediation: {text}"));
            }
            lines.extend(
                explanation
                    .lines()
                    .filter(|l| !l.starts_with("event "))
                    .map(|l| l.trim_start().to_owned()),
            );
        }
        GateVerdict::Deviate {
            action,
            remediation,
            explanation,
            at,
            ..
        } => {
            lines.push(format!("{action} (event {})", at.0));
            if let Some(text) = remediation {
                lines.push(format!("remediation: {text}"));
            }
            lines.push(explanation.clone());
        }
        GateVerdict::Guide { guidance } => {
            for g in guidance {
                lines.push(format!("{} waits at {}", show(&g.request), g.step));
            }
        }
        _ => {}
    }
    lines
}
