"""The browser bridge: a loopback HTTP server through which the Operator browser extension streams
a web chat's assistant messages into the TUI and takes the result blocks back to the chat's input
box (docs/bridge-protocol.md). A third way in beside the paste and `--follow`, over the same engine;
consent stays in the terminal. Only the TUI (which starts and stops it) and the entry point
import it. The extension itself is `extension/`.
May import: protocol, engine, settings."""
