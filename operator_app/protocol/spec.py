"""The interface text the model is given, in two lengths from the same declarations. The full
reference: `spec/template.txt` holds the prose, the ACTIONS entries and the ERROR CODES list are
rendered from the command models and the error catalog, and `spec/interface.txt` is the result
(what operator.getInterfaceSpec returns and `operator-app spec --full` prints). The compact
system prompt: `spec/prompt-template.txt` holds its prose, each action's line is rendered from
its model's fields and BRIEF, the first errors from the catalog (FIRST_MET), and
`spec/prompt.txt` is the result (what `operator-app spec` prints and `p` copies), within
MAX_PROMPT_CHARS so it fits a chat app's instruction box. `python -m operator_app.protocol.spec
--write` regenerates both files; a test checks they are current.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

from . import commands as c
from .errors import ADDED, CORE, ERROR_CATALOG, FIRST_MET, VALIDATION
from .grammar import WRITE_MAX_BYTES

_ACTION_RE = re.compile(r"^\{\{ACTION ([A-Za-z.]+)\}\}$", re.MULTILINE)
_COMMENT_FIELDS = ("comment_line_prefix", "comment_block_start", "comment_block_end", "language")
_BASE_FIELDS = ("version", "id", "action", "path")
MAX_PROMPT_CHARS = 8_000


def _spec_dirs() -> list[Path]:
    here = Path(__file__).resolve().parent.parent
    return [here / "_spec", here.parent / "spec"]  # installed wheel, then the source tree


def spec_file(name: str) -> Path:
    for folder in _spec_dirs():
        candidate = folder / name
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"spec/{name} is missing from this installation")


def render_action(model: type[c.Command]) -> str:
    fields = model.model_fields
    lines = [model.ACTION]
    if "path" in fields:
        lines.append("Requires: path")
    else:
        lines += ["Required: version, id, action", "No path allowed"]
    aliases = []
    for name, info in fields.items():
        if name in _BASE_FIELDS or (
            name in _COMMENT_FIELDS and issubclass(model, c.CommentStyleFields)
        ):
            continue
        doc = info.description or ""
        if info.is_required():
            lines.append(f"Requires: {name} ({doc})")
        else:
            lines.append(f"Optional: {name}: {doc}")
        names = c.field_meta(model, name).get("aliases", [])
        if names:
            aliases.append(f"{'/'.join(names)} for {name}")
    if issubclass(model, c.CommentStyleFields):
        lines.append(
            "Optional: comment_line_prefix or comment_block_start/comment_block_end or language"
        )
    if aliases:
        lines.append(f"Aliases: {'; '.join(aliases)}")
    if model.WRITES:
        lines.append("Requires user confirmation")
    lines += model.NOTES
    return "\n".join(lines)


def render_error_codes() -> str:
    sections = [
        (CORE, "Core errors:"),
        (VALIDATION, "Additional validation errors:"),
        (ADDED, "Errors added by Operator (execution and stricter validation):"),
    ]
    out = []
    for section, title in sections:
        out.append(title)
        out += [
            f"- {code.value}: {info.meaning}"
            for code, info in ERROR_CATALOG.items()
            if info.section == section
        ]
        out.append("")
    return "\n".join(out).rstrip("\n")


def render_brief(model: type[c.Command]) -> str:
    """One action in a line or two for the compact prompt: its fields as they are written (a
    [bracketed] one is optional, shown with its default when it has one: [lines: 120],
    [position: after], [regex: false]; a|b means one of them), whether the person is asked (*),
    and what it gives. Every default is written the same way, so none reads as the value that
    changes something (issue 33: [position: after] read as "before is the default")."""
    words = [model.ACTION]
    styled = issubclass(model, c.CommentStyleFields)
    for name, info in model.model_fields.items():
        if name in _BASE_FIELDS[:3] or (name in _COMMENT_FIELDS and styled):
            continue
        if name in model.ONE_OF:
            if name == model.ONE_OF[0]:
                words.append("|".join(model.ONE_OF))
        elif info.is_required():
            words.append(name)
        elif info.default is None:
            words.append(f"[{name}]")
        elif isinstance(info.default, bool):
            words.append(f"[{name}: {'true' if info.default else 'false'}]")
        else:
            words.append(f"[{name}: {info.default}]")
    if styled:
        words.append("[style]")
    return f"{' '.join(words)}{' *' if model.WRITES else ''}: {model.BRIEF}"


def render_first_errors() -> str:
    return "\n".join(f"{code.value}: {ERROR_CATALOG[code].meaning}" for code in FIRST_MET)


def render_prompt(template: str) -> str:
    briefs = "\n".join(render_brief(model) for model in c.ACTIONS.values())
    return template.replace("{{ACTIONS}}", briefs).replace(
        "{{FIRST_ERRORS}}", render_first_errors()
    )


def render_spec(template: str) -> str:
    text = _ACTION_RE.sub(lambda m: render_action(c.ACTIONS[m.group(1)]), template)
    text = text.replace("{{WRITE_MAX_BYTES}}", str(WRITE_MAX_BYTES))
    return text.replace("{{ERROR_CODES}}", render_error_codes())


@cache
def interface_text() -> str:
    return spec_file("interface.txt").read_text(encoding="ascii")


@cache
def compact_prompt() -> str:
    return spec_file("prompt.txt").read_text(encoding="ascii")


PROMPT_PREAMBLE = """\
You are working on files in a folder on my computer through Operator, a program I run. You have
no tools of your own: to read, search or change files, write OPERATOR_CMD blocks exactly as the
specification below says. I paste your message into Operator, approve or decline each change, and
paste back the OPERATOR_RESULT blocks. Read before you modify, keep ids unique, verify every write
with fs.readSlice, and never claim a change succeeded without an ok: true result for it.

"""


def system_prompt() -> str:
    """The compact prompt: what `operator-app spec` prints and the TUI's p copies."""
    return compact_prompt()


def full_prompt() -> str:
    """The preamble and the whole interface text: `operator-app spec --full`."""
    return PROMPT_PREAMBLE + interface_text()


def main(argv: list[str]) -> int:
    """Render both texts: print them, or with --write store them in the source tree's spec/."""
    rendered = {
        "interface.txt": render_spec(spec_file("template.txt").read_text(encoding="ascii")),
        "prompt.txt": render_prompt(spec_file("prompt-template.txt").read_text(encoding="ascii")),
    }
    folder = Path(__file__).resolve().parent.parent.parent / "spec"
    for name, text in rendered.items():
        if "--write" in argv:
            (folder / name).write_text(text, encoding="ascii")
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
