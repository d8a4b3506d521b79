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
    /// The value, without its location.
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
    /// The bundle's version, free-form.
    #[serde(default)]
    pub version: Option<String>,
    /// What the bundle covers, in words.
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
    /// The classifier's own labels for the built-in request types, when the
    /// bundle needs their names for something else or prefers other words:
    /// `{transfer: human_agent}` makes the classifier offer `human_agent`
    /// instead of `transfer` (which a bank may then use as a request type).
    #[serde(default)]
    pub builtin_labels: BTreeMap<String, Sp<String>>,
    /// Whether an operator of the host may answer a `confirm` verdict
    /// (an `approval` event `by: operator`); by default only the user may.
    #[serde(default)]
    pub operator_approvals: bool,
    /// Mutating tools the workflow deliberately does not authorize, each with why.
    #[serde(default)]
    pub out_of_scope: Vec<OutOfScope>,
    /// Tools the domain does not declare that the gate lets through (a
    /// harness's `think`), each with why. Any other undeclared tool is
    /// blocked as `UnknownTool`.
    #[serde(default)]
    pub pass_through: Vec<OutOfScope>,
    /// Who calls the user-side (device) tools: `dual` (the user, the agent
    /// only instructs; an agent call of one is refused) or `solo` (the agent
    /// itself, no user). A trace's own metadata overrides it. Default `dual`.
    #[serde(default)]
    pub control: Option<Sp<Control>>,
    /// Reads the policy protects: a call of one of these read tools is
    /// allowed only after an identification step (`after`) and while a
    /// guard over what was read holds (`guard`); otherwise the gate blocks
    /// it (`NotIdentified`, or the guard's reason) and replay and audit
    /// report it, though its result still counts as read.
    #[serde(default)]
    pub protected_reads: Vec<ProtectedReadDef>,
    /// Where `now()` comes from: `fixed <timestamp>` (one instant, e.g. a
    /// benchmark whose policy states the current time), `event` (each
    /// event's own timestamp) or `system` (the live gate's clock). Required
    /// by a bundle whose checks read `now()`.
    #[serde(default)]
    pub clock: Option<Sp<String>>,
    /// Statements the agent must not make before a tool has verified them
    /// (a "resolved" claim before the re-check): checked by code on the
    /// agent's messages and reported as a deviation.
    #[serde(default)]
    pub claims: Vec<ClaimDef>,
    /// Whether the bundle accepts a host's `principal` event (a logged-in
    /// app or an MCP client that authenticated the user itself) in place of
    /// the user's words: its id and claims count as said by the user
    /// (`said(user, …)`, what identification steps check). Default `false`:
    /// a principal event is refused as an anomaly and names nothing.
    #[serde(default)]
    pub host_principal: bool,
}

/// Read tools the policy protects, and what they wait for.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProtectedReadDef {
    /// The read (or generic) agent-side tools protected.
    pub tools: Vec<Sp<String>>,
    /// Qualified ids of workflow nodes (`identify.find_by_email`): some
    /// request must have satisfied one of them before the read. Default:
    /// none (the guard alone decides).
    #[serde(default)]
    pub after: Vec<Sp<String>>,
    /// A check over the facts read so far, the read's `args` and the
    /// variables the identifying request bound (`args.user_id == $user`).
    #[serde(default)]
    pub guard: Option<Sp<String>>,
    /// What the agent should do instead; `{...}` placeholders as in a
    /// node's remediation.
    pub remediation: Sp<String>,
    /// The policy lines that protect these reads (`policy.md:10`).
    #[serde(default)]
    pub cites: Option<Cites>,
}

/// Who calls the user-side tools of a bundle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Control {
    /// The user calls them; the agent instructs (tau2 with a user simulator).
    #[default]
    Dual,
    /// The agent calls them itself (tau2 `llm_agent_solo`).
    Solo,
}

/// A claim the agent may only make after a verifying tool result.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimDef {
    /// The claim's name, as reported.
    pub id: Sp<String>,
    /// Phrases of an agent message that make the claim (case-insensitive).
    pub phrases: Vec<String>,
    /// Tools one of whose successful results verifies the claim.
    pub verified_by: Vec<Sp<String>>,
    /// The verification must come after the latest successful call of any of
    /// these (the fix being verified); none called yet: any verification.
    #[serde(default)]
    pub since: Vec<Sp<String>>,
    /// The workflow node reported as the first unmet step.
    pub step: Sp<String>,
    /// What the agent should do instead.
    pub remediation: Sp<String>,
}

/// A mutating tool the workflow deliberately leaves unauthorized.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutOfScope {
    /// The tool's name.
    pub tool: Sp<String>,
    /// Why the workflow does not cover it.
    pub reason: Sp<String>,
}

