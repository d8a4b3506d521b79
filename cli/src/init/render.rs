//! The files of a new bundle, as text: `bundle.yaml`, `domain.yaml`,
//! `flows/main.yaml` (classify, then one subflow per request type, answer,
//! hand-off), one `flows/<tool>.yaml` per agent write tool (an authorization
//! whose guard is the user's consent to a summary naming the call's ids,
//! then its verify node) and a `policy.md` placeholder. Every guess sits
//! under a `# REVIEW:` comment, which `turnstile check` reports as a warning
//! until it is deleted.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::guess::{self, KindGuess};
use super::schemas::{DeclaredKind, ToolSpec};
use turnstile_engine::REVIEW_MARKER;

/// One file to write: its path inside the bundle and its text.
pub struct File {
    pub path: String,
    pub text: String,
}

/// A tool with the decisions made about it.
pub struct Decided<'a> {
    pub spec: &'a ToolSpec,
    pub kind: KindGuess,
    /// The request type (and flow, and main's subflow node) of an agent write.
    pub request: Option<String>,
}

/// Node ids main uses itself; a request named like one gets a suffix.
const MAIN_IDS: [&str; 9] = [
    "start",
    "classify",
    "answer",
    "handoff",
    "done",
    "end_general",
    "end_transfer",
    "general",
    "transfer",
];

/// The decisions for every tool: its kind, and a request type per agent write.
pub fn decide(tools: &[ToolSpec]) -> Vec<Decided<'_>> {
    let mut taken: BTreeSet<String> = MAIN_IDS.iter().map(|s| (*s).to_owned()).collect();
    tools
        .iter()
        .map(|spec| {
            let kind = guess::kind(spec);
            let request = (kind.kind == DeclaredKind::Write
                && !spec.user_side
                && super::schemas::is_identifier(&spec.name))
            .then(|| {
                let mut name = spec.name.clone();
                while taken.contains(&name) {
                    name.push_str("_request");
                }
                taken.insert(name.clone());
                name
            });
            Decided {
                spec,
                kind,
                request,
            }
        })
        .collect()
}

/// A YAML scalar: plain when that reads back as the same string, else
/// double-quoted (a JSON string is a YAML double-quoted scalar).
pub fn scalar(text: &str) -> String {
    let plain = text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '<' | '>' | '(' | ')' | '-')
        })
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        text.to_owned()
    } else {
        serde_json::Value::from(text).to_string()
    }
}

/// Text for one comment line: line breaks folded, clipped.
fn comment(text: &str) -> String {
    let folded: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() > 200 {
        let cut: String = folded.chars().take(199).collect();
        format!("{cut}…")
    } else {
        folded
    }
}

/// A description's first paragraph (tau2's docstrings go on with `Args:`).
fn summary(description: &str) -> String {
    let first = description
        .split("\n\n")
        .next()
        .unwrap_or(description)
        .trim();
    first.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Up to the first full stop followed by a blank (or the whole text).
fn first_sentence(text: &str) -> String {
    match text.find(". ").and_then(|end| text.get(..=end)) {
        Some(sentence) => sentence.to_owned(),
        None => text.to_owned(),
    }
}

fn review(out: &mut String, indent: &str, what: &str) {
    let _ = writeln!(out, "{indent}{REVIEW_MARKER} {}", comment(what));
}

fn kind_word(kind: DeclaredKind) -> &'static str {
    match kind {
        DeclaredKind::Read => "read",
        DeclaredKind::Write => "write",
        DeclaredKind::Generic => "generic",
    }
}

