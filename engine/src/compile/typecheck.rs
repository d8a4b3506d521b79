//! Type checking of check expressions: the types a lowered operand may have,
//! which types compare with which (`unify`), literal coercion (an integer to
//! an amount, a string to a date), enum membership of string literals, and how
//! a type is named in messages. Errors point at the offending sub-expression.
//! The AST walk that calls these rules is `compile::lower`.

use std::ops::Range;

use turnstile_rules::{Amount, CmpOp, Date, DateTime, Operand, Symbol, Value, ValueType};

use crate::bundle::model::Sp;
use crate::compile::Ctx;
use crate::diag::{ProblemKind, RawProblem, did_you_mean, with_article};
use crate::expr::ast::{Expr, ExprKind};
use crate::source::{FileId, Loc};

/// Where the expression text lives, for diagnostics.
#[derive(Clone, Copy)]
pub(crate) struct Site<'s> {
    /// The YAML scalar holding the expression.
    pub sp: &'s Sp<String>,
    /// The file of that scalar.
    pub file: FileId,
    /// Offset of the expression inside the scalar (templates embed several).
    pub shift: usize,
}

/// A lowered operand with its type; `literal` keeps the text of a string
/// literal so it can be checked against an enum or coerced to a date.
pub(crate) struct Typed {
    /// The lowered operand.
    pub operand: Operand,
    /// Its type.
    pub ty: ValueType,
    /// The text of a string literal.
    pub literal: Option<String>,
}

impl Ctx<'_> {
    /// Where `span` (offsets within the expression at `site`) stands in
    /// its file.
    pub(super) fn expr_loc(&self, site: Site<'_>, span: &Range<usize>) -> Loc {
        self.inner_loc(
            site.sp,
            site.file,
            site.shift + span.start..site.shift + span.end,
        )
    }

    /// Reports a problem at `span` of the expression at `site`; returns `None`
    /// so a failing lowering step can `return` it directly.
    pub(super) fn expr_error<T>(
        &mut self,
        site: Site<'_>,
        span: &Range<usize>,
        kind: ProblemKind,
        message: String,
        help: Option<String>,
    ) -> Option<T> {
        let loc = self.expr_loc(site, span);
        let mut problem = RawProblem::new(kind, Some(loc), message).label("here");
        if let Some(help) = help {
            problem = problem.help(help);
        }
        self.report(problem);
        None
    }

    /// Checks that `lhs op rhs` is well-typed and coerces literals to the
    /// other side's type (an integer to an amount, a string to a date).
    pub(super) fn unify(
        &mut self,
        site: Site<'_>,
        expr: &Expr,
        op: CmpOp,
        lhs: Typed,
        rhs: Typed,
    ) -> Option<(Operand, Operand)> {
        let (lt, rt) = (element(&lhs.ty).clone(), element(&rhs.ty).clone());
        // A string literal that is not a value of the enum it is compared
        // with is reported at the literal, with the closest value.
        let literal_side = match (&lt, &rt) {
            (ValueType::Enum(e), ValueType::Str) => Some((*e, rhs.literal.as_deref(), false)),
            (ValueType::Str, ValueType::Enum(e)) => Some((*e, lhs.literal.as_deref(), true)),
            _ => None,
        };
        if let Some((enum_sym, Some(literal), left)) = literal_side
            && let Some((message, help)) = self.enum_literal(enum_sym, literal)
        {
            let span = operand_span(expr, left).clone();
            return self.expr_error(
                site,
                &span,
                ProblemKind::UnknownEnumValue,
                message,
                Some(help),
            );
        }
        let problem = match (&lt, &rt) {
            (ValueType::Enum(_), ValueType::Str) | (ValueType::Str, ValueType::Enum(_)) => None,
            (ValueType::Enum(a), ValueType::Enum(b)) if a != b => Some(format!(
                "enum `{}` cannot be compared with enum `{}`",
                self.interner.resolve(*a),
                self.interner.resolve(*b)
            )),
            (a, b) if a == b || (a.is_numeric() && b.is_numeric()) => None,
            // A date against an instant compares calendar days.
            (ValueType::Date, ValueType::DateTime) | (ValueType::DateTime, ValueType::Date) => None,
            (ValueType::Date | ValueType::DateTime, ValueType::Str) if rhs.literal.is_some() => {
                None
            }
            (ValueType::Str, ValueType::Date | ValueType::DateTime) if lhs.literal.is_some() => {
                None
            }
            (ValueType::Str | ValueType::Enum(_), ValueType::Str | ValueType::Enum(_)) => None,
            _ => Some(format!(
                "cannot compare {} with {}",
                with_article(&self.show_type(&lhs.ty)),
                with_article(&self.show_type(&rhs.ty))
            )),
        };
        if problem.is_none() && op.is_ordering() {
            let orderable = |t: &ValueType| {
                t.is_numeric()
                    || matches!(
                        t,
                        ValueType::Date | ValueType::DateTime | ValueType::Duration
                    )
            };
            if !(orderable(&lt) || orderable(&rt)) {
                let shown = self.show_type(&lhs.ty);
                return self.expr_error(
                    site,
                    &expr.span,
                    ProblemKind::TypeMismatch,
                    format!(
                        "`{}` needs numbers or dates (or durations), found {}",
                        op.symbol(),
                        with_article(&shown)
                    ),
                    None,
                );
            }
        }
        if let Some(message) = problem {
            let help = comparison_help(&lt, &rt, lhs.literal.as_deref().or(rhs.literal.as_deref()));
            return self.expr_error(site, &expr.span, ProblemKind::TypeMismatch, message, help);
        }
        let l = self.coerce(site, expr, lhs.operand, lhs.literal.as_deref(), &rt)?;
        let r = self.coerce(site, expr, rhs.operand, rhs.literal.as_deref(), &lt)?;
        Some((l, r))
    }

    /// Why a string literal is not a value of enum `enum_sym`, if it is not,
    /// and the help line (the closest value, or all of them).
    fn enum_literal(&self, enum_sym: Symbol, literal: &str) -> Option<(String, String)> {
        let name = self.interner.resolve(enum_sym);
        let values = self.enum_values(name);
        if values.iter().any(|v| v == literal) {
            return None;
        }
        let help = did_you_mean(literal, values.iter().map(String::as_str))
            .unwrap_or_else(|| format!("values of `{name}`: {}", values.join(", ")));
        Some((format!("`{literal}` is not a value of enum `{name}`"), help))
    }

    fn enum_values(&self, name: &str) -> Vec<String> {
        self.enum_values.get(name).cloned().unwrap_or_default()
    }

    /// Converts a literal `operand` to `target` where the language allows it
    /// (an integer to an amount, a date string to a date); other operands pass.
    pub(super) fn coerce(
        &mut self,
        site: Site<'_>,
        expr: &Expr,
        operand: Operand,
        literal: Option<&str>,
        target: &ValueType,
    ) -> Option<Operand> {
        match (operand, target) {
            (Operand::Const(Value::Int(i)), ValueType::Amount) => match Amount::from_int(i) {
                Some(a) => Some(Operand::Const(Value::Amount(a))),
                None => self.expr_error(
                    site,
                    &expr.span,
                    ProblemKind::TypeMismatch,
                    format!("{i} overflows an amount"),
                    None,
                ),
            },
            (Operand::Const(Value::Str(_)), ValueType::Date) => {
                match Date::parse(literal.unwrap_or("")) {
                    Ok(d) => Some(Operand::Const(Value::Date(d))),
                    Err(e) => self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::TypeMismatch,
                        e.to_string(),
                        None,
                    ),
                }
            }
            (Operand::Const(Value::Str(_)), ValueType::DateTime) => {
                match DateTime::parse(literal.unwrap_or("")) {
                    Ok(d) => Some(Operand::Const(Value::DateTime(d))),
                    Err(e) => self.expr_error(
                        site,
                        &expr.span,
                        ProblemKind::TypeMismatch,
                        e.to_string(),
                        None,
                    ),
                }
            }
            (operand, _) => Some(operand),
        }
    }

    /// The type as users read it in messages (`list<amount>`, `enum(status)`).
    pub(crate) fn show_type(&self, ty: &ValueType) -> String {
        match ty {
            ValueType::Str => "string".to_owned(),
            ValueType::Int => "integer".to_owned(),
            ValueType::Amount => "amount".to_owned(),
            ValueType::Bool => "bool".to_owned(),
            ValueType::Date => "date".to_owned(),
            ValueType::DateTime => "datetime".to_owned(),
            ValueType::Duration => "duration".to_owned(),
            ValueType::Enum(e) => format!("enum({})", self.interner.resolve(*e)),
            ValueType::List(inner) => format!("list<{}>", self.show_type(inner)),
            ValueType::Object(_) => "object".to_owned(),
        }
    }
}

