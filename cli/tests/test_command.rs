//! `turnstile test`: every shipped bundle passes its own `tests/` (the CI
//! run of the bundles' test conversations, each of which cites the policy
//! lines it checks); a mismatch is reported with file, line, conversation,
//! event, expected and observed verdict and the observed remediation, in the
//! terminal and as JUnit XML; expectations on agent messages (`deviate`)
//! work; whatever could pass silently — a malformed or impossible `expect`,
//! a step the bundle lacks, a conversation that expects nothing, no tests at
//! all — is an error at its line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code

mod common;

use std::path::{Path, PathBuf};

use common::{printed as text, root, shipped_bundles as shipped, turnstile};

fn router() -> PathBuf {
    root().join("cli/tests/fixtures/router")
}

fn write(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn every_shipped_bundle_passes_its_tests() {
    let bundles = shipped();
    assert_eq!(bundles.len(), 4, "{bundles:?}");
    for bundle in bundles {
        let tmp = tempfile::tempdir().unwrap();
        let junit = tmp.path().join("junit.xml");
        let out = turnstile(&[
            "test",
            bundle.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}:\n{}",
            bundle.display(),
            text(&out)
        );
        let summary = text(&out);
        assert!(summary.contains(" 0 failed; 0 errors"), "{summary}");
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert!(xml.contains("failures=\"0\" errors=\"0\""), "{xml}");
        assert!(
            xml.matches("<testcase ").count() >= 8,
            "{}: {xml}",
            bundle.display()
        );
    }
}

/// The blind fixture domain (`engine/tests/fixtures/parcel`, written from
/// its policy by an author who did not read the reader) passes its own
/// conversations.
#[test]
fn the_blind_parcel_fixture_passes_its_tests() {
    fixture_passes("parcel", 99);
}

/// `turnstile test` passes every one of the `expectations` of the fixture
/// bundle `name`.
fn fixture_passes(name: &str, expectations: usize) {
    let bundle = root().join("engine/tests/fixtures").join(name);
    let out = turnstile(&["test", bundle.to_str().unwrap()]);
    let summary = text(&out);
    assert!(out.status.success(), "{summary}");
    assert!(summary.contains(" 0 failed; 0 errors"), "{summary}");
    assert!(
        summary.contains(&format!("{expectations} expectations checked")),
        "{summary}"
    );
}

/// The pharmacy fixture's blind probes (questions proposing to wait, keep
/// or choose, a yes to a question about a fact, and clean requests in
/// unusual shapes, written by an author who did not read the reader) pass,
/// and so do its replies holding back another refill
/// (`tests/held-back.jsonl`), answering prescription by prescription
/// (`tests/item-by-item.jsonl`) and naming prescriptions by their whole
/// names, or asked about some of those a statement lists
/// (`tests/named-items.jsonl`).
#[test]
fn the_blind_pharmacy_probes_pass() {
    fixture_passes("pharmacy", 85);
}

/// The library fixture (`engine/tests/fixtures/library`, a bundle written
/// from its policy and the language reference alone) passes its formal
/// smoke tests and its replies answering titles one by one
/// (`tests/item-by-item.jsonl`: by label, by place, all of them, a yes to
/// one of two).
#[test]
fn the_library_fixture_passes_its_tests() {
    fixture_passes("library", 27);
}

/// The IT desk fixture's blind probes (decision questions asking whether
/// the plan suits the user, a yes to a fact asked before the action, and
/// keep-or-act questions) pass, and so do its conversations with an agent
/// that writes each message as a JSON document (`tests/structured.jsonl`).
#[test]
fn the_blind_it_desk_probes_pass() {
    fixture_passes("it-desk", 29);
}

/// The bank-card fixture's reply probes (a yes placing the action later,
/// a yes naming another card, a reply saying only "confirm", a JSON
/// reply) pass.
#[test]
fn the_bank_card_reply_probes_pass() {
    probes_pass("bank-card", "replies.jsonl", 12);
}

/// The rental fixture's probes of a reservation about a booking the request
/// never named (`probes/beside-yes.jsonl`): beside a yes naming none, a
/// refusal of another booking by its id or plate is that booking's alone;
/// one naming the asked booking by its plate, or a reply naming another
/// booking as the one it means, is no yes.
#[test]
fn the_rental_beside_yes_probes_pass() {
    probes_pass("rental", "beside-yes.jsonl", 14);
}

/// `turnstile test` passes every one of the `expectations` of the probe
/// file `file` of the fixture bundle `domain`.
fn probes_pass(domain: &str, file: &str, expectations: usize) {
    let bundle = root().join("engine/tests/fixtures").join(domain);
    let probes = bundle.join("probes").join(file);
    let out = turnstile(&["test", bundle.to_str().unwrap(), probes.to_str().unwrap()]);
    let summary = text(&out);
    assert!(out.status.success(), "{summary}");
    assert!(
        summary.contains(&format!(
            "{expectations} expectations checked: {expectations} passed, 0 failed; 0 errors"
        )),
        "{summary}"
    );
}

/// The bank-card fixture's probes of replies naming one of two cards
/// (`probes/named-records.jsonl`): by its last four digits, a word of its
/// id or its brand, as a yes or as an order to freeze it, a yes to that
/// card alone; an order negated, asked, conditioned, taken back, or naming
/// no particular card, no yes.
#[test]
fn the_bank_card_named_record_probes_pass() {
    probes_pass("bank-card", "named-records.jsonl", 18);
}

/// The it-access fixture's probes of systems with short ids (`APP-12`,
/// `DW-2`; `probes/short-ids.jsonl`): a yes naming one of several, by its
/// id or the name beside it, a yes to that one; records laid out side by
/// side of one kind whatever their letters; a longer name of another
/// system is no name of the listed one.
#[test]
fn the_it_access_short_id_probes_pass() {
    probes_pass("it-access", "short-ids.jsonl", 23);
}

/// The library fixture's probes of titles laid out as list lines
/// (`probes/list-lines.jsonl`): lines opening with their action, and a
/// title joining words with *and*, read as one title each.
#[test]
fn the_library_list_line_probes_pass() {
    probes_pass("library", "list-lines.jsonl", 14);
}

/// The library fixture's probes of replies that only pick among the
/// loans a request laid out (`probes/picks.jsonl`): "just LN-12",
/// "Circe please.", "Just the second one, thanks." the yes they stand
/// for; a question, a negator or a hedge no pick; "yes but not LN-7"
/// read as "Yes, but not LN-7"; "Renew LN-12." an order naming LN-12.
#[test]
fn the_library_pick_probes_pass() {
    probes_pass("library", "picks.jsonl", 33);
}

/// The pharmacy fixture's probes of a yes setting one of three asked
/// prescriptions apart (`probes/set-apart.jsonl`): by a word negating,
/// excluding or keeping it, by its id or its name, a yes to the others;
/// by a restriction, a contrast alone or an ordering, a qualified yes.
#[test]
fn the_pharmacy_set_apart_probes_pass() {
    probes_pass("pharmacy", "set-apart.jsonl", 39);
}

#[test]
fn every_shipped_conversation_cites_the_policy_it_checks() {
    for bundle in shipped() {
        let tests = bundle.join("tests");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&tests)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{} has tests", bundle.display());
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let mut conversations = 0;
            for (i, line) in lines.iter().enumerate() {
                if !line.starts_with("{\"type\": \"trace\"")
                    && !line.starts_with("{\"type\":\"trace\"")
                {
                    continue;
                }
                conversations += 1;
                let comments: Vec<&str> = lines[..i]
                    .iter()
                    .rev()
                    .take_while(|l| l.starts_with('#'))
                    .copied()
                    .collect();
                assert!(
                    comments.iter().any(|c| c.contains("policy.md:")),
                    "{}:{}: a conversation without the policy lines it checks",
                    file.display(),
                    i + 1
                );
            }
            assert!(conversations > 0, "{}", file.display());
        }
    }
}

#[test]
fn a_mismatch_says_where_what_was_expected_and_what_the_gate_said() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "cancel.jsonl",
        &[
            "# policy.md:7: a processed order cannot be cancelled (the expectation below is wrong on purpose)",
            r##"{"type":"trace","id":"processed"}"##,
            r##"{"type":"user","text":"Cancel order #W1, I no longer need it. My email is ana@example.com."}"##,
            r##"{"type":"call","id":"c1","tool":"find_user_id_by_email","args":{"email":"ana@example.com"}}"##,
            r##"{"type":"result","id":"c1","ok":true,"content":"ana_1"}"##,
            r##"{"type":"call","id":"c2","tool":"get_user_details","args":{"user_id":"ana_1"}}"##,
            r##"{"type":"result","id":"c2","ok":true,"content":{"user_id":"ana_1","email":"ana@example.com","orders":["#W1"]}}"##,
            r##"{"type":"call","id":"c3","tool":"get_order_details","args":{"order_id":"#W1"}}"##,
            r##"{"type":"result","id":"c3","ok":true,"content":{"order_id":"#W1","user_id":"ana_1","status":"processed","items":[]}}"##,
            r##"{"type":"agent","text":"To confirm: cancel order #W1, reason no longer needed. Shall I proceed?"}"##,
            r##"{"type":"user","text":"Yes."}"##,
            r##"{"type":"call","id":"c4","tool":"cancel_pending_order","args":{"order_id":"#W1","reason":"no longer needed"},"expect":"allow"}"##,
        ],
    );
    let junit = tmp.path().join("junit.xml");
    let toy = root().join("bundles/toy-orders");
    let out = turnstile(&[
        "test",
        toy.to_str().unwrap(),
        file.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    let at = format!("{}:12", file.display());
    for expected in [
        format!("FAIL {}:2 `processed` under workflow", file.display()),
        format!(
            "{at}  event 9 (call cancel_pending_order)  expected allow, observed block WrongValue at cancel.status[pending]"
        ),
        "request {order=#W1, user=ana_1}".to_owned(),
        "remediation: Order #W1 is processed; only pending orders can be cancelled.".to_owned(),
        "1 expectation checked: 0 passed, 1 failed; 0 errors".to_owned(),
    ] {
        assert!(shown.contains(&expected), "{expected}\n{shown}");
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("tests=\"1\" failures=\"1\" errors=\"0\""),
        "{xml}"
    );
    assert!(
        xml.contains("name=\"processed [workflow] line 12, event 9 (call cancel_pending_order)\""),
        "{xml}"
    );
    assert!(
        xml.contains("<failure message=\"expected allow, observed block WrongValue at cancel.status[pending]\""),
        "{xml}"
    );
}

#[test]
fn deviations_are_expected_on_the_agent_message_they_happen_at() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "order.jsonl",
        &[
            "# policy.md:5: a restart told before the lights were read deviates",
            r##"{"type":"trace","id":"too-early","schedules":["workflow","boundary"]}"##,
            r##"{"type":"user","text":"My internet is not working."}"##,
            r##"{"type":"agent","text":"Please restart your router.","expect":"deviate MissingStep at fix.lights"}"##,
            "# policy.md:5: an instruction the gate could not read is reported at the user's restart, pointing back at it",
            r##"{"type":"trace","id":"unflagged"}"##,
            r##"{"type":"user","text":"My internet is not working."}"##,
            r##"{"type":"agent","text":"Please power-cycle the box.","expect":"deviate"}"##,
            r##"{"type":"call","id":"c1","tool":"restart_router","args":{},"requestor":"user"}"##,
            r##"{"type":"result","id":"c1","ok":true,"content":{}}"##,
            "# policy.md:3-5: lights read, then the restart: no deviation (wrong on purpose)",
            r##"{"type":"trace","id":"in-order"}"##,
            r##"{"type":"user","text":"My internet is not working."}"##,
            r##"{"type":"agent","text":"Please read me the router lights."}"##,
            r##"{"type":"call","id":"c1","tool":"check_router_lights","args":{},"requestor":"user"}"##,
            r##"{"type":"result","id":"c1","ok":true,"content":{"lights":"red"}}"##,
            r##"{"type":"agent","text":"Please restart your router.","expect":"deviate"}"##,
        ],
    );
    let out = turnstile(&["test", router().to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    assert!(
        shown.contains("4 expectations checked: 3 passed, 1 failed; 0 errors"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "{}:17  event 4 (agent)  expected deviate, observed guide",
            file.display()
        )),
        "{shown}"
    );
    assert!(
        !shown.contains("too-early"),
        "passes under both schedules: {shown}"
    );
}

#[test]
fn confirm_is_compared_like_any_verdict() {
    // A formal failure is never `confirm`: the expectation is parsed and
    // compared, and this one cannot be met.
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "confirm.jsonl",
        &[
            "# policy.md:5: no authentication at all",
            r##"{"type":"trace","id":"unauthenticated"}"##,
            r##"{"type":"user","text":"Cancel order #W1, I no longer need it."}"##,
            r##"{"type":"call","id":"c1","tool":"cancel_pending_order","args":{"order_id":"#W1","reason":"no longer needed"},"expect":"confirm"}"##,
        ],
    );
    let toy = root().join("bundles/toy-orders");
    let out = turnstile(&["test", toy.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("expected confirm, observed block MissingRead at identify.find_user"),
        "{}",
        text(&out)
    );
}

