//! Every operator, operand and event predicate of the check IR, decided by the
//! Datalog program on hand-made facts: each with a case that holds and one
//! that does not, plus the fail-closed cases (missing values).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use turnstile_rules::{
    AggOp, Amount, ArgPath, ArgStep, Check, CheckSet, CmpOp, CompiledChecks, Date, DateTime,
    EventFilter, Interner, Operand, Outcome, Step, StepId, StepOrigin, Symbol, Timing, TraceFacts,
    Value, VarId, evaluate,
};
use turnstile_rules::{ArgConstraint, ArithOp, EventIdx};
use turnstile_rules::{
    ArgFact, ArgLenFact, AttrFact, AttrLenFact, CallFact, FOREVER, ResultFact, SCALAR,
};

/// Names used by the facts below, interned once.
struct World {
    interner: Interner,
    order: Symbol,
    status: Symbol,
    prices: Symbol,
    o1: Symbol,
    pending: Symbol,
    delivered: Symbol,
    cancel: Symbol,
    read: Symbol,
    order_id: Symbol,
}

fn world() -> World {
    let mut i = Interner::new();
    World {
        order: i.intern("order"),
        status: i.intern("status"),
        prices: i.intern("prices"),
        o1: i.intern("#O1"),
        pending: i.intern("pending"),
        delivered: i.intern("delivered"),
        cancel: i.intern("cancel"),
        read: i.intern("read"),
        order_id: i.intern("order_id"),
        interner: i,
    }
}

/// Facts: event 0 user; 1 call read(#O1); 2 result ok (status pending,
/// prices [10, 2.5]); 3 call cancel(#O1); 4 result ok.
fn facts(w: &World) -> TraceFacts {
    let path = ArgPath(vec![ArgStep::Key(w.order_id)]);
    let attr = |field, elem, value| AttrFact {
        entity: w.order,
        id: w.o1,
        field,
        elem,
        value,
        from: EventIdx(2),
        until: FOREVER,
    };
    TraceFacts {
        interner: w.interner.clone(),
        events: 5,
        clock: Vec::new(),
        literals: Vec::new(),
        passed_over: Vec::new(),
        held: Vec::new(),
        calls: vec![
            CallFact {
                event: EventIdx(1),
                tool: w.read,
                by_agent: true,
            },
            CallFact {
                event: EventIdx(3),
                tool: w.cancel,
                by_agent: true,
            },
        ],
        results: vec![
            ResultFact {
                event: EventIdx(2),
                call: EventIdx(1),
                ok: true,
            },
            ResultFact {
                event: EventIdx(4),
                call: EventIdx(3),
                ok: true,
            },
        ],
        attrs: vec![
            attr(w.status, SCALAR, Value::Str(w.pending)),
            attr(w.prices, 0, Value::Amount(Amount::parse("10").unwrap())),
            attr(w.prices, 1, Value::Amount(Amount::parse("2.5").unwrap())),
        ],
        attr_lens: vec![AttrLenFact {
            entity: w.order,
            id: w.o1,
            field: w.prices,
            len: 2,
            from: EventIdx(2),
            until: FOREVER,
        }],
        arg_paths: vec![path],
        args: vec![
            ArgFact {
                call: EventIdx(1),
                path: 0,
                elem: SCALAR,
                value: Value::Str(w.o1),
            },
            ArgFact {
                call: EventIdx(3),
                path: 0,
                elem: SCALAR,
                value: Value::Str(w.o1),
            },
        ],
        arg_lens: Vec::new(),
        binds: vec![turnstile_rules::BindFact {
            step: StepId(1),
            event: EventIdx(2),
            var: VarId(0),
            value: w.o1,
        }],
        judged: Vec::new(),
        diagnostics: Vec::new(),
        turns: Vec::new(),
        mentions: Vec::new(),
        disowned: Vec::new(),
    }
}

/// entry -> read (binds $order from the read's result) -> probe (the check).
fn holds_with(w: &World, check: Check, timing: Timing, facts: &TraceFacts) -> bool {
    let mut checks = CheckSet::default();
    let id = checks.push(check);
    let step = |name: &str, timing, check, binds: Vec<u32>| Step {
        origin: StepOrigin::Node,
        name: name.into(),
        timing,
        check,
        semantic: false,
        binds: binds.into_iter().map(VarId).collect(),
        authorizes: None,
    };
    let spec = CompiledChecks {
        checks,
        steps: vec![
            step("entry", Timing::State, None, vec![]),
            step("read", Timing::Result(w.read), None, vec![0]),
            step("probe", timing, Some(id), vec![]),
        ],
        edges: vec![(StepId(0), StepId(1)), (StepId(1), StepId(2))],
        entry: StepId(0),
        vars: 1,
        gated_tools: Vec::new(),
        consent: Default::default(),
        protections: Vec::new(),
    };
    let derived = evaluate(&spec, facts).unwrap();
    derived.evidence.keys().any(|(s, _)| *s == StepId(2))
}

