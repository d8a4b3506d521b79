#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report
//! Differential test of the two evaluators of `turnstile-rules`: the
//! incremental monitor (`turnstile_rules::monitor`) must derive exactly the
//! `Sat` and `Allowed` relations of the Datalog program (`evaluate`, the
//! reference semantics documented at the top of `rules/src/program.rs`).
//!
//! The generator keeps the vocabulary tiny (2–3 tools, one entity with a
//! status, an amount and a list of items, 2–3 ids, 2–3 request variables) so
//! that random workflows, checks and traces run into each other: the same id
//! read twice with different values, a binding step forking requests, a
//! guard pinned to an argument, a count that changes under a state step.
//! Both evaluators see the same per-event [`EventFacts`]: the monitor one at a
//! time, the program through [`FactsBuilder`].
//!
//! Dialogue: turns name ids, statuses, dates and amounts; guards ask
//! `said`/`confirmed` of them. Interactions include a summary naming two
//! records followed by a yes naming one and a write on either (and write
//! guards are often `confirmed(args.order_id, ...)`), so `confirmed(...)`'s
//! key-aware rule (a yes naming one record of two confirms that one only)
//! is reached: with the rule removed from the monitor the property fails at
//! the default case count (16 of 16 fresh runs when this was written).
//!
//! Block explanations too: at every blocked call the monitor's own
//! explanation (`Monitor::explain_block`) names the same request, first
//! unmet step and reason as the program's violation on the trace up to that
//! call.
//!
//! Protected reads: a case protects up to two reads (after random steps, or
//! the entry, with or without a guard); their permits are part of
//! `Allowed`, and a refused read's explanation (`Monitor::explain_read`)
//! must be the program's too.
//!
//! Cases: 256 ([`turnstile_proptests::cases`]: `TURNSTILE_PROPTEST_SCALE` multiplies them, `TURNSTILE_PROPTEST_CASES` sets them).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::TestCaseError;
use turnstile_rules::Env;
use turnstile_rules::{
    AggOp, Amount, ArgPath, ArgStep, Check, CheckId, CheckSet, CmpOp, CompiledChecks, Date,
    Derived, EventFilter, Interner, Operand, Outcome, Protection, Step, StepId, StepOrigin, Symbol,
    Timing, Value, VarId, evaluate,
};
use turnstile_rules::{ArgConstraint, ArithOp, Condition, ConsentSpec, DateTime, Duration};
use turnstile_rules::{
    ArgFact, ArgLenFact, BindFact, CallFact, DisownFact, EventFacts, EventIdx, FactsBuilder,
    HeldFact, LiteralFact, MentionFact, PassedOverFact, Read, Reply, ResultFact, SCALAR, Speaker,
    TurnFact, UNKNOWN_PLACE, UNPLACED_SEGMENT,
};
use turnstile_rules::{EventOutcome, Monitor, Plan, Violation};

// ---------------------------------------------------------------------------
// Vocabulary: every name interned once, in this order, so symbols are constants.

const NAMES: [&str; 20] = [
    "lookup",
    "inspect",
    "cancel",
    "refund",
    "order",
    "status",
    "amount",
    "items",
    "#O1",
    "#O2",
    "#O3",
    "pending",
    "delivered",
    "cancelled",
    "order_id",
    "item_ids",
    "total",
    "ghost",
    "placed",
    "new_item_ids",
];

const LOOKUP: Symbol = Symbol(0);
const INSPECT: Symbol = Symbol(1);
const CANCEL: Symbol = Symbol(2);
const REFUND: Symbol = Symbol(3);
const ORDER: Symbol = Symbol(4);
const STATUS: Symbol = Symbol(5);
const AMOUNT: Symbol = Symbol(6);
const ITEMS: Symbol = Symbol(7);
const IDS: [Symbol; 3] = [Symbol(8), Symbol(9), Symbol(10)];
const STATUSES: [Symbol; 3] = [Symbol(11), Symbol(12), Symbol(13)];
const ORDER_ID: Symbol = Symbol(14);
const ITEM_IDS: Symbol = Symbol(15);
const TOTAL: Symbol = Symbol(16);
const GHOST: Symbol = Symbol(17);
const PLACED: Symbol = Symbol(18);
const NEW_ITEM_IDS: Symbol = Symbol(19);

fn interner() -> Interner {
    let mut interner = Interner::new();
    for (i, name) in NAMES.iter().enumerate() {
        assert_eq!(interner.intern(name), Symbol(i as u32));
    }
    interner
}

fn name(s: Symbol) -> &'static str {
    NAMES.get(s.0 as usize).copied().unwrap_or("?")
}

fn path_order_id() -> ArgPath {
    ArgPath(vec![ArgStep::Key(ORDER_ID)])
}

fn path_item_ids() -> ArgPath {
    ArgPath(vec![ArgStep::Key(ITEM_IDS), ArgStep::Each])
}

fn path_new_item_ids() -> ArgPath {
    ArgPath(vec![ArgStep::Key(NEW_ITEM_IDS), ArgStep::Each])
}

fn path_total() -> ArgPath {
    ArgPath(vec![ArgStep::Key(TOTAL)])
}

/// A path the checks may use but the facts are never extracted along.
fn path_ghost() -> ArgPath {
    ArgPath(vec![ArgStep::Key(GHOST)])
}

/// The argument paths facts are extracted along (index = `ArgFact::path`).
fn arg_paths() -> Vec<ArgPath> {
    vec![
        path_order_id(),
        path_item_ids(),
        path_total(),
        path_new_item_ids(),
    ]
}

const P_ORDER_ID: u32 = 0;
const P_ITEM_IDS: u32 = 1;
const P_TOTAL: u32 = 2;
const P_NEW_ITEM_IDS: u32 = 3;

/// The random part of the vocabulary.
#[derive(Clone, Debug)]
struct Vocab {
    read_tools: Vec<Symbol>,
    gated: Vec<Symbol>,
    ids: Vec<Symbol>,
    statuses: Vec<Symbol>,
    vars: u32,
    /// The amount field holds money (else integers).
    money: bool,
    /// The ids are order-like record ids (`#W9300146`); else they are
    /// records only as the ids of the entities read (`ZFA04Y`).
    shaped_ids: bool,
    /// The ids are also literals of one enum (`next_day`, `two_day`): a
    /// request naming another in place of the call's proposes another call.
    literal_ids: bool,
}

impl Vocab {
    fn tools(&self) -> Vec<Symbol> {
        self.read_tools.iter().chain(&self.gated).copied().collect()
    }

    /// Ids and statuses: the symbols items, arguments and binds range over.
    fn symbols(&self) -> Vec<Symbol> {
        self.ids.iter().chain(&self.statuses).copied().collect()
    }
}

fn vocab() -> impl Strategy<Value = Vocab> {
    (
        0usize..3,
        2usize..=3,
        2usize..=3,
        2u32..=3,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(layout, n_ids, n_statuses, vars, money, shaped_ids, literal_ids)| {
                let (reads, gated) = match layout {
                    0 => (1, 1),
                    1 => (2, 1),
                    _ => (1, 2),
                };
                Vocab {
                    read_tools: [LOOKUP, INSPECT][..reads].to_vec(),
                    gated: [CANCEL, REFUND][..gated].to_vec(),
                    ids: IDS[..n_ids].to_vec(),
                    statuses: STATUSES[..n_statuses].to_vec(),
                    vars,
                    money,
                    shaped_ids,
                    literal_ids,
                }
            },
        )
}

// ---------------------------------------------------------------------------
// Strategies for checks.

fn weighted<T: fmt::Debug + 'static>(items: Vec<(u32, BoxedStrategy<T>)>) -> BoxedStrategy<T> {
    Union::new_weighted(items).boxed()
}

fn select<T: Clone + fmt::Debug + 'static>(items: Vec<T>) -> BoxedStrategy<T> {
    prop::sample::select(items).boxed()
}

fn cmp_op() -> BoxedStrategy<CmpOp> {
    select(vec![
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ])
}

fn agg_op() -> BoxedStrategy<AggOp> {
    select(vec![AggOp::Sum, AggOp::Count, AggOp::Min, AggOp::Max])
}

fn arith_op() -> BoxedStrategy<ArithOp> {
    select(vec![ArithOp::Add, ArithOp::Sub, ArithOp::Mul])
}

fn outcome() -> BoxedStrategy<Outcome> {
    select(vec![Outcome::Called, Outcome::Succeeded])
}

fn sym_value(v: &Vocab) -> BoxedStrategy<Value> {
    select(v.symbols()).prop_map(Value::Str).boxed()
}

fn id_value(v: &Vocab) -> BoxedStrategy<Value> {
    select(v.ids.clone()).prop_map(Value::Str).boxed()
}

fn num_value() -> BoxedStrategy<Value> {
    prop_oneof![
        (-1i64..=4).prop_map(Value::Int),
        (0i64..=8).prop_map(|h| Value::Amount(Amount(h * 500_000))),
    ]
    .boxed()
}

/// A value of the amount field.
fn amount_value(v: &Vocab) -> BoxedStrategy<Value> {
    if v.money {
        (0i64..=8)
            .prop_map(|h| Value::Amount(Amount(h * 500_000)))
            .boxed()
    } else {
        (0i64..=4).prop_map(Value::Int).boxed()
    }
}

fn const_value(v: &Vocab) -> BoxedStrategy<Value> {
    weighted(vec![
        (4, sym_value(v)),
        (3, num_value()),
        (1, any::<bool>().prop_map(Value::Bool).boxed()),
        (1, time_value()),
        (1, duration_value()),
    ])
}

/// Around the clock's start: the times events happen at, fields hold and
/// checks compare with (noon, so a date and an instant of it differ).
const CLOCK_START: DateTime = DateTime(19_870 * 86_400 + 12 * 3_600);

/// An instant or a date near [`CLOCK_START`].
fn time_value() -> BoxedStrategy<Value> {
    prop_oneof![
        (-3i64..=3).prop_map(|h| Value::DateTime(DateTime(CLOCK_START.0 + h * 12 * 3_600))),
        (-2i32..=2).prop_map(|d| Value::Date(Date(CLOCK_START.date().0 + d))),
    ]
    .boxed()
}

/// A duration of a few half days (negative now and then).
fn duration_value() -> BoxedStrategy<Value> {
    (-1i64..=4)
        .prop_map(|h| Value::Duration(Duration(h * 12 * 3_600)))
        .boxed()
}

fn const_operand(v: &Vocab) -> BoxedStrategy<Operand> {
    const_value(v).prop_map(Operand::Const).boxed()
}

/// A request variable; rarely one no step ever binds.
fn var_operand(v: &Vocab) -> BoxedStrategy<Operand> {
    weighted(vec![
        (16, Just(Operand::Var(VarId(0))).boxed()),
        (2, (1..v.vars).prop_map(|i| Operand::Var(VarId(i))).boxed()),
        (1, Just(Operand::Var(VarId(v.vars))).boxed()),
    ])
}

/// A variable a step binds: mostly the first.
fn bind_var(v: &Vocab) -> BoxedStrategy<u32> {
    weighted(vec![(1, Just(0).boxed()), (3, (0..v.vars).boxed())])
}

fn arg(path: ArgPath) -> Operand {
    Operand::Arg(path)
}

fn field(id: Operand, f: Symbol) -> Operand {
    Operand::Field {
        entity: ORDER,
        id: Box::new(id),
        field: f,
    }
}

/// What an entity id can be: a variable, a literal, the call's `order_id`.
fn id_operand(v: &Vocab, args: bool) -> BoxedStrategy<Operand> {
    let mut items = vec![
        (5, var_operand(v)),
        (2, id_value(v).prop_map(Operand::Const).boxed()),
        (1, const_operand(v)),
    ];
    if args {
        items.push((2, Just(arg(path_order_id())).boxed()));
    }
    weighted(items)
}

fn scalar_field(v: &Vocab, args: bool) -> BoxedStrategy<Operand> {
    (
        id_operand(v, args),
        select(vec![STATUS, AMOUNT, ITEMS, PLACED]),
    )
        .prop_map(|(id, f)| field(id, f))
        .boxed()
}

/// The field read of every id of a list (rarely the list field itself,
/// which has no scalar value to give).
fn per_item_field() -> BoxedStrategy<Symbol> {
    select(vec![STATUS, STATUS, AMOUNT, AMOUNT, ITEMS])
}

/// List-valued operands: the items field, a field of every item, the
/// call's `item_ids[*]`, a field of every listed id.
fn list_operand(v: &Vocab, args: bool) -> BoxedStrategy<Operand> {
    let mut items = vec![
        (
            4,
            id_operand(v, args).prop_map(|id| field(id, ITEMS)).boxed(),
        ),
        (
            2,
            (id_operand(v, args), per_item_field())
                .prop_map(|(id, f)| field(field(id, ITEMS), f))
                .boxed(),
        ),
    ];
    if args {
        items.push((3, Just(arg(path_item_ids())).boxed()));
        items.push((
            2,
            per_item_field()
                .prop_map(|f| field(arg(path_item_ids()), f))
                .boxed(),
        ));
    }
    weighted(items)
}

fn leaf_operand(v: &Vocab, args: bool) -> BoxedStrategy<Operand> {
    let mut items = vec![
        (3, const_operand(v)),
        (2, var_operand(v)),
        (4, scalar_field(v, args)),
        (1, Just(Operand::Now).boxed()),
    ];
    if args {
        items.push((
            3,
            select(vec![
                path_order_id(),
                path_item_ids(),
                path_total(),
                path_ghost(),
            ])
            .prop_map(arg)
            .boxed(),
        ));
    }
    weighted(items)
}

/// A constraint value: a variable or a literal (what the compiler allows).
fn key_operand(v: &Vocab) -> BoxedStrategy<Operand> {
    weighted(vec![
        (3, var_operand(v)),
        (2, id_value(v).prop_map(Operand::Const).boxed()),
        (1, const_operand(v)),
    ])
}

