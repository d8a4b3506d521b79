//! Conversation plans: a task's gold action sequence turned into a
//! policy-compliant conversation skeleton (identification, the reads the
//! bundle requires, a "yes" before every write), the injected deviations
//! derived from it, and the trace a plan becomes when its calls are run
//! against the simulated database.

use std::collections::BTreeSet;

use serde_json::{Value as Json, json};
use turnstile_engine::CompiledBundle;
use turnstile_engine::bundle::model::Side;
use turnstile_engine::trace::{Event, Trace};
use turnstile_rules::{EventIdx, Reason, StepId};

use super::sim::{Db, Domain, list};

/// One planned event.
#[derive(Clone, Debug)]
pub enum Act {
    User(String),
    /// An agent turn (the summary of a write, before the user's yes).
    Agent(String),
    Call {
        tool: String,
        args: Json,
        /// Merged into the (successful) result: a tampered tool result.
        patch: Option<Json>,
    },
}

impl Act {
    fn call(tool: &str, args: Json) -> Act {
        Act::Call {
            tool: tool.to_owned(),
            args,
            patch: None,
        }
    }

    pub fn tool(&self) -> Option<&str> {
        match self {
            Act::Call { tool, .. } => Some(tool),
            Act::User(_) | Act::Agent(_) => None,
        }
    }

    fn is(&self, tool: &str, key: &str, value: &str) -> bool {
        matches!(self, Act::Call { tool: t, args, .. } if t == tool && args[key] == value)
    }
}

/// A gold write in a plan.
#[derive(Clone, Debug)]
pub struct Write {
    /// Position in the plan.
    pub at: usize,
    /// Index in the task's gold action list.
    pub gold_index: usize,
    pub tool: String,
    pub args: Json,
}

/// A conversation plan and what is needed to decide it.
#[derive(Clone, Debug)]
pub struct Plan {
    pub acts: Vec<Act>,
    pub writes: Vec<Write>,
    /// Classifier labels of the request types of the gold writes.
    pub request_types: BTreeSet<String>,
    /// Semantic steps never judged (the deviation "drop the confirmation").
    pub unjudged: BTreeSet<String>,
}

/// The request type(s) (classifier labels, flows) a write belongs to.
pub fn request_types(domain: Domain, tool: &str) -> &'static [&'static str] {
    match (domain, tool) {
        (Domain::Retail, "cancel_pending_order") => &["cancel"],
        (Domain::Retail, "modify_pending_order_address") => &["modify_address"],
        (Domain::Retail, "modify_pending_order_payment") => &["modify_payment"],
        (Domain::Retail, "modify_pending_order_items") => &["modify_items"],
        (Domain::Retail, "return_delivered_order_items") => &["return"],
        (Domain::Retail, "exchange_delivered_order_items") => &["exchange"],
        (Domain::Retail, "modify_user_address") => &["modify_user_address"],
        (Domain::Airline, "book_reservation") => &["book"],
        (Domain::Airline, "cancel_reservation") => &["cancel"],
        (Domain::Airline, "update_reservation_baggages") => &["modify_baggage"],
        (Domain::Airline, "update_reservation_passengers") => &["modify_passengers"],
        (Domain::Airline, "update_reservation_flights") => &["modify_flights", "modify_cabin"],
        (Domain::Airline, "send_certificate") => &["compensation"],
        _ => &[],
    }
}

/// The entity read a write depends on: (read tool, id argument, id).
pub fn entity_read(domain: Domain, w: &Write) -> Option<(&'static str, &'static str, String)> {
    let id = |k: &str| w.args[k].as_str().map(str::to_owned);
    match domain {
        Domain::Retail if w.args.get("order_id").is_some() => {
            Some(("get_order_details", "order_id", id("order_id")?))
        }
        Domain::Airline if w.args.get("reservation_id").is_some() => Some((
            "get_reservation_details",
            "reservation_id",
            id("reservation_id")?,
        )),
        _ => None,
    }
}

