/* The extension's background (a service worker in Chromium, an event page in Firefox): the only
   part that makes network requests. Content scripts and the popup talk to it by messages.

   - Page messages from the content scripts are posted to Operator in order, one request at a time
     per page message, keeping only the newest text while one is on its way.
   - Once Operator has an Operator message for a page message, one long poll per page message asks
     whether its results are in, and hands them to the tab that showed it (or to another tab showing
     the same conversation); the icon's badge then shows how many are in the input box.
   - Heartbeat: POST /v1/hello on each content script's 10 s ping and when the chat tab in front
     changes.
   - The context menu "Send selection to Operator" and the popup's "watch this page" inject the
     content scripts where the manifest does not (activeTab + scripting).
   - Auto-send permits: once per page message, at most N per minute, across all tabs. */

"use strict";

if (typeof importScripts === "function" && !globalThis.OperatorBridgeApi) {
  importScripts("/background/bridge_api.js");
}

const Api = globalThis.OperatorBridgeApi;
const CONTENT_FILES = ["shared/adapters.js", "content/text.js", "content/editor.js", "content/panel.js", "content/delivery.js", "content/content.js"];
const MENU_ID = "operator-send-selection";
const HELLO_EVERY_MS = 9000;
const POLL_WAIT_S = 20;

const chatTabs = new Map(); // tab id -> {id, title, url, site, adapter_ok, problem, seenAt}
const postQueues = new Map(); // page key -> {latest payload, tabId, running}
const watchers = new Map(); // page key -> {tabId, conversation, position}
let frontChatTab = null;
let lastHelloAt = 0;
let connection = { state: "unknown", detail: "", workspace: null, checkedAt: 0 };

