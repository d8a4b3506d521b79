"""The core API: bundles, sessions, verdicts, snapshots, the durable store
shared with `turnstile gate`, and bad input."""

from __future__ import annotations

import gc
import json
import subprocess

import pytest

import turnstile
from conftest import BUNDLES, REPO, conversations, without_yes


def writes(verdicts):
    return [v for v in verdicts if v.mutating]


def test_an_explicit_yes_allows_the_cancellation(retail, retail_cancel):
    session = turnstile.Session(retail)
    (write,) = writes(session.push_many(retail_cancel["cancel-pending"]))
    assert write.decision == "allow" and write.allowed
    assert write.step == "cancel.authorize"
    assert write.confirmation is None


def test_without_the_yes_the_gate_asks_for_confirmation(retail, retail_cancel):
    session = turnstile.Session(retail)
    (write,) = writes(session.push_many(without_yes(retail_cancel["cancel-pending"])))
    assert write.decision == "confirm" and not write.allowed
    assert write.consent == "absent"
    assert write.confirmation == {
        "call": "c4",
        "details": [
            {"name": "order_id", "value": "#W6247578"},
            {"name": "reason", "value": "no longer needed"},
        ],
        "text": "Cancel order #W6247578 (reason: no longer needed)?",
        "tool": "cancel_pending_order",
    }


def test_an_approval_opens_the_identical_call_once(retail, retail_cancel):
    events = without_yes(retail_cancel["cancel-pending"])
    call = next(e for e in events if e.get("tool") == "cancel_pending_order")
    upto = events.index(call)
    session = turnstile.Session(retail)
    session.push_many(events[:upto])
    assert session.push(call).decision == "confirm"
    session.approve(call["id"])
    again = dict(call, id="c5")
    allowed = session.push(again)
    assert allowed.decision == "allow"
    assert allowed.approved == {"by": "user", "call": call["id"]}


def test_a_refused_approval_keeps_the_call_closed(retail, retail_cancel):
    events = without_yes(retail_cancel["cancel-pending"])
    call = next(e for e in events if e.get("tool") == "cancel_pending_order")
    session = turnstile.Session(retail)
    session.push_many(events[: events.index(call) + 1])
    session.approve(call["id"], granted=False)
    assert session.push(dict(call, id="c5")).decision != "allow"


def test_a_formal_block_carries_its_remediation(retail, retail_cancel):
    session = turnstile.Session(retail)
    (write,) = writes(session.push_many(retail_cancel["cancel-delivered"]))
    assert write.decision == "block"
    assert write.reason == "WrongValue"
    assert "only pending orders can be cancelled" in write.remediation
    assert write.to_dict()["verdict"] == "block"


def test_no_approval_opens_a_formal_block(retail, retail_cancel):
    events = retail_cancel["cancel-delivered"]
    call = next(e for e in events if e.get("tool") == "cancel_pending_order")
    session = turnstile.Session(retail)
    session.push_many(events[: events.index(call) + 1])
    approval = session.approve(call["id"])
    assert approval.to_dict().get("anomalies"), "an approval of a block is an anomaly"
    assert session.push(dict(call, id="c9")).decision == "block"


def test_a_restored_snapshot_answers_like_the_original(retail, retail_cancel):
    events = retail_cancel["cancel-pending"]
    half = len(events) // 2
    original = turnstile.Session(retail)
    original.push_many(events[:half])
    restored = turnstile.Session.restore(retail, original.snapshot())
    assert len(restored) == half
    assert restored.push_many(events[half:]) == original.push_many(events[half:])


def test_a_snapshot_of_another_bundle_is_refused(retail, toy):
    data = turnstile.Session(retail).snapshot()
    with pytest.raises(turnstile.SessionError, match="bundle"):
        turnstile.Session.restore(toy, data)
    with pytest.raises(turnstile.SessionError, match="not a saved session"):
        turnstile.Session.restore(retail, b"\x00garbage")


def test_a_missing_bundle_raises_with_its_diagnostics(tmp_path):
    with pytest.raises(turnstile.BundleError) as raised:
        turnstile.Bundle.load(tmp_path / "nowhere")
    assert "bundle.yaml" in str(raised.value)
    assert raised.value.problems[0]["code"] == "turnstile::io"


