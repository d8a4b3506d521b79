"""Auditing recorded conversations where they live."""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Iterator

from . import _native
from ._bundle import Bundle
from ._judging import DEFAULT_TIMEOUT, JudgeCallable, judge_args


class TraceReport:
    """The audit of one recorded conversation (a line of ``turnstile audit
    --format jsonl``)."""

    __slots__ = ("_report",)

    def __init__(self, report: dict[str, Any]) -> None:
        self._report = report

    def __reduce__(self) -> tuple[Any, ...]:
        # Picklable: a report travels between processes (Ray, multiprocessing).
        return (TraceReport, (self._report,))

    @property
    def file(self) -> str:
        """The file the trace was read from."""
        return self._report["file"]

    @property
    def trace(self) -> str:
        """The trace's id."""
        return self._report["trace"]

    @property
    def verdict(self) -> str:
        """``compliant``, ``violation``, ``needs_review`` or ``unverified``."""
        return self._report["verdict"]

    @property
    def events(self) -> int:
        """The number of events in the trace."""
        return self._report["events"]

    @property
    def metrics(self) -> dict[str, Any]:
        """The trace's metrics."""
        return dict(self._report["metrics"])

    def to_dict(self) -> dict[str, Any]:
        """The whole report."""
        return json.loads(json.dumps(self._report))

    def __repr__(self) -> str:
        return f"TraceReport(trace={self.trace!r}, verdict={self.verdict!r})"


class Audit(Iterator[TraceReport]):
    """The reports of an audit, in input order, as the engine makes them on
    its own threads. After the last, :attr:`summary` is the aggregate
    ``turnstile audit --format json`` prints."""

    def __init__(self, native: _native.NativeAudit) -> None:
        self._native = native

    def __iter__(self) -> "Audit":
        return self

    def __next__(self) -> TraceReport:
        text = next(self._native)
        return TraceReport(json.loads(text))

    @property
    def summary(self) -> dict[str, Any]:
        """The aggregate over the reports taken so far (and every rejected
        record): counts, rates and groups by file, model and domain."""
        return json.loads(self._native.summary())

    @property
    def summary_json(self) -> str:
        """:attr:`summary` as JSON text, byte for byte the CLI's."""
        return self._native.summary()


def summarize(reports: Iterable[TraceReport], files: Iterable[str] = ()) -> dict[str, Any]:
    """The aggregate of reports audited elsewhere (on other machines, by
    other processes), given in input order with the ``files`` read: the
    summary ``turnstile audit --format json`` prints for the same run."""
    texts = [json.dumps(r._report) for r in reports]
    return json.loads(_native.summarize(list(files), texts))


def audit(
    bundle: Bundle,
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    threads: int | None = None,
    judge: str | JudgeCallable = "offline",
    *,
    judge_timeout: float | None = DEFAULT_TIMEOUT,
) -> Audit:
    """Audits the recorded conversations in ``paths`` (files in any format
    ``turnstile audit`` reads, or directories) with ``bundle`` on
    ``threads`` threads (default: one per core). ``judge``: ``"offline"``,
    ``"recorded:<file>"``, ``"none"`` or a callable (see :class:`Session`).
    The GIL is released while the engine works."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = [os.fspath(p) for p in paths]
    name, ask = judge_args(judge, judge_timeout)
    return Audit(_native.NativeAudit(bundle._native, files, threads, name, ask))
