//! What a session says about an event: the gate verdict (allow, block,
//! guide, observe, unchecked), the requests open at a firing with their
//! cursors, and the per-event report that carries both.
//!
//! The report serializes straight to its JSON (`serde_json::to_vec`), with
//! every object's keys in sorted order: the order a `serde_json::Value`
//! built without `preserve_order` (the shipped binary) writes, so the bytes
//! are those the gate wrote when it went through a `Value` tree, and do not
//! depend on whether a build turns `preserve_order` on. Hence the fields of
//! the types below are declared in alphabetical order, and the report,
//! whose verdict's fields sit among its own, has a [`Serialize`] of its own
//! (`ReportJson`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use turnstile_rules::{EventIdx, Reason};

use crate::trace::Approver;

use turnstile_judge::Verdict;

/// What the judge said, for reports. Fields in key order, and the verdict
/// written with sorted keys too (module docs: a report's bytes do not
/// depend on `serde_json`'s `preserve_order`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeNote {
    /// The event before which the judge was asked.
    pub at: EventIdx,
    /// The step asked about (a node, or `decision[label]`).
    pub node: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    /// The judge's stated reason, if any.
    pub rationale: String,
    /// Why a positive answer was not accepted, if it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    /// The request's bindings by variable name.
    pub request: BTreeMap<String, String>,
    /// What the judge answered.
    #[serde(serialize_with = "verdict_sorted")]
    pub verdict: Verdict,
}

/// A judge's [`Verdict`] as an object with sorted keys: its tag
/// (`verdict`) sorts after its fields, where the derived `Serialize` writes
/// it first.
fn verdict_sorted<S: serde::Serializer>(
    verdict: &Verdict,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Sorted<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        evidence_event: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        label: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
        verdict: &'static str,
    }
    let sorted = match verdict {
        Verdict::Satisfied { evidence_event } => Sorted {
            evidence_event: Some(*evidence_event),
            label: None,
            reason: None,
            verdict: "satisfied",
        },
        Verdict::Chosen {
            label,
            evidence_event,
        } => Sorted {
            evidence_event: Some(*evidence_event),
            label: Some(label),
            reason: None,
            verdict: "chosen",
        },
        Verdict::NotSatisfied => Sorted {
            evidence_event: None,
            label: None,
            reason: None,
            verdict: "not_satisfied",
        },
        Verdict::Unknown { reason } => Sorted {
            evidence_event: None,
            label: None,
            reason: Some(reason),
            verdict: "unknown",
        },
    };
    sorted.serialize(serializer)
}

/// Request bindings by variable name (`order -> "#W1"`).
pub type Bindings = BTreeMap<String, String>;

/// The verdict on one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum GateVerdict {
    /// The mutating call is authorized: this request's path reached `step`.
    Allow {
        /// The authorizing step.
        step: String,
        /// The bindings of the request whose path reached it.
        request: Bindings,
        /// The host's approval that stood for the user's consent, if one did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        approved: Option<Approved>,
        /// The model judge's reading of the user's consent, when it decided
        /// what the offline reader could not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        consent_by_judge: Option<ConsentByJudge>,
    },
    /// The mutating call is not authorized.
    Block {
        /// Why the call is not authorized.
        reason: Reason,
        /// The first unmet step on the path that came closest.
        step: Option<String>,
        /// The bindings of that request.
        request: Bindings,
        /// What the agent should do instead, from the unmet step's template.
        remediation: Option<String>,
        /// Which conditions failed, with the values read.
        explanation: String,
    },
    /// The mutating call meets every formal check and lacks only the user's
    /// consent, which the conversation does not settle: the call does not
    /// run. The host asks the user (`confirmation`) and sends the answer
    /// as an `approval` event; a host that treats this as a block is safe.
    Confirm {
        /// The first unmet step on the path that came closest.
        step: Option<String>,
        /// The bindings of that request.
        request: Bindings,
        /// What to ask the user, in a form a UI shows as approve/decline
        /// (boxed: the verdict stays small).
        confirmation: Box<Confirmation>,
        /// What the conversation says about the consent.
        consent: ConsentState,
        /// Which conditions failed, with the values read.
        explanation: String,
        /// The questions only meaning decides that the judge could answer
        /// neither yes nor no, which the write also waits on: the person
        /// who approves the call decides them too.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        undecided: Vec<Undecided>,
    },
    /// Any other agent event: what each open request needs next.
    Guide {
        /// Per open request: the step it waits at and its remediation.
        guidance: Vec<Guidance>,
    },
    /// An agent event out of the workflow's order that writes nothing (a fix
    /// instructed before its diagnosis, a claim before its verification):
    /// reported where it happens, so the agent is told before it goes on.
    Deviate {
        /// Why: the prerequisite never happened (`missing_step`).
        reason: Reason,
        /// What the agent did out of order (`instructs toggle_data`,
        /// `claims resolved`).
        action: String,
        /// The first unmet step: the node that had to come first.
        step: Option<String>,
        /// What the agent should do instead.
        remediation: Option<String>,
        /// What was missing, in words.
        explanation: String,
        /// The agent event where the deviation happened: this event, or the
        /// instruction that the user's device call at this event followed.
        at: EventIdx,
    },
    /// Not an agent event: nothing to decide.
    Observe,
    /// An agent event the schedule does not fire on. `would_block`: the
    /// monitor's decision had it fired (a deviation this schedule misses).
    Unchecked {
        /// Whether the monitor would have blocked the event.
        would_block: bool,
    },
}