/// The user a task is about, from the gold actions and the database.
fn task_user(db: &Db, actions: &[Json]) -> Option<String> {
    for a in actions {
        let args = &a["arguments"];
        if let Some(u) = args.get("user_id").and_then(Json::as_str) {
            return Some(u.to_owned());
        }
        for (key, table) in [("order_id", "orders"), ("reservation_id", "reservations")] {
            if let Some(u) = args
                .get(key)
                .and_then(Json::as_str)
                .and_then(|id| db.data[table].get(id))
                .and_then(|r| r["user_id"].as_str())
            {
                return Some(u.to_owned());
            }
        }
        if a["name"] == "find_user_id_by_name_zip" || a["name"] == "find_user_id_by_email" {
            let mut scratch = db.clone();
            if let Ok(Json::String(u)) = scratch.call(a["name"].as_str()?, args) {
                return Some(u);
            }
        }
    }
    None
}

/// Builds the compliant conversation for a task's gold actions.
/// `cancel_reason`: the reason for cancelling the task's user states (the
/// airline agent restates it in the cancellation's summary).
pub fn gold_plan(domain: Domain, db: &Db, actions: &[Json], cancel_reason: Option<&str>) -> Plan {
    let mut acts = Vec::new();
    let user = task_user(db, actions).unwrap_or_default();
    let mut identified = Vec::new();
    match domain {
        Domain::Retail => {
            let by_name = actions
                .iter()
                .find(|a| a["name"] == "find_user_id_by_name_zip")
                .map(|a| a["arguments"].clone());
            // The user gives what the agent looks them up by (policy.md:10):
            // every zip code a gold lookup tries (a user who moved gives both).
            match by_name {
                Some(args) => {
                    let said = |key: &str| args[key].as_str().unwrap_or_default().to_owned();
                    let zips: Vec<&str> = actions
                        .iter()
                        .filter(|a| a["name"] == "find_user_id_by_name_zip")
                        .filter_map(|a| a["arguments"]["zip"].as_str())
                        .collect();
                    acts.push(Act::User(format!(
                        "Hi, I need help with my orders. I'm {} {}, zip code {}.",
                        said("first_name"),
                        said("last_name"),
                        zips.join(" or ")
                    )));
                    acts.push(Act::call("find_user_id_by_name_zip", args.clone()));
                    identified.push(("find_user_id_by_name_zip".to_owned(), args));
                }
                None => {
                    let email = db
                        .user(&user)
                        .map(|u| u["email"].clone())
                        .unwrap_or_default();
                    acts.push(Act::User(format!(
                        "Hi, I need help with my orders. My email is {}.",
                        email.as_str().unwrap_or_default()
                    )));
                    let args = json!({ "email": email });
                    acts.push(Act::call("find_user_id_by_email", args.clone()));
                    identified.push(("find_user_id_by_email".to_owned(), args));
                }
            }
        }
        Domain::Airline => {
            acts.push(Act::User(format!("Hi, my user id is {user}.")));
        }
    }
    let profile = json!({ "user_id": user });
    acts.push(Act::call("get_user_details", profile.clone()));
    identified.push(("get_user_details".to_owned(), profile));
    acts.push(Act::User("Here is what I need.".into()));

    // Run the plan as it grows so that inserted reads see the current state.
    let mut state = db.clone();
    let mut writes = Vec::new();
    let mut request_types = BTreeSet::new();
    let request_start = acts.len();
    for (gold_index, action) in actions.iter().enumerate() {
        let tool = action["name"].as_str().unwrap_or_default();
        let args = action["arguments"].clone();
        if identified.iter().any(|(t, a)| t == tool && *a == args) {
            continue;
        }
        if domain.is_write(tool) {
            let w = Write {
                at: 0,
                gold_index,
                tool: tool.to_owned(),
                args: args.clone(),
            };
            for read in prerequisites(domain, &state, &acts[request_start..], &w) {
                let _ = state.call(read.tool().unwrap_or_default(), read_args(&read));
                acts.push(read);
            }
            // The bundles' guards demand the user's yes to a summary naming
            // the write's key arguments (`confirmed(...)`): list them all.
            let mut text = summary(tool, &args);
            if let (Some(reason), "cancel_reservation") = (cancel_reason, tool) {
                text = format!("{text} Reason: {reason}.");
            }
            acts.push(Act::Agent(text));
            acts.push(Act::User("Yes, please go ahead.".into()));
            request_types.extend(request_types_of(domain, tool));
            writes.push(Write {
                at: acts.len(),
                ..w
            });
        }
        let _ = state.call(tool, &args);
        acts.push(Act::call(tool, args));
    }
    Plan {
        acts,
        writes,
        request_types,
        unjudged: BTreeSet::new(),
    }
}

