//! The bundle compiler: resolves the domain schema, inlines subflows into one
//! flat FSM, type-checks and lowers every expression to the rules IR, and
//! validates the graph. Every problem found is reported, not just the first.

mod domain;
mod flows;
pub(crate) use flows::edit_distance;
mod lower;
mod nodes;
mod protect;
pub use protect::ProtectedRead;
mod review;
pub use review::MARKER as REVIEW_MARKER;
mod steps;
mod typecheck;
mod validate;
mod words;
pub use words::Phrases;

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use std::collections::BTreeMap;

use turnstile_judge::dialogue::{Lexicon, is_answer_word};
use turnstile_rules::{ArgPath, CompiledChecks, Interner, StepId, Symbol, ValueType};

use crate::bundle::model::{Side, Sp, ToolKind};
use crate::bundle::{LoadedBundle, load};
use crate::diag::{ProblemKind, Problems, RawProblem};
use crate::fsm::{BindSource, Binding, Workflow};
use crate::schema::Domain;
use crate::source::{FileId, Loc, SourceMap, scalar_offsets};

/// A request variable such as `$order`, typed by the entity it identifies.
#[derive(Debug, Clone, Serialize)]
pub struct Variable {
    /// The name without `$`.
    pub name: String,
    /// The entity whose id it holds.
    pub entity: String,
}

/// A dialogue-semantic criterion: what the judge will be asked, and where.
#[derive(Debug, Clone, Serialize)]
pub struct SemanticCriterion {
    /// The qualified id of the node asking.
    pub node: String,
    /// The decision branch label, when the question guards a branch.
    pub branch: Option<String>,
    /// The question, as written in the bundle.
    pub question: String,
}

/// What later stages consume: the FSM, the formal checks and the semantic
/// criteria, with every name interned.
#[derive(Debug, Clone)]
pub struct CompiledBundle {
    /// The bundle's name, from its manifest.
    pub name: String,
    /// The manifest's description.
    pub description: Option<String>,
    /// The bundle's content id: SHA-256 over its files' relative paths and
    /// bytes (cache keys, saved sessions, reports; see
    /// [`crate::bundle::BundleIdentity`]).
    pub hash: String,
    /// The ids builds that hashed displayed paths gave these files, so
    /// what was saved under one of them is migrated, not refused.
    pub legacy_hashes: Vec<String>,
    /// Every name the checks and facts use, interned in first-seen order.
    pub interner: Interner,
    /// Enums, entities and tools.
    pub domain: Domain,
    /// Request variables, by `VarId` order.
    pub variables: Vec<Variable>,
    /// The procedure, subflows inlined.
    pub workflow: Workflow,
    /// The formal checks and the step graph the evaluator decides. Step `i`
    /// for `i < node_count` is graph node `i`; later steps are decision branches.
    pub program: CompiledChecks,
    /// Binding sources per step (see [`Binding`]).
    pub step_binds: Vec<Vec<Binding>>,
    /// The step of each decision branch, by graph edge index.
    pub branch_steps: BTreeMap<usize, StepId>,
    /// Argument paths the checks read; fact extraction provides exactly these.
    pub arg_paths: Vec<ArgPath>,
    /// Every question for the judge, by node and branch.
    pub semantic: Vec<SemanticCriterion>,
    /// The kinds of request the bundle handles, from its manifest.
    pub request_types: Vec<String>,
    /// Mutating tools left to humans or other systems, with the reason.
    pub out_of_scope: Vec<(String, String)>,
    /// Undeclared tools the gate lets through, with the reason.
    pub pass_through: Vec<(String, String)>,
    /// Who calls the user-side tools unless a trace says otherwise.
    pub control: crate::bundle::model::Control,
    /// Claims the agent may only make once a tool result verified them.
    pub claims: Vec<crate::schema::Claim>,
    /// The reads the policy protects, in the order of
    /// `program.protections`.
    pub protected_reads: Vec<ProtectedRead>,
    /// Where `now()` comes from (the manifest's `clock:`).
    pub clock: Option<crate::clock::Clock>,
    /// Some check or remediation reads `now()`.
    pub reads_now: bool,
    /// The domain's words for the dialogue reader, compiled once: every
    /// turn of the bundle's conversations is read with them.
    pub lexicon: Arc<Lexicon>,
    /// The bundle's own strings of several words (enum literals, a guard's
    /// phrases: "basic economy", "no insurance"), read as values: a value a
    /// turn names only inside one of them it names as part of that phrase,
    /// not on its own ("economy" in "basic economy").
    pub phrases: Arc<words::Phrases>,
    /// The enums an agent-side write takes an argument of — typed so, or a
    /// string a guard tests `in enum(...)` — each with the words of those
    /// parameters' names (`vehicle_class`: vehicle, class): a request's
    /// literals of them are read for the one it proposes
    /// (`Extractor::context_literals`).
    pub argument_enums: Vec<(Symbol, Vec<String>)>,
    /// The words of the names of the enums with a *yes* or *no* literal
    /// and of the fields and parameters typed by them (`insurance`): a
    /// turn's *yes* or *no* names such a literal only beside one of them
    /// ("Insurance: no", "no travel insurance"; `ReadTurn::answers_for_field`).
    pub answer_fields: Arc<[String]>,
    /// Whether a host's `principal` event counts as the user's words.
    pub host_principal: bool,
    /// Warnings: spots marked for review (`# REVIEW:` comments) not yet
    /// reviewed.
    pub warnings: Problems,
    /// Whether an operator may answer a `confirm` verdict.
    pub operator_approvals: bool,
}

