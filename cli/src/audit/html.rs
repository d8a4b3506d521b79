//! `--html`: the audit as one self-contained page (no network, no CDN):
//! SVG bar charts drawn here (violations by node and reason, near-miss and
//! Call-NMR per agent model, first-deviation positions), the per-model
//! table, and a drill-down from every flagged trace (capped, the cap stated
//! on the page) to its event timeline with the deviation highlighted and the
//! remediation shown. Opened with `#selftest`, the page checks itself (bar
//! counts, a click on the first flagged trace opens its timeline, no script
//! errors) and writes the result into `#selftest-result`, which the
//! headless-Chromium test reads.

use std::fmt::Write as _;

use turnstile_engine::audit::{POSITION_BUCKETS, Summary, TraceReport};

/// Flagged traces in the drill-down by default.
pub const DEFAULT_CAP: usize = 200;
/// Node/reason bars at most.
const NODE_BARS: usize = 20;

/// Escapes text for HTML element content and attribute values.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One bar of a horizontal bar chart.
struct Bar {
    label: String,
    value: f64,
    shown: String,
    class: &'static str,
}

/// A horizontal bar chart as inline SVG; every bar is a `rect.bar`.
fn bar_chart(id: &str, title: &str, bars: &[Bar], max: f64) -> String {
    const LABEL_W: f64 = 290.0;
    const BAR_W: f64 = 200.0;
    const ROW_H: f64 = 22.0;
    let height = ROW_H * bars.len().max(1) as f64 + 10.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure><figcaption>{}</figcaption><svg data-chart=\"{id}\" role=\"img\" width=\"{}\" height=\"{height}\" viewBox=\"0 0 {} {height}\">",
        esc(title),
        LABEL_W + BAR_W + 80.0,
        LABEL_W + BAR_W + 80.0
    );
    if bars.is_empty() {
        let _ = write!(
            svg,
            "<text x=\"4\" y=\"16\" class=\"none\">nothing to show</text>"
        );
    }
    for (i, bar) in bars.iter().enumerate() {
        let y = i as f64 * ROW_H + 4.0;
        let w = if max > 0.0 {
            (bar.value / max * BAR_W).max(1.0)
        } else {
            1.0
        };
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"label\">{}</text>\
             <rect class=\"bar {}\" x=\"{LABEL_W}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\"><title>{}: {}</title></rect>\
             <text x=\"{:.1}\" y=\"{}\" class=\"value\">{}</text>",
            LABEL_W - 6.0,
            y + 14.0,
            esc(&bar.label),
            bar.class,
            ROW_H - 6.0,
            esc(&bar.label),
            esc(&bar.shown),
            LABEL_W + w + 4.0,
            y + 14.0,
            esc(&bar.shown)
        );
    }
    svg.push_str("</svg></figure>");
    svg
}

/// A chart label of at most `width` characters (the full text is in the
/// bar's tooltip and the tables).
fn clip_label(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_owned(), |x| format!("{:.1}%", x * 100.0))
}

