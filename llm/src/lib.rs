//! The model-backed judge of Turnstile's dialogue-semantic criteria: an
//! OpenAI-compatible HTTP [`HttpJudge`], what it tells the model (`prompt`)
//! and the strict validation of what the model answers (`answer`), plus the
//! CLI's `--judge offline|openai|recorded:<file>` builder ([`build`]), which
//! assembles a judge stack around it or around the judges of
//! `turnstile-judge`.
//!
//! The [`turnstile_judge::Judge`] trait, its request and verdict types and
//! the network-free judges live in `turnstile-judge`; this crate adds only
//! what talks to a model, so nothing else in the workspace builds an HTTP
//! client.
//!
//! Map (the modules are private; every item is re-exported here):
//! - `http`: the HTTP judge (timeouts, retries, limits).
//! - `prompt` and `answer`: the chat messages, and the answer parser.
//! - `spec`: [`JudgeSpec`], [`JudgeOptions`] and [`build`], which gives a [`JudgeStack`].

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

mod answer;
mod http;
mod prompt;
mod spec;

pub use http::{ConfigError, HttpJudge, HttpJudgeConfig, Secret};
pub use spec::{BuiltJudge, JudgeOptions, JudgeSpec, JudgeStack, SpecError, build};
