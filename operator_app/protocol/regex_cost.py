"""What a regex: true query would cost before it is compiled: the `regex` module unrolls counted
repeats when it compiles, so `(?:a{3000}){3000}` (17 characters) takes seconds and gigabytes,
and a recursive pattern such as `(?R)?a` or fuzzy matching without a bound (`{e}`) grows
without limit while it matches. A query is refused with ERR_PATTERN_TOO_COSTLY when it is long,
deeply nested, calls a group (recursion), fuzzy-matches without a small bound, or would unroll
to more than MAX_UNROLLED items (each item counted once for every repeat around it).

The pattern is read by the `regex` module's own parser, so every feature is seen as the module
sees it (verbose mode, nested sets, \\p{...}); parsing is linear and allocates per character of
the pattern, unlike compiling. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import ErrorCode, OperatorError

MAX_REGEX_CHARS = 1_000
MAX_UNROLLED = 100_000  # about 30 MB and a tenth of a second to compile
MAX_NESTING = 100  # groups inside groups; the module's parser recurses once per level
MAX_FUZZY_ERRORS = 10
# What a single search of one file may take; past it the query is the cause, not the tree.
MATCH_TIME_LIMIT_S = 1.0

_ADVICE = (
    "send a simpler query (no nested counted repeats such as "
    "(?:a{1000}){1000}, no (?R) or (?1), fuzzy matching only with a bound such as {e<=2}), or "
    "search with regex: false"
)


def too_costly(why: str, *, done: str = "nothing was searched") -> OperatorError:
    return OperatorError(ErrorCode.ERR_PATTERN_TOO_COSTLY, f"query {why}; {done}; {_ADVICE}")


def check_regex_cost(text: str, flags: int) -> None:
    """Refuse (ERR_PATTERN_TOO_COSTLY) a query over the limits; a query the module cannot parse
    is left to the compile, which says where it is wrong."""
    if len(text) > MAX_REGEX_CHARS:
        raise too_costly(f"is {len(text)} characters long, over the limit of {MAX_REGEX_CHARS}")
    if _nesting(text) > MAX_NESTING:
        raise too_costly(f"nests groups over {MAX_NESTING} deep")
    try:
        parsed = _parse(text, flags)
    except (ImportError, AttributeError, TypeError):
        # The module's parser is not where this version of it was: measure from the text, all
        # counts taken as nested (never less than the truth).
        parsed, unrolled = None, _unrolled_from_text(text)
    else:
        if parsed is None:
            return
        unrolled = _unrolled(parsed)
    if unrolled > MAX_UNROLLED:
        raise too_costly(
            f"would unroll to about {unrolled:,} items when compiled (its counted repeats "
            f"multiply), over the limit of {MAX_UNROLLED:,}"
        )


_COUNT_RE = re.compile(r"\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")
_CALL_RE = re.compile(r"\(\?(?:R|[+-]?\d|&|P>)")


def _unrolled_from_text(text: str) -> int:
    """An upper bound of what the text unrolls to, without a parse: its length times every
    counted repeat in it, as if each were inside all the others; a group call is refused."""
    if _CALL_RE.search(text):
        raise too_costly("calls a group from inside itself ((?R), (?1), (?&name) recurse)")
    total = len(text)
    for low, high in _COUNT_RE.findall(text):
        total *= max(int(low or 0), int(high or 0), 1)
        if total > MAX_UNROLLED:
            break
    return total


def _nesting(text: str) -> int:
    """The deepest run of open parentheses, escapes aside (an over-count inside a class only
    refuses sooner)."""
    depth = deepest = 0
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(depth - 1, 0)
    return deepest


def _parse(text: str, flags: int) -> Any:
    """The module's parse tree of `text`, or None when it does not parse (the compile reports
    that). The parse is retried with the global flags an inline flag set, as `regex` does."""
    import regex
    from regex import _regex_core as core

    global_flags = flags
    for _ in range(4):
        source = core.Source(text)
        info = core.Info(global_flags, source.char_type, {})
        source.ignore_space = bool(info.flags & regex.VERBOSE)
        try:
            return core._parse_pattern(source, info)
        except core._UnscopedFlagSet:
            global_flags = info.global_flags
        except (core.error, ValueError, KeyError, IndexError):
            return None
    return None


def _unrolled(node: Any) -> int:
    from regex import _regex_core as core

    if isinstance(node, (core.CallGroup, core.CallRef)):
        raise too_costly("calls a group from inside itself ((?R), (?1), (?&name) recurse)")
    if isinstance(node, core.GreedyRepeat):  # lazy and possessive repeats are its subclasses
        times: int = max(node.min_count, node.max_count or 0, 1)
        return times * _unrolled(node.subpattern)
    if isinstance(node, core.Fuzzy):
        _check_fuzzy(node.constraints)
        return _unrolled(node.subpattern)
    if isinstance(node, core.Sequence):
        return sum(_unrolled(item) for item in node.items) or 1
    if isinstance(node, core.Branch):
        return sum(_unrolled(branch) for branch in node.branches) or 1
    if isinstance(node, core.String):
        return max(len(node.characters), 1)
    total = 0
    for part in ("subpattern", "yes_item", "no_item"):
        child = getattr(node, part, None)
        if child is not None:
            total += _unrolled(child)
    return max(total, 1)


def _check_fuzzy(constraints: dict[str, Any]) -> None:
    """Fuzzy matching keeps every way of spending its errors: without a bound it grows with the
    text (hundreds of megabytes on half a megabyte of text)."""
    bounds = []
    edits = constraints.get("e", (0, None))[1]
    if edits is not None:
        bounds.append(edits)
    kinds = [constraints.get(kind, (0, None))[1] for kind in "ids"]
    if all(bound is not None for bound in kinds):
        bounds.append(sum(kinds))
    cost = constraints.get("cost", {})
    weights = [cost.get(kind, 1) for kind in "ids"]
    if cost.get("max") is not None and min(weights) > 0:
        bounds.append(cost["max"] // min(weights))
    allowed = min(bounds) if bounds else None
    if allowed is None:
        raise too_costly("fuzzy-matches with no bound on its errors (write {e<=2}, not {e})")
    if allowed > MAX_FUZZY_ERRORS:
        raise too_costly(
            f"fuzzy-matches with up to {allowed} errors, over the limit of {MAX_FUZZY_ERRORS}"
        )
