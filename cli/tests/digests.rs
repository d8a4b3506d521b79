//! Every output a user sees, pinned by digest: the `turnstile` binary run on
//! every vendored tau2 trace file with its domain's bundle, and on every
//! shipped bundle, compared with `cli/tests/digests/outputs.tsv` (the
//! command, its exit code and the SHA-256 of its standard output; standard
//! error carries timings and is not compared). A refactor that changes no
//! behaviour leaves every digest as it is; a change of behaviour shows as
//! the list of outputs it moved, each with the command that reproduces it.
//!
//! The outputs:
//! - `replay`, human and `--format json`, of every trace file under each
//!   schedule (`workflow`, `boundary`, `action`, `all`);
//! - `audit --format json` and `--format csv` (with `--fail-on-violation`)
//!   per domain, with `--judge none` and `--judge offline`;
//! - `convert` of every trace file (native JSONL, one `trace` header per
//!   conversation), and that JSONL piped through `gate` on a fresh store
//!   under each schedule;
//! - `coverage --format json --schedule all` of every shipped bundle, and
//!   the same with `--witnesses` (each witness replayed through sessions).
//!
//! **Re-blessing** after an intended change of behaviour, from the
//! repository's root (review the diff of the file before committing it):
//!
//! ```text
//! TURNSTILE_BLESS_DIGESTS=1 cargo test -p turnstile-cli --test digests
//! ```
//!
//! The outputs run in parallel, one worker per core.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use sha2::{Digest, Sha256};

/// The digest file, relative to the repository's root.
const DIGESTS: &str = "cli/tests/digests/outputs.tsv";

/// Set to rewrite the digest file from this run's outputs.
const BLESS: &str = "TURNSTILE_BLESS_DIGESTS";

/// The command that rewrites the digest file.
const BLESS_COMMAND: &str = "TURNSTILE_BLESS_DIGESTS=1 cargo test -p turnstile-cli --test digests";

/// Witnesses built per bundle at most in the `--witnesses` run (spread over
/// the deviations): enough to replay every kind of witness, few enough for a
/// debug build.
const WITNESS_LIMIT: &str = "6";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// One output: the `turnstile` arguments, and the file its standard input
/// comes from (a converted trace file for `gate`).
struct Output {
    args: Vec<String>,
    stdin: Option<Stdin>,
    /// Where a fresh path goes in `args` (`gate --state`, `coverage
    /// --witnesses`): written as the shell's `$(mktemp -d)` in the digest
    /// file, and a new path of the test's scratch directory when run.
    scratch: Option<usize>,
    /// A guess at its cost, to start the longest first.
    cost: u64,
}

/// A gate's input: the `convert` output of a trace file.
#[derive(Clone)]
struct Stdin {
    trace_file: String,
}

/// A fresh store for `gate --state`, as the digest file spells it.
const FRESH_STORE: &str = "$(mktemp -d)/state.db";

/// A fresh directory for `coverage --witnesses`, as the digest file spells it.
const FRESH_DIR: &str = "$(mktemp -d)";

impl Output {
    fn new(args: &[&str], cost: u64) -> Self {
        Output {
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            stdin: None,
            scratch: args
                .iter()
                .position(|a| *a == FRESH_STORE || *a == FRESH_DIR),
            cost,
        }
    }

    /// The shell command that reproduces the output, from the repository's
    /// root: the key of the digest file.
    fn command(&self) -> String {
        let run = |args: &[String]| format!("cargo run -q -p turnstile-cli -- {}", args.join(" "));
        match &self.stdin {
            Some(stdin) => format!(
                "{} | {}",
                run(&["convert".to_owned(), stdin.trace_file.clone()]),
                run(&self.args)
            ),
            None => run(&self.args),
        }
    }
}

/// The trace files, each with its domain's bundle directory.
fn trace_files(root: &Path) -> Vec<(String, String, u64)> {
    let mut files: Vec<(String, String, u64)> = std::fs::read_dir(root.join("data/tau2/traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(".json.zst"))
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_owned();
            let domain = name.split('_').next().unwrap().to_owned();
            let bundle = format!("bundles/{domain}");
            assert!(
                root.join(&bundle).join("bundle.yaml").is_file(),
                "no bundle for {name}"
            );
            let size = p.metadata().unwrap().len();
            (format!("data/tau2/traces/{name}"), bundle, size)
        })
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the vendored trace files: {files:?}");
    files
}

