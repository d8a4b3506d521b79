//! Strict validation of a model's answer text into one [`Verdict`] per
//! question of a batch.
//!
//! Models wrap JSON in prose or code fences, truncate it, invent labels,
//! skip or repeat questions and cite events that are not in the slice. The
//! answer is one JSON object keyed by question number (`"1"` to `"N"`); each
//! question's member is validated against that question's request alone, so
//! a missing, repeated (the same key twice), malformed or out-of-range
//! answer makes only that question [`Verdict::Unknown`] and never decides
//! another. A body with no JSON object makes every question unknown. Nothing
//! here can produce a positive verdict by accident.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use turnstile_judge::{JudgeRequest, Question, Role, Verdict};

/// A validated answer: the verdict and the model's rationale (may be empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedAnswer {
    /// The validated verdict.
    pub(crate) verdict: Verdict,
    /// The `rationale` field, if the model gave one.
    pub(crate) rationale: String,
}

/// Parses `content` (the model's message text) into one answer per request,
/// in request order; question `i + 1` is `requests[i]`.
#[must_use]
pub(crate) fn parse_answers(content: &str, requests: &[JudgeRequest]) -> Vec<ParsedAnswer> {
    let Some(Members(members)) = first_json_object(content) else {
        return requests
            .iter()
            .map(|_| unknown("answer contains no JSON object"))
            .collect();
    };
    requests
        .iter()
        .enumerate()
        .map(|(i, request)| {
            let key = (i + 1).to_string();
            let mut answers = members.iter().filter(|(k, _)| *k == key);
            match (answers.next(), answers.next()) {
                (None, _) => unknown(&format!("no answer to question {key}")),
                (Some(_), Some(_)) => unknown(&format!("question {key} is answered twice")),
                (Some((_, answer)), None) => parse_one(answer, request, &key),
            }
        })
        .collect()
}

/// Validates the answer to one question.
fn parse_one(answer: &Checked, request: &JudgeRequest, key: &str) -> ParsedAnswer {
    if answer.repeated_field {
        return unknown(&format!("the answer to question {key} repeats a field"));
    }
    let Value::Object(object) = &answer.value else {
        return unknown(&format!(
            "the answer to question {key} is not a JSON object"
        ));
    };
    let rationale = match object.get("rationale") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return unknown("field `rationale` is not a string"),
    };
    let verdict = match &request.question {
        Question::Criterion { said_by, .. } => criterion_verdict(object, request, *said_by),
        // Consent is the user's to give: the evidence is a user turn.
        Question::Consent { .. } => criterion_verdict(object, request, Role::User),
        Question::Classify { branches } => {
            let labels: Vec<&str> = branches.iter().map(|b| b.label.as_str()).collect();
            classify_verdict(object, request, &labels)
        }
    };
    ParsedAnswer { verdict, rationale }
}

fn unknown(reason: &str) -> ParsedAnswer {
    ParsedAnswer {
        verdict: Verdict::unknown(reason),
        rationale: String::new(),
    }
}

/// A criterion's evidence must be a turn of the speaker whose words decide
/// it (`said_by`: the user for a consent or a stated reason, the agent for
/// an offer or a refusal the agent must make), never a tool's output.
fn criterion_verdict(
    object: &Map<String, Value>,
    request: &JudgeRequest,
    said_by: Role,
) -> Verdict {
    let Some(verdict) = object.get("verdict") else {
        return Verdict::unknown("answer lacks field `verdict`");
    };
    let Some(verdict) = verdict.as_str() else {
        return Verdict::unknown("field `verdict` is not a string");
    };
    match verdict {
        "satisfied" => match evidence(object, request, said_by) {
            Ok(evidence_event) => Verdict::Satisfied { evidence_event },
            Err(reason) => Verdict::Unknown { reason },
        },
        "not_satisfied" => Verdict::NotSatisfied,
        "unknown" => Verdict::unknown("the judge could not decide"),
        other => Verdict::unknown(format!("field `verdict` has unexpected value {other:?}")),
    }
}

