//! Facts keyed by two values (`bundles/LANGUAGE_GAPS.md` row 6): an entity
//! with a composite `key` (the airline's `flight_date`: a flight number on a
//! date), read with ids taken from the call's arguments
//! (`get_flight_status(flight_number, date)` returns a bare status string)
//! or from the result, and list fields holding such ids
//! (`reservation.flight_keys`), so a status read for one date is never
//! taken for another. Bad input reads nothing and never panics; bad
//! declarations are refused with their diagnostic.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::extract::extract;
use turnstile_engine::schema::composite_id;
use turnstile_engine::trace::{Event, Trace};
use turnstile_engine::{CompiledBundle, check_bundle};
use turnstile_rules::{TraceFacts, Value};

fn airline_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/airline")
}

fn airline() -> CompiledBundle {
    check_bundle(&airline_dir()).unwrap_or_else(|p| panic!("{p}"))
}

/// The airline bundle's facts after successful calls, each
/// `(tool, arguments, result)`.
fn facts_after(calls: Vec<(&str, Json, Json)>) -> TraceFacts {
    let mut events = Vec::new();
    for (n, (tool, args, content)) in calls.into_iter().enumerate() {
        let id = format!("call_{n}");
        events.push(Event::Call {
            id: id.clone(),
            tool: tool.into(),
            args,
            requestor: Side::Agent,
        });
        events.push(Event::Result {
            id,
            ok: true,
            content,
        });
    }
    extract(
        &airline(),
        &Trace {
            events,
            ..Trace::default()
        },
    )
}