/// How to fix a comparison of incompatible types, when there is an obvious
/// fix: a number written as a string literal, a number where a duration is.
fn comparison_help(lt: &ValueType, rt: &ValueType, literal: Option<&str>) -> Option<String> {
    let duration_vs_number = (*lt == ValueType::Duration && rt.is_numeric())
        || (lt.is_numeric() && *rt == ValueType::Duration);
    if duration_vs_number {
        return Some("write a duration as `days(n)`, `hours(n)` or `minutes(n)`".to_owned());
    }
    let numeric_vs_string =
        (lt.is_numeric() && *rt == ValueType::Str) || (rt.is_numeric() && *lt == ValueType::Str);
    let literal = literal?;
    (numeric_vs_string && literal.trim().parse::<f64>().is_ok())
        .then(|| format!("write the number without quotes: `{}`", literal.trim()))
}

/// The span of one side of a comparison (`left` or right), or the whole
/// expression when it is not a comparison (a member of an `in [...]` list).
fn operand_span(expr: &Expr, left: bool) -> &Range<usize> {
    match &expr.kind {
        ExprKind::Compare { lhs, rhs, .. } => {
            if left {
                &lhs.span
            } else {
                &rhs.span
            }
        }
        _ => &expr.span,
    }
}

/// The element type of a list, or the type itself: comparisons apply to
/// each element of a list operand.
pub(super) fn element(ty: &ValueType) -> &ValueType {
    match ty {
        ValueType::List(inner) => inner,
        other => other,
    }
}
