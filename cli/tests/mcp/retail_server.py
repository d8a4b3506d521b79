"""The retail tools of tau2-bench as an MCP server, over the vendored database.

The gateway tests put `turnstile mcp` in front of it. Every `tools/call` that
reaches this server is appended to the `--log` file (one JSON line: tool and
arguments) before it runs, so a test can show that a blocked call never
arrived. The database is read from `--db` (plain JSON: the tests decompress
`data/tau2/retail/db.json.zst`); writes change this process's copy only.

Besides the sixteen retail tools the server offers `get_store_hours`, which
the retail bundle does not declare: the gateway hides it unless told to pass
undeclared tools through.

    python retail_server.py --db db.json --log calls.jsonl [--http PORT]
"""

from __future__ import annotations

import argparse
import ast
import json
import operator
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--db", required=True, help="the retail database, plain JSON")
parser.add_argument("--log", required=True, help="append every call that arrives here")
parser.add_argument("--http", type=int, help="serve streamable HTTP on this loopback port (default: stdio)")
options = parser.parse_args()

with open(options.db, encoding="utf-8") as file:
    DB: dict[str, Any] = json.load(file)

server = MCPServer("tau2-retail", log_level="WARNING")


def arrived(tool: str, args: dict[str, Any]) -> None:
    with open(options.log, "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool": tool, "args": args}) + "\n")


def dump(value: Any) -> str:
    return json.dumps(value)


def user(user_id: str) -> dict[str, Any]:
    if user_id not in DB["users"]:
        raise ToolError("User not found")
    return DB["users"][user_id]


def order(order_id: str) -> dict[str, Any]:
    if order_id not in DB["orders"]:
        raise ToolError("Order not found")
    return DB["orders"][order_id]


def pending(order_id: str) -> dict[str, Any]:
    found = order(order_id)
    if found["status"] != "pending":
        raise ToolError("Non-pending order cannot be modified")
    return found


def delivered(order_id: str) -> dict[str, Any]:
    found = order(order_id)
    if found["status"] != "delivered":
        raise ToolError("Non-delivered order cannot be returned or exchanged")
    return found


def payment_method(user_id: str, method_id: str) -> dict[str, Any]:
    methods = user(user_id)["payment_methods"]
    if method_id not in methods:
        raise ToolError("Payment method not found")
    return methods[method_id]


