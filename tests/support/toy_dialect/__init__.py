"""A toy third dialect, to prove that a dialect is its own packages and one line: its blocks are
`[[toy: read PATH]]`, anywhere in a line, and its answers `[[toy-answer ID ok]] ... [[/toy]]`.

- reader.py: its sans-IO reader, a span reader (operator_app/protocol/message/reader.py);
- pure.py: its pure half, `DIALECT` (operator_app/protocol/dialect.py `Dialect`);
- engine.py: its engine half, `ENGINE_HALF` (operator_app/engine/messages/interface.py).

Nothing of Operator names it. It joins with one line: in a process, `register(NAME, MODULE)`
(operator_app.protocol; `unregister` takes it out again), or for a process Operator starts, the
environment variable `OPERATOR_DIALECTS=toy=tests.support.toy_dialect.pure`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

NAME = "toy"
MODULE = "tests.support.toy_dialect.pure"
ENVIRONMENT = {"OPERATOR_DIALECTS": f"{NAME}={MODULE}"}


@contextmanager
def toy_registered() -> Iterator[None]:
    """The toy dialect in this process's table while the block runs."""
    from operator_app.protocol import register, unregister

    register(NAME, MODULE)
    try:
        yield
    finally:
        unregister(NAME)