fn holds(check: Check) -> bool {
    let w = world();
    let f = facts(&w);
    holds_with(&w, check, Timing::State, &f)
}

fn c(v: Value) -> Operand {
    Operand::Const(v)
}

fn int(i: i64) -> Operand {
    c(Value::Int(i))
}

fn amount(text: &str) -> Operand {
    c(Value::Amount(Amount::parse(text).unwrap()))
}

fn cmp(op: CmpOp, lhs: Operand, rhs: Operand) -> Check {
    Check::Compare { op, lhs, rhs }
}

fn field(w: &World, f: Symbol) -> Operand {
    Operand::Field {
        entity: w.order,
        id: Box::new(Operand::Var(VarId(0))),
        field: f,
    }
}

#[test]
fn comparison_operators_on_every_value_kind() {
    use CmpOp::*;
    let table: Vec<(CmpOp, Operand, Operand, bool)> = vec![
        (Eq, int(3), int(3), true),
        (Eq, int(3), int(4), false),
        (Ne, int(3), int(4), true),
        (Ne, int(3), int(3), false),
        (Lt, int(3), int(4), true),
        (Lt, int(4), int(4), false),
        (Le, int(4), int(4), true),
        (Le, int(5), int(4), false),
        (Gt, amount("2.5"), int(2), true),
        (Gt, amount("2"), int(2), false),
        (Ge, amount("2.000001"), amount("2"), true),
        (Ge, amount("1.999999"), int(2), false),
        (Eq, amount("3"), int(3), true),
        (
            Lt,
            c(Value::Date(Date::parse("2024-05-14").unwrap())),
            c(Value::Date(Date::parse("2024-05-15").unwrap())),
            true,
        ),
        (
            Ge,
            c(Value::DateTime(
                DateTime::parse("2024-05-14T15:00:00").unwrap(),
            )),
            c(Value::DateTime(
                DateTime::parse("2024-05-14T15:00:01").unwrap(),
            )),
            false,
        ),
        (Eq, c(Value::Bool(true)), c(Value::Bool(true)), true),
        (Ne, c(Value::Bool(true)), c(Value::Bool(true)), false),
        (Eq, c(Value::Int(1)), c(Value::Bool(true)), false),
        (Ne, c(Value::Int(1)), c(Value::Bool(true)), true),
    ];
    for (op, lhs, rhs, expected) in table {
        let text = format!("{lhs:?} {} {rhs:?}", op.symbol());
        assert_eq!(holds(cmp(op, lhs, rhs)), expected, "{text}");
    }
}

#[test]
fn entity_fields_are_the_latest_read_and_missing_ones_fail_closed() {
    let w = world();
    assert!(holds(cmp(
        CmpOp::Eq,
        field(&w, w.status),
        c(Value::Str(w.pending))
    )));
    assert!(!holds(cmp(
        CmpOp::Eq,
        field(&w, w.status),
        c(Value::Str(w.delivered))
    )));
    let unknown = Operand::Field {
        entity: w.order,
        id: Box::new(Operand::Var(VarId(0))),
        field: w.read,
    };
    assert!(!holds(cmp(
        CmpOp::Eq,
        unknown.clone(),
        c(Value::Str(w.pending))
    )));
    assert!(!holds(cmp(
        CmpOp::Ne,
        unknown.clone(),
        c(Value::Str(w.pending))
    )));
    assert!(!holds(Check::Not(Box::new(cmp(
        CmpOp::Eq,
        unknown,
        c(Value::Str(w.pending))
    )))));
    // A later read supersedes the first one from its event on.
    let mut f = facts(&w);
    f.attrs[0].until = EventIdx(3);
    f.attrs.push(AttrFact {
        from: EventIdx(3),
        value: Value::Str(w.delivered),
        ..f.attrs[0]
    });
    f.attrs.last_mut().unwrap().until = FOREVER;
    let pending = cmp(CmpOp::Eq, field(&w, w.status), c(Value::Str(w.pending)));
    let delivered = cmp(CmpOp::Eq, field(&w, w.status), c(Value::Str(w.delivered)));
    assert!(!holds_with(&w, pending.clone(), Timing::Call(w.cancel), &f));
    assert!(holds_with(&w, delivered, Timing::Call(w.cancel), &f));
    assert!(
        holds_with(&w, pending, Timing::State, &f),
        "held at event 2, before the second read"
    );
}

