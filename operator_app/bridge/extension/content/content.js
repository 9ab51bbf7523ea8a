/* The content script: watches the chat page and talks to the extension's background by messages
   (it makes no network request of its own).

   - Where: on the chat sites the adapters know, it watches from the start. Anywhere else (the
     generic fallback) it stays idle, reading nothing, until the background says the person chose
     this page's origin in the popup ("Watch this page"), and it stops again when they choose
     "Stop watching". Idle, it still takes the results of a "Send selection to Operator".

   - Streaming: the latest assistant message's text (its finished lines while it is being
     written, see completeLines) goes to the background within 300 ms of each change
     (SEND_EVERY_MS after the change at most, plus the time a scan takes), keyed by a
     conversation id (host with its port, and path) that stays the same while the message is
     being written, and its position
     among the page's assistant messages. A message is over when the site's "still generating"
     indicator goes (and the text has settled), or, where no indicator was ever seen on this page,
     after a quiet period. Only messages that hold a block's opener are sent (Operator names them:
     content/text.js). A message already on the
     page when watching starts, that does not change and shows no indicator, was written before:
     it is sent once, finished, never as if it were being written (Operator holds an answer that
     ended while it was not listening, docs/bridge-protocol.md).
   - Results: when the background says a message's results are ready, content/delivery.js puts
     them into the input box.
   - Status: the popup asks which adapter runs here and, field by field, which selector found it
     (content/health.js). The same check runs by itself when an answer ends without a message the
     adapter could read, or a fill fails: the page panel then says what failed and offers "Point
     at it" (content/teach.js), which keeps a selector of the person's own for this site, tried
     before the built-in ones (kept by the background, per site).
   - Operator listening or not: the background says at once when it stops or starts; the panel
     says so, and on its return this page asks at once whether its answer must be sent again. */

