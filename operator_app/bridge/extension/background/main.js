/* The extension's background (a service worker in Chromium, an event page in Firefox): the only
   part that makes network requests, and the only one that holds the pairing's key (which never
   leaves it: background/bridge_api.js signs with it). Content
   scripts and the popup talk to it by messages, and it answers each according to who sent it
   (background/trust.js): the popup may pair and change settings, content scripts may report
   answers from pages Operator may watch, and neither can do the other's part.

   - Page messages go to Operator and their results come back (background/page_messages.js); the
     icon's badge shows how many results are in the input box.
   - Heartbeat: POST /v1/hello on each content script's 10 s ping and when the chat tab in front
     changes. While a chat tab is watched, one hello waits at Operator (`wait`), so the background
     learns at once when the bridge stops, and while it is off it asks every second: the watched
     pages are told at once when Operator stops and starts listening.
   - The context menu "Send selection to Operator" and the popup's "Watch this page" put the content
     scripts where the manifest does not (activeTab + scripting); "Watch this page" is remembered
     for the page's origin until the popup's "Stop watching".
   - Auto-send permits: once per page message, at most N per minute, across all tabs. */

"use strict";

if (typeof importScripts === "function" && !globalThis.OperatorBridgeApi) {
  importScripts("/shared/adapters.js", "/background/store.js", "/background/bridge_api.js", "/background/trust.js", "/background/selectors.js", "/background/page_messages.js");
}

const Api = globalThis.OperatorBridgeApi;
const Store = globalThis.OperatorStore;
const Trust = globalThis.OperatorTrust;
const Selectors = globalThis.OperatorSelectors;
const CONTENT_FILES = ["shared/adapters.js", "content/text.js", "content/editor.js", "content/person.js", "content/health.js", "content/teach.js", "content/panel.js", "content/delivery.js", "content/content.js"];
const MENU_ID = "operator-send-selection";
const HELLO_EVERY_MS = 9000;
const PRESENCE_WAIT_S = 20; // how long the waiting hello waits at Operator
const PRESENCE_RETRY_MS = 1000; // how often, while Operator is not listening, it asks again

const chatTabs = new Map(); // tab id -> {id, title, url, site, adapter_ok, problem, repaired, seenAt}
const genericTabs = new Map(); // tab id -> origin, for every page where the generic fallback runs
let frontChatTab = null;
let lastHelloAt = 0;
let connection = { state: "unknown", detail: "", workspace: null, checkedAt: 0 };

/* ---- connection state, as the popup and the page panel tell it ---- */

function noteOutcome(outcome) {
  const was = connection.state;
  const workspace = connection.workspace;
  setConnection(outcome);
  if (was === "connected" && connection.state !== "connected") pages.connectionLost();
  if (connection.state !== was || connection.workspace !== workspace) showConnectionTitle();
  if (connection.state !== was) announceConnection();
}

function setConnection(outcome) {
  const now = Date.now();
  if (outcome.ok && outcome.data && outcome.data.bridge === "stopping") {
    // The bridge answered on its way out: it is not listening from now on.
    connection = { state: "unreachable", detail: "Operator stopped the bridge", workspace: connection.workspace, checkedAt: now };
    return;
  }
  if (outcome.ok) {
    connection = { state: "connected", detail: "", workspace: (outcome.data && outcome.data.workspace) || connection.workspace, checkedAt: now };
    return;
  }
  const code = outcome.error.code;
  if (code === "NOT_PAIRED") connection = { state: "unpaired", detail: outcome.error.message, workspace: null, checkedAt: now };
  else if (code === "UNREACHABLE" || code === "TIMEOUT") connection = { state: "unreachable", detail: outcome.error.message, workspace: connection.workspace, checkedAt: now };
  else if (code === "BRIDGE_UNAUTHORIZED") connection = { state: "unauthorized", detail: outcome.error.message, workspace: null, checkedAt: now };
  // Something holds Operator's port and cannot prove it is Operator: nothing was sent to it.
  else if (code === "NOT_OPERATOR") connection = { state: "impostor", detail: outcome.error.message, workspace: connection.workspace, checkedAt: now };
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
    case "impostor":
      return { title: "Operator is not listening", text: "Something else answers on 127.0.0.1:" + port + " and cannot prove it is your Operator: nothing was sent to it, and nothing it says reaches this page. Start the bridge in Operator with b." };
    case "error":
      return { title: "Operator refused a request", text: connection.detail };
    default:
      return null;
  }
}