function pageKey(conversation, position) {
  return conversation + "|" + position;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/* ---- connection state, as the popup and the page panel tell it ---- */

function noteOutcome(outcome) {
  const now = Date.now();
  if (outcome.ok) {
    connection = { state: "connected", detail: "", workspace: (outcome.data && outcome.data.workspace) || connection.workspace, checkedAt: now };
    return;
  }
  const code = outcome.error.code;
  if (code === "NOT_PAIRED") connection = { state: "unpaired", detail: outcome.error.message, workspace: null, checkedAt: now };
  else if (code === "UNREACHABLE" || code === "TIMEOUT") connection = { state: "unreachable", detail: outcome.error.message, workspace: connection.workspace, checkedAt: now };
  else if (code === "BRIDGE_UNAUTHORIZED") connection = { state: "unauthorized", detail: outcome.error.message, workspace: null, checkedAt: now };
  else connection = { state: "error", detail: code + ": " + outcome.error.message, workspace: connection.workspace, checkedAt: now };
}

async function problemForPage(outcome = null) {
  const { port } = await Api.settings();
  if (outcome && !outcome.ok && outcome.error.code === "BRIDGE_NO_WORKSPACE") {
    return { title: "no workspace open in Operator", text: outcome.error.message };
  }
  switch (connection.state) {
    case "unpaired":
      return { title: "not paired", text: "Open the Operator extension's popup and enter the pairing code Operator shows (start the bridge there with b)." };
    case "unreachable":
      return { title: "Operator is not listening", text: "Nothing answers on 127.0.0.1:" + port + ". Start the bridge in Operator with b (or --bridge)." };
    case "unauthorized":
      return { title: "pairing no longer valid", text: "Operator refused the extension's token. Pair again from the extension's popup." };
    case "error":
      return { title: "Operator refused a request", text: connection.detail };
    default:
      return null;
  }
}

async function call(method, path, body, options) {
  const outcome = await Api.request(method, path, body, options);
  noteOutcome(outcome);
  return outcome;
}

/* ---- heartbeat ---- */

function tabForHello() {
  const tab = chatTabs.get(frontChatTab) || [...chatTabs.values()].sort((a, b) => b.seenAt - a.seenAt)[0];
  if (!tab) return null;
  const { seenAt, ...reported } = tab;
  return reported;
}

async function hello() {
  lastHelloAt = Date.now();
  return call("POST", "hello", { tab: tabForHello() });
}

function rememberTab(tabId, tab) {
  const before = chatTabs.get(tabId);
  chatTabs.set(tabId, { id: tabId, title: tab.title, url: tab.url, site: tab.site, adapter_ok: tab.adapter_ok !== false, problem: tab.problem || null, seenAt: Date.now() });
  let changed = !before || before.title !== tab.title || before.url !== tab.url || before.problem !== (tab.problem || null);
  // A tab the person switched to before its page had reported is the one in front now.
  if (frontChatTab === null || (tabId === activeTabId && frontChatTab !== tabId)) {
    frontChatTab = tabId;
    changed = true;
  }
  return changed;
}

let activeTabId = null;
chrome.tabs.onActivated.addListener(({ tabId }) => {
  activeTabId = tabId;
  if (!chatTabs.has(tabId) || frontChatTab === tabId) return;
  frontChatTab = tabId;
  hello();
});

chrome.tabs.onRemoved.addListener((tabId) => {
  chatTabs.delete(tabId);
  if (frontChatTab === tabId) {
    frontChatTab = null;
    hello();
  }
});

/* ---- page messages to Operator ---- */

async function postPageMessage(tabId, payload) {
  const key = pageKey(payload.conversation, payload.position);
  let queue = postQueues.get(key);
  if (!queue) {
    queue = { latest: null, tabId, running: false, lastReply: null };
    postQueues.set(key, queue);
  }
  queue.latest = { ...payload, tab: { ...payload.tab, id: tabId } };
  queue.tabId = tabId;
  if (queue.running) return { queued: true, problem: await problemForPage() };
  queue.running = true;
  try {
    while (queue.latest) {
      const body = queue.latest;
      queue.latest = null;
      const outcome = await call("POST", "message", body, { timeoutMs: 15000 });
      queue.lastReply = outcome;
      if (outcome.ok && outcome.data && outcome.data.message !== null && outcome.data.message !== undefined) {
        watchResults(key, body.conversation, body.position, tabId);
      }
    }
  } finally {
    queue.running = false;
    postQueues.delete(key);
  }
  return { reply: queue.lastReply && queue.lastReply.data, problem: await problemForPage(queue.lastReply) };
}

/* ---- results back to the page ---- */

async function watchResults(key, conversation, position, tabId) {
  const existing = watchers.get(key);
  if (existing) {
    existing.tabId = tabId;
    return;
  }
  const watcher = { tabId, conversation, position };
  watchers.set(key, watcher);
  const query = "results?conversation=" + encodeURIComponent(conversation) + "&position=" + position + "&wait=";
  let failures = 0;
  let lastProgress = null;
  let lastState = "streaming";
  try {
    while (failures < 40) {
      // The long poll returns early only for "ready": while the model writes, ask every second,
      // so the page learns at once when a write starts waiting for the terminal.
      const wait = lastState === "streaming" ? 1 : POLL_WAIT_S;
      const outcome = await call("GET", query + wait, null, { timeoutMs: (wait + 10) * 1000 });
      if (!outcome.ok) {
        if (outcome.error.code !== "UNREACHABLE" && outcome.error.code !== "TIMEOUT") return;
        failures += 1;
        await sleep(3000);
        continue;
      }
      failures = 0;
      const state = outcome.data;
      lastState = state.state;
      const progress = state.state + "|" + (state.waiting_for || "");
      if (progress !== lastProgress) {
        lastProgress = progress;
        tellTab(watcher.tabId, { type: "progress", state: state.state, waiting_for: state.waiting_for || null, problem: state.problem || null });
      }
      if (state.state === "failed") return;
      if (state.state === "ready") {
        if (!state.delivered) await deliver(watcher, state);
        return;
      }
      if (state.state === "none") return;
    }
  } finally {
    watchers.delete(key);
  }
}

async function tellTab(tabId, message) {
  try {
    return await chrome.tabs.sendMessage(tabId, message);
  } catch (error) {
    return null; // the tab closed or navigated away
  }
}

async function deliver(watcher, state) {
  const stored = await Api.settings();
  const results = {
    conversation: watcher.conversation, position: watcher.position, message: state.message,
    count: state.count, copy_text: state.copy_text,
    autoSend: { enabled: stored.autoSend === true, delayMs: stored.autoSendDelayMs },
  };
  // The tab that showed the message first; if it is gone, another one showing the conversation.
  const showsConversation = (tab) => {
    try {
      const url = new URL(tab.url);
      return (url.hostname + url.pathname).startsWith(watcher.conversation);
    } catch (error) {
      return false;
    }
  };
  const candidates = [watcher.tabId, ...[...chatTabs.values()]
    .filter((tab) => tab.id !== watcher.tabId && showsConversation(tab))
    .map((tab) => tab.id)];
  for (const tabId of candidates) {
    const answer = await tellTab(tabId, { type: "results", results });
    if (answer) return answer;
  }
  return null;
}

/* ---- auto-send permits ---- */

async function permitAutoSend({ conversation, position, message }) {
  const stored = await Api.settings();
  if (!stored.autoSend) return { ok: false, reason: "auto-send was turned off" };
  const { autoSent = {}, autoSendTimes = [] } = await chrome.storage.local.get(["autoSent", "autoSendTimes"]);
  const id = pageKey(conversation, position) + "|" + message;
  if (autoSent[id]) return { ok: false, reason: "this message's results were already sent once" };
  const now = Date.now();
  const recent = autoSendTimes.filter((time) => now - time < 60000);
  if (recent.length >= stored.sendsPerMinute) {
    return { ok: false, reason: stored.sendsPerMinute + " auto-sends in the last minute, the limit you set" };
  }
  autoSent[id] = now;
  for (const [key, time] of Object.entries(autoSent)) {
    if (now - time > 7 * 24 * 3600 * 1000) delete autoSent[key];
  }
  await chrome.storage.local.set({ autoSent, autoSendTimes: [...recent, now] });
  return { ok: true };
}

/* ---- badge ---- */

function setBadge(tabId, text) {
  chrome.action.setBadgeBackgroundColor({ tabId, color: "#389e0d" }).catch(() => {});
  chrome.action.setBadgeText({ tabId, text }).catch(() => {});
}

/* ---- pairing ---- */

async function pair(code, port) {
  // Chromium's brand list carries a deliberately meaningless "Not A Brand" entry; leave it out.
  const brands = navigator.userAgentData ? navigator.userAgentData.brands.filter((brand) => !/not.?a.?brand/i.test(brand.brand)) : [];
  const firefox = /Firefox\/(\d+)/.exec(navigator.userAgent);
  const browserName = brands.length ? brands.map((brand) => brand.brand + " " + brand.version).join(", ")
    : firefox ? "Firefox " + firefox[1] : navigator.userAgent;
  const outcome = await Api.request("POST", "pair", { code, browser: browserName.slice(0, 200) }, { token: null, port });
  if (!outcome.ok) {
    noteOutcome(outcome);
    return { ok: false, error: outcome.error };
  }
  await chrome.storage.local.set({ token: outcome.data.token, port, workspace: outcome.data.workspace });
  noteOutcome(outcome);
  await hello();
  return { ok: true, workspace: outcome.data.workspace, operator_version: outcome.data.operator_version };
}

/* ---- the content scripts where the manifest does not put them ---- */

async function ensureContentScript(tabId) {
  if (await tellTab(tabId, { type: "ping" })) return true;
  try {
    await chrome.scripting.executeScript({ target: { tabId }, files: CONTENT_FILES });
    return true;
  } catch (error) {
    return false;
  }
}

function createMenu() {
  chrome.contextMenus.removeAll(() => {
    chrome.contextMenus.create({ id: MENU_ID, title: "Send selection to Operator", contexts: ["selection"] });
  });
}
chrome.runtime.onInstalled.addListener(createMenu);
if (chrome.runtime.onStartup) chrome.runtime.onStartup.addListener(createMenu);

chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId === MENU_ID && tab && tab.id !== undefined) sendSelection(info, tab);
});

