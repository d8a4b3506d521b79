//! Step-graph helpers: each step's distance from the entry and the graph's
//! forward edges (loops cut at their back edges).

use std::collections::VecDeque;

use hashbrown::HashSet;

use crate::steps::CompiledChecks;

/// Distance of each step from the entry along the step graph (`u32::MAX`
/// when unreachable), for choosing the deepest unmet step.
pub fn step_depths(checks: &CompiledChecks) -> Vec<u32> {
    let mut depth = vec![u32::MAX; checks.steps.len()];
    let mut queue = VecDeque::from([checks.entry]);
    if let Some(d) = depth.get_mut(checks.entry.0 as usize) {
        *d = 0;
    }
    while let Some(s) = queue.pop_front() {
        let here = depth.get(s.0 as usize).copied().unwrap_or(u32::MAX);
        for &(a, b) in &checks.edges {
            if a != s {
                continue;
            }
            if let Some(d) = depth.get_mut(b.0 as usize).filter(|d| **d == u32::MAX) {
                *d = here.saturating_add(1);
                queue.push_back(b);
            }
        }
    }
    depth
}

/// The edges of the step graph minus the back edges of a depth-first search
/// from the entry (edges into a step still on the search path).
pub(crate) fn forward_edges(checks: &CompiledChecks) -> Vec<(u32, u32)> {
    let n = checks.steps.len();
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in &checks.edges {
        if let Some(list) = succs.get_mut(a.0 as usize) {
            list.push(b.0);
        }
    }
    // 0 unvisited, 1 on the path, 2 done.
    let mut state = vec![0u8; n];
    let mut back = HashSet::new();
    let mut stack: Vec<(u32, usize)> = vec![(checks.entry.0, 0)];
    if let Some(s) = state.get_mut(checks.entry.0 as usize) {
        *s = 1;
    }
    while let Some((node, i)) = stack.pop() {
        let next = succs.get(node as usize).and_then(|l| l.get(i)).copied();
        match next {
            Some(child) => {
                stack.push((node, i + 1));
                match state.get(child as usize) {
                    Some(0) => {
                        if let Some(s) = state.get_mut(child as usize) {
                            *s = 1;
                        }
                        stack.push((child, 0));
                    }
                    Some(1) => {
                        back.insert((node, child));
                    }
                    _ => {}
                }
            }
            None => {
                if let Some(s) = state.get_mut(node as usize) {
                    *s = 2;
                }
            }
        }
    }
    checks
        .edges
        .iter()
        .map(|&(a, b)| (a.0, b.0))
        .filter(|e| !back.contains(e))
        .collect()
}
