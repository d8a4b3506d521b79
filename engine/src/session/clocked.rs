//! The session's side of the clock: a live gate's `--now`, a recorded
//! trace's event times, and an event pushed with the time its input gave.
//! What each event is decided with is [`crate::clock::SessionClock`]'s,
//! which the formal core owns.

use turnstile_judge::{Judge, SyncJudge};
use turnstile_rules::DateTime;

use super::core::Core;
use super::{EventReport, Session, SessionError};
use crate::clock::{SessionClock, trace_times};
use crate::trace::{Event, Trace};

impl Core {
    /// Decides the first events with `times` (by event), as a restored
    /// session was decided or a recorded trace was.
    pub(super) fn decide_first_events_at(&mut self, times: Vec<Option<DateTime>>) {
        let now = self.clock.now_given();
        self.clock = SessionClock::new(self.rt.bundle.clock).replaying(times);
        self.clock.set_now(now);
    }
}

impl Session {
    /// Fixes a live `system` clock at `now` (`gate` and `serve` take
    /// `--now` for tests), and gives an `event` clock its time before any
    /// event carries one.
    pub fn set_clock_now(&mut self, now: Option<DateTime>) {
        self.core.clock.set_now(now);
    }

    /// Prepares to replay `trace`: its events are decided at their recorded
    /// times (or timestamps), else at `now`; a bundle reading `now()` on a
    /// clock that is not fixed refuses a trace that gives neither.
    pub fn replay_times_of(
        &mut self,
        trace: &Trace,
        now: Option<DateTime>,
    ) -> Result<(), SessionError> {
        let bundle = &self.core.rt.bundle;
        let times = trace_times(
            bundle.clock,
            bundle.reads_now,
            &trace.meta.times,
            trace.events.len(),
            now,
            (&trace.meta.id, &bundle.name),
        )?;
        self.core.decide_first_events_at(times);
        Ok(())
    }

    /// [`Session::push`] with the time the event's input recorded with it
    /// (a native line's `at`): the time a bundle on an `event` clock
    /// decides it with.
    pub fn push_at(
        &mut self,
        event: Event,
        at: Option<DateTime>,
        judge: &dyn SyncJudge,
    ) -> Result<EventReport, SessionError> {
        self.core.clock.give(at);
        self.push(event, judge)
    }

    /// [`Session::push_at`] with a judge that is awaited (a model).
    pub async fn push_at_async(
        &mut self,
        event: Event,
        at: Option<DateTime>,
        judge: &dyn Judge,
    ) -> Result<EventReport, SessionError> {
        self.core.clock.give(at);
        self.push_async(event, judge).await
    }

    /// The time each event was decided with, by event.
    pub fn decided_times(&self) -> &[Option<DateTime>] {
        self.core.clock.decided()
    }
}
