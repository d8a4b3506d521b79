//! `turnstile`: the command-line front end. Each subcommand is a thin wrapper
//! over the engine; this file owns argument parsing, output formats and exit
//! codes (0 success, 1 the input has problems, 2 usage errors).

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use turnstile_engine::session::{BundleRuntime, Enforcement, Explainer, Schedule};
use turnstile_engine::{
    BundleFile, GraphFormat, GraphOptions, bundle_schema, flow_instances, render_graph_with,
};
use turnstile_engine::{CompiledBundle, ProblemKind, Problems, check_bundle};

mod audit;
mod coverage;
mod diff;
mod gate;
mod init;
mod judge_args;
mod mcp;
mod replay;
mod serve;
mod test;

use judge_args::JudgeArgs;

#[derive(Parser)]
#[command(
    name = "turnstile",
    version,
    about = "Deterministic policy-workflow engine for tool-using LLM agents"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load, type-check and validate a bundle; print every problem found.
    Check {
        /// The bundle directory (or its bundle.yaml).
        bundle: PathBuf,
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
    },
    /// Render a bundle's compiled workflow graph.
    Graph {
        bundle: PathBuf,
        /// `svg` and `png` run Graphviz's `dot`, which must be installed.
        #[arg(long, value_enum, default_value_t = GraphArg::Dot)]
        format: GraphArg,
        /// Show checks, guards and judge questions (whole, wrapped) on the
        /// nodes and branches, not only in the tooltips.
        #[arg(long)]
        detail: bool,
        /// Draw one flow only, each subflow it invokes as a single box:
        /// `main`, or a subflow instance such as `mobile_data` or
        /// `mobile_data.service` (an unknown name lists them).
        #[arg(long)]
        flow: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Print the JSON Schema of one kind of bundle file, a document of its
    /// own for an editor (`# yaml-language-server: $schema=<file>`); with
    /// `--dir`, write all three (`manifest.schema.json`,
    /// `domain.schema.json`, `flow.schema.json`).
    Schema {
        /// `manifest` (bundle.yaml), `domain` (domain.yaml) or `flow`
        /// (flows/*.yaml).
        #[arg(value_enum, required_unless_present = "dir")]
        file: Option<SchemaArg>,
        /// Write every kind's schema into this directory instead.
        #[arg(long, conflicts_with = "file")]
        dir: Option<PathBuf>,
        /// Write to this file instead of standard output.
        #[arg(short, long, conflicts_with = "dir")]
        output: Option<PathBuf>,
    },
    /// Replay recorded traces event by event: each request's cursor, the
    /// verdict and the remediation at every event.
    Replay {
        bundle: PathBuf,
        /// A tau2-bench results file, OpenAI chat messages, tau-bench
        /// trajectories or native JSONL (detected).
        traces: PathBuf,
        /// When the gate fires; `all` replays under each and reports which
        /// deviations each schedule caught and missed.
        #[arg(long, value_enum, default_value_t = ScheduleArg::Workflow)]
        schedule: ScheduleArg,
        #[command(flatten)]
        judge: JudgeArgs,
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        /// Only the trace with this id or task id.
        #[arg(long)]
        trace: Option<String>,
        /// Totals per trace only, no per-event table.
        #[arg(long)]
        summary: bool,
        /// What explains a block: `monitor`, the live gate's incremental
        /// explanation, or `datalog`, the reference program re-run over the
        /// trace so far (the same first unmet step and reason; slower).
        #[arg(long, value_enum, default_value_t = ExplainArg::Monitor)]
        explain: ExplainArg,
        /// The time events are decided at when the trace records none
        /// (`2024-05-15T15:00:00`): a bundle reading `now()` on an `event`
        /// or `system` clock needs one or the other.
        #[arg(long, value_parser = parse_now)]
        now: Option<turnstile_rules::DateTime>,
    },
    /// Intervention coverage: the reachable first deviations of the bundle's
    /// workflow and which the schedule covers, by node and event kind.
    Coverage {
        bundle: PathBuf,
        /// The firing schedule; `all` reports each.
        #[arg(long, value_enum, default_value_t = ScheduleArg::Workflow)]
        schedule: ScheduleArg,
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        /// Write each deviation's witness here: a native JSONL trace and its
        /// recorded verdicts, replayable with `--judge recorded:`.
        #[arg(long)]
        witnesses: Option<PathBuf>,
        /// With --witnesses: build at most N witnesses, spread evenly over
        /// the (selected) deviations.
        #[arg(long, value_name = "N", requires = "witnesses")]
        witness_limit: Option<usize>,
        /// With --witnesses: only the deviations at this node, or under this
        /// flow or decision (`mms.service`, `classify`).
        #[arg(long, value_name = "NODE", requires = "witnesses")]
        witness_node: Option<String>,
        /// Who calls the device (user-side) tools: `dual` (the user) or
        /// `solo` (the agent); default the bundle's `control`.
        #[arg(long, value_enum)]
        control: Option<coverage::ControlArg>,
    },
    /// Audit a corpus of recorded conversations: per trace the verdict
    /// (compliant, violation, unverified), the first deviation and the trace
    /// metrics; a summary per file, agent model and domain. Exit 0: all read
    /// and audited; 3: records rejected; 4: violations with
    /// --fail-on-violation.
    Audit(Box<audit::AuditArgs>),
    /// Generate a large corpus by re-sampling and perturbing real traces
    /// (ids, values, interleavings), as native JSONL for `audit`.
    Synth(audit::SynthArgs),
    /// Write a new bundle from existing tool definitions (OpenAI function
    /// schemas, an MCP tools/list result, tau2's tools.json): every tool,
    /// a flow stub per write tool, each guess marked `# REVIEW:`.
    Init(init::InitArgs),
    /// Replay a bundle's test conversations (its tests/ directory) and check
    /// every `expect`; exit 1 on any mismatch or malformed test.
    Test(Box<test::TestArgs>),
    /// The calls whose verdict changes between two versions of a bundle,
    /// over a corpus of traces (table, json or html). Exit 0, 3 records
    /// rejected, 4 verdicts changed with --fail-on-change.
    Diff(Box<diff::DiffArgs>),
    /// Convert traces (tau2, OpenAI chat, tau-bench, native) to native JSONL.
    Convert {
        traces: PathBuf,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Only these trace ids or task ids (repeatable).
        #[arg(long = "trace")]
        only: Vec<String>,
    },
    /// The live gate: native JSONL events on stdin, one JSON verdict per line
    /// on stdout; sessions survive restarts in the --state store.
    Gate {
        bundle: PathBuf,
        /// The session store, an SQLite file (created if missing).
        #[arg(long)]
        state: PathBuf,
        /// The session to write (restored if stored); a `{"type":"trace"}`
        /// header line starts a new one.
        #[arg(long, default_value = gate::DEFAULT_SESSION)]
        session: String,
        #[arg(long, value_enum, default_value_t = ScheduleArg::Workflow)]
        schedule: ScheduleArg,
        /// Longest input line in bytes; longer lines are answered `block`.
        #[arg(long, default_value_t = gate::DEFAULT_MAX_LINE)]
        max_line: usize,
        #[arg(long, value_enum, default_value_t = SyncArg::Full)]
        sync: SyncArg,
        /// Fixes a `system` clock at this time (`2024-05-15T15:00:00`), for
        /// tests; an `event` clock takes it for events before any carries
        /// its own `at`.
        /// `enforce` answers verdicts as decided; `shadow` records them and
        /// answers every write `allow` (`enforced: false`, with the verdict
        /// enforcement would give under `would`).
        #[arg(long, default_value = "enforce")]
        mode: Enforcement,
        #[arg(long, value_parser = parse_now)]
        now: Option<turnstile_rules::DateTime>,
        #[command(flatten)]
        judge: JudgeArgs,
    },
    /// A fail-closed MCP gateway in front of an MCP server: its tools, each
    /// call gated by the bundle; a refused call never reaches the server.
    /// The server is the command after `--` (stdio), or --upstream URL.
    Mcp {
        #[arg(long)]
        bundle: PathBuf,
        /// The session store, an SQLite file (created if missing).
        #[arg(long)]
        store: PathBuf,
        /// The conversation of a stdio gateway (restored if stored); over
        /// HTTP each MCP session is its own.
        #[arg(long, default_value = mcp::DEFAULT_SESSION)]
        session: String,
        #[arg(long, value_enum, default_value_t = ScheduleArg::Workflow)]
        schedule: ScheduleArg,
        /// Serve streamable HTTP at http://ADDR/mcp instead of stdio.
        #[arg(long)]
        listen: Option<std::net::SocketAddr>,
        /// The guarded server's streamable HTTP endpoint.
        #[arg(long, conflicts_with = "command")]
        upstream: Option<String>,
        /// List and pass the tools the bundle does not declare, ungated.
        #[arg(long)]
        pass_undeclared: bool,
        /// Take the host's events at ADDR (HTTP, bearer token): the user's and
        /// agent's messages, and approvals the host asked the user for.
        #[arg(long, requires = "token_file")]
        side_channel: Option<std::net::SocketAddr>,
        /// A file holding the side channel's bearer token.
        #[arg(long)]
        token_file: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = SyncArg::Full)]
        sync: SyncArg,
        #[command(flatten)]
        judge: JudgeArgs,
        /// The guarded server's command and arguments, after `--`.
        #[arg(last = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// The HTTP sidecar: sessions over a JSON API (OpenAPI at /openapi.json).
    Serve {
        /// A directory whose subdirectories with a bundle.yaml are served,
        /// by directory name.
        #[arg(long)]
        bundles: PathBuf,
        /// Address to listen on (port 0: any free port, printed at start).
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        /// The session store, an SQLite file (created if missing).
        #[arg(long)]
        store: PathBuf,
        /// A file holding a bearer token every request must carry.
        #[arg(long)]
        token_file: Option<PathBuf>,
        /// Largest request body in bytes.
        #[arg(long, default_value_t = gate::DEFAULT_MAX_LINE)]
        max_body: usize,
        /// Longest time a request may take, in milliseconds.
        #[arg(long, default_value_t = 30_000)]
        timeout_ms: u64,
        #[arg(long, value_enum, default_value_t = SyncArg::Full)]
        sync: SyncArg,
        /// A session unused this long (milliseconds) is dropped from memory;
        /// its next event restores it from the store.
        #[arg(long, default_value_t = 300_000)]
        idle_ms: u64,
        /// Sessions kept in memory at most (the least recently used idle
        /// ones are dropped first).
        #[arg(long, default_value_t = 10_000)]
        max_live: usize,
        /// Fixes a `system` clock at this time (`2024-05-15T15:00:00`), for
        /// tests; an `event` clock takes it for events before any carries
        /// its own `at`.
        /// `enforce` answers verdicts as decided; `shadow` records them and
        /// answers every write `allow` (`enforced: false`, with the verdict
        /// enforcement would give under `would`).
        #[arg(long, default_value = "enforce")]
        mode: Enforcement,
        #[arg(long, value_parser = parse_now)]
        now: Option<turnstile_rules::DateTime>,
        #[command(flatten)]
        judge: JudgeArgs,
    },
}

