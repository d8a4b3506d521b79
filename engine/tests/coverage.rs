#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a panic is a failure report
//! Coverage analysis on every shipped bundle (`bundles/*`): Corollary 1 and 2
//! as the analysis states them, and witnesses that replay through the engine
//! showing exactly the predicted first deviation under every schedule —
//! telecom's instructions and claims included, which the session reports as
//! `deviate`.

use std::path::PathBuf;
use std::sync::Arc;

use turnstile_engine::coverage::witness::{Builder, Witness, WitnessError};
use turnstile_engine::coverage::{AgentClass, Deviation, Turn, analyze};
use turnstile_engine::{BundleRuntime, Schedule, check_bundle};

fn bundles() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bundles");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("bundle.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 3, "the shipped bundles are missing: {dirs:?}");
    dirs
}

/// The shipped bundle `name`'s directory.
fn shipped(name: &str) -> PathBuf {
    bundles()
        .into_iter()
        .find(|d| d.ends_with(name))
        .unwrap_or_else(|| panic!("no shipped bundle {name}"))
}

/// Of `deviations`, the shallowest of each class at a turn's start and in
/// mid-turn.
fn shallowest_per_class_and_turn<'a>(
    deviations: impl Iterator<Item = &'a Deviation>,
) -> Vec<&'a Deviation> {
    let mut shallowest = std::collections::BTreeMap::new();
    for d in deviations {
        let best = shallowest.entry((&d.class, d.state.turn)).or_insert(d);
        if d.prefix.len() < best.prefix.len() {
            *best = d;
        }
    }
    shallowest.into_values().collect()
}

#[test]
fn every_bundle_has_deviations_and_the_schedules_cover_as_the_corollaries_say() {
    for dir in bundles() {
        let bundle = check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
        let analysis = analyze(&bundle);
        let name = &bundle.name;
        assert!(!analysis.explored.truncated, "{name}: state cap reached");
        let all = analysis.deviations.len();
        assert!(all > 0, "{name}: no deviation found");
        let workflow = analysis.coverage(Schedule::Workflow);
        assert_eq!(workflow.covered.len(), all, "{name}: Corollary 1, workflow");
        let action = analysis.coverage(Schedule::Action);
        let writes = analysis
            .deviations
            .iter()
            .filter(|d| matches!(d.class, AgentClass::Write(_)))
            .count();
        assert_eq!(action.covered.len(), writes, "{name}: Corollary 1, action");
        // No instruction or claim is in the guarded class.
        let messages = analysis
            .deviations
            .iter()
            .filter(|d| d.class.is_message())
            .count();
        let uncovered_messages = action
            .uncovered
            .iter()
            .filter(|&&i| analysis.deviations[i].class.is_message())
            .count();
        assert_eq!(uncovered_messages, messages, "{name}: Corollary 1, action");
        // The automaton's device calls agree with the session's order rules.
        assert_eq!(
            analysis.fixes_before_diagnosis,
            Vec::new(),
            "{name}: a fix step reachable before its diagnosis"
        );
        assert!(
            !action.uncovered.is_empty(),
            "{name}: an action-only guard sees every deviation?"
        );
        let boundary = analysis.coverage(Schedule::Boundary);
        for &i in &boundary.covered {
            assert_eq!(analysis.deviations[i].state.turn, Turn::TurnStart, "{name}");
        }
        for &i in &boundary.uncovered {
            assert_eq!(analysis.deviations[i].state.turn, Turn::MidTurn, "{name}");
        }
        // Every deviation's prefix is a valid prefix and the event leaves P_G
        // (the bigger bundles: a sample spread over the list).
        let step = (analysis.deviations.len() / 5000).max(1);
        for d in analysis.deviations.iter().step_by(step) {
            assert!(analysis.valid(&d.prefix, None), "{name}: {d:?}");
            assert!(!analysis.valid(&d.prefix, Some(&d.class)), "{name}: {d:?}");
        }
        println!(
            "{name}: states {}, |D_G| {all} ({messages} instructions and claims), |C_workflow| {}, |C_boundary| {}, |C_action| {} (uncovered non-writes {})",
            analysis.explored.states.len(),
            workflow.covered.len(),
            boundary.covered.len(),
            action.covered.len(),
            action.uncovered.len()
        );
    }
}

