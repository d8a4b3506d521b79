//! The request views' cache: each request's rendered view (its bindings by
//! name, its cursor with the remediation filled in) kept between firings
//! and rebuilt only for a request whose view can have changed — its
//! deepest waiting steps differ, or its remediation reads a part of the
//! monitor's state (fields, filter counts, the call's arguments; see
//! `turnstile_rules::ReadStamp`) that changed, or a type error arrived
//! that a placeholder without a value would report. The views equal those
//! built from scratch (`engine/tests/lazy_requests.rs`, at every event of
//! every tau2 retail and airline conversation).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use turnstile_rules::{Env, ReadStamp, Reads, StepId};

use super::runtime::BundleRuntime;
use super::verdict::{Bindings, Cursor};

/// What a rendering depended on besides the request: the monitor's read
/// stamp and how many type errors the session held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Stamp {
    pub reads: ReadStamp,
    pub type_errors: usize,
}

/// One request's view as last rendered.
#[derive(Clone, Debug)]
pub(super) struct CachedView {
    /// The deepest steps it waited at, each with whether a judge decides
    /// it: the cursor's shape (empty for a finished request).
    pub steps: Vec<(StepId, bool)>,
    pub request: Bindings,
    pub cursor: Vec<Cursor>,
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

    /// Builds the views of one firing: `shown` lists each request shown
    /// with its deepest waiting steps; `render` renders a request's view.
    /// Returns the views' `(request, cursor)` in `shown`'s order, reusing
    /// those still valid at `stamp`.
    pub fn views(
        &self,
        rt: &BundleRuntime,
        stamp: Stamp,
        shown: Vec<(Env, Vec<(StepId, bool)>)>,
        mut render: impl FnMut(&Env, &[(StepId, bool)]) -> (Bindings, Vec<Cursor>),
    ) -> Vec<(Bindings, Vec<Cursor>)> {
        let mut inner = self.lock();
        inner.build += 1;
        let build = inner.build;
        let mut out = Vec::with_capacity(shown.len());
        let (mut built, mut reused) = (0, 0);
        for (env, steps) in shown {
            let valid = inner
                .views
                .get(&env)
                .is_some_and(|cached| cached.steps == steps && still_valid(rt, cached, stamp));
            if !valid {
                let (request, cursor) = render(&env, &steps);
                inner.views.insert(
                    env,
                    CachedView {
                        steps,
                        request,
                        cursor,
                        stamp,
                        shown_at: build,
                    },
                );
                built += 1;
            } else {
                reused += 1;
            }
            if let Some(cached) = inner.views.get_mut(&env) {
                cached.shown_at = build;
                out.push((cached.request.clone(), cached.cursor.clone()));
            }
        }
        inner.views.retain(|_, cached| cached.shown_at == build);
        inner.built += built;
        inner.reused += reused;
        out
    }
}

/// Whether `cached`'s remediation is what rendering it at `stamp` gives.
fn still_valid(rt: &BundleRuntime, cached: &CachedView, stamp: Stamp) -> bool {
    let (reads, values) = cached
        .steps
        .iter()
        .filter_map(|(step, _)| rt.step(*step))
        .fold((Reads::default(), false), |(reads, values), info| {
            (reads.union(info.remedy_reads), values || info.remedy_values)
        });
    cached.stamp.reads.same_for(&stamp.reads, reads)
        && (!values || cached.stamp.type_errors == stamp.type_errors)
}