impl GateVerdict {
    /// Whether the verdict is a block.
    pub fn is_block(&self) -> bool {
        matches!(self, GateVerdict::Block { .. })
    }

    /// Whether the verdict asks for the user's confirmation.
    pub fn is_confirm(&self) -> bool {
        matches!(self, GateVerdict::Confirm { .. })
    }

    /// Whether the call must not run: a block, or a confirmation asked.
    pub fn withholds(&self) -> bool {
        self.is_block() || self.is_confirm()
    }

    /// Whether the verdict is a deviation without a write.
    pub fn is_deviation(&self) -> bool {
        matches!(self, GateVerdict::Deviate { .. })
    }

    /// The verdict's name as reported (`allow`, `block`, ...).
    pub fn label(&self) -> &'static str {
        match self {
            GateVerdict::Allow { .. } => "allow",
            GateVerdict::Block { .. } => "block",
            GateVerdict::Confirm { .. } => "confirm",
            GateVerdict::Guide { .. } => "guide",
            GateVerdict::Deviate { .. } => "deviate",
            GateVerdict::Observe => "observe",
            GateVerdict::Unchecked { .. } => "unchecked",
        }
    }
}

/// The approval a call was allowed on. Fields in key order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approved {
    /// Who approved.
    pub by: Approver,
    /// The call the gate answered `confirm`, which the approval named.
    pub call: String,
}

/// The consent a model judge read for an allowed write: the user turn
/// it read the agreement in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentByJudge {
    /// The user turn the judge read the agreement in.
    pub evidence: EventIdx,
}

/// A canonical confirmation request: the call, its tool, the text to show
/// and the call's details. Fields in key order (module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The id of the call awaiting approval (what an `approval` names).
    pub call: String,
    /// The call's arguments, by name, in name order.
    pub details: Vec<Detail>,
    /// The question, from the tool's `confirmation:` template or its name
    /// and arguments.
    pub text: String,
    /// The tool called.
    pub tool: String,
}

/// A question about the conversation the judge could not decide: its
/// step and what it asks. Fields in key order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undecided {
    /// What the step asks of the conversation, as the bundle words it.
    pub question: String,
    /// The step (`classify[wipe_laptop]`).
    pub step: String,
}

/// One argument of a call awaiting approval. Fields in key order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detail {
    /// The parameter's name.
    pub name: String,
    /// Its value: a string as it is, anything else as JSON.
    pub value: String,
}

/// What the conversation says about the user's consent to a write that
/// lacks only it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsentState {
    /// The user never answered a request for this decision: the agent
    /// never asked, or got no reply.
    Absent,
    /// The user replied, but the reply cannot be read as a clear yes (a
    /// yes with a condition, a question, an unrelated remark).
    Qualified,
    /// The user refused or withdrew: never `confirm`, always `block`.
    Refused,
    /// A model judge was asked and could not answer.
    Unknown,
    /// The consent holds: the write waits only on questions the judge
    /// could not decide (`undecided`).
    Given,
}

