//! The audit's output formats, written as the reports arrive (so a corpus
//! of any size streams): a terminal table of the summary, one JSON document
//! (`{"traces": [...], "rejected": [...], "summary": {...}}`), CSV (one row
//! per trace) or JSON Lines (one report per line, a `{"rejected": ...}` line
//! per problem, in input order).

use std::io::{self, Write};

use turnstile_engine::audit::{Group, Rejection, Summary, TraceReport};

use super::AuditFormat;

/// Rejections listed in the table at most (all are in the other formats).
const TABLE_REJECTIONS: usize = 50;
/// Node/reason rows in the table at most.
const TABLE_NODES: usize = 20;

/// Writes one format.
pub struct Writer {
    format: AuditFormat,
    traces: usize,
}

const CSV_HEADER: &str = "file,trace,task_id,trial,domain,model,reward,verdict,events,first_event,first_call,first_node,first_reason,blocked,unconsented,needs_review,unverified,step_tcr,trace_tcr,process_valid,near_miss,mutating_calls,executed_calls,executed_without_read,judge_calls,judge_input_tokens,judge_output_tokens";

impl Writer {
    pub fn new(format: AuditFormat) -> Self {
        Writer { format, traces: 0 }
    }

    pub fn start(&mut self, out: &mut dyn Write) -> io::Result<()> {
        match self.format {
            AuditFormat::Json => write!(out, "{{\"traces\":["),
            AuditFormat::Csv => writeln!(out, "{CSV_HEADER}"),
            AuditFormat::Table | AuditFormat::Jsonl => Ok(()),
        }
    }

    pub fn report(&mut self, out: &mut dyn Write, report: &TraceReport) -> io::Result<()> {
        let first = self.traces == 0;
        self.traces += 1;
        match self.format {
            AuditFormat::Table => Ok(()),
            AuditFormat::Jsonl => {
                serde_json::to_writer(&mut *out, &without_timeline(report))?;
                writeln!(out)
            }
            AuditFormat::Json => {
                if !first {
                    write!(out, ",")?;
                }
                writeln!(out)?;
                serde_json::to_writer(&mut *out, &without_timeline(report))?;
                Ok(())
            }
            AuditFormat::Csv => csv_row(out, report),
        }
    }

    pub fn rejected(&mut self, out: &mut dyn Write, rejection: &Rejection) -> io::Result<()> {
        match self.format {
            AuditFormat::Jsonl => {
                serde_json::to_writer(&mut *out, &serde_json::json!({ "rejected": rejection }))?;
                writeln!(out)
            }
            AuditFormat::Csv => {
                // CSV has one row per trace; problems go to standard error.
                eprintln!("rejected: {}", describe(rejection));
                Ok(())
            }
            // Listed with the summary.
            AuditFormat::Table | AuditFormat::Json => Ok(()),
        }
    }

    pub fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        match self.format {
            AuditFormat::Json => {
                let rest = serde_json::json!({ "summary": summary.to_json() });
                // `rest` is an object: splice its members after the traces.
                let text = rest.to_string();
                let members = text
                    .strip_prefix('{')
                    .and_then(|t| t.strip_suffix('}'))
                    .unwrap_or("");
                writeln!(out, "\n],{members}}}")
            }
            AuditFormat::Table => table(out, summary),
            AuditFormat::Csv | AuditFormat::Jsonl => Ok(()),
        }
    }
}

/// The timeline is for the HTML page only.
fn without_timeline(report: &TraceReport) -> std::borrow::Cow<'_, TraceReport> {
    if report.timeline.is_none() {
        return std::borrow::Cow::Borrowed(report);
    }
    let mut copy = report.clone();
    copy.timeline = None;
    std::borrow::Cow::Owned(copy)
}

fn describe(r: &Rejection) -> String {
    let record = r.record.map(|i| format!(" record {i}")).unwrap_or_default();
    let path = if r.path.is_empty() {
        String::new()
    } else {
        format!(" at {}", r.path)
    };
    format!("{}{record}{path}: {}", r.file, r.reason)
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

fn csv_row(out: &mut dyn Write, r: &TraceReport) -> io::Result<()> {
    let opt = |o: Option<String>| o.unwrap_or_default();
    let first = r.first_deviation.as_ref();
    let fields = [
        r.file.clone(),
        r.trace.clone(),
        opt(r.task_id.clone()),
        opt(r.trial.map(|t| t.to_string())),
        opt(r.domain.clone()),
        opt(r.model.clone()),
        opt(r.reward.map(|x| x.to_string())),
        r.verdict.name().to_owned(),
        r.events.to_string(),
        opt(first.map(|d| d.event.to_string())),
        opt(first.map(|d| d.call.clone())),
        opt(first.and_then(|d| d.node.clone())),
        opt(first.map(|d| d.reason.clone())),
        r.blocked.len().to_string(),
        r.unconsented.len().to_string(),
        r.needs_review.len().to_string(),
        r.unverified.len().to_string(),
        format!("{:.4}", r.metrics.step_tcr),
        r.metrics.trace_tcr.to_string(),
        r.metrics.process_valid.to_string(),
        r.metrics.near_miss.to_string(),
        r.metrics.mutating_calls.to_string(),
        r.metrics.executed_calls.to_string(),
        r.metrics.executed_without_read.to_string(),
        r.judge.calls.to_string(),
        r.judge.input_tokens.to_string(),
        r.judge.output_tokens.to_string(),
    ];
    let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
    writeln!(out, "{}", line.join(","))
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |x| format!("{:.1}%", x * 100.0))
}