/* The watched pages hear at once when Operator stops or starts listening (content.js shows it). */
async function announceConnection() {
  const message = { type: "connection", state: connection.state, problem: await problemForPage() };
  for (const tabId of chatTabs.keys()) tellTab(tabId, message);
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

/* "Chromium 156", "Google Chrome 156": Chromium's brand list carries a deliberately meaningless
   "Not A Brand" entry, and a browser built on Chromium names Chromium too; both are left out. */
function browserName() {
  let brands = navigator.userAgentData ? navigator.userAgentData.brands.filter((brand) => !/not.?a.?brand/i.test(brand.brand)) : [];
  if (brands.length > 1) brands = brands.filter((brand) => brand.brand !== "Chromium");
  const firefox = /Firefox\/(\d+)/.exec(navigator.userAgent);
  const name = brands.length ? brands.map((brand) => brand.brand + " " + brand.version).join(", ")
    : firefox ? "Firefox " + firefox[1] : navigator.userAgent;
  return name.slice(0, 200);
}

async function hello() {
  lastHelloAt = Date.now();
  const outcome = await call("POST", "hello", { tab: tabForHello(), browser: browserName() });
  await heardFrom(outcome);
  return outcome;
}

/* A hello's answer that names a workspace: the page messages refused for want of one go now.
   It names the openers too. */
async function heardFrom(outcome) {
  if (outcome.ok && outcome.data && outcome.data.workspace) pages.workspaceOpen();
  if (outcome.ok && outcome.data) await learnOpeners(outcome.data.openers).catch(() => null);
}

/* ---- what Operator's blocks begin with on a page (its hello says; content/text.js looks) ---- */

/* The openers [{dialect, text, line_start}] as Operator last said them: kept in the store, so a
   restarted worker has them before its first hello is answered. None before Operator ever
   answered one (pairing says hello at once); asking sends nothing, so a page nobody chose to
   watch makes no request by asking. */
async function knownOpeners() {
  return (await Store.get(["openers"])).openers || [];
}

/* Openers a hello named: kept, and the watched pages hear of a change at once. */
async function learnOpeners(said) {
  if (!Array.isArray(said)) return;
  const { openers } = await Store.get(["openers"]);
  if (JSON.stringify(said) === JSON.stringify(openers)) return;
  await Store.set({ openers: said });
  for (const tabId of chatTabs.keys()) tellTab(tabId, { type: "openers", openers: said });
}

let presenceRunning = false;

/* While a chat tab is watched: one hello waits at Operator, answered when the bridge stops (or
   after PRESENCE_WAIT_S); while Operator is not listening, one every PRESENCE_RETRY_MS (a refused
   connection on loopback costs nothing). An Operator that answers at once is asked no more often. */
async function keepPresence() {
  if (presenceRunning) return;
  presenceRunning = true;
  try {
    while (chatTabs.size > 0 && (await Api.settings()).token) {
      const started = Date.now();
      lastHelloAt = started;
      const outcome = await call("POST", "hello", { tab: tabForHello(), browser: browserName(), wait: connection.state === "connected" ? PRESENCE_WAIT_S : 0 },
        { timeoutMs: (PRESENCE_WAIT_S + 10) * 1000 });
      if (!outcome.ok && outcome.error.code === "BRIDGE_BAD_REQUEST") break; // an Operator that knows no `wait`
      await heardFrom(outcome);
      const waited = Date.now() - started;
      if (waited < PRESENCE_RETRY_MS) await new Promise((resolve) => setTimeout(resolve, PRESENCE_RETRY_MS - waited));
    }
  } finally {
    presenceRunning = false;
  }
}

function rememberTab(tabId, tab) {
  const before = chatTabs.get(tabId);
  chatTabs.set(tabId, {
    id: tabId, title: tab.title, url: tab.url, site: tab.site, adapter_ok: tab.adapter_ok !== false, problem: tab.problem || null,
    repaired: tab.repaired || null, seenAt: Date.now(),
  });
  let changed = !before || before.title !== tab.title || before.url !== tab.url || before.problem !== (tab.problem || null)
    || before.repaired !== (tab.repaired || null);
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

function forgetTab(tabId) {
  chatTabs.delete(tabId);
  if (frontChatTab === tabId) {
    frontChatTab = null;
    hello();
  }
}

chrome.tabs.onRemoved.addListener((tabId) => {
  genericTabs.delete(tabId);
  countedTabs.delete(tabId);
  forgetTab(tabId);
});

/* ---- page messages ---- */

async function tellTab(tabId, message) {
  try {
    return await chrome.tabs.sendMessage(tabId, message);
  } catch (error) {
    return null; // the tab closed or navigated away
  }
}

const pages = globalThis.OperatorPageMessages.create({ call, tellTab, chatTabs, problemForPage, settings: Api.settings });

/* ---- auto-send permits ---- */

async function permitAutoSend({ conversation, position, message }) {
  const stored = await Api.settings();
  if (!stored.autoSend) return { ok: false, reason: "auto-send was turned off" };
  const { autoSent = {}, autoSendTimes = [] } = await Store.get(["autoSent", "autoSendTimes"]);
  const id = pages.pageKey(conversation, position) + "|" + message;
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
  await Store.set({ autoSent, autoSendTimes: [...recent, now] });
  return { ok: true };
}

/* ---- badge ---- */

/* The count of results waiting in the tab's input box, and its tooltip saying so; none: the
   tooltip is the connection's again. */
const countedTabs = new Set(); // tabs whose tooltip says how many results wait in their box

function setBadge(tabId, text) {
  chrome.action.setBadgeBackgroundColor({ tabId, color: "#389e0d" }).catch(() => {});
  chrome.action.setBadgeText({ tabId, text }).catch(() => {});
  const count = Number(text);
  if (count) countedTabs.add(tabId);
  else countedTabs.delete(tabId);
  // (A tab's own tooltip cannot be unset, only replaced: without a count it is the connection's.)
  const title = count ? "Operator bridge: " + (count === 1 ? "1 result" : count + " results") + " ready in this tab's input box (press Enter there to send)"
    : connectionTitle();
  chrome.action.setTitle({ tabId, title }).catch(() => {});
}

function showConnectionTitle() {
  const title = connectionTitle();
  chrome.action.setTitle({ title }).catch(() => {});
  for (const tabId of chatTabs.keys()) {
    if (!countedTabs.has(tabId)) chrome.action.setTitle({ tabId, title }).catch(() => {});
  }
}

/* The icon's tooltip: who the extension speaks to, and how that goes. */
function connectionTitle() {
  switch (connection.state) {
    case "connected":
      return "Operator bridge: connected to Operator" + (connection.workspace ? " (workspace " + connection.workspace + ")" : "");
    case "unreachable":
      return "Operator bridge: Operator is not listening (start the bridge in Operator with b)";
    case "unpaired":
      return "Operator bridge: not paired (click to pair with Operator)";
    case "unauthorized":
      return "Operator bridge: pairing no longer valid (click to pair again)";
    case "impostor":
      return "Operator bridge: something that is not Operator holds its port (nothing is sent to it)";
    case "error":
      return "Operator bridge: Operator refused a request";
    default:
      return "Operator bridge";
  }
}

/* ---- pairing ---- */

async function pair(code, port) {
  const outcome = await Api.request("POST", "pair", { code, browser: browserName() }, { token: null, port });
  if (!outcome.ok) {
    noteOutcome(outcome);
    return { ok: false, error: outcome.error };
  }
  await Store.set({ token: outcome.data.token, port, workspace: outcome.data.workspace });
  Api.forgetSession(); // the next request proves the new pairing
  noteOutcome(outcome);
  await hello();
  return { ok: true, workspace: outcome.data.workspace, operator_version: outcome.data.operator_version };
}

/* ---- the content scripts where the manifest does not put them, and chosen origins ---- */

async function ensureContentScript(tabId) {
  if (await tellTab(tabId, { type: "ping" })) return true;
  try {
    await chrome.scripting.executeScript({ target: { tabId }, files: CONTENT_FILES });
    return true;
  } catch (error) {
    return false;
  }
}

/* The popup's "Watch this page": the content script goes in (where the manifest did not put it)
   and asks whether it may watch; the answer remembers its origin, as the browser names it. Other
   tabs of that origin where the generic fallback sits idle start too. */
async function watchTab(tabId) {
  Trust.expectChoice(tabId);
  if (!(await ensureContentScript(tabId))) return { ok: false, reason: "not-allowed" };
  const answer = await tellTab(tabId, { type: "watch", on: true });
  if (!answer || !answer.watching) return { ok: false, reason: "refused" };
  for (const [otherTab, origin] of genericTabs) {
    if (otherTab !== tabId && origin === answer.origin) tellTab(otherTab, { type: "watch", on: true });
  }
  return { ok: true, origin: answer.origin };
}

async function stopWatching(origin) {
  await Trust.dropOrigin(origin);
  for (const [tabId, tabOrigin] of genericTabs) {
    if (tabOrigin !== origin) continue;
    forgetTab(tabId);
    pages.dropTab(tabId);
    setBadge(tabId, "");
    await tellTab(tabId, { type: "watch", on: false });
  }
  return { ok: true };
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
   finished; its results go into that page's input box like any other. The person chose this
   text, so it goes whether or not the page is watched (the page itself is not watched for it). */
async function sendSelection(info, tab) {
  const text = await selectedText(info, tab);
  await ensureContentScript(tab.id);
  const { selectionCount = 0 } = await Store.get(["selectionCount"]);
  await Store.set({ selectionCount: selectionCount + 1 });
  const url = tab.url || info.pageUrl || "";
  const { host, where } = placeOf(url);
  rememberTab(tab.id, { title: tab.title || "", url, site: host });
  return pages.post(tab.id, {
    conversation: "selection/" + where, position: selectionCount, text, generating: false,
    tab: { title: tab.title || "", url, site: host },
  });
}

/* contextMenus' selectionText loses the line breaks; the page's own selection keeps them. */
async function selectedText(info, tab) {
  try {
    const [first] = await chrome.scripting.executeScript({
      target: { tabId: tab.id, frameIds: [info.frameId || 0] },
      func: () => String(window.getSelection()),
    });
    if (first && typeof first.result === "string" && first.result.trim()) return first.result;
  } catch (error) {
    // a page the extension may not script (the browser's own pages): keep selectionText
  }
  return info.selectionText || "";
}

/* The page a selection came from: its host with its port (two local apps are two pages), and
   host and path for the selection's conversation; "page" when the address is not a URL. */
function placeOf(address) {
  try {
    const url = new URL(address);
    return { host: url.host, where: url.host + url.pathname };
  } catch (error) {
    return { host: "page", where: "page" };
  }
}

/* ---- messages from content scripts and the popup ---- */

const FROM_WATCHED_PAGES = new Set(["message", "ping", "selectors", "teach-selector", "prove-selector", "restore-results"]);

/* The tabs showing a site whose selectors changed get them at once. */
async function tellSelectors(site) {
  for (const [tabId, tab] of chatTabs) {
    let key = null;
    try {
      key = Selectors.siteKey(tab.url);
    } catch (error) {
      continue;
    }
    if (site === null || key === site) await tellTab(tabId, { type: "selectors", ...(await Selectors.forUrl(tab.url)) });
  }
}

/* What a content script may ask, one handler a message type: (message, sender, tab id). */
const HANDED_NOTHING = "no results were handed to this tab";

const FROM_PAGE = new Map([
  ["may-watch", async (message, sender, tabId) => {
    // The generic fallback asks before it reads anything; the popup's choice, if one is pending
    // for this tab, is taken here (the origin is the browser's word for it).
    const origin = Trust.originOf(sender);
    if (origin !== null) genericTabs.set(tabId, origin);
    await Trust.takeChoice(sender);
    return { watch: await Trust.mayWatch(sender), origin };
  }],
  ["message", (message, sender, tabId) => {
    rememberTab(tabId, { ...message.payload.tab, url: sender.url });
    return pages.post(tabId, message.payload);
  }],
  ["ping", pinged],
  ["openers", async () => ({ openers: await knownOpeners() })],
  ["delivered", async (message, sender, tabId) => {
    if (!(await pages.wasHandedTo(message, tabId))) return { refused: HANDED_NOTHING };
    setBadge(tabId, message.sent ? "" : String(message.count));
    await pages.landedIn(tabId, pages.pageKey(message.conversation, message.position), message.sent === true);
    const outcome = await call("POST", "delivered", {
      conversation: message.conversation, position: message.position, message: message.message, sent: message.sent,
    });
    return { ok: outcome.ok };
  }],
  ["asked", async (message, sender, tabId) => {
    if (!(await pages.wasHandedTo(message, tabId))) return { refused: HANDED_NOTHING };
    const outcome = await call("POST", "asked", { conversation: message.conversation, position: message.position, message: message.message });
    return { ok: outcome.ok };
  }],
  ["results-gone", async (message, sender, tabId) => {
    setBadge(tabId, "");
    await pages.goneFrom(tabId, typeof message.conversation === "string" ? pages.pageKey(message.conversation, message.position) : null);
    return { ok: true };
  }],
  ["restore-results", async (message, sender, tabId) => ({ results: await pages.inBoxOf(tabId, message.conversation) })],
  ["selectors", (message, sender) => Selectors.forUrl(sender.url)],
  // On trial on the sender's own page only: the browser names its address, the message does not.
  // Other tabs hear of it once it has proven itself.
  ["teach-selector", (message, sender) => Selectors.teach(sender.url, String(message.field), message.selector)],
  ["prove-selector", async (message, sender) => {
    const answer = await Selectors.prove(sender.url, String(message.field), String(message.selector));
    if (answer.ok) await tellSelectors(answer.site);
    return answer;
  }],
  ["autosend-permit", async (message, sender, tabId) => {
    if (!(await pages.wasHandedTo(message, tabId))) return { ok: false, reason: HANDED_NOTHING };
    return permitAutoSend(message);
  }],
]);

async function pinged(message, sender, tabId) {
  const changed = rememberTab(tabId, { ...message.tab, url: sender.url });
  if (changed || (!presenceRunning && Date.now() - lastHelloAt > HELLO_EVERY_MS)) await hello();
  keepPresence();
  const last = message.last;
  const resend = !!last && connection.state === "connected" && (await pages.needsResend(last));
  return { resend, connection: connection.state };
}

/* What the extension's own pages (the popup, the options page) may ask. */
const FROM_EXTENSION_PAGE = new Map([
  ["state", async (message) => {
    if (message.check) await hello();
    const stored = await Api.settings();
    return {
      paired: !!stored.token, port: stored.port, workspace: stored.workspace, connection,
      settings: { autoSend: stored.autoSend, autoSendDelayMs: stored.autoSendDelayMs, sendsPerMinute: stored.sendsPerMinute },
      watchedOrigins: Object.keys(await Trust.chosenOrigins()),
    };
  }],
  ["pair", (message) => pair(String(message.code), Number(message.port) || Api.DEFAULT_PORT)],
  ["settings", changeSettings],
  ["watch-tab", (message) => watchTab(Number(message.tabId))],
  ["stop-watching", (message) => stopWatching(String(message.origin))],
  ["selectors-all", async () => ({ sites: await Selectors.all(), trials: await Selectors.allTrials(), exported: await Selectors.exported() })],
  ["selectors-remove", async (message) => {
    const answer = await Selectors.remove(String(message.site), String(message.field), String(message.selector));
    if (answer.ok) await tellSelectors(String(message.site));
    return answer;
  }],
  ["selectors-import", async (message) => {
    const answer = await Selectors.imported(String(message.text));
    if (answer.ok) await tellSelectors(null);
    return answer;
  }],
]);

async function changeSettings(message) {
  const changes = {};
  if (typeof message.autoSend === "boolean") changes.autoSend = message.autoSend;
  if (Number.isFinite(message.autoSendDelayMs)) changes.autoSendDelayMs = Math.min(60000, Math.max(500, message.autoSendDelayMs));
  if (Number.isFinite(message.sendsPerMinute)) changes.sendsPerMinute = Math.min(20, Math.max(1, Math.round(message.sendsPerMinute)));
  await Store.set(changes);
  return { ok: true };
}

/* Who may ask what, then the handler of the message's type (a Map: a type named like one of an
   object's own properties finds nothing). */
async function handle(message, sender) {
  if (!message || typeof message.type !== "string") return null;
  if (FROM_EXTENSION_PAGE.has(message.type)) {
    if (!Trust.fromExtensionPage(sender)) return { refused: "only the extension's own pages may ask that" };
    return FROM_EXTENSION_PAGE.get(message.type)(message);
  }
  if (!Trust.fromContentScript(sender)) return { refused: "only a page's content script may ask that" };
  if (FROM_WATCHED_PAGES.has(message.type) && !(await Trust.mayWatch(sender))) {
    return { refused: "this page is not watched: choose it in the extension's popup" };
  }
  const handler = FROM_PAGE.get(message.type);
  return handler ? handler(message, sender, sender.tab.id) : null;
}

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  handle(message, sender).then(reply, (error) => reply({ error: String(error) }));
  return true; // the reply comes asynchronously
});

// A worker that starts paired but without the openers (an extension older than them, updated):
// Operator is asked at once, not at the first watched page's ping.
Promise.all([Api.settings(), Store.get(["openers"])]).then(([stored, { openers }]) => {
  if (stored.token && !openers) hello();
});

// For a person debugging the extension from its service worker console (and for the tests).
globalThis.operatorBridge = { chatTabs, watchers: pages.watchers, missed: pages.missed, connectionState: () => connection, hello, sendSelection, store: Store };
