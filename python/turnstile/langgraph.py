"""The gate inside LangGraph (``langgraph``): a gated tool node.

:func:`gated_tool_node` makes the node that runs the tool calls of the last
AI message, each decided by a :class:`Session` first:

- ``allow`` (or any verdict that does not withhold) runs the tool and sends
  its result to the session;
- ``block`` does not run it: the tool message is the remediation;
- ``confirm`` calls :func:`langgraph.types.interrupt` with the canonical
  confirmation; the value the graph is resumed with
  (``Command(resume=True)`` / ``False``, or ``{"granted": ...}``) becomes
  the ``approval`` event, and an approved call runs.

The session lives in the graph's state (``turnstile``: its snapshot), so
the graph's checkpointer keeps it: a restarted graph on the same thread
continues it. The conversation's messages reach the session as they enter
the state, so dialogue checks see them.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.graph import MessagesState
from langgraph.types import interrupt

from ._bundle import Bundle
from ._host import GatedCalls, tool_message
from ._session import Judge, Session


class GatedState(MessagesState):
    """The messages, and the gate's session as of them."""

    turnstile: bytes | None
    """The session's snapshot (``None`` before the first event)."""

    turnstile_seen: int
    """How many of the messages the session has taken."""


def gated_tool_node(
    bundle: Bundle,
    tools: Iterable[Any],
    *,
    schedule: str = "workflow",
    judge: Judge = "offline",
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool node for a graph over :class:`GatedState`. ``tools`` are
    LangChain tools (``.name``, ``.invoke(args)``) or plain functions."""
    by_name = {_name(tool): tool for tool in tools}

    def node(state: dict[str, Any]) -> dict[str, Any]:
        saved = state.get("turnstile")
        session = (
            Session.restore(bundle, saved, judge)
            if saved
            else Session(bundle, schedule=schedule, judge=judge)
        )
        calls = GatedCalls(session)
        messages: Sequence[AnyMessage] = state["messages"]
        for message in messages[state.get("turnstile_seen") or 0 :]:
            _take(calls, message)
        last = messages[-1] if messages else None
        answers: list[ToolMessage] = []
        for call in getattr(last, "tool_calls", None) or []:
            answers.append(_run(calls, by_name, call))
        return {
            "messages": answers,
            "turnstile": session.snapshot(),
            "turnstile_seen": len(messages) + len(answers),
        }

    return node


def _take(calls: GatedCalls, message: AnyMessage) -> None:
    """Sends a message the session has not seen: the user's or the agent's
    text (tool messages are sent by the node as results)."""
    text = message.content if isinstance(message.content, str) else _text(message.content)
    if isinstance(message, HumanMessage) and text:
        calls.user(text)
    elif isinstance(message, AIMessage) and text:
        calls.agent(text)


def _run(calls: GatedCalls, tools: dict[str, Any], call: dict[str, Any]) -> ToolMessage:
    call_id, name, args = call["id"], call["name"], call.get("args") or {}
    verdict = calls.call(call_id, name, args)
    if verdict.decision == "confirm":
        answer = interrupt({"confirmation": verdict.confirmation, "verdict": verdict.to_dict()})
        granted = bool(answer.get("granted")) if isinstance(answer, dict) else answer is True
        if granted:
            verdict = calls.approved_call(call_id, name, args)
        else:
            calls.answer(call_id, False)
    tool = tools.get(name)
    if verdict.withholds or tool is None:
        message = tool_message(verdict) if tool is not None else f"Unknown tool {name!r}."
        return ToolMessage(content=message, tool_call_id=call_id, name=name, status="error")
    output = tool.invoke(args) if hasattr(tool, "invoke") else tool(**args)
    calls.result(call_id, output)
    return ToolMessage(content=_content(output), tool_call_id=call_id, name=name)


def _name(tool: Any) -> str:
    return getattr(tool, "name", None) or tool.__name__


def _text(content: Any) -> str:
    parts = content if isinstance(content, list) else [content]
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in parts)


def _content(output: Any) -> str:
    return output if isinstance(output, str) else str(output)