fn group_header(out: &mut dyn Write, what: &str) -> io::Result<()> {
    writeln!(
        out,
        "\n{what:<40} {:>6} {:>9} {:>9} {:>6} {:>10} {:>8} {:>9} {:>8} {:>8} {:>8}",
        "traces",
        "compliant",
        "violation",
        "review",
        "unverified",
        "reward=1",
        "near-miss",
        "proc-ok",
        "Step-TCR",
        "Call-NMR"
    )
}

fn group_row(out: &mut dyn Write, name: &str, g: &Group) -> io::Result<()> {
    let name = if name.chars().count() > 40 {
        let tail: String = name
            .chars()
            .rev()
            .take(39)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    } else {
        name.to_owned()
    };
    writeln!(
        out,
        "{name:<40} {:>6} {:>9} {:>9} {:>6} {:>10} {:>8} {:>9} {:>8} {:>8} {:>8}",
        g.traces,
        g.compliant,
        g.violation,
        g.needs_review,
        g.unverified,
        g.reward_one,
        g.near_miss,
        g.process_valid,
        pct(Some(g.step_tcr())),
        pct(g.call_nmr())
    )
}

fn table(out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
    let t = summary.total();
    writeln!(
        out,
        "audit: {} records read = {} audited + {} rejected, {} events",
        summary.read,
        summary.audited,
        summary.rejected(),
        t.events
    )?;
    writeln!(
        out,
        "verdicts: {} compliant, {} violation, {} needs review, {} unverified; {} mutating calls, {} blocked, {} unconsented, {} to review",
        t.compliant,
        t.violation,
        t.needs_review,
        t.unverified,
        t.mutating_calls,
        t.blocked_calls,
        t.unconsented_calls,
        t.review_calls
    )?;
    if t.judged_consent_calls > 0 {
        writeln!(
            out,
            "consent read by the model judge where the reader could not decide it: {} mutating calls allowed",
            t.judged_consent_calls
        )?;
    }
    writeln!(
        out,
        "Step-TCR {}, Trace-TCR {}, process-valid {} of {} reward-1 traces, near-miss {} ({}), Call-NMR {}",
        pct(Some(t.step_tcr())),
        pct(Some(t.trace_tcr_rate())),
        t.process_valid,
        t.reward_one,
        t.near_miss,
        pct(t.near_miss_rate()),
        pct(t.call_nmr())
    )?;
    writeln!(
        out,
        "judge: {} calls, {} input + {} output tokens",
        t.judge_calls, t.judge_input_tokens, t.judge_output_tokens
    )?;
    group_header(out, "file")?;
    for (file, g) in summary.by_file() {
        group_row(out, file, g)?;
    }
    group_header(out, "agent model")?;
    for (model, g) in summary.by_model() {
        group_row(out, model, g)?;
    }
    group_header(out, "domain")?;
    for (domain, g) in summary.by_domain() {
        group_row(out, domain, g)?;
    }
    let nodes = summary.by_node_reason();
    if !nodes.is_empty() {
        writeln!(out, "\nviolations by node and reason")?;
        for n in nodes.iter().take(TABLE_NODES) {
            writeln!(out, "  {:>5}  {:<50} {}", n.count, n.node, n.reason)?;
        }
        if nodes.len() > TABLE_NODES {
            writeln!(out, "  ... {} more", nodes.len() - TABLE_NODES)?;
        }
    }
    let positions = summary.first_deviation_positions();
    if positions.iter().any(|&n| n > 0) {
        writeln!(out, "\nfirst deviation position (tenths of the trace)")?;
        let max = positions.iter().copied().max().unwrap_or(1).max(1);
        for (i, n) in positions.iter().enumerate() {
            let bar = "#".repeat((n * 40).div_ceil(max));
            writeln!(out, "  {:>3}-{:<3}% {:>5} {bar}", i * 10, (i + 1) * 10, n)?;
        }
    }
    if !summary.rejections.is_empty() {
        writeln!(out, "\nrejected ({} problems)", summary.rejections.len())?;
        for r in summary.rejections.iter().take(TABLE_REJECTIONS) {
            writeln!(out, "  {}", describe(r))?;
        }
        if summary.rejections.len() > TABLE_REJECTIONS {
            writeln!(
                out,
                "  ... {} more (--format jsonl lists all)",
                summary.rejections.len() - TABLE_REJECTIONS
            )?;
        }
    }
    Ok(())
}