/// Counts a witness result in `(unrealised, overtaken)`; a disagreement (or
/// any other error) fails the test. Returns the confirmed witness.
fn tally(
    result: Result<Witness, WitnessError>,
    bundle: &str,
    d: &Deviation,
    counts: &mut (usize, usize),
) -> Option<Witness> {
    match result {
        Ok(witness) => Some(witness),
        Err(WitnessError::Unrealised { .. }) => {
            counts.0 += 1;
            None
        }
        Err(WitnessError::Overtaken { .. }) => {
            counts.1 += 1;
            None
        }
        Err(e) => panic!(
            "{bundle}: {} {} after {} (state {}): {e}",
            d.class.kind(),
            d.class.tool(),
            d.node,
            d.state_index
        ),
    }
}

/// Toy-orders: every witness; the larger bundles: the shallowest deviations
/// of the calls, and for each instruction and claim class its shallowest
/// deviation at the start of a user turn and in mid-turn
/// (`TURNSTILE_COVERAGE_ALL=1` checks every one).
#[test]
fn witnesses_replay_showing_exactly_the_predicted_deviation() {
    let everything = std::env::var("TURNSTILE_COVERAGE_ALL").is_ok();
    for dir in bundles() {
        let bundle = Arc::new(check_bundle(&dir).unwrap_or_else(|p| panic!("{p}")));
        let analysis = analyze(&bundle);
        let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
        let mut builder = Builder::new(rt, &analysis);
        // Witness search on the big bundles costs seconds per deviation in a
        // debug build: there the shallowest deviations are checked (BFS
        // order), all of them with TURNSTILE_COVERAGE_ALL=1.
        let sample: Vec<_> = if everything || bundle.name == "toy-orders" {
            analysis.deviations.iter().collect()
        } else {
            let mut sample: Vec<_> = analysis.deviations.iter().take(8).collect();
            sample.extend(shallowest_per_class_and_turn(
                analysis.deviations.iter().filter(|d| d.class.is_message()),
            ));
            sample
        };
        let checked = sample.len();
        let mut confirmed = 0;
        let mut counts = (0, 0);
        let mut messages_confirmed = std::collections::BTreeSet::new();
        let started = std::time::Instant::now();
        for d in sample {
            if let Some(witness) = tally(builder.witness(d), &bundle.name, d, &mut counts) {
                confirmed += 1;
                if d.class.is_message() {
                    messages_confirmed.insert(d.class.clone());
                }
                // What `--witnesses` writes reads back as the trace replayed.
                if confirmed % 10 == 1 {
                    let file = std::env::temp_dir()
                        .join(format!("turnstile-witness-{}.jsonl", std::process::id()));
                    std::fs::write(&file, witness.trace_jsonl()).unwrap();
                    let mut read = Vec::new();
                    turnstile_engine::import::for_each_trace(&file, None, |t| {
                        read.push(t.unwrap());
                        std::ops::ControlFlow::Continue(())
                    })
                    .unwrap();
                    std::fs::remove_file(&file).unwrap();
                    assert_eq!(read.len(), 1);
                    assert_eq!(read[0].events, witness.trace.events);
                }
            }
        }
        let (unrealised, overtaken) = counts;
        println!(
            "{}: {:?} for {confirmed} witnesses confirmed, {unrealised} unrealised, {overtaken} overtaken of {checked} checked",
            bundle.name,
            started.elapsed()
        );
        assert!(
            confirmed > unrealised + overtaken,
            "{}: too few witnesses",
            bundle.name
        );
        // Every instruction and claim class has a confirmed witness: its
        // replay says `deviate` at the predicted message.
        let message_classes: std::collections::BTreeSet<_> = analysis
            .deviations
            .iter()
            .filter(|d| d.class.is_message())
            .map(|d| d.class.clone())
            .collect();
        assert_eq!(messages_confirmed, message_classes, "{}", bundle.name);
    }
}

