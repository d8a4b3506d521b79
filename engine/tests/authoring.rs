//! What a bundle author can say beyond the defaults: the built-in request
//! types under the bundle's own labels, and a `generic` tool (a transfer to
//! a human) gated like a write, so it is allowed only once the user asked.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::sync::Arc;

use serde_json::{Value as Json, json};
use support::{Edit, bundle_in, mutated, position_of};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::check_bundle;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;

const MAIN: &str = "flows/main.yaml";
const MANIFEST: &str = "bundle.yaml";

const fn edit(file: &'static str, find: &'static str, replace: &'static str) -> Edit {
    Edit {
        file,
        find,
        replace,
    }
}

/// The classifier's `transfer` branch renamed to `human_agent`.
const RENAMED_BRANCH: Edit = edit(
    MAIN,
    "      - label: transfer\n",
    "      - label: human_agent\n",
);

#[test]
fn a_builtin_request_type_can_carry_the_bundles_own_label() {
    // Without the mapping the classifier lacks `transfer`.
    let dir = mutated(&[RENAMED_BRANCH]);
    let problems = check_bundle(&bundle_in(&dir)).unwrap_err();
    assert_eq!(problems.len(), 2, "{problems}");
    assert!(
        problems
            .iter()
            .all(|p| p.kind.code() == "turnstile::classifier_incomplete")
    );

    // With it, `human_agent` stands for `transfer`, and `transfer` is free
    // for the bundle's own request type.
    let dir = mutated(&[
        RENAMED_BRANCH,
        edit(
            MANIFEST,
            "request_types: [cancel]\n",
            "request_types: [cancel]\nbuiltin_labels:\n  transfer: human_agent\n",
        ),
    ]);
    let bundle = check_bundle(&bundle_in(&dir)).unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(bundle.request_types, vec!["cancel"]);

    // A label cannot stand for a built-in and a request type at once.
    let dir = mutated(&[
        RENAMED_BRANCH,
        edit(
            MANIFEST,
            "request_types: [cancel]\n",
            "request_types: [cancel, human_agent]\nbuiltin_labels:\n  transfer: human_agent\n",
        ),
    ]);
    let root = bundle_in(&dir);
    let problems = check_bundle(&root).unwrap_err();
    let p = problems
        .iter()
        .find(|p| p.kind.code() == "turnstile::duplicate_id")
        .unwrap_or_else(|| panic!("{problems}"));
    assert_eq!(
        p.message,
        "label `human_agent` stands for built-in `transfer` and is also a request type"
    );
    assert_eq!((p.line, p.column), {
        let (l, c) = position_of(&root, MANIFEST, "human_agent\n");
        (Some(l), Some(c))
    });

    // Only the built-ins can be relabelled.
    let dir = mutated(&[edit(
        MANIFEST,
        "request_types: [cancel]\n",
        "request_types: [cancel]\nbuiltin_labels:\n  transfr: human_agent\n",
    )]);
    let problems = check_bundle(&bundle_in(&dir)).unwrap_err();
    let p = problems
        .iter()
        .find(|p| p.kind.code() == "turnstile::unexpected_attribute")
        .unwrap_or_else(|| panic!("{problems}"));
    assert_eq!(p.message, "`transfr` is not a built-in request type");
    assert_eq!(p.help.as_deref(), Some("did you mean `transfer`?"));
}

/// The toy bundle with its transfer node turned into an authorization: the
/// generic tool is gated, and the classifier's `transfer` branch (the user
/// asked for a human) is on the only path to it.
fn gated_transfer() -> Arc<BundleRuntime> {
    let dir = mutated(&[edit(
        MAIN,
        "  - id: transfer\n    type: tool_call\n",
        "  - id: transfer\n    type: tool_authorization\n",
    )]);
    let bundle = check_bundle(&bundle_in(&dir)).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

fn call(id: &str, tool: &str, args: Json) -> Event {
    Event::Call {
        id: id.into(),
        tool: tool.into(),
        args,
        requestor: Side::Agent,
    }
}

fn ok(id: &str, content: Json) -> Event {
    Event::Result {
        id: id.into(),
        ok: true,
        content,
    }
}

/// The conversation opening with `first` as the user's message, then the
/// identification, then the agent's transfer call; the transfer's verdict.
fn transfer_verdict(first: &str) -> GateVerdict {
    let mut session = Session::new(gated_transfer(), Schedule::Workflow);
    let events = vec![
        Event::User {
            text: format!("{first} My email is u1@example.com."),
        },
        call(
            "c1",
            "find_user_id_by_email",
            json!({"email": "u1@example.com"}),
        ),
        ok("c1", json!("u1")),
        call("c2", "get_user_details", json!({"user_id": "u1"})),
        ok(
            "c2",
            json!({"user_id": "u1", "email": "u1@example.com", "orders": ["#O1"]}),
        ),
        call(
            "c3",
            "transfer_to_human_agents",
            json!({"summary": "the user needs help"}),
        ),
    ];
    let mut last = None;
    for event in events {
        last = Some(session.push(event, &OfflineJudge).unwrap().verdict);
    }
    last.unwrap()
}

#[test]
fn a_gated_generic_tool_is_allowed_only_when_the_user_asked() {
    let asked = transfer_verdict("Please let me talk to a human representative.");
    assert!(
        matches!(&asked, GateVerdict::Allow { step, .. } if step == "transfer"),
        "{asked:?}"
    );
    let not_asked = transfer_verdict("Where is my order? I want to track it.");
    assert!(
        matches!(not_asked, GateVerdict::Block { .. }),
        "{not_asked:?}"
    );
}

#[test]
fn an_ungated_generic_tool_stays_ungated() {
    let bundle = check_bundle(&support::toy_bundle()).unwrap();
    let transfer = bundle.domain.tool("transfer_to_human_agents").unwrap();
    assert!(!bundle.program.gated_tools.contains(&transfer.symbol));
}

/// The newcomer's case: a bank's `wire` request next to the built-in
/// `transfer` (to a human). Labels are not keywords, so "wire transfer" is
/// the bank's request, not a tie.
#[test]
fn a_wire_transfer_is_not_a_tie_with_the_transfer_label() {
    use std::collections::BTreeMap;
    use turnstile_judge::{Branch, JudgeRequest, Question, Role, Turn, Verdict};
    let branches = vec![
        Branch {
            label: "wire".into(),
            description: "The customer asks to send money.".into(),
            keywords: vec!["wire".into(), "send money".into()],
            actions: Vec::new(),
        },
        Branch {
            label: "transfer".into(),
            description: "The customer asks for a human agent.".into(),
            keywords: vec!["human".into(), "representative".into()],
            actions: Vec::new(),
        },
    ];
    let verdict = OfflineJudge
        .decide(&JudgeRequest {
            bundle_hash: "b".into(),
            node_id: "classify".into(),
            question: Question::Classify { branches },
            policy_excerpt: None,
            bindings: BTreeMap::new(),
            conversation: vec![Turn::new(0, Role::User, "I need to make a wire transfer")].into(),
        })
        .verdict;
    assert_eq!(
        verdict,
        Verdict::Chosen {
            label: "wire".into(),
            evidence_event: 0
        }
    );
}
