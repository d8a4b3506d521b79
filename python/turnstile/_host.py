"""What every framework adapter does with a session: a tool call decided
once per call id, the approval of a held call, the tool's result, and the
messages of the conversation, each sent as the native event it is."""

from __future__ import annotations

import json
from typing import Any, Mapping

from ._session import Session
from ._verdict import Verdict


def tool_message(verdict: Verdict) -> str:
    """What the model reads instead of the output of a call that did not run."""
    because = verdict.remediation or verdict.explanation or verdict.decision
    return f"The policy gate did not run this call ({verdict.decision}): {because}"


def result_content(output: Any) -> Any:
    """A tool's output as a result event's content: JSON text parsed."""
    if isinstance(output, str):
        try:
            return json.loads(output)
        except ValueError:
            return output
    return output


class GatedCalls:
    """The decisions of one session's tool calls, by call id."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.verdicts: dict[str, Verdict] = {}
        self.approved: dict[str, bool] = {}

    def user(self, text: str) -> Verdict:
        return self.session.push({"type": "user", "text": text})

    def agent(self, text: str) -> Verdict:
        return self.session.push({"type": "agent", "text": text})

    def call(self, call_id: str, tool: str, args: Mapping[str, Any]) -> Verdict:
        """The verdict on a call, decided the first time its id is seen."""
        if call_id not in self.verdicts:
            event = {"type": "call", "id": call_id, "tool": tool, "args": dict(args)}
            self.verdicts[call_id] = self.session.push(event)
        return self.verdicts[call_id]

    def answer(self, call_id: str, granted: bool) -> Verdict | None:
        """The host's answer to a held call, sent once as an approval event."""
        if call_id in self.approved:
            return None
        self.approved[call_id] = granted
        return self.session.approve(call_id, granted=granted)

    def approved_call(self, call_id: str, tool: str, args: Mapping[str, Any]) -> Verdict:
        """An approved held call, asked again: the approval opens it once."""
        self.answer(call_id, True)
        return self.call(f"{call_id}.approved", tool, args)

    def result(self, call_id: str, output: Any, ok: bool = True) -> Verdict:
        event = {"type": "result", "id": call_id, "ok": ok, "content": result_content(output)}
        return self.session.push(event)
