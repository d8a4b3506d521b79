//! The monitor's compiled plan: the encoded checks and, per step, what the
//! propagation needs (root, timing, variable masks, successors), plus indices
//! from tools to the steps and event filters they touch. Built once per
//! bundle and shared by every session.

use crate::ids::OperandId;
use hashbrown::HashMap;

use crate::encode::Encoded;
use crate::env::MAX_VARS;
use crate::evaluate::EvaluateError;
use crate::intern::Symbol;
use crate::ir::{ArgPath, CmpOp, Operand, Outcome};
use crate::steps::{CompiledChecks, StepId, Timing};

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
            auth_steps: HashMap::new(),
            call_steps: HashMap::new(),
            result_steps: HashMap::new(),
            state_steps: Vec::new(),
            filters_of: HashMap::new(),
            encoded,
        };
        plan.remap_paths(arg_paths);
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
            plan.steps.push(StepPlan {
                root: step.check.and_then(|c| plan.encoded.root(c)),
                timing: step.timing,
                semantic: step.semantic,
                trivial: step.timing == Timing::State && step.check.is_none(),
                bind_mask,
                key_mask,
                succs: Vec::new(),
                authorizes: step.authorizes,
            });
        }
        for &(a, b) in &checks.edges {
            if let Some(step) = plan.steps.get_mut(a.0 as usize) {
                step.succs.push(b.0);
            }
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

    /// Encodes an extra operand (a remediation placeholder) so the monitor can
    /// evaluate it; returns its node.
    pub fn add_operand(&mut self, operand: &Operand, arg_paths: &[ArgPath]) -> OperandId {
        let node = self.encoded.encode_operand(operand);
        self.remap_paths(arg_paths);
        node
    }

    /// The facts' index of encoded argument path `p`.
    pub fn fact_path(&self, p: u32) -> u32 {
        self.path_map.get(p as usize).copied().unwrap_or(u32::MAX)
    }

    /// Whether agent calls of `tool` must be authorized.
    pub fn is_gated(&self, tool: Symbol) -> bool {
        self.gated.contains(&tool)
    }
}

pub fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}
