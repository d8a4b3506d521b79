//! Audit throughput (`turnstile audit`), in content bytes per second, on
//! two corpora: the vendored retail + airline tau2 traces (each against its
//! bundle) and a synthetic corpus (`turnstile_engine::audit::synth`, native
//! JSONL re-sampled from the same traces, against the retail and airline
//! bundles by domain).
//!
//! The synthetic corpus is measured twice: as native JSONL (`synth`) and as
//! an OpenAI chat log (`chat`, one conversation a line: the OpenAI reader's
//! typed fast path against the same floor).
//!
//! - `parse`: the floor, `serde_json::from_slice::<serde_json::Value>` over
//!   the same bytes, one thread, files in memory;
//! - `import/raw`, `import/parsed`: the audit's reader alone (typed fast
//!   path; tool results unparsed, or all parsed as `replay` reads them),
//!   one thread, the same files;
//! - `audit/<judge>/<threads>`: the audit pipeline (`audit::run`:
//!   streaming reader, per-trace session, ordered delivery) over the same
//!   bytes as plain files (in the page cache), with `--judge none` and
//!   `--judge offline`, on one thread and on every core, on the CLI's path
//!   for these judges (tool results parsed only where the bundle reads them).
//!
//! The ratios to the parse floor are printed after criterion's figures
//! (`BENCHMARKS.md`, section "audit"). `AUDIT_SYNTH_TRACES` sets the size of
//! the synthetic corpus (default 2,000).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use turnstile_engine::audit::{AuditJudge, Auditor, Counters, Item, RunOptions, Synth, run};
use turnstile_engine::check_bundle;
use turnstile_engine::import::native::write_native;
use turnstile_engine::import::openai::write_chat_line;
use turnstile_engine::import::{ResultContent, TraceReader, compressed};
use turnstile_engine::session::BundleRuntime;
use turnstile_engine::trace::Trace;
use turnstile_judge::OfflineJudge;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One corpus: plain files per bundle, and their bytes in memory.
struct Corpus {
    name: &'static str,
    /// (bundle name, plain files)
    parts: Vec<(&'static str, Vec<PathBuf>)>,
    bytes: Vec<Vec<u8>>,
    /// JSON Lines (the synthetic corpus) rather than one document a file.
    lines: bool,
}

impl Corpus {
    fn total(&self) -> u64 {
        self.bytes.iter().map(|b| b.len() as u64).sum()
    }
}

fn decompress(path: &Path) -> Vec<u8> {
    let (_, mut reader) = compressed::open(path).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut reader, &mut out).unwrap();
    out
}

fn vendored(dir: &Path) -> Corpus {
    let mut parts = Vec::new();
    let mut bytes = Vec::new();
    for domain in ["retail", "airline"] {
        let mut files = Vec::new();
        let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("data/tau2/traces"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{domain}_"))
            })
            .collect();
        sources.sort();
        for source in sources {
            let plain = decompress(&source);
            let name = source.file_stem().unwrap().to_string_lossy().into_owned();
            let path = dir.join(name);
            std::fs::write(&path, &plain).unwrap();
            files.push(path);
            bytes.push(plain);
        }
        parts.push((domain, files));
    }
    Corpus {
        name: "tau2",
        parts,
        bytes,
        lines: false,
    }
}

/// The synthetic corpus, as native JSONL or (`chat`) as an OpenAI chat log,
/// one conversation a line.
fn synthetic(dir: &Path, traces: usize, chat: bool) -> Corpus {
    let mut parts = Vec::new();
    let mut bytes = Vec::new();
    for domain in ["retail", "airline"] {
        let mut sources: Vec<Trace> = Vec::new();
        for entry in std::fs::read_dir(root().join("data/tau2/traces")).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{domain}_"))
            {
                sources.extend(TraceReader::open(&path, None).unwrap().flatten());
            }
        }
        sources.sort_by(|a, b| a.meta.id.cmp(&b.meta.id));
        let mut synth = Synth::new(sources, 42);
        let mut out = Vec::new();
        for i in 0..traces / 2 {
            let trace = synth.trace(i).unwrap();
            if chat {
                write_chat_line(&mut out, &trace).unwrap();
            } else {
                write_native(&mut out, &trace).unwrap();
            }
        }
        let name = if chat { "chat" } else { "synth" };
        let path = dir.join(format!("{name}_{domain}.jsonl"));
        std::fs::write(&path, &out).unwrap();
        parts.push((domain, vec![path]));
        bytes.push(out);
    }
    Corpus {
        name: if chat { "chat" } else { "synth" },
        parts,
        bytes,
        lines: true,
    }
}

/// Parses every line of a JSONL buffer (`lines`), or the whole buffer as
/// one document.
fn parse_only(bytes: &[u8], lines: bool) {
    if lines {
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            black_box(serde_json::from_slice::<serde_json::Value>(line).unwrap());
        }
    } else {
        black_box(serde_json::from_slice::<serde_json::Value>(bytes).unwrap());
    }
}

/// The parse floor over a whole corpus.
fn parse_corpus(corpus: &Corpus) {
    for bytes in &corpus.bytes {
        parse_only(bytes, corpus.lines);
    }
}