/// An agent summary naming every string and number of a write's arguments.
fn summary(tool: &str, args: &Json) -> String {
    fn leaves(v: &Json, out: &mut Vec<String>) {
        match v {
            Json::String(s) => out.push(s.clone()),
            Json::Number(n) => out.push(n.to_string()),
            Json::Array(items) => items.iter().for_each(|i| leaves(i, out)),
            Json::Object(map) => map.values().for_each(|i| leaves(i, out)),
            Json::Bool(_) | Json::Null => {}
        }
    }
    let mut values = Vec::new();
    leaves(args, &mut values);
    // The action in words ("cancel pending order"): guards may ask for the
    // action word besides the key values.
    format!(
        "To confirm, I will {} with: {}. Shall I proceed?",
        tool.replace('_', " "),
        values.join(", ")
    )
}

fn request_types_of(domain: Domain, tool: &str) -> Vec<String> {
    request_types(domain, tool)
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

fn read_args(a: &Act) -> &Json {
    match a {
        Act::Call { args, .. } => args,
        Act::User(_) | Act::Agent(_) => &Json::Null,
    }
}

/// The reads the bundle's path to `w` needs that the plan so far lacks.
fn prerequisites(domain: Domain, state: &Db, so_far: &[Act], w: &Write) -> Vec<Act> {
    let mut out = Vec::new();
    if w.tool == "book_reservation" {
        search_new_legs(state, so_far, &w.args, None, &mut out);
    }
    let mut have = |tool: &str, key: &str, value: &str, args: Json, after: usize| {
        let found = so_far[after.min(so_far.len())..]
            .iter()
            .any(|a| a.is(tool, key, value));
        if !found {
            out.push(Act::call(tool, args));
        }
    };
    let Some((read, key, id)) = entity_read(domain, w) else {
        return out;
    };
    let first_read = so_far
        .iter()
        .position(|a| a.is(read, key, &id))
        .unwrap_or(so_far.len());
    have(read, key, &id, json!({ key: id }), 0);
    match w.tool.as_str() {
        "modify_pending_order_items" | "exchange_delivered_order_items" => {
            let order = state.order(&id).cloned().unwrap_or_default();
            let mut products = BTreeSet::new();
            for item in list(&w.args, "item_ids") {
                if let Some(line) = order["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|l| l["item_id"] == item.as_str())
                {
                    products.insert(line["product_id"].as_str().unwrap_or_default().to_owned());
                }
            }
            for p in products {
                have(
                    "get_product_details",
                    "product_id",
                    &p,
                    json!({ "product_id": p }),
                    first_read,
                );
            }
        }
        "update_reservation_flights" => {
            let old = state.reservation(&id).cloned();
            search_new_legs(state, so_far, &w.args, old.as_ref(), &mut out);
        }
        _ => {}
    }
    out
}

/// A direct search of each leg of `args.flights` that `old` (the reservation
/// changed) does not already hold on that date and no search so far listed:
/// an agent offers only flights a search showed available (airline
/// policy.md:41-43).
fn search_new_legs(
    state: &Db,
    so_far: &[Act],
    args: &Json,
    old: Option<&Json>,
    out: &mut Vec<Act>,
) {
    for leg in args["flights"].as_array().into_iter().flatten() {
        let kept = old.is_some_and(|r| {
            r["flights"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|f| f["flight_number"] == leg["flight_number"] && f["date"] == leg["date"])
        });
        if kept {
            continue;
        }
        let number = leg["flight_number"].as_str().unwrap_or_default();
        let f = state.flight(number).cloned().unwrap_or_default();
        let search =
            json!({"origin": f["origin"], "destination": f["destination"], "date": leg["date"]});
        let searched = so_far.iter().chain(out.iter()).any(|a| {
            matches!(a, Act::Call { tool, args: x, .. } if tool == "search_direct_flight" && *x == search)
        });
        if !searched {
            out.push(Act::call("search_direct_flight", search));
        }
    }
}

/// A plan turned into a trace, with the judge's verdicts.
pub struct Built {
    pub trace: Trace,
    pub judged: Vec<(StepId, EventIdx)>,
    /// Event index of each plan act (calls: the call event).
    pub event_of: Vec<EventIdx>,
}

/// Runs the plan against a fresh copy of the database and supplies the
/// judge's verdicts: the classifier branches of the plan's request types and
/// every other semantic step (except `unjudged`) at every user message.
pub fn build(bundle: &CompiledBundle, db: &Db, plan: &Plan) -> Built {
    let mut state = db.clone();
    let mut events = Vec::new();
    let mut event_of = Vec::new();
    for (i, act) in plan.acts.iter().enumerate() {
        event_of.push(EventIdx::from_usize(events.len()));
        match act {
            Act::User(text) => events.push(Event::User { text: text.clone() }),
            Act::Agent(text) => events.push(Event::Agent { text: text.clone() }),
            Act::Call { tool, args, patch } => {
                let id = format!("call_{i}");
                events.push(Event::Call {
                    id: id.clone(),
                    tool: tool.clone(),
                    args: args.clone(),
                    requestor: Side::Agent,
                });
                let (ok, mut content) = match state.call(tool, args) {
                    Ok(c) => (true, c),
                    Err(e) => (false, json!(e)),
                };
                if let (true, Some(Json::Object(p)), Json::Object(c)) = (ok, patch, &mut content) {
                    for (k, v) in p {
                        c.insert(k.clone(), v.clone());
                    }
                }
                events.push(Event::Result { id, ok, content });
            }
        }
    }
    let users: Vec<EventIdx> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::User { .. }))
        .map(|(k, _)| EventIdx::from_usize(k))
        .collect();
    let mut judged = Vec::new();
    for (index, step) in bundle.program.steps.iter().enumerate() {
        if !step.semantic || plan.unjudged.contains(&step.name) {
            continue;
        }
        let label = step
            .name
            .strip_prefix("classify[")
            .and_then(|s| s.strip_suffix(']'));
        if label.is_some_and(|l| !plan.request_types.contains(l)) {
            continue;
        }
        let id = StepId(u32::try_from(index).unwrap_or(u32::MAX));
        judged.extend(users.iter().map(|&k| (id, k)));
    }
    Built {
        trace: Trace {
            events,
            ..Trace::default()
        },
        judged,
        event_of,
    }
}

