//! The monitor's compiled plan: the encoded checks and, per step, what the
//! propagation needs (root, timing, variable masks, successors), plus indices
//! from tools to the steps and event filters they touch. Built once per
//! bundle and shared by every session.

use crate::ids::OperandId;
use hashbrown::HashMap;

use crate::consent::ConsentSpec;
use crate::encode::{CNode, Encoded, ONode};
use crate::env::MAX_VARS;
use crate::evaluate::EvaluateError;
use crate::evaluate::graph::{forward_edges, step_depths};
use crate::evaluate::inputs::pinned_vars;
use crate::intern::Symbol;
use crate::ir::{ArgPath, CmpOp, Operand, Outcome, VarId};
use crate::steps::{CompiledChecks, Protection, StepId, Timing};
use crate::visit::{Visitor, walk_condition, walk_operand};

#[derive(Clone, Debug)]
pub struct StepPlan {
    /// Root check node; `None` is trivially true.
    pub root: Option<u32>,
    pub timing: Timing,
    pub semantic: bool,
    /// A state step without a check: satisfied as soon as it is ready.
    pub trivial: bool,
    /// Variables the step binds from its call or result.
    pub bind_mask: u32,
    /// Variables its check reads that it does not bind: a request must have
    /// bound them all for the step to be satisfiable.
    pub key_mask: u32,
    pub succs: Vec<u32>,
    pub authorizes: Option<Symbol>,
    /// The step has a check (a semantic-only or trivial step has none).
    pub has_check: bool,
    /// Distance from the entry (`u32::MAX`: unreachable).
    pub depth: u32,
    /// The conjuncts of its check that read only facts no past call
    /// changes, and no request variable but those of `pins`
    /// ([`reads_only_facts`]).
    pub fact_conjuncts: Vec<u32>,
    /// Successors along forward edges (loops cut at their back edges).
    pub forward_succs: Vec<u32>,
    /// Predecessors along every edge.
    pub preds: Vec<u32>,
    /// Variables its check pins to a scalar argument (`args.x == $v`), with
    /// the encoded argument path.
    pub pins: Vec<(VarId, u32)>,
    /// The steps whose check evaluates this step's root node (itself, steps
    /// sharing its check, checks containing it) when this step is the first
    /// to use that node — the reference program derives where the node held
    /// from all of them; empty when an earlier step owns the node (the
    /// program then gives this step a node of its own).
    pub evaluated_by: Vec<u32>,
}

#[derive(Clone, Debug)]
/// A compiled bundle's checks and steps, precompiled for the monitor.
pub struct Plan {
    /// The encoded checks.
    pub encoded: Encoded,
    /// Encoded argument path to the facts' path index (`u32::MAX`: never present).
    path_map: Vec<u32>,
    /// Per step: its timing, root, masks and successors.
    pub steps: Vec<StepPlan>,
    /// The entry step.
    pub entry: StepId,
    /// Tools whose agent calls must be authorized.
    pub gated: Vec<Symbol>,
    /// Per gated tool: the steps that authorize it.
    pub auth_steps: HashMap<Symbol, Vec<u32>>,
    /// Per tool: the steps decided at its calls.
    pub call_steps: HashMap<Symbol, Vec<u32>>,
    /// Per tool: the steps decided at its results.
    pub result_steps: HashMap<Symbol, Vec<u32>>,
    /// The steps decided at any event.
    pub state_steps: Vec<u32>,
    /// Per tool: `(filter, outcome, key path)` of every event filter on it;
    /// the key path is the facts path of the first `==` constraint.
    pub filters_of: HashMap<Symbol, Vec<(u32, Outcome, Option<u32>)>>,
    /// Per authorization step: the steps it can be reached from along one or
    /// more edges (for block explanations).
    pub reaching: HashMap<u32, Vec<u32>>,
    /// Which conditions of a write are the user's consent.
    pub consent: ConsentSpec,
    /// The protected reads: what permits an agent's call of their tools.
    pub protections: Vec<Protection>,
}