/// The domain schema: closed enums, entities with typed fields, and tools.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DomainFile {
    /// Closed enumerations, with the exact literals the data uses.
    #[serde(default)]
    pub enums: BTreeMap<String, Sp<Vec<String>>>,
    /// The kinds of record tools read, by name.
    #[serde(default)]
    pub entities: BTreeMap<String, EntityDef>,
    /// Every tool of the domain, agent- and user-side.
    pub tools: Vec<ToolDef>,
}

/// A kind of record the tools read (an order, a user).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityDef {
    /// What the entity is, in words.
    #[serde(default)]
    pub description: Option<String>,
    /// Field name to type: `string`, `integer`, `amount`, `bool`, `date`,
    /// `datetime`, `enum(name)`, `list<T>`.
    pub fields: BTreeMap<String, Sp<String>>,
    /// A composite id: the types of its parts, e.g. `[string, date]` for a
    /// flight on one date. Reads then give `id: "[.flight_number, args.date]"`
    /// (each part a result path or `args.<param>`), and checks look a record
    /// up by a field holding such ids (`flight_date[reservation[$r].flight_keys]`)
    /// or a variable bound to one. Default: one string id.
    #[serde(default)]
    pub key: Vec<Sp<String>>,
    /// The nouns people call a record of this kind by, singular ("order";
    /// a reservation: `[reservation, booking]`); the reader adds plurals.
    /// Default: the entity's name when it is one word.
    #[serde(default)]
    pub nouns: Option<Vec<String>>,
    /// The fields a person names a record of this kind by, besides its id
    /// (`[last4]`: "the card ending 4821"; `[phone_number]` for a line).
    /// Each is a `string` field; a turn naming a read record's alias value
    /// names the record.
    #[serde(default)]
    pub aliases: Vec<Sp<String>>,
}

/// Which side of the conversation calls a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The agent under audit.
    Agent,
    /// The user, on their own device (telecom).
    User,
}

/// What a tool does to the domain's state.
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

/// A tool as declared in the domain file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolDef {
    /// The tool's name as the traces spell it.
    pub name: Sp<String>,
    /// Who calls the tool: the agent, or (telecom) the user on their device.
    pub side: Sp<Side>,
    /// Whether it reads, writes or does neither.
    pub kind: Sp<ToolKind>,
    /// What the tool does, in words.
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
    /// Tools one of which must have succeeded before this one is called or
    /// (for a user-side tool) instructed: the diagnosis before its fix. An
    /// agent event out of this order is a deviation.
    #[serde(default)]
    pub after: Vec<Sp<String>>,
    /// Phrases by which an agent message instructs this user-side tool
    /// (besides its name, with `_` or spaces), case-insensitive.
    #[serde(default)]
    pub phrases: Vec<String>,
    /// An agent write tool's words for its action, as users and agents
    /// write them, one word each: verbs and nouns ("cancel",
    /// "cancellation"); the reader adds their inflections (freezes,
    /// freezing, froze, frozen). Default: the verb the tool's name opens
    /// with (`freeze_card`: freeze). The hand-over tool (`hands_over`) takes
    /// them too.
    #[serde(default)]
    pub action_words: Option<Vec<Sp<String>>>,
    /// The write takes something away from the user (a cancellation, a
    /// return): after a request for it, the user's "I no longer need it"
    /// restates the reason and refuses nothing.
    #[serde(default)]
    pub takes_away: bool,
    /// Makes this (generic) tool the hand-over to a person, and names the
    /// people the user may be handed over to (`[human, agent,
    /// pharmacist]`): declining the hand-over ("don't transfer me to a
    /// human") answers nothing about another action.
    #[serde(default)]
    pub hands_over: Vec<String>,
    /// The confirmation request a `confirm` verdict shows the user: text
    /// with `{param}` placeholders over the call's arguments (`{{`/`}}` for
    /// braces). Default: the tool's name and its arguments.
    #[serde(default)]
    pub confirmation: Option<Sp<String>>,
    /// A read whose result may be a part of a list (a page, the first N):
    /// the arguments that limit it and the list it must cover to be whole.
    /// A part proves nothing absent: the lists gathered over its records
    /// are then unknown, so a check concluding absence from them fails
    /// closed. Nothing is inferred from argument names.
    #[serde(default)]
    pub pages: Option<PagesDef>,
}