impl ConsentState {
    /// The name as reported.
    pub fn label(self) -> &'static str {
        match self {
            ConsentState::Absent => "absent",
            ConsentState::Qualified => "qualified",
            ConsentState::Refused => "refused",
            ConsentState::Unknown => "unknown",
            ConsentState::Given => "given",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// What one open request needs next. Fields in key order (module docs).
pub struct Guidance {
    /// The remediation at that step.
    pub remediation: Option<String>,
    /// The request's bindings.
    pub request: Bindings,
    /// The step it waits at.
    pub step: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
/// Where a request stands at a firing.
pub enum RequestStatus {
    /// First seen at this firing.
    Open,
    /// Seen at an earlier firing, not finished.
    Continuing,
    /// Reached an exit.
    Done,
}

/// One request at a firing: its bindings, status and cursor. Fields in key
/// order (module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestView {
    /// The steps it waits at.
    pub cursor: Vec<Cursor>,
    /// The request's bindings.
    pub request: Bindings,
    /// Where it stands.
    pub status: RequestStatus,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// A step a request waits at. Fields in key order (module docs).
pub struct Cursor {
    /// Waiting for a judge verdict rather than for data.
    pub needs_judge: bool,
    /// The remediation at that step.
    pub remediation: Option<String>,
    /// The step's display name.
    pub step: String,
}

/// Everything a session says about one event. Serialized with sorted keys
/// through `ReportJson`; read back by the derived `Deserialize`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct EventReport {
    /// The event's index.
    pub event: EventIdx,
    /// A short description (`user`, `call get_order`, ...).
    pub kind: String,
    /// An agent call of a mutating (gated) tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mutating: bool,
    /// Whether the schedule fired on the event.
    pub fired: bool,
    #[serde(flatten)]
    /// The verdict.
    pub verdict: GateVerdict,
    #[serde(default, deserialize_with = "shared_views")]
    /// The requests at the firing, shared with the session's view cache
    /// (a report holds its views without copying them).
    pub requests: Vec<Arc<RequestView>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// What the judge was asked and said.
    pub judge: Vec<JudgeNote>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Malformed input at this event (a result with no open call, a reused
    /// call id, a call attributed to the wrong side); such input satisfies
    /// nothing.
    pub anomalies: Vec<String>,
}

impl Serialize for EventReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ReportJson::of(self).serialize(serializer)
    }
}

/// An [`EventReport`] as JSON: its fields and its verdict's in one object,
/// keys in sorted order (module docs), borrowed from the report. A key the
/// verdict does not have is left out; a verdict's optional field that is
/// empty is `null` (`Some(None)`), as the `Value` tree wrote it.
#[derive(Serialize)]
struct ReportJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    anomalies: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    approved: Option<&'a Approved>,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<EventIdx>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confirmation: Option<&'a Confirmation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consent: Option<ConsentState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consent_by_judge: Option<ConsentByJudge>,
    event: EventIdx,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<&'a str>,
    fired: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    guidance: Option<&'a [Guidance]>,
    #[serde(skip_serializing_if = "<[JudgeNote]>::is_empty")]
    judge: &'a [JudgeNote],
    kind: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    mutating: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<Reason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    remediation: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request: Option<&'a Bindings>,
    #[serde(
        skip_serializing_if = "<[Arc<RequestView>]>::is_empty",
        serialize_with = "views_as_seq"
    )]
    requests: &'a [Arc<RequestView>],
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "<[Undecided]>::is_empty")]
    undecided: &'a [Undecided],
    verdict: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    would_block: Option<bool>,
}

impl<'a> ReportJson<'a> {
    fn of(report: &'a EventReport) -> Self {
        let mut json = ReportJson {
            action: None,
            anomalies: &report.anomalies,
            approved: None,
            at: None,
            confirmation: None,
            consent: None,
            consent_by_judge: None,
            event: report.event,
            explanation: None,
            fired: report.fired,
            guidance: None,
            judge: &report.judge,
            kind: &report.kind,
            mutating: report.mutating,
            reason: None,
            remediation: None,
            request: None,
            requests: &report.requests,
            step: None,
            undecided: &[],
            verdict: report.verdict.label(),
            would_block: None,
        };
        match &report.verdict {
            GateVerdict::Allow {
                step,
                request,
                approved,
                consent_by_judge,
            } => {
                json.step = Some(Some(step));
                json.request = Some(request);
                json.approved = approved.as_ref();
                json.consent_by_judge = *consent_by_judge;
            }
            GateVerdict::Block {
                reason,
                step,
                request,
                remediation,
                explanation,
            } => {
                json.reason = Some(*reason);
                json.step = Some(step.as_deref());
                json.request = Some(request);
                json.remediation = Some(remediation.as_deref());
                json.explanation = Some(explanation);
            }
            GateVerdict::Confirm {
                step,
                request,
                confirmation,
                consent,
                explanation,
                undecided,
            } => {
                json.step = Some(step.as_deref());
                json.request = Some(request);
                json.confirmation = Some(confirmation);
                json.consent = Some(*consent);
                json.explanation = Some(explanation);
                json.undecided = undecided;
            }
            GateVerdict::Guide { guidance } => json.guidance = Some(guidance),
            GateVerdict::Deviate {
                reason,
                action,
                step,
                remediation,
                explanation,
                at,
            } => {
                json.reason = Some(*reason);
                json.action = Some(action);
                json.step = Some(step.as_deref());
                json.remediation = Some(remediation.as_deref());
                json.explanation = Some(explanation);
                json.at = Some(*at);
            }
            GateVerdict::Observe => {}
            GateVerdict::Unchecked { would_block } => json.would_block = Some(*would_block),
        }
        json
    }
}

