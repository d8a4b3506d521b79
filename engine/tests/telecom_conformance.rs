//! Conformance of the telecom bundle with tau2-bench: every base task's gold
//! actions (agent-side and user-side, `requestor` tells which) turned into a
//! compliant conversation must pass - every gold agent write allowed, no
//! `deviate` - and deviations injected into those conversations must be
//! reported with the expected reason: a diagnosis skipped, a fix before its
//! diagnosis, the re-verification skipped (`deviate`); a non-overdue bill
//! paid, 3 GB refueled, a line resumed with an unpaid bill, the
//! confirmation dropped, roaming enabled on a roaming line, a refuel summary
//! without the price, roaming for a user who never said they travel, a line
//! whose number the user never gave, a payment request nobody asked for, a
//! line whose contract has ended, a line resumed while the SIM reads locked
//! (`block`). Each gold agent write is also run solo (no user: the agent is
//! given a ticket and calls every tool itself), allowed when the ticket
//! permits it and blocked when it does not (no refuel in the ticket, another
//! amount, the user at home, no suspension to lift).
//!
//! The device is simulated from the task's fixes: before each gold fix the
//! user runs the diagnosis the manual names for it, which reports the fault
//! the fix repairs (`DEVICE`). Each gold agent write is its own conversation
//! through its account procedure (identify, request, reads, dialogue,
//! write). Prints the figures quoted in `bundles/README.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::{Control, Side};
use turnstile_engine::session::{BundleRuntime, EventReport, GateVerdict, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;
use turnstile_rules::Reason;

const BAR_OK: &str = "Status Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%";

/// Per gold user-side fix: the diagnosis the user runs first (tool, its
/// arguments, the fault it reports) and what the fix reports.
fn device(fix: &str, args: &Json) -> Option<(&'static str, Json, String, String)> {
    let after = |head: &str| format!("{head}\n{BAR_OK}");
    Some(match fix {
        "toggle_airplane_mode" => (
            "check_status_bar",
            json!({}),
            "Status Bar: ✈️ Airplane Mode | 🔋 80%".into(),
            after("Airplane Mode is now OFF."),
        ),
        "reseat_sim_card" => (
            "check_sim_status",
            json!({}),
            "No SIM card detected in the phone.".into(),
            after("SIM card re-seated successfully."),
        ),
        "toggle_data" => (
            "check_network_status",
            json!({}),
            "Airplane Mode: OFF\nSIM Card Status: active\nCellular Connection: connected\nCellular Signal: excellent\nCellular Network Type: 5G\nMobile Data Enabled: No\nData Roaming Enabled: No".into(),
            after("Mobile Data is now ON."),
        ),
        "toggle_roaming" => (
            "check_network_status",
            json!({}),
            "Airplane Mode: OFF\nSIM Card Status: active\nCellular Connection: connected\nCellular Signal: excellent\nCellular Network Type: 5G\nMobile Data Enabled: Yes\nData Roaming Enabled: No".into(),
            after("Data Roaming is now ON."),
        ),
        "toggle_data_saver_mode" => (
            "check_data_restriction_status",
            json!({}),
            "Data Saver mode is ON (limits data usage).".into(),
            after("Data Saver Mode is now OFF."),
        ),
        "set_network_mode_preference" => (
            "check_network_mode_preference",
            json!({}),
            "Network Mode Preference: 2g_only".into(),
            after(&format!(
                "Preferred Network Mode set to: {}",
                args["mode"].as_str().unwrap_or("4g_5g_preferred")
            )),
        ),
        "reset_apn_settings" => (
            "check_apn_settings",
            json!({}),
            "Current APN Name: broken\nMMSC URL (for picture messages): Not Set".into(),
            after("APN settings will reset at reboot."),
        ),
        "toggle_wifi_calling" => (
            "check_wifi_calling_status",
            json!({}),
            "Wi-Fi Calling is currently turned ON.".into(),
            after("Wi-Fi Calling is now OFF."),
        ),
        "disconnect_vpn" => (
            "check_vpn_status",
            json!({}),
            "VPN is ON and connected. Details: {'server_performance': <PerformanceLevel.POOR: 'poor'>}".into(),
            after("VPN disconnected successfully."),
        ),
        "grant_app_permission" => (
            "check_app_permissions",
            json!({"app_name": "messaging"}),
            "App 'messaging' has permission for: phone.".into(),
            after(&format!(
                "Success. Permission '{}' granted to app 'messaging'.",
                args["permission"].as_str().unwrap_or("storage")
            )),
        ),
        _ => return None,
    })
}

struct Convo {
    events: Vec<Event>,
    next_id: usize,
}

impl Convo {
    fn new() -> Self {
        let mut c = Convo {
            events: Vec::new(),
            next_id: 0,
        };
        c.agent("Hi! How can I help you today?");
        c
    }

    fn id(&mut self) -> String {
        self.next_id += 1;
        format!("c{}", self.next_id)
    }

    fn agent(&mut self, text: &str) {
        self.events.push(Event::Agent { text: text.into() });
    }

    fn user(&mut self, text: &str) {
        self.events.push(Event::User { text: text.into() });
    }

    fn call(&mut self, tool: &str, args: Json, side: Side, result: Json) -> usize {
        let id = self.id();
        self.events.push(Event::Call {
            id: id.clone(),
            tool: tool.into(),
            args,
            requestor: side,
        });
        let at = self.events.len() - 1;
        self.events.push(Event::Result {
            id,
            ok: true,
            content: result,
        });
        at
    }

    fn identify(&mut self, request: &str) {
        self.user(request);
        self.agent("Could you give me the phone number of your account?");
        self.user("It is 555-123-2002.");
        self.lookup_customer();
    }

    /// The agent looks the customer up by the phone number 555-123-2002.
    fn lookup_customer(&mut self) {
        self.call(
            "get_customer_by_phone",
            json!({"phone_number": "555-123-2002"}),
            Side::Agent,
            json!({"customer_id": "C1001", "phone_number": "555-123-2002", "account_status": "Active",
                   "line_ids": ["L1001", "L1002", "L1003"], "bill_ids": ["B1001", "B1002", "B1003", "B1234321"]}),
        );
    }

    /// The agent reads the line's plan: $2.50 per GB, so that a price
    /// named is not the amount (2 GB).
    fn read_plan(&mut self) {
        self.call(
            "get_details_by_id",
            json!({"id": "P1002"}),
            Side::Agent,
            json!({"plan_id": "P1002", "name": "Premium Plan", "data_limit_gb": 15.0,
                   "price_per_month": 65.0, "data_refueling_price_per_gb": 2.5}),
        );
    }

    fn refuel(&mut self, args: Json) -> usize {
        self.call(
            "refuel_data",
            args,
            Side::Agent,
            json!({"message": "ok", "new_data_refueling_gb": "2.0", "charge": "5.0"}),
        )
    }

    fn enable_roaming(&mut self, args: &Json) -> usize {
        self.call(
            "enable_roaming",
            args.clone(),
            Side::Agent,
            json!("Roaming enabled successfully"),
        )
    }

    fn read_bills(&mut self, status: &str) {
        self.call(
            "get_bills_for_customer",
            json!({"customer_id": "C1001"}),
            Side::Agent,
            bills(status),
        );
    }

    fn request_payment(&mut self, args: &Json) -> usize {
        self.call(
            "send_payment_request",
            args.clone(),
            Side::Agent,
            json!("Payment request sent to the customer for bill B1234321"),
        )
    }

    /// The payment request checked, by `side` (the user, or the solo agent).
    fn check_request(&mut self, side: Side) {
        self.call(
            "check_payment_request",
            json!({}),
            side,
            json!("You have a payment request for bill B1234321 of 65.0 USD."),
        );
    }

    /// The payment made, by `side`.
    fn pay(&mut self, side: Side) {
        self.call(
            "make_payment",
            json!({}),
            side,
            json!("Payment of 65.0 USD has been made for bill B1234321."),
        );
    }

    fn resume(&mut self, args: &Json, line_id: &str) -> usize {
        self.call(
            "resume_line",
            args.clone(),
            Side::Agent,
            json!({"message": "Line resumed successfully", "line": line(line_id, "Active", false)}),
        )
    }
}

/// The overdue bill's payment request.
fn overdue_bill() -> Json {
    json!({"customer_id": "C1001", "bill_id": "B1234321"})
}

fn line(id: &str, status: &str, roaming: bool) -> Json {
    json!({"line_id": id, "phone_number": "555-123-2002", "status": status, "plan_id": "P1002",
           "roaming_enabled": roaming, "contract_end_date": "2026-12-31",
           "data_used_gb": 15.1, "data_refueling_gb": 0.0})
}

/// The line as `variant` reads it: another number than the one the user
/// gave (`other_line`), or a contract that has ended (`contract_ended`).
fn line_as(id: &str, status: &str, roaming: bool, variant: &str) -> Json {
    let mut read = line(id, status, roaming);
    match variant {
        "other_line" => read["phone_number"] = json!("555-123-2001"),
        "contract_ended" => read["contract_end_date"] = json!("2025-01-31"),
        _ => {}
    }
    read
}

fn bills(status: &str) -> Json {
    json!([
        {"bill_id": "B1002", "customer_id": "C1001", "total_due": 150.0, "status": "Paid"},
        {"bill_id": "B1234321", "customer_id": "C1001", "total_due": 65.0, "status": status}
    ])
}

/// Which parts of a device conversation to leave out or reorder.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DeviceVariant {
    Gold,
    /// Fix number `n` without its diagnosis.
    SkipDiagnosis(usize),
    /// Fix number `n` instructed before its diagnosis.
    FixFirst(usize),
    /// No re-check before "resolved".
    SkipReverify,
}

