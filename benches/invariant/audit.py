"""Invariant (invariant-ai 0.3.5, `invariant.analyzer.policy.LocalPolicy`) on
the vendored retail + airline tau2 traces, for the side-by-side figure in
BENCHMARKS.md ("audit"). Run by hand, in the same sitting as
`cargo bench -p turnstile-benches --bench audit`:

    python3 -m venv $CARGO_TARGET_DIR/invariant-venv
    $CARGO_TARGET_DIR/invariant-venv/bin/pip install invariant-ai==0.3.5
    $CARGO_TARGET_DIR/invariant-venv/bin/python benches/invariant/audit.py

Seven read-before-write / status / reason rules, compiled once; each
simulation is converted to Invariant's OpenAI-style message list and
analyzed. Prints MB/s end to end (decompressing, parsing, converting and
analyzing) and analysis only, over the decompressed bytes.
"""

import glob
import json
import os
import subprocess
import sys
import time

# The pairwise rules (a read before a write) exceed Invariant's default
# budget of 100 evaluation steps per trace on long tau2 conversations.
os.environ.setdefault("INVARIANT_MAX_ITERATIONS", "10000000")

from invariant.analyzer.policy import LocalPolicy  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

POLICY = r'''
raise "cancel of an order that is not pending" if:
    (out: ToolOutput) -> (call: ToolCall)
    out is tool:get_order_details
    not ("\"status\": \"pending\"" in out.content)
    call is tool:cancel_pending_order

raise "item change of an order that is not pending" if:
    (out: ToolOutput) -> (call: ToolCall)
    out is tool:get_order_details
    not ("\"status\": \"pending\"" in out.content)
    call is tool:modify_pending_order_items

raise "address change of an order that is not pending" if:
    (out: ToolOutput) -> (call: ToolCall)
    out is tool:get_order_details
    not ("\"status\": \"pending\"" in out.content)
    call is tool:modify_pending_order_address

raise "return of an order that is not delivered" if:
    (out: ToolOutput) -> (call: ToolCall)
    out is tool:get_order_details
    not ("\"status\": \"delivered\"" in out.content)
    call is tool:return_delivered_order_items

raise "exchange of an order that is not delivered" if:
    (out: ToolOutput) -> (call: ToolCall)
    out is tool:get_order_details
    not ("\"status\": \"delivered\"" in out.content)
    call is tool:exchange_delivered_order_items

raise "cancel with a reason the policy does not accept" if:
    (call: ToolCall)
    call is tool:cancel_pending_order
    not (call.function.arguments["reason"] in ["no longer needed", "ordered by mistake"])

raise "cancel of an uninsured basic-economy reservation" if:
    (out: ToolOutput) -> (call: ToolCall)
    out is tool:get_reservation_details
    "\"cabin\": \"basic_economy\"" in out.content
    "\"insurance\": \"no\"" in out.content
    call is tool:cancel_reservation
'''


def messages(sim):
    out = []
    for m in sim.get("messages", []):
        role = m.get("role")
        if role == "tool":
            out.append({"role": "tool", "tool_call_id": m.get("id"), "content": m.get("content") or ""})
            continue
        msg = {"role": role, "content": m.get("content") or ""}
        calls = []
        for c in m.get("tool_calls") or []:
            args = c.get("arguments")
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    args = {}
            calls.append({"id": c.get("id"), "type": "function",
                          "function": {"name": c.get("name"), "arguments": args or {}}})
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    return out


def main():
    files = sorted(glob.glob(os.path.join(ROOT, "data/tau2/traces/retail_*.zst"))
                   + glob.glob(os.path.join(ROOT, "data/tau2/traces/airline_*.zst")))
    raw = [subprocess.run(["zstd", "-dc", f], check=True, capture_output=True).stdout for f in files]
    total = sum(len(r) for r in raw)
    policy = LocalPolicy.from_string(POLICY)
    start = time.perf_counter()
    analysis = 0.0
    traces = errors = 0
    for data in raw:
        doc = json.loads(data)
        for sim in doc["simulations"]:
            trace = messages(sim)
            t = time.perf_counter()
            result = policy.analyze(trace)
            analysis += time.perf_counter() - t
            traces += 1
            errors += len(result.errors)
    end_to_end = time.perf_counter() - start
    mb = total / 1e6
    print(f"{traces} traces, {mb:.2f} MB, {errors} errors raised")
    print(f"end to end: {end_to_end:.2f} s = {mb / end_to_end:.2f} MB/s")
    print(f"analysis only: {analysis:.2f} s = {mb / analysis:.2f} MB/s")


if __name__ == "__main__":
    sys.exit(main())