/// Loads and compiles the bundle in `dir`.
pub fn check_bundle(dir: &Path) -> Result<CompiledBundle, Problems> {
    compile(load(dir)?)
}

/// Compiles a loaded bundle: every problem found is reported, not just the
/// first.
pub fn compile(bundle: LoadedBundle) -> Result<CompiledBundle, Problems> {
    let mut ctx = Ctx::new(&bundle.sources);
    ctx.clock_written = bundle.manifest.1.clock.is_some();
    ctx.clock = compile_clock(&mut ctx, &bundle);
    let domain = domain::compile_domain(&mut ctx, &bundle.domain);
    ctx.enum_values = domain
        .enums
        .iter()
        .map(|(k, v)| (k.clone(), v.values.clone()))
        .collect();
    let hash = bundle.identity.id.clone();
    let (_, manifest) = &bundle.manifest;
    let request_types: Vec<String> = manifest
        .request_types
        .iter()
        .map(|r| r.value().clone())
        .collect();
    let mut lowered = flows::lower_flows(&mut ctx, &domain, &bundle);
    if let Some(lowered) = &lowered {
        validate::validate(&mut ctx, &domain, &bundle, lowered);
    }
    let protected_reads = lowered
        .as_mut()
        .map(|l| protect::compile_protected_reads(&mut ctx, &domain, &bundle, l))
        .unwrap_or_default();
    let claims = lowered
        .as_ref()
        .map(|l| compile_claims(&mut ctx, &domain, &bundle, &l.workflow))
        .unwrap_or_default();
    match lowered {
        Some(lowered) if ctx.problems.is_empty() => {
            let mut steps = steps::lower_steps(
                &lowered.workflow,
                lowered.checks,
                &domain,
                lowered.variables.len(),
            );
            steps.program.consent =
                steps::consent_spec(&steps.program, &lowered.workflow, &domain, &ctx.interner);
            steps.program.protections = protected_reads
                .iter()
                .map(|p| p.protection.clone())
                .collect();
            let mut arg_paths = turnstile_rules::Encoded::new(&steps.program.checks).arg_paths;
            for binds in &steps.binds {
                for bind in binds {
                    if let BindSource::Arg(path) = &bind.source
                        && !arg_paths.contains(path)
                    {
                        arg_paths.push(path.clone());
                    }
                }
            }
            let phrases = Arc::new(words::Phrases::of(&ctx.interner));
            let lexicon = words::compile_words(&bundle.domain.1);
            let argument_enums = argument_enums(&domain, &ctx.guarded_enums, &ctx.interner);
            let answer_fields = answer_fields(&domain);
            let mut warnings = review::markers(&bundle.sources);
            warnings.extend(words::silent_confirmations(&bundle.domain, &lexicon));
            warnings.append(&mut ctx.warnings);
            Ok(CompiledBundle {
                name: manifest.name.value().clone(),
                description: manifest.description.clone(),
                hash,
                legacy_hashes: bundle.identity.legacy.clone(),
                interner: ctx.interner,
                domain,
                variables: lowered.variables,
                workflow: lowered.workflow,
                program: steps.program,
                step_binds: steps.binds,
                branch_steps: steps.branch_steps,
                arg_paths,
                semantic: lowered.semantic,
                request_types,
                out_of_scope: manifest
                    .out_of_scope
                    .iter()
                    .map(|o| (o.tool.value().clone(), o.reason.value().clone()))
                    .collect(),
                pass_through: manifest
                    .pass_through
                    .iter()
                    .map(|o| (o.tool.value().clone(), o.reason.value().clone()))
                    .collect(),
                control: manifest
                    .control
                    .as_ref()
                    .map(|c| *c.value())
                    .unwrap_or_default(),
                claims,
                protected_reads,
                clock: ctx.clock,
                reads_now: ctx.reads_now,
                argument_enums,
                answer_fields,
                lexicon,
                phrases,
                host_principal: manifest.host_principal,
                warnings: Problems::from_raw(warnings, &bundle.sources),
                operator_approvals: manifest.operator_approvals,
            })
        }
        _ => Err(Problems::from_raw(ctx.problems, &bundle.sources)),
    }
}

