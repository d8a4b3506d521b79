//! The compiled domain schema: enums, entities with typed fields, tools with
//! typed parameters and the JSON paths their results carry (and, for an
//! entity keyed by several values, where each part of its id comes from).
//! Also the two small languages the schema uses: type expressions and result
//! paths.

use std::collections::BTreeMap;

use serde::Serialize;
use turnstile_rules::{Symbol, ValueType};

use crate::bundle::model::{Side, ToolKind};

/// A closed enumeration and its literals, in declaration order.
#[derive(Debug, Clone, Serialize)]
pub struct EnumDef {
    /// The enum's name as declared.
    pub name: String,
    /// The name, interned (the tag of `ValueType::Enum`).
    pub symbol: Symbol,
    /// The literals, in declaration order.
    pub values: Vec<String>,
}

/// A kind of record the tools read (an order, a user), with typed fields.
#[derive(Debug, Clone, Serialize)]
pub struct Entity {
    /// The entity's name as declared.
    pub name: String,
    /// The name, interned (the entity of an `Operand::Field`).
    pub symbol: Symbol,
    /// Each field's type, by field name.
    pub fields: BTreeMap<String, ValueType>,
    /// The types of a composite id's parts (`key: [string, date]`: a flight
    /// on one date); empty for an entity identified by one string.
    pub key: Vec<ValueType>,
    /// The `string` fields a person names a record by besides its id
    /// (`aliases:`), as declared.
    pub aliases: Vec<String>,
    /// The nouns people call a record of this kind by, singular: those
    /// declared (`nouns:`), else the entity's name when it is one word.
    pub nouns: Vec<String>,
}

/// One step of a result path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum JsonStep {
    /// `.name`: a member of an object.
    Key(String),
    /// `[n]`: one element of a list.
    Index(usize),
    /// `[*]`: every element of a list.
    EachItem,
    /// `.*`: every value of an object.
    EachValue,
}

/// A path into a tool result: from the result root (`$...`) or from the
/// current element selected by `each` (`.…`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonPath {
    /// Starts at the result root (`$`) rather than at the current element.
    pub from_root: bool,
    /// The steps, in order.
    pub steps: Vec<JsonStep>,
}

impl JsonPath {
    /// Whether the path selects the result itself (`$`).
    pub fn is_root(&self) -> bool {
        self.from_root && self.steps.is_empty()
    }

    /// Whether the path can select several values (it has `[*]` or `.*`).
    pub fn selects_many(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s, JsonStep::EachItem | JsonStep::EachValue))
    }
}

/// Where one part of a composite id comes from: the result record, or an
/// argument of the call (`get_flight_status(flight_number, date)` returns a
/// bare status string: the flight and date it is about are the arguments).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum KeyPart {
    /// A path into the result (from the root or the current record).
    Result(JsonPath),
    /// `args.<name>`: a top-level argument of the call.
    Arg(String),
}

/// A list field holding composite ids of another entity, built element by
/// element from parallel result paths (`flight_date[$.flights[*].flight_number,
/// $.flights[*].date]`: a reservation's flights on their dates).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyField {
    /// The keyed entity the ids are of.
    pub entity: String,
    /// One path per key part, each selecting the same number of values.
    pub parts: Vec<JsonPath>,
}

