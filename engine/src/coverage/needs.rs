//! What a step's check needs the path before it to have read, so the
//! automaton does not take as holding a check no data on that path can make
//! hold: the entity fields it reads, which some earlier tool result (or the
//! step's own) must have carried.
//!
//! The needs are clauses: a condition holds only if every clause has one of
//! its fields read on the path (`a || b` needs one of the fields both sides
//! need). A field fails closed while unread (its comparisons and their
//! negations alike), so a field under any atom the check needs is needed.
//! Event predicates need nothing here: a branch `succeeded(t)` holds at the
//! very result that satisfies the read step after it. Fields that a read no
//! step names returns (a support read, which the witness builder may call
//! before any call) are always available and never tracked.

use std::collections::{BTreeMap, BTreeSet};

use turnstile_rules::{
    CNode, Encoded, ONode, Step, Symbol, Timing, Visitor, walk_condition, walk_filter, walk_operand,
};

use super::bits::ClassSet;
use crate::compile::CompiledBundle;
use crate::schema::Tool;

/// Clauses beyond this many (a disjunction of disjunctions distributed)
/// are dropped: the condition then needs nothing tracked.
const MAX_CLAUSES: usize = 32;

/// A fact a check can need: `entity.field` read, by name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Fact(String, String);

/// The fields tracked along paths, by index, and which each tool's
/// successful result reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    /// Per tool: the tracked fields its successful result reads.
    by_tool: BTreeMap<String, ClassSet>,
}

impl Facts {
    /// The tracked fields a successful result of `tool` reads.
    pub(crate) fn done_by(&self, tool: &str) -> Option<&ClassSet> {
        self.by_tool.get(tool)
    }
}

/// What each step of `bundle` needs read before it (clauses of tracked
/// fields, indexed by step) and the fields each tool reads. `free_reads`:
/// the read tools no step names, whose fields are always available.
///
/// A clause every path to the step meets (a read step on every path before
/// it read one of its fields) needs no tracking: only the clauses some path
/// can miss are kept, and only their fields are tracked, so the automaton's
/// states differ only where the difference can decide a step.
pub(crate) fn step_needs(
    bundle: &CompiledBundle,
    encoded: &Encoded,
    free_reads: &[&Tool],
) -> (Vec<Vec<ClassSet>>, Facts) {
    let name = |s: Symbol| bundle.interner.resolve(s).to_owned();
    let program = &bundle.program;
    let available: BTreeSet<Fact> = free_reads.iter().flat_map(|t| facts_of(t)).collect();
    let tool_facts = |t: Symbol| -> BTreeSet<Fact> {
        bundle
            .domain
            .tool(bundle.interner.resolve(t))
            .map(|tool| facts_of(tool).into_iter().collect())
            .unwrap_or_default()
    };
    // What a step's own event reads (a read's or a device tool's result,
    // a write's result after its call).
    let read_by: Vec<BTreeSet<Fact>> = program
        .steps
        .iter()
        .map(|step| match step.timing {
            Timing::Result(t) | Timing::Call(t) => tool_facts(t),
            Timing::State => BTreeSet::new(),
        })
        .collect();
    let raw: Vec<Vec<BTreeSet<Fact>>> = program
        .steps
        .iter()
        .map(|step| {
            root(step, encoded)
                .map(|r| {
                    let mut needs = Needs {
                        name: &name,
                        clauses: Vec::new(),
                    };
                    needs.condition(encoded, r);
                    needs.clauses
                })
                .unwrap_or_default()
        })
        .collect();
    let before = read_on_every_path(bundle, &read_by, &available);
    // Per step: the clauses some path to it can miss (its own result read
    // counts for a read step, not for a call decided before its result).
    let open: Vec<Vec<BTreeSet<Fact>>> = raw
        .into_iter()
        .enumerate()
        .map(|(i, clauses)| {
            let mut met: BTreeSet<Fact> = before.get(i).cloned().unwrap_or_default();
            if let Some(Step {
                timing: Timing::Result(_),
                ..
            }) = program.steps.get(i)
            {
                met.extend(read_by.get(i).into_iter().flatten().cloned());
            }
            clauses
                .into_iter()
                .filter(|clause| !clause.iter().any(|f| met.contains(f)))
                .collect()
        })
        .collect();
    let tracked: Vec<Fact> = open
        .iter()
        .flatten()
        .flatten()
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let index = |f: &Fact| tracked.iter().position(|t| t == f);
    let clauses = open
        .into_iter()
        .map(|step| {
            step.iter()
                .map(|clause| {
                    clause
                        .iter()
                        .filter_map(index)
                        .fold(ClassSet::default(), |set, i| set.with(i))
                })
                .collect()
        })
        .collect();
    let by_tool = bundle
        .domain
        .tools
        .values()
        .map(|tool| {
            let done = facts_of(tool)
                .iter()
                .filter_map(index)
                .fold(ClassSet::default(), |set, i| set.with(i));
            (tool.name.clone(), done)
        })
        .collect();
    (clauses, Facts { by_tool })
}

