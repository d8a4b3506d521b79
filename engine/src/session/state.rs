//! A session's saved form: the events it took, the judge verdicts it
//! accepted and the questions it already asked, versioned so a state written
//! in another layout is refused instead of misread.

use serde::{Deserialize, Serialize};
use turnstile_judge::Usage;
use turnstile_rules::{DateTime, Env, EventIdx, StepId};

use super::SessionError;
use super::schedule::Schedule;
use crate::bundle::model::Control;
use crate::trace::Event;

/// The layout of [`SessionState`]. Version 1 stored verdicts and questions
/// as bare tuples; version 2 names their fields; version 3 records the
/// request each accepted verdict was about; version 4 records who calls the
/// user-side tools (`control`), which a version-3 state left to the bundle;
/// version 5 records the time each event was decided with (`times`);
/// version 6 the model judge's answers about consent (`consents`);
/// version 7 the questions the judge could not decide (`undecided`). A version-4 state is read with no time
/// for any event (no bundle it could have run declared a clock), a
/// version-4 or -5 state with no consent answer (no judge was asked one),
/// and a version-4 to -6 state with no undecided question (none was kept).
pub const STATE_VERSION: u32 = 7;

/// The layout before undecided questions were kept, migrated on read.
pub const STATE_VERSION_WITHOUT_UNDECIDED: u32 = 6;

/// The layout before the judge was asked about consent, migrated on read.
pub const STATE_VERSION_WITHOUT_CONSENTS: u32 = 5;

/// The layout before events carried their time, migrated on read.
pub const STATE_VERSION_WITHOUT_TIMES: u32 = 4;

/// What a session is, serialized: its inputs and the judge's accepted
/// verdicts. Everything else is recomputed on restore.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    /// The layout version, [`STATE_VERSION`] when written by this build.
    pub version: u32,
    /// The hash of the bundle the session ran (a restore needs the same one).
    pub bundle: String,
    /// The firing schedule the session ran with.
    pub schedule: Schedule,
    /// Who calls the user-side (device) tools in this session: the trace's
    /// own mode or the bundle's `control`. `None` only for a session a store
    /// migrated from version 3, whose writers always ran under the bundle's
    /// `control` (a restore keeps the bundle's).
    pub control: Option<Control>,
    /// Every event the session took, in order.
    pub events: Vec<Event>,
    /// The time each event was decided with (`now()`), by event; `None`
    /// for an event decided with no time known.
    #[serde(with = "crate::clock::iso_times")]
    pub times: Vec<Option<DateTime>>,
    /// Every verdict the judge gave that the session accepted.
    pub judged: Vec<AcceptedVerdict>,
    /// Questions already answered on an unchanged slice (not asked again).
    pub asked: Vec<AskedQuestion>,
    /// The judge's answers about consent, in the order given.
    pub consents: Vec<ConsentAnswer>,
    /// What the judge left undecided and decided since, as it changed.
    pub undecided: Vec<UndecidedAnswer>,
    /// The requests shown at an earlier firing (reported as continuing).
    pub seen: Vec<Env>,
    /// The last event was a user message (the boundary schedule fires next).
    pub after_user: bool,
    /// The last agent event was blocked (the boundary schedule checks the retry).
    pub after_block: bool,
    /// Judge usage so far.
    pub usage: Usage,
}

/// What a session added since a [`DeltaMark`]: the rows a store appends
/// after an event, built without copying the rest of the session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionDelta {
    /// The index of the first event in `events`.
    pub first_event: usize,
    /// The events taken since the mark.
    pub events: Vec<Event>,
    /// The time each of them was decided with.
    pub times: Vec<Option<DateTime>>,
    /// Verdicts accepted since the mark.
    pub judged: Vec<AcceptedVerdict>,
    /// Questions asked since the mark.
    pub asked: Vec<AskedQuestion>,
    /// Consent answers given since the mark.
    pub consents: Vec<ConsentAnswer>,
    /// Changes in what the judge left undecided since the mark.
    pub undecided: Vec<UndecidedAnswer>,
    /// Requests shown for the first time since the mark.
    pub seen: Vec<Env>,
    /// Events the session holds in all.
    pub total_events: usize,
    /// As in [`SessionState`].
    pub after_user: bool,
    /// As in [`SessionState`].
    pub after_block: bool,
    /// Judge usage so far (a total, not a difference).
    pub usage: Usage,
}

