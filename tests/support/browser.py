"""What the browser tests share: where Chromium and the extension are, a loopback server for the
mock chat pages (the Host header picks the site, so https://chatgpt.com:PORT/c/abc is the ChatGPT
mock, with Chromium resolving the sites' names to 127.0.0.1; `?page=NAME` serves NAME.html of
fixtures/chat-pages instead), and the Chromium arguments that load the unpacked extension.

The seven chat sites are served over TLS, as the real ones are: Chromium's HSTS preload list
(chatgpt.com is on it since Chromium 156) turns http://chatgpt.com into https:// whatever the
resolver rules say. One port speaks both, so a conversation key (host:port/path) stays one value."""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

ROOT = Path(__file__).resolve().parents[2]
EXTENSION_DIR = ROOT / "operator_app" / "bridge" / "extension"
PAGES_DIR = ROOT / "fixtures" / "chat-pages"

# host -> mock page; the seven adapters' hosts, plus loopback and a site no adapter knows.
SITE_PAGES = {
    "chatgpt.com": "chatgpt.html",
    "chat.openai.com": "chatgpt.html",
    "claude.ai": "claude.html",
    "gemini.google.com": "gemini.html",
    "aistudio.google.com": "aistudio.html",
    "chat.mistral.ai": "mistral.html",
    "chat.deepseek.com": "deepseek.html",
    "grok.com": "grok.html",
    "127.0.0.1": "generic.html",
    "localhost": "generic.html",
    "chat.example.org": "generic.html",
}
MAPPED_HOSTS = [host for host in SITE_PAGES if host not in ("127.0.0.1", "localhost")]
# The adapters' sites, reached over https; loopback and chat.example.org stay plain http.
SECURE_HOSTS = frozenset(MAPPED_HOSTS) - {"chat.example.org"}


def chromium_path() -> str | None:
    """$OPERATOR_CHROMIUM when set (and only it), else the system's Chromium."""
    chosen = os.environ.get("OPERATOR_CHROMIUM")
    candidates = (
        [chosen]
        if chosen
        else ["/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")]
    )
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return candidate
    return None