/// How a read's result can be a part of a list (see [`ToolDef::pages`]).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PagesDef {
    /// The arguments that limit or page the result (`limit`, `page`,
    /// `offset`): a call passing one may return a part.
    #[serde(default)]
    pub limits: Vec<Sp<String>>,
    /// Where the ids of the records returned are, e.g. `$[*].bill_id`.
    pub records: Sp<String>,
    /// The list the result must cover to be whole: a list field of an
    /// entity whose id is one of the call's arguments (the profile's bill
    /// ids). Read, it decides; unread, a call passing a limiting argument
    /// is taken as a part.
    #[serde(default)]
    pub complete_against: Option<CompleteAgainstDef>,
}

/// The list a paged read must cover: `entity[args.<id>].<field>`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompleteAgainstDef {
    /// The entity holding the list.
    pub entity: Sp<String>,
    /// The argument whose value is that entity's id.
    pub id: Sp<String>,
    /// The list field (a `list<string>` of record ids).
    pub field: Sp<String>,
}

/// Where in a tool's JSON result one entity (or one per list element) lives.
///
/// Paths: `$` is the result root, a leading `.` is the current element
/// (selected by `each`), then `.name`, `[3]`, `[*]` (every list element)
/// and `.*` (every value of an object).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadDef {
    /// The entity read.
    pub entity: Sp<String>,
    /// Selects several records, e.g. `$.payment_methods.*`; default: the root.
    #[serde(default)]
    pub each: Option<Sp<String>>,
    /// Path to the entity's id; for an entity with a composite `key`, one
    /// part per key part in brackets, each a path or `args.<param>`:
    /// `"[args.flight_number, args.date]"`.
    pub id: Sp<String>,
    /// Entity field name to path; a `list<string>` field may instead hold
    /// composite ids of a keyed entity, one path per key part:
    /// `"flight_date[$.flights[*].flight_number, $.flights[*].date]"`.
    #[serde(default)]
    pub fields: BTreeMap<String, Sp<String>>,
    /// For a tool whose result is plain text (a device's report): entity
    /// field name to the patterns that decide its value, first match wins.
    /// With `text`, `id` is the record's literal id, not a path.
    #[serde(default)]
    pub text: BTreeMap<String, Vec<TextMatchDef>>,
    /// The tool writes its numbers as JSON strings (`"data_used_gb": "3.2"`):
    /// the amount and integer fields of this read also accept a string that
    /// is a plain decimal number. Off by default: elsewhere a quoted number
    /// where an amount is declared is a type mismatch (and fails closed).
    #[serde(default)]
    pub quoted_numbers: bool,
}

/// One pattern of a text read: when the text contains `contains` (or, with
/// no `contains`, when no earlier pattern matched), the field is `value`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextMatchDef {
    /// The substring looked for; absent: the fallback (last).
    #[serde(default)]
    pub contains: Option<String>,
    /// The field's value, written as the field's type reads it (`true`,
    /// an enum literal, a string).
    pub value: String,
}

/// One workflow file: a flow (the main flow or a subflow).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowDef {
    /// The flow's id, named by `main` or by `subflow` nodes.
    pub flow: Sp<String>,
    /// What the flow handles, in words.
    #[serde(default)]
    pub description: Option<String>,
    /// Request variables this flow binds, name to entity type (`order: order`).
    #[serde(default)]
    pub vars: BTreeMap<String, Sp<String>>,
    /// The flow's nodes; exactly one is the `entry`.
    pub nodes: Vec<NodeDef>,
}

/// The type of a node, which decides the attributes it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// Where a flow starts.
    Entry,
    /// Where a flow ends, with an outcome.
    Exit,
    /// Something the agent says or does, judged or checked.
    AgentAction,
    /// Something the user says, judged or checked.
    UserInput,
    /// A call of a read or generic tool.
    ToolCall,
    /// The gate before a call of a mutating tool, with its guard.
    ToolAuthorization,
    /// A split into guarded branches.
    Decision,
    /// An invocation of another flow, inlined at compile time.
    Subflow,
}

impl NodeKind {
    /// The type as written in YAML (`tool_authorization`).
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

/// Who acts at a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    /// The agent under audit.
    Agent,
    /// The user.
    User,
    /// Nobody: structural nodes (entry, exit, subflow).
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
    /// A single citation.
    One(String),
    /// Several citations.
    Many(Vec<String>),
}

impl Cites {
    /// The citations as a list, whichever way they were written.
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
    /// The node's id, unique within its flow.
    pub id: Sp<String>,
    /// The node's type.
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
    /// The policy lines this node implements (`policy.md:12`).
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

/// One branch of a decision: a label, a guard and the node it leads to.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BranchDef {
    /// The branch's label, unique within its decision.
    pub label: Sp<String>,
    /// Formal guard: a check expression decided from data.
    #[serde(default)]
    pub check: Option<Sp<String>>,
    /// Semantic guard: a question for the dialogue judge.
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
    /// The node taken when the branch holds.
    pub to: Sp<String>,
}
