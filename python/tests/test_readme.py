"""The README's Python examples, run as written: each ```python block of its
Python section, named by its first line (`# example: <name>`), with the
names the README says the tests supply (a scripted model, retail tools)."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import os
import re

import pytest
from agents import set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

import turnstile
from conftest import REPO
from retail_tools import EMAIL, PENDING, USER, RetailTools

set_tracing_disabled(True)


def examples() -> dict[str, str]:
    text = (REPO / "README.md").read_text()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    named = {}
    for block in blocks:
        first, _, _ = block.partition("\n")
        assert first.startswith("# example: "), block
        named[first.removeprefix("# example: ").strip()] = block
    return named


EXAMPLES = examples()


def test_every_example_is_named_and_run():
    assert set(EXAMPLES) == {"gate", "audit", "openai-agents", "langgraph"}


def run_example(name: str, namespace: dict) -> str:
    code = compile(EXAMPLES[name], f"README.md#{name}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    printed = io.StringIO()
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        with contextlib.redirect_stdout(printed):
            result = eval(code, namespace)
            if asyncio.iscoroutine(result):
                asyncio.run(result)
    finally:
        os.chdir(cwd)
    return printed.getvalue()


def steps():
    args = {"order_id": PENDING, "reason": "no longer needed"}
    return [
        ("find_user_id_by_email", {"email": EMAIL}, "c1"),
        ("get_user_details", {"user_id": USER}, "c2"),
        ("get_order_details", {"order_id": PENDING}, "c3"),
        ("cancel_pending_order", args, "c4"),
    ]


def test_the_gate_example():
    printed = run_example("gate", {})
    assert printed.startswith("block "), printed


def test_the_audit_example():
    printed = run_example("audit", {})
    assert re.search(r"^\d+ compliant, \d+ violations$", printed, re.M), printed


def test_the_openai_agents_example(retail):
    tools = RetailTools()
    model = ScriptedModel(
        [ModelStep(output=[function_call(n, a, call_id=i)]) for n, a, i in steps()]
        + [ModelStep(output=[assistant_message("Cancelled.")])]
    )
    namespace = {
        "turnstile": turnstile,
        "bundle": retail,
        "model": model,
        "retail_tools": [tools.find_user_id_by_email, tools.get_user_details,
                         tools.get_order_details, tools.cancel_pending_order],
    }
    printed = run_example("openai-agents", namespace)
    assert printed.startswith(f"Cancel order {PENDING}"), printed
    assert len(tools.ran("cancel_pending_order")) == 1


def test_the_langgraph_example(retail):
    tools = RetailTools()
    model = GenericFakeChatModel(
        messages=iter(
            [AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": i}]) for n, a, i in steps()]
            + [AIMessage(content="Cancelled.")]
        )
    )
    namespace = {
        "bundle": retail,
        "call_model": lambda state: {"messages": [model.invoke(state["messages"])]},
        "retail_tools": [tools.find_user_id_by_email, tools.get_user_details,
                         tools.get_order_details, tools.cancel_pending_order],
    }
    printed = run_example("langgraph", namespace)
    assert printed.startswith(f"Cancel order {PENDING}"), printed
    assert len(tools.ran("cancel_pending_order")) == 1