def why_browser_tests_cannot_run() -> str | None:
    """One line saying what is missing, or None when the browser tests can run."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return (
            "browser tests skipped: Playwright's Python package is not installed "
            "(pip install -e '.[test]')"
        )
    if chromium_path() is None:
        where = os.environ.get("OPERATOR_CHROMIUM") or "/usr/bin/chromium"
        return f"browser tests skipped: no Chromium at {where} (Debian: apt-get install chromium)"
    if shutil.which("openssl") is None:
        return (
            "browser tests skipped: no openssl command to make the mock sites' certificate "
            "(Debian: apt-get install openssl)"
        )
    return None


def require_browser() -> None:
    """Called at the top of each browser test module: without Chromium or Playwright the module is
    skipped, raised from here so that pytest folds every such skip into one line; under CI=true it
    is a collection error instead, which fails the run."""
    import pytest

    missing = why_browser_tests_cannot_run()
    if missing is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(
            missing.replace("browser tests skipped", "browser tests cannot run under CI=true"),
            pytrace=False,
        )
    pytest.skip(missing, allow_module_level=True)


# Chromium makes its singleton socket at $TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket, and
# a Unix socket's path holds at most 107 bytes (sun_path): under a long TMPDIR (macOS's own, a
# folder under a project, this suite's per-run folder inside either) it aborts at start with
# "Socket path too long".
_SOCKET_PATH_MAX = 107
_SINGLETON_SOCKET = "/.org.chromium.Chromium.XXXXXX/SingletonSocket"


@contextmanager
def chromium_environment() -> Iterator[dict[str, str]]:
    """The environment to start Chromium in: this one, or, when $TMPDIR is too long for Chromium's
    socket, this one with TMPDIR set to a short private folder made under /tmp, removed (with what
    Chromium left in it) when the block ends."""
    temp = tempfile.gettempdir()
    if len(os.fsencode(temp + _SINGLETON_SOCKET)) <= _SOCKET_PATH_MAX:
        yield dict(os.environ)
        return
    short = tempfile.mkdtemp(prefix="opchr-", dir="/tmp")
    try:
        yield dict(os.environ, TMPDIR=short)
    finally:
        shutil.rmtree(short, ignore_errors=True)


def chromium_args(extension_dir: Path = EXTENSION_DIR) -> list[str]:
    rules = ", ".join(f"MAP {host} 127.0.0.1" for host in MAPPED_HOSTS)
    return [
        f"--disable-extensions-except={extension_dir}",
        f"--load-extension={extension_dir}",
        f"--host-resolver-rules={rules}",
        # The mock sites' certificate is self-signed (made by tls_context below).
        "--ignore-certificate-errors",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-features=Translate,MediaRouter",
    ]


class _MockPages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        path, _, query = self.path.partition("?")
        named_page = parse_qs(query).get("page", [""])[0]
        if path.startswith("/__mock/"):
            target = PAGES_DIR / "mock" / path.removeprefix("/__mock/")
        elif path == "/favicon.ico":
            self.send_error(404)
            return
        elif named_page.replace("-", "_").isidentifier():
            target = (
                PAGES_DIR / f"{named_page}.html"
            )  # ?page=local-docs: that page, whatever the host
        else:
            page = SITE_PAGES.get(host)
            if page is None:
                self.send_error(404, f"no mock page for host {host}")
                return
            target = PAGES_DIR / page
        try:
            body = target.resolve().read_bytes()
        except OSError:
            self.send_error(404)
            return
        kind = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}.get(
            target.suffix, "application/octet-stream"
        )
        self.send_response(200)
        self.send_header("Content-Type", kind + "; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@cache
def tls_context() -> ssl.SSLContext:
    """A server context with a self-signed certificate for the mock sites' names, made once per
    process with the openssl command (the stdlib cannot make certificates)."""
    folder = Path(tempfile.mkdtemp(prefix="operator-mock-tls-"))
    names = ",".join(f"DNS:{host}" for host in sorted(SECURE_HOSTS))
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=operator-mock-sites",
            "-addext",
            f"subjectAltName={names}",
            "-keyout",
            str(folder / "key.pem"),
            "-out",
            str(folder / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    shutil.rmtree(folder, ignore_errors=True)
    return context


class _HttpOrTlsServer(ThreadingHTTPServer):
    daemon_threads = True

    def finish_request(self, request: Any, client_address: Any) -> None:
        # In the connection's own thread: a TLS client speaks first with a handshake record (0x16),
        # a plain HTTP one with a method name.
        wrapped: ssl.SSLSocket | None = None
        try:
            request.settimeout(10)
            if request.recv(1, socket.MSG_PEEK) == b"\x16":
                wrapped = tls_context().wrap_socket(request, server_side=True)
                wrapped.settimeout(None)
            else:
                request.settimeout(None)
        except (OSError, ssl.SSLError):
            return
        try:
            super().finish_request(wrapped or request, client_address)
        finally:
            if wrapped is not None:
                # The plain socket was detached into it; socketserver closes only that one.
                wrapped.close()


class MockSites:
    """The mock chat pages on an ephemeral loopback port (http and https on the same port)."""

    def __init__(self) -> None:
        # Made before the first page asks, so a failure shows here, not as a page error.
        tls_context()
        self.server = _HttpOrTlsServer(("127.0.0.1", 0), _MockPages)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, host: str, path: str = "/") -> str:
        scheme = "https" if host in SECURE_HOSTS else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class AsyncExtensionBrowser:
    """Chromium with the extension, for tests that run it in the TUI's own event loop (Playwright's
    async API beside Textual's run_test)."""

    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self.context: Any = None
        self.worker: Any = None
        self._playwright: Any = None

    async def __aenter__(self) -> AsyncExtensionBrowser:
        from playwright.async_api import async_playwright

        self._stack = AsyncExitStack()
        try:
            environment = self._stack.enter_context(chromium_environment())
            self._playwright = await self._stack.enter_async_context(async_playwright())
            self.context = await self._playwright.chromium.launch_persistent_context(
                str(self.profile),
                executable_path=chromium_path(),
                headless=True,
                args=chromium_args(),
                viewport={"width": 1100, "height": 800},
                env=environment,
            )
            self._stack.push_async_callback(self.context.close)
            self.worker = (
                self.context.service_workers[0]
                if self.context.service_workers
                else await self.context.wait_for_event("serviceworker")
            )
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    @property
    def extension_id(self) -> str:
        return str(self.worker.url.split("/")[2])

    async def popup(self, tab_id: int | None = None) -> Any:
        """The popup, opened as a page; for the tab `tab_id` when given (else the active tab)."""
        page = await self.context.new_page()
        query = f"?tab={tab_id}" if tab_id is not None else ""
        await page.goto(f"chrome-extension://{self.extension_id}/popup/popup.html{query}")
        # Drawn once: before that its parts arrive one by one and its buttons move (a click
        # under load landed beside the Import button, and the test waited for the box).
        await page.wait_for_selector("body[data-drawn]", state="attached")
        return page

    async def set_storage(self, values: dict[str, Any]) -> None:
        """Into the background's own store (background/store.js), where the token and settings
        live."""
        await self.worker.evaluate("values => globalThis.operatorBridge.store.set(values)", values)
