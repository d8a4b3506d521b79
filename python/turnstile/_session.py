"""Sessions: one conversation's gate, in memory or in the durable store."""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Mapping, Union

from . import _native
from ._bundle import Bundle
from ._judging import DEFAULT_TIMEOUT, JudgeCallable, judge_args
from ._native import EventError
from ._verdict import Verdict

Judge = Union[str, JudgeCallable]


def _event_text(event: object) -> str:
    if not isinstance(event, Mapping):
        raise EventError(
            f"an event is a dict in the native trace format, not {type(event).__name__}"
        )
    try:
        return json.dumps(event, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise EventError(f"the event is not JSON: {error}") from error


class Session:
    """One conversation's gate.

    ``schedule`` is ``workflow`` (the default), ``boundary`` or ``action``.
    ``judge`` answers the dialogue questions a write needs: ``"offline"``
    (the default), ``"openai"`` (``TURNSTILE_JUDGE_URL``/``OPENAI_BASE_URL``,
    the model and ``OPENAI_API_KEY`` from the environment),
    ``"recorded:<file>"``, or a callable ``(questions) -> answers`` (see
    :mod:`turnstile._judging`) given at most ``judge_timeout`` seconds.

    ``mode="shadow"`` records every verdict as enforcing would, but answers
    each write it would withhold with ``allow`` (``verdict.enforced`` is
    false, ``verdict.would`` the verdict enforcement gives); the host runs
    the call and the session goes on as if it ran. :attr:`withheld` counts
    what enforcement would have blocked or held for confirmation.

    With ``store`` (a SQLite file) the session is the one ``turnstile gate
    --state <store> --session <session_id>`` reads and writes: each event and
    its verdict are committed before :meth:`push` returns, and a new
    ``Session`` with the same store and id continues it.
    """

    __slots__ = ("_native", "_bundle", "_judge", "_timeout", "_withheld")

    def __init__(
        self,
        bundle: Bundle,
        schedule: str = "workflow",
        judge: Judge = "offline",
        *,
        store: str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        judge_timeout: float | None = DEFAULT_TIMEOUT,
        mode: str = "enforce",
    ) -> None:
        if not isinstance(bundle, Bundle):
            raise TypeError(f"bundle must be a turnstile.Bundle, not {type(bundle).__name__}")
        name, ask = judge_args(judge, judge_timeout)
        self._bundle = bundle
        self._judge = judge
        self._timeout = judge_timeout
        self._withheld = {"block": 0, "confirm": 0}
        self._native = _native.NativeSession(
            bundle._native,
            schedule,
            name,
            ask,
            None if store is None else os.fspath(store),
            session_id,
            mode,
        )

    @classmethod
    def restore(
        cls,
        bundle: Bundle,
        data: bytes,
        judge: Judge = "offline",
        *,
        judge_timeout: float | None = DEFAULT_TIMEOUT,
        mode: str = "enforce",
    ) -> "Session":
        """The session :meth:`snapshot` saved, in memory, answering exactly
        like the original. Raises :class:`turnstile.SessionError` for data
        that is not a saved session or was saved with another bundle."""
        name, ask = judge_args(judge, judge_timeout)
        session = cls.__new__(cls)
        session._bundle = bundle
        session._judge = judge
        session._timeout = judge_timeout
        session._withheld = {"block": 0, "confirm": 0}
        session._native = _native.NativeSession.restore(
            bundle._native, bytes(data), name, ask, mode
        )
        return session

    @property
    def bundle(self) -> Bundle:
        """The bundle the session runs."""
        return self._bundle

    @property
    def mode(self) -> str:
        """``enforce`` or ``shadow``."""
        return self._native.mode

    @property
    def withheld(self) -> dict[str, int]:
        """The writes this object's verdicts withheld (enforcing) or would
        have withheld (shadow), by decision: ``{"block": n, "confirm": m}``."""
        return dict(self._withheld)

    @property
    def session_id(self) -> str | None:
        """The stored session's id; ``None`` for a session in memory."""
        return self._native.session_id

    def __len__(self) -> int:
        """The number of events taken."""
        return self._native.events

    def push(self, event: Mapping[str, Any]) -> Verdict:
        """Decides the next event and returns its verdict.

        Raises :class:`turnstile.EventError` for an event that is not a dict
        in the native trace format (a missing key, a wrong type); the
        session does not take it.
        """
        return self._counted(Verdict.from_json(self._native.push(_event_text(event))))

    def push_many(self, events: Iterable[Mapping[str, Any]]) -> list[Verdict]:
        """Decides each event in turn. Every event is checked before the
        first is taken: one that is not an event raises and none is taken."""
        texts = [_event_text(event) for event in events]
        return [self._counted(Verdict.from_json(t)) for t in self._native.push_many(texts)]

    def _counted(self, verdict: Verdict) -> Verdict:
        decided = verdict.would or verdict
        if decided.decision in self._withheld:
            self._withheld[decided.decision] += 1
        return verdict

    def approve(self, call: str, granted: bool = True, by: str = "user") -> Verdict:
        """Sends the host's answer to a ``confirm`` on call ``call``: the
        next identical call runs once when ``granted``. ``by`` is ``user``
        or ``operator`` (where the bundle allows operator approvals)."""
        return self.push({"type": "approval", "call": call, "granted": granted, "by": by})

    def snapshot(self) -> bytes:
        """The session's state, for :meth:`restore` (save between events)."""
        return self._native.snapshot()

    def __repr__(self) -> str:
        where = f", session_id={self.session_id!r}" if self.session_id else ""
        return f"Session(bundle={self._bundle.name!r}, events={len(self)}{where})"
