//! Tool definitions as other systems write them, read into one shape
//! ([`ToolSpec`]): OpenAI function-calling schemas (a `tools` array of
//! `{"type":"function","function":{...}}`, a bare list of them or of
//! functions, or a `functions` array), an MCP `tools/list` result (bare or
//! inside its JSON-RPC response), and tau2-bench's `tools.json` (one domain
//! of it). Parameter types come from JSON Schema (or tau2's Python type
//! names) and are mapped to the bundle's types; a type that maps only
//! approximately says so.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

/// The formats `init` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaFormat {
    /// OpenAI function calling: `{"tools": [...]}`, a list of tools or of
    /// functions, or `{"functions": [...]}`.
    Openai,
    /// An MCP `tools/list` result (or the JSON-RPC response carrying it).
    Mcp,
    /// tau2-bench's `tools.json`: every domain's tools (pick one with
    /// `--domain`).
    Tau2,
}

impl SchemaFormat {
    fn name(self) -> &'static str {
        match self {
            SchemaFormat::Openai => "OpenAI function schemas",
            SchemaFormat::Mcp => "an MCP tools/list result",
            SchemaFormat::Tau2 => "tau2-bench tools.json",
        }
    }
}

/// What the source says a tool does, when it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclaredKind {
    Read,
    Write,
    Generic,
}

/// A hint the source gives without declaring the kind (MCP annotations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindHint {
    pub kind: DeclaredKind,
    /// Where the hint came from (`readOnlyHint: true`).
    pub from: String,
}

/// One tool, whatever format it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: Option<String>,
    pub params: Vec<ParamSpec>,
    /// The kind the source declares (tau2's `kind`).
    pub declared: Option<DeclaredKind>,
    /// The side the source declares (tau2's `side`: `user` for device tools).
    pub user_side: bool,
    pub hint: Option<KindHint>,
}

/// One parameter and its bundle type.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    pub name: String,
    /// The bundle type (`string`, `list<object{...}>`, `enum(name)`).
    pub ty: String,
    /// Why the type is only an approximation, when it is.
    pub approximate: Option<String>,
    /// The values of a JSON Schema `enum`, when the type is one.
    pub enum_values: Option<Vec<String>>,
    pub description: Option<String>,
}

/// Why tool definitions could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not JSON: {source}")]
    Json {
        path: String,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "cannot tell the format of {path}: expected OpenAI function schemas, an MCP tools/list result or tau2's tools.json; name it with --format"
    )]
    Unknown { path: String },
    #[error("{path} is tau2's tools.json: name the domain with --domain ({domains})")]
    NoDomain { path: String, domains: String },
    #[error("{path} has no domain `{domain}`; its domains: {domains}")]
    UnknownDomain {
        path: String,
        domain: String,
        domains: String,
    },
    #[error("--domain applies to tau2's tools.json only, and {path} is {format}")]
    DomainNotTau2 { path: String, format: &'static str },
    #[error("{path}: {at}: {what}")]
    Malformed {
        path: String,
        at: String,
        what: String,
    },
    #[error("{path}: no tools found")]
    Empty { path: String },
    #[error("{path}: the tool `{name}` is defined twice (at {first} and {second})")]
    Duplicate {
        path: String,
        name: String,
        first: String,
        second: String,
    },
}

/// A paged MCP result's cursor: more tools than the file holds.
pub fn next_cursor(value: &Value) -> Option<&str> {
    value
        .get("result")
        .unwrap_or(value)
        .get("nextCursor")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
}

/// Reads the tools of `path`, and the cursor of a paged MCP result.
pub fn read(
    path: &Path,
    format: Option<SchemaFormat>,
    domain: Option<&str>,
) -> Result<(Vec<ToolSpec>, Option<String>), SchemaError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| SchemaError::Io {
        path: shown.clone(),
        source,
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|source| SchemaError::Json {
        path: shown.clone(),
        source,
    })?;
    let tools = parse(&shown, &value, format, domain)?;
    Ok((tools, next_cursor(&value).map(str::to_owned)))
}