impl Plan {
    /// `arg_paths`: the argument paths the facts are extracted along, by index.
    pub fn new(checks: &CompiledChecks, arg_paths: &[ArgPath]) -> Result<Plan, EvaluateError> {
        if checks.vars as usize > MAX_VARS {
            return Err(EvaluateError::TooManyVariables(checks.vars));
        }
        let encoded = Encoded::new(&checks.checks);
        let mut plan = Plan {
            path_map: Vec::new(),
            steps: Vec::with_capacity(checks.steps.len()),
            entry: checks.entry,
            gated: checks.gated_tools.clone(),
            consent: checks.consent.clone(),
            auth_steps: HashMap::new(),
            call_steps: HashMap::new(),
            result_steps: HashMap::new(),
            state_steps: Vec::new(),
            filters_of: HashMap::new(),
            reaching: HashMap::new(),
            protections: checks.protections.clone(),
            encoded,
        };
        plan.remap_paths(arg_paths);
        let depths = step_depths(checks);
        for (index, step) in checks.steps.iter().enumerate() {
            let s = to_u32(index);
            let bind_mask = step.bind_mask();
            let key_mask = step.key_mask(&plan.encoded);
            match step.timing {
                Timing::State => plan.state_steps.push(s),
                Timing::Call(t) => plan.call_steps.entry(t).or_default().push(s),
                Timing::Result(t) => plan.result_steps.entry(t).or_default().push(s),
            }
            if let Some(t) = step.authorizes {
                plan.auth_steps.entry(t).or_default().push(s);
            }
            let root = step.check.and_then(|c| plan.encoded.root(c));
            let pins = root
                .map(|r| pinned_vars(&plan.encoded, r))
                .unwrap_or_default();
            plan.steps.push(StepPlan {
                root,
                timing: step.timing,
                semantic: step.semantic,
                trivial: step.timing == Timing::State && step.check.is_none(),
                bind_mask,
                key_mask,
                succs: Vec::new(),
                authorizes: step.authorizes,
                has_check: step.check.is_some(),
                depth: depths.get(index).copied().unwrap_or(u32::MAX),
                fact_conjuncts: root
                    .map(|r| fact_conjuncts(&plan.encoded, r, &pins))
                    .unwrap_or_default(),
                forward_succs: Vec::new(),
                preds: Vec::new(),
                pins,
                evaluated_by: Vec::new(),
            });
        }
        for &(a, b) in &checks.edges {
            if let Some(step) = plan.steps.get_mut(a.0 as usize) {
                step.succs.push(b.0);
            }
            if let Some(step) = plan.steps.get_mut(b.0 as usize) {
                step.preds.push(a.0);
            }
        }
        for (a, b) in forward_edges(checks) {
            if let Some(step) = plan.steps.get_mut(a as usize) {
                step.forward_succs.push(b);
            }
        }
        plan.link_shared_roots();
        let auths: Vec<u32> = plan.auth_steps.values().flatten().copied().collect();
        for a in auths {
            let reaching = plan.reaching_steps(a);
            plan.reaching.insert(a, reaching);
        }
        Ok(plan)
    }

    fn remap_paths(&mut self, arg_paths: &[ArgPath]) {
        self.path_map = self
            .encoded
            .arg_paths
            .iter()
            .map(|p| {
                arg_paths
                    .iter()
                    .position(|q| q == p)
                    .map_or(u32::MAX, to_u32)
            })
            .collect();
        self.filters_of.clear();
        for (f, filter) in self.encoded.filters.iter().enumerate() {
            let key_path = filter
                .constraints
                .iter()
                .find(|&&(_, op, _)| op == CmpOp::Eq)
                .map(|&(p, _, _)| self.fact_path(p))
                .filter(|&p| p != u32::MAX);
            self.filters_of.entry(filter.tool).or_default().push((
                to_u32(f),
                filter.outcome,
                key_path,
            ));
        }
    }

    /// Whether agent calls of `tool` are protected reads.
    pub fn is_protected(&self, tool: Symbol) -> bool {
        self.protections.iter().any(|p| p.tool == tool)
    }

    /// Encodes an extra operand (a remediation placeholder) so the monitor can
    /// evaluate it; returns its node.
    pub fn add_operand(&mut self, operand: &Operand, arg_paths: &[ArgPath]) -> OperandId {
        let node = self.encoded.encode_operand(operand);
        self.remap_paths(arg_paths);
        node
    }

    /// Fills [`StepPlan::evaluated_by`] the way the program assigns roots:
    /// the first step using a node keeps it, later ones get a fresh node.
    fn link_shared_roots(&mut self) {
        let trees: Vec<Vec<u32>> = self
            .steps
            .iter()
            .map(|s| s.root.map(|r| self.and_or_nodes(r)).unwrap_or_default())
            .collect();
        let mut owned = hashbrown::HashSet::new();
        for index in 0..self.steps.len() {
            let Some(root) = self.steps.get(index).and_then(|s| s.root) else {
                continue;
            };
            if !owned.insert(root) {
                continue;
            }
            let by: Vec<u32> = trees
                .iter()
                .enumerate()
                .filter(|(_, nodes)| nodes.contains(&root))
                .map(|(t, _)| to_u32(t))
                .collect();
            if let Some(step) = self.steps.get_mut(index) {
                step.evaluated_by = by;
            }
        }
    }

    /// Node `root` and every node below it through `and` / `or`.
    fn and_or_nodes(&self, root: u32) -> Vec<u32> {
        struct AndOr(Vec<u32>);
        impl Visitor for AndOr {
            fn condition(&mut self, tree: &Encoded, c: u32) {
                if self.0.contains(&c) {
                    return;
                }
                self.0.push(c);
                if matches!(
                    tree.cnodes.get(c as usize),
                    Some(CNode::And(..) | CNode::Or(..))
                ) {
                    walk_condition(self, tree, c);
                }
            }
        }
        let mut nodes = AndOr(Vec::new());
        nodes.condition(&self.encoded, root);
        nodes.0
    }

