"""Reading a String command line's arguments (pure): words split at spaces, a word with spaces
written in quotes ("my notes.md", 'def main'), and options as String's seed writes them for
actions (`--name value`, `--flag`). Only Operator's own commands with several arguments (/find,
/grep, /tree, /mv, /cp) and a quoted path anywhere use this; a plain `/open path` is read whole."""

from __future__ import annotations

from msgspec import Struct

from .errors import StringCode, StringError

QUOTES = "\"'"


class Arguments(Struct, frozen=True):
    words: tuple[str, ...]  # the arguments that are not options, in order
    options: dict[str, str | bool]  # --name value, or --flag: True


def split_words(text: str) -> list[str]:
    """The words of `text`: separated by spaces or tabs, a quoted word taken whole without its
    quotes (no escapes inside: a path or a search text holds what it holds)."""
    words: list[str] = []
    pos, size = 0, len(text)
    while pos < size:
        if text[pos] in " \t":
            pos += 1
            continue
        if text[pos] in QUOTES:
            close = text.find(text[pos], pos + 1)
            if close < 0:
                raise StringError(
                    StringCode.INVALID_PARAMS,
                    f"the quote opened at {text[pos:][:30]!r} is never closed",
                    'write a word with spaces in quotes: "my notes.md"',
                )
            words.append(text[pos + 1 : close])
            pos = close + 1
            continue
        end = pos
        while end < size and text[end] not in " \t":
            end += 1
        words.append(text[pos:end])
        pos = end
    return words


def read_arguments(
    command: str, text: str, *, flags: tuple[str, ...] = (), valued: tuple[str, ...] = ()
) -> Arguments:
    """The words and options of `/command text`: `flags` are options without a value
    (--regex), `valued` take the next word (--include "*.py") or one after "=" (--include=*.py)."""
    words: list[str] = []
    options: dict[str, str | bool] = {}
    tokens = split_words(text)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if not token.startswith("--") or len(token) == 2:
            words.append(token)
            continue
        name, equals, value = token[2:].partition("=")
        if name in flags and not equals:
            options[name] = True
        elif name in valued:
            if not equals:
                if index >= len(tokens):
                    raise _usage(command, f"--{name} needs a value", flags, valued)
                value, index = tokens[index], index + 1
            options[name] = value
        else:
            raise _usage(command, f"--{name} is not an option of /{command}", flags, valued)
    return Arguments(tuple(words), options)


def _usage(
    command: str, problem: str, flags: tuple[str, ...], valued: tuple[str, ...]
) -> StringError:
    known = [f"--{name}" for name in flags] + [f"--{name} VALUE" for name in valued]
    return StringError(
        StringCode.INVALID_PARAMS,
        problem,
        f"options of /{command}: {', '.join(known) or '(none)'}",
    )


def unquoted(text: str) -> str:
    """A path written in quotes ("my notes.md"), without them; any other text as it is."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in QUOTES:
        return text[1:-1]
    return text