/// Reads the tools of an already parsed document.
pub fn parse(
    path: &str,
    value: &Value,
    format: Option<SchemaFormat>,
    domain: Option<&str>,
) -> Result<Vec<ToolSpec>, SchemaError> {
    let format = match format {
        Some(f) => f,
        None => detect(value).ok_or_else(|| SchemaError::Unknown {
            path: path.to_owned(),
        })?,
    };
    if domain.is_some() && format != SchemaFormat::Tau2 {
        return Err(SchemaError::DomainNotTau2 {
            path: path.to_owned(),
            format: format.name(),
        });
    }
    let bad = |at: String, what: &str| SchemaError::Malformed {
        path: path.to_owned(),
        at,
        what: what.to_owned(),
    };
    let tools = match format {
        SchemaFormat::Openai => openai(value, &bad)?,
        SchemaFormat::Mcp => mcp(value, &bad)?,
        SchemaFormat::Tau2 => tau2(path, value, domain, &bad)?,
    };
    if tools.is_empty() {
        return Err(SchemaError::Empty {
            path: path.to_owned(),
        });
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, (at, tool)) in tools.iter().enumerate() {
        if let Some(first) = seen.insert(tool.name.as_str(), i) {
            return Err(SchemaError::Duplicate {
                path: path.to_owned(),
                name: tool.name.clone(),
                first: tools.get(first).map(|(a, _)| a.clone()).unwrap_or_default(),
                second: at.clone(),
            });
        }
    }
    Ok(tools.into_iter().map(|(_, t)| t).collect())
}

/// The format a document is in, from its shape.
fn detect(value: &Value) -> Option<SchemaFormat> {
    let value = value.get("result").unwrap_or(value);
    let items = match value {
        Value::Array(items) => items,
        Value::Object(map) => match map.get("tools").or_else(|| map.get("functions")) {
            Some(Value::Array(items)) => items,
            _ => {
                let tau2 = !map.is_empty()
                    && map.values().all(|v| {
                        v.as_array()
                            .is_some_and(|items| items.iter().all(|t| t.get("params").is_some()))
                    });
                return tau2.then_some(SchemaFormat::Tau2);
            }
        },
        _ => return None,
    };
    let first = items.first()?;
    if first.get("inputSchema").is_some() {
        Some(SchemaFormat::Mcp)
    } else if first.get("function").is_some()
        || first.get("parameters").is_some()
        || first.get("type").and_then(Value::as_str) == Some("function")
    {
        Some(SchemaFormat::Openai)
    } else if first.get("name").is_some() && first.get("type").is_none() {
        // A function without parameters.
        Some(SchemaFormat::Openai)
    } else {
        None
    }
}

type Bad<'a> = dyn Fn(String, &str) -> SchemaError + 'a;

fn openai(value: &Value, bad: &Bad<'_>) -> Result<Vec<(String, ToolSpec)>, SchemaError> {
    let (items, base) = match value {
        Value::Array(items) => (items, String::new()),
        Value::Object(map) => match (map.get("tools"), map.get("functions")) {
            (Some(Value::Array(items)), _) => (items, "tools".to_owned()),
            (_, Some(Value::Array(items))) => (items, "functions".to_owned()),
            _ => return Err(bad("$".into(), "expected a `tools` or `functions` array")),
        },
        _ => return Err(bad("$".into(), "expected a list of tools or an object")),
    };
    let mut tools = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{base}[{i}]");
        let function = match item.get("function") {
            Some(f) => f,
            None if item.get("type").and_then(Value::as_str) == Some("function") => {
                return Err(bad(at, "a tool of type function needs `function`"));
            }
            None => item,
        };
        let name =
            text(function, "name").ok_or_else(|| bad(at.clone(), "a function needs a `name`"))?;
        let params = match function.get("parameters") {
            None | Some(Value::Null) => Vec::new(),
            Some(schema) => object_params(schema, &format!("{at}.parameters"), bad)?,
        };
        tools.push((
            at,
            ToolSpec {
                name,
                description: text(function, "description"),
                params,
                declared: None,
                user_side: false,
                hint: None,
            },
        ));
    }
    Ok(tools)
}

