//! What a test conversation expects of one event: the `expect` field of a
//! native JSONL line (`allow`, `block <Reason> [at <step>]`, `confirm`,
//! `deviate [<Reason>] [at <step>]`), parsed, checked against what the gate
//! can say about that kind of event, and compared with an observed verdict.

use std::fmt;

use turnstile_engine::session::{EventReport, GateVerdict};
use turnstile_engine::trace::Event;
use turnstile_rules::{EventIdx, Reason};

/// The verdict a test expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// The gated call is allowed (through `at`, when named).
    Allow { at: Option<String> },
    /// The gated call is blocked (for `reason`, at the first unmet step `at`,
    /// when named).
    Block {
        reason: Option<Reason>,
        at: Option<String>,
    },
    /// The gate asks for a person's confirmation of the call.
    Confirm,
    /// The event is out of the workflow's order and writes nothing.
    Deviate {
        reason: Option<Reason>,
        at: Option<String>,
    },
}

/// Why an `expect` text is not an expectation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExpectSyntax {
    #[error("an empty expectation; write allow, block <Reason> [at <step>], confirm or deviate")]
    Empty,
    #[error("unknown verdict `{0}`; write allow, block, confirm or deviate")]
    UnknownVerdict(String),
    #[error("unknown block reason `{word}`{hint}")]
    UnknownReason { word: String, hint: String },
    #[error("`at` must be followed by a step name (`block MissingRead at cancel.read_order`)")]
    MissingStep,
    #[error("unexpected `{0}`; the form is <verdict> [<Reason>] [at <step>]")]
    Trailing(String),
    #[error("`{0}` takes no reason or step")]
    NoArguments(&'static str),
    #[error("`allow` takes no reason, only `at <step>`")]
    AllowReason,
}

/// Every block reason, for parsing and hints.
const REASONS: [Reason; 14] = [
    Reason::NoAuthorization,
    Reason::MissingRead,
    Reason::WrongValue,
    Reason::AmountOutOfBounds,
    Reason::Ungrounded,
    Reason::TooManyCalls,
    Reason::OutOfOrder,
    Reason::DialogueUnmet,
    Reason::MissingStep,
    Reason::UnknownTool,
    Reason::TypeMismatch,
    Reason::AuthorizationUsed,
    Reason::SessionFull,
    Reason::WrongSide,
];

/// A reason's name as verdicts spell it (`MissingRead`).
pub fn reason_label(reason: Reason) -> String {
    format!("{reason:?}")
}

/// A reason from its verdict name (`MissingRead`) or its audit name
/// (`missing_read`).
fn parse_reason(word: &str) -> Option<Reason> {
    REASONS
        .into_iter()
        .find(|r| reason_label(*r) == word || turnstile_engine::audit::reason_name(*r) == word)
}

impl Expected {
    /// Parses `allow`, `block <Reason> [at <step>]`, `confirm`,
    /// `deviate [<Reason>] [at <step>]`.
    pub fn parse(text: &str) -> Result<Expected, ExpectSyntax> {
        let mut words = text.split_whitespace();
        let verdict = words.next().ok_or(ExpectSyntax::Empty)?;
        let rest: Vec<&str> = words.collect();
        let (reason, at) = reason_and_step(&rest)?;
        match verdict {
            "allow" if reason.is_some() => Err(ExpectSyntax::AllowReason),
            "allow" => Ok(Expected::Allow { at }),
            "block" => Ok(Expected::Block { reason, at }),
            "deviate" => Ok(Expected::Deviate { reason, at }),
            "confirm" if reason.is_some() || at.is_some() => {
                Err(ExpectSyntax::NoArguments("confirm"))
            }
            "confirm" => Ok(Expected::Confirm),
            other => Err(ExpectSyntax::UnknownVerdict(other.to_owned())),
        }
    }