/// `session::recorded::deviation_coverage` counts the read deviations an
/// action-only guard misses, which the write-only `coverage` cannot show.
#[test]
fn replay_coverage_counts_every_deviation() {
    use turnstile_engine::session::deviation_coverage;
    let dir = shipped("toy-orders");
    let bundle = Arc::new(check_bundle(&dir).unwrap());
    let analysis = analyze(&bundle);
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut builder = Builder::new(Arc::clone(&rt), &analysis);
    let read = analysis
        .deviations
        .iter()
        .find(|d| matches!(d.class, AgentClass::Read(_)) && d.state.turn == Turn::MidTurn)
        .unwrap();
    let witness = builder.witness(read).unwrap();
    let judge = witness.judge();
    let last_call = witness.trace.events.len() - 2;
    for (schedule, caught) in [
        (Schedule::Workflow, true),
        (Schedule::Boundary, false),
        (Schedule::Action, false),
    ] {
        let c = deviation_coverage(&rt, &witness.trace, schedule, &judge).unwrap();
        assert_eq!(c.deviations.len(), 1, "{schedule}");
        assert_eq!(c.deviations[0].0 as usize, last_call);
        assert_eq!(c.caught.len() == 1, caught, "{schedule}");
        assert_eq!(c.missed.len() == 1, !caught, "{schedule}");
    }
}

/// Telecom's dual control: the user's device tools are user events in the
/// automaton (never agent classes), and witnesses through them carry the
/// user's calls with text reports that make the device checks hold.
#[test]
fn telecom_witnesses_realise_the_users_device_calls() {
    use turnstile_engine::coverage::Move;
    use turnstile_engine::trace::Event;
    let dir = shipped("telecom");
    let bundle = Arc::new(check_bundle(&dir).unwrap());
    let analysis = analyze(&bundle);
    // Calls are the agent's own tools; instructions name the user's device
    // fixes (and every fix with diagnoses is one); claims are the bundle's.
    use turnstile_engine::bundle::model::Side;
    for class in analysis.automaton.agent_classes() {
        match &class {
            AgentClass::Read(t) | AgentClass::Write(t) => {
                assert_eq!(
                    bundle.domain.tool(t).unwrap().side,
                    Side::Agent,
                    "{class:?}"
                );
            }
            AgentClass::Instruct(t) => {
                let tool = bundle.domain.tool(t).unwrap();
                assert_eq!(tool.side, Side::User, "{class:?}");
                assert!(!tool.after.is_empty(), "{class:?}");
            }
            AgentClass::Claim(id) => assert!(bundle.claims.iter().any(|c| c.id == *id)),
            AgentClass::DeviceCall(t) => panic!("{t}: an agent device call under dual control"),
        }
    }
    let fixes = bundle
        .domain
        .tools
        .values()
        .filter(|t| t.side == Side::User && !t.after.is_empty())
        .count();
    assert_eq!(analysis.automaton.instructions().len(), fixes);
    assert_eq!(analysis.automaton.claims().len(), bundle.claims.len());
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut builder = Builder::new(rt, &analysis);
    let through_device: Vec<_> = analysis
        .deviations
        .iter()
        .filter(|d| d.prefix.iter().any(|m| matches!(m, Move::UserTool { .. })))
        .take(6)
        .collect();
    assert!(
        !through_device.is_empty(),
        "no deviation after a device step"
    );
    let mut confirmed = 0;
    for d in through_device {
        match builder.witness(d) {
            Ok(w) => {
                confirmed += 1;
                assert!(w.trace.events.iter().any(|e| matches!(
                    e,
                    Event::Call {
                        requestor: turnstile_engine::bundle::model::Side::User,
                        ..
                    }
                )));
                assert!(w.trace.events.iter().any(|e| matches!(
                    e,
                    Event::Result {
                        content: serde_json::Value::String(_),
                        ..
                    }
                )));
            }
            Err(WitnessError::Unrealised { .. } | WitnessError::Overtaken { .. }) => {}
            Err(e) => panic!("{}: {e}", d.node),
        }
    }
    assert!(
        confirmed > 0,
        "no witness through a device step was confirmed"
    );
}

/// A seeded sample of `size` distinct indices below `n` (a small LCG, so
/// the sample is the same on every run and needs no dependency).
fn seeded_sample(n: usize, size: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut picked = std::collections::BTreeSet::new();
    while picked.len() < size.min(n) {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        picked.insert((state >> 33) as usize % n);
    }
    picked.into_iter().collect()
}