fn classify_verdict(
    object: &Map<String, Value>,
    request: &JudgeRequest,
    labels: &[&str],
) -> Verdict {
    let label = match object.get("label") {
        None => return Verdict::unknown("answer lacks field `label`"),
        Some(Value::Null) => return Verdict::unknown("the judge could not classify"),
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Verdict::unknown("field `label` is not a string"),
    };
    if label == "unknown" && !labels.contains(&"unknown") {
        return Verdict::unknown("the judge could not classify");
    }
    if !labels.contains(&label) {
        return Verdict::unknown(format!("label {label:?} is not one of the branches"));
    }
    match evidence(object, request, Role::User) {
        Ok(evidence_event) => Verdict::Chosen {
            label: label.to_owned(),
            evidence_event,
        },
        Err(reason) => Verdict::Unknown { reason },
    }
}

/// The cited evidence event: in the request's slice and said by `speaker`.
fn evidence(
    object: &Map<String, Value>,
    request: &JudgeRequest,
    speaker: Role,
) -> Result<u32, String> {
    let value = object
        .get("evidence_event")
        .ok_or_else(|| "answer lacks field `evidence_event`".to_owned())?;
    let index = value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| "field `evidence_event` is not a non-negative integer".to_owned())?;
    let turn = request
        .turn_at(index)
        .ok_or_else(|| format!("evidence_event {index} is not in the conversation slice"))?;
    if turn.role != speaker {
        return Err(format!(
            "evidence_event {index} is a {} turn, not a {} turn",
            turn.role.as_str(),
            speaker.as_str()
        ));
    }
    Ok(index)
}

/// The members of the first balanced `{...}` in `text` that parses as a
/// JSON object.
///
/// Brace matching skips braces inside JSON strings, so prose before or after
/// the object and ```json fences are tolerated; a truncated object never
/// balances and yields `None`.
#[must_use]
fn first_json_object(text: &str) -> Option<Members> {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'{')
        .find_map(|(open, _)| {
            let from_open = bytes.get(open..)?;
            let close = matching_brace(from_open)?;
            serde_json::from_slice::<Members>(from_open.get(..=close)?).ok()
        })
}