/// How much of a session's growing parts a store already holds
/// ([`Session::mark`](super::Session::mark)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeltaMark {
    pub(super) events: usize,
    pub(super) judged: usize,
    pub(super) asked: usize,
    pub(super) consents: usize,
    pub(super) undecided: usize,
    pub(super) seen: usize,
}

/// A judge verdict the session accepted: the step it satisfies, the event at
/// which it takes effect, and the request it was asked about (it satisfies
/// the step for that request only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AcceptedVerdict {
    /// The dialogue step the verdict satisfies.
    pub step: StepId,
    /// The event the verdict takes effect at.
    pub evidence: EventIdx,
    /// The request (bindings) the verdict was asked about.
    pub request: Env,
}

/// A change in what the judge left undecided: a question's steps that a
/// person's approval settles, for its request, the event the question was
/// ready at and the end of its slice (what orders the changes), and
/// whether the judge answered it neither yes nor no (`open`) or a later
/// question decided steps left open before.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UndecidedAnswer {
    /// One past the last turn of the question's slice that can change its
    /// answer: changes apply in this order.
    pub slice_end: EventIdx,
    /// The event a verdict takes effect at the earliest.
    pub ready: EventIdx,
    /// The steps it decides (a classification: the branches it offered).
    pub steps: Vec<StepId>,
    /// The request it was asked for.
    pub request: Env,
    /// Open (undecided) or closed (decided since).
    pub open: bool,
}

/// A question already put to the judge, identified by what can change its
/// answer: the first step it decides, the request, the event from which a
/// verdict counts, and the end of the slice up to the last turn that matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AskedQuestion {
    /// The first step the question decides.
    pub step: StepId,
    /// The request it was asked for.
    pub request: Env,
    /// The event a verdict takes effect at the earliest.
    pub ready: EventIdx,
    /// One past the last turn of the slice that can change the answer.
    pub slice_end: EventIdx,
}

/// The judge's answer to a consent question: whether the user agreed to
/// exactly one call, identified by what can change the answer — the call
/// (its tool and arguments), the agent's latest request for the decision
/// and the user's last turn since. A write that asks the same again before
/// the user says something new takes this answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ConsentAnswer {
    /// The call: its tool and arguments in canonical form.
    pub call: String,
    /// The first event of the judged slice: the agent's latest request for
    /// a decision, or the conversation's start.
    pub from: EventIdx,
    /// One past the user's last turn of the slice (`from` when none).
    pub slice_end: EventIdx,
    /// What the judge said.
    pub answer: JudgedConsent,
}

/// What a model judge said about the user's consent to one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "consent", rename_all = "snake_case")]
pub enum JudgedConsent {
    /// The user agreed to exactly this call, in this turn: the write is
    /// allowed.
    Agreed {
        /// The user turn the judge read the agreement in.
        evidence: EventIdx,
    },
    /// The judge found no consent: the write is blocked.
    NotGiven,
    /// No usable answer (unknown, malformed, a timeout, a transport
    /// failure): the host asks the user (`confirm`).
    Unknown,
}

/// Only the version of a saved state, read before the rest so a state in
/// another layout is refused by version rather than by a parse error.
#[derive(Deserialize)]
struct VersionOnly {
    version: Option<u32>,
}

