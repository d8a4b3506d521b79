//! What a session reports and what a store appends: the requests shown at
//! earlier firings (so a later firing calls them continuing), the request
//! views as last rendered ([`super::views`]), and the journal — the growing
//! parts of a session (accepted verdicts, questions asked, requests shown)
//! in the order they were added, so a store takes only what an event added
//! ([`Ledger::delta`] since a [`DeltaMark`]).

use std::collections::BTreeSet;
use std::sync::Arc;

use turnstile_judge::Usage;
use turnstile_rules::{Env, StepId, Waiting};

use super::core::Core;
use super::state::{
    AcceptedVerdict, AskedQuestion, ConsentAnswer, DeltaMark, SessionDelta, UndecidedAnswer,
};
use super::verdict::{Cursor, RequestStatus, RequestView};
use super::views::{Shown, ViewCache};

/// The growing parts of a session in the order they were added.
#[derive(Clone, Debug, Default)]
pub(super) struct Journal {
    pub judged: Vec<AcceptedVerdict>,
    pub asked: Vec<AskedQuestion>,
    pub consents: Vec<ConsentAnswer>,
    pub undecided: Vec<UndecidedAnswer>,
    pub seen: Vec<Env>,
}

impl Journal {
    /// Notes a verdict accepted.
    pub fn judged(&mut self, verdict: AcceptedVerdict) {
        self.judged.push(verdict);
    }

    /// Notes a question asked.
    pub fn asked(&mut self, question: AskedQuestion) {
        self.asked.push(question);
    }

    /// Notes a consent answer given.
    pub fn consent(&mut self, answer: ConsentAnswer) {
        self.consents.push(answer);
    }

    /// Notes a change in what the judge left undecided.
    pub fn undecided(&mut self, answer: UndecidedAnswer) {
        self.undecided.push(answer);
    }
}

/// Requests seen, the journal and the view cache.
#[derive(Clone, Debug, Default)]
pub(super) struct Ledger {
    journal: Journal,
    seen: BTreeSet<Env>,
    /// `journal.seen`'s length before the last event's firing marked its
    /// requests seen: [`Ledger::requests`] reports those after it as open.
    seen_before: usize,
    /// The request views as last built, each rebuilt only when it can
    /// have changed.
    views: ViewCache,
}

impl Ledger {
    /// A restored session's: everything saved is in the journal already.
    /// The requests `seen` after the first `seen_before` were first shown
    /// at the last firing (a restored session calls them all continuing).
    pub fn restored(
        judged: Vec<AcceptedVerdict>,
        asked: Vec<AskedQuestion>,
        consents: Vec<ConsentAnswer>,
        undecided: Vec<UndecidedAnswer>,
        seen: Vec<Env>,
        seen_before: usize,
    ) -> Self {
        Ledger {
            seen: seen.iter().copied().collect(),
            seen_before,
            journal: Journal {
                judged,
                asked,
                consents,
                undecided,
                seen,
            },
            views: ViewCache::default(),
        }
    }

    pub fn journal(&mut self) -> &mut Journal {
        &mut self.journal
    }