/// A JSON object's members in the order written, repeated keys kept (a
/// `serde_json::Map` would keep only the last, silently).
struct Members(Vec<(String, Checked)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Checked>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// A JSON value and whether any object inside it repeats a key (where
/// `serde_json` keeps the last: `{"verdict":"not_satisfied","verdict":"satisfied"}`
/// must not read as satisfied).
struct Checked {
    value: Value,
    repeated_field: bool,
}

impl Checked {
    fn plain(value: Value) -> Self {
        Self {
            value,
            repeated_field: false,
        }
    }
}

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Checked, E> {
        Ok(Checked::plain(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Checked, E> {
        Ok(Checked::plain(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Checked, E> {
        Ok(Checked::plain(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Checked, E> {
        Ok(Checked::plain(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Checked, E> {
        Ok(Checked::plain(Value::String(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Checked, E> {
        Ok(Checked::plain(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked::plain(Value::Null))
    }

    fn visit_none<E>(self) -> Result<Checked, E> {
        Ok(Checked::plain(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        let mut items = Vec::new();
        let mut repeated_field = false;
        while let Some(item) = seq.next_element::<Checked>()? {
            repeated_field |= item.repeated_field;
            items.push(item.value);
        }
        Ok(Checked {
            value: Value::Array(items),
            repeated_field,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut object = Map::new();
        let mut repeated_field = false;
        while let Some((key, item)) = map.next_entry::<String, Checked>()? {
            repeated_field |= item.repeated_field;
            repeated_field |= object.insert(key, item.value).is_some();
        }
        Ok(Checked {
            value: Value::Object(object),
            repeated_field,
        })
    }
}

/// Index (relative to `bytes`, which starts with `{`) of the brace closing it.
fn matching_brace(bytes: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use turnstile_judge::{Branch, Turn};

    fn criterion() -> JudgeRequest {
        JudgeRequest {
            bundle_hash: "b".into(),
            node_id: "n".into(),
            question: Question::Criterion {
                text: "the user explicitly confirmed".into(),
                keywords: Vec::new(),
                said_by: Role::User,
                key_values: Vec::new(),
            },
            policy_excerpt: None,
            bindings: BTreeMap::new(),
            conversation: vec![
                Turn::new(4, Role::Agent, "Shall I cancel #W1?"),
                Turn::new(5, Role::User, "yes"),
            ]
            .into(),
        }
    }

    fn classify() -> JudgeRequest {
        let mut r = criterion();
        r.question = Question::Classify {
            branches: vec![
                Branch {
                    label: "cancel".into(),
                    description: String::new(),
                    keywords: vec![],
                    actions: Vec::new(),
                },
                Branch {
                    label: "general".into(),
                    description: String::new(),
                    keywords: vec![],
                    actions: Vec::new(),
                },
            ],
        };
        r
    }

    /// The answer to a one-question batch whose member is `member`.
    fn parse_answer(member: &str, request: &JudgeRequest) -> ParsedAnswer {
        let content = format!("{{\"1\": {member}}}");
        parse_answers(&content, std::slice::from_ref(request))
            .pop()
            .unwrap()
    }

    fn is_unknown(a: &ParsedAnswer) -> bool {
        matches!(a.verdict, Verdict::Unknown { .. })
    }

    #[test]
    fn accepts_wrapped_json() {
        let text = "Sure! Here it is:\n```json\n{\"1\": {\"verdict\":\"satisfied\",\"evidence_event\":5,\"rationale\":\"said {yes}\"}}\n```";
        let a = parse_answers(text, &[criterion()]).pop().unwrap();
        assert_eq!(a.verdict, Verdict::Satisfied { evidence_event: 5 });
        assert_eq!(a.rationale, "said {yes}");
    }

    #[test]
    fn rejects_bad_answers() {
        for text in [
            "",
            "yes",
            "{\"verdict\":\"satisfied\",\"evidence_event\":5",
            "{\"verdict\":3}",
            "{\"verdict\":\"satisfied\"}",
            "{\"verdict\":\"satisfied\",\"evidence_event\":9}",
            "{\"verdict\":\"satisfied\",\"evidence_event\":4}",
            "{\"verdict\":\"satisfied\",\"evidence_event\":-1}",
            "{\"verdict\":\"maybe\"}",
            "{\"verdict\":\"unknown\"}",
            "{\"verdict\":\"satisfied\",\"evidence_event\":5,\"rationale\":7}",
            "[{\"verdict\":\"satisfied\",\"evidence_event\":5}]",
            "{\"verdict\":\"not_satisfied\",\"verdict\":\"satisfied\",\"evidence_event\":5}",
        ] {
            let a = parse_answer(text, &criterion());
            assert!(is_unknown(&a), "{text:?} -> {:?}", a.verdict);
        }
        let a = parse_answer("{\"verdict\":\"not_satisfied\"}", &criterion());
        assert_eq!(a.verdict, Verdict::NotSatisfied);
        // A bare single answer, not keyed by its number, is not accepted.
        let bare = parse_answers(
            "{\"verdict\":\"satisfied\",\"evidence_event\":5}",
            &[criterion()],
        );
        assert!(is_unknown(&bare[0]), "{bare:?}");
    }

    #[test]
    fn evidence_is_a_turn_of_the_speaker_the_criterion_names() {
        // A refusal the agent must make: the agent's turn is the evidence,
        // even though the criterion's text names the user.
        let mut refusal = criterion();
        refusal.question = Question::Criterion {
            text: "the agent told the user the order cannot be cancelled".into(),
            keywords: Vec::new(),
            said_by: Role::Agent,
            key_values: Vec::new(),
        };
        let member = "{\"verdict\":\"satisfied\",\"evidence_event\":4}";
        assert_eq!(
            parse_answer(member, &refusal).verdict,
            Verdict::Satisfied { evidence_event: 4 }
        );
        let by_user = "{\"verdict\":\"satisfied\",\"evidence_event\":5}";
        assert!(is_unknown(&parse_answer(by_user, &refusal)));
        // A user criterion whose text does not name the user still needs
        // the user's turn.
        let mut reason = criterion();
        reason.question = Question::Criterion {
            text: "the reason is that it was ordered by mistake".into(),
            keywords: Vec::new(),
            said_by: Role::User,
            key_values: Vec::new(),
        };
        assert!(is_unknown(&parse_answer(member, &reason)));
        assert!(parse_answer(by_user, &reason).verdict.is_satisfied());
    }

    #[test]
    fn classify_checks_label() {
        let ok = parse_answer("{\"label\":\"cancel\",\"evidence_event\":5}", &classify());
        assert_eq!(
            ok.verdict,
            Verdict::Chosen {
                label: "cancel".into(),
                evidence_event: 5
            }
        );
        for text in [
            "{\"label\":\"refund\",\"evidence_event\":5}",
            "{\"label\":null}",
            "{\"label\":\"cancel\",\"evidence_event\":4}",
            "{\"verdict\":\"satisfied\",\"evidence_event\":5}",
        ] {
            let a = parse_answer(text, &classify());
            assert!(!a.verdict.is_satisfied(), "{text:?}");
        }
    }

    #[test]
    fn skips_unparsable_brace_groups() {
        let text = "{not json} then {\"1\": {\"verdict\":\"not_satisfied\"}}";
        assert_eq!(
            parse_answers(text, &[criterion()])[0].verdict,
            Verdict::NotSatisfied
        );
    }

    #[test]
    fn each_question_gets_its_own_member_in_any_order() {
        let requests = [criterion(), classify(), criterion()];
        let text = r#"{"3": {"verdict":"not_satisfied"},
                       "1": {"verdict":"satisfied","evidence_event":5},
                       "2": {"label":"general","evidence_event":5}}"#;
        let answers = parse_answers(text, &requests);
        assert_eq!(answers[0].verdict, Verdict::Satisfied { evidence_event: 5 });
        assert_eq!(
            answers[1].verdict,
            Verdict::Chosen {
                label: "general".into(),
                evidence_event: 5
            }
        );
        assert_eq!(answers[2].verdict, Verdict::NotSatisfied);
    }

    #[test]
    fn a_bad_member_spoils_only_its_question() {
        let requests = [
            criterion(),
            criterion(),
            criterion(),
            criterion(),
            criterion(),
        ];
        // 1 fine; 2 answered twice; 3 missing; 4 not an object; 5 repeats a
        // field; plus keys that name no question (0, 6, "01", "x").
        let text = r#"{"0": {"verdict":"satisfied","evidence_event":5},
                       "1": {"verdict":"satisfied","evidence_event":5},
                       "2": {"verdict":"satisfied","evidence_event":5},
                       "2": {"verdict":"not_satisfied"},
                       "4": "satisfied",
                       "5": {"verdict":"not_satisfied","verdict":"satisfied","evidence_event":5},
                       "6": {"verdict":"satisfied","evidence_event":5},
                       "01": {"verdict":"satisfied","evidence_event":5},
                       "x": {"verdict":"satisfied","evidence_event":5}}"#;
        let answers = parse_answers(text, &requests);
        assert_eq!(answers[0].verdict, Verdict::Satisfied { evidence_event: 5 });
        for (i, a) in answers.iter().enumerate().skip(1) {
            assert!(is_unknown(a), "question {} -> {:?}", i + 1, a.verdict);
        }
        let Verdict::Unknown { reason } = &answers[1].verdict else {
            unreachable!()
        };
        assert!(reason.contains("twice"), "{reason}");
        let Verdict::Unknown { reason } = &answers[2].verdict else {
            unreachable!()
        };
        assert!(reason.contains("no answer to question 3"), "{reason}");
    }

    #[test]
    fn garbage_makes_every_question_unknown() {
        let requests = [criterion(), classify()];
        for text in [
            "",
            "I cannot help with that.",
            "{\"1\": {\"verdict\":",
            "[1, 2]",
        ] {
            let answers = parse_answers(text, &requests);
            assert_eq!(answers.len(), 2);
            assert!(answers.iter().all(is_unknown), "{text:?} -> {answers:?}");
        }
    }

    #[test]
    fn a_consent_answer_needs_a_user_turn_as_evidence() {
        let mut consent = criterion();
        consent.question = Question::Consent {
            tool: "cancel_pending_order".into(),
            call: "Cancel order #W1?".into(),
        };
        let by_user = "{\"verdict\":\"satisfied\",\"evidence_event\":5}";
        let by_agent = "{\"verdict\":\"satisfied\",\"evidence_event\":4}";
        assert_eq!(
            parse_answer(by_user, &consent).verdict,
            Verdict::Satisfied { evidence_event: 5 }
        );
        assert!(is_unknown(&parse_answer(by_agent, &consent)));
        assert_eq!(
            parse_answer("{\"verdict\":\"not_satisfied\"}", &consent).verdict,
            Verdict::NotSatisfied
        );
        assert!(is_unknown(&parse_answer(
            "{\"label\":\"cancel\"}",
            &consent
        )));
    }
}