/// The text of a composite id: its parts' canonical texts (a date as
/// `2024-05-15` however the JSON spelled it), `@`-separated, with `\` and
/// `@` inside a part escaped so two different part lists never give the
/// same id.
pub fn composite_id(parts: &[String]) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('@');
        }
        for c in part.chars() {
            if matches!(c, '\\' | '@') {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

/// How one entity is read out of a tool result.
#[derive(Debug, Clone, Serialize)]
pub struct ReadSpec {
    /// The entity read.
    pub entity: String,
    /// Selects several records (e.g. `$.orders[*]`); absent for one record.
    pub each: Option<JsonPath>,
    /// Where the record's id is, relative to the record (unused with `key`).
    pub id: JsonPath,
    /// For an entity with a composite id: where each part is, in the
    /// entity's `key` order; empty otherwise.
    pub key: Vec<KeyPart>,
    /// List fields of composite ids of another entity, by field name.
    pub key_fields: BTreeMap<String, KeyField>,
    /// Where each field's value is, relative to the record, by field name.
    pub fields: BTreeMap<String, JsonPath>,
    /// A text read: the record's literal id and, per field, the patterns
    /// (`None`: the fallback) and the value each gives.
    pub text: Option<TextRead>,
    /// Amount and integer fields also accept a plain decimal string.
    pub quoted_numbers: bool,
}

impl ReadSpec {
    /// Whether the result must be a JSON object or array: not for a read
    /// whose id comes from the call's arguments and whose every field is the
    /// whole result (`get_flight_status`'s bare status string).
    pub fn needs_structure(&self) -> bool {
        let id_from_args =
            !self.key.is_empty() && self.key.iter().all(|p| matches!(p, KeyPart::Arg(_)));
        !(id_from_args
            && self.each.is_none()
            && self.key_fields.is_empty()
            && self.fields.values().all(JsonPath::is_root))
    }
}

/// A claim the agent may make only after a verifying tool result (a
/// "resolved" after the re-check), from the manifest's `claims`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Claim {
    /// Its name, as reported.
    pub id: String,
    /// Lower-case phrases of an agent message that make it.
    pub phrases: Vec<String>,
    /// Tools one of whose successful results verifies it.
    pub verified_by: Vec<String>,
    /// The verification must follow the latest success of any of these.
    pub since: Vec<String>,
    /// The workflow node reported as unmet.
    pub step: String,
    /// What to do instead.
    pub remediation: String,
}

/// How a plain-text result (a device report) gives entity fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextRead {
    /// The one record's id.
    pub id: String,
    /// Per field, its patterns in order: (substring or fallback, value).
    pub fields: BTreeMap<String, Vec<(Option<String>, String)>>,
}

/// A tool the agent or the user may call, with typed parameters and what its
/// result tells about the domain's entities.
#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    /// The tool's name as the traces spell it.
    pub name: String,
    /// The name, interned (the tool of event facts and filters).
    pub symbol: Symbol,
    /// Who calls it: the agent or the user.
    pub side: Side,
    /// Whether it reads or mutates state.
    pub kind: ToolKind,
    /// Each parameter's type, by parameter name.
    pub params: BTreeMap<String, ValueType>,
    /// The entities a successful result carries.
    pub reads: Vec<ReadSpec>,
    /// Tools one of which must have succeeded before this one is called or
    /// instructed (a diagnosis before its fix).
    pub after: Vec<String>,
    /// Lower-case phrases by which an agent message instructs this tool.
    pub phrases: Vec<String>,
    /// A write's words for its action (declared `action_words`, or the
    /// verb its name opens with): a `confirmed(args.x, w)` of its guard,
    /// `w` a form of one, is the user's consent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// The confirmation request's text, parsed (`None`: the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Vec<ConfirmPiece>>,
    /// How its result can be a part of a list, if it can.
    pub pages: Option<Pages>,
}

/// How a read's result can be a part of a list: decided by the extractor
/// at each result (see `bundle::model::PagesDef`).
#[derive(Debug, Clone, Serialize)]
pub struct Pages {
    /// Arguments that limit or page the result.
    pub limits: Vec<String>,
    /// Where the ids of the records returned are.
    pub records: JsonPath,
    /// The list the result must cover to be whole.
    pub against: Option<CompleteAgainst>,
}

/// The list a paged read must cover: `entity[args.<id_arg>].<field>`.
#[derive(Debug, Clone, Serialize)]
pub struct CompleteAgainst {
    /// The entity holding the list.
    pub entity: String,
    /// The argument whose value is the entity's id.
    pub id_arg: String,
    /// The list field.
    pub field: String,
}

/// A piece of a tool's confirmation template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ConfirmPiece {
    /// Literal text.
    Text(String),
    /// A parameter of the call, rendered as its argument's value.
    Param(String),
}

