//! Lowering of check expressions to the rules IR: walks the AST of a check
//! (a condition) or an operand (a value), resolving names against the domain
//! schema and the request variables, and produces `Check`s and `Operand`s.
//! Each step is type-directed through the rules of `compile::typecheck`.

use std::collections::BTreeMap;
use std::ops::Range;

use turnstile_rules::{
    AggOp, Amount, ArgConstraint, ArgPath, ArgStep, ArithOp, Check, CmpOp, Date, DateTime,
    Duration, EventFilter, Operand, Outcome, Value, ValueType, VarId,
};

use crate::bundle::model::{Side, ToolKind};
use crate::compile::Ctx;
use crate::compile::typecheck::{Site, Typed, element};
use crate::diag::{ProblemKind, RawProblem, name_hint, with_article};
use crate::expr::ast::{Aggregate, EventKind, Expr, ExprKind, Lit, PathSeg};
use crate::schema::{Domain, Tool};

/// What names an expression may use.
pub(crate) struct Scope<'d> {
    /// Enums, entities and tools.
    pub domain: &'d Domain,
    /// The tool whose call is being decided (`args`), if any.
    pub tool: Option<&'d Tool>,
    /// Request variables: id and entity, by name.
    pub vars: &'d BTreeMap<String, (VarId, String)>,
}

