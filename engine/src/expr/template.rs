//! Remediation templates: literal text with `{operand}` placeholders (`{{`
//! and `}}` for literal braces). Placeholders are parsed as operands so the
//! compiler can type-check them like any check expression.

use std::ops::Range;

use crate::expr::ast::Expr;
use crate::expr::parser::{ParseError, parse_operand};

/// A piece of a parsed template.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    /// A value to render, with the byte range of its source inside the template.
    Value(Expr, Range<usize>),
}

/// Splits a template into text and parsed placeholders.
pub fn parse_template(text: &str) -> Result<Vec<Piece>, ParseError> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut rest = text.char_indices().peekable();
    while let Some((i, c)) = rest.next() {
        match c {
            '{' if rest.peek().map(|p| p.1) == Some('{') => {
                rest.next();
                literal.push('{');
            }
            '}' if rest.peek().map(|p| p.1) == Some('}') => {
                rest.next();
                literal.push('}');
            }
            '}' => {
                return Err(ParseError {
                    message: "unmatched `}`; write `}}` for a literal brace".to_owned(),
                    span: i..i + 1,
                });
            }
            '{' => {
                let start = i + 1;
                let Some(close) = text[start..].find('}').map(|o| start + o) else {
                    return Err(ParseError {
                        message: "unclosed `{` placeholder".to_owned(),
                        span: i..text.len(),
                    });
                };
                let inner = &text[start..close];
                let expr = parse_operand(inner).map_err(|e| ParseError {
                    message: e.message,
                    span: start + e.span.start..start + e.span.end,
                })?;
                if !literal.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Value(expr, start..close));
                while rest.peek().is_some_and(|&(j, _)| j <= close) {
                    rest.next();
                }
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_text_and_placeholders() {
        let pieces = parse_template("Order {$order} is {order[$order].status}; {{ok}}").unwrap();
        assert_eq!(pieces.len(), 5);
        assert_eq!(pieces[0], Piece::Text("Order ".into()));
        assert!(matches!(pieces[1], Piece::Value(_, ref r) if *r == (7..13)));
        assert_eq!(pieces[4], Piece::Text("; {ok}".into()));
    }

    #[test]
    fn bad_placeholders_are_located() {
        let err = parse_template("Order {$order").unwrap_err();
        assert_eq!(err.span.start, 6);
        let err = parse_template("x {order[} y").unwrap_err();
        assert!(err.span.start >= 3);
        assert!(parse_template("a } b").is_err());
        assert!(parse_template("{$a == 1}").is_err());
    }
}
