"""What the tests share, one module a concern; imported as `from tests.support.<module> import ...`.
Fixtures are not here: pytest finds them in the conftest.py files (tests/conftest.py for all).

- blocks: OPERATOR_CMD blocks written the way a model writes them
- dying_engine: an engine run killed at a named point of its first write
- exec_folder: a workspace driven through the real `operator-app exec`
- cases: one protocol case of fixtures/cases/ through `operator-app exec`; the --json envelope check
- pilot: waiting while the app runs under Textual's Pilot, what `c` copies, rows, notifications
- tui_app: the TUI started on a message, its state read back
- bridge_http: raw HTTP to the real bridge server, a paired client speaking for the extension
- browser: Chromium with the real extension, mock chat sites on loopback
- contract_double: a stand-in bridge server that answers as docs/bridge-protocol.md says
- chat_page: a mock chat page driven with the extension paired
- end_to_end: the real TUI with its bridge beside the extension in Chromium
"""
