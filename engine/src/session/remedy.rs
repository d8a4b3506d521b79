//! Remediation text: a node's template with its placeholders filled from
//! what the monitor knows — request bindings (taken from tool calls and
//! results) and entity fields (from tool results). A placeholder with no
//! grounded value is rendered as `<x: not read yet>`, never guessed and never
//! filled from what the user said.

use turnstile_rules::Env;
use turnstile_rules::{ExtractionDiagnostic, Interner, Value};

use super::runtime::RemedyPiece;
use turnstile_rules::Monitor;

/// Renders `pieces` for the request `env`. `type_errors` holds the
/// extraction type errors so far (the session keeps them apart from the
/// other facts, so this costs what the errors are, not the conversation's
/// length); they tell a field whose read had the wrong type (shown as such)
/// from one not read yet. They are only looked at for a placeholder with no
/// value.
pub fn render(
    pieces: &[RemedyPiece],
    monitor: &Monitor,
    env: &Env,
    interner: &Interner,
    type_errors: &[ExtractionDiagnostic],
) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            RemedyPiece::Text(text) => out.push_str(text),
            RemedyPiece::Value(node, source) => {
                let values = monitor.operand_values(*node, env);
                if values.is_empty() {
                    let why = mistyped(source, type_errors.iter());
                    let why = why.as_deref().unwrap_or("not read yet");
                    out.extend(["<", source, ": ", why, ">"]);
                } else {
                    for (i, value) in values.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        push_plain_value(&mut out, value, interner);
                    }
                }
            }
        }
    }
    out
}

/// Why the entity field `source` (`account[$account].balance`) has no
/// value, when the latest read of it had the wrong type: read diagnostics
/// say `tool: entity.field: why`.
fn mistyped<'a>(
    source: &str,
    diagnostics: impl DoubleEndedIterator<Item = &'a ExtractionDiagnostic>,
) -> Option<String> {
    let entity = source.split('[').next()?;
    let field = source.rsplit('.').next()?;
    if !source.contains('[') || entity.is_empty() {
        return None;
    }
    let subject = format!("{entity}.{field}");
    diagnostics
        .rev()
        .filter(|d| d.kind.is_type_error())
        .find_map(|d| {
            let mut parts = d.detail.splitn(3, ": ");
            let (_tool, what, why) = (parts.next()?, parts.next()?, parts.next()?);
            (what == subject)
                .then(|| format!("wrong type in the result at event {}: {why}", d.event))
        })
}

/// A value as people read it: strings without quotes.
pub fn plain_value(value: &Value, interner: &Interner) -> String {
    let mut out = String::new();
    push_plain_value(&mut out, value, interner);
    out
}

/// Appends [`plain_value`] to `out` without a string of its own.
fn push_plain_value(out: &mut String, value: &Value, interner: &Interner) {
    use std::fmt::Write as _;
    // Writing to a `String` cannot fail.
    let _ = match value {
        Value::Str(s) => {
            out.push_str(interner.resolve(*s));
            Ok(())
        }
        Value::Int(i) => write!(out, "{i}"),
        Value::Amount(a) => write!(out, "{a}"),
        Value::Bool(b) => write!(out, "{b}"),
        Value::Date(d) => write!(out, "{d}"),
        Value::DateTime(d) => write!(out, "{d}"),
        Value::Duration(d) => write!(out, "{d}"),
    };
}
