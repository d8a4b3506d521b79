//! Shared by the engine's and the CLI's tests: the toy bundle, a way to derive
//! broken copies of it, the table of broken fixtures with the exact
//! diagnostic each must produce, and the events test conversations are made
//! of.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::trace::Event;

pub fn toy_bundle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/toy-orders")
}

/// Copies the directory tree `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of the toy bundle with `edits` applied; each `find` must occur
/// exactly once in its file.
pub fn mutated(edits: &[Edit]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("toy-orders");
    copy_dir(&toy_bundle(), &root);
    for edit in edits {
        let path = root.join(edit.file);
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.matches(edit.find).count(),
            1,
            "`{}` must occur once in {}",
            edit.find,
            edit.file
        );
        fs::write(&path, text.replacen(edit.find, edit.replace, 1)).unwrap();
    }
    dir
}

pub fn bundle_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("toy-orders")
}

/// 1-based line and column of `needle` in `file` of the bundle at `root`.
pub fn position_of(root: &Path, file: &str, needle: &str) -> (usize, usize) {
    let text = fs::read_to_string(root.join(file)).unwrap();
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in {file}"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    (line, column)
}

#[derive(Clone, Copy)]
pub struct Edit {
    pub file: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
}

/// A broken variant of the toy bundle and the diagnostic it must produce.
pub struct Broken {
    pub name: &'static str,
    pub edits: &'static [Edit],
    /// The problem's code.
    pub code: &'static str,
    /// File and text where the diagnostic must point (its first character).
    pub at: Option<(&'static str, &'static str)>,
    /// A fragment the message must contain.
    pub message: &'static str,
}

const fn edit(file: &'static str, find: &'static str, replace: &'static str) -> Edit {
    Edit {
        file,
        find,
        replace,
    }
}

const CANCEL: &str = "flows/cancel.yaml";
const MAIN: &str = "flows/main.yaml";
const IDENTIFY: &str = "flows/identify.yaml";
const DOMAIN: &str = "domain.yaml";
const MANIFEST: &str = "bundle.yaml";

