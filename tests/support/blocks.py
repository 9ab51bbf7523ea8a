"""OPERATOR_CMD blocks written the way a model writes them, for messages the tests send."""

from __future__ import annotations

import base64


def block(cid: str, action: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {cid}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join(lines + ["END_OPERATOR_CMD"]) + "\n"


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()
