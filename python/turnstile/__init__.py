"""Turnstile's policy gate in-process for Python agents.

Load a bundle, open a :class:`Session` per conversation and push each event
(the native trace format: ``{"type": "user", "text": ...}``,
``{"type": "call", "id": ..., "tool": ..., "args": {...}}``, ...). Every
agent call gets a :class:`Verdict`; run the tool unless
``verdict.withholds`` (a ``block``, or a ``confirm``). A ``confirm`` carries the canonical confirmation
to show the user; send the answer as an approval event
(:meth:`Session.approve`).

Adapters for agent frameworks live in :mod:`turnstile.openai_agents` and
:mod:`turnstile.langgraph`.
"""

from ._native import (
    BundleError,
    EventError,
    JudgeError,
    SessionError,
    StoreError,
    TurnstileError,
)
from ._audit import Audit, TraceReport, audit, summarize
from ._bundle import Bundle
from ._session import Session
from ._verdict import Verdict

__all__ = [
    "Audit",
    "Bundle",
    "BundleError",
    "EventError",
    "JudgeError",
    "Session",
    "SessionError",
    "StoreError",
    "TraceReport",
    "TurnstileError",
    "Verdict",
    "audit",
    "summarize",
]