impl Ctx<'_> {
    /// Lowers a condition; reports every problem in it and returns `None` if there was one.
    pub(crate) fn lower_check(
        &mut self,
        scope: &Scope<'_>,
        site: Site<'_>,
        expr: &Expr,
    ) -> Option<Check> {
        match &expr.kind {
            ExprKind::Or(a, b) => {
                let (a, b) = (
                    self.lower_check(scope, site, a),
                    self.lower_check(scope, site, b),
                );
                Some(flatten(a?, b?, false))
            }
            ExprKind::And(a, b) => {
                let (a, b) = (
                    self.lower_check(scope, site, a),
                    self.lower_check(scope, site, b),
                );
                Some(flatten(a?, b?, true))
            }
            ExprKind::Not(inner) => {
                Some(Check::Not(Box::new(self.lower_check(scope, site, inner)?)))
            }
            ExprKind::Compare { op, lhs, rhs } => {
                let (l, r) = (
                    self.lower_operand(scope, site, lhs),
                    self.lower_operand(scope, site, rhs),
                );
                let (l, r) = self.unify(site, expr, *op, l?, r?)?;
                Some(Check::Compare {
                    op: *op,
                    lhs: l,
                    rhs: r,
                })
            }
            ExprKind::InList { operand, set } => {
                let subject = self.lower_operand(scope, site, operand)?;
                let mut members = Vec::new();
                for member in set {
                    let typed = self.lower_operand(scope, site, member)?;
                    let subject_copy = Typed {
                        operand: subject.operand.clone(),
                        ty: subject.ty.clone(),
                        literal: subject.literal.clone(),
                    };
                    let (_, m) = self.unify(site, member, CmpOp::Eq, subject_copy, typed)?;
                    members.push(m);
                }
                Some(Check::OneOf {
                    operand: subject.operand,
                    set: members,
                })
            }
            ExprKind::InEnum { operand, name } => {
                let subject = self.lower_operand(scope, site, operand)?;
                let Some(def) = scope.domain.enums.get(&name.name) else {
                    let known = scope
                        .domain
                        .enums
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ");
                    return self.expr_error(
                        site,
                        &name.span,
                        ProblemKind::UnknownEnum,
                        format!("unknown enum `{}`", name.name),
                        Some(name_hint(&name.name, known.split(", "), "declared enums")),
                    );
                };
                let fits = match element(&subject.ty) {
                    ValueType::Str => true,
                    ValueType::Enum(e) => *e == def.symbol,
                    _ => false,
                };
                if !fits {
                    let shown = self.show_type(&subject.ty);
                    return self.expr_error(
                        site,
                        &operand.span,
                        ProblemKind::TypeMismatch,
                        format!("a {shown} cannot be a member of enum `{}`", def.name),
                        None,
                    );
                }
                if let Operand::Arg(path) = &subject.operand
                    && let Some(ArgStep::Key(param)) = path.0.first()
                    && !self.guarded_enums.contains(&(def.symbol, *param))
                {
                    self.guarded_enums.push((def.symbol, *param));
                }
                let set = def
                    .values
                    .iter()
                    .map(|v| Operand::Const(Value::Str(self.interner.intern(v))))
                    .collect();
                Some(Check::OneOf {
                    operand: subject.operand,
                    set,
                })
            }
            ExprKind::Event {
                kind,
                tool,
                constraints,
            } => {
                let filter = self.lower_event(scope, site, *kind, tool, constraints)?;
                Some(Check::Happened(filter))
            }
            ExprKind::Said { speaker, value } => {
                let value = self.lower_dialogue_value(scope, site, value, false)?;
                Some(Check::Said {
                    speaker: *speaker,
                    value,
                })
            }
            ExprKind::Confirmed(values) => {
                let lowered: Vec<Option<Operand>> = values
                    .iter()
                    .map(|v| self.lower_dialogue_value(scope, site, v, true))
                    .collect();
                let values: Vec<Operand> = lowered.into_iter().collect::<Option<_>>()?;
                let (call, items) = match scope.tool {
                    Some(tool) if self.is_consent_at(tool, &values) => {
                        (self.other_arguments(tool, &values), self.call_items(tool))
                    }
                    // A consent naming no action word still states the
                    // call's items it names.
                    Some(tool) if states_items(tool, &values) => {
                        (Vec::new(), self.call_items(tool))
                    }
                    _ => (Vec::new(), Vec::new()),
                };
                Some(Check::Confirmed {
                    values,
                    call,
                    items,
                })
            }
            ExprKind::InOperand { operand, list } => {
                let (item, list_typed) = (
                    self.lower_operand(scope, site, operand),
                    self.lower_operand(scope, site, list),
                );
                let (item, list_typed) = (item?, list_typed?);
                if !matches!(list_typed.ty, ValueType::List(_)) {
                    let shown = self.show_type(&list_typed.ty);
                    return self.expr_error(
                        site,
                        &list.span,
                        ProblemKind::TypeMismatch,
                        format!("`in` needs a list here, found {}", with_article(&shown)),
                        Some(
                            "write `x in [a, b]` for literals or `x == y` for one value".to_owned(),
                        ),
                    );
                }
                let (item, list_operand) = self.unify(site, expr, CmpOp::Eq, item, list_typed)?;
                Some(Check::Contains {
                    item,
                    list: list_operand,
                })
            }
            _ => {
                let typed = self.lower_operand(scope, site, expr)?;
                if typed.ty == ValueType::Bool {
                    return Some(Check::Compare {
                        op: CmpOp::Eq,
                        lhs: typed.operand,
                        rhs: Operand::Const(Value::Bool(true)),
                    });
                }
                let shown = self.show_type(&typed.ty);
                self.expr_error(
                    site,
                    &expr.span,
                    ProblemKind::TypeMismatch,
                    format!("expected a condition, found {}", with_article(&shown)),
                    Some("compare it with something, e.g. `== \"pending\"`".to_owned()),
                )
            }
        }
    }

    /// Lowers a value with its type; reports problems and returns `None` if there was one.
    pub(crate) fn lower_operand(
        &mut self,
        scope: &Scope<'_>,
        site: Site<'_>,
        expr: &Expr,
    ) -> Option<Typed> {
        let plain = |operand, ty| {
            Some(Typed {
                operand,
                ty,
                literal: None,
            })
        };
        match &expr.kind {
            ExprKind::Lit(lit) => self.lower_literal(site, expr, lit),
            ExprKind::Var(ident) => match scope.vars.get(&ident.name) {
                Some((id, _)) => plain(Operand::Var(*id), ValueType::Str),
                None => {
                    let known = scope
                        .vars
                        .keys()
                        .map(|v| format!("${v}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.expr_error(
                        site,
                        &ident.span,
                        ProblemKind::UnknownVariable,
                        format!("unknown variable `${}`", ident.name),
                        Some(name_hint(
                            &format!("${}", ident.name),
                            known.split(", "),
                            "declare it under a flow's `vars`; declared",
                        )),
                    )
                }
            },
            ExprKind::Field { entity, id, field } => {
                let Some(def) = scope.domain.entities.get(&entity.name) else {
                    let known = scope
                        .domain
                        .entities
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ");
                    return self.expr_error(
                        site,
                        &entity.span,
                        ProblemKind::UnknownEntity,
                        format!("unknown entity `{}`", entity.name),
                        Some(name_hint(
                            &entity.name,
                            known.split(", "),
                            "declared entities",
                        )),
                    );
                };
                let key = self.lower_operand(scope, site, id)?;
                let Some(field_ty) = def.fields.get(&field.name).cloned() else {
                    let known = def.fields.keys().cloned().collect::<Vec<_>>().join(", ");
                    return self.expr_error(
                        site,
                        &field.span,
                        ProblemKind::UnknownField,
                        format!("entity `{}` has no field `{}`", entity.name, field.name),
                        Some(name_hint(&field.name, known.split(", "), "its fields")),
                    );
                };
                let key_is_list = matches!(key.ty, ValueType::List(_));
                if !matches!(element(&key.ty), ValueType::Str | ValueType::Enum(_)) {
                    let shown = self.show_type(&key.ty);
                    return self.expr_error(
                        site,
                        &id.span,
                        ProblemKind::TypeMismatch,
                        format!("an entity id is a string, found {}", with_article(&shown)),
                        None,
                    );
                }
                let ty = if key_is_list {
                    ValueType::List(Box::new(field_ty))
                } else {
                    field_ty
                };
                let entity_sym = def.symbol;
                let field_sym = self.interner.intern(&field.name);
                plain(
                    Operand::Field {
                        entity: entity_sym,
                        id: Box::new(key.operand),
                        field: field_sym,
                    },
                    ty,
                )
            }
            ExprKind::Args(path) => {
                let Some(tool) = scope.tool else {
                    return self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::UnknownParam,
                        "`args` is only available in tool_call and tool_authorization nodes"
                            .to_owned(),
                        Some("refer to a bound variable (`$order`) instead".to_owned()),
                    );
                };
                let (path, ty) = self.lower_arg_path(site, &expr.span, tool, path)?;
                plain(Operand::Arg(path), ty)
            }
            ExprKind::Result(_) => self.expr_error(
                site,
                &expr.span,
                ProblemKind::UnknownParam,
                "`result` is only available in `bind`".to_owned(),
                Some(
                    "checks read results through entity fields, e.g. `order[$order].status`"
                        .to_owned(),
                ),
            ),
            ExprKind::Aggregate { op, of } => self.lower_aggregate(scope, site, expr, *op, of),
            ExprKind::CountEqual { of, value } => {
                let (list, item) = (
                    self.lower_operand(scope, site, of),
                    self.lower_operand(scope, site, value),
                );
                let (list, item) = (list?, item?);
                if !matches!(list.ty, ValueType::List(_)) {
                    let shown = self.show_type(&list.ty);
                    return self.expr_error(
                        site,
                        &of.span,
                        ProblemKind::TypeMismatch,
                        format!(
                            "count(list, value) takes a list, found {}",
                            with_article(&shown)
                        ),
                        None,
                    );
                }
                let (list, item) = self.unify(site, expr, CmpOp::Eq, list, item)?;
                plain(
                    Operand::CountEqual {
                        of: Box::new(list),
                        value: Box::new(item),
                    },
                    ValueType::Int,
                )
            }
            ExprKind::Now => {
                if self.clock.is_none() {
                    if self.clock_written {
                        // The malformed `clock:` line is reported already.
                        return None;
                    }
                    return self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::NoClock,
                        "`now()` needs a clock, and the bundle declares none".to_owned(),
                        Some(
                            "add `clock: fixed <timestamp>`, `clock: event` or `clock: system` to bundle.yaml"
                                .to_owned(),
                        ),
                    );
                }
                self.reads_now = true;
                plain(Operand::Now, ValueType::DateTime)
            }
            ExprKind::Duration { unit, of } => {
                let n = self.lower_operand(scope, site, of)?;
                if n.ty != ValueType::Int {
                    let shown = self.show_type(&n.ty);
                    return self.expr_error(
                        site,
                        &of.span,
                        ProblemKind::TypeMismatch,
                        format!(
                            "a duration counts whole units, found {}",
                            with_article(&shown)
                        ),
                        Some("e.g. `days(60)` or `hours(24)`".to_owned()),
                    );
                }
                let per_unit = Operand::Const(Value::Duration(Duration(*unit)));
                let operand = match n.operand {
                    Operand::Const(Value::Int(count)) => match count.checked_mul(*unit) {
                        Some(seconds) => Operand::Const(Value::Duration(Duration(seconds))),
                        None => {
                            return self.expr_error(
                                site,
                                &expr.span,
                                ProblemKind::TypeMismatch,
                                format!("{count} overflows a duration"),
                                None,
                            );
                        }
                    },
                    counted => Operand::Arith {
                        op: turnstile_rules::ArithOp::Mul,
                        lhs: Box::new(counted),
                        rhs: Box::new(per_unit),
                    },
                };
                plain(operand, ValueType::Duration)
            }
            ExprKind::Arith { op, lhs, rhs } => {
                let (l, r) = (
                    self.lower_operand(scope, site, lhs),
                    self.lower_operand(scope, site, rhs),
                );
                let (l, r) = (l?, r?);
                if let Some(ty) = time_arith_type(*op, &l.ty, &r.ty) {
                    return plain(
                        Operand::Arith {
                            op: *op,
                            lhs: Box::new(l.operand),
                            rhs: Box::new(r.operand),
                        },
                        ty,
                    );
                }
                if !(l.ty.is_numeric() && r.ty.is_numeric()) {
                    let (lt, rt) = (self.show_type(&l.ty), self.show_type(&r.ty));
                    return self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::TypeMismatch,
                        format!(
                            "arithmetic needs two numbers, or times and durations, found {} and {}",
                            with_article(&lt),
                            with_article(&rt)
                        ),
                        Some(
                            "aggregate lists first (`sum(order[$o].item_prices) - 10`); shift a time by a duration (`now() - days(60)`)"
                                .to_owned(),
                        ),
                    );
                }
                if *op == turnstile_rules::ArithOp::Mul
                    && l.ty == ValueType::Amount
                    && r.ty == ValueType::Amount
                {
                    return self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::TypeMismatch,
                        "an amount can only be multiplied by an integer".to_owned(),
                        Some("e.g. `100 * count(reservation[$r].passengers)`".to_owned()),
                    );
                }
                let ty = if l.ty == ValueType::Amount || r.ty == ValueType::Amount {
                    ValueType::Amount
                } else {
                    ValueType::Int
                };
                // Multiplication keeps its integer side an integer (exact scaling).
                let (l, r) = if *op == turnstile_rules::ArithOp::Mul {
                    (l.operand, r.operand)
                } else {
                    (
                        self.coerce(site, expr, l.operand, None, &ty)?,
                        self.coerce(site, expr, r.operand, None, &ty)?,
                    )
                };
                plain(
                    Operand::Arith {
                        op: *op,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    ty,
                )
            }
            ExprKind::Event { .. } => self.expr_error(
                site,
                &expr.span,
                ProblemKind::TypeMismatch,
                "an event predicate is a condition, not a value".to_owned(),
                Some("count events with `count(succeeded(...))`".to_owned()),
            ),
            ExprKind::Said { .. } | ExprKind::Confirmed(_) => self.expr_error(
                site,
                &expr.span,
                ProblemKind::TypeMismatch,
                "a dialogue predicate is a condition, not a value".to_owned(),
                None,
            ),
            _ => self.expr_error(
                site,
                &expr.span,
                ProblemKind::TypeMismatch,
                "expected a value, found a condition".to_owned(),
                None,
            ),
        }
    }

    /// Lowers an argument of `said` / `confirmed`: a string, id, enum value,
    /// date or amount (or a list of them), the values a turn's text is
    /// searched for (dates and amounts in the spellings users write).
    fn lower_dialogue_value(
        &mut self,
        scope: &Scope<'_>,
        site: Site<'_>,
        expr: &Expr,
        counts: bool,
    ) -> Option<Operand> {
        let typed = self.lower_operand(scope, site, expr)?;
        let ty = element(&typed.ty);
        if matches!(
            ty,
            ValueType::Str | ValueType::Enum(_) | ValueType::Date | ValueType::Amount
        ) || (counts && *ty == ValueType::Int)
        {
            if is_computed(&typed.operand) {
                self.warn_computed_in_dialogue(site, expr);
            }
            return Some(typed.operand);
        }
        let shown = self.show_type(&typed.ty);
        let (looks_for, help) = if counts {
            (
                "strings, ids, dates, amounts or counts",
                "pass an id, a string, date, amount or integer field or argument, or a list of them",
            )
        } else {
            (
                "strings, ids, dates or amounts",
                "pass an id, a string, date or amount field or argument, or a list of them (a count is named too often to be said: confirm it with `confirmed`)",
            )
        };
        self.expr_error(
            site,
            &expr.span,
            ProblemKind::TypeMismatch,
            format!("a dialogue predicate looks for {looks_for} in the text, found a {shown}"),
            Some(help.to_owned()),
        )
    }

    fn lower_literal(&mut self, site: Site<'_>, expr: &Expr, lit: &Lit) -> Option<Typed> {
        let (value, ty, literal) = match lit {
            Lit::Str(s) => (
                Value::Str(self.interner.intern(s)),
                ValueType::Str,
                Some(s.clone()),
            ),
            Lit::Int(i) => (Value::Int(*i), ValueType::Int, None),
            Lit::Bool(b) => (Value::Bool(*b), ValueType::Bool, None),
            Lit::Decimal(d) => match Amount::parse(d) {
                Ok(a) => (Value::Amount(a), ValueType::Amount, None),
                Err(e) => {
                    return self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::TypeMismatch,
                        e.to_string(),
                        None,
                    );
                }
            },
            Lit::Date(d) => match Date::parse(d) {
                Ok(v) => (Value::Date(v), ValueType::Date, None),
                Err(e) => {
                    return self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::TypeMismatch,
                        e.to_string(),
                        None,
                    );
                }
            },
            Lit::DateTime(d) => match DateTime::parse(d) {
                Ok(v) => (Value::DateTime(v), ValueType::DateTime, None),
                Err(e) => {
                    return self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::TypeMismatch,
                        e.to_string(),
                        None,
                    );
                }
            },
        };
        Some(Typed {
            operand: Operand::Const(value),
            ty,
            literal,
        })
    }

    fn lower_aggregate(
        &mut self,
        scope: &Scope<'_>,
        site: Site<'_>,
        expr: &Expr,
        op: Aggregate,
        of: &Expr,
    ) -> Option<Typed> {
        if let ExprKind::Event {
            kind,
            tool,
            constraints,
        } = &of.kind
        {
            if op != Aggregate::Count {
                return self.expr_error(
                    site,
                    &expr.span,
                    ProblemKind::TypeMismatch,
                    "events can only be counted".to_owned(),
                    Some("use `count(succeeded(...))`".to_owned()),
                );
            }
            let filter = self.lower_event(scope, site, *kind, tool, constraints)?;
            let countable = match filter.constraints.as_slice() {
                [] => true,
                [c] => {
                    c.op == CmpOp::Eq
                        && matches!(c.value, Operand::Var(_) | Operand::Const(_))
                        && !c.path.yields_list()
                }
                _ => false,
            };
            if !countable {
                return self.expr_error(
                    site,
                    &of.span,
                    ProblemKind::BadConstraint,
                    "a counted event takes at most one constraint, `param == $var` or `param == literal`".to_owned(),
                    Some("count per entity, e.g. `count(succeeded(exchange_delivered_order_items, order_id == $order))`".to_owned()),
                );
            }
            return Some(Typed {
                operand: Operand::CountEvents(filter),
                ty: ValueType::Int,
                literal: None,
            });
        }
        let inner = self.lower_operand(scope, site, of)?;
        let ValueType::List(elem) = &inner.ty else {
            let shown = self.show_type(&inner.ty);
            return self.expr_error(
                site,
                &of.span,
                ProblemKind::TypeMismatch,
                format!(
                    "{} takes a list, found {}",
                    agg_name(op),
                    with_article(&shown)
                ),
                Some(
                    "select list elements with `[*]`, e.g. `args.payment_methods[*].amount`"
                        .to_owned(),
                ),
            );
        };
        let elem = (**elem).clone();
        let (rules_op, ty) = match op {
            Aggregate::Count => (AggOp::Count, ValueType::Int),
            Aggregate::Sum if elem.is_numeric() => (AggOp::Sum, elem),
            Aggregate::Min | Aggregate::Max
                if elem.is_numeric() || matches!(elem, ValueType::Date | ValueType::DateTime) =>
            {
                (
                    if op == Aggregate::Min {
                        AggOp::Min
                    } else {
                        AggOp::Max
                    },
                    elem,
                )
            }
            _ => {
                let shown = self.show_type(&inner.ty);
                return self.expr_error(
                    site,
                    &of.span,
                    ProblemKind::TypeMismatch,
                    format!(
                        "{} needs numbers, found {}",
                        agg_name(op),
                        with_article(&shown)
                    ),
                    None,
                );
            }
        };
        Some(Typed {
            operand: Operand::Aggregate {
                op: rules_op,
                of: Box::new(inner.operand),
            },
            ty,
            literal: None,
        })
    }

    fn lower_event(
        &mut self,
        scope: &Scope<'_>,
        site: Site<'_>,
        kind: EventKind,
        tool: &crate::expr::ast::Ident,
        constraints: &[crate::expr::ast::Constraint],
    ) -> Option<EventFilter> {
        let Some(def) = scope.domain.tool(&tool.name) else {
            return self.expr_error(
                site,
                &tool.span,
                ProblemKind::UnknownTool,
                format!("unknown tool `{}`", tool.name),
                Some(name_hint(
                    &tool.name,
                    scope.domain.tools.keys().map(String::as_str),
                    "tools are declared in the domain file; declared",
                )),
            );
        };
        let mut lowered = Vec::new();
        let mut ok = true;
        for constraint in constraints {
            let Some((path, ty)) =
                self.lower_arg_path(site, &constraint.path_span, def, &constraint.path)
            else {
                ok = false;
                continue;
            };
            let Some(value) = self.lower_operand(scope, site, &constraint.value) else {
                ok = false;
                continue;
            };
            if !matches!(value.operand, Operand::Var(_) | Operand::Const(_)) {
                ok = false;
                self.expr_error::<()>(
                    site,
                    &constraint.value.span,
                    ProblemKind::BadConstraint,
                    "an event constraint compares with a variable or a literal".to_owned(),
                    Some(
                        "bind the value to a request variable first, e.g. `order_id == $order`"
                            .to_owned(),
                    ),
                );
                continue;
            }
            let arg = Typed {
                operand: Operand::Arg(path.clone()),
                ty,
                literal: None,
            };
            let span = constraint.path_span.start..constraint.value.span.end;
            let whole = Expr {
                kind: ExprKind::Lit(Lit::Bool(true)),
                span,
            };
            match self.unify(site, &whole, constraint.op, arg, value) {
                Some((_, value)) => lowered.push(ArgConstraint {
                    path,
                    op: constraint.op,
                    value,
                }),
                None => ok = false,
            }
        }
        ok.then_some(EventFilter {
            tool: def.symbol,
            outcome: match kind {
                EventKind::Called => Outcome::Called,
                EventKind::Succeeded => Outcome::Succeeded,
            },
            constraints: lowered,
        })
    }

    /// Types a path into `tool`'s arguments.
    /// Whether `confirmed(values)` at a call of `tool` is consent: `tool`
    /// is an agent's write, and the values are its arguments and one of its
    /// action words (any inflection).
    fn is_consent_at(&self, tool: &Tool, values: &[Operand]) -> bool {
        if tool.kind != ToolKind::Write || tool.side != Side::Agent {
            return false;
        }
        // The one constant must be an action word: only its form is looked up.
        let mut constants = values.iter().filter_map(|v| match v {
            Operand::Const(Value::Str(word)) => Some(*word),
            _ => None,
        });
        let (Some(symbol), None) = (constants.next(), constants.next()) else {
            return false;
        };
        let word = self.interner.resolve(symbol);
        tool.actions.iter().any(|action| {
            turnstile_judge::dialogue::inflections(action)
                .iter()
                .any(|form| form == word)
        }) && turnstile_rules::is_consent(values, &[symbol])
    }

    /// Warns of each `confirmed(args.…, "<word>")` in a write's guard
    /// whose one word is none of the tool's action words, written as an
    /// alternative (`||`) to a consent: the consent compares the call's
    /// other arguments with the summary, this alternative does not, so a
    /// summary naming the word lets through a call the consent would hold.
    /// Alternatives under a negation say what the summary must not state,
    /// and are not read.
    pub(crate) fn warn_formal_beside_consent(
        &mut self,
        scope: &Scope<'_>,
        site: Site<'_>,
        expr: &Expr,
    ) {
        let Some(tool) = scope.tool else {
            return;
        };
        if tool.kind != ToolKind::Write || tool.side != Side::Agent {
            return;
        }
        let mut chains = Vec::new();
        or_chains(expr, &mut chains);
        for disjuncts in chains {
            let mut consent = false;
            let mut formal: Vec<(&Expr, Vec<String>)> = Vec::new();
            for disjunct in disjuncts {
                let ExprKind::Confirmed(values) = &disjunct.kind else {
                    continue;
                };
                let Some(lowered) = values
                    .iter()
                    .map(|v| self.lower_dialogue_value(scope, site, v, true))
                    .collect::<Option<Vec<Operand>>>()
                else {
                    continue;
                };
                let others = self.other_arguments(tool, &lowered);
                if others.is_empty() {
                    continue;
                }
                if self.is_consent_at(tool, &lowered) {
                    consent = true;
                } else if turnstile_rules::is_consent(&lowered, &word_constants(&lowered)) {
                    let names = others
                        .iter()
                        .filter_map(|o| match o {
                            Operand::Arg(ArgPath(steps)) => match steps.first() {
                                Some(ArgStep::Key(param)) => {
                                    Some(self.interner.resolve(*param).to_owned())
                                }
                                _ => None,
                            },
                            _ => None,
                        })
                        .collect();
                    formal.push((disjunct, names));
                }
            }
            if !consent {
                continue;
            }
            for (disjunct, others) in formal {
                let loc = self.expr_loc(site, &disjunct.span);
                self.warnings.push(
                    RawProblem::new(
                        ProblemKind::FormalBesideConsent,
                        Some(loc),
                        format!(
                            "this alternative names no action word of `{}` ({}): where it holds, the call's other arguments ({}) are not compared with the summary the consent beside it reads",
                            tool.name,
                            tool.actions.join(", "),
                            others.join(", ")
                        ),
                    )
                    .label("holds without reading the rest of the call")
                    .help("name the action by one of the tool's action words, or add the word to its `action_words`"),
                );
            }
        }
    }

    /// Warns of a computed value (`sum(...)`, arithmetic, a count of
    /// calls, `now()`) a dialogue predicate looks for: turns are read for
    /// the values the calls carry and the reads hold, so a summary stating
    /// the computed value is found only where it equals one of those.
    fn warn_computed_in_dialogue(&mut self, site: Site<'_>, expr: &Expr) {
        let loc = self.expr_loc(site, &expr.span);
        self.warnings.push(
            RawProblem::new(
                ProblemKind::ComputedInDialogue,
                Some(loc),
                "turns are read for the values calls carry and reads hold, not for computed ones: a summary stating this value is found only where it equals one of those".to_owned(),
            )
            .label("computed: not looked for in the text")
            .help("name the values it is computed from (each payment's amount), or a field a read holds"),
        );
    }

    /// The arguments of `tool` a person names as records or literals (a
    /// string or an enum, one value each), other than those `values` reads
    /// whole: the rest of the call a consent covers. A field of an object
    /// argument, or of each object of a list (a booking's payments, its
    /// passengers), is an argument of its own.
    fn other_arguments(&mut self, tool: &Tool, values: &[Operand]) -> Vec<Operand> {
        let mut paths = Vec::new();
        for (name, ty) in &tool.params {
            let key = ArgStep::Key(self.interner.intern(name));
            named_paths(vec![key], ty, false, &mut paths);
        }
        paths
            .into_iter()
            .filter(|path| {
                !values
                    .iter()
                    .any(|v| matches!(v, Operand::Arg(p) if p == path))
            })
            .map(Operand::Arg)
            .collect()
    }

    /// The call's items, for a consent at a write to read which value goes
    /// with which: each list of objects, by its fields a person names
    /// ([`pairs_by_value`]), and the lists of such values side by side,
    /// together. A list of fewer than two such fields pairs nothing.
    fn call_items(&mut self, tool: &Tool) -> Vec<Vec<Operand>> {
        let mut items = Vec::new();
        let mut side_by_side = Vec::new();
        for (name, ty) in &tool.params {
            let ValueType::List(element) = ty else {
                continue;
            };
            let param = ArgStep::Key(self.interner.intern(name));
            match &**element {
                ValueType::Object(fields) => {
                    let group: Vec<Operand> = fields
                        .iter()
                        .filter(|(_, ty)| pairs_by_value(ty))
                        .map(|(field, _)| {
                            Operand::Arg(ArgPath(vec![param, ArgStep::Each, ArgStep::Key(*field)]))
                        })
                        .collect();
                    if group.len() > 1 {
                        items.push(group);
                    }
                }
                scalar if pairs_by_value(scalar) => {
                    side_by_side.push(Operand::Arg(ArgPath(vec![param, ArgStep::Each])));
                }
                _ => {}
            }
        }
        if side_by_side.len() > 1 {
            items.push(side_by_side);
        }
        items
    }

    pub(crate) fn lower_arg_path(
        &mut self,
        site: Site<'_>,
        span: &Range<usize>,
        tool: &Tool,
        path: &[PathSeg],
    ) -> Option<(ArgPath, ValueType)> {
        let Some(PathSeg::Key(first)) = path.first() else {
            return self.expr_error(
                site,
                span,
                ProblemKind::UnknownParam,
                format!(
                    "name a parameter of `{}`, e.g. `args.{}`",
                    tool.name,
                    tool.params.keys().next().map_or("id", |k| k)
                ),
                None,
            );
        };
        let Some(mut ty) = tool.params.get(first).cloned() else {
            let known = tool.params.keys().cloned().collect::<Vec<_>>().join(", ");
            return self.expr_error(
                site,
                span,
                ProblemKind::UnknownParam,
                format!("tool `{}` has no parameter `{first}`", tool.name),
                Some(name_hint(first, known.split(", "), "its parameters")),
            );
        };
        let mut steps = vec![ArgStep::Key(self.interner.intern(first))];
        let mut lists = 0;
        for seg in path.iter().skip(1) {
            let next = match (seg, &ty) {
                (PathSeg::Each, ValueType::List(inner)) => {
                    lists += 1;
                    steps.push(ArgStep::Each);
                    Some((**inner).clone())
                }
                (PathSeg::Index(i), ValueType::List(inner)) => {
                    steps.push(ArgStep::Index(*i));
                    Some((**inner).clone())
                }
                (PathSeg::Key(k), ValueType::Object(fields)) => {
                    let symbol = self.interner.intern(k);
                    steps.push(ArgStep::Key(symbol));
                    fields
                        .iter()
                        .find(|(f, _)| *f == symbol)
                        .map(|(_, t)| t.clone())
                }
                _ => None,
            };
            match next {
                Some(t) => ty = t,
                None => {
                    let shown = self.show_type(&ty);
                    return self.expr_error(
                        site,
                        span,
                        ProblemKind::UnknownParam,
                        format!("this path does not fit the argument's type ({shown})"),
                        Some("use `[*]` or `[n]` on lists and `.name` on objects".to_owned()),
                    );
                }
            }
        }
        if lists > 1 {
            return self.expr_error(
                site,
                span,
                ProblemKind::UnknownParam,
                "at most one `[*]` per path".to_owned(),
                None,
            );
        }
        if lists == 1 {
            ty = ValueType::List(Box::new(ty));
        }
        Some((ArgPath(steps), ty))
    }
}

