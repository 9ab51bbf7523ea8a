"""The extension's files agree with each other (no browser needed): everything the manifest names
exists, the background injects the same content scripts the manifest declares, and its network
reach is the loopback address only."""

from __future__ import annotations

import json
import re

from tests.support.browser import EXTENSION_DIR

MANIFEST = json.loads((EXTENSION_DIR / "manifest.json").read_text())


def test_every_file_the_manifest_names_exists() -> None:
    named = [
        *MANIFEST["icons"].values(),
        *MANIFEST["action"]["default_icon"].values(),
        MANIFEST["action"]["default_popup"],
        MANIFEST["background"]["service_worker"],
        *MANIFEST["background"]["scripts"],
    ]
    for entry in MANIFEST["content_scripts"]:
        named += entry["js"]
    assert named and all((EXTENSION_DIR / path).is_file() for path in named)


def test_the_popup_and_the_context_menu_inject_what_the_manifest_declares() -> None:
    background = (EXTENSION_DIR / "background" / "main.js").read_text()
    declared = re.search(r"const CONTENT_FILES = (\[.*?\]);", background)
    assert declared is not None
    injected = json.loads(declared.group(1))
    assert injected == MANIFEST["content_scripts"][0]["js"]


def test_one_source_for_chromium_and_firefox_with_loopback_as_the_only_host() -> None:
    assert MANIFEST["manifest_version"] == 3
    assert (
        MANIFEST["background"]["service_worker"] in MANIFEST["background"]["scripts"]
    )  # Firefox: event page
    assert MANIFEST["browser_specific_settings"]["gecko"]["id"]
    assert MANIFEST["host_permissions"] == ["http://127.0.0.1/*"]
    # No "storage": the token and settings live in the background's own IndexedDB, which content
    # scripts cannot open (they could read and write storage.local).
    assert sorted(MANIFEST["permissions"]) == ["activeTab", "contextMenus", "scripting"]
    api = (EXTENSION_DIR / "background" / "bridge_api.js").read_text()
    # Every request goes to address(), the only URL the background writes: 127.0.0.1.
    assert re.findall(r"\"(https?://[^\"]*)\"", api) == ["http://127.0.0.1:"]
    assert re.findall(r"function address\(port, path\) \{\s*return \"http://127\.0\.0\.1:\"", api)
    assert set(re.findall(r"fetch\((address\(port, path\)|[^,(]+),", api)) == {
        "address(port, path)",
        "url",
    }
    assert re.findall(r"const url = ([^;]+);", api) == ["address(used.port, path)"]
    for script in (EXTENSION_DIR / "content").glob("*.js"):
        text = script.read_text()
        assert "fetch(" not in text and "XMLHttpRequest" not in text and "WebSocket" not in text, (
            script.name
        )


def test_the_service_worker_loads_what_firefox_s_event_page_lists() -> None:
    background = (EXTENSION_DIR / "background" / "main.js").read_text()
    imported = re.search(r"importScripts\((.*?)\);", background)
    assert imported is not None
    loaded = [name.strip().strip('"').lstrip("/") for name in imported.group(1).split(",")]
    assert loaded + [MANIFEST["background"]["service_worker"]] == MANIFEST["background"]["scripts"]


def test_nothing_in_the_extension_uses_storage_that_content_scripts_can_reach() -> None:
    for script in EXTENSION_DIR.rglob("*.js"):
        assert "chrome.storage" not in script.read_text(), script.name


def test_every_adapter_has_every_field() -> None:
    adapters = (EXTENSION_DIR / "shared" / "adapters.js").read_text()
    adapters = adapters[adapters.index("const SITES = [") : adapters.index("\n  ];")]
    entries = re.findall(r"\{\s*id: \"(\w+)\",(.*?)\n    \}", adapters, re.DOTALL)
    assert [name for name, _ in entries] == [
        "chatgpt",
        "claude",
        "gemini",
        "aistudio",
        "mistral",
        "deepseek",
        "grok",
    ]
    for name, body in entries:
        for field in (
            "name",
            "hosts",
            "assistant",
            "input",
            "editor",
            "send",
            "generating",
            "done",
            "conversation",
        ):
            assert re.search(rf"\b{field}: ", body), (name, field)
