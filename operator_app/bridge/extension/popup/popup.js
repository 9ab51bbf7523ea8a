/* The popup: pairing (code and port), the connection to Operator, what the extension sees in the
   active tab (which adapter, which selector found nothing), the pages the person chose to watch
   (start and stop), and the auto-send settings. It makes no request itself: the background does,
   on its behalf. Opened as a page with ?tab=ID it shows that tab instead of the active one. */

"use strict";

const $ = (id) => document.getElementById(id);

const CONNECTION_TEXT = {
  connected: (state) => {
    const workspace = state.connection.workspace || state.workspace;
    return "Connected to Operator" + (workspace ? " (workspace " + workspace + ")" : "") + ".";
  },
  unreachable: (state) => "Paired, but Operator is not listening on 127.0.0.1:" + state.port + ". Start the bridge in Operator with b.",
  unauthorized: () => "Operator refused this browser's token: pair again.",
  unpaired: () => "Not paired with Operator yet.",
  error: (state) => "Operator refused a request: " + state.connection.detail,
  unknown: () => "Checking…",
};

async function targetTabId() {
  const wanted = new URLSearchParams(location.search).get("tab");
  if (wanted) return Number(wanted);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab ? tab.id : null;
}

async function showConnection() {
  const state = await chrome.runtime.sendMessage({ type: "state", check: true });
  let shown = state.paired ? state.connection.state : "unpaired";
  if (shown === "unknown") shown = state.paired ? "unreachable" : "unpaired";
  const line = $("connection-state");
  line.dataset.state = shown;
  line.textContent = CONNECTION_TEXT[shown](state);
  $("pairing").hidden = shown === "connected";
  $("pair-again").hidden = shown !== "connected";
  // Only the first time: a port the person typed stays while they retry a code.
  if (!$("pair-port").dataset.filled) {
    $("pair-port").value = state.port;
    $("pair-port").dataset.filled = "yes";
  }
  $("autosend-on").checked = state.settings.autoSend;
  $("autosend-delay").value = state.settings.autoSendDelayMs / 1000;
  $("autosend-rate").value = state.settings.sendsPerMinute;
  $("autosend-options").hidden = !state.settings.autoSend;
  showChosen(state.watchedOrigins || []);
  return state;
}

function showChosen(origins) {
  const list = $("chosen-origins");
  list.replaceChildren();
  for (const origin of origins) {
    const item = document.createElement("li");
    item.dataset.origin = origin;
    const name = document.createElement("code");
    name.textContent = origin;
    const stop = document.createElement("button");
    stop.type = "button";
    stop.className = "link";
    stop.textContent = "Stop watching";
    stop.addEventListener("click", () => stopWatching(origin));
    item.append(name, stop);
    list.appendChild(item);
  }
  $("chosen").hidden = origins.length === 0;
}

async function stopWatching(origin) {
  await chrome.runtime.sendMessage({ type: "stop-watching", origin });
  await Promise.all([showConnection(), showTab()]);
}

/* The answer the page follows, by the number Operator's terminal gives it ("Message 8"). */
function watchingLine(watching) {
  if (!watching) return "";
  const how = watching.done ? " (finished)." : " (being written).";
  if (watching.state === "held") return " Its latest answer ended while Operator was not listening: run it from Operator's terminal.";
  if (watching.message) return " Following message " + watching.message + how;
  if (watching.sent) return " Following the latest answer" + how;
  return " Its latest answer holds no OPERATOR_CMD block" + (watching.done ? "." : " yet.");
}