    /// The steps with a path of one or more edges to `to`, in order.
    fn reaching_steps(&self, to: u32) -> Vec<u32> {
        let mut seen = vec![false; self.steps.len()];
        let mut stack: Vec<u32> = self
            .steps
            .get(to as usize)
            .map(|s| s.preds.clone())
            .unwrap_or_default();
        while let Some(s) = stack.pop() {
            let Some(flag) = seen.get_mut(s as usize) else {
                continue;
            };
            if std::mem::replace(flag, true) {
                continue;
            }
            stack.extend(
                self.steps
                    .get(s as usize)
                    .into_iter()
                    .flat_map(|p| p.preds.iter()),
            );
        }
        seen.iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .map(|(i, _)| to_u32(i))
            .collect()
    }

    /// The facts' index of encoded argument path `p`.
    pub fn fact_path(&self, p: u32) -> u32 {
        self.path_map.get(p as usize).copied().unwrap_or(u32::MAX)
    }

    /// Whether agent calls of `tool` must be authorized.
    pub fn is_gated(&self, tool: Symbol) -> bool {
        self.gated.contains(&tool)
    }

    /// What of the monitor's state encoded operand `o` reads (through the
    /// operands it is made of).
    pub fn operand_reads(&self, o: u32) -> super::Reads {
        struct ReadsOf(super::Reads);
        impl Visitor for ReadsOf {
            fn operand(&mut self, tree: &Encoded, o: u32) {
                match tree.onodes.get(o as usize) {
                    Some(ONode::Arg(_)) => self.0.args = true,
                    Some(ONode::Field { .. }) => self.0.fields = true,
                    Some(ONode::Now) => self.0.time = true,
                    Some(ONode::Count { key, .. }) => {
                        // What it counts is the state's; its key is an operand.
                        self.0.counts = true;
                        self.operand(tree, *key);
                        return;
                    }
                    _ => {}
                }
                walk_operand(self, tree, o);
            }
        }
        let mut reads = ReadsOf(super::Reads::default());
        reads.operand(&self.encoded, o);
        reads.0
    }
}

/// The conjuncts of check `root` (the nodes below it through `and`) that
/// read only facts no past call changes, and of the request variables only
/// those pinned to the call's arguments (`pins`, themselves conjuncts).
fn fact_conjuncts(tree: &Encoded, root: u32, pins: &[(VarId, u32)]) -> Vec<u32> {
    struct Conjuncts<'a>(Vec<u32>, &'a [(VarId, u32)]);
    impl Visitor for Conjuncts<'_> {
        fn condition(&mut self, tree: &Encoded, c: u32) {
            if matches!(tree.cnodes.get(c as usize), Some(CNode::And(..))) {
                walk_condition(self, tree, c);
            } else if reads_only_facts(tree, c, self.1) {
                self.0.push(c);
            }
        }
    }
    let mut conjuncts = Conjuncts(Vec::new(), pins);
    conjuncts.condition(tree, root);
    conjuncts.0
}

/// Whether condition `c` reads only the arguments of the call decided,
/// entity fields read, constants, the clock and the variables of `pins`:
/// no past call (`happened`, `count`), no turn (`said`, `confirmed`).
/// Under a request the whole check holds for, each pinned variable is its
/// argument's value; so such a condition, evaluated with those values,
/// decides alike for every such request, and in every workflow over the
/// same events whose checks differ only in other conditions, whichever
/// earlier calls it reads as not run (they bring no reads: a result does).
fn reads_only_facts(tree: &Encoded, c: u32, pins: &[(VarId, u32)]) -> bool {
    struct FactsOnly<'a>(bool, &'a [(VarId, u32)]);
    impl Visitor for FactsOnly<'_> {
        fn condition(&mut self, tree: &Encoded, c: u32) {
            match tree.cnodes.get(c as usize) {
                Some(
                    CNode::True
                    | CNode::False
                    | CNode::And(..)
                    | CNode::Or(..)
                    | CNode::Cmp { .. }
                    | CNode::In { .. }
                    | CNode::Contains { .. },
                ) => walk_condition(self, tree, c),
                Some(CNode::Happened { .. } | CNode::Said { .. } | CNode::Confirmed { .. })
                | None => self.0 = false,
            }
        }

        fn operand(&mut self, tree: &Encoded, o: u32) {
            match tree.onodes.get(o as usize) {
                Some(
                    ONode::Const(_)
                    | ONode::Arg(_)
                    | ONode::Field { .. }
                    | ONode::Agg { .. }
                    | ONode::CountEqual { .. }
                    | ONode::Now
                    | ONode::Arith { .. },
                ) => walk_operand(self, tree, o),
                Some(ONode::Var(var)) if self.1.iter().any(|(pinned, _)| pinned == var) => {}
                Some(ONode::Var(_) | ONode::Count { .. }) | None => self.0 = false,
            }
        }

        fn filter(&mut self, _: &Encoded, _: u32) {
            self.0 = false;
        }
    }
    let mut facts_only = FactsOnly(true, pins);
    facts_only.condition(tree, c);
    facts_only.0
}

pub fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}
