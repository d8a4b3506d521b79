//! The compiled step graph abstracted to an automaton over agent, user and
//! tool event classes, with every formal check and judge question reduced to
//! the outcomes it can take (holds or not). One request is followed along one
//! path of the step graph: its state is the last step satisfied on that path
//! (the cursor), the protected reads whose identification that path has
//! passed, and whether the agent has acted since the last user message. A
//! read deviates only where the bundle protects it: before its
//! identification, or (with a guard) where the guard may fail — exactly
//! the reads the session blocks. Any other read is a valid move wherever it
//! comes. The user's
//! own tool calls (dual control: device tools) are user events: they satisfy
//! the steps that wait for their results and never deviate. Under solo
//! control ([`Automaton::with_control`]) the agent calls them: the same
//! moves are then agent events (they end the user's turn), and a device fix
//! called before any of its diagnoses deviates ([`AgentClass::DeviceCall`]).
//!
//! The agent's instructions and claims (telecom's deviations without a
//! write) follow the session's order rules (`session::deviation`): an
//! instruction of a device fix deviates while none of its diagnoses has
//! succeeded, a claim while no verifying result followed the last fix. Both
//! depend on the whole path, not on the state: keeping a bit per fix in the
//! state multiplies telecom's states past the cap (every combination of
//! diagnoses across the "anything else?" loop). So the state keeps no order
//! bits; each rule is a flag folded along a path ([`Automaton::unmet_after`]),
//! and a message deviation is a state reachable by *some* valid path on
//! which its flag is unmet ([`Automaton::unmet_paths`]: a breadth-first
//! search over the state × flag product, one per class).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;
use turnstile_rules::{Step, StepId, StepOrigin, Symbol, Timing};

use super::bits::ClassSet;
use crate::CompiledBundle;
use crate::bundle::model::{Actor, Control, NodeKind, Side, ToolKind};
use crate::session::{diagnoses, instruction_can_deviate, verified_after};

/// Where in the user's turn the conversation is: the boundary schedule fires
/// only at the first agent event of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    /// The last message was the user's and the agent has not acted since.
    TurnStart,
    /// The agent has acted since the last user message (or nobody spoke yet).
    MidTurn,
}

/// One abstract state: see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct State {
    /// The last step satisfied on the request's path.
    pub cursor: StepId,
    /// Protected reads (indices into the bundle's `protected_reads`) whose
    /// identification (one of their `after` steps) the path has satisfied:
    /// an identification holds for good.
    pub identified: ClassSet,
    /// The turn position.
    pub turn: Turn,
}

/// An agent event class of the alphabet that can deviate.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", content = "tool", rename_all = "snake_case")]
pub enum AgentClass {
    /// A call of a read tool the bundle protects (`protected_reads`).
    Read(String),
    /// A call of an agent-side mutating tool (the gated class).
    Write(String),
    /// An agent message instructing the user to run this device fix (a
    /// user-side tool with diagnoses, `after`).
    Instruct(String),
    /// An agent message making this claim (a `claims` id of the bundle).
    Claim(String),
    /// Under solo control, the agent's own call of this device fix (a
    /// user-side tool with diagnoses) before any of its diagnoses succeeded.
    DeviceCall(String),
}

impl Move {
    /// A tool call (with its result): the moves whose values are searched.
    pub fn is_call(&self) -> bool {
        matches!(
            self,
            Move::Read { .. } | Move::Write { .. } | Move::UserTool { .. }
        )
    }
}

impl AgentClass {
    /// The tool called or instructed, or the claim made.
    pub fn tool(&self) -> &str {
        match self {
            AgentClass::Read(t)
            | AgentClass::Write(t)
            | AgentClass::Instruct(t)
            | AgentClass::Claim(t)
            | AgentClass::DeviceCall(t) => t,
        }
    }

    /// `read`, `write`, `instruct`, `claim` or `device` (a solo device call).
    pub fn kind(&self) -> &'static str {
        match self {
            AgentClass::Read(_) => "read",
            AgentClass::Write(_) => "write",
            AgentClass::Instruct(_) => "instruct",
            AgentClass::Claim(_) => "claim",
            AgentClass::DeviceCall(_) => "device",
        }
    }

    /// An agent message (instruction or claim) rather than a call.
    pub fn is_message(&self) -> bool {
        matches!(self, AgentClass::Instruct(_) | AgentClass::Claim(_))
    }

    /// A class whose deviation depends on the path, not the state: an order
    /// rule of the session (`session::deviation`) decides it — an
    /// instruction or a solo device call of a fix before its diagnosis, a
    /// claim before its verification.
    pub fn has_order_rule(&self) -> bool {
        matches!(
            self,
            AgentClass::Instruct(_) | AgentClass::Claim(_) | AgentClass::DeviceCall(_)
        )
    }
}