/// A counted filter: at most one constraint, `scalar path == var/literal`.
fn count_filter(v: &Vocab) -> BoxedStrategy<EventFilter> {
    let constraint = (
        select(vec![path_order_id(), path_total(), path_ghost()]),
        key_operand(v),
    )
        .prop_map(|(path, value)| ArgConstraint {
            path,
            op: CmpOp::Eq,
            value,
        });
    (
        select(v.tools()),
        outcome(),
        prop::option::weighted(0.75, constraint),
    )
        .prop_map(|(tool, outcome, c)| EventFilter {
            tool,
            outcome,
            constraints: c.into_iter().collect(),
        })
        .boxed()
}

/// An event predicate: any constraints on any path, at most one `==`.
fn happened_filter(v: &Vocab) -> BoxedStrategy<EventFilter> {
    let constraint = (
        select(vec![
            path_order_id(),
            path_item_ids(),
            path_total(),
            path_ghost(),
        ]),
        cmp_op(),
        key_operand(v),
    )
        .prop_map(|(path, op, value)| ArgConstraint { path, op, value });
    (
        select(v.tools()),
        outcome(),
        prop::collection::vec(constraint, 0..=2),
    )
        .prop_map(|(tool, outcome, mut constraints)| {
            // At most one `==` (the key the evaluators index matches by).
            let mut seen = false;
            for c in &mut constraints {
                if c.op == CmpOp::Eq {
                    if seen {
                        c.op = CmpOp::Ne;
                    }
                    seen = true;
                }
            }
            EventFilter {
                tool,
                outcome,
                constraints,
            }
        })
        .boxed()
}

fn operand(v: &Vocab, args: bool) -> BoxedStrategy<Operand> {
    let agg = (agg_op(), list_operand(v, args))
        .prop_map(|(op, of)| Operand::Aggregate {
            op,
            of: Box::new(of),
        })
        .boxed();
    let arith_side = weighted(vec![(3, leaf_operand(v, args)), (1, agg.clone())]);
    weighted(vec![
        (6, leaf_operand(v, args)),
        (2, agg),
        (
            1,
            (list_operand(v, args), leaf_operand(v, args))
                .prop_map(|(of, value)| Operand::CountEqual {
                    of: Box::new(of),
                    value: Box::new(value),
                })
                .boxed(),
        ),
        (
            1,
            (arith_op(), arith_side.clone(), arith_side)
                .prop_map(|(op, lhs, rhs)| Operand::Arith {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                })
                .boxed(),
        ),
        (2, count_filter(v).prop_map(Operand::CountEvents).boxed()),
    ])
}

fn compare(op: CmpOp, lhs: Operand, rhs: Operand) -> Check {
    Check::Compare { op, lhs, rhs }
}

/// Atoms shaped like real guards (well typed, often true).
fn plausible_atom(v: &Vocab, args: bool) -> BoxedStrategy<Check> {
    let statuses = v.statuses.clone();
    let mut items = vec![
        (
            3,
            (
                id_operand(v, args),
                select(vec![CmpOp::Eq, CmpOp::Ne]),
                select(statuses.clone()),
            )
                .prop_map(|(id, op, s)| {
                    compare(op, field(id, STATUS), Operand::Const(Value::Str(s)))
                })
                .boxed(),
        ),
        // Facts keyed by two values (the airline's `flight_date`): a
        // composite id is an ordinary string id to both evaluators, held in
        // a list field: "no listed flight's status is s" and "some listed
        // flight's status is s" (`"cancelled" in flight_date[reservation[$r]
        // .flight_keys].status`), every element read or nothing holds.
        (
            2,
            (id_operand(v, args), select(statuses.clone()), any::<bool>())
                .prop_map(|(id, s, some)| {
                    let listed = field(field(id, ITEMS), STATUS);
                    let s = Operand::Const(Value::Str(s));
                    if some {
                        Check::Contains {
                            item: s,
                            list: listed,
                        }
                    } else {
                        compare(CmpOp::Ne, listed, s)
                    }
                })
                .boxed(),
        ),
        (
            2,
            (
                id_operand(v, args),
                prop::sample::subsequence(statuses.clone(), 1..=statuses.len()),
            )
                .prop_map(|(id, set)| Check::OneOf {
                    operand: field(id, STATUS),
                    set: set
                        .into_iter()
                        .map(|s| Operand::Const(Value::Str(s)))
                        .collect(),
                })
                .boxed(),
        ),
        (
            2,
            (id_operand(v, args), cmp_op(), amount_value(v))
                .prop_map(|(id, op, a)| compare(op, field(id, AMOUNT), Operand::Const(a)))
                .boxed(),
        ),
        (
            2,
            (agg_op(), list_operand(v, args), cmp_op(), 0i64..=3)
                .prop_map(|(agg, of, op, n)| {
                    compare(
                        op,
                        Operand::Aggregate {
                            op: agg,
                            of: Box::new(of),
                        },
                        Operand::Const(Value::Int(n)),
                    )
                })
                .boxed(),
        ),
        (
            2,
            (count_filter(v), cmp_op(), 0i64..=2)
                .prop_map(|(f, op, n)| {
                    compare(op, Operand::CountEvents(f), Operand::Const(Value::Int(n)))
                })
                .boxed(),
        ),
        (
            2,
            (select(v.read_tools.clone()), outcome(), var_operand(v))
                .prop_map(|(tool, outcome, value)| {
                    Check::Happened(EventFilter {
                        tool,
                        outcome,
                        constraints: vec![ArgConstraint {
                            path: path_order_id(),
                            op: CmpOp::Eq,
                            value,
                        }],
                    })
                })
                .boxed(),
        ),
        (
            1,
            (id_operand(v, args), list_operand(v, args))
                .prop_map(|(item, list)| Check::Contains { item, list })
                .boxed(),
        ),
        (
            2,
            (speaker(), dialogue_operand(v, args))
                .prop_map(|(speaker, value)| Check::Said { speaker, value })
                .boxed(),
        ),
        // "within a window of now": a read time against the clock, the
        // clock against a literal, the time elapsed since a read time.
        (
            2,
            (id_operand(v, args), cmp_op(), duration_value())
                .prop_map(|(id, op, d)| {
                    compare(
                        op,
                        field(id, PLACED),
                        Operand::Arith {
                            op: ArithOp::Sub,
                            lhs: Box::new(Operand::Now),
                            rhs: Box::new(Operand::Const(d)),
                        },
                    )
                })
                .boxed(),
        ),
        (
            1,
            (cmp_op(), time_value())
                .prop_map(|(op, t)| compare(op, Operand::Now, Operand::Const(t)))
                .boxed(),
        ),
        (
            1,
            (id_operand(v, args), cmp_op(), duration_value())
                .prop_map(|(id, op, d)| {
                    compare(
                        op,
                        Operand::Arith {
                            op: ArithOp::Sub,
                            lhs: Box::new(Operand::Now),
                            rhs: Box::new(field(id, PLACED)),
                        },
                        Operand::Const(d),
                    )
                })
                .boxed(),
        ),
        (
            2,
            prop::collection::vec(dialogue_operand(v, args), 1..=2)
                .prop_map(|values| Check::Confirmed {
                    values,
                    call: Vec::new(),
                    items: Vec::new(),
                })
                .boxed(),
        ),
    ];
    if args {
        items.push((
            4,
            var_operand(v)
                .prop_map(|var| compare(CmpOp::Eq, arg(path_order_id()), var))
                .boxed(),
        ));
        items.push((
            2,
            (cmp_op(), id_operand(v, args))
                .prop_map(|(op, id)| compare(op, arg(path_total()), field(id, AMOUNT)))
                .boxed(),
        ));
        items.push((
            2,
            id_operand(v, args)
                .prop_map(|id| Check::Contains {
                    item: arg(path_item_ids()),
                    list: field(id, ITEMS),
                })
                .boxed(),
        ));
    }
    weighted(items)
}

fn speaker() -> BoxedStrategy<Speaker> {
    select(vec![Speaker::User, Speaker::Agent, Speaker::Ticket])
}

/// Dates the turns name and the checks look for (a date is named as a
/// value of its own, not as an interned string).
const DATES: [Date; 2] = [Date(19_870), Date(19_871)];

/// A value a turn may name besides the symbols: a date, or an amount or
/// integer of the range the `total` argument takes.
fn typed_value() -> BoxedStrategy<Value> {
    prop_oneof![select(DATES.to_vec()).prop_map(Value::Date), num_value(),].boxed()
}

/// The few dates and amounts summaries name and guards confirm, so the two
/// meet often.
fn summary_value() -> BoxedStrategy<Value> {
    select(vec![
        Value::Date(DATES[0]),
        Value::Date(DATES[1]),
        Value::Amount(Amount(500_000)),
        Value::Amount(Amount(1_000_000)),
    ])
}

/// What a dialogue predicate looks for: an id, a variable, a list of ids,
/// or a date or amount (a literal, or the call's `total`).
fn dialogue_operand(v: &Vocab, args: bool) -> BoxedStrategy<Operand> {
    let mut items = vec![
        (3, id_operand(v, args)),
        (2, var_operand(v)),
        (1, list_operand(v, args)),
        (1, typed_value().prop_map(Operand::Const).boxed()),
    ];
    if args {
        items.push((1, Just(arg(path_total())).boxed()));
    }
    weighted(items)
}

/// A conversation turn: who wrote it, its cues, and the symbols it names.
#[derive(Clone, Debug, Default)]
struct TurnSpec {
    by_user: bool,
    /// Asks for a decision, asks anything, affirms, revokes (with
    /// `revoke`'s kind), corrects.
    cues: [bool; 5],
    /// Which revocation a revoking turn is: qualifies, withdraws, refuses.
    revoke: u8,
    named: Vec<Value>,
    /// The named ids (records) a user turn's answer names.
    in_answer: Vec<Value>,
    /// The named values an agent turn names only as what not to do.
    declined: Vec<Value>,
    /// What a user turn disowns ("X is not mine"): some of what it names,
    /// or (referring back) a value it does not name.
    disowned: Vec<Value>,
    /// What a user turn passed over for another option a question offered
    /// (`true`), or left unpicked with the others (`false`).
    passed_over: Vec<(Value, bool)>,
    /// A user turn correcting what the user said before to a yes.
    retracts: bool,
    /// A user turn whose yes answers items one by one: a yes only to calls
    /// carrying a value its answer names.
    by_item: bool,
    /// What an agent turn names as another named record's detail
    /// (`HeldFact`): `(value, record)`, the record an order.
    held: Vec<(Value, Value)>,
    /// Where an agent turn spells each value it names, by its index in
    /// `named`: bits drawn from this ([`placing_of`]).
    placing: u32,
}

fn turn_spec(v: &Vocab) -> BoxedStrategy<TurnSpec> {
    let symbols = v.symbols();
    let ids = v.ids.clone();
    let statuses = v.statuses.clone();
    let max = symbols.len();
    // Random cues, and often the two that decide `confirmed`: an agent's
    // request for a decision and a user's plain yes.
    let speaker_and_cues = prop_oneof![
        2 => (any::<bool>(), any::<[bool; 5]>()),
        1 => Just((false, [true, true, false, false, false])),
        1 => Just((true, [false, false, true, false, false])),
    ];
    let back = prop::option::weighted(0.15, select(symbols.clone()));
    let passed = prop::option::weighted(0.2, (select(symbols.clone()), any::<bool>()));
    let retracts = prop::bool::weighted(0.4);
    let by_item = prop::bool::weighted(0.3);
    let held_ids = ids.clone();
    (
        speaker_and_cues,
        prop::sample::subsequence(symbols, 0..=max),
        prop::collection::vec(typed_value(), 0..=2),
        any::<u8>(),
        0..3u8,
        any::<u8>(),
        (prop::bool::weighted(0.3), any::<u8>(), back),
        passed,
        retracts,
        (by_item, any::<u8>(), any::<u32>()),
    )
        .prop_map(
            move |(
                (by_user, cues),
                named,
                typed,
                answer_mask,
                revoke,
                decline_mask,
                disowning,
                passed,
                retracts,
                (by_item, held_mask, placing),
            )| {
                let in_answer = named
                    .iter()
                    .enumerate()
                    .filter(|&(i, s)| {
                        by_user
                            && (ids.contains(s) || statuses.contains(s))
                            && answer_mask >> (i % 8) & 1 == 1
                    })
                    .map(|(_, &s)| Value::Str(s))
                    .collect();
                // Rarely: a value an agent's request names only as what not
                // to do.
                let declined = named
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| {
                        !by_user && decline_mask % 4 == 0 && decline_mask >> (2 + i % 6) & 1 == 1
                    })
                    .map(|(_, &s)| Value::Str(s))
                    .collect();
                // Rarely: in an agent's request, a value named as another
                // named record's detail (a plan of one action per record).
                let record = named.iter().copied().find(|s| held_ids.contains(s));
                let held = named
                    .iter()
                    .enumerate()
                    .filter(|&(i, &s)| {
                        !by_user
                            && held_mask % 3 == 0
                            && held_mask >> (2 + i % 6) & 1 == 1
                            && Some(s) != record
                    })
                    .filter_map(|(_, &s)| Some((Value::Str(s), Value::Str(record?))))
                    .collect();
                let (disowns, disown_mask, back) = disowning;
                let disowned = named
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| by_user && disowns && disown_mask >> (i % 8) & 1 == 1)
                    .map(|(_, &s)| Value::Str(s))
                    .chain(back.filter(|_| by_user).map(Value::Str))
                    .collect();
                let named = named.into_iter().map(Value::Str).chain(typed).collect();
                TurnSpec {
                    by_user,
                    cues,
                    revoke,
                    declined,
                    named,
                    in_answer,
                    disowned,
                    passed_over: passed
                        .filter(|_| by_user)
                        .map(|(s, other)| (Value::Str(s), other))
                        .into_iter()
                        .collect(),
                    retracts: by_user && retracts,
                    by_item: by_user && by_item,
                    held,
                    placing: if by_user { 0 } else { placing },
                }
            },
        )
        .boxed()
}

