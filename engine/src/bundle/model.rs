//! The serde model of a bundle's files, exactly as a bundle author writes
//! them. Every value a diagnostic may point at is wrapped in [`Sp`] so it
//! keeps its source location. The JSON Schema of these types is what
//! `turnstile schema` publishes.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use crate::source::{FileId, Loc};

/// A value with the location of the YAML node it came from.
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct Sp<T>(pub Spanned<T>);

impl<T> Sp<T> {
    pub fn value(&self) -> &T {
        &self.0.value
    }

    /// The byte range of this node in `file`, when the parser knew it.
    pub(crate) fn loc(&self, file: FileId) -> Loc {
        let span = self.0.referenced.span();
        Loc {
            file,
            offset: span
                .byte_offset()
                .and_then(|o| usize::try_from(o).ok())
                .unwrap_or(0),
            len: span
                .byte_len()
                .and_then(|o| usize::try_from(o).ok())
                .unwrap_or(0),
        }
    }
}

impl<T: JsonSchema> JsonSchema for Sp<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// `bundle.yaml`: what the bundle is and where its parts live.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Short machine name of the bundle, e.g. `retail`.
    pub name: Sp<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// The policy document the nodes cite, relative to the bundle directory.
    #[serde(default)]
    pub policy: Option<String>,
    /// The domain schema file, relative to the bundle directory.
    pub domain: Sp<String>,
    /// Workflow files, relative to the bundle directory; each defines one flow.
    pub flows: Vec<Sp<String>>,
    /// Id of the main flow (the conversation's spine).
    pub main: Sp<String>,
    /// Request types the classifier must distinguish (besides `general` and `transfer`).
    #[serde(default)]
    pub request_types: Vec<Sp<String>>,
    /// Mutating tools the workflow deliberately does not authorize, each with why.
    #[serde(default)]
    pub out_of_scope: Vec<OutOfScope>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutOfScope {
    pub tool: Sp<String>,
    pub reason: Sp<String>,
}

/// The domain schema: closed enums, entities with typed fields, and tools.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DomainFile {
    /// Closed enumerations, with the exact literals the data uses.
    #[serde(default)]
    pub enums: BTreeMap<String, Sp<Vec<String>>>,
    #[serde(default)]
    pub entities: BTreeMap<String, EntityDef>,
    pub tools: Vec<ToolDef>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityDef {
    #[serde(default)]
    pub description: Option<String>,
    /// Field name to type: `string`, `integer`, `amount`, `bool`, `date`,
    /// `datetime`, `enum(name)`, `list<T>`.
    pub fields: BTreeMap<String, Sp<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Agent,
    User,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    /// Reads state; its results carry entity fields.
    Read,
    /// Mutates state; must be authorized by the workflow.
    Write,
    /// Neither (a calculator, a transfer to a human).
    Generic,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolDef {
    pub name: Sp<String>,
    /// Who calls the tool: the agent, or (telecom) the user on their device.
    pub side: Sp<Side>,
    pub kind: Sp<ToolKind>,
    #[serde(default)]
    pub description: Option<String>,
    /// Parameter name to type (see [`EntityDef::fields`]; also
    /// `object{name: type, ...}` and `list<object{...}>`).
    #[serde(default)]
    pub params: BTreeMap<String, Sp<String>>,
    /// Entities a successful result carries (read tools, and write tools
    /// whose result is the updated record).
    #[serde(default)]
    pub reads: Vec<ReadDef>,
}

/// Where in a tool's JSON result one entity (or one per list element) lives.
///
/// Paths: `$` is the result root, a leading `.` is the current element
/// (selected by `each`), then `.name`, `[3]`, `[*]` (every list element)
/// and `.*` (every value of an object).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadDef {
    pub entity: Sp<String>,
    /// Selects several records, e.g. `$.payment_methods.*`; default: the root.
    #[serde(default)]
    pub each: Option<Sp<String>>,
    /// Path to the entity's id.
    pub id: Sp<String>,
    /// Entity field name to path.
    #[serde(default)]
    pub fields: BTreeMap<String, Sp<String>>,
}

/// One workflow file: a flow (the main flow or a subflow).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowDef {
    pub flow: Sp<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Request variables this flow binds, name to entity type (`order: order`).
    #[serde(default)]
    pub vars: BTreeMap<String, Sp<String>>,
    pub nodes: Vec<NodeDef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Entry,
    Exit,
    AgentAction,
    UserInput,
    ToolCall,
    ToolAuthorization,
    Decision,
    Subflow,
}

