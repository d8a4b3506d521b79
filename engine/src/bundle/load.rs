//! Reads a bundle directory: size limits, UTF-8 validation and YAML parsing
//! under a parser budget, so hostile or broken files produce located
//! diagnostics instead of exhausting memory or panicking.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_saphyr::{Budget, Options};

use crate::bundle::identity::{BundleIdentity, IdentityFiles};
use crate::bundle::model::{DomainFile, FlowDef, Manifest};
use crate::diag::{ProblemKind, Problems, RawProblem};
use crate::source::{FileId, Loc, SourceMap, offset_of};

/// No bundle file legitimately comes near this; larger inputs are refused
/// before they are read.
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// The manifest's file name inside a bundle directory.
pub const MANIFEST: &str = "bundle.yaml";

/// A bundle read from disk, not yet checked.
#[derive(Debug)]
pub struct LoadedBundle {
    /// Every file read, so diagnostics can quote their lines.
    pub(crate) sources: SourceMap,
    /// The manifest and its file.
    pub(crate) manifest: (FileId, Manifest),
    /// The domain schema file.
    pub(crate) domain: (FileId, DomainFile),
    /// Every flow file, in manifest order.
    pub(crate) flows: Vec<(FileId, FlowDef)>,
    /// Every file a node `cites`, by the path written, with its number of
    /// lines (`None` when it cannot be read), so citations can be checked.
    pub(crate) cited: BTreeMap<String, Option<usize>>,
    /// The bundle's content id (and the ids earlier builds gave it).
    pub(crate) identity: BundleIdentity,
}

/// Loads the bundle in `dir` (or the manifest file `dir` names). Reports every
/// file's problems, not just the first file's.
pub fn load(dir: &Path) -> Result<LoadedBundle, Problems> {
    let (dir, manifest_name) = if dir.is_file() {
        let parent = dir.parent().unwrap_or(Path::new(".")).to_path_buf();
        let name = dir
            .file_name()
            .map_or_else(|| MANIFEST.to_owned(), |n| n.to_string_lossy().into_owned());
        (parent, name)
    } else {
        (dir.to_path_buf(), MANIFEST.to_owned())
    };
    let mut loader = Loader {
        root: dir.clone(),
        sources: SourceMap::default(),
        problems: Vec::new(),
        identity: IdentityFiles::default(),
    };
    let Some(manifest) = loader.parse::<Manifest>(&manifest_name) else {
        return Err(loader.finish());
    };
    let domain = loader.parse::<DomainFile>(manifest.1.domain.value());
    let flow_paths: Vec<String> = manifest.1.flows.iter().map(|f| f.value().clone()).collect();
    let flows: Vec<(FileId, FlowDef)> = flow_paths
        .iter()
        .filter_map(|p| loader.parse::<FlowDef>(p))
        .collect();
    let protected_cites: Vec<String> = manifest
        .1
        .protected_reads
        .iter()
        .filter_map(|p| p.cites.as_ref())
        .flat_map(|c| c.to_vec())
        .collect();
    let cited = cited_files(&dir, &flows, protected_cites, &mut loader.identity);
    match domain {
        Some(domain) if loader.problems.is_empty() => Ok(LoadedBundle {
            identity: loader.identity.identity(&dir),
            sources: loader.sources,
            manifest,
            domain,
            flows,
            cited,
        }),
        _ => Err(loader.finish()),
    }
}

/// The file part of a citation (`policy.md` in `policy.md:7`).
pub(crate) fn cited_file(citation: &str) -> &str {
    citation.split_once(':').map_or(citation, |(file, _)| file)
}

/// Line counts of every file the flows cite, read under the same size limit
/// as bundle files; each one read is part of the bundle's identity.
fn cited_files(
    dir: &Path,
    flows: &[(FileId, FlowDef)],
    manifest_cites: Vec<String>,
    identity: &mut IdentityFiles,
) -> BTreeMap<String, Option<usize>> {
    let mut cited = BTreeMap::new();
    for citation in flows
        .iter()
        .flat_map(|(_, flow)| &flow.nodes)
        .filter_map(|node| node.cites.as_ref())
        .flat_map(|cites| cites.to_vec())
        .chain(manifest_cites)
    {
        let file = cited_file(&citation).to_owned();
        if cited.contains_key(&file) {
            continue;
        }
        let path = dir.join(&file);
        let lines = fs::metadata(&path)
            .ok()
            .filter(|meta| meta.is_file() && meta.len() <= MAX_FILE_BYTES)
            .and_then(|_| fs::read(&path).ok())
            .map(|bytes| {
                identity.add_cited(&file, &bytes);
                let text = String::from_utf8_lossy(&bytes);
                text.lines().count()
            });
        cited.insert(file, lines);
    }
    cited
}

