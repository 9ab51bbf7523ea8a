"""Set-up for the bridge's tests: every one runs on the app machine of tests/conftest.py (no system
clipboard: the TUI's copy must not reach the machine's; `workspace` and `state` come from there).

The browser tests load the real extension, unpacked, into the system's Chromium driven by
Playwright (never a downloaded browser), on mock chat pages served on loopback. Without Chromium or
Playwright each of them is skipped with one line saying which is missing; under CI=true that is a
failure instead (.ci/run installs Chromium when it can)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from operator_app.protocol import page_openers
from tests.support.browser import MockSites, chromium_args, chromium_environment, chromium_path
from tests.support.contract_double import BridgeDouble


@pytest.fixture(autouse=True)
def _on_the_app_machine(app_machine: None) -> None:
    """Each test here gets `app_machine` without naming it."""


@pytest.fixture(scope="session")
def mock_sites() -> Iterator[MockSites]:
    sites = MockSites()
    yield sites
    sites.close()


class ExtensionBrowser:
    """Chromium with the extension loaded; `worker` is the extension's service worker."""

    def __init__(self, context: Any, worker: Any) -> None:
        self.context = context
        self._first_worker = worker
        self.extension_id = worker.url.split("/")[2]

    @property
    def worker(self) -> Any:
        """The extension's service worker as it runs now (the browser may have stopped and started
        it again since)."""
        workers = self.context.service_workers
        return workers[-1] if workers else self._first_worker

    def storage(self) -> dict[str, Any]:
        """The background's own store (background/store.js): token, port, settings, chosen
        origins."""
        return self.worker.evaluate("globalThis.operatorBridge.store.all()")

    def storage_once(self, settled: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The store once `settled` holds for it: the popup hands a setting to the background,
        which keeps it a moment later, so reading at once races with the keeping."""
        deadline = time.monotonic() + 10
        stored = self.storage()
        while not settled(stored) and time.monotonic() < deadline:
            time.sleep(0.05)
            stored = self.storage()
        return stored

    def set_storage(self, values: dict[str, Any]) -> None:
        self.worker.evaluate("values => globalThis.operatorBridge.store.set(values)", values)

    def choose_origin(self, origin: str) -> None:
        """As if the person had chosen "Watch this page" for `origin` in the popup before."""
        self.worker.evaluate(
            """async origin => {
                 const { watchedOrigins = {} } =
                   await globalThis.operatorBridge.store.get(['watchedOrigins']);
                 watchedOrigins[origin] = Date.now();
                 await globalThis.operatorBridge.store.set({ watchedOrigins });
               }""",
            origin,
        )

    def reset(self, **values: Any) -> None:
        self.worker.evaluate("globalThis.operatorBridge.store.clear()")
        # Paired: the pairing's hello named the openers (docs/bridge-protocol.md).
        if values.get("token"):
            values.setdefault("openers", page_openers())
        if values:
            self.set_storage(values)
        for page in self.context.pages:
            page.close()

    def popup(self, tab_id: int | None = None) -> Any:
        page = self.context.new_page()
        query = f"?tab={tab_id}" if tab_id is not None else ""
        page.goto(f"chrome-extension://{self.extension_id}/popup/popup.html{query}")
        return page

    def tab_id(self, url_part: str) -> int:
        """The id the extension knows a page's tab by (from its content script's reports)."""
        return self.worker.evaluate(
            """part => { for (const tab of globalThis.operatorBridge.chatTabs.values()) {
                 if (tab.url.includes(part)) return tab.id; } return null; }""",
            url_part,
        )


@pytest.fixture(scope="module")
def extension_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtensionBrowser]:
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with chromium_environment() as environment, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=chromium_path(),
            headless=True,
            args=chromium_args(),
            viewport={"width": 1100, "height": 800},
            env=environment,
        )
        worker = (
            context.service_workers[0]
            if context.service_workers
            else context.wait_for_event("serviceworker", timeout=15000)
        )
        try:
            yield ExtensionBrowser(context, worker)
        finally:
            context.close()


@pytest.fixture
def conversation() -> str:
    """A path no other test uses, so the extension's per-conversation memory cannot leak between
    tests."""
    return f"/c/{uuid.uuid4().hex[:12]}"


@pytest.fixture
def bridge(extension_browser: Any) -> Iterator[BridgeDouble]:
    double = BridgeDouble(token="test-token")
    extension_browser.reset(token="test-token", port=double.port)
    yield double
    double.close()
