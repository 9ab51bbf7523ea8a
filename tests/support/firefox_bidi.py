"""Firefox (ESR, the system's package) driven over WebDriver BiDi, the protocol Firefox speaks
natively on --remote-debugging-port: a few commands over aiohttp's WebSocket client (aiohttp is
already the bridge's own dependency). Enough for the extension's tests: install it as a temporary
add-on, open pages and the popup, run scripts in them.

The extension's pages live at moz-extension://<uuid>/, a uuid Firefox draws per profile; the
profile's `extensions.webextensions.uuids` preference fixes it beforehand. WebDriver BiDi may not
navigate a tab there, so the popup is opened as a tab from the browser's own window
(--remote-allow-system-access lets BiDi run a script there), as the person's click would. Every
host name resolves to 127.0.0.1 (`network.dns.forceResolve`), where the mock chat sites are
served."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any, Self

import aiohttp

EXTENSION_ID = "operator-bridge@operator-app.local"
EXTENSION_UUID = "6f1c3e2a-8d4b-4f7e-9a51-0b2c7d9e4f10"


def firefox_path() -> str | None:
    """$OPERATOR_FIREFOX when set, else the system's Firefox ESR (or Firefox)."""
    chosen = os.environ.get("OPERATOR_FIREFOX")
    for candidate in [chosen] if chosen else ["firefox-esr", "firefox"]:
        found = shutil.which(candidate) if candidate else None
        if found:
            return found
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Firefox:
    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._session: aiohttp.ClientSession | None = None
        self._socket: Any = None
        self._ids = itertools.count(1)

    async def __aenter__(self) -> Self:
        prefs = {
            "extensions.webextensions.uuids": json.dumps({EXTENSION_ID: EXTENSION_UUID}),
            "network.dns.forceResolve": "127.0.0.1",
            "dom.security.https_only_mode": False,
            "browser.shell.checkDefaultBrowser": False,
            "datareporting.policy.dataSubmissionEnabled": False,
            "toolkit.telemetry.reportingpolicy.firstRun": False,
            "app.normandy.enabled": False,
        }
        self.profile.mkdir(parents=True, exist_ok=True)
        (self.profile / "user.js").write_text(
            "".join(
                f"user_pref({json.dumps(name)}, {json.dumps(value)});\n"
                for name, value in prefs.items()
            )
        )
        path = firefox_path()
        assert path is not None
        # Popen in async code: it only starts the process, nothing is waited on here.
        self.process = subprocess.Popen(
            [
                path,
                "--headless",
                "--no-remote",
                "--profile",
                str(self.profile),
                "--remote-debugging-port",
                str(self.port),
                "--remote-allow-system-access",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._session = aiohttp.ClientSession()
        for _ in range(150):
            try:
                self._socket = await self._session.ws_connect(
                    f"ws://127.0.0.1:{self.port}/session", max_msg_size=0
                )
                break
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
        else:
            raise AssertionError("Firefox did not open its WebDriver BiDi port")
        await self.command(
            "session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}}
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(
            AssertionError, aiohttp.ClientError, TimeoutError, ConnectionError
        ):
            if self._socket is not None:
                await self.command("session.end", {})  # Firefox may be gone already
        if self._session is not None:
            await self._session.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    async def command(self, method: str, params: dict[str, Any]) -> Any:
        number = next(self._ids)
        await self._socket.send_str(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads((await asyncio.wait_for(self._socket.receive(), 60)).data)
            if message.get("id") != number:
                continue  # an event
            if message.get("type") == "error":
                raise AssertionError(f"{method}: {message.get('error')}: {message.get('message')}")
            return message["result"]

    async def install_extension(self, folder: Path) -> str:
        result = await self.command(
            "webExtension.install", {"extensionData": {"type": "path", "path": str(folder)}}
        )
        return str(result["extension"])

    def extension_url(self, path: str) -> str:
        return f"moz-extension://{EXTENSION_UUID}/{path}"

    async def new_tab(self, url: str) -> str:
        context = (await self.command("browsingContext.create", {"type": "tab"}))["context"]
        await self.command(
            "browsingContext.navigate", {"context": context, "url": url, "wait": "complete"}
        )
        return str(context)

    async def open_extension_page(self, path: str) -> str:
        """An extension page in a new tab, opened by the browser's own window; its context."""
        url = self.extension_url(path)
        chrome = (await self.command("browsingContext.getTree", {"moz:scope": "chrome"}))[
            "contexts"
        ]
        window = next(
            context["context"] for context in chrome if context["url"].endswith("browser.xhtml")
        )
        await self.command(
            "script.evaluate",
            {
                "expression": f"gBrowser.selectedTab = gBrowser.addTab({json.dumps(url)}, "
                "{triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal()}); true",
                "target": {"context": window},
                "awaitPromise": False,
            },
        )
        for _ in range(100):
            for context in (await self.command("browsingContext.getTree", {}))["contexts"]:
                if context["url"] == url:
                    return str(context["context"])
            await asyncio.sleep(0.1)
        raise AssertionError(f"{url} did not open")

    async def evaluate(self, context: str, expression: str) -> Any:
        """The JSON value of `expression` (a promise is awaited) in the page of `context`."""
        wrapped = f"(async () => JSON.stringify(await ({expression})))()"
        result = await self.command(
            "script.evaluate",
            {"expression": wrapped, "target": {"context": context}, "awaitPromise": True},
        )
        if result.get("type") == "exception":
            raise AssertionError(f"in the page: {result['exceptionDetails'].get('text')}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    async def wait_for(self, context: str, expression: str, timeout: float = 15.0) -> Any:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            value = await self.evaluate(context, expression)
            if value:
                return value
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"not true in time: {expression}")
            await asyncio.sleep(0.1)
