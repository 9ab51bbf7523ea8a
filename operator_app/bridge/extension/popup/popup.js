/* The popup: pairing (code and port), the connection to Operator, what the extension sees in the
   active tab (field by field: which selector found it, or that none did, with "Point at it"), the
   person's own selectors (listed, removable, exported and imported as JSON), the pages the person
   chose to watch (start and stop), and the auto-send settings. It makes no request itself: the background does,
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
  impostor: (state) => "Something on 127.0.0.1:" + state.port + " answers but cannot prove it is the Operator you paired with, so nothing is sent to it. Start the bridge in Operator with b (if Operator listens on another port, pair again with that port).",
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

/* The answer the page follows, by the number Operator's terminal gives it ("Message 8"), and
   where it stands in Operator: a write waiting in the terminal is not "finished" (issue 26). */
function watchingLine(watching) {
  if (!watching) return "";
  if (watching.state === "held") return " Its latest answer ended while Operator was not listening: run it from Operator's terminal.";
  const which = watching.message ? " Following message " + watching.message : " Following the latest answer";
  if (watching.state === "waiting" && watching.waitingFor) {
    return which + ": a write waits for your answer in Operator's terminal (" + watching.waitingFor + ").";
  }
  if (watching.state === "waiting") return which + ": Operator is running its commands.";
  if (watching.state === "streaming" || (watching.sent && !watching.done)) return which + " (being written).";
  if (watching.state === "ready") return which + ": its results are ready.";
  if (watching.state === "failed") return which + ": Operator could not run it.";
  if (watching.message || watching.sent) return which + " (finished).";
  return " Its latest answer holds no block for Operator" + (watching.done ? "." : " yet.");
}

async function showTab() {
  const tabId = await targetTabId();
  const line = $("tab-state");
  const list = $("tab-fields");
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
      ? "Operator is not watching this page (" + report.host + ")." + (report.messages ? " It holds a block for Operator." : "")
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
  showFields(list, report, tabId);
  // Said whenever a selector of the person's is what finds a field (issue 26: all green, while a
  // selector taught on one tab made every tab of the site ignore its answers).
  const repaired = report.repaired ? " Your selectors at work: " + report.repaired + "." : "";
  if (report.adapterOk) {
    line.dataset.state = "ok";
    line.textContent = report.generic
      ? "Watching this page, as you chose" + (report.messages ? ": a block for Operator is on it." : "; no block for Operator on it yet.") + watching + repaired
      : report.name + ": every selector needed now found its element." + watching + repaired;
    return;
  }
  line.dataset.state = "problem";
  line.textContent = report.name + ": " + (report.problems.length === 1 ? "a selector found nothing." : report.problems.length + " selectors found nothing.");
}

/* One line per field: found (and by which selector, "yours" when taught), not found (and what was
   tried), or not expected now; each with "Point at it". */
function showFields(list, report, tabId) {
  for (const field of report.fields || []) {
    const item = document.createElement("li");
    item.dataset.field = field.field;
    item.dataset.state = field.state;
    const what = document.createElement("span");
    what.className = "what";
    const state = field.state === "found" ? "found by " : field.state === "missing" ? "not found" : "not now";
    what.append(field.name + ": " + state);
    if (field.state === "found") {
      const selector = document.createElement("code");
      selector.className = "matched";
      selector.textContent = field.selector;
      what.append(selector);
      if (field.own) {
        const own = document.createElement("span");
        own.className = "own";
        own.textContent = field.trial ? " (yours, on trial on this page)" : " (yours)";
        what.append(own);
      }
    } else if (field.state === "missing") {
      const tried = document.createElement("code");
      tried.textContent = field.tried.join("  |  ");
      what.append(" (", field.note, "; tried ", tried, ")");
    } else {
      what.append(" (" + field.note + ")");
    }
    item.append(what);
    if (!report.generic || field.field === "input" || field.field === "send") {
      const point = document.createElement("button");
      point.type = "button";
      point.dataset.action = "point";
      point.textContent = "Point at it";
      point.addEventListener("click", () => pointAt(tabId, field));
      item.append(point);
    }
    list.appendChild(item);
  }
}

async function pointAt(tabId, field) {
  let answer = null;
  try {
    answer = await chrome.tabs.sendMessage(tabId, { type: "teach", field: field.field });
  } catch (error) {
    answer = null;
  }
  const hint = $("point-hint");
  hint.hidden = false;
  if (!answer || !answer.pointing) {
    hint.textContent = "The page did not answer: reload it and try again.";
    return;
  }
  hint.textContent = "Click the " + field.name + " in the page (Esc there cancels). Operator keeps a selector for it.";
  // As the toolbar's popup, it would only stand between the person and the page.
  if (!new URLSearchParams(location.search).get("tab")) window.close();
}

/* ---- the person's own selectors ---- */

