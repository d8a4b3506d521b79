"""The retail tools the adapter tests give their agents, over the vendored
tau2 retail database (data/tau2/retail/db.json.zst). Each tool records its
calls, so a test can assert that a gated body never ran."""

from __future__ import annotations

import json
from typing import Any

import zstandard

from conftest import REPO


def load_db() -> dict[str, Any]:
    compressed = (REPO / "data" / "tau2" / "retail" / "db.json.zst").read_bytes()
    with zstandard.ZstdDecompressor().stream_reader(compressed) as reader:
        return json.loads(reader.read())


class RetailTools:
    """find_user_id_by_email, get_user_details, get_order_details and
    cancel_pending_order over one copy of the database."""

    def __init__(self) -> None:
        self.db = load_db()
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def find_user_id_by_email(self, email: str) -> str:
        self.calls.append(("find_user_id_by_email", {"email": email}))
        for user_id, user in self.db["users"].items():
            if user["email"] == email:
                return user_id
        return "Error: user not found"

    def get_user_details(self, user_id: str) -> str:
        self.calls.append(("get_user_details", {"user_id": user_id}))
        return json.dumps(self.db["users"][user_id])

    def get_order_details(self, order_id: str) -> str:
        self.calls.append(("get_order_details", {"order_id": order_id}))
        return json.dumps(self.db["orders"][order_id])

    def cancel_pending_order(self, order_id: str, reason: str) -> str:
        self.calls.append(("cancel_pending_order", {"order_id": order_id, "reason": reason}))
        order = self.db["orders"][order_id]
        order["status"] = "cancelled"
        return json.dumps(order)

    def ran(self, tool: str) -> list[dict[str, Any]]:
        return [args for name, args in self.calls if name == tool]


EMAIL = "yusuf.rossi7301@example.com"
USER = "yusuf_rossi_9620"
PENDING = "#W6247578"
DELIVERED = "#W6679257"
