//! Time as a value: where `now()` comes from. A bundle that reads `now()`
//! declares its clock in `bundle.yaml`:
//!
//! - `clock: fixed 2024-05-15T15:00:00` — one instant for every event (a
//!   benchmark whose policy states the current time);
//! - `clock: event` — each event's own timestamp (the time the input
//!   recorded with it), the latest one carried forward;
//! - `clock: system` — the system's clock when a live gate decides the
//!   event (`--now` fixes it for tests).
//!
//! A session records the time it decided each event with
//! ([`SessionClock::decided`]), so a restored session decides again exactly
//! as it did. A recorded conversation replayed or audited takes each
//! event's recorded time or timestamp, else `--now`; a bundle that reads
//! `now()` on a non-fixed clock refuses a trace that gives neither
//! ([`ClockError::NoTime`]), saying which to give. Times carry no zone: a
//! bundle's times are all in its domain's one zone.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use turnstile_rules::DateTime;

/// A bundle's clock, from its `clock:` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "at", rename_all = "lowercase")]
pub enum Clock {
    /// One instant for every event.
    Fixed(#[serde(serialize_with = "iso")] DateTime),
    /// Each event's own timestamp.
    Event,
    /// The system's clock at the decision.
    System,
}

impl Clock {
    /// Parses `fixed <timestamp>`, `event` or `system`.
    pub fn parse(text: &str) -> Result<Clock, String> {
        let text = text.trim();
        let (kind, rest) = text
            .split_once(char::is_whitespace)
            .map_or((text, ""), |(k, r)| (k, r.trim()));
        match (kind, rest) {
            ("event", "") => Ok(Clock::Event),
            ("system", "") => Ok(Clock::System),
            ("fixed", "") => Err(
                "`fixed` needs the instant it stands for, e.g. `fixed 2024-05-15T15:00:00`"
                    .to_owned(),
            ),
            ("fixed", at) => DateTime::parse(at).map(Clock::Fixed).map_err(|e| {
                format!("{e}; a clock's time has no zone (the domain's times are all in one)")
            }),
            _ => Err(format!(
                "unknown clock `{text}`; expected `fixed <timestamp>`, `event` or `system`"
            )),
        }
    }

    /// The clock as written in a bundle.
    pub fn describe(&self) -> String {
        match self {
            Clock::Fixed(at) => format!("fixed {at}"),
            Clock::Event => "event".to_owned(),
            Clock::System => "system".to_owned(),
        }
    }
}

/// Why a recorded trace cannot be replayed on its bundle's clock.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// The bundle reads `now()` on a clock that is not fixed, and the trace
    /// records no time for any event.
    #[error(
        "trace {trace} records no time for its events, and bundle `{bundle}` reads now() on its `{clock}` clock: give the time it was decided at with --now <timestamp> (e.g. --now 2024-05-15T15:00:00), or record each event's time (`at` in native JSONL)"
    )]
    NoTime {
        /// The trace's id.
        trace: String,
        /// The bundle's name.
        bundle: String,
        /// The bundle's clock, as written.
        clock: String,
    },
}

/// The time of every event of a recorded trace, on the bundle's `clock`:
/// the fixed instant; else each event's recorded time (`times`, by event;
/// one without takes the latest earlier one, and one before the first takes
/// `now` or else the first), else `now` for every event. `None` for every
/// event when the bundle has no clock. A bundle that `reads_now` refuses a
/// trace with no time and no `now` ([`ClockError::NoTime`]); one that does
/// not read it needs none.
pub fn trace_times(
    clock: Option<Clock>,
    reads_now: bool,
    times: &[Option<DateTime>],
    events: usize,
    now: Option<DateTime>,
    names: (&str, &str),
) -> Result<Vec<Option<DateTime>>, ClockError> {
    let Some(clock) = clock else {
        return Ok(vec![None; events]);
    };
    if let Clock::Fixed(at) = clock {
        return Ok(vec![Some(at); events]);
    }
    let first = times.iter().flatten().next().copied();
    let Some(first) = first.or(now) else {
        if reads_now {
            let (trace, bundle) = names;
            return Err(ClockError::NoTime {
                trace: trace.to_owned(),
                bundle: bundle.to_owned(),
                clock: clock.describe(),
            });
        }
        return Ok(vec![None; events]);
    };
    let mut latest = now.unwrap_or(first);
    Ok((0..events)
        .map(|k| {
            if let Some(at) = times.get(k).copied().flatten() {
                latest = at;
            }
            Some(latest)
        })
        .collect())
}

