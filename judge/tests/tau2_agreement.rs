//! Measures the offline judge against real tau2-bench traces.
//!
//! Ground truth: in retail and airline traces, an assistant WRITE call whose
//! name and arguments equal a gold action of the simulation's task was a
//! correct, user-confirmed action. Asked the confirmation criterion on the
//! slice that ends just before that call (from just after the previous WRITE
//! call, or the start), the judge should answer `Satisfied` (positives).
//! Cutting the same slice right after the agent's confirmation request, before
//! the user answered, must never be `Satisfied` (negatives: a premature action).
//!
//! The data directory is `$TAU2_DATA`, else the vendored `data/tau2/`.

// Test helpers outside #[test] functions panic on broken fixtures on purpose.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/tau2_reader.rs"]
mod tau2_reader;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "support/tau2_data.rs"]
mod tau2_data;
use tau2_data::{data_dir, read_stored};
use turnstile_judge::{JudgeRequest, OfflineJudge, Question, Role, Turn, Verdict};

const CRITERION: &str =
    "the user explicitly confirmed (yes) after the agent listed the action details";

/// Measured (offline-v2, the scoped consent rule of
/// `turnstile_judge::dialogue`, 2026-12-01): 78 of 112 positives Satisfied
/// (69.6%); 18 of the 112 slices contain no user turn at all (one "yes"
/// covered several actions and an earlier WRITE call opened the slice), so
/// 78 of the 94 slices with a user turn (83.0%); 94 of 94 premature
/// negatives not Satisfied. The narrow rule of session 3 measured 72/112
/// and 72/94; offline-v1 (keywords) 83/112 and 83/94. The floors are the
/// measured figures less two percentage points.
const POSITIVE_FLOOR: f64 = 0.676;
/// See [`POSITIVE_FLOOR`].
const POSITIVE_WITH_USER_FLOOR: f64 = 0.81;

fn write_tools(dir: &Path) -> HashMap<String, HashSet<String>> {
    let tools: Value = serde_json::from_slice(&read_stored(&dir.join("tools.json"))).unwrap();
    tools
        .as_object()
        .unwrap()
        .iter()
        .map(|(domain, list)| {
            let names = list
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t["kind"] == "WRITE")
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect();
            (domain.clone(), names)
        })
        .collect()
}

fn matches_gold(call: &Value, gold: &Value) -> bool {
    if call["name"] != gold["name"] {
        return false;
    }
    match gold["compare_args"].as_array() {
        Some(keys) => keys.iter().all(|k| {
            let k = k.as_str().unwrap_or_default();
            call["arguments"][k] == gold["arguments"][k]
        }),
        None => call["arguments"] == gold["arguments"],
    }
}

/// Tau2 messages as judge turns; the event index is the message index.
fn turns(messages: &[Value]) -> Vec<Turn> {
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let i = u32::try_from(i).unwrap();
        let content = m["content"].as_str().unwrap_or_default();
        match m["role"].as_str().unwrap_or_default() {
            "user" => out.push(tau2_reader::turn(i, Role::User, content)),
            "assistant" => {
                if !content.trim().is_empty() {
                    out.push(tau2_reader::turn(i, Role::Agent, content));
                }
                if let Some(calls) = m["tool_calls"].as_array() {
                    let text = calls
                        .iter()
                        .map(|c| {
                            format!("{}({})", c["name"].as_str().unwrap_or("?"), c["arguments"])
                        })
                        .collect::<Vec<_>>()
                        .join("; ");
                    out.push(tau2_reader::turn(i, Role::Tool, text));
                }
            }
            _ => out.push(tau2_reader::turn(i, Role::Tool, content)),
        }
    }
    out
}

fn request(conversation: Vec<Turn>) -> JudgeRequest {
    JudgeRequest {
        bundle_hash: "tau2".into(),
        node_id: "confirm".into(),
        question: Question::Criterion {
            text: CRITERION.into(),
            keywords: Vec::new(),
            said_by: Role::User,
            key_values: Vec::new(),
        },
        policy_excerpt: None,
        bindings: BTreeMap::new(),
        conversation: conversation.into(),
    }
}

