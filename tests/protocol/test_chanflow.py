"""String's pure pieces (protocol/chanflow/): topics, the payload and its command, locations,
{variables}, the response form and the numbered change, and the system prompt kept in step with
the declarations it is rendered from."""

from __future__ import annotations

import pytest

from operator_app.protocol.chanflow import commands as c
from operator_app.protocol.chanflow.errors import CATALOG, StringCode, StringError
from operator_app.protocol.chanflow.responses import Response, after_message, numbered_change
from operator_app.protocol.chanflow.spec import (
    MAX_PROMPT_CHARS,
    render_prompt,
    string_prompt,
)
from operator_app.protocol.spec import spec_file


@pytest.mark.parametrize(
    ("raw", "full"),
    [(None, "file:main"), ("", "file:main"), ("notes", "file:notes"), ("file:a_b-1", "file:a_b-1")],
)
def test_topics(raw: str | None, full: str) -> None:
    assert c.parse_topic(raw) == full


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("intro.md", 'invalid topic "intro.md"'),
        ("file:a/b", 'invalid topic "file:a/b"'),
        ("mail:x", 'invalid topic "mail:x"'),
        ("web:docs", "Operator serves file and bash topics only"),
        ("app:gmail:work", "Operator serves file and bash topics only"),
        ("bash:a.b", 'invalid topic "bash:a.b"'),
    ],
)
def test_bad_topics(raw: str, says: str) -> None:
    with pytest.raises(StringError) as caught:
        c.parse_topic(raw)
    assert caught.value.code is StringCode.INVALID_TARGET and says in caught.value.message


def test_payload_command_and_content() -> None:
    request = c.read_payload("  /write notes/a.md\r\n# Title\r\ntext")
    assert (request.name, request.argument, request.body) == (
        "write",
        "notes/a.md",
        "# Title\ntext",
    )
    assert c.read_payload("/open x").body is None
    assert c.read_payload("/write x\n").body == ""


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        ("hello world", "Commands must start with /. Use /help for details."),
        ("# Title\n/write x", "Commands must start with /."),
        ("/nav docs", "/nav is not a command Operator serves"),
        ("/act.search --name x", "/act.search is not a command Operator serves"),
    ],
)
def test_what_is_not_a_served_command(payload: str, says: str) -> None:
    with pytest.raises(StringError) as caught:
        c.read_payload(payload)
    assert caught.value.code is StringCode.COMMAND_UNSUPPORTED and says in caught.value.message
    if "serves" in says:
        assert caught.value.context[0] == f"served: {c.SERVED}"


@pytest.mark.parametrize(
    ("argument", "location"),
    [
        ("~/notes/a.md", c.Location("~/notes/a.md")),
        ("notes/a.md#decisions", c.Location("notes/a.md", "decisions")),
        ("#decisions", c.Location(None, "decisions")),
        ("a.md:L5", c.Location("a.md", lines=(5, 5))),
        ("a.md:L5-L10", c.Location("a.md", lines=(5, 10))),
        ("a.md:L5-10", c.Location("a.md", lines=(5, 10))),
        (":L5-L10", c.Location(None, lines=(5, 10))),
        ("a.md@c3", c.Location("a.md", version=3)),
        ("C#/notes.md", c.Location("C#/notes.md")),
        ("my notes.md", c.Location("my notes.md")),
    ],
)
def test_locations(argument: str, location: c.Location) -> None:
    assert c.parse_location("open", argument) == location
    assert location.shown() == argument.replace("L5-10", "L5-L10") or location.path is None


def test_a_backwards_range_is_refused() -> None:
    with pytest.raises(StringError) as caught:
        c.parse_location("replace", "a.md:L9-L3")
    assert caught.value.code is StringCode.INVALID_PARAMS
    assert caught.value.context == ("usage: " + " | ".join(c.BY_NAME["replace"].usage),)


def test_paths_relative_to_the_workspace() -> None:
    assert [c.workspace_relative(p) for p in ("~", "~/", "~/a/b", "a/b")] == [
        ".",
        ".",
        "a/b",
        "a/b",
    ]
    assert c.leaves_workspace("../../etc/shadow") == "../../etc/shadow"
    assert c.leaves_workspace("a/../../b") == "../b"
    assert c.leaves_workspace("a/../b") is None


def test_variables() -> None:
    assert c.substitute("/open {doc}#{part}", {"doc": "a.md", "part": "x"}) == "/open a.md#x"
    with pytest.raises(StringError) as caught:
        c.substitute("/open {nope}", {})
    assert caught.value.code is StringCode.UNDEFINED_VARIABLE
    with pytest.raises(StringError) as caught:
        c.substitute("/open $HOME/a", {"HOME": "x"})
    assert caught.value.code is StringCode.INVALID_VARIABLE
    assert c.parse_set('{name} = "Seoul"') == ("name", "Seoul")
    assert c.parse_set("{name} = plain") == ("name", "plain")
    assert c.parse_set("") is None
    with pytest.raises(StringError):
        c.parse_set("name = x")


def test_response_form() -> None:
    rest = after_message(content="## Decisions\n1. x\n")
    response = Response(
        "file:notes", "2026-03-19T14:30:00+09:00", "k3x9q", "/open a#b", "Opened a#b", rest
    )
    assert response.render() == (
        '<\U0001d49e=string:file:notes time="2026-03-19T14:30:00+09:00">\n'
        "re: [k3x9q] /open a#b\nOpened a#b\n---\n## Decisions\n1. x\n</\U0001d49e>"
    )
    assert after_message() is None
    assert after_message(content="") == "---\n"
    assert after_message(context=("path: x",)) == "path: x"


def test_numbered_change_as_the_transport_document_shows_it() -> None:
    diff = (
        "--- a/m.md\n+++ b/m.md\n@@ -11,5 +11,6 @@\n <!-- #decisions -->\n ## Decisions\n"
        "-(none yet)\n+1. Move deadline to April 1\n+2. Switch to weekly syncs\n"
        " <!-- /decisions -->\n \n"
    )
    assert numbered_change(diff) == (
        "11 \u2502 <!-- #decisions -->\n12 \u2502 ## Decisions\n13 -\u2502 (none yet)\n"
        "13 +\u2502 1. Move deadline to April 1\n14 +\u2502 2. Switch to weekly syncs\n"
        "15 \u2502 <!-- /decisions -->\n16 \u2502"
    )
    many = "--- a/x\n+++ b/x\n@@ -1,0 +1,300 @@\n" + "".join(f"+{n}\n" for n in range(300))
    shown = numbered_change(many).split("\n")
    assert len(shown) == 201 and shown[-1] == "\u2026 (100 more lines of the change)"


def test_the_prompt_file_is_current_and_fits() -> None:
    template = spec_file("string-template.txt").read_text(encoding="utf-8")
    assert string_prompt() == render_prompt(template), (
        "spec/string.txt is stale: python -m operator_app.protocol.chanflow.spec --write"
    )
    prompt = string_prompt()
    assert len(prompt) <= MAX_PROMPT_CHARS
    for spec in c.COMMANDS:
        assert f"/{spec.name}" in prompt
    for code in CATALOG:
        assert f"\n{code.value}: " in prompt
    assert "{{" not in prompt


def test_every_code_has_its_catalog_entry_and_help_names_every_command() -> None:
    assert set(CATALOG) == set(StringCode)
    text = c.help_text()
    assert all(spec.usage[0] in text for spec in c.COMMANDS)