/// Which bundle file's schema `turnstile schema` prints.
#[derive(Clone, Copy, ValueEnum)]
enum SchemaArg {
    /// `bundle.yaml`.
    Manifest,
    /// The domain file.
    Domain,
    /// A flow file.
    Flow,
}

impl From<SchemaArg> for BundleFile {
    fn from(arg: SchemaArg) -> Self {
        match arg {
            SchemaArg::Manifest => BundleFile::Manifest,
            SchemaArg::Domain => BundleFile::Domain,
            SchemaArg::Flow => BundleFile::Flow,
        }
    }
}

/// Writes `<kind>.schema.json` for every kind of bundle file into `dir`.
fn write_schemas(dir: &std::path::Path) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for file in BundleFile::ALL {
        let path = dir.join(format!("{}.schema.json", file.name()));
        let code = emit(&format!("{:#}\n", bundle_schema(file)), Some(path));
        if code != ExitCode::SUCCESS {
            return code;
        }
    }
    ExitCode::SUCCESS
}

/// A `--now` value: an ISO date and time (a bare date is midnight).
pub(crate) fn parse_now(text: &str) -> Result<turnstile_rules::DateTime, String> {
    turnstile_rules::DateTime::parse(text).map_err(|e| e.to_string())
}

/// How hard each commit of the session store waits for the disk.
#[derive(Clone, Copy, ValueEnum)]
enum SyncArg {
    /// Every verdict is on disk before it is answered (survives power loss).
    Full,
    /// Survives a crash of the process; the last verdicts may be lost on
    /// power loss. Cheaper per event (see BENCHMARKS.md).
    Normal,
}