/// A summary naming two records (and maybe an action word), then a yes
/// whose answer names one of them, then (mostly) a gated call on one of
/// the two: the case `confirmed(...)`'s key-aware rule decides (the yes
/// confirms the named record only), which random turns rarely reach.
fn two_records_one_yes(v: &Vocab) -> BoxedStrategy<Vec<EventSpec>> {
    let reads = v.read_tools.len();
    let gated = reads..v.tools().len();
    (
        prop::sample::subsequence(v.ids.clone(), 2),
        any::<bool>(),
        prop::option::of(select(v.statuses.clone())),
        prop::option::weighted(0.7, summary_value()),
        prop::option::weighted(0.8, (gated, any::<bool>())),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(pair, first, action, typed, write, picks)| {
            let (named, other) = if first {
                (pair[0], pair[1])
            } else {
                (pair[1], pair[0])
            };
            let summary = TurnSpec {
                by_user: false,
                cues: [true, true, false, false, false],
                revoke: 0,
                named: [Value::Str(named), Value::Str(other)]
                    .into_iter()
                    .chain(action.map(Value::Str))
                    .chain(typed)
                    .collect(),
                in_answer: Vec::new(),
                declined: Vec::new(),
                disowned: Vec::new(),
                passed_over: Vec::new(),
                retracts: false,
                by_item: false,
                held: Vec::new(),
                placing: 0,
            };
            let yes = TurnSpec {
                by_user: true,
                cues: [false, false, true, false, false],
                revoke: 0,
                named: vec![Value::Str(named)],
                in_answer: vec![Value::Str(named)],
                declined: Vec::new(),
                disowned: Vec::new(),
                // Sometimes the yes picked its record over the other, as a
                // choice the summary offered.
                passed_over: match picks {
                    Some(picked_another) => vec![(Value::Str(other), picked_another)],
                    None => Vec::new(),
                },
                retracts: false,
                by_item: false,
                held: Vec::new(),
                placing: 0,
            };
            let mut events = vec![
                EventSpec::Message(Some(summary)),
                EventSpec::Message(Some(yes)),
            ];
            // The write, mostly on the record the yes did not name.
            if let Some((tool, on_named)) = write {
                let order = if on_named { named } else { other };
                events.push(agent_write(tool, order, None));
            }
            events
        })
        .boxed()
}

/// The agent's call of tool `tool` on `order`, carrying `items` (old ids
/// and, side by side, their replacements) when given, and nothing else.
fn agent_write(tool: usize, order: Symbol, items: Option<([Symbol; 2], [Symbol; 2])>) -> EventSpec {
    let list = |ids: [Symbol; 2]| ids.into_iter().map(Value::Str).collect();
    EventSpec::Call {
        tool,
        by_agent: true,
        order_id: Some(Value::Str(order)),
        item_ids: items.map(|(old, _)| list(old)),
        new_item_ids: items.map(|(_, new)| list(new)),
        total: None,
        binds: Vec::new(),
    }
}

/// A summary naming an order and two items' old ids and replacements,
/// each placed in segments and clauses at random, a yes, and (mostly) a
/// gated call on the order carrying the items paired one way or the
/// other: the case `confirmed(...)`'s reading of which item goes with
/// which decides, which random turns rarely reach.
fn items_laid_out(v: &Vocab) -> BoxedStrategy<Vec<EventSpec>> {
    let reads = v.read_tools.len();
    let gated = reads..v.tools().len();
    let symbols = v.symbols();
    (
        select(v.ids.clone()),
        prop::sample::subsequence(symbols, 4),
        any::<u32>(),
        0..3u8,
        prop::option::weighted(0.9, (gated, any::<bool>())),
    )
        .prop_map(|(order, items, drawn, lists, write)| {
            let [x1, x2, y1, y2] = [items[0], items[1], items[2], items[3]];
            // Often two lists one after the other: the old ids in one run
            // of places, the replacements in another ([`place_of`]).
            let runs = |x: u32, y: u32| drawn & !0xC0C0_C0C0 | x << 6 | y << 14 | x << 22 | y << 30;
            let placing = match lists {
                0 => drawn,
                1 => runs(2, 3),
                _ => runs(3, 2),
            };
            let summary = TurnSpec {
                cues: [true, true, false, false, false],
                // The order last: placed as the first item's old id is.
                named: [x1, y1, x2, y2, order]
                    .into_iter()
                    .map(Value::Str)
                    .collect(),
                placing,
                ..TurnSpec::default()
            };
            let yes = TurnSpec {
                by_user: true,
                cues: [false, false, true, false, false],
                ..TurnSpec::default()
            };
            let mut events = vec![
                EventSpec::Message(Some(summary)),
                EventSpec::Message(Some(yes)),
            ];
            if let Some((tool, swapped)) = write {
                let new = if swapped { [y2, y1] } else { [y1, y2] };
                events.push(agent_write(tool, order, Some(([x1, x2], new))));
            }
            events
        })
        .boxed()
}

/// Maybe a summary naming one record, then a request naming another
/// (and maybe an action word), a yes, and a gated call on the first: the
/// case where a yes to a request naming another record in place of the
/// call's refuses it, which random turns rarely reach.
fn yes_to_another_record(v: &Vocab) -> BoxedStrategy<Vec<EventSpec>> {
    let reads = v.read_tools.len();
    let gated = reads..v.tools().len();
    (
        prop::sample::subsequence(v.ids.clone(), 2),
        any::<bool>(),
        prop::option::of(select(v.statuses.clone())),
        prop::option::weighted(0.3, select(v.statuses.clone())),
        any::<bool>(),
        gated,
    )
        .prop_map(
            |(pair, summary_first, action, weighed, yes_names_call, tool)| {
                let (called, other) = (pair[0], pair[1]);
                let asking = |named: Vec<Value>| TurnSpec {
                    by_user: false,
                    cues: [true, true, false, false, false],
                    revoke: 0,
                    named,
                    in_answer: Vec::new(),
                    declined: Vec::new(),
                    disowned: Vec::new(),
                    passed_over: Vec::new(),
                    retracts: false,
                    by_item: false,
                    held: Vec::new(),
                    placing: 0,
                };
                let with_action = |record: Value| {
                    std::iter::once(record)
                        .chain(action.map(Value::Str))
                        .collect::<Vec<_>>()
                };
                let mut events = Vec::new();
                if summary_first {
                    events.push(EventSpec::Message(Some(asking(with_action(Value::Str(
                        called,
                    ))))));
                }
                let mut request = with_action(Value::Str(other));
                request.extend(weighed.map(Value::Str));
                events.push(EventSpec::Message(Some(asking(request))));
                let answered = if yes_names_call {
                    vec![Value::Str(called)]
                } else {
                    Vec::new()
                };
                events.push(EventSpec::Message(Some(TurnSpec {
                    by_user: true,
                    cues: [false, false, true, false, false],
                    revoke: 0,
                    named: answered.clone(),
                    in_answer: answered,
                    declined: Vec::new(),
                    disowned: Vec::new(),
                    passed_over: Vec::new(),
                    retracts: false,
                    by_item: false,
                    held: Vec::new(),
                    placing: 0,
                })));
                events.push(agent_write(tool, called, None));
                events
            },
        )
        .boxed()
}

/// Atoms over arbitrary operands (often ill-typed).
fn random_atom(v: &Vocab, args: bool) -> BoxedStrategy<Check> {
    weighted(vec![
        (
            4,
            (cmp_op(), operand(v, args), operand(v, args))
                .prop_map(|(op, l, r)| compare(op, l, r))
                .boxed(),
        ),
        (
            2,
            (
                operand(v, args),
                prop::collection::vec(leaf_operand(v, args), 0..=3),
            )
                .prop_map(|(operand, set)| Check::OneOf { operand, set })
                .boxed(),
        ),
        (
            2,
            (operand(v, args), operand(v, args))
                .prop_map(|(item, list)| Check::Contains { item, list })
                .boxed(),
        ),
        (2, happened_filter(v).prop_map(Check::Happened).boxed()),
        (
            1,
            (speaker(), operand(v, args))
                .prop_map(|(speaker, value)| Check::Said { speaker, value })
                .boxed(),
        ),
        (
            1,
            prop::collection::vec(operand(v, args), 0..=2)
                .prop_map(|values| Check::Confirmed {
                    values,
                    call: Vec::new(),
                    items: Vec::new(),
                })
                .boxed(),
        ),
        (1, any::<bool>().prop_map(Check::Const).boxed()),
        (
            1,
            select(vec![Check::All(Vec::new()), Check::Any(Vec::new())]),
        ),
    ])
}

fn check(v: &Vocab, args: bool) -> BoxedStrategy<Check> {
    let atom = weighted(vec![
        (4, plausible_atom(v, args)),
        (2, random_atom(v, args)),
    ]);
    atom.prop_recursive(2, 8, 3, |inner| {
        weighted(vec![
            (
                2,
                inner.clone().prop_map(|c| Check::Not(Box::new(c))).boxed(),
            ),
            (
                3,
                prop::collection::vec(inner.clone(), 1..=3)
                    .prop_map(Check::All)
                    .boxed(),
            ),
            (
                2,
                prop::collection::vec(inner, 1..=3)
                    .prop_map(Check::Any)
                    .boxed(),
            ),
        ])
    })
    .boxed()
}

// ---------------------------------------------------------------------------
// Strategies for workflows.

#[derive(Clone, Copy, Debug)]
enum TimingSpec {
    State,
    Call(usize),
    Result(usize),
}

#[derive(Clone, Debug)]
struct StepSpec {
    timing: TimingSpec,
    check: Option<Check>,
    /// Reuse the check of an earlier step (when compatible).
    share: Option<usize>,
    semantic: bool,
    bind: Option<u32>,
    /// The predecessor, among earlier steps (keeps every step reachable);
    /// `None`: the step just before (a chain).
    parent: Option<usize>,
    /// Authorizes this gated tool (pick); then the timing is its call.
    auth: Option<usize>,
}

fn parent() -> BoxedStrategy<Option<usize>> {
    prop::option::weighted(0.5, any::<usize>()).boxed()
}

/// A first step that finds the request's subject: a read tool's result (or
/// call) binding `$0`, as real workflows start.
fn find_spec(v: &Vocab) -> BoxedStrategy<StepSpec> {
    (
        0..v.read_tools.len(),
        prop::bool::weighted(0.25),
        prop::option::weighted(0.3, check(v, true)),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(tool, call, check, semantic)| StepSpec {
            timing: if call {
                TimingSpec::Call(tool)
            } else {
                TimingSpec::Result(tool)
            },
            check,
            share: None,
            semantic,
            bind: Some(0),
            parent: None,
            auth: None,
        })
        .boxed()
}

fn step_spec(v: &Vocab) -> BoxedStrategy<StepSpec> {
    let tools = v.tools().len();
    let share = prop::option::weighted(0.1, any::<usize>());
    let semantic = prop::bool::weighted(0.2);
    let state = (
        prop::option::weighted(0.8, check(v, false)),
        share.clone(),
        semantic,
        parent(),
    )
        .prop_map(|(check, share, semantic, parent)| StepSpec {
            timing: TimingSpec::State,
            check,
            share,
            semantic,
            bind: None,
            parent,
            auth: None,
        })
        .boxed();
    let event = (
        0..tools,
        any::<bool>(),
        prop::option::weighted(0.65, check(v, true)),
        share,
        semantic,
        prop::option::weighted(0.5, bind_var(v)),
        parent(),
    )
        .prop_map(
            |(tool, call, check, share, semantic, bind, parent)| StepSpec {
                timing: if call {
                    TimingSpec::Call(tool)
                } else {
                    TimingSpec::Result(tool)
                },
                check,
                share,
                semantic,
                bind,
                parent,
                auth: None,
            },
        )
        .boxed();
    weighted(vec![(4, state), (6, event)])
}

/// An authorization's guard: a random check, or now and then
/// `confirmed(...)` over the call's key (alone or with a variable, an action
/// word or a date), as the bundles' write guards are.
fn auth_check(v: &Vocab) -> BoxedStrategy<Check> {
    let key = arg(path_order_id());
    let with = weighted(vec![
        (2, Just(Vec::new()).boxed()),
        (1, var_operand(v).prop_map(|o| vec![o]).boxed()),
        (
            1,
            select(v.statuses.clone())
                .prop_map(|s| vec![Operand::Const(Value::Str(s))])
                .boxed(),
        ),
        (
            2,
            summary_value()
                .prop_map(|t| vec![Operand::Const(t)])
                .boxed(),
        ),
    ]);
    // The rest of the call a consent covers: none, or the item ids.
    let call = prop::bool::weighted(0.5).prop_map(|items| {
        if items {
            vec![arg(path_item_ids())]
        } else {
            Vec::new()
        }
    });
    // The call's items: none, or the item ids side by side with their
    // replacements.
    let items = prop::bool::weighted(0.5).prop_map(|paired| {
        if paired {
            vec![vec![arg(path_item_ids()), arg(path_new_item_ids())]]
        } else {
            Vec::new()
        }
    });
    let confirmed = (with, call, items)
        .prop_map(move |(rest, call, items)| Check::Confirmed {
            values: std::iter::once(key.clone()).chain(rest).collect(),
            call,
            items,
        })
        .boxed();
    weighted(vec![(3, check(v, true)), (2, confirmed)])
}