/// Reads every trace of the corpus (the audit's reader, no session);
/// returns the events read.
fn import_only(corpus: &Corpus, results: ResultContent) -> usize {
    let mut events = 0;
    for (_, files) in &corpus.parts {
        for file in files {
            let reader = TraceReader::open(file, None)
                .unwrap()
                .with_result_content(results);
            for trace in reader {
                events += black_box(trace.unwrap()).events.len();
            }
        }
    }
    events
}

fn runtime(name: &str) -> Arc<BundleRuntime> {
    let bundle = check_bundle(&root().join("bundles").join(name)).unwrap();
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

/// The auditors of the corpus' domains with `judge`, tool results delivered
/// as `results` (`Raw`: the CLI's path for these judges, results parsed
/// only for the tools the bundle reads; `Parsed`: the full path, as for a
/// judge that reads tool turns).
fn auditors(judge: &AuditJudge, results: ResultContent) -> Vec<(Auditor, &'static str)> {
    ["retail", "airline"]
        .into_iter()
        .map(|d| {
            let auditor = Auditor::new(runtime(d), judge.clone(), false).with_results(results);
            (auditor, d)
        })
        .collect()
}

/// Audits the whole corpus with `auditors`; returns the traces audited.
fn audit(corpus: &Corpus, auditors: &[(Auditor, &'static str)], threads: usize) -> usize {
    let mut audited = 0;
    for (domain, files) in &corpus.parts {
        let (auditor, _) = auditors.iter().find(|(_, d)| d == domain).unwrap();
        let options = RunOptions {
            threads,
            format: None,
        };
        run(
            files,
            &options,
            &Counters::default(),
            auditor,
            &mut |item| {
                if let Item::Report(r) = item {
                    audited += 1;
                    black_box(r);
                }
                ControlFlow::Continue(())
            },
        )
        .unwrap();
    }
    audited
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let synth_traces = std::env::var("AUDIT_SYNTH_TRACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let corpora = [
        vendored(dir.path()),
        synthetic(dir.path(), synth_traces, false),
        synthetic(dir.path(), synth_traces, true),
    ];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let judges: [(&str, AuditJudge); 2] = [
        ("none", AuditJudge::Assume),
        (
            "offline",
            AuditJudge::Immediate(Arc::new(OfflineJudge::new())),
        ),
    ];
    let mut figures: Vec<(String, f64)> = Vec::new();
    for corpus in &corpora {
        let mut group = c.benchmark_group(format!("audit/{}", corpus.name));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(8))
            .throughput(Throughput::Bytes(corpus.total()));
        group.bench_function("parse", |b| {
            b.iter(|| parse_corpus(corpus));
        });
        for (name, results) in [
            ("import/raw", ResultContent::Raw),
            ("import/parsed", ResultContent::Parsed),
        ] {
            group.bench_function(name, |b| b.iter(|| import_only(corpus, results)));
        }
        for (name, judge) in &judges {
            let fast = auditors(judge, ResultContent::Raw);
            for threads in [1, cores] {
                group.bench_function(format!("{name}/{threads}"), |b| {
                    b.iter(|| audit(corpus, &fast, threads));
                });
            }
        }
        group.finish();
        // Ratios from one timed pass each (criterion's medians are above).
        let mb = corpus.total() as f64 / 1e6;
        let time = |f: &mut dyn FnMut()| {
            let mut best = f64::MAX;
            for _ in 0..3 {
                let start = Instant::now();
                f();
                best = best.min(start.elapsed().as_secs_f64());
            }
            mb / best
        };
        let parse = time(&mut || parse_corpus(corpus));
        figures.push((format!("{} parse", corpus.name), parse));
        for (name, results) in [
            ("import/raw", ResultContent::Raw),
            ("import/parsed", ResultContent::Parsed),
        ] {
            let speed = time(&mut || {
                import_only(corpus, results);
            });
            figures.push((format!("{} {name}", corpus.name), speed));
        }
        for (name, judge) in &judges {
            let fast = auditors(judge, ResultContent::Raw);
            for threads in [1, cores] {
                let speed = time(&mut || {
                    audit(corpus, &fast, threads);
                });
                figures.push((format!("{} {name}/{threads}", corpus.name), speed));
            }
            // The full path (every result parsed), one thread: what the
            // fast path saves.
            let full = auditors(judge, ResultContent::Parsed);
            let speed = time(&mut || {
                audit(corpus, &full, 1);
            });
            figures.push((format!("{} {name}-parsed/1", corpus.name), speed));
        }
    }
    println!("\naudit throughput (best of 3, MB/s of content) and ratios");
    let base = |corpus: &str| {
        figures
            .iter()
            .find(|(n, _)| n == &format!("{corpus} parse"))
            .map_or(1.0, |(_, v)| *v)
    };
    for (name, speed) in &figures {
        let corpus = name.split(' ').next().unwrap_or("");
        println!(
            "  {name:<22} {speed:>8.2} MB/s   {:>6.3}x parse",
            speed / base(corpus)
        );
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