/// The page.
pub fn page(
    summary: &Summary,
    flagged: &[TraceReport],
    flagged_total: usize,
    cap: usize,
) -> String {
    let total = summary.total();
    let nodes = summary.by_node_reason();
    let node_bars: Vec<Bar> = nodes
        .iter()
        .take(NODE_BARS)
        .map(|n| Bar {
            label: format!("{} · {}", clip_label(&n.node, 34), n.reason),
            value: n.count as f64,
            shown: n.count.to_string(),
            class: "violation",
        })
        .collect();
    let node_max = node_bars.iter().map(|b| b.value).fold(0.0, f64::max);
    let mut model_bars = Vec::new();
    for (model, g) in summary.by_model() {
        let model = clip_label(model, 30);
        model_bars.push(Bar {
            label: format!("{model} · near-miss"),
            value: g.near_miss_rate().unwrap_or(0.0),
            shown: format!(
                "{} ({} of {})",
                pct(g.near_miss_rate()),
                g.near_miss,
                g.reward_one
            ),
            class: "nearmiss",
        });
        model_bars.push(Bar {
            label: format!("{model} · Call-NMR"),
            value: g.call_nmr().unwrap_or(0.0),
            shown: format!(
                "{} ({} of {})",
                pct(g.call_nmr()),
                g.executed_rewarded_without_read,
                g.executed_rewarded
            ),
            class: "nmr",
        });
    }
    let positions = summary.first_deviation_positions();
    let position_bars: Vec<Bar> = positions
        .iter()
        .enumerate()
        .map(|(i, n)| Bar {
            label: format!("{}–{}% of the trace", i * 10, (i + 1) * 10),
            value: *n as f64,
            shown: n.to_string(),
            class: "position",
        })
        .collect();
    let position_max = position_bars.iter().map(|b| b.value).fold(0.0, f64::max);

    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>Turnstile audit</h1><p class=\"counts\">{} records read = <b>{}</b> audited + <b>{}</b> rejected · {} events · \
         <span class=\"v-compliant\">{} compliant</span> · <span class=\"v-violation\">{} violation</span> · \
         <span class=\"v-review\">{} needs review</span> · <span class=\"v-unverified\">{} unverified</span> · \
         {} blocked, {} unconsented and {} to review of {} writes</p>\
         <p>Step-TCR {} · Trace-TCR {} · process-valid {} of {} reward-1 traces · near-miss {} ({}) · Call-NMR {} · judge {} calls, {}+{} tokens</p>",
        summary.read,
        summary.audited,
        summary.rejected(),
        total.events,
        total.compliant,
        total.violation,
        total.needs_review,
        total.unverified,
        total.blocked_calls,
        total.unconsented_calls,
        total.review_calls,
        total.mutating_calls,
        pct(Some(total.step_tcr())),
        pct(Some(total.trace_tcr_rate())),
        total.process_valid,
        total.reward_one,
        total.near_miss,
        pct(total.near_miss_rate()),
        pct(total.call_nmr()),
        total.judge_calls,
        total.judge_input_tokens,
        total.judge_output_tokens
    );
    body.push_str("<section class=\"charts\">");
    let node_title = if nodes.len() > NODE_BARS {
        format!(
            "Violations by node and reason (top {NODE_BARS} of {})",
            nodes.len()
        )
    } else {
        "Violations by node and reason".to_owned()
    };
    body.push_str(&bar_chart("nodes", &node_title, &node_bars, node_max));
    body.push_str(&bar_chart(
        "models",
        "Near-miss rate (reward 1 but a violation) and Call-NMR per agent model",
        &model_bars,
        1.0,
    ));
    body.push_str(&bar_chart(
        "positions",
        "Where the first deviation falls (position in the trace)",
        &position_bars,
        position_max,
    ));
    body.push_str("</section>");

    body.push_str("<h2>Per agent model</h2><table class=\"groups\"><tr><th>model</th><th>traces</th><th>compliant</th><th>violation</th><th>needs review</th><th>unverified</th><th>reward 1</th><th>near-miss</th><th>process-valid</th><th>Step-TCR</th><th>Call-NMR</th></tr>");
    for (model, g) in summary.by_model() {
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(model),
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
        );
    }
    body.push_str("</table>");

    let _ = write!(
        body,
        "<h2>Flagged traces</h2><p class=\"cap\">Showing {} of {flagged_total} flagged traces (violation, near miss or unverified; the page holds at most {cap}). Click a trace for its timeline.</p>",
        flagged.len()
    );
    body.push_str("<div class=\"drill\"><table class=\"flagged\"><tr><th>trace</th><th>model</th><th>reward</th><th>verdict</th><th>first deviation</th></tr>");
    for (i, r) in flagged.iter().enumerate() {
        let first = r.first_deviation.as_ref().map_or_else(
            || match r.unverified.first() {
                Some(u) => format!("event {}: {} (unverified)", u.event, u.call),
                None => "—".to_owned(),
            },
            |d| {
                format!(
                    "event {}: {} at {} ({})",
                    d.event,
                    d.call,
                    d.node.as_deref().unwrap_or("-"),
                    d.reason
                )
            },
        );
        let near = if r.metrics.near_miss {
            " <span class=\"tag\">near miss</span>"
        } else {
            ""
        };
        let _ = write!(
            body,
            "<tr class=\"trace\" data-index=\"{i}\" tabindex=\"0\"><td>{}</td><td>{}</td><td>{}</td><td class=\"v-{}\">{}{near}</td><td>{}</td></tr>",
            esc(&r.trace),
            esc(r.model.as_deref().unwrap_or("")),
            r.reward.map(|x| x.to_string()).unwrap_or_default(),
            r.verdict.name(),
            r.verdict.name(),
            esc(&first)
        );
    }
    body.push_str("</table><div id=\"timeline\" hidden></div></div>");
    if !summary.rejections.is_empty() {
        let _ = write!(
            body,
            "<h2>Rejected ({} problems)</h2><ul class=\"rejected\">",
            summary.rejections.len()
        );
        for r in summary.rejections.iter().take(DEFAULT_CAP) {
            let _ = write!(
                body,
                "<li>{}{} {}: {}</li>",
                esc(&r.file),
                r.record.map(|i| format!(" record {i}")).unwrap_or_default(),
                esc(&r.path),
                esc(&r.reason)
            );
        }
        body.push_str("</ul>");
    }
    body.push_str("<pre id=\"selftest-result\" hidden></pre>");

    let traces: Vec<serde_json::Value> = flagged.iter().map(trace_data).collect();
    let data = serde_json::json!({
        "expected": {
            "nodes": node_bars.len(),
            "models": model_bars.len(),
            "positions": POSITION_BUCKETS,
        },
        "traces": traces,
    });
    // `</` must not end the script element early.
    let data = data.to_string().replace("</", "<\\/");
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Turnstile audit</title><style>{STYLE}</style></head><body>{body}<script type=\"application/json\" id=\"data\">{data}</script><script>{SCRIPT}</script></body></html>\n"
    )
}