/// Parses a confirmation template: `{param}` placeholders, `{{` and `}}`
/// for literal braces. `Err`: what is wrong, in words.
pub fn parse_confirmation(text: &str) -> Result<Vec<ConfirmPiece>, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literal.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) if c.is_alphanumeric() || c == '_' => name.push(c),
                        Some(c) => {
                            return Err(format!(
                                "`{c}` in a placeholder: a placeholder is a parameter name, as `{{order_id}}`"
                            ));
                        }
                        None => return Err("a placeholder is not closed with `}`".to_owned()),
                    }
                }
                if name.is_empty() {
                    return Err("an empty placeholder `{}`".to_owned());
                }
                if !literal.is_empty() {
                    pieces.push(ConfirmPiece::Text(std::mem::take(&mut literal)));
                }
                pieces.push(ConfirmPiece::Param(name));
            }
            '}' => return Err("a `}` closes no placeholder (write `}}` for a brace)".to_owned()),
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        pieces.push(ConfirmPiece::Text(literal));
    }
    Ok(pieces)
}

/// The compiled domain: every enum, entity and tool, by name.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Domain {
    /// Enums by name.
    pub enums: BTreeMap<String, EnumDef>,
    /// Entities by name.
    pub entities: BTreeMap<String, Entity>,
    /// Tools by name.
    pub tools: BTreeMap<String, Tool>,
}

impl Domain {
    /// The tool named `name`, if declared.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.get(name)
    }

    /// Agent-side mutating tools: the ones the workflow must authorize.
    pub fn agent_writes(&self) -> impl Iterator<Item = &Tool> {
        self.tools
            .values()
            .filter(|t| t.kind == ToolKind::Write && t.side == Side::Agent)
    }
}

/// A syntax error in a type expression or a path, with its byte range.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// Where, within the text.
    pub span: std::ops::Range<usize>,
}

/// A parsed type expression whose enum names are still unresolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TypeExpr {
    Str,
    Int,
    Amount,
    Bool,
    Date,
    DateTime,
    Enum(String, std::ops::Range<usize>),
    List(Box<TypeExpr>),
    Object(Vec<(String, TypeExpr)>),
}

