//! The guesses `init` makes where a schema is silent, each with the reason
//! it gives the reviewer: whether a tool reads, writes or neither (from what
//! the source declares or hints, else the verb its name starts with, else
//! its description's first verb; a tool nothing tells apart is taken to
//! write, so the gate covers it), which arguments identify the records a
//! write touches (the consent's key values), and the words a request is
//! recognised by.

use super::schemas::{DeclaredKind, ParamSpec, ToolSpec};

/// The kind decided for a tool, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindGuess {
    pub kind: DeclaredKind,
    /// `None` when the source declares it (nothing to review); else why.
    pub because: Option<String>,
}

/// Verbs of tools that only look.
const READ_VERBS: &[&str] = &[
    "get", "list", "search", "find", "fetch", "read", "lookup", "look", "query", "check", "show",
    "describe", "view", "count", "retrieve", "load", "browse", "validate", "verify", "can", "is",
    "has", "preview", "inspect", "estimate", "quote", "track", "download", "explain",
];

/// Verbs of tools that change something.
const WRITE_VERBS: &[&str] = &[
    "create",
    "update",
    "delete",
    "remove",
    "cancel",
    "modify",
    "set",
    "add",
    "send",
    "book",
    "make",
    "pay",
    "refund",
    "exchange",
    "return",
    "reset",
    "toggle",
    "enable",
    "disable",
    "suspend",
    "resume",
    "grant",
    "revoke",
    "freeze",
    "unfreeze",
    "block",
    "unblock",
    "close",
    "open",
    "submit",
    "approve",
    "reject",
    "assign",
    "post",
    "put",
    "patch",
    "write",
    "insert",
    "upsert",
    "move",
    "rename",
    "archive",
    "restore",
    "reboot",
    "connect",
    "disconnect",
    "issue",
    "charge",
    "apply",
    "change",
    "edit",
    "schedule",
    "reserve",
    "register",
    "unregister",
    "subscribe",
    "unsubscribe",
    "wipe",
    "lock",
    "unlock",
    "dismiss",
    "mark",
    "start",
    "stop",
    "execute",
    "run",
    "transfer",
    "wire",
    "replace",
    "upgrade",
    "downgrade",
    "renew",
    "terminate",
    "activate",
    "deactivate",
    "reseat",
    "share",
    "invite",
    "publish",
    "upload",
    "purchase",
    "redeem",
    "credit",
    "debit",
    "void",
    "reverse",
];

/// Verbs of tools that touch no domain data.
const GENERIC_VERBS: &[&str] = &["calculate", "compute", "think", "echo", "format", "convert"];

/// Words of a hand-off to a person.
const HANDOFF_WORDS: &[&str] = &["human", "operator", "representative", "escalate", "handoff"];

/// The words of a tool name: `cancel_pending_order`, `cancelPendingOrder`,
/// `cancel-pending-order` all give `cancel pending order`.
pub fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn kind_of_verb(verb: &str) -> Option<DeclaredKind> {
    if GENERIC_VERBS.contains(&verb) {
        Some(DeclaredKind::Generic)
    } else if READ_VERBS.contains(&verb) {
        Some(DeclaredKind::Read)
    } else if WRITE_VERBS.contains(&verb) {
        Some(DeclaredKind::Write)
    } else {
        None
    }
}

fn kind_name(kind: DeclaredKind) -> &'static str {
    match kind {
        DeclaredKind::Read => "read",
        DeclaredKind::Write => "write",
        DeclaredKind::Generic => "generic",
    }
}

/// Whether the tool hands the user to a person.
pub fn is_handoff(tool: &ToolSpec) -> bool {
    words(&tool.name)
        .iter()
        .any(|w| HANDOFF_WORDS.contains(&w.as_str()))
}

/// Read, write or generic, and why.
pub fn kind(tool: &ToolSpec) -> KindGuess {
    if let Some(kind) = tool.declared {
        return KindGuess {
            kind,
            because: None,
        };
    }
    if let Some(hint) = &tool.hint {
        return KindGuess {
            kind: hint.kind,
            because: Some(format!("{} from {}", kind_name(hint.kind), hint.from)),
        };
    }
    let name_words = words(&tool.name);
    if is_handoff(tool) {
        return KindGuess {
            kind: DeclaredKind::Generic,
            because: Some(
                "generic: its name says it hands the user to a person (gate it with a tool_authorization if the policy says when)"
                    .to_owned(),
            ),
        };
    }
    if let Some((verb, kind)) = name_words
        .first()
        .and_then(|w| kind_of_verb(w).map(|k| (w, k)))
    {
        return KindGuess {
            kind,
            because: Some(format!(
                "{} from the verb `{verb}` its name starts with",
                kind_name(kind)
            )),
        };
    }
    let description_verb = tool.description.as_deref().and_then(|d| {
        d.split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .take(3)
            .map(|w| {
                let lower = w.to_ascii_lowercase();
                // "Gets", "Returns the..." read as their base verb.
                let base = lower.strip_suffix('s').unwrap_or(&lower).to_owned();
                (w.to_owned(), base)
            })
            .find_map(|(w, base)| {
                let base = if base == "return" {
                    "get".to_owned()
                } else {
                    base
                };
                kind_of_verb(&base).map(|k| (w, k))
            })
    });
    if let Some((verb, kind)) = description_verb {
        return KindGuess {
            kind,
            because: Some(format!(
                "{} from `{verb}` in its description",
                kind_name(kind)
            )),
        };
    }
    KindGuess {
        kind: DeclaredKind::Write,
        because: Some(
            "write: neither its name nor its description tells; taken as a write so the gate covers it"
                .to_owned(),
        ),
    }
}