/// What the drill-down needs of one trace.
fn trace_data(r: &TraceReport) -> serde_json::Value {
    let deviations: Vec<serde_json::Value> = r
        .blocked
        .iter()
        .chain(&r.deviated)
        .map(|d| {
            serde_json::json!({
                "event": d.event, "node": d.node, "reason": d.reason,
                "remediation": d.remediation, "call": d.call,
            })
        })
        .collect();
    let unverified: Vec<serde_json::Value> = r
        .unverified
        .iter()
        .map(|u| serde_json::json!({"event": u.event, "assumed": u.assumed}))
        .collect();
    serde_json::json!({
        "trace": r.trace,
        "verdict": r.verdict.name(),
        "near_miss": r.metrics.near_miss,
        "first": r.first_deviation.as_ref().map(|d| d.event),
        "deviations": deviations,
        "unverified": unverified,
        "timeline": r.timeline.as_deref().unwrap_or_default(),
    })
}

const STYLE: &str = r#"
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2430;max-width:1400px}
h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:22px 0 6px}
.counts b{font-size:15px}.v-compliant{color:#1a7f37}.v-violation{color:#c62828;font-weight:600}.v-unverified{color:#9a6700}.v-review{color:#0969da}
.charts{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0;border:1px solid #d8dee4;border-radius:6px;padding:8px}
figcaption{font-weight:600;margin-bottom:4px}svg text{font-size:12px;fill:#1d2430}
rect.violation{fill:#d9534f}rect.nearmiss{fill:#e69f00}rect.nmr{fill:#0072b2}rect.position{fill:#6f42c1}
table{border-collapse:collapse}td,th{border-bottom:1px solid #e5e8eb;padding:3px 8px;text-align:left;font-size:13px}
tr.trace{cursor:pointer}tr.trace:hover,tr.trace.open{background:#eef4ff}
.tag{background:#e69f00;color:#fff;border-radius:3px;padding:0 4px;font-size:11px}
.drill{display:flex;gap:16px;align-items:flex-start}#timeline{border:1px solid #d8dee4;border-radius:6px;padding:8px;min-width:420px;max-width:560px;position:sticky;top:8px;max-height:90vh;overflow:auto}
#timeline ol{padding-left:0;list-style:none;margin:0}#timeline li{border-left:3px solid #d8dee4;padding:2px 8px;margin:2px 0;font-size:12px}
#timeline li.deviation{border-left-color:#c62828;background:#fdecea}#timeline li.unverified{border-left-color:#9a6700;background:#fff8e1}
#timeline .k{font-weight:600}#timeline .rem{color:#c62828;margin-top:2px}.cap{color:#57606a}
"#;

const SCRIPT: &str = r#"
(function(){
  var errors=[];
  window.addEventListener('error',function(e){errors.push(String(e.message||e));});
  var data=JSON.parse(document.getElementById('data').textContent);
  var panel=document.getElementById('timeline');
  function el(tag,cls,text){var n=document.createElement(tag);if(cls)n.className=cls;if(text!==undefined)n.textContent=text;return n;}
  function open(i){
    var t=data.traces[i];if(!t)return;
    document.querySelectorAll('tr.trace.open').forEach(function(r){r.classList.remove('open');});
    var row=document.querySelector('tr.trace[data-index="'+i+'"]');if(row)row.classList.add('open');
    panel.textContent='';
    panel.appendChild(el('h3','',t.trace+' · '+t.verdict+(t.near_miss?' · near miss':'')));
    var byEvent={};t.deviations.forEach(function(d){byEvent[d.event]=d;});
    var unv={};t.unverified.forEach(function(u){unv[u.event]=u;});
    var list=el('ol');
    t.timeline.forEach(function(e){
      var d=byEvent[e.event],u=unv[e.event];
      var li=el('li',d?'deviation':(u?'unverified':''));
      li.setAttribute('data-event',e.event);
      li.appendChild(el('span','k',e.event+' '+e.kind+' ['+e.verdict+'] '));
      li.appendChild(el('span','',e.text));
      if(d){li.appendChild(el('div','rem','blocked at '+(d.node||'-')+' ('+d.reason+')'+(d.remediation?' — remediation: '+d.remediation:'')));}
      if(u){li.appendChild(el('div','rem','unverified: assumed '+u.assumed.join(', ')));}
      list.appendChild(li);
    });
    panel.appendChild(list);panel.hidden=false;
    // Scroll the timeline itself (not the page) to the deviation.
    var first=panel.querySelector('li.deviation,li.unverified');if(first)panel.scrollTop=Math.max(0,first.offsetTop-panel.offsetTop-120);
  }
  document.querySelectorAll('tr.trace').forEach(function(r){
    r.addEventListener('click',function(){open(Number(r.getAttribute('data-index')));});
    r.addEventListener('keydown',function(e){if(e.key==='Enter')open(Number(r.getAttribute('data-index')));});
  });
  var asked=location.hash.match(/^#open=(\d+)$/);
  if(asked)open(Number(asked[1]));
  if(location.hash==='#selftest'){
    var out=[],ok=true;
    ['nodes','models','positions'].forEach(function(c){
      var n=document.querySelectorAll('svg[data-chart="'+c+'"] rect.bar').length;
      out.push('bars '+c+'='+n);if(n!==data.expected[c])ok=false;
    });
    var row=document.querySelector('tr.trace');
    if(row){
      row.click();
      var shown=!panel.hidden&&panel.querySelectorAll('li').length>0;
      var marked=panel.querySelectorAll('li.deviation,li.unverified').length;
      out.push('timeline '+(shown?'shown':'hidden')+' events='+panel.querySelectorAll('li').length+' highlighted='+marked);
      if(!shown||marked===0)ok=false;
    }else{out.push('timeline none');}
    out.push('errors='+errors.length+(errors.length?' '+errors.join(' | '):''));
    if(errors.length)ok=false;
    var res=document.getElementById('selftest-result');
    res.textContent='SELFTEST '+(ok?'PASS':'FAIL')+' '+out.join('; ');res.hidden=false;
  }
})();
"#;
