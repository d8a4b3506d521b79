"""The LangGraph adapter, with LangChain's fake chat model (no network): a
retail conversation whose cancellation is held by interrupt(), allowed
after an explicit yes or the resume value, a formal block no approval
opens, and a graph restarted from its checkpointer in the middle."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

import turnstile
from turnstile.langgraph import GatedState, gated_tool_node
from retail_tools import DELIVERED, EMAIL, PENDING, USER, RetailTools


def call(name, args, call_id):
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def lookups(order):
    return [
        call("find_user_id_by_email", {"email": EMAIL}, "c1"),
        call("get_user_details", {"user_id": USER}, "c2"),
        call("get_order_details", {"order_id": order}, "c3"),
    ]


def cancel(order, call_id="c4"):
    return call("cancel_pending_order", {"order_id": order, "reason": "no longer needed"}, call_id)


def ask(order):
    return AIMessage(content=f"I will cancel order {order} with the reason 'no longer needed'. Shall I proceed?")


def request(order):
    return HumanMessage(content=f"Please cancel order {order}, I no longer need it. My email is {EMAIL}.")


def graph(retail, replies, tools, checkpointer):
    model = GenericFakeChatModel(messages=iter(replies))

    def agent(state):
        return {"messages": [model.invoke(state["messages"])]}

    def route(state):
        return "tools" if state["messages"][-1].tool_calls else END

    builder = StateGraph(GatedState)
    builder.add_node("agent", agent)
    builder.add_node(
        "tools",
        gated_tool_node(
            retail,
            [tools.find_user_id_by_email, tools.get_user_details, tools.get_order_details, tools.cancel_pending_order],
        ),
    )
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=checkpointer)


CONFIG = {"configurable": {"thread_id": "t1"}}


def tool_messages(state, call_id):
    return [m for m in state["messages"] if getattr(m, "tool_call_id", None) == call_id]


def test_an_unconfirmed_cancellation_interrupts_and_a_refusal_keeps_it_from_running(retail):
    tools = RetailTools()
    app = graph(retail, lookups(PENDING) + [cancel(PENDING), AIMessage(content="Not cancelled.")], tools, InMemorySaver())
    state = app.invoke({"messages": [request(PENDING)]}, CONFIG)
    (pause,) = state["__interrupt__"]
    assert pause.value["confirmation"]["text"] == f"Cancel order {PENDING} (reason: no longer needed)?"
    assert pause.value["confirmation"]["call"] == "c4"
    assert tools.ran("cancel_pending_order") == []

    state = app.invoke(Command(resume=False), CONFIG)
    assert tools.ran("cancel_pending_order") == []
    (answer,) = tool_messages(state, "c4")
    assert "confirm" in answer.content
    assert state["messages"][-1].content == "Not cancelled."


def test_the_resume_value_approves_and_the_cancellation_runs_once(retail):
    tools = RetailTools()
    app = graph(retail, lookups(PENDING) + [cancel(PENDING), AIMessage(content="Cancelled.")], tools, InMemorySaver())
    app.invoke({"messages": [request(PENDING)]}, CONFIG)
    state = app.invoke(Command(resume={"granted": True}), CONFIG)
    assert tools.ran("cancel_pending_order") == [{"order_id": PENDING, "reason": "no longer needed"}]
    session = turnstile.Session.restore(retail, state["turnstile"])
    assert len(session) > 0


def test_an_explicit_yes_allows_the_cancellation(retail):
    tools = RetailTools()
    saver = InMemorySaver()
    app = graph(retail, lookups(PENDING) + [ask(PENDING), cancel(PENDING), AIMessage(content="Done.")], tools, saver)
    app.invoke({"messages": [request(PENDING)]}, CONFIG)
    state = app.invoke({"messages": [HumanMessage(content="Yes, please proceed.")]}, CONFIG)
    assert "__interrupt__" not in state
    assert len(tools.ran("cancel_pending_order")) == 1


def test_a_formal_block_returns_the_remediation_and_no_approval_opens_it(retail):
    tools = RetailTools()
    app = graph(
        retail,
        lookups(DELIVERED) + [ask(DELIVERED), cancel(DELIVERED), AIMessage(content="Cannot.")],
        tools,
        InMemorySaver(),
    )
    app.invoke({"messages": [request(DELIVERED)]}, CONFIG)
    state = app.invoke({"messages": [HumanMessage(content="Yes, please proceed.")]}, CONFIG)
    assert "__interrupt__" not in state, "a block is not held for approval"
    (answer,) = tool_messages(state, "c4")
    assert "only pending orders can be cancelled" in answer.content
    assert tools.ran("cancel_pending_order") == []
    session = turnstile.Session.restore(retail, state["turnstile"])
    assert session.approve("c4").to_dict().get("anomalies")
    again = session.push(
        {"type": "call", "id": "c5", "tool": "cancel_pending_order",
         "args": {"order_id": DELIVERED, "reason": "no longer needed"}}
    )
    assert again.decision == "block"


def test_a_restarted_graph_continues_from_its_checkpointer(retail):
    saver = InMemorySaver()
    first = graph(retail, lookups(PENDING) + [ask(PENDING)], RetailTools(), saver)
    first.invoke({"messages": [request(PENDING)]}, CONFIG)
    del first

    tools = RetailTools()
    restarted = graph(retail, [cancel(PENDING), AIMessage(content="Done.")], tools, saver)
    restarted.invoke({"messages": [HumanMessage(content="Yes, please proceed.")]}, CONFIG)
    assert len(tools.ran("cancel_pending_order")) == 1

    # A fresh thread has no yes: the same call is held.
    fresh = graph(retail, lookups(PENDING) + [cancel(PENDING)], RetailTools(), saver)
    state = fresh.invoke({"messages": [request(PENDING)]}, {"configurable": {"thread_id": "t2"}})
    assert state["__interrupt__"]
