//! `turnstile`: the command-line front end. Each subcommand is a thin wrapper
//! over the engine; this file owns argument parsing, output formats and exit
//! codes (0 success, 1 the input has problems, 2 usage errors).

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use turnstile_engine::session::{BundleRuntime, Explainer, Schedule};
use turnstile_engine::{CompiledBundle, Problems, check_bundle};
use turnstile_engine::{
    GraphFormat, GraphOptions, bundle_schema, flow_instances, render_graph_with,
};

mod audit;
mod coverage;
mod gate;
mod judge_args;
mod mcp;
mod replay;
mod serve;

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
        /// Show checks, guards and judge questions (abbreviated) on the
        /// nodes and branches, not only as tooltips.
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
    /// Print the JSON Schema of bundle files (for editor completion).
    Schema,
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
        /// Take the user's and agent's messages at ADDR (HTTP, bearer token).
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
        #[command(flatten)]
        judge: JudgeArgs,
    },
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
        Command::Schema => emit(&format!("{:#}\n", bundle_schema()), None),
        Command::Replay {
            bundle,
            traces,
            schedule,
            judge,
            format,
            trace,
            summary,
            explain,
        } => {
            let options = replay::ReplayOptions {
                schedules: schedule.schedules(),
                json: matches!(format, ReportFormat::Json),
                only: trace,
                summary,
                explainer: explain.into(),
            };
            with_runtime(&bundle, &judge, |rt, judge| {
                replay::run(&rt, &traces, judge, &options).map(|clean| {
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
            };
            with_runtime(&bundle, &judge, |rt, judge| {
                gate::run(rt, &options, judge).map(|()| ExitCode::SUCCESS)
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
            with_runtime(&bundle, &judge, |rt, judge| {
                mcp::run(rt, options, judge)
                    .map(|()| ExitCode::SUCCESS)
                    .map_err(|e| e.to_string())
            })
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
            judge,
        } => {
            let judge = match judge.build() {
                Ok(j) => j,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
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
            };
            match serve::run(&options, judge) {
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
    f: impl FnOnce(Arc<BundleRuntime>, Arc<dyn turnstile_judge::Judge>) -> Result<ExitCode, String>,
) -> ExitCode {
    let bundle = match check_bundle(path) {
        Ok(b) => b,
        Err(problems) => return report_problems(path, &problems),
    };
    let judge = match judge.build() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match BundleRuntime::new(Arc::new(bundle)) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    f(rt, judge).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    })
}

fn check(path: &std::path::Path, format: ReportFormat) -> ExitCode {
    let result = check_bundle(path);
    match format {
        ReportFormat::Human => match &result {
            Ok(bundle) => {
                println!("{}", summary(bundle));
                ExitCode::SUCCESS
            }
            Err(problems) => report_problems(path, problems),
        },
        ReportFormat::Json => {
            let value = match &result {
                Ok(bundle) => {
                    serde_json::json!({ "valid": true, "bundle": bundle.name, "hash": bundle.hash, "problems": [] })
                }
                Err(problems) => serde_json::json!({
                    "valid": false,
                    "problems": problems.iter().map(|p| serde_json::json!({
                        "code": p.kind.code(),
                        "message": p.message,
                        "file": p.file,
                        "line": p.line,
                        "column": p.column,
                        "help": p.help,
                    })).collect::<Vec<_>>(),
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
