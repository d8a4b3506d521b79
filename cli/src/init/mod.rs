//! `turnstile init <dir> --tools <file>`: a new bundle from tool
//! definitions that already exist (OpenAI function schemas, an MCP
//! `tools/list` result, tau2's `tools.json`). It writes every tool with its
//! parameters and types, a guess at what each tool does, one flow stub per
//! agent write tool, a placeholder policy and an empty `tests/`; every guess
//! is marked `# REVIEW:`, which `turnstile check` reports until the comment
//! is deleted. The result is compiled before `init` reports success, so a
//! bundle it writes always passes `check`. An existing non-empty directory
//! is left alone unless `--force`.

mod guess;
mod render;
mod schemas;

use std::path::{Path, PathBuf};

use clap::Args;

pub use schemas::SchemaFormat;

/// The flags of `turnstile init`.
#[derive(Args, Clone, Debug)]
pub struct InitArgs {
    /// The bundle directory to create.
    pub dir: PathBuf,
    /// The tool definitions: OpenAI function schemas, an MCP tools/list
    /// result or tau2's tools.json (JSON).
    #[arg(long)]
    pub tools: PathBuf,
    /// The format of --tools (detected from its shape by default).
    #[arg(long, value_enum)]
    pub format: Option<SchemaFormat>,
    /// With tau2's tools.json: the domain whose tools to take.
    #[arg(long)]
    pub domain: Option<String>,
    /// The bundle's name (default: the directory's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Write into a directory that is not empty, replacing the files init
    /// writes (others are left as they are).
    #[arg(long)]
    pub force: bool,
}

/// Why `init` wrote nothing, or what went wrong writing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error(transparent)]
    Schema(#[from] schemas::SchemaError),
    #[error(
        "{0} exists and is not empty; choose a new directory, or pass --force to write over the files init writes"
    )]
    NotEmpty(String),
    #[error("{0} exists and is not a directory")]
    NotADirectory(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the bundle written to {dir} does not pass check (a bug in init; please report it):\n{problems}"
    )]
    Invalid { dir: String, problems: String },
}

/// What `init` wrote.
#[derive(Debug)]
pub struct Written {
    pub tools: usize,
    pub reads: usize,
    pub writes: usize,
    pub flows: usize,
    pub warnings: usize,
    /// The cursor of a paged MCP result: the tools of later pages are missing.
    pub next_cursor: Option<String>,
}

/// Runs `init`.
pub fn run(args: &InitArgs) -> Result<Written, InitError> {
    let (tools, cursor) = schemas::read(&args.tools, args.format, args.domain.as_deref())?;
    prepare(&args.dir, args.force)?;
    let name = args.name.clone().unwrap_or_else(|| default_name(&args.dir));
    let decided = render::decide(&tools);
    let files = render::bundle(
        &name,
        &source_name(&args.tools, args.domain.as_deref()),
        &decided,
    );
    for file in &files {
        let path = args.dir.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| write_error(parent, source))?;
        }
        std::fs::write(&path, &file.text).map_err(|source| write_error(&path, source))?;
    }
    let tests = args.dir.join("tests");
    std::fs::create_dir_all(&tests).map_err(|source| write_error(&tests, source))?;
    let compiled =
        turnstile_engine::check_bundle(&args.dir).map_err(|problems| InitError::Invalid {
            dir: args.dir.display().to_string(),
            problems: problems.to_string(),
        })?;
    let count = |kind| decided.iter().filter(|t| t.kind.kind == kind).count();
    Ok(Written {
        tools: decided.len(),
        reads: count(schemas::DeclaredKind::Read),
        writes: count(schemas::DeclaredKind::Write),
        flows: decided.iter().filter(|t| t.request.is_some()).count(),
        warnings: compiled.warnings.len(),
        next_cursor: cursor,
    })
}

fn write_error(path: &Path, source: std::io::Error) -> InitError {
    InitError::Write {
        path: path.display().to_string(),
        source,
    }
}

/// Refuses a non-empty directory (unless forced); creates a missing one.
fn prepare(dir: &Path, force: bool) -> Result<(), InitError> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() && !force {
                return Err(InitError::NotEmpty(dir.display().to_string()));
            }
            Ok(())
        }
        Err(_) if dir.exists() => Err(InitError::NotADirectory(dir.display().to_string())),
        Err(_) => std::fs::create_dir_all(dir).map_err(|source| write_error(dir, source)),
    }
}

/// The directory's name, as a bundle name: lower case, words joined by `-`.
fn default_name(dir: &Path) -> String {
    let raw = dir
        .canonicalize()
        .ok()
        .as_deref()
        .and_then(Path::file_name)
        .or_else(|| dir.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let words = guess::words(&raw);
    if words.is_empty() {
        "new-bundle".to_owned()
    } else {
        words.join("-")
    }
}

/// How the source is named in the files' comments: its file name (and the
/// tau2 domain).
fn source_name(tools: &Path, domain: Option<&str>) -> String {
    let file = tools
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| tools.display().to_string());
    match domain {
        Some(domain) => format!("{file} (domain {domain})"),
        None => file,
    }
}