/// The gold user-side fixes as a conversation.
fn device_conversation(
    fixes: &[(String, Json)],
    variant: DeviceVariant,
) -> (Vec<Event>, Option<usize>) {
    let mut c = Convo::new();
    c.identify("My phone has a problem, can you help me?");
    let mut marked = None;
    for (n, (fix, args)) in fixes.iter().enumerate() {
        let Some((diag, diag_args, fault, fixed)) = device(fix, args) else {
            // reboot_device (after an APN reset) has no diagnosis of its own.
            c.agent(&format!("Please {}.", fix.replace('_', " ")));
            c.call(
                fix,
                args.clone(),
                Side::User,
                Json::String(format!("Restarting network services...\n{BAR_OK}")),
            );
            continue;
        };
        let diagnose = |c: &mut Convo| {
            c.agent(&format!(
                "Please run {} on your phone.",
                diag.replace('_', " ")
            ));
            c.call(
                diag,
                diag_args.clone(),
                Side::User,
                Json::String(fault.clone()),
            );
            c.user("Done, that is what it shows.");
        };
        let instruct = |c: &mut Convo| {
            c.agent(&format!("Thanks. Please now {}.", fix.replace('_', " ")));
            let at = c.events.len() - 1;
            c.call(fix, args.clone(), Side::User, Json::String(fixed.clone()));
            c.user("Done.");
            at
        };
        match variant {
            DeviceVariant::SkipDiagnosis(k) if k == n => marked = Some(instruct(&mut c)),
            DeviceVariant::FixFirst(k) if k == n => {
                marked = Some(instruct(&mut c));
                diagnose(&mut c);
            }
            _ => {
                diagnose(&mut c);
                instruct(&mut c);
            }
        }
    }
    if variant != DeviceVariant::SkipReverify {
        c.agent("Please run a speed test to check.");
        c.call(
            "run_speed_test",
            json!({}),
            Side::User,
            Json::String(
                "Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast.".into(),
            ),
        );
        c.user("It is excellent now.");
    }
    c.agent("Great, your issue is now resolved!");
    if variant == DeviceVariant::SkipReverify {
        marked = Some(c.events.len() - 1);
    }
    (c.events, marked)
}