fn shipped_bundles(root: &Path) -> Vec<String> {
    let mut bundles: Vec<String> = std::fs::read_dir(root.join("bundles"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("bundle.yaml").is_file())
        .map(|p| format!("bundles/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    bundles.sort();
    bundles
}

/// Every output pinned, but the converted traces the gates read (those
/// are computed first).
fn outputs(root: &Path) -> Vec<Output> {
    let files = trace_files(root);
    let mut outputs = Vec::new();
    let schedules = ["workflow", "boundary", "action"];
    for (file, bundle, size) in &files {
        for schedule in schedules.iter().chain(&["all"]) {
            let runs = if *schedule == "all" { 3 } else { 1 };
            for format in ["human", "json"] {
                outputs.push(Output::new(
                    &[
                        "replay",
                        bundle,
                        file,
                        "--schedule",
                        schedule,
                        "--format",
                        format,
                    ],
                    size * runs,
                ));
            }
        }
        for schedule in schedules {
            let mut gate = Output::new(
                &[
                    "gate",
                    bundle,
                    "--state",
                    FRESH_STORE,
                    "--schedule",
                    schedule,
                    "--sync",
                    "normal",
                ],
                size * 2,
            );
            gate.stdin = Some(Stdin {
                trace_file: file.clone(),
            });
            outputs.push(gate);
        }
    }
    let mut domains: BTreeMap<&str, (Vec<&str>, u64)> = BTreeMap::new();
    for (file, bundle, size) in &files {
        let entry = domains.entry(bundle.as_str()).or_default();
        entry.0.push(file);
        entry.1 += size;
    }
    for (bundle, (files, size)) in &domains {
        for judge in ["none", "offline"] {
            for format in ["json", "csv"] {
                let mut args = vec![
                    "audit",
                    "--bundle",
                    bundle,
                    "--judge",
                    judge,
                    "--format",
                    format,
                    "--threads",
                    "1",
                    "--quiet",
                ];
                if format == "csv" {
                    // Pins the exit code of a corpus with violations (4).
                    args.push("--fail-on-violation");
                }
                args.extend(files.iter().copied());
                outputs.push(Output::new(&args, *size));
            }
        }
    }
    for bundle in shipped_bundles(root) {
        let telecom = bundle.ends_with("telecom");
        outputs.push(Output::new(
            &["coverage", &bundle, "--schedule", "all", "--format", "json"],
            if telecom { 200_000 } else { 1_000 },
        ));
        outputs.push(Output::new(
            &[
                "coverage",
                &bundle,
                "--schedule",
                "all",
                "--format",
                "json",
                "--witnesses",
                FRESH_DIR,
                "--witness-limit",
                WITNESS_LIMIT,
            ],
            400_000,
        ));
    }
    outputs
}

/// What an output gave: its exit code and the digest of its standard output.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Pinned {
    exit: String,
    sha256: String,
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

fn exit_code(status: std::process::ExitStatus) -> String {
    status
        .code()
        .map_or_else(|| format!("signal:{status}"), |c| c.to_string())
}

/// Runs `turnstile` with `args` in `root`, its standard input from
/// `stdin`; returns the exit code, stdout and stderr.
fn run(root: &Path, args: &[String], stdin: Option<&Path>) -> (String, Vec<u8>, Vec<u8>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_turnstile"));
    command
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        Some(path) => command.stdin(std::fs::File::open(path).unwrap()),
        None => command.stdin(Stdio::null()),
    };
    let out = command.output().expect("run turnstile");
    (exit_code(out.status), out.stdout, out.stderr)
}

/// Runs `jobs` on one worker per core, longest first, and returns their
/// results in `jobs`' order.
fn parallel<T: Sync, R: Send>(jobs: Vec<(u64, T)>, work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(jobs[i].0));
    let results: Vec<Mutex<Option<R>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        return;
                    };
                    let result = work(&jobs[i].1);
                    *results[i].lock().unwrap() = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap().unwrap())
        .collect()
}

fn read_digests(path: &Path) -> BTreeMap<String, Pinned> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let mut fields = line.split('\t');
            let (Some(command), Some(exit), Some(sha256), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                panic!("{DIGESTS}: not `command<TAB>exit<TAB>sha256`: {line}");
            };
            (
                command.to_owned(),
                Pinned {
                    exit: exit.to_owned(),
                    sha256: sha256.to_owned(),
                },
            )
        })
        .collect()
}

