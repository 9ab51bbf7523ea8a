"""The spec's "(optional additional key: value lines)": which keys an action does not take are
harmless notes the model added (ignored, and the result says so), and which would silently change
what the command does if they were ignored, and so stay errors:

- a near miss of a field this action takes (`occurence`, `lenght`, `pth`, `Path`): the field meant
  would silently fall back to its default;
- a field of another action, or a near miss of one, or a key made of one (`start_line` on fs.read,
  `content` on fs.patch, `overwrite` on fs.write): the model expects an effect this action does not
  have;
- `path_to` on an action that takes one path (ERR_UNEXPECTED_PATH_TO, decided before this module).

Everything else (`note`, `reason`, `description`, a trace id) is accepted and ignored. Knowing the
other actions' fields declares every model, so this runs only for a key the action does not take.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache, lru_cache

from .. import grammar
from ..errors import ErrorCode, OperatorError

# How close a key must be to a field, or to another name models give that field, to count as a
# misspelling of it (difflib's ratio, compared in lower case, with the same first letter unless
# closer still): "pth" is 0.86 of "path", "occurence" 0.95 of "occurrence", "lenght" 0.83 of
# "length" (a name for lines); "notes" (0.6 of "lines") and "comment" (0.71 of "content") are notes.
OWN_CUTOFF = 0.75
OTHER_CUTOFF = 0.8
SAME_ANYWAY = 0.85  # this close, a differing first letter is a typo too
_TOKEN_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
SHOWN_KEY_CHARS = 40


def _tokens(key: str) -> set[str]:
    """The words of a key: start_line and startLine are {"start", "line"}."""
    return {token.lower() for token in _TOKEN_RE.findall(key)}


def _ratio(a: str, b: str) -> float:
    """difflib's ratio of the two, in lower case."""
    import difflib  # only for a key the action does not take: not on every start

    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


Candidate = tuple[str, float, int, frozenset[str], tuple[tuple[str, int], ...]]


class _Names:
    """Field names (or synonyms) to look a key up among, with what each costs nothing to compare
    again: the names a key of a given length and first letter can be close enough to by the
    lengths alone (a ratio is at most 2 * shorter / both), their letters and letter counts."""

    __slots__ = ("_by_shape", "cutoff", "longest", "names")

    def __init__(self, names: tuple[str, ...], cutoff: float) -> None:
        self.names, self.cutoff = names, cutoff
        self.longest = max((len(name) for name in names), default=0)
        self._by_shape: dict[tuple[str, int], list[Candidate]] = {}

    def candidates(self, first: str, length: int) -> list[Candidate]:
        """(name, the letters in common it needs, its length, its letters, their counts)."""
        found = self._by_shape.get((first, length))
        if found is None:
            found = []
            for name in self.names:
                at_least = self.cutoff if name[:1].lower() == first else SAME_ANYWAY
                if 2 * min(length, len(name)) >= at_least * (length + len(name)):
                    lower = name.lower()
                    found.append(
                        (
                            name,
                            at_least * (length + len(name)) / 2,
                            len(name),
                            frozenset(lower),
                            tuple(Counter(lower).items()),
                        )
                    )
            if len(self._by_shape) < 4096:
                self._by_shape[(first, length)] = found
        return found


@lru_cache(maxsize=64)
def _names(names: tuple[str, ...], cutoff: float) -> _Names:
    return _Names(names, cutoff)


def _close(key: str, names: tuple[str, ...], cutoff: float) -> str | None:
    """The name `key` is most likely a misspelling of, or None. What the lengths and the letters
    alone keep below the cutoff is passed over without a matcher: a key of 50,000 characters, or
    thousands of junk keys, cost time in proportion to their size, not a comparison each."""
    index = _names(names, cutoff)
    if len(key) > 4 * index.longest:
        return None  # far longer than any of them: no ratio reaches a cutoff
    best, best_ratio = None, 0.0
    lower = key.lower()
    present = frozenset(lower)
    letters: Counter[str] | None = None
    for name, needed, size, name_letters, name_counts in index.candidates(lower[:1], len(key)):
        # At most this many of the name's letters are in the key (each letter it lacks costs one),
        # then exactly how many: two bounds on the ratio before any matcher.
        if size - len(name_letters - present) < needed:
            continue
        letters = letters if letters is not None else Counter(lower)
        if sum(min(count, letters[char]) for char, count in name_counts) < needed:
            continue
        ratio = _ratio(key, name)
        if ratio > best_ratio and (
            ratio >= SAME_ANYWAY or (ratio >= cutoff and lower[:1] == name[:1].lower())
        ):
            best, best_ratio = name, ratio
    return best


def misspelling_of(key: str, name: str) -> bool:
    """Whether `key` reads like a misspelling of the field `name` ("pth" of "path")."""
    return key != name and _close(key, (name,), OWN_CUTOFF) == name


@cache
def fields_of_actions() -> dict[str, tuple[str, ...]]:
    """Every key some action takes (fields and their aliases, not version/id/action) -> the
    actions that take it, in spec order."""
    from .catalog import all_models
    from .keys import alias_map

    owners: dict[str, tuple[str, ...]] = {}
    for action, model in all_models().items():
        for key in alias_map(model):
            if key not in grammar.REQUIRED_FIELDS:
                owners[key] = owners.get(key, ()) + (action,)
    return owners