/// An account write's conversation; `variant` injects a deviation.
fn write_conversation(tool: &str, args: &Json, variant: &str) -> (Vec<Event>, usize) {
    let mut c = Convo::new();
    let line_id = args["line_id"].as_str().unwrap_or("L1002").to_owned();
    let at = match tool {
        "refuel_data" => {
            c.identify("I want to refuel data on my line, I need more data.");
            c.call(
                "get_details_by_id",
                json!({"id": line_id}),
                Side::Agent,
                line_as(&line_id, "Active", false, variant),
            );
            c.read_plan();
            c.agent("How much data would you like to refuel?");
            c.user("2 GB please.");
            if variant == "no_price" {
                c.agent(&format!(
                    "Shall I go ahead and add 2 GB of data to line {line_id}?"
                ));
            } else {
                c.agent(&format!(
                    "Refueling 2 GB of data on line {line_id} costs $5.00 at $2.50 per GB. Shall I go ahead?"
                ));
            }
            if variant != "drop_confirmation" {
                c.user("Yes, please go ahead.");
            }
            let mut args = args.clone();
            if variant == "refuel_3gb" {
                args["gb_amount"] = json!(3.0);
            }
            c.refuel(args)
        }
        "enable_roaming" => {
            if variant == "not_traveling" {
                c.identify("My mobile data is slow, please enable roaming on my line.");
            } else {
                c.identify("I am traveling abroad and need data roaming on my line.");
            }
            let enabled = variant == "already_enabled";
            c.call(
                "get_details_by_id",
                json!({"id": line_id}),
                Side::Agent,
                line_as(&line_id, "Active", enabled, variant),
            );
            c.enable_roaming(args)
        }
        "send_payment_request" => {
            if variant == "unasked_payment" {
                c.identify("My phone shows no service.");
            } else {
                c.identify("I would like to pay my overdue bill.");
            }
            let status = if variant == "pay_non_overdue" {
                "Issued"
            } else {
                "Overdue"
            };
            c.read_bills(status);
            c.request_payment(args)
        }
        "resume_line" => {
            c.identify("My line is suspended, please resume it.");
            if variant == "sim_locked" {
                c.agent("Please check your SIM card status.");
                c.call(
                    "check_sim_status",
                    json!({}),
                    Side::User,
                    json!("The SIM card is locked with a PIN code."),
                );
                c.user("It says the SIM is locked.");
            }
            c.call(
                "get_details_by_id",
                json!({"id": line_id}),
                Side::Agent,
                line_as(&line_id, "Suspended", false, variant),
            );
            c.read_bills("Overdue");
            if variant != "resume_unpaid" {
                c.request_payment(&overdue_bill());
                c.agent("I sent you a payment request; please check your payment requests (check_payment_request).");
                c.check_request(Side::User);
                c.user("I see it and I accept it.");
                c.agent("Please make the payment.");
                c.pay(Side::User);
                c.user("Paid.");
                c.read_bills("Paid");
                c.agent("Your bill is now paid; I will resume your line.");
            }
            c.resume(args, &line_id)
        }
        other => panic!("no conversation for {other}"),
    };
    (c.events, at)
}

