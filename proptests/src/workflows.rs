//! Random workflows for the coverage theorems: a small, printable
//! description ([`WorkflowSpec`]) and its rendering as a bundle directory.
//!
//! Every workflow has the same domain — one entity `item` with a boolean
//! field `ok`, read tools `look_a`, `look_b`, `look_c` (and the generic `peek`,
//! which no check mentions), write tools `act_x`, `act_y` — and the same spine: entry, an
//! identifying read that binds `$thing`, random intro steps, a classifier
//! choosing among the request types, per request random steps then the
//! authorization of its write tool (guarded or not), its verify step and an
//! exit. Steps are formal reads (checked `item[args.id].ok == true` or not),
//! judged user or agent steps, and formal decisions on `item[$thing].ok`
//! whose branches rejoin. With [`WorkflowSpec::repeat`] every request ends in
//! a judged `more` decision whose `another` branch loops back to the
//! classifier (the "anything else?" cycle of the shipped bundles). With
//! [`WorkflowSpec::order`] the bundle also has telecom's deviations without a
//! write: a device fix [`FIX_TOOL`] the user runs (dual control) whose
//! instruction must follow a `look_b` result, and a claim [`CLAIM`] that a
//! `look_c` result must verify after the first request's write. With
//! [`WorkflowSpec::protect`] a read tool is protected: a read of it before
//! the identifying read deviates, and (guarded) one of another item after it.

use std::fmt::{self, Write as _};

/// The read tools the steps may name.
pub const READ_TOOLS: [&str; 3] = ["look_a", "look_b", "look_c"];
/// The write tools the requests may authorize.
pub const WRITE_TOOLS: [&str; 2] = ["act_x", "act_y"];
/// A generic tool no step names and whose result carries no field: an
/// event no check mentions.
pub const UNMENTIONED_TOOL: &str = "peek";
/// The user's device fix of [`WorkflowSpec::order`]: instructing it before a
/// `look_b` result deviates.
pub const FIX_TOOL: &str = "reset_z";
/// The claim of [`WorkflowSpec::order`], by id; [`CLAIM_PHRASE`] makes it.
pub const CLAIM: &str = "fixed";
/// The phrase of an agent message that makes [`CLAIM`].
pub const CLAIM_PHRASE: &str = "it is fixed now";

/// One step of a sequence.
#[derive(Clone, PartialEq, Eq)]
pub enum StepSpec {
    /// A `tool_call` of read tool `tool` (index into [`READ_TOOLS`]); `checked`:
    /// its result must say `ok: true`.
    Read {
        /// The tool, by index.
        tool: usize,
        /// Whether the step checks the item read.
        checked: bool,
    },
    /// A judged `user_input` step.
    UserSays,
    /// A judged `agent_action` step.
    AgentSays,
    /// A formal decision on `item[$thing].ok`, each branch its own steps.
    Decide {
        /// Steps when `ok` is true.
        yes: Vec<StepSpec>,
        /// Steps when `ok` is false.
        no: Vec<StepSpec>,
    },
}

/// One request type: its steps, then its write.
#[derive(Clone, PartialEq, Eq)]
pub struct RequestSpec {
    /// The steps before the authorization.
    pub steps: Vec<StepSpec>,
    /// The write tool, by index into [`WRITE_TOOLS`].
    pub write: usize,
    /// Whether the authorization has a guard.
    pub guarded: bool,
}

/// A whole workflow.
#[derive(Clone, PartialEq, Eq)]
pub struct WorkflowSpec {
    /// Steps after identification, before classification.
    pub intro: Vec<StepSpec>,
    /// The request types (at least one).
    pub requests: Vec<RequestSpec>,
    /// After a request, a judged `another` loops back to the classifier.
    pub repeat: bool,
    /// Dual control with the device fix [`FIX_TOOL`] and the claim [`CLAIM`].
    pub order: bool,
    /// A protected read: `Some((tool, guarded))` protects `READ_TOOLS[tool]`
    /// (not the identifying `look_a`) after the identifying read, with the
    /// guard `args.id == $thing` when `guarded`.
    pub protect: Option<(usize, bool)>,
}

impl fmt::Debug for StepSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepSpec::Read { tool, checked } => write!(
                f,
                "read {}{}",
                READ_TOOLS.get(*tool).unwrap_or(&"?"),
                if *checked { " (ok)" } else { "" }
            ),
            StepSpec::UserSays => f.write_str("user says"),
            StepSpec::AgentSays => f.write_str("agent says"),
            StepSpec::Decide { yes, no } => write!(f, "if ok {yes:?} else {no:?}"),
        }
    }
}

impl fmt::Debug for RequestSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} then {}{}",
            self.steps,
            WRITE_TOOLS.get(self.write).unwrap_or(&"?"),
            if self.guarded { " (guarded)" } else { "" }
        )
    }
}

