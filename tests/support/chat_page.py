"""Helpers for the browser tests: open a mock chat with the extension paired to a bridge, stream
an answer, read what the page and the extension did."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from tests.support.panel import click_panel as click_panel
from tests.support.panel import panel_text as panel_text

FENCED_READ = (
    "```text\nOPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: notes/plan.txt\n"
    "END_OPERATOR_CMD\n```\n"
)
PLAIN_LIST = "OPERATOR_CMD\nversion: 1\nid: r2\naction: fs.list\npath: .\nEND_OPERATOR_CMD\n"
ANSWER = (
    "Let me look at the plan first.\n\n"
    + FENCED_READ
    + "\nAnd the folder, as plain lines:\n\n"
    + PLAIN_LIST
    + "\nThat is all for now."
)
BLOCK_LINES = [
    "OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: notes/plan.txt\nEND_OPERATOR_CMD",
    "OPERATOR_CMD\nversion: 1\nid: r2\naction: fs.list\npath: .\nEND_OPERATOR_CMD",
]
# Results with what editors like to lose: blank lines, indentation, a trailing space.
COPY_TEXT = (
    "OPERATOR_RESULT\nid: r1\nok: true\ndetails:\n    indented line\n\n\n"
    "after two blank lines \nEND_OPERATOR_RESULT\n\n"
    "OPERATOR_RESULT\nid: r2\nok: true\nEND_OPERATOR_RESULT"
)

# The contract's `site`: what the person calls it; the host (with its port) for the generic
# fallback.
NAMES = {
    "chatgpt": "ChatGPT",
    "claude": "Claude",
    "gemini": "Gemini",
    "aistudio": "AI Studio",
    "mistral": "Le Chat",
    "deepseek": "DeepSeek",
    "grok": "Grok",
    "generic": "127.0.0.1:{port}",
}
SITES = {
    "chatgpt": "chatgpt.com",
    "claude": "claude.ai",
    "gemini": "gemini.google.com",
    "aistudio": "aistudio.google.com",
    "mistral": "chat.mistral.ai",
    "deepseek": "chat.deepseek.com",
    "grok": "grok.com",
    "generic": "127.0.0.1",
}


GENERIC_HOSTS = ("127.0.0.1", "localhost", "chat.example.org")


def open_chat(browser: Any, sites: Any, host: str, path: str) -> Any:
    """A mock chat page the extension watches. The generic fallback watches a page only once the
    person chose its origin in the popup: for those hosts, that choice is made first."""
    if host in GENERIC_HOSTS:
        browser.choose_origin(f"http://{host}:{sites.port}")
    page = browser.context.new_page()
    page.goto(sites.url(host, path))
    page.wait_for_function("() => window.mockChat !== undefined")
    # The content script marks nothing on the page until it has something to say; wait until the
    # extension knows the tab (its first ping), so results have somewhere to go.
    deadline = time.monotonic() + 10
    while browser.tab_id(host) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"the extension's content script did not report from {host}")
        time.sleep(0.05)
    return page


def stream(page: Any, text: str, chunk: int = 37, every: int = 30) -> None:
    page.evaluate(
        "([text, chunk, every]) => mockChat.answer(text, {chunk, every})", [text, chunk, every]
    )


def panel_state(page: Any) -> str:
    return page.evaluate("() => document.getElementById('operator-bridge-ui')?.dataset.state || ''")


def wait_panel(page: Any, state: str, timeout: float = 10.0) -> None:
    page.wait_for_function(
        "state => document.getElementById('operator-bridge-ui')?.dataset.state === state",
        arg=state,
        timeout=timeout * 1000,
    )


def input_value(page: Any) -> str:
    return page.evaluate("() => mockChat.inputValue()")


def sent(page: Any) -> list[str]:
    return page.evaluate("() => mockChat.sent")


def final_text(bridge: Any, key: tuple[str, int], timeout: float = 10.0) -> str:
    """The text of the page message once the extension said the model stopped."""

    def done(double: Any) -> str | None:
        for request in double.posts("/v1/message"):
            body = request.body
            if (body["conversation"], body["position"]) == key and body["generating"] is False:
                return body["text"]
        return None

    return bridge.wait_for(done, timeout)


def long_answer(size: int = 200_000, blocks: int = 20) -> str:
    """An answer of about `size` characters: prose paragraphs, fenced code, and `blocks` commands
    spread through it (the size the scanner's window holds)."""
    prose = (
        "The function below handles the request and returns early when the input is empty; "
        "we keep\n"
        "that behaviour and only change the message it logs.\n\n"
        "```python\ndef handle(request):\n    if not request:\n        return None\n"
        "    return process(request)\n```\n\n"
    )
    command = (
        "OPERATOR_CMD\nversion: 1\nid: big-{n}\naction: fs.readSlice\npath: notes/plan.txt\n"
        "start: 1\nlines: 2\nEND_OPERATOR_CMD\n\n"
    )
    filler = (size - blocks * len(command)) // blocks
    parts = []
    for n in range(blocks):
        parts.append((prose * (filler // len(prose) + 1))[:filler].rsplit("\n\n", 1)[0] + "\n\n")
        parts.append(command.format(n=n))
    return "".join(parts)


def eventually(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.05)


def key_for(page: Any, position: int = 0) -> tuple[str, int]:
    """The page message key the extension uses on `page`: its host with the port, and its path."""
    url = urlsplit(page.url)
    return (url.netloc + url.path, position)


def restart_service_worker(browser: Any) -> None:
    """Stop the extension's service worker, as the browser does to an idle one: everything it held
    in memory is gone, and the next message from a page starts it afresh."""
    internals = browser.context.new_page()
    internals.goto("chrome://serviceworker-internals/")
    internals.get_by_role("button", name="Stop").first.click()
    internals.wait_for_function("() => document.body.innerText.includes('Running Status: STOPPED')")
    internals.close()


def ping(page: Any) -> None:
    """Make the page's content script send its heartbeat now (it does on becoming visible)."""
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")


def answered(
    browser: Any, sites: Any, bridge: Any, host: str, conversation: str, *, shown: bool = False
) -> tuple[Any, tuple[str, int]]:
    """A mock chat page on `host` whose answer (ANSWER, streamed, or `shown` at once) the bridge
    stand-in was told of in full: the page and its page message's key."""
    page = open_chat(browser, sites, host, conversation)
    if shown:
        page.evaluate("([text]) => mockChat.show(text)", [ANSWER])
    else:
        stream(page, ANSWER)
    key = key_for(page)
    final_text(bridge, key)
    return page, key


def results_over_the_persons_text(
    page: Any, bridge: Any, key: tuple[str, int], editor: str, text: str
) -> None:
    """The person types `text` into the input box (`editor`), then the results come: the
    extension asks what to do with them."""
    page.click(editor)
    page.keyboard.type(text)
    bridge.make_ready(key, COPY_TEXT, 2)
    wait_panel(page, "ask")