fn mcp(value: &Value, bad: &Bad<'_>) -> Result<Vec<(String, ToolSpec)>, SchemaError> {
    let result = value.get("result").unwrap_or(value);
    let items = match result.get("tools") {
        Some(Value::Array(items)) => items,
        _ => return Err(bad("result".into(), "expected `tools`: a list of tools")),
    };
    let mut tools = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("tools[{i}]");
        let name = text(item, "name").ok_or_else(|| bad(at.clone(), "a tool needs a `name`"))?;
        let params = match item.get("inputSchema") {
            Some(schema) => object_params(schema, &format!("{at}.inputSchema"), bad)?,
            None => return Err(bad(at, "a tool needs an `inputSchema`")),
        };
        let annotations = item.get("annotations");
        let flag = |key: &str| {
            annotations
                .and_then(|a| a.get(key))
                .and_then(Value::as_bool)
        };
        let hint = match (flag("readOnlyHint"), flag("destructiveHint")) {
            (Some(true), _) => Some(KindHint {
                kind: DeclaredKind::Read,
                from: "the server's annotation readOnlyHint: true".to_owned(),
            }),
            (Some(false), _) | (_, Some(true)) => Some(KindHint {
                kind: DeclaredKind::Write,
                from: if flag("destructiveHint") == Some(true) {
                    "the server's annotation destructiveHint: true".to_owned()
                } else {
                    "the server's annotation readOnlyHint: false".to_owned()
                },
            }),
            _ => None,
        };
        let description = text(item, "description").or_else(|| {
            annotations
                .and_then(|a| text(a, "title"))
                .or_else(|| text(item, "title"))
        });
        tools.push((
            at,
            ToolSpec {
                name,
                description,
                params,
                declared: None,
                user_side: false,
                hint,
            },
        ));
    }
    Ok(tools)
}

fn tau2(
    path: &str,
    value: &Value,
    domain: Option<&str>,
    bad: &Bad<'_>,
) -> Result<Vec<(String, ToolSpec)>, SchemaError> {
    let Value::Object(domains) = value else {
        return Err(bad("$".into(), "expected an object of domains"));
    };
    let mut sorted: Vec<&str> = domains.keys().map(String::as_str).collect();
    sorted.sort_unstable();
    let names = sorted.join(", ");
    let Some(domain) = domain else {
        return Err(SchemaError::NoDomain {
            path: path.to_owned(),
            domains: names,
        });
    };
    let Some(Value::Array(items)) = domains.get(domain) else {
        return Err(SchemaError::UnknownDomain {
            path: path.to_owned(),
            domain: domain.to_owned(),
            domains: names,
        });
    };
    let mut tools = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{domain}[{i}]");
        let name = text(item, "name").ok_or_else(|| bad(at.clone(), "a tool needs a `name`"))?;
        let declared = match text(item, "kind")
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("read") => Some(DeclaredKind::Read),
            Some("write") => Some(DeclaredKind::Write),
            Some("generic") => Some(DeclaredKind::Generic),
            _ => None,
        };
        let mut params = Vec::new();
        for (j, param) in item
            .get("params")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let p_at = format!("{at}.params[{j}]");
            let pname = text(param, "name")
                .ok_or_else(|| bad(p_at.clone(), "a parameter needs a `name`"))?;
            let python = text(param, "type").unwrap_or_default();
            let (ty, approximate) = python_type(&python);
            params.push(ParamSpec {
                name: pname,
                ty,
                approximate,
                enum_values: None,
                description: None,
            });
        }
        tools.push((
            at,
            ToolSpec {
                name,
                description: text(item, "doc"),
                params,
                declared,
                user_side: text(item, "side").as_deref() == Some("user"),
                hint: None,
            },
        ));
    }
    Ok(tools)
}

fn text(value: &Value, key: &str) -> Option<String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The parameters of an object schema (`properties`, in their order).
fn object_params(schema: &Value, at: &str, bad: &Bad<'_>) -> Result<Vec<ParamSpec>, SchemaError> {
    let Value::Object(schema) = schema else {
        return Err(bad(at.to_owned(), "a parameter schema must be an object"));
    };
    let properties = match schema.get("properties") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(p)) => p,
        Some(_) => return Err(bad(format!("{at}.properties"), "expected an object")),
    };
    // Sorted by name, as the bundle holds them: the same whichever order
    // the JSON library keeps object members in.
    let mut params: Vec<ParamSpec> = properties
        .iter()
        .map(|(name, property)| {
            let mapped = json_type(property, 0);
            ParamSpec {
                name: name.clone(),
                ty: mapped.ty,
                approximate: mapped.approximate,
                enum_values: mapped.enum_values,
                description: property
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }
        })
        .collect();
    params.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(params)
}

/// A JSON Schema type mapped to a bundle type.
struct Mapped {
    ty: String,
    approximate: Option<String>,
    enum_values: Option<Vec<String>>,
}

impl Mapped {
    fn exact(ty: impl Into<String>) -> Mapped {
        Mapped {
            ty: ty.into(),
            approximate: None,
            enum_values: None,
        }
    }

    fn rough(ty: impl Into<String>, why: impl Into<String>) -> Mapped {
        Mapped {
            ty: ty.into(),
            approximate: Some(why.into()),
            enum_values: None,
        }
    }
}

