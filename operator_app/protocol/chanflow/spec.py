"""The system prompt of String's dialect. `spec/string-template.txt` holds the prose; the command
list and the error codes are rendered from the declarations the commands and errors are run from
(commands.py, errors.py), so the text cannot drift from the code. `spec/string.txt` is the result
that ships (`python -m operator_app.protocol.chanflow.spec --write` makes it; a test checks it is
current and within MAX_PROMPT_CHARS)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..spec import spec_file
from .commands import COMMANDS
from .errors import CATALOG
from .grammar import ERROR_MARK, OK_MARK, SIGIL

MAX_PROMPT_CHARS = 6_000


def render_commands() -> str:
    """One line per command: its forms, "+ content" when content follows the command line, "*"
    when the person is asked first; Operator's own under a line of their own."""
    lines = []
    for index, spec in enumerate(COMMANDS):
        if spec.own and (index == 0 or not COMMANDS[index - 1].own):
            lines.append("Operator's own:")
        content = {"required": " + content", "optional": " [+ content]", "none": ""}[spec.body]
        asks = " *" if spec.writes else ""
        lines.append(f"{_forms(spec.usage)}{content}{asks}: {spec.does}")
    return "\n".join(lines)


def _forms(usage: tuple[str, ...]) -> str:
    """A command's forms, each after the first without the command's name when the first has an
    argument ("/open path | path#block"), so the list stays short and reads the same."""
    first, *others = usage
    name, space, _ = first.partition(" ")
    if not space:
        return " | ".join(usage)
    return " | ".join([first, *(form.removeprefix(name + " ") for form in others)])


def render_errors() -> str:
    return "\n".join(
        f"{code.value}: {info.when}" + (f" -> {info.what_to_do}" if info.what_to_do else "")
        for code, info in CATALOG.items()
    )


def render_prompt(template: str) -> str:
    return (
        template.replace("{{COMMANDS}}", render_commands())
        .replace("{{ERROR_CODES}}", render_errors())
        .replace("{{SIGIL}}", SIGIL)
        .replace("{{OK}}", OK_MARK)
        .replace("{{ERROR}}", ERROR_MARK)
    )


def string_prompt() -> str:
    """The text `operator-app spec --dialect string` prints and `p` copies for String."""
    return spec_file("string.txt").read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    template = spec_file("string-template.txt").read_text(encoding="utf-8")
    rendered = render_prompt(template)
    if "--write" in argv:
        (Path(__file__).resolve().parents[3] / "spec" / "string.txt").write_text(
            rendered, encoding="utf-8"
        )
    else:
        sys.stdout.write(rendered)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
