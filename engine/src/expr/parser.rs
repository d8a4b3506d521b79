//! Recursive-descent parser for check expressions. Errors carry the byte span
//! of the offending token so diagnostics point at the exact column.

use std::ops::Range;

use turnstile_rules::CmpOp;

use crate::expr::ast::{Aggregate, Constraint, EventKind, Expr, ExprKind, Ident, Lit, PathSeg};
use crate::expr::lexer::{Tok, Token, lex};

/// Why an expression does not parse, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// What is wrong, in words.
    pub message: String,
    /// Byte range within the expression text.
    pub span: Range<usize>,
}

/// Nesting beyond this is refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

/// Parses a check expression (see the grammar in `expr`).
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    let tokens = lex(text).map_err(|e| ParseError {
        message: e.message,
        span: e.span,
    })?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        end: text.len(),
        depth: 0,
    };
    if parser.tokens.is_empty() {
        return Err(ParseError {
            message: "empty expression".to_owned(),
            span: 0..text.len(),
        });
    }
    let expr = parser.expr()?;
    if let Some(token) = parser.peek_token() {
        return Err(ParseError {
            message: format!(
                "unexpected {} after a complete expression; combine conditions with && or ||",
                token.tok.describe()
            ),
            span: token.span.clone(),
        });
    }
    Ok(expr)
}