/// Deepest nesting of objects and lists mapped; deeper is `object{}`.
const MAX_DEPTH: usize = 6;

fn json_type(schema: &Value, depth: usize) -> Mapped {
    let Value::Object(schema) = schema else {
        return Mapped::rough("string", "the schema is not an object");
    };
    if depth > MAX_DEPTH {
        return Mapped::rough("object{}", "nested too deeply to type");
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        let texts: Option<Vec<String>> = values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect();
        return match texts {
            Some(texts) if !texts.is_empty() => Mapped {
                ty: "string".to_owned(),
                approximate: None,
                enum_values: Some(texts),
            },
            _ => Mapped::rough("string", "an enum of values that are not all strings"),
        };
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(key) {
            let typed: Vec<&Value> = options
                .iter()
                .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            return match typed.as_slice() {
                [one] => json_type(one, depth + 1),
                _ => Mapped::rough("string", format!("`{key}` of several types")),
            };
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => {
            let named: Vec<&str> = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match named.as_slice() {
                [one] => *one,
                _ => return Mapped::rough("string", "a list of several types"),
            }
        }
        _ if schema.contains_key("properties") => "object",
        _ => return Mapped::rough("string", "no `type` given"),
    };
    match kind {
        "string" => match schema.get("format").and_then(Value::as_str) {
            Some("date") => Mapped::exact("date"),
            Some("date-time") => Mapped::exact("datetime"),
            _ => Mapped::exact("string"),
        },
        "integer" => Mapped::exact("integer"),
        "number" => Mapped::rough(
            "amount",
            "a JSON number: `amount` is an exact decimal; use `integer` for whole counts",
        ),
        "boolean" => Mapped::exact("bool"),
        "array" => match schema.get("items") {
            Some(items) => {
                let inner = json_type(items, depth + 1);
                Mapped {
                    ty: format!("list<{}>", inner.ty),
                    approximate: inner.approximate,
                    enum_values: None,
                }
            }
            None => Mapped::rough("list<string>", "an array without `items`"),
        },
        "object" => object_type(schema, depth),
        other => Mapped::rough("string", format!("the JSON Schema type `{other}`")),
    }
}

fn object_type(schema: &Map<String, Value>, depth: usize) -> Mapped {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Mapped::exact("object{}");
    };
    let mut approximate = None;
    let mut named: Vec<(&String, &Value)> = properties.iter().collect();
    named.sort_by(|a, b| a.0.cmp(b.0));
    let fields: Vec<String> = named
        .into_iter()
        .filter(|(name, _)| is_identifier(name))
        .map(|(name, property)| {
            let inner = json_type(property, depth + 1);
            if approximate.is_none() {
                approximate = inner.approximate;
            }
            format!("{name}: {}", inner.ty)
        })
        .collect();
    if fields.len() < properties.len() && approximate.is_none() {
        approximate = Some("fields whose names are not identifiers are left out".to_owned());
    }
    Mapped {
        ty: format!("object{{{}}}", fields.join(", ")),
        approximate,
        enum_values: None,
    }
}

