//! Synthetic corpora for measuring the audit at scale: real traces
//! re-sampled and perturbed, so throughput and memory can be measured at
//! 10⁶ traces without shipping them.
//!
//! Each synthetic trace is a source trace picked at random (a seeded
//! xorshift generator: the same seed gives the same corpus) with
//! - **ids** renamed: every call id gets a per-trace suffix;
//! - **values** renamed consistently: every string argument of a call that
//!   looks like an identifier (`#W2378156`, `sara_doe_496`, `HATHAT`) is
//!   mapped to a fresh one of the same shape, and the same replacement is
//!   made in every message, argument and result of the trace, so the reads
//!   still ground the writes and the verdicts stay meaningful;
//! - **interleavings** changed: some `call a, result a, call b, result b`
//!   runs become `call a, call b, result a, result b` (parallel tool calls),
//!   which leaves the order of the reads themselves unchanged.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::trace::{Event, Trace};

/// A seeded generator of perturbed copies of `sources`.
pub struct Synth {
    sources: Vec<Trace>,
    state: u64,
}

impl Synth {
    /// A generator over `sources` (none: it generates nothing).
    pub fn new(sources: Vec<Trace>, seed: u64) -> Self {
        Synth {
            sources,
            // xorshift must not start at 0.
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
        }
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % (n.max(1) as u64)) as usize
    }

    /// The `i`-th synthetic trace; `None` when there are no sources.
    pub fn trace(&mut self, i: usize) -> Option<Trace> {
        let pick = self.below(self.sources.len());
        let mut trace = self.sources.get(pick)?.clone();
        trace.meta.id = format!("synth#{i}");
        let mapping = self.value_mapping(&trace, i);
        for event in &mut trace.events {
            rename_event(event, &mapping, i);
        }
        self.interleave(&mut trace.events);
        Some(trace)
    }

    /// Identifier-like call arguments → fresh values of the same shape.
    fn value_mapping(&mut self, trace: &Trace, i: usize) -> Vec<(String, String)> {
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        for event in &trace.events {
            let Event::Call { args, .. } = event else {
                continue;
            };
            let mut values = Vec::new();
            strings(args, &mut values);
            for value in values {
                if is_identifier(&value) && !seen.contains_key(&value) {
                    let fresh = self.reshape(&value, i);
                    seen.insert(value, fresh);
                }
            }
        }
        // Longest first, so that no replacement clips a longer identifier.
        let mut mapping: Vec<(String, String)> = seen.into_iter().collect();
        mapping.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        mapping
    }

    /// A value of the same shape: digits replaced by random digits, letters
    /// kept (names stay names), with the trace number folded in.
    fn reshape(&mut self, value: &str, i: usize) -> String {
        let salt = self.next_u64() ^ (i as u64);
        let mut out = String::with_capacity(value.len());
        for (k, c) in value.chars().enumerate() {
            if c.is_ascii_digit() {
                let d = ((salt >> ((k % 16) * 4)) & 0xF) % 10;
                out.push(char::from(b'0' + d as u8));
            } else {
                out.push(c);
            }
        }
        if out == value {
            // No digits to change (a reservation code): append the trace number.
            out.push_str(&format!("{i}"));
        }
        out
    }

    fn interleave(&mut self, events: &mut [Event]) {
        let mut k = 0;
        while k + 3 < events.len() {
            let pattern = matches!(
                (events.get(k), events.get(k + 1), events.get(k + 2), events.get(k + 3)),
                (
                    Some(Event::Call { id: a, .. }),
                    Some(Event::Result { id: ra, .. }),
                    Some(Event::Call { id: b, .. }),
                    Some(Event::Result { id: rb, .. }),
                ) if a == ra && b == rb && a != b
            );
            if pattern && self.below(3) == 0 {
                // call a, result a, call b, result b → call a, call b, result a, result b
                events.swap(k + 1, k + 2);
                k += 4;
            } else {
                k += 1;
            }
        }
    }
}