/// The kinds of injected deviation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    DropRead,
    WrongValue,
    Ungrounded,
    Amount,
    Swap,
    DropConfirmation,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::DropRead,
        Kind::WrongValue,
        Kind::Ungrounded,
        Kind::Amount,
        Kind::Swap,
        Kind::DropConfirmation,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::DropRead => "drop the read (MissingRead; identification: or its step)",
            Kind::WrongValue => "wrong status read (WrongValue)",
            Kind::Ungrounded => "claimed id (Ungrounded)",
            Kind::Amount => "amount/count (AmountOutOfBounds/TooManyCalls)",
            Kind::Swap => "write before its read (MissingRead/OutOfOrder)",
            Kind::DropConfirmation => "drop the confirmation (DialogueUnmet)",
        }
    }
}

/// A deviating plan, the write to decide and the reasons that count as caught.
pub struct Variant {
    pub kind: Kind,
    pub what: String,
    pub plan: Plan,
    /// Position of the write to decide in the variant's plan.
    pub at: usize,
    pub expect: &'static [Reason],
}

/// Another id of the same kind that the user does not own.
fn foreign_user(db: &Db, user: &str) -> String {
    db.data["users"]
        .as_object()
        .and_then(|m| m.keys().find(|k| k.as_str() != user).cloned())
        .unwrap_or_default()
}

