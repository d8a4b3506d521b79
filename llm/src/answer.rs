//! Strict validation of a model's answer text into a [`Verdict`].
//!
//! Models wrap JSON in prose or code fences, truncate it, invent labels and
//! cite events that are not in the slice. Everything that is not a well-formed
//! answer about *this* request becomes [`Verdict::Unknown`]; nothing here can
//! produce a positive verdict by accident.

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

/// Parses and validates `content` (the model's message text) against `request`.
#[must_use]
pub(crate) fn parse_answer(content: &str, request: &JudgeRequest) -> ParsedAnswer {
    let Some(object) = first_json_object(content) else {
        return unknown("answer contains no JSON object");
    };
    let rationale = match object.get("rationale") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return unknown("field `rationale` is not a string"),
    };
    let verdict = match &request.question {
        Question::Criterion { text, .. } => criterion_verdict(&object, request, about_user(text)),
        Question::Classify { branches } => {
            let labels: Vec<&str> = branches.iter().map(|b| b.label.as_str()).collect();
            classify_verdict(&object, request, &labels)
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

/// A criterion is "about the user" when it names the user or customer; its
/// evidence must then be something the user said, not the agent or a tool.
#[must_use]
fn about_user(criterion: &str) -> bool {
    let lower = criterion.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "user" | "users" | "customer" | "customers" | "caller"))
}

fn criterion_verdict(
    object: &Map<String, Value>,
    request: &JudgeRequest,
    user_only: bool,
) -> Verdict {
    let Some(verdict) = object.get("verdict") else {
        return Verdict::unknown("answer lacks field `verdict`");
    };
    let Some(verdict) = verdict.as_str() else {
        return Verdict::unknown("field `verdict` is not a string");
    };
    match verdict {
        "satisfied" => match evidence(object, request, user_only) {
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
    match evidence(object, request, true) {
        Ok(evidence_event) => Verdict::Chosen {
            label: label.to_owned(),
            evidence_event,
        },
        Err(reason) => Verdict::Unknown { reason },
    }
}

fn evidence(
    object: &Map<String, Value>,
    request: &JudgeRequest,
    user_only: bool,
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
    if user_only && turn.role != Role::User {
        return Err(format!(
            "evidence_event {index} is a {} turn, not a user turn",
            turn.role.as_str()
        ));
    }
    Ok(index)
}

/// The first balanced `{...}` in `text` that parses as a JSON object.
///
/// Brace matching skips braces inside JSON strings, so prose before or after
/// the object and ```json fences are tolerated; a truncated object never
/// balances and yields `None`.
#[must_use]
fn first_json_object(text: &str) -> Option<Map<String, Value>> {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'{')
        .find_map(|(open, _)| {
            let from_open = bytes.get(open..)?;
            let close = matching_brace(from_open)?;
            match serde_json::from_slice(from_open.get(..=close)?) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            }
        })
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
            ],
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
                },
                Branch {
                    label: "general".into(),
                    description: String::new(),
                    keywords: vec![],
                },
            ],
        };
        r
    }

    #[test]
    fn accepts_wrapped_json() {
        let text = "Sure! Here it is:\n```json\n{\"verdict\":\"satisfied\",\"evidence_event\":5,\"rationale\":\"said {yes}\"}\n```";
        let a = parse_answer(text, &criterion());
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
        ] {
            let a = parse_answer(text, &criterion());
            assert!(
                matches!(a.verdict, Verdict::Unknown { .. }),
                "{text:?} -> {:?}",
                a.verdict
            );
        }
        let a = parse_answer("{\"verdict\":\"not_satisfied\"}", &criterion());
        assert_eq!(a.verdict, Verdict::NotSatisfied);
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
        let text = "{not json} then {\"verdict\":\"not_satisfied\"}";
        assert_eq!(
            parse_answer(text, &criterion()).verdict,
            Verdict::NotSatisfied
        );
    }
}
