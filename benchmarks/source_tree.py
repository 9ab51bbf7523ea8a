"""A generated tree in the shape of a real project's source (issue 23), for bench_search.py: 20,000
Python modules of about 10 KB in 680 folders (40 packages of 16 subpackages), written the way
code reads (imports, classes, functions with docstrings, comments, calls and string literals; one
file in 25 holds some UTF-8 beyond ASCII), a root .gitignore like the one most Python projects
carry (65 lines: names, "*.ext", folders, anchored paths), and a .git folder. The same bytes every
time: everything comes from one seeded random generator. `QUERY` is in `matches` files, once
each, and nowhere else (not even inside .git, which both sides leave out)."""

from __future__ import annotations

import random
from pathlib import Path

QUERY = "def urlopen"
PLANTED = f"{QUERY}(url, data=None, timeout=10):"
WORDS = " ".join(
    (
        "request response handler session config settings value values data item items index",
        "count total result results buffer stream token tokens module path paths name names",
        "state cache timeout retry header headers body status error errors message messages",
        "context options parser reader writer client server connection socket address port host",
        "user users account record records entry entries node nodes tree graph edge edges queue",
        "task tasks worker job jobs event events listener callback payload field fields schema",
        "model models query filter filters key keys table row rows column columns page pages",
        "size limit offset start end length width height color style file files folder source",
        "target output input format encode decode load dump save close read write flush commit",
        "rollback update create delete remove insert append extend copy move rename check",
        "validate parse render build compile run execute apply reset clear init setup",
    )
).split()
UTF8_BITS = ("café", "naïve", "→", "—", "“quoted”", "µs", "±", "日本語", "Ünïcödé", "…")
GITIGNORE = """# Byte-compiled / optimized / DLL files
__pycache__/
*.py[cod]
*$py.class

# C extensions
*.so

# Distribution / packaging
.Python
build/
develop-eggs/
dist/
downloads/
eggs/
.eggs/
lib64/
parts/
sdist/
var/
wheels/
*.egg-info/
.installed.cfg
*.egg
MANIFEST
*.manifest
*.spec
pip-log.txt
pip-delete-this-directory.txt

# Unit test / coverage reports
htmlcov/
.tox/
.nox/
.coverage
.coverage.*
.cache
nosetests.xml
coverage.xml
*.cover
.hypothesis/
.pytest_cache/
*.mo
*.pot
*.log
local_settings.py
db.sqlite3
instance/
.webassets-cache
.scrapy
docs/_build/
target/
.ipynb_checkpoints
.python-version
celerybeat-schedule
*.sage.py
.env
.venv
env/
venv/
ENV/
/site
.mypy_cache/
.dmypy.json
node_modules/
*.swp
.DS_Store
"""


class _Writer:
    """Source text from a seeded generator: names, expressions, functions and classes."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def name(self) -> str:
        return "_".join(self.rng.choice(WORDS) for _ in range(self.rng.choice((1, 2, 2, 3))))

    def words(self, low: int, high: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(low, high)))

    def expression(self, depth: int = 0) -> str:
        rng = self.rng
        roll = rng.random()
        if depth > 1 or roll < 0.3:
            return rng.choice(
                (self.name(), str(rng.randint(0, 4096)), repr(rng.choice(WORDS)), "None", "True")
            )
        if roll < 0.6:
            arguments = ", ".join(self.expression(depth + 1) for _ in range(rng.randint(0, 3)))
            return f"{self.name()}({arguments})"
        if roll < 0.8:
            operator = rng.choice(("+", "-", "*", "==", "!=", "and", "or", "in", "is not"))
            return f"{self.expression(depth + 1)} {operator} {self.expression(depth + 1)}"
        return f"self.{self.name()}.{self.name()}({self.expression(depth + 1)})"

    def function(self, indent: int) -> list[str]:
        rng, pad = self.rng, "    " * indent
        parameters = ["self"] * (indent > 0) + [self.name() for _ in range(rng.randint(0, 3))]
        lines = [f"{pad}def {self.name()}({', '.join(parameters)}):"]
        if rng.random() < 0.6:
            lines.append(f'{pad}    """{self.words(4, 12).capitalize()}."""')
        for _ in range(rng.randint(3, 14)):
            roll = rng.random()
            if roll < 0.45:
                lines.append(f"{pad}    {self.name()} = {self.expression()}")
            elif roll < 0.6:
                lines += [f"{pad}    if {self.expression()}:", f"{pad}        return {self.name()}"]
            elif roll < 0.7:
                lines += [
                    f"{pad}    for {self.name()} in {self.expression()}:",
                    f"{pad}        {self.expression()}",
                ]
            elif roll < 0.82:
                lines.append(f"{pad}    # {self.words(3, 10)}")
            elif roll < 0.9:
                lines.append("")
            else:
                lines.append(f"{pad}    {self.expression()}")
        return [*lines, f"{pad}    return {self.expression()}", ""]

    def block(self) -> str:
        """A top-level class of a few methods, or a function."""
        if self.rng.random() < 0.35:
            words = [self.rng.choice(WORDS).capitalize() for _ in range(3)]
            lines = [f"class {words[0]}{words[1]}({words[2]}):", ""]
            for _ in range(self.rng.randint(1, 4)):
                lines += self.function(1)
        else:
            lines = self.function(0)
        return "\n".join([*lines, ""]) + "\n"


def make_tree(top: Path, files: int = 20_000, folders: int = 680, matches: int = 20) -> int:
    """Write the tree under `top`; return the bytes of its source files."""
    rng = random.Random(23)
    writer = _Writer(rng)
    # Files are made of blocks drawn from a pool: a pool's worth of text is made once, and a
    # search reads every file all the same.
    pool = [writer.block() for _ in range(3_000)]
    packages = max(1, min(40, folders // 17))
    places = [top / f"{rng.choice(WORDS)}_{n:02d}" for n in range(packages)]
    places += [
        places[n % packages] / f"{rng.choice(WORDS)}_{n:03d}" for n in range(folders - packages)
    ]
    for place in places:
        place.mkdir(parents=True, exist_ok=True)
    planted = set(rng.sample(range(files), matches))
    total = 0
    for number in range(files):
        parts = [f'"""{writer.words(5, 14).capitalize()}."""\n\n']
        parts += [
            f"from {writer.name()} import {writer.name()}\n" for _ in range(rng.randint(2, 8))
        ]
        parts.append("\n")
        size, target = sum(map(len, parts)), rng.randint(7_000, 13_000)
        while size < target:
            parts.append(rng.choice(pool))
            size += len(parts[-1])
        if number % 25 == 7:
            parts.insert(
                rng.randrange(2, len(parts)), f"# {writer.words(3, 8)} {rng.choice(UTF8_BITS)}\n"
            )
        if number in planted:
            parts.insert(rng.randrange(2, len(parts)), f"{PLANTED}\n    return None\n\n")
        data = "".join(parts).encode()
        (places[number % folders] / f"{writer.name()}_{number:05d}.py").write_bytes(data)
        total += len(data)
    (top / ".gitignore").write_text(GITIGNORE)
    (top / ".git" / "objects").mkdir(parents=True, exist_ok=True)
    (top / ".git" / "objects" / "pack").write_text(f"{QUERY} inside .git\n" * 1000)
    (top / "README.md").write_text("A generated tree for bench_search.py, in a project's shape.\n")
    return total