/// The views as a JSON array of the views themselves (`serde`'s own
/// `Arc` support is behind its `rc` feature, which this workspace does not
/// turn on).
fn views_as_seq<S: Serializer>(
    views: &&[Arc<RequestView>],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(views.iter().map(|view| &**view))
}

/// The views read back, each in its own `Arc`.
fn shared_views<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Arc<RequestView>>, D::Error> {
    let views = Vec::<RequestView>::deserialize(deserializer)?;
    Ok(views.into_iter().map(Arc::new).collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use turnstile_judge::Verdict;

    use super::*;

    fn bindings(pairs: &[(&str, &str)]) -> Bindings {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn report(verdict: GateVerdict) -> EventReport {
        EventReport {
            event: EventIdx(7),
            kind: "call cancel_pending_order".to_owned(),
            mutating: true,
            fired: true,
            verdict,
            requests: Vec::new(),
            judge: Vec::new(),
            anomalies: Vec::new(),
        }
    }

    /// The bytes are pinned: they hold in a build with `serde_json`'s
    /// `preserve_order` (a workspace build) and without (the CLI's), and
    /// equal what the gate wrote through a `Value` tree without it.
    #[test]
    fn reports_serialize_with_sorted_keys_whatever_the_build() {
        let allow = report(GateVerdict::Allow {
            step: "authorize".to_owned(),
            request: bindings(&[("user", "u1"), ("order", "#W1")]),
            approved: None,
            consent_by_judge: None,
        });
        let approved = report(GateVerdict::Allow {
            step: "authorize".to_owned(),
            request: bindings(&[("order", "#W1")]),
            approved: Some(Approved {
                by: Approver::User,
                call: "c3".to_owned(),
            }),
            consent_by_judge: None,
        });
        let judged = report(GateVerdict::Allow {
            step: "authorize".to_owned(),
            request: bindings(&[("order", "#W1")]),
            approved: None,
            consent_by_judge: Some(ConsentByJudge {
                evidence: EventIdx(5),
            }),
        });
        assert_eq!(
            serde_json::to_string(&judged).unwrap(),
            r##"{"consent_by_judge":{"evidence":5},"event":7,"fired":true,"kind":"call cancel_pending_order","mutating":true,"request":{"order":"#W1"},"step":"authorize","verdict":"allow"}"##
        );
        assert_eq!(
            serde_json::to_string(&approved).unwrap(),
            r##"{"approved":{"by":"user","call":"c3"},"event":7,"fired":true,"kind":"call cancel_pending_order","mutating":true,"request":{"order":"#W1"},"step":"authorize","verdict":"allow"}"##
        );
        assert_eq!(
            serde_json::to_string(&allow).unwrap(),
            r##"{"event":7,"fired":true,"kind":"call cancel_pending_order","mutating":true,"request":{"order":"#W1","user":"u1"},"step":"authorize","verdict":"allow"}"##
        );
        let mut block = report(GateVerdict::Block {
            reason: Reason::MissingStep,
            step: None,
            request: Bindings::new(),
            remediation: None,
            explanation: "no \"path\"".to_owned(),
        });
        block.anomalies.push("orphan result".to_owned());
        block.judge.push(JudgeNote {
            at: EventIdx(6),
            node: "confirm".to_owned(),
            rationale: String::new(),
            rejected: Some("too early".to_owned()),
            request: bindings(&[("order", "#W1")]),
            verdict: Verdict::Chosen {
                label: "yes".to_owned(),
                evidence_event: 5,
            },
        });
        assert_eq!(
            serde_json::to_string(&block).unwrap(),
            r##"{"anomalies":["orphan result"],"event":7,"explanation":"no \"path\"","fired":true,"judge":[{"at":6,"node":"confirm","rejected":"too early","request":{"order":"#W1"},"verdict":{"evidence_event":5,"label":"yes","verdict":"chosen"}}],"kind":"call cancel_pending_order","mutating":true,"reason":"MissingStep","remediation":null,"request":{},"step":null,"verdict":"block"}"##
        );
        let mut guide = report(GateVerdict::Guide {
            guidance: vec![Guidance {
                remediation: Some("ask".to_owned()),
                request: bindings(&[("order", "#W1")]),
                step: "confirm".to_owned(),
            }],
        });
        guide.mutating = false;
        guide.requests.push(Arc::new(RequestView {
            cursor: vec![Cursor {
                needs_judge: true,
                remediation: None,
                step: "confirm".to_owned(),
            }],
            request: bindings(&[("order", "#W1")]),
            status: RequestStatus::Continuing,
        }));
        assert_eq!(
            serde_json::to_string(&guide).unwrap(),
            r##"{"event":7,"fired":true,"guidance":[{"remediation":"ask","request":{"order":"#W1"},"step":"confirm"}],"kind":"call cancel_pending_order","requests":[{"cursor":[{"needs_judge":true,"remediation":null,"step":"confirm"}],"request":{"order":"#W1"},"status":"continuing"}],"verdict":"guide"}"##
        );
        let deviate = report(GateVerdict::Deviate {
            reason: Reason::MissingStep,
            action: "claims resolved".to_owned(),
            step: Some("verify".to_owned()),
            remediation: Some("verify first".to_owned()),
            explanation: "no verification".to_owned(),
            at: EventIdx(3),
        });
        assert_eq!(
            serde_json::to_string(&deviate).unwrap(),
            r##"{"action":"claims resolved","at":3,"event":7,"explanation":"no verification","fired":true,"kind":"call cancel_pending_order","mutating":true,"reason":"MissingStep","remediation":"verify first","step":"verify","verdict":"deviate"}"##
        );
        let confirm = report(GateVerdict::Confirm {
            step: Some("authorize".to_owned()),
            request: bindings(&[("order", "#W1")]),
            confirmation: Box::new(Confirmation {
                call: "c3".to_owned(),
                details: vec![Detail {
                    name: "order_id".to_owned(),
                    value: "#W1".to_owned(),
                }],
                text: "Cancel order #W1?".to_owned(),
                tool: "cancel_pending_order".to_owned(),
            }),
            consent: ConsentState::Qualified,
            explanation: "no yes".to_owned(),
            undecided: Vec::new(),
        });
        assert_eq!(
            serde_json::to_string(&confirm).unwrap(),
            r##"{"confirmation":{"call":"c3","details":[{"name":"order_id","value":"#W1"}],"text":"Cancel order #W1?","tool":"cancel_pending_order"},"consent":"qualified","event":7,"explanation":"no yes","fired":true,"kind":"call cancel_pending_order","mutating":true,"request":{"order":"#W1"},"step":"authorize","verdict":"confirm"}"##
        );
        let undecided = report(GateVerdict::Confirm {
            step: Some("classify[wipe]".to_owned()),
            request: bindings(&[("employee", "E1")]),
            confirmation: Box::new(Confirmation {
                call: "c4".to_owned(),
                details: Vec::new(),
                text: "wipe_device()?".to_owned(),
                tool: "wipe_device".to_owned(),
            }),
            consent: ConsentState::Given,
            explanation: "undecided".to_owned(),
            undecided: vec![Undecided {
                question: "The employee asks to wipe a laptop.".to_owned(),
                step: "classify[wipe]".to_owned(),
            }],
        });
        let text = serde_json::to_string(&undecided).unwrap();
        assert!(
            text.contains(r#""consent":"given""#)
                && text.contains(r#""undecided":[{"question":"The employee asks to wipe a laptop.","step":"classify[wipe]"}]"#),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<EventReport>(&text).unwrap(),
            undecided
        );
        let unchecked = report(GateVerdict::Unchecked { would_block: true });
        assert_eq!(
            serde_json::to_string(&unchecked).unwrap(),
            r##"{"event":7,"fired":true,"kind":"call cancel_pending_order","mutating":true,"verdict":"unchecked","would_block":true}"##
        );
        for report in [allow, approved, block, confirm, guide, deviate, unchecked] {
            let text = serde_json::to_string(&report).unwrap();
            let read: EventReport = serde_json::from_str(&text).unwrap();
            assert_eq!(read, report, "{text}");
        }
    }
}