def variant(item_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    for product in DB["products"].values():
        if item_id in product["variants"]:
            return product, product["variants"][item_id]
    raise ToolError("Item not found")


def price_difference(found: dict[str, Any], item_ids: list[str], new_item_ids: list[str]) -> float:
    if len(item_ids) != len(new_item_ids):
        raise ToolError("The number of items to be exchanged should match")
    held = [item["item_id"] for item in found["items"]]
    difference = 0.0
    for old_id, new_id in zip(item_ids, new_item_ids):
        if held.count(old_id) < item_ids.count(old_id):
            raise ToolError(f"{old_id} not found")
        old = next(item for item in found["items"] if item["item_id"] == old_id)
        product = DB["products"][old["product_id"]]
        new = product["variants"].get(new_id)
        if new is None or not new["available"]:
            raise ToolError(f"New item {new_id} not found or available")
        difference += new["price"] - old["price"]
    return round(difference, 2)


def charge(found: dict[str, Any], method_id: str, amount: float) -> None:
    method = payment_method(found["user_id"], method_id)
    if method["source"] == "gift_card" and method["balance"] < amount:
        raise ToolError("Insufficient gift card balance to pay for the price difference")
    if method["source"] == "gift_card":
        method["balance"] = round(method["balance"] - amount, 2)


@server.tool(structured_output=False)
def calculate(expression: str) -> str:
    """Calculate the result of a mathematical expression (numbers, + - * /, parentheses)."""
    arrived("calculate", {"expression": expression})
    binary = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

    def evaluate(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in binary:
            return binary[type(node.op)](evaluate(node.left), evaluate(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -evaluate(node.operand)
        raise ToolError("Invalid characters in expression")

    return str(round(evaluate(ast.parse(expression, mode="eval").body), 2))


@server.tool(structured_output=False)
def find_user_id_by_email(email: str) -> str:
    """Find user id by email."""
    arrived("find_user_id_by_email", {"email": email})
    for user_id, found in DB["users"].items():
        if found["email"].lower() == email.lower():
            return user_id
    raise ToolError("User not found")


@server.tool(structured_output=False)
def find_user_id_by_name_zip(first_name: str, last_name: str, zip: str) -> str:
    """Find user id by first name, last name, and zip code."""
    arrived("find_user_id_by_name_zip", {"first_name": first_name, "last_name": last_name, "zip": zip})
    for user_id, found in DB["users"].items():
        name = found["name"]
        if (
            name["first_name"].lower() == first_name.lower()
            and name["last_name"].lower() == last_name.lower()
            and found["address"]["zip"] == zip
        ):
            return user_id
    raise ToolError("User not found")


@server.tool(structured_output=False)
def get_user_details(user_id: str) -> str:
    """Get the details of a user, including their orders."""
    arrived("get_user_details", {"user_id": user_id})
    return dump(user(user_id))


@server.tool(structured_output=False)
def get_order_details(order_id: str) -> str:
    """Get the status and details of an order."""
    arrived("get_order_details", {"order_id": order_id})
    return dump(order(order_id))


@server.tool(structured_output=False)
def get_product_details(product_id: str) -> str:
    """Get the inventory details of a product."""
    arrived("get_product_details", {"product_id": product_id})
    if product_id not in DB["products"]:
        raise ToolError("Product not found")
    return dump(DB["products"][product_id])


@server.tool(structured_output=False)
def get_item_details(item_id: str) -> str:
    """Get the details of an item (a product variant)."""
    arrived("get_item_details", {"item_id": item_id})
    product, found = variant(item_id)
    return dump({**found, "product_id": product["product_id"], "name": product["name"]})


@server.tool(structured_output=False)
def list_all_product_types() -> str:
    """List the name and product id of every product type."""
    arrived("list_all_product_types", {})
    return dump(dict(sorted((p["name"], p["product_id"]) for p in DB["products"].values())))


@server.tool(structured_output=False)
def cancel_pending_order(order_id: str, reason: str) -> str:
    """Cancel a pending order; reason is 'no longer needed' or 'ordered by mistake'."""
    arrived("cancel_pending_order", {"order_id": order_id, "reason": reason})
    found = order(order_id)
    if found["status"] != "pending":
        raise ToolError("Non-pending order cannot be cancelled")
    if reason not in ("no longer needed", "ordered by mistake"):
        raise ToolError("Invalid reason")
    refunds = [
        {"transaction_type": "refund", "amount": p["amount"], "payment_method_id": p["payment_method_id"]}
        for p in found["payment_history"]
    ]
    for refund in refunds:
        method = payment_method(found["user_id"], refund["payment_method_id"])
        if method["source"] == "gift_card":
            method["balance"] = round(method["balance"] + refund["amount"], 2)
    found["payment_history"].extend(refunds)
    found["status"] = "cancelled"
    found["cancel_reason"] = reason
    return dump(found)


@server.tool(structured_output=False)
def modify_pending_order_address(
    order_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> str:
    """Modify the shipping address of a pending order."""
    arrived(
        "modify_pending_order_address",
        {"order_id": order_id, "address1": address1, "address2": address2, "city": city,
         "state": state, "country": country, "zip": zip},
    )
    found = pending(order_id)
    found["address"] = {"address1": address1, "address2": address2, "city": city,
                        "state": state, "country": country, "zip": zip}
    return dump(found)


@server.tool(structured_output=False)
def modify_pending_order_payment(order_id: str, payment_method_id: str) -> str:
    """Modify the payment method of a pending order."""
    arrived("modify_pending_order_payment", {"order_id": order_id, "payment_method_id": payment_method_id})
    found = pending(order_id)
    history = found["payment_history"]
    if len(history) != 1 or history[0]["transaction_type"] != "payment":
        raise ToolError("There should be exactly one payment for a pending order")
    if history[0]["payment_method_id"] == payment_method_id:
        raise ToolError("The new payment method should be different from the current one")
    amount = history[0]["amount"]
    charge(found, payment_method_id, amount)
    history.append({"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id})
    history.append({"transaction_type": "refund", "amount": amount,
                    "payment_method_id": history[0]["payment_method_id"]})
    return dump(found)


@server.tool(structured_output=False)
def modify_pending_order_items(
    order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> str:
    """Modify items of a pending order to other options of the same product."""
    arrived(
        "modify_pending_order_items",
        {"order_id": order_id, "item_ids": item_ids, "new_item_ids": new_item_ids,
         "payment_method_id": payment_method_id},
    )
    found = pending(order_id)
    difference = price_difference(found, item_ids, new_item_ids)
    charge(found, payment_method_id, difference)
    found["payment_history"].append(
        {"transaction_type": "payment" if difference > 0 else "refund",
         "amount": abs(difference), "payment_method_id": payment_method_id}
    )
    for old_id, new_id in zip(item_ids, new_item_ids):
        item = next(i for i in found["items"] if i["item_id"] == old_id)
        new = DB["products"][item["product_id"]]["variants"][new_id]
        item.update(item_id=new_id, price=new["price"], options=new["options"])
    found["status"] = "pending (item modified)"
    return dump(found)


@server.tool(structured_output=False)
def modify_user_address(
    user_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
) -> str:
    """Modify the default address of a user."""
    arrived(
        "modify_user_address",
        {"user_id": user_id, "address1": address1, "address2": address2, "city": city,
         "state": state, "country": country, "zip": zip},
    )
    found = user(user_id)
    found["address"] = {"address1": address1, "address2": address2, "city": city,
                        "state": state, "country": country, "zip": zip}
    return dump(found)


@server.tool(structured_output=False)
def return_delivered_order_items(order_id: str, item_ids: list[str], payment_method_id: str) -> str:
    """Return some items of a delivered order; the refund goes to the original payment or a gift card."""
    arrived(
        "return_delivered_order_items",
        {"order_id": order_id, "item_ids": item_ids, "payment_method_id": payment_method_id},
    )
    found = delivered(order_id)
    method = payment_method(found["user_id"], payment_method_id)
    original = found["payment_history"][0]["payment_method_id"]
    if method["source"] != "gift_card" and payment_method_id != original:
        raise ToolError("Payment method should be the original payment method")
    held = [item["item_id"] for item in found["items"]]
    for item_id in item_ids:
        if held.count(item_id) < item_ids.count(item_id):
            raise ToolError("Some item not found")
    found["status"] = "return requested"
    found["return_items"] = sorted(item_ids)
    found["return_payment_method_id"] = payment_method_id
    return dump(found)


@server.tool(structured_output=False)
def exchange_delivered_order_items(
    order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> str:
    """Exchange items of a delivered order for other options of the same product."""
    arrived(
        "exchange_delivered_order_items",
        {"order_id": order_id, "item_ids": item_ids, "new_item_ids": new_item_ids,
         "payment_method_id": payment_method_id},
    )
    found = delivered(order_id)
    difference = price_difference(found, item_ids, new_item_ids)
    charge(found, payment_method_id, difference)
    found["status"] = "exchange requested"
    found["exchange_items"] = sorted(item_ids)
    found["exchange_new_items"] = sorted(new_item_ids)
    found["exchange_payment_method_id"] = payment_method_id
    found["exchange_price_difference"] = difference
    return dump(found)


@server.tool(structured_output=False)
def transfer_to_human_agents(summary: str) -> str:
    """Transfer the user to a human agent, with a summary of the user's issue."""
    arrived("transfer_to_human_agents", {"summary": summary})
    return "Transfer successful"


@server.tool(structured_output=False)
def get_store_hours() -> str:
    """The store's opening hours (a tool the retail policy does not cover)."""
    arrived("get_store_hours", {})
    return dump({"weekdays": "9:00-18:00", "weekends": "closed"})


if __name__ == "__main__":
    if options.http is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=options.http)
