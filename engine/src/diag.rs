//! Bundle diagnostics: every problem found while loading, type-checking or
//! validating a bundle, with a stable code, the file/line/column it is about
//! and a help line. Rendered through miette.

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceSpan};
use serde::Serialize;

use crate::source::{Loc, SourceMap};

/// What went wrong, as a closed set: tests and tools match on it, users read
/// its `code()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A file could not be read.
    Io,
    /// A file exceeds the loader's size limit.
    FileTooLarge,
    /// A file is not valid UTF-8.
    NotUtf8,
    /// A file is not valid YAML or does not fit the bundle model.
    Yaml,
    /// A file exceeds the YAML parser's budget (depth, aliases, size).
    YamlBudget,
    /// A node lacks an attribute its type requires.
    MissingAttribute,
    /// A node has an attribute its type does not take.
    UnexpectedAttribute,
    /// A flow, node or variable is defined twice.
    DuplicateId,
    /// A `next` or branch `to` names no node of its flow.
    UnknownNode,
    /// A subflow or the main flow names no defined flow.
    UnknownFlow,
    /// A tool name is not declared in the domain.
    UnknownTool,
    /// An entity name is not declared in the domain.
    UnknownEntity,
    /// An entity has no field of that name.
    UnknownField,
    /// An enum name is not declared in the domain.
    UnknownEnum,
    /// A literal is not a value of its enum.
    UnknownEnumValue,
    /// A `$variable` is not declared under any flow's `vars`.
    UnknownVariable,
    /// An `args` path does not fit the tool's parameters.
    UnknownParam,
    /// A node names a tool of the wrong kind (read vs write).
    WrongToolKind,
    /// A node's actor does not match the side that calls its tool.
    WrongToolSide,
    /// A check expression does not parse.
    ExprSyntax,
    /// A check expression is ill-typed.
    TypeMismatch,
    /// A result path in the domain does not parse.
    BadPath,
    /// A type in the domain does not parse, or an enum has no values.
    BadType,
    /// A flow does not have exactly one entry node.
    EntryCount,
    /// A `return` exit in the main flow.
    MisplacedReturn,
    /// Flows invoke each other in a cycle.
    SubflowCycle,
    /// A node cannot be reached from the entry.
    Unreachable,
    /// No exit can be reached from a node.
    NoExit,
    /// An agent write tool has no authorization node and is not out of scope.
    MissingAuthorization,
    /// An authorization is not followed by a verify node.
    MissingVerify,
    /// An `out_of_scope` tool is not a write tool, or is authorized anyway.
    OutOfScopeConflict,
    /// A decision's branches do not cover every case.
    DecisionIncomplete,
    /// A decision's branches overlap.
    DecisionInconsistent,
    /// Request types are declared but no classifier decision offers them all.
    ClassifierIncomplete,
    /// A remediation template does not parse.
    BadTemplate,
    /// A `cites` entry names a file that cannot be read or a line it does
    /// not have.
    BadCitation,
    /// A `clock:` line that is not `fixed <timestamp>`, `event` or `system`.
    BadClock,
    /// `now()` in a bundle that declares no clock.
    NoClock,
    /// An event predicate's constraint that cannot be decided: a counted
    /// event with more than one constraint or one other than `==`, a
    /// constraint compared with something other than a variable or literal.
    BadConstraint,
    /// A spot marked `# REVIEW:` (a generator's guess) not reviewed yet: a
    /// warning, the bundle still compiles.
    Unreviewed,
    /// A tool's confirmation template that names none of the tool's action
    /// words: a yes to the question the gate asks confirms nothing. A
    /// warning.
    SilentConfirmation,
    /// A `confirmed(args.…, "<word>")` whose word is none of the write's
    /// action words, beside a consent in one disjunction: that alternative
    /// holds without the call's other arguments being compared with the
    /// summary. A warning.
    FormalBesideConsent,
    /// A computed value (`sum(...)`, arithmetic, a count, `now()`) in
    /// `said` or `confirmed`: turns are read for the values calls carry
    /// and reads hold, so it is found only where it equals one of those.
    /// A warning.
    ComputedInDialogue,
}

