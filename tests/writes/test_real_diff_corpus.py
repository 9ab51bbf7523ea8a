"""The committed real-diff corpus (fixtures/real-diffs): files that changed between released
versions of public packages, with the diffs `diff -u` and `git diff --no-index` printed for them.
Every patch goes through the real `operator-app exec` (a subprocess, fs.patch, --approve all) on a
workspace holding the old file; the result must be the new file byte for byte, the same patch
sent again must fail without touching anything (and say it looks applied already), and undo must
bring back every old file.
Offline: the corpus is exported by benchmarks/real_diffs.py, which needs the network."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from tests.support.cases import in_session

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fixtures" / "real-diffs"
MANIFEST: list[dict[str, str]] = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
WINDOW_BUDGET = 180_000  # characters per message, below the 200,000-character scan window


def case_bytes(entry: dict[str, str], kind: str) -> bytes | None:
    path = CORPUS / "cases" / f"{entry['case']}.{kind}"
    return path.read_bytes() if path.exists() else None


def ws_path(entry: dict[str, str]) -> str:
    return f"{entry['case']}/{entry['path'].rsplit('/', 1)[-1]}"


def block(cid: str, path: str, patch: bytes) -> str:
    payload = base64.b64encode(patch).decode("ascii")
    return (
        f"OPERATOR_CMD\nversion: 1\nid: {cid}\naction: fs.patch\npath: {path}\n"
        f"patch_b64: {payload}\nEND_OPERATOR_CMD\n"
    )


def exec_messages(ws: Path, state: Path, blocks: list[str]) -> dict[str, dict[str, object]]:
    """Send the blocks in as few messages as fit the scan window; the results by id."""
    messages: list[list[str]] = [[]]
    for text in blocks:
        if sum(map(len, messages[-1])) + len(text) > WINDOW_BUDGET:
            messages.append([])
        messages[-1].append(text)
    results: dict[str, dict[str, object]] = {}
    for n, texts in enumerate(messages):
        message = state.parent / f"message-{len(results)}-{n}.txt"
        message.write_text("".join(texts), encoding="ascii")
        done = in_session(
            "exec",
            ws,
            state,
            "--approve",
            "all",
            "--json",
            str(message),
        )
        assert done.returncode == 0, done.stderr
        results.update({str(r["id"]): r for r in json.loads(done.stdout)["data"]["results"]})
    return results


def _has_pure_deletion(patch: bytes) -> bool:
    """Whether some hunk has no new side (@@ -a,b +c,0 @@)."""
    return any(
        line.startswith(b"@@ ") and b",0 @@" in line.split(b" +", 1)[1][:30]
        for line in patch.split(b"\n")
    )


def test_the_corpus_is_intact_varied_and_licensed() -> None:
    assert len(MANIFEST) >= 150
    for entry in MANIFEST:
        for kind in ("old", "new", "patch"):
            data = case_bytes(entry, kind)
            if kind == "old" and "old_sha256" not in entry:
                assert data is None, entry["case"]
                continue
            assert data is not None, (entry["case"], kind)
            # A checkout that converted line breaks would test something else without saying so.
            assert hashlib.sha256(data).hexdigest() == entry[f"{kind}_sha256"], (
                entry["case"],
                kind,
            )
    variants = {e["variant"] if "old_sha256" in e else "create" for e in MANIFEST}
    assert {
        "as released",
        "bom",
        "crlf",
        "mixed-line-endings",
        "create",
        "old-no-final-newline",
        "new-no-final-newline",
        "both-no-final-newline",
    } <= variants
    assert {"diff-u", "git", "diff-U0", "git-U0"} <= {e["tool"] for e in MANIFEST}
    assert len({e["package"] for e in MANIFEST}) >= 10
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    licences = [p.name for p in (CORPUS / "licenses").iterdir()]
    for package in {e["package"] for e in MANIFEST}:
        assert f"| {package} |" in readme, package
        assert any(name.startswith(f"{package}-") for name in licences), package
    # real CRLF files as published, not only converted ones
    assert any(
        e["variant"] == "as released" and b"\r\n" in (case_bytes(e, "new") or b"") for e in MANIFEST
    )


@pytest.mark.slow
def test_every_real_patch_applies_byte_for_byte_once_and_undo_restores_the_old_files(
    tmp_path: Path,
) -> None:
    ws, state = tmp_path / "ws", tmp_path / "state"
    ws.mkdir()
    for entry in MANIFEST:
        old = case_bytes(entry, "old")
        (ws / entry["case"]).mkdir()
        if old is not None:
            (ws / ws_path(entry)).write_bytes(old)
    patches = {e["case"]: case_bytes(e, "patch") or b"" for e in MANIFEST}

    first = exec_messages(
        ws, state, [block(f"p{e['case']}", ws_path(e), patches[e["case"]]) for e in MANIFEST]
    )
    for entry in MANIFEST:
        result = first[f"p{entry['case']}"]
        assert result["ok"], (entry, result["summary"])
        assert (ws / ws_path(entry)).read_bytes() == case_bytes(entry, "new"), entry
        hunks = sum(1 for line in patches[entry["case"]].split(b"\n") if line.startswith(b"@@ "))
        assert f": {hunks} hunk" in str(result["summary"]), (entry, result["summary"])

    after = {e["case"]: (ws / ws_path(e)).read_bytes() for e in MANIFEST}
    again = exec_messages(
        ws, state, [block(f"r{e['case']}", ws_path(e), patches[e["case"]]) for e in MANIFEST]
    )
    for entry in MANIFEST:
        result = again[f"r{entry['case']}"]
        assert not result["ok"] and result["error_code"] == "ERR_PATCH_MISMATCH", (
            entry,
            result["summary"],
        )
        # Said for what it is, unless a hunk only deletes (then there is no new side to recognise).
        if "old_sha256" in entry and not _has_pure_deletion(patches[entry["case"]]):
            assert "looks applied already" in str(result["summary"]), (entry, result["summary"])
    assert {e["case"]: (ws / ws_path(e)).read_bytes() for e in MANIFEST} == after

    undo = in_session("undo", ws, state, "--steps", str(len(MANIFEST)))
    assert undo.returncode == 0, undo.stderr
    for entry in MANIFEST:
        old = case_bytes(entry, "old")
        target = ws / ws_path(entry)
        if old is None:
            assert not target.exists(), entry
        else:
            assert target.read_bytes() == old, entry
    assert sorted(p.name for p in ws.iterdir()) == sorted(
        e["case"] for e in MANIFEST
    )  # no temp file left
