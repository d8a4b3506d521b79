//! Shadow mode, the usual first step of a rollout: the gate decides and
//! records every event exactly as it would when enforcing, but answers
//! each write it would withhold (`block`, `confirm`) with `allow`, marked
//! `"enforced": false`, carrying the verdict enforcement would have given
//! under `"would"`. The host runs the call, so the session goes on as if
//! it ran; what is stored (and counted) is the real verdict. One
//! implementation for every host: `turnstile gate` and `turnstile serve`
//! (`--mode shadow`) and the Python package (`mode="shadow"`).

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use super::EventReport;

/// Whether the gate enforces its verdicts or only records them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Enforcement {
    /// Verdicts are answered as decided: a withheld write does not run.
    #[default]
    Enforce,
    /// Verdicts are recorded; every answer is `enforced: false`, and a write
    /// enforcement would withhold is answered `allow`.
    Shadow,
}

impl Enforcement {
    /// Both modes, in the order the CLI lists them.
    pub const ALL: [Enforcement; 2] = [Enforcement::Enforce, Enforcement::Shadow];

    /// The mode's name (`enforce`, `shadow`).
    pub fn name(self) -> &'static str {
        match self {
            Enforcement::Enforce => "enforce",
            Enforcement::Shadow => "shadow",
        }
    }

    /// The answer to give for `report`, whose JSON as recorded is `json`.
    /// Enforcing, `json` itself; in shadow, every answer carries
    /// `"enforced": false`, and a withheld write becomes an `allow` with the
    /// recorded report under `"would"`.
    pub fn answer(self, report: &EventReport, json: &str) -> Result<String, serde_json::Error> {
        match self {
            Enforcement::Enforce => Ok(json.to_owned()),
            Enforcement::Shadow => serde_json::to_string(&shadow_answer(report, json)?),
        }
    }
}

/// The shadow answer to `report` (see [`Enforcement::answer`]), keys in
/// sorted order like every report.
fn shadow_answer(report: &EventReport, json: &str) -> Result<Value, serde_json::Error> {
    let recorded: Value = serde_json::from_str(json)?;
    if !report.verdict.withholds() {
        let mut answer = match recorded {
            Value::Object(fields) => fields,
            other => return Ok(other),
        };
        answer.insert("enforced".to_owned(), Value::Bool(false));
        return Ok(Value::Object(sorted(answer)));
    }
    let mut answer = Map::new();
    answer.insert("enforced".to_owned(), Value::Bool(false));
    for key in ["event", "fired", "kind", "mutating"] {
        if let Some(value) = recorded.get(key) {
            answer.insert(key.to_owned(), value.clone());
        }
    }
    answer.insert("verdict".to_owned(), Value::String("allow".to_owned()));
    answer.insert("would".to_owned(), recorded);
    Ok(Value::Object(answer))
}

fn sorted(fields: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = fields.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

impl fmt::Display for Enforcement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Enforcement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Enforcement::ALL
            .into_iter()
            .find(|mode| mode.name() == s)
            .ok_or_else(|| format!("unknown mode {s:?}: use enforce or shadow"))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::session::{BundleRuntime, Schedule, Session};
    use crate::trace::Event;

    fn retail() -> Arc<BundleRuntime> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/retail");
        let bundle = crate::check_bundle(&dir).unwrap();
        BundleRuntime::new(Arc::new(bundle)).unwrap()
    }

    fn event(json: &str) -> Event {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_withheld_write_is_answered_allow_with_the_verdict_it_would_get() {
        let mut session = Session::new(retail(), Schedule::Workflow);
        let judge = turnstile_judge::OfflineJudge::new();
        let call = event(
            r##"{"type":"call","id":"c1","tool":"cancel_pending_order","args":{"order_id":"#W1","reason":"no longer needed"}}"##,
        );
        let report = session.push(call, &judge).unwrap();
        assert!(report.verdict.is_block());
        let json = serde_json::to_string(&report).unwrap();

        assert_eq!(Enforcement::Enforce.answer(&report, &json).unwrap(), json);
        let shadow: Value =
            serde_json::from_str(&Enforcement::Shadow.answer(&report, &json).unwrap()).unwrap();
        assert_eq!(shadow["verdict"], "allow");
        assert_eq!(shadow["enforced"], false);
        assert_eq!(shadow["mutating"], true);
        assert_eq!(
            shadow["would"],
            serde_json::from_str::<Value>(&json).unwrap()
        );
    }

    #[test]
    fn an_event_not_withheld_keeps_its_answer_marked_not_enforced() {
        let mut session = Session::new(retail(), Schedule::Workflow);
        let judge = turnstile_judge::OfflineJudge::new();
        let report = session
            .push(event(r#"{"type":"user","text":"hello"}"#), &judge)
            .unwrap();
        let json = serde_json::to_string(&report).unwrap();
        let mut shadow: Value =
            serde_json::from_str(&Enforcement::Shadow.answer(&report, &json).unwrap()).unwrap();
        assert_eq!(shadow["enforced"], false);
        shadow.as_object_mut().unwrap().remove("enforced");
        assert_eq!(shadow, serde_json::from_str::<Value>(&json).unwrap());
    }

    #[test]
    fn modes_parse_by_name() {
        for mode in Enforcement::ALL {
            assert_eq!(mode.name().parse::<Enforcement>().unwrap(), mode);
        }
        assert!("audit".parse::<Enforcement>().is_err());
    }
}
