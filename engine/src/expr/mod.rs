//! The check expression language: lexer, recursive-descent parser and AST.
//! Type checking and lowering to the rules IR live in `compile::typecheck` and
//! `compile::lower`.
//!
//! ```text
//! expr     := or
//! or       := and ('||' and)*
//! and      := unary ('&&' unary)*
//! unary    := '!' unary | compare
//! compare  := sum (cmpop sum | 'in' '[' operand,* ']' | 'in' 'enum' '(' ident ')' | 'in' operand)?
//! sum      := product (('+' | '-') product)*
//! product  := operand ('*' operand)*
//! operand  := literal | '$' ident | ident '[' expr ']' '.' ident        (entity field)
//!           | 'args' path | 'result' path                              (call arguments / result)
//!           | ('sum'|'count'|'min'|'max') '(' expr ')'
//!           | ('called'|'succeeded') '(' tool (',' path cmpop operand)* ')'
//!           | ('date'|'datetime') '(' string ')' | 'now' '(' ')'
//!           | ('days'|'hours'|'minutes') '(' sum ')' | '(' expr ')'
//! path     := ('.' ident | '[' int ']' | '[' '*' ']')*
//! ```

pub(crate) mod ast;
mod lexer;
mod parser;
pub(crate) mod template;

pub use ast::Expr;
pub use parser::{ParseError, parse};