impl SyncArg {
    fn durability(self) -> turnstile_store::Durability {
        match self {
            SyncArg::Full => turnstile_store::Durability::Full,
            SyncArg::Normal => turnstile_store::Durability::Normal,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ScheduleArg {
    /// Before every agent event (the hard gate).
    Workflow,
    /// At user-turn boundaries, and once after a block.
    Boundary,
    /// Only on mutating calls.
    Action,
    /// Each of the three (replay only).
    All,
}

impl ScheduleArg {
    /// The one schedule a live gate runs under (`None` for `all`).
    fn single(self) -> Option<Schedule> {
        match self.schedules().as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    fn schedules(self) -> Vec<Schedule> {
        match self {
            ScheduleArg::Workflow => vec![Schedule::Workflow],
            ScheduleArg::Boundary => vec![Schedule::Boundary],
            ScheduleArg::Action => vec![Schedule::Action],
            ScheduleArg::All => Schedule::ALL.to_vec(),
        }
    }
}

/// `replay --explain`: [`Explainer`] on the command line.
#[derive(Clone, Copy, ValueEnum)]
enum ExplainArg {
    /// The monitor's own state (what the live gate uses).
    Monitor,
    /// The reference Datalog program.
    Datalog,
}

impl From<ExplainArg> for Explainer {
    fn from(arg: ExplainArg) -> Explainer {
        match arg {
            ExplainArg::Monitor => Explainer::Monitor,
            ExplainArg::Datalog => Explainer::Datalog,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphArg {
    Dot,
    Mermaid,
    Json,
    Svg,
    Png,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { bundle, format } => check(&bundle, format),
        Command::Graph {
            bundle,
            format,
            detail,
            flow,
            output,
        } => graph(&bundle, format, detail, flow, output),
        Command::Schema { file, dir, output } => match (file, dir) {
            (Some(file), _) => emit(&format!("{:#}\n", bundle_schema(file.into())), output),
            (None, Some(dir)) => write_schemas(&dir),
            (None, None) => ExitCode::from(2),
        },
        Command::Replay {
            bundle,
            traces,
            schedule,
            judge,
            format,
            trace,
            summary,
            explain,
            now,
        } => {
            let options = replay::ReplayOptions {
                schedules: schedule.schedules(),
                json: matches!(format, ReportFormat::Json),
                only: trace,
                summary,
                explainer: explain.into(),
                now,
            };
            with_runtime(&bundle, &judge, |rt, judge| {
                replay::run(&rt, &traces, &judge, &options).map(|clean| {
                    if clean {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                })
            })
        }
        Command::Coverage {
            bundle,
            schedule,
            format,
            witnesses,
            witness_limit,
            witness_node,
            control,
        } => {
            let options = coverage::CoverageOptions {
                schedules: schedule.schedules(),
                json: matches!(format, ReportFormat::Json),
                witnesses,
                witness_limit,
                witness_node,
                control: control.map(Into::into),
            };
            let compiled = match check_bundle(&bundle) {
                Ok(b) => b,
                Err(problems) => return report_problems(&bundle, &problems),
            };
            match BundleRuntime::new(Arc::new(compiled))
                .map_err(|e| e.to_string())
                .and_then(|rt| coverage::run(&rt, &options))
            {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Audit(args) => {
            let bundle = match check_bundle(&args.bundle) {
                Ok(b) => b,
                Err(problems) => return report_problems(&args.bundle, &problems),
            };
            let rt = match BundleRuntime::new(Arc::new(bundle)) {
                Ok(rt) => rt,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            match audit::main(&args, rt) {
                Ok(code) => ExitCode::from(code),
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Synth(args) => match audit::synth(&args) {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Diff(args) => {
            let (old, new) = match (load_runtime(&args.old), load_runtime(&args.new)) {
                (Ok(old), Ok(new)) => (old, new),
                (Err(code), _) | (_, Err(code)) => return code,
            };
            match diff::main(&args, old, new) {
                Ok(code) => ExitCode::from(code),
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Init(args) => match init::run(&args) {
            Ok(written) => {
                println!(
                    "wrote {}: {} tools ({} read, {} write), {} flow stubs, an empty tests/; it passes `turnstile check` with {} spots marked for review",
                    args.dir.display(),
                    written.tools,
                    written.reads,
                    written.writes,
                    written.flows,
                    written.warnings
                );
                if let Some(cursor) = &written.next_cursor {
                    eprintln!(
                        "warning: {} is one page of tools/list (nextCursor {cursor:?}): the tools of later pages are not in the bundle; list them all and run init again with --force",
                        args.tools.display()
                    );
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Test(args) => with_runtime(&args.bundle, &args.judge, |rt, judge| {
            test::run(&rt, judge, &args).map(|passed| {
                if passed {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            })
        }),
        Command::Convert {
            traces,
            output,
            only,
        } => convert(&traces, output.as_deref(), &only),
        Command::Gate {
            bundle,
            state,
            session,
            schedule,
            max_line,
            sync,
            mode,
            now,
            judge,
        } => {
            let Some(schedule) = schedule.single() else {
                eprintln!("error: the gate runs under one schedule, not `all`");
                return ExitCode::from(2);
            };
            let options = gate::GateOptions {
                state,
                session: Some(session),
                schedule,
                max_line,
                durability: sync.durability(),
                mode,
                now,
            };
            with_runtime(&bundle, &judge, |rt, judge| {
                gate::run(rt, &options, &judge).map(|()| ExitCode::SUCCESS)
            })
        }
        Command::Mcp {
            bundle,
            store,
            session,
            schedule,
            listen,
            upstream,
            pass_undeclared,
            side_channel,
            token_file,
            sync,
            judge,
            command,
        } => {
            let Some(schedule) = schedule.single() else {
                eprintln!("error: the gateway runs under one schedule, not `all`");
                return ExitCode::from(2);
            };
            let upstream = match upstream {
                Some(url) => mcp::Upstream::Url(url),
                None if command.is_empty() => {
                    eprintln!("error: give the server's command after `--`, or --upstream URL");
                    return ExitCode::from(2);
                }
                None => mcp::Upstream::Command(command),
            };
            let options = mcp::McpOptions {
                store,
                durability: sync.durability(),
                schedule,
                session,
                listen,
                upstream,
                pass_undeclared,
                side_channel,
                token_file,
            };
            // The judge stack as built: the gateway's runtime is the MCP
            // transports', and a model judge is awaited on it.
            with_judge(
                &bundle,
                |bundle| judge.build(&[bundle]),
                |rt, judge| {
                    mcp::run(rt, options, judge)
                        .map(|()| ExitCode::SUCCESS)
                        .map_err(|e| e.to_string())
                },
            )
        }
        Command::Serve {
            bundles,
            listen,
            store,
            token_file,
            max_body,
            timeout_ms,
            sync,
            idle_ms,
            max_live,
            mode,
            now,
            judge,
        } => {
            let options = serve::ServeOptions {
                bundles,
                listen,
                store,
                token_file,
                max_body,
                timeout: std::time::Duration::from_millis(timeout_ms),
                durability: sync.durability(),
                idle: std::time::Duration::from_millis(idle_ms),
                max_live,
                mode,
                now,
            };
            match serve::run(&options, |bundles| {
                judge.build(bundles).map(|j| j.into_async())
            }) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// Streams every trace of `path` to native JSONL; import errors go to
/// standard error and make the exit code 1.
fn convert(path: &std::path::Path, output: Option<&std::path::Path>, only: &[String]) -> ExitCode {
    use std::ops::ControlFlow;
    use turnstile_engine::import::{for_each_trace, native::write_native};
    let sink: Box<dyn Write> = match output {
        Some(file) => match std::fs::File::create(file) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        },
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut sink = sink;
    let mut clean = true;
    let mut write_error = None;
    let result = for_each_trace(path, None, |item| match item {
        Ok(trace) => {
            let wanted = only.is_empty()
                || only.iter().any(|id| {
                    trace.meta.id == *id || trace.meta.task_id.as_deref() == Some(id.as_str())
                });
            if wanted && let Err(e) = write_native(&mut sink, &trace) {
                write_error = Some(e);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
        Err(e) => {
            eprintln!("error: {e}");
            clean = false;
            ControlFlow::Continue(())
        }
    });
    if let Err(e) = result {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    if let Some(e) = write_error.or_else(|| sink.flush().err()) {
        eprintln!("error: cannot write the converted traces: {e}");
        return ExitCode::FAILURE;
    }
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Compiles the bundle and builds the judge, then runs `f`; every failure is
/// reported on standard error.
fn with_runtime(
    path: &std::path::Path,
    judge: &JudgeArgs,
    f: impl FnOnce(Arc<BundleRuntime>, judge_args::Judging) -> Result<ExitCode, String>,
) -> ExitCode {
    with_judge(path, |bundle| judge.judging(&[bundle]), f)
}

/// [`with_runtime`] with the judge made by `judge` from the compiled
/// bundle (a problem with it exits 2).
fn with_judge<J>(
    path: &std::path::Path,
    judge: impl FnOnce(&turnstile_engine::CompiledBundle) -> Result<J, String>,
    f: impl FnOnce(Arc<BundleRuntime>, J) -> Result<ExitCode, String>,
) -> ExitCode {
    let rt = match load_runtime(path) {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let judge = match judge(&rt.bundle) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    f(rt, judge).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    })
}

/// Compiles the bundle at `path` into a runtime; its problems are reported
/// on standard error.
fn load_runtime(path: &std::path::Path) -> Result<Arc<BundleRuntime>, ExitCode> {
    let bundle = check_bundle(path).map_err(|problems| report_problems(path, &problems))?;
    BundleRuntime::new(Arc::new(bundle)).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    })
}

/// A single-threaded async runtime for a model judge: the only judge a
/// command outside `serve` awaits.
fn model_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

fn check(path: &std::path::Path, format: ReportFormat) -> ExitCode {
    let result = check_bundle(path);
    match format {
        ReportFormat::Human => match &result {
            Ok(bundle) => {
                report_warnings(&bundle.warnings);
                println!("{}", summary(bundle));
                ExitCode::SUCCESS
            }
            Err(problems) => report_problems(path, problems),
        },
        ReportFormat::Json => {
            let value = match &result {
                Ok(bundle) => serde_json::json!({
                    "valid": true,
                    "bundle": bundle.name,
                    "hash": bundle.hash,
                    "problems": [],
                    "warnings": problems_json(&bundle.warnings),
                }),
                Err(problems) => serde_json::json!({
                    "valid": false,
                    "problems": problems_json(problems),
                }),
            };
            println!("{value:#}");
            if result.is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

fn problems_json(problems: &Problems) -> Vec<serde_json::Value> {
    problems
        .iter()
        .map(|p| {
            serde_json::json!({
                "code": p.kind.code(),
                "message": p.message,
                "file": p.file,
                "line": p.line,
                "column": p.column,
                "help": p.help,
            })
        })
        .collect()
}

/// Prints each warning (a spot marked for review, a confirmation naming no
/// action word, an alternative beside a consent that reads less of the
/// call) on standard error, then how many of each kind.
fn report_warnings(warnings: &Problems) {
    let mut stderr = std::io::stderr().lock();
    for warning in warnings.iter() {
        let report = miette::Report::new(warning.clone());
        let _ = writeln!(stderr, "{report:?}");
    }
    if warnings.is_empty() {
        return;
    }
    let count = |kind: ProblemKind| warnings.iter().filter(|w| w.kind == kind).count();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let kinds: Vec<String> = [
        (
            ProblemKind::Unreviewed,
            format!(
                "marked `{}` not reviewed yet",
                turnstile_engine::REVIEW_MARKER
            ),
            "spot",
        ),
        (
            ProblemKind::SilentConfirmation,
            "naming no action word".to_owned(),
            "confirmation",
        ),
        (
            ProblemKind::FormalBesideConsent,
            "beside a consent reading less of the call".to_owned(),
            "alternative",
        ),
        (
            ProblemKind::ComputedInDialogue,
            "not looked for in the text".to_owned(),
            "computed value",
        ),
    ]
    .into_iter()
    .filter_map(|(kind, what, noun)| {
        let n = count(kind);
        (n > 0).then(|| format!("{n} {noun}{} {what}", plural(n)))
    })
    .collect();
    let _ = writeln!(
        stderr,
        "{} warning{}: {}",
        warnings.len(),
        plural(warnings.len()),
        kinds.join(", ")
    );
}

fn report_problems(path: &std::path::Path, problems: &Problems) -> ExitCode {
    let mut stderr = std::io::stderr().lock();
    for problem in problems.iter() {
        let report = miette::Report::new(problem.clone());
        let _ = writeln!(stderr, "{report:?}");
    }
    let _ = writeln!(
        stderr,
        "{}: {} problem{} found",
        path.display(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    ExitCode::FAILURE
}

fn summary(bundle: &CompiledBundle) -> String {
    let graph = &bundle.workflow.graph;
    let writes = bundle.domain.agent_writes().count();
    format!(
        "ok: bundle `{}` ({}): {} nodes, {} edges, {} formal checks, {} semantic criteria, {} tools ({} mutating: {} authorized, {} out of scope)",
        bundle.name,
        bundle.hash,
        graph.node_count(),
        graph.edge_count(),
        bundle.program.checks.len(),
        bundle.semantic.len(),
        bundle.domain.tools.len(),
        writes,
        writes - bundle.out_of_scope.len(),
        bundle.out_of_scope.len(),
    )
}

fn graph(
    path: &std::path::Path,
    format: GraphArg,
    detail: bool,
    flow: Option<String>,
    output: Option<PathBuf>,
) -> ExitCode {
    let bundle = match check_bundle(path) {
        Ok(b) => b,
        Err(problems) => return report_problems(path, &problems),
    };
    let flow = flow.map(|f| if f == "main" { String::new() } else { f });
    if let Some(wanted) = &flow {
        let known = flow_instances(&bundle);
        if !known.contains(wanted) {
            let names: Vec<&str> = known
                .iter()
                .map(|n| if n.is_empty() { "main" } else { n.as_str() })
                .collect();
            eprintln!(
                "error: bundle `{}` has no flow `{wanted}`; its flows: {}",
                bundle.name,
                names.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    let options = GraphOptions { detail, flow };
    let (text_format, image) = match format {
        GraphArg::Dot => (GraphFormat::Dot, None),
        GraphArg::Mermaid => (GraphFormat::Mermaid, None),
        GraphArg::Json => (GraphFormat::Json, None),
        GraphArg::Svg => (GraphFormat::Dot, Some("svg")),
        GraphArg::Png => (GraphFormat::Dot, Some("png")),
    };
    let text = render_graph_with(&bundle, text_format, options);
    let Some(image) = image else {
        return emit(&text, output);
    };
    match run_graphviz(&text, image) {
        Ok(bytes) => emit_bytes(&bytes, output),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Renders DOT `text` to `image` (`svg`, `png`) with Graphviz's `dot`.
fn run_graphviz(text: &str, image: &str) -> Result<Vec<u8>, String> {
    use std::process::{Command, Stdio};
    let dot = std::env::var_os("TURNSTILE_DOT").unwrap_or_else(|| "dot".into());
    let mut child = Command::new(&dot)
        .arg(format!("-T{image}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "`--format {image}` needs Graphviz's `dot` ({}: {e}); install Graphviz (e.g. `apt install graphviz`), or write `--format dot` and render it elsewhere",
                std::path::Path::new(&dot).display()
            )
        })?;
    // Written from a thread: `dot` may fill its output pipe before it has
    // read all of its input.
    let mut stdin = child
        .stdin
        .take()
        .ok_or("cannot write to Graphviz's input")?;
    let input = text.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let finished = child
        .wait_with_output()
        .map_err(|e| format!("Graphviz failed: {e}"))?;
    let written = writer
        .join()
        .map_err(|_| "cannot write to Graphviz's input".to_owned())?;
    if !finished.status.success() {
        return Err(format!(
            "Graphviz failed ({}): {}",
            finished.status,
            String::from_utf8_lossy(&finished.stderr).trim()
        ));
    }
    written.map_err(|e| format!("cannot write to Graphviz's input: {e}"))?;
    Ok(finished.stdout)
}

fn emit_bytes(bytes: &[u8], output: Option<PathBuf>) -> ExitCode {
    let written = match &output {
        Some(file) => {
            std::fs::write(file, bytes).map_err(|e| format!("cannot write {}: {e}", file.display()))
        }
        None => std::io::stdout()
            .lock()
            .write_all(bytes)
            .map_err(|e| format!("cannot write to standard output: {e}")),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn emit(text: &str, output: Option<PathBuf>) -> ExitCode {
    emit_bytes(text.as_bytes(), output)
}