impl fmt::Debug for WorkflowSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "identify, {:?}, then one of {:?}{}{}",
            self.intro,
            self.requests,
            if self.repeat { ", repeated" } else { "" },
            if self.order {
                ", with an instruction and a claim"
            } else {
                ""
            }
        )?;
        if let Some((tool, guarded)) = self.protect {
            write!(
                f,
                ", {} protected{}",
                READ_TOOLS.get(tool).unwrap_or(&"?"),
                if guarded { " (guarded)" } else { "" }
            )?;
        }
        Ok(())
    }
}

impl WorkflowSpec {
    /// The bundle's files: `(relative path, text)`.
    pub fn files(&self) -> Vec<(String, String)> {
        let writes: Vec<&str> = WRITE_TOOLS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.requests.iter().any(|r| r.write == *i))
            .map(|(_, t)| *t)
            .collect();
        let types: Vec<String> = (0..self.requests.len()).map(|i| format!("r{i}")).collect();
        let mut manifest = format!(
            "name: generated\nversion: \"1\"\npolicy: policy.md\ndomain: domain.yaml\nmain: main\nflows:\n  - flows/main.yaml\nrequest_types: [{}]\n",
            types.join(", ")
        );
        if let Some((tool, guarded)) = self.protect {
            let tool = READ_TOOLS.get(tool).copied().unwrap_or("look_b");
            let guard = if guarded {
                "    guard: args.id == $thing\n"
            } else {
                ""
            };
            let _ = write!(
                manifest,
                "protected_reads:\n  - tools: [{tool}]\n    after: [identify]\n{guard}    remediation: Identify the item before reading {tool}\n"
            );
        }
        if self.order {
            let since = writes.first().copied().unwrap_or("act_x");
            let _ = write!(
                manifest,
                "control: dual\nclaims:\n  - id: {CLAIM}\n    phrases: [\"{CLAIM_PHRASE}\"]\n    verified_by: [look_c]\n    since: [{since}]\n    step: identify\n    remediation: Read look_c after the last change before saying it is fixed\n"
            );
        }
        let mut domain =
            String::from("entities:\n  item:\n    fields:\n      ok: bool\n\ntools:\n");
        let _ = write!(
            domain,
            "  - name: {UNMENTIONED_TOOL}\n    side: agent\n    kind: generic\n    params:\n      id: string\n"
        );
        for tool in &READ_TOOLS {
            let _ = write!(
                domain,
                "  - name: {tool}\n    side: agent\n    kind: read\n    params:\n      id: string\n    reads:\n      - entity: item\n        id: $.id\n        fields:\n          ok: $.ok\n"
            );
        }
        for tool in &writes {
            let _ = write!(
                domain,
                "  - name: {tool}\n    side: agent\n    kind: write\n    params:\n      id: string\n"
            );
        }
        if self.order {
            let _ = write!(
                domain,
                "  - name: {FIX_TOOL}\n    side: user\n    kind: write\n    after: [look_b]\n    params:\n      id: string\n"
            );
        }
        let mut flow = Flow::default();
        flow.push("  - id: start\n    type: entry\n    next: identify\n".to_owned());
        flow.push(
            "  - id: identify\n    type: tool_call\n    tool: look_a\n    bind:\n      thing: args.id\n    next: {next}\n"
                .to_owned(),
        );
        let mut open = vec![1usize];
        open = flow.sequence(&self.intro, open);
        let classify = flow.node(
            "classify",
            "  - id: classify\n    type: decision\n    classifier: true\n    branches:\n"
                .to_owned(),
        );
        flow.link(&open, &classify);
        let mut exits = vec![
            "  - id: end_general\n    type: exit\n    outcome: general\n".to_owned(),
            "  - id: end_transfer\n    type: exit\n    outcome: transfer\n".to_owned(),
        ];
        for (i, request) in self.requests.iter().enumerate() {
            let label = format!("r{i}");
            let first_open = flow.append_branch(
                &classify,
                &label,
                &format!("        judge: The user asks for request type {label}.\n"),
            );
            let mut open = vec![first_open];
            open = flow.sequence(&request.steps, open);
            let tool = WRITE_TOOLS.get(request.write).copied().unwrap_or("act_x");
            let guard = if request.guarded {
                "    guard: args.id == $thing && item[args.id].ok == true\n"
            } else {
                ""
            };
            let auth = flow.node(
                &format!("auth_{label}"),
                format!(
                    "  - id: auth_{label}\n    type: tool_authorization\n    tool: {tool}\n{guard}    next: verify_{label}\n"
                ),
            );
            flow.link(&open, &auth);
            let after = if self.repeat {
                "more".to_owned()
            } else {
                exits.push(format!(
                    "  - id: done_{label}\n    type: exit\n    outcome: normal\n"
                ));
                format!("done_{label}")
            };
            flow.push(format!(
                "  - id: verify_{label}\n    type: agent_action\n    check: succeeded({tool}, id == $thing)\n    next: {after}\n"
            ));
        }
        if self.repeat {
            flow.push(
                "  - id: more\n    type: decision\n    branches:\n      - label: another\n        judge: The user asks for something else.\n        to: classify\n      - label: finished\n        otherwise: true\n        to: done\n"
                    .to_owned(),
            );
            exits.push("  - id: done\n    type: exit\n    outcome: normal\n".to_owned());
        }
        for (label, target) in [("general", "end_general"), ("transfer", "end_transfer")] {
            let at = flow.append_branch(
                &classify,
                label,
                &format!("        judge: The user asks for {label}.\n"),
            );
            flow.link(&[at], target);
        }
        let mut main = String::from("flow: main\nvars:\n  thing: item\nnodes:\n");
        main.push_str(&flow.render());
        for exit in exits {
            main.push_str(&exit);
        }
        vec![
            ("bundle.yaml".to_owned(), manifest),
            ("policy.md".to_owned(), "# Generated policy\n".to_owned()),
            ("domain.yaml".to_owned(), domain),
            ("flows/main.yaml".to_owned(), main),
        ]
    }

    /// Writes the bundle into `dir`.
    pub fn write_to(&self, dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("flows"))?;
        for (path, text) in self.files() {
            std::fs::write(dir.join(path), text)?;
        }
        Ok(())
    }
}

