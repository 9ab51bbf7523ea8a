"""Operator's own String commands for real work, through the real `operator-app exec`: /find,
/grep and /tree are the engine's fs.find, fs.searchTree and fs.tree; /mv, /cp and /rm its
fs.move, fs.copy and fs.delete, with the same consent and journal, and String's /undo takes each
back. They are listed in /help and among the commands COMMAND_UNSUPPORTED names."""

from __future__ import annotations

from pathlib import Path

from tests.support.string_exec import Workspace, chan, content

FILES = {
    "src/app.py": "import os\n\ndef main():\n    return 1\n",
    "src/util/helpers.py": "def main_helper():\n    pass\n",
    "src/notes.md": "# Notes\nMAIN ideas\n",
    "README.md": "Read me.\n",
}


def test_find_lists_entries_whose_path_matches(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    found = w.exec(chan("/find *.py")).one
    assert found["ok"] and found["summary"].startswith('2 entries match "*.py" under .')
    assert content(found).split("\n") == ["src/app.py", "src/util/helpers.py"]
    found = w.exec(chan("/find *.md ~/src")).one
    assert content(found) == "src/notes.md"
    nothing = w.exec(chan("/find *.rs")).one
    assert nothing["ok"] and nothing["details"].endswith("(no entry matches)")


def test_grep_answers_path_line_text_with_its_options(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    plain = w.exec(chan("/grep main src")).one
    assert plain["ok"], plain
    assert content(plain).split("\n") == [
        "src/app.py:3: def main():",
        "src/util/helpers.py:1: def main_helper():",
    ]
    spaced = w.exec(chan('/grep "def main" --include *.py')).one
    assert content(spaced).split("\n") == [
        "src/app.py:3: def main():",
        "src/util/helpers.py:1: def main_helper():",
    ]
    folded = w.exec(chan("/grep main --ignore-case --include=*.md")).one
    assert content(folded) == "src/notes.md:2: MAIN ideas"
    regex = w.exec(chan(r"/grep def\s+main\( --regex --exclude util/")).one
    assert content(regex) == "src/app.py:3: def main():"


def test_grep_with_an_unquoted_text_of_two_words_says_to_quote_it(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    refused = w.exec(chan("/grep def main")).one
    assert refused["error_code"] == "INVALID_PARAMS"
    assert 'write it in quotes: /grep "def main"' in refused["summary"]
    bad = w.exec(chan("/grep ( --regex")).one
    assert bad["error_code"] == "INVALID_PARAMS" and "regular expression" in bad["summary"]
    assert "fs." not in bad["summary"] + (bad["details"] or "")
    unknown = w.exec(chan("/grep x --case")).one
    assert unknown["error_code"] == "INVALID_PARAMS" and "--ignore-case" in unknown["details"]


def test_tree_outlines_a_folder_to_a_depth(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    whole = w.exec(chan("/tree")).one
    assert whole["ok"] and whole["summary"].startswith("Tree of . to depth 3")
    assert "src/util/helpers.py (28 bytes)" in whole["details"]
    shallow = w.exec(chan("/tree src 1")).one
    assert "src/util/ (1 entry)" in content(shallow).split("\n")
    top = w.exec(chan("/tree 1")).one
    assert content(top).split("\n")[0] == "src/ (3 entries)"


def test_mv_cp_rm_change_the_tree_and_undo_takes_each_back(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    moved = w.exec("Renaming.\n" + chan("/mv README.md docs/README.md")).one
    assert moved["ok"] and moved["summary"] == "\u2713 Moved: ~/README.md -> ~/docs/README.md"
    assert w.read("docs/README.md") == "Read me.\n" and not (w.ws / "README.md").exists()
    copied = w.exec("Copying.\n" + chan('/cp src/app.py "src/app copy.py"')).one
    assert copied["ok"] and w.read("src/app copy.py") == FILES["src/app.py"]
    removed = w.exec("Removing.\n" + chan("/rm src/util")).one
    assert removed["summary"] == (
        "\u2713 Removed: the folder ~/src/util/ (1 file) (to the trash; /undo brings it back)"
    )
    assert not (w.ws / "src" / "util").exists()
    undone = w.exec("Back.\n" + chan("/undo")).one
    assert undone["summary"] == "\u2713 Undo: restored ~/src/util from the trash"
    assert w.read("src/util/helpers.py") == FILES["src/util/helpers.py"]
    undone = w.exec("Back again.\n" + chan("/undo")).one
    assert undone["summary"] == "\u2713 Undo: removed ~/src/app copy.py, the copy of ~/src/app.py"
    assert not (w.ws / "src" / "app copy.py").exists()
    undone = w.exec("And the move.\n" + chan("/undo")).one
    assert undone["summary"] == "\u2713 Undo: moved ~/docs/README.md back to ~/README.md"
    assert w.read("README.md") == "Read me.\n"


def test_undo_of_a_copy_over_a_file_says_the_file_is_back(tmp_path: Path) -> None:
    """It said "removed ~/b, the copy of ~/a (and the file it replaced)" while b was put back."""
    w = Workspace(tmp_path, {"a.md": "new\n", "b.md": "old\n"})
    assert w.exec("Copying.\n" + chan("/cp a.md b.md --overwrite")).one["ok"]
    assert w.read("b.md") == "new\n"
    undone = w.exec("Back.\n" + chan("/undo")).one
    assert undone["summary"] == "\u2713 Undo: ~/b.md is back as it was before the copy of ~/a.md"
    assert w.read("b.md") == "old\n"


def test_mv_onto_a_file_needs_overwrite_and_declined_changes_nothing(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    refused = w.exec(chan("/mv src/notes.md README.md")).one
    assert refused["error_code"] == "INVALID_PATH"
    text = refused["summary"] + (refused["details"] or "")
    assert "--overwrite" in text and "fs." not in text and "overwrite: true" not in text
    declined = w.exec(chan("/rm README.md"), approve="none").one
    assert declined["error_code"] == "REJECTED" and w.read("README.md") == "Read me.\n"
    replaced = w.exec("Now replace.\n" + chan("/mv src/notes.md README.md --overwrite")).one
    assert replaced["ok"] and w.read("README.md") == FILES["src/notes.md"]


def test_help_and_the_served_list_name_operators_own_commands(tmp_path: Path) -> None:
    w = Workspace(tmp_path, FILES)
    helped = w.exec(chan("/help")).one["details"]
    assert "Operator's own (not in String's specification):" in helped
    for usage in ("/find GLOB [folder]", "/grep TEXT [folder]", "/tree [folder] [depth]"):
        assert usage in helped
    for usage in ("/mv FROM TO [--overwrite]", "/cp FROM TO [--overwrite]", "/rm PATH"):
        assert usage in helped
    unknown = w.exec(chan("/search x")).one
    assert unknown["error_code"] == "COMMAND_UNSUPPORTED"
    assert "/find, /grep, /tree, /mv, /cp, /rm" in unknown["details"]


def test_a_kept_versions_block_or_lines_open_as_written(tmp_path: Path) -> None:
    """The prompt lists path#id, path:L5 and path@c2 side by side; together they were read as
    a file named "README.md@c1" (NOT_FOUND, its close name the file the model had named)."""
    doc = "# T\n\n## Decisions\n\none\ntwo\n\n## Other\n\nx\n"
    w = Workspace(tmp_path, {"R.md": doc})
    assert w.exec(chan("/commit R.md")).one["ok"]
    w.put("R.md", doc.replace("two", "TWO"))
    run = w.exec(chan("/open R.md@c1#decisions") + chan("/open R.md@c1:L5-L6"))
    block, lines = run.results
    assert block["summary"] == "Opened R.md@c1#decisions"
    assert content(block) == "## Decisions\n\none\ntwo"
    assert lines["summary"] == "Opened R.md@c1:L5-L6"
    assert content(lines) == "5 \u2502 one\n6 \u2502 two"
