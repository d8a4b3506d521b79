"""Shadow mode from Python: the same engine implementation `turnstile gate
--mode shadow` and `turnstile serve --mode shadow` use."""

from __future__ import annotations

import json
import subprocess

import pytest

import turnstile
from conftest import BUNDLES, without_yes


def test_withheld_writes_are_answered_allow_with_what_enforcement_would_say(retail, retail_cancel):
    events = retail_cancel["cancel-delivered"] + without_yes(retail_cancel["cancel-pending"])
    enforced = turnstile.Session(retail).push_many(events)
    shadow_session = turnstile.Session(retail, mode="shadow")
    assert shadow_session.mode == "shadow"
    shadowed = shadow_session.push_many(events)
    decisions = [v.decision for v in enforced if v.mutating]
    assert decisions == ["block", "confirm"]
    for real, shadow in zip(enforced, shadowed):
        assert not shadow.enforced
        if real.decision in ("block", "confirm"):
            assert shadow.decision == "allow" and shadow.allowed
            assert shadow.would == real
        else:
            assert shadow.would is None
            assert shadow.decision == real.decision
    assert shadow_session.withheld == {"block": 1, "confirm": 1}
    assert turnstile.Session(retail).withheld == {"block": 0, "confirm": 0}


def test_a_shadow_session_records_the_real_verdicts(retail, retail_cancel, tmp_path, turnstile_bin):
    events = retail_cancel["cancel-delivered"]
    store = tmp_path / "shadow.sqlite"
    session = turnstile.Session(retail, store=store, session_id="s", mode="shadow")
    (write,) = [v for v in session.push_many(events) if v.mutating]
    assert write.decision == "allow" and write.would.decision == "block"
    del session
    call = next(e for e in events if e.get("tool") == "cancel_pending_order")
    gate = subprocess.run(
        [str(turnstile_bin), "gate", "--state", str(store), "--session", "s", str(BUNDLES / "retail")],
        input=json.dumps(dict(call, id="c9")) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(gate.stdout)["verdict"] == "block"


def test_an_unknown_mode_is_refused(retail):
    with pytest.raises(ValueError, match="enforce or shadow"):
        turnstile.Session(retail, mode="audit")
