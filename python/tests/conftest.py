"""Shared fixtures: the repository's bundles, their test conversations, and
the `turnstile` binary the CLI-interop tests run."""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any

import pytest

import turnstile

REPO = pathlib.Path(__file__).resolve().parents[2]
BUNDLES = REPO / "bundles"


def conversations(path: pathlib.Path) -> dict[str, list[dict[str, Any]]]:
    """The conversations of a bundle's test file, by trace id, without the
    test expectations (`expect`)."""
    found: dict[str, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    for line in path.read_text().splitlines():
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        if event["type"] == "trace":
            current = found.setdefault(event["id"], [])
            continue
        event.pop("expect", None)
        assert current is not None, f"{path}: an event before the first trace header"
        current.append(event)
    return found


@pytest.fixture(scope="session")
def retail() -> turnstile.Bundle:
    return turnstile.Bundle.load(BUNDLES / "retail")


@pytest.fixture(scope="session")
def toy() -> turnstile.Bundle:
    return turnstile.Bundle.load(BUNDLES / "toy-orders")


@pytest.fixture(scope="session")
def retail_cancel() -> dict[str, list[dict[str, Any]]]:
    return conversations(BUNDLES / "retail" / "tests" / "cancel.jsonl")


@pytest.fixture(scope="session")
def toy_cancel() -> dict[str, list[dict[str, Any]]]:
    return conversations(BUNDLES / "toy-orders" / "tests" / "cancel.jsonl")


@pytest.fixture(scope="session")
def turnstile_bin() -> pathlib.Path:
    """The CLI built by `cargo build -p turnstile-cli` (or `cargo test`)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    binary = target / "debug" / "turnstile"
    if not binary.is_file():
        pytest.fail(f"{binary} is missing: run `cargo build -p turnstile-cli` first")
    return binary


def without_yes(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with the user's explicit yes removed."""
    return [e for e in events if not (e["type"] == "user" and e["text"].startswith("Yes"))]