/// Every file of the bundle.
pub fn bundle(name: &str, source: &str, tools: &[Decided<'_>]) -> Vec<File> {
    let mut files = vec![
        File {
            path: "bundle.yaml".into(),
            text: manifest(name, source, tools),
        },
        File {
            path: "domain.yaml".into(),
            text: domain(source, tools),
        },
        File {
            path: "policy.md".into(),
            text: policy(name),
        },
        File {
            path: "flows/main.yaml".into(),
            text: main_flow(tools),
        },
    ];
    for tool in tools {
        if let Some(request) = &tool.request {
            files.push(File {
                path: format!("flows/{request}.yaml"),
                text: write_flow(request, tool.spec),
            });
        }
    }
    files
}

fn manifest(name: &str, source: &str, tools: &[Decided<'_>]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Written by `turnstile init` from {}. `turnstile check` warns at each\n# REVIEW comment below: check the guess it marks, then delete the comment.",
        comment(source)
    );
    let _ = writeln!(out, "name: {}", scalar(name));
    out.push_str("version: \"1\"\n");
    let _ = writeln!(
        out,
        "description: {}",
        scalar(&format!(
            "The tools of {source}; the policy's flows are still to be written."
        ))
    );
    review(
        &mut out,
        "",
        "policy.md is a placeholder: paste the policy, and cite its lines from the nodes (cites: policy.md:LINE)",
    );
    out.push_str(
        "policy: policy.md\ndomain: domain.yaml\nmain: main\nflows:\n  - flows/main.yaml\n",
    );
    let requests: Vec<&str> = tools.iter().filter_map(|t| t.request.as_deref()).collect();
    for request in &requests {
        let _ = writeln!(out, "  - flows/{request}.yaml");
    }
    let _ = writeln!(
        out,
        "# One request type per agent write tool; the classifier in flows/main.yaml\n# tells them apart (besides the built-in `general` and `transfer`)."
    );
    let listed: Vec<String> = requests.iter().map(|r| scalar(r)).collect();
    let _ = writeln!(out, "request_types: [{}]", listed.join(", "));
    let unnamed: Vec<&Decided<'_>> = tools
        .iter()
        .filter(|t| t.kind.kind == DeclaredKind::Write && !t.spec.user_side && t.request.is_none())
        .collect();
    if !unnamed.is_empty() {
        out.push_str("out_of_scope:\n");
        for tool in unnamed {
            let _ = writeln!(out, "  - tool: {}", scalar(&tool.spec.name));
            review(
                &mut out,
                "    ",
                "a check cannot name this tool (its name is not an identifier): it is blocked; gate it by hand if the agent may call it",
            );
            out.push_str("    reason: \"Its name cannot be written in a check.\"\n");
        }
    }
    out
}

fn domain(source: &str, tools: &[Decided<'_>]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The tools of {}, as `turnstile init` read them. A read tool's result\n# becomes facts only once its `reads:` says which entity it describes and\n# where its fields are (docs/language.md); declare those entities under\n# `entities:` and the checks can use them.",
        comment(source)
    );
    let mut enums = String::new();
    for tool in tools {
        for param in &tool.spec.params {
            if let Some(values) = &param.enum_values {
                let listed: Vec<String> = values.iter().map(|v| scalar(v)).collect();
                let _ = writeln!(
                    enums,
                    "  {}: [{}]",
                    enum_name(&tool.spec.name, &param.name),
                    listed.join(", ")
                );
            }
        }
    }
    if !enums.is_empty() {
        out.push_str("enums:\n");
        out.push_str(&enums);
    }
    out.push_str("tools:\n");
    for tool in tools {
        let spec = tool.spec;
        let _ = writeln!(out, "  - name: {}", scalar(&spec.name));
        let side = if spec.user_side { "user" } else { "agent" };
        let _ = writeln!(out, "    side: {side}");
        if let Some(because) = &tool.kind.because {
            review(&mut out, "    ", &format!("kind {because}"));
        }
        let _ = writeln!(out, "    kind: {}", kind_word(tool.kind.kind));
        if let Some(description) = &spec.description {
            let _ = writeln!(out, "    description: {}", scalar(&summary(description)));
        }
        if spec.params.is_empty() {
            continue;
        }
        out.push_str("    params:\n");
        for param in &spec.params {
            if let Some(why) = &param.approximate {
                review(
                    &mut out,
                    "      ",
                    &format!("the type of `{}` is a guess: {why}", param.name),
                );
            }
            let ty = match &param.enum_values {
                Some(_) => format!("enum({})", enum_name(&spec.name, &param.name)),
                None => param.ty.clone(),
            };
            let _ = write!(out, "      {}: {}", scalar(&param.name), scalar(&ty));
            match &param.description {
                Some(d) => {
                    let _ = writeln!(out, "   # {}", comment(d));
                }
                None => out.push('\n'),
            }
        }
    }
    out
}

/// The enum of a parameter's JSON Schema `enum` values.
fn enum_name(tool: &str, param: &str) -> String {
    let joined = guess::words(tool)
        .into_iter()
        .chain(guess::words(param))
        .collect::<Vec<_>>()
        .join("_");
    if joined.is_empty() {
        "values".to_owned()
    } else {
        joined
    }
}

fn policy(name: &str) -> String {
    format!(
        "# Policy: {name}\n\n<!-- Written by `turnstile init`. Paste here the policy the agent must\n     follow, then cite its lines from the flows' nodes (`cites: policy.md:7`,\n     `cites: [policy.md:7-9]`); `turnstile check` verifies that every cited\n     line exists. -->\n"
    )
}

fn main_flow(tools: &[Decided<'_>]) -> String {
    let handoff = tools.iter().find(|t| {
        guess::is_handoff(t.spec) && t.kind.kind != DeclaredKind::Write && !t.spec.user_side
    });
    let mut out = String::from(
        "flow: main\ndescription: Find out what the user wants, then handle it.\nnodes:\n  - id: start\n    type: entry\n    next: classify\n\n",
    );
    out.push_str("  - id: classify\n    type: decision\n    classifier: true\n    expect: Work out what the user wants.\n    remediation: Ask the user what they need help with today.\n    branches:\n");
    for tool in tools {
        let Some(request) = &tool.request else {
            continue;
        };
        let what = guess::words(&tool.spec.name).join(" ");
        let _ = writeln!(out, "      - label: {}", scalar(request));
        let _ = writeln!(
            out,
            "        judge: {}",
            scalar(&format!("The user asks the agent to {what}."))
        );
        review(
            &mut out,
            "        ",
            &format!(
                "keywords guessed from the name `{}`: what a user asking for it would say",
                tool.spec.name
            ),
        );
        let keywords: Vec<String> = guess::keywords(&tool.spec.name)
            .iter()
            .map(|k| scalar(k))
            .collect();
        let _ = writeln!(out, "        keywords: [{}]", keywords.join(", "));
        let _ = writeln!(out, "        to: {}", scalar(request));
    }
    out.push_str("      - label: general\n        judge: The user only asks for information.\n        keywords: [what, when, where, which, status, how much]\n        to: answer\n");
    out.push_str("      - label: transfer\n        judge: The user asks to talk to a human agent.\n        keywords: [human, person, representative]\n        to: handoff\n\n");
    for tool in tools {
        let Some(request) = &tool.request else {
            continue;
        };
        let _ = writeln!(
            out,
            "  - id: {r}\n    type: subflow\n    flow: {r}\n    next: done\n",
            r = scalar(request)
        );
    }
    out.push_str("  - id: answer\n    type: agent_action\n    expect: Answer from tool results only.\n    judge: The agent answered using only information that tool results provided.\n    remediation: Answer only with facts from tool results.\n    next: end_general\n\n");
    match handoff {
        Some(tool) => {
            let _ = writeln!(
                out,
                "  - id: handoff\n    type: tool_call\n    tool: {}\n    expect: Hand the user over to a person.\n    remediation: {}\n    next: end_transfer\n",
                scalar(&tool.spec.name),
                scalar(&format!("Call {} with a summary of the issue.", tool.spec.name))
            );
        }
        None => out.push_str("  - id: handoff\n    type: agent_action\n    expect: Hand the user over to a person.\n    judge: The agent told the user they are being transferred to a human agent.\n    remediation: Tell the user you are transferring them to a human agent.\n    next: end_transfer\n\n"),
    }
    out.push_str("  - id: done\n    type: exit\n    outcome: normal\n  - id: end_general\n    type: exit\n    outcome: general\n  - id: end_transfer\n    type: exit\n    outcome: transfer\n");
    out
}

fn write_flow(request: &str, tool: &ToolSpec) -> String {
    let what = guess::words(&tool.name).join(" ");
    let mut out = String::new();
    let _ = writeln!(out, "flow: {}", scalar(request));
    let description = tool
        .description
        .as_deref()
        .map(|d| first_sentence(&summary(d)))
        .unwrap_or_else(|| format!("Call {}.", tool.name));
    let _ = writeln!(out, "description: {}", scalar(&description));
    out.push_str("nodes:\n  - id: start\n    type: entry\n    next: authorize\n\n");
    out.push_str("  - id: authorize\n    type: tool_authorization\n");
    let _ = writeln!(out, "    tool: {}", scalar(&tool.name));
    let ids = guess::id_arguments(&tool.params);
    let (keys, of) = if ids.is_empty() {
        (
            guess::summary_arguments(&tool.params),
            "the values it is called with",
        )
    } else {
        (ids, "the ids it acts on")
    };
    if keys.is_empty() {
        let _ = writeln!(
            out,
            "    expect: {}",
            scalar(&format!("The user agreed to {what}."))
        );
        review(
            &mut out,
            "    ",
            "no argument a summary could name, so a judge decides the consent; add the policy's conditions (a guard)",
        );
        let _ = writeln!(
            out,
            "    judge: {}",
            scalar(&format!(
                "After the agent proposed to {what}, the user explicitly agreed (yes)."
            ))
        );
        let _ = writeln!(
            out,
            "    remediation: {}",
            scalar(&format!(
                "Ask the user to confirm with yes before you {what}."
            ))
        );
    } else {
        let names: Vec<&str> = keys
            .iter()
            .map(|k| k.trim_start_matches("args.").trim_end_matches("[*]"))
            .collect();
        let _ = writeln!(
            out,
            "    expect: {}",
            scalar(&format!(
                "The user said yes to a summary naming {of} ({}).",
                names.join(", ")
            ))
        );
        review(
            &mut out,
            "    ",
            &format!(
                "the guard is only the user's yes to a summary naming {of}; add the policy's conditions (reads, statuses, amounts)"
            ),
        );
        let _ = writeln!(
            out,
            "    guard: {}",
            scalar(&format!("confirmed({})", keys.join(", ")))
        );
        let _ = writeln!(
            out,
            "    remediation: {}",
            scalar(&format!(
                "Before you {what}, name its {} in a summary and ask the user to confirm with yes.",
                names.join(", ")
            ))
        );
    }
    out.push_str("    next: verify\n\n  - id: verify\n    type: agent_action\n    expect: The call succeeded.\n");
    let _ = writeln!(
        out,
        "    check: {}",
        scalar(&format!("succeeded({})", tool.name))
    );
    let _ = writeln!(
        out,
        "    remediation: {}",
        scalar(&format!(
            "{} has not succeeded; report the tool's error to the user.",
            tool.name
        ))
    );
    out.push_str("    next: done\n\n  - id: done\n    type: exit\n    outcome: return\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_read_back_as_written() {
        assert_eq!(scalar("cancel_order"), "cancel_order");
        assert_eq!(scalar("list<string>"), "list<string>");
        assert_eq!(scalar("object{a: string}"), "\"object{a: string}\"");
        assert_eq!(scalar("yes"), "\"yes\"");
        assert_eq!(scalar("no longer needed"), "\"no longer needed\"");
        assert_eq!(scalar("a \"b\"\n"), "\"a \\\"b\\\"\\n\"");
    }
}