/// Parses just an operand (used by remediation template placeholders).
pub fn parse_operand(text: &str) -> Result<Expr, ParseError> {
    let expr = parse(text)?;
    match expr.kind {
        ExprKind::Or(..)
        | ExprKind::And(..)
        | ExprKind::Not(..)
        | ExprKind::Compare { .. }
        | ExprKind::InList { .. }
        | ExprKind::InEnum { .. }
        | ExprKind::InOperand { .. } => Err(ParseError {
            message: "a placeholder shows a value; conditions are not allowed here".to_owned(),
            span: expr.span,
        }),
        _ => Ok(expr),
    }
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek_token(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek(&self) -> Option<&Tok> {
        self.peek_token().map(|t| &t.tok)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        if token.is_some() {
            self.pos += 1;
        }
        token
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Where the last consumed token ends (the text's end before any token).
    fn previous_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|last| self.tokens.get(last))
            .map_or(self.end, |t| t.span.end)
    }

    fn here(&self) -> Range<usize> {
        self.peek_token()
            .map_or(self.end..self.end, |t| t.span.clone())
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            message: message.into(),
            span: self.here(),
        })
    }

    fn expect(&mut self, tok: &Tok, what: &str) -> Result<Range<usize>, ParseError> {
        match self.peek_token() {
            Some(t) if &t.tok == tok => {
                let span = t.span.clone();
                self.pos += 1;
                Ok(span)
            }
            Some(t) => {
                let found = t.tok.describe();
                self.error(format!("expected {what}, found {found}"))
            }
            None => self.error(format!("expected {what}, found the end of the expression")),
        }
    }

    fn ident(&mut self, what: &str) -> Result<Ident, ParseError> {
        match self.peek_token() {
            Some(Token {
                tok: Tok::Ident(name),
                span,
            }) => {
                let ident = Ident {
                    name: name.clone(),
                    span: span.clone(),
                };
                self.pos += 1;
                Ok(ident)
            }
            Some(t) => {
                let found = t.tok.describe();
                self.error(format!("expected {what}, found {found}"))
            }
            None => self.error(format!("expected {what}, found the end of the expression")),
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error("expression nested too deeply");
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let mut lhs = self.and()?;
        while self.eat(&Tok::OrOr) {
            let rhs = self.and()?;
            lhs = join(lhs, rhs, ExprKind::Or);
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut lhs = self.unary()?;
        while self.eat(&Tok::AndAnd) {
            let rhs = self.unary()?;
            lhs = join(lhs, rhs, ExprKind::And);
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if let Some(Token {
            tok: Tok::Bang,
            span,
        }) = self.peek_token().cloned()
        {
            self.pos += 1;
            self.enter()?;
            let inner = self.unary()?;
            self.depth -= 1;
            let span = span.start..inner.span.end;
            return Ok(Expr {
                kind: ExprKind::Not(Box::new(inner)),
                span,
            });
        }
        self.compare()
    }

    fn compare(&mut self) -> Result<Expr, ParseError> {
        let lhs = self.sum()?;
        if let Some(op) = self.peek().and_then(cmp_op) {
            self.pos += 1;
            let rhs = self.sum()?;
            let span = lhs.span.start..rhs.span.end;
            return Ok(Expr {
                kind: ExprKind::Compare {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            });
        }
        if matches!(self.peek(), Some(Tok::Ident(k)) if k == "in") {
            self.pos += 1;
            return self.membership(lhs);
        }
        Ok(lhs)
    }

    fn membership(&mut self, operand: Expr) -> Result<Expr, ParseError> {
        if matches!(self.peek(), Some(Tok::Ident(k)) if k == "enum") {
            self.pos += 1;
            self.expect(&Tok::LParen, "`(` after `enum`")?;
            let name = self.ident("an enum name")?;
            let close = self.expect(&Tok::RParen, "`)`")?;
            let span = operand.span.start..close.end;
            return Ok(Expr {
                kind: ExprKind::InEnum {
                    operand: Box::new(operand),
                    name,
                },
                span,
            });
        }
        if self.peek() != Some(&Tok::LBracket) {
            let list = self.operand()?;
            let span = operand.span.start..list.span.end;
            return Ok(Expr {
                kind: ExprKind::InOperand {
                    operand: Box::new(operand),
                    list: Box::new(list),
                },
                span,
            });
        }
        self.expect(&Tok::LBracket, "`[`")?;
        let mut set = Vec::new();
        if !self.eat(&Tok::RBracket) {
            loop {
                set.push(self.operand()?);
                if self.eat(&Tok::Comma) {
                    continue;
                }
                self.expect(&Tok::RBracket, "`,` or `]`")?;
                break;
            }
        }
        let end = self.previous_end();
        let span = operand.span.start..end;
        Ok(Expr {
            kind: ExprKind::InList {
                operand: Box::new(operand),
                set,
            },
            span,
        })
    }

    /// `product (('+' | '-') product)*`, left-associative.
    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut lhs = self.product()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Plus) => turnstile_rules::ArithOp::Add,
                Some(Tok::Minus) => turnstile_rules::ArithOp::Sub,
                _ => return Ok(lhs),
            };
            self.pos += 1;
            let rhs = self.product()?;
            lhs = arith(op, lhs, rhs);
        }
    }

    /// `operand ('*' operand)*`.
    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut lhs = self.operand()?;
        while self.eat(&Tok::Star) {
            let rhs = self.operand()?;
            lhs = arith(turnstile_rules::ArithOp::Mul, lhs, rhs);
        }
        Ok(lhs)
    }

    fn operand(&mut self) -> Result<Expr, ParseError> {
        let Some(token) = self.next() else {
            return self.error("expected a value, found the end of the expression");
        };
        let span = token.span.clone();
        let lit = |lit: Lit| {
            Ok(Expr {
                kind: ExprKind::Lit(lit),
                span: span.clone(),
            })
        };
        match token.tok {
            Tok::Str(s) => lit(Lit::Str(s)),
            Tok::Decimal(d) => lit(Lit::Decimal(d)),
            Tok::Int(i) => match i.parse::<i64>() {
                Ok(v) => lit(Lit::Int(v)),
                Err(_) => Err(ParseError {
                    message: format!("integer {i} is out of range"),
                    span,
                }),
            },
            Tok::Var(name) => Ok(Expr {
                kind: ExprKind::Var(Ident {
                    name,
                    span: span.clone(),
                }),
                span,
            }),
            Tok::LParen => {
                let inner = self.expr()?;
                let close = self.expect(&Tok::RParen, "`)`")?;
                Ok(Expr {
                    kind: inner.kind,
                    span: span.start..close.end,
                })
            }
            Tok::Ident(name) => self.named(name, span),
            other => Err(ParseError {
                message: format!("expected a value, found {}", other.describe()),
                span,
            }),
        }
    }

    fn named(&mut self, name: String, span: Range<usize>) -> Result<Expr, ParseError> {
        let start = span.start;
        let with = |kind, end: usize| {
            Ok(Expr {
                kind,
                span: start..end,
            })
        };
        match name.as_str() {
            "true" => return with(ExprKind::Lit(Lit::Bool(true)), span.end),
            "false" => return with(ExprKind::Lit(Lit::Bool(false)), span.end),
            "args" | "result" => {
                let (path, end) = self.path(span.end)?;
                let kind = if name == "args" {
                    ExprKind::Args(path)
                } else {
                    ExprKind::Result(path)
                };
                return with(kind, end);
            }
            _ => {}
        }
        if self.eat(&Tok::LParen) {
            return self.call(name, span);
        }
        if self.eat(&Tok::LBracket) {
            let id = self.expr()?;
            self.expect(&Tok::RBracket, "`]`")?;
            self.expect(&Tok::Dot, "`.` and a field name")?;
            let field = self.ident("a field name")?;
            let end = field.span.end;
            return with(
                ExprKind::Field {
                    entity: Ident { name, span },
                    id: Box::new(id),
                    field,
                },
                end,
            );
        }
        Err(ParseError {
            message: format!(
                "`{name}` is not a value here; write a variable as `${name}`, an entity field as `{name}[id].field`, or quote a string literal"
            ),
            span,
        })
    }

    fn call(&mut self, name: String, span: Range<usize>) -> Result<Expr, ParseError> {
        let aggregate = match name.as_str() {
            "sum" => Some(Aggregate::Sum),
            "count" => Some(Aggregate::Count),
            "min" => Some(Aggregate::Min),
            "max" => Some(Aggregate::Max),
            _ => None,
        };
        let kind = if let Some(op) = aggregate {
            let of = self.expr()?;
            if op == Aggregate::Count && self.eat(&Tok::Comma) {
                let value = self.sum()?;
                ExprKind::CountEqual {
                    of: Box::new(of),
                    value: Box::new(value),
                }
            } else {
                ExprKind::Aggregate {
                    op,
                    of: Box::new(of),
                }
            }
        } else if name == "called" || name == "succeeded" {
            let kind = if name == "called" {
                EventKind::Called
            } else {
                EventKind::Succeeded
            };
            let tool = self.ident("a tool name")?;
            let mut constraints = Vec::new();
            while self.eat(&Tok::Comma) {
                constraints.push(self.constraint()?);
            }
            ExprKind::Event {
                kind,
                tool,
                constraints,
            }
        } else if name == "said" {
            let who = self.ident("`user`, `agent` or `ticket`")?;
            let speaker = match who.name.as_str() {
                "user" => turnstile_rules::Speaker::User,
                "agent" => turnstile_rules::Speaker::Agent,
                "ticket" => turnstile_rules::Speaker::Ticket,
                _ => {
                    return Err(ParseError {
                        message: format!(
                            "`said` takes `user`, `agent` or `ticket` first, found `{}`",
                            who.name
                        ),
                        span: who.span,
                    });
                }
            };
            self.expect(&Tok::Comma, "`,` and the value said")?;
            let value = self.sum()?;
            ExprKind::Said {
                speaker,
                value: Box::new(value),
            }
        } else if name == "confirmed" {
            let mut values = vec![self.sum()?];
            while self.eat(&Tok::Comma) {
                values.push(self.sum()?);
            }
            ExprKind::Confirmed(values)
        } else if name == "now" {
            ExprKind::Now
        } else if let Some(unit) = duration_unit(&name) {
            ExprKind::Duration {
                unit,
                of: Box::new(self.sum()?),
            }
        } else if name == "date" || name == "datetime" {
            let Some(Token {
                tok: Tok::Str(text),
                ..
            }) = self.peek_token().cloned()
            else {
                return self.error(format!(
                    "`{name}(...)` takes a quoted date such as \"2024-05-15\""
                ));
            };
            self.pos += 1;
            ExprKind::Lit(if name == "date" {
                Lit::Date(text)
            } else {
                Lit::DateTime(text)
            })
        } else {
            return Err(ParseError {
                message: format!(
                    "unknown function `{name}`; expected sum, count, min, max, called, succeeded, said, confirmed, date, datetime, now, days, hours or minutes"
                ),
                span,
            });
        };
        let close = self.expect(&Tok::RParen, "`)`")?;
        Ok(Expr {
            kind,
            span: span.start..close.end,
        })
    }

    fn constraint(&mut self) -> Result<Constraint, ParseError> {
        let first = self.ident("an argument name")?;
        let start = first.span.start;
        let (mut path, end) = self.path(first.span.end)?;
        path.insert(0, PathSeg::Key(first.name));
        let Some(op) = self.peek().and_then(cmp_op) else {
            return self.error("expected a comparison such as `order_id == $order`");
        };
        self.pos += 1;
        let value = self.operand()?;
        Ok(Constraint {
            path,
            path_span: start..end,
            op,
            value,
        })
    }

    /// `.name`, `[n]`, `[*]` segments; returns them and the end offset.
    fn path(&mut self, mut end: usize) -> Result<(Vec<PathSeg>, usize), ParseError> {
        let mut path = Vec::new();
        loop {
            if self.eat(&Tok::Dot) {
                let key = self.ident("a name after `.`")?;
                end = key.span.end;
                path.push(PathSeg::Key(key.name));
            } else if self.peek() == Some(&Tok::LBracket) {
                self.pos += 1;
                let segment = match self.next().map(|t| t.tok) {
                    Some(Tok::Star) => PathSeg::Each,
                    Some(Tok::Int(i)) => match i.parse::<u32>() {
                        Ok(i) => PathSeg::Index(i),
                        Err(_) => return self.error("list index out of range"),
                    },
                    _ => {
                        self.pos -= 1;
                        return self.error("expected `*` or an index inside `[...]`");
                    }
                };
                end = self.expect(&Tok::RBracket, "`]`")?.end;
                path.push(segment);
            } else {
                return Ok((path, end));
            }
        }
    }
}