fn auth_spec(v: &Vocab) -> BoxedStrategy<StepSpec> {
    (
        any::<usize>(),
        prop::option::weighted(0.8, auth_check(v)),
        prop::option::weighted(0.1, any::<usize>()),
        prop::bool::weighted(0.15),
        prop::option::weighted(0.2, bind_var(v)),
        parent(),
    )
        .prop_map(|(gated, check, share, semantic, bind, parent)| StepSpec {
            timing: TimingSpec::Call(0),
            check,
            share,
            semantic,
            bind,
            parent,
            auth: Some(gated),
        })
        .boxed()
}

fn uses_args(check: &Check) -> bool {
    fn operand(o: &Operand) -> bool {
        match o {
            Operand::Const(_) | Operand::Var(_) | Operand::CountEvents(_) | Operand::Now => false,
            Operand::Arg(_) => true,
            Operand::Field { id, .. } => operand(id),
            Operand::Aggregate { of, .. } => operand(of),
            Operand::CountEqual { of, value } => operand(of) || operand(value),
            Operand::Arith { lhs, rhs, .. } => operand(lhs) || operand(rhs),
        }
    }
    match check {
        Check::Const(_) | Check::Happened(_) => false,
        Check::Said { value, .. } => operand(value),
        Check::Confirmed {
            values,
            call,
            items,
        } => values
            .iter()
            .chain(call)
            .chain(items.iter().flatten())
            .any(operand),
        Check::Compare { lhs, rhs, .. } => operand(lhs) || operand(rhs),
        Check::OneOf { operand: o, set } => operand(o) || set.iter().any(operand),
        Check::Contains { item, list } => operand(item) || operand(list),
        Check::Not(c) => uses_args(c),
        Check::All(cs) | Check::Any(cs) => cs.iter().any(uses_args),
    }
}

/// A protected read: the read tool (a pick), the steps that open it
/// (picks; none: the entry) and its guard.
#[derive(Clone, Debug)]
struct ProtectionSpec {
    tool: usize,
    after: Vec<usize>,
    guard: Option<Check>,
}

fn protection_spec(v: &Vocab) -> BoxedStrategy<ProtectionSpec> {
    (
        any::<usize>(),
        prop::collection::vec(any::<usize>(), 0..=2),
        prop::option::weighted(0.6, check(v, true)),
    )
        .prop_map(|(tool, after, guard)| ProtectionSpec { tool, after, guard })
        .boxed()
}

fn build_checks(
    v: &Vocab,
    normal: &[StepSpec],
    auth: &[StepSpec],
    extra_edges: &[(usize, usize)],
    protected: &[ProtectionSpec],
) -> CompiledChecks {
    let tools = v.tools();
    let mut checks = CheckSet::default();
    let mut steps = vec![Step {
        origin: StepOrigin::Node,
        name: "entry".into(),
        timing: Timing::State,
        check: None,
        semantic: false,
        binds: Vec::new(),
        authorizes: None,
    }];
    let mut edges = Vec::new();
    let mut with_args: Vec<bool> = Vec::new();
    for (i, spec) in normal.iter().chain(auth).enumerate() {
        let index = i + 1;
        let (timing, authorizes) = match (spec.auth, spec.timing) {
            (Some(g), _) => {
                // The first auth steps cover every gated tool in turn.
                let tool = if i >= normal.len() && i - normal.len() < v.gated.len() {
                    v.gated[i - normal.len()]
                } else {
                    v.gated[g % v.gated.len()]
                };
                (Timing::Call(tool), Some(tool))
            }
            (None, TimingSpec::State) => (Timing::State, None),
            (None, TimingSpec::Call(t)) => (Timing::Call(tools[t % tools.len()]), None),
            (None, TimingSpec::Result(t)) => (Timing::Result(tools[t % tools.len()]), None),
        };
        let state = timing == Timing::State;
        let shared = spec.share.and_then(|pick| {
            let earlier: Vec<CheckId> = steps
                .iter()
                .filter_map(|s| s.check)
                .filter(|c| !state || !with_args[c.0 as usize])
                .collect();
            (!earlier.is_empty()).then(|| earlier[pick % earlier.len()])
        });
        let check = shared.or_else(|| {
            spec.check.clone().map(|c| {
                with_args.push(uses_args(&c));
                checks.push(c)
            })
        });
        steps.push(Step {
            origin: StepOrigin::Node,
            name: format!("s{index}"),
            timing,
            check,
            semantic: spec.semantic,
            binds: if state {
                Vec::new()
            } else {
                spec.bind.into_iter().map(VarId).collect()
            },
            authorizes,
        });
        // Only step 1 hangs off the entry (extra edges may add more).
        let parent = match spec.parent {
            Some(p) if index > 1 => 1 + p % (index - 1),
            _ => index - 1,
        };
        edges.push((StepId(parent as u32), StepId(index as u32)));
    }
    let n = steps.len();
    for &(a, b) in extra_edges {
        edges.push((StepId((a % n) as u32), StepId((b % n) as u32)));
    }
    let protections = protected
        .iter()
        .map(|spec| Protection {
            tool: v.read_tools[spec.tool % v.read_tools.len()],
            after: if spec.after.is_empty() {
                vec![StepId(0)]
            } else {
                spec.after.iter().map(|a| StepId((a % n) as u32)).collect()
            },
            guard: spec.guard.clone().map(|g| checks.push(g)),
        })
        .collect();
    CompiledChecks {
        checks,
        steps,
        edges,
        entry: StepId(0),
        vars: v.vars,
        gated_tools: v.gated.clone(),
        // The first status is every gated tool's action word: a guard's
        // `confirmed(args.order_id, "<it>")` is consent, any other formal.
        consent: ConsentSpec {
            steps: Vec::new(),
            actions: v
                .gated
                .iter()
                .map(|&tool| (tool, v.statuses.iter().take(1).copied().collect()))
                .collect(),
        },
        protections,
    }
}

// ---------------------------------------------------------------------------
// Strategies for traces.

#[derive(Clone, Debug)]
enum FieldRead {
    Status(Symbol),
    Amount(Value),
    Items(Vec<Symbol>),
    Placed(Value),
    /// A part of a list read (a page): the list is unknown from here on
    /// (`Read::unknown`).
    ItemsUnknown,
}

/// The value a binding step binds at an event.
#[derive(Clone, Copy, Debug)]
enum BindPick {
    /// The `order_id` of the call (the event's own, or the one answered);
    /// the first id when it has none.
    FromCall,
    Value(Symbol),
    /// No bind fact (the step cannot be satisfied at this event).
    Skip,
}

#[derive(Clone, Debug)]
enum EventSpec {
    Message(Option<TurnSpec>),
    Call {
        tool: usize,
        by_agent: bool,
        order_id: Option<Value>,
        item_ids: Option<Vec<Value>>,
        /// The replacements, side by side with `item_ids`.
        new_item_ids: Option<Vec<Value>>,
        total: Option<Value>,
        binds: Vec<BindPick>,
    },
    Result {
        /// The call answered (a pick among earlier calls); `None`: the latest.
        call: Option<usize>,
        ok: bool,
        /// `None`: the id the call asked for.
        reads: Vec<(Option<Symbol>, FieldRead)>,
        binds: Vec<BindPick>,
    },
}

/// Missing picks default to [`BindPick::FromCall`].
fn bind_picks(v: &Vocab) -> BoxedStrategy<Vec<BindPick>> {
    let pick = weighted(vec![
        (5, Just(BindPick::FromCall).boxed()),
        (2, select(v.ids.clone()).prop_map(BindPick::Value).boxed()),
        (
            1,
            select(v.statuses.clone()).prop_map(BindPick::Value).boxed(),
        ),
        (1, Just(BindPick::Skip).boxed()),
    ]);
    prop::collection::vec(pick, 0..=3).boxed()
}

/// One interaction: a message, a call answered right away, a call left
/// pending, or a (late, repeated) result of some earlier call.
fn interaction(v: &Vocab) -> BoxedStrategy<Vec<EventSpec>> {
    let reads = v.read_tools.len();
    let tools = v.tools().len();
    let tool = weighted(vec![(3, (0..reads).boxed()), (2, (reads..tools).boxed())]);
    let order_id = weighted(vec![
        (6, id_value(v)),
        (1, sym_value(v)),
        (1, (0i64..=2).prop_map(Value::Int).boxed()),
    ]);
    let item = weighted(vec![
        (6, sym_value(v)),
        (1, (0i64..=2).prop_map(Value::Int).boxed()),
    ]);
    let call = (
        tool,
        prop::bool::weighted(0.85),
        prop::option::weighted(0.85, order_id),
        prop::option::weighted(0.5, prop::collection::vec(item.clone(), 0..=3)),
        prop::option::weighted(0.3, prop::collection::vec(item, 0..=3)),
        prop::option::weighted(0.6, num_value()),
        bind_picks(v),
    )
        .prop_map(
            |(tool, by_agent, order_id, item_ids, new_item_ids, total, binds)| EventSpec::Call {
                tool,
                by_agent,
                order_id,
                item_ids,
                new_item_ids,
                total,
                binds,
            },
        )
        .boxed();
    let field_read = weighted(vec![
        (
            3,
            select(v.statuses.clone())
                .prop_map(FieldRead::Status)
                .boxed(),
        ),
        (2, amount_value(v).prop_map(FieldRead::Amount).boxed()),
        (
            2,
            prop::collection::vec(select(v.symbols()), 0..=3)
                .prop_map(FieldRead::Items)
                .boxed(),
        ),
        (1, time_value().prop_map(FieldRead::Placed).boxed()),
        (1, Just(FieldRead::ItemsUnknown).boxed()),
    ]);
    let result = (
        prop::option::weighted(0.2, any::<usize>()),
        prop::bool::weighted(0.85),
        prop::collection::vec(
            (
                prop::option::weighted(0.4, select(v.ids.clone())),
                field_read,
            ),
            0..=3,
        ),
        bind_picks(v),
    )
        .prop_map(|(call, ok, reads, binds)| EventSpec::Result {
            call,
            ok,
            reads,
            binds,
        })
        .boxed();
    weighted(vec![
        // A message that is no turn: only the clock moves there.
        (3, Just(vec![EventSpec::Message(None)]).boxed()),
        (
            3,
            turn_spec(v)
                .prop_map(|t| vec![EventSpec::Message(Some(t))])
                .boxed(),
        ),
        (
            6,
            (call.clone(), result.clone())
                .prop_map(|(c, mut r)| {
                    if let EventSpec::Result { call, .. } = &mut r {
                        *call = None;
                    }
                    vec![c, r]
                })
                .boxed(),
        ),
        (2, call.prop_map(|c| vec![c]).boxed()),
        (1, result.prop_map(|r| vec![r]).boxed()),
        (2, two_records_one_yes(v)),
        (2, yes_to_another_record(v)),
        (2, items_laid_out(v)),
    ])
}

/// The evaluation point an event is, for binding steps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Point {
    Call(Symbol),
    Result(Symbol),
}

