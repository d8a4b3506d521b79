//! `turnstile coverage`: the reachable first deviations of a bundle and which
//! a firing schedule covers, as a table by node and event kind (or JSON), and
//! optionally each deviation's witness — or a sample (`--witness-limit`,
//! spread evenly over the list; `--witness-node`, at a node or under a flow)
//! — written as a replayable native trace with its recorded judge verdicts,
//! the witnesses not confirmed counted by cause. `--control solo|dual` sets
//! who calls the device tools (default: the bundle's `control`); the
//! witnesses say it in their native header.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use turnstile_engine::bundle::Control;
use turnstile_engine::coverage::{
    Analysis, Deviation, Turn, Why, WitnessBuilder, WitnessError, analyze_with,
};
use turnstile_engine::session::{BundleRuntime, Schedule};

/// What `coverage` was asked for.
pub struct CoverageOptions {
    pub schedules: Vec<Schedule>,
    pub json: bool,
    /// Write each deviation's witness here.
    pub witnesses: Option<PathBuf>,
    /// Build at most this many witnesses, spread evenly.
    pub witness_limit: Option<usize>,
    /// Build witnesses only for the deviations at (or under) this node.
    pub witness_node: Option<String>,
    /// Who calls the device tools (`None`: the bundle's `control`).
    pub control: Option<Control>,
}

/// `--control`: who calls the device (user-side) tools.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ControlArg {
    /// The user calls them; the agent only instructs.
    Dual,
    /// The agent calls them itself.
    Solo,
}

impl From<ControlArg> for Control {
    fn from(arg: ControlArg) -> Control {
        match arg {
            ControlArg::Dual => Control::Dual,
            ControlArg::Solo => Control::Solo,
        }
    }
}

/// One row of the table: the deviations at one node of one event kind; also
/// the totals per kind (`write`, `read`, `instruct`, `claim`).
#[derive(Default, Serialize)]
struct Row {
    covered: usize,
    uncovered: usize,
}

/// The deviations of each event kind, covered or not by `schedule`.
fn by_kind(analysis: &Analysis, schedule: Schedule) -> BTreeMap<&'static str, Row> {
    let mut kinds: BTreeMap<&'static str, Row> = BTreeMap::new();
    for d in &analysis.deviations {
        let row = kinds.entry(d.class.kind()).or_default();
        if d.covered_by(schedule) {
            row.covered += 1;
        } else {
            row.uncovered += 1;
        }
    }
    kinds
}

#[derive(Serialize)]
struct DeviationJson<'a> {
    id: usize,
    node: &'a str,
    waiting: &'a [String],
    turn: Turn,
    kind: &'static str,
    tool: &'a str,
    why: Why,
    covered: bool,
    prefix_moves: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<String>,
}

#[derive(Serialize)]
struct ReportJson<'a> {
    bundle: &'a str,
    schedule: Schedule,
    /// Who calls the device tools in the analysis.
    control: Control,
    states: usize,
    truncated: bool,
    deviations: usize,
    covered: usize,
    uncovered: usize,
    uncovered_non_write: usize,
    /// Covered and uncovered per event kind.
    by_kind: BTreeMap<&'static str, Row>,
    #[serde(skip_serializing_if = "Option::is_none")]
    witnesses: Option<&'a WitnessTotals>,
    list: Vec<DeviationJson<'a>>,
}

/// How the witnesses fared.
#[derive(Default, Serialize)]
struct WitnessTotals {
    /// Deviations whose witness was built (all, or the selected sample).
    selected: usize,
    /// Written and confirmed by replay.
    confirmed: usize,
    /// The candidate values did not reach the deviation's state.
    unrealised: usize,
    /// The request went past the deviation's state from an earlier event.
    overtaken: usize,
    /// The replay showed another deviation: analysis and engine disagree.
    disagree: usize,
    /// The unrealised and overtaken witnesses by cause: the step the
    /// candidate values did not satisfy, or the step the request reached
    /// off the abstract path.
    causes: BTreeMap<String, usize>,
}