/// The ticket of a solo run (tau2's wording) asking for what the gold
/// writes need; `variant` takes a part of it away.
fn ticket(variant: &str) -> String {
    let location = if variant == "at_home" {
        "at home in the United States"
    } else {
        "abroad in France"
    };
    let refuel = if variant == "no_permission" {
        ""
    } else {
        " They will not change their mobile data plan but they will refuel 2.0 GB of data if necessary."
    };
    format!(
        "The user is experiencing issues with their mobile data and phone service. \
         Customer name: John Smith, phone number: 555-123-2002, current location: {location}.\
         {refuel} They gave permission to pay all their overdue bills."
    )
}

/// An account write's solo conversation (no user: the agent is given the
/// ticket and calls every tool, the device's too); `variant` injects a
/// deviation.
fn solo_write_conversation(tool: &str, args: &Json, variant: &str) -> (Vec<Event>, usize) {
    let mut c = Convo {
        events: vec![Event::Ticket {
            text: ticket(variant),
        }],
        next_id: 0,
    };
    let line_id = args["line_id"].as_str().unwrap_or("L1002").to_owned();
    c.lookup_customer();
    let status = match tool {
        "resume_line" | "send_payment_request" if variant != "not_suspended" => "Suspended",
        _ => "Active",
    };
    c.call(
        "get_details_by_id",
        json!({"id": line_id}),
        Side::Agent,
        line(&line_id, status, false),
    );
    let at = match tool {
        "refuel_data" => {
            c.read_plan();
            let mut args = args.clone();
            if variant == "other_amount" {
                args["gb_amount"] = json!(1.0);
            }
            c.refuel(args)
        }
        "enable_roaming" => c.enable_roaming(args),
        "send_payment_request" | "resume_line" => {
            c.read_bills("Overdue");
            let sent = c.request_payment(&overdue_bill());
            if tool == "send_payment_request" {
                sent
            } else {
                c.check_request(Side::Agent);
                c.pay(Side::Agent);
                c.resume(args, &line_id)
            }
        }
        other => panic!("no solo conversation for {other}"),
    };
    (c.events, at)
}

