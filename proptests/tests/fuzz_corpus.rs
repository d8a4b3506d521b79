//! Replays the checked-in fuzz corpus (`fuzz/corpus/<target>/*`, minimized
//! by `cargo fuzz cmin`) through the same bodies the fuzzers run, on the
//! stable toolchain: every input that once found new coverage keeps
//! returning without a panic.

use std::fs;
use std::path::Path;

use turnstile_proptests::fuzz::TARGETS;

#[test]
fn every_corpus_input_of_every_target_runs_without_panicking() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for (target, body) in TARGETS {
        let dir = corpus.join(target);
        let mut inputs: Vec<_> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{target}: empty corpus");
        for input in &inputs {
            let data = fs::read(input).unwrap();
            let outcome = std::panic::catch_unwind(|| body(&data));
            assert!(outcome.is_ok(), "{target}: {} panicked", input.display());
        }
        println!("{target}: {} inputs", inputs.len());
    }
}
