//! The bodies of the `cargo fuzz` targets (`fuzz/fuzz_targets/*.rs`), kept
//! here so that the checked-in corpus (`fuzz/corpus/<target>/`) is replayed
//! by an ordinary test on the stable toolchain
//! (`tests/fuzz_corpus.rs`). Each body feeds arbitrary bytes to one input
//! surface and must return without panicking; what it returns is ignored.

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use turnstile_engine::import::{Format, TraceReader};
use turnstile_engine::trace::Event;
use turnstile_engine::{BundleRuntime, Schedule, Session, SessionState, check_bundle, parse_expr};
use turnstile_judge::OfflineJudge;

/// A fuzz target's body: arbitrary bytes in, nothing out, never a panic.
pub type Body = fn(&[u8]);

/// The fuzz targets, by the name of their corpus directory.
pub const TARGETS: [(&str, Body); 9] = [
    ("bundle_loader", bundle_loader),
    ("check_expression", check_expression),
    ("import_tau2", import_tau2),
    ("import_openai", import_openai),
    ("import_taubench", import_taubench),
    ("import_native", import_native),
    ("gate_lines", gate_lines),
    ("session_state", session_state),
    ("audit_reader", audit_reader),
];

/// The toy bundle's files: the loader target replaces one of them.
const TOY_FILES: [(&str, &str); 5] = [
    (
        "bundle.yaml",
        include_str!("../../bundles/toy-orders/bundle.yaml"),
    ),
    (
        "domain.yaml",
        include_str!("../../bundles/toy-orders/domain.yaml"),
    ),
    (
        "flows/main.yaml",
        include_str!("../../bundles/toy-orders/flows/main.yaml"),
    ),
    (
        "flows/identify.yaml",
        include_str!("../../bundles/toy-orders/flows/identify.yaml"),
    ),
    (
        "flows/cancel.yaml",
        include_str!("../../bundles/toy-orders/flows/cancel.yaml"),
    ),
];

/// The toy bundle's cancel flow, whose `check:` of `read_order` the
/// expression target replaces, so a parsed expression is also type-checked
/// and lowered.
const EXPRESSION_SLOT: &str = "check: args.order_id in user[$user].order_ids";

/// Bundle files: the first byte picks which file of the toy bundle the rest
/// replaces; the bundle is then loaded and compiled.
pub fn bundle_loader(data: &[u8]) {
    let Some((&pick, content)) = data.split_first() else {
        return;
    };
    let Some(dir) = scratch_bundle("loader") else {
        return;
    };
    let slot = usize::from(pick) % TOY_FILES.len();
    for (i, (name, text)) in TOY_FILES.iter().enumerate() {
        let bytes = if i == slot { content } else { text.as_bytes() };
        if fs::write(dir.join(name), bytes).is_err() {
            return;
        }
    }
    let _ = check_bundle(&dir);
}

/// Check expressions: parsed alone, and (when the text fits in a YAML
/// plain scalar) compiled as the guard of a real bundle.
pub fn check_expression(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_expr(text);
    if text.contains(['\n', '\r', '#', '"', '\'']) || text.trim() != text || text.is_empty() {
        return;
    }
    let Some(dir) = scratch_bundle("expression") else {
        return;
    };
    for (name, original) in TOY_FILES {
        let replaced = original.replace(EXPRESSION_SLOT, &format!("check: \"{text}\""));
        if fs::write(dir.join(name), replaced).is_err() {
            return;
        }
    }
    let _ = check_bundle(&dir);
}

/// tau2-bench results files.
pub fn import_tau2(data: &[u8]) {
    import(data, "fuzz.json", Format::Tau2);
}

/// OpenAI chat logs (a JSON document and a JSONL file).
pub fn import_openai(data: &[u8]) {
    import(data, "fuzz.json", Format::OpenAi);
    import(data, "fuzz.jsonl", Format::OpenAi);
}

/// tau-bench results files (a JSON document and a JSONL file).
pub fn import_taubench(data: &[u8]) {
    import(data, "fuzz.json", Format::TauBench);
    import(data, "fuzz.jsonl", Format::TauBench);
}

