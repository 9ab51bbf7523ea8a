"""The ChanFlow grammar as data, each piece beside the rule it follows (docs/design.md, "The String
dialect"; spec/string.txt says it to the model). Nothing here does I/O."""

from __future__ import annotations

import re

# "<𝒞=string:topic>payload</𝒞>": the 𝒞 character (U+1D49E) identifies a ChanFlow channel tag.
SIGIL = "\U0001d49e"
OPEN = "<" + SIGIL + "="
CLOSE = "</" + SIGIL + ">"
CHANNEL = "string"  # the one channel Operator answers; blocks of other channels are not for it

# An open tag is short and on one line: `<𝒞=` channel `:` topic, then (only in a response,
# "String -> AI") attributes such as time="...". Past this many characters without its ">" it is
# not a tag but prose that mentions the sigil.
MAX_TAG_CHARS = 256
TAG_RE = re.compile(r"([A-Za-z0-9_.@-]*)(?::([^\s>]*))?((?:\s+[^>]*)?)")

# "Topics use the type:name format. Bare names default to file:. Empty/absent topics default to
# file:main." Names: "[a-zA-Z0-9_-]+ only — no dots, no paths".
DEFAULT_TOPIC = "file:main"
TOPIC_TYPES = ("file", "web", "app", "bash")
SERVED_TOPIC_TYPE = "file"  # a bare name's type
BASH_TOPIC_TYPE = "bash"  # a shell session (protocol/chanflow/bash.py)
SERVED_TOPIC_TYPES = (SERVED_TOPIC_TYPE, BASH_TOPIC_TYPE)
NAME_RE = re.compile(r"[A-Za-z0-9_-]+")

# "All payloads must start with /." "A command must be the first line of the payload."
COMMAND_RE = re.compile(r"/([A-Za-z][A-Za-z0-9._-]*)(.*)", re.S)

# Paths: "~/" is the workspace root; a relative path is relative to it.
HOME = "~"
# path#block, path@c3 (a version kept by /commit), path:L5, path:L5-L10; ":L5-L10" alone names
# the topic's current document, "#block" alone a block of it.
LINES_RE = re.compile(r":L([0-9]+)(?:-L?([0-9]+))?$")
VERSION_RE = re.compile(r"@c([0-9]+)$")
MAX_NUMBER = 999_999_999  # a line or version number; past it INVALID_PARAMS
BLOCK_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")

# Variables: "/set {var} = "value"", "{var}" substituted in later commands; "$variables are only
# allowed in document action definitions".
VARIABLE_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
RUNTIME_VARIABLE_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
SET_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}\s*=\s*(.*)", re.S)
MAX_VARIABLES = 100
MAX_VALUE_CHARS = 1000

# What a response looks like: "✓ message" for success, "✗ CODE: message" for an error.
OK_MARK = "\u2713"
ERROR_MARK = "\u2717"
SEPARATOR = "---"

# A short id Operator gives each command ("re: [k3x9q] /open ..."), unique in the session.
ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
ID_CHARS = 5