    /// The verdict label (`allow`, `block`, ...), as [`GateVerdict::label`]
    /// says it.
    pub fn label(&self) -> &'static str {
        match self {
            Expected::Allow { .. } => "allow",
            Expected::Block { .. } => "block",
            Expected::Confirm => "confirm",
            Expected::Deviate { .. } => "deviate",
        }
    }

    /// The step the expectation names, if any.
    pub fn step(&self) -> Option<&str> {
        match self {
            Expected::Allow { at } | Expected::Block { at, .. } | Expected::Deviate { at, .. } => {
                at.as_deref()
            }
            Expected::Confirm => None,
        }
    }

    /// Why the gate can never say this about `event`, if it cannot: only
    /// calls are allowed, blocked or confirmed; only agent messages and calls
    /// deviate; user messages, tickets and tool results are never decided.
    pub fn impossible_on(&self, event: &Event) -> Option<String> {
        let what = match event {
            Event::Call { .. } => return None,
            Event::Agent { .. } if matches!(self, Expected::Deviate { .. }) => return None,
            Event::Agent { .. } => {
                return Some(format!(
                    "the gate never answers `{}` to an agent message (only `guide` or `deviate`); put it on the call",
                    self.label()
                ));
            }
            Event::User { .. } => "a user message",
            Event::Ticket { .. } => "a ticket",
            Event::Approval { .. } => "a host's approval",
            Event::Result { .. } => "a tool result",
        };
        Some(format!(
            "the gate never decides {what}; put the expectation on the agent event it is about"
        ))
    }

    /// Whether `observed` (the verdict on the event, and for `deviate` the
    /// deviations reported anywhere that point at it) meets the expectation.
    pub fn met_by(&self, observed: &Observed) -> bool {
        let step_ok = |want: &Option<String>, got: Option<&str>| {
            want.as_deref().is_none_or(|w| got == Some(w))
        };
        let reason_ok = |want: &Option<Reason>, got: &Reason| want.is_none_or(|w| w == *got);
        match self {
            Expected::Allow { at } => match &observed.verdict {
                GateVerdict::Allow { step, .. } => step_ok(at, Some(step)),
                _ => false,
            },
            Expected::Block { reason, at } => match &observed.verdict {
                GateVerdict::Block {
                    reason: r, step, ..
                } => reason_ok(reason, r) && step_ok(at, step.as_deref()),
                _ => false,
            },
            Expected::Confirm => observed.verdict.label() == "confirm",
            Expected::Deviate { reason, at } => observed.deviations.iter().any(|d| match d {
                GateVerdict::Deviate {
                    reason: r, step, ..
                } => reason_ok(reason, r) && step_ok(at, step.as_deref()),
                _ => false,
            }),
        }
    }
}

fn reason_and_step(words: &[&str]) -> Result<(Option<Reason>, Option<String>), ExpectSyntax> {
    let mut words = words.iter().copied().peekable();
    let reason = match words.peek() {
        Some(&"at") | None => None,
        Some(word) => {
            let word = *word;
            words.next();
            Some(
                parse_reason(word).ok_or_else(|| ExpectSyntax::UnknownReason {
                    word: word.to_owned(),
                    hint: reason_hint(word),
                })?,
            )
        }
    };
    let at = match words.next() {
        None => None,
        Some("at") => Some(words.next().ok_or(ExpectSyntax::MissingStep)?.to_owned()),
        Some(other) => return Err(ExpectSyntax::Trailing(other.to_owned())),
    };
    if let Some(extra) = words.next() {
        return Err(ExpectSyntax::Trailing(extra.to_owned()));
    }
    Ok((reason, at))
}

fn reason_hint(word: &str) -> String {
    let lower = word.to_lowercase().replace('_', "");
    match REASONS
        .into_iter()
        .find(|r| reason_label(*r).to_lowercase() == lower)
    {
        Some(r) => format!("; did you mean `{}`?", reason_label(r)),
        None => {
            let all: Vec<String> = REASONS.into_iter().map(reason_label).collect();
            format!("; the reasons: {}", all.join(", "))
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())?;
        let reason = match self {
            Expected::Block { reason, .. } | Expected::Deviate { reason, .. } => *reason,
            _ => None,
        };
        if let Some(reason) = reason {
            write!(f, " {}", reason_label(reason))?;
        }
        if let Some(step) = self.step() {
            write!(f, " at {step}")?;
        }
        Ok(())
    }
}