fn write_digests(path: &Path, digests: &BTreeMap<String, Pinned>) {
    let mut text = format!(
        "# Digests of every output of `turnstile` checked by cli/tests/digests.rs.\n\
         # Rewrite on an intended change of behaviour: {BLESS_COMMAND}\n\
         # command\texit\tsha256 of stdout\n"
    );
    for (command, digest) in digests {
        let _ = writeln!(text, "{command}\t{}\t{}", digest.exit, digest.sha256);
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn every_output_has_its_committed_digest() {
    let started = Instant::now();
    let root = root();
    let scratch = tempfile::tempdir().unwrap();
    // The gates' inputs first: each trace file converted once.
    let files = trace_files(&root);
    let converted: Vec<(String, Vec<u8>, Vec<u8>)> = parallel(
        files
            .iter()
            .map(|(f, _, size)| (*size, f.clone()))
            .collect(),
        |file| run(&root, &["convert".to_owned(), file.clone()], None),
    );
    let mut inputs: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut found: BTreeMap<String, Pinned> = BTreeMap::new();
    let mut stderr: BTreeMap<String, String> = BTreeMap::new();
    for (i, ((file, _, _), (exit, stdout, err))) in files.iter().zip(converted).enumerate() {
        let path = scratch.path().join(format!("converted-{i}.jsonl"));
        std::fs::write(&path, &stdout).unwrap();
        inputs.insert(file.clone(), path);
        let command = format!("cargo run -q -p turnstile-cli -- convert {file}");
        found.insert(
            command.clone(),
            Pinned {
                exit,
                sha256: sha256(&stdout),
            },
        );
        stderr.insert(command, String::from_utf8_lossy(&err).into_owned());
    }
    let outputs = outputs(&root);
    let counter = AtomicUsize::new(0);
    let results = parallel(
        outputs.iter().map(|o| (o.cost, o)).collect(),
        |output: &&Output| {
            let mut args = output.args.clone();
            if let Some(at) = output.scratch {
                let n = counter.fetch_add(1, Ordering::Relaxed);
                let dir = scratch.path().join(format!("scratch-{n}"));
                std::fs::create_dir(&dir).unwrap();
                let path = if args[at] == FRESH_STORE {
                    dir.join("state.db")
                } else {
                    dir
                };
                args[at] = path.to_str().unwrap().to_owned();
            }
            let stdin = output.stdin.as_ref().map(|s| inputs[&s.trace_file].clone());
            run(&root, &args, stdin.as_deref())
        },
    );
    for (output, (exit, stdout, err)) in outputs.iter().zip(results) {
        let command = output.command();
        stderr.insert(command.clone(), String::from_utf8_lossy(&err).into_owned());
        let previous = found.insert(
            command.clone(),
            Pinned {
                exit,
                sha256: sha256(&stdout),
            },
        );
        assert!(previous.is_none(), "two outputs of one command: {command}");
    }
    let path = root.join(DIGESTS);
    eprintln!(
        "{} outputs in {:.1} s",
        found.len(),
        started.elapsed().as_secs_f64()
    );
    if std::env::var_os(BLESS).is_some() {
        write_digests(&path, &found);
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = read_digests(&path);
    let mut report = String::new();
    for (command, digest) in &found {
        match committed.get(command) {
            Some(expected) if expected == digest => {}
            Some(expected) => {
                let _ = writeln!(
                    report,
                    "\n{command}\n  exit {} (committed {}), sha256 {} (committed {})",
                    digest.exit, expected.exit, digest.sha256, expected.sha256
                );
                let err = stderr.get(command).map_or("", String::as_str);
                if digest.exit != expected.exit && !err.is_empty() {
                    let tail: String = err.lines().take(5).collect::<Vec<_>>().join("\n    ");
                    let _ = writeln!(report, "  stderr: {tail}");
                }
            }
            None => {
                let _ = writeln!(report, "\n{command}\n  not in {DIGESTS}");
            }
        }
    }
    for command in committed.keys().filter(|c| !found.contains_key(*c)) {
        let _ = writeln!(report, "\n{command}\n  in {DIGESTS} but no longer run");
    }
    assert!(
        report.is_empty(),
        "outputs differ from {DIGESTS} (run each command from the repository's root to see it; \
         on an intended change of behaviour: {BLESS_COMMAND}):{report}"
    );
}