pub const BROKEN: &[Broken] = &[
    Broken {
        name: "alias_not_a_field",
        edits: &[edit(
            DOMAIN,
            "  order:\n    fields:",
            "  order:\n    aliases: [last4]\n    fields:",
        )],
        code: "turnstile::unknown_field",
        at: Some((DOMAIN, "last4]")),
        message: "entity `order` has no field `last4` to be named by",
    },
    Broken {
        name: "alias_not_a_string",
        edits: &[edit(
            DOMAIN,
            "  order:\n    fields:",
            "  order:\n    aliases: [item_prices]\n    fields:",
        )],
        code: "turnstile::type_mismatch",
        at: Some((DOMAIN, "item_prices]")),
        message: "the alias `item_prices` of entity `order` is declared `list<amount>`, not `string`",
    },
    Broken {
        name: "alias_twice",
        edits: &[edit(
            DOMAIN,
            "  order:\n    fields:",
            "  order:\n    aliases: [user_id, user_id ]\n    fields:",
        )],
        code: "turnstile::duplicate_id",
        at: Some((DOMAIN, "user_id ]")),
        message: "entity `order` lists the alias `user_id` twice",
    },
    Broken {
        name: "confirmation_placeholder_not_a_parameter",
        edits: &[edit(
            DOMAIN,
            "      reason: string\n  - name: transfer_to_human_agents",
            "      reason: string\n    confirmation: Cancel {order} now?\n  - name: transfer_to_human_agents",
        )],
        code: "turnstile::unknown_param",
        at: Some((DOMAIN, "Cancel {order} now?")),
        message: "the confirmation of `cancel_pending_order` names `{order}`, which is not one of its parameters",
    },
    Broken {
        name: "confirmation_placeholder_not_closed",
        edits: &[edit(
            DOMAIN,
            "      reason: string\n  - name: transfer_to_human_agents",
            "      reason: string\n    confirmation: Cancel {order_id now?\n  - name: transfer_to_human_agents",
        )],
        code: "turnstile::bad_template",
        at: Some((DOMAIN, "Cancel {order_id now?")),
        message: "the confirmation of `cancel_pending_order`",
    },
    Broken {
        name: "malformed_yaml",
        edits: &[edit(CANCEL, "    next: status\n", "    next: [status\n")],
        code: "turnstile::yaml",
        at: None,
        message: "",
    },
    Broken {
        name: "wrong_type_of_value",
        edits: &[edit(
            DOMAIN,
            "    side: agent\n    kind: write",
            "    side: both\n    kind: write",
        )],
        code: "turnstile::yaml",
        at: Some((DOMAIN, "both")),
        message: "both",
    },
    Broken {
        name: "unknown_attribute",
        edits: &[edit(
            CANCEL,
            "    expect: The cancellation succeeded.",
            "    expectation: The cancellation succeeded.",
        )],
        code: "turnstile::yaml",
        at: Some((CANCEL, "expectation")),
        message: "expectation",
    },
    Broken {
        name: "unknown_node",
        edits: &[edit(CANCEL, "    next: verify", "    next: verfiy")],
        code: "turnstile::unknown_node",
        at: Some((CANCEL, "verfiy")),
        message: "unknown node `verfiy` in flow `cancel`",
    },
    Broken {
        name: "duplicate_node_id",
        edits: &[edit(CANCEL, "  - id: refused\n", "  - id: done\n")],
        code: "turnstile::duplicate_id",
        at: Some((CANCEL, "done\n    type: exit\n    outcome: refuse")),
        message: "node id `done` is used twice in flow `cancel`",
    },
    Broken {
        name: "duplicate_tool",
        edits: &[edit(
            DOMAIN,
            "  - name: transfer_to_human_agents",
            "  - name: get_order_details",
        )],
        code: "turnstile::duplicate_id",
        at: Some((
            DOMAIN,
            "get_order_details\n    side: agent\n    kind: generic",
        )),
        message: "tool `get_order_details` is declared twice",
    },
    Broken {
        name: "unknown_tool",
        edits: &[edit(
            CANCEL,
            "    tool: get_order_details",
            "    tool: get_order",
        )],
        code: "turnstile::unknown_tool",
        at: Some((CANCEL, "get_order\n")),
        message: "unknown tool `get_order`",
    },
    Broken {
        name: "tool_call_names_a_write_tool",
        edits: &[edit(
            MAIN,
            "    tool: transfer_to_human_agents",
            "    tool: cancel_pending_order",
        )],
        code: "turnstile::wrong_tool_kind",
        at: Some((MAIN, "cancel_pending_order")),
        message: "tool_call node `transfer` names `cancel_pending_order`, a write tool",
    },
    Broken {
        name: "tool_on_the_wrong_side",
        edits: &[edit(
            DOMAIN,
            "  - name: get_user_details\n    side: agent",
            "  - name: get_user_details\n    side: user",
        )],
        code: "turnstile::wrong_tool_side",
        at: Some((IDENTIFY, "get_user_details")),
        message: "tool `get_user_details` is called by the user side",
    },
    Broken {
        name: "write_tool_without_authorization",
        edits: &[
            edit(
                CANCEL,
                "    tool: cancel_pending_order\n",
                "    tool: transfer_to_human_agents\n",
            ),
            edit(
                CANCEL,
                "    type: tool_authorization",
                "    type: tool_call",
            ),
            edit(
                CANCEL,
                "    guard: args.order_id == $order && args.reason in enum(cancel_reason) && order[args.order_id].status == \"pending\"\n",
                "",
            ),
            edit(CANCEL, "Cancel only {$order}, with", "Cancel only, with"),
        ],
        code: "turnstile::missing_authorization",
        at: Some((DOMAIN, "cancel_pending_order")),
        message: "mutating tool `cancel_pending_order` has no tool_authorization node",
    },
    Broken {
        name: "authorization_without_verify",
        edits: &[edit(
            CANCEL,
            "    check: succeeded(cancel_pending_order, order_id == $order)",
            "    check: called(get_order_details)",
        )],
        code: "turnstile::missing_verify",
        at: Some((CANCEL, "authorize\n    type: tool_authorization")),
        message: "authorization `cancel.authorize` is not followed by a verify node for `cancel_pending_order`",
    },
    Broken {
        name: "out_of_scope_but_authorized",
        edits: &[edit(
            MANIFEST,
            "request_types: [cancel]",
            "request_types: [cancel]\nout_of_scope:\n  - tool: cancel_pending_order\n    reason: humans do it",
        )],
        code: "turnstile::out_of_scope_conflict",
        at: Some((MANIFEST, "cancel_pending_order")),
        message: "declared out of scope but the workflow authorizes it",
    },
    Broken {
        name: "unreachable_node",
        edits: &[edit(CANCEL, "        to: refuse", "        to: done")],
        code: "turnstile::unreachable",
        at: Some((CANCEL, "refuse\n    type: agent_action")),
        message: "node `cancel.refuse` cannot be reached from the entry",
    },
    Broken {
        name: "node_without_exit",
        edits: &[edit(CANCEL, "    next: refused", "    next: refuse")],
        code: "turnstile::no_exit",
        at: Some((CANCEL, "refuse\n    type: agent_action")),
        message: "no exit can be reached from node `cancel.refuse`",
    },
    Broken {
        name: "decision_misses_an_enum_value",
        edits: &[edit(
            CANCEL,
            "in [\"processed\", \"delivered\", \"cancelled\"]",
            "in [\"processed\", \"delivered\"]",
        )],
        code: "turnstile::decision_incomplete",
        at: Some((CANCEL, "status\n    type: decision")),
        message: "decision `cancel.status` has no branch for \"cancelled\"",
    },
    Broken {
        name: "decision_branches_overlap",
        edits: &[edit(
            CANCEL,
            "in [\"processed\", \"delivered\", \"cancelled\"]",
            "in [\"pending\", \"processed\", \"delivered\", \"cancelled\"]",
        )],
        code: "turnstile::decision_inconsistent",
        at: Some((CANCEL, "status\n    type: decision")),
        message: "\"pending\" is matched by branches 1 and 2",
    },
    Broken {
        name: "decision_cannot_be_proven_complete",
        edits: &[edit(
            CANCEL,
            "        check: order[$order].status in [\"processed\", \"delivered\", \"cancelled\"]",
            "        judge: The order is not pending.",
        )],
        code: "turnstile::decision_incomplete",
        at: Some((CANCEL, "status\n    type: decision")),
        message: "cannot be shown complete",
    },
    Broken {
        name: "duplicate_branch_label",
        edits: &[edit(
            CANCEL,
            "      - label: not_pending",
            "      - label: pending",
        )],
        code: "turnstile::decision_inconsistent",
        at: Some((CANCEL, "pending\n        check: order[$order].status in")),
        message: "two branches labelled `pending`",
    },
    Broken {
        name: "otherwise_branch_not_last",
        edits: &[edit(
            CANCEL,
            "      - label: pending\n        check: order[$order].status == \"pending\"",
            "      - label: pending\n        otherwise: true",
        )],
        code: "turnstile::decision_inconsistent",
        at: Some((CANCEL, "pending\n        otherwise")),
        message: "must be the last one",
    },
    Broken {
        name: "classifier_misses_transfer",
        edits: &[edit(
            MAIN,
            "      - label: transfer\n",
            "      - label: escalate\n",
        )],
        code: "turnstile::classifier_incomplete",
        at: Some((MAIN, "classify\n    type: decision")),
        message: "classifier `classify` has no branch for transfer",
    },
    Broken {
        name: "classifier_misses_a_request_type",
        edits: &[edit(
            MANIFEST,
            "request_types: [cancel]",
            "request_types: [cancel, return]",
        )],
        code: "turnstile::classifier_incomplete",
        at: Some((MAIN, "classify\n    type: decision")),
        message: "has no branch for return",
    },
    Broken {
        name: "two_entries",
        edits: &[edit(
            CANCEL,
            "  - id: refuse\n    type: agent_action",
            "  - id: refuse\n    type: entry",
        )],
        code: "turnstile::entry_count",
        at: Some((CANCEL, "cancel\n")),
        message: "flow `cancel` has 2 entry nodes",
    },
    Broken {
        name: "return_in_main_flow",
        edits: &[edit(MAIN, "    outcome: general", "    outcome: return")],
        code: "turnstile::misplaced_return",
        at: Some((MAIN, "end_general\n    type: exit")),
        message: "nowhere to return to",
    },
    Broken {
        name: "subflow_cycle",
        edits: &[edit(
            CANCEL,
            "  - id: start\n    type: entry\n    next: read_order",
            "  - id: start\n    type: entry\n    next: again\n  - id: again\n    type: subflow\n    flow: main\n    next: read_order",
        )],
        code: "turnstile::subflow_cycle",
        at: Some((CANCEL, "main\n")),
        message: "subflow cycle: main -> cancel -> main",
    },
    Broken {
        name: "unknown_subflow",
        edits: &[edit(MAIN, "    flow: cancel", "    flow: cancellation")],
        code: "turnstile::unknown_flow",
        at: Some((MAIN, "cancellation\n")),
        message: "unknown flow `cancellation`",
    },
    Broken {
        name: "missing_main_flow",
        edits: &[edit(MANIFEST, "main: main", "main: spine")],
        code: "turnstile::unknown_flow",
        at: Some((MANIFEST, "spine")),
        message: "main flow `spine` is not defined",
    },
    Broken {
        name: "missing_criterion",
        edits: &[edit(
            CANCEL,
            "    judge: After the agent listed the order id and the reason, the user explicitly confirmed (yes).\n",
            "",
        )],
        code: "turnstile::missing_attribute",
        at: Some((CANCEL, "confirm\n    type: user_input")),
        message: "needs a criterion",
    },
    Broken {
        name: "missing_remediation",
        edits: &[edit(
            CANCEL,
            "    remediation: \"The cancellation of {$order} has not succeeded; report the tool's error to the user.\"\n",
            "",
        )],
        code: "turnstile::missing_attribute",
        at: Some((CANCEL, "verify\n    type: agent_action")),
        message: "agent_action node `verify` needs `remediation`",
    },
    Broken {
        name: "attribute_on_the_wrong_node_type",
        edits: &[edit(
            CANCEL,
            "    type: entry\n    next: read_order",
            "    type: entry\n    tool: get_order_details\n    next: read_order",
        )],
        code: "turnstile::unexpected_attribute",
        at: Some((CANCEL, "entry\n    tool")),
        message: "`tool` does not apply to a entry node",
    },
    Broken {
        name: "expression_syntax_error",
        edits: &[edit(
            CANCEL,
            "order[$order].status == \"pending\"",
            "order[$order].status = \"pending\"",
        )],
        code: "turnstile::expr_syntax",
        at: Some((CANCEL, "= \"pending\"")),
        message: "did you mean `==`?",
    },
    Broken {
        name: "unknown_field",
        edits: &[edit(
            CANCEL,
            "order[$order].status == \"pending\"",
            "order[$order].state == \"pending\"",
        )],
        code: "turnstile::unknown_field",
        at: Some((CANCEL, "state")),
        message: "entity `order` has no field `state`",
    },
    Broken {
        name: "unknown_entity",
        edits: &[edit(
            CANCEL,
            "order[$order].status == \"pending\"",
            "orders[$order].status == \"pending\"",
        )],
        code: "turnstile::unknown_entity",
        at: Some((CANCEL, "orders[")),
        message: "unknown entity `orders`",
    },
    Broken {
        name: "enum_literal_not_in_enum",
        edits: &[edit(
            CANCEL,
            "order[$order].status == \"pending\"",
            "order[$order].status == \"Pending\"",
        )],
        code: "turnstile::unknown_enum_value",
        at: Some((CANCEL, "\"Pending\"")),
        message: "`Pending` is not a value of enum `order_status`",
    },
    Broken {
        name: "comparing_incompatible_types",
        edits: &[edit(
            CANCEL,
            "order[$order].status == \"pending\"",
            "order[$order].item_prices == true",
        )],
        code: "turnstile::type_mismatch",
        at: Some((CANCEL, "order[$order].item_prices == true")),
        message: "cannot compare a list<amount> with a bool",
    },
    Broken {
        name: "ordering_strings",
        edits: &[edit(
            CANCEL,
            "order[$order].status == \"pending\"",
            "order[$order].status < \"pending\"",
        )],
        code: "turnstile::type_mismatch",
        at: Some((CANCEL, "order[$order].status < \"pending\"")),
        message: "`<` needs numbers or dates",
    },
    Broken {
        name: "unknown_parameter",
        edits: &[edit(
            CANCEL,
            "args.reason in enum(cancel_reason)",
            "args.why in enum(cancel_reason)",
        )],
        code: "turnstile::unknown_param",
        at: Some((CANCEL, "args.why")),
        message: "tool `cancel_pending_order` has no parameter `why`",
    },
    Broken {
        name: "args_outside_a_tool_node",
        edits: &[edit(
            CANCEL,
            "    check: succeeded(cancel_pending_order, order_id == $order)",
            "    check: args.order_id == $order",
        )],
        code: "turnstile::unknown_param",
        at: Some((CANCEL, "args.order_id == $order\n")),
        message: "`args` is only available in tool_call and tool_authorization nodes",
    },
    Broken {
        name: "unknown_variable",
        edits: &[edit(
            CANCEL,
            "succeeded(cancel_pending_order, order_id == $order)",
            "succeeded(cancel_pending_order, order_id == $ordr)",
        )],
        code: "turnstile::unknown_variable",
        at: Some((CANCEL, "$ordr")),
        message: "unknown variable `$ordr`",
    },
    Broken {
        name: "unknown_enum_in_membership",
        edits: &[edit(
            CANCEL,
            "in enum(cancel_reason)",
            "in enum(cancel_reasons)",
        )],
        code: "turnstile::unknown_enum",
        at: Some((CANCEL, "cancel_reasons")),
        message: "unknown enum `cancel_reasons`",
    },
    Broken {
        name: "unknown_type",
        edits: &[edit(
            DOMAIN,
            "      item_prices: list<amount>",
            "      item_prices: list<money>",
        )],
        code: "turnstile::bad_type",
        at: Some((DOMAIN, "money")),
        message: "unknown type `money`",
    },
    Broken {
        name: "unknown_enum_in_type",
        edits: &[edit(
            DOMAIN,
            "      status: enum(order_status)",
            "      status: enum(order_state)",
        )],
        code: "turnstile::unknown_enum",
        at: Some((DOMAIN, "order_state")),
        message: "unknown enum `order_state`",
    },
    Broken {
        name: "bad_result_path",
        edits: &[edit(
            DOMAIN,
            "          item_prices: $.items[*].price",
            "          item_prices: $.items[x].price",
        )],
        code: "turnstile::bad_path",
        at: Some((DOMAIN, "x].price")),
        message: "expected `*` or an index",
    },
    Broken {
        name: "read_of_unknown_field",
        edits: &[edit(
            DOMAIN,
            "          status: $.status",
            "          state: $.status",
        )],
        code: "turnstile::unknown_field",
        at: Some((DOMAIN, "$.status")),
        message: "entity `order` has no field `state`",
    },
    Broken {
        name: "bad_remediation_placeholder",
        edits: &[edit(
            CANCEL,
            "Tell the user order {$order} is",
            "Tell the user order {$order is",
        )],
        code: "turnstile::bad_template",
        at: Some((CANCEL, "is {order[$order].status} and")),
        message: "",
    },
    Broken {
        name: "event_constraint_on_a_field",
        edits: &[edit(
            CANCEL,
            "succeeded(cancel_pending_order, order_id == $order)",
            "succeeded(cancel_pending_order, order_id == order[$order].user_id)",
        )],
        code: "turnstile::bad_constraint",
        at: Some((CANCEL, "order[$order].user_id)")),
        message: "an event constraint compares with a variable or a literal",
    },
    Broken {
        name: "counted_event_with_two_constraints",
        edits: &[edit(
            CANCEL,
            "    check: succeeded(cancel_pending_order, order_id == $order)",
            "    check: count(succeeded(cancel_pending_order, order_id == $order, reason == \"x\")) < 1",
        )],
        code: "turnstile::bad_constraint",
        at: Some((
            CANCEL,
            "succeeded(cancel_pending_order, order_id == $order, reason",
        )),
        message: "a counted event takes at most one constraint",
    },
    Broken {
        name: "multiplying_two_amounts",
        edits: &[edit(
            CANCEL,
            "order[$order].status == \"pending\"\n",
            "sum(order[$order].item_prices) * sum(order[$order].item_prices) > 1\n",
        )],
        code: "turnstile::type_mismatch",
        at: Some((CANCEL, "sum(order[$order].item_prices) * sum")),
        message: "an amount can only be multiplied by an integer",
    },
    Broken {
        name: "binding_an_unknown_variable",
        edits: &[edit(
            CANCEL,
            "      order: args.order_id",
            "      purchase: args.order_id",
        )],
        code: "turnstile::unknown_variable",
        at: Some((CANCEL, "args.order_id\n    remediation")),
        message: "`bind` names unknown variable `purchase`",
    },
    Broken {
        name: "a_clock_that_is_not_one",
        edits: &[edit(
            MANIFEST,
            "main: main",
            "main: main\nclock: fixed tomorrow",
        )],
        code: "turnstile::bad_clock",
        at: Some((MANIFEST, "fixed tomorrow")),
        message: "`tomorrow` is not a date-time",
    },
    Broken {
        name: "now_without_a_clock",
        edits: &[edit(
            CANCEL,
            "&& order[args.order_id].status == \"pending\"",
            "&& order[args.order_id].status == \"pending\" && now() < now()",
        )],
        code: "turnstile::no_clock",
        at: Some((CANCEL, "now() < now()")),
        message: "`now()` needs a clock",
    },
    Broken {
        name: "protecting_an_unknown_tool",
        edits: &[edit(
            MANIFEST,
            "tools: [get_user_details, get_order_details]",
            "tools: [get_user_details, get_ordr_details]",
        )],
        code: "turnstile::unknown_tool",
        at: Some((MANIFEST, "get_ordr_details")),
        message: "protected read names unknown tool `get_ordr_details`",
    },
    Broken {
        name: "protecting_a_write",
        edits: &[edit(
            MANIFEST,
            "tools: [get_user_details, get_order_details]",
            "tools: [get_user_details, cancel_pending_order]",
        )],
        code: "turnstile::wrong_tool_kind",
        at: Some((MANIFEST, "cancel_pending_order]")),
        message: "`cancel_pending_order` is a mutating tool; protect only reads",
    },
    Broken {
        name: "protected_read_after_an_unknown_node",
        edits: &[edit(
            MANIFEST,
            "after: [identify.find_user]",
            "after: [identify.find_usr]",
        )],
        code: "turnstile::unknown_node",
        at: Some((MANIFEST, "identify.find_usr")),
        message: "protected read waits for unknown node `identify.find_usr`",
    },
    Broken {
        name: "protected_read_with_neither_after_nor_guard",
        edits: &[edit(MANIFEST, "    after: [identify.find_user]\n", "")],
        code: "turnstile::missing_attribute",
        at: Some((MANIFEST, "get_user_details, get_order_details]")),
        message: "a protected read needs `after`",
    },
    Broken {
        name: "protected_read_guard_reading_variables_without_identification",
        edits: &[
            edit(
                MANIFEST,
                "tools: [get_user_details, get_order_details]",
                "tools: [get_user_details]",
            ),
            edit(
                MANIFEST,
                "    after: [identify.find_user]\n",
                "    guard: args.user_id == $user\n",
            ),
        ],
        code: "turnstile::unknown_variable",
        at: Some((MANIFEST, "args.user_id == $user")),
        message: "this guard reads request variables",
    },
    Broken {
        name: "a_read_protected_twice",
        edits: &[edit(
            MANIFEST,
            "tools: [get_user_details, get_order_details]",
            "tools: [get_user_details, get_user_details]",
        )],
        code: "turnstile::duplicate_id",
        at: Some((MANIFEST, "get_user_details]")),
        message: "`get_user_details` is protected twice",
    },
];