/// Why an agent event leaves the valid prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// A protected read before its identification.
    NotIdentified,
    /// A write with no authorization step of its tool enabled.
    Unauthorized,
    /// A write at its enabled authorization step, or a protected read after
    /// its identification, whose guard does not hold.
    GuardFails,
    /// An instruction of a device fix before any of its diagnoses succeeded.
    BeforeDiagnosis,
    /// A claim with no verifying result since the last fix.
    Unverified,
}

/// One transition of the automaton: the events that realise it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "move", rename_all = "snake_case")]
pub enum Move {
    /// No event: a step with no criterion, or a formal state step whose
    /// check holds on data already read, is satisfied.
    Holds {
        /// The step satisfied.
        step: StepId,
    },
    /// A user message, optionally satisfying a dialogue step (judge: yes).
    User {
        /// The dialogue step it satisfies.
        satisfies: Option<StepId>,
    },
    /// An agent message, optionally satisfying an agent dialogue step.
    Message {
        /// The dialogue step it satisfies.
        satisfies: Option<StepId>,
    },
    /// An agent read call and its successful result, optionally satisfying
    /// the tool's enabled step (its check holds). Like every successful
    /// result, it may diagnose fixes and verify or unverify claims.
    Read {
        /// The tool.
        tool: String,
        /// The step it satisfies.
        satisfies: Option<StepId>,
    },
    /// A call of a user-side tool and its result, satisfying the step that
    /// waits for it: the user's call under dual control (a user event), the
    /// agent's under solo control.
    UserTool {
        /// The tool.
        tool: String,
        /// The step it satisfies.
        satisfies: StepId,
    },
    /// An authorized agent write and its successful result.
    Write {
        /// The tool.
        tool: String,
        /// The authorization step it satisfies.
        satisfies: StepId,
    },
}

/// What the automaton needs to know about one step.
#[derive(Clone, Debug)]
struct StepKind {
    /// Satisfied with no event (structural, or decided by data already read).
    free: bool,
    /// A dialogue step satisfied by a user message.
    by_user: bool,
    /// A dialogue step satisfied by an agent message.
    by_agent: bool,
    /// Satisfied by a successful result of this read tool.
    by_read: Option<usize>,
    /// Satisfied by a result of this user-side tool (index into `user_tools`).
    by_user_tool: Option<usize>,
    /// An authorization of this write tool (index into `writes`).
    authorizes: Option<usize>,
    /// The authorization's guard can fail.
    guarded: bool,
    /// An exit node.
    exit: bool,
}

/// The automaton of one compiled bundle.
#[derive(Clone, Debug)]
pub struct Automaton {
    /// Step names, by step id.
    pub(crate) names: Vec<String>,
    kinds: Vec<StepKind>,
    /// Per step: the steps reachable through steps satisfied with no event
    /// (structural ones), i.e. the steps a request waits at once it is there.
    ahead: Vec<Vec<StepId>>,
    /// Per step: the steps reachable through structural and free formal
    /// steps (whose checks may already hold on the data read so far).
    reach: Vec<Vec<StepId>>,
    /// Read tools some `tool_call` step names, in name order.
    pub(crate) reads: Vec<String>,
    /// The bundle's protected reads, in its order: the tool, the steps
    /// that identify, and whether a guard may refuse the read after them.
    pub(crate) protected: Vec<ProtectedClass>,
    /// Agent-side mutating tools, in name order.
    pub(crate) writes: Vec<String>,
    /// User-side tools some `tool_call` step waits for, in name order.
    pub(crate) user_tools: Vec<String>,
    /// Device fixes whose instruction can come too early, in name order.
    pub(crate) instructions: Vec<String>,
    /// The bundle's claims, by id, in bundle order.
    pub(crate) claims: Vec<String>,
    /// Who calls the user-side (device) tools: under `solo` the agent does,
    /// so they are agent events (reads, or device calls of the fixes).
    pub(crate) control: Control,
    /// What a successful result of each tool does to the order rules: an
    /// index into `effect_table` by tool name.
    effects: BTreeMap<String, u32>,
    /// The distinct effects; index 0 is the empty one (no tool result).
    effect_table: Vec<Effect>,
    entry: StepId,
}

