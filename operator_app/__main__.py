"""`python -m operator_app`: the same entry point as the `operator-app` command.
May import: entry."""

from operator_app.entry import entry

if __name__ == "__main__":
    entry()