impl ProblemKind {
    /// The stable code users and tests see, e.g. `turnstile::unknown_node`.
    pub fn code(self) -> &'static str {
        match self {
            ProblemKind::Io => "turnstile::io",
            ProblemKind::FileTooLarge => "turnstile::file_too_large",
            ProblemKind::NotUtf8 => "turnstile::not_utf8",
            ProblemKind::Yaml => "turnstile::yaml",
            ProblemKind::YamlBudget => "turnstile::yaml_budget",
            ProblemKind::MissingAttribute => "turnstile::missing_attribute",
            ProblemKind::UnexpectedAttribute => "turnstile::unexpected_attribute",
            ProblemKind::DuplicateId => "turnstile::duplicate_id",
            ProblemKind::UnknownNode => "turnstile::unknown_node",
            ProblemKind::UnknownFlow => "turnstile::unknown_flow",
            ProblemKind::UnknownTool => "turnstile::unknown_tool",
            ProblemKind::UnknownEntity => "turnstile::unknown_entity",
            ProblemKind::UnknownField => "turnstile::unknown_field",
            ProblemKind::UnknownEnum => "turnstile::unknown_enum",
            ProblemKind::UnknownEnumValue => "turnstile::unknown_enum_value",
            ProblemKind::UnknownVariable => "turnstile::unknown_variable",
            ProblemKind::UnknownParam => "turnstile::unknown_param",
            ProblemKind::WrongToolKind => "turnstile::wrong_tool_kind",
            ProblemKind::WrongToolSide => "turnstile::wrong_tool_side",
            ProblemKind::ExprSyntax => "turnstile::expr_syntax",
            ProblemKind::TypeMismatch => "turnstile::type_mismatch",
            ProblemKind::BadPath => "turnstile::bad_path",
            ProblemKind::BadType => "turnstile::bad_type",
            ProblemKind::EntryCount => "turnstile::entry_count",
            ProblemKind::MisplacedReturn => "turnstile::misplaced_return",
            ProblemKind::SubflowCycle => "turnstile::subflow_cycle",
            ProblemKind::Unreachable => "turnstile::unreachable",
            ProblemKind::NoExit => "turnstile::no_exit",
            ProblemKind::MissingAuthorization => "turnstile::missing_authorization",
            ProblemKind::MissingVerify => "turnstile::missing_verify",
            ProblemKind::OutOfScopeConflict => "turnstile::out_of_scope_conflict",
            ProblemKind::DecisionIncomplete => "turnstile::decision_incomplete",
            ProblemKind::DecisionInconsistent => "turnstile::decision_inconsistent",
            ProblemKind::ClassifierIncomplete => "turnstile::classifier_incomplete",
            ProblemKind::BadTemplate => "turnstile::bad_template",
            ProblemKind::BadCitation => "turnstile::bad_citation",
            ProblemKind::BadClock => "turnstile::bad_clock",
            ProblemKind::NoClock => "turnstile::no_clock",
            ProblemKind::BadConstraint => "turnstile::bad_constraint",
            ProblemKind::Unreviewed => "turnstile::unreviewed",
            ProblemKind::SilentConfirmation => "turnstile::silent_confirmation",
            ProblemKind::FormalBesideConsent => "turnstile::formal_beside_consent",
            ProblemKind::ComputedInDialogue => "turnstile::computed_in_dialogue",
        }
    }

    /// Whether problems of this kind are warnings (the bundle compiles).
    pub fn is_warning(self) -> bool {
        matches!(
            self,
            ProblemKind::Unreviewed
                | ProblemKind::SilentConfirmation
                | ProblemKind::FormalBesideConsent
                | ProblemKind::ComputedInDialogue
        )
    }
}

/// One problem with a bundle, before it is tied to its source text.
#[derive(Clone, Debug)]
pub(crate) struct RawProblem {
    /// What went wrong.
    pub kind: ProblemKind,
    /// What went wrong, in words.
    pub message: String,
    /// Where; absent for whole-bundle problems.
    pub loc: Option<Loc>,
    /// The text under the highlighted span.
    pub label: Option<String>,
    /// How to fix it.
    pub help: Option<String>,
}

impl RawProblem {
    /// A problem without label or help.
    pub fn new(kind: ProblemKind, loc: Option<Loc>, message: impl Into<String>) -> Self {
        RawProblem {
            kind,
            message: message.into(),
            loc,
            label: None,
            help: None,
        }
    }

    /// Adds the text under the highlighted span.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Adds a hint on how to fix it.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// A problem tied to its file, line and column; a miette [`Diagnostic`].
#[derive(Debug, Clone)]
pub struct Problem {
    /// What went wrong.
    pub kind: ProblemKind,
    /// What went wrong, in words.
    pub message: String,
    /// How to fix it, when there is a hint.
    pub help: Option<String>,
    /// The text under the highlighted span.
    pub label: Option<String>,
    /// File as displayed; absent for whole-bundle problems.
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column, in characters.
    pub column: Option<usize>,
    source: Option<NamedSource<Arc<String>>>,
    span: Option<SourceSpan>,
}

impl Problem {
    /// Ties a raw problem to its file, line and column.
    pub(crate) fn resolve(raw: RawProblem, sources: &SourceMap) -> Problem {
        let located = raw.loc.and_then(|loc| {
            let (source, span) = sources.named_source(loc)?;
            let (line, column) = sources.line_col(loc)?;
            let file = sources.file(loc.file)?.display.clone();
            Some((source, span, file, line, column))
        });
        let (source, span, file, line, column) = match located {
            Some((s, sp, f, l, c)) => (Some(s), Some(sp), Some(f), Some(l), Some(c)),
            None => (None, None, None, None, None),
        };
        Problem {
            kind: raw.kind,
            message: raw.message,
            help: raw.help,
            label: raw.label,
            file,
            line,
            column,
            source,
            span,
        }
    }