(function () {
  "use strict";
  if (globalThis.__operatorBridgeContent) return; // injected again by the popup or the context menu
  globalThis.__operatorBridgeContent = true;

  const { adapterFor, withOverrides, GENERIC, FIELD_NAMES } = globalThis.OperatorAdapters;
  const Text = globalThis.OperatorText;
  const Panel = globalThis.OperatorPanel;
  const Health = globalThis.OperatorHealth;
  const Teach = globalThis.OperatorTeach;
  const Editor = globalThis.OperatorEditor;

  const builtIn = adapterFor(location.hostname);
  const isGeneric = builtIn === GENERIC;
  let adapter = withOverrides(builtIn, null); // with the person's own selectors, once the background says
  const SEND_EVERY_MS = 150; // at most this long between a change and the scan that sends it
  const SETTLE_MS = 300; // after the indicator goes: late re-renders of the last lines land first
  const QUIET_MS = 2500; // without a working indicator, this long without a change ends a message
  const PING_MS = 10000;
  const STUCK_MS = 60000;
  // An answer that shows up without the "still generating" sign is a reply being written when
  // the person sent a message from this page this shortly before (a fast or unstreamed reply);
  // otherwise the page drew it from its history (issue 26: such an answer ran unasked).
  const REPLY_WITHIN_MS = 10 * 60 * 1000;
  // Seen growing is being written only when it grows on: twice at least after it was first seen.
  // A page drawing an old answer from its history in two steps grows it once (issue 35: one drawn
  // in two steps 200 ms apart ran unasked).
  const GROWING_STEPS = 2;

  let active = false; // watching the page (always on a known chat site; once chosen elsewhere)
  let observer = null;
  let pingTimer = null;
  let watched = null; // the page message being followed
  let indicatorSeen = false; // the generating selector matched at least once on this page
  let changesWithoutIndicator = 0;
  let scanTimer = null;
  let scanDueAt = Infinity;
  let lastScanAt = -Infinity;
  let firstScan = false; // the next scan is the first since watching started
  let operatorState = null; // "connected", or why not, as the background last said
  let unreadCheckedAt = 0; // when the page last looked for an answer the adapter cannot read
  let restoreChecked = false; // results left in the input box by a reload were asked for
  const startedAt = Date.now();

  Panel.anchorTo(() => inputBox());

  // The person's own text on the page (content/person.js): never an answer, never a false alarm.
  const person = globalThis.OperatorPerson.create({
    adapter: () => adapter, inputBox: () => inputBox(), readInput: (element) => Editor.readInput(element),
    // Sent with Operator's results in it: they left the box now, whatever a reload does next.
    onSend: (text) => delivery.sentByPerson(text),
  });
  const notOwn = (element) => !person.isOwn(element);

  const delivery = globalThis.OperatorDelivery.create({
    adapter: () => adapter,
    inputBox: () => inputBox(),
    health: () => health(),
    teach: (field, options) => teach(field, options),
    // Idle (a selection's results on a page not watched), no answer of the page is followed.
    modelIsWriting: () => indicatorPresent() || (active && (!watched || !watched.done)),
    send: (message) => send(message),
    onDelivered: () => { if (!active) observeDeliveryOnly(); },
    used: (field, selector) => proveIfOnTrial(field, selector),
  });

  function send(message) {
    try {
      return chrome.runtime.sendMessage(message).catch(() => null);
    } catch (error) {
      return Promise.resolve(null); // the extension was reloaded under this page
    }
  }

  function conversationKey() {
    const path = location.pathname;
    if (adapter.conversation) {
      const match = new RegExp(adapter.conversation).exec(path);
      if (match) return location.host + path.slice(0, match.index + match[0].length);
    }
    // The host with its port: two apps on this computer are two sites, never one conversation.
    return location.host + path;
  }

  function tabInfo() {
    // The contract's `site`: the adapter's name, or the page's host for the generic fallback.
    return { title: document.title, url: location.href, site: isGeneric ? location.host : adapter.name };
  }

  function inputBox() {
    return Text.queryVisible(document, adapter.input).element;
  }

  /* The latest answer: {element, position, selector}; the person's own messages are never one. */
  function latestMessage() {
    if (isGeneric) {
      const element = Text.lastMarkedMessage(document.body, inputBox(), person.ownNode);
      return element ? { element, position: Text.positionAmongKind(element), selector: null } : null;
    }
    const { elements, selector } = Text.queryFirst(document, adapter.assistant, notOwn);
    if (!elements.length) return null;
    return { element: elements[elements.length - 1], position: elements.length - 1, selector };
  }

  /* Whether an answer first seen now, without the "still generating" sign, is a reply the model
     writes: the person sent a message from this page shortly before. */
  function repliesToPerson(now) {
    const sentAt = person.lastSentAt();
    return sentAt > startedAt && now - sentAt < REPLY_WITHIN_MS;
  }

  function indicatorPresent() {
    return Health.generatingSign(adapter, document) !== null;
  }

  function scheduleScan(delay) {
    const due = performance.now() + Math.max(0, delay);
    if (scanTimer !== null && scanDueAt <= due) return;
    clearTimeout(scanTimer);
    scanDueAt = due;
    scanTimer = setTimeout(scan, Math.max(0, delay));
  }

  function onMutation(records) {
    if (!active) {
      delivery.checkDeliveredStillThere();
      if (!delivery.hasDelivered() && observer) observer.disconnect();
      return;
    }
    for (const record of records) {
      const target = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
      if (target && target.closest && target.closest("#operator-bridge-ui")) continue;
      scheduleScan(Math.max(20, SEND_EVERY_MS - (performance.now() - lastScanAt)));
      return;
    }
  }

  function scan() {
    scanTimer = null;
    scanDueAt = Infinity;
    if (!active) return;
    lastScanAt = performance.now();
    const now = Date.now();
    const generatingNow = indicatorPresent();
    if (generatingNow) indicatorSeen = true;
    delivery.checkDeliveredStillThere();
    const found = latestMessage();
    const pageWasSeen = !firstScan;
    // A page seen with no answer on it: whatever answer shows up later is written while we watch,
    // however fast it comes (a short answer can finish between two scans).
    firstScan = false;
    if (!found) {
      noticeUnreadAnswer();
      return;
    }
    const text = Text.messageText(found.element, adapter);
    const key = conversationKey();
    if (isNewAnswer(found, text, key)) {
      watched = {
        conversation: key, position: found.position, text: null, changedAt: now, sent: null, done: false,
        // Heard being written only with the "still generating" sign, as the reply to what the
        // person just sent from this page, or once seen growing. An answer on the page already,
        // or one the page draws whole from its history a moment after it loads, or one found by
        // a selector just taught, was written before: it is sent once, finished, and Operator
        // asks before it runs it (issue 26: a history drawn after the load ran unasked).
        written: !generatingNow && !(pageWasSeen && repliesToPerson(now)),
        foundBy: found.selector, growths: 0,
      };
    }
    watched.foundBy = found.selector;
    if (text !== watched.text) noteNewText(text, generatingNow, now);
    if (generatingNow) watched.written = false;
    const quietFor = now - watched.changedAt;
    const settle = settlePeriod(found, generatingNow);
    const generating = generatingNow || quietFor < settle;
    sendText(generating ? completeLines(text) : text, generating);
    // Nothing on the page may change when an answer ends (no mutation to wake us): look again
    // when the settle or quiet period is over.
    if (generating) scheduleScan(generatingNow ? 1000 : settle - quietFor + 10);
  }

  /* Another answer than the one watched: another place on the page, or another conversation
     whose answer is not the watched one's text carried over (a page that changes its address
     when the first answer begins). */
  function isNewAnswer(found, text, key) {
    if (!watched || watched.position !== found.position) return true;
    if (key === watched.conversation) return false;
    return watched.done || !text.startsWith(watched.text.slice(0, 200));
  }

  function noteNewText(text, generatingNow, now) {
    const before = watched.text;
    if (before !== null && !generatingNow) changesWithoutIndicator += 1;
    // Seen growing on: being written (a page without a working "generating" sign streams it, or
    // its sign showed only once the answer had text). A history is drawn whole, or in a step or
    // two: never growing for long.
    if (before !== null && text.length > before.length && text.startsWith(before)) watched.growths += 1;
    if (watched.growths >= GROWING_STEPS) watched.written = false;
    if (before !== null && generatingNow) proveIfOnTrial("generating", Health.generatingSign(adapter, document).selector);
    watched.text = text;
    watched.changedAt = now;
  }

  /* How long an answer must stay unchanged to have ended. The answer's action buttons (copy,
     thumbs) are a second sign of its end; a page that shows its last tokens after its indicator
     went (waitForDone) ends an answer only at that sign. */
  function settlePeriod(found, generatingNow) {
    const finishedSign = !generatingNow && Health.doneSign(adapter, document, found.element) !== null;
    if (adapter.waitForDone && !finishedSign) return QUIET_MS;
    return indicatorSeen || finishedSign ? SETTLE_MS : QUIET_MS;
  }

  /* While the model writes, its last line is unfinished: it has no line end yet (Operator can do
     nothing with it) and it is what a page re-renders most (a half-typed closing fence shows as a
     stray backtick, half a link or **bold** as raw markdown). Sending only the finished lines keeps
     each text a continuation of the one before, so Operator feeds just the new part instead of
     taking the text for a rewrite. The last text, with generating false, is whole. */
  function completeLines(text) {
    return text.slice(0, text.lastIndexOf("\n") + 1);
  }

  function pagePayload() {
    return {
      conversation: watched.conversation, position: watched.position, text: watched.sent.text,
      generating: !watched.done, resent: watched.resent === true, tab: tabInfo(),
    };
  }

  function sendText(text, generating) {
    if (!Text.holdsMarker(text)) return;
    if (generating && watched.written) return; // written before: sent once its quiet period is over
    if (watched.sent && watched.sent.text === text && watched.sent.generating === generating) return;
    watched.sent = { text, generating };
    watched.done = !generating;
    if (generating) delivery.cancelAutoSend("the model is writing again");
    const following = watched;
    send({ type: "message", payload: pagePayload() }).then((reply) => {
      // Operator's number for it, the one its terminal shows (the popup names it so).
      if (reply && reply.reply && reply.reply.message && watched === following) watched.message = reply.reply.message;
      showConnectionProblem(reply);
    });
  }

  let shownProblemFor = null;
  function showConnectionProblem(reply) {
    if (!reply || !reply.problem || !watched) return;
    const id = watched.conversation + "|" + watched.position;
    if (shownProblemFor === id) return;
    shownProblemFor = id;
    Panel.show({ title: "Operator bridge: " + reply.problem.title, text: reply.problem.text, tone: "problem", state: "not-connected" });
  }

  /* ---- health: status for the popup, and the page's own check ---- */

  function health() {
    let watching = null;
    if (watched && !watched.done && indicatorPresent() && Date.now() - watched.changedAt > STUCK_MS) {
      watching = { stuck: "still matches, though the answer has not changed for " + STUCK_MS / 60000 + " minute; its results wait for it to go" };
    } else if (!isGeneric && adapter.generating.length && !indicatorSeen && changesWithoutIndicator >= 3) {
      watching = { unseen: "never matched while an answer was being written; Operator waits for " + QUIET_MS / 1000 + " s of quiet instead" };
    }
    return Health.check(adapter, document, {
      inputBox: inputBox(), isGeneric, sendProblem: delivery.sendProblem(), watching, ownNode: person.ownNode, notOwn,
    });
  }

  function status() {
    const fields = health();
    const problems = fields.filter((field) => field.state === "missing")
      .map((field) => ({ field: field.field, name: field.name, selectors: field.tried, note: field.note }));
    const messages = isGeneric ? (latestMessage() ? 1 : 0) : Text.queryFirst(document, adapter.assistant, notOwn).elements.length;
    return {
      site: builtIn.id, name: builtIn.name, generic: isGeneric, active, origin: location.origin, host: location.host,
      adapterOk: problems.length === 0, problems, fields, messages, teaching: Teach.pointing(), repaired: repairedLine(fields),
      unreadCheckedAt, restoreChecked, heldWritten: !!(watched && watched.written),
      watching: watched && {
        conversation: watched.conversation, position: watched.position, done: watched.done, length: (watched.text || "").length,
        sent: !!watched.sent, message: watched.message || null, state: watched.operatorState || null,
        waitingFor: watched.waitingFor || null,
      },
    };
  }

  /* The health line's word on a repair: which field a selector the person taught finds, and
     whether it is still on trial on this page (null when none of theirs is in use). */
  function repairedLine(fields) {
    const site = isGeneric ? location.host : builtIn.name;
    const own = fields.filter((field) => field.state === "found" && field.own);
    if (!own.length) return null;
    return own.map((field) => field.name + " found by your selector " + field.selector
      + (field.trial ? " (on trial on this page; used on every " + site + " page once it has proven itself)" : ", taught for " + site))
      .join("; ");
  }

  /* A selector on trial on this page just did its job (an answer it found ran in Operator,
     results went into the input box it found...): it becomes the site's own. */
  function proveIfOnTrial(field, selector) {
    const onTrial = adapter.onTrial && adapter.onTrial[field];
    if (!selector || !onTrial || !onTrial.includes(selector)) return;
    send({ type: "prove-selector", field, selector }).then((answer) => {
      if (answer && answer.ok) applySelectors(answer.selectors, answer.trials);
    });
  }

  /* The page shows a block's start, nothing has changed for the quiet period, and the adapter finds
     no answer: the answer ended without a message Operator could read. Said once per such state. */
  let unreadNoticedFor = null;
  let unreadCheckTimer = null;
  function noticeUnreadAnswer() {
    if (isGeneric) return;
    clearTimeout(unreadCheckTimer);
    unreadCheckTimer = setTimeout(() => {
      unreadCheckedAt = Date.now();
      // Never while the model writes (its answer may not be on the page yet), never for the
      // person's own message (a system prompt holds example blocks).
      if (!active || latestMessage() || indicatorPresent() || !Health.pageShowsMarker(document, person.ownNode)) return;
      const missing = health().find((field) => field.field === "assistant" && field.state === "missing");
      const signature = document.body.textContent.length;
      if (!missing || unreadNoticedFor === signature || Teach.pointing()) return;
      unreadNoticedFor = signature;
      showRepair(missing, "Operator cannot read this answer", "Point at the answer");
    }, QUIET_MS);
  }

  /* The panel: what failed, and the repair. */
  function showRepair(field, title, pointLabel, extraButtons = []) {
    Panel.show({
      title: "Operator: " + title.replace(/^Operator /, ""),
      text: "The page shows a block for Operator, but no selector for " + field.name + " finds the answer"
        + (field.tried.length ? " (tried " + field.tried.join("  |  ") + ")" : "") + ".\n"
        + "Point at it: your selector is used on this page, and on every " + (isGeneric ? location.host : builtIn.name)
        + " page once an answer it finds has run.",
      tone: "problem",
      state: "repair-" + field.field,
      buttons: [{ id: "point", label: pointLabel, primary: true, onClick: () => teach(field.field) }, ...extraButtons],
    });
  }

  /* "Point at it": the person clicks the element; its selector goes to the background for this
     site and is used from now on. Resolves to the selector, or null (cancelled, or none found). */
  async function teach(field, { then = null } = {}) {
    Panel.show({
      title: "Operator: point at the " + FIELD_NAMES[field],
      text: "Click it in the page (Esc cancels). Operator keeps a selector for it, tried before its own.",
      state: "teaching",
      closable: false,
      buttons: [{ id: "cancel-point", label: "Cancel", onClick: () => Teach.cancel() }],
    });
    const pointed = await Teach.point(field);
    if (!pointed) {
      Panel.hide();
      return null;
    }
    if (field === "assistant" && person.holdsOwn(pointed.element)) {
      // The person's own message (or a part of the page holding it) is never kept as an answer.
      Panel.show({
        title: "Operator: that is your own message", tone: "problem", state: "teach-own",
        text: "Operator never reads your messages as answers (a prompt holds example blocks). Point at the model's answer.",
        buttons: [{ id: "point", label: "Point again", primary: true, onClick: () => teach(field, { then }) }],
      });
      return null;
    }
    const derived = Teach.derive(field, pointed.element, inputBox(), field === "assistant" ? (element) => person.holdsOwn(element) : null);
    if (!derived) {
      Panel.show({
        title: "Operator: no stable selector for that element", tone: "problem", state: "teach-failed",
        text: "Nothing about it (id, data- or aria- attributes, classes) finds it again. Try pointing at the element around it.",
        buttons: [{ id: "point", label: "Point again", primary: true, onClick: () => teach(field, { then }) }],
      });
      return null;
    }
    const answer = await send({ type: "teach-selector", field, selector: derived.selector });
    if (!answer || !answer.ok) {
      Panel.show({ title: "Operator: the selector was not kept", tone: "problem", state: "teach-failed", text: (answer && answer.refused) || "the extension did not answer" });
      return null;
    }
    applySelectors(answer.selectors, answer.trials);
    Panel.show({
      title: "Operator: " + FIELD_NAMES[field] + " taught",
      text: "Found by " + derived.selector + " on this page. Once it has proven itself here"
        + (field === "assistant" ? " (an answer it finds has run)" : "") + ", on every " + (isGeneric ? location.host : builtIn.name)
        + " page too. The popup lists it, to remove it.",
      state: "taught", tone: "done", hideAfterMs: 6000,
    });
    if (field === "assistant") {
      // What the new selector finds was not heard being written: sent once, finished, and
      // Operator asks before it runs it (issue 26: it ran at once).
      watched = null;
      firstScan = true;
    }
    scheduleScan(0);
    if (typeof then === "function") then();
    return derived.selector;
  }

  function applySelectors(overrides, trials = null) {
    adapter = withOverrides(builtIn, overrides || null, trials || null);
  }

  function problemLine(report) {
    if (report.adapterOk) return null;
    return report.problems.map((problem) => problem.name + ": " + problem.note
      + (problem.selectors.length ? " (tried: " + problem.selectors.join(" | ") + ")" : "")).join("; ");
  }

  function ping() {
    if (!active) return;
    const report = status();
    const last = watched && watched.sent
      ? { conversation: watched.conversation, position: watched.position, length: watched.sent.text.length, done: watched.done }
      : null;
    const tab = { ...tabInfo(), adapter_ok: report.adapterOk, problem: problemLine(report), repaired: report.repaired };
    send({ type: "ping", tab, last }).then((reply) => {
      if (reply && reply.connection && operatorState === null) operatorState = reply.connection;
      // The background has no word of this page message (its worker was restarted, or Operator
      // was and forgot it): tell it again. A finished one whose results went back is not sent.
      // Told again, and so are its later texts: Operator did not hear it from its start, so one
      // it does not know waits for the person even while the model still writes.
      if (reply && reply.resend && watched && watched.sent) {
        watched.resent = true;
        send({ type: "message", payload: pagePayload() });
      }
    });
  }

  chrome.runtime.onMessage.addListener((message, sender, reply) => {
    if (message.type === "status") reply(status());
    else if (message.type === "teach" && FIELD_NAMES[message.field]) {
      teach(message.field);
      reply({ pointing: true });
    }
    else if (message.type === "selectors") {
      const before = adapter.assistant.join("\n");
      applySelectors(message.selectors, message.trials);
      if (active && adapter.assistant.join("\n") !== before) {
        // Taught or proven elsewhere: what the new selectors find here was not heard being
        // written (sent once, finished), and nothing on the page may change to wake a scan.
        watched = null;
        firstScan = true;
        scheduleScan(0);
      }
      reply({ ok: true });
    }
    else if (message.type === "watch") {
      if (!message.on) {
        stop();
        reply({ watching: false, origin: location.origin });
        return false;
      }
      askToWatch().then(() => reply({ watching: active, origin: location.origin }));
      return true;
    }
    else if (message.type === "results") {
      Promise.resolve(delivery.onResults(message.results)).then(reply);
      return true; // the answer comes once the input box has taken the text (or not)
    }
    else if (message.type === "openers") {
      // Operator named what its blocks begin with (again, or for the first time): look again.
      Text.setOpeners(message.openers);
      if (active) scheduleScan(0);
      reply({ ok: true });
    }
    else if (message.type === "progress") showProgress(message);
    else if (message.type === "connection") showConnection(message);
    else if (message.type === "ping") reply({ alive: true });
    return false;
  });

  /* Operator stopped or started listening (the background's word, at once). Said on a watched
     page that knew it listening; when it is back, "not listening" goes and the page's answer is
     sent again at once if Operator has no word of it. */
  function showConnection(message) {
    const was = operatorState;
    operatorState = message.state;
    if (!active || message.state === was) return;
    if (message.state !== "connected") {
      if (was === "connected" && message.problem) {
        Panel.show({ title: "Operator bridge: " + message.problem.title, text: message.problem.text, tone: "problem", state: "not-connected" });
      }
      return;
    }
    if (Panel.currentState() === "not-connected") {
      Panel.show({ title: "Operator bridge: listening again", tone: "done", state: "connected", hideAfterMs: 4000 });
    }
    ping();
  }

  function showProgress(message) {
    if (watched && watched.conversation === message.conversation && watched.position === message.position) {
      if (message.message) watched.message = message.message;
      watched.operatorState = message.state;
      watched.waitingFor = message.waiting_for || null;
      // An answer found by a selector on trial ran in Operator: the selector has proven itself.
      if (message.state === "ready" && message.message) proveIfOnTrial("assistant", watched.foundBy);
    }
    if (message.state === "failed") {
      Panel.show({
        title: "Operator could not run this answer",
        text: (message.problem || "Operator gave no reason") + ".",
        tone: "problem",
        state: "failed",
      });
    } else if (message.state === "waiting" && message.waiting_for) {
      Panel.show({
        title: "Operator: waiting for your answer in the terminal",
        text: message.waiting_for,
        state: "waiting",
      });
    } else if (message.state === "held") {
      Panel.show({
        title: "Operator: this answer ended while Operator was not listening",
        text: "It runs only when you say so in Operator's terminal.",
        state: "held",
      });
    } else if (Panel.currentState() === "waiting" || Panel.currentState() === "held") {
      Panel.hide();
    }
  }

  /* ---- watching, or not ---- */

  function observe() {
    if (!observer) observer = new MutationObserver(onMutation);
    observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
  }

  function start() {
    if (active) return;
    active = true;
    firstScan = true;
    observe();
    pingTimer = setInterval(ping, PING_MS);
    ping();
    scheduleScan(0);
    restoreResults();
  }

  function stop() {
    if (!active) return;
    active = false;
    if (observer && !delivery.hasDelivered()) observer.disconnect();
    clearInterval(pingTimer);
    clearTimeout(scanTimer);
    scanTimer = null;
    scanDueAt = Infinity;
    watched = null;
    delivery.cancelAutoSend("you stopped watching this page");
    Panel.hide();
  }

  /* Results put into the box of a page that is not watched: notice them leave it (sent or
     cleared) so that the icon's badge goes, and read nothing else. */
  function observeDeliveryOnly() {
    observe();
  }

  async function askToWatch() {
    const answer = await send({ type: "may-watch" });
    if (answer && answer.watch) {
      await loadSelectors();
      await loadOpeners();
      start();
    }
  }

  /* What Operator's blocks begin with on a page, as Operator last said (content/text.js). */
  async function loadOpeners() {
    const answer = await send({ type: "openers" });
    if (answer && answer.openers) Text.setOpeners(answer.openers);
  }

  async function loadSelectors() {
    const answer = await send({ type: "selectors" });
    if (answer && answer.selectors) applySelectors(answer.selectors, answer.trials);
  }

  /* Results that were in the input box when the page reloaded (the reload dropped the draft):
     put back (issue 26: they vanished, unsaid). */
  async function restoreResults() {
    const answer = await send({ type: "restore-results", conversation: conversationKey() });
    for (const results of (answer && answer.results) || []) await delivery.restore(results);
    restoreChecked = true;
  }

  document.addEventListener("visibilitychange", () => { if (!document.hidden) ping(); });
  // A textarea's text is no DOM mutation: results sent, cleared or edited there are noticed here.
  document.addEventListener("input", () => delivery.checkDeliveredStillThere(), true);
  // The openers first: an idle page still tells the popup whether it holds a block for Operator.
  if (isGeneric) loadOpeners().then(askToWatch);
  else loadSelectors().then(loadOpeners).then(start);
})();
