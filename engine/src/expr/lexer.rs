//! Tokens of the check expression language.

use std::ops::Range;

/// A token of the expression language.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Var(String),
    Str(String),
    Int(String),
    Decimal(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Dot,
    Star,
    Bang,
    AndAnd,
    OrOr,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
}

impl Tok {
    /// The token as an error message names it.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Var(s) => format!("`${s}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Int(s) | Tok::Decimal(s) => format!("number {s}"),
            other => format!("`{}`", other.text()),
        }
    }

    fn text(&self) -> &'static str {
        match self {
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Dot => ".",
            Tok::Star => "*",
            Tok::Bang => "!",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            _ => "",
        }
    }
}

/// A token with its byte span.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Range<usize>,
}

/// Why the text does not tokenize, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    pub message: String,
    pub span: Range<usize>,
}

/// Splits `text` into tokens; whitespace separates and is dropped.
pub fn lex(text: &str) -> Result<Vec<Token>, LexError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let two = bytes.get(i..i + 2);
        let pair = match two {
            Some(b"&&") => Some(Tok::AndAnd),
            Some(b"||") => Some(Tok::OrOr),
            Some(b"==") => Some(Tok::EqEq),
            Some(b"!=") => Some(Tok::NotEq),
            Some(b"<=") => Some(Tok::Le),
            Some(b">=") => Some(Tok::Ge),
            _ => None,
        };
        if let Some(tok) = pair {
            tokens.push(Token {
                tok,
                span: i..i + 2,
            });
            i += 2;
            continue;
        }
        let single = match c {
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b'[' => Some(Tok::LBracket),
            b']' => Some(Tok::RBracket),
            b'{' => Some(Tok::LBrace),
            b'}' => Some(Tok::RBrace),
            b',' => Some(Tok::Comma),
            b'.' => Some(Tok::Dot),
            b'*' => Some(Tok::Star),
            b'!' => Some(Tok::Bang),
            b'<' => Some(Tok::Lt),
            b'>' => Some(Tok::Gt),
            _ => None,
        };
        if let Some(tok) = single {
            tokens.push(Token {
                tok,
                span: i..i + 1,
            });
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' {
            let (value, end) = lex_string(text, i)?;
            tokens.push(Token {
                tok: Tok::Str(value),
                span: start..end,
            });
            i = end;
            continue;
        }
        // `-` starts a negative literal only where a value is expected.
        let after_value = tokens.last().is_some_and(|t: &Token| {
            matches!(
                t.tok,
                Tok::Ident(_)
                    | Tok::Var(_)
                    | Tok::Str(_)
                    | Tok::Int(_)
                    | Tok::Decimal(_)
                    | Tok::RParen
                    | Tok::RBracket
            )
        });
        if c == b'+' || (c == b'-' && after_value) {
            let tok = if c == b'+' { Tok::Plus } else { Tok::Minus };
            tokens.push(Token {
                tok,
                span: i..i + 1,
            });
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let decimal =
                bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if decimal {
                i += 1;
                while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            let number = text[start..i].to_owned();
            tokens.push(Token {
                tok: if decimal {
                    Tok::Decimal(number)
                } else {
                    Tok::Int(number)
                },
                span: start..i,
            });
            continue;
        }
        let is_var = c == b'$';
        if is_var {
            i += 1;
        }
        let ident_start = i;
        while bytes
            .get(i)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        {
            i += 1;
        }
        if i == ident_start || bytes.get(ident_start).is_some_and(u8::is_ascii_digit) {
            let shown = text[start..].chars().next().unwrap_or(' ');
            let message = if is_var {
                "`$` must be followed by a variable name".to_owned()
            } else if shown == '=' {
                "unexpected character `=`; did you mean `==`?".to_owned()
            } else if shown == '&' || shown == '|' {
                format!("unexpected character `{shown}`; did you mean `{shown}{shown}`?")
            } else {
                format!("unexpected character `{shown}`")
            };
            return Err(LexError {
                message,
                span: start..start + shown.len_utf8().max(1),
            });
        }
        let name = text[ident_start..i].to_owned();
        tokens.push(Token {
            tok: if is_var {
                Tok::Var(name)
            } else {
                Tok::Ident(name)
            },
            span: start..i,
        });
    }
    Ok(tokens)
}

fn lex_string(text: &str, start: usize) -> Result<(String, usize), LexError> {
    let quote = text[start..].chars().next().unwrap_or('"');
    let mut value = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        let at = start + 1 + offset;
        if c == quote {
            return Ok((value, at + 1));
        }
        if c == '\\' {
            match chars.next() {
                Some((_, e @ ('\\' | '"' | '\''))) => value.push(e),
                Some((_, 'n')) => value.push('\n'),
                other => {
                    let escaped = other.map_or(0, |(_, e)| e.len_utf8());
                    return Err(LexError {
                        message: "unknown escape; use \\\\, \\\", \\' or \\n".to_owned(),
                        span: at..at + 1 + escaped,
                    });
                }
            }
            continue;
        }
        value.push(c);
    }
    Err(LexError {
        message: "unterminated string".to_owned(),
        span: start..text.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        lex(text).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_operators_and_literals() {
        assert_eq!(
            toks("order[$o].status != 'x' && -2.5 <= 3"),
            vec![
                Tok::Ident("order".into()),
                Tok::LBracket,
                Tok::Var("o".into()),
                Tok::RBracket,
                Tok::Dot,
                Tok::Ident("status".into()),
                Tok::NotEq,
                Tok::Str("x".into()),
                Tok::AndAnd,
                Tok::Decimal("-2.5".into()),
                Tok::Le,
                Tok::Int("3".into()),
            ]
        );
    }

    #[test]
    fn reports_bad_characters_with_span() {
        let err = lex("a == #").unwrap_err();
        assert_eq!(err.span, 5..6);
        assert!(err.message.contains('#'));
        let err = lex("\"open").unwrap_err();
        assert_eq!(err.message, "unterminated string");
        assert!(lex("$ x").is_err());
    }
}
