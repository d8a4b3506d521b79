//! The graded gold of tau2 results files, shared by the tests that score a
//! replay against it: the actions each simulation's own grader checked
//! (`reward_info.action_checks`), else the actions of the task copy the
//! file embeds (`tasks[]`), else those of `<domain>/tasks.json` by task id
//! (in some files a simulation's `task_id` names another task of
//! `tasks.json` than the one it ran; the grader's own list is the truth).
//! A recorded call matches a gold action as tau2's grader compares them:
//! the same tool, and the compared arguments (those `compare_args` lists,
//! else all of the gold action's) equal by value — `2` and `2.0` are the
//! same number.
#![allow(dead_code)] // each test crate uses part of it

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value as Json;

use super::tau2::{read_stored, tau2_json, trace_stem};

/// One action of a simulation's graded gold.
#[derive(Clone, Debug)]
pub struct GoldAction {
    /// The tool.
    pub name: String,
    /// Who the grader expects to call it (`assistant` or `user`).
    pub requestor: String,
    /// The expected arguments.
    pub arguments: Json,
    /// The arguments the grader compares (`None`: all of them).
    pub compare_args: Option<Vec<String>>,
}

impl GoldAction {
    fn from_json(action: &Json) -> Option<GoldAction> {
        let action = action.get("action").unwrap_or(action);
        Some(GoldAction {
            name: action["name"].as_str()?.to_owned(),
            requestor: action["requestor"]
                .as_str()
                .unwrap_or("assistant")
                .to_owned(),
            arguments: action["arguments"].clone(),
            compare_args: action["compare_args"].as_array().map(|keys| {
                keys.iter()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect()
            }),
        })
    }

    /// Whether an agent-side gold action.
    pub fn by_agent(&self) -> bool {
        self.requestor == "assistant"
    }

    /// Whether a call of `tool` with `args` is this action, as the grader
    /// compares them.
    pub fn matches(&self, tool: &str, args: &Json) -> bool {
        if self.name != tool {
            return false;
        }
        let expected = self.arguments.as_object();
        let keys: Vec<&str> = match &self.compare_args {
            Some(keys) => keys.iter().map(String::as_str).collect(),
            None => expected
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default(),
        };
        keys.iter().all(|k| {
            same_value(
                expected.and_then(|m| m.get(*k)).unwrap_or(&Json::Null),
                args.get(*k).unwrap_or(&Json::Null),
            )
        }) && (self.compare_args.is_some()
            || args.as_object().map_or(0, serde_json::Map::len) == keys.len())
    }
}

/// JSON equality where numbers compare by value (Python's `==`, which the
/// grader uses: `2 == 2.0`).
pub fn same_value(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

fn id_text(id: &Json) -> String {
    match id {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn actions(list: &Json) -> Vec<GoldAction> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(GoldAction::from_json)
        .collect()
}

/// The graded gold of every simulation of one results file of `domain`, by
/// trace id (`<file stem>#<simulation id>`, as the importer names traces).
pub fn graded_gold(domain: &str, file: &Path) -> HashMap<String, Vec<GoldAction>> {
    let results: Json = serde_json::from_slice(&read_stored(file)).unwrap();
    let task_actions = |tasks: &Json| -> HashMap<String, Vec<GoldAction>> {
        tasks
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                (
                    id_text(&t["id"]),
                    actions(&t["evaluation_criteria"]["actions"]),
                )
            })
            .collect()
    };
    let embedded = task_actions(&results["tasks"]);
    let catalogue = task_actions(&tau2_json(&format!("{domain}/tasks.json")));
    let stem = trace_stem(file);
    results["simulations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|sim| {
            let graded = &sim["reward_info"]["action_checks"];
            let task = id_text(&sim["task_id"]);
            let gold = if graded.is_array() {
                actions(graded)
            } else {
                embedded
                    .get(&task)
                    .or_else(|| catalogue.get(&task))
                    .cloned()
                    .unwrap_or_default()
            };
            (format!("{stem}#{}", id_text(&sim["id"])), gold)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_and_compare_args_narrow_the_arguments() {
        let refuel =
            GoldAction::from_json(&json!({"name": "refuel_data", "requestor": "assistant",
            "arguments": {"line_id": "L1", "gb_amount": 2.0}, "compare_args": null}))
            .unwrap();
        assert!(refuel.matches("refuel_data", &json!({"line_id": "L1", "gb_amount": 2})));
        assert!(!refuel.matches("refuel_data", &json!({"line_id": "L1", "gb_amount": 3})));
        assert!(!refuel.matches("refuel_data", &json!({"line_id": "L2", "gb_amount": 2})));
        assert!(!refuel.matches(
            "refuel_data",
            &json!({"line_id": "L1", "gb_amount": 2, "extra": 1})
        ));
        let transfer =
            GoldAction::from_json(&json!({"action": {"name": "transfer_to_human_agents",
            "arguments": {"summary": "x"}, "compare_args": []}}))
            .unwrap();
        assert!(transfer.by_agent());
        assert!(transfer.matches("transfer_to_human_agents", &json!({"summary": "anything"})));
    }
}