/// One protected read as the automaton sees it.
#[derive(Clone, Debug)]
pub(crate) struct ProtectedClass {
    /// The protected tool.
    pub(crate) tool: String,
    /// Its identification steps, any one of which opens it.
    after: Vec<StepId>,
    /// A guard may refuse it after identification.
    guarded: bool,
}

/// What one tool's successful result does to the order rules, derived from
/// the session's rules (`session::deviation`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Effect {
    /// Fixes it diagnoses (indices into `instructions`).
    diagnoses: ClassSet,
    /// Claims it verifies (indices into `claims`).
    verifies: ClassSet,
    /// Claims whose verification it takes away (a fix).
    unverifies: ClassSet,
}

/// The order rule of one instruction or claim class, by its index.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// An instruction: unmet until a diagnosis of the fix succeeds.
    Diagnosis(usize),
    /// A claim: met by a verifying result, unmet again by a fix.
    Verification(usize),
}

impl Rule {
    /// Whether the rule is unmet after a result with `effect` (`None`: no
    /// result, nothing changes), given whether it was before.
    fn unmet_after(self, unmet: bool, effect: Option<&Effect>) -> bool {
        let Some(effect) = effect else {
            return unmet;
        };
        match self {
            Rule::Diagnosis(i) => unmet && !effect.diagnoses.contains(i),
            Rule::Verification(i) => {
                if effect.unverifies.contains(i) {
                    true
                } else if effect.verifies.contains(i) {
                    false
                } else {
                    unmet
                }
            }
        }
    }
}

/// The reachable part of an automaton: every state with its shortest path
/// from the start, and which states can still reach an exit.
#[derive(Clone, Debug)]
pub struct Explored {
    /// Reachable states in breadth-first order; index 0 is the start.
    pub states: Vec<State>,
    /// For each state but the start: its BFS parent and the move from it.
    pub parent: Vec<Option<(usize, Move)>>,
    /// For each state: every (state, move) leading to it from the previous
    /// breadth-first layer, so every shortest path can be enumerated.
    pub shortest_parents: Vec<Vec<(usize, Move)>>,
    /// States from which an exit is reachable (the valid prefixes end there).
    pub live: Vec<bool>,
    /// For each state: every valid move from it and the state it leads to.
    pub successors: Vec<Vec<(Move, usize)>>,
    /// What each successor move's result does to the order rules (an index
    /// into the automaton's effect table).
    effects: Vec<Vec<u32>>,
    /// Whether exploration stopped at the state cap.
    pub truncated: bool,
}

/// The state cap of [`Automaton::explore`].
pub const MAX_STATES: usize = 200_000;

impl Automaton {
    /// Builds the automaton of `bundle` under the bundle's own `control`.
    pub fn new(bundle: &CompiledBundle) -> Automaton {
        Automaton::with_control(bundle, bundle.control)
    }

