"""The gate inside the OpenAI Agents SDK (``openai-agents``).

:class:`Gate` wraps an agent's function tools over one :class:`Session`:

- every call is decided before its body runs. ``allow`` runs it and sends
  its result to the session; ``block`` does not run it, and the model
  receives the remediation as the tool's result;
- ``confirm`` goes through the SDK's human-in-the-loop flow: the tool's
  ``needs_approval`` answers true, the run pauses with an interruption, and
  :meth:`Gate.confirmation` gives the canonical confirmation to show. The
  app's ``state.approve(item)`` / ``state.reject(item)`` (or
  :meth:`Gate.approve` / :meth:`Gate.reject`) becomes the ``approval``
  event when the run resumes;
- :meth:`Gate.run` sends the user's message, and :attr:`Gate.hooks` the
  agent's messages as the model writes them, so dialogue checks see the
  conversation.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agents import Agent, FunctionTool, RunHooks, Runner
from agents.items import ModelResponse, ToolApprovalItem
from agents.run_context import RunContextWrapper
from agents.tool_context import ToolContext

from ._host import GatedCalls, tool_message
from ._session import Session
from ._verdict import Verdict


class _Conversation(RunHooks[Any]):
    """Sends the agent's messages to the session as the model writes them."""

    def __init__(self, calls: GatedCalls) -> None:
        self._calls = calls

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        for item in response.output:
            if getattr(item, "type", None) == "message":
                text = "".join(getattr(part, "text", "") for part in item.content)
                if text:
                    self._calls.agent(text)


class Gate:
    """One conversation's gate for an OpenAI Agents SDK agent."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._calls = GatedCalls(session)
        self.hooks: RunHooks[Any] = _Conversation(self._calls)

    def tool(self, tool: FunctionTool) -> FunctionTool:
        """``tool`` gated: decided by the session before its body runs."""
        calls = self._calls

        async def needs_approval(context: RunContextWrapper[Any], args: dict[str, Any], call_id: str) -> bool:
            return calls.call(call_id, tool.name, args).decision == "confirm"

        async def on_invoke_tool(context: ToolContext[Any], arguments: str) -> Any:
            call_id = context.tool_call_id
            args = _arguments(arguments)
            verdict = calls.call(call_id, tool.name, args)
            if verdict.decision == "confirm":
                # The SDK runs a held call only once the app approved it.
                verdict = calls.approved_call(call_id, tool.name, args)
            if verdict.withholds:
                return tool_message(verdict)
            output = await tool.on_invoke_tool(context, arguments)
            calls.result(call_id, output)
            return output

        return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool, needs_approval=needs_approval)

    def tools(self, tools: list[FunctionTool]) -> list[FunctionTool]:
        """Each of ``tools`` gated."""
        return [self.tool(t) for t in tools]

    def confirmation(self, item: ToolApprovalItem) -> dict[str, Any] | None:
        """The canonical confirmation of an interruption the gate raised."""
        verdict = self.verdict(_call_id(item))
        return None if verdict is None else verdict.confirmation

    def verdict(self, call_id: str) -> Verdict | None:
        """The verdict on the call ``call_id``, once decided."""
        return self._calls.verdicts.get(call_id)

    def approve(self, state: Any, item: ToolApprovalItem) -> None:
        """Approves ``item`` in the run state, and tells the session."""
        state.approve(item)
        self._calls.answer(_call_id(item), True)

    def reject(self, state: Any, item: ToolApprovalItem) -> None:
        """Rejects ``item`` in the run state, and tells the session."""
        state.reject(item)
        self._calls.answer(_call_id(item), False)

    async def run(self, agent: Agent[Any], user_message: str | None = None, **kwargs: Any) -> Any:
        """``Runner.run`` with the user's message sent to the session first;
        resume an interrupted run with ``run(agent, state=...)``."""
        state = kwargs.pop("state", None)
        if user_message is not None:
            self._calls.user(user_message)
        run_input = state if state is not None else user_message
        return await Runner.run(agent, run_input, hooks=self.hooks, **kwargs)


def _call_id(item: ToolApprovalItem) -> str:
    raw = item.raw_item
    return raw["call_id"] if isinstance(raw, dict) else raw.call_id


def _arguments(arguments: str) -> dict[str, Any]:
    import json

    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}
