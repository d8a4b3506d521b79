//! The two judge traits through which the engine asks about
//! dialogue-semantic criteria: [`SyncJudge`], answered on the calling thread
//! (the offline heuristics, a recording, a cache over either), and the async
//! [`Judge`], awaited (a model over the network). [`Immediate`] makes a
//! synchronous judge usable where an async one is expected; nothing goes
//! the other way: waiting for a model is the caller's runtime's business.

use std::sync::Arc;

use async_trait::async_trait;

use crate::types::{JudgeRequest, Judgement};

/// Answers semantic questions about a conversation slice.
///
/// A judge never fails: every error (network, timeout, invalid answer, missing
/// recording) becomes [`crate::Verdict::Unknown`], and callers must treat
/// anything but [`crate::Verdict::Satisfied`] / [`crate::Verdict::Chosen`] as
/// *not satisfied* (see [`crate::Verdict::is_satisfied`]): the gate built on a
/// judge fails closed.
///
/// The trait is object-safe; the CLI passes judges around as `Arc<dyn Judge>`.
#[async_trait]
pub trait Judge: Send + Sync {
    /// Identifies the judge and its model; part of every cache key, so two
    /// judges that may answer differently must have different names.
    fn name(&self) -> &str;

    /// Judges one request.
    async fn judge(&self, request: &JudgeRequest) -> Judgement;

    /// Judges many requests; the answers are in request order. The default is
    /// sequential; judges that can overlap work (HTTP) override it.
    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let mut out = Vec::with_capacity(requests.len());
        for request in requests {
            out.push(self.judge(request).await);
        }
        out
    }

    /// Questions this judge answers in one call at most, if it batches them
    /// into calls (a model judge); `None` when a batch costs nothing more
    /// than its questions. A session asking ahead (questions a positive
    /// answer would raise next) fills only the room left in the calls its
    /// questions need anyway, so asking ahead never adds a call.
    fn questions_per_call(&self) -> Option<usize> {
        None
    }

    /// Whether the session asks this judge the consent the offline reader
    /// cannot decide ([`crate::Question::Consent`]): a model's yes allows
    /// the write, its no blocks it, anything else leaves it to the host's
    /// approval (`confirm`). A judge that answers from rules never is.
    fn decides_consent(&self) -> bool {
        false
    }
}

/// Answers semantic questions about a conversation slice at once, on the
/// calling thread: deciding with it is a plain function call. The same
/// fail-closed contract as [`Judge`]: never an error, an answer that cannot
/// be given is [`crate::Verdict::Unknown`].
pub trait SyncJudge: Send + Sync {
    /// Identifies the judge (see [`Judge::name`]).
    fn name(&self) -> &str;

    /// Judges `requests`; the answers are in request order, one each.
    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement>;

    /// Questions this judge answers in one call at most (see
    /// [`Judge::questions_per_call`]).
    fn questions_per_call(&self) -> Option<usize> {
        None
    }

    /// Whether an answer may depend on the text of the tool turns in a
    /// question's slice (a cache or a recording keys on the whole slice).
    /// A caller that shows tool results as recorded, unparsed, asks only a
    /// judge that does not.
    fn reads_tool_turns(&self) -> bool {
        true
    }

    /// Whether the session asks it the consent the offline reader cannot
    /// decide (see [`Judge::decides_consent`]): a recording of a model's
    /// answers.
    fn decides_consent(&self) -> bool {
        false
    }
}

/// A synchronous judge behind a pointer answers as the judge itself.
macro_rules! forward_sync_judge {
    ($($pointer:ty),*) => {$(
        impl<J: SyncJudge + ?Sized> SyncJudge for $pointer {
            fn name(&self) -> &str {
                (**self).name()
            }

            fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
                (**self).judge_batch(requests)
            }

            fn questions_per_call(&self) -> Option<usize> {
                (**self).questions_per_call()
            }

            fn reads_tool_turns(&self) -> bool {
                (**self).reads_tool_turns()
            }

            fn decides_consent(&self) -> bool {
                (**self).decides_consent()
            }
        }
    )*};
}

forward_sync_judge!(Arc<J>, Box<J>, &J);

/// A [`SyncJudge`] where a [`Judge`] is expected (a server that awaits
/// every judge): its answers are ready when asked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Immediate<J>(pub J);

#[async_trait]
impl<J: SyncJudge> Judge for Immediate<J> {
    fn name(&self) -> &str {
        self.0.name()
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        self.0
            .judge_batch(std::slice::from_ref(request))
            .into_iter()
            .next()
            .unwrap_or_else(|| Judgement::unknown("the judge returned no answer"))
    }

    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        self.0.judge_batch(requests)
    }

    fn questions_per_call(&self) -> Option<usize> {
        self.0.questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        self.0.decides_consent()
    }
}

#[async_trait]
impl<J: Judge + ?Sized> Judge for Arc<J> {
    fn name(&self) -> &str {
        (**self).name()
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        (**self).judge(request).await
    }

    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        (**self).judge_batch(requests).await
    }

    fn questions_per_call(&self) -> Option<usize> {
        (**self).questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        (**self).decides_consent()
    }
}

#[async_trait]
impl<J: Judge + ?Sized> Judge for Box<J> {
    fn name(&self) -> &str {
        (**self).name()
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        (**self).judge(request).await
    }

    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        (**self).judge_batch(requests).await
    }

    fn questions_per_call(&self) -> Option<usize> {
        (**self).questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        (**self).decides_consent()
    }
}
