//! The Datalog program (crepe): one fixed, generic rule set whose inputs are
//! the encoded checks, the workflow's steps and the trace facts. It derives
//! where every check holds, where every step is satisfied along valid paths
//! (evidence indices), and which mutating calls were not authorized.
//!
//! Semantics (the reference the incremental monitor is tested against):
//! - The state at event `k` includes every event up to and including `k`;
//!   an attribute's value at `k` comes from the latest read at or before `k`.
//! - A step's criterion is evaluated at its *points*: every call of its tool
//!   (authorizations), every successful result of its tool (reads), or — for
//!   state criteria — event 0 and every tool event, holding until the next
//!   point. A semantic criterion adds "the judge found it at or after the
//!   predecessor's evidence, for this request": a verdict is about one
//!   request (its bindings) and satisfies the step for that request only.
//! - From a predecessor satisfied at `j`, a step is satisfied at the earliest
//!   `k >= j` where its criterion holds, under the request's bindings; a step
//!   that binds a variable forks one request per bound value.
//! - A gated call at `k` is allowed iff its authorization step is satisfied
//!   exactly at `k` on some request.
//! - An agent's call of a protected read tool at `k` is allowed iff some
//!   request `e` satisfied one of its protection's `after` steps at or
//!   before `k`, and the protection's guard (if any) holds at `k` under
//!   `e`'s bindings (all the guard reads bound). The allowing entries are
//!   `(after step, e)`.

use crepe::crepe;

use crate::facts::Speaker;
use crate::intern::Symbol;
use crate::ir::{AggOp, ArithOp, CmpOp, VarId};
use crate::value::{Amount, DateTime, Duration, Value};

use crate::env::Env;

/// Event index meaning "never superseded".
pub const FOREVER: u32 = crate::facts::FOREVER.0;
const SCALAR: u32 = crate::facts::SCALAR;
const UNKNOWN_PLACE: u32 = crate::facts::UNKNOWN_PLACE;

fn pairs(i: u32, j: u32) -> bool {
    i == j || i == SCALAR || j == SCALAR
}

/// Numeric view for cross-type comparison of integers and amounts.
fn as_amount(v: &Value) -> Option<Amount> {
    match v {
        Value::Int(i) => Amount::from_int(*i),
        Value::Amount(a) => Some(*a),
        _ => None,
    }
}

pub fn compare(op: CmpOp, a: &Value, b: &Value) -> bool {
    let ordering = match (a, b) {
        (Value::Int(_) | Value::Amount(_), Value::Int(_) | Value::Amount(_)) => {
            match (as_amount(a), as_amount(b)) {
                (Some(x), Some(y)) => Some(x.cmp(&y)),
                _ => None,
            }
        }
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)).filter(|_| !op.is_ordering()),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)).filter(|_| !op.is_ordering()),
        (Value::Date(x), Value::Date(y)) => Some(x.cmp(y)),
        (Value::DateTime(x), Value::DateTime(y)) => Some(x.cmp(y)),
        // A date against an instant compares calendar days: "within 60
        // days of today" holds all day on the 60th day.
        (Value::Date(x), Value::DateTime(y)) => Some(x.cmp(&y.date())),
        (Value::DateTime(x), Value::Date(y)) => Some(x.date().cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Some(x.cmp(y)),
        _ => None,
    };
    let Some(ordering) = ordering else {
        // Different kinds never compare equal; ordering them is meaningless.
        return op == CmpOp::Ne;
    };
    match op {
        CmpOp::Eq => ordering.is_eq(),
        CmpOp::Ne => ordering.is_ne(),
        CmpOp::Lt => ordering.is_lt(),
        CmpOp::Le => ordering.is_le(),
        CmpOp::Gt => ordering.is_gt(),
        CmpOp::Ge => ordering.is_ge(),
    }
}

fn combine(op: AggOp, acc: Value, next: Value) -> Option<Value> {
    match op {
        AggOp::Sum => arith(ArithOp::Add, acc, next),
        AggOp::Min => Some(if compare(CmpOp::Le, &acc, &next) {
            acc
        } else {
            next
        }),
        AggOp::Max => Some(if compare(CmpOp::Ge, &acc, &next) {
            acc
        } else {
            next
        }),
        AggOp::Count => None,
    }
}

/// Exact arithmetic; `None` on overflow or operands it does not apply to
/// (the check then fails closed). Besides numbers: an instant (a date-time,
/// or a date taken at midnight) plus or minus a duration is an instant, two
/// instants (or two dates) differ by a duration, durations add and scale by
/// an integer.
pub fn arith(op: ArithOp, a: Value, b: Value) -> Option<Value> {
    if let Some(timed) = time_arith(op, a, b) {
        return timed;
    }
    match (op, a, b) {
        (_, Value::Int(x), Value::Int(y)) => match op {
            ArithOp::Add => x.checked_add(y),
            ArithOp::Sub => x.checked_sub(y),
            ArithOp::Mul => x.checked_mul(y),
        }
        .map(Value::Int),
        (ArithOp::Mul, Value::Amount(x), Value::Int(n))
        | (ArithOp::Mul, Value::Int(n), Value::Amount(x)) => {
            x.0.checked_mul(n).map(|v| Value::Amount(Amount(v)))
        }
        (ArithOp::Mul, _, _) => None,
        _ => {
            let (x, y) = (as_amount(&a)?, as_amount(&b)?);
            match op {
                ArithOp::Add => x.0.checked_add(y.0),
                _ => x.0.checked_sub(y.0),
            }
            .map(|v| Value::Amount(Amount(v)))
        }
    }
}

/// The arithmetic of [`arith`] on time values: `None` when neither operand
/// is a time value, `Some(None)` when the operation does not apply or
/// overflows.
fn time_arith(op: ArithOp, a: Value, b: Value) -> Option<Option<Value>> {
    let instant = |v: Value| match v {
        Value::DateTime(t) => Some(t.0),
        Value::Date(d) => Some(DateTime::at_midnight(d).0),
        _ => None,
    };
    let timed = |v: &Value| matches!(v, Value::Date(_) | Value::DateTime(_) | Value::Duration(_));
    if !timed(&a) && !timed(&b) {
        return None;
    }
    let shifted = |t: i64, d: i64, add: bool| {
        if add {
            t.checked_add(d)
        } else {
            t.checked_sub(d)
        }
        .map(|s| Value::DateTime(DateTime(s)))
    };
    Some(match (op, a, b) {
        (ArithOp::Add, Value::Duration(x), Value::Duration(y)) => {
            x.0.checked_add(y.0).map(|s| Value::Duration(Duration(s)))
        }
        (ArithOp::Sub, Value::Duration(x), Value::Duration(y)) => {
            x.0.checked_sub(y.0).map(|s| Value::Duration(Duration(s)))
        }
        (ArithOp::Mul, Value::Duration(x), Value::Int(n))
        | (ArithOp::Mul, Value::Int(n), Value::Duration(x)) => {
            x.0.checked_mul(n).map(|s| Value::Duration(Duration(s)))
        }
        (ArithOp::Add | ArithOp::Sub, t, Value::Duration(d)) => {
            instant(t).and_then(|t| shifted(t, d.0, op == ArithOp::Add))
        }
        (ArithOp::Add, Value::Duration(d), t) => instant(t).and_then(|t| shifted(t, d.0, true)),
        (ArithOp::Sub, x, y) => match (instant(x), instant(y)) {
            (Some(x), Some(y)) => x.checked_sub(y).map(|s| Value::Duration(Duration(s))),
            _ => None,
        },
        _ => None,
    })
}