async function showSelectors() {
  const answer = await chrome.runtime.sendMessage({ type: "selectors-all" });
  const list = $("selector-list");
  list.replaceChildren();
  const sites = (answer && answer.sites) || {};
  const entries = [];
  for (const [site, fields] of Object.entries(sites)) {
    for (const [field, selectors] of Object.entries(fields)) {
      for (const selector of selectors) entries.push({ site, field, selector, page: null });
    }
  }
  for (const [site, fields] of Object.entries((answer && answer.trials) || {})) {
    for (const [field, trials] of Object.entries(fields)) {
      for (const trial of trials) entries.push({ site, field, selector: trial.selector, page: trial.page });
    }
  }
  for (const { site, field, selector, page } of entries) {
    const item = document.createElement("li");
    Object.assign(item.dataset, { site, field, selector, trial: page ? "yes" : "no" });
    const what = document.createElement("span");
    what.className = "what";
    const code = document.createElement("code");
    code.textContent = selector;
    what.append(site + ", " + field + ": ", code);
    if (page) what.append(" (on trial on " + page + ")");
    const remove = document.createElement("button");
    remove.type = "button";
    remove.dataset.action = "remove";
    remove.textContent = "Remove";
    remove.addEventListener("click", async () => {
      await chrome.runtime.sendMessage({ type: "selectors-remove", site, field, selector });
      await Promise.all([showSelectors(), showTab()]);
    });
    item.append(what, remove);
    list.appendChild(item);
  }
  $("selectors-none").hidden = entries.length > 0;
  return answer;
}

/* Every selector in an import must parse here (the background's service worker has no DOM). */
function unparsable(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return null; // the background says what is wrong with it
  }
  const sites = data && typeof data.sites === "object" && data.sites ? data.sites : {};
  for (const [site, fields] of Object.entries(sites)) {
    for (const [field, selectors] of Object.entries(fields || {})) {
      for (const selector of Array.isArray(selectors) ? selectors : []) {
        try {
          document.createDocumentFragment().querySelector(String(selector));
        } catch (error) {
          return site + " " + field + ": the browser cannot parse the selector " + JSON.stringify(String(selector).slice(0, 80));
        }
      }
    }
  }
  return null;
}

$("selectors-export").addEventListener("click", async () => {
  const answer = await chrome.runtime.sendMessage({ type: "selectors-all" });
  const box = $("selectors-json");
  box.hidden = false;
  box.value = answer.exported;
  box.select();
  const result = $("selectors-result");
  result.className = "";
  try {
    await navigator.clipboard.writeText(answer.exported);
    result.textContent = "Exported: the JSON is above, and copied.";
  } catch (error) {
    result.textContent = "Exported: copy the JSON above.";
  }
});

$("selectors-import").addEventListener("click", async () => {
  const box = $("selectors-json");
  const result = $("selectors-result");
  if (box.hidden || !box.value.trim()) {
    box.hidden = false;
    box.value = "";
    box.focus();
    result.className = "";
    result.textContent = "Paste an export here, then press Import again.";
    return;
  }
  const problem = unparsable(box.value);
  const answer = problem ? { ok: false, problem } : await chrome.runtime.sendMessage({ type: "selectors-import", text: box.value });
  if (answer && answer.ok) {
    result.className = "";
    result.textContent = "Imported " + (answer.count === 1 ? "1 selector" : answer.count + " selectors") + " for " + answer.sites.join(", ") + ".";
    await Promise.all([showSelectors(), showTab()]);
  } else {
    result.className = "error";
    result.textContent = "Nothing imported: " + (answer ? answer.problem : "the extension did not answer") + ".";
  }
});

/* The code as Operator shows it ("875 562"), typed or pasted with spaces or a dash: its digits.
   The whole line of Operator's dialog pasted ("546 719   port 47941") is taken too: the port
   goes to its own box (issue 26: it was refused). */
function pairingDigits(typed) {
  const digits = splitPort(typed).replace(/[\s\-\u2010-\u2015]/g, "");
  return /^[0-9]{6}$/.test(digits) ? digits : null;
}

/* "546 719   port 47941": the port goes to its own box, the code stays. */
function splitPort(typed) {
  const withPort = /^(.*?)\s*port\s*:?\s*([0-9]{1,5})\s*$/i.exec(typed);
  if (!withPort) return typed;
  $("pair-port").value = withPort[2];
  return withPort[1];
}

$("pair-code").addEventListener("input", () => {
  const box = $("pair-code");
  const code = splitPort(box.value);
  if (code !== box.value) box.value = code.trim();
});

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

// Drawn: the connection, this tab and the selectors all shown once (until then the popup's
// height changes as each arrives, and a button can move under a click).
Promise.allSettled([showConnection(), showTab(), showSelectors()]).then(() => {
  document.body.dataset.drawn = "true";
});