#[test]
fn membership_in_literals_and_in_list_operands() {
    let w = world();
    let status = field(&w, w.status);
    let set = vec![c(Value::Str(w.pending)), c(Value::Str(w.o1))];
    assert!(holds(Check::OneOf {
        operand: status.clone(),
        set: set.clone()
    }));
    assert!(!holds(Check::OneOf {
        operand: status.clone(),
        set: vec![c(Value::Str(w.delivered))]
    }));
    assert!(!holds(Check::Not(Box::new(Check::OneOf {
        operand: status.clone(),
        set
    }))));
    let prices = field(&w, w.prices);
    assert!(holds(Check::Contains {
        item: amount("2.5"),
        list: prices.clone()
    }));
    assert!(!holds(Check::Contains {
        item: amount("3"),
        list: prices.clone()
    }));
    assert!(holds(Check::Not(Box::new(Check::Contains {
        item: amount("3"),
        list: prices
    }))));
}

#[test]
fn list_comparisons_hold_for_every_element() {
    let w = world();
    let prices = field(&w, w.prices);
    assert!(holds(cmp(CmpOp::Gt, prices.clone(), int(2))));
    assert!(!holds(cmp(CmpOp::Gt, prices.clone(), int(5))));
    assert!(
        holds(Check::Not(Box::new(cmp(CmpOp::Gt, prices, int(5))))),
        "some element is not > 5"
    );
}

#[test]
fn boolean_connectives() {
    let t = || cmp(CmpOp::Eq, int(1), int(1));
    let f = || cmp(CmpOp::Eq, int(1), int(2));
    assert!(holds(Check::All(vec![t(), t()])));
    assert!(!holds(Check::All(vec![t(), f()])));
    assert!(holds(Check::Any(vec![f(), t()])));
    assert!(!holds(Check::Any(vec![f(), f()])));
    assert!(holds(Check::Not(Box::new(f()))));
    assert!(!holds(Check::Not(Box::new(Check::Any(vec![f(), t()])))));
    assert!(holds(Check::Not(Box::new(Check::All(vec![t(), f()])))));
    assert!(holds(Check::Const(true)) && !holds(Check::Const(false)));
}

fn filter(w: &World, tool: Symbol, outcome: Outcome, order: Option<Operand>) -> EventFilter {
    EventFilter {
        tool,
        outcome,
        constraints: order
            .map(|value| ArgConstraint {
                path: ArgPath(vec![ArgStep::Key(w.order_id)]),
                op: CmpOp::Eq,
                value,
            })
            .into_iter()
            .collect(),
    }
}

#[test]
fn event_predicates_look_at_or_before_now() {
    let w = world();
    let var = || Some(Operand::Var(VarId(0)));
    assert!(holds(Check::Happened(filter(
        &w,
        w.cancel,
        Outcome::Called,
        None
    ))));
    assert!(holds(Check::Happened(filter(
        &w,
        w.cancel,
        Outcome::Succeeded,
        var()
    ))));
    assert!(!holds(Check::Happened(filter(
        &w,
        w.cancel,
        Outcome::Succeeded,
        Some(c(Value::Str(w.pending)))
    ))));
    // Decided at the cancel call (event 3): called, but not yet succeeded.
    let f = facts(&w);
    let succeeded = Check::Happened(filter(&w, w.cancel, Outcome::Succeeded, None));
    assert!(!holds_with(
        &w,
        succeeded.clone(),
        Timing::Call(w.cancel),
        &f
    ));
    assert!(holds_with(
        &w,
        Check::Not(Box::new(succeeded)),
        Timing::Call(w.cancel),
        &f
    ));
    assert!(holds_with(
        &w,
        Check::Happened(filter(&w, w.cancel, Outcome::Called, None)),
        Timing::Call(w.cancel),
        &f
    ));
}