/// The type of `lhs op rhs` on times: an instant (a date-time, or a date
/// at midnight) shifted by a duration is a date-time, two instants differ by
/// a duration, durations add and scale by an integer. `None`: not a time
/// operation (numbers, or a mistake the caller reports).
fn time_arith_type(op: ArithOp, lhs: &ValueType, rhs: &ValueType) -> Option<ValueType> {
    let instant = |t: &ValueType| matches!(t, ValueType::Date | ValueType::DateTime);
    let duration = |t: &ValueType| *t == ValueType::Duration;
    match op {
        ArithOp::Add | ArithOp::Sub if instant(lhs) && duration(rhs) => Some(ValueType::DateTime),
        ArithOp::Add if duration(lhs) && instant(rhs) => Some(ValueType::DateTime),
        ArithOp::Sub if instant(lhs) && instant(rhs) => Some(ValueType::Duration),
        ArithOp::Add | ArithOp::Sub if duration(lhs) && duration(rhs) => Some(ValueType::Duration),
        ArithOp::Mul
            if (duration(lhs) && *rhs == ValueType::Int)
                || (*lhs == ValueType::Int && duration(rhs)) =>
        {
            Some(ValueType::Duration)
        }
        _ => None,
    }
}

fn agg_name(op: Aggregate) -> &'static str {
    match op {
        Aggregate::Sum => "sum",
        Aggregate::Count => "count",
        Aggregate::Min => "min",
        Aggregate::Max => "max",
    }
}

