//! Property tests live in `tests/`: no input panics the front end
//! (`bundle_inputs.rs`), the monitor equals the Datalog program
//! (`monitor_vs_datalog.rs`), and the fuzz corpus replays cleanly
//! (`fuzz_corpus.rs`). Every property takes its number of cases from
//! [`cases`]: its own default, multiplied by `TURNSTILE_PROPTEST_SCALE`, or
//! exactly `TURNSTILE_PROPTEST_CASES` (or proptest's `PROPTEST_CASES`) when
//! set. Deep run of every property at ten times its default:
//! `TURNSTILE_PROPTEST_SCALE=10 cargo test --release -p turnstile-proptests`.
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

mod case_count;
pub mod fuzz;
pub mod workflows;

pub use case_count::cases;