    /// The requests shown at a firing so far.
    pub fn seen(&self) -> impl Iterator<Item = Env> + '_ {
        self.seen.iter().copied()
    }

    /// (views built, views reused) so far.
    pub fn view_counts(&self) -> (u64, u64) {
        self.views.counts()
    }

    /// After an event: the requests waiting now are continuing at later
    /// firings if this one `fired`.
    pub fn decided(&mut self, fired: bool, monitor: &turnstile_rules::Monitor) {
        self.seen_before = self.journal.seen.len();
        if !fired {
            return;
        }
        for waiting in monitor.waiting_iter() {
            if self.seen.insert(waiting.request) {
                self.journal.seen.push(waiting.request);
            }
        }
    }

    /// Where the journal stands now, with `events` taken.
    pub fn mark(&self, events: usize) -> DeltaMark {
        DeltaMark {
            events,
            judged: self.journal.judged.len(),
            asked: self.journal.asked.len(),
            consents: self.journal.consents.len(),
            undecided: self.journal.undecided.len(),
            seen: self.journal.seen.len(),
        }
    }

    /// What `core`'s session added since `mark`, with the judge's `usage`
    /// so far.
    pub fn delta(&self, mark: DeltaMark, core: &Core, usage: Usage) -> SessionDelta {
        SessionDelta {
            first_event: mark.events,
            events: core.events.get(mark.events..).unwrap_or_default().to_vec(),
            times: after(core.clock.decided(), mark.events),
            judged: after(&self.journal.judged, mark.judged),
            asked: after(&self.journal.asked, mark.asked),
            consents: after(&self.journal.consents, mark.consents),
            undecided: after(&self.journal.undecided, mark.undecided),
            seen: after(&self.journal.seen, mark.seen),
            total_events: core.events.len(),
            after_user: core.after_user,
            after_block: core.after_block,
            usage,
        }
    }

    /// `journal.seen`'s length before the last firing.
    pub fn seen_before(&self) -> usize {
        self.seen_before
    }

    /// The journal's parts as they stood at `mark`: what a session that
    /// gives up a decision goes back to.
    pub fn before(&self, mark: DeltaMark) -> Journal {
        fn upto<T: Clone>(list: &[T], len: usize) -> Vec<T> {
            list.get(..len).unwrap_or_default().to_vec()
        }
        Journal {
            judged: upto(&self.journal.judged, mark.judged),
            asked: upto(&self.journal.asked, mark.asked),
            consents: upto(&self.journal.consents, mark.consents),
            undecided: upto(&self.journal.undecided, mark.undecided),
            seen: upto(&self.journal.seen, mark.seen),
        }
    }

    /// The requests as the last event's firing reported them, a request
    /// first seen at that firing open (see [`super::Session::requests`]).
    pub fn requests(&self, core: &Core) -> Vec<Arc<RequestView>> {
        let new_at_last = self
            .journal
            .seen
            .get(self.seen_before..)
            .unwrap_or_default();
        self.views(
            core,
            &SeenBefore {
                seen: &self.seen,
                new_at_last,
            },
        )
    }

    /// The requests at a firing about to mark them seen: a request is
    /// continuing when an earlier firing showed it.
    pub fn firing_requests(&self, core: &Core) -> Vec<Arc<RequestView>> {
        self.views(core, &self.seen)
    }

    /// Takes every cached view as rendered at `core`'s state (a test hook,
    /// [`super::Session::mark_cached_views_current`]).
    pub fn restamp(&self, core: &Core) {
        self.views.restamp(core.view_stamp());
    }

    /// The request views, a request being continuing when `seen` knew it.
    fn views(&self, core: &Core, seen: &dyn SeenFilter) -> Vec<Arc<RequestView>> {
        let rt = &core.rt;
        let monitor = &core.monitor;
        let depth = |step: StepId| rt.step(step).map_or(0, |i| i.depth);
        // The requests that reached a terminal exit: the evidence of the
        // exit steps only, in request order per step.
        let mut done: Vec<Env> = rt
            .exits
            .iter()
            .flat_map(|&exit| monitor.evidence_of(exit).map(|(env, _)| env))
            .collect();
        if rt.exits.len() > 1 {
            done.sort_unstable();
            done.dedup();
        }
        let is_done = |e: &Env| done.binary_search(e).is_ok();
        // Sorted by request, then step: one run per request.
        let mut waiting: Vec<Waiting> = monitor
            .waiting_iter()
            .filter(|w| !is_done(&w.request))
            .collect();
        waiting.sort_unstable_by_key(|w| (w.request, w.step, w.judge_from));
        let mut open: Vec<Env> = waiting.iter().map(|w| w.request).collect();
        open.dedup();
        let shown = |e: &Env| !open.iter().any(|o| o != e && o.extends(e));
        // Each request shown with the deepest steps it waits at (none: done).
        let mut requests: Vec<Shown> = Vec::new();
        for list in waiting.chunk_by(|a, b| a.request == b.request) {
            let Some(env) = list.first().map(|w| w.request) else {
                continue;
            };
            if !shown(&env) {
                continue;
            }
            let deepest = list.iter().map(|w| depth(w.step)).max().unwrap_or(0);
            let steps = list
                .iter()
                .filter(|w| depth(w.step) == deepest)
                .map(|w| (w.step, w.judge_from.is_some()))
                .collect();
            requests.push(Shown {
                request: env,
                steps,
                status: if seen.knew(&env) {
                    RequestStatus::Continuing
                } else {
                    RequestStatus::Open
                },
            });
        }
        requests.extend(
            done.iter()
                .filter(|e| !e.is_empty() && shown(e))
                .map(|e| Shown {
                    request: *e,
                    steps: Vec::new(),
                    status: RequestStatus::Done,
                }),
        );
        self.views
            .views(rt, core.view_stamp(), requests, |env, steps| {
                let cursor = steps
                    .iter()
                    .map(|&(step, needs_judge)| Cursor {
                        needs_judge,
                        remediation: core.remediation(step, env),
                        step: rt.step_name(step).to_owned(),
                    })
                    .collect();
                (core.bindings(env), cursor)
            })
    }
}

/// The items of `list` from `from` on.
fn after<T: Clone>(list: &[T], from: usize) -> Vec<T> {
    list.get(from..).unwrap_or_default().to_vec()
}

/// Which requests a firing's views call continuing.
trait SeenFilter {
    fn knew(&self, request: &Env) -> bool;
}

/// Before this firing's requests are marked seen: the seen set itself.
impl SeenFilter for BTreeSet<Env> {
    fn knew(&self, request: &Env) -> bool {
        self.contains(request)
    }
}

/// After it: the seen set without the requests that firing added.
struct SeenBefore<'a> {
    seen: &'a BTreeSet<Env>,
    new_at_last: &'a [Env],
}

impl SeenFilter for SeenBefore<'_> {
    fn knew(&self, request: &Env) -> bool {
        self.seen.contains(request) && !self.new_at_last.contains(request)
    }
}