def test_a_broken_bundle_names_file_line_and_column(tmp_path):
    broken = tmp_path / "broken"
    subprocess.run(["cp", "-r", str(BUNDLES / "toy-orders"), str(broken)], check=True)
    flow = broken / "flows" / "cancel.yaml"
    flow.write_text(flow.read_text().replace("next:", "nxet:", 1))
    with pytest.raises(turnstile.BundleError) as raised:
        turnstile.Bundle.load(broken)
    located = [p for p in raised.value.problems if p["line"] is not None]
    assert located, raised.value.problems
    assert located[0]["file"].endswith("cancel.yaml")
    assert located[0]["column"] >= 1


@pytest.mark.parametrize(
    "event, message",
    [
        (["not", "a", "dict"], "not list"),
        ("text", "not str"),
        ({"type": "call", "tool": "get_order_details"}, "missing field `id`"),
        ({"type": "user", "text": 3}, "invalid type"),
        ({"type": "teleport"}, "unknown variant"),
        ({"type": "user", "text": "hi", "at": "yesterday"}, "not an event"),
        ({"type": "user", "text": object()}, "not JSON"),
    ],
)
def test_bad_events_raise_and_are_not_taken(retail, event, message):
    session = turnstile.Session(retail)
    with pytest.raises(turnstile.EventError, match=message):
        session.push(event)
    assert len(session) == 0


def test_push_many_checks_every_event_before_taking_any(retail, retail_cancel):
    session = turnstile.Session(retail)
    with pytest.raises(turnstile.EventError):
        session.push_many(retail_cancel["cancel-pending"][:3] + [{"type": "user"}])
    assert len(session) == 0


def test_bad_arguments_raise(retail):
    with pytest.raises(ValueError, match="unknown schedule"):
        turnstile.Session(retail, schedule="sometimes")
    with pytest.raises(turnstile.JudgeError):
        turnstile.Session(retail, judge="oracle")
    with pytest.raises(TypeError):
        turnstile.Session(retail, judge=42)
    with pytest.raises(TypeError):
        turnstile.Session("bundles/retail")


def test_the_gate_continues_a_session_python_stored(retail, retail_cancel, tmp_path, turnstile_bin):
    events = retail_cancel["cancel-pending"]
    half = len(events) // 2
    store = tmp_path / "gate.sqlite"
    session = turnstile.Session(retail, store=store, session_id="shared")
    assert session.session_id == "shared"
    session.push_many(events[:half])
    del session
    gc.collect()

    gate = subprocess.run(
        [str(turnstile_bin), "gate", "--state", str(store), "--session", "shared", str(BUNDLES / "retail")],
        input="".join(json.dumps(e) + "\n" for e in events[half:]),
        capture_output=True,
        text=True,
        check=True,
    )
    printed = gate.stdout.splitlines()

    reference = turnstile.Session(retail)
    reference.push_many(events[:half])
    expected = [v.to_dict() for v in reference.push_many(events[half:])]
    assert [json.loads(line) for line in printed] == expected

    continued = turnstile.Session(retail, store=store, session_id="shared")
    assert len(continued) == len(events)


def test_python_continues_a_session_the_gate_stored(retail, retail_cancel, tmp_path, turnstile_bin):
    events = retail_cancel["cancel-pending"]
    half = len(events) // 2
    store = tmp_path / "gate.sqlite"
    subprocess.run(
        [str(turnstile_bin), "gate", "--state", str(store), "--session", "s1", str(BUNDLES / "retail")],
        input="".join(json.dumps(e) + "\n" for e in events[:half]),
        capture_output=True,
        text=True,
        check=True,
    )
    session = turnstile.Session(retail, store=store, session_id="s1")
    assert len(session) == half
    (write,) = writes(session.push_many(events[half:]))
    assert write.decision == "allow"


def test_a_stored_session_is_held_by_one_writer(retail, tmp_path):
    store = tmp_path / "gate.sqlite"
    first = turnstile.Session(retail, store=store, session_id="one")
    first.push({"type": "user", "text": "hello"})
    with pytest.raises(turnstile.StoreError):
        turnstile.Session(retail, store=store, session_id="one")
    del first


def test_a_request_the_reader_cannot_place_is_left_to_a_person():
    fixtures = REPO / "engine" / "tests" / "fixtures" / "pharmacy"
    pharmacy = turnstile.Bundle.load(fixtures)
    events = conversations(fixtures / "tests" / "requests.jsonl")["R05-yes-to-holding-off"]
    (write,) = writes(turnstile.Session(pharmacy).push_many(events))
    assert write.decision == "confirm" and not write.allowed
    assert write.consent == "absent"
    assert write.undecided == [
        {
            "question": "The patient asks to cancel a refill.",
            "step": "classify[cancel_refill]",
        }
    ]