/* The selection becomes a page message of its own ("selection/<page>", numbered), sent as
   finished; its results go into that page's input box like any other. */
async function sendSelection(info, tab) {
  // contextMenus' selectionText loses the line breaks; the page's own selection keeps them.
  let text = info.selectionText || "";
  try {
    const [first] = await chrome.scripting.executeScript({
      target: { tabId: tab.id, frameIds: [info.frameId || 0] },
      func: () => String(window.getSelection()),
    });
    if (first && typeof first.result === "string" && first.result.trim()) text = first.result;
  } catch (error) {
    // a page the extension may not script (the browser's own pages): keep selectionText
  }
  await ensureContentScript(tab.id);
  const { selectionCount = 0 } = await chrome.storage.local.get("selectionCount");
  await chrome.storage.local.set({ selectionCount: selectionCount + 1 });
  let where = "page";
  try {
    const url = new URL(tab.url || info.pageUrl);
    where = url.hostname + url.pathname;
  } catch (error) {
    // keep "page"
  }
  const host = where.split("/")[0];
  rememberTab(tab.id, { title: tab.title || "", url: tab.url || info.pageUrl || "", site: host });
  await postPageMessage(tab.id, {
    conversation: "selection/" + where, position: selectionCount, text, generating: false,
    tab: { title: tab.title || "", url: tab.url || info.pageUrl || "", site: host },
  });
}

