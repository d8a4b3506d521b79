//! `turnstile`: the command-line front end. Each subcommand is a thin wrapper
//! over the engine; this file owns argument parsing, output formats and exit
//! codes (0 success, 1 the input has problems, 2 usage errors).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use turnstile_engine::render::{GraphFormat, bundle_schema, render};
use turnstile_engine::{CompiledBundle, Problems, check_bundle};

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
        #[arg(long, value_enum, default_value_t = GraphArg::Dot)]
        format: GraphArg,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Print the JSON Schema of bundle files (for editor completion).
    Schema,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { bundle, format } => check(&bundle, format),
        Command::Graph {
            bundle,
            format,
            output,
        } => graph(&bundle, format, output),
        Command::Schema => emit(&format!("{:#}\n", bundle_schema()), None),
    }
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

fn graph(path: &std::path::Path, format: GraphArg, output: Option<PathBuf>) -> ExitCode {
    let bundle = match check_bundle(path) {
        Ok(b) => b,
        Err(problems) => return report_problems(path, &problems),
    };
    let format = match format {
        GraphArg::Dot => GraphFormat::Dot,
        GraphArg::Mermaid => GraphFormat::Mermaid,
        GraphArg::Json => GraphFormat::Json,
    };
    emit(&render(&bundle, format), output)
}

fn emit(text: &str, output: Option<PathBuf>) -> ExitCode {
    let written = match &output {
        Some(file) => {
            std::fs::write(file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))
        }
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
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
