//! The corpus summary of an audit: trace reports and rejected records added
//! up overall, per file, per agent model and per domain, with the
//! violations by node and reason and the distribution of first-deviation
//! positions. Adding reports in input order gives the same summary whatever
//! the number of threads.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{TraceReport, TraceVerdict};
use crate::import::ImportError;

/// Buckets of the first-deviation position histogram: tenths of the trace.
pub const POSITION_BUCKETS: usize = 10;

/// A record (or a file) the audit could not read, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// The file.
    pub file: String,
    /// The record index (simulation, array element or 1-based line), when
    /// the problem belongs to one record; none for the file as a whole.
    pub record: Option<usize>,
    /// The JSON path of the offending value; empty for the whole record.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl From<&ImportError> for Rejection {
    fn from(e: &ImportError) -> Self {
        Rejection {
            file: e.file.display().to_string(),
            record: e.record,
            path: e.path.clone(),
            reason: e.kind.to_string(),
        }
    }
}

/// Counts over a group of traces.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Group {
    /// Traces audited.
    pub traces: usize,
    /// Events in them.
    pub events: usize,
    /// Verdict `compliant`.
    pub compliant: usize,
    /// Verdict `violation`.
    pub violation: usize,
    /// Verdict `unverified`.
    pub unverified: usize,
    /// Verdict `needs_review`.
    pub needs_review: usize,
    /// Traces whose input recorded a reward.
    pub rewarded: usize,
    /// Traces with reward 1.
    pub reward_one: usize,
    /// Reward 1 and a violation.
    pub near_miss: usize,
    /// Reward 1 and no deviation.
    pub process_valid: usize,
    /// Every required step satisfied.
    pub trace_tcr: usize,
    /// Steps satisfied, summed.
    pub steps_satisfied: usize,
    /// Steps required, summed.
    pub steps_required: usize,
    /// Mutating calls.
    pub mutating_calls: usize,
    /// Blocked mutating calls.
    pub blocked_calls: usize,
    /// Mutating calls that lacked only the user's consent and met no
    /// answer at all (violations, apart from the blocks).
    pub unconsented_calls: usize,
    /// Mutating calls that lacked only the user's consent after a reply
    /// the reader could not decide.
    pub review_calls: usize,
    /// Mutating calls allowed on a consent a model judge read where the
    /// reader could not decide it (left out while none).
    #[serde(skip_serializing_if = "is_zero")]
    pub judged_consent_calls: usize,
    /// Executed mutating calls in reward-1 traces (Call-NMR's denominator).
    pub executed_rewarded: usize,
    /// Of those, the ones lacking a required read (Call-NMR's numerator).
    pub executed_rewarded_without_read: usize,
    /// Judge calls.
    pub judge_calls: u64,
    /// Judge input tokens.
    pub judge_input_tokens: u64,
    /// Judge output tokens.
    pub judge_output_tokens: u64,
}

impl Group {
    fn add(&mut self, r: &TraceReport) {
        self.traces += 1;
        self.events += r.events;
        match r.verdict {
            TraceVerdict::Compliant => self.compliant += 1,
            TraceVerdict::Violation => self.violation += 1,
            TraceVerdict::Unverified => self.unverified += 1,
            TraceVerdict::NeedsReview => self.needs_review += 1,
        }
        let reward_one = r.reward.is_some_and(|x| (x - 1.0).abs() < 1e-9);
        self.rewarded += usize::from(r.reward.is_some());
        self.reward_one += usize::from(reward_one);
        self.near_miss += usize::from(r.metrics.near_miss);
        self.process_valid += usize::from(r.metrics.process_valid);
        self.trace_tcr += usize::from(r.metrics.trace_tcr);
        self.steps_satisfied += r.metrics.steps_satisfied;
        self.steps_required += r.metrics.steps_required;
        self.mutating_calls += r.metrics.mutating_calls;
        self.blocked_calls += r.blocked.len();
        self.unconsented_calls += r.unconsented.len();
        self.review_calls += r.needs_review.len();
        self.judged_consent_calls += r.consent_by_judge.len();
        if reward_one {
            self.executed_rewarded += r.metrics.executed_calls;
            self.executed_rewarded_without_read += r.metrics.executed_without_read;
        }
        self.judge_calls += r.judge.calls;
        self.judge_input_tokens += r.judge.input_tokens;
        self.judge_output_tokens += r.judge.output_tokens;
    }

    /// Step-TCR over the group: satisfied / required steps.
    pub fn step_tcr(&self) -> f64 {
        ratio(self.steps_satisfied, self.steps_required).unwrap_or(1.0)
    }

    /// Trace-TCR: the fraction of traces with every required step satisfied.
    pub fn trace_tcr_rate(&self) -> f64 {
        ratio(self.trace_tcr, self.traces).unwrap_or(0.0)
    }

    /// Call-NMR: executed mutating calls in reward-1 traces lacking a required read.
    pub fn call_nmr(&self) -> Option<f64> {
        ratio(self.executed_rewarded_without_read, self.executed_rewarded)
    }

    /// Near-miss rate: of the reward-1 traces, those with a violation.
    pub fn near_miss_rate(&self) -> Option<f64> {
        ratio(self.near_miss, self.reward_one)
    }

    /// The group with its derived rates, for JSON.
    fn rated(&self) -> RatedGroup {
        RatedGroup {
            counts: self.clone(),
            step_tcr: round(self.step_tcr()),
            trace_tcr: round(self.trace_tcr_rate()),
            call_nmr: self.call_nmr().map(round),
            near_miss_rate: self.near_miss_rate().map(round),
        }
    }
}

fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// Rounds to 4 decimals so the JSON is stable and readable.
fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// A group with its rates.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatedGroup {
    /// The counts.
    #[serde(flatten)]
    pub counts: Group,
    /// Step-TCR.
    pub step_tcr: f64,
    /// Trace-TCR.
    pub trace_tcr: f64,
    /// Call-NMR (none when no reward-1 trace executed a mutating call).
    pub call_nmr: Option<f64>,
    /// Near misses among reward-1 traces.
    pub near_miss_rate: Option<f64>,
}

/// Violations at one node for one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeReason {
    /// The first unmet step (`-` when the block named none).
    pub node: String,
    /// The reason.
    pub reason: String,
    /// Blocked calls.
    pub count: usize,
}

/// The whole audit, summed up.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Files given or found in the directories given, in input order.
    pub files: Vec<String>,
    /// Records read: audited + rejected.
    pub read: usize,
    /// Traces audited.
    pub audited: usize,
    /// Every problem met, in input order.
    pub rejections: Vec<Rejection>,
    rejected_records: BTreeSet<(String, Option<usize>, String)>,
    total: Group,
    by_file: BTreeMap<String, Group>,
    by_model: BTreeMap<String, Group>,
    by_domain: BTreeMap<String, Group>,
    by_node_reason: BTreeMap<(String, String), usize>,
    positions: [usize; POSITION_BUCKETS],
}

/// Where a group's key is not known.
const UNKNOWN: &str = "(unknown)";

impl Summary {
    /// Notes a file, so that it is listed even if nothing in it could be read.
    pub fn file(&mut self, file: &str) {
        self.files.push(file.to_owned());
        self.by_file.entry(file.to_owned()).or_default();
    }

    /// Adds an audited trace.
    pub fn add(&mut self, r: &TraceReport) {
        self.read += 1;
        self.audited += 1;
        self.total.add(r);
        self.by_file.entry(r.file.clone()).or_default().add(r);
        let model = r.model.clone().unwrap_or_else(|| UNKNOWN.to_owned());
        self.by_model.entry(model).or_default().add(r);
        let domain = r.domain.clone().unwrap_or_else(|| UNKNOWN.to_owned());
        self.by_domain.entry(domain).or_default().add(r);
        for d in r.blocked.iter().chain(&r.deviated).chain(&r.unconsented) {
            let node = d.node.clone().unwrap_or_else(|| "-".to_owned());
            *self
                .by_node_reason
                .entry((node, d.reason.clone()))
                .or_default() += 1;
        }
        if let Some(first) = &r.first_deviation {
            let bucket = (first.event as usize * POSITION_BUCKETS)
                .checked_div(r.events)
                .unwrap_or(0)
                .min(POSITION_BUCKETS - 1);
            if let Some(slot) = self.positions.get_mut(bucket) {
                *slot += 1;
            }
        }
    }

    /// Adds a problem; a record is counted as read and rejected once,
    /// however many problems it has (a file-level problem counts as one).
    pub fn reject(&mut self, rejection: Rejection) {
        // A problem outside any record is keyed by its path too (a trace
        // that could not be audited names its id there).
        let path = match rejection.record {
            Some(_) => String::new(),
            None => rejection.path.clone(),
        };
        if self
            .rejected_records
            .insert((rejection.file.clone(), rejection.record, path))
        {
            self.read += 1;
        }
        self.rejections.push(rejection);
    }

    /// Records (or unreadable files) rejected.
    pub fn rejected(&self) -> usize {
        self.rejected_records.len()
    }

    /// Counts over every trace.
    pub fn total(&self) -> &Group {
        &self.total
    }

    /// Per file, in input order.
    pub fn by_file(&self) -> Vec<(&str, &Group)> {
        self.files
            .iter()
            .filter_map(|f| self.by_file.get(f).map(|g| (f.as_str(), g)))
            .collect()
    }

    /// Per agent model, by name.
    pub fn by_model(&self) -> &BTreeMap<String, Group> {
        &self.by_model
    }

    /// Per domain, by name.
    pub fn by_domain(&self) -> &BTreeMap<String, Group> {
        &self.by_domain
    }

    /// Violations by node and reason, most frequent first (ties by name).
    pub fn by_node_reason(&self) -> Vec<NodeReason> {
        let mut list: Vec<NodeReason> = self
            .by_node_reason
            .iter()
            .map(|((node, reason), count)| NodeReason {
                node: node.clone(),
                reason: reason.clone(),
                count: *count,
            })
            .collect();
        list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.node.cmp(&b.node)));
        list
    }

    /// First deviations per tenth of the trace (bucket i: events in
    /// `[i/10, (i+1)/10)` of the trace's length).
    pub fn first_deviation_positions(&self) -> [usize; POSITION_BUCKETS] {
        self.positions
    }

    /// The summary as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        let groups = |m: &BTreeMap<String, Group>| -> serde_json::Value {
            m.iter()
                .map(|(k, g)| {
                    (
                        k.clone(),
                        serde_json::to_value(g.rated()).unwrap_or_default(),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        serde_json::json!({
            "read": self.read,
            "audited": self.audited,
            "rejected": self.rejected(),
            "total": self.total.rated(),
            "by_file": self.by_file().iter().map(|(f, g)| {
                let mut v = serde_json::to_value(g.rated()).unwrap_or_default();
                if let Some(map) = v.as_object_mut() {
                    map.insert("file".to_owned(), (*f).into());
                }
                v
            }).collect::<Vec<_>>(),
            "by_model": groups(&self.by_model),
            "by_domain": groups(&self.by_domain),
            "violations_by_node": self.by_node_reason(),
            "first_deviation_positions": self.positions,
            "rejections": self.rejections,
        })
    }
}

/// Whether a count is zero (a count left out of the JSON while none).
fn is_zero(count: &usize) -> bool {
    *count == 0
}
