"""Operator: run a chat LLM's OPERATOR_CMD blocks safely inside one workspace folder.
May import: nothing else of operator_app (docs/design.md describes the layers)."""

__version__ = "0.1.0"
