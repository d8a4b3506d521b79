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
    Io,
    FileTooLarge,
    NotUtf8,
    Yaml,
    YamlBudget,
    MissingAttribute,
    UnexpectedAttribute,
    DuplicateId,
    UnknownNode,
    UnknownFlow,
    UnknownTool,
    UnknownEntity,
    UnknownField,
    UnknownEnum,
    UnknownEnumValue,
    UnknownVariable,
    UnknownParam,
    WrongToolKind,
    WrongToolSide,
    ExprSyntax,
    TypeMismatch,
    BadPath,
    BadType,
    EntryCount,
    MisplacedReturn,
    SubflowCycle,
    Unreachable,
    NoExit,
    MissingAuthorization,
    MissingVerify,
    OutOfScopeConflict,
    DecisionIncomplete,
    DecisionInconsistent,
    ClassifierIncomplete,
    BadTemplate,
}

impl ProblemKind {
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
        }
    }
}

/// One problem with a bundle, before it is tied to its source text.
#[derive(Clone, Debug)]
pub(crate) struct RawProblem {
    pub kind: ProblemKind,
    pub message: String,
    pub loc: Option<Loc>,
    pub label: Option<String>,
    pub help: Option<String>,
}

impl RawProblem {
    pub fn new(kind: ProblemKind, loc: Option<Loc>, message: impl Into<String>) -> Self {
        RawProblem {
            kind,
            message: message.into(),
            loc,
            label: None,
            help: None,
        }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// A problem tied to its file, line and column; a miette [`Diagnostic`].
#[derive(Debug, Clone)]
pub struct Problem {
    pub kind: ProblemKind,
    pub message: String,
    pub help: Option<String>,
    pub label: Option<String>,
    /// File as displayed, 1-based line and column; absent for whole-bundle problems.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    source: Option<NamedSource<Arc<String>>>,
    span: Option<SourceSpan>,
}

impl Problem {
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

/// All problems of one bundle, in the order they were found.
#[derive(Debug, Clone, Default)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    pub(crate) fn from_raw(raw: Vec<RawProblem>, sources: &SourceMap) -> Problems {
        Problems(
            raw.into_iter()
                .map(|p| Problem::resolve(p, sources))
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Problem> {
        self.0.iter()
    }

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
