//! One root cause, one diagnostic: each mistake below used to drag follow-on
//! errors along (a branch "without guard", `args` "outside a tool node",
//! a dozen unreachable nodes); now each gives exactly one problem, with a
//! "did you mean" for the misspelt name, whatever kind of name it is.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use support::{Edit, bundle_in, mutated, position_of};
use turnstile_engine::check_bundle;

const CANCEL: &str = "flows/cancel.yaml";
const MAIN: &str = "flows/main.yaml";

/// A mistake, the one diagnostic it must give and that diagnostic's help.
struct Cascade {
    name: &'static str,
    edits: &'static [Edit],
    code: &'static str,
    /// Where the diagnostic points (its first character).
    at: (&'static str, &'static str),
    message: &'static str,
    help: &'static str,
}

const fn edit(file: &'static str, find: &'static str, replace: &'static str) -> Edit {
    Edit {
        file,
        find,
        replace,
    }
}

const CASES: &[Cascade] = &[
    Cascade {
        name: "field typo in a decision branch",
        edits: &[edit(
            CANCEL,
            "        check: order[$order].status == \"pending\"",
            "        check: order[$order].stauts == \"pending\"",
        )],
        code: "turnstile::unknown_field",
        at: (CANCEL, "stauts"),
        message: "entity `order` has no field `stauts`",
        help: "did you mean `status`?",
    },
    Cascade {
        name: "unknown tool on an authorization",
        edits: &[edit(
            CANCEL,
            "    tool: cancel_pending_order",
            "    tool: cancel_pending_ordr",
        )],
        code: "turnstile::unknown_tool",
        at: (CANCEL, "cancel_pending_ordr"),
        message: "unknown tool `cancel_pending_ordr`",
        help: "did you mean `cancel_pending_order`?",
    },
    Cascade {
        name: "unknown tool in a verify check",
        edits: &[edit(
            CANCEL,
            "succeeded(cancel_pending_order,",
            "succeeded(cancel_pendng_order,",
        )],
        code: "turnstile::unknown_tool",
        at: (CANCEL, "cancel_pendng_order"),
        message: "unknown tool `cancel_pendng_order`",
        help: "did you mean `cancel_pending_order`?",
    },
    Cascade {
        name: "one bad next",
        edits: &[edit(CANCEL, "    next: read_order", "    next: read_ordr")],
        code: "turnstile::unknown_node",
        at: (CANCEL, "read_ordr"),
        message: "unknown node `read_ordr` in flow `cancel`",
        help: "did you mean `read_order`?",
    },
    Cascade {
        name: "one bad branch target",
        edits: &[edit(CANCEL, "        to: refuse", "        to: refuze")],
        code: "turnstile::unknown_node",
        at: (CANCEL, "refuze"),
        message: "unknown node `refuze` in flow `cancel`",
        help: "did you mean `refuse`?",
    },
    Cascade {
        name: "unknown subflow",
        edits: &[edit(MAIN, "    flow: cancel\n", "    flow: cancl\n")],
        code: "turnstile::unknown_flow",
        at: (MAIN, "cancl"),
        message: "unknown flow `cancl`",
        help: "did you mean `cancel`?",
    },
    Cascade {
        name: "unknown variable",
        edits: &[edit(
            CANCEL,
            "    guard: args.order_id == $order &&",
            "    guard: args.order_id == $ordr &&",
        )],
        code: "turnstile::unknown_variable",
        at: (CANCEL, "$ordr"),
        message: "unknown variable `$ordr`",
        help: "did you mean `$order`?",
    },
    Cascade {
        name: "unknown entity",
        edits: &[edit(
            CANCEL,
            "    check: args.order_id in user[$user].order_ids",
            "    check: args.order_id in users[$user].order_ids",
        )],
        code: "turnstile::unknown_entity",
        at: (CANCEL, "users["),
        message: "unknown entity `users`",
        help: "did you mean `user`?",
    },
    Cascade {
        name: "unknown parameter",
        edits: &[edit(
            CANCEL,
            "    guard: args.order_id == $order &&",
            "    guard: args.orderid == $order &&",
        )],
        code: "turnstile::unknown_param",
        at: (CANCEL, "args.orderid"),
        message: "tool `cancel_pending_order` has no parameter `orderid`",
        help: "did you mean `order_id`?",
    },
    Cascade {
        name: "enum value typo",
        edits: &[edit(
            CANCEL,
            "        check: order[$order].status == \"pending\"",
            "        check: order[$order].status == \"Pending\"",
        )],
        code: "turnstile::unknown_enum_value",
        at: (CANCEL, "\"Pending\""),
        message: "`Pending` is not a value of enum `order_status`",
        help: "did you mean `pending`?",
    },
    Cascade {
        name: "unknown enum",
        edits: &[edit(
            CANCEL,
            "args.reason in enum(cancel_reason)",
            "args.reason in enum(cancel_reasons)",
        )],
        code: "turnstile::unknown_enum",
        at: (CANCEL, "cancel_reasons"),
        message: "unknown enum `cancel_reasons`",
        help: "did you mean `cancel_reason`?",
    },
    Cascade {
        name: "comparing an amount with a string",
        edits: &[edit(
            CANCEL,
            "        check: order[$order].status == \"pending\"",
            "        check: order[$order].item_prices == \"pending\"",
        )],
        code: "turnstile::type_mismatch",
        at: (CANCEL, "order[$order].item_prices"),
        message: "cannot compare a list<amount> with a string",
        help: "",
    },
];

#[test]
fn each_mistake_gives_exactly_one_diagnostic() {
    let mut failures = Vec::new();
    for case in CASES {
        let dir = mutated(case.edits);
        let root = bundle_in(&dir);
        let Err(problems) = check_bundle(&root) else {
            failures.push(format!("{}: accepted", case.name));
            continue;
        };
        let (file, needle) = case.at;
        let (line, column) = position_of(&root, file, needle);
        let only = problems.iter().next().filter(|_| problems.len() == 1);
        let ok = only.is_some_and(|p| {
            p.kind.code() == case.code
                && p.file.as_deref() == Some(&format!("toy-orders/{file}")[..])
                && p.line == Some(line)
                && p.column == Some(column)
                && p.message == case.message
                && (case.help.is_empty() || p.help.as_deref() == Some(case.help))
        });
        if !ok {
            failures.push(format!(
                "{}: wanted only {} at {line}:{column} `{}` (help {:?}); got:\n{problems}{:?}",
                case.name,
                case.code,
                case.message,
                case.help,
                problems.iter().map(|p| p.help.clone()).collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
