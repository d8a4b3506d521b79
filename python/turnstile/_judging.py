"""A Python callable as the session's judge.

The engine hands the questions a decision needs to ``ask`` as JSON text;
``ask`` calls the user's judge on them (a list of dicts: ``bundle_hash``,
``node_id``, ``question``, ``bindings``, ``conversation``, ...) in a thread
of its own and waits at most ``timeout`` seconds. The judge returns one
answer per question, each a verdict as the engine writes them:
``{"verdict": "satisfied", "evidence_event": 3}``,
``{"verdict": "chosen", "label": ..., "evidence_event": ...}``,
``{"verdict": "not_satisfied"}`` or ``{"verdict": "unknown", "reason": ...}``,
with an optional ``"rationale"``. An exception, a timeout or anything else
becomes ``unknown`` for every question of the call, so the step stays
closed; an answer that arrives after the timeout is discarded.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Sequence

JudgeCallable = Callable[[Sequence[dict[str, Any]]], Sequence[dict[str, Any]]]

DEFAULT_TIMEOUT = 30.0


def judge_args(judge: object, timeout: float | None) -> tuple[str, Any]:
    """The native judge arguments: a judge's name, or a callable's asker."""
    if isinstance(judge, str):
        return judge, None
    if callable(judge):
        return "callable", asker(judge, timeout)
    raise TypeError(
        f"judge must be 'offline', 'openai', 'recorded:<file>' or a callable, "
        f"not {type(judge).__name__}"
    )


def asker(judge: JudgeCallable, timeout: float | None) -> Callable[[str], str | None]:
    """The function the engine calls: questions as JSON text in, answers as
    JSON text out, ``None`` after ``timeout`` seconds (``None``: wait)."""

    def ask(questions: str) -> str | None:
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["answers"] = judge(json.loads(questions))
            except BaseException as error:  # noqa: BLE001 - any failure is Unknown
                outcome["error"] = error

        worker = threading.Thread(target=run, name="turnstile-judge", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            return None
        if "error" in outcome:
            error = outcome["error"]
            raise RuntimeError(f"{type(error).__name__}: {error}") from error
        return json.dumps(outcome.get("answers"), default=_unserializable)

    return ask


def _unserializable(value: object) -> str:
    raise TypeError(f"a judge answer holds a {type(value).__name__}, not JSON")