/// Runs the analysis; returns whether analysis and replays agreed.
pub fn run(rt: &Arc<BundleRuntime>, options: &CoverageOptions) -> Result<bool, String> {
    let analysis = analyze_with(&rt.bundle, options.control.unwrap_or(rt.bundle.control));
    let mut files: BTreeMap<usize, String> = BTreeMap::new();
    let mut totals = None;
    if let Some(dir) = &options.witnesses {
        let selected = analysis.sample(options.witness_node.as_deref(), options.witness_limit);
        if selected.is_empty() && options.witness_node.is_some() {
            return Err(format!(
                "no deviation at node `{}`",
                options.witness_node.as_deref().unwrap_or_default()
            ));
        }
        let (written, t) = write_witnesses(rt, &analysis, &selected, dir)?;
        files = written;
        totals = Some(t);
    }
    let mut out = std::io::stdout().lock();
    for &schedule in &options.schedules {
        let text = if options.json {
            json(rt, &analysis, schedule, &files, totals.as_ref())?
        } else {
            human(rt, &analysis, schedule, totals.as_ref())
        };
        out.write_all(text.as_bytes())
            .map_err(|e| format!("cannot write the report: {e}"))?;
    }
    Ok(totals.is_none_or(|t| t.disagree == 0))
}

fn human(
    rt: &BundleRuntime,
    analysis: &Analysis,
    schedule: Schedule,
    totals: Option<&WitnessTotals>,
) -> String {
    let coverage = analysis.coverage(schedule);
    let mut rows: BTreeMap<(String, &'static str, String), Row> = BTreeMap::new();
    for d in &analysis.deviations {
        let row = rows
            .entry((d.node.clone(), d.class.kind(), d.class.tool().to_owned()))
            .or_default();
        if d.covered_by(schedule) {
            row.covered += 1;
        } else {
            row.uncovered += 1;
        }
    }
    let mut text = format!(
        "bundle `{}` under the {schedule} schedule, {} control: {} abstract states{}, |D_G| = {}, |C_S| = {}, uncovered {} ({} of them not writes)\n",
        rt.bundle.name,
        match analysis.automaton.control() {
            Control::Dual => "dual",
            Control::Solo => "solo",
        },
        analysis.explored.states.len(),
        if analysis.explored.truncated {
            " (truncated)"
        } else {
            ""
        },
        coverage.deviations,
        coverage.covered.len(),
        coverage.uncovered.len(),
        uncovered_non_write(analysis, schedule),
    );
    let kinds: Vec<String> = by_kind(analysis, schedule)
        .iter()
        .map(|(kind, row)| format!("{kind} {} covered, {} not", row.covered, row.uncovered))
        .collect();
    text.push_str(&format!("by kind: {}\n", kinds.join("; ")));
    let width = rows
        .keys()
        .map(|(n, _, _)| n.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let tool_width = rows
        .keys()
        .map(|(_, _, t)| t.len())
        .max()
        .unwrap_or(4)
        .max(4);
    text.push_str(&format!(
        "{:<width$}  {:<8}  {:<tool_width$}  {:>7}  {:>9}\n",
        "node", "event", "tool", "covered", "uncovered"
    ));
    for ((node, kind, tool), row) in &rows {
        text.push_str(&format!(
            "{node:<width$}  {kind:<8}  {tool:<tool_width$}  {:>7}  {:>9}\n",
            row.covered, row.uncovered
        ));
    }
    if let Some(t) = totals {
        text.push_str(&format!(
            "witnesses of {} deviations: {} confirmed by replay, {} unrealised by the candidate values, {} overtaken, {} disagree\n",
            t.selected,
            t.confirmed, t.unrealised, t.overtaken, t.disagree
        ));
        let mut causes: Vec<(&String, &usize)> = t.causes.iter().collect();
        causes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (cause, n) in causes {
            text.push_str(&format!("  {n:>5}  {cause}\n"));
        }
    }
    text
}

fn uncovered_non_write(analysis: &Analysis, schedule: Schedule) -> usize {
    analysis
        .deviations
        .iter()
        .filter(|d| !d.covered_by(schedule) && d.class.kind() != "write")
        .count()
}

fn json(
    rt: &BundleRuntime,
    analysis: &Analysis,
    schedule: Schedule,
    files: &BTreeMap<usize, String>,
    totals: Option<&WitnessTotals>,
) -> Result<String, String> {
    let coverage = analysis.coverage(schedule);
    let list = analysis
        .deviations
        .iter()
        .enumerate()
        .map(|(id, d)| deviation_json(id, d, schedule, files.get(&id).cloned()))
        .collect();
    let report = ReportJson {
        bundle: &rt.bundle.name,
        schedule,
        control: analysis.automaton.control(),
        states: analysis.explored.states.len(),
        truncated: analysis.explored.truncated,
        deviations: coverage.deviations,
        covered: coverage.covered.len(),
        uncovered: coverage.uncovered.len(),
        uncovered_non_write: uncovered_non_write(analysis, schedule),
        by_kind: by_kind(analysis, schedule),
        witnesses: totals,
        list,
    };
    serde_json::to_string(&report)
        .map(|s| s + "\n")
        .map_err(|e| format!("cannot encode the report: {e}"))
}

fn deviation_json(
    id: usize,
    d: &Deviation,
    schedule: Schedule,
    witness: Option<String>,
) -> DeviationJson<'_> {
    DeviationJson {
        id,
        node: &d.node,
        waiting: &d.waiting,
        turn: d.state.turn,
        kind: d.class.kind(),
        tool: d.class.tool(),
        why: d.why,
        covered: d.covered_by(schedule),
        prefix_moves: d.prefix.len(),
        witness,
    }
}

/// Builds, confirms and writes the witness of each `selected` deviation:
/// `NNNNN.jsonl` (the trace; `NNNNN` its id in the list) and
/// `NNNNN.verdicts.jsonl` (for `--judge recorded:`).
fn write_witnesses(
    rt: &Arc<BundleRuntime>,
    analysis: &Analysis,
    selected: &[usize],
    dir: &Path,
) -> Result<(BTreeMap<usize, String>, WitnessTotals), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut builder = WitnessBuilder::new(Arc::clone(rt), analysis);
    let mut files = BTreeMap::new();
    let mut totals = WitnessTotals {
        selected: selected.len(),
        ..WitnessTotals::default()
    };
    for &id in selected {
        let Some(deviation) = analysis.deviations.get(id) else {
            continue;
        };
        match builder.witness(deviation) {
            Ok(witness) => {
                let name = format!("{id:05}.jsonl");
                let write = |file: String, text: String| {
                    std::fs::write(dir.join(&file), text)
                        .map_err(|e| format!("cannot write {file}: {e}"))
                };
                write(name.clone(), witness.trace_jsonl())?;
                write(format!("{id:05}.verdicts.jsonl"), witness.verdicts_jsonl())?;
                files.insert(id, name);
                totals.confirmed += 1;
            }
            Err(WitnessError::Unrealised { step }) => {
                totals.unrealised += 1;
                *totals
                    .causes
                    .entry(format!("unrealised at {step}"))
                    .or_default() += 1;
            }
            Err(WitnessError::Overtaken { step }) => {
                totals.overtaken += 1;
                *totals
                    .causes
                    .entry(format!("overtaken at {step}"))
                    .or_default() += 1;
            }
            Err(e) => {
                eprintln!(
                    "deviation {id} ({} {} after {}): {e}",
                    deviation.class.kind(),
                    deviation.class.tool(),
                    deviation.node
                );
                totals.disagree += 1;
            }
        }
    }
    Ok((files, totals))
}