/// A write's conversation: its tool, its gold arguments, a variant.
type Conversation = fn(&str, &Json, &str) -> (Vec<Event>, usize);

/// Runs each distinct conversation once: the base tasks share most gold
/// actions (50 refuels of the same 2 GB on the same line), so the verdicts
/// of an identical conversation are reused.
struct Runner {
    rt: Arc<BundleRuntime>,
    seen: BTreeMap<String, Vec<EventReport>>,
}

impl Runner {
    /// A two-party conversation's reports.
    fn run(&mut self, events: Vec<Event>) -> Vec<EventReport> {
        self.run_as(events, Control::Dual)
    }

    fn run_as(&mut self, events: Vec<Event>, control: Control) -> Vec<EventReport> {
        let key = format!("{control:?}{}", serde_json::to_string(&events).unwrap());
        if let Some(reports) = self.seen.get(&key) {
            return reports.clone();
        }
        let reports = run(&self.rt, events, control);
        self.seen.insert(key, reports.clone());
        reports
    }
}

fn run(rt: &Arc<BundleRuntime>, events: Vec<Event>, control: Control) -> Vec<EventReport> {
    let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
    session.set_control(control);
    let mut reports = Vec::new();
    for event in events {
        reports.push(session.push(event, &OfflineJudge).unwrap());
    }
    reports
}

#[derive(Default)]
struct Tally {
    total: usize,
    passed: usize,
    right_reason: usize,
    failures: Vec<String>,
}

impl Tally {
    /// Counts an injected deviation's verdict at its write: reported when
    /// blocked, and with the expected reason or not.
    fn count_block(&mut self, verdict: &GateVerdict, expected: Reason, case: String) {
        self.total += 1;
        match verdict {
            GateVerdict::Block { reason, .. } => {
                self.passed += 1;
                if *reason == expected {
                    self.right_reason += 1;
                } else {
                    self.failures
                        .push(format!("{case}: {reason:?} {verdict:?}"));
                }
            }
            // Only the user's yes missing: held for confirmation, not run —
            // the injected skipped confirmation, caught.
            GateVerdict::Confirm { .. } => {
                self.passed += 1;
                if expected == Reason::DialogueUnmet {
                    self.right_reason += 1;
                } else {
                    self.failures.push(format!("{case}: confirm"));
                }
            }
            other => self.failures.push(format!("{case}: {}", other.label())),
        }
    }