/// What the replay said about an expectation's event.
#[derive(Clone, Debug)]
pub struct Observed {
    /// The verdict on the event itself.
    pub verdict: GateVerdict,
    /// The `deviate` verdicts whose deviation happened at the event (a
    /// user's device call after an unflagged instruction reports the
    /// instruction).
    pub deviations: Vec<GateVerdict>,
}

impl Observed {
    /// What the replay said about event `at`.
    pub fn of(events: &[EventReport], at: EventIdx) -> Option<Observed> {
        let own = events.iter().find(|r| r.event == at)?;
        let deviations = events
            .iter()
            .filter_map(|r| match &r.verdict {
                GateVerdict::Deviate { at: d, .. } if *d == at => Some(r.verdict.clone()),
                _ => None,
            })
            .collect();
        Some(Observed {
            verdict: own.verdict.clone(),
            deviations,
        })
    }

    /// The observed verdict in the expectation's terms: `allow at s`,
    /// `block Reason at s`, `deviate Reason at s`, or the plain label.
    pub fn summary(&self) -> String {
        let shown = self.deviations.first().unwrap_or(&self.verdict);
        verdict_summary(shown)
    }
}

/// A verdict as an expectation would spell it (`block MissingRead at
/// cancel.read_order`), or its label for the verdicts no test expects.
pub fn verdict_summary(verdict: &GateVerdict) -> String {
    match verdict {
        GateVerdict::Allow { step, .. } => format!("allow at {step}"),
        GateVerdict::Block { reason, step, .. } | GateVerdict::Deviate { reason, step, .. } => {
            let mut text = format!("{} {}", verdict.label(), reason_label(*reason));
            if let Some(step) = step {
                text.push_str(&format!(" at {step}"));
            }
            text
        }
        GateVerdict::Unchecked { .. } => "unchecked (the schedule did not fire)".to_owned(),
        other => other.label().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back() {
        for text in [
            "allow",
            "allow at cancel.authorize",
            "block",
            "block MissingRead",
            "block DialogueUnmet at cancel.confirm",
            "block at cancel.confirm",
            "confirm",
            "deviate",
            "deviate MissingStep at service.check_status",
        ] {
            let parsed = Expected::parse(text).unwrap();
            assert_eq!(parsed.to_string(), text);
        }
        assert_eq!(
            Expected::parse("block missing_read").unwrap(),
            Expected::Block {
                reason: Some(Reason::MissingRead),
                at: None
            }
        );
    }

    #[test]
    fn malformed_expectations_say_what_is_wrong() {
        let err = |t| Expected::parse(t).unwrap_err().to_string();
        assert!(err("").contains("empty"));
        assert!(err("permit").contains("unknown verdict `permit`"));
        assert!(err("block Missingread").contains("did you mean `MissingRead`?"));
        assert!(err("block Nope").contains("the reasons: NoAuthorization"));
        assert!(err("block MissingRead at").contains("`at` must be followed"));
        assert!(err("block MissingRead cancel.confirm").contains("unexpected `cancel.confirm`"));
        assert!(err("allow MissingRead").contains("no reason"));
        assert!(err("confirm at x").contains("takes no reason or step"));
        assert!(err("block MissingRead at a b").contains("unexpected `b`"));
    }

    #[test]
    fn only_calls_are_gated_and_only_agent_events_deviate() {
        let call = Event::Call {
            id: "c".into(),
            tool: "t".into(),
            args: serde_json::Value::Null,
            requestor: turnstile_engine::bundle::Side::Agent,
        };
        let agent = Event::Agent { text: "hi".into() };
        let user = Event::User { text: "hi".into() };
        let result = Event::Result {
            id: "c".into(),
            ok: true,
            content: serde_json::Value::Null,
        };
        let allow = Expected::parse("allow").unwrap();
        let deviate = Expected::parse("deviate").unwrap();
        assert_eq!(allow.impossible_on(&call), None);
        assert_eq!(deviate.impossible_on(&call), None);
        assert_eq!(deviate.impossible_on(&agent), None);
        assert!(
            allow
                .impossible_on(&agent)
                .unwrap()
                .contains("agent message")
        );
        assert!(
            deviate
                .impossible_on(&user)
                .unwrap()
                .contains("a user message")
        );
        assert!(
            allow
                .impossible_on(&result)
                .unwrap()
                .contains("a tool result")
        );
    }
}