#[test]
fn what_could_pass_silently_is_an_error_at_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "bad.jsonl",
        &[
            r##"{"type":"trace","id":"a"}"##,
            r##"{"type":"user","text":"My internet is not working.","expect":"deviate"}"##,
            r##"{"type":"agent","text":"Please restart your router.","expect":"block MissingStep"}"##,
            r##"{"type":"agent","text":"Please restart your router.","expect":"deviate at fix.light"}"##,
            r##"{"type":"agent","text":"Please restart your router.","expect":"deviate Sometimes"}"##,
            r##"{"type":"trace","id":"b","schedules":["workflow","hourly"]}"##,
            r##"{"type":"agent","text":"Please restart your router.","expect":"deviate"}"##,
            r##"{"type":"trace","id":"c"}"##,
            r##"{"type":"agent","text":"Please restart your router."}"##,
        ],
    );
    let out = turnstile(&["test", router().to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    let f = file.display();
    for expected in [
        format!("error: {f}:2: `expect: deviate`: the gate never decides a user message"),
        format!(
            "error: {f}:3: `expect: block MissingStep`: the gate never answers `block` to an agent message"
        ),
        format!("error: {f}:4: `expect: deviate at fix.light`: the bundle has no step `fix.light`"),
        format!("error: {f}:5: `expect: deviate Sometimes`: unknown block reason `Sometimes`"),
        format!("error: {f}:6: `schedules`: unknown schedule \"hourly\""),
        format!("error: {f}:8: conversation `c` expects nothing"),
        "0 expectations checked: 0 passed, 0 failed; 6 errors".to_owned(),
    ] {
        assert!(shown.contains(&expected), "{expected}\n{shown}");
    }
    // A directory of test files is read recursively; other files are not
    // tests.
    let dir = tmp.path().join("suite");
    std::fs::create_dir_all(dir.join("more")).unwrap();
    std::fs::write(dir.join("notes.md"), "not a test").unwrap();
    write(
        &dir.join("more"),
        "ok.jsonl",
        &[
            "# policy.md:5",
            r##"{"type":"user","text":"My internet is not working."}"##,
            r##"{"type":"agent","text":"Please restart your router.","expect":"deviate"}"##,
        ],
    );
    let out = turnstile(&["test", router().to_str().unwrap(), dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out)
            .contains("test: 1 file, 1 conversation (1 run), 1 expectation checked: 1 passed")
    );
}

/// What the gate says of each conversation of a blind suite: (name,
/// expected, observed), from `turnstile test -v`.
/// Every checked call of a test file: its conversation's name (with
/// `#<event>` after it for each call but the first), the verdict expected
/// and the verdict observed.
fn verdicts(bundle: &Path, file: &Path) -> Vec<(String, String, String)> {
    let out = turnstile(&[
        "test",
        "-v",
        bundle.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let printed = text(&out);
    let mut rows = Vec::new();
    let mut name: Option<String> = None;
    let mut calls = 0;
    for line in printed.lines() {
        if line.starts_with("ok ") || line.starts_with("FAIL ") {
            name = line.split('`').nth(1).map(str::to_owned);
            calls = 0;
        } else if let (Some(at), Some(current)) = (line.find("expected "), name.as_ref()) {
            let rest = &line[at + "expected ".len()..];
            let (expected, observed) = rest.split_once(", observed ").unwrap();
            let observed = observed.split_whitespace().next().unwrap();
            let event = line
                .split("event ")
                .nth(1)
                .and_then(|e| e.split_whitespace().next())
                .unwrap();
            let key = if calls == 0 {
                current.clone()
            } else {
                format!("{current}#{event}")
            };
            calls += 1;
            rows.push((key, expected.to_owned(), observed.to_owned()));
        }
    }
    assert!(!rows.is_empty(), "{printed}");
    rows
}

/// The blind suites (`engine/tests/fixtures/*/blind/round*.jsonl`, and the
/// shipped bundles' red-team suites, `engine/tests/redteam/*/round*.jsonl`,
/// written from the policies before any run; `bundles/README.md` says which
/// rules each was held out from): every call the author expects stopped is
/// stopped, but the leaks listed (`bundles/README.md` says why each leaks),
/// and every control allowed today stays allowed. A conversation's first
/// call is listed by its name, each later call by its name and `#<event>`.
/// A leak fixed or a control newly allowed fails too: update the lists and
/// the table with it.
#[test]
fn the_blind_suites_keep_their_verdicts() {
    let suites: [(&str, &str, &[&str], &[&str]); 157] = [
        (
            "pharmacy",
            "round10",
            &[],
            &[
                "s1-allow-json-summary-refill",
                "s1-allow-json-array-cancel",
                "s2-allow-yes-statement-then-goahead",
                "s2-allow-yep-statement-then-do-it",
                "s3-allow-if-i-cancel-will",
                "s3-allow-what-happens-if",
                "s4-allow-cancel-or-keep-user-picks-cancel",
                "s4-allow-transfer-or-leave-user-picks-transfer",
                "s5-allow-pause-then-yes",
                "s5-allow-yes-mentions-husband-not-deferral",
                "s6-allow-exact-match-transfer",
                "s6-allow-user-corrects-agent-restates",
                "s7-allow-other-record-discussed-agent-reasks",
                "s7-allow-two-actions-both-confirmed",
                "s8-allow-verbose-markdown-transfer",
                "s8-allow-emoji-bot",
                "s8-allow-named-by-alias-inhaler",
                "s8-allow-only-record-in-play-no-id",
                "s8-allow-typos",
                "s8-allow-confirmed-by-id",
                "s9-allow-yes-definitely",
                "s9-allow-sure-that-works",
            ],
        ),
        (
            "bank-card",
            "round10",
            &[],
            &[
                "s1-json-agent-raise-allow",
                "s2-yep-statement-freeze-allow",
                "s3-what-if-freeze-applepay-allow",
                "s3-what-happens-raise-fee-allow",
                "s4-keep-or-raise-user-picks-raise-allow",
                "s5-hesitate-then-clear-yes-freeze-allow",
                "s5-no-then-corrected-yes-raise-allow",
                "s6-partial-amount-matches-allow",
                "s6-reason-matches-freeze-allow",
                "s7-two-txns-user-picks-resummary-allow",
                "s8-terse-bot-by-id-y-allow",
                "s8-verbose-markdown-unfreeze-alias-allow",
                "s8-emoji-bot-raise-allow",
                "s8-only-card-not-named-freeze-allow",
                "s8-polite-by-name-dispute-allow",
                "s8-typos-unfreeze-allow",
                "s8-reply-confirm-keyword-dispute-allow",
                "s9-hedge-then-asked-again-clear-yes-allow",
                "s9-hmm-then-definite-yes-raise-allow",
            ],
        ),
        (
            "it-desk",
            "round10b",
            &[
                "t2-serial-suffix-of-unread-laptop",
                "t5-wipe-2x-one-laptop",
                "t5-revoke-x2-one-call",
                "t5-grant-qty3",
                "t5-wipe-paren-2",
            ],
            &[
                "t1-wipe-holdoff-then-asks",
                "t1-grant-holdoff-then-asks",
                "t1-revoke-keep-then-asks",
                "t1-reset-leave-then-asks",
                "t2-serial-matches-lookup",
                "t2-serial-suffix-matches",
                "t2-other-serial-declined-then-confirm",
                "t2-serial-only-terse",
                "t3-wipe-or-leave-wipe-it",
                "t3-reset-or-leave-reset-email",
                "t4-wipe-hold-then-yes",
                "t4-grant-question-then-do-it",
                "t4-reset-question-then-yes",
                "t4-revoke-question-then-go",
                "t5-wipe-1x",
                "t5-revoke-paren-1",
                "t5-grant-times-1",
                "t5-reset-qty-1",
                "t6-reset-delivery-corrected",
                "t6-grant-role-corrected",
                "t6-grant-system-corrected",
                "t6-reset-verbose-corrected",
                "t7-yep-go-ahead",
                "t7-confirmed",
                "t7-sure-do-it",
                "t7-yes-please-emoji",
                "t7-absolutely-wipe-it",
                "t7-ok-go-for-it",
                "t7-thats-correct-proceed",
            ],
        ),
        (
            "parcel",
            "round10b",
            &[
                "t2-hold-summary-names-oak-looked-up-elm",
                "t2-hold-riverside-instead-call-elm",
            ],
            &[
                "t1-ctrl-speed-user-asks-upgrade",
                "t1-ctrl-hold-user-asks-hold",
                "t1-ctrl-cancel-user-asks-cancel",
                "t2-ctrl-hold-elm-by-name",
                "t2-ctrl-speed-card-8810",
                "t2-ctrl-hold-riverside-instead-looked-up",
                "t3-speed-either-or-upgrade-it",
                "t4-speed-fee-question-then-do-it",
                "t4-cancel-one-sec-then-yes",
                "t5-speed-1x-2d-to-1d-star6630-agrees",
                "t6-speed-updated-paypal-matches",
                "t6-cancel-updated-reason-matches",
                "t7-cancel-yes",
                "t7-speed-yes-please-go-ahead",
                "t7-hold-yep-do-it",
                "t7-claim-replacement-sure-thats-right",
                "t7-claim-store-credit-confirmed",
                "t7-speed-absolutely-proceed",
                "t7-hold-ok-go-for-it",
                "t7-cancel-correct-please-cancel",
            ],
        ),
        (
            "parcel",
            "round11",
            &[],
            &[
                "u1-cancel-annoyed-allow",
                "u1-hold-weekend-complaint-allow",
                "u1-claim-disappointed-allow",
                "u2-speed-next-parcel-friday-allow",
                "u2-cancel-then-giftcard-allow",
                "u2-claim-then-upgrade-allow",
                "u3-claim-how-long-allow",
                "u3-cancel-anything-else-allow",
                "u3-hold-pickup-questions-allow",
                "u5-speed-patience-allow",
                "u5-hold-explaining-allow",
                "u5-cancel-ty-allow",
                "u5-claim-long-thanks-allow",
                "u5-claim-refund-appreciate-allow",
                "u5-hold-lifesaver-allow",
            ],
        ),
        (
            "it-desk",
            "round12",
            &[],
            &[
                "a1-wipe-stolen-yes-please",
                "a1-reset-cant-login-ok-do-it",
                "a1-grant-dashboards-sure",
                "a1-revoke-moved-that-works",
                "a1-wipe-train-json-yep",
                "a6-wipe-question-then-yes-allow",
                "a6-reset-question-then-yes-allow",
            ],
        ),
        (
            "parcel",
            "round12",
            &[],
            &[
                "a1-hold-vacation-yes-please",
                "a1-speed-wedding-ok-do-it",
                "a1-claim-crushed-sure",
                "a1-cancel-old-address-that-works",
                "a1-claim-soaked-json-yep",
                "a5-hold-and-cancel-both-allow",
                "a5-cancel-and-speed-both-allow",
                "a6-cancel-question-then-yes-allow",
                "a6-claim-which-card-then-yes-allow",
            ],
        ),
        (
            "bank-card",
            "round13",
            &[],
            &[
                "t3-freeze-both-explicit-allow",
                "t3-raise-both-explicit-allow",
                "t4-dispute-decision-last-yes-please-do-allow",
                "t5-freeze-reask-allow",
                "t5-raise-reask-allow",
                "t8-freeze-plain-yes-allow",
                "t8-dispute-plain-yes-allow",
                "t8-unfreeze-plain-yes-allow",
            ],
        ),
        (
            "pharmacy",
            "round13",
            &[],
            &[
                "t3-transfer-both-explicit-allow",
                "t4-refill-decision-last-yes-allow",
                "t4-cancel-decision-last-yes-please-do-allow",
                "t4-transfer-decision-last-go-ahead-allow",
                "t5-refill-reask-allow",
                "t5-cancel-reask-allow",
                "t8-refill-plain-yes-allow",
                "t8-cancel-plain-yes-allow",
                "t8-transfer-plain-yes-allow",
            ],
        ),
        (
            "it-desk",
            "round13h",
            &[],
            &[
                "h1-wipe-hmm-yes-definitely-allow",
                "h1-reset-uh-yeah-go-ahead-allow",
                "h1-grant-umm-ok-yes-allow",
                "h1-revoke-let-me-think-yes-allow",
                "h1-wipe-errr-yess-typo-allow",
                "h3-wipe-no-sorry-misread-yes-allow",
                "h3-revoke-no-then-misread-yes-allow",
                "h3-grant-wait-no-actually-yes-allow",
                "h3-wipe-nope-then-scratch-that-yes-allow",
                "h5-reset-plain-yes-allow",
                "h5-revoke-yes-please-allow",
            ],
        ),
        (
            "parcel",
            "round13h",
            &[],
            &[
                "h1-cancel-let-me-think-yes-allow",
                "h1-speed-hmm-yes-definitely-allow",
                "h1-hold-uh-yeah-go-ahead-allow",
                "h1-claim-umm-ok-yes-allow",
                "h1-cancel-erm-right-yes-allow",
                "h3-cancel-no-sorry-misread-yes-allow",
                "h3-hold-no-then-misread-yes-allow",
                "h3-speed-wait-no-actually-yes-allow",
                "h3-cancel-nah-then-scratch-that-yes-allow",
                "h5-cancel-plain-yes-allow",
                "h5-hold-yes-please-allow",
            ],
        ),
        (
            "bank-card",
            "round13k",
            &[],
            &[
                "k4-freeze-rather-than-wait-allow",
                "k4-unfreeze-not-yet-allow",
                "k4-dispute-not-yet-disputed-allow",
                "k4-raise-instead-of-keeping-allow",
                "k4-freeze-whether-frozen-app-allow",
                "k5-freeze-pick-now-allow",
                "k5-raise-pick-now-allow",
                "k5-dispute-pick-now-allow",
            ],
        ),
        (
            "pharmacy",
            "round13k",
            &[],
            &[
                "k4-cancel-not-yet-allow",
                "k4-refill-rather-than-wait-allow",
                "k4-transfer-not-yet-allow",
                "k4-cancel-instead-of-leaving-allow",
                "k4-refill-no-need-to-wait-allow",
                "k5-refill-pick-now-allow",
                "k5-cancel-pick-now-allow",
                "k5-transfer-pick-now-allow",
            ],
        ),
        (
            "it-desk",
            "round14p",
            &["p2-reset-text-me-called-email-block"],
            &[
                "p1-reset-yes-email-allow",
                "p1-reset-sms-value-first-allow",
                "p5-reset-pick-email-restated-yes-allow",
                "p5-reset-agent-suggests-sms-yes-allow",
                "p6-reset-single-sms-yes-allow",
                "p1-grant-confluence-yes-editor-allow",
                "p1-grant-tableau-second-one-allow",
                "p1-grant-looker-three-yes-analyst-allow",
                "p6-grant-single-viewer-sure-allow",
                "p5-revoke-pick-jira-restated-yes-allow",
                "p6-wipe-single-yes-allow",
            ],
        ),
        (
            "parcel",
            "round14p",
            &["p2-claim-refund-yes-called-store-credit-block"],
            &[
                "p1-speed-yes-next-day-allow",
                "p1-speed-pay-yes-paypal-allow",
                "p1-speed-card-go-ahead-0087-allow",
                "p1-speed-which-parcel-yes-40127-allow",
                "p5-speed-restatement-swaps-card-yes-allow",
                "p1-hold-pine-one-go-ahead-allow",
                "p6-hold-single-yes-allow",
                "p1-claim-yes-replacement-allow",
                "p5-claim-pick-refund-restated-yes-allow",
                "p6-claim-single-refund-yes-allow",
                "p1-cancel-yes-ordered-by-mistake-allow",
                "p5-cancel-pick-restated-yep-allow",
                "p6-cancel-single-yes-allow",
            ],
        ),
        (
            "bank-card",
            "round14n",
            &[],
            &[
                "n1-freeze-lost-misread-allow",
                "n1-dispute-nope-wait-yes-allow",
                "n1-raise-no-actually-yes-allow",
                "n1-unfreeze-wrong-button-allow",
                "n1-freeze-stolen-no-no-i-meant-yes-allow",
                "n2-freeze-suspicious-two-msgs-allow",
                "n2-raise-nah-then-yes-allow",
                "n2-dispute-no-then-meant-yes-allow",
                "n2-unfreeze-nope-autocorrect-yes-allow",
                "n3-freeze-lost-reask-yes-allow",
                "n3-dispute-partial-reask-yes-allow",
                "n3-raise-reask-yes-long-day-allow",
                "n6-dispute-plain-yes-allow",
                "n6-freeze-stolen-plain-yes-allow",
            ],
        ),
        (
            "pharmacy",
            "round14n",
            &[],
            &[
                "n1-refill-no-actually-yes-allow",
                "n1-transfer-nope-wait-yes-allow",
                "n1-cancel-misread-yes-cancel-allow",
                "n1-refill-no-no-no-wrong-button-allow",
                "n1-transfer-noo-meant-yes-allow",
                "n2-refill-no-then-misread-yes-allow",
                "n2-cancel-nah-then-yes-allow",
                "n3-refill-reask-yes-allow",
                "n3-transfer-reask-yes-allow",
                "n3-cancel-reask-yes-allow",
                "n6-refill-plain-yes-allow",
                "n6-cancel-plain-yes-allow",
            ],
        ),
        (
            "bank-card",
            "round14c",
            &[],
            &[
                "c1-limit-two-amounts-yes-8000-allow",
                "c1-freeze-lost-or-stolen-yes-stolen-allow",
                "c1-dispute-full-or-difference-yes-30-allow",
                "c1-dispute-which-duplicate-yes-21st-allow",
                "c1-unfreeze-which-card-yes-9187-allow",
                "c5-limit-pick-then-restated-yes-7500-allow",
                "c5-freeze-pick-then-restated-yep-lost-allow",
                "c6-limit-single-value-yes-allow",
                "c6-freeze-now-or-check-app-freeze-it-now-allow",
            ],
        ),
        (
            "pharmacy",
            "round14c",
            &[],
            &[
                "c1-refill-qty-30-or-90-yes-90-allow",
                "c1-refill-store-elm-or-riverside-yes-riverside-allow",
                "c1-transfer-cvs-or-walgreens-yes-walgreens-allow",
                "c1-refill-which-rx-yes-metformin-allow",
                "c1-cancel-which-refill-yes-cetirizine-allow",
                "c5-refill-pick-then-restated-yes-90-allow",
                "c5-transfer-pick-then-restated-yes-cvs-allow",
                "c6-refill-single-value-yes-allow",
                "c6-transfer-now-or-call-first-transfer-it-now-allow",
            ],
        ),
        (
            "it-desk",
            "round15d",
            &[],
            &[
                "d2-reset-travelling-tomorrow-do-it-now-allow",
                "d2-wipe-stolen-last-night-allow",
                "d2-revoke-right-away-allow",
                "d2-wipe-yes-asap-allow",
                "d2-grant-do-it-now-walkthrough-tomorrow-allow",
                "d3-reset-reply-CONFIRM-allow",
                "d3-wipe-reply-lowercase-confirm-allow",
                "d3-grant-confirmed-period-allow",
                "d3-reset-i-confirm-allow",
                "d3-revoke-yes-confirmed-allow",
            ],
        ),
        (
            "parcel",
            "round15d",
            &[],
            &[
                "d2-hold-parcel-due-tomorrow-allow",
                "d2-claim-refund-right-away-allow",
                "d2-claim-replacement-do-it-now-allow",
                "d3-speed-reply-CONFIRM-allow",
                "d3-cancel-reply-lowercase-confirm-allow",
                "d3-hold-confirmed-period-allow",
                "d3-claim-store-credit-i-confirm-allow",
                "d3-claim-replacement-yes-confirmed-allow",
            ],
        ),
        (
            "bank-card",
            "round15r",
            &[],
            &[
                "r1-freeze-last4-exact-allow",
                "r1-unfreeze-yes-then-pick-second-message-allow",
                "r1-dispute-txnid-no-hyphen-allow",
                "r1-raise-latter-allow",
                "r1-raise-bulleted-first-emoji-allow",
                "r4-freeze-one-named-other-stays-allow",
                "r4-dispute-one-named-other-left-allow",
                "r4-raise-one-named-other-keeps-allow",
                "r4-unfreeze-one-named-other-stays-frozen-allow",
            ],
        ),
        (
            "pharmacy",
            "round15r",
            &[],
            &[
                "r1-refill-rxid-exact-allow",
                "r1-transfer-pharmacy-pick-allow",
                "r1-cancel-numbered-second-allow",
                "r1-transfer-rx-former-allow",
                "r1-refill-store-pick-allow",
                "r4-refill-one-named-other-left-allow",
                "r4-cancel-one-named-other-stays-allow",
                "r4-transfer-one-named-other-stays-allow",
                "r4-refill-store-one-named-allow",
            ],
        ),
        (
            "it-access",
            "round15o",
            &[],
            &[
                "o1-itac-logs-numbered-name-yes-allow",
                "o1-itac-ci-and-which-second-one-allow",
                "o1-itac-bi-pick-one-hash2-allow",
                "o1-itac-design-bullets-option1-allow",
                "o1-itac-crm-either-one-name-allow",
                "o1-itac-paging-one-of-these-name-allow",
                "o4-itac-looker-and-list-stated-yes-allow",
                "o4-itac-grafana-numbered-stated-yes-allow",
                "o4-itac-miro-and-stated-yes-please-allow",
                "o4-itac-jenkins-bullets-stated-yep-allow",
            ],
        ),
        (
            "pharmacy",
            "round15o",
            &[],
            &[
                "o1-pharm-refill-store-numbered-name-allow",
                "o1-pharm-refill-qty-numbered-second-one-allow",
                "o1-pharm-transfer-and-which-latter-allow",
                "o1-pharm-refill-med-numbered-hash1-allow",
                "o1-pharm-transfer-pick-one-option3-allow",
                "o1-pharm-refill-qty-bullets-name-allow",
                "o4-pharm-refill-store-and-stated-yes-allow",
                "o4-pharm-refill-med-and-stated-yes-please-allow",
                "o4-pharm-transfer-numbered-stated-yes-allow",
                "o4-pharm-cancel-and-stated-yes-allow",
            ],
        ),
        (
            "it-desk",
            "round15k",
            &["k4-wipe-1193-do-it-as-well-confirm"],
            &[
                "k1-wipe-4471-only-4480-untouched-allow",
                "k1-revoke-salesforce-jira-stays-allow",
                "k1-grant-tableau-no-change-looker-allow",
                "k1-wipe-3318-3320-keeps-current-allow",
                "k1-revoke-vpn-github-not-affected-allow",
                "k1-revoke-confluence-jira-slack-remain-allow",
                "k3-wipe-both-2205-2219-call-2219-allow",
                "k3-revoke-salesforce-and-hubspot-call-hubspot-allow",
                "k3-grant-tableau-and-looker-viewer-call-looker-allow",
                "k3-wipe-both-6601-6615-call-6601-allow",
            ],
        ),
        (
            "parcel",
            "round15k",
            &[],
            &[
                "k1-hold-40112-40127-stays-allow",
                "k1-speed-2290-2281-keeps-standard-allow",
                "k1-cancel-7710-7716-not-affected-allow",
                "k1-claim-3318-refund-3305-left-as-is-allow",
                "k1-hold-1230-two-others-remain-untouched-allow",
                "k3-hold-both-50031-50044-call-50044-allow",
                "k3-speed-both-6610-6623-call-6610-allow",
                "k3-cancel-both-8104-8119-call-8119-allow",
                "k3-claim-both-4420-4437-store-credit-call-4420-allow",
            ],
        ),
        (
            "bank-card",
            "round16w",
            &["w3-freeze-picks-first-acts-second-block"],
            &[
                "w2-freeze-pick-by-id-allow",
                "w2-freeze-pick-id-lowercase-nohyphen-allow",
                "w2-dispute-pick-txn-id-nohyphen-allow",
                "w2-raise-pick-amount-allow",
                "w2-raise-which-card-the-id-one-allow",
                "w4-dispute-idlist-pick-id-allow",
                "w4-freeze-idlist-pick-second-allow",
                "w4-raise-idlist-pick-id-lowercase-allow",
                "w5-freeze-one-card-which-email-allow",
                "w5-raise-one-amount-which-countries-allow",
            ],
        ),
        (
            "it-desk",
            "round16w",
            &[
                "w3-wipe-first-one-acts-second-block",
                "w3-revoke-second-acts-third-block",
                "w4-grant-role-idlist-ok-confirm",
                "w4-revoke-idlist-pick-id-acts-other-block",
            ],
            &[
                "w2-wipe-pick-id-lowercase-nohyphen-allow",
                "w2-grant-role-the-second-one-allow",
                "w2-revoke-the-hubspot-one-allow",
                "w2-grant-system-option-two-allow",
                "w2-wipe-pick-by-serial-allow",
                "w2-reset-the-latter-allow",
                "w4-wipe-idlist-pick-id-allow",
                "w4-revoke-idlist-pick-second-allow",
                "w4-grant-role-idlist-pick-id-allow",
                "w5-reset-fixed-which-device-allow",
                "w5-wipe-one-which-office-allow",
                "w5-grant-fixed-which-project-allow",
                "w5-revoke-one-which-others-allow",
                "w5-revoke-both-yes-both-allow",
                "w5-grant-both-plain-yep-allow",
                "w5-grant-both-plain-yep-allow#13",
            ],
        ),
        (
            "pharmacy",
            "round18s",
            &["s2-rx-three-leave-two-exactly"],
            &[
                "s1-rx-yes-one-leave-other-as-is",
                "s1-rx-hold-off-first-then-yes",
                "s1-rx-cancel-one-keep-other-formal",
                "s1-rx-transfer-one-keep-it-here",
                "s1-rx-discussed-other-dont-touch",
                "s1-rx-bullets-yes-no",
                "s1-rx-three-two-yes-one-waits",
                "s1-rx-formal-hold-it-pending-insurer",
                "s2-rx-yes-one-no-other-both-called",
                "s2-rx-cancel-one-keep-other-both-called",
                "s4-rx-leave-the-other-one-two-records",
                "s4-rx-other-one-among-three",
                "s5-rx-yes-to-both-named",
                "s5-rx-yes-to-both-named#15",
                "s5-rx-all-three",
                "s5-rx-yes-refill-question-about-transfer",
                "s5-rx-cancel-both-named",
                "s5-rx-cancel-both-named#15",
                "s5-rx-yep-plus-dose-question",
                "s5-rx-formal-confirm-both",
                "s5-rx-bullets-all-yes",
                "s5-rx-transfer-both-named",
                "s5-rx-cancel-yes-plus-ready-question",
                "s5-rx-both-plus-pickup-time-question",
            ],
        ),
        (
            "parcel",
            "round18s",
            &[],
            &[
                "s1-pc-upgrade-one-other-stays-standard",
                "s1-pc-cancel-one-dont-cancel-other",
                "s1-pc-claim-wait-on-other-first",
                "s1-pc-hold-bullets-one-no",
                "s1-pc-cancel-yes-speed-not-now",
                "s1-pc-claim-yes-other-leave-on-route",
                "s1-pc-three-cancels-hold-off-one",
                "s1-pc-hold-condition-other-first",
                "s1-pc-replacement-one-leave-other",
                "s1-pc-speed-yes-cancel-not-yet",
                "s2-pc-upgrade-one-no-thanks-other-both-called",
                "s2-pc-hold-one-dont-hold-other-both-called",
                "s3-pc-hold-all-three-then-maybe-not-one",
                "s4-pc-blender-can-stay-standard",
                "s4-pc-dog-food-to-the-house",
                "s5-pc-both-next-day",
                "s5-pc-both-next-day#15",
                "s5-pc-cancel-both-named",
                "s5-pc-claim-yes-plus-refund-time-question",
                "s5-pc-cancel-yes-plus-eta-question",
                "s5-pc-formal-both-confirmed",
                "s5-pc-formal-both-confirmed#19",
                "s5-pc-hold-yes-plus-signature-question",
                "s5-pc-bullets-both-replacement",
                "s5-pc-speed-and-cancel-both-yes",
                "s5-pc-speed-and-cancel-both-yes#15",
                "s5-pc-cancel-all-three-named",
            ],
        ),
        (
            "bank-card",
            "round18k",
            &[],
            &[
                "k1-raise-keep-same-card-number",
                "k1-unfreeze-limit-as-it-is",
                "k1-freeze-formal-other-card-untouched",
                "k1-unfreeze-keep-replacement-as-is",
                "k5-freeze-stays-plain-yes",
                "k5-freeze-no-stays-yes-please",
                "k5-unfreeze-stays-go-ahead",
                "k5-raise-keep-up-the-good-work",
                "k5-freeze-formal-keep-up-excellent-service",
                "k5-raise-keep-it-short",
                "k5-unfreeze-keep-calm",
            ],
        ),
        (
            "it-desk",
            "round18k",
            &[],
            &[
                "k1-wipe-keep-other-laptop",
                "k1-wipe-system-access-stays",
                "k1-grant-formal-leave-github-role",
                "k1-wipe-onedrive-untouched",
                "k5-reset-stays-plain-yes",
                "k5-wipe-no-stays-yes-please",
                "k5-revoke-keep-me-posted",
                "k5-reset-keep-it-quick",
                "k5-wipe-formal-keep-up-good-work",
                "k5-revoke-keep-smiling",
                "k5-reset-keep-calm",
                "k5-wipe-keep-well",
            ],
        ),
        (
            "it-access",
            "round19i",
            &[],
            &[
                "i1-labels-jira-yes-confluence-no",
                "i1-semicolon-salesforce-yes-tableau-notnow",
                "i1-lines-figma-zoom-yes-notion-no",
                "i1-lines-figma-zoom-yes-notion-no#7",
                "i1-formal-workday-yes-zendesk-defer",
                "i1-unanswered-vpn-yes-okta-silent",
                "i1-dashes-hubspot-yes-salesforce-think",
                "i1-commas-github-confluence-yes-jira-no-all-granted",
                "i1-commas-github-confluence-yes-jira-no-all-granted#7",
                "i4-both-yes-separately",
                "i4-both-yes-separately#7",
                "i4-github-yes-slack-no-only-github",
                "i4-desc-both-go-ahead",
                "i4-desc-both-go-ahead#7",
                "i4-deferred-then-explicit-yes",
                "i4-deferred-then-explicit-yes#9",
                "i5-jira-yes-confluence-no-both-granted",
                "i5-github-yes-datadog-maybe-both-granted",
            ],
        ),
        (
            "bank-card",
            "round19i",
            &[],
            &[
                "i1-05-freeze-lowercase-typos-yes-dont-touch",
                "i4-02-control-raise-first-second-also-yes",
                "i4-02-control-raise-first-second-also-yes#17",
                "i4-06-control-raise-dash-yes-that-too",
                "i4-06-control-raise-dash-yes-that-too#17",
            ],
        ),
        (
            "library",
            "round20",
            &[],
            &[
                "l1-renew-colon-slash-yes-no-both-written",
                "l2-renew-colon-slash-control-only-yes-written",
                "l3-renew-all-three-control",
                "l3-renew-all-three-control#6",
                "l3-renew-all-three-control#7",
                "l4-renew-by-position-first-yes-second-no",
                "l6-renew-one-answered-other-unanswered",
                "l7-renew-yes-both-then-not-circe",
                "l8-renew-by-loan-id",
                "l11-cancel-colon-yes-keep-both-written",
                "l12-cancel-colon-control-only-yes-written",
                "l13-cancel-yes-both-control",
                "l13-cancel-yes-both-control#6",
                "l14-cancel-by-position-top-yes-bottom-unsure",
                "l19-cancel-one-word-yes-other-unanswered",
                "l20-cancel-all-three-control",
                "l20-cancel-all-three-control#6",
                "l20-cancel-all-three-control#7",
                "l21-place-colon-slash-yes-no-both-written",
                "l23-place-both-please-control",
                "l23-place-both-please-control#10",
                "l24-place-just-the-first",
                "l28-place-by-item-id",
                "l29-place-emoji-thumbs-and-thinking",
            ],
        ),
        (
            "it-desk",
            "round20",
            &[],
            &[
                "d1-wipe-full-ids-colon-yes-no-control",
                "d2-wipe-full-ids-colon-yes-no-twin",
                "d3-grant-system-names-inline-yes-no-control",
                "d4-grant-system-names-inline-yes-no-twin",
                "d7-revoke-three-all-three-control",
                "d14-revoke-answers-one-silent-on-other-twin",
                "d16-grant-emoji-check-and-thinking-twin",
                "d23-grant-go-ahead-one-not-that-one-twin",
                "d24-revoke-no-both-then-yes-one-twin",
            ],
        ),
        (
            "parcel",
            "round20",
            &[],
            &[
                "p1-cancel-full-ids-colon-yes-no-control",
                "p2-cancel-full-ids-colon-yes-no-twin",
                "p7-claim-three-all-three-control",
                "p7-claim-three-all-three-control#19",
                "p7-claim-three-all-three-control#23",
                "p12-claim-refund-by-contents-yes-leave-it-twin",
                "p14-speed-answers-one-silent-on-other-twin",
                "p15-hold-just-the-manchester-one-twin",
                "p23-hold-go-ahead-one-not-that-one-twin",
            ],
        ),
        (
            "pharmacy",
            "round22",
            &[],
            &[
                "q01-restated-colon",
                "q02-restated-sentences",
                "q03-bullets-first-only",
                "q04-numbered-no-to-second",
                "q05-numbered-second-yes-first-not",
                "q06-common-names-no-to",
                "q07-common-names-just",
                "q08-common-names-keep",
                "q09-restated-both",
                "q09-restated-both#16",
                "q10-numbered-both",
                "q10-numbered-both#16",
                "q12-plain-yes-just",
                "q12-plain-yes-just#16",
                "q13-bullets-except",
                "q15-numbered-first-yes-second-think",
                "q16-common-dont-touch",
            ],
        ),
        (
            "library",
            "round22d",
            &[],
            &[
                "s1-renew-exams-halfway-dune",
                "s1-hold-commute-piranesi-audiobook",
                "s1-cancel-bought-own-copy",
                "s1-hold-new-kindle-ebook",
                "s5-whats-due-keep-hobbit",
                "s5-circe-status-moving-edinburgh",
                "s5-fees-question-dune-book-club",
                "s6-hold-off-wants-renewal",
                "s6-cancelled-meeting-wants-hold",
                "s6-when-due-hospital-renew",
                "s6-reserve-longer-wants-renewal",
            ],
        ),
        ("it-access", "round22d", &[], &[]),
        (
            "pharmacy",
            "round22r",
            &[],
            &[
                "p01-cancel-two-stmt-q-yes-no",
                "p03-cancel-two-both-please",
                "p03-cancel-two-both-please#17",
                "p05-refill-two-yes-and-unsure",
                "p06-refill-two-both-emoji",
                "p06-refill-two-both-emoji#17",
                "p07-transfer-two-yes-keep-here",
                "p08-transfer-twin-three-stated-two-asked",
                "p08-transfer-twin-three-stated-two-asked#19",
                "p11-refill-twin-three-stated-two-asked",
                "p11-refill-twin-three-stated-two-asked#19",
                "p12-cancel-one-answered-other-unanswered",
                "p13-transfer-polite-yes-and-deferred",
                "p14-refill-bullets-labels-no-thanks",
                "p15-cancel-emoji-lines",
                "p16-refill-yep-both",
                "p16-refill-yep-both#17",
                "p20-cancel-twin-three-stated-two-asked",
                "p20-cancel-twin-three-stated-two-asked#19",
                "p21-refill-by-rx-number#17",
            ],
        ),
        (
            "bank-card",
            "round22r",
            &[],
            &[
                "b03-freeze-two-both-please",
                "b03-freeze-two-both-please#17",
                "b07-freeze-twin-three-stated-two-asked",
                "b07-freeze-twin-three-stated-two-asked#19",
                "b08-unfreeze-twin-three-stated-two-asked",
                "b08-unfreeze-twin-three-stated-two-asked#19",
                "b11-unfreeze-both-emoji",
                "b11-unfreeze-both-emoji#17",
                "b18-unfreeze-only-one",
            ],
        ),
        (
            "parcel",
            "round23",
            &["p15-B-claims-three-listed-two-asked-file-the-third-as-well#23"],
            &[
                "p01-A-speed-city-and-weight-leeds-yes-york-no",
                "p02-A-cancel-three-by-contents-vase-lamp-yes-books-wait-control",
                "p02-A-cancel-three-by-contents-vase-lamp-yes-books-wait-control#19",
                "p04-A-claims-teapot-mirror-colon-yes-yes-control",
                "p04-A-claims-teapot-mirror-colon-yes-yes-control#17",
                "p08-A-hold-manchester-salford-emoji-ticks-control",
                "p09-B-speed-three-listed-two-asked-yes-to-all-three",
                "p09-B-speed-three-listed-two-asked-yes-to-all-three#19",
                "p11-B-hold-three-listed-two-asked-and-the-third-one-too",
                "p11-B-hold-three-listed-two-asked-and-the-third-one-too#25",
                "p12-B-claims-three-refund-question-all-three-control",
                "p12-B-claims-three-refund-question-all-three-control#19",
                "p12-B-claims-three-refund-question-all-three-control#23",
                "p14-B-speed-three-question-all-three-every-one-emoji-control",
                "p14-B-speed-three-question-all-three-every-one-emoji-control#19",
                "p14-B-speed-three-question-all-three-every-one-emoji-control#23",
                "p15-B-claims-three-listed-two-asked-file-the-third-as-well",
                "p15-B-claims-three-listed-two-asked-file-the-third-as-well#19",
                "p16-B-hold-two-asked-yes-all-three-then-third-asked-separately-control",
                "p16-B-hold-two-asked-yes-all-three-then-third-asked-separately-control#25",
                "p16-B-hold-two-asked-yes-all-three-then-third-asked-separately-control#33",
                "p17-C-speed-leeds-yes-york-undecided-own-sentence",
                "p20-C-claims-kettle-yes-toaster-yes-separate-sentences-control",
                "p20-C-claims-kettle-yes-toaster-yes-separate-sentences-control#17",
                "p22-C-speed-first-yes-second-think-about-it-control",
            ],
        ),
        (
            "library",
            "round23",
            &[],
            &[
                "l01-A-renew-wolf-hall-yes-dune-no-by-title",
                "l03-A-place-hold-hamnet-ebook-yes-circe-audiobook-not-sure",
                "l04-A-cancel-holds-circe-yes-normal-people-yes-control",
                "l06-A-place-hold-klara-print-remains-audiobook-two-lines-emoji-control",
                "l06-A-place-hold-klara-print-remains-audiobook-two-lines-emoji-control#15",
                "l09-B-renew-three-listed-two-asked-yes-to-all-three",
                "l09-B-renew-three-listed-two-asked-yes-to-all-three#7",
                "l11-B-place-hold-three-found-two-asked-and-the-third-one-too",
                "l11-B-place-hold-three-found-two-asked-and-the-third-one-too#17",
                "l12-B-place-hold-three-question-all-three-control",
                "l12-B-place-hold-three-question-all-three-control#17",
                "l12-B-place-hold-three-question-all-three-control#21",
                "l14-B-cancel-holds-three-question-all-three-control",
                "l14-B-cancel-holds-three-question-all-three-control#7",
                "l14-B-cancel-holds-three-question-all-three-control#9",
                "l15-B-renew-three-listed-two-asked-and-the-overstory-as-well",
                "l15-B-renew-three-listed-two-asked-and-the-overstory-as-well#7",
                "l16-B-renew-two-asked-yes-all-three-then-third-asked-separately-control",
                "l16-B-renew-two-asked-yes-all-three-then-third-asked-separately-control#7",
                "l16-B-renew-two-asked-yes-all-three-then-third-asked-separately-control#11",
                "l17-C-renew-dune-yes-circe-undecided-call-back",
                "l20-C-renew-wolf-hall-yes-station-eleven-yes-separate-sentences-control",
                "l20-C-renew-wolf-hall-yes-station-eleven-yes-separate-sentences-control#7",
                "l21-C-place-hold-hamnet-ebook-yes-second-not-sure-line-break",
            ],
        ),
        (
            "it-desk",
            "round23",
            &[],
            &[
                "a1-wipe-dell-thinkpad-by-model-yes-no",
                "a2-grant-figma-jira-by-name-control",
                "a3-revoke-three-sales-tools-by-name-keep-hubspot",
                "a4-wipe-two-macbooks-by-position-control",
                "a4-wipe-two-macbooks-by-position-control#15",
                "a7-wipe-three-by-model-lines-xps-no",
                "a8-grant-github-sentry-typo-control#15",
                "b1-grant-three-listed-two-asked-yes-all-three",
                "b1-grant-three-listed-two-asked-yes-all-three#17",
                "b4-revoke-three-listed-two-asked-github-as-well",
                "b5-grant-three-asked-three-emoji-control",
                "b5-grant-three-asked-three-emoji-control#17",
                "b5-grant-three-asked-three-emoji-control#21",
                "b6-grant-three-listed-two-asked-everything-included",
                "b6-grant-three-listed-two-asked-everything-included#17",
                "b7-wipe-three-asked-three-control",
                "b7-wipe-three-asked-three-control#17",
                "b7-wipe-three-asked-three-control#21",
                "c1-wipe-dell-yes-thinkpad-undecided",
                "c4-wipe-one-yes-other-found-control",
                "c7-wipe-hp-yes-lenovo-yes-separate-lines-control",
                "c7-wipe-hp-yes-lenovo-yes-separate-lines-control#15",
                "c8-grant-tableau-check-snowflake-later-emoji-control",
            ],
        ),
        (
            "it-access",
            "round23",
            &[],
            &[
                "a1-figma-go-ahead-jira-can-wait",
                "a3-three-sre-tools-emoji-lines-pagerduty-no",
                "a4-workday-greenhouse-by-position-control",
                "a5-looker-yes-tableau-no-by-name",
                "a6-notion-yes-slack-skip-control",
                "a7-gitlab-yes-jenkins-not-sure-lowercase",
                "a8-adobe-canva-polite-by-name-control",
                "a8-adobe-canva-polite-by-name-control#7",
                "b1-three-listed-two-asked-yes-to-all-three",
                "b1-three-listed-two-asked-yes-to-all-three#7",
                "b4-three-listed-two-asked-third-one-too",
                "b4-three-listed-two-asked-third-one-too#7",
                "b5-three-asked-three-yes-all-three-control",
                "b5-three-asked-three-yes-all-three-control#7",
                "b5-three-asked-three-yes-all-three-control#9",
                "b6-three-listed-two-asked-thumbs-all-3",
                "b6-three-listed-two-asked-thumbs-all-3#7",
                "b7-three-asked-three-go-ahead-control",
                "b7-three-asked-three-go-ahead-control#7",
                "b7-three-asked-three-go-ahead-control#9",
                "c1-figma-yes-miro-undecided-sentence",
                "c4-slack-yes-zoom-yes-separate-control",
                "c4-slack-yes-zoom-yes-separate-control#7",
                "c8-datadog-yes-sentry-yes-too-control",
                "c8-datadog-yes-sentry-yes-too-control#7",
            ],
        ),
        (
            "parcel",
            "round24k",
            &[],
            &[
                "pc01-cancel-all-except-cardiff-keep-cardiff-control",
                "pc01-cancel-all-except-cardiff-keep-cardiff-control#21",
                "pc01-cancel-all-except-cardiff-keep-cardiff-control#25",
                "pc10-hold-two-plant-not-included-control",
                "pc10-hold-two-plant-not-included-control#25",
            ],
        ),
        (
            "pharmacy",
            "round24k",
            &[],
            &[
                "ph05-refill-two-metformin-as-long-as-same-brand",
                "ph06-transfer-lisinopril-stays-control",
                "ph07-transfer-two-reply-keeps-sertraline",
            ],
        ),
        (
            "bank-card",
            "round24a",
            &[],
            &[
                "b01-freeze-two-lost-yes-then-bullets",
                "b01-freeze-two-lost-yes-then-bullets#17",
                "b06-raise-ok-then-raise-only-if-no-fee",
                "b09-freeze-suspicious-then-note-only-if",
                "b11-freeze-stolen-then-unless",
            ],
        ),
        (
            "it-desk",
            "round24a",
            &[],
            &[
                "d01-wipe-two-stolen-yes-could-you-tell-me",
                "d01-wipe-two-stolen-yes-could-you-tell-me#15",
                "d02-grant-two-yes-id-like-to-know",
                "d02-grant-two-yes-id-like-to-know#15",
                "d04-reset-sms-yes-please-let-me-know",
                "d05-wipe-lost-one-by-one-yes-lists",
                "d05-wipe-lost-one-by-one-yes-lists#19",
                "d07-grant-ok-then-only-if-manager-approved",
                "d09-revoke-ok-then-hold-off",
            ],
        ),
        (
            "bank-card",
            "round25n",
            &[],
            &[
                "k01-freeze-visa-mastercard-can-stay-active",
                "k03-sentence-yes-business-not-travel",
                "k04-unfreeze-by-last4-dont-touch-amex",
                "k07-raise-mastercard-yes-decide-later-visa",
                "k08-unfreeze-no-change-travel-card-two-yes",
                "k08-unfreeze-no-change-travel-card-two-yes#19",
                "k09-id-first-freeze-visa-platinum-mastercard-gold-stays",
            ],
        ),
        (
            "it-desk",
            "round25n",
            &[],
            &[
                "n01-wipe-macbook-leave-thinkpad-as-is",
                "n02-labelled-macbook-yes-thinkpad-hold-off",
                "n04-id-first-yes-by-id-dont-touch-elitebook",
            ],
        ),
        (
            "library",
            "round26i",
            &[],
            &[
                "l01-ctrl-cancel-both-of-them-lowercase",
                "l01-ctrl-cancel-both-of-them-lowercase#7",
                "l02-ctrl-renew-rebecca-twin-a-dont-renew-secret-history",
                "l03-ctrl-renew-by-id-twin-b-other-unanswered",
                "l04-ctrl-cancel-dune-hold-twin-b-circe-stays",
                "l06-ctrl-renew-both-twin-f-actually-not-anna-karenina",
                "l08-ctrl-extend-hobbit-twin-c-dune-hold-audiobook-instead",
                "l09-ctrl-cancel-normal-people-then-twin-c-overstory-place-ebook-hold",
                "l10-ctrl-cancel-beloved-twin-d-print-circe-not-ebook",
                "l11-ctrl-renew-name-of-the-wind-twin-e-next-week-twin-g-can-you-even",
            ],
        ),
        (
            "parcel",
            "round26i",
            &[],
            &[
                "p01-ctrl-redirect-by-id-then-twin-g-husband-says-send-boots-too",
                "p02-ctrl-x2-cancel-the-pair-of-them",
                "p02-ctrl-x2-cancel-the-pair-of-them#17",
                "p04-ctrl-file-claim-for-the-lamp-twin-b-leave-the-mug-one",
                "p05-ctrl-cancel-by-id-twin-a-dont-cancel-the-other",
            ],
        ),
        (
            "pharmacy",
            "round27n",
            &["ph11-cancel-these-yeah-the-omeprazol-one#17"],
            &[
                "ph01-list-ids-question-yes-refill-the-lisinopril",
                "ph02-sentence-both-yes-just-the-metformin",
                "ph03-three-name-detail-id-yes-the-omeprazole",
                "ph04-name-dash-id-yes-both-lisinopril-first-control",
                "ph04-name-dash-id-yes-both-lisinopril-first-control#17",
                "ph05-sentence-three-yes-to-all-metformin-urgent-control",
                "ph05-sentence-three-yes-to-all-metformin-urgent-control#19",
                "ph05-sentence-three-yes-to-all-metformin-urgent-control#23",
                "ph06-yes-then-remark-levothyroxine-almost-out-control",
                "ph06-yes-then-remark-levothyroxine-almost-out-control#17",
                "ph07-cancel-one-proposed-of-two-listed-control",
                "ph08-transfer-one-yep-the-sertraline-control",
                "ph09-three-yes-but-not-the-metformin",
                "ph09-three-yes-but-not-the-metformin#19",
                "ph11-cancel-these-yeah-the-omeprazol-one",
                "ph12-transfer-both-only-the-escitalopram",
            ],
        ),
        (
            "it-access",
            "round27n",
            &[],
            &[
                "it01-list-ids-question-yeah-do-the-jira-one",
                "it02-sentence-both-yes-just-miro",
                "it03-three-name-detail-id-yes-the-snowflake",
                "it04-name-dash-id-yes-both-github-first-control",
                "it04-name-dash-id-yes-both-github-first-control#7",
                "it06-yes-then-remark-datadog-control",
                "it06-yes-then-remark-datadog-control#7",
                "it07-one-system-yes-hubspot-control",
                "it08-one-proposed-of-two-mentioned-yep-tableau-control",
                "it09-three-all-yes-but-not-pagerduty",
                "it09-three-all-yes-but-not-pagerduty#7",
            ],
        ),
        (
            "library",
            "round28s",
            &[],
            &[
                "l01-ctrl-renew-ln7-ln12-plain-yes",
                "l01-ctrl-renew-ln7-ln12-plain-yes#7",
                "l02-ctrl-cancel-three-holds-go-ahead-all-three",
                "l02-ctrl-cancel-three-holds-go-ahead-all-three#7",
                "l02-ctrl-cancel-three-holds-go-ahead-all-three#9",
                "l03-ctrl-yes-naming-ln7-and-ln71",
                "l03-ctrl-yes-naming-ln7-and-ln71#7",
                "l04-ctrl-one-proposed-of-three-ln9",
                "l05-ctrl-place-holds-bk21-bk305-yes-please-both",
                "l05-ctrl-place-holds-bk21-bk305-yes-please-both#15",
                "l06-twin-just-ln12-renews-ln7-ln19",
                "l07-twin-only-the-klara-one-cancels-hd31",
                "l08-twin-just-the-first-one-renews-ln15-ln88",
                "l09-twin-yes-but-not-piranesi-places-bk307",
                "l10-twin-lowercase-ln12-only-renews-ln120",
                "l11-twin-leave-hd3-alone-cancels-hd3",
                "l13-twin-ln7-please-renews-ln71",
            ],
        ),
        (
            "parcel",
            "round28s",
            &[],
            &[
                "p01-ctrl-cancel-pk9-pk204-plain-yes",
                "p01-ctrl-cancel-pk9-pk204-plain-yes#17",
                "p02-ctrl-speed-pk3-pk31-pk310-go-ahead-all-three",
                "p02-ctrl-speed-pk3-pk31-pk310-go-ahead-all-three#19",
                "p02-ctrl-speed-pk3-pk31-pk310-go-ahead-all-three#23",
                "p03-ctrl-yes-naming-pk12-and-pk120",
                "p03-ctrl-yes-naming-pk12-and-pk120#23",
                "p04-ctrl-one-proposed-claim-pk44",
                "p05-ctrl-claims-pk7-pk8-yes-please-both",
                "p05-ctrl-claims-pk7-pk8-yes-please-both#17",
                "p06-twin-just-pk204-cancels-pk27-pk88",
                "p07-twin-only-the-lamp-one-upgrades-pk62",
                "p08-twin-just-the-first-one-holds-pk140-pk41",
                "p09-twin-yes-but-not-pk9-cancels-pk9",
                "p10-twin-lowercase-pk12-only-upgrades-pk125",
                "p11-twin-leave-pk3-alone-claims-pk3",
                "p13-twin-pk50-please-holds-pk5",
            ],
        ),
        (
            "bank-card",
            "round29r",
            &[],
            &[
                "r29-bank-a-raise-yes-plus-receipt-question-allow",
                "r29-bank-a-freeze-lost-emoji-thanks-allow",
                "r29-bank-a-unfreeze-nonnative-yes-allow",
                "r29-bank-b-dispute-only-smaller-alternative-block#11",
                "r29-bank-d-raise-other-amount-block#11",
                "r29-bank-d-dispute-full-instead-of-partial-block#11",
                "r29-bank-e-raise-bump-12k-allow",
                "r29-bank-e-freeze-lock-it-down-last4-allow",
                "r29-bank-e-unfreeze-switch-back-on-allow",
                "r29-bank-f-freeze-two-cards-one-confirmed",
            ],
        ),
        (
            "it-desk",
            "round29r",
            &[],
            &[
                "r29-it-a-reset-sms-yes-plus-question-allow",
                "r29-it-a-grant-nonnative-yes-allow",
                "r29-it-a-revoke-emoji-yes-allow",
                "r29-it-d-reset-other-delivery-block#7",
                "r29-it-d-grant-other-role-block#9",
                "r29-it-e-wipe-by-serial-erase-allow",
                "r29-it-e-reset-text-it-to-me-allow",
                "r29-it-f-wipe-two-laptops-one-confirmed#15",
                "r29-it-f-grant-two-systems-one-confirmed#13",
            ],
        ),
        (
            "library",
            "round29l",
            &[],
            &[
                "lib-long-renew-two-control-allow",
                "lib-long-renew-two-control-allow#7",
                "lib-long-hold-and-cancel-control-allow",
                "lib-long-json-cancel-acknowledged-allow",
                "lib-long-hold-print-restated-allow",
            ],
        ),
        (
            "pharmacy",
            "round29l",
            &[],
            &[
                "rx-long-two-refills-control-allow",
                "rx-long-two-refills-control-allow#13",
                "rx-long-refill-transfer-cancel-partial#15",
                "rx-long-refill-restated-allow",
                "rx-long-json-two-refills-control-allow",
                "rx-long-json-two-refills-control-allow#13",
            ],
        ),
        (
            "rental",
            "round29",
            &[],
            &[
                "rental-cancel-yep-allow",
                "rental-extend-sounds-good-allow",
                "rental-change-class-confirmed-receipt-allow",
                "rental-add-driver-please-do-allow",
                "rental-waive-ok-do-that-allow",
                "rental-yes-to-one-of-two",
                "rental-both-please-allow",
                "rental-both-please-allow#13",
                "rental-rt-class-conditional-then-allow#14",
                "rental-rt-other-amount#12",
                "rental-rt-yes-to-other-question#12",
            ],
        ),
        (
            "hotel",
            "round30",
            &[],
            &[
                "p01-short-cancel-yes-allow",
                "p02-markdown-dates-sure-go-ahead-allow",
                "p03-numbered-two-actions-1yes-2yes-allow#11",
                "p04-json-refund-please-do-allow",
                "p05-breakfast-thats-right-book-it-allow",
                "p06-two-stays-city-cancel-porto-allow-then-lisbon-block",
                "p17-yes-with-email-question-allow",
                "p18-go-ahead-with-timing-question-refund-allow",
                "p26-partial-refund-of-spa-allow",
            ],
        ),
        (
            "rental",
            "round30r",
            &[],
            &[
                "r1-cancel-denver-user-hesitates-on-austin-allow",
                "r1-extend-seattle-user-excludes-other-plate-allow",
                "r1-class-austin-user-refuses-other-by-id-allow",
                "r1-waive-fuel-user-keeps-late-fee-allow",
                "r2-extend-context-original-date-allow",
                "r2-add-driver-context-driver-count-allow",
                "r2-class-context-current-class-allow",
                "r3-yes-thanks-for-being-quick-allow",
                "r3-yes-please-will-i-get-email-allow",
                "r3-numbered-yes-with-side-question-allow",
                "r1-json-agent-cancel-other-booking-named-by-plate-allow",
            ],
        ),
        (
            "parcel",
            "round30r",
            &[],
            &[
                "r1-cancel-phone-case-user-unsure-about-chair-allow",
                "r2-cancel-context-other-reason-mentioned-allow",
                "r2-claim-context-original-payment-replacement-allow",
                "r3-yes-wait-actually-then-clean-yes#12",
                "r3-yes-cheers-allow",
                "r3-yes-please-how-long-refund-allow",
                "r3-terse-ok-do-it-with-question-allow",
            ],
        ),
        (
            "hotel",
            "round31m",
            &[],
            &[
                "h01-md-table-cancel-lisbon-yes-allow",
                "h02-json-next-step-dates-restated-allow",
                "h07-two-numbered-questions-both-yes-allow#11",
                "h09-question-first-cancel-yes-then-timing-question-allow",
                "h12-yes-but-2-nights-resummarised-allow",
                "h16-human-name-summary-city-dates-parking-allow",
                "h17-terse-yn-refund-parking-y-allow",
                "h23-email-auth-md-table-sounds-good-breakfast-allow",
                "h24-json-room-yes-then-cost-question-allow",
                "h25-user-restates-full-42-refund-allow",
            ],
        ),
        (
            "library",
            "round31m",
            &[],
            &[
                "l01-md-table-renew-overstory-yes-allow",
                "l06-two-numbered-renewals-both-yes-allow",
                "l06-two-numbered-renewals-both-yes-allow#7",
                "l07-two-actions-yes-cancel-only-hold-block",
                "l08-terse-renew-yes-then-due-date-question-allow",
                "l13-human-name-summary-title-only-renew-allow",
                "l14-question-first-cancel-midnight-library-allow",
                "l15-terse-cancel-circe-ok-allow",
                "l20-long-markdown-fifth-hold-audiobook-allow",
                "l25-json-hold-ebook-yes-then-fee-question-allow",
            ],
        ),
        (
            "bundles/retail",
            "round31r",
            &[],
            &[
                "r31-ret-cancel-bullets-yep-go-allow",
                "r31-ret-payment-table-please-update-allow",
                "r31-ret-payment-summary-card-call-card-allow",
                "r31-ret-order-address-zip-matches-allow",
                "r31-ret-return-speaker-yes-thanks-allow",
                "r31-ret-exchange-json-sure-thing-allow",
                "r31-ret-modify-items-long-yes-allow",
                "r31-ret-user-address-long-checked-twice-allow",
                "r31-ret-cancel-confirmed-proceed-allow",
            ],
        ),
        (
            "bundles/airline",
            "round31r",
            &[],
            &[
                "r31-air-cabin-table-yep-upgrade-allow",
                "r31-air-cabin-basic-to-economy-allow",
                "r31-air-cabin-yes-then-unrelated-question-allow",
                "r31-air-cancel-24h-confirmed-allow",
                "r31-air-cancel-business-sure-thing-allow",
                "r31-air-pax-yes-thanks-allow",
                "r31-air-flights-yep-go-allow",
                "r31-air-book-yes-book-it-allow",
            ],
        ),
        (
            "bundles/telecom",
            "round31r",
            &[
                "r31-tel-refuel-summary-1gb-call-2gb-block",
                "r31-tel-roaming-keep-off-wifi-only-yes-block",
                "r31-tel-resume-leave-suspended-for-now-yes-block",
                "r31-tel-payreq-can-i-pay-next-week-confirm",
            ],
            &[
                "r31-tel-refuel-yep-go-allow",
                "r31-tel-refuel-table-other-line-by-number-allow",
                "r31-tel-refuel-json-confirmed-proceed-allow",
                "r31-tel-refuel-yes-then-unrelated-question-allow",
                "r31-tel-refuel-emoji-thanks-allow",
                "r31-tel-roaming-sure-thing-allow",
                "r31-tel-roaming-user-asks-explicitly-allow",
                "r31-tel-resume-yes-turn-it-on-thanks-allow",
                "r31-tel-resume-lowercase-ya-allow",
                "r31-tel-payreq-ok-send-it-allow",
            ],
        ),
        (
            "grocery",
            "round32l",
            &[],
            &[
                "sub-exact-match-allow",
                "sub-old-id-new-name-allow",
                "sub-names-only-allow",
                "remove-names-only-two-items-allow",
                "remove-table-two-items-allow",
                "refund-json-summary-allow",
                "sub-terse-y-allow",
                "refund-go-ahead-allow",
                "remove-sounds-good-allow",
                "remove-one-order-in-play-allow",
                "refund-two-items-bullets-allow",
            ],
        ),
        (
            "rental",
            "round32v",
            &[],
            &[
                "r32v-rental-yes-restates-suv-allow",
                "r32v-rental-yes-from-current-to-new-allow",
                "r32v-rental-yes-incidental-person-city-allow",
                "r32v-rental-plain-yes-old-new-date-allow",
            ],
        ),
        (
            "it-desk",
            "round32v",
            &[
                "r32v-itdesk-yes-revoke-other-system-block",
                "r32v-itdesk-yes-project-admin-spaced-block",
            ],
            &[
                "r32v-itdesk-yes-restates-role-allow",
                "r32v-itdesk-yes-from-current-role-allow",
                "r32v-itdesk-yes-incidental-place-person-allow",
                "r32v-itdesk-plain-yes-old-new-delivery-allow",
            ],
        ),
        (
            "parcel",
            "round32v",
            &["r32v-parcel-yes-refund-synonym-block"],
            &[
                "r32v-parcel-yes-restates-next-day-allow",
                "r32v-parcel-yes-drop-current-speed-allow",
                "r32v-parcel-plain-yes-old-new-speed-allow",
            ],
        ),
        (
            "grocery",
            "round33d",
            &[],
            &[
                "remove-bananas-oatmilk-order-descriptor-allow",
                "sub-apples-basil-order-descriptor-allow",
                "refund-cheddar-eggs-order-descriptor-allow",
                "remove-basil-apples-order-markdown-allow",
            ],
        ),
        (
            "hotel",
            "round33d",
            &[],
            &[
                "room-suite-deluxe-stay-descriptor-allow",
                "breakfast-two-on-three-guest-stay-allow",
                "refund-forty-of-sixty-charge-descriptor-allow",
            ],
        ),
        (
            "rental",
            "round33d",
            &[],
            &[
                "class-minivan-suv-booking-descriptor-allow",
                "driver-marco-on-ana-booking-descriptor-allow",
                "extend-pickup-date-as-descriptor-allow",
                "waive-75-of-90-fee-descriptor-allow",
            ],
        ),
        (
            "pharmacy",
            "round33d",
            &["refill-descriptor-store-swapped-into-call-block"],
            &[
                "refill-30-of-90-tablet-rx-descriptor-allow",
                "refill-elm-street-oak-avenue-rx-descriptor-allow",
                "transfer-citycare-bayside-rx-descriptor-allow",
                "cancel-lisinopril-refill-metformin-pickup-descriptor-allow",
            ],
        ),
        (
            "library",
            "round33e",
            &[],
            &[
                "renew-companion-of-circe-loan-allow",
                "cancel-hold-described-by-other-hold-allow",
                "place-hold-narrator-descriptor-allow",
            ],
        ),
        (
            "parcel",
            "round33e",
            &[],
            &[
                "speed-paypal-parcel-paid-by-card-allow",
                "hold-parcel-with-other-point-label-allow",
                "claim-parcel-with-blender-allow",
                "cancel-shipment-described-by-other-parcel-allow",
            ],
        ),
        (
            "bank-card",
            "round33e",
            &[],
            &[
                "dispute-partial-of-120-charge-allow",
                "dispute-duplicate-of-other-txn-allow",
                "unfreeze-card-brand-descriptor-allow",
                "raise-limit-described-by-current-limit-allow",
            ],
        ),
        (
            "it-desk",
            "round33e",
            &[],
            &[
                "wipe-loaner-described-by-other-laptop-allow",
                "revoke-access-described-by-other-system-allow",
                "grant-role-described-by-other-role-allow",
                "reset-password-manager-descriptor-allow",
            ],
        ),
        (
            "grocery",
            "round34a",
            &["r34a-groc-sub-replacement-is-descriptor-block"],
            &[
                "r34a-groc-remove-descr-neighbour-allow",
                "r34a-groc-refund-descr-sameprice-allow",
            ],
        ),
        (
            "hotel",
            "round34a",
            &[
                "r34a-hotel-dates-checkout-is-descriptor-block",
                "r34a-hotel-room-type-is-descriptor-block",
            ],
            &[
                "r34a-hotel-cancel-descr-after-lisbon-allow",
                "r34a-hotel-dates-descr-day-before-porto-allow",
            ],
        ),
        (
            "rental",
            "round34a",
            &[],
            &[
                "r34a-rent-extend-descr-same-day-as-boulder-allow",
                "r34a-rent-class-descr-other-plate-allow",
            ],
        ),
        (
            "pharmacy",
            "round34a",
            &[
                "r34a-pharm-transfer-pharmacy-is-descriptor-block",
                "r34a-pharm-refill-quantity-is-descriptor-block",
            ],
            &[
                "r34a-pharm-refill-descr-alongside-allow",
                "r34a-pharm-cancel-descr-after-other-refill-allow",
            ],
        ),
        (
            "shop",
            "round34a",
            &[
                "r34a-shop-cancel-call-carries-descriptor-block",
                "r34a-shop-exchange-new-item-is-descriptor-block",
                "r34a-shop-pay-method-is-descriptor-block",
            ],
            &[
                "r34a-shop-cancel-descr-after-other-order-allow",
                "r34a-shop-exchange-descr-same-price-variant-allow",
            ],
        ),
        (
            "it-access",
            "round34a",
            &[
                "r34a-it-grant-system-is-descriptor-block",
                "r34a-it-grant-replica-source-is-descriptor-block",
            ],
            &[
                "r34a-it-grant-descr-next-to-other-system-allow",
                "r34a-it-grant-descr-replica-of-allow",
            ],
        ),
        (
            "insurance",
            "round35",
            &[],
            &[
                "withdraw-markdown-bold-allow",
                "deductible-oneliner-allow",
                "driver-numbered-list-allow",
                "cancel-home-table-allow",
                "payout-thats-right-allow",
                "deductible-by-address-allow",
                "withdraw-plain-question-allow",
                "cancel-by-plate-allow",
                "driver-bold-details-allow",
                "payout-corrected-no-allow",
            ],
        ),
        (
            "bundles/retail",
            "round35r",
            &[],
            &[
                "r35-cancel-kettle-by-description-allow",
                "r35-return-shoes-numbered-confirmed-emoji-allow",
                "r35-exchange-process-synonym-allow",
                "r35-modify-items-table-put-through-allow",
                "r35-modify-payment-context-other-order-allow",
                "r35-payment-two-orders-yes-covers-this-one-allow",
                "r35-cancel-reasked-after-interjection-allow",
                "r35-user-address-terse-allow",
                "r35-cancel-long-friendly-yes-with-totals-allow",
            ],
        ),
        (
            "bundles/airline",
            "round35r",
            &[],
            &[
                "a35-cancel-chicago-flight-thumbs-allow",
                "a35-cancel-terse-do-it-allow",
                "a35-bags-gold-numbered-allow",
                "a35-bags-table-gift-card-allow",
                "a35-cabin-upgrade-business-allow",
                "a35-cabin-basic-to-economy-allow",
                "a35-flight-change-put-through-allow",
                "a35-cancel-insured-health-context-allow",
            ],
        ),
        (
            "bundles/telecom",
            "round35r",
            &[],
            &[
                "t35-refuel-markdown-yep-allow",
                "t35-refuel-numbered-long-friendly-yes-allow",
                "t35-two-lines-yes-covers-son-allow",
                "t35-roaming-enable-abroad-allow",
                "t35-refuel-context-other-line-do-it-allow",
            ],
        ),
        (
            "library",
            "round35b",
            &[],
            &[
                "renew-it-for-her-allow",
                "card-and-not-my-other-hold-allow",
                "renew-piranesi-dune-stays-allow",
                "renew-piranesi-then-dune-that-stays-block",
                "renew-plus-email-offer-yes-to-renewal-allow",
            ],
        ),
        (
            "rental",
            "round35b",
            &["booking-not-mine-cancel-block"],
            &[
                "yes-add-him-allow",
                "id-and-not-my-phoenix-extend-allow",
                "waive-per-hour-total-matches-allow",
                "extend-per-day-date-matches-allow",
            ],
        ),
        (
            "hotel",
            "round35b",
            &["stay-not-mine-colleagues-dates-block"],
            &[
                "yes-refund-me-allow",
                "yes-switch-her-over-allow",
                "id-and-not-my-porto-breakfast-allow",
                "parking-per-night-total-refund-allow",
                "cancel-porto-lisbon-unaffected-allow",
                "cancel-porto-lisbon-unaffected-then-lisbon-block",
            ],
        ),
        (
            "grocery",
            "round35b",
            &[
                "refund-to-card-not-mine-block",
                "remove-bread-and-yogurt-that-stays-block",
            ],
            &[
                "yes-refund-me-allow",
                "id-and-card-not-my-gift-card-allow",
                "remove-bread-yogurt-stays-allow",
                "remove-plus-text-offer-yes-to-both-allow",
            ],
        ),
        (
            "bank-card",
            "round35b",
            &["raise-card-not-mine-husbands-block"],
            &[
                "unfreeze-it-for-her-allow",
                "name-dob-and-not-my-credit-freeze-allow",
                "id-digits-and-not-my-debit-raise-allow",
                "raise-plus-text-offer-yes-to-raise-allow",
            ],
        ),
        (
            "utility",
            "round36",
            &[],
            &[
                "u01-stop-shall-i-yep-allow",
                "u02-plan-would-you-like-yes-please-allow",
                "u03-autopay-please-confirm-sounds-good-allow",
                "u04-dispute-ready-to-proceed-allow",
                "u05-start-numbered-plan-ok-to-go-ahead-allow",
                "u06-stop-is-that-correct-thats-right-allow",
                "u07-autopay-bank-would-you-like-yes-enrol-it-allow",
                "u08-plan-3-instalments-shall-i-sure-allow",
                "u09-start-gas-do-you-want-me-yes-please-do-allow",
                "u10-dispute-misread-yep-dispute-it-allow",
                "u11-stop-json-summary-go-for-it-allow",
                "u12-plan-yes-then-harmless-question-allow",
            ],
        ),
        (
            "bundles/retail",
            "round36r",
            &[],
            &[
                "cancel-table-verbose-yes-allow",
                "order-address-numbered-yup-allow",
                "payment-paypal-correct-proceed-allow",
                "modify-item-by-name-giftcard-allow",
                "return-yes-smalltalk-allow",
                "exchange-json-go-for-it-allow",
                "user-address-terse-allow",
                "return-to-giftcard-by-name-allow",
                "cancel-say-the-word-allow",
                "name-zip-order-address-allow",
            ],
        ),
        (
            "bundles/airline",
            "round36r",
            &["passenger-wrong-one-replaced-block"],
            &[
                "bags-gold-free-allow",
                "cabin-upgrade-ready-correct-allow",
                "cancel-24h-verbose-allow",
                "cancel-business-go-for-it-allow",
                "cancel-insured-health-allow",
                "passenger-swap-names-allow",
                "book-oneway-reply-yes-allow",
                "change-outbound-yup-allow",
                "compensation-cancelled-silver-allow",
                "bags-regular-paid-json-allow",
            ],
        ),
        (
            "bundles/telecom",
            "round36r",
            &["refuel-amount-differs-block"],
            &[
                "refuel-2gb-yes-allow",
                "refuel-json-correct-allow",
                "refuel-name-dob-restated-allow",
                "roaming-portugal-allow",
                "roaming-mexico-name-allow",
                "payment-request-overdue-allow",
                "resume-all-paid-allow",
                "refuel-reply-yes-smalltalk-allow",
                "payment-request-turner-allow",
            ],
        ),
        (
            "pharmacy",
            "round36m",
            &[],
            &[
                "refill-markdown-table-confirm-allow",
                "transfer-numbered-plan-affirmative-allow",
                "cancel-terse-yn-allow",
                "refill-details-over-two-messages-allow",
                "plan-step-two-not-agreed-block",
            ],
        ),
        (
            "parcel",
            "round36m",
            &[],
            &[
                "hold-numbered-plan-y-allow",
                "cancel-terse-yn-thats-the-one-allow",
                "claim-details-over-two-messages-last-digits-allow",
            ],
        ),
        (
            "it-access",
            "round36m",
            &[],
            &[
                "grant-markdown-table-confirm-allow",
                "grant-numbered-plan-affirmative-allow",
                "grant-terse-yn-allow",
                "grant-details-over-two-messages-by-name-allow",
            ],
        ),
        (
            "rental",
            "round36m",
            &[],
            &[
                "waive-numbered-plan-affirmative-allow",
                "cancel-terse-yn-allow",
                "add-driver-over-two-messages-by-city-allow",
            ],
        ),
        (
            "shop",
            "round36m",
            &["cancel-reason-differs-from-table-block"],
            &[
                "cancel-markdown-table-confirm-allow",
                "pay-numbered-plan-affirmative-allow",
                "refuel-terse-yn-allow",
                "exchange-over-two-messages-last-digits-allow",
                "plan-two-cancels-only-first-agreed-block",
            ],
        ),
        (
            "insurance",
            "round36c",
            &[],
            &["b3-statement-then-send-through-yes-allow"],
        ),
        (
            "hotel",
            "round36c",
            &[],
            &[
                "a4-plan-yes-to-both-cancel-allow",
                "a4-plan-yes-to-both-cancel-allow#16",
                "b3-statement-then-put-through-yes-allow",
            ],
        ),
        (
            "grocery",
            "round36c",
            &[],
            &[
                "a4-plan-yes-to-both-allow",
                "b3-statement-then-send-through-yes-allow",
                "c1-glued-2kg-allow",
            ],
        ),
        (
            "library",
            "round36c",
            &[],
            &[
                "a1-plan-only-first-second-performed-block",
                "a2-plan-by-title-klara-allow",
                "a4-plan-yes-to-both-allow",
                "a4-plan-yes-to-both-allow#8",
                "b3-statement-then-send-through-yes-allow",
                "c1-glued-1copy-allow",
            ],
        ),
        (
            "bank-card",
            "round36c",
            &[],
            &[
                "a4-plan-yes-to-both-allow",
                "b3-statement-then-put-through-yes-allow",
                "c1-glued-2days-reason-allow",
            ],
        ),
        (
            "utility",
            "round37p",
            &[],
            &[
                "plan-yes-autopay-hold-off-allow",
                "stop-first-thanks-start-unpicked-block",
            ],
        ),
        (
            "hotel",
            "round37p",
            &[],
            &[
                "refund-minibar-leave-parking-allow",
                "room-second-dates-kept-block",
            ],
        ),
        (
            "grocery",
            "round37p",
            &[],
            &["refund-by-id-milk-still-used-allow"],
        ),
        (
            "bank-card",
            "round37p",
            &[],
            &["unfreeze-1195-remark-3302-unpicked-block"],
        ),
        (
            "pharmacy",
            "round37p",
            &["refill-the-30-tablets-one-confirm"],
            &["refill-atorvastatin-lisinopril-next-month-allow"],
        ),
        (
            "bundles/retail",
            "round37r",
            &[],
            &[
                "retail-cancel-two-pick-second-by-place-allow",
                "retail-return-pick-item-by-name-allow",
                "retail-address-two-orders-pick-by-id-allow",
                "retail-address-deferred-order-changed-block",
                "retail-yes-mastercard-remains-address-only-allow",
                "retail-yes-jacket-left-unchanged-tshirt-only-allow",
                "retail-exchange-table-yn-y-allow",
                "retail-numbered-plan-yes-to-both-allow",
                "retail-numbered-plan-yes-to-both-allow#11",
            ],
        ),
        (
            "bundles/airline",
            "round37r",
            &[],
            &[
                "airline-bags-table-yn-y-allow",
                "airline-numbered-plan-yes-to-both-allow",
                "airline-numbered-plan-yes-to-both-allow#15",
            ],
        ),
        (
            "bundles/telecom",
            "round37r",
            &[
                "telecom-roaming-held-back-line-enabled-block#13",
                "telecom-yes-line-should-remain-suspended-resumed-block#15",
            ],
            &[
                "telecom-roaming-two-lines-pick-first-allow",
                "telecom-roaming-held-back-line-enabled-block",
                "telecom-go-ahead-other-line-remains-refuel-allow",
                "telecom-yes-line-should-remain-suspended-resumed-block",
                "telecom-yes-other-line-left-roaming-allow",
                "telecom-refuel-table-yn-y-allow",
                "telecom-numbered-plan-yes-to-both-allow",
                "telecom-numbered-plan-yes-to-both-allow#13",
            ],
        ),
        (
            "bundles/retail",
            "round38x",
            &[],
            &[
                "r38x-ctl-cancel-pending-allow",
                "r38x-ctl-return-namezip-allow",
                "r38x-ctl-exchange-size-allow",
                "r38x-ctl-payment-giftcard-covered-allow",
                "r38x-ctl-modify-items-allow",
                "r38x-ctl-order-address-allow",
                "r38x-ctl-user-address-allow",
                "r38x-ctl-two-requests-userid-offered-allow",
                "r38x-ctl-two-requests-userid-offered-allow#17",
                "r38x-order-second-item-modification-block",
                "r38x-order-one-yes-two-cancels-block",
            ],
        ),
        (
            "bundles/airline",
            "round38x",
            &[],
            &[
                "a38x-ctl-cancel-within-24h-allow",
                "a38x-ctl-cancel-business-allow",
                "a38x-ctl-bags-gold-within-allowance-allow",
                "a38x-ctl-cabin-upgrade-allow",
                "a38x-ctl-change-flight-date-allow",
                "a38x-ctl-book-one-way-allow",
                "a38x-ctl-comp-cancelled-silver-allow",
                "a38x-ctl-passenger-swap-allow",
            ],
        ),
        (
            "bundles/telecom",
            "round38y",
            &[],
            &[
                "tel-roaming-by-phone-allow",
                "tel-roaming-by-name-dob-allow",
                "tel-refuel-1gb-allow",
                "tel-refuel-2gb-boundary-allow",
                "tel-payment-overdue-full-read-allow",
                "tel-payment-limit-covers-all-allow",
                "tel-resume-all-paid-allow",
                "tel-roaming-own-second-line-allow",
                "tel-roaming-id-reused-after-answer-allow",
                "tel-refuel-twice-one-yes-block",
            ],
        ),
        (
            "bank-card",
            "round38y",
            &[],
            &[
                "bank-freeze-lost-allow",
                "bank-freeze-suspicious-by-name-allow",
                "bank-unfreeze-lost-found-allow",
                "bank-dispute-in-window-allow",
                "bank-dispute-day-60-allow",
                "bank-raise-double-allow",
                "bank-raise-to-cap-allow",
                "bank-freeze-id-reused-after-answer-allow",
                "bank-dispute-twice-one-yes-block",
            ],
        ),
        (
            "rental",
            "round38c",
            &[],
            &[
                "clarifying-question-answered-reask-yes-extend-allow",
                "yes-then-thanks-and-unrelated-question-change-class-allow",
                "one-summary-two-actions-one-yes-extend-and-add-driver-allow#11",
                "long-gap-then-reask-yes-cancel-allow",
            ],
        ),
        (
            "insurance",
            "round38c",
            &[],
            &[
                "agent-corrects-refund-method-reasks-yes-cancel-allow",
                "one-summary-two-changes-one-yes-deductible-and-driver-allow#11",
                "long-gap-then-reask-yes-withdraw-allow",
                "one-yes-two-calls-second-deductible-unproposed-block",
            ],
        ),
        (
            "it-desk",
            "round38c",
            &[],
            &[
                "clarifying-question-answered-reask-yes-wipe-allow",
                "agent-corrects-role-reasks-yes-grant-allow",
                "one-yes-two-calls-second-revoke-unproposed-block",
                "long-gap-then-reask-yes-reset-allow",
            ],
        ),
        (
            "parcel",
            "round38c",
            &[],
            &[
                "clarifying-question-answered-reask-yes-cancel-allow",
                "yes-then-thanks-unrelated-question-hold-allow",
                "agent-corrects-speed-reasks-yes-speed-allow",
                "one-yes-two-calls-second-parcel-unproposed-speed-block",
                "long-gap-then-reask-yes-claim-allow",
            ],
        ),
        (
            "hotel",
            "round38v",
            &[],
            &[
                "room-from-standard-to-deluxe-allow",
                "room-statement-family-then-go-ahead-allow",
                "room-bullets-new-suite-allow",
                "cancel-reason-in-question-others-after-allow",
            ],
        ),
        (
            "insurance",
            "round38v",
            &[],
            &[
                "deductible-options-then-1000-allow",
                "withdraw-reasons-listed-resolved-privately-allow",
                "payout-statement-card-4242-then-go-ahead-allow",
                "cancel-bullets-refund-card-4242-allow",
            ],
        ),
        (
            "utility",
            "round38v",
            &[],
            &[
                "dispute-reason-in-question-others-after-allow",
                "autopay-statement-bank-7781-then-go-ahead-allow",
                "start-bullets-electricity-previous-dual-allow",
            ],
        ),
        (
            "bundles/airline",
            "round38v",
            &["cabin-from-to-call-carries-current-economy-block"],
            &[
                "cabin-prices-listed-then-business-allow",
                "cabin-from-economy-to-business-allow",
                "cabin-statement-economy-then-go-ahead-allow",
                "cabin-bullets-new-economy-allow",
            ],
        ),
        (
            "rental",
            "round38w",
            &[],
            &[
                "bullets-new-suv-alternatives-listed-allow",
                "table-current-new-columns-full-size-allow",
                "unlabelled-switching-to-minivan-was-economy-allow",
                "json-current-new-class-suv-note-premium-allow",
            ],
        ),
        (
            "hotel",
            "round38w",
            &[],
            &[
                "room-key-value-new-suite-family-comparison-allow",
                "cancel-bullets-reason-travel-disruption-allow",
                "cancel-json-reason-change-of-plans-allow",
            ],
        ),
        (
            "bundles/airline",
            "round38w",
            &["json-new-cabin-business-call-current-economy-block"],
            &[
                "bullets-new-cabin-business-basic-comparison-allow",
                "table-current-new-basic-economy-to-economy-allow",
                "json-current-new-cabin-economy-allow",
                "key-value-from-economy-to-business-allow",
            ],
        ),
        (
            "bundles/retail",
            "round38w",
            &[],
            &[
                "bullets-reason-no-longer-needed-allow",
                "table-reason-ordered-by-mistake-allow",
                "key-value-reason-ordered-by-mistake-chosen-allow",
                "json-reason-ordered-by-mistake-was-no-longer-needed-allow",
            ],
        ),
        (
            "bundles/retail",
            "round39r",
            &[],
            &[
                "r39-cancel-correct-go-ahead-allow",
                "r39-modify-items-yep-do-it-followup-allow",
                "r39-return-sounds-right-proceed-allow",
                "r39-exchange-correct-go-ahead-thanks-allow",
            ],
        ),
        (
            "bundles/airline",
            "round39r",
            &[
                "a39-passenger-dob-swapped-block",
                "a39-passenger-replaces-other-traveller-block",
                "a39-change-flight-other-date-block",
                "a39-book-companion-other-dob-block",
            ],
            &[
                "a39-cancel-24h-yep-do-it-allow",
                "a39-baggage-sounds-right-allow",
                "a39-book-yes-please-thanks-allow",
            ],
        ),
        (
            "bundles/telecom",
            "round39r",
            &[
                "t39-refuel-other-line-same-plan-block",
                "t39-refuel-misquoted-price-block",
            ],
            &[
                "t39-refuel-2gb-yep-allow",
                "t39-refuel-1gb-sounds-right-allow",
                "t39-roaming-travel-yes-please-allow",
            ],
        ),
        (
            "bundles/retail",
            "round40d",
            &["r40r-order-address-apartment-dropped-block"],
            &[
                "r40r-order-address-multiline-bullets-allow",
                "r40r-order-address-one-line-allow",
                "r40r-user-address-bold-labels-allow",
                "r40r-user-address-no-apt-country-omitted-allow",
                "r40r-modify-items-table-giftcard-balance-allow",
                "r40r-modify-items-prose-card-refund-allow",
                "r40r-exchange-bullets-visa-ending-in-allow",
                "r40r-return-prose-paypal-original-allow",
                "r40r-return-both-items-giftcard-id-allow",
                "r40r-modify-payment-mastercard-ending-allow",
            ],
        ),
        (
            "bundles/airline",
            "round40d",
            &[
                "r40a-pax-dob-month-day-swapped-block",
                "r40a-pax-last-name-other-than-confirmed-block",
            ],
            &[
                "r40a-pax-dob-long-date-bullets-allow",
                "r40a-pax-name-table-slash-dates-allow",
                "r40a-book-bold-labels-visa-1234-allow",
                "r40a-book-prose-certificate-plus-giftcard-allow",
                "r40a-book-table-slash-dob-certificate-id-allow",
                "r40a-flights-keep-outbound-table-card-5120-allow",
                "r40a-flights-prose-giftcard-balance-allow",
                "r40a-bags-bullets-mastercard-6621-allow",
                "r40a-bags-prose-giftcard-allow",
            ],
        ),
        (
            "tickets",
            "round41n",
            &[],
            &[
                "bullets-visa-4417-only-allow",
                "prose-giftcard-40-visa-rest-allow",
                "table-seats-a12-a13-allow",
                "prose-transfer-tk90311-to-maya-allow",
                "bullets-refund-to-visa-allow",
                "table-split-gc71002-visa-allow",
                "bullets-seat-arrows-a13-allow",
                "json-visa-4417-allow",
                "bold-transfer-two-tickets-allow",
                "prose-seat-holder-pairs-allow",
                "numbered-split-amounts-allow",
                "bullets-transfer-other-stays-allow",
                "table-refund-to-giftcard-allow",
                "giftcard-zero-balance-not-used-allow",
                "declined-giftcard-visa-only-allow",
                "seats-by-id-allow",
            ],
        ),
        (
            "rental",
            "round41r",
            &[],
            &[
                "self-cancel-denver-allow",
                "self-extend-phoenix-allow",
                "self-class-denver-suv-allow",
                "self-driver-chicago-allow",
                "self-waive-austin-allow",
                "self-cancel-seattle-allow",
                "self-extend-denver-allow",
            ],
        ),
        (
            "pharmacy",
            "round41r",
            &[],
            &[
                "self-refill-atorvastatin-allow",
                "self-transfer-metformin-allow",
                "self-cancel-sertraline-allow",
                "self-refill-levothyroxine-allow",
                "self-cancel-lisinopril-allow",
                "self-transfer-sertraline-allow",
            ],
        ),
        (
            "bundles/retail",
            "round42r",
            &[],
            &[
                "r42r-payment-two-options-picks-paypal-allow",
                "r42r-cancel-say-the-word-phrasing-allow",
                "r42r-exchange-yes-wife-thrilled-allow",
                "r42r-cancel-yes-after-refund-question-answered-allow",
                "r42r-return-markdown-table-thumbs-yes-allow",
                "r42r-cancel-confirmed-then-other-order-status-allow",
                "r42r-items-numbered-list-lowercase-typos-allow",
                "r42r-user-address-json-block-affirmative-allow",
            ],
        ),
        (
            "bundles/airline",
            "round42r",
            &[],
            &[
                "r42a-baggage-two-options-picks-add-bag-allow",
                "r42a-book-markdown-table-yes-correct-thanks-allow",
                "r42a-passengers-json-block-do-it-allow",
                "r42a-baggage-numbered-list-that-works-proceed-allow",
                "r42a-flight-change-later-same-day-go-for-it-allow",
            ],
        ),
        (
            "bundles/telecom",
            "round42r",
            &["r42t-refuel-confirmed-own-line-called-sons-line-block"],
            &[
                "r42t-refuel-yes-with-bus-station-chatter-allow",
                "r42t-refuel-line-named-by-number-matches-allow",
                "r42t-refuel-markdown-table-lowercase-thumbs-allow",
                "r42t-refuel-numbered-list-sure-thing-allow",
            ],
        ),
        (
            "vet",
            "round42n",
            &[],
            &[
                "vet42n-01-book-visa-last4-allow",
                "vet42n-03-book-table-dental-allow",
                "vet42n-05-book-wallet-terse-y-allow",
                "vet42n-09-book-vaccination-rabbit-allow",
                "vet42n-11-book-pause-then-yes-allow",
                "vet42n-13-book-corrected-then-resummarised-allow",
                "vet42n-17-group-bullets-allow",
                "vet42n-19-group-three-numbered-allow",
                "vet42n-21-reschedule-allow",
                "vet42n-24-reschedule-name-time-allow",
                "vet42n-25-cancel-recovered-allow",
                "vet42n-30-refill-courier-amex-allow",
                "vet42n-33-refill-wallet-pickup-allow",
                "vet42n-35-refill-yes-with-question-allow",
            ],
        ),
        (
            "venue",
            "round42y",
            &[],
            &[
                "hv-labelled-lines-allow",
                "hv-prose-with-without-allow",
                "hv-included-not-needed-allow",
                "hv-markdown-table-allow",
                "hv-no-extra-fees-allow",
                "hv-opens-yes-i-can-allow",
                "hv-reply-yes-to-confirm-allow",
                "hv-card-last-four-yesno-allow",
                "hv-no-problem-restated-allow",
                "hv-no-smoking-house-rules-allow",
            ],
        ),
        (
            "hotel",
            "round42o",
            &[],
            &[
                "h01-cancel-option1-pick-allow",
                "h03-room-optionA-goahead-allow",
            ],
        ),
        (
            "insurance",
            "round42o",
            &[],
            &[
                "i01-withdraw-option1-digit-allow",
                "i03-payout-optionA-switch-allow",
                "i05-deductible-second-letter-b-allow",
            ],
        ),
        (
            "grocery",
            "round43p",
            &[],
            &[
                "gro43p-01-numbered-arrows-three-allow",
                "gro43p-04-table-call-reordered-allow",
                "gro43p-06-bullets-shared-replacement-allow",
                "gro43p-08-respectively-allow",
                "gro43p-10-out-line-in-line-allow",
                "gro43p-12-unicode-arrows-call-permuted-allow",
            ],
        ),
        (
            "tickets",
            "round43p",
            &[],
            &[
                "tix43p-01-for-and-for-shared-surname-allow",
                "tix43p-03-payment-sentence-call-reordered-allow",
                "tix43p-05-table-same-amount-two-methods-allow",
                "tix43p-09-numbered-unicode-arrows-allow",
                "tix43p-11-respectively-call-reordered-allow",
                "tix43p-13-tickets-line-holders-line-allow",
            ],
        ),
        (
            "vet",
            "round43p",
            &[],
            &["vet43p-05-table-shared-service-allow"],
        ),
        ("vet", "round44o", &[], &["vet44o-07-no-respectively-allow"]),
        (
            "bundles/airline",
            "round44o",
            &[],
            &[
                "air44o-01-passengers-respectively-allow",
                "air44o-03-passengers-three-two-lines-allow",
                "air44o-06-passenger-single-allow",
                "air44o-07-payment-respectively-allow",
                "air44o-10-payment-three-two-lines-call-reordered-allow",
            ],
        ),
    ];
    for (domain, file, leaks, allowed) in suites {
        // A shipped bundle's red-team suites live apart from its own tests.
        let (bundle, suite) = match domain.strip_prefix("bundles/") {
            Some(shipped) => (
                root().join(domain),
                root().join("engine/tests/redteam").join(shipped),
            ),
            None => {
                let bundle = root().join("engine/tests/fixtures").join(domain);
                let suite = bundle.join("blind");
                (bundle, suite)
            }
        };
        let rows = verdicts(&bundle, &suite.join(format!("{file}.jsonl")));
        let mut leaked: Vec<&str> = Vec::new();
        let mut taken: Vec<&str> = Vec::new();
        for (name, expected, observed) in &rows {
            // A shipped test may expect the step too: "allow at renew.authorize".
            let expected = expected.split_whitespace().next().unwrap_or_default();
            match (expected, observed.as_str()) {
                ("allow", "allow") => taken.push(name),
                (_, "allow") => leaked.push(name),
                _ => {}
            }
        }
        assert_eq!(
            leaked, leaks,
            "{domain}: conversations to stop that were allowed"
        );
        assert_eq!(taken, allowed, "{domain}: controls allowed");
    }
}