fn flatten(a: Check, b: Check, all: bool) -> Check {
    let mut items = Vec::new();
    for c in [a, b] {
        match (c, all) {
            (Check::All(inner), true) | (Check::Any(inner), false) => items.extend(inner),
            (c, _) => items.push(c),
        }
    }
    if all {
        Check::All(items)
    } else {
        Check::Any(items)
    }
}

/// The maximal chains of `||` in `expr` outside any negation, each as its
/// alternatives.
fn or_chains<'e>(expr: &'e Expr, chains: &mut Vec<Vec<&'e Expr>>) {
    match &expr.kind {
        ExprKind::Or(..) => {
            let mut alternatives = Vec::new();
            let mut pending = vec![expr];
            while let Some(e) = pending.pop() {
                match &e.kind {
                    ExprKind::Or(a, b) => pending.extend([b.as_ref(), a.as_ref()]),
                    _ => alternatives.push(e),
                }
            }
            for alternative in &alternatives {
                or_chains(alternative, chains);
            }
            chains.push(alternatives);
        }
        ExprKind::And(a, b) => {
            or_chains(a, chains);
            or_chains(b, chains);
        }
        _ => {}
    }
}

/// The string constants among `operands`: a `confirmed(...)`'s words.
fn word_constants(operands: &[Operand]) -> Vec<turnstile_rules::Symbol> {
    operands
        .iter()
        .filter_map(|o| match o {
            Operand::Const(Value::Str(word)) => Some(*word),
            _ => None,
        })
        .collect()
}