    /// Builds the automaton of `bundle` with the device tools called as
    /// `control` says: under `dual` by the user (user events, which never
    /// deviate); under `solo` by the agent, so a device call at the step
    /// waiting for it is an agent event, and the agent's call of a device
    /// fix deviates, like its instruction, while none of its diagnoses
    /// succeeded ([`AgentClass::DeviceCall`]). A device read out of order
    /// is not in the solo alphabet: the session gives no verdict for it, and
    /// tracking the device reads in the state (as the agent's own reads are)
    /// takes telecom past [`MAX_STATES`].
    pub fn with_control(bundle: &CompiledBundle, control: Control) -> Automaton {
        let program = &bundle.program;
        let graph = &bundle.workflow.graph;
        let tool_name = |sym: Symbol| bundle.interner.resolve(sym).to_owned();
        let user_side = |name: &str| {
            bundle
                .domain
                .tool(name)
                .is_some_and(|t| t.side == Side::User)
        };
        let awaited: BTreeSet<String> = program
            .steps
            .iter()
            .filter_map(|s| match s.timing {
                Timing::Result(t) => Some(tool_name(t)),
                _ => None,
            })
            .collect();
        let (user_tools, reads): (Vec<String>, Vec<String>) =
            awaited.into_iter().partition(|t| user_side(t));
        let fixes: Vec<&crate::schema::Tool> = bundle
            .domain
            .tools
            .values()
            .filter(|t| instruction_can_deviate(t))
            .collect();
        let claims: Vec<&crate::schema::Claim> = bundle.claims.iter().collect();
        let mut effect_table = vec![Effect::default()];
        let mut effects = BTreeMap::new();
        for done in bundle.domain.tools.keys() {
            let mut effect = Effect::default();
            for (i, fix) in fixes.iter().enumerate() {
                if diagnoses(fix, done) {
                    effect.diagnoses.insert(i);
                }
            }
            for (i, claim) in claims.iter().enumerate() {
                // The session's fold, applied to both prior values.
                match (
                    verified_after(claim, false, done),
                    verified_after(claim, true, done),
                ) {
                    (true, _) => effect.verifies.insert(i),
                    (_, false) => effect.unverifies.insert(i),
                    _ => {}
                }
            }
            let index = match effect_table.iter().position(|e| *e == effect) {
                Some(i) => i,
                None => {
                    effect_table.push(effect);
                    effect_table.len() - 1
                }
            };
            effects.insert(done.clone(), u32::try_from(index).unwrap_or(0));
        }
        let writes: Vec<String> = bundle
            .domain
            .tools
            .values()
            .filter(|t| t.side == Side::Agent && t.kind == ToolKind::Write)
            .map(|t| t.name.clone())
            .collect();
        let kinds: Vec<StepKind> = program
            .steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let node = match &step.origin {
                    StepOrigin::Node => graph.node_weight(petgraph::graph::NodeIndex::new(i)),
                    StepOrigin::Branch { .. } => None,
                };
                classify(step, node, [&reads, &writes, &user_tools], &tool_name)
            })
            .collect();
        let mut successors: Vec<Vec<StepId>> = vec![Vec::new(); program.steps.len()];
        for &(from, to) in &program.edges {
            if let Some(list) = successors.get_mut(from.0 as usize) {
                list.push(to);
            }
        }
        // The steps a request at a cursor waits at: past the structural
        // steps (no criterion, no event), which the monitor satisfies as soon
        // as they are enabled.
        let ahead = closure(&successors, |s| {
            program
                .step(s)
                .is_some_and(|st| st.check.is_none() && !st.semantic && st.timing == Timing::State)
                && !kinds.get(s.0 as usize).is_some_and(|k| k.exit)
        });
        // The steps it may wait at once data already read satisfies the
        // formal state steps in between (the engine does so without an event).
        let reach = closure(&successors, |s| {
            kinds.get(s.0 as usize).is_some_and(|k| k.free && !k.exit)
        });
        let protected = bundle
            .protected_reads
            .iter()
            .map(|p| ProtectedClass {
                tool: p.tool.clone(),
                after: p.protection.after.clone(),
                guarded: p.protection.guard.is_some(),
            })
            .collect();
        Automaton {
            names: program.steps.iter().map(|s| s.name.clone()).collect(),
            kinds,
            ahead,
            reach,
            reads,
            protected,
            writes,
            user_tools,
            instructions: fixes.iter().map(|t| t.name.clone()).collect(),
            claims: claims.iter().map(|c| c.id.clone()).collect(),
            control,
            effects,
            effect_table,
            entry: program.entry,
        }
    }

    /// The start state: the request at the entry, nobody has spoken.
    pub fn start(&self) -> State {
        State {
            cursor: self.entry,
            identified: self.identified_at(self.entry, &ClassSet::default()),
            turn: Turn::MidTurn,
        }
    }

    /// `identified` with the protected reads a satisfaction of `step`
    /// identifies for.
    fn identified_at(&self, step: StepId, identified: &ClassSet) -> ClassSet {
        self.protected
            .iter()
            .enumerate()
            .filter(|(_, p)| p.after.contains(&step))
            .fold(identified.clone(), |set, (i, _)| set.with(i))
    }

    /// The protections of read tool `tool`, by index.
    fn protections_of<'a>(
        &'a self,
        tool: &'a str,
    ) -> impl Iterator<Item = (usize, &'a ProtectedClass)> + 'a {
        self.protected
            .iter()
            .enumerate()
            .filter(move |(_, p)| p.tool == tool)
    }

    /// Whether a read of `tool` may be taken at `state` (some outcome of
    /// its guards holds): it is not protected, or every protection of it
    /// is identified for.
    fn read_permitted(&self, state: &State, tool: &str) -> bool {
        self.protections_of(tool)
            .all(|(i, _)| state.identified.contains(i))
    }

    /// The order rule of a message class (`None`: another class).
    fn rule(&self, class: &AgentClass) -> Option<Rule> {
        match class {
            AgentClass::Instruct(tool) | AgentClass::DeviceCall(tool) => self
                .instructions
                .iter()
                .position(|t| t == tool)
                .map(Rule::Diagnosis),
            AgentClass::Claim(id) => self
                .claims
                .iter()
                .position(|c| c == id)
                .map(Rule::Verification),
            AgentClass::Read(_) | AgentClass::Write(_) => None,
        }
    }

    /// The protected read tools, in bundle order (each once).
    pub fn protected_tools(&self) -> Vec<String> {
        let mut tools: Vec<String> = Vec::new();
        for p in &self.protected {
            if !tools.contains(&p.tool) {
                tools.push(p.tool.clone());
            }
        }
        tools
    }

    /// What the successful result `mv` carries, if any, does to the rules:
    /// its index in the effect table (0: nothing).
    fn effect_index(&self, mv: &Move) -> u32 {
        match mv {
            Move::Read { tool, .. } | Move::UserTool { tool, .. } | Move::Write { tool, .. } => {
                self.effects.get(tool).copied().unwrap_or(0)
            }
            Move::Holds { .. } | Move::User { .. } | Move::Message { .. } => 0,
        }
    }

    /// Whether a successful result of `tool` changes an order rule (it
    /// diagnoses a fix, or verifies or unverifies a claim).
    pub(crate) fn changes_rules(&self, tool: &str) -> bool {
        self.effects.get(tool).is_some_and(|&i| i != 0)
    }

    fn effect_of(&self, index: u32) -> Option<&Effect> {
        self.effect_table.get(index as usize)
    }

    /// Whether the order rule of the message class `class` is unmet after
    /// `mv`, given whether it was before: a diagnosis of the fix meets an
    /// instruction's rule for good; a verifying result meets a claim's, a
    /// fix unmeets it. Other classes have no such rule (`false`).
    pub fn unmet_after_move(&self, unmet: bool, mv: &Move, class: &AgentClass) -> bool {
        self.rule(class)
            .is_some_and(|rule| rule.unmet_after(unmet, self.effect_of(self.effect_index(mv))))
    }

    /// Whether the order rule of `class` is unmet after `moves` from the
    /// start (nothing diagnosed or verified there).
    pub fn unmet_after(&self, moves: &[Move], class: &AgentClass) -> bool {
        moves.iter().fold(class.has_order_rule(), |unmet, mv| {
            self.unmet_after_move(unmet, mv, class)
        })
    }

    /// For the message class `class`: for every explored state, the shortest
    /// valid path from the start reaching it with the class's rule unmet
    /// (`None`: no such path). Breadth-first over state × flag.
    pub fn unmet_paths(&self, explored: &Explored, class: &AgentClass) -> Vec<Option<Vec<Move>>> {
        const UNSEEN: (usize, usize) = (usize::MAX, usize::MAX);
        const ROOT: (usize, usize) = (usize::MAX, 0);
        let n = explored.states.len();
        let Some(rule) = self.rule(class) else {
            return vec![None; n];
        };
        // Product node: state index * 2 + flag (1: unmet); its parent node
        // and the index of the move in the parent state's successors.
        let mut parent: Vec<(usize, usize)> = vec![UNSEEN; n * 2];
        let start = 1;
        let mut queue = VecDeque::from([start]);
        if let Some(p) = parent.get_mut(start) {
            *p = ROOT;
        }
        while let Some(node) = queue.pop_front() {
            let (i, unmet) = (node / 2, node % 2 == 1);
            let effects = explored.effects.get(i).map_or(&[][..], Vec::as_slice);
            for (k, ((_, j), effect)) in explored
                .successors
                .get(i)
                .into_iter()
                .flatten()
                .zip(effects)
                .enumerate()
            {
                let next = j * 2 + usize::from(rule.unmet_after(unmet, self.effect_of(*effect)));
                if let Some(slot) = parent.get_mut(next).filter(|p| **p == UNSEEN) {
                    *slot = (node, k);
                    queue.push_back(next);
                }
            }
        }
        (0..n)
            .map(|i| {
                let mut node = i * 2 + 1;
                if parent.get(node).is_none_or(|p| *p == UNSEEN) {
                    return None;
                }
                let mut path = Vec::new();
                while let Some(&(p, k)) = parent.get(node).filter(|p| **p != ROOT) {
                    let mv = explored
                        .successors
                        .get(p / 2)
                        .and_then(|list| list.get(k))
                        .map(|(mv, _)| mv.clone())?;
                    path.push(mv);
                    node = p;
                }
                path.reverse();
                Some(path)
            })
            .collect()
    }

    /// Read tools some `tool_call` step names (the procedural reads).
    pub fn reads(&self) -> &[String] {
        &self.reads
    }

    /// Agent-side mutating tools (the guarded action class).
    pub fn writes(&self) -> &[String] {
        &self.writes
    }

    /// The name of step `s`.
    pub fn step_name(&self, s: StepId) -> &str {
        self.names.get(s.0 as usize).map_or("?", String::as_str)
    }

    /// Whether `s` is an exit step.
    pub fn is_exit(&self, s: StepId) -> bool {
        self.kind(s).is_some_and(|k| k.exit)
    }

    fn kind(&self, s: StepId) -> Option<&StepKind> {
        self.kinds.get(s.0 as usize)
    }

    /// The steps a request at `cursor` waits at.
    pub fn ahead(&self, cursor: StepId) -> &[StepId] {
        self.ahead.get(cursor.0 as usize).map_or(&[], Vec::as_slice)
    }

    /// Device fixes whose instruction can come too early.
    pub fn instructions(&self) -> &[String] {
        &self.instructions
    }

    /// The bundle's claims, by id.
    pub fn claims(&self) -> &[String] {
        &self.claims
    }

    /// Who calls the device tools in this automaton.
    pub fn control(&self) -> Control {
        self.control
    }

    /// The agent event classes that can deviate.
    pub fn agent_classes(&self) -> Vec<AgentClass> {
        self.protected_tools()
            .into_iter()
            .map(AgentClass::Read)
            .chain(self.writes.iter().map(|t| AgentClass::Write(t.clone())))
            .chain(
                self.instructions
                    .iter()
                    .map(|t| AgentClass::Instruct(t.clone())),
            )
            .chain(self.claims.iter().map(|c| AgentClass::Claim(c.clone())))
            .chain(
                self.instructions
                    .iter()
                    .filter(|_| self.control == Control::Solo)
                    .map(|t| AgentClass::DeviceCall(t.clone())),
            )
            .collect()
    }

    /// Why `class` at `state` leaves the valid prefixes (`None`: it does not
    /// necessarily; some outcome keeps the prefix valid).
    /// A step counts as enabled when free formal steps alone separate it
    /// from the cursor: they may hold already, and a deviation must deviate
    /// whatever the data read so far.
    pub fn deviation(&self, state: &State, class: &AgentClass) -> Option<Why> {
        let ahead = self
            .reach
            .get(state.cursor.0 as usize)
            .map_or(&[][..], Vec::as_slice);
        match class {
            AgentClass::Read(tool) => {
                let mut protections = self.protections_of(tool).peekable();
                protections.peek()?;
                if !self.read_permitted(state, tool) {
                    return Some(Why::NotIdentified);
                }
                // Identified: the read deviates when its guards may fail.
                self.protections_of(tool)
                    .all(|(_, p)| p.guarded)
                    .then_some(Why::GuardFails)
            }
            AgentClass::Write(tool) => {
                let w = self.writes.iter().position(|t| t == tool)?;
                let auth: Vec<&StepKind> = ahead
                    .iter()
                    .filter_map(|s| self.kind(*s))
                    .filter(|k| k.authorizes == Some(w))
                    .collect();
                if auth.is_empty() {
                    Some(Why::Unauthorized)
                } else if auth.iter().all(|k| k.guarded) {
                    // The guard-failing outcome deviates; the holding one is
                    // a valid move (see `moves`).
                    Some(Why::GuardFails)
                } else {
                    None
                }
            }
            // Decided by the path, not the state: see `deviation_after`.
            AgentClass::Instruct(_) | AgentClass::Claim(_) | AgentClass::DeviceCall(_) => None,
        }
    }

    /// Why `class` deviates after the valid `moves` (`None`: it does not
    /// necessarily): [`Automaton::deviation`] at the state they reach, and
    /// for an instruction or claim, whether its rule is unmet along them.
    pub fn deviation_after(&self, moves: &[Move], class: &AgentClass) -> Option<Why> {
        let state = self.run(moves).ok()?;
        match class {
            AgentClass::Instruct(tool) => (self.instructions.contains(tool)
                && self.unmet_after(moves, class))
            .then_some(Why::BeforeDiagnosis),
            AgentClass::DeviceCall(tool) => (self.control == Control::Solo
                && self.instructions.contains(tool)
                && self.unmet_after(moves, class))
            .then_some(Why::BeforeDiagnosis),
            AgentClass::Claim(id) => (self.claims.contains(id) && self.unmet_after(moves, class))
                .then_some(Why::Unverified),
            AgentClass::Read(_) | AgentClass::Write(_) => self.deviation(&state, class),
        }
    }

    /// Every valid move from `state` and the state it leads to.
    pub fn moves(&self, state: &State) -> Vec<(Move, State)> {
        let mut out = Vec::new();
        let at = |cursor: StepId, turn: Turn| State {
            cursor,
            identified: if cursor == state.cursor {
                state.identified.clone()
            } else {
                self.identified_at(cursor, &state.identified)
            },
            turn,
        };
        let ahead = self.ahead(state.cursor);
        out.push((
            Move::User { satisfies: None },
            at(state.cursor, Turn::TurnStart),
        ));
        out.push((
            Move::Message { satisfies: None },
            at(state.cursor, Turn::MidTurn),
        ));
        for &s in ahead {
            let Some(kind) = self.kind(s) else { continue };
            if kind.free {
                out.push((Move::Holds { step: s }, at(s, state.turn)));
            }
            if kind.by_user {
                out.push((Move::User { satisfies: Some(s) }, at(s, Turn::TurnStart)));
            }
            if kind.by_agent {
                out.push((Move::Message { satisfies: Some(s) }, at(s, Turn::MidTurn)));
            }
            if let Some(i) = kind.by_read
                && let Some(tool) = self.reads.get(i)
                && self.read_permitted(state, tool)
            {
                out.push((
                    Move::Read {
                        tool: tool.clone(),
                        satisfies: Some(s),
                    },
                    at(s, Turn::MidTurn),
                ));
            }
            if let Some(tool) = kind.by_user_tool.and_then(|u| self.user_tools.get(u)) {
                // Under solo control the agent makes the call: its turn.
                let turn = match self.control {
                    Control::Dual => state.turn,
                    Control::Solo => Turn::MidTurn,
                };
                out.push((
                    Move::UserTool {
                        tool: tool.clone(),
                        satisfies: s,
                    },
                    at(s, turn),
                ));
            }
            if let Some(tool) = kind.authorizes.and_then(|w| self.writes.get(w)) {
                out.push((
                    Move::Write {
                        tool: tool.clone(),
                        satisfies: s,
                    },
                    at(s, Turn::MidTurn),
                ));
            }
        }
        // A read that satisfies nothing (its check fails, or a re-read) is
        // valid wherever the read is permitted (its guards may hold).
        let mut tools: Vec<&String> = self.reads.iter().collect();
        tools.extend(self.protected.iter().map(|p| &p.tool));
        tools.sort();
        tools.dedup();
        for tool in tools {
            if self.read_permitted(state, tool) {
                out.push((
                    Move::Read {
                        tool: tool.clone(),
                        satisfies: None,
                    },
                    at(state.cursor, Turn::MidTurn),
                ));
            }
        }
        out
    }

    /// Breadth-first exploration from the start, then the backward pass that
    /// marks the states from which an exit is reachable.
    pub fn explore(&self) -> Explored {
        let start = self.start();
        let mut index: BTreeMap<State, usize> = BTreeMap::new();
        let mut states = vec![start.clone()];
        let mut parent: Vec<Option<(usize, Move)>> = vec![None];
        let mut successors: Vec<Vec<(Move, usize)>> = vec![Vec::new()];
        let mut depth: Vec<usize> = vec![0];
        let mut shortest_parents: Vec<Vec<(usize, Move)>> = vec![Vec::new()];
        index.insert(start, 0);
        let mut truncated = false;
        let mut next = 0;
        while let Some(state) = states.get(next) {
            for (mv, to) in self.moves(state) {
                let j = match index.get(&to) {
                    Some(&j) => j,
                    None => {
                        if states.len() >= MAX_STATES {
                            truncated = true;
                            continue;
                        }
                        let j = states.len();
                        index.insert(to.clone(), j);
                        states.push(to);
                        parent.push(Some((next, mv.clone())));
                        depth.push(depth.get(next).copied().unwrap_or(0) + 1);
                        shortest_parents.push(Vec::new());
                        successors.push(Vec::new());
                        j
                    }
                };
                let layer = depth.get(next).copied().unwrap_or(0) + 1;
                if depth.get(j) == Some(&layer)
                    && let Some(list) = shortest_parents.get_mut(j)
                {
                    list.push((next, mv.clone()));
                }
                if let Some(list) = successors.get_mut(next) {
                    list.push((mv, j));
                }
            }
            next += 1;
        }
        let mut back: Vec<Vec<usize>> = vec![Vec::new(); states.len()];
        for (from, list) in successors.iter().enumerate() {
            for &(_, to) in list {
                if let Some(back) = back.get_mut(to) {
                    back.push(from);
                }
            }
        }
        let mut live = vec![false; states.len()];
        let mut queue: VecDeque<usize> = states
            .iter()
            .enumerate()
            .filter(|(_, s)| self.is_exit(s.cursor))
            .map(|(i, _)| i)
            .collect();
        for &i in &queue {
            if let Some(l) = live.get_mut(i) {
                *l = true;
            }
        }
        while let Some(i) = queue.pop_front() {
            for &p in back.get(i).into_iter().flatten() {
                if let Some(l) = live.get_mut(p).filter(|l| !**l) {
                    *l = true;
                    queue.push_back(p);
                }
            }
        }
        Explored {
            states,
            parent,
            shortest_parents,
            live,
            effects: successors
                .iter()
                .map(|list| list.iter().map(|(mv, _)| self.effect_index(mv)).collect())
                .collect(),
            successors,
            truncated,
        }
    }

    /// Runs a sequence of moves from the start: the state reached, or the
    /// index of the first move that is not a valid move of its state.
    pub fn run(&self, moves: &[Move]) -> Result<State, usize> {
        let mut state = self.start();
        for (i, mv) in moves.iter().enumerate() {
            state = self
                .moves(&state)
                .into_iter()
                .find(|(m, _)| m == mv)
                .map(|(_, s)| s)
                .ok_or(i)?;
        }
        Ok(state)
    }
}