#[test]
fn counting_events_per_entity() {
    let w = world();
    let count = |key| Operand::CountEvents(filter(&w, w.read, Outcome::Succeeded, key));
    assert!(holds(cmp(
        CmpOp::Eq,
        count(Some(Operand::Var(VarId(0)))),
        int(1)
    )));
    assert!(holds(cmp(CmpOp::Eq, count(None), int(1))));
    assert!(holds(cmp(
        CmpOp::Eq,
        count(Some(c(Value::Str(w.pending)))),
        int(0)
    )));
    let f = facts(&w);
    let none_yet = cmp(
        CmpOp::Lt,
        Operand::CountEvents(filter(&w, w.cancel, Outcome::Succeeded, None)),
        int(1),
    );
    assert!(holds_with(&w, none_yet.clone(), Timing::Call(w.cancel), &f));
    assert!(holds(none_yet), "holds at the earliest state point");
}

#[test]
fn aggregates_and_arithmetic_are_exact() {
    let w = world();
    let prices = || Box::new(field(&w, w.prices));
    let agg = |op| Operand::Aggregate { op, of: prices() };
    assert!(holds(cmp(CmpOp::Eq, agg(AggOp::Sum), amount("12.5"))));
    assert!(!holds(cmp(CmpOp::Eq, agg(AggOp::Sum), amount("12.49"))));
    assert!(holds(cmp(CmpOp::Eq, agg(AggOp::Count), int(2))));
    assert!(holds(cmp(CmpOp::Eq, agg(AggOp::Min), amount("2.5"))));
    assert!(holds(cmp(CmpOp::Eq, agg(AggOp::Max), int(10))));
    let arith = |op, a, b| Operand::Arith {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
    };
    assert!(holds(cmp(
        CmpOp::Eq,
        arith(ArithOp::Sub, agg(AggOp::Sum), amount("2.5")),
        int(10)
    )));
    assert!(holds(cmp(
        CmpOp::Eq,
        arith(ArithOp::Add, int(2), int(3)),
        int(5)
    )));
    assert!(holds(cmp(
        CmpOp::Eq,
        arith(ArithOp::Mul, amount("2.5"), int(3)),
        amount("7.5")
    )));
    assert!(
        !holds(cmp(
            CmpOp::Eq,
            arith(ArithOp::Add, int(i64::MAX), int(1)),
            int(0)
        )),
        "overflow fails closed"
    );
    assert!(
        !holds(cmp(
            CmpOp::Ne,
            arith(ArithOp::Add, int(i64::MAX), int(1)),
            int(0)
        )),
        "overflow fails closed"
    );
    let equal = |v| Operand::CountEqual {
        of: prices(),
        value: Box::new(v),
    };
    assert!(holds(cmp(CmpOp::Eq, equal(int(10)), int(1))));
    assert!(holds(cmp(CmpOp::Eq, equal(int(7)), int(0))));
}

#[test]
fn call_arguments_at_the_decided_call() {
    let w = world();
    let f = facts(&w);
    let arg = || Operand::Arg(ArgPath(vec![ArgStep::Key(w.order_id)]));
    assert!(holds_with(
        &w,
        cmp(CmpOp::Eq, arg(), Operand::Var(VarId(0))),
        Timing::Call(w.cancel),
        &f
    ));
    assert!(!holds_with(
        &w,
        cmp(CmpOp::Eq, arg(), c(Value::Str(w.pending))),
        Timing::Call(w.cancel),
        &f
    ));
    // List arguments: pairwise against lists, every element against scalars.
    let mut f = facts(&w);
    let items = ArgPath(vec![ArgStep::Key(w.prices), ArgStep::Each]);
    f.arg_paths.push(items.clone());
    f.args.push(ArgFact {
        call: EventIdx(3),
        path: 1,
        elem: 0,
        value: Value::Amount(Amount::parse("10").unwrap()),
    });
    f.args.push(ArgFact {
        call: EventIdx(3),
        path: 1,
        elem: 1,
        value: Value::Amount(Amount::parse("2.5").unwrap()),
    });
    f.arg_lens.push(ArgLenFact {
        call: EventIdx(3),
        path: 1,
        len: 2,
    });
    let list = || Operand::Arg(items.clone());
    assert!(holds_with(
        &w,
        cmp(CmpOp::Eq, list(), field(&w, w.prices)),
        Timing::Call(w.cancel),
        &f
    ));
    assert!(!holds_with(
        &w,
        cmp(CmpOp::Eq, list(), amount("10")),
        Timing::Call(w.cancel),
        &f
    ));
    let sum = Operand::Aggregate {
        op: AggOp::Sum,
        of: Box::new(list()),
    };
    assert!(holds_with(
        &w,
        cmp(CmpOp::Eq, sum, amount("12.5")),
        Timing::Call(w.cancel),
        &f
    ));
}