/// The enums an agent-side write tool of `domain` takes an argument of,
/// alone or as a list's items, and those a guard bounds a string argument
/// to (`guarded`), each with the words of the parameters taking it.
fn argument_enums(
    domain: &crate::schema::Domain,
    guarded: &[(Symbol, Symbol)],
    interner: &Interner,
) -> Vec<(Symbol, Vec<String>)> {
    let writes = domain
        .tools
        .values()
        .filter(|t| t.side == Side::Agent && t.kind == ToolKind::Write);
    let typed = writes
        .flat_map(|t| t.params.iter())
        .filter_map(|(name, kind)| {
            let kind = match kind {
                ValueType::List(item) => item.as_ref(),
                other => other,
            };
            match kind {
                ValueType::Enum(of) => Some((*of, name.as_str())),
                _ => None,
            }
        });
    let tested = guarded
        .iter()
        .map(|&(of, param)| (of, interner.resolve(param)));
    let mut enums: Vec<(Symbol, Vec<String>)> = Vec::new();
    for (of, name) in typed.chain(tested) {
        let at = match enums.iter().position(|(e, _)| *e == of) {
            Some(at) => at,
            None => {
                enums.push((of, Vec::new()));
                enums.len() - 1
            }
        };
        if let Some((_, words)) = enums.get_mut(at) {
            for word in name.split('_').filter(|w| !w.is_empty()) {
                let word = word.to_lowercase();
                if !words.contains(&word) {
                    words.push(word);
                }
            }
        }
    }
    enums
}

/// The words of the names of `domain`'s enums holding an answer word (a
/// `yes` or `no` literal), and of every entity field and tool parameter
/// typed by one of them, alone or as a list's items.
fn answer_fields(domain: &Domain) -> Arc<[String]> {
    let answering: Vec<&crate::schema::EnumDef> = domain
        .enums
        .values()
        .filter(|def| def.values.iter().any(|v| is_answer_word(v)))
        .collect();
    let typed_by_answering = |kind: &ValueType| {
        let kind = match kind {
            ValueType::List(item) => item.as_ref(),
            other => other,
        };
        matches!(kind, ValueType::Enum(of) if answering.iter().any(|def| def.symbol == *of))
    };
    let fields = domain
        .entities
        .values()
        .flat_map(|entity| entity.fields.iter());
    let params = domain.tools.values().flat_map(|tool| tool.params.iter());
    let names = answering.iter().map(|def| def.name.as_str()).chain(
        fields
            .chain(params)
            .filter(|(_, kind)| typed_by_answering(kind))
            .map(|(name, _)| name.as_str()),
    );
    let mut words: Vec<String> = Vec::new();
    for word in names
        .flat_map(|name| name.split('_'))
        .filter(|w| !w.is_empty())
    {
        let word = word.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
        }
    }
    words.into()
}

/// The manifest's `clock:`, checked.
fn compile_clock(ctx: &mut Ctx<'_>, bundle: &LoadedBundle) -> Option<crate::clock::Clock> {
    let (file, manifest) = &bundle.manifest;
    let written = manifest.clock.as_ref()?;
    match crate::clock::Clock::parse(written.value()) {
        Ok(clock) => Some(clock),
        Err(message) => {
            ctx.report(
                RawProblem::new(ProblemKind::BadClock, Some(written.loc(*file)), message)
                    .label("here")
                    .help("write `clock: fixed 2024-05-15T15:00:00`, `clock: event` or `clock: system`"),
            );
            None
        }
    }
}

/// The manifest's claims, their tools and steps checked.
fn compile_claims(
    ctx: &mut Ctx<'_>,
    domain: &crate::schema::Domain,
    bundle: &LoadedBundle,
    workflow: &crate::fsm::Workflow,
) -> Vec<crate::schema::Claim> {
    let (file, manifest) = &bundle.manifest;
    let mut claims = Vec::new();
    for claim in &manifest.claims {
        for tool in claim.verified_by.iter().chain(&claim.since) {
            if domain.tool(tool.value()).is_none() {
                ctx.report(RawProblem::new(
                    ProblemKind::UnknownTool,
                    Some(tool.loc(*file)),
                    format!(
                        "unknown tool `{}` in claim `{}`",
                        tool.value(),
                        claim.id.value()
                    ),
                ));
            }
        }
        if workflow.node(claim.step.value()).is_none() {
            ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownNode,
                    Some(claim.step.loc(*file)),
                    format!(
                        "claim `{}` names unknown node `{}`",
                        claim.id.value(),
                        claim.step.value()
                    ),
                )
                .help("use the node's qualified id, `flow.node`"),
            );
        }
        claims.push(crate::schema::Claim {
            id: claim.id.value().clone(),
            phrases: claim.phrases.iter().map(|p| p.to_lowercase()).collect(),
            verified_by: claim
                .verified_by
                .iter()
                .map(|t| t.value().clone())
                .collect(),
            since: claim.since.iter().map(|t| t.value().clone()).collect(),
            step: claim.step.value().clone(),
            remediation: claim.remediation.value().clone(),
        });
    }
    claims
}