async function showTab() {
  const tabId = await targetTabId();
  const line = $("tab-state");
  const list = $("tab-problems");
  list.replaceChildren();
  $("watch-tab").hidden = true;
  $("stop-tab").hidden = true;
  $("watch-hint").hidden = true;
  let report = null;
  try {
    report = tabId === null ? null : await chrome.tabs.sendMessage(tabId, { type: "status" });
  } catch (error) {
    report = null;
  }
  if (!report || (report.generic && !report.active)) {
    line.dataset.state = "idle";
    line.textContent = report
      ? "Operator is not watching this page (" + report.host + ")." + (report.messages ? " It holds an OPERATOR_CMD block." : "")
      : "Operator is not watching this tab.";
    $("watch-tab").hidden = tabId === null;
    $("watch-hint").hidden = tabId === null;
    return;
  }
  if (report.generic) {
    $("stop-tab").hidden = false;
    $("stop-tab").dataset.origin = report.origin;
    $("stop-tab").textContent = "Stop watching " + report.host;
  }
  const watching = watchingLine(report.watching);
  if (report.adapterOk) {
    line.dataset.state = "ok";
    line.textContent = report.generic
      ? "Watching this page, as you chose" + (report.messages ? ": an OPERATOR_CMD block is on it." : "; no OPERATOR_CMD block on it yet.") + watching
      : report.name + ": every selector found its element." + watching;
    return;
  }
  line.dataset.state = "problem";
  line.textContent = report.name + ": " + (report.problems.length === 1 ? "a selector found nothing." : report.problems.length + " selectors found nothing.");
  for (const problem of report.problems) {
    const item = document.createElement("li");
    item.dataset.field = problem.field;
    const selectors = document.createElement("code");
    selectors.textContent = problem.selectors.join("  |  ");
    item.append(problem.name + ": ", selectors, " " + problem.note + ".");
    list.appendChild(item);
  }
}

/* The code as Operator shows it ("875 562"), typed or pasted with spaces or a dash: its digits. */
function pairingDigits(typed) {
  const digits = typed.replace(/[\s\-\u2010-\u2015]/g, "");
  return /^[0-9]{6}$/.test(digits) ? digits : null;
}

$("pair-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = $("pair-result");
  const code = pairingDigits($("pair-code").value);
  if (code === null) {
    // Not sent: a wrong code would use up one of its few tries.
    result.className = "error";
    result.textContent = "The code is the 6 digits Operator shows (spaces and dashes are fine).";
    result.dataset.code = "";
    return;
  }
  result.className = "";
  result.textContent = "Pairing…";
  const answer = await chrome.runtime.sendMessage({ type: "pair", code, port: Number($("pair-port").value) });
  if (answer && answer.ok) {
    result.textContent = "Paired with Operator (workspace " + answer.workspace + ").";
    $("pair-code").value = "";
  } else {
    result.className = "error";
    const error = answer && answer.error ? answer.error : { code: "?", message: "no answer" };
    result.textContent = error.code === "BRIDGE_BAD_CODE" ? "Wrong code: type the 6 digits Operator shows."
      : error.code === "BRIDGE_NOT_PAIRING" ? "Operator is not pairing now: ask it for a new code (palette: pair again)."
      : error.message;
    result.dataset.code = error.code;
  }
  await showConnection();
});

$("pair-again").addEventListener("click", () => {
  $("pairing").hidden = false;
  $("pair-again").hidden = true;
});

$("watch-tab").addEventListener("click", async () => {
  const answer = await chrome.runtime.sendMessage({ type: "watch-tab", tabId: await targetTabId() });
  if (answer && answer.ok) {
    await Promise.all([showConnection(), showTab()]);
    return;
  }
  const line = $("tab-state");
  line.dataset.state = "problem";
  line.textContent = answer && answer.reason === "refused"
    ? "Operator cannot watch this page: only web pages (http and https) can be chosen."
    : "The browser did not let the extension into this page. Click the extension's icon on the page "
      + "itself (that lets it into this one tab) and try again; the browser's own pages are closed to extensions.";
});

$("stop-tab").addEventListener("click", () => stopWatching($("stop-tab").dataset.origin));

function saveSettings() {
  $("autosend-options").hidden = !$("autosend-on").checked;
  return chrome.runtime.sendMessage({
    type: "settings",
    autoSend: $("autosend-on").checked,
    autoSendDelayMs: Math.round(Number($("autosend-delay").value) * 1000),
    sendsPerMinute: Number($("autosend-rate").value),
  });
}
for (const id of ["autosend-on", "autosend-delay", "autosend-rate"]) $(id).addEventListener("change", saveSettings);

showConnection();
showTab();