/* ---- messages from content scripts and the popup ---- */

async function handle(message, sender) {
  const tabId = sender.tab ? sender.tab.id : null;
  switch (message.type) {
    case "message":
      rememberTab(tabId, message.payload.tab);
      return postPageMessage(tabId, message.payload);
    case "ping": {
      const changed = rememberTab(tabId, message.tab);
      if (changed || Date.now() - lastHelloAt > HELLO_EVERY_MS) await hello();
      const last = message.last;
      const resend = !!last && !watchers.has(pageKey(last.conversation, last.position)) && !postQueues.has(pageKey(last.conversation, last.position))
        && connection.state === "connected";
      return { resend };
    }
    case "delivered": {
      if (tabId !== null) setBadge(tabId, message.sent ? "" : String(message.count));
      const outcome = await call("POST", "delivered", {
        conversation: message.conversation, position: message.position, message: message.message, sent: message.sent,
      });
      return { ok: outcome.ok };
    }
    case "results-gone":
      if (tabId !== null) setBadge(tabId, "");
      return { ok: true };
    case "autosend-permit":
      return permitAutoSend(message);
    case "state": {
      if (message.check) await hello();
      const stored = await Api.settings();
      return {
        paired: !!stored.token, port: stored.port, workspace: stored.workspace, connection,
        settings: { autoSend: stored.autoSend, autoSendDelayMs: stored.autoSendDelayMs, sendsPerMinute: stored.sendsPerMinute },
      };
    }
    case "pair":
      return pair(String(message.code), Number(message.port) || Api.DEFAULT_PORT);
    case "settings": {
      const changes = {};
      if (typeof message.autoSend === "boolean") changes.autoSend = message.autoSend;
      if (Number.isFinite(message.autoSendDelayMs)) changes.autoSendDelayMs = Math.min(60000, Math.max(500, message.autoSendDelayMs));
      if (Number.isFinite(message.sendsPerMinute)) changes.sendsPerMinute = Math.min(20, Math.max(1, Math.round(message.sendsPerMinute)));
      await chrome.storage.local.set(changes);
      return { ok: true };
    }
    case "watch-tab":
      return { ok: await ensureContentScript(message.tabId) };
    default:
      return null;
  }
}

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  handle(message, sender).then(reply, (error) => reply({ error: String(error) }));
  return true; // the reply comes asynchronously
});

// For a person debugging the extension from its service worker console (and for the tests).
globalThis.operatorBridge = { chatTabs, watchers, connectionState: () => connection, hello, sendSelection };
