//! The judge interface for Turnstile's *dialogue-semantic* criteria: the
//! questions that no tool result can decide, such as "the user explicitly
//! said yes after the agent listed the details" or "which request type is
//! this".
//!
//! Everything else in a workflow bundle is decided by code; a judge is the
//! one place where a model (or a stand-in for one) is asked: a [`SyncJudge`]
//! answers on the calling thread (every judge of this crate), a [`Judge`]
//! is awaited (a model). Its contract is
//! fail-closed: a judge never returns an error, it returns
//! [`Verdict::Unknown`], and only [`Verdict::is_satisfied`] answers may open a
//! gate.
//!
//! This crate holds the interface and every judge that needs no network, so
//! the engine builds without an HTTP client; the model-backed judge lives in
//! `turnstile-llm`.
//!
//! Map (the modules are private; every item is re-exported here):
//! - `types`: requests, verdicts, usage.
//! - `judge`: the object-safe [`SyncJudge`] and async [`Judge`] traits, and
//!   [`Immediate`], a synchronous judge where an async one is expected.
//! - `offline`: the deterministic default judge, [`OfflineJudge`].
//! - `cache`: the JSONL [`VerdictCache`] and [`CachingJudge`].
//! - `recorded`: replaying ([`RecordedJudge`]) and recording
//!   ([`RecordingJudge`]) verdicts.
//! - [`dialogue`] (public): the text primitives the offline judge decides
//!   consent and keywords with, for the engine to call directly.
//! - `canon`: canonical request hashing ([`request_hash`]) for cache and
//!   recording keys.

#![warn(missing_docs)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod cache;
mod canon;
pub mod dialogue;
mod judge;
mod offline;
mod recorded;
mod types;

pub use cache::{CacheError, CacheKey, CachingJudge, LoadReport, VerdictCache};
pub use canon::request_hash;
pub use judge::{Immediate, Judge, SyncJudge};
pub use offline::{OFFLINE_JUDGE_NAME, OfflineJudge, is_consent_criterion};
pub use recorded::{Record, RecordError, RecordedJudge, RecordingJudge};
pub use types::{
    Branch, CONSENT_NODE_SUFFIX, Conversation, JudgeRequest, Judgement, Question, Role, Turn,
    Usage, Verdict, consent_node_id,
};
