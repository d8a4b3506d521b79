"""The OpenAI Agents SDK adapter, with the SDK's own scripted model (no
network): a retail conversation whose cancellation is held for
confirmation, allowed after an explicit yes or the app's approval through
the SDK's interruption flow, and a formal block no approval opens."""

from __future__ import annotations

import asyncio

import pytest
from agents import Agent, function_tool, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

import turnstile
from turnstile.openai_agents import Gate
from retail_tools import DELIVERED, EMAIL, PENDING, USER, RetailTools

set_tracing_disabled(True)


def agent_tools(tools: RetailTools):
    return [
        function_tool(tools.find_user_id_by_email),
        function_tool(tools.get_user_details),
        function_tool(tools.get_order_details),
        function_tool(tools.cancel_pending_order),
    ]


def lookups(order: str) -> list[ModelStep]:
    return [
        ModelStep(output=[function_call("find_user_id_by_email", {"email": EMAIL}, call_id="c1")]),
        ModelStep(output=[function_call("get_user_details", {"user_id": USER}, call_id="c2")]),
        ModelStep(output=[function_call("get_order_details", {"order_id": order}, call_id="c3")]),
    ]


def cancel(order: str, call_id: str = "c4") -> ModelStep:
    args = {"order_id": order, "reason": "no longer needed"}
    return ModelStep(output=[function_call("cancel_pending_order", args, call_id=call_id)])


def said(text: str) -> ModelStep:
    return ModelStep(output=[assistant_message(text)])


ASK = "I will cancel order {order} with the reason 'no longer needed'. Shall I proceed?"
REQUEST = f"Please cancel order {{order}}, I no longer need it. My email is {EMAIL}."


def build(retail, steps, session=None):
    tools = RetailTools()
    model = ScriptedModel(steps)
    gate = Gate(session or turnstile.Session(retail))
    agent = Agent(name="retail", instructions="Help.", tools=gate.tools(agent_tools(tools)), model=model)
    return tools, model, gate, agent


def run(coroutine):
    return asyncio.run(coroutine)


def test_an_unconfirmed_cancellation_pauses_for_approval_and_a_rejection_keeps_it_from_running(retail):
    steps = lookups(PENDING) + [cancel(PENDING), said("I did not cancel the order.")]
    tools, model, gate, agent = build(retail, steps)
    result = run(gate.run(agent, REQUEST.format(order=PENDING)))

    (interruption,) = result.interruptions
    assert gate.confirmation(interruption) == {
        "call": "c4",
        "details": [
            {"name": "order_id", "value": PENDING},
            {"name": "reason", "value": "no longer needed"},
        ],
        "text": f"Cancel order {PENDING} (reason: no longer needed)?",
        "tool": "cancel_pending_order",
    }
    assert tools.ran("cancel_pending_order") == []

    state = result.to_state()
    gate.reject(state, interruption)
    result = run(gate.run(agent, state=state))
    assert tools.ran("cancel_pending_order") == []
    assert result.final_output == "I did not cancel the order."
    model.assert_complete()


def test_the_apps_approval_through_the_sdk_lets_the_cancellation_run(retail):
    steps = lookups(PENDING) + [cancel(PENDING), said("Order cancelled.")]
    tools, model, gate, agent = build(retail, steps)
    result = run(gate.run(agent, REQUEST.format(order=PENDING)))
    (interruption,) = result.interruptions
    assert tools.ran("cancel_pending_order") == []

    state = result.to_state()
    state.approve(interruption)  # the SDK's own approval, no adapter call
    result = run(gate.run(agent, state=state))
    assert tools.ran("cancel_pending_order") == [{"order_id": PENDING, "reason": "no longer needed"}]
    assert gate.verdict("c4.approved").approved == {"by": "user", "call": "c4"}
    assert result.final_output == "Order cancelled."
    model.assert_complete()


def test_an_explicit_yes_in_the_conversation_allows_the_cancellation(retail):
    steps = lookups(PENDING) + [said(ASK.format(order=PENDING)), cancel(PENDING), said("Done.")]
    tools, model, gate, agent = build(retail, steps)
    result = run(gate.run(agent, REQUEST.format(order=PENDING)))
    assert not result.interruptions
    assert tools.ran("cancel_pending_order") == []

    result = run(gate.run(agent, "Yes, please proceed."))
    assert not result.interruptions
    assert gate.verdict("c4").decision == "allow"
    assert len(tools.ran("cancel_pending_order")) == 1
    model.assert_complete()


def test_a_formal_block_never_runs_and_no_approval_opens_it(retail):
    steps = lookups(DELIVERED) + [
        said(ASK.format(order=DELIVERED)),
        cancel(DELIVERED),
        said("I cannot cancel a delivered order."),
    ]
    tools, model, gate, agent = build(retail, steps)
    run(gate.run(agent, REQUEST.format(order=DELIVERED)))
    result = run(gate.run(agent, "Yes, please proceed."))
    assert not result.interruptions, "a block is not held for approval"
    assert gate.verdict("c4").decision == "block"
    assert tools.ran("cancel_pending_order") == []
    # The model read the remediation as the tool's result.
    assert "only pending orders can be cancelled" in str(model.last_call)
    # An approval of a blocked call is an anomaly and opens nothing.
    approval = gate.session.approve("c4")
    assert approval.to_dict().get("anomalies")
    again = gate.session.push(
        {"type": "call", "id": "c5", "tool": "cancel_pending_order",
         "args": {"order_id": DELIVERED, "reason": "no longer needed"}}
    )
    assert again.decision == "block"


def test_a_session_restored_in_the_middle_continues_the_conversation(retail):
    steps = lookups(PENDING) + [said(ASK.format(order=PENDING))]
    tools, model, gate, agent = build(retail, steps)
    run(gate.run(agent, REQUEST.format(order=PENDING)))
    saved = gate.session.snapshot()

    restored = turnstile.Session.restore(retail, saved)
    tools, model, gate, agent = build(retail, [cancel(PENDING), said("Done.")], session=restored)
    run(gate.run(agent, "Yes, please proceed."))
    assert gate.verdict("c4").decision == "allow"
    assert len(tools.ran("cancel_pending_order")) == 1
