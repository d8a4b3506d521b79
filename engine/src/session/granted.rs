//! The log as the workflow with consent granted reads it, and that
//! workflow's monitors kept between blocks.
//!
//! A call held for confirmation did not run, nor did a blocked one no
//! successful result shows ran: the consent-granted workflow reads each as
//! an event without facts ([`Withheld`]). Deciding whether a blocked write
//! fails on consent alone pushes the log into the consent-granted monitor
//! of its tool; [`GrantedMonitors`] keeps each monitor fed up to the last
//! write it decided, so the next block pushes the events since, not the
//! conversation. A monitor whose fed events changed since (a call they hold
//! withheld shown to have run, a judge verdict at one of them) is rebuilt:
//! what it derives is always that of a replay of the whole log.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use turnstile_rules::{Env, EventFacts, EventIdx, Monitor, Plan, StepId, Symbol};

use super::judging::Judged;

/// Which logged calls the consent-granted workflow reads as not run.
#[derive(Clone, Debug, Default)]
pub(super) struct Withheld {
    /// Calls held for confirmation: they did not run.
    held: BTreeSet<EventIdx>,
    /// Calls the gate blocked: under a hard gate they did not run, so
    /// unless a result says otherwise they used no authorization either.
    blocked: BTreeSet<EventIdx>,
    /// Calls a successful result shows ran.
    ran: BTreeSet<EventIdx>,
}

impl Withheld {
    /// Whether the call at `event` is read as not run.
    pub fn contains(&self, event: EventIdx) -> bool {
        self.held.contains(&event) || (self.blocked.contains(&event) && !self.ran.contains(&event))
    }

    /// `facts` as the consent-granted workflow reads them.
    pub fn read<'a>(&self, facts: &'a EventFacts) -> Cow<'a, EventFacts> {
        if self.contains(facts.event) {
            Cow::Owned(EventFacts {
                event: facts.event,
                now: facts.now,
                ..EventFacts::default()
            })
        } else {
            Cow::Borrowed(facts)
        }
    }
}

/// Per tool, the consent-granted monitor fed the log up to the last write
/// of that tool it decided, with what it was fed from besides the log.
#[derive(Clone, Debug, Default)]
pub(super) struct GrantedMonitors {
    withheld: Withheld,
    fed: BTreeMap<Symbol, Fed>,
    /// Events pushed into the monitors so far, for `SessionWork`.
    pushed: u64,
}

/// A consent-granted monitor and the judge verdicts it was fed.
#[derive(Clone, Debug)]
struct Fed {
    monitor: Monitor,
    /// The verdicts pushed with the events fed, at the events that had some.
    judged: Judged,
}

impl GrantedMonitors {
    /// Which logged calls are read as not run.
    pub fn withheld(&self) -> &Withheld {
        &self.withheld
    }

    /// Events pushed into the monitors so far.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Notes that the call at `event` was held for confirmation.
    pub fn hold(&mut self, event: EventIdx) {
        self.change(event, |w| w.held.insert(event));
    }

    /// Notes that the call at `event` was blocked.
    pub fn block(&mut self, event: EventIdx) {
        self.change(event, |w| w.blocked.insert(event));
    }

    /// Notes a successful result of the call at `call`.
    pub fn ran(&mut self, call: EventIdx) {
        self.change(call, |w| w.ran.insert(call));
    }

    /// Applies `edit` to the withheld calls; a monitor already fed `event`
    /// read it the other way, so it is dropped when the reading changed.
    fn change(&mut self, event: EventIdx, edit: impl FnOnce(&mut Withheld) -> bool) {
        let before = self.withheld.contains(event);
        edit(&mut self.withheld);
        if self.withheld.contains(event) != before {
            self.fed.retain(|_, fed| event.0 >= fed.monitor.events());
        }
    }

    /// What the consent-granted monitor of `tool` (over `plan`) gates at
    /// the last event of `log`, every event read through
    /// [`GrantedMonitors::withheld`] with its verdicts in `judged`: the
    /// outcome of a replay of the whole log, at the cost of the events
    /// since the last write of `tool` decided here. `None`: the monitor
    /// gates nothing there, or refused the log.
    pub fn gated_last(
        &mut self,
        tool: Symbol,
        plan: &Arc<Plan>,
        log: &[EventFacts],
        judged: &Judged,
    ) -> Option<Vec<(StepId, Env)>> {
        let (last, before) = log.split_last()?;
        let mut fed = match self.fed.remove(&tool) {
            Some(fed) if fed.agrees(judged, before.len()) => fed,
            _ => Fed {
                monitor: Monitor::new(Arc::clone(plan)),
                judged: Judged::new(),
            },
        };
        let from = fed.monitor.events() as usize;
        let since = before.get(from..)?;
        self.pushed += since.len() as u64 + 1;
        for facts in since {
            let at = verdicts_at(judged, facts.event);
            fed.monitor.push(&self.withheld.read(facts), &at).ok()?;
            if let Some(steps) = judged.get(&facts.event).filter(|s| !s.is_empty()) {
                fed.judged.insert(facts.event, steps.clone());
            }
        }
        let gated = fed
            .monitor
            .push(&self.withheld.read(last), &verdicts_at(judged, last.event))
            .ok()?
            .gated;
        // Only `last` comes back out: it is read as not run once decided.
        fed.monitor.undo_last().ok()?;
        self.fed.insert(tool, fed);
        gated
    }
}

impl Fed {
    /// Whether the verdicts of `judged` at the first `events` events are
    /// those the monitor was fed.
    fn agrees(&self, judged: &Judged, events: usize) -> bool {
        let fed = EventIdx(self.monitor.events());
        fed.as_usize() <= events
            && judged
                .range(..fed)
                .filter(|(_, steps)| !steps.is_empty())
                .eq(self.judged.iter())
    }
}

/// The verdicts of `judged` at `event`, as the monitor takes them.
fn verdicts_at(judged: &Judged, event: EventIdx) -> Vec<(StepId, Env)> {
    judged
        .get(&event)
        .map(|steps| steps.iter().copied().collect())
        .unwrap_or_default()
}