fn cmp_op(tok: &Tok) -> Option<CmpOp> {
    Some(match tok {
        Tok::EqEq => CmpOp::Eq,
        Tok::NotEq => CmpOp::Ne,
        Tok::Lt => CmpOp::Lt,
        Tok::Le => CmpOp::Le,
        Tok::Gt => CmpOp::Gt,
        Tok::Ge => CmpOp::Ge,
        _ => return None,
    })
}

fn arith(op: turnstile_rules::ArithOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span.start..rhs.span.end;
    Expr {
        kind: ExprKind::Arith {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span,
    }
}

fn join(lhs: Expr, rhs: Expr, make: fn(Box<Expr>, Box<Expr>) -> ExprKind) -> Expr {
    let span = lhs.span.start..rhs.span.end;
    Expr {
        kind: make(Box::new(lhs), Box::new(rhs)),
        span,
    }
}

/// Seconds per unit of a duration function (`days`, `hours`, `minutes`).
fn duration_unit(name: &str) -> Option<i64> {
    match name {
        "days" => Some(turnstile_rules::Duration::DAY),
        "hours" => Some(turnstile_rules::Duration::HOUR),
        "minutes" => Some(60),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_clock_and_durations() {
        let e = parse("txn[args.id].date >= now() - days(60)").unwrap();
        let ExprKind::Compare { rhs, .. } = e.kind else {
            panic!("expected a comparison")
        };
        let ExprKind::Arith { lhs, rhs, .. } = rhs.kind else {
            panic!("expected now() - days(60)")
        };
        assert_eq!(lhs.kind, ExprKind::Now);
        assert!(matches!(rhs.kind, ExprKind::Duration { unit: 86_400, .. }));
        assert!(parse("now(1)").is_err());
        assert!(parse("hours()").is_err());
        assert!(
            parse("weeks(2) > 0")
                .unwrap_err()
                .message
                .contains("days, hours or minutes")
        );
    }

    #[test]
    fn precedence_and_binds_tighter_than_or() {
        let e = parse("$a == 1 || $b == 2 && !($c == 3)").unwrap();
        let ExprKind::Or(_, rhs) = e.kind else {
            panic!("expected ||")
        };
        assert!(matches!(rhs.kind, ExprKind::And(..)));
    }

    #[test]
    fn parses_fields_args_events_and_aggregates() {
        let e = parse(
            "order[args.order_id].status in enum(order_status) && count(succeeded(modify_pending_order_items, order_id == $order)) < 1 && sum(args.payment_methods[*].amount) >= 10.50",
        )
        .unwrap();
        let text = format!("{e:?}");
        for needle in [
            "InEnum",
            "Event",
            "Succeeded",
            "Aggregate",
            "Each",
            "Decimal(\"10.50\")",
        ] {
            assert!(text.contains(needle), "missing {needle} in {text}");
        }
    }

    #[test]
    fn arithmetic_and_negative_literals() {
        let e = parse("2 * $n + 1 == 5").unwrap();
        let ExprKind::Compare { lhs, .. } = e.kind else {
            panic!("compare")
        };
        let ExprKind::Arith {
            op: turnstile_rules::ArithOp::Add,
            lhs: product,
            ..
        } = lhs.kind
        else {
            panic!("sum")
        };
        assert!(matches!(
            product.kind,
            ExprKind::Arith {
                op: turnstile_rules::ArithOp::Mul,
                ..
            }
        ));
        let e = parse("$a - 2 >= -3 + $b").unwrap();
        let ExprKind::Compare { lhs, rhs, .. } = e.kind else {
            panic!("compare")
        };
        assert!(matches!(
            lhs.kind,
            ExprKind::Arith {
                op: turnstile_rules::ArithOp::Sub,
                ..
            }
        ));
        let ExprKind::Arith {
            lhs: minus_three, ..
        } = rhs.kind
        else {
            panic!("arith")
        };
        assert_eq!(minus_three.kind, ExprKind::Lit(Lit::Int(-3)));
    }

    #[test]
    fn membership_in_literal_list() {
        let e = parse("args.reason in [\"no longer needed\", \"ordered by mistake\"]").unwrap();
        let ExprKind::InList { set, .. } = e.kind else {
            panic!("expected in-list")
        };
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn errors_point_at_the_column() {
        let err = parse("order[$o].status == ").unwrap_err();
        assert_eq!(err.span, 20..20);
        assert!(err.message.contains("end of the expression"));
        let err = parse("order[$o].status = \"x\"").unwrap_err();
        assert_eq!(err.span, 17..18);
        let err = parse("pending == $x").unwrap_err();
        assert_eq!(err.span, 0..7);
        assert!(err.message.contains("quote a string"));
        let err = parse("frobnicate($x)").unwrap_err();
        assert!(err.message.contains("unknown function"));
        let err = parse("$a == 1 $b").unwrap_err();
        assert_eq!(err.span, 8..10);
        assert!(parse("").is_err());
        assert!(parse("count(args.x[y])").is_err());
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = format!("{}$a{}", "(".repeat(500), ")".repeat(500));
        assert!(
            parse(&text)
                .unwrap_err()
                .message
                .contains("nested too deeply")
        );
        let text = format!("{}$a", "!".repeat(500));
        assert!(parse(&text).is_err());
    }

    #[test]
    fn placeholders_accept_only_values() {
        assert!(parse_operand("order[$o].status").is_ok());
        assert!(parse_operand("$o == 1").is_err());
    }
}