/// Where one session's `now()` comes from, event by event, and the time it
/// decided each event with.
#[derive(Clone, Debug, Default)]
pub struct SessionClock {
    /// The bundle's clock.
    clock: Option<Clock>,
    /// The times to decide the first events with (a restored session's, a
    /// replayed trace's): event `k < len` takes `replay[k]`.
    replay: Vec<Option<DateTime>>,
    /// `--now`: the instant a live `system` clock stands still at, and an
    /// `event` clock's time before any event gave one.
    fixed_now: Option<DateTime>,
    /// The time the next event's input gives with it (`clock: event`).
    given: Option<DateTime>,
    /// The latest event time known.
    latest: Option<DateTime>,
    /// The time each event was decided with.
    decided: Vec<Option<DateTime>>,
}

impl SessionClock {
    /// The clock of a session of a bundle with `clock`.
    pub fn new(clock: Option<Clock>) -> Self {
        SessionClock {
            clock,
            ..SessionClock::default()
        }
    }

    /// Decides the first events with `times` (by event), whatever the
    /// bundle's clock says: what a restored session or a replayed trace
    /// was decided with.
    pub fn replaying(mut self, times: Vec<Option<DateTime>>) -> Self {
        self.replay = times;
        self
    }

    /// Fixes a live `system` clock at `now` (tests), and gives an `event`
    /// clock its time before any event carries one.
    pub fn set_now(&mut self, now: Option<DateTime>) {
        self.fixed_now = now;
    }

    /// The instant [`SessionClock::set_now`] gave, if any.
    pub fn now_given(&self) -> Option<DateTime> {
        self.fixed_now
    }

    /// The time the next event's input recorded with it.
    pub fn give(&mut self, at: Option<DateTime>) {
        self.given = at;
    }

    /// Decides the time of the next event and records it.
    pub fn tick(&mut self) -> Option<DateTime> {
        let k = self.decided.len();
        let given = self.given.take();
        let at = match self.replay.get(k) {
            Some(recorded) => *recorded,
            None => match self.clock {
                None => None,
                Some(Clock::Fixed(at)) => Some(at),
                Some(Clock::Event) => given.or(self.latest).or(self.fixed_now),
                Some(Clock::System) => self.fixed_now.or_else(system_now),
            },
        };
        if at.is_some() {
            self.latest = at;
        }
        self.decided.push(at);
        at
    }

    /// The time each event was decided with, by event.
    pub fn decided(&self) -> &[Option<DateTime>] {
        &self.decided
    }
}

/// The system's clock, to the second (`None` before 1970).
fn system_now() -> Option<DateTime> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())
        .map(DateTime)
}

fn iso<S: Serializer>(at: &DateTime, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&at.to_string())
}

/// Serde for event times as ISO text (`"2024-05-15T15:00:00"`, or `null`
/// for an event decided with no time), as saved sessions store them.
pub mod iso_times {
    use super::*;

    /// Writes each time as ISO text.
    pub fn serialize<S: Serializer>(
        times: &[Option<DateTime>],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let texts: Vec<Option<String>> = times.iter().map(|t| t.map(|t| t.to_string())).collect();
        texts.serialize(serializer)
    }