#[test]
fn offline_judge_agrees_with_tau2_confirmed_actions() {
    let dir = data_dir();
    let writes = write_tools(&dir);
    let judge = OfflineJudge::new();
    let (mut pos, mut pos_ok, mut neg, mut neg_ok) = (0usize, 0usize, 0usize, 0usize);
    // Positives whose slice holds no user turn at all: an earlier WRITE call
    // already followed the user's one "yes" to several actions.
    let mut pos_no_user = 0usize;
    let mut misses = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let domain = name.split('_').next().unwrap().to_owned();
        if domain != "retail" && domain != "airline" {
            continue;
        }
        let doc: Value = serde_json::from_slice(&read_stored(&file)).unwrap();
        let tasks: HashMap<&str, &Value> = doc["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["id"].as_str().unwrap(), t))
            .collect();
        let write_names = &writes[&domain];
        for sim in doc["simulations"].as_array().unwrap() {
            let task = tasks[sim["task_id"].as_str().unwrap()];
            let gold: Vec<&Value> = task["evaluation_criteria"]["actions"]
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            let messages = sim["messages"].as_array().unwrap();
            let all = turns(messages);
            let mut slice_start = 0u32;
            for (i, m) in messages.iter().enumerate() {
                if m["role"] != "assistant" {
                    continue;
                }
                let i = u32::try_from(i).unwrap();
                let calls = m["tool_calls"].as_array().cloned().unwrap_or_default();
                let write_calls: Vec<&Value> = calls
                    .iter()
                    .filter(|c| write_names.contains(c["name"].as_str().unwrap_or_default()))
                    .collect();
                if write_calls.is_empty() {
                    continue;
                }
                let slice: Vec<Turn> = all
                    .iter()
                    .filter(|t| t.event_index >= slice_start && t.event_index < i)
                    .cloned()
                    .collect();
                for call in &write_calls {
                    if !gold.iter().any(|g| matches_gold(call, g)) {
                        continue;
                    }
                    pos += 1;
                    if !slice.iter().any(|t| t.role == Role::User) {
                        pos_no_user += 1;
                    }
                    let verdict = judge.decide(&request(slice.clone())).verdict;
                    if verdict.is_satisfied() {
                        pos_ok += 1;
                    } else {
                        let reply = slice
                            .iter()
                            .rev()
                            .find(|t| t.role == Role::User)
                            .map(|t| t.text.chars().take(120).collect::<String>());
                        misses.push(format!("{name} {i}: {verdict:?} <- {reply:?}"));
                    }
                    // The same slice cut right after the agent's last text
                    // before the user's reply: the user has not answered yet.
                    if let Some(last_user) = slice.iter().rposition(|t| t.role == Role::User)
                        && let Some(ask) = slice[..last_user]
                            .iter()
                            .rposition(|t| t.role == Role::Agent)
                    {
                        neg += 1;
                        let premature = judge.decide(&request(slice[..=ask].to_vec())).verdict;
                        if premature.is_satisfied() {
                            misses.push(format!("PREMATURE {name} {i}: {premature:?}"));
                        } else {
                            neg_ok += 1;
                        }
                    }
                }
                // The next action's slice starts after this WRITE call.
                slice_start = i + 1;
            }
        }
    }
    let pos_rate = pos_ok as f64 / pos as f64;
    let neg_rate = neg_ok as f64 / neg as f64;
    let overall = (pos_ok + neg_ok) as f64 / (pos + neg) as f64;
    let with_user = pos - pos_no_user;
    println!(
        "offline judge vs tau2 retail+airline: positives {pos_ok}/{pos} satisfied ({:.1}%; \
         {pos_ok}/{with_user} = {:.1}% of the slices that contain a user turn), \
         premature negatives {neg_ok}/{neg} not satisfied ({:.1}%), overall {:.1}%",
        pos_rate * 100.0,
        pos_ok as f64 / with_user as f64 * 100.0,
        neg_rate * 100.0,
        overall * 100.0
    );
    for miss in &misses {
        println!("  miss: {miss}");
    }
    assert!(
        pos >= 100,
        "expected at least 100 gold-matching WRITE calls, found {pos}"
    );
    assert!(
        pos_rate >= POSITIVE_FLOOR,
        "positive agreement {:.1}% fell below the measured floor {:.1}%",
        pos_rate * 100.0,
        POSITIVE_FLOOR * 100.0
    );
    let with_user_rate = pos_ok as f64 / with_user as f64;
    assert!(
        with_user_rate >= POSITIVE_WITH_USER_FLOOR,
        "positive agreement on slices with a user turn {:.1}% fell below the measured floor {:.1}%",
        with_user_rate * 100.0,
        POSITIVE_WITH_USER_FLOOR * 100.0
    );
    assert_eq!(neg_ok, neg, "a premature slice was judged satisfied");
    assert!(matches!(
        judge.decide(&request(Vec::new())).verdict,
        Verdict::NotSatisfied
    ));
}