/// An argument worth renaming: no spaces, 4–40 characters, and a digit or
/// all upper-case letters (ids, codes), not a plain word or an enum value.
fn is_identifier(value: &str) -> bool {
    let len = value.chars().count();
    (4..=40).contains(&len)
        && !value.contains(char::is_whitespace)
        && (value.chars().any(|c| c.is_ascii_digit())
            || value
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
}

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn replace_all(text: &str, mapping: &[(String, String)]) -> String {
    let mut text = text.to_owned();
    for (from, to) in mapping {
        if text.contains(from.as_str()) {
            text = text.replace(from.as_str(), to);
        }
    }
    text
}

fn rename_value(value: &mut Value, mapping: &[(String, String)]) {
    match value {
        Value::String(s) => *s = replace_all(s, mapping),
        Value::Array(items) => items.iter_mut().for_each(|v| rename_value(v, mapping)),
        Value::Object(map) => {
            let renamed: serde_json::Map<String, Value> = std::mem::take(map)
                .into_iter()
                .map(|(k, mut v)| {
                    rename_value(&mut v, mapping);
                    (replace_all(&k, mapping), v)
                })
                .collect();
            *map = renamed;
        }
        _ => {}
    }
}

fn rename_event(event: &mut Event, mapping: &[(String, String)], i: usize) {
    match event {
        Event::User { text } | Event::Ticket { text } | Event::Agent { text } => {
            *text = replace_all(text, mapping);
        }
        Event::Call { id, args, .. } => {
            id.push_str(&format!("~{i}"));
            rename_value(args, mapping);
        }
        Event::Result { id, content, .. } => {
            id.push_str(&format!("~{i}"));
            rename_value(content, mapping);
        }
        Event::Approval { call, .. } => call.push_str(&format!("~{i}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::model::Side;
    use crate::trace::TraceMeta;

    fn source() -> Trace {
        Trace {
            meta: TraceMeta {
                id: "t".into(),
                ..TraceMeta::default()
            },
            events: vec![
                Event::User {
                    text: "cancel #W1234567".into(),
                },
                Event::Call {
                    id: "c1".into(),
                    tool: "get_order_details".into(),
                    args: serde_json::json!({"order_id": "#W1234567"}),
                    requestor: Side::Agent,
                },
                Event::Result {
                    id: "c1".into(),
                    ok: true,
                    content: serde_json::json!({"order_id": "#W1234567", "status": "pending"}),
                },
                Event::Call {
                    id: "c2".into(),
                    tool: "get_user_details".into(),
                    args: serde_json::json!({"user_id": "sara_doe_496"}),
                    requestor: Side::Agent,
                },
                Event::Result {
                    id: "c2".into(),
                    ok: true,
                    content: serde_json::json!({"orders": ["#W1234567"]}),
                },
            ],
        }
    }

    #[test]
    fn values_are_renamed_consistently_and_the_same_seed_gives_the_same_corpus() {
        let mut a = Synth::new(vec![source()], 7);
        let mut b = Synth::new(vec![source()], 7);
        for i in 0..20 {
            let x = a.trace(i).unwrap();
            assert_eq!(Some(&x), b.trace(i).as_ref());
            assert_eq!(x.meta.id, format!("synth#{i}"));
            let Event::Call { args, .. } = &x.events[1] else {
                panic!("the first call stays first")
            };
            let order = args["order_id"].as_str().unwrap().to_owned();
            let text = serde_json::to_string(&x.events).unwrap();
            assert!(!text.contains("#W1234567") || order == "#W1234567");
            // The renamed order appears in the message, the argument, both results.
            assert_eq!(text.matches(order.as_str()).count(), 4, "{text}");
            // Every result still answers an earlier call.
            for (k, e) in x.events.iter().enumerate() {
                if let Event::Result { .. } = e {
                    assert!(x.call_of(k).is_some());
                }
            }
        }
    }
}