    /// Reads each time from ISO text.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Option<DateTime>>, D::Error> {
        let texts: Vec<Option<String>> = Vec::deserialize(deserializer)?;
        texts
            .into_iter()
            .map(|t| {
                t.map(|t| DateTime::parse(&t).map_err(serde::de::Error::custom))
                    .transpose()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime {
        DateTime::parse(text).unwrap()
    }

    #[test]
    fn clocks_parse_as_written_and_say_what_is_wrong() {
        assert_eq!(
            Clock::parse("fixed 2024-05-15 15:00:00"),
            Ok(Clock::Fixed(at("2024-05-15T15:00:00")))
        );
        assert_eq!(Clock::parse(" event "), Ok(Clock::Event));
        assert_eq!(Clock::parse("system"), Ok(Clock::System));
        assert!(
            Clock::parse("fixed")
                .unwrap_err()
                .contains("needs the instant")
        );
        assert!(
            Clock::parse("fixed 2024-05-15 15:00:00 EST")
                .unwrap_err()
                .contains("no zone")
        );
        assert!(Clock::parse("wall").unwrap_err().contains("expected"));
        assert!(Clock::parse("event 3").unwrap_err().contains("expected"));
    }

    #[test]
    fn a_trace_takes_its_times_carried_forward_else_now_else_refuses() {
        let names = ("t", "b");
        let t1 = at("2024-05-15T10:00:00");
        let t2 = at("2024-05-15T11:00:00");
        let times = [None, Some(t1), None, Some(t2)];
        assert_eq!(
            trace_times(Some(Clock::Event), true, &times, 5, None, names).unwrap(),
            vec![Some(t1), Some(t1), Some(t1), Some(t2), Some(t2)]
        );
        let now = at("2024-05-15T09:00:00");
        assert_eq!(
            trace_times(Some(Clock::System), true, &times, 2, Some(now), names).unwrap(),
            vec![Some(now), Some(t1)]
        );
        assert_eq!(
            trace_times(Some(Clock::System), true, &[], 2, Some(now), names).unwrap(),
            vec![Some(now), Some(now)]
        );
        let fixed = at("2024-05-15T15:00:00");
        assert_eq!(
            trace_times(Some(Clock::Fixed(fixed)), true, &times, 2, Some(now), names).unwrap(),
            vec![Some(fixed), Some(fixed)]
        );
        let refused = trace_times(Some(Clock::System), true, &[None], 1, None, names);
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("--now"), "{message}");
        assert!(message.contains("`system` clock"), "{message}");
        assert_eq!(
            trace_times(Some(Clock::System), false, &[None], 1, None, names).unwrap(),
            vec![None]
        );
        assert_eq!(
            trace_times(None, false, &[], 2, None, names).unwrap(),
            vec![None, None]
        );
    }

    #[test]
    fn a_session_decides_each_event_on_its_clock_and_records_it() {
        let t1 = at("2024-05-15T10:00:00");
        let mut event = SessionClock::new(Some(Clock::Event));
        event.set_now(Some(t1));
        assert_eq!(event.tick(), Some(t1));
        let t2 = at("2024-05-15T12:00:00");
        event.give(Some(t2));
        assert_eq!(event.tick(), Some(t2));
        assert_eq!(event.tick(), Some(t2), "the latest time carries forward");
        assert_eq!(event.decided(), &[Some(t1), Some(t2), Some(t2)]);
        let mut system = SessionClock::new(Some(Clock::System));
        system.give(Some(t1));
        assert_ne!(
            system.tick(),
            Some(t1),
            "a live system clock ignores what the input claims"
        );
        system.set_now(Some(t2));
        assert_eq!(system.tick(), Some(t2));
        let mut restored = SessionClock::new(Some(Clock::System)).replaying(vec![Some(t1), None]);
        restored.set_now(Some(t2));
        assert_eq!(
            [restored.tick(), restored.tick(), restored.tick()],
            [Some(t1), None, Some(t2)]
        );
        let mut none = SessionClock::new(None);
        assert_eq!(none.tick(), None);
    }

    #[test]
    fn times_are_saved_as_iso_text() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Saved {
            #[serde(with = "iso_times")]
            times: Vec<Option<DateTime>>,
        }
        let saved = Saved {
            times: vec![Some(at("2024-05-15T10:00:00")), None],
        };
        let text = serde_json::to_string(&saved).unwrap();
        assert_eq!(text, r#"{"times":["2024-05-15T10:00:00",null]}"#);
        assert_eq!(serde_json::from_str::<Saved>(&text).unwrap(), saved);
        assert!(serde_json::from_str::<Saved>(r#"{"times":["soon"]}"#).is_err());
    }
}