/// Pushes onto `paths` the paths below `path` (of type `ty`) to strings
/// and enums, through objects' fields and at most one list (`in_list`:
/// one was passed), each item of a list in turn.
fn named_paths(path: Vec<ArgStep>, ty: &ValueType, in_list: bool, paths: &mut Vec<ArgPath>) {
    match ty {
        ValueType::Str | ValueType::Enum(_) => paths.push(ArgPath(path)),
        ValueType::List(inner) if !in_list => {
            let mut each = path;
            each.push(ArgStep::Each);
            named_paths(each, inner, true, paths);
        }
        ValueType::Object(fields) => {
            for (field, field_ty) in fields {
                let mut below = path.clone();
                below.push(ArgStep::Key(*field));
                named_paths(below, field_ty, in_list, paths);
            }
        }
        _ => {}
    }
}

/// Whether `confirmed(...)` over `values` in a write's guard is the
/// agent's summary of the call's own arguments, with no words of its own:
/// no constant, and an argument among them.
fn states_items(tool: &Tool, values: &[Operand]) -> bool {
    tool.kind == ToolKind::Write
        && tool.side == Side::Agent
        && values.iter().any(|v| matches!(v, Operand::Arg(_)))
        && !values.iter().any(|v| matches!(v, Operand::Const(_)))
}

/// Whether values of a type tell one item of a list from another as a
/// person names them: ids, names, enum literals, amounts and dates. A
/// count or a flag is spelt too loosely ("2 bags", a list's "1.").
fn pairs_by_value(ty: &ValueType) -> bool {
    matches!(
        ty,
        ValueType::Str | ValueType::Enum(_) | ValueType::Amount | ValueType::Date
    )
}

/// Whether an operand is computed rather than carried by a call or held by
/// a read: an aggregate, arithmetic, a count of past calls or the clock.
fn is_computed(operand: &Operand) -> bool {
    matches!(
        operand,
        Operand::Aggregate { .. }
            | Operand::Arith { .. }
            | Operand::CountEqual { .. }
            | Operand::CountEvents(_)
            | Operand::Now
    )
}