impl Explored {
    /// Up to `cap` shortest move sequences from the start to state `i`.
    pub fn shortest_paths(&self, i: usize, cap: usize) -> Vec<Vec<Move>> {
        let mut done = Vec::new();
        // Depth-first backwards through the layers; each entry is a state
        // and the moves from it to `i`.
        let mut stack: Vec<(usize, Vec<Move>)> = vec![(i, Vec::new())];
        while let Some((at, suffix)) = stack.pop() {
            if done.len() >= cap {
                break;
            }
            let parents = self.shortest_parents.get(at).map_or(&[][..], Vec::as_slice);
            if parents.is_empty() {
                let mut path = suffix;
                path.reverse();
                done.push(path);
                continue;
            }
            for (p, mv) in parents.iter().rev() {
                let mut longer = suffix.clone();
                longer.push(mv.clone());
                stack.push((*p, longer));
            }
        }
        done
    }

    /// The moves from the start to state `i`, shortest first found.
    pub fn path_to(&self, mut i: usize) -> Vec<Move> {
        let mut path = Vec::new();
        while let Some(Some((p, mv))) = self.parent.get(i) {
            path.push(mv.clone());
            i = *p;
        }
        path.reverse();
        path
    }
}

/// Per step: the steps reachable from its successors through steps `pass`
/// accepts (the first step not passed is included, and so are passed ones).
fn closure(successors: &[Vec<StepId>], pass: impl Fn(StepId) -> bool) -> Vec<Vec<StepId>> {
    (0..successors.len())
        .map(|i| {
            let mut seen = BTreeSet::new();
            let mut queue: VecDeque<StepId> = successors.get(i).cloned().unwrap_or_default().into();
            while let Some(s) = queue.pop_front() {
                if seen.insert(s) && pass(s) {
                    queue.extend(successors.get(s.0 as usize).into_iter().flatten().copied());
                }
            }
            seen.into_iter().collect()
        })
        .collect()
}

fn classify(
    step: &Step,
    node: Option<&crate::fsm::Node>,
    [reads, writes, user_tools]: [&[String]; 3],
    tool_name: &dyn Fn(Symbol) -> String,
) -> StepKind {
    let exit = node.is_some_and(|n| n.kind == NodeKind::Exit);
    let agent_said = node.is_some_and(|n| n.actor == Actor::Agent);
    let mut kind = StepKind {
        free: false,
        by_user: false,
        by_agent: false,
        by_read: None,
        by_user_tool: None,
        authorizes: None,
        guarded: step.check.is_some(),
        exit,
    };
    match step.timing {
        Timing::Result(t) => {
            let name = tool_name(t);
            kind.by_read = reads.iter().position(|r| *r == name);
            kind.by_user_tool = user_tools.iter().position(|u| *u == name);
        }
        Timing::Call(t) => {
            let name = tool_name(t);
            kind.authorizes = writes.iter().position(|w| *w == name);
        }
        Timing::State if step.semantic => {
            // A judged step: an agent action is said by the agent, anything
            // else (user input, a classifying branch) by the user.
            kind.by_user = !agent_said;
            kind.by_agent = agent_said;
        }
        Timing::State => kind.free = true,
    }
    kind
}
