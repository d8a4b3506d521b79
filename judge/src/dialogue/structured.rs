//! A turn an agent (or a user's client) wrote as a JSON document rather than
//! prose: `{"message": "I can cancel order #W1.\n\nShall I proceed?"}`.
//! Agents run with structured output do this. Read as it stands, its string
//! escapes glue words together (`\nShall` is no "shall"), a sentence never
//! ends at an escaped line break, and its quotes and braces split clauses
//! where the writer put none. [`readable_text`] gives what the document
//! says: each key and each scalar value on a line of its own, strings
//! unescaped, in the document's order. Text that is not one whole JSON
//! object or array is read as it is.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

/// The text a turn is read as: `text` itself, or, when `text` is a JSON
/// object or array, its keys and scalar values one per line.
#[must_use]
pub fn readable_text(text: &str) -> Cow<'_, str> {
    let trimmed = text.trim_start();
    // A cheap test first: prose almost never opens with a bracket.
    if !trimmed.starts_with(['{', '[']) {
        return Cow::Borrowed(text);
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value @ (Value::Object(_) | Value::Array(_))) => {
            let mut out = String::with_capacity(text.len());
            write_lines(&value, &mut out);
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(text),
    }
}

/// Appends the lines of `value`: a key before what it holds, a scalar as
/// its text, `null` as nothing.
fn write_lines(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                line(out, key);
                write_lines(inner, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| write_lines(item, out)),
        Value::String(text) => line(out, text),
        Value::Number(number) => {
            let _ = writeln!(out, "{number}");
        }
        Value::Bool(flag) => {
            let _ = writeln!(out, "{flag}");
        }
        Value::Null => {}
    }
}

fn line(out: &mut String, text: &str) {
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::readable_text;

    #[test]
    fn a_message_object_reads_as_its_message() {
        let text = r#"{"message":"I can cancel order #W1.\n\nShall I proceed?"}"#;
        assert_eq!(
            readable_text(text),
            "message\nI can cancel order #W1.\n\nShall I proceed?\n"
        );
    }

    #[test]
    fn nested_documents_keep_their_order_and_drop_nulls() {
        let text = r##"
            {"proposed_action": {"action": "cancel", "order_id": "#W1", "refund": 12.5,
             "items": ["lamp", "desk"], "gift": null, "final": true},
             "question": "Confirm (yes/no)?"}"##;
        assert_eq!(
            readable_text(text),
            "proposed_action\naction\ncancel\norder_id\n#W1\nrefund\n12.5\nitems\nlamp\ndesk\n\
             gift\nfinal\ntrue\nquestion\nConfirm (yes/no)?\n"
        );
    }

    #[test]
    fn prose_scalars_and_broken_json_read_as_they_stand() {
        for text in [
            "Shall I cancel order #W1?",
            "{not json, only braces}",
            r#"{"message": "cut off mid"#,
            "  [1, 2",
            r#""a bare string""#,
            "42",
            "",
        ] {
            assert_eq!(readable_text(text), text, "{text}");
        }
    }
}