/// A name the check language can spell after `args.`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// tau2's Python type names (`str`, `List[str]`, `Optional[int]`,
/// `List[FlightInfo | dict]`, `CabinClass`) as bundle types.
fn python_type(python: &str) -> (String, Option<String>) {
    let t = python.trim();
    if let Some(inner) = t
        .strip_prefix("Optional[")
        .and_then(|r| r.strip_suffix(']'))
    {
        return python_type(inner);
    }
    if let Some(inner) = t
        .strip_prefix("List[")
        .or_else(|| t.strip_prefix("list["))
        .and_then(|r| r.strip_suffix(']'))
    {
        let (inner, why) = python_type(inner);
        return (format!("list<{inner}>"), why);
    }
    let union: Vec<&str> = match t.strip_prefix("Union[").and_then(|r| r.strip_suffix(']')) {
        Some(inner) => inner.split(',').map(str::trim).collect(),
        None => t.split('|').map(str::trim).collect(),
    };
    if union.len() > 1 {
        let builtin = union
            .iter()
            .find(|p| matches!(**p, "str" | "dict" | "int" | "float" | "bool"));
        return match builtin {
            Some(&"dict") => (
                "object{}".to_owned(),
                Some(format!(
                    "the Python type `{t}`: its fields are not in tools.json"
                )),
            ),
            Some(b) => {
                let (ty, _) = python_type(b);
                (ty, Some(format!("the Python type `{t}`")))
            }
            None => ("string".to_owned(), Some(format!("the Python type `{t}`"))),
        };
    }
    match t {
        "str" => ("string".to_owned(), None),
        "int" => ("integer".to_owned(), None),
        "float" => (
            "amount".to_owned(),
            Some("a Python float: `amount` is an exact decimal".to_owned()),
        ),
        "bool" => ("bool".to_owned(), None),
        "dict" | "Dict" => (
            "object{}".to_owned(),
            Some("a Python dict: its fields are not in tools.json".to_owned()),
        ),
        "" => ("string".to_owned(), Some("no type given".to_owned())),
        other => (
            "string".to_owned(),
            Some(format!(
                "the Python type `{other}` (an enum? declare its values under `enums` and use `enum(name)`)"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_tools_and_functions_read_alike() {
        let function = json!({
            "name": "cancel_order",
            "description": "Cancel an order.",
            "parameters": {"type": "object", "properties": {
                "order_id": {"type": "string"},
                "amount": {"type": "number"},
                "item_ids": {"type": "array", "items": {"type": "string"}},
                "when": {"type": "string", "format": "date"},
                "reason": {"type": "string", "enum": ["no longer needed", "ordered by mistake"]},
                "note": {"type": ["string", "null"]},
                "address": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}}
            }}
        });
        let wrapped = json!({"tools": [{"type": "function", "function": function.clone()}]});
        let a = parse("a", &wrapped, None, None).unwrap();
        let b = parse("b", &json!([function.clone()]), None, None).unwrap();
        let c = parse("c", &json!({"functions": [function]}), None, None).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        let types: Vec<(&str, &str)> = a[0]
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.ty.as_str()))
            .collect();
        assert_eq!(
            types,
            [
                ("address", "object{city: string, zip: string}"),
                ("amount", "amount"),
                ("item_ids", "list<string>"),
                ("note", "string"),
                ("order_id", "string"),
                ("reason", "string"),
                ("when", "date"),
            ]
        );
        let reason = a[0].params.iter().find(|p| p.name == "reason").unwrap();
        assert_eq!(reason.enum_values.as_ref().unwrap().len(), 2);
        assert!(
            a[0].params
                .iter()
                .find(|p| p.name == "amount")
                .unwrap()
                .approximate
                .is_some()
        );
    }

    #[test]
    fn mcp_results_read_bare_or_in_their_response() {
        let result = json!({"tools": [{
            "name": "get_weather",
            "description": "Get current weather information for a location",
            "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
            "annotations": {"readOnlyHint": true}
        }]});
        let bare = parse("m", &result, None, None).unwrap();
        let rpc = parse(
            "m",
            &json!({"jsonrpc": "2.0", "id": 1, "result": result}),
            None,
            None,
        )
        .unwrap();
        assert_eq!(bare, rpc);
        assert_eq!(bare[0].hint.as_ref().unwrap().kind, DeclaredKind::Read);
    }

    #[test]
    fn python_types_map_to_bundle_types() {
        assert_eq!(python_type("str").0, "string");
        assert_eq!(python_type("List[str]").0, "list<string>");
        assert_eq!(python_type("List[FlightInfo | dict]").0, "list<object{}>");
        assert_eq!(python_type("Union[NetworkModePreference, str]").0, "string");
        assert_eq!(python_type("Union[APNSettings, dict]").0, "object{}");
        assert_eq!(python_type("Optional[int]").0, "integer");
        let (ty, why) = python_type("CabinClass");
        assert_eq!(ty, "string");
        assert!(why.unwrap().contains("enum"));
    }

    #[test]
    fn bad_input_says_where() {
        let err = parse("x", &json!({"tools": [{"type": "function"}]}), None, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x: tools[0]: a tool of type function needs `function`"
        );
        let err = parse(
            "x",
            &json!({"airline": [{"name": "a", "params": []}]}),
            None,
            None,
        )
        .unwrap_err();
        assert!(err.to_string().contains("--domain (airline)"), "{err}");
        let err = parse("x", &json!(42), None, None).unwrap_err();
        assert!(err.to_string().contains("cannot tell the format"));
        let twice = json!([{"name": "a"}, {"name": "a"}]);
        let err = parse("x", &twice, None, None).unwrap_err();
        assert!(
            err.to_string().contains("defined twice (at [0] and [1])"),
            "{err}"
        );
    }
}
