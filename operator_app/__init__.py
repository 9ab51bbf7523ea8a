"""Operator: run a chat LLM's OPERATOR_CMD blocks safely inside one workspace folder."""

__version__ = "0.1.0"
