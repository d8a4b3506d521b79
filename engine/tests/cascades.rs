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
const IDENTIFY: &str = "flows/identify.yaml";
const DOMAIN: &str = "domain.yaml";

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
    Cascade {
        name: "a number written as a string",
        edits: &[edit(
            CANCEL,
            "        check: order[$order].status == \"pending\"",
            "        check: order[$order].item_prices == \"10000\"",
        )],
        code: "turnstile::type_mismatch",
        at: (CANCEL, "order[$order].item_prices"),
        message: "cannot compare a list<amount> with a string",
        help: "write the number without quotes: `10000`",
    },
    // The checks that used to accept these silently.
    Cascade {
        name: "citation past the policy's end",
        edits: &[edit(
            CANCEL,
            "    cites: policy.md:11\n",
            "    cites: policy.md:130\n",
        )],
        code: "turnstile::bad_citation",
        at: (CANCEL, "policy.md:130"),
        message: "`policy.md:130` cites line 130, but `policy.md` has 13 lines",
        help: "renumber the citation after editing the policy",
    },
    Cascade {
        name: "citation of a missing file",
        edits: &[edit(
            CANCEL,
            "    cites: policy.md:9\n",
            "    cites: polcy.md:9\n",
        )],
        code: "turnstile::bad_citation",
        at: (CANCEL, "polcy.md:9"),
        message: "cannot read cited file `polcy.md`",
        help: "paths in `cites` are relative to the bundle directory",
    },
    Cascade {
        name: "citation that is not a line",
        edits: &[edit(
            CANCEL,
            "    cites: policy.md:9\n",
            "    cites: policy.md:nine\n",
        )],
        code: "turnstile::bad_citation",
        at: (CANCEL, "policy.md:nine"),
        message: "`policy.md:nine` is not a line or line range",
        help: "write `file`, `file:line` or `file:first-last`",
    },
    Cascade {
        name: "list path on a scalar field",
        edits: &[edit(
            DOMAIN,
            "          user_id: $.user_id\n",
            "          user_id: $.user_id[*]\n",
        )],
        code: "turnstile::type_mismatch",
        at: (DOMAIN, "$.user_id[*]"),
        message: "`$.user_id[*]` selects several values, but field `user_id` of `order` is a string",
        help: "drop the `[*]` to read one value, or declare the field as `list<string>`",
    },
    Cascade {
        name: "variable of a flow that does not invoke this one",
        edits: &[edit(
            IDENTIFY,
            "    check: args.user_id == $user",
            "    check: args.user_id == $order",
        )],
        code: "turnstile::unknown_variable",
        at: (IDENTIFY, "$order"),
        message: "variable `$order` is declared in flow `cancel`, which does not invoke flow `identify`",
        help: "a flow may use the variables it declares and those of the flows that invoke it; add `order: order` to the `vars` of `identify` or of a flow that invokes it",
    },
    Cascade {
        name: "binding a variable of a flow that does not invoke this one",
        edits: &[edit(
            IDENTIFY,
            "      user: result\n",
            "      order: result\n",
        )],
        code: "turnstile::unknown_variable",
        at: (IDENTIFY, "result\n    remediation: Authenticate"),
        message: "variable `$order` is declared in flow `cancel`, which does not invoke flow `identify`",
        help: "a flow may use the variables it declares and those of the flows that invoke it; add `order: order` to the `vars` of `identify` or of a flow that invokes it",
    },
    Cascade {
        name: "a call's argument used as a read's field",
        edits: &[edit(
            DOMAIN,
            "          status: $.status",
            "          status: args.order_id",
        )],
        code: "turnstile::bad_path",
        at: (DOMAIN, "args.order_id"),
        message: "a path starts with `$` (the result) or `.` (the current element)",
        help: "a read takes its values from the tool's result (`$.order_id`); the call's arguments are not the result: bind one to a request variable in the node (`bind: {order: args.order_id}`), or make it part of a composite id (`key: [string, date]` on the entity, `id: \"[args.number, args.date]\"`)",
    },
];

/// A citation range inside the policy and a variable of an invoking flow
/// are fine.
#[test]
fn in_scope_variables_and_line_ranges_are_accepted() {
    let dir = mutated(&[edit(
        CANCEL,
        "    cites: policy.md:11\n",
        "    cites: policy.md:9-13\n",
    )]);
    check_bundle(&bundle_in(&dir)).unwrap_or_else(|p| panic!("{p}"));
}

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

/// A mistake inside a flow that several nodes invoke is found in every
/// inlined copy: it is still one diagnostic (airline's `transfer` flow is
/// invoked from `main` and from `cancel`).
#[test]
fn a_mistake_in_a_flow_invoked_from_several_places_is_reported_once() {
    let airline = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/airline");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("airline");
    support::copy_dir(&airline, &root);
    let path = root.join("flows/transfer.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.matches("    tool: transfer_to_human_agents").count(),
        1
    );
    std::fs::write(
        &path,
        text.replace(
            "    tool: transfer_to_human_agents",
            "    tool: transfer_to_human_agentz",
        ),
    )
    .unwrap();
    let problems = check_bundle(&root).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems}");
    let p = problems.iter().next().unwrap();
    assert_eq!(p.kind.code(), "turnstile::unknown_tool");
    assert_eq!(
        p.help.as_deref(),
        Some("did you mean `transfer_to_human_agents`?")
    );
}