struct Loader {
    root: PathBuf,
    sources: SourceMap,
    problems: Vec<RawProblem>,
    identity: IdentityFiles,
}

impl Loader {
    fn finish(self) -> Problems {
        Problems::from_raw(self.problems, &self.sources)
    }

    fn display(&self, path: &Path) -> String {
        let base = self.root.parent().unwrap_or(&self.root);
        path.strip_prefix(base)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Reads and parses the file at `written`, a path relative to the
    /// bundle directory.
    fn parse<T: DeserializeOwned>(&mut self, written: &str) -> Option<(FileId, T)> {
        let path = self.root.join(written);
        let (file, text) = self.read(&path)?;
        self.identity.add(written, text.as_bytes());
        match serde_saphyr::from_str_with_options::<T>(&text, yaml_options()) {
            Ok(value) => Some((file, value)),
            Err(err) => {
                self.problems.push(yaml_problem(&err, file, &text));
                None
            }
        }
    }

    fn read(&mut self, path: &Path) -> Option<(FileId, String)> {
        let display = self.display(path);
        let io_problem = |e: std::io::Error| {
            RawProblem::new(ProblemKind::Io, None, format!("cannot read {display}: {e}"))
                .help("check the path in bundle.yaml; paths are relative to the bundle directory")
        };
        let size = match fs::metadata(path) {
            Ok(meta) => meta.len(),
            Err(e) => {
                self.problems.push(io_problem(e));
                return None;
            }
        };
        if size > MAX_FILE_BYTES {
            self.problems.push(
                RawProblem::new(
                    ProblemKind::FileTooLarge,
                    None,
                    format!(
                        "{display} is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for a bundle file"
                    ),
                )
                .help("split the bundle into several flow files; nothing legitimate is this large"),
            );
            return None;
        }
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                self.problems.push(io_problem(e));
                return None;
            }
        };
        match String::from_utf8(bytes) {
            Ok(text) => {
                let file = self.sources.add(display, text.clone());
                Some((file, text))
            }
            Err(err) => {
                let valid = err.utf8_error().valid_up_to();
                let lossy = String::from_utf8_lossy(err.as_bytes()).into_owned();
                let file = self.sources.add(display, lossy);
                self.problems.push(
                    RawProblem::new(
                        ProblemKind::NotUtf8,
                        Some(Loc {
                            file,
                            offset: valid,
                            len: 1,
                        }),
                        "the file is not valid UTF-8",
                    )
                    .label("invalid byte here")
                    .help("save the file as UTF-8"),
                );
                None
            }
        }
    }
}

fn yaml_options() -> Options {
    let mut budget = Budget::default();
    // Bundles are small hand-written documents; these caps stop alias bombs
    // and pathological nesting long before they cost memory.
    budget.max_events = 400_000;
    budget.max_aliases = 1_000;
    budget.max_anchors = 1_000;
    budget.max_nodes = 200_000;
    budget.max_depth = 48;
    budget.max_documents = 1;
    budget.max_total_scalar_bytes = 4 * 1024 * 1024;
    let mut options = Options::default();
    options.budget = Some(budget);
    options.with_snippet = false;
    options.alias_limits.max_total_replayed_events = 20_000;
    options.alias_limits.max_alias_expansions_per_anchor = 100;
    options
}

fn yaml_problem(err: &serde_saphyr::Error, file: FileId, text: &str) -> RawProblem {
    let text_says_budget = {
        let m = err.to_string();
        m.contains("limit exceeded") || m.contains("budget")
    };
    let budget = text_says_budget
        || matches!(
            err,
            serde_saphyr::Error::Budget { .. }
                | serde_saphyr::Error::AliasReplayLimitExceeded { .. }
                | serde_saphyr::Error::AliasExpansionLimitExceeded { .. }
                | serde_saphyr::Error::AliasReplayStackDepthExceeded { .. }
                | serde_saphyr::Error::AliasReplayCounterOverflow { .. }
        );
    let loc = err.location().and_then(|l| {
        let (line, column) = (
            usize::try_from(l.line()).ok()?,
            usize::try_from(l.column()).ok()?,
        );
        (line > 0).then(|| Loc {
            file,
            offset: offset_of(text, line, column.max(1)),
            len: 1,
        })
    });
    let message = strip_location_suffix(&err.to_string());
    if budget {
        RawProblem::new(ProblemKind::YamlBudget, loc, message)
            .label("parser budget exceeded here")
            .help("the document is too large or uses too many aliases (a YAML bomb?); bundles need neither")
    } else {
        RawProblem::new(ProblemKind::Yaml, loc, message)
            .label("here")
            .help("see the file's JSON Schema (`turnstile schema manifest|domain|flow`) for the expected shape")
    }
}

/// serde-saphyr appends " at line L column C"; the diagnostic shows the
/// location itself.
fn strip_location_suffix(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
