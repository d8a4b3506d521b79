//! Property tests live in `tests/`: no input panics the front end
//! (`bundle_inputs.rs`), the monitor equals the Datalog program
//! (`monitor_vs_datalog.rs`), and the fuzz corpus replays cleanly
//! (`fuzz_corpus.rs`). The number of cases follows proptest's
//! `PROPTEST_CASES` environment variable (default 256; the file-system
//! properties use a quarter of it) and `TURNSTILE_PROPTEST_CASES` for the
//! differential test.
//!
//! `theorems.rs` checks the coverage theorems (PolicyGuide, Appendix A) on
//! random workflows from [`workflows`].
//!
//! The library holds the bodies of the `cargo fuzz` targets ([`fuzz`]), so
//! the fuzzers and the corpus replay test run the same code.
#![warn(missing_docs)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod fuzz;
pub mod workflows;