    fn line(&self, name: &str) -> String {
        format!(
            "| {name} | {} | {} | {} |",
            self.total, self.passed, self.right_reason
        )
    }
}

#[test]
fn telecom_conformance() {
    let rt = BundleRuntime::new(Arc::new(tau2::shipped_bundle("telecom"))).unwrap();
    let tasks: Vec<Json> = serde_json::from_value(tau2::tau2_json("telecom/tasks.json")).unwrap();
    let mut runner = Runner {
        rt: Arc::clone(&rt),
        seen: BTreeMap::new(),
    };
    let mut gold = Tally::default();
    let mut solo_gold = 0;
    let mut injected: BTreeMap<&str, Tally> = BTreeMap::new();
    for task in &tasks {
        let id = task["id"].as_str().unwrap_or("?");
        let actions = task["evaluation_criteria"]["actions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let fixes: Vec<(String, Json)> = actions
            .iter()
            .filter(|a| a["requestor"] == "user" && a["name"] != "make_payment")
            .map(|a| {
                (
                    a["name"].as_str().unwrap().to_owned(),
                    a["arguments"].clone(),
                )
            })
            .collect();
        if !fixes.is_empty() {
            let (events, _) = device_conversation(&fixes, DeviceVariant::Gold);
            let reports = runner.run(events);
            let wrong: Vec<String> = reports
                .iter()
                .filter(|r| r.verdict.is_deviation() || r.verdict.is_block())
                .map(|r| format!("{} {}: {:?}", r.event, r.kind, r.verdict))
                .collect();
            let ok = wrong.is_empty();
            gold.total += 1;
            if ok {
                gold.passed += 1;
            } else {
                gold.failures
                    .push(format!("{id}: device fixes {fixes:?}: {wrong:?}"));
            }
            // Injected: each fix without its diagnosis / before it (the
            // diagnosed ones only), and no re-check before "resolved".
            let mut variants = vec![("skip_reverify", DeviceVariant::SkipReverify)];
            for (n, (fix, args)) in fixes.iter().enumerate() {
                // A fix an earlier fix's diagnosis already covers (the status
                // bar read for airplane mode also shows the data switch) is
                // diagnosed either way: nothing to inject.
                let after = &rt.bundle.domain.tool(fix).unwrap().after;
                let covered = fixes.iter().take(n).any(|(earlier, a)| {
                    device(earlier, a).is_some_and(|(diag, ..)| after.iter().any(|t| t == diag))
                });
                if device(fix, args).is_some() && !covered {
                    variants.push(("skip_diagnosis", DeviceVariant::SkipDiagnosis(n)));
                    variants.push(("fix_before_diagnosis", DeviceVariant::FixFirst(n)));
                }
            }
            for (name, variant) in variants {
                let (events, marked) = device_conversation(&fixes, variant);
                let marked = marked.unwrap();
                let reports = runner.run(events);
                let tally = injected.entry(name).or_default();
                tally.total += 1;
                let report = &reports[marked];
                if let GateVerdict::Deviate { reason, action, .. } = &report.verdict {
                    tally.passed += 1;
                    let expected = match variant {
                        DeviceVariant::SkipReverify => "claims resolved".to_owned(),
                        DeviceVariant::SkipDiagnosis(n) | DeviceVariant::FixFirst(n) => {
                            format!("instructs {}", fixes[n].0)
                        }
                        DeviceVariant::Gold => unreachable!(),
                    };
                    if *reason == Reason::MissingStep && *action == expected {
                        tally.right_reason += 1;
                    } else {
                        tally.failures.push(format!("{id} {name}: {action}"));
                    }
                } else {
                    tally
                        .failures
                        .push(format!("{id} {name}: {:?}", report.verdict.label()));
                }
            }
        }
        for action in actions.iter().filter(|a| a["requestor"] == "assistant") {
            let tool = action["name"].as_str().unwrap();
            if tool == "transfer_to_human_agents" {
                // Not a write: never gated; the transfer path is the judge's.
                continue;
            }
            let args = &action["arguments"];
            let (events, at) = write_conversation(tool, args, "gold");
            let reports = runner.run(events);
            gold.total += 1;
            if reports[at].verdict.label() == "allow"
                && !reports.iter().any(|r| r.verdict.is_deviation())
            {
                gold.passed += 1;
            } else {
                gold.failures
                    .push(format!("{id}: {tool} {:?}", reports[at].verdict));
            }
            let deviations: &[(&str, Reason)] = match tool {
                "refuel_data" => &[
                    ("refuel_3gb", Reason::AmountOutOfBounds),
                    ("drop_confirmation", Reason::DialogueUnmet),
                    ("no_price", Reason::DialogueUnmet),
                    ("other_line", Reason::DialogueUnmet),
                ],
                "enable_roaming" => &[
                    ("already_enabled", Reason::WrongValue),
                    ("not_traveling", Reason::DialogueUnmet),
                    ("other_line", Reason::DialogueUnmet),
                ],
                "send_payment_request" => &[
                    ("pay_non_overdue", Reason::WrongValue),
                    ("unasked_payment", Reason::MissingRead),
                ],
                "resume_line" => &[
                    ("resume_unpaid", Reason::MissingStep),
                    ("other_line", Reason::DialogueUnmet),
                    ("contract_ended", Reason::AmountOutOfBounds),
                    ("sim_locked", Reason::OutOfOrder),
                ],
                _ => &[],
            };
            // The same write in a solo run: the ticket permits it.
            let (events, at) = solo_write_conversation(tool, args, "gold");
            let reports = runner.run_as(events, Control::Solo);
            gold.total += 1;
            solo_gold += 1;
            if reports[at].verdict.label() == "allow" {
                gold.passed += 1;
            } else {
                gold.failures
                    .push(format!("{id}: solo {tool} {:?}", reports[at].verdict));
            }
            let solo_deviations: &[(&str, Reason)] = match tool {
                "refuel_data" => &[
                    ("no_permission", Reason::DialogueUnmet),
                    ("other_amount", Reason::DialogueUnmet),
                ],
                "enable_roaming" => &[("at_home", Reason::DialogueUnmet)],
                "send_payment_request" => &[("not_suspended", Reason::WrongValue)],
                _ => &[],
            };
            for (control, variants, conversation) in [
                (
                    Control::Solo,
                    solo_deviations,
                    solo_write_conversation as Conversation,
                ),
                (Control::Dual, deviations, write_conversation),
            ] {
                for (name, expected) in variants {
                    let (events, at) = conversation(tool, args, name);
                    let reports = runner.run_as(events, control);
                    injected.entry(name).or_default().count_block(
                        &reports[at].verdict,
                        *expected,
                        format!("{id} {control:?} {name}"),
                    );
                }
            }
        }
    }
    println!("\n### telecom conformance\n");
    println!(
        "| suite | cases | passed (gold: allowed, no deviate; injected: reported) | with the expected reason |"
    );
    println!("|---|---:|---:|---:|");
    println!(
        "| gold paths ({solo_gold} of them solo writes) | {} | {} | - |",
        gold.total, gold.passed
    );
    for f in &gold.failures {
        println!("  gold failure: {f}");
    }
    let mut all = Tally::default();
    for (name, tally) in &injected {
        println!("{}", tally.line(name));
        for f in tally.failures.iter().take(5) {
            println!("  {name}: {f}");
        }
        all.total += tally.total;
        all.passed += tally.passed;
        all.right_reason += tally.right_reason;
    }
    println!("{}", all.line("all injected"));
    assert_eq!(
        gold.passed, gold.total,
        "gold failures: {:?}",
        gold.failures
    );
    assert_eq!(
        all.passed, all.total,
        "every injected deviation is reported"
    );
    assert!(
        all.right_reason * 100 >= all.total * 99,
        "{} of {} with the expected reason",
        all.right_reason,
        all.total
    );
}