/// Native JSONL traces.
pub fn import_native(data: &[u8]) {
    import(data, "fuzz.jsonl", Format::Native);
}

/// The gate's line protocol: each input line that parses as a native event
/// is pushed into a live retail session (offline judge, every schedule);
/// the session is then saved and restored.
pub fn gate_lines(data: &[u8]) {
    let Some(runtime) = retail_runtime() else {
        return;
    };
    for schedule in [Schedule::Workflow, Schedule::Boundary, Schedule::Action] {
        let mut session = Session::new(Arc::clone(runtime), schedule);
        for line in data.split(|&b| b == b'\n') {
            let Ok(event) = serde_json::from_slice::<Event>(line) else {
                continue;
            };
            let _ = session.push(event, &OfflineJudge::new());
        }
        let _ = Session::restore(Arc::clone(runtime), session.snapshot());
    }
}

/// Saved session state as the gate and the store read it back.
pub fn session_state(data: &[u8]) {
    let Some(runtime) = retail_runtime() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(mut state) = SessionState::from_json(text) {
        let _ = Session::restore(Arc::clone(runtime), state.clone());
        // The same state as if saved by this bundle, to reach the replay.
        state.bundle.clone_from(&runtime.bundle.hash);
        let _ = Session::restore(Arc::clone(runtime), state);
    }
}

/// The audit's reader and pipeline: the first byte picks the file name the
/// rest is written under (JSON, JSON Lines, gzip- or zstd-compressed, so
/// damaged compressed streams are reached too), which is then audited
/// against the retail bundle on two threads with no judge. Besides never
/// panicking, every record read must be accounted for: read = audited +
/// rejected.
pub fn audit_reader(data: &[u8]) {
    use std::ops::ControlFlow;
    use turnstile_engine::audit::{AuditJudge, Auditor, Counters, Item, RunOptions, Summary, run};

    const NAMES: [&str; 6] = [
        "fuzz.json",
        "fuzz.jsonl",
        "fuzz.json.gz",
        "fuzz.jsonl.gz",
        "fuzz.json.zst",
        "fuzz.jsonl.zst",
    ];
    let Some(runtime) = retail_runtime() else {
        return;
    };
    let Some((&pick, content)) = data.split_first() else {
        return;
    };
    let Some(dir) = scratch_bundle("audit") else {
        return;
    };
    let name = NAMES
        .get(usize::from(pick) % NAMES.len())
        .copied()
        .unwrap_or("fuzz.json");
    let file = dir.join(name);
    if fs::write(&file, content).is_err() {
        return;
    }
    let auditor = Auditor::new(Arc::clone(runtime), AuditJudge::Assume, true);
    let mut summary = Summary::default();
    let options = RunOptions {
        threads: 2,
        format: None,
    };
    let finished = run(
        std::slice::from_ref(&file),
        &options,
        &Counters::default(),
        &auditor,
        &mut |item| {
            match item {
                Item::File(name) => summary.file(&name),
                Item::Report(report) => summary.add(&report),
                Item::Rejected(rejection) => summary.reject(rejection),
            }
            ControlFlow::Continue(())
        },
    );
    let _ = fs::remove_file(&file);
    assert!(matches!(finished, Ok(true)), "the run stopped early");
    assert_eq!(
        summary.read,
        summary.audited + summary.rejected(),
        "every record read is audited or rejected"
    );
}

fn import(data: &[u8], name: &str, format: Format) {
    let reader = TraceReader::from_reader(Cursor::new(data.to_vec()), name, format);
    for item in reader {
        let _ = item;
    }
}

/// A per-process scratch copy of the toy bundle's layout.
fn scratch_bundle(purpose: &str) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("turnstile-fuzz-{purpose}-{}", std::process::id()));
    fs::create_dir_all(dir.join("flows")).ok()?;
    Some(dir)
}

fn retail_runtime() -> Option<&'static Arc<BundleRuntime>> {
    static RUNTIME: OnceLock<Option<Arc<BundleRuntime>>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/retail");
            let bundle = check_bundle(&dir).ok()?;
            BundleRuntime::new(Arc::new(bundle)).ok()
        })
        .as_ref()
}