/// Every value read for `entity[id].field`, as text, in read order.
fn read(facts: &TraceFacts, entity: &str, id: &str, field: &str) -> Vec<String> {
    let i = &facts.interner;
    facts
        .attrs
        .iter()
        .filter(|a| {
            i.resolve(a.entity) == entity && i.resolve(a.id) == id && i.resolve(a.field) == field
        })
        .map(|a| match a.value {
            Value::Str(s) => i.resolve(s).to_owned(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// The statuses read for the flight on a date (`flight_date` id `id`).
fn status(facts: &TraceFacts, id: &str) -> Vec<String> {
    read(facts, "flight_date", id, "status")
}

fn reservation(flights: Json) -> Json {
    json!({
        "reservation_id": "521ARH", "user_id": "isabella_davis_2143",
        "origin": "EWR", "destination": "DFW", "flight_type": "one_way",
        "cabin": "economy", "flights": flights,
        "passengers": [{"first_name": "Isabella", "last_name": "Davis", "dob": "1990-01-01"}],
        "payment_history": [{"payment_id": "credit_card_1", "amount": 120}],
        "created_at": "2024-05-01T10:00:00", "total_baggages": 0, "nonfree_baggages": 0,
        "insurance": "no", "status": "cancelled"
    })
}

#[test]
fn a_bare_status_is_read_for_the_flight_and_date_of_the_call() {
    let facts = facts_after(vec![
        (
            "get_flight_status",
            json!({"flight_number": "HAT231", "date": "2024-05-09"}),
            json!("cancelled"),
        ),
        (
            "get_flight_status",
            json!({"flight_number": "HAT231", "date": "2024-05-10"}),
            json!("landed"),
        ),
    ]);
    assert_eq!(status(&facts, "HAT231@2024-05-09"), ["cancelled"]);
    assert_eq!(status(&facts, "HAT231@2024-05-10"), ["landed"]);
    assert!(facts.diagnostics.is_empty(), "{:?}", facts.diagnostics);
}

#[test]
fn a_reservation_lists_the_ids_of_its_flights_on_their_dates() {
    let facts = facts_after(vec![(
        "get_reservation_details",
        json!({"reservation_id": "521ARH"}),
        reservation(json!([
            {"flight_number": "HAT231", "origin": "EWR", "destination": "DFW",
             "date": "2024-05-09", "price": 120},
            {"flight_number": "HAT100", "origin": "DFW", "destination": "EWR",
             "date": "2024-05-12", "price": 130}
        ])),
    )]);
    assert_eq!(
        read(&facts, "reservation", "521ARH", "flight_keys"),
        ["HAT231@2024-05-09", "HAT100@2024-05-12"]
    );
}

#[test]
fn a_search_keys_its_flights_by_the_date_searched_or_each_legs_date() {
    let flight = |number: &str, date: Json| {
        json!({"flight_number": number, "origin": "JFK", "destination": "MIA",
               "status": "available", "date": date,
               "prices": {"basic_economy": 50, "economy": 100, "business": 300}})
    };
    let facts = facts_after(vec![
        // `search_direct_flight` leaves `date` null: the argument gives it.
        (
            "search_direct_flight",
            json!({"origin": "JFK", "destination": "MIA", "date": "2024-05-20"}),
            json!([flight("HAT060", Json::Null)]),
        ),
        // A one-stop pair carries each leg's date (the second may be the next day).
        (
            "search_onestop_flight",
            json!({"origin": "JFK", "destination": "MIA", "date": "2024-05-20"}),
            json!([[
                flight("HAT001", json!("2024-05-20")),
                flight("HAT002", json!("2024-05-21"))
            ]]),
        ),
    ]);
    assert_eq!(status(&facts, "HAT060@2024-05-20"), ["available"]);
    assert_eq!(status(&facts, "HAT002@2024-05-21"), ["available"]);
    assert!(status(&facts, "HAT002@2024-05-20").is_empty());
    assert!(read(&facts, "flight_date", "HAT060@2024-05-20", "price_economy").len() == 1);
}

#[test]
fn a_key_part_missing_or_mistyped_reads_nothing_and_says_why() {
    let facts = facts_after(vec![
        // No date argument: no id, so no status.
        (
            "get_flight_status",
            json!({"flight_number": "HAT231"}),
            json!("cancelled"),
        ),
        // A date that is not a date: not a key part.
        (
            "get_flight_status",
            json!({"flight_number": "HAT231", "date": "yesterday"}),
            json!("cancelled"),
        ),
        // One flight without its date: the list of ids is not read at all (a
        // shorter list would drop a flight from every "each flight" check).
        (
            "get_reservation_details",
            json!({"reservation_id": "521ARH"}),
            reservation(json!([
                {"flight_number": "HAT231", "origin": "EWR", "destination": "DFW",
                 "date": "2024-05-09", "price": 120},
                {"flight_number": "HAT100", "origin": "DFW", "destination": "EWR", "price": 130}
            ])),
        ),
    ]);
    let i = &facts.interner;
    assert!(
        !facts
            .attrs
            .iter()
            .any(|a| i.resolve(a.entity) == "flight_date"),
        "nothing is read for a flight_date without a whole id"
    );
    assert!(read(&facts, "reservation", "521ARH", "flight_keys").is_empty());
    assert!(facts.diagnostics.len() >= 3, "{:?}", facts.diagnostics);
}

#[test]
fn composite_ids_of_different_parts_differ() {
    let id =
        |parts: &[&str]| composite_id(&parts.iter().map(|p| p.to_string()).collect::<Vec<_>>());
    assert_eq!(id(&["HAT231", "2024-05-09"]), "HAT231@2024-05-09");
    assert_ne!(id(&["a@b", "c"]), id(&["a", "b@c"]));
    assert_ne!(id(&["a\\", "@b"]), id(&["a\\@", "b"]));
}

/// A copy of the airline bundle with `find` replaced by `replace` in `file`.
fn airline_with(file: &str, find: &str, replace: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("airline");
    support::copy_dir(&airline_dir(), &root);
    let path = root.join(file);
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches(find).count(), 1, "`{find}` once in {file}");
    fs::write(&path, text.replace(find, replace)).unwrap();
    dir
}

fn refused(file: &str, find: &str, replace: &str) -> String {
    let dir = airline_with(file, find, replace);
    match check_bundle(&dir.path().join("airline")) {
        Ok(_) => panic!("`{replace}` accepted"),
        Err(problems) => problems.to_string(),
    }
}

#[test]
fn bad_key_declarations_are_refused() {
    let status_id = "id: \"[args.flight_number, args.date]\"";
    let wrong = refused("domain.yaml", status_id, "id: \"[args.flight_number]\"");
    assert!(wrong.contains("has a key of 2 parts"), "{wrong}");
    let wrong = refused(
        "domain.yaml",
        status_id,
        "id: \"[args.flight_no, args.date]\"",
    );
    assert!(wrong.contains("no parameter `flight_no`"), "{wrong}");
    let wrong = refused(
        "domain.yaml",
        status_id,
        "id: \"[args.date, args.flight_number]\"",
    );
    assert!(
        wrong.contains("this key part of `flight_date` is a string"),
        "{wrong}"
    );
    let wrong = refused(
        "domain.yaml",
        "      flight_keys: list<string>        # flight_date ids of the same flights",
        "      flight_keys: string",
    );
    assert!(wrong.contains("declare it `list<string>`"), "{wrong}");
    let wrong = refused(
        "flows/compensation.yaml",
        "f: flight_date[args.flight_number, args.date]",
        "f: flight_date[args.flight_number]",
    );
    assert!(
        wrong.contains("has a key of 2 parts, this gives 1"),
        "{wrong}"
    );
}