impl NodeKind {
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Entry => "entry",
            NodeKind::Exit => "exit",
            NodeKind::AgentAction => "agent_action",
            NodeKind::UserInput => "user_input",
            NodeKind::ToolCall => "tool_call",
            NodeKind::ToolAuthorization => "tool_authorization",
            NodeKind::Decision => "decision",
            NodeKind::Subflow => "subflow",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    Agent,
    User,
    System,
}

/// Which part of the conversation a semantic criterion is judged on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JudgeWindow {
    /// Only what happened since the previous node was satisfied: an event
    /// that must follow it (a confirmation after the summary, a refusal
    /// after the status was read). The default.
    #[default]
    AfterPrevious,
    /// The whole conversation so far: something the user states once and
    /// that stays true (a reason, a choice, details given up front). It takes
    /// effect at the previous node's evidence at the earliest.
    Conversation,
}

/// How a conversation (or a subflow) ends at an exit node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExitOutcome {
    /// The request was handled.
    Normal,
    /// A general (informational) request was answered.
    General,
    /// The user was transferred to a human agent.
    Transfer,
    /// The request was refused as out of policy.
    Refuse,
    /// End of a subflow: continue at the invoking node's `next`.
    Return,
}

/// A policy citation: one `file:line` string or a list of them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Cites {
    One(String),
    Many(Vec<String>),
}

impl Cites {
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            Cites::One(c) => vec![c.clone()],
            Cites::Many(c) => c.clone(),
        }
    }
}

/// One node of a flow. Which attributes apply depends on `type`; the compiler
/// reports missing and misplaced ones with their location.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeDef {
    pub id: Sp<String>,
    #[serde(rename = "type")]
    pub kind: Sp<NodeKind>,
    /// Who acts at this node; defaults by type (user for `user_input`, else agent).
    #[serde(default)]
    pub actor: Option<Sp<Actor>>,
    /// What should happen here, in words.
    #[serde(default)]
    pub expect: Option<String>,
    /// Formal criterion: a check expression decided from data.
    #[serde(default)]
    pub check: Option<Sp<String>>,
    /// Semantic criterion: a question for the dialogue judge.
    #[serde(default)]
    pub judge: Option<Sp<String>>,
    /// Words or phrases of the user's messages that establish the `judge`
    /// criterion (used by the offline judge; a model judge sees them as hints).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// What the judge sees of the conversation (default `after_previous`).
    #[serde(default)]
    pub judge_window: Option<Sp<JudgeWindow>>,
    /// Template shown when this is the first unmet node; `{expr}` placeholders
    /// are filled with grounded values.
    #[serde(default)]
    pub remediation: Option<Sp<String>>,
    #[serde(default)]
    pub cites: Option<Cites>,
    /// The node that follows once this one is satisfied.
    #[serde(default)]
    pub next: Option<Sp<String>>,
    /// `tool_call` and `tool_authorization`: the tool.
    #[serde(default)]
    pub tool: Option<Sp<String>>,
    /// `tool_authorization`: a check over the call's `args`.
    #[serde(default)]
    pub guard: Option<Sp<String>>,
    /// `subflow`: the flow to inline.
    #[serde(default)]
    pub flow: Option<Sp<String>>,
    /// `decision`: the branches, each with its own guard.
    #[serde(default)]
    pub branches: Vec<BranchDef>,
    /// `decision`: this decision classifies the request type.
    #[serde(default)]
    pub classifier: bool,
    /// `tool_call` / `tool_authorization`: request variables bound from the
    /// call, `var: args.name` or `var: result.path`.
    #[serde(default)]
    pub bind: BTreeMap<String, Sp<String>>,
    /// `exit`: how the flow ends here.
    #[serde(default)]
    pub outcome: Option<Sp<ExitOutcome>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BranchDef {
    pub label: Sp<String>,
    #[serde(default)]
    pub check: Option<Sp<String>>,
    #[serde(default)]
    pub judge: Option<Sp<String>>,
    /// Taken when no other branch holds; must be last and unguarded.
    #[serde(default)]
    pub otherwise: bool,
    /// Words that suggest this branch (used by the offline classifier).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// What the judge sees of the conversation (default `after_previous`).
    #[serde(default)]
    pub judge_window: Option<Sp<JudgeWindow>>,
    pub to: Sp<String>,
}
