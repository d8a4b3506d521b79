"""An MCP client built on the official Python SDK, for the gateway tests.

It connects to a gateway (a command to start over stdio, or a streamable
HTTP URL), runs the steps of a JSON file in order and writes one JSON line
per step to standard output:

    {"list": true}                       -> {"tools": [names, sorted]}
    {"call": "tool", "args": {...}}      -> {"error": bool, "text": "...", "verdict": {...} | null}
    {"tell": [native events]}            -> {"told": [the session's reports]}

A `tell` step is what a host does: it posts the user's and the agent's
messages to the gateway's side channel (`--side-channel URL --token T`),
for the conversation `--session` (stdio) or this client's MCP session id
(HTTP, read from the gateway's answers).

Every elicitation the gateway sends is written as it arrives
({"elicitation": message, "schema": requested schema}) and answered with
`--elicitation accept|decline|cancel`; with `--elicitation none` the client
does not advertise elicitation at all.

    python client.py --steps steps.json [--elicitation accept] [--side-channel URL --token T]
                     [--session ID] (--url URL | -- command args...)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import httpx2
import mcp.types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--steps", required=True, help="a JSON file: the list of steps")
parser.add_argument("--elicitation", choices=["accept", "decline", "cancel", "none"], default="none")
parser.add_argument("--url", help="the gateway's streamable HTTP endpoint")
parser.add_argument("--side-channel", help="the gateway's side channel, http://ADDR")
parser.add_argument("--token", help="the side channel's bearer token")
parser.add_argument("--session", help="the conversation of a stdio gateway")
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


async def tell(session: str | None, events: list[dict[str, Any]]) -> dict[str, Any]:
    if session is None:
        raise RuntimeError("no session id to tell the side channel about")
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            f"{options.side_channel}/v1/sessions/{session}/events",
            json=events,
            headers={"Authorization": f"Bearer {options.token}"},
        )
    return {"status": response.status_code, "told": response.json()}


async def main() -> None:
    with open(options.steps, encoding="utf-8") as file:
        steps = json.load(file)
    session = options.session
    if options.url:

        async def remember_session(response: httpx2.Response) -> None:
            nonlocal session
            session = response.headers.get("mcp-session-id", session)

        http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=300), event_hooks={"response": [remember_session]})
        server: Any = streamable_http_client(options.url, http_client=http)
    else:
        program, *arguments = options.command
        server = StdioServerParameters(command=program, args=arguments)
    callback = None if options.elicitation == "none" else answer_elicitation
    async with Client(server, elicitation_callback=callback) as client:
        for step in steps:
            if "list" in step:
                listed = await client.list_tools()
                emit({"tools": sorted(tool.name for tool in listed.tools)})
            elif "tell" in step:
                emit(await tell(session, step["tell"]))
            else:
                result = await client.call_tool(step["call"], step.get("args", {}))
                text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
                meta = result.meta or {}
                emit({"error": bool(result.is_error), "text": text, "verdict": meta.get("turnstile/verdict")})


asyncio.run(main())