/// State shared by the compiler passes: the interner and the problem list.
pub(crate) struct Ctx<'a> {
    /// The bundle files, for locations inside scalars.
    pub sources: &'a SourceMap,
    pub interner: Interner,
    /// Every problem found so far.
    pub problems: Vec<RawProblem>,
    /// Literals of every enum, once the domain is compiled.
    pub enum_values: BTreeMap<String, Vec<String>>,
    /// The bundle's clock, which `now()` needs.
    pub clock: Option<crate::clock::Clock>,
    /// The manifest has a `clock:` line (parsed or not: a malformed one is
    /// reported once, not again at every `now()`).
    pub clock_written: bool,
    /// Some expression read `now()`.
    pub reads_now: bool,
    /// `(enum, parameter)` of every `args.<parameter> in enum(<enum>)` a
    /// guard tests: a string argument the policy bounds to an enum.
    pub guarded_enums: Vec<(Symbol, Symbol)>,
    /// Warnings found while lowering (the bundle still compiles).
    pub warnings: Vec<RawProblem>,
}

impl<'a> Ctx<'a> {
    fn new(sources: &'a SourceMap) -> Self {
        Ctx {
            sources,
            interner: Interner::new(),
            problems: Vec::new(),
            enum_values: Default::default(),
            clock: None,
            clock_written: false,
            reads_now: false,
            guarded_enums: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Records a problem.
    pub fn report(&mut self, problem: RawProblem) {
        self.problems.push(problem);
    }

    /// Records a problem and returns `None`, for `return ctx.error(...)`.
    pub fn error<T>(
        &mut self,
        kind: ProblemKind,
        at: Option<Loc>,
        message: impl Into<String>,
    ) -> Option<T> {
        self.problems.push(RawProblem::new(kind, at, message));
        None
    }

    /// Location of bytes `range` of the value of the YAML scalar `sp`, in
    /// the source: exact in every scalar style (quotes, escapes, folded and
    /// literal blocks; see [`scalar_offsets`]).
    pub fn inner_loc(&self, sp: &Sp<String>, file: FileId, range: std::ops::Range<usize>) -> Loc {
        let base = sp.loc(file);
        let text = self
            .sources
            .file(file)
            .map(|f| f.text.as_str())
            .unwrap_or("");
        let value = sp.value();
        let Some(offsets) = scalar_offsets(text, base.offset, value) else {
            let quote = matches!(text.as_bytes().get(base.offset), Some(b'"' | b'\''));
            let skip = usize::from(quote) + range.start;
            return base.narrow(skip, range.len().max(1));
        };
        let at = |i: usize| {
            offsets
                .get(i.min(value.len()))
                .copied()
                .unwrap_or(base.offset)
        };
        let start = at(range.start);
        // The span ends after the range's last character, so a trailing
        // folded line break or closing escape is not included.
        let end = match value.get(range.start..range.end.min(value.len())) {
            Some(covered) => match covered.char_indices().last() {
                Some((i, c)) => at(range.start + i) + source_len(text, at(range.start + i), c),
                None => start,
            },
            None => start,
        };
        Loc {
            file,
            offset: start,
            len: end.saturating_sub(start).max(1),
        }
    }
}

/// Length in the source of the character `c` found at `offset`: an escape
/// (`\"`, `\u00e9`) is longer than the character it stands for.
fn source_len(text: &str, offset: usize, c: char) -> usize {
    match text.get(offset..).and_then(|rest| rest.chars().next()) {
        Some('\\') if c != '\\' || text.get(offset + 1..offset + 2) == Some("\\") => text
            .get(offset + 1..)
            .and_then(|rest| rest.chars().next())
            .map_or(1, |code| match code {
                'x' => 4,
                'u' => 6,
                'U' => 10,
                other => 1 + other.len_utf8(),
            }),
        Some(here) => here.len_utf8(),
        None => c.len_utf8(),
    }
}
