"""The content a String change writes: the lines after its command line, or, when the whole of
them is one fenced code block (as models write code, and as a chat page keeps it byte for byte),
the lines inside the fence (protocol/chanflow/fences.py); the answer then says the fence was left
out, so the model knows what reached the file."""

from __future__ import annotations

from ...protocol.chanflow.fences import unfence
from .context import Call


def content_of(call: Call) -> str | None:
    """The block's content as the file gets it; None when the block has none."""
    body = call.request.body
    if body is None:
        return None
    fenced = unfence(body)
    if fenced is None:
        return body
    call.notes.append(
        f"note: the content was one fenced code block ({fenced.fence}); what is inside the fence "
        "was written, without the fence lines"
    )
    return fenced.text
