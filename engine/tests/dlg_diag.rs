#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
#[path = "support/tau2.rs"]
mod tau2;
use tau2::{domain_trace_files, shipped_bundle};
use turnstile_engine::extract::extract;
use turnstile_engine::import::import_file;
use turnstile_engine::trace::Event;

#[test]
#[ignore]
fn diag() {
    let domain = std::env::var("DIAG_DOMAIN").unwrap_or("retail".into());
    let wanted: Vec<String> = std::env::var("DIAG_TRACES").unwrap().split(',').map(String::from).collect();
    let bundle = shipped_bundle(&domain);
    for file in domain_trace_files(&domain) {
        let imported = import_file(&file, None).unwrap();
        for trace in &imported.traces {
            let Some(w) = wanted.iter().find(|w| trace.meta.id.ends_with(w.split('@').next().unwrap())) else { continue };
            let at: usize = w.split('@').nth(1).unwrap().parse().unwrap();
            let facts = extract(&bundle, trace);
            println!("==== {} @{at}", trace.meta.id);
            if let Some(Event::Call { tool, args, .. }) = trace.events.get(at) { println!("CALL {tool} {args}"); }
            let first = at.saturating_sub(8);
            for (k, e) in trace.events.iter().enumerate().take(at).skip(first) {
                let t = facts.turns.iter().find(|t| t.event.0 as usize == k);
                let text = match e { Event::User{text} => format!("U: {text}"), Event::Agent{text} => format!("A: {text}"), Event::Call{tool,..} => format!("call {tool}"), Event::Result{..} => "result".into() };
                let cues = t.map(|t| format!("dec={} any={} aff={} rev={} cor={}", t.asks_decision as u8, t.asks_anything as u8, t.affirms as u8, t.revokes as u8, t.corrects as u8)).unwrap_or_default();
                let named: Vec<&str> = facts.mentions.iter().filter(|m| m.event.0 as usize == k).map(|m| facts.interner.resolve(m.value)).filter(|s| s.len() > 5).collect();
                println!("[{k}] {cues} {:?}\n     {}", named, text.chars().take(700).collect::<String>().replace('\n', " / "));
            }
        }
    }
}
