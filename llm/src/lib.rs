//! Judges for Turnstile's *dialogue-semantic* criteria: the questions that no
//! tool result can decide, such as "the user explicitly said yes after the
//! agent listed the details" or "which request type is this".
//!
//! Everything else in a workflow bundle is decided by code; this crate is the
//! one place where a model (or a stand-in for one) is asked. Its contract is
//! fail-closed: a judge never returns an error, it returns
//! [`Verdict::Unknown`], and only [`Verdict::is_satisfied`] answers may open a
//! gate.
//!
//! Map:
//! - [`types`]: requests, verdicts, usage.
//! - [`judge`]: the object-safe async [`Judge`] trait.
//! - [`http`]: the OpenAI-compatible HTTP judge (timeouts, retries, limits).
//! - [`prompt`] and [`answer`]: what the model is told, and the strict
//!   validation of what it answers.
//! - [`offline`]: the deterministic default judge.
//! - [`cache`]: the JSONL verdict cache and [`CachingJudge`].
//! - [`recorded`]: replaying and recording verdicts.
//! - [`spec`]: `--judge offline|openai|recorded:<file>` for the CLI.
//! - [`canon`]: canonical request hashing for cache and recording keys.

pub mod answer;
pub mod cache;
pub mod canon;
pub mod http;
pub mod judge;
pub mod offline;
pub mod prompt;
pub mod recorded;
pub mod spec;
pub mod types;

pub use cache::{CacheError, CacheKey, CachingJudge, LoadReport, VerdictCache};
pub use canon::request_hash;
pub use http::{ConfigError, HttpJudge, HttpJudgeConfig, Secret};
pub use judge::Judge;
pub use offline::{OFFLINE_JUDGE_NAME, OfflineJudge, Reply, classify_reply};
pub use recorded::{Record, RecordError, RecordedJudge, RecordingJudge};
pub use spec::{BuiltJudge, JudgeOptions, JudgeSpec, SpecError, build, from_spec};
pub use types::{Branch, JudgeRequest, Judgement, Question, Role, Turn, Usage, Verdict};
