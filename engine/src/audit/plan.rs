//! What auditing with one bundle needs to know, computed once per bundle:
//! which steps are reads, which steps a write's authorization rests on,
//! and which tools' results the bundle reads (the only results the fast
//! path parses).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use turnstile_rules::{Reason, StepId, Timing};

use super::JudgeMode;
use crate::bundle::model::{NodeKind, ToolKind};
use crate::fsm::BindSource;
use crate::session::{BundleRuntime, Schedule, Session, SessionError};
use crate::trace::Trace;

/// Per-bundle facts the audit needs, computed once.
#[derive(Debug)]
pub struct AuditPlan {
    rt: Arc<BundleRuntime>,
    /// Display names of the steps that are reads (`tool_call` nodes).
    read_steps: HashSet<String>,
    /// Per authorization step (by display name), the display names of the
    /// steps before it in the step graph: the only assumptions a write can
    /// rest on.
    ancestors: HashMap<String, HashSet<String>>,
    /// Tools whose result content the extractor looks at (a read spec or a
    /// binding from the result).
    result_tools: HashSet<String>,
    /// Those of them read as JSON (a read spec that is not a `text:` read).
    json_tools: HashSet<String>,
    mode: JudgeMode,
    /// `--now`: the time of events a trace records no time for.
    now: Option<turnstile_rules::DateTime>,
}

impl AuditPlan {
    /// The plan for auditing with `rt` under `mode`.
    pub fn new(rt: Arc<BundleRuntime>, mode: JudgeMode) -> Self {
        let graph = &rt.bundle.workflow.graph;
        let read_steps = rt
            .steps
            .iter()
            .enumerate()
            .filter(|(_, info)| {
                graph
                    .node_weight(info.node)
                    .is_some_and(|n| n.kind == NodeKind::ToolCall)
            })
            .filter_map(|(i, _)| u32::try_from(i).ok())
            .map(|i| rt.step_name(StepId(i)).to_owned())
            .collect();
        let program = &rt.bundle.program;
        // Backwards along edges that go deeper (a loop back to an earlier
        // step, such as the next request's classification, is not a way in).
        let depth = |s: usize| rt.steps.get(s).map_or(u32::MAX, |i| i.depth);
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); program.steps.len()];
        for (a, b) in &program.edges {
            let (a, b) = (a.0 as usize, b.0 as usize);
            if depth(a) < depth(b)
                && let Some(list) = preds.get_mut(b)
            {
                list.push(a);
            }
        }
        let mut ancestors = HashMap::new();
        for (i, step) in program.steps.iter().enumerate() {
            if step.authorizes.is_none() {
                continue;
            }
            let mut seen: HashSet<usize> = HashSet::new();
            let mut stack = vec![i];
            while let Some(s) = stack.pop() {
                for &p in preds.get(s).map_or(&[][..], Vec::as_slice) {
                    if seen.insert(p) {
                        stack.push(p);
                    }
                }
            }
            let names = seen
                .into_iter()
                .filter_map(|s| u32::try_from(s).ok())
                .map(|s| rt.step_name(StepId(s)).to_owned())
                .collect();
            if let Ok(i) = u32::try_from(i) {
                ancestors.insert(rt.step_name(StepId(i)).to_owned(), names);
            }
        }
        let (result_tools, json_tools) = result_readers(&rt);
        AuditPlan {
            rt,
            read_steps,
            ancestors,
            result_tools,
            json_tools,
            mode,
            now: None,
        }
    }

    /// Whether the bundle looks at the content of `tool`'s results (a read
    /// spec, or a step binding a variable from the result): the only
    /// results the fast path parses.
    pub fn reads_result(&self, tool: &str) -> bool {
        self.result_tools.contains(tool)
    }

    /// The bundle runtime.
    pub fn runtime(&self) -> &Arc<BundleRuntime> {
        &self.rt
    }

    /// How dialogue steps are decided.
    pub fn mode(&self) -> JudgeMode {
        self.mode
    }

    /// Whether the bundle reads `tool`'s results as JSON (a read spec
    /// that is not a `text:` read).
    pub fn reads_json(&self, tool: &str) -> bool {
        self.json_tools.contains(tool)
    }

    /// The steps before the authorization step `step` (by display name):
    /// the only assumptions a write it authorizes can rest on.
    pub(super) fn ancestors(&self, step: &str) -> Option<&HashSet<String>> {
        self.ancestors.get(step)
    }

    /// Decides the events of a trace that records no time at `now`
    /// (`--now`); without it, a bundle reading `now()` on a clock that is
    /// not fixed refuses such a trace.
    pub fn with_now(mut self, now: Option<turnstile_rules::DateTime>) -> Self {
        self.now = now;
        self
    }

    /// The session that audits `trace`: each event decided at its recorded
    /// time, else at `--now`.
    pub(super) fn session(&self, trace: &Trace) -> Result<Session, SessionError> {
        let mut session = Session::new(Arc::clone(&self.rt), Schedule::Workflow);
        session.replay_times_of(trace, self.now)?;
        Ok(session)
    }

    /// Whether a block means the call lacked a read the bundle requires.
    pub(super) fn lacks_read(&self, reason: Reason, step: Option<&str>) -> bool {
        match reason {
            Reason::MissingRead | Reason::Ungrounded => true,
            Reason::MissingStep | Reason::OutOfOrder => {
                step.is_some_and(|s| self.read_steps.contains(s))
            }
            _ => false,
        }
    }
}

/// The tools whose result content the extractor reads, and those of them
/// read as JSON.
fn result_readers(rt: &BundleRuntime) -> (HashSet<String>, HashSet<String>) {
    let bundle = &rt.bundle;
    let mut result_tools = HashSet::new();
    let mut json_tools = HashSet::new();
    for (name, tool) in &bundle.domain.tools {
        let reads = tool.kind != ToolKind::Generic && !tool.reads.is_empty();
        let binds = bundle
            .program
            .steps
            .iter()
            .zip(&bundle.step_binds)
            .any(|(step, binds)| {
                step.timing == Timing::Result(tool.symbol)
                    && binds
                        .iter()
                        .any(|b| matches!(b.source, BindSource::Result(_)))
            });
        if reads || binds {
            result_tools.insert(name.clone());
        }
        if reads
            && tool
                .reads
                .iter()
                .any(|r| r.text.is_none() && r.needs_structure())
        {
            json_tools.insert(name.clone());
        }
    }
    (result_tools, json_tools)
}