/// Per step: the fields read on every path from the entry to it, before
/// it (`available` everywhere): a forward must-analysis over the step
/// graph, to its fixpoint.
fn read_on_every_path(
    bundle: &CompiledBundle,
    read_by: &[BTreeSet<Fact>],
    available: &BTreeSet<Fact>,
) -> Vec<BTreeSet<Fact>> {
    let program = &bundle.program;
    let n = program.steps.len();
    let all: BTreeSet<Fact> = read_by.iter().flatten().chain(available).cloned().collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(from, to) in &program.edges {
        if let Some(list) = preds.get_mut(to.0 as usize) {
            list.push(from.0 as usize);
        }
    }
    let entry = program.entry.0 as usize;
    // Unreached steps start at "everything" (the meet's identity).
    let mut before: Vec<BTreeSet<Fact>> = (0..n)
        .map(|i| {
            if i == entry {
                available.clone()
            } else {
                all.clone()
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).filter(|&i| i != entry) {
            let mut meet: Option<BTreeSet<Fact>> = None;
            for &p in preds.get(i).into_iter().flatten() {
                let mut after: BTreeSet<Fact> = before.get(p).cloned().unwrap_or_default();
                after.extend(read_by.get(p).into_iter().flatten().cloned());
                meet = Some(match meet {
                    Some(m) => m.intersection(&after).cloned().collect(),
                    None => after,
                });
            }
            let meet = meet.unwrap_or_else(|| available.clone());
            if before.get(i) != Some(&meet)
                && let Some(slot) = before.get_mut(i)
            {
                *slot = meet;
                changed = true;
            }
        }
    }
    before
}

/// The root of a step's check.
fn root(step: &Step, encoded: &Encoded) -> Option<u32> {
    step.check.and_then(|c| encoded.root(c))
}

/// Every field of every record a successful result of `tool` reads.
fn facts_of(tool: &Tool) -> Vec<Fact> {
    let mut facts = Vec::new();
    for read in &tool.reads {
        let fields = read.fields.keys().chain(read.key_fields.keys());
        let text = read.text.iter().flat_map(|t| t.fields.keys());
        facts.extend(
            fields
                .chain(text)
                .map(|f| Fact(read.entity.clone(), f.clone())),
        );
    }
    facts
}

/// Whether the facts `done` meet every clause of `clauses`.
pub(crate) fn met(clauses: &[ClassSet], done: &ClassSet) -> bool {
    clauses
        .iter()
        .all(|clause| clause.iter().any(|i| done.contains(i)))
}

/// The clauses a condition needs (see the module documentation).
struct Needs<'n> {
    name: &'n dyn Fn(Symbol) -> String,
    clauses: Vec<BTreeSet<Fact>>,
}

impl Visitor for Needs<'_> {
    fn condition(&mut self, tree: &Encoded, c: u32) {
        match tree.cnodes.get(c as usize) {
            Some(CNode::And(..)) => walk_condition(self, tree, c),
            Some(CNode::Or(l, r)) => {
                let mut sides = [*l, *r].map(|side| {
                    let mut needs = Needs {
                        name: self.name,
                        clauses: Vec::new(),
                    };
                    if side < c {
                        needs.condition(tree, side);
                    }
                    needs.clauses
                });
                let [left, right] = &mut sides;
                if left.len().saturating_mul(right.len()) <= MAX_CLAUSES {
                    for a in left.iter() {
                        for b in right.iter() {
                            self.clauses.push(a.union(b).cloned().collect());
                        }
                    }
                }
            }
            Some(CNode::Happened { .. }) => {}
            // An atom: every field under it must have been read.
            Some(_) => {
                let mut fields = Fields {
                    name: self.name,
                    found: Vec::new(),
                };
                walk_condition(&mut fields, tree, c);
                self.clauses
                    .extend(fields.found.into_iter().map(|f| BTreeSet::from([f])));
            }
            None => {}
        }
    }
}

/// The fields anywhere under an atom.
struct Fields<'n> {
    name: &'n dyn Fn(Symbol) -> String,
    found: Vec<Fact>,
}

impl Visitor for Fields<'_> {
    fn operand(&mut self, tree: &Encoded, o: u32) {
        if let Some(ONode::Field { entity, field, .. }) = tree.onodes.get(o as usize) {
            self.found
                .push(Fact((self.name)(*entity), (self.name)(*field)));
        }
        walk_operand(self, tree, o);
    }

    fn filter(&mut self, tree: &Encoded, f: u32) {
        walk_filter(self, tree, f);
    }
}
