//! The request views' cache: each request's rendered view (its bindings by
//! name, its cursor with the remediation filled in, its status) kept
//! between firings, shared with the reports that show it (`Arc`: a report
//! holds the cache's view rather than a copy), and rebuilt only for a
//! request whose view can have changed — its deepest waiting steps differ,
//! or its remediation reads a part of the monitor's state (fields, filter
//! counts, the call's arguments; see `turnstile_rules::ReadStamp`) that
//! changed, or a type error arrived that a placeholder without a value
//! would report. A view whose status alone changed (open → continuing) is
//! copied with the new status, not rendered. The views equal those built
//! from scratch (`engine/tests/lazy_requests.rs`, at every event of every
//! tau2 retail and airline conversation).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use turnstile_rules::{Env, ReadStamp, Reads, StepId};

use super::runtime::BundleRuntime;
use super::verdict::{Bindings, Cursor, RequestStatus, RequestView};

/// What a rendering depended on besides the request: the monitor's read
/// stamp and how many type errors the session held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Stamp {
    pub reads: ReadStamp,
    pub type_errors: usize,
}

/// One request shown at a firing: its bindings, the deepest steps it waits
/// at (each with whether a judge decides it; none for a finished request)
/// and its status.
pub(super) struct Shown {
    pub request: Env,
    pub steps: Vec<(StepId, bool)>,
    pub status: RequestStatus,
}

/// One request's view as last rendered.
#[derive(Clone, Debug)]
struct CachedView {
    /// The steps it was rendered for: the cursor's shape.
    steps: Vec<(StepId, bool)>,
    view: Arc<RequestView>,
    stamp: Stamp,
    /// The build that last showed it: those not shown are dropped.
    shown_at: u64,
}

/// The views of the requests shown at the last build, by request.
#[derive(Debug, Default)]
pub(super) struct ViewCache {
    inner: Mutex<Inner>,
}

#[derive(Clone, Debug, Default)]
struct Inner {
    views: BTreeMap<Env, CachedView>,
    build: u64,
    /// Views built and reused, counted for tests.
    built: u64,
    reused: u64,
}

/// A clone starts from the same views (they describe the same state).
impl Clone for ViewCache {
    fn clone(&self) -> Self {
        ViewCache {
            inner: Mutex::new(self.lock().clone()),
        }
    }
}

impl ViewCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // The cache holds no invariant a panic could break halfway: a
        // poisoned one is still a set of valid renderings.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// (views built, views reused) so far.
    pub fn counts(&self) -> (u64, u64) {
        let inner = self.lock();
        (inner.built, inner.reused)
    }

    /// Marks every cached view as rendered at `stamp`, whether or not it
    /// was: the next build reuses each whose steps did not change, stale or
    /// not. Only for the test that checks stale views are caught.
    pub fn restamp(&self, stamp: Stamp) {
        for cached in self.lock().views.values_mut() {
            cached.stamp = stamp;
        }
    }

    /// Builds the views of one firing: `shown` lists each request shown;
    /// `render` renders a request's bindings and cursor. Returns the views
    /// in `shown`'s order, sharing those still valid at `stamp`.
    pub fn views(
        &self,
        rt: &BundleRuntime,
        stamp: Stamp,
        shown: Vec<Shown>,
        mut render: impl FnMut(&Env, &[(StepId, bool)]) -> (Bindings, Vec<Cursor>),
    ) -> Vec<Arc<RequestView>> {
        let mut inner = self.lock();
        inner.build += 1;
        let build = inner.build;
        let mut out = Vec::with_capacity(shown.len());
        let (mut built, mut reused) = (0, 0);
        let all_shown = shown.len() == inner.views.len();
        let mut added = false;
        for Shown {
            request,
            steps,
            status,
        } in shown
        {
            let cached = inner.views.get_mut(&request).filter(|cached| {
                cached.steps == steps && still_valid(rt, &cached.steps, cached.stamp, stamp)
            });
            let view = match cached {
                Some(cached) => {
                    reused += 1;
                    if cached.view.status != status {
                        Arc::make_mut(&mut cached.view).status = status;
                    }
                    cached.shown_at = build;
                    Arc::clone(&cached.view)
                }
                None => {
                    built += 1;
                    let (bindings, cursor) = render(&request, &steps);
                    let view = Arc::new(RequestView {
                        cursor,
                        request: bindings,
                        status,
                    });
                    let previous = inner.views.insert(
                        request,
                        CachedView {
                            steps,
                            view: Arc::clone(&view),
                            stamp,
                            shown_at: build,
                        },
                    );
                    added |= previous.is_none();
                    view
                }
            };
            out.push(view);
        }
        // Every cached request shown again and none added: nothing to drop
        // (the common firing), so no walk over the cache.
        if !all_shown || added {
            inner.views.retain(|_, cached| cached.shown_at == build);
        }
        inner.built += built;
        inner.reused += reused;
        out
    }
}

/// Whether a rendering of `steps` at `then` is what rendering them at
/// `now` gives.
fn still_valid(rt: &BundleRuntime, steps: &[(StepId, bool)], then: Stamp, now: Stamp) -> bool {
    let (reads, values) = steps
        .iter()
        .filter_map(|(step, _)| rt.step(*step))
        .fold((Reads::default(), false), |(reads, values), info| {
            (reads.union(info.remedy_reads), values || info.remedy_values)
        });
    then.reads.same_for(&now.reads, reads) && (!values || then.type_errors == now.type_errors)
}
