//! Property tests live in `tests/`; this crate has no library code of its own.
//! The number of cases follows proptest's `PROPTEST_CASES` environment
//! variable (default 256; the file-system properties use a quarter of it).