/// Deep deviations too: a sample spread evenly over each big bundle's whole
/// list (`Analysis::sample`, what `--witness-limit` writes; every kind and
/// depth, not only the shallowest) and a seeded random sample replay as
/// predicted for a large majority, none disagreeing; the rest is counted by
/// cause. `TURNSTILE_COVERAGE_SAMPLE=N` sets each sample's size (default 12).
#[test]
fn spread_and_random_samples_of_deep_deviations_replay_as_predicted() {
    let size = std::env::var("TURNSTILE_COVERAGE_SAMPLE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12);
    let mut results = Vec::new();
    for dir in bundles().into_iter().filter(|d| !d.ends_with("toy-orders")) {
        let bundle = Arc::new(check_bundle(&dir).unwrap_or_else(|p| panic!("{p}")));
        let analysis = analyze(&bundle);
        let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
        let mut builder = Builder::new(rt, &analysis);
        let spread = analysis.sample(None, Some(size));
        assert_eq!(spread.len(), size.min(analysis.deviations.len()));
        let random = seeded_sample(analysis.deviations.len(), size, 15);
        for (kind, sample) in [("spread", spread), ("random", random)] {
            let deepest = sample
                .iter()
                .map(|&i| analysis.deviations[i].prefix.len())
                .max()
                .unwrap();
            let mut confirmed = 0;
            let mut counts = (0, 0);
            let started = std::time::Instant::now();
            for &i in &sample {
                let d = &analysis.deviations[i];
                if tally(builder.witness(d), &bundle.name, d, &mut counts).is_some() {
                    confirmed += 1;
                }
            }
            let (unrealised, overtaken) = counts;
            println!(
                "{}: {:?} for a {kind} sample of {}: {confirmed} confirmed, {unrealised} unrealised, {overtaken} overtaken (deepest prefix {deepest} moves)",
                bundle.name,
                started.elapsed(),
                sample.len()
            );
            results.push((bundle.name.clone(), kind, confirmed, sample.len()));
        }
    }
    // The floors are what the builder reaches (measured with samples of
    // 12: 11/12 or better everywhere, see bundles/README.md), with one
    // witness of slack: a change that loses more fails here.
    for (name, kind, confirmed, checked) in results {
        assert!(
            confirmed * 6 >= checked * 5,
            "{name}: only {confirmed} of the {kind} sample of {checked} confirmed (floor 5/6)"
        );
    }
}

/// Solo control (tau2's `llm_agent_solo`): the agent calls the device tools
/// itself. Analysed with `analyze_with(.., Control::Solo)`, telecom's device
/// fixes are agent classes too ([`AgentClass::DeviceCall`], one per fix with
/// diagnoses, never covered by `action`), and a witness of each kind carries
/// `control: solo` in its header, calls the device tools as the agent, and
/// replays showing exactly the predicted deviation: the device call's
/// `deviate` verdict `calls <fix>` at the call.
#[test]
fn solo_control_makes_device_calls_the_agents_and_its_witnesses_replay() {
    use turnstile_engine::bundle::model::{Control, Side};
    use turnstile_engine::coverage::{Move, analyze_with};
    use turnstile_engine::trace::Event;
    let dir = shipped("telecom");
    let bundle = Arc::new(check_bundle(&dir).unwrap());
    assert_eq!(bundle.control, Control::Dual, "telecom's own control");
    let dual = analyze(&bundle);
    let solo = analyze_with(&bundle, Control::Solo);
    assert!(!solo.explored.truncated);
    assert_eq!(solo.automaton.control(), Control::Solo);
    let device_classes: std::collections::BTreeSet<_> = solo
        .automaton
        .agent_classes()
        .into_iter()
        .filter(|c| matches!(c, AgentClass::DeviceCall(_)))
        .map(|c| c.tool().to_owned())
        .collect();
    let fixes: std::collections::BTreeSet<_> =
        solo.automaton.instructions().iter().cloned().collect();
    assert_eq!(device_classes, fixes);
    assert!(
        !dual
            .automaton
            .agent_classes()
            .iter()
            .any(|c| matches!(c, AgentClass::DeviceCall(_))),
        "dual control has no agent device calls"
    );
    // Every dual deviation is one under solo; the device calls come on top.
    let device = solo
        .deviations
        .iter()
        .filter(|d| matches!(d.class, AgentClass::DeviceCall(_)))
        .count();
    assert!(device > 0);
    assert_eq!(solo.deviations.len(), dual.deviations.len() + device);
    let action = solo.coverage(Schedule::Action);
    assert!(
        action
            .uncovered
            .iter()
            .filter(|&&i| matches!(solo.deviations[i].class, AgentClass::DeviceCall(_)))
            .count()
            == device
    );
    assert_eq!(solo.fixes_before_diagnosis, Vec::new());
    // Witnesses: each device-call class's shallowest deviation at a turn's
    // start and in mid-turn, and deviations whose prefix calls a device tool.
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut builder = Builder::new(rt, &solo);
    let mut sample = shallowest_per_class_and_turn(
        solo.deviations
            .iter()
            .filter(|d| matches!(d.class, AgentClass::DeviceCall(_))),
    );
    sample.extend(
        solo.deviations
            .iter()
            .filter(|d| d.prefix.iter().any(|m| matches!(m, Move::UserTool { .. })))
            .step_by(997)
            .take(6),
    );
    let mut counts = (0, 0);
    let mut confirmed_device = std::collections::BTreeSet::new();
    let mut through_device = 0;
    for d in &sample {
        let Some(w) = tally(builder.witness(d), &bundle.name, d, &mut counts) else {
            continue;
        };
        assert_eq!(w.trace.meta.control, Some(Control::Solo));
        // The header's key order depends on serde_json's `preserve_order`
        // (unified on by a workspace build): read it, not its bytes.
        let jsonl = w.trace_jsonl();
        let header: serde_json::Value =
            serde_json::from_str(jsonl.lines().next().unwrap_or_default()).unwrap();
        assert_eq!(header["control"], "solo", "{header}");
        // No call of the user's: the agent makes every device call.
        assert!(!w.trace.events.iter().any(|e| matches!(
            e,
            Event::Call {
                requestor: Side::User,
                ..
            }
        )));
        if let AgentClass::DeviceCall(fix) = &d.class {
            confirmed_device.insert(fix.clone());
            assert!(
                matches!(w.trace.events.last(), Some(Event::Call { tool, requestor: Side::Agent, .. }) if tool == fix)
            );
        }
        if d.prefix.iter().any(|m| matches!(m, Move::UserTool { .. })) {
            through_device += 1;
        }
    }
    println!(
        "telecom solo: {} device-call classes, {device} device-call deviations of {}; witnesses: {} of {} confirmed ({} unrealised, {} overtaken), {through_device} through a device step",
        fixes.len(),
        solo.deviations.len(),
        sample.len() - counts.0 - counts.1,
        sample.len(),
        counts.0,
        counts.1
    );
    assert_eq!(
        confirmed_device, fixes,
        "every device-call class has a confirmed witness"
    );
    assert!(
        through_device > 0,
        "no witness through an agent's device step"
    );
}

/// The alphabet has no width limit: toy-orders with 70 claims (past the 64
/// a `u64` bitset held, where the 65th on were dropped) has a claim class
/// for each, and the last one's deviation is found and confirmed by replay.
#[test]
fn claims_past_the_64th_are_in_the_alphabet() {
    let toy = shipped("toy-orders");
    let dir = tempfile::tempdir().unwrap();
    for entry in walk(&toy) {
        let to = dir.path().join(entry.strip_prefix(&toy).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    let mut yaml = std::fs::read_to_string(dir.path().join("bundle.yaml")).unwrap();
    yaml.push_str("claims:\n");
    for i in 0..70 {
        yaml.push_str(&format!(
            "  - id: claim_{i}\n    phrases: [\"status q{i}z\"]\n    verified_by: [get_order_details]\n    since: [cancel_pending_order]\n    step: identify\n    remediation: Read the order again first\n"
        ));
    }
    std::fs::write(dir.path().join("bundle.yaml"), yaml).unwrap();
    let bundle = Arc::new(check_bundle(dir.path()).unwrap_or_else(|p| panic!("{p}")));
    let analysis = analyze(&bundle);
    assert_eq!(analysis.automaton.claims().len(), 70);
    let last = AgentClass::Claim("claim_69".to_owned());
    assert!(analysis.automaton.agent_classes().contains(&last));
    let d = analysis
        .deviations
        .iter()
        .filter(|d| d.class == last)
        .min_by_key(|d| d.prefix.len())
        .expect("the 70th claim deviates somewhere");
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut builder = Builder::new(rt, &analysis);
    builder.witness(d).unwrap();
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
