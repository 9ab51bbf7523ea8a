"""The comment style mapping that region markers use: language keys, their aliases and the file
extensions (or whole file names) that select them. `operator.getCommentStyle` serves it; region
actions pick a style from a command's overrides, its language, or the file's extension."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from .errors import ErrorCode, OperatorError


class CommentStyle(Struct, frozen=True):
    kind: Literal["line", "block"]
    line_prefix: str | None = None
    block_start: str | None = None
    block_end: str | None = None

    def payload(self, language: str) -> dict[str, str]:
        if self.kind == "line":
            return {"language": language, "type": "line", "line_prefix": self.line_prefix or ""}
        return {
            "language": language,
            "type": "block",
            "block_start": self.block_start or "",
            "block_end": self.block_end or "",
        }


def _line(prefix: str) -> CommentStyle:
    return CommentStyle("line", line_prefix=prefix)


def _block(start: str, end: str) -> CommentStyle:
    return CommentStyle("block", block_start=start, block_end=end)


# key: (style, aliases, extensions or whole file names)
_TABLE: dict[str, tuple[CommentStyle, tuple[str, ...], tuple[str, ...]]] = {
    "c": (_line("//"), ("h",), (".c", ".h")),
    "cpp": (
        _line("//"),
        ("c++", "cc", "cxx", "hpp"),
        (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".ino"),
    ),
    "cs": (_line("//"), ("csharp", "c#"), (".cs",)),
    "java": (_line("//"), (), (".java",)),
    "js": (
        _line("//"),
        ("javascript", "jsx", "mjs", "cjs", "node"),
        (".js", ".jsx", ".mjs", ".cjs"),
    ),
    "ts": (_line("//"), ("typescript", "tsx", "mts", "cts"), (".ts", ".tsx", ".mts", ".cts")),
    "go": (_line("//"), ("golang",), (".go",)),
    "rust": (_line("//"), ("rs",), (".rs",)),
    "kotlin": (_line("//"), ("kt", "kts"), (".kt", ".kts")),
    "swift": (_line("//"), (), (".swift",)),
    "scala": (_line("//"), ("sc",), (".scala", ".sc")),
    "dart": (_line("//"), (), (".dart",)),
    "php": (_line("//"), (), (".php",)),
    "groovy": (_line("//"), ("gradle",), (".groovy", ".gradle")),
    "zig": (_line("//"), (), (".zig",)),
    "proto": (_line("//"), ("protobuf",), (".proto",)),
    "jsonc": (_line("//"), ("json5",), (".jsonc", ".json5")),
    "scss": (_line("//"), ("sass", "less"), (".scss", ".less")),
    "python": (_line("#"), ("py", "python3"), (".py", ".pyi", ".pyw")),
    "ruby": (_line("#"), ("rb",), (".rb", ".rake", "Gemfile", "Rakefile")),
    "sh": (
        _line("#"),
        ("bash", "shell", "zsh", "ksh", "fish"),
        (".sh", ".bash", ".zsh", ".ksh", ".fish"),
    ),
    "perl": (_line("#"), ("pl",), (".pl", ".pm")),
    "r": (_line("#"), (), (".r", ".R")),
    "yaml": (_line("#"), ("yml",), (".yaml", ".yml")),
    "toml": (_line("#"), (), (".toml",)),
    "makefile": (_line("#"), ("make", "mk"), (".mk", "Makefile", "makefile", "GNUmakefile")),
    "dockerfile": (_line("#"), ("docker",), (".dockerfile", "Dockerfile", "Containerfile")),
    "cmake": (_line("#"), (), (".cmake", "CMakeLists.txt")),
    "elixir": (_line("#"), ("ex", "exs"), (".ex", ".exs")),
    "julia": (_line("#"), ("jl",), (".jl",)),
    "nim": (_line("#"), (), (".nim",)),
    "powershell": (_line("#"), ("ps1", "pwsh"), (".ps1", ".psm1")),
    "terraform": (_line("#"), ("tf", "hcl"), (".tf", ".tfvars", ".hcl")),
    "gitignore": (_line("#"), ("ignore",), (".gitignore", ".dockerignore", ".gitattributes")),
    "conf": (_line("#"), ("env", "properties"), (".conf", ".cfg", ".env", ".properties")),
    "sql": (_line("--"), ("postgres", "mysql", "sqlite"), (".sql",)),
    "lua": (_line("--"), (), (".lua",)),
    "haskell": (_line("--"), ("hs",), (".hs", ".lhs")),
    "elm": (_line("--"), (), (".elm",)),
    "ada": (_line("--"), (), (".ada", ".adb", ".ads")),
    "ini": (_line(";"), (), (".ini",)),
    "lisp": (_line(";"), ("elisp", "scheme", "racket"), (".lisp", ".el", ".scm", ".rkt")),
    "clojure": (_line(";"), ("clj", "cljs"), (".clj", ".cljs", ".cljc", ".edn")),
    "asm": (_line(";"), ("assembly", "nasm"), (".asm", ".s")),
    "tex": (_line("%"), ("latex",), (".tex", ".sty", ".cls", ".bib")),
    "erlang": (_line("%"), ("erl",), (".erl", ".hrl")),
    "matlab": (_line("%"), ("octave",), (".m",)),
    "vb": (_line("'"), ("vbnet", "vba"), (".vb", ".bas")),
    "html": (_block("<!--", "-->"), ("htm", "xhtml"), (".html", ".htm", ".xhtml")),
    "xml": (
        _block("<!--", "-->"),
        ("svg", "xsl", "plist"),
        (".xml", ".svg", ".xsl", ".xslt", ".plist", ".csproj"),
    ),
    "markdown": (_block("<!--", "-->"), ("md", "mdx"), (".md", ".markdown", ".mdx")),
    "vue": (_block("<!--", "-->"), ("svelte",), (".vue", ".svelte")),
    "css": (_block("/*", "*/"), (), (".css",)),
}

LANGUAGES: dict[str, CommentStyle] = {key: style for key, (style, _, _) in _TABLE.items()}
ALIASES: dict[str, str] = {
    alias: key for key, (_, aliases, _) in _TABLE.items() for alias in aliases
}
EXTENSIONS: dict[str, str] = {ext: key for key, (_, _, exts) in _TABLE.items() for ext in exts}
_EXTENSIONS_FOLDED: dict[str, str] = {
    ext.lower(): key for ext, key in EXTENSIONS.items() if ext.startswith(".")
}


def resolve_language(name: str) -> str:
    wanted = name.strip().lower()
    if wanted in LANGUAGES:
        return wanted
    if wanted in ALIASES:
        return ALIASES[wanted]
    if f".{wanted}" in _EXTENSIONS_FOLDED:  # "language: jsx" and friends
        return _EXTENSIONS_FOLDED[f".{wanted}"]
    raise OperatorError(
        ErrorCode.ERR_UNKNOWN_LANGUAGE,
        (
            f'language "{name}" is not known; languages: {", ".join(sorted(LANGUAGES))}; '
            "or pass comment_line_prefix, or comment_block_start with comment_block_end"
        ),
    )


def language_for_path(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if name in EXTENSIONS:  # whole file names: Makefile, Dockerfile, .gitignore
        return EXTENSIONS[name]
    if "." not in name.lstrip("."):
        return None
    return _EXTENSIONS_FOLDED.get("." + name.rsplit(".", 1)[-1].lower())


def all_styles_payload() -> dict[str, list[dict[str, object]]]:
    styles: list[dict[str, object]] = []
    for key in sorted(_TABLE):
        style, aliases, exts = _TABLE[key]
        entry: dict[str, object] = dict(style.payload(key))
        entry["extensions"] = list(exts)
        entry["aliases"] = list(aliases)
        styles.append(entry)
    return {"styles": styles}
