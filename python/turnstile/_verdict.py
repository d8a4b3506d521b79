"""The gate's answer to one event, typed."""

from __future__ import annotations

import json
from typing import Any, Mapping


class Verdict:
    """What the gate says about one event.

    ``decision`` is one of the engine's labels: ``allow``, ``block``,
    ``confirm``, ``guide``, ``deviate``, ``observe`` or ``unchecked``. A call
    runs unless the verdict :attr:`withholds` it (``block``, ``confirm``); a
    gated (mutating) call is decided ``allow`` or withheld.
    """

    __slots__ = ("_report",)

    def __init__(self, report: Mapping[str, Any]) -> None:
        self._report = dict(report)

    @classmethod
    def from_json(cls, text: str) -> "Verdict":
        """The verdict of a report as ``turnstile gate`` prints it."""
        return cls(json.loads(text))

    @property
    def decision(self) -> str:
        """The verdict's label (``allow``, ``block``, ``confirm``, ...)."""
        return self._report["verdict"]

    @property
    def allowed(self) -> bool:
        """Whether the call may run: only an ``allow`` lets it."""
        return self.decision == "allow"

    @property
    def withholds(self) -> bool:
        """Whether the call must not run: a ``block``, or a ``confirm``
        waiting for the user's answer. Every other verdict lets it run."""
        return self.decision in ("block", "confirm")

    @property
    def event(self) -> int:
        """The index of the event in its session."""
        return self._report["event"]

    @property
    def kind(self) -> str:
        """A short description of the event (``user``, ``call get_order``)."""
        return self._report["kind"]

    @property
    def mutating(self) -> bool:
        """Whether the event is an agent call of a mutating (gated) tool."""
        return bool(self._report.get("mutating", False))

    @property
    def reason(self) -> str | None:
        """Why a call is blocked or deviates (the engine's reason code,
        ``MissingStep``, ``WrongValue``, ...)."""
        return self._report.get("reason")

    @property
    def step(self) -> str | None:
        """The authorizing step of an allow, or the first unmet step."""
        return self._report.get("step")

    @property
    def remediation(self) -> str | None:
        """What the agent should do instead of a blocked call."""
        return self._report.get("remediation")

    @property
    def explanation(self) -> str | None:
        """Which conditions failed, with the values read."""
        return self._report.get("explanation")

    @property
    def confirmation(self) -> dict[str, Any] | None:
        """The canonical confirmation of a ``confirm``: ``call``, ``tool``,
        ``text`` and ``details`` (a list of ``{"name", "value"}``)."""
        return self._report.get("confirmation")

    @property
    def consent(self) -> str | None:
        """For a ``confirm``: ``absent``, ``qualified``, ``unknown`` (a model
        judge could not answer) or ``given`` (only ``undecided`` stands)."""
        return self._report.get("consent")

    @property
    def undecided(self) -> list[dict[str, str]]:
        """For a ``confirm``: the questions about the conversation the judge
        could answer neither yes nor no (``{"question", "step"}``), which the
        person approving the call decides too."""
        return list(self._report.get("undecided", []))

    @property
    def approved(self) -> dict[str, Any] | None:
        """For an ``allow`` an approval opened: ``{"by", "call"}``."""
        return self._report.get("approved")

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The requests at the firing: bindings, cursors, remediation."""
        return list(self._report.get("requests", []))

    @property
    def enforced(self) -> bool:
        """False in shadow mode, where every write is answered ``allow``."""
        return bool(self._report.get("enforced", True))

    @property
    def would(self) -> "Verdict | None":
        """In shadow mode, for a write answered ``allow`` that enforcement
        would withhold: the verdict enforcement gives."""
        would = self._report.get("would")
        return None if would is None else Verdict(would)

    def to_dict(self) -> dict[str, Any]:
        """The whole report, as ``turnstile gate`` prints it."""
        return json.loads(json.dumps(self._report))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Verdict) and other._report == self._report

    def __repr__(self) -> str:
        parts = [f"decision={self.decision!r}"]
        if self.step is not None:
            parts.append(f"step={self.step!r}")
        return f"Verdict({', '.join(parts)})"
