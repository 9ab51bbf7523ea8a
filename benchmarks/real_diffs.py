"""Real diffs between released versions of public packages, applied through `operator-app exec`.

What it proves: fs.patch applies the unified diffs that `diff -u` (several -U contexts) and
`git diff --no-index` really produce between two releases of a package, byte for byte, through
the real command line (an OPERATOR_CMD block per patch, `--approve all`, a temporary workspace
holding the old file), and the same patch sent a second time fails without touching the file.

Why a script and not a test: it needs the network (PyPI) the first time and takes minutes; the
test suite stays offline and runs the small committed corpus this script exports
(`--export-corpus fixtures/real-diffs`, checked by tests/writes/test_real_diff_corpus.py).

How:
1. `pip download --no-deps --no-binary :all:` the source distributions named in PACKAGES (falling
   back to the wheel when an sdist cannot be had) into a cache folder outside the repository
   ($OPERATOR_REAL_DIFFS_CACHE, else $XDG_CACHE_HOME/operator-real-diffs, else
   ~/.cache/operator-real-diffs), and unpack them there. Later runs use the cache.
2. For consecutive versions of a package, pair the UTF-8 text files present in both that differ
   (and the files the newer version adds, as /dev/null creations). Each pair gets diffs from
   `diff -u` and `git diff --no-index`, plus one rotating variant (-U0, -U1, -U8, git -U0,
   git --histogram -U5, diff -u with timestamped headers). Every fourth pair is also tried as CRLF
   text, and every fourth without a final newline on one or both sides (real files lacking one
   are included as they are).
3. Cases are sent in batches, one message of blocks per batch (below the 200,000-character scan
   window), to `operator-app exec --approve all --json` on a fresh workspace; each result must be
   ok and the file must equal the new version byte for byte. Then the same patches are sent again
   (new ids) and each must fail, leaving the file as it was, including the patches whose hunks
   have no context after them (an append at the end, a -U0 insertion), which strict positions
   alone would apply again (a small independent strict applier below tells those apart in the
   report).
4. Patches whose block would be over the spec's 50,000 characters are "skipped: too large for one
   block", not failures; so are empty-file creations (a diff with no hunk cannot express them).

Usage:
    python benchmarks/real_diffs.py [--limit N] [--keep DIR]
        [--export-corpus DIR [--corpus-bytes N]]

Exit status 0 when nothing failed. Failures are saved under --keep (default: the cache's
failures/ folder) as old / new / patch / result files, to reproduce one by hand.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
MAX_BLOCK_CHARS = 50_000  # the spec: "max 200 lines and 50,000 chars inside a block"
MESSAGE_BUDGET = 180_000  # below the 200,000-character scan window, with room for the markers

# Pure-Python packages, permissively licensed (the licence is checked against the sdist's metadata
# when the corpus is exported, and its LICENSE file is copied along).
PACKAGES: dict[str, tuple[str, list[str]]] = {
    "requests": ("Apache-2.0", ["2.28.2", "2.31.0", "2.32.3"]),
    "click": ("BSD-3-Clause", ["8.1.3", "8.1.7"]),
    "attrs": ("MIT", ["22.2.0", "23.1.0"]),
    "jinja2": ("BSD-3-Clause", ["3.1.2", "3.1.4"]),
    "flask": ("BSD-3-Clause", ["2.3.3", "3.0.0"]),
    "werkzeug": ("BSD-3-Clause", ["2.3.7", "3.0.1"]),
    "itsdangerous": ("BSD-3-Clause", ["2.1.2", "2.2.0"]),
    "httpx": ("BSD-3-Clause", ["0.25.2", "0.27.0"]),
    "rich": ("MIT", ["13.5.0", "13.7.0"]),
    "packaging": ("Apache-2.0 OR BSD-2-Clause", ["23.1", "24.0"]),
    "six": ("MIT", ["1.15.0", "1.16.0"]),
    "pyparsing": ("MIT", ["3.0.9", "3.1.1"]),
    "colorama": ("BSD-3-Clause", ["0.4.4", "0.4.6"]),
    "tomli": ("MIT", ["2.0.1", "2.0.2"]),
}

OLD_MTIME_NS = 1_704_067_200_000_000_000  # 2024-01-01T00:00:00Z
NEW_MTIME_NS = 1_717_200_000_123_456_789  # 2024-06-01, with nanoseconds as diff prints them
VARIANT_TOOLS = ["diff-U0", "diff-U1", "diff-U8", "git-U0", "git-histogram-U5", "diff-u-timestamps"]


# --- fetching ----------------------------------------------------------------------------------


def cache_dir() -> Path:
    explicit = os.environ.get("OPERATOR_REAL_DIFFS_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "operator-real-diffs"


def _archive(folder: Path, name: str, version: str) -> Path | None:
    stem = re.sub(r"[-_.]+", "[-_.]", name)
    pattern = re.compile(
        rf"^{stem}-{re.escape(version)}(\.tar\.gz|\.zip|-py.*\.whl)$", re.IGNORECASE
    )
    found = sorted(p for p in folder.iterdir() if pattern.match(p.name)) if folder.exists() else []
    # An sdist carries tests and docs too: more, and more varied, files than the wheel.
    found.sort(key=lambda p: p.suffix == ".whl")
    return found[0] if found else None


def download(name: str, version: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    have = _archive(folder, name, version)
    if have is not None:
        return have
    pip = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--quiet",
        "-d",
        str(folder),
        f"{name}=={version}",
    ]
    done = subprocess.run([*pip, "--no-binary", ":all:"], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"  no sdist for {name} {version}; using the wheel", file=sys.stderr)
        subprocess.run([*pip, "--only-binary", ":all:"], check=True, capture_output=True, text=True)
    have = _archive(folder, name, version)
    if have is None:
        raise SystemExit(f"pip saved nothing recognisable for {name}=={version} in {folder}")
    return have


def unpack(archive: Path, dest: Path) -> Path:
    """The archive's files under dest (the sdist's single top folder stripped)."""
    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".unpack-"))
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(scratch)
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(scratch, filter="data")
    entries = list(scratch.iterdir())
    top = (
        entries[0]
        if len(entries) == 1 and entries[0].is_dir() and archive.suffix != ".whl"
        else scratch
    )
    top.rename(dest)
    shutil.rmtree(scratch, ignore_errors=True)
    return dest


def text_files(tree: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every regular UTF-8 text file (no NUL) in tree."""
    out: dict[str, bytes] = {}
    for path in sorted(tree.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        out[path.relative_to(tree).as_posix()] = data
    return out


# --- cases -------------------------------------------------------------------------------------


@dataclass
class Case:
    number: int
    package: str
    versions: tuple[str, str]
    rel: str  # path inside the package
    variant: str  # "as released", "crlf", "old-no-final-newline", ...
    tool: str
    old: bytes | None  # None: the file is created
    new: bytes
    patch: str = ""
    outcome: str = ""  # applied | skipped: ... | failed: ...
    detail: str = ""

    @property
    def ws_path(self) -> str:
        base = re.sub(r"[^A-Za-z0-9._-]", "_", self.rel.rsplit("/", 1)[-1]) or "file"
        return f"c{self.number:05d}/{base}"


def _git_env() -> dict[str, str]:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C")
    env.pop("GIT_EXTERNAL_DIFF", None)
    return env


def make_diff(tool: str, old: Path, new: Path, rel: str) -> bytes:
    """The diff of old -> new (old may be /dev/null) as the tool prints it. The tools run in the
    scratch folder on relative names (a/<name>, b/<name>), so a run's headers do not depend on
    where the scratch folder happened to be."""
    scratch = new.parent.parent
    old_name = str(old) if old == Path(os.devnull) else os.path.relpath(old, scratch)
    new_name = os.path.relpath(new, scratch)
    if tool.startswith("git"):
        extra = {"git": [], "git-U0": ["-U0"], "git-histogram-U5": ["--histogram", "-U5"]}[tool]
        cmd = [
            "git",
            "diff",
            "--no-index",
            "--no-color",
            "--no-ext-diff",
            *extra,
            old_name,
            new_name,
        ]
        done = subprocess.run(cmd, capture_output=True, env=_git_env(), cwd=scratch)
    else:
        context = {
            "diff-u": "3",
            "diff-U0": "0",
            "diff-U1": "1",
            "diff-U8": "8",
            "diff-u-timestamps": "3",
        }[tool]
        labels = (
            []
            if tool == "diff-u-timestamps"
            else [
                "--label",
                "/dev/null" if old == Path(os.devnull) else f"a/{rel}",
                "--label",
                f"b/{rel}",
            ]
        )
        done = subprocess.run(
            ["diff", f"-U{context}", *labels, old_name, new_name],
            capture_output=True,
            cwd=scratch,
            env=dict(os.environ, LC_ALL="C", TZ="UTC"),
        )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{tool} failed on {rel}: {done.stderr.decode(errors='replace')}")
    return done.stdout


_STRICT_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class StrictHunk(NamedTuple):
    start: int  # the old side's stated first line
    olds: list[str]
    news: list[str]
    old_nl: bool  # the old side's last line has its line break (no "\ No newline" after it)
    new_nl: bool


def strict_apply(old: str, patch: str) -> str | None:
    """An independent, minimal strict applier (hunks at their stated lines, exact context,
    "\\ No newline" honoured), used only to judge a second application that succeeded."""
    lines, final = _lines_and_final(old)
    out: list[str] = []
    cursor = 0
    new_final = final
    for hunk in strict_hunks(patch):
        index = hunk.start - 1 if hunk.olds else hunk.start
        if index < cursor or lines[index : index + len(hunk.olds)] != hunk.olds:
            return None
        at_end = index + len(hunk.olds) == len(lines)
        if (hunk.olds and at_end and hunk.old_nl != final) or (not hunk.old_nl and not at_end):
            return None
        out += lines[cursor:index] + hunk.news
        cursor = index + len(hunk.olds)
        if cursor == len(lines):
            new_final = hunk.new_nl if hunk.news else True
    out += lines[cursor:]
    if not out:
        return ""
    return "\n".join(out) + ("\n" if new_final else "")


def _lines_and_final(text: str) -> tuple[list[str], bool]:
    """The text's lines and whether it ends with a line break (an empty text counts as one)."""
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    if text == "":
        return [], True
    return lines, final


def strict_hunks(patch: str) -> Iterator[StrictHunk]:
    """The patch's hunks, each read to its header's counts (and a marker after them)."""
    body = patch.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(body):
        m = _STRICT_HEADER.match(body[i])
        i += 1
        if m:
            want = (1 if m[2] is None else int(m[2])), (1 if m[4] is None else int(m[4]))
            hunk, i = strict_hunk(body, i, int(m[1]), want)
            yield hunk


def strict_hunk(
    body: list[str], i: int, start: int, want: tuple[int, int]
) -> tuple[StrictHunk, int]:
    """The hunk whose body begins at body[i], and where it ends."""
    olds: list[str] = []
    news: list[str] = []
    old_nl = new_nl = True
    while i < len(body) and (
        len(olds) < want[0] or len(news) < want[1] or body[i].startswith("\\")
    ):
        kind, text = body[i][:1], body[i][1:]
        if kind == "\\":
            previous = body[i - 1][:1]
            old_nl = old_nl and previous not in (" ", "-")
            new_nl = new_nl and previous not in (" ", "+")
        else:
            if kind != "+":
                olds.append(text)
            if kind != "-":
                news.append(text)
        i += 1
    return StrictHunk(start, olds, news, old_nl, new_nl), i


def build_cases(cache: Path, limit: int | None) -> list[Case]:
    cases: list[Case] = []
    pair_number = 0
    scratch = Path(tempfile.mkdtemp(prefix="operator-real-diffs-"))
    try:
        for name, (_licence, versions) in PACKAGES.items():
            trees = []
            for version in versions:
                archive = download(name, version, cache / "archives")
                trees.append(unpack(archive, cache / "trees" / f"{name}-{version}"))
            for (v_old, t_old), (v_new, t_new) in pairwise(zip(versions, trees, strict=True)):
                olds, news = text_files(t_old), text_files(t_new)
                for rel in sorted(news):
                    if limit is not None and len(cases) >= limit:
                        return cases
                    if rel in olds and olds[rel] == news[rel]:
                        continue
                    pair_number += 1
                    cases += pair_cases(
                        name,
                        (v_old, v_new),
                        rel,
                        olds.get(rel),
                        news[rel],
                        pair_number,
                        len(cases),
                        scratch,
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return cases


def _mixed(data: bytes) -> bytes:
    """Some lines CRLF, the others LF, decided by the line's own text, so a line keeps its break
    across versions as it would in a real file edited on two systems."""
    lines = data.split(b"\n")
    out = [line + (b"\r" if hashlib.md5(line).digest()[0] % 2 else b"") for line in lines[:-1]]
    return b"\n".join(out + lines[-1:])


def _variants(
    old: bytes | None, new: bytes, pair_number: int
) -> list[tuple[str, bytes | None, bytes]]:
    out: list[tuple[str, bytes | None, bytes]] = [("as released", old, new)]
    if old is None:
        return out
    if (
        pair_number % 4 == 0
        and not old.startswith(b"\xef\xbb\xbf")
        and not new.startswith(b"\xef\xbb\xbf")
    ):
        out.append(("bom", b"\xef\xbb\xbf" + old, b"\xef\xbb\xbf" + new))
    if pair_number % 4 == 1 and b"\r" not in old + new:
        out.append(("crlf", old.replace(b"\n", b"\r\n"), new.replace(b"\n", b"\r\n")))
    if pair_number % 4 == 2 and b"\r" not in old + new:
        out.append(("mixed-line-endings", _mixed(old), _mixed(new)))
    if pair_number % 4 == 3:
        out += _without_final_newline(old, new, (pair_number // 4) % 3)
    return out


def _without_final_newline(
    old: bytes, new: bytes, which: int
) -> list[tuple[str, bytes | None, bytes]]:
    """The variant whose old (`which` 0), new (1) or both versions (2) lose their last line
    break; both when the one chosen has none to lose."""

    def strip(data: bytes) -> bytes:  # the whole last line break, CRLF or LF
        return data.removesuffix(b"\n").removesuffix(b"\r")

    if which == 0 and old.endswith(b"\n"):
        return [("old-no-final-newline", strip(old), new)]
    if which == 1 and new.endswith(b"\n"):
        return [("new-no-final-newline", old, strip(new))]
    if old.endswith(b"\n") or new.endswith(b"\n"):  # `which` 2, or the one chosen had none
        return [("both-no-final-newline", strip(old), strip(new))]
    return []


def pair_cases(
    package: str,
    versions: tuple[str, str],
    rel: str,
    old: bytes | None,
    new: bytes,
    pair_number: int,
    first: int,
    scratch: Path,
) -> list[Case]:
    out: list[Case] = []
    for variant, old_bytes, new_bytes in _variants(old, new, pair_number):
        if old_bytes == new_bytes:
            continue
        tools = ["diff-u", "git"]
        if variant == "as released":
            tools.append(VARIANT_TOOLS[pair_number % len(VARIANT_TOOLS)])
        a_dir, b_dir = scratch / "a", scratch / "b"
        a_dir.mkdir(exist_ok=True)
        b_dir.mkdir(exist_ok=True)
        base = re.sub(r"[^A-Za-z0-9._-]", "_", rel.rsplit("/", 1)[-1]) or "file"
        a_path, b_path = a_dir / base, b_dir / base
        b_path.write_bytes(new_bytes)
        if old_bytes is None:
            a_path = Path(os.devnull)
        else:
            a_path.write_bytes(old_bytes)
            a_path.chmod(0o644)
            # timestamped headers, the same each run
            os.utime(a_path, ns=(OLD_MTIME_NS, OLD_MTIME_NS))
        b_path.chmod(0o644)
        os.utime(b_path, ns=(NEW_MTIME_NS, NEW_MTIME_NS))
        for tool in tools:
            case = Case(
                first + len(out) + 1, package, versions, rel, variant, tool, old_bytes, new_bytes
            )
            raw = make_diff(tool, a_path, b_path, rel)
            try:
                case.patch = raw.decode("utf-8")
            except UnicodeDecodeError:
                case.outcome = "skipped: the diff is not UTF-8"
            out.append(case)
    return out


# --- running through exec ----------------------------------------------------------------------


def operator_command() -> list[str]:
    script = Path(sys.executable).parent / "operator-app"
    return [str(script)] if script.exists() else [sys.executable, "-m", "operator_app"]


def block_for(cid: str, path: str, patch: str) -> str:
    payload = base64.b64encode(patch.encode("utf-8")).decode("ascii")
    inner = [
        "version: 1",
        f"id: {cid}",
        "action: fs.patch",
        f"path: {path}",
        f"patch_b64: {payload}",
    ]
    return "\n".join(["OPERATOR_CMD", *inner, "END_OPERATOR_CMD"]) + "\n"


def block_chars(path: str, patch: str) -> int:
    """Characters inside the block, counted as the scanner counts them (each line plus its
    break)."""
    payload = (len(patch.encode("utf-8")) + 2) // 3 * 4
    inner = ["version: 1", "id: r00000", "action: fs.patch", f"path: {path}", "patch_b64: "]
    return sum(len(line) + 1 for line in inner) + payload


def run_exec(ws: Path, state: Path, message: str) -> dict[str, dict[str, object]]:
    message_file = state.parent / f"message-{time.monotonic_ns()}.txt"
    message_file.write_text(message, encoding="ascii")
    done = subprocess.run(
        [
            *operator_command(),
            "exec",
            "--workspace",
            str(ws),
            "--state-dir",
            str(state),
            "--approve",
            "all",
            "--json",
            str(message_file),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"exec exited {done.returncode}: {done.stderr}")
    results = json.loads(done.stdout)["data"]["results"]
    return {str(r["id"]): r for r in results}


def is_crlf(data: bytes) -> bool:
    """Operator's rule (engine/textfile.py) for a file whose line breaks are all CRLF."""
    return b"\n" in data and data.count(b"\r\n") == data.count(b"\n") and b"\r\r\n" not in data


def expected_bytes(case: Case) -> bytes:
    """The new version, except where the old file is all CRLF: Operator keeps a file's newline
    style (docs/design.md, decision 10), so lines the new version ends with a bare LF get CRLF."""
    if case.old is None or not is_crlf(case.old) or is_crlf(case.new):
        return case.new
    return re.sub(rb"(?<!\r)\n", b"\r\n", case.new)


def batches(cases: list[Case]) -> list[list[Case]]:
    out: list[list[Case]] = []
    size = 0
    for case in cases:
        cost = block_chars(case.ws_path, case.patch) + 40
        if not out or size + cost > MESSAGE_BUDGET:
            out.append([])
            size = 0
        out[-1].append(case)
        size += cost
    return out


def run_batch(batch: list[Case], work: Path) -> None:
    """Apply the batch's patches in one message, then the applied ones once more in another:
    each case's outcome says what became of it."""
    ws, state = work / "ws", work / "state"
    shutil.rmtree(work, ignore_errors=True)
    ws.mkdir(parents=True)
    for case in batch:
        target = ws / case.ws_path
        target.parent.mkdir(parents=True, exist_ok=True)
        if case.old is not None:
            target.write_bytes(case.old)
    first = run_exec(
        ws, state, "".join(block_for(f"p{c.number}", c.ws_path, c.patch) for c in batch)
    )
    applied: list[Case] = []
    for case in batch:
        data = (ws / case.ws_path).read_bytes() if (ws / case.ws_path).exists() else None
        if judge_first(case, first.get(f"p{case.number}"), data):
            applied.append(case)
    if not applied:
        return
    again = run_exec(
        ws, state, "".join(block_for(f"r{c.number}", c.ws_path, c.patch) for c in applied)
    )
    for case in applied:
        judge_again(case, again.get(f"r{case.number}"), (ws / case.ws_path).read_bytes())


def judge_first(case: Case, result: dict[str, object] | None, data: bytes | None) -> bool:
    """The case's outcome from its patch's first application (`data`: the file after it);
    whether it applied."""
    if result is None:
        case.outcome, case.detail = "failed: no result", ""
    elif result.get("error_code") == "ERR_BLOCK_TOO_LARGE":
        case.outcome = "skipped: too large for one block"
    elif not result["ok"]:
        case.outcome, case.detail = (
            f"failed: {result.get('error_code')}",
            str(result["summary"]),
        )
        if data != case.old:
            case.outcome += " and the file changed"
    elif data != expected_bytes(case):
        case.outcome, case.detail = "failed: wrong bytes", str(result["summary"])
    else:
        case.outcome = (
            "applied"
            if data == case.new
            else "applied (a CRLF file keeps its style: the new version's LF lines became CRLF)"
        )
        return True
    return False


def judge_again(case: Case, result: dict[str, object] | None, data: bytes) -> None:
    """A failure, when the same patch sent again was applied or changed the file."""
    if result is None:
        case.outcome, case.detail = "failed: no result for the second application", ""
    elif result["ok"]:
        # Strict positions alone would let an append at the end (no context after it) apply
        # again; Operator refuses a patch whose new lines are all there already.
        legit = strict_apply(case.new.decode("utf-8").replace("\r\n", "\n"), case.patch) is not None
        case.outcome = "failed: applied twice"
        case.detail = (
            f"{result['summary']} (a strict applier alone "
            f"{'would' if legit else 'would not'} apply it again)"
        )
    elif data != expected_bytes(case):
        case.outcome, case.detail = (
            "failed: the second application changed the file",
            str(result["summary"]),
        )


def save_failure(case: Case, keep: Path) -> None:
    safe_rel = re.sub(r"[^A-Za-z0-9._-]", "_", case.rel)
    folder = keep / f"{case.number:05d}-{case.package}-{safe_rel}-{case.tool}"
    folder.mkdir(parents=True, exist_ok=True)
    if case.old is not None:
        (folder / "old").write_bytes(case.old)
    (folder / "new").write_bytes(case.new)
    (folder / "patch").write_text(case.patch, encoding="utf-8")
    (folder / "result.txt").write_text(
        f"{case.outcome}\n{case.detail}\n{case.variant} {case.versions}\n", encoding="utf-8"
    )


# --- the committed corpus ----------------------------------------------------------------------


def _hunks(case: Case) -> int:
    return sum(1 for line in case.patch.split("\n") if line.startswith("@@ "))


def _size(case: Case) -> int:
    return len(case.new) + len(case.old or b"") + len(case.patch.encode("utf-8"))


def export_corpus(cases: list[Case], cache: Path, dest: Path, budget: int) -> None:
    """A small, varied selection of cases that applied exactly (and failed the second time) for
    the offline test: old / new / patch bytes, a manifest with sha256s (a checkout that mangles
    line breaks is then caught instead of silently testing something else), the packages'
    licence files, and a README naming package, versions and licence of every case."""
    chosen, used = choose_corpus(cases, budget)
    for folder in ("cases", "licenses"):
        shutil.rmtree(dest / folder, ignore_errors=True)
        (dest / folder).mkdir(parents=True)
    manifest = [
        write_corpus_case(dest, f"{n:03d}", case)
        for n, case in enumerate(sorted(chosen, key=lambda c: c.number), start=1)
    ]
    packages = sorted({c.package for c in chosen})
    for package in packages:
        copy_licences(cache / "trees" / f"{package}-{PACKAGES[package][1][-1]}", dest, package)
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    # Keep every byte as committed: no end-of-line conversion of CRLF or mixed files by git.
    (dest / ".gitattributes").write_text("* -text\n", encoding="utf-8")
    (dest / "README.md").write_text(corpus_readme(chosen, used, packages), encoding="utf-8")
    print(f"exported {len(chosen)} cases, {used} bytes, to {dest}")


def choose_corpus(cases: list[Case], budget: int) -> tuple[list[Case], int]:
    """The cases chosen, and their bytes. Per package, variant and tool: the case with the most
    hunks under 12 KB, then the smallest; every group's richest case before any group's second
    one, the smaller ones first, so the budget buys breadth (packages, variants, tools) before
    depth."""
    groups: dict[tuple[str, str, str], list[Case]] = {}
    for case in cases:
        if case.outcome == "applied":
            kind = case.variant if case.old is not None else "create"
            groups.setdefault((case.package, kind, case.tool), []).append(case)
    firsts: list[Case] = []
    seconds: list[Case] = []
    for key in sorted(groups):
        members = [c for c in groups[key] if _size(c) <= 12_000]
        if members:
            richest = max(members, key=lambda c: (_hunks(c), -_size(c)))
            smallest = min(members, key=_size)
            firsts.append(richest)
            if smallest is not richest:
                seconds.append(smallest)
    chosen: list[Case] = []
    used = 0
    for case in sorted(firsts, key=_size) + sorted(seconds, key=_size):
        if used + _size(case) <= budget:
            chosen.append(case)
            used += _size(case)
    return chosen, used


def write_corpus_case(dest: Path, stem: str, case: Case) -> dict[str, object]:
    """Write the case's files under dest/cases; its manifest entry."""
    entry: dict[str, object] = {
        "case": stem,
        "package": case.package,
        "from": case.versions[0],
        "to": case.versions[1],
        "path": case.rel,
        "variant": case.variant,
        "tool": case.tool,
        "license": PACKAGES[case.package][0],
        "new_sha256": hashlib.sha256(case.new).hexdigest(),
        "patch_sha256": hashlib.sha256(case.patch.encode("utf-8")).hexdigest(),
    }
    if case.old is not None:
        (dest / "cases" / f"{stem}.old").write_bytes(case.old)
        entry["old_sha256"] = hashlib.sha256(case.old).hexdigest()
    (dest / "cases" / f"{stem}.new").write_bytes(case.new)
    (dest / "cases" / f"{stem}.patch").write_bytes(case.patch.encode("utf-8"))
    return entry


def copy_licences(tree: Path, dest: Path, package: str) -> None:
    """The licence and notice files of the package's newest version, into dest/licenses."""
    for notice in sorted(tree.iterdir()):
        if notice.is_file() and notice.name.upper().startswith(
            ("LICENSE", "LICENCE", "COPYING", "NOTICE")
        ):
            shutil.copyfile(notice, dest / "licenses" / f"{package}-{notice.name}")


def corpus_readme(chosen: list[Case], used: int, packages: list[str]) -> str:
    rows = []
    for package in packages:
        mine = [c for c in chosen if c.package == package]
        pairs = sorted({f"{c.versions[0]} -> {c.versions[1]}" for c in mine})
        rows.append(f"| {package} | {', '.join(pairs)} | {PACKAGES[package][0]} | {len(mine)} |")
    variants = Counter(c.variant if c.old is not None else "created (/dev/null)" for c in chosen)
    tools = Counter(c.tool for c in chosen)
    return README_TEMPLATE.format(
        cases=len(chosen),
        bytes=used,
        rows="\n".join(rows),
        variants=", ".join(f"{v}: {n}" for v, n in sorted(variants.items())),
        tools=", ".join(f"{t}: {n}" for t, n in sorted(tools.items())),
    )


README_TEMPLATE = """# Real release-to-release diffs (fs.patch corpus)

Files that changed between two released versions of public, permissively licensed Python
packages (their source distributions from PyPI), each with the unified diff a real tool printed
for it. `tests/writes/test_real_diff_corpus.py` applies every patch through `operator-app exec`
(fs.patch, `--approve all`) to a workspace holding the old file, checks the result byte for
byte against the new file, and checks that sending the same patch again fails and leaves the
file alone. The test needs no network.

Generated by `python benchmarks/real_diffs.py --export-corpus fixtures/real-diffs`, which runs
the full set (about 2,000 diffs) first and exports a varied selection of cases that applied:
{cases} cases, {bytes} bytes of old + new + patch.

- `cases/NNN.old` (absent when the patch creates the file), `cases/NNN.new`, `cases/NNN.patch`:
  the bytes as they were; `.gitattributes` keeps git from converting line breaks.
- `manifest.json`: for every case the package, the two versions, the path inside the package,
  the variant, the tool, the licence, and the sha256 of each file (the test checks them).
- `licenses/`: the licence (and NOTICE) files of the newer version of each package.

Variants: "as released" is the files as published; "bom" adds a UTF-8 byte order mark to both
versions; "crlf" and "mixed-line-endings" are the same two versions with every line, or the
lines picked by their own text, ending in CRLF; "*-no-final-newline" drop the last line break
of one or both versions. Tools: `diff -u` /
`-U0` / `-U1` / `-U8` (with `--label`, or with timestamped headers), `git diff --no-index`
(default, `-U0`, `--histogram -U5`). Counts: {variants}; {tools}.

| package | versions | licence | cases |
|---|---|---|---|
{rows}

The files remain under their packages' licences (MIT, BSD-3-Clause, Apache-2.0, or
Apache-2.0 OR BSD-2-Clause for packaging); the licence texts are in `licenses/`.
"""


# --- main --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="stop after this many cases")
    parser.add_argument(
        "--keep", type=Path, help="where failing cases are saved (default: <cache>/failures)"
    )
    parser.add_argument(
        "--export-corpus", type=Path, help="write a small selection of applied cases here"
    )
    parser.add_argument("--corpus-bytes", type=int, default=600_000)
    args = parser.parse_args(argv)
    cache = cache_dir()
    print(f"cache: {cache}")
    started = time.monotonic()
    cases = build_cases(cache, args.limit)
    run_all(runnable(cases))
    keep = args.keep or cache / "failures"
    shutil.rmtree(keep, ignore_errors=True)
    failed = [c for c in cases if c.outcome.startswith("failed")]
    for case in failed:
        save_failure(case, keep)
        print(
            f"FAILED {case.number} {case.package} {case.versions[0]}->{case.versions[1]} "
            f"{case.rel} [{case.variant}, {case.tool}]: {case.outcome}: {case.detail[:300]}"
        )
    print_counts(cases, time.monotonic() - started)
    if failed:
        print(f"failures saved under {keep}")
    if args.export_corpus:
        export_corpus(cases, cache, args.export_corpus, args.corpus_bytes)
    return 1 if failed else 0


def runnable(cases: list[Case]) -> list[Case]:
    """The cases to run through Operator; the others get the outcome that says why not."""
    found: list[Case] = []
    for case in cases:
        if case.outcome:
            continue
        if case.old is None and not case.new:
            case.outcome = "skipped: empty file creation (a diff with no hunk)"
        elif block_chars(case.ws_path, case.patch) > MAX_BLOCK_CHARS:
            case.outcome = "skipped: too large for one block"
        else:
            found.append(case)
    return found


def run_all(cases: list[Case]) -> None:
    work = Path(tempfile.mkdtemp(prefix="operator-real-diffs-run-"))
    try:
        for n, batch in enumerate(batches(cases), start=1):
            run_batch(batch, work / f"batch{n}")
            shutil.rmtree(work / f"batch{n}", ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_counts(cases: list[Case], seconds: float) -> None:
    """How many diffs, of how many files, came to each outcome, and the applied ones by variant
    and tool."""
    outcomes = Counter(
        c.outcome.split(":")[0] if c.outcome.startswith("failed") else c.outcome for c in cases
    )
    files = {(c.package, c.versions, c.rel) for c in cases}
    print(
        f"\n{len(cases)} diffs of {len(files)} changed files in {len(PACKAGES)} packages "
        f"({seconds:.0f} s)"
    )
    for key, number in sorted(outcomes.items()):
        print(f"  {number:5d}  {key}")
    by = Counter((c.variant, c.tool) for c in cases if c.outcome.startswith("applied"))
    print(
        "applied by variant and tool: "
        + ", ".join(f"{v}/{t}: {n}" for (v, t), n in sorted(by.items()))
    )


if __name__ == "__main__":
    sys.exit(main())