# What models call fields in other tools: a key that reads like one of these means that field.
FIELD_SYNONYMS = {
    "length": "lines",
    "limit": "lines",
    "max_lines": "lines",
    "num_lines": "lines",
    "line_count": "lines",
    "offset": "start",
    "begin": "start",
    "first_line": "start",
    "start_line": "start",
    "search": "query",
    "pattern": "query",
    "needle": "query",
    "text": "content",
    "data": "content",
    "body": "content",
    "diff": "patch_b64",
    "patch": "patch_b64",
    "edits": "edits_b64",
    "region": "marker_id",
    "marker": "marker_id",
    "lang": "language",
    "to": "path_to",
    "dest": "path_to",
    "destination": "path_to",
    "force": "overwrite",
    "replace": "overwrite",
}
_SYNONYM_NAMES = tuple(FIELD_SYNONYMS)

# Words of a field name that say nothing of what it does on their own, and the shortest word that
# does: "q" (query's alias) inside trace_q_7 is no query.
_NOT_STEMS = frozenset({"b64", "id", "to"})
MIN_STEM = 3


@lru_cache(maxsize=64)
def _stems(names: tuple[str, ...]) -> dict[str, str]:
    """word -> field, for the words a key made of one would be about: a field's own name, and the
    meaningful word of a two-word field (edits of edits_b64, marker of marker_id)."""
    stems = {name: name for name in names if len(name) >= MIN_STEM}
    for name in names:
        words = name.split("_")
        if len(words) == 2:
            for word in words:
                if word not in _NOT_STEMS and len(word) >= MIN_STEM:
                    stems.setdefault(word, name)
    return stems


def _made_of(key: str, names: tuple[str, ...]) -> str | None:
    """The field whose word `key` contains (start_line holds start; new_path, path), the closest
    one when several."""
    stems = _stems(names)
    found = [stems[word] for word in _tokens(key) if word in stems]
    return max(found, key=lambda name: (_ratio(key, name), name), default=None)


def _owned_by(actions: tuple[str, ...]) -> str:
    shown = list(actions[:3]) + ([f"{len(actions) - 3} more"] if len(actions) > 3 else [])
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def cut_key(key: str) -> str:
    """A key as a message or summary names it: a very long one is cut."""
    return key if len(key) <= SHOWN_KEY_CHARS else key[: SHOWN_KEY_CHARS - 3] + "..."


@lru_cache(maxsize=64)
def _fields_around(accepted: tuple[str, ...]) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """(the action's own fields, every other action's field -> the actions that take it)."""
    own = tuple(name for name in accepted if name not in grammar.REQUIRED_FIELDS)
    return own, {
        name: actions for name, actions in fields_of_actions().items() if name not in accepted
    }


def refuse_extra(action: str, key: str, accepted: dict[str, str]) -> OperatorError | None:
    """The error for a key `action` does not take (`accepted`: the keys it does take), or None when
    the key is a harmless addition to ignore."""
    named = cut_key(key)
    own, owners = _fields_around(tuple(accepted))
    listed = f"fields of {action}: {', '.join(own)}"
    # exactly another action's field: say whose, before any likeness to this one's
    if key in owners:
        return OperatorError(
            ErrorCode.ERR_UNKNOWN_FIELD,
            (
                f"{action} does not take {key} ({key} is a field of {_owned_by(owners[key])}, and "
                f"{action} would not do what it asks); remove the line, or send the action that "
                f"takes it; {listed}"
            ),
        )
    synonym = _close(key, _SYNONYM_NAMES, OTHER_CUTOFF)
    misspelt = _close(key, own, OWN_CUTOFF)
    if (
        synonym is not None
        and misspelt is not None
        and _ratio(key, misspelt) >= _ratio(key, synonym)
    ):
        synonym = None  # "Path" is path, not "patch"
    meant = FIELD_SYNONYMS[synonym] if synonym is not None else None
    # A name models give another action's field ("patch" on fs.write) is that field, though it
    # is close to one of this action's too ("path").
    if meant in own:
        mistaken = meant
    elif meant in owners:
        mistaken = None
    else:
        mistaken = misspelt or _made_of(key, own)
    if mistaken is not None:
        cased = " (keys are case-sensitive)" if mistaken.lower() == key.lower() else ""
        return OperatorError(
            ErrorCode.ERR_UNKNOWN_FIELD,
            f"{action} does not take {named}; did you mean {mistaken}?{cased} {listed}",
        )
    near = (
        (meant if meant in owners else None)
        or _close(key, tuple(owners), OTHER_CUTOFF)
        or _made_of(key, tuple(owners))
    )
    if near is not None:
        return OperatorError(
            ErrorCode.ERR_UNKNOWN_FIELD,
            (
                f"{action} does not take {named}, which reads like {near} (a field of "
                f"{_owned_by(owners[near])}): {action} would not do what it asks; remove the line, "
                f"or send the action that takes it; {listed}"
            ),
        )
    return None


def ignored_clause(keys: tuple[str, ...]) -> str:
    """The few words a result's summary ends with when the command had keys that were ignored."""
    if not keys:
        return ""
    more = f" and {len(keys) - 3} more" if len(keys) > 3 else ""
    named = ", ".join(cut_key(key) for key in keys[:3])
    return f"; ignored field{'s' if len(keys) > 1 else ''}: {named}{more}"
