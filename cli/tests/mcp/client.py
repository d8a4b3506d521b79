"""An MCP client built on the official Python SDK, for the gateway tests.

It connects to a gateway (a command to start over stdio, or a streamable
HTTP URL), runs the steps of a JSON file in order and writes one JSON line
per step to standard output:

    {"list": true}                       -> {"tools": [names, sorted]}
    {"call": "tool", "args": {...}}      -> {"error": bool, "text": "...", "verdict": {...} | null}

Every elicitation the gateway sends is written as it arrives
({"elicitation": message, "schema": requested schema}) and answered with
`--elicitation accept|decline|cancel`; with `--elicitation none` the client
does not advertise elicitation at all.

    python client.py --steps steps.json [--elicitation accept] (--url URL | -- command args...)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import mcp.types as types
from mcp import Client, StdioServerParameters

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--steps", required=True, help="a JSON file: the list of steps")
parser.add_argument("--elicitation", choices=["accept", "decline", "cancel", "none"], default="none")
parser.add_argument("--url", help="the gateway's streamable HTTP endpoint")
parser.add_argument("command", nargs="*", help="the gateway's command (stdio), after --")
options = parser.parse_args()


def emit(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


async def answer_elicitation(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    emit({"elicitation": params.message, "schema": getattr(params, "requested_schema", None)})
    if options.elicitation == "accept":
        return types.ElicitResult(action="accept", content={})
    return types.ElicitResult(action=options.elicitation)


async def main() -> None:
    with open(options.steps, encoding="utf-8") as file:
        steps = json.load(file)
    if options.url:
        server: Any = options.url
    else:
        program, *arguments = options.command
        server = StdioServerParameters(command=program, args=arguments)
    callback = None if options.elicitation == "none" else answer_elicitation
    async with Client(server, elicitation_callback=callback) as client:
        for step in steps:
            if "list" in step:
                listed = await client.list_tools()
                emit({"tools": sorted(tool.name for tool in listed.tools)})
            else:
                result = await client.call_tool(step["call"], step.get("args", {}))
                text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
                meta = result.meta or {}
                emit({"error": bool(result.is_error), "text": text, "verdict": meta.get("turnstile/verdict")})


asyncio.run(main())