    /// `file:line:column`, or the empty string when the problem has no location.
    pub fn location(&self) -> String {
        match (&self.file, self.line, self.column) {
            (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
            (Some(f), _, _) => f.clone(),
            _ => String::new(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.kind.code()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(if self.kind.is_warning() {
            miette::Severity::Warning
        } else {
            miette::Severity::Error
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span?;
        let label = LabeledSpan::new_with_span(self.label.clone(), span);
        Some(Box::new(std::iter::once(label)))
    }
}

/// The closest of `known` to `wanted` (case-insensitive edit distance at
/// most a third of the name, and at most 3), as a "did you mean" hint.
pub(crate) fn did_you_mean<'k>(
    wanted: &str,
    known: impl IntoIterator<Item = &'k str>,
) -> Option<String> {
    let wanted_lower = wanted.to_lowercase();
    let limit = (wanted.chars().count() / 3).clamp(1, 3);
    known
        .into_iter()
        .filter(|k| *k != wanted)
        .map(|k| {
            (
                crate::compile::edit_distance(&k.to_lowercase(), &wanted_lower),
                k,
            )
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, k)| (*d, *k))
        .map(|(_, k)| format!("did you mean `{k}`?"))
}

/// The help line for an unknown name: the closest known one, or the list
/// of all of them under `listed` ("declared tools: a, b").
pub(crate) fn name_hint<'k>(
    wanted: &str,
    known: impl IntoIterator<Item = &'k str> + Clone,
    listed: &str,
) -> String {
    did_you_mean(wanted, known.clone()).unwrap_or_else(|| {
        let all: Vec<&str> = known.into_iter().collect();
        format!("{listed}: {}", all.join(", "))
    })
}

/// `a` or `an` before `word`, as an English reader says it (`an amount`,
/// `a string`, `an enum(status)`, `a user`).
pub(crate) fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o') => "an",
        // "u" sounds like "you" in the words a bundle uses (user, unit).
        _ => "a",
    }
}

/// `word` with its article: `an amount`, `a string`.
pub(crate) fn with_article(word: &str) -> String {
    format!("{} {word}", article(word))
}

/// All problems of one bundle, in the order they were found.
#[derive(Debug, Clone, Default)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    /// Ties every raw problem to its file, line and column, keeping their
    /// order. A mistake in a flow that several nodes invoke is found once
    /// per inlined copy, at the same place with the same words: it is
    /// reported once.
    pub(crate) fn from_raw(raw: Vec<RawProblem>, sources: &SourceMap) -> Problems {
        let mut seen: Vec<(ProblemKind, Option<Loc>, String)> = Vec::new();
        Problems(
            raw.into_iter()
                .filter(|p| {
                    let key = (p.kind, p.loc, p.message.clone());
                    let first = !seen.contains(&key);
                    if first {
                        seen.push(key);
                    }
                    first
                })
                .map(|p| Problem::resolve(p, sources))
                .collect(),
        )
    }

    /// Whether no problem was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many problems were found.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The problems, in the order they were found.
    pub fn iter(&self) -> impl Iterator<Item = &Problem> {
        self.0.iter()
    }

    /// Whether some problem is of `kind`.
    pub fn has(&self, kind: ProblemKind) -> bool {
        self.0.iter().any(|p| p.kind == kind)
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            writeln!(f, "{}: {} [{}]", p.location(), p.message, p.kind.code())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_sound() {
        assert_eq!(with_article("amount"), "an amount");
        assert_eq!(with_article("enum(status)"), "an enum(status)");
        assert_eq!(with_article("integer"), "an integer");
        assert_eq!(with_article("string"), "a string");
        assert_eq!(with_article("user"), "a user");
    }

    #[test]
    fn suggestions_are_close_names_only() {
        let known = ["get_order_details", "cancel_pending_order"];
        assert_eq!(
            did_you_mean("get_order_detail", known).as_deref(),
            Some("did you mean `get_order_details`?")
        );
        assert_eq!(did_you_mean("refund", known), None);
        assert_eq!(
            did_you_mean("Pending", ["pending", "processed"]).as_deref(),
            Some("did you mean `pending`?")
        );
    }
}