/// Adds `expect` and `remediation` after the `type` line of a node that needs them.
fn annotate(node: &str) -> String {
    let mut out = String::new();
    for line in node.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some(kind) = line.trim().strip_prefix("type: ")
            && !matches!(kind, "entry" | "exit")
        {
            out.push_str("    expect: The generated step holds.\n    remediation: Satisfy the generated step.\n");
        }
    }
    out
}

/// A flow under construction: node texts with `{next}` placeholders (or
/// branch lists) patched once the following node is known.
#[derive(Default)]
struct Flow {
    nodes: Vec<String>,
    counter: usize,
}

impl Flow {
    fn push(&mut self, text: String) -> usize {
        self.nodes.push(text);
        self.nodes.len() - 1
    }

    /// Adds a node whose id is `id`; returns the id.
    fn node(&mut self, id: &str, text: String) -> String {
        self.push(text);
        id.to_owned()
    }

    fn fresh(&mut self) -> String {
        self.counter += 1;
        format!("s{}", self.counter)
    }

    /// Points every open node's `{next}` at `target`.
    fn link(&mut self, open: &[usize], target: &str) {
        for &i in open {
            if let Some(text) = self.nodes.get_mut(i) {
                *text = text.replacen("{next}", target, 1);
            }
        }
    }

    /// Adds a branch to the decision (the last node with that id) whose `to`
    /// is patched later; returns the index of the node holding `{next}`.
    fn append_branch(&mut self, decision: &str, label: &str, extra: &str) -> usize {
        let at = self
            .nodes
            .iter()
            .rposition(|n| n.starts_with(&format!("  - id: {decision}\n")))
            .unwrap_or(0);
        if let Some(text) = self.nodes.get_mut(at) {
            // Each branch's target placeholder is unique until linked.
            let _ = write!(
                text,
                "      - label: {label}\n{extra}        to: {{next}}\n"
            );
        }
        at
    }

    /// Appends `steps` after the open ends; returns the new open ends.
    fn sequence(&mut self, steps: &[StepSpec], mut open: Vec<usize>) -> Vec<usize> {
        for step in steps {
            let id = self.fresh();
            match step {
                StepSpec::Read { tool, checked } => {
                    let tool = READ_TOOLS.get(*tool).copied().unwrap_or("look_a");
                    let check = if *checked {
                        "    check: item[args.id].ok == true\n"
                    } else {
                        ""
                    };
                    self.link(&open, &id);
                    open = vec![self.push(format!(
                        "  - id: {id}\n    type: tool_call\n    tool: {tool}\n{check}    next: {{next}}\n"
                    ))];
                }
                StepSpec::UserSays => {
                    self.link(&open, &id);
                    open = vec![self.push(format!(
                        "  - id: {id}\n    type: user_input\n    judge: The user confirms step {id}.\n    next: {{next}}\n"
                    ))];
                }
                StepSpec::AgentSays => {
                    self.link(&open, &id);
                    open = vec![self.push(format!(
                        "  - id: {id}\n    type: agent_action\n    judge: The agent explained step {id}.\n    next: {{next}}\n"
                    ))];
                }
                StepSpec::Decide { yes, no } => {
                    self.link(&open, &id);
                    self.push(format!("  - id: {id}\n    type: decision\n    branches:\n"));
                    let yes_at =
                        self.append_branch(&id, "yes", "        check: item[$thing].ok == true\n");
                    let mut ends = self.sequence(yes, vec![yes_at]);
                    let no_at =
                        self.append_branch(&id, "no", "        check: item[$thing].ok == false\n");
                    ends.extend(self.sequence(no, vec![no_at]));
                    open = ends;
                }
            }
        }
        open
    }

    /// Every node but entries and exits says what it expects and what to do.
    fn render(&self) -> String {
        self.nodes.iter().map(|n| annotate(n)).collect()
    }
}