/// The code of [`crate::ConsentOutcome::Affirmative`] in `ConsentAt` (the
/// revocations are their `Reply::revoke_rank`, 1 to 3).
pub(crate) const CONSENT_AFFIRMATIVE: u8 = 4;
/// The code in `ConsentAt` of a yes to a request naming another record in
/// place of the call's: a refusal of the call, like the reply rank
/// `Reply::Refuses`.
pub(crate) const CONSENT_CONTRADICTED: u8 = crate::facts::Reply::Refuses.revoke_rank();
/// The rank of a withdrawal among the revocations: a reply before the yes
/// revokes it only from this rank on (below it, a pause the yes answers).
pub(crate) const WITHDRAWAL_RANK: u8 = crate::facts::Reply::Withdraws.revoke_rank();
/// The rank of a refusal.
pub(crate) const REFUSAL_RANK: u8 = crate::facts::Reply::Refuses.revoke_rank();
/// The code of [`crate::ConsentOutcome::Absent`] in `ConsentAt`.
pub(crate) const CONSENT_ABSENT: u8 = 0;
/// The turn of an absent consent no request for a decision asked for.
pub(crate) const NO_TURN: u32 = u32::MAX;

crepe! {
    // ---- encoded checks ----
    @input pub struct IEvalAt(pub u32, pub u32, pub Env);
    @input pub struct ICAnd(pub u32, pub u32, pub u32);
    @input pub struct ICOr(pub u32, pub u32, pub u32);
    @input pub struct ICTrue(pub u32);
    @input pub struct ICCmp(pub u32, pub CmpOp, pub u32, pub u32, pub bool);
    @input pub struct ICIn(pub u32, pub u32, pub u32, pub bool);
    @input pub struct ISetMember(pub u32, pub u32);
    @input pub struct ICContains(pub u32, pub u32, pub u32, pub bool);
    @input pub struct ICHappened(pub u32, pub u32, pub bool);
    @input pub struct ICSaid(pub u32, pub Speaker, pub u32, pub bool);
    @input pub struct ICConfirmed(pub u32, pub u32, pub bool);
    @input pub struct ICConfirmedCall(pub u32, pub u32);
    // `(node, group, operand)`: a field of one of the call's lists of items
    // (`Check::Confirmed`'s `items`; the group is the set of its fields).
    @input pub struct ICItemField(pub u32, pub u32, pub u32);
    @input pub struct IOConst(pub u32, pub Value);
    @input pub struct IOVar(pub u32, pub VarId);
    @input pub struct IOArg(pub u32, pub u32);
    @input pub struct IOField(pub u32, pub Symbol, pub u32, pub Symbol);
    @input pub struct IOAgg(pub u32, pub AggOp, pub u32, pub Value);
    @input pub struct IOCount(pub u32, pub u32, pub u32);
    @input pub struct IOArith(pub u32, pub ArithOp, pub u32, pub u32);
    @input pub struct IOCountEq(pub u32, pub u32, pub u32);
    @input pub struct IONow(pub u32);
    @input pub struct IFCons(pub u32, pub u32, pub CmpOp, pub u32);
    @input pub struct IFilterEv(pub u32, pub u32, pub u32, pub Value);
    @input pub struct IFilterKeyOp(pub u32, pub u32);
    @input pub struct IFilterKeyed(pub u32);
    // ---- trace facts ----
    @input pub struct ICall(pub u32, pub Symbol, pub bool);
    @input pub struct IResult(pub u32, pub u32, pub bool);
    @input pub struct IArgsOf(pub u32, pub u32);
    @input pub struct IAttr(pub Symbol, pub Symbol, pub Symbol, pub u32, pub Value, pub u32, pub u32);
    @input pub struct IAttrLen(pub Symbol, pub Symbol, pub Symbol, pub u32, pub u32, pub u32);
    @input pub struct IArg(pub u32, pub u32, pub u32, pub Value);
    @input pub struct IArgLen(pub u32, pub u32, pub u32);
    @input pub struct ICountV(pub u32, pub Value, pub u32, pub u32, pub u32);
    // The time of each event that has one (the session's clock).
    @input pub struct INow(pub u32, pub Value);
    // ---- conversation turns (cues decided by code at extraction) ----
    @input pub struct IMention(pub Value, pub u32, pub Speaker);
    // A mention counts for `said` from its turn until the user next
    // disowns the value (FOREVER when never).
    @input pub struct ISaid(pub Value, pub u32, pub Speaker, pub u32);
    @input pub struct IRecord(pub Value);
    // A literal of the bundle's enum (`LiteralFact`).
    @input pub struct ILiteral(pub Value, pub Symbol);
    @input pub struct IActionWord(pub Value);
    @input pub struct IInAnswer(pub Value, pub u32);
    @input pub struct IDeclined(pub Value, pub u32);
    // An agent turn of several segments spells the value in the segment
    // (`MentionFact::segments`): `(value, event, segment)`.
    @input pub struct ISegment(pub Value, pub u32, pub u32);
    // An agent turn of several clauses spells the value in the clause
    // (`MentionFact::clauses`): `(value, event, clause)`.
    @input pub struct IClause(pub Value, pub u32, pub u32);
    // An agent turn of several segments or clauses spells the value where
    // none is known.
    @input pub struct IUnplaced(pub Value, pub u32);
    // An agent turn of several clauses spells the value first or last at
    // the place (`MentionFact::first_place`, `MentionFact::last_place`):
    // `(value, event, place)`.
    @input pub struct IPlace(pub Value, pub u32, pub u32);
    // The request at the event names the value as a record's of the
    // entity type it also names (`HeldFact`): `(value, event, type, record)`.
    @input pub struct IHeld(pub Value, pub u32, pub Symbol, pub Value);
    // The user's reply at the event picked another option than the value
    // (`PassedOverFact`).
    @input pub struct IPassedOver(pub Value, pub u32);
    // The user's reply at the event picked none of the options a question
    // offered beside the value.
    @input pub struct IUnpicked(pub Value, pub u32);
    @input pub struct IAskTurn(pub u32);
    @input pub struct IWeighs(pub u32);
    @input pub struct IAsksAny(pub u32);
    @input pub struct IAffirm(pub u32);
    @input pub struct IRevoke(pub u32, pub u8);
    @input pub struct ICorrect(pub u32);
    // A user turn correcting what the user said before to a yes.
    @input pub struct IRetract(pub u32);
    // A user turn whose yes answers the things a request laid out one by
    // one (`TurnFact::by_item`).
    @input pub struct IByItem(pub u32);
    // ---- workflow ----
    @input pub struct IStepRoot(pub u32, pub u32);
    @input pub struct IStepPt(pub u32, pub Env, pub u32);
    @input pub struct INextPt(pub u32, pub Env, pub u32, pub u32);
    @input pub struct IFirstPt(pub u32, pub Env, pub u32);
    @input pub struct ILastPt(pub u32, pub Env, pub u32);
    @input pub struct ITrivial(pub u32);
    @input pub struct IStepKeyMask(pub u32, pub u32);
    @input pub struct INextJudged(pub u32, pub Env, pub u32, pub u32);
    @input pub struct IStepIsState(pub u32);
    @input pub struct IStepBinds(pub u32, pub u32);
    @input pub struct ISemantic(pub u32);
    @input pub struct IEdge(pub u32, pub u32);
    @input pub struct ISeed(pub u32, pub Env, pub u32);
    @input pub struct IAuth(pub u32, pub Symbol);
    @input pub struct IGated(pub Symbol);
    // Protected reads: protection `p` protects a tool, opens after a step,
    // and has a guard (its root and the variables it reads) or none.
    @input pub struct IProtect(pub u32, pub Symbol);
    @input pub struct IProtAfter(pub u32, pub u32);
    @input pub struct IProtGuard(pub u32, pub u32, pub u32);
    @input pub struct IProtNoGuard(pub u32);

    // ---- demand: which (node, event, env) to evaluate ----
    struct Eval(u32, u32, Env);
    struct Need(u32, u32, Env);
    struct NeedFilter(u32, u32, Env);
    Eval(c, k, e) <- IEvalAt(c, k, e);
    Eval(l, k, e) <- Eval(c, k, e), ICAnd(c, l, _);
    Eval(r, k, e) <- Eval(c, k, e), ICAnd(c, _, r);
    Eval(l, k, e) <- Eval(c, k, e), ICOr(c, l, _);
    Eval(r, k, e) <- Eval(c, k, e), ICOr(c, _, r);
    Need(l, k, e) <- Eval(c, k, e), ICCmp(c, _, l, _, _);
    Need(r, k, e) <- Eval(c, k, e), ICCmp(c, _, _, r, _);
    Need(o, k, e) <- Eval(c, k, e), ICIn(c, o, _, _);
    Need(m, k, e) <- Eval(c, k, e), ICIn(c, _, s, _), ISetMember(s, m);
    Need(i, k, e) <- Eval(c, k, e), ICContains(c, i, _, _);
    Need(l, k, e) <- Eval(c, k, e), ICContains(c, _, l, _);
    NeedFilter(f, k, e) <- Eval(c, k, e), ICHappened(c, f, _);
    Need(o, k, e) <- Eval(c, k, e), ICSaid(c, _, o, _);
    Need(m, k, e) <- Eval(c, k, e), ICConfirmed(c, s, _), ISetMember(s, m);
    Need(m, k, e) <- Eval(c, k, e), ICConfirmedCall(c, s), ISetMember(s, m);
    Need(m, k, e) <- Eval(c, k, e), ICItemField(c, _, m);
    Need(i, k, e) <- Need(o, k, e), IOField(o, _, i, _);
    Need(i, k, e) <- Need(o, k, e), IOAgg(o, _, i, _);
    Need(key, k, e) <- Need(o, k, e), IOCount(o, _, key);
    Need(i, k, e) <- Need(o, k, e), IOCountEq(o, i, _);
    Need(t, k, e) <- Need(o, k, e), IOCountEq(o, _, t);
    Need(l, k, e) <- Need(o, k, e), IOArith(o, _, l, _);
    Need(r, k, e) <- Need(o, k, e), IOArith(o, _, _, r);

    // ---- operand values ----
    @output pub struct Val(pub u32, pub u32, pub Env, pub u32, pub Value);
    struct Len(u32, u32, Env, u32);
    @output pub struct FieldSrc(pub u32, pub u32, pub Env, pub u32);
    struct Fold(u32, u32, Env, u32, Value);
    Val(o, k, e, SCALAR, v) <- Need(o, k, e), IOConst(o, v);
    Val(o, k, e, SCALAR, t) <- Need(o, k, e), IONow(o), INow(k, t);
    Val(o, k, e, SCALAR, Value::Str(s)) <- Need(o, k, e), IOVar(o, var), let Some(s) = e.get(var);
    Val(o, k, e, el, v) <- Need(o, k, e), IOArg(o, p), IArgsOf(k, c), IArg(c, p, el, v);
    Len(o, k, e, n) <- Need(o, k, e), IOArg(o, p), IArgsOf(k, c), IArgLen(c, p, n);
    Val(o, k, e, el, v) <- Need(o, k, e), IOField(o, ent, i, f), Val(i, k, e, SCALAR, idv), let Value::Str(id) = idv,
        IAttr(ent, id, f, el, v, from, until), (from <= k && k < until);
    Len(o, k, e, n) <- Need(o, k, e), IOField(o, ent, i, f), Val(i, k, e, SCALAR, idv), let Value::Str(id) = idv,
        IAttrLen(ent, id, f, n, from, until), (from <= k && k < until);
    FieldSrc(o, k, e, from) <- Need(o, k, e), IOField(o, ent, i, f), Val(i, k, e, SCALAR, idv), let Value::Str(id) = idv,
        IAttr(ent, id, f, _, _, from, until), (from <= k && k < until);
    // A field of a list of ids is a list, element by element.
    Val(o, k, e, el, v) <- Need(o, k, e), IOField(o, ent, i, f), Val(i, k, e, el, idv), (el != SCALAR), let Value::Str(id) = idv,
        IAttr(ent, id, f, SCALAR, v, from, until), (from <= k && k < until);
    Len(o, k, e, n) <- Need(o, k, e), IOField(o, _, i, _), Len(i, k, e, n);
    Fold(o, k, e, 0, v) <- Need(o, k, e), IOAgg(o, op, i, _), (op != AggOp::Count), Val(i, k, e, 0, v);
    Fold(o, k, e, n + 1, acc2) <- Fold(o, k, e, n, acc), IOAgg(o, op, i, _), Val(i, k, e, n + 1, v),
        let Some(acc2) = combine(op, acc, v);
    Val(o, k, e, SCALAR, acc) <- Fold(o, k, e, n, acc), IOAgg(o, _, i, _), Len(i, k, e, len), (n + 1 == len);
    Val(o, k, e, SCALAR, zero) <- Need(o, k, e), IOAgg(o, AggOp::Sum, i, zero), Len(i, k, e, 0);
    Val(o, k, e, SCALAR, Value::Int(i64::from(n))) <- Need(o, k, e), IOAgg(o, AggOp::Count, i, _), Len(i, k, e, n);
    Val(o, k, e, SCALAR, Value::Int(i64::from(n))) <- Need(o, k, e), IOCount(o, f, key), Val(key, k, e, SCALAR, kv),
        ICountV(f, kv, n, from, until), (from <= k && k < until);
    struct CountFold(u32, u32, Env, u32, u32);
    CountFold(o, k, e, 0, u32::from(compare(CmpOp::Eq, &v, &t))) <- Need(o, k, e), IOCountEq(o, i, to), Val(to, k, e, SCALAR, t),
        Val(i, k, e, 0, v);
    CountFold(o, k, e, n + 1, c + u32::from(compare(CmpOp::Eq, &v, &t))) <- CountFold(o, k, e, n, c), IOCountEq(o, i, to),
        Val(to, k, e, SCALAR, t), Val(i, k, e, n + 1, v);
    Val(o, k, e, SCALAR, Value::Int(i64::from(c))) <- CountFold(o, k, e, n, c), IOCountEq(o, i, _), Len(i, k, e, len),
        (n + 1 == len);
    Val(o, k, e, SCALAR, Value::Int(0)) <- Need(o, k, e), IOCountEq(o, i, _), Len(i, k, e, 0);
    Val(o, k, e, SCALAR, x) <- Need(o, k, e), IOArith(o, op, l, r), Val(l, k, e, SCALAR, a), Val(r, k, e, SCALAR, b),
        let Some(x) = arith(op, a, b);
    @output pub struct Present(pub u32, pub u32, pub Env);
    struct HasElem(u32, u32, Env, u32);
    struct ElemMissing(u32, u32, Env);
    Present(o, k, e) <- Val(o, k, e, SCALAR, _);
    Present(o, k, e) <- Len(o, k, e, _);
    HasElem(o, k, e, el) <- Val(o, k, e, el, _), (el != SCALAR);
    ElemMissing(o, k, e) <- Len(o, k, e, n), for el in 0..n, !HasElem(o, k, e, el);

    // ---- atoms ----
    struct CmpReady(u32, u32, Env);
    struct CmpFail(u32, u32, Env);
    CmpReady(c, k, e) <- Eval(c, k, e), ICCmp(c, _, l, r, _), Present(l, k, e), Present(r, k, e),
        !ElemMissing(l, k, e), !ElemMissing(r, k, e);
    CmpFail(c, k, e) <- CmpReady(c, k, e), ICCmp(c, op, l, r, _), Val(l, k, e, i, a), Val(r, k, e, j, b),
        (pairs(i, j)), (!compare(op, &a, &b));
    CmpFail(c, k, e) <- CmpReady(c, k, e), ICCmp(c, _, l, r, _), Len(l, k, e, n), Len(r, k, e, m), (n != m);
    struct InSetVal(u32, u32, Env, Value);
    struct InFail(u32, u32, Env);
    InSetVal(s, k, e, v) <- Eval(c, k, e), ICIn(c, _, s, _), ISetMember(s, m), Val(m, k, e, _, v);
    InFail(c, k, e) <- Eval(c, k, e), ICIn(c, o, s, _), Val(o, k, e, _, v), !InSetVal(s, k, e, v);
    struct ListHas(u32, u32, Env, Value);
    struct ContainsFail(u32, u32, Env);
    ListHas(l, k, e, v) <- Eval(c, k, e), ICContains(c, _, l, _), Val(l, k, e, el, v), (el != SCALAR);
    ContainsFail(c, k, e) <- Eval(c, k, e), ICContains(c, i, l, _), Val(i, k, e, _, v), !ListHas(l, k, e, v);
    // Event predicates compare past calls' arguments with variables or
    // constants (the compiler enforces it), so matching does not depend on
    // the decision point: match once per (filter, env).
    // `IFilterEv(f, ev, call, key)`: event `ev` has the filter's tool and
    // outcome, and `key` is its argument under the filter's first `==`
    // constraint (`true` when there is none), so a request finds its
    // matching events by key instead of scanning every call of the tool.
    struct FilterKey(u32, Env);
    FilterKey(f, e) <- NeedFilter(f, _, e);
    struct KeyVal(u32, Env, Value);
    KeyVal(o, e, v) <- FilterKey(f, e), IFCons(f, _, _, o), IOConst(o, v);
    KeyVal(o, e, Value::Str(s)) <- FilterKey(f, e), IFCons(f, _, _, o), IOVar(o, var), let Some(s) = e.get(var);
    struct KeyReady(u32, Env, u32);
    KeyReady(f, e, o) <- FilterKey(f, e), IFCons(f, _, _, o), KeyVal(o, e, _);
    struct ConsNotReady(u32, Env);
    ConsNotReady(f, e) <- FilterKey(f, e), IFCons(f, _, _, o), !KeyReady(f, e, o);
    struct Candidate(u32, Env, u32, u32);
    Candidate(f, e, ev, c) <- FilterKey(f, e), IFilterKeyOp(f, o), KeyVal(o, e, kv), IFilterEv(f, ev, c, kv);
    Candidate(f, e, ev, c) <- FilterKey(f, e), !IFilterKeyed(f), IFilterEv(f, ev, c, _);
    struct HasArg(u32, u32);
    HasArg(c, p) <- IArg(c, p, _, _);
    struct MatchFails(u32, Env, u32);
    MatchFails(f, e, ev) <- Candidate(f, e, ev, c), IFCons(f, p, op, o), KeyVal(o, e, b), IArg(c, p, _, a),
        (!compare(op, &a, &b));
    MatchFails(f, e, ev) <- Candidate(f, e, ev, c), IFCons(f, p, _, _), !HasArg(c, p);
    struct Matched(u32, Env, u32);
    Matched(f, e, ev) <- Candidate(f, e, ev, _), !MatchFails(f, e, ev);
    struct AnyHappened(u32, u32, Env);
    AnyHappened(f, k, e) <- NeedFilter(f, k, e), Matched(f, e, ev), (ev <= k);

    // ---- dialogue predicates ----
    // said(speaker, x): every value of x is named in a turn of the speaker at
    // or before k, and (the user's) not disowned since.
    struct SaidHas(u32, u32, Env, Value);
    SaidHas(c, k, e, v) <- Eval(c, k, e), ICSaid(c, sp, o, _), Val(o, k, e, _, v),
        ISaid(v, ev, sp, until), (ev <= k && k < until);
    struct SaidFail(u32, u32, Env);
    SaidFail(c, k, e) <- Eval(c, k, e), ICSaid(c, _, o, _), Val(o, k, e, _, v), !SaidHas(c, k, e, v);
    // confirmed(x, ...): the summary is the latest agent turn at or before k
    // that asks for a decision and names every value; the first user yes
    // after it, before any later agent question, confirms it, unless a user
    // turn after the summary revokes, or one after the yes corrects. A yes
    // naming some of the summary's records but not every key record does
    // not count.
    struct ConfNotReady(u32, u32, Env);
    ConfNotReady(c, k, e) <- Eval(c, k, e), ICConfirmed(c, s, _), ISetMember(s, m), !Present(m, k, e);
    ConfNotReady(c, k, e) <- Eval(c, k, e), ICConfirmed(c, s, _), ISetMember(s, m), ElemMissing(m, k, e);
    struct ConfReady(u32, u32, Env);
    ConfReady(c, k, e) <- Eval(c, k, e), ICConfirmed(c, _, _), !ConfNotReady(c, k, e);
    struct ConfVal(u32, u32, Env, Value);
    ConfVal(c, k, e, v) <- Eval(c, k, e), ICConfirmed(c, s, _), ISetMember(s, m), Val(m, k, e, _, v);
    struct NotSummary(u32, u32, Env, u32);
    NotSummary(c, k, e, a) <- ConfReady(c, k, e), IAskTurn(a), (a <= k), ConfVal(c, k, e, v),
        !IMention(v, a, Speaker::Agent);
    NotSummary(c, k, e, a) <- ConfReady(c, k, e), IAskTurn(a), (a <= k), ConfVal(c, k, e, v),
        IDeclined(v, a);
    // Consent covers the whole call: a request naming, in place of one of
    // the call's other arguments (`ICConfirmedCall`), another record or
    // literal of its kind (as `Rivalled` below) that the call does not
    // carry states another call.
    struct CallVal(u32, u32, Env, Value);
    CallVal(c, k, e, v) <- ConfReady(c, k, e), ICConfirmedCall(c, s), ISetMember(s, m),
        Val(m, k, e, _, v), !ConfVal(c, k, e, v);
    // A value an agent turn names as more than a description or a thing
    // set aside.
    struct AgentNamed(Value, u32);
    AgentNamed(v, a) <- IMention(v, a, Speaker::Agent), !IDeclined(v, a);
    // A value the request names as another named record's, of a type the
    // call's values are of, is that record's detail, no rival of the call's.
    struct CallOfType(u32, u32, Env, Symbol);
    CallOfType(c, k, e, t) <- ConfVal(c, k, e, v), let Value::Str(vs) = v, EntityRead(t, vs, rv), (rv <= k);
    CallOfType(c, k, e, t) <- CallVal(c, k, e, v), let Value::Str(vs) = v, EntityRead(t, vs, rv), (rv <= k);
    struct HeldElsewhere(u32, u32, Env, u32, Value);
    HeldElsewhere(c, k, e, a, w) <- IHeld(w, a, t, r), CallOfType(c, k, e, t),
        !ConfVal(c, k, e, r), !CallVal(c, k, e, r);
    struct CallRival(u32, u32, Env, u32, Value);
    CallRival(c, k, e, a, v) <- CallVal(c, k, e, v), IAskTurn(a), (a <= k),
        !AgentNamed(v, a), IMention(w, a, Speaker::Agent), !IDeclined(w, a),
        !ConfVal(c, k, e, w), !CallVal(c, k, e, w), !HeldElsewhere(c, k, e, a, w),
        IRecord(v), IMention(v, ev, _), (ev <= k), IRecord(w);
    CallRival(c, k, e, a, v) <- CallVal(c, k, e, v), let Value::Str(vs) = v,
        EntityRead(t, vs, rv), (rv <= k), IAskTurn(a), (a <= k),
        !AgentNamed(v, a), IMention(w, a, Speaker::Agent), !IDeclined(w, a),
        !ConfVal(c, k, e, w), !CallVal(c, k, e, w), !HeldElsewhere(c, k, e, a, w),
        let Value::Str(ws) = w, EntityRead(t, ws, rw), (rw <= k);
    CallRival(c, k, e, a, v) <- CallVal(c, k, e, v), ILiteral(v, set), IAskTurn(a), (a <= k),
        !AgentNamed(v, a), IMention(w, a, Speaker::Agent), !IDeclined(w, a),
        !ConfVal(c, k, e, w), !CallVal(c, k, e, w), !HeldElsewhere(c, k, e, a, w),
        ILiteral(w, set);
    NotSummary(c, k, e, a) <- CallRival(c, k, e, a, _);
    // Which item goes with which: a request laying out the call's items
    // segment by segment pairs, in one segment, one field's value of item
    // `i` with another field's value of item `j`, naming neither the first
    // field's value of `j` nor the second's of `i` there: it states
    // another call. (Fields of one list are as long as each other; a value
    // spelt where no segment is known may stand in any.)
    struct ItemVal(u32, u32, Env, u32, u32, u32, Value);
    ItemVal(c, k, e, g, m, i, v) <- ConfReady(c, k, e), ICItemField(c, g, m), Val(m, k, e, i, v),
        (i != SCALAR);
    struct ItemLen(u32, u32, Env, u32, u32, u32);
    ItemLen(c, k, e, g, m, n) <- ConfReady(c, k, e), ICItemField(c, g, m), Len(m, k, e, n);
    struct MixedItems(u32, u32, Env, u32);
    MixedItems(c, k, e, a) <- ItemVal(c, k, e, g, f, i, x), ISegment(x, a, s), IAskTurn(a), (a <= k),
        AgentNamed(x, a), ItemVal(c, k, e, g, h, j, y), (f != h && i != j), ISegment(y, a, s),
        AgentNamed(y, a),
        ItemLen(c, k, e, g, f, n), ItemLen(c, k, e, g, h, n),
        ItemVal(c, k, e, g, f, j, x2), !ISegment(x2, a, s), !IUnplaced(x2, a),
        ItemVal(c, k, e, g, h, i, y2), !ISegment(y2, a, s), !IUnplaced(y2, a);
    NotSummary(c, k, e, a) <- MixedItems(c, k, e, a);
    // Clauses likewise, when every clause naming a value of the list names
    // values of two of its fields.
    struct ClauseField(u32, u32, Env, u32, u32, u32, u32);
    ClauseField(c, k, e, g, a, cl, f) <- ItemVal(c, k, e, g, f, _, v), IClause(v, a, cl),
        AgentNamed(v, a);
    struct ClauseHasOther(u32, u32, Env, u32, u32, u32, u32);
    ClauseHasOther(c, k, e, g, a, cl, f) <- ClauseField(c, k, e, g, a, cl, f),
        ClauseField(c, k, e, g, a, cl, h), (f != h);
    struct NotItemised(u32, u32, Env, u32, u32);
    NotItemised(c, k, e, g, a) <- ClauseField(c, k, e, g, a, cl, f),
        !ClauseHasOther(c, k, e, g, a, cl, f);
    MixedItems(c, k, e, a) <- ItemVal(c, k, e, g, f, i, x), IClause(x, a, s), IAskTurn(a), (a <= k),
        AgentNamed(x, a), ItemVal(c, k, e, g, h, j, y), (f != h && i != j), IClause(y, a, s),
        AgentNamed(y, a),
        ItemLen(c, k, e, g, f, n), ItemLen(c, k, e, g, h, n),
        ItemVal(c, k, e, g, f, j, x2), !IClause(x2, a, s), !IUnplaced(x2, a),
        ItemVal(c, k, e, g, h, i, y2), !IClause(y2, a, s), !IUnplaced(y2, a),
        !NotItemised(c, k, e, g, a);
    // Two lists laid out one after the other pair by their order: where
    // every value of two fields is named at known places, one field's
    // values all before the other's, and items `i` and `j` stand in one
    // order in the first list (by their last places) and in the other
    // order in the second (by their first places).
    struct PlaceUnknown(Value, u32);
    PlaceUnknown(v, a) <- IPlace(v, a, UNKNOWN_PLACE);
    struct PlacedEarlier(Value, u32, u32);
    PlacedEarlier(v, a, p) <- IPlace(v, a, p), IPlace(v, a, q), (q < p);
    struct PlacedLater(Value, u32, u32);
    PlacedLater(v, a, p) <- IPlace(v, a, p), IPlace(v, a, q), (p < q);
    struct Placed(Value, u32, u32, u32);
    Placed(v, a, p, q) <- IPlace(v, a, p), !PlacedEarlier(v, a, p), IPlace(v, a, q),
        !PlacedLater(v, a, q), !PlaceUnknown(v, a), AgentNamed(v, a);
    struct PlacedAt(Value, u32);
    PlacedAt(v, a) <- Placed(v, a, _, _);
    struct ItemPlace(u32, u32, Env, u32, u32, u32, u32, u32, u32);
    ItemPlace(c, k, e, g, a, f, i, p, q) <- ItemVal(c, k, e, g, f, i, v), Placed(v, a, p, q),
        IAskTurn(a), (a <= k);
    struct Unordered(u32, u32, Env, u32, u32, u32);
    Unordered(c, k, e, g, a, f) <- ItemPlace(c, k, e, g, a, _, _, _, _),
        ItemVal(c, k, e, g, f, _, v), !PlacedAt(v, a);
    struct NotBefore(u32, u32, Env, u32, u32, u32, u32);
    NotBefore(c, k, e, g, a, f, h) <- ItemPlace(c, k, e, g, a, f, _, _, p),
        ItemPlace(c, k, e, g, a, h, _, q, _), (f != h && p >= q);
    MixedItems(c, k, e, a) <- ItemPlace(c, k, e, g, a, f, i, _, pi),
        ItemPlace(c, k, e, g, a, f, j, _, pj), (pi < pj),
        ItemPlace(c, k, e, g, a, h, i, qi, _), ItemPlace(c, k, e, g, a, h, j, qj, _),
        (f != h && qj < qi),
        ItemLen(c, k, e, g, f, n), ItemLen(c, k, e, g, h, n),
        !NotBefore(c, k, e, g, a, f, h), !Unordered(c, k, e, g, a, f),
        !Unordered(c, k, e, g, a, h);
    struct SummaryAt(u32, u32, Env, u32);
    SummaryAt(c, k, e, a) <- ConfReady(c, k, e), IAskTurn(a), (a <= k), !NotSummary(c, k, e, a);
    struct LaterSummary(u32, u32, Env, u32);
    LaterSummary(c, k, e, a) <- SummaryAt(c, k, e, a), SummaryAt(c, k, e, b), (a < b);
    struct Summary(u32, u32, Env, u32);
    Summary(c, k, e, a) <- SummaryAt(c, k, e, a), !LaterSummary(c, k, e, a);
    struct WindowClosed(u32, u32);
    WindowClosed(a, u) <- IAskTurn(a), IAffirm(u), (a < u), IAsksAny(q), (a < q && q < u);
    // A yes whose answer names a record the summary named, of the kind of a
    // key record it does not name, is a yes to the records it names, not to
    // these values. Kinds: order-like record ids (IRecord), and the ids of
    // one entity type read by k.
    struct AnsweredRecord(u32, u32, Env, u32, Value);
    AnsweredRecord(c, k, e, u, w) <- Summary(c, k, e, a), IAffirm(u), (a < u && u <= k),
        IInAnswer(w, u), IMention(w, a, Speaker::Agent);
    struct MissedKey(u32, u32, Env, u32, Value);
    MissedKey(c, k, e, u, v) <- AnsweredRecord(c, k, e, u, _), ConfVal(c, k, e, v), !IInAnswer(v, u);
    struct NamesOtherRecords(u32, u32, Env, u32);
    NamesOtherRecords(c, k, e, u) <- MissedKey(c, k, e, u, v), IRecord(v),
        AnsweredRecord(c, k, e, u, w), IRecord(w);
    NamesOtherRecords(c, k, e, u) <- MissedKey(c, k, e, u, v), IActionWord(v),
        AnsweredRecord(c, k, e, u, w), IActionWord(w);
    NamesOtherRecords(c, k, e, u) <- MissedKey(c, k, e, u, v), let Value::Str(vs) = v,
        EntityRead(t, vs, rv), (rv <= k),
        AnsweredRecord(c, k, e, u, w), let Value::Str(ws) = w,
        EntityRead(t, ws, rw), (rw <= k);
    struct EntityRead(Symbol, Symbol, u32);
    EntityRead(t, i, from) <- IAttr(t, i, _, _, _, from, _);
    EntityRead(t, i, from) <- IAttrLen(t, i, _, _, from, _);
    // A yes picking none of the options a question offered beside one of
    // the values ("30 or 90 tablets?" → "yes") confirms none of them.
    struct PicksNone(u32, u32, Env, u32);
    PicksNone(c, k, e, u) <- ConfVal(c, k, e, v), IUnpicked(v, u), (u <= k);
    // A yes given item by item ("jira: yes / confluence: no") is a yes only
    // to a call carrying a value its answer names, other than the action
    // ("Amex: yes, freeze it" names the freeze of every card).
    struct AnswersItsItem(u32, u32, Env, u32);
    AnswersItsItem(c, k, e, u) <- ConfVal(c, k, e, v), IInAnswer(v, u), !IActionWord(v);
    struct MissesItsItem(u32, u32, Env, u32);
    MissesItsItem(c, k, e, u) <- Summary(c, k, e, a), IByItem(u), (a < u && u <= k),
        !AnswersItsItem(c, k, e, u);
    struct YesTo(u32, u32, Env, u32);
    YesTo(c, k, e, u) <- Summary(c, k, e, a), IAffirm(u), (a < u && u <= k), !WindowClosed(a, u),
        !NamesOtherRecords(c, k, e, u), !PicksNone(c, k, e, u), !MissesItsItem(c, k, e, u);
    struct HasYes(u32, u32, Env);
    HasYes(c, k, e) <- YesTo(c, k, e, _);
    struct LaterYes(u32, u32, Env, u32);
    LaterYes(c, k, e, u) <- YesTo(c, k, e, u), YesTo(c, k, e, w), (w < u);
    struct FirstYes(u32, u32, Env, u32);
    FirstYes(c, k, e, u) <- YesTo(c, k, e, u), !LaterYes(c, k, e, u);
    // A reply after the summary that takes consent away, with its rank
    // (`Reply::revoke_rank`: qualifies 1, withdraws 2, refuses 3); a
    // correction after the first yes qualifies.
    // A qualification before the first yes, naming no action (one naming
    // an action may propose another), is a pause the yes answers ("hold
    // on, let me check" … "ok, go ahead").
    struct Paused(u32, u32, Env, u32);
    Paused(c, k, e, w) <- FirstYes(c, k, e, u), IRevoke(w, rank),
        (w < u && rank < WITHDRAWAL_RANK), !ICorrect(w);
    struct RevokedAt(u32, u32, Env, u32, u8);
    RevokedAt(c, k, e, w, rank) <- Summary(c, k, e, a), IRevoke(w, rank), (a < w && w <= k),
        !Paused(c, k, e, w);
    RevokedAt(c, k, e, w, 1) <- FirstYes(c, k, e, u), ICorrect(w), (u < w && w <= k);
    // A reply after the summary picking another option a question offered
    // in place of one of the values ("30 or 90?" → "30") refuses the call.
    RevokedAt(c, k, e, w, REFUSAL_RANK) <- Summary(c, k, e, a), ConfVal(c, k, e, v),
        IPassedOver(v, w), (a < w && w <= k);
    // A yes to the summary correcting what the user said before ("No —
    // sorry, misread. Yes, go ahead"; `IRetract`), in its window and naming
    // no other record, takes back every revocation before it.
    struct Retraction(u32, u32, Env, u32);
    Retraction(c, k, e, u) <- Summary(c, k, e, a), IRetract(u), IAffirm(u), (a < u && u <= k),
        !WindowClosed(a, u), !NamesOtherRecords(c, k, e, u), !PicksNone(c, k, e, u),
        !MissesItsItem(c, k, e, u);
    struct TakenBack(u32, u32, Env, u32);
    TakenBack(c, k, e, w) <- RevokedAt(c, k, e, w, _), Retraction(c, k, e, u), (w < u);
    struct Revoked(u32, u32, Env, u32, u8);
    Revoked(c, k, e, w, rank) <- RevokedAt(c, k, e, w, rank), !TakenBack(c, k, e, w);
    struct Withdrawn(u32, u32, Env);
    Withdrawn(c, k, e) <- Revoked(c, k, e, _, _);
    // The outcome of confirmed(...) (code `CONSENT_*`): the strongest
    // revocation at its first turn, else the first yes, else absent at the
    // summary (at `NO_TURN` without one).
    struct Outranked(u32, u32, Env, u8);
    Outranked(c, k, e, rank) <- Revoked(c, k, e, _, rank), Revoked(c, k, e, _, other), (other > rank);
    struct LaterRevoke(u32, u32, Env, u32, u8);
    LaterRevoke(c, k, e, w, rank) <- Revoked(c, k, e, w, rank), Revoked(c, k, e, v, rank), (v < w);
    struct HasSummary(u32, u32, Env);
    HasSummary(c, k, e) <- Summary(c, k, e, _);
    // A request after the summary (any, without one) that names some of
    // the values and, in place of each it does not name, another record of
    // that value's kind — an order-like id named by k, an id of the same
    // entity type read by k, or another literal of the same enum — and
    // weighs no several actions (`IWeighs`)
    // proposes the call with another record: a yes to it, in its window and
    // naming none of the values it left out (naming what it named repeats
    // it), refuses the call, unless a yes to the call's own summary stands
    // or a reply withdrew or refused (a qualification is no yes that
    // stands). Action words are no rival kind.
    struct ReqNames(u32, u32, Env, u32);
    ReqNames(c, k, e, a) <- ConfReady(c, k, e), IAskTurn(a), (a <= k), ConfVal(c, k, e, v),
        IMention(v, a, Speaker::Agent), !IDeclined(v, a);
    struct ReqMissing(u32, u32, Env, u32, Value);
    ReqMissing(c, k, e, a, v) <- ReqNames(c, k, e, a), ConfVal(c, k, e, v),
        !IMention(v, a, Speaker::Agent);
    ReqMissing(c, k, e, a, v) <- ReqNames(c, k, e, a), ConfVal(c, k, e, v), IDeclined(v, a);
    struct RivalNamed(u32, u32, Env, u32, Value);
    RivalNamed(c, k, e, a, w) <- ReqMissing(c, k, e, a, _), IMention(w, a, Speaker::Agent),
        !IDeclined(w, a), !ConfVal(c, k, e, w);
    struct Rivalled(u32, u32, Env, u32, Value);
    Rivalled(c, k, e, a, v) <- ReqMissing(c, k, e, a, v), IRecord(v), IMention(v, ev, _), (ev <= k),
        RivalNamed(c, k, e, a, w), IRecord(w);
    Rivalled(c, k, e, a, v) <- ReqMissing(c, k, e, a, v), let Value::Str(vs) = v,
        EntityRead(t, vs, rv), (rv <= k),
        RivalNamed(c, k, e, a, w), let Value::Str(ws) = w,
        EntityRead(t, ws, rw), (rw <= k);
    Rivalled(c, k, e, a, v) <- ReqMissing(c, k, e, a, v), ILiteral(v, set),
        RivalNamed(c, k, e, a, w), ILiteral(w, set);
    struct Unrivalled(u32, u32, Env, u32);
    Unrivalled(c, k, e, a) <- ReqMissing(c, k, e, a, v), !Rivalled(c, k, e, a, v);
    struct SummaryFrom(u32, u32, Env, u32);
    SummaryFrom(c, k, e, a) <- ReqNames(c, k, e, a), Summary(c, k, e, s), (s >= a);
    struct Contradicts(u32, u32, Env, u32);
    Contradicts(c, k, e, a) <- ReqMissing(c, k, e, a, _), !Unrivalled(c, k, e, a),
        !SummaryFrom(c, k, e, a), !IWeighs(a);
    struct AnswersLeftOut(u32, u32, Env, u32, u32);
    AnswersLeftOut(c, k, e, a, u) <- ReqMissing(c, k, e, a, v), IMention(v, u, sp),
        (sp != Speaker::Agent);
    struct ContraYes(u32, u32, Env, u32);
    ContraYes(c, k, e, u) <- Contradicts(c, k, e, a), IAffirm(u), (a < u && u <= k),
        !WindowClosed(a, u), !AnswersLeftOut(c, k, e, a, u);
    struct HasContraYes(u32, u32, Env);
    HasContraYes(c, k, e) <- ContraYes(c, k, e, _);
    struct LaterContraYes(u32, u32, Env, u32);
    LaterContraYes(c, k, e, u) <- ContraYes(c, k, e, u), ContraYes(c, k, e, w), (w < u);
    struct StrongRevoked(u32, u32, Env);
    StrongRevoked(c, k, e) <- Revoked(c, k, e, _, rank), (rank >= WITHDRAWAL_RANK);
    struct Affirmed(u32, u32, Env);
    Affirmed(c, k, e) <- HasYes(c, k, e), !Withdrawn(c, k, e);
    @output pub struct ConsentAt(pub u32, pub u32, pub Env, pub u8, pub u32);
    ConsentAt(c, k, e, rank, w) <- Revoked(c, k, e, w, rank), !Outranked(c, k, e, rank),
        !LaterRevoke(c, k, e, w, rank), (rank >= WITHDRAWAL_RANK), ICConfirmed(c, _, false);
    ConsentAt(c, k, e, rank, w) <- Revoked(c, k, e, w, rank), !Outranked(c, k, e, rank),
        !LaterRevoke(c, k, e, w, rank), (rank < WITHDRAWAL_RANK), !HasContraYes(c, k, e),
        ICConfirmed(c, _, false);
    ConsentAt(c, k, e, CONSENT_AFFIRMATIVE, u) <- FirstYes(c, k, e, u), !Withdrawn(c, k, e),
        ICConfirmed(c, _, false);
    ConsentAt(c, k, e, CONSENT_CONTRADICTED, u) <- ContraYes(c, k, e, u),
        !LaterContraYes(c, k, e, u), !Affirmed(c, k, e), !StrongRevoked(c, k, e),
        ICConfirmed(c, _, false);
    ConsentAt(c, k, e, CONSENT_ABSENT, a) <- Summary(c, k, e, a), !HasYes(c, k, e),
        !Withdrawn(c, k, e), !HasContraYes(c, k, e), ICConfirmed(c, _, false);
    ConsentAt(c, k, e, CONSENT_ABSENT, NO_TURN) <- ConfReady(c, k, e), !HasSummary(c, k, e),
        !HasContraYes(c, k, e), ICConfirmed(c, _, false);

    // ---- checks ----
    @output pub struct Holds(pub u32, pub u32, pub Env);
    Holds(c, k, e) <- Eval(c, k, e), ICTrue(c);
    Holds(c, k, e) <- Eval(c, k, e), ICAnd(c, l, r), Holds(l, k, e), Holds(r, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICOr(c, l, _), Holds(l, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICOr(c, _, r), Holds(r, k, e);
    Holds(c, k, e) <- CmpReady(c, k, e), ICCmp(c, _, _, _, false), !CmpFail(c, k, e);
    Holds(c, k, e) <- CmpReady(c, k, e), ICCmp(c, _, _, _, true), CmpFail(c, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICIn(c, o, _, false), Present(o, k, e), !ElemMissing(o, k, e), !InFail(c, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICIn(c, o, _, true), Present(o, k, e), !ElemMissing(o, k, e), InFail(c, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICContains(c, i, l, false), Present(i, k, e), Present(l, k, e),
        !ElemMissing(i, k, e), !ElemMissing(l, k, e), !ContainsFail(c, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICContains(c, i, l, true), Present(i, k, e), Present(l, k, e),
        !ElemMissing(i, k, e), !ElemMissing(l, k, e), ContainsFail(c, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICHappened(c, f, false), AnyHappened(f, k, e), !ConsNotReady(f, e);
    Holds(c, k, e) <- Eval(c, k, e), ICHappened(c, f, true), !AnyHappened(f, k, e), !ConsNotReady(f, e);
    Holds(c, k, e) <- Eval(c, k, e), ICSaid(c, _, o, false), Present(o, k, e), !ElemMissing(o, k, e),
        !SaidFail(c, k, e);
    Holds(c, k, e) <- Eval(c, k, e), ICSaid(c, _, o, true), Present(o, k, e), !ElemMissing(o, k, e),
        SaidFail(c, k, e);
    Holds(c, k, e) <- ConfReady(c, k, e), ICConfirmed(c, _, false), HasYes(c, k, e), !Withdrawn(c, k, e);
    Holds(c, k, e) <- ConfReady(c, k, e), ICConfirmed(c, _, true), !HasYes(c, k, e);
    Holds(c, k, e) <- ConfReady(c, k, e), ICConfirmed(c, _, true), Withdrawn(c, k, e);

    // ---- runs: maximal stretches where a step's criterion holds ----
    // Each (step, env) has its own ordered evaluation points: the events of
    // its tool for call and result steps; for state steps event 0 plus every
    // event that can change what the criterion reads under that env (reads of
    // its fields, events of its predicates). A state criterion holds from a
    // point until the next point; a call or result criterion only at its event.
    struct StepHolds(u32, u32, Env);
    StepHolds(s, k, p) <- IStepPt(s, p, k), IStepRoot(s, root), Holds(root, k, p);
    struct RunStart(u32, Env, u32);
    RunStart(s, p, k) <- StepHolds(s, k, p), IFirstPt(s, p, k), IStepIsState(s);
    RunStart(s, p, k2) <- StepHolds(s, k2, p), INextPt(s, p, k, k2), !StepHolds(s, k, p), IStepIsState(s);
    RunStart(s, p, k) <- StepHolds(s, k, p), !IStepIsState(s);
    struct InRun(u32, Env, u32, u32);
    InRun(s, p, k, k) <- RunStart(s, p, k), IStepIsState(s);
    InRun(s, p, st, k2) <- InRun(s, p, st, k), INextPt(s, p, k, k2), StepHolds(s, k2, p);
    struct RunLast(u32, Env, u32, u32, u32);
    RunLast(s, p, st, k, k2) <- InRun(s, p, st, k), INextPt(s, p, k, k2), !StepHolds(s, k2, p);
    RunLast(s, p, st, k, FOREVER) <- InRun(s, p, st, k), ILastPt(s, p, k);
    RunLast(s, p, k, k, k + 1) <- RunStart(s, p, k), !IStepIsState(s);
    struct Walk(u32, Env, u32, u32);
    Walk(s, p, last, last) <- RunLast(s, p, _, last, _);
    Walk(s, p, last, k2) <- Walk(s, p, last, k), INextPt(s, p, k, k2), !StepHolds(s, k2, p);
    struct PrevEnd(u32, Env, u32, u32);
    PrevEnd(s, p, k2, until) <- Walk(s, p, last, k), INextPt(s, p, k, k2), RunStart(s, p, k2), RunLast(s, p, _, last, until);
    struct HasPrev(u32, Env, u32);
    HasPrev(s, p, k) <- PrevEnd(s, p, k, _);
    // Run(s, q, p, start, until, prev): a run of (s, p) — `q` is `p` without
    // the variables the step binds, the key a request looks runs up by — and
    // `prev` is where the previous run of (s, p) ended (0 for the first).
    struct Run(u32, Env, Env, u32, u32, u32);
    Run(s, p.project(m), p, st, until, prev) <- RunLast(s, p, st, _, until), PrevEnd(s, p, st, prev), IStepKeyMask(s, m);
    Run(s, p.project(m), p, st, until, 0) <- RunLast(s, p, st, _, until), !HasPrev(s, p, st), IStepKeyMask(s, m);

    // ---- satisfaction along the workflow ----
    // From a predecessor satisfied at `j`, a step is satisfied at the earliest
    // `k >= j` where it holds: `j` itself inside a run, else the next run's start.
    @output pub struct Sat(pub u32, pub Env, pub u32);
    struct Ready(u32, Env, u32);
    Sat(s, e, k) <- ISeed(s, e, k);
    Ready(s2, e, j) <- Sat(s1, e, j), IEdge(s1, s2), !ISemantic(s2);
    Ready(s2, e, jj) <- Sat(s1, e, j), IEdge(s1, s2), ISemantic(s2), INextJudged(s2, e, j, jj);
    Sat(s, e, j) <- Ready(s, e, j), ITrivial(s);
    Sat(s, e.merge(&p), j.max(st)) <- Ready(s, e, j), IStepKeyMask(s, m), let q = e.project(m),
        Run(s, q, p, st, until, prev), ((st <= j && j < until) || (prev <= j && j < st)),
        IStepBinds(s, b), (e.joinable(&p, b));

    // ---- the gate: unauthorized mutating calls and where their path stopped ----
    struct Reaches(u32, u32);
    Reaches(x, y) <- IEdge(x, y);
    Reaches(x, z) <- IEdge(x, y), Reaches(y, z);
    struct GatedCall(u32, Symbol);
    GatedCall(k, t) <- ICall(k, t, true), IGated(t);
    @output pub struct Allowed(pub u32, pub u32, pub Env);
    struct AnyAllowed(u32);
    Allowed(k, a, e) <- GatedCall(k, t), IAuth(a, t), Sat(a, e, k);
    AnyAllowed(k) <- Allowed(k, _, _);
    struct SatBy(u32, Env, u32);
    SatBy(n, e, k) <- GatedCall(k, _), Sat(p, e, j), (j <= k), IEdge(p, n), Sat(n, e2, j2),
        (j <= j2 && j2 <= k), (e2.extends(&e));
    @output pub struct Frontier(pub u32, pub u32, pub Env, pub u32, pub u32);
    Frontier(k, a, e, n, j) <- GatedCall(k, t), !AnyAllowed(k), IAuth(a, t), Sat(p, e, j), (j <= k), IEdge(p, n),
        Reaches(n, a), !SatBy(n, e, k);
    Frontier(k, a, e, a, j) <- GatedCall(k, t), !AnyAllowed(k), IAuth(a, t), Sat(p, e, j), (j <= k), IEdge(p, a);
    @output pub struct Unguarded(pub u32);
    struct HasAuth(Symbol);
    HasAuth(t) <- IAuth(_, t);
    Unguarded(k) <- GatedCall(k, t), !HasAuth(t);

    // ---- protected reads ----
    struct ProtCall(u32, u32);
    ProtCall(k, p) <- ICall(k, t, true), IProtect(p, t);
    struct ProtOpen(u32, u32, u32, Env);
    ProtOpen(k, p, s, e) <- ProtCall(k, p), IProtAfter(p, s), Sat(s, e, j), (j <= k);
    @output pub struct ReadAllowed(pub u32, pub u32, pub Env);
    ReadAllowed(k, s, e) <- ProtOpen(k, p, s, e), IProtNoGuard(p);
    ReadAllowed(k, s, e) <- ProtOpen(k, p, s, e), IProtGuard(p, root, m), (e.binds_all(m)),
        Holds(root, k, e.project(m));
}

pub use self::Crepe as Program;