/// Parses `string`, `integer`, `amount`, `bool`, `date`, `datetime`,
/// `enum(name)`, `list<T>`, `object{name: T, ...}`.
pub(crate) fn parse_type(text: &str) -> Result<TypeExpr, SyntaxError> {
    let mut cursor = Cursor { text, pos: 0 };
    let ty = cursor.ty(0)?;
    cursor.skip_ws();
    if cursor.pos < text.len() {
        return Err(cursor.error("unexpected text after the type"));
    }
    Ok(ty)
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn error(&self, message: &str) -> SyntaxError {
        let end = (self.pos + 1).min(self.text.len());
        SyntaxError {
            message: message.to_owned(),
            span: self.pos..end.max(self.pos),
        }
    }

    fn word(&mut self) -> (String, std::ops::Range<usize>) {
        self.skip_ws();
        let start = self.pos;
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        (self.text[start..self.pos].to_owned(), start..self.pos)
    }

    fn punct(&mut self, c: char) -> Result<(), SyntaxError> {
        self.skip_ws();
        if self.text[self.pos..].starts_with(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{c}`")))
        }
    }

    fn ty(&mut self, depth: usize) -> Result<TypeExpr, SyntaxError> {
        if depth > 16 {
            return Err(self.error("type nested too deeply"));
        }
        let (word, span) = self.word();
        Ok(match word.as_str() {
            "string" => TypeExpr::Str,
            "integer" => TypeExpr::Int,
            "amount" => TypeExpr::Amount,
            "bool" => TypeExpr::Bool,
            "date" => TypeExpr::Date,
            "datetime" => TypeExpr::DateTime,
            "enum" => {
                self.punct('(')?;
                let (name, span) = self.word();
                if name.is_empty() {
                    return Err(self.error("expected an enum name"));
                }
                self.punct(')')?;
                TypeExpr::Enum(name, span)
            }
            "list" => {
                self.punct('<')?;
                let inner = self.ty(depth + 1)?;
                self.punct('>')?;
                TypeExpr::List(Box::new(inner))
            }
            "object" => {
                self.punct('{')?;
                let mut fields = Vec::new();
                loop {
                    self.skip_ws();
                    if self.text[self.pos..].starts_with('}') {
                        self.pos += 1;
                        break;
                    }
                    let (name, _) = self.word();
                    if name.is_empty() {
                        return Err(self.error("expected a field name"));
                    }
                    self.punct(':')?;
                    fields.push((name, self.ty(depth + 1)?));
                    self.skip_ws();
                    if self.text[self.pos..].starts_with(',') {
                        self.pos += 1;
                    }
                }
                TypeExpr::Object(fields)
            }
            _ => {
                return Err(SyntaxError {
                    message: format!(
                        "unknown type `{word}`; expected string, integer, amount, bool, date, datetime, enum(name), list<T> or object{{...}}"
                    ),
                    span: if span.is_empty() {
                        span.start..span.start + 1
                    } else {
                        span
                    },
                });
            }
        })
    }
}

/// Parses a result path: `$`, `$.a.b[0]`, `$.items[*].price`,
/// `$.payment_methods.*`, `.`, `.id`.
pub(crate) fn parse_json_path(text: &str) -> Result<JsonPath, SyntaxError> {
    let (from_root, mut pos) = if text.starts_with('$') {
        (true, 1)
    } else if text.starts_with('.') {
        (false, 0)
    } else {
        return Err(SyntaxError {
            message: "a path starts with `$` (the result) or `.` (the current element)".to_owned(),
            span: 0..text.len().clamp(1, 1),
        });
    };
    let mut steps = Vec::new();
    let bytes = text.as_bytes();
    let error = |message: &str, at: usize| SyntaxError {
        message: message.to_owned(),
        span: at..(at + 1).min(text.len()).max(at),
    };
    if !from_root && text == "." {
        return Ok(JsonPath { from_root, steps });
    }
    while let Some(&byte) = bytes.get(pos) {
        match byte {
            b'.' if bytes.get(pos + 1) == Some(&b'*') => {
                steps.push(JsonStep::EachValue);
                pos += 2;
            }
            b'.' => {
                let start = pos + 1;
                let mut end = start;
                while bytes
                    .get(end)
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    end += 1;
                }
                if end == start {
                    return Err(error("expected a field name after `.`", start));
                }
                steps.push(JsonStep::Key(text[start..end].to_owned()));
                pos = end;
            }
            b'[' => {
                let Some(close) = text[pos..].find(']').map(|c| pos + c) else {
                    return Err(error("unclosed `[`", pos));
                };
                let inner = &text[pos + 1..close];
                if inner == "*" {
                    steps.push(JsonStep::EachItem);
                } else {
                    let index = inner
                        .parse::<usize>()
                        .map_err(|_| error("expected `*` or an index inside `[...]`", pos + 1))?;
                    steps.push(JsonStep::Index(index));
                }
                pos = close + 1;
            }
            _ => return Err(error("expected `.name`, `.*`, `[n]` or `[*]`", pos)),
        }
    }
    Ok(JsonPath { from_root, steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_types() {
        assert_eq!(parse_type("amount").unwrap(), TypeExpr::Amount);
        assert_eq!(
            parse_type("list<enum(cabin)>").unwrap(),
            TypeExpr::List(Box::new(TypeExpr::Enum("cabin".into(), 10..15)))
        );
        let TypeExpr::List(inner) =
            parse_type("list<object{payment_id: string, amount: amount}>").unwrap()
        else {
            panic!("list")
        };
        assert!(matches!(*inner, TypeExpr::Object(ref f) if f.len() == 2));
    }

    #[test]
    fn type_errors_are_located() {
        let err = parse_type("list<strng>").unwrap_err();
        assert_eq!(err.span, 5..10);
        assert!(parse_type("enum()").is_err());
        assert!(parse_type("list<string").is_err());
        assert!(parse_type("string extra").is_err());
    }

    #[test]
    fn parses_paths() {
        let p = parse_json_path("$.items[*].price").unwrap();
        assert!(p.from_root && p.selects_many());
        assert_eq!(p.steps.len(), 3);
        let p = parse_json_path("$.payment_methods.*").unwrap();
        assert_eq!(p.steps[1], JsonStep::EachValue);
        assert_eq!(parse_json_path(".").unwrap().steps, vec![]);
        assert_eq!(parse_json_path("$").unwrap().steps, vec![]);
        assert_eq!(
            parse_json_path(".id").unwrap().steps,
            vec![JsonStep::Key("id".into())]
        );
        assert!(parse_json_path("items").is_err());
        assert!(parse_json_path("$.a[x]").is_err());
        assert!(parse_json_path("$.").is_err());
    }
}
