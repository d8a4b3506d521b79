"""The binding's cost per event: `Session.push` from Python minus the
engine's push inside it, by event size (BENCHMARKS.md, "Python").

For each event, a session restored from the retail `cancel-pending`
conversation up to its cancellation (outside the timing) takes the event;
the Python side is timed around exactly what `Session.push` does (the event
written as JSON, the native call, the report read back into a `Verdict`),
the engine's push is timed inside the native call (`push_timed`). Run it
with a release wheel installed: `python python/benches/push_overhead.py`.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1] / "tests"))

import turnstile  # noqa: E402
from turnstile._session import _event_text  # noqa: E402
from turnstile._verdict import Verdict  # noqa: E402
from conftest import BUNDLES, conversations  # noqa: E402

ROUNDS = 2000


def padded(text: str, size: int) -> str:
    filler = " I would also like to mention that the package arrived late last week."
    while len(text) < size:
        text += filler
    return text[:size]


def cases(call: dict) -> list[tuple[str, dict]]:
    events = []
    for size in (100, 500, 1000, 4000, 16000):
        user = {"type": "user", "text": padded("Thanks.", size - 30)}
        events.append((f"user message, {len(json.dumps(user))} B", user))
    events.append((f"gated call (cancel_pending_order), {len(json.dumps(call))} B", call))
    return events


def main() -> None:
    retail = turnstile.Bundle.load(BUNDLES / "retail")
    events = conversations(BUNDLES / "retail" / "tests" / "cancel.jsonl")["cancel-pending"]
    call = next(e for e in events if e.get("tool") == "cancel_pending_order")
    prefix = events[: events.index(call)]
    base = turnstile.Session(retail)
    base.push_many(prefix)
    saved = base.snapshot()
    print(f"{'event':<48} {'python push':>12} {'engine push':>12} {'overhead':>10} {'p99 overh.':>10}")
    for name, event in cases(call):
        totals, engines, overheads = [], [], []
        for _ in range(ROUNDS):
            session = turnstile.Session.restore(retail, saved)
            started = time.perf_counter_ns()
            text, engine = session._native.push_timed(_event_text(event))
            session._counted(Verdict.from_json(text))
            total = time.perf_counter_ns() - started
            totals.append(total)
            engines.append(engine)
            overheads.append(total - engine)
        overheads.sort()
        p99 = overheads[int(len(overheads) * 0.99)]
        print(
            f"{name:<48} {statistics.median(totals) / 1000:>10.2f}µs "
            f"{statistics.median(engines) / 1000:>10.2f}µs "
            f"{statistics.median(overheads) / 1000:>8.2f}µs {p99 / 1000:>8.2f}µs"
        )


if __name__ == "__main__":
    main()