fn build_events(v: &Vocab, checks: &CompiledChecks, specs: &[EventSpec]) -> Vec<EventFacts> {
    let tools = v.tools();
    // (event, tool, order_id) of every call so far.
    let mut calls: Vec<(u32, Symbol, Option<Symbol>)> = Vec::new();
    let mut events = Vec::new();
    for (k, spec) in specs.iter().enumerate() {
        let k = k as u32;
        let mut ev = EventFacts {
            event: EventIdx(k),
            ..EventFacts::default()
        };
        if k == 0 && v.literal_ids {
            ev.literals = v
                .ids
                .iter()
                .map(|&id| LiteralFact {
                    value: Value::Str(id),
                    of: STATUS,
                })
                .collect();
        }
        let mut point = None;
        let mut picks: &[BindPick] = &[];
        let mut asked = None;
        match spec {
            EventSpec::Message(None) => {}
            EventSpec::Message(Some(turn)) => {
                let speaker = if turn.by_user {
                    Speaker::User
                } else {
                    Speaker::Agent
                };
                let [a, b, c, d, e] = turn.cues;
                ev.turn = Some(TurnFact {
                    event: EventIdx(k),
                    speaker,
                    asks_decision: a,
                    asks_anything: b,
                    reply: reply_of(c, d, turn.revoke),
                    corrects: e,
                    retracts: turn.retracts,
                    by_item: turn.by_item,
                    // Statuses stand for action words, each its own action:
                    // an agent turn naming two weighs them.
                    weighs_actions: !turn.by_user
                        && turn
                            .named
                            .iter()
                            .filter(
                                |value| matches!(value, Value::Str(s) if v.statuses.contains(s)),
                            )
                            .collect::<BTreeSet<_>>()
                            .len()
                            > 1,
                });
                ev.mentions = turn
                    .named
                    .iter()
                    .enumerate()
                    .map(|(i, &value)| MentionFact {
                        value,
                        event: EventIdx(k),
                        speaker,
                        record: v.shaped_ids
                            && matches!(value, Value::Str(s) if v.ids.contains(&s)),
                        in_answer: turn.in_answer.contains(&value),
                        declined: turn.declined.contains(&value),
                        // Statuses stand for the domain's action words.
                        action: matches!(value, Value::Str(s) if v.statuses.contains(&s)),
                        // An agent turn's answer marks mean nothing: they
                        // stand for references to the only record in play.
                        implied: !turn.by_user && turn.in_answer.contains(&value),
                        segments: placing_of(turn.placing >> (i % 4 * 8), 0),
                        clauses: placing_of(turn.placing >> (i % 4 * 8), 1),
                        first_place: place_of(turn.placing >> (i % 4 * 8), i).0,
                        last_place: place_of(turn.placing >> (i % 4 * 8), i).1,
                    })
                    .collect();
                ev.held = turn
                    .held
                    .iter()
                    .map(|&(value, record)| HeldFact {
                        value,
                        event: EventIdx(k),
                        entity: ORDER,
                        record,
                    })
                    .collect();
                ev.passed_over = turn
                    .passed_over
                    .iter()
                    .map(|&(value, picked_another)| PassedOverFact {
                        value,
                        event: EventIdx(k),
                        picked_another,
                    })
                    .collect();
                ev.disowned = turn
                    .disowned
                    .iter()
                    .map(|&value| DisownFact {
                        value,
                        event: EventIdx(k),
                    })
                    .collect();
            }
            EventSpec::Call {
                tool,
                by_agent,
                order_id,
                item_ids,
                new_item_ids,
                total,
                binds,
            } => {
                let tool = tools[tool % tools.len()];
                ev.call = Some(CallFact {
                    event: EventIdx(k),
                    tool,
                    by_agent: *by_agent,
                });
                for (path, value) in [(P_ORDER_ID, order_id), (P_TOTAL, total)] {
                    if let Some(value) = value {
                        ev.args.push(ArgFact {
                            call: EventIdx(k),
                            path,
                            elem: SCALAR,
                            value: *value,
                        });
                    }
                }
                for (path, items) in [(P_ITEM_IDS, item_ids), (P_NEW_ITEM_IDS, new_item_ids)] {
                    let Some(items) = items else { continue };
                    for (elem, value) in items.iter().enumerate() {
                        ev.args.push(ArgFact {
                            call: EventIdx(k),
                            path,
                            elem: elem as u32,
                            value: *value,
                        });
                    }
                    ev.arg_lens.push(ArgLenFact {
                        call: EventIdx(k),
                        path,
                        len: items.len() as u32,
                    });
                }
                asked = match order_id {
                    Some(Value::Str(s)) => Some(*s),
                    _ => None,
                };
                calls.push((k, tool, asked));
                point = Some(Point::Call(tool));
                picks = binds;
            }
            EventSpec::Result {
                call,
                ok,
                reads,
                binds,
            } => {
                let pick = call.map_or(calls.len().wrapping_sub(1), |c| c % calls.len().max(1));
                if let Some(&(c, tool, order_id)) = calls.get(pick) {
                    asked = order_id;
                    ev.result = Some(ResultFact {
                        event: EventIdx(k),
                        call: EventIdx(c),
                        ok: *ok,
                    });
                    if *ok {
                        for (id, read) in reads {
                            let Some(id) = id.or(asked) else { continue };
                            let (f, values, is_list) = match read {
                                FieldRead::Status(s) => (STATUS, vec![Value::Str(*s)], false),
                                FieldRead::Amount(a) => (AMOUNT, vec![*a], false),
                                FieldRead::Placed(t) => (PLACED, vec![*t], false),
                                FieldRead::Items(items) => {
                                    (ITEMS, items.iter().map(|s| Value::Str(*s)).collect(), true)
                                }
                                FieldRead::ItemsUnknown => {
                                    ev.reads.push(Read::unknown(ORDER, id, ITEMS));
                                    continue;
                                }
                            };
                            ev.reads.push(Read {
                                entity: ORDER,
                                id,
                                field: f,
                                values,
                                is_list,
                            });
                        }
                        point = Some(Point::Result(tool));
                        picks = binds;
                    }
                }
            }
        }
        if let Some(point) = point {
            let mut j = 0;
            for (s, step) in checks.steps.iter().enumerate() {
                let here = match step.timing {
                    Timing::Call(t) => point == Point::Call(t),
                    Timing::Result(t) => point == Point::Result(t),
                    Timing::State => false,
                };
                if !here || step.binds.is_empty() {
                    continue;
                }
                let value = match picks.get(j).copied().unwrap_or(BindPick::FromCall) {
                    BindPick::FromCall => Some(asked.unwrap_or(v.ids[0])),
                    BindPick::Value(s) => Some(s),
                    BindPick::Skip => None,
                };
                j += 1;
                if let Some(value) = value {
                    for &var in &step.binds {
                        ev.binds.push(BindFact {
                            step: StepId(s as u32),
                            event: EventIdx(k),
                            var,
                            value,
                        });
                    }
                }
            }
        }
        events.push(ev);
    }
    events
}

// ---------------------------------------------------------------------------
// A case, and running both evaluators on it.

#[derive(Clone)]
struct Case {
    checks: CompiledChecks,
    events: Vec<EventFacts>,
    /// Judge verdicts: (semantic step, the request it is about, evidence event).
    judged: Vec<(StepId, RequestPick, EventIdx)>,
}

/// The request a generated verdict is about. Verdicts are request-scoped,
/// and which requests exist depends on the verdicts, so a random verdict
/// names one of the requests the evaluators derive (resolved in rounds by
/// [`resolve_judged`]).
#[derive(Clone, Copy, Debug)]
enum RequestPick {
    /// Exactly these bindings.
    Exactly(Env),
    /// The n-th (modulo) of the requests seen so far, [`Env::EMPTY`] first.
    Nth(usize),
}

fn case() -> impl Strategy<Value = Case> {
    vocab().prop_flat_map(|v| {
        (
            Just(v.clone()),
            prop::option::weighted(0.75, find_spec(&v)),
            prop::collection::vec(step_spec(&v), 0..=5),
            prop::collection::vec(auth_spec(&v), 1..=3),
            prop::collection::vec((any::<usize>(), any::<usize>()), 0..=3),
            prop::collection::vec(interaction(&v), 2..=18).prop_map(|events| {
                let mut events: Vec<EventSpec> = events.into_iter().flatten().collect();
                events.truncate(30);
                events
            }),
            prop::collection::vec((any::<usize>(), any::<usize>()), 0..=8),
            // A lenient case: many steps lose their check, so paths get deep.
            prop::option::weighted(0.3, prop::collection::vec(prop::bool::weighted(0.6), 10)),
            clock(),
            prop::collection::vec(protection_spec(&v), 0..=2),
        )
            .prop_map(
                |(
                    v,
                    find,
                    mut normal,
                    mut auth,
                    extra,
                    events,
                    judged,
                    lenient,
                    clock,
                    protected,
                )| {
                    normal.splice(0..0, find);
                    for (spec, drop) in normal
                        .iter_mut()
                        .chain(auth.iter_mut())
                        .zip(lenient.into_iter().flatten())
                    {
                        if drop {
                            spec.check = None;
                        }
                    }
                    if normal.is_empty() {
                        // At least three steps: entry, one more, an authorization.
                        normal.push(StepSpec {
                            timing: TimingSpec::State,
                            check: None,
                            share: None,
                            semantic: false,
                            bind: None,
                            parent: None,
                            auth: None,
                        });
                    }
                    let checks = build_checks(&v, &normal, &auth, &extra, &protected);
                    let mut events = build_events(&v, &checks, &events);
                    for (event, now) in events.iter_mut().zip(clock) {
                        event.now = now;
                    }
                    let semantic: Vec<StepId> = checks
                        .steps
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.semantic)
                        .map(|(i, _)| StepId(i as u32))
                        .collect();
                    let n = events.len();
                    let judged = judged
                        .into_iter()
                        .filter_map(|(s, k)| {
                            let pick = RequestPick::Nth(k / n.max(1));
                            // Mostly semantic steps; now and then any step.
                            let step = if s % 8 == 7 || semantic.is_empty() {
                                StepId((s % checks.steps.len()) as u32)
                            } else {
                                semantic[s % semantic.len()]
                            };
                            (!semantic.is_empty() || s % 8 == 7).then_some((
                                step,
                                pick,
                                EventIdx((k % n) as u32),
                            ))
                        })
                        .collect();
                    Case {
                        checks,
                        events,
                        judged,
                    }
                },
            )
    })
}

/// The time of each event (`now()`): none at all, one fixed instant, or a
/// clock moving on by whole hours with now and then an event of unknown
/// time (a clock that cannot be read).
fn clock() -> BoxedStrategy<Vec<Option<DateTime>>> {
    let moving =
        prop::collection::vec(prop::option::weighted(0.85, 0i64..=30), 40).prop_map(|steps| {
            let mut at = CLOCK_START.0 - 24 * 3_600;
            steps
                .into_iter()
                .map(|step| {
                    step.map(|hours| {
                        at += hours * 3_600;
                        DateTime(at)
                    })
                })
                .collect()
        });
    weighted(vec![
        (1, Just(vec![None; 40]).boxed()),
        (1, Just(vec![Some(CLOCK_START); 40]).boxed()),
        (3, moving.boxed()),
    ])
}

/// Both evaluators' results on one case.
struct Run {
    derived: Derived,
    sat: BTreeSet<(StepId, Env, EventIdx)>,
    allowed: BTreeMap<EventIdx, Vec<(StepId, Env)>>,
    outcomes: Vec<EventOutcome>,
    /// At every blocked call: the monitor's explanation and the program's
    /// violation on the facts up to that call.
    explanations: Vec<(EventIdx, Option<Violation>, Option<Violation>)>,
}

/// The case's verdicts with their requests resolved: a pick names one of the
/// requests the monitor derives under the verdicts resolved so far; a few
/// rounds let later verdicts name requests that earlier ones opened.
fn resolve_judged(case: &Case) -> Vec<(StepId, Env, EventIdx)> {
    let mut judged: Vec<(StepId, Env, EventIdx)> = Vec::new();
    for _ in 0..4 {
        let mut requests: BTreeSet<Env> = BTreeSet::from([Env::EMPTY]);
        requests.extend(monitor_only(case, &judged).into_iter().map(|(_, e, _)| e));
        let requests: Vec<Env> = requests.into_iter().collect();
        let next: Vec<(StepId, Env, EventIdx)> = case
            .judged
            .iter()
            .map(|&(s, pick, k)| {
                let env = match pick {
                    RequestPick::Exactly(env) => env,
                    RequestPick::Nth(n) => requests[n % requests.len()],
                };
                (s, env, k)
            })
            .collect();
        if next == judged {
            break;
        }
        judged = next;
    }
    judged
}

/// The verdicts of `judged` whose evidence is event `at`, as the monitor
/// takes them there.
fn verdicts_at(judged: &[(StepId, Env, EventIdx)], at: EventIdx) -> Vec<(StepId, Env)> {
    judged
        .iter()
        .filter(|(_, _, k)| *k == at)
        .map(|(s, e, _)| (*s, *e))
        .collect()
}

/// The monitor's `sat` on the case under `judged`.
fn monitor_only(
    case: &Case,
    judged: &[(StepId, Env, EventIdx)],
) -> BTreeSet<(StepId, Env, EventIdx)> {
    let paths = arg_paths();
    let plan = Arc::new(Plan::new(&case.checks, &paths).unwrap());
    let mut monitor = Monitor::new(plan);
    for ev in &case.events {
        let now = verdicts_at(judged, ev.event);
        monitor.push(ev, &now).unwrap();
    }
    monitor.sat().clone()
}

fn run(case: &Case) -> Run {
    let resolved = resolve_judged(case);
    let paths = arg_paths();
    let plan = Arc::new(Plan::new(&case.checks, &paths).unwrap());
    let mut monitor = Monitor::new(plan);
    let mut builder = FactsBuilder::new(paths);
    let mut outcomes = Vec::new();
    let mut explanations = Vec::new();
    for ev in &case.events {
        builder.push(ev);
        let judged = verdicts_at(&resolved, ev.event);
        let outcome = monitor.push(ev, &judged).unwrap();
        if outcome.allowed() == Some(false) {
            let mut prefix = builder.snapshot(&interner(), ev.event.0 + 1);
            prefix.judged = resolved
                .iter()
                .filter(|(_, _, k)| *k <= ev.event)
                .copied()
                .collect();
            let reference = evaluate(&case.checks, &prefix).unwrap();
            let expected = reference
                .violations
                .iter()
                .find(|v| v.event == ev.event)
                .cloned();
            let explained = if outcome.protected.is_some() {
                monitor.explain_read()
            } else {
                monitor.explain_block()
            };
            explanations.push((ev.event, explained, expected));
        }
        outcomes.push(outcome);
    }
    let mut facts = builder.finish(interner(), case.events.len() as u32);
    facts.judged = resolved;
    let derived = evaluate(&case.checks, &facts).unwrap();
    Run {
        derived,
        sat: monitor.sat().clone(),
        allowed: monitor.allowed().clone(),
        outcomes,
        explanations,
    }
}

/// An agent's call of a gated tool or of a protected read tool: the calls
/// the gate allows or blocks.
fn gated_agent_call(case: &Case, ev: &EventFacts) -> bool {
    ev.call.is_some_and(|c| {
        c.by_agent
            && (case.checks.gated_tools.contains(&c.tool)
                || case.checks.protections.iter().any(|p| p.tool == c.tool))
    })
}