/// Every applicable deviation of write `w` of `plan`.
pub fn variants(domain: Domain, db: &Db, plan: &Plan, w: &Write) -> Vec<Variant> {
    let mut out = Vec::new();
    let entity = entity_read(domain, w);
    let set_args = |plan: &mut Plan, at: usize, f: &dyn Fn(&mut Json)| {
        if let Some(Act::Call { args, .. }) = plan.acts.get_mut(at) {
            f(args);
        }
    };

    // 1. Drop the read(s) the write depends on.
    {
        let mut p = plan.clone();
        let drop: Box<dyn Fn(&Act) -> bool> = match &entity {
            Some((read, key, id)) => {
                let (read, key, id) = (*read, *key, id.clone());
                Box::new(move |a: &Act| a.is(read, key, &id))
            }
            None => Box::new(|a: &Act| {
                matches!(
                    a.tool(),
                    Some("find_user_id_by_email" | "find_user_id_by_name_zip")
                ) || (domain == Domain::Airline && a.tool() == Some("get_user_details"))
            }),
        };
        let at = remove_before(&mut p, w.at, &*drop);
        out.push(Variant {
            kind: Kind::DropRead,
            what: "all reads of the entity (or the identification) removed".into(),
            plan: p,
            at,
            // An identification read a flow makes as a step of its own
            // (booking's `profile`) is missing as that step: its reason is
            // the step's, not a guard's read requirement.
            expect: if entity.is_some() {
                &[Reason::MissingRead]
            } else {
                &[Reason::MissingRead, Reason::MissingStep]
            },
        });
    }

    // 2. The read returned a wrong status / eligibility fact.
    if let Some((read, key, id)) = &entity {
        let patch = match (domain, w.tool.as_str()) {
            (Domain::Retail, "return_delivered_order_items" | "exchange_delivered_order_items") => {
                Some(json!({"status": "processed"}))
            }
            (Domain::Retail, _) => Some(json!({"status": "processed"})),
            (Domain::Airline, "cancel_reservation") => Some(json!({
                "cabin": "economy", "insurance": "no", "created_at": "2024-05-01T10:00:00"
            })),
            (Domain::Airline, "update_reservation_flights") => {
                let r = db.reservation(id).cloned().unwrap_or_default();
                let same: Vec<&Json> = r["flights"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| &f["flight_number"])
                    .collect();
                let new: Vec<&Json> = w.args["flights"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| &f["flight_number"])
                    .collect();
                (same != new).then(|| json!({"cabin": "basic_economy"}))
            }
            _ => None,
        };
        if let Some(patch) = patch {
            let mut p = plan.clone();
            for a in p.acts[..w.at].iter_mut() {
                let tampered = a.is(read, key, id)
                    || matches!(a, Act::Call { tool, args, .. } if domain.is_write(tool) && args[*key] == id.as_str());
                if let (true, Act::Call { patch: slot, .. }) = (tampered, a) {
                    *slot = Some(patch.clone());
                }
            }
            out.push(Variant {
                kind: Kind::WrongValue,
                what: format!("{read} results patched with {patch}"),
                plan: p,
                at: w.at,
                expect: &[Reason::WrongValue],
            });
        }
    }

    // 3. An id the user merely claimed.
    {
        let (key, claimed) = match (&entity, domain) {
            (Some((_, key, _)), Domain::Retail) => (*key, "#W0000000".to_owned()),
            (Some((_, key, _)), Domain::Airline) => (*key, "ZZZZZZ".to_owned()),
            (None, _) => (
                "user_id",
                foreign_user(db, w.args["user_id"].as_str().unwrap_or_default()),
            ),
        };
        if w.args.get(key).is_some() {
            let mut p = plan.clone();
            set_args(&mut p, w.at, &|a| a[key] = json!(claimed));
            out.push(Variant {
                kind: Kind::Ungrounded,
                what: format!("{key} = {claimed}"),
                plan: p,
                at: w.at,
                expect: &[Reason::Ungrounded],
            });
        }
    }

    // 4. Amounts and counts.
    let repeat = |p: &Plan| -> (Plan, usize) {
        let mut p = p.clone();
        let mut call = p.acts[w.at].clone();
        if let (Act::Call { args, .. }, "modify_pending_order_items") = (&mut call, w.tool.as_str())
        {
            // A second modification of the (now modified) items: change them back.
            let (old, new) = (args["item_ids"].clone(), args["new_item_ids"].clone());
            args["item_ids"] = new;
            args["new_item_ids"] = old;
        }
        p.acts
            .insert(w.at + 1, Act::User("Yes, do it again.".into()));
        p.acts.insert(w.at + 2, call);
        (p, w.at + 2)
    };
    match w.tool.as_str() {
        "modify_pending_order_items"
        | "exchange_delivered_order_items"
        | "return_delivered_order_items"
        | "cancel_reservation" => {
            let (p, at) = repeat(plan);
            out.push(Variant {
                kind: Kind::Amount,
                what: "the one-shot write repeated (modify items: changed back)".into(),
                plan: p,
                at,
                expect: &[Reason::TooManyCalls],
            });
        }
        "book_reservation" | "update_reservation_baggages" => {
            let mut p = plan.clone();
            set_args(&mut p, w.at, &|a| {
                a["nonfree_baggages"] = json!(a["nonfree_baggages"].as_i64().unwrap_or(0) + 1);
                a["total_baggages"] = json!(a["total_baggages"].as_i64().unwrap_or(0).max(1));
            });
            out.push(Variant {
                kind: Kind::Amount,
                what: "one more non-free bag than the allowance gives".into(),
                plan: p,
                at: w.at,
                expect: &[Reason::AmountOutOfBounds],
            });
            if w.tool == "book_reservation" {
                let mut p = plan.clone();
                set_args(&mut p, w.at, &|a| {
                    let first = a["passengers"][0].clone();
                    if let Some(list) = a["passengers"].as_array_mut() {
                        while list.len() < 6 {
                            list.push(first.clone());
                        }
                    }
                });
                out.push(Variant {
                    kind: Kind::Amount,
                    what: "six passengers".into(),
                    plan: p,
                    at: w.at,
                    expect: &[Reason::AmountOutOfBounds],
                });
            }
        }
        "update_reservation_passengers" => {
            let mut p = plan.clone();
            set_args(&mut p, w.at, &|a| {
                let first = a["passengers"][0].clone();
                if let Some(list) = a["passengers"].as_array_mut() {
                    list.push(first);
                }
            });
            out.push(Variant {
                kind: Kind::Amount,
                what: "one passenger more".into(),
                plan: p,
                at: w.at,
                expect: &[Reason::AmountOutOfBounds],
            });
        }
        "send_certificate" => {
            let mut p = plan.clone();
            set_args(&mut p, w.at, &|a| {
                a["amount"] = json!(a["amount"].as_i64().unwrap_or(0) + 50);
            });
            out.push(Variant {
                kind: Kind::Amount,
                what: "certificate amount + 50".into(),
                plan: p,
                at: w.at,
                expect: &[Reason::AmountOutOfBounds],
            });
        }
        _ => {}
    }

    // 5. The write before its read.
    if let Some((read, key, id)) = &entity {
        let mut p = plan.clone();
        let at = remove_before(&mut p, w.at, &|a: &Act| a.is(read, key, id));
        p.acts
            .insert(at + 1, Act::call(read, json!({ *key: id.clone() })));
        out.push(Variant {
            kind: Kind::Swap,
            what: format!("{read} moved after the write"),
            plan: p,
            at,
            expect: &[Reason::MissingRead, Reason::OutOfOrder],
        });
    }

    // 6. No confirmation: the judged `confirm` steps are never judged, and
    // the user's yes to the summary (the guards' `confirmed(...)`) becomes a
    // hesitation.
    {
        let mut p = plan.clone();
        for flow in request_types(domain, &w.tool) {
            p.unjudged.insert(format!("{flow}.confirm"));
        }
        if let Some(Act::User(text)) = w.at.checked_sub(1).and_then(|i| p.acts.get_mut(i)) {
            *text = "Hmm, let me think about it.".into();
        }
        out.push(Variant {
            kind: Kind::DropConfirmation,
            what: "confirm step never judged".into(),
            plan: p,
            at: w.at,
            expect: &[Reason::DialogueUnmet],
        });
    }
    out
}

/// Removes the acts before `at` matching `drop`; returns `at`'s new position.
fn remove_before(p: &mut Plan, at: usize, drop: &dyn Fn(&Act) -> bool) -> usize {
    let mut kept = Vec::new();
    let mut new_at = at;
    for (i, a) in p.acts.drain(..).enumerate() {
        if i < at && drop(&a) {
            new_at -= 1;
        } else {
            kept.push(a);
        }
    }
    p.acts = kept;
    new_at
}