/// The runtime of the `shop` fixture, whose sessions the session tests
/// replay.
pub fn shop_runtime() -> std::sync::Arc<turnstile_engine::session::BundleRuntime> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/shop");
    let bundle = turnstile_engine::check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
    turnstile_engine::session::BundleRuntime::new(std::sync::Arc::new(bundle)).unwrap()
}

/// A user message.
pub fn user(text: &str) -> Event {
    Event::User { text: text.into() }
}

/// An agent message.
pub fn agent(text: &str) -> Event {
    Event::Agent { text: text.into() }
}

/// The agent's call of `tool`.
pub fn call(id: &str, tool: &str, args: Json) -> Event {
    Event::Call {
        id: id.into(),
        tool: tool.into(),
        args,
        requestor: Side::Agent,
    }
}

/// The successful result of call `id`.
pub fn ok(id: &str, content: Json) -> Event {
    Event::Result {
        id: id.into(),
        ok: true,
        content,
    }
}

/// The `shop` user `u1`'s profile: orders `#O1` and `#O2`.
pub fn shop_profile() -> Json {
    json!({
        "user_id": "u1",
        "orders": ["#O1", "#O2"],
        "payment_methods": {"cc": {"id": "cc", "source": "credit_card"}},
        "bills": []
    })
}

/// The `shop` order `id` of `u1`, in `status`.
pub fn shop_order(id: &str, status: &str) -> Json {
    json!({
        "order_id": id, "user_id": "u1", "status": status, "total": 120.25,
        "items": [{"item_id": "shirt_red_m", "product_id": "shirt", "price": 20}]
    })
}

/// A `shop` conversation's identification of `u1` and the read of
/// `order_id` in `status`: events 0-7.
pub fn shop_opening(order_id: &str, status: &str) -> Vec<Event> {
    vec![
        user("Hi! I'd like to cancel an order. My email is u1@example.com."),
        agent("Sure, let me look you up."),
        call(
            "c1",
            "find_user_id_by_email",
            json!({"email": "u1@example.com"}),
        ),
        ok("c1", json!("u1")),
        call("c2", "get_user_details", json!({"user_id": "u1"})),
        ok("c2", shop_profile()),
        call("c3", "get_order_details", json!({"order_id": order_id})),
        ok("c3", shop_order(order_id, status)),
    ]
}