/// The arguments that identify what a write touches: string (or list of
/// string) parameters named like ids (`order_id`, `item_ids`, `lineId`,
/// `iban`, `from_account`, `card_number`), spelled as the check language can name them
/// (`args.order_id`, `args.item_ids[*]`).
pub fn id_arguments(params: &[ParamSpec]) -> Vec<String> {
    params
        .iter()
        .filter(|p| super::schemas::is_identifier(&p.name))
        .filter(|p| is_id_like(&p.name))
        .filter_map(|p| match p.ty.as_str() {
            "string" => Some(format!("args.{}", p.name)),
            "list<string>" => Some(format!("args.{}[*]", p.name)),
            _ => None,
        })
        .collect()
}

/// The arguments a person would read back in a summary when no id does:
/// strings, amounts and dates (and lists of them).
pub fn summary_arguments(params: &[ParamSpec]) -> Vec<String> {
    params
        .iter()
        .filter(|p| super::schemas::is_identifier(&p.name))
        .filter_map(|p| match p.ty.as_str() {
            "string" | "amount" | "date" => Some(format!("args.{}", p.name)),
            "list<string>" | "list<amount>" | "list<date>" => Some(format!("args.{}[*]", p.name)),
            _ => None,
        })
        .collect()
}

fn is_id_like(name: &str) -> bool {
    let name_words = words(name);
    let Some(last) = name_words.last() else {
        return false;
    };
    matches!(
        last.as_str(),
        "id" | "ids"
            | "number"
            | "numbers"
            | "iban"
            | "account"
            | "card"
            | "reference"
            | "code"
            | "sku"
            | "key"
            | "uuid"
    )
}

/// The keywords the offline classifier recognises a request by: the tool
/// name's words as a phrase, and its verb alone.
pub fn keywords(name: &str) -> Vec<String> {
    let name_words = words(name);
    let mut out = Vec::new();
    if name_words.len() > 1 {
        out.push(name_words.join(" "));
    }
    if let Some(verb) = name_words.first() {
        out.push(verb.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: Option<&str>) -> ToolSpec {
        ToolSpec {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            params: Vec::new(),
            declared: None,
            user_side: false,
            hint: None,
        }
    }

    fn param(name: &str, ty: &str) -> ParamSpec {
        ParamSpec {
            name: name.to_owned(),
            ty: ty.to_owned(),
            approximate: None,
            enum_values: None,
            description: None,
        }
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(words("cancelPendingOrder"), ["cancel", "pending", "order"]);
        assert_eq!(
            words("cancel-pending_order"),
            ["cancel", "pending", "order"]
        );
        assert_eq!(words("getV2Status"), ["get", "v2", "status"]);
    }

    #[test]
    fn the_kind_comes_from_the_name_then_the_description() {
        assert_eq!(kind(&tool("get_order", None)).kind, DeclaredKind::Read);
        assert_eq!(kind(&tool("freezeCard", None)).kind, DeclaredKind::Write);
        assert_eq!(kind(&tool("calculate", None)).kind, DeclaredKind::Generic);
        assert_eq!(
            kind(&tool("transfer_to_human_agents", None)).kind,
            DeclaredKind::Generic
        );
        let described = kind(&tool("card_status", Some("Returns the status of a card.")));
        assert_eq!(described.kind, DeclaredKind::Read);
        assert!(
            described
                .because
                .unwrap()
                .contains("`Returns` in its description")
        );
        let unknown = kind(&tool("frobnicate", Some("Does the thing.")));
        assert_eq!(unknown.kind, DeclaredKind::Write);
        assert!(unknown.because.unwrap().contains("taken as a write"));
        let mut declared = tool("frobnicate", None);
        declared.declared = Some(DeclaredKind::Read);
        assert_eq!(kind(&declared).because, None);
    }

    #[test]
    fn id_arguments_are_strings_named_like_ids() {
        let params = [
            param("order_id", "string"),
            param("item_ids", "list<string>"),
            param("cardNumber", "string"),
            param("user_id", "integer"),
            param("reason", "string"),
        ];
        assert_eq!(
            id_arguments(&params),
            ["args.order_id", "args.item_ids[*]", "args.cardNumber"]
        );
        assert_eq!(summary_arguments(&params).len(), 4);
    }
}