impl SessionState {
    /// Parses a saved state, refusing one of another layout version
    /// ([`SessionError::StateVersion`]) before reading the rest of it.
    pub fn from_json(text: &str) -> Result<SessionState, SessionError> {
        let head: VersionOnly =
            serde_json::from_str(text).map_err(|e| SessionError::StateFormat(e.to_string()))?;
        let version = head.version.unwrap_or(0);
        let format = |e: serde_json::Error| SessionError::StateFormat(e.to_string());
        match version {
            STATE_VERSION => serde_json::from_str(text).map_err(format),
            STATE_VERSION_WITHOUT_TIMES
            | STATE_VERSION_WITHOUT_CONSENTS
            | STATE_VERSION_WITHOUT_UNDECIDED => {
                let mut value: serde_json::Value = serde_json::from_str(text).map_err(format)?;
                let events = value
                    .get("events")
                    .and_then(serde_json::Value::as_array)
                    .map_or(0, Vec::len);
                if let Some(fields) = value.as_object_mut() {
                    fields.insert("version".to_owned(), STATE_VERSION.into());
                    if version == STATE_VERSION_WITHOUT_TIMES {
                        fields.insert(
                            "times".to_owned(),
                            serde_json::Value::Array(vec![serde_json::Value::Null; events]),
                        );
                    }
                    if version != STATE_VERSION_WITHOUT_UNDECIDED {
                        fields.insert("consents".to_owned(), serde_json::Value::Array(Vec::new()));
                    }
                    fields.insert("undecided".to_owned(), serde_json::Value::Array(Vec::new()));
                }
                serde_json::from_value(value).map_err(format)
            }
            other => Err(SessionError::StateVersion(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(version: u32) -> SessionState {
        SessionState {
            version,
            bundle: "fnv1a:0".to_owned(),
            schedule: Schedule::Workflow,
            control: Some(Control::Solo),
            events: Vec::new(),
            times: Vec::new(),
            judged: vec![AcceptedVerdict {
                step: StepId(3),
                evidence: EventIdx(4),
                request: Env::EMPTY,
            }],
            asked: vec![AskedQuestion {
                step: StepId(3),
                request: Env::EMPTY,
                ready: EventIdx(1),
                slice_end: EventIdx(5),
            }],
            consents: vec![ConsentAnswer {
                call: "cancel {}".to_owned(),
                from: EventIdx(2),
                slice_end: EventIdx(4),
                answer: JudgedConsent::Agreed {
                    evidence: EventIdx(3),
                },
            }],
            undecided: Vec::new(),
            seen: vec![Env::EMPTY],
            after_user: true,
            after_block: false,
            usage: Usage::default(),
        }
    }

    #[test]
    fn a_state_of_this_version_round_trips() {
        let state = saved(STATE_VERSION);
        let text = serde_json::to_string(&state).unwrap();
        assert_eq!(SessionState::from_json(&text).unwrap(), state);
    }

    #[test]
    fn a_state_of_another_version_is_refused_by_version() {
        let text = serde_json::to_string(&saved(STATE_VERSION + 1)).unwrap();
        let err = SessionState::from_json(&text).unwrap_err();
        assert!(matches!(err, SessionError::StateVersion(v) if v == STATE_VERSION + 1));
        assert!(
            err.to_string()
                .contains(&format!("version {} is not supported", STATE_VERSION + 1)),
            "{err}"
        );
    }

    #[test]
    fn a_state_of_the_old_tuple_layout_is_refused_by_version() {
        // Version 1 as written by earlier builds: verdicts and questions as tuples.
        let usage = serde_json::to_string(&Usage::default()).unwrap();
        let text = format!(
            r#"{{"version":1,"bundle":"fnv1a:0","schedule":"workflow","events":[],
            "judged":[[3,4]],"asked":[[3,[0,0,0,0,0,0,0,0],1,5]],"seen":[[0,0,0,0,0,0,0,0]],
            "after_user":true,"after_block":false,"usage":{usage}}}"#
        );
        let err = SessionState::from_json(&text).unwrap_err();
        assert!(matches!(err, SessionError::StateVersion(1)), "{err}");
        assert!(
            err.to_string().contains("version 1 is not supported"),
            "{err}"
        );
    }

    #[test]
    fn a_version_4_state_is_read_with_no_time_for_any_event() {
        let mut state = saved(STATE_VERSION);
        state.events = vec![
            Event::User { text: "hi".into() },
            Event::Agent {
                text: "hello".into(),
            },
        ];
        let mut value = serde_json::to_value(&state).unwrap();
        let fields = value.as_object_mut().unwrap();
        fields.remove("times");
        fields.remove("consents");
        fields.insert("version".to_owned(), serde_json::Value::from(4));
        let read = SessionState::from_json(&value.to_string()).unwrap();
        assert_eq!(read.version, STATE_VERSION);
        assert_eq!(read.times, vec![None, None]);
        assert_eq!(read.events, state.events);
        assert!(read.consents.is_empty());
    }

    #[test]
    fn a_version_5_state_is_read_with_no_consent_answer() {
        let state = saved(STATE_VERSION);
        let mut value = serde_json::to_value(&state).unwrap();
        let fields = value.as_object_mut().unwrap();
        fields.remove("consents");
        fields.insert("version".to_owned(), serde_json::Value::from(5));
        let read = SessionState::from_json(&value.to_string()).unwrap();
        assert_eq!(read.version, STATE_VERSION);
        assert!(read.consents.is_empty());
        assert_eq!(read.judged, state.judged);
        // Without the migration a version-6 state must carry the field.
        let mut unmigrated = serde_json::to_value(&state).unwrap();
        unmigrated.as_object_mut().unwrap().remove("consents");
        assert!(matches!(
            SessionState::from_json(&unmigrated.to_string()),
            Err(SessionError::StateFormat(_))
        ));
    }

    #[test]
    fn a_version_6_state_is_read_with_no_undecided_question() {
        let state = saved(STATE_VERSION);
        let mut value = serde_json::to_value(&state).unwrap();
        let fields = value.as_object_mut().unwrap();
        fields.remove("undecided");
        fields.insert("version".to_owned(), serde_json::Value::from(6));
        let read = SessionState::from_json(&value.to_string()).unwrap();
        assert_eq!(read.version, STATE_VERSION);
        assert_eq!(read.judged, state.judged);
        assert_eq!(read.consents, state.consents);
        assert!(read.undecided.is_empty());
    }

    #[test]
    fn an_undecided_answer_round_trips_by_name() {
        let mut state = saved(STATE_VERSION);
        state.undecided.push(UndecidedAnswer {
            slice_end: EventIdx(3),
            ready: EventIdx(1),
            steps: vec![StepId(5), StepId(6)],
            request: Env::EMPTY,
            open: true,
        });
        let text = serde_json::to_string(&state).unwrap();
        assert!(text.contains(r#""open":true"#), "{text}");
        assert_eq!(SessionState::from_json(&text).unwrap(), state);
    }

    #[test]
    fn a_consent_answer_round_trips_by_name() {
        let text = serde_json::to_string(&saved(STATE_VERSION)).unwrap();
        assert!(
            text.contains(r#""answer":{"consent":"agreed","evidence":3}"#),
            "{text}"
        );
        assert_eq!(
            SessionState::from_json(&text).unwrap(),
            saved(STATE_VERSION)
        );
    }

    #[test]
    fn times_are_saved_as_iso_text_and_read_back() {
        let mut state = saved(STATE_VERSION);
        state.events = vec![Event::User { text: "hi".into() }];
        state.times = vec![Some(DateTime::parse("2024-05-15T15:00:00").unwrap())];
        let text = serde_json::to_string(&state).unwrap();
        assert!(
            text.contains(r#""times":["2024-05-15T15:00:00"]"#),
            "{text}"
        );
        assert_eq!(SessionState::from_json(&text).unwrap(), state);
    }

    #[test]
    fn a_version_3_state_without_control_is_refused_not_guessed() {
        // Version 3 as written by earlier builds: no `control`. Restoring it
        // under the bundle's default could turn a solo session into a dual
        // one, so it is refused with the version, not migrated.
        let mut value = serde_json::to_value(saved(STATE_VERSION)).unwrap();
        let fields = value.as_object_mut().unwrap();
        fields.remove("control");
        fields.insert("version".to_owned(), serde_json::Value::from(3));
        let err = SessionState::from_json(&value.to_string()).unwrap_err();
        assert!(matches!(err, SessionError::StateVersion(3)), "{err}");
        assert!(
            err.to_string().contains(&format!(
                "version 3 is not supported (this build reads version {STATE_VERSION})"
            )),
            "{err}"
        );
    }

    #[test]
    fn the_control_of_a_state_round_trips_by_name() {
        let text = serde_json::to_string(&saved(STATE_VERSION)).unwrap();
        assert!(text.contains(r#""control":"solo""#), "{text}");
        let back = SessionState::from_json(&text).unwrap();
        assert_eq!(back.control, Some(Control::Solo));
    }

    #[test]
    fn a_state_without_a_version_or_not_json_is_refused() {
        assert!(matches!(
            SessionState::from_json(r#"{"judged":[[3,4]]}"#),
            Err(SessionError::StateVersion(0))
        ));
        assert!(matches!(
            SessionState::from_json("not json"),
            Err(SessionError::StateFormat(_))
        ));
        let wrong_layout = format!(r#"{{"version":{STATE_VERSION},"judged":[[3,4]]}}"#);
        assert!(matches!(
            SessionState::from_json(&wrong_layout),
            Err(SessionError::StateFormat(_))
        ));
    }
}
