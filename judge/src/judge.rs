//! The [`Judge`] trait: the one interface through which the engine asks about
//! dialogue-semantic criteria, whatever answers (a model, the offline
//! heuristics, a recording, a cache).

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
}