/// The property: the monitor derives what the program derives.
fn agree(case: &Case, run: &Run) -> Result<(), TestCaseError> {
    let only = |a: &BTreeSet<(StepId, Env, EventIdx)>, b: &BTreeSet<(StepId, Env, EventIdx)>| {
        a.difference(b)
            .map(|&(s, e, k)| format!("s{}{} @{k}", s.0, show_env(&e)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    prop_assert_eq!(
        &run.derived.sat,
        &run.sat,
        "Sat differs\n  only in datalog: {}\n  only in monitor: {}\n{:?}",
        only(&run.derived.sat, &run.sat),
        only(&run.sat, &run.derived.sat),
        case
    );
    prop_assert_eq!(
        &run.derived.allowed,
        &run.allowed,
        "Allowed differs\n  datalog: {}\n  monitor: {}\n{:?}",
        show_allowed(&run.derived.allowed),
        show_allowed(&run.allowed),
        case
    );
    for (ev, outcome) in case.events.iter().zip(&run.outcomes) {
        let expected = gated_agent_call(case, ev).then(|| run.derived.is_allowed(ev.event));
        prop_assert_eq!(
            outcome.allowed(),
            expected,
            "gate verdict at event {} differs\n{:?}",
            ev.event,
            case
        );
    }
    for (k, got, expected) in &run.explanations {
        let key = |v: &Option<Violation>| {
            v.as_ref()
                .map(|v| (v.request, v.unmet, v.reason, v.used_by))
        };
        prop_assert!(expected.is_some(), "no reference violation at {}", k);
        prop_assert_eq!(
            key(got),
            key(expected),
            "the explanations of the block at event {} differ\n  monitor: {:?}\n  datalog: {:?}\n{:?}",
            k,
            got,
            expected,
            case
        );
        prop_assert_eq!(
            got.as_ref().map(|v| &v.failed),
            expected.as_ref().map(|v| &v.failed),
            "the failed conditions at event {} differ\n{:?}",
            k,
            case
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: turnstile_proptests::cases(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn monitor_equals_datalog(case in case()) {
        let run = run(&case);
        agree(&case, &run)?;
    }

    /// With every consent condition of one gated tool's writes taken as
    /// given (what decides `confirm`), the two evaluators still agree.
    #[test]
    fn monitor_equals_datalog_with_consent_granted(case in case()) {
        for &tool in &case.checks.gated_tools {
            let granted = Case {
                checks: case.checks.consent.granted(&case.checks, tool),
                ..case.clone()
            };
            let run = run(&granted);
            agree(&granted, &run)?;
        }
    }

    /// A call the monitor refuses on facts alone (`Monitor::refused_by_facts`)
    /// is refused by the workflow with consent granted too, whichever
    /// earlier calls that workflow reads as not run: here, as in a session,
    /// the calls the monitor refused.
    #[test]
    fn a_call_refused_by_facts_is_refused_with_consent_granted(case in case()) {
        let resolved = resolve_judged(&case);
        let paths = arg_paths();
        let plan = Arc::new(Plan::new(&case.checks, &paths).unwrap());
        for &tool in &case.checks.gated_tools {
            let granted_checks = case.checks.consent.granted(&case.checks, tool);
            let mut granted = Monitor::new(Arc::new(Plan::new(&granted_checks, &paths).unwrap()));
            let mut monitor = Monitor::new(Arc::clone(&plan));
            for ev in &case.events {
                let judged = verdicts_at(&resolved, ev.event);
                let outcome = monitor.push(ev, &judged).unwrap();
                let gated = granted.push(ev, &judged).unwrap().gated;
                if monitor.refused_by_facts(tool) {
                    prop_assert!(
                        gated.as_ref().is_none_or(Vec::is_empty),
                        "event {}: refused on facts, allowed with consent granted: {:?}",
                        ev.event,
                        gated
                    );
                }
                if outcome.allowed() == Some(false) {
                    granted.undo_last().unwrap();
                    let not_run = EventFacts {
                        event: ev.event,
                        now: ev.now,
                        ..EventFacts::default()
                    };
                    granted.push(&not_run, &judged).unwrap();
                }
            }
        }
    }

    /// `Monitor::undo_last` takes back a push, and the amendments after it:
    /// at every event, push (with some of the event's verdicts, the rest
    /// amended), undo, and the monitor equals what it was before; pushed
    /// again with all of them, it goes on to the same end as a monitor
    /// never undone.
    #[test]
    fn push_then_undo_leaves_the_monitor_as_before(case in case()) {
        let resolved = resolve_judged(&case);
        let plan = Arc::new(Plan::new(&case.checks, &arg_paths()).unwrap());
        let mut monitor = Monitor::new(plan);
        for ev in &case.events {
            let judged = verdicts_at(&resolved, ev.event);
            let before = monitor.clone();
            let (first, rest) = judged.split_at(judged.len() / 2);
            monitor.push(ev, first).unwrap();
            monitor.amend_last(ev.event, rest).unwrap();
            monitor.undo_last().unwrap();
            prop_assert!(monitor == before, "undo at event {} differs", ev.event);
            prop_assert!(monitor.undo_last().is_err(), "a second undo");
            monitor.push(ev, &judged).unwrap();
        }
        prop_assert_eq!(monitor.sat(), &monitor_only(&case, &resolved));
    }
}

// ---------------------------------------------------------------------------
// Readable cases (shown on failure).

fn show_value(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("\"{}\"", name(*s)),
        Value::Int(i) => i.to_string(),
        Value::Amount(a) => format!("{a}$"),
        Value::Bool(b) => b.to_string(),
        Value::Date(d) => d.to_string(),
        Value::DateTime(d) => d.to_string(),
        Value::Duration(d) => d.to_string(),
    }
}

fn show_path(p: &ArgPath) -> String {
    let mut out = String::from("args");
    for step in &p.0 {
        match step {
            ArgStep::Key(k) => {
                out.push('.');
                out.push_str(name(*k));
            }
            ArgStep::Index(i) => out.push_str(&format!("[{i}]")),
            ArgStep::Each => out.push_str("[*]"),
        }
    }
    out
}

fn show_filter(f: &EventFilter) -> String {
    let kind = match f.outcome {
        Outcome::Called => "called",
        Outcome::Succeeded => "succeeded",
    };
    let mut parts = vec![name(f.tool).to_owned()];
    parts.extend(f.constraints.iter().map(|c| {
        format!(
            "{} {} {}",
            show_path(&c.path),
            c.op.symbol(),
            show_operand(&c.value)
        )
    }));
    format!("{kind}({})", parts.join(", "))
}

fn show_operand(o: &Operand) -> String {
    match o {
        Operand::Const(v) => show_value(v),
        Operand::Var(v) => format!("${}", v.0),
        Operand::Field { entity, id, field } => {
            format!("{}[{}].{}", name(*entity), show_operand(id), name(*field))
        }
        Operand::Arg(p) => show_path(p),
        Operand::Aggregate { op, of } => format!("{}({})", op.name(), show_operand(of)),
        Operand::CountEqual { of, value } => {
            format!("count({}, {})", show_operand(of), show_operand(value))
        }
        Operand::CountEvents(f) => format!("count({})", show_filter(f)),
        Operand::Now => "now()".to_owned(),
        Operand::Arith { op, lhs, rhs } => {
            let op = match op {
                ArithOp::Add => "+",
                ArithOp::Sub => "-",
                ArithOp::Mul => "*",
            };
            format!("({} {op} {})", show_operand(lhs), show_operand(rhs))
        }
    }
}

fn show_check(c: &Check) -> String {
    let join = |cs: &[Check], sep: &str, empty: &str| {
        if cs.is_empty() {
            empty.to_owned()
        } else {
            format!(
                "({})",
                cs.iter().map(show_check).collect::<Vec<_>>().join(sep)
            )
        }
    };
    match c {
        Check::Const(b) => b.to_string(),
        Check::Compare { op, lhs, rhs } => {
            format!(
                "{} {} {}",
                show_operand(lhs),
                op.symbol(),
                show_operand(rhs)
            )
        }
        Check::OneOf { operand, set } => format!(
            "{} in [{}]",
            show_operand(operand),
            set.iter().map(show_operand).collect::<Vec<_>>().join(", ")
        ),
        Check::Contains { item, list } => {
            format!("{} in {}", show_operand(item), show_operand(list))
        }
        Check::Not(inner) => format!("!({})", show_check(inner)),
        Check::All(cs) => join(cs, " && ", "all()"),
        Check::Any(cs) => join(cs, " || ", "any()"),
        Check::Happened(f) => show_filter(f),
        Check::Said { speaker, value } => format!("said({speaker:?}, {})", show_operand(value)),
        Check::Confirmed {
            values,
            call,
            items,
        } => format!(
            "confirmed({}; call {}; items {})",
            values
                .iter()
                .map(show_operand)
                .collect::<Vec<_>>()
                .join(", "),
            call.iter().map(show_operand).collect::<Vec<_>>().join(", "),
            items
                .iter()
                .map(|fields| fields
                    .iter()
                    .map(show_operand)
                    .collect::<Vec<_>>()
                    .join(" ~ "))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}

fn show_env(env: &Env) -> String {
    let bound: Vec<String> = env
        .bound()
        .map(|(var, value)| format!("${}={}", var.0, name(value)))
        .collect();
    format!("{{{}}}", bound.join(" "))
}

fn show_allowed(allowed: &BTreeMap<EventIdx, Vec<(StepId, Env)>>) -> String {
    allowed
        .iter()
        .map(|(k, list)| {
            let by: Vec<String> = list
                .iter()
                .map(|(s, e)| format!("s{}{}", s.0, show_env(e)))
                .collect();
            format!("@{k} by {}", by.join(" "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_timing(t: Timing) -> String {
    match t {
        Timing::State => "state".to_owned(),
        Timing::Call(tool) => format!("call {}", name(tool)),
        Timing::Result(tool) => format!("result {}", name(tool)),
    }
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.checks;
        let gated: Vec<&str> = c.gated_tools.iter().map(|t| name(*t)).collect();
        writeln!(f, "workflow (vars {}, gated {:?}):", c.vars, gated)?;
        for (i, step) in c.steps.iter().enumerate() {
            let succs: Vec<String> = c
                .edges
                .iter()
                .filter(|(a, _)| a.0 as usize == i)
                .map(|(_, b)| format!("s{}", b.0))
                .collect();
            write!(f, "  s{i} [{}]", show_timing(step.timing))?;
            if step.semantic {
                write!(f, " semantic")?;
            }
            if !step.binds.is_empty() {
                write!(f, " binds {:?}", step.binds)?;
            }
            if let Some(t) = step.authorizes {
                write!(f, " authorizes {}", name(t))?;
            }
            if let Some(id) = step.check {
                let check = c.checks.get(id).map(show_check).unwrap_or_default();
                write!(f, " check#{}: {check}", id.0)?;
            }
            writeln!(f, " -> [{}]", succs.join(", "))?;
        }
        writeln!(f, "trace:")?;
        for ev in &self.events {
            write!(f, "  {}:", ev.event)?;
            if let Some(now) = ev.now {
                write!(f, " @{now}")?;
            }
            if let Some(call) = ev.call {
                write!(
                    f,
                    " call {}{}",
                    name(call.tool),
                    if call.by_agent { "" } else { " (user)" }
                )?;
                let mut args: Vec<String> = Vec::new();
                for (p, label) in [(P_ORDER_ID, "order_id"), (P_TOTAL, "total")] {
                    for a in ev.args.iter().filter(|a| a.path == p) {
                        args.push(format!("{label}={}", show_value(&a.value)));
                    }
                }
                for (p, label) in [(P_ITEM_IDS, "item_ids"), (P_NEW_ITEM_IDS, "new_item_ids")] {
                    if ev.arg_lens.iter().any(|l| l.path == p) {
                        let items: Vec<String> = ev
                            .args
                            .iter()
                            .filter(|a| a.path == p)
                            .map(|a| show_value(&a.value))
                            .collect();
                        args.push(format!("{label}=[{}]", items.join(", ")));
                    }
                }
                write!(f, "({})", args.join(", "))?;
            }
            if let Some(r) = ev.result {
                write!(
                    f,
                    " result of {} {}",
                    r.call,
                    if r.ok { "ok" } else { "FAILED" }
                )?;
            }
            if ev.call.is_none() && ev.result.is_none() {
                write!(f, " message")?;
            }
            if let Some(t) = ev.turn {
                let cues = [
                    (t.asks_decision, "asks-decision"),
                    (t.asks_anything, "asks"),
                    (t.reply == Reply::Affirms, "affirms"),
                    (t.reply == Reply::Qualifies, "qualifies"),
                    (t.reply == Reply::Withdraws, "withdraws"),
                    (t.reply == Reply::Refuses, "refuses"),
                    (t.corrects, "corrects"),
                    (t.retracts, "retracts"),
                ];
                let on: Vec<&str> = cues.iter().filter(|c| c.0).map(|c| c.1).collect();
                let named: Vec<String> = ev
                    .mentions
                    .iter()
                    .map(|m| {
                        let flags = [
                            (m.record, "record"),
                            (m.in_answer, "answer"),
                            (m.declined, "declined"),
                            (m.action, "action"),
                            (m.implied, "implied"),
                        ];
                        let mut on: Vec<String> = flags
                            .iter()
                            .filter(|f| f.0)
                            .map(|f| f.1.to_owned())
                            .collect();
                        if m.segments | m.clauses != 0 {
                            on.push(format!(
                                "segments {:#x} clauses {:#x}",
                                m.segments, m.clauses
                            ));
                        }
                        if on.is_empty() {
                            show_value(&m.value)
                        } else {
                            format!("{} ({})", show_value(&m.value), on.join(" "))
                        }
                    })
                    .collect();
                write!(
                    f,
                    " by {:?} [{}] naming [{}]",
                    t.speaker,
                    on.join(" "),
                    named.join(", ")
                )?;
            }
            for p in &ev.passed_over {
                let how = if p.picked_another {
                    "passes over"
                } else {
                    "picks none of"
                };
                write!(f, "; {how} {}", show_value(&p.value))?;
            }
            for read in &ev.reads {
                let values: Vec<String> = read.values.iter().map(show_value).collect();
                let values = if read.is_list {
                    format!("[{}]", values.join(", "))
                } else {
                    values.join(", ")
                };
                write!(
                    f,
                    "; {}[{}].{} = {values}",
                    name(read.entity),
                    name(read.id),
                    name(read.field)
                )?;
            }
            for b in &ev.binds {
                write!(f, "; s{} binds ${}={}", b.step.0, b.var.0, name(b.value))?;
            }
            let verdicts: Vec<String> = self
                .judged
                .iter()
                .filter(|(_, _, k)| *k == ev.event)
                .map(|(s, pick, _)| format!("s{} for {pick:?}", s.0))
                .collect();
            if !verdicts.is_empty() {
                write!(f, "; judge confirms {}", verdicts.join(", "))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Hand-written regression cases.

fn step(name: &str, timing: Timing, check: Option<CheckId>, binds: Vec<u32>) -> Step {
    Step {
        name: name.into(),
        origin: StepOrigin::Node,
        timing,
        check,
        semantic: false,
        binds: binds.into_iter().map(VarId).collect(),
        authorizes: None,
    }
}

/// A workflow of an entry step, then `auth`.
fn entry_then(auth: Step, checks: CheckSet) -> CompiledChecks {
    chain(
        vec![step("entry", Timing::State, None, vec![]), auth],
        checks,
        &[],
    )
}

fn chain(steps: Vec<Step>, checks: CheckSet, back: &[(u32, u32)]) -> CompiledChecks {
    let mut edges: Vec<(StepId, StepId)> = (1..steps.len() as u32)
        .map(|i| (StepId(i - 1), StepId(i)))
        .collect();
    edges.extend(back.iter().map(|&(a, b)| (StepId(a), StepId(b))));
    CompiledChecks {
        checks,
        steps,
        edges,
        entry: StepId(0),
        vars: 1,
        gated_tools: vec![CANCEL],
        consent: Default::default(),
        protections: Vec::new(),
    }
}

fn message(k: u32) -> EventFacts {
    EventFacts {
        event: EventIdx(k),
        ..EventFacts::default()
    }
}

fn call(k: u32, tool: Symbol, order_id: Symbol) -> EventFacts {
    EventFacts {
        event: EventIdx(k),
        call: Some(CallFact {
            event: EventIdx(k),
            tool,
            by_agent: true,
        }),
        args: vec![ArgFact {
            call: EventIdx(k),
            path: P_ORDER_ID,
            elem: SCALAR,
            value: Value::Str(order_id),
        }],
        ..EventFacts::default()
    }
}

/// An ok result of call `c` reading `id`'s status, with an optional bind.
fn result(
    k: u32,
    c: u32,
    status: Option<(Symbol, Symbol)>,
    bind: Option<(u32, Symbol)>,
) -> EventFacts {
    EventFacts {
        event: EventIdx(k),
        result: Some(ResultFact {
            event: EventIdx(k),
            call: EventIdx(c),
            ok: true,
        }),
        reads: status
            .into_iter()
            .map(|(id, s)| Read {
                entity: ORDER,
                id,
                field: STATUS,
                values: vec![Value::Str(s)],
                is_list: false,
            })
            .collect(),
        binds: bind
            .into_iter()
            .map(|(s, value)| BindFact {
                step: StepId(s),
                event: EventIdx(k),
                var: VarId(0),
                value,
            })
            .collect(),
        ..EventFacts::default()
    }
}

fn env(id: Symbol) -> Env {
    Env::EMPTY.with(VarId(0), id)
}

fn pinned() -> Check {
    compare(CmpOp::Eq, arg(path_order_id()), Operand::Var(VarId(0)))
}

fn is_pending() -> Check {
    compare(
        CmpOp::Eq,
        field(Operand::Var(VarId(0)), STATUS),
        Operand::Const(Value::Str(STATUSES[0])),
    )
}

/// A cancel whose guard is `pinned && is_pending && confirmed(args.order_id,
/// "<first status>")`, the first status its action word, over a read of a
/// pending (or not) order and no confirmation: `(monitor, datalog)`
/// violations at the call, and the case with consent granted allowed?
fn consent_case(pending: bool) -> (Violation, bool) {
    let [o1, _, _] = IDS;
    let mut checks = CheckSet::default();
    let word = STATUSES[0];
    let guard = checks.push(Check::All(vec![
        pinned(),
        is_pending(),
        Check::Confirmed {
            values: vec![arg(path_order_id()), Operand::Const(Value::Str(word))],
            call: Vec::new(),
            items: Vec::new(),
        },
    ]));
    let bind = step("read", Timing::Result(LOOKUP), None, vec![0]);
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let mut spec = chain(
        vec![step("entry", Timing::State, None, vec![]), bind, auth],
        checks,
        &[],
    );
    spec.consent = ConsentSpec {
        steps: Vec::new(),
        actions: vec![(CANCEL, vec![word])],
    };
    let status = if pending { STATUSES[0] } else { STATUSES[1] };
    let events = vec![
        call(0, LOOKUP, o1),
        result(1, 0, Some((o1, status)), Some((1, o1))),
        call(2, CANCEL, o1),
    ];
    let case = Case {
        checks: spec,
        events: events.clone(),
        judged: Vec::new(),
    };
    let run = agreed(&case);
    let violation = run
        .explanations
        .first()
        .and_then(|(_, got, _)| got.clone())
        .unwrap();
    let granted = Case {
        checks: case.checks.consent.granted(&case.checks, CANCEL),
        events,
        judged: Vec::new(),
    };
    let allowed = !allowed_events(&agreed(&granted)).is_empty();
    (violation, allowed)
}

#[test]
fn a_missing_confirmation_of_the_action_word_is_consent_and_granting_it_allows() {
    let (violation, allowed) = consent_case(true);
    let conditions: Vec<Condition> = violation.failed.iter().map(|f| f.condition).collect();
    assert_eq!(conditions, vec![Condition::Consent], "{violation:?}");
    assert!(violation.fails_on_consent());
    assert!(allowed, "with consent granted the write is allowed");
}

#[test]
fn a_formal_failure_beside_a_missing_confirmation_is_not_opened_by_consent() {
    let (violation, allowed) = consent_case(false);
    assert!(
        violation
            .failed
            .iter()
            .any(|f| f.condition == Condition::Formal),
        "{violation:?}"
    );
    assert!(!violation.fails_on_consent());
    assert!(!allowed, "a formal failure stays whatever consent says");
}

/// Runs both evaluators, asserts they agree, returns the run.
fn agreed(case: &Case) -> Run {
    let run = run(case);
    if let Err(e) = agree(case, &run) {
        panic!("{e}");
    }
    run
}

fn sat_events(run: &Run, s: u32, e: Env) -> Vec<u32> {
    run.sat
        .iter()
        .filter(|(st, en, _)| st.0 == s && *en == e)
        .map(|(_, _, k)| k.0)
        .collect()
}

/// The reply a turn's cues make: a revocation of kind `revoke` (qualifies,
/// withdraws, refuses) over a yes.
fn reply_of(affirms: bool, revokes: bool, revoke: u8) -> Reply {
    match (revokes, affirms, revoke % 3) {
        (true, _, 0) => Reply::Qualifies,
        (true, _, 1) => Reply::Withdraws,
        (true, _, _) => Reply::Refuses,
        (false, true, _) => Reply::Affirms,
        (false, false, _) => Reply::Other,
    }
}

/// The segment (`level` 0) or clause (`level` 1) bits a mention drawn
/// from `placing` has: none, one of three segments, two of them, or
/// unplaced.
fn placing_of(placing: u32, level: u32) -> u32 {
    match (placing >> (level * 3)) & 7 {
        0 | 1 => 0,
        2 => 1,
        3 => 1 << 1,
        4 => 1 << 2,
        5 => 0b11,
        6 => 1 << 1 | 1 << 2,
        _ => UNPLACED_SEGMENT,
    }
}

/// The first and last places ([`MentionFact::first_place`]) that the top
/// two of a value's eight bits drawn from `placing` give the `i`th value a
/// turn names: none, not known, one place in a middle run, or in a last
/// run, where every other value is also spelt in a first run, in the order
/// the turn names them.
fn place_of(placing: u32, i: usize) -> (u32, u32) {
    let i = u32::try_from(i).unwrap_or(0);
    match (placing >> 6) & 3 {
        0 => (0, 0),
        1 => (UNKNOWN_PLACE, UNKNOWN_PLACE),
        2 => (64 + i + 1, 64 + i + 1),
        _ if i % 2 == 0 => (i + 1, 128 + i + 1),
        _ => (128 + i + 1, 128 + i + 1),
    }
}

fn allowed_events(run: &Run) -> Vec<u32> {
    run.allowed.keys().map(|k| k.0).collect()
}

/// A turn at `k` with its cues (asks decision, asks anything, affirms,
/// revokes, corrects) naming `named` (ids are records).
fn turn(k: u32, speaker: Speaker, cues: [bool; 5], named: &[Symbol]) -> EventFacts {
    let [asks_decision, asks_anything, affirms, revokes, corrects] = cues;
    EventFacts {
        event: EventIdx(k),
        turn: Some(TurnFact {
            event: EventIdx(k),
            speaker,
            asks_decision,
            asks_anything,
            reply: reply_of(affirms, revokes, 0),
            corrects,
            weighs_actions: false,
            retracts: false,
            by_item: false,
        }),
        mentions: named
            .iter()
            .map(|&value| MentionFact {
                value: Value::Str(value),
                event: EventIdx(k),
                speaker,
                record: IDS.contains(&value),
                in_answer: speaker == Speaker::User && IDS.contains(&value),
                declined: false,
                action: false,
                implied: false,
                segments: 0,
                clauses: 0,
                first_place: 0,
                last_place: 0,
            })
            .collect(),
        ..EventFacts::default()
    }
}

/// A cancel guarded by `confirmed(args.order_id)` right after the entry,
/// over `events`; the events at which the two evaluators agree it is allowed.
fn allowed_under_confirmed(events: Vec<EventFacts>) -> Vec<u32> {
    let mut checks = CheckSet::default();
    let guard = checks.push(Check::Confirmed {
        values: vec![arg(path_order_id())],
        call: Vec::new(),
        items: Vec::new(),
    });
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let case = Case {
        checks: entry_then(auth, checks),
        events,
        judged: Vec::new(),
    };
    allowed_events(&agreed(&case))
}

const SUMMARY_CUES: [bool; 5] = [true, true, false, false, false];
const YES_CUES: [bool; 5] = [false, false, true, false, false];

#[test]
fn a_yes_naming_one_record_of_a_summary_of_two_confirms_that_one_only() {
    let [o1, o2, _] = IDS;
    let allowed = allowed_under_confirmed(vec![
        turn(0, Speaker::Agent, SUMMARY_CUES, &[o1, o2]),
        turn(1, Speaker::User, YES_CUES, &[o2]),
        call(2, CANCEL, o1),
        call(3, CANCEL, o2),
    ]);
    assert_eq!(allowed, vec![3], "only the order the yes named");
}

#[test]
fn a_yes_naming_one_of_two_entities_read_confirms_that_one_only() {
    let [o1, o2, _] = IDS;
    let pending = STATUSES[0];
    // Ids that are no order-like record ids: records only as entities read.
    let unshaped = |mut facts: EventFacts| {
        for m in &mut facts.mentions {
            m.record = false;
        }
        facts
    };
    let allowed = allowed_under_confirmed(vec![
        call(0, LOOKUP, o1),
        result(1, 0, Some((o1, pending)), None),
        call(2, LOOKUP, o2),
        result(3, 2, Some((o2, pending)), None),
        unshaped(turn(4, Speaker::Agent, SUMMARY_CUES, &[o1, o2])),
        unshaped(turn(5, Speaker::User, YES_CUES, &[o2])),
        call(6, CANCEL, o1),
        call(7, CANCEL, o2),
    ]);
    assert_eq!(allowed, vec![7], "only the entity the yes named");
}

/// A plan over two records: a request naming the call's record `o1`,
/// another `o2` and an item `o3`, a yes, and a call on `o1` carrying
/// another item no request named. `o3` is a rival of that item unless
/// the request set it down as `o2`'s detail (`HeldFact`), or as `o1`'s
/// own, which the call carries: then it rivals still.
#[test]
fn a_value_the_request_gives_another_record_is_no_rival_of_the_call() {
    let [o1, o2, o3] = IDS;
    let item = STATUSES[0];
    let pending = STATUSES[1];
    // `o3` and the item are records of another type than the orders.
    let of_items = |mut facts: EventFacts| {
        for read in &mut facts.reads {
            read.entity = ITEMS;
        }
        facts
    };
    let allowed_with = |held_by: Option<Symbol>| {
        let mut checks = CheckSet::default();
        let guard = checks.push(Check::Confirmed {
            values: vec![arg(path_order_id())],
            call: vec![arg(path_item_ids())],
            items: Vec::new(),
        });
        let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
        auth.authorizes = Some(CANCEL);
        let mut request = turn(8, Speaker::Agent, SUMMARY_CUES, &[o1, o2, o3]);
        request.held = held_by
            .into_iter()
            .map(|record| HeldFact {
                value: Value::Str(o3),
                event: EventIdx(8),
                entity: ORDER,
                record: Value::Str(record),
            })
            .collect();
        let mut write = call(10, CANCEL, o1);
        push_list(&mut write, P_ITEM_IDS, &[item]);
        let case = Case {
            checks: entry_then(auth, checks),
            events: vec![
                call(0, LOOKUP, o1),
                result(1, 0, Some((o1, pending)), None),
                call(2, LOOKUP, o2),
                result(3, 2, Some((o2, pending)), None),
                call(4, LOOKUP, o3),
                of_items(result(5, 4, Some((o3, pending)), None)),
                call(6, LOOKUP, item),
                of_items(result(7, 6, Some((item, pending)), None)),
                request,
                turn(9, Speaker::User, YES_CUES, &[]),
                write,
            ],
            judged: Vec::new(),
        };
        allowed_events(&agreed(&case))
    };
    assert_eq!(allowed_with(None), Vec::<u32>::new(), "o3 rivals the item");
    assert_eq!(allowed_with(Some(o2)), vec![10], "o3 is o2's detail");
    assert_eq!(
        allowed_with(Some(o1)),
        Vec::<u32>::new(),
        "o3 is the call's own record's"
    );
}

/// Gives the call `write` the list argument at `path` holding `values`.
fn push_list(write: &mut EventFacts, path: u32, values: &[Symbol]) {
    let call = write.event;
    for (elem, value) in values.iter().enumerate() {
        write.args.push(ArgFact {
            call,
            path,
            elem: elem as u32,
            value: Value::Str(*value),
        });
    }
    write.arg_lens.push(ArgLenFact {
        call,
        path,
        len: values.len() as u32,
    });
}

/// A request laying out two items, an old id and its replacement each
/// (`item_ids[*]` ~ `new_item_ids[*]`), where each value stands (segment,
/// clause); a yes; and a call pairing them as `new` says. A segment or
/// clause naming one item's old id with the other's replacement states
/// another call; clauses count only when each clause naming an item names
/// both of its fields. Two lists laid out one after the other (each
/// value at one place) pair by their order.
#[test]
fn a_request_pairing_one_items_value_with_anothers_is_no_summary_of_the_call() {
    let [o1, x1, x2] = IDS;
    let [y1, _, y2] = STATUSES;
    let allowed_with = |placed: &[(Symbol, u32, u32, (u32, u32))], new: [Symbol; 2]| {
        let mut checks = CheckSet::default();
        let guard = checks.push(Check::Confirmed {
            values: vec![arg(path_order_id())],
            call: Vec::new(),
            items: vec![vec![arg(path_item_ids()), arg(path_new_item_ids())]],
        });
        let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
        auth.authorizes = Some(CANCEL);
        let mut request = turn(2, Speaker::Agent, SUMMARY_CUES, &[o1, x1, x2, y1, y2]);
        for m in &mut request.mentions {
            if let Some(&(_, segments, clauses, (first, last))) =
                placed.iter().find(|p| Value::Str(p.0) == m.value)
            {
                m.segments = segments;
                m.clauses = clauses;
                m.first_place = first;
                m.last_place = last;
            }
        }
        let mut write = call(4, CANCEL, o1);
        push_list(&mut write, P_ITEM_IDS, &[x1, x2]);
        push_list(&mut write, P_NEW_ITEM_IDS, &new);
        let case = Case {
            checks: entry_then(auth, checks),
            events: vec![
                call(0, LOOKUP, o1),
                result(1, 0, Some((o1, STATUSES[1])), None),
                request,
                turn(3, Speaker::User, YES_CUES, &[]),
                write,
            ],
            judged: Vec::new(),
        };
        allowed_events(&agreed(&case))
    };
    // Where each of `x1`, `y1`, `x2`, `y2` stands: its segment and clause,
    // and its first and last places (`unknown`: none given, as when no place is known).
    // - "1. x1 -> y1\n2. x2 -> y2": one item per line. A value spelt where
    //   no segment is known may stand beside either (line 2 may name `y1`
    //   with `x2`); a line naming both items' values pairs nothing.
    // - "x1 with y1 and x2 with y2": a clause per item. "x1 and x2 for y1
    //   and y2": the clauses are no items, and without places no order is
    //   read.
    // - The same lists with their places (a clause each): they pair by
    //   order, the second in its own order ("Out: x1, x2" / "In: y2, y1");
    //   lists that interleave, or a value whose place is not known, pair
    //   nothing; after an intro ("You asked about x2 and x1. Out: x1, x2 /
    //   In: y1, y2") each value of the first list stands where it is spelt
    //   last.
    let (n, u) = (UNPLACED_SEGMENT, UNKNOWN_PLACE);
    let lines = [(1, 1), (1, 1), (2, 2), (2, 2)];
    let unplaced = [(1, 1), (n, n), (2, 2), (2, 2)];
    let one_line = [(1, 1); 4];
    let clauses = [(0, 1), (0, 1), (0, 2), (0, 2)];
    let lists = [(0, 1), (0, 2), (0, 2), (0, 4)];
    let own = [(0, 1), (0, 3), (0, 2), (0, 4)];
    let unknown = [(0, 0); 4];
    let listed = [(2, 2), (9, 9), (5, 5), (12, 12)];
    let reversed = [(2, 2), (12, 12), (5, 5), (9, 9)];
    let interleaved = [(2, 2), (12, 12), (9, 9), (5, 5)];
    let not_known = [(u, u), (9, 9), (5, 5), (12, 12)];
    let intro = [(3, 20), (30, 30), (1, 22), (32, 32)];
    let cases = [
        ("lines as laid out", lines, unknown, [y1, y2], true),
        ("lines swapped", lines, unknown, [y2, y1], false),
        ("y1 may stand in line 2", unplaced, unknown, [y2, y1], true),
        ("one line for both", one_line, unknown, [y2, y1], true),
        ("clauses as laid out", clauses, unknown, [y1, y2], true),
        ("clauses swapped", clauses, unknown, [y2, y1], false),
        ("as listed", lists, unknown, [y1, y2], true),
        ("no pairing read", lists, unknown, [y2, y1], true),
        ("in order", own, listed, [y1, y2], true),
        ("against it", own, listed, [y2, y1], false),
        ("reversed", own, reversed, [y2, y1], true),
        ("reversed, against it", own, reversed, [y1, y2], false),
        ("interleaved", own, interleaved, [y1, y2], true),
        ("not known", own, not_known, [y2, y1], true),
        ("after an intro", own, intro, [y1, y2], true),
        ("the intro's order", own, intro, [y2, y1], false),
    ];
    for (label, bits, places, new, allowed) in cases {
        let placed: Vec<_> = [x1, y1, x2, y2]
            .into_iter()
            .zip(bits.into_iter().zip(places))
            .map(|(value, ((segment, clause), at))| (value, segment, clause, at))
            .collect();
        let expected = if allowed { vec![4] } else { Vec::new() };
        assert_eq!(allowed_with(&placed, new), expected, "{label}");
    }
}

#[test]
fn call_step_fires_at_the_first_holding_call_after_its_predecessor() {
    let [o1, o2, _] = IDS;
    let pending = STATUSES[0];
    let mut checks = CheckSet::default();
    let guard = checks.push(Check::All(vec![is_pending(), pinned()]));
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let case = Case {
        checks: chain(
            vec![
                step("entry", Timing::State, None, vec![]),
                step("find", Timing::Result(LOOKUP), None, vec![0]),
                auth,
            ],
            checks,
            &[],
        ),
        events: vec![
            message(0),
            // A call before the predecessor is satisfied does not count.
            call(1, CANCEL, o1),
            call(2, LOOKUP, o1),
            result(3, 2, Some((o1, pending)), Some((1, o1))),
            call(4, CANCEL, o2),
            call(5, CANCEL, o1),
            call(6, CANCEL, o1),
        ],
        judged: Vec::new(),
    };
    let run = agreed(&case);
    assert_eq!(allowed_events(&run), vec![5]);
    assert_eq!(sat_events(&run, 2, env(o1)), vec![5]);
    assert_eq!(
        run.outcomes
            .iter()
            .map(EventOutcome::allowed)
            .collect::<Vec<_>>(),
        vec![
            None,
            Some(false),
            None,
            None,
            Some(false),
            Some(true),
            Some(false)
        ]
    );
}

#[test]
fn binding_step_forks_one_request_per_value() {
    let [o1, o2, _] = IDS;
    let [pending, delivered, _] = STATUSES;
    let mut checks = CheckSet::default();
    let state = checks.push(is_pending());
    let guard = checks.push(pinned());
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let case = Case {
        checks: chain(
            vec![
                step("entry", Timing::State, None, vec![]),
                step("find", Timing::Result(LOOKUP), None, vec![0]),
                step("pending", Timing::State, Some(state), vec![]),
                auth,
            ],
            checks,
            &[],
        ),
        events: vec![
            message(0),
            call(1, LOOKUP, o1),
            result(2, 1, Some((o1, pending)), Some((1, o1))),
            call(3, LOOKUP, o2),
            result(4, 3, Some((o2, delivered)), Some((1, o2))),
            call(5, CANCEL, o2),
            call(6, LOOKUP, o2),
            result(7, 6, Some((o2, pending)), Some((1, o2))),
            call(8, CANCEL, o2),
            call(9, CANCEL, o1),
        ],
        judged: Vec::new(),
    };
    let run = agreed(&case);
    assert_eq!(sat_events(&run, 1, env(o1)), vec![2]);
    // The first bind of each value counts; #O2's re-read at 7 binds no new request.
    assert_eq!(sat_events(&run, 1, env(o2)), vec![4]);
    assert_eq!(sat_events(&run, 2, env(o1)), vec![2]);
    assert_eq!(sat_events(&run, 2, env(o2)), vec![7]);
    assert_eq!(allowed_events(&run), vec![8, 9]);
}

#[test]
fn semantic_step_waits_for_a_verdict_after_its_predecessor() {
    let [o1, _, _] = IDS;
    let mut checks = CheckSet::default();
    let guard = checks.push(pinned());
    let mut confirm = step("confirm", Timing::State, None, vec![]);
    confirm.semantic = true;
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let case = Case {
        checks: chain(
            vec![
                step("entry", Timing::State, None, vec![]),
                step("find", Timing::Result(LOOKUP), None, vec![0]),
                confirm,
                auth,
            ],
            checks,
            &[],
        ),
        events: vec![
            message(0),
            call(1, LOOKUP, o1),
            result(2, 1, None, Some((1, o1))),
            call(3, CANCEL, o1),
            message(4),
            call(5, CANCEL, o1),
        ],
        // The verdict at 0 precedes the predecessor's evidence (2): it does not count.
        judged: vec![
            (StepId(2), RequestPick::Exactly(env(o1)), EventIdx(0)),
            (StepId(2), RequestPick::Exactly(env(o1)), EventIdx(4)),
        ],
    };
    let run = agreed(&case);
    assert_eq!(sat_events(&run, 2, env(o1)), vec![4]);
    assert_eq!(allowed_events(&run), vec![5]);
}

#[test]
fn a_verdict_satisfies_its_step_for_its_request_only() {
    let [o1, o2, _] = IDS;
    let mut checks = CheckSet::default();
    let guard = checks.push(pinned());
    let mut confirm = step("confirm", Timing::State, None, vec![]);
    confirm.semantic = true;
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let case = Case {
        checks: chain(
            vec![
                step("entry", Timing::State, None, vec![]),
                step("find", Timing::Result(LOOKUP), None, vec![0]),
                confirm,
                auth,
            ],
            checks,
            &[],
        ),
        // Two orders wait at the confirmation; the user agrees to #1 only.
        events: vec![
            message(0),
            call(1, LOOKUP, o1),
            result(2, 1, None, Some((1, o1))),
            call(3, LOOKUP, o2),
            result(4, 3, None, Some((3, o2))),
            message(5),
            call(6, CANCEL, o2),
            call(7, CANCEL, o1),
        ],
        judged: vec![(StepId(2), RequestPick::Exactly(env(o1)), EventIdx(5))],
    };
    let run = agreed(&case);
    assert_eq!(sat_events(&run, 2, env(o1)), vec![5]);
    assert!(sat_events(&run, 2, env(o2)).is_empty());
    assert_eq!(allowed_events(&run), vec![7]);
}

#[test]
fn state_step_is_satisfied_again_after_a_re_read() {
    let [o1, _, _] = IDS;
    let [pending, delivered, _] = STATUSES;
    let mut checks = CheckSet::default();
    let state = checks.push(is_pending());
    let guard = checks.push(pinned());
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let case = Case {
        checks: chain(
            vec![
                step("entry", Timing::State, None, vec![]),
                step("find", Timing::Result(LOOKUP), None, vec![0]),
                step("pending", Timing::State, Some(state), vec![]),
                auth,
                step("done", Timing::Result(CANCEL), None, vec![]),
            ],
            checks,
            // After each cancellation the order must be pending again.
            &[(4, 2)],
        ),
        events: vec![
            message(0),
            call(1, LOOKUP, o1),
            result(2, 1, Some((o1, pending)), Some((1, o1))),
            call(3, CANCEL, o1),
            result(4, 3, Some((o1, delivered)), None),
            call(5, CANCEL, o1),
            call(6, LOOKUP, o1),
            result(7, 6, Some((o1, pending)), None),
            call(8, CANCEL, o1),
        ],
        judged: Vec::new(),
    };
    let run = agreed(&case);
    assert_eq!(sat_events(&run, 2, env(o1)), vec![2, 7]);
    assert_eq!(allowed_events(&run), vec![3, 8]);
}

#[test]
fn a_state_step_on_the_clock_is_satisfied_when_the_time_passes_its_bound() {
    let [o1, _, _] = IDS;
    let hour = |h: i64| Some(DateTime(CLOCK_START.0 + h * 3_600));
    let mut checks = CheckSet::default();
    // "At least a day after the order was placed": now() - placed >= 1 day.
    let waited = checks.push(compare(
        CmpOp::Ge,
        Operand::Arith {
            op: ArithOp::Sub,
            lhs: Box::new(Operand::Now),
            rhs: Box::new(field(Operand::Var(VarId(0)), PLACED)),
        },
        Operand::Const(Value::Duration(Duration(Duration::DAY))),
    ));
    let guard = checks.push(pinned());
    let mut auth = step("auth", Timing::Call(CANCEL), Some(guard), vec![]);
    auth.authorizes = Some(CANCEL);
    let mut placed = result(2, 1, None, Some((1, o1)));
    placed.reads.push(Read {
        entity: ORDER,
        id: o1,
        field: PLACED,
        values: vec![Value::DateTime(CLOCK_START)],
        is_list: false,
    });
    let mut events = vec![
        message(0),
        call(1, LOOKUP, o1),
        placed,
        // Messages that are not turns: only the clock moves.
        message(3),
        message(4),
        message(5),
        call(6, CANCEL, o1),
    ];
    for (event, now) in events.iter_mut().zip([
        hour(0),
        hour(1),
        hour(2),
        hour(12),
        None,
        hour(25),
        hour(26),
    ]) {
        event.now = now;
    }
    let case = Case {
        checks: chain(
            vec![
                step("entry", Timing::State, None, vec![]),
                step("find", Timing::Result(LOOKUP), None, vec![0]),
                step("waited", Timing::State, Some(waited), vec![]),
                auth,
            ],
            checks,
            &[],
        ),
        events,
        judged: Vec::new(),
    };
    let run = agreed(&case);
    // Event 4 has no time (a clock that cannot be read): nothing holds on
    // it; the day has passed at event 5.
    assert_eq!(sat_events(&run, 2, env(o1)), vec![5]);
    assert_eq!(allowed_events(&run), vec![6]);
}
