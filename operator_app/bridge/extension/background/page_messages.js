/* Page messages to Operator, and their results back to the page (docs/bridge-protocol.md).

   - A page message's texts are posted in order, one request at a time, keeping only the newest
     text while one is on its way.
   - From the first text Operator accepts, one long poll per page message asks whether its results
     are in, whatever that first reply's `message` says: it is null until Operator's engine has
     opened the message, a moment later on its own thread. The results go to the tab that showed
     the message, or to another tab showing the same conversation.
   - A page message Operator refused because no workspace is open waits for one: it is posted
     again once the heartbeat's reply names a workspace (`workspaceOpen`), not at every heartbeat.
   - A page message is *settled* once its results were handed to a tab (or were already in one),
     or Operator could not run it: the content script's heartbeat does not post it again. One the
     background does not know (its worker was restarted, or the long poll ended without an answer
     because Operator went away) the heartbeat posts again, so an answer is never lost between
     them. Settled page messages are kept in the background's store, so a restarted worker knows
     them too.
   - Results a tab took into its input box and did not send are remembered (`inBox`) until they
     leave the box: a reload that drops the page's draft gets them back (`inBoxOf`).
   - A page message whose text did not reach Operator (the bridge was off, the browser could not
     reach it) is marked `resent` from then on: Operator did not hear it from its start, so it
     asks before it runs one it does not know (issue 26: such an answer ran unasked after a
     reconnect). */

(function (root) {
  "use strict";

  const Store = root.OperatorStore;
  const POLL_WAIT_S = 20;
  const SETTLED_KEPT = 300;
  const IN_BOX_KEPT = 20;

  function pageKey(conversation, position) {
    return conversation + "|" + position;
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /* call(method, path, body, options) -> outcome; tellTab(tabId, message) -> answer or null;
     chatTabs: the tabs that reported; problemForPage(outcome) -> what the page should say. */
  function create({ call, tellTab, chatTabs, problemForPage, settings }) {
    const postQueues = new Map(); // page key -> {latest payload, tabId, running, lastReply}
    const watchers = new Map(); // page key -> {tabId, conversation, position}
    const lastPosted = new Map(); // page key -> {length, done} of the last text Operator accepted
    const waitingForWorkspace = new Map(); // page key -> {tabId, payload} refused for want of a workspace
    const missed = new Set(); // page keys a text of which did not reach Operator

    async function post(tabId, payload) {
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
          if (missed.has(key)) body.resent = true;
          const outcome = await call("POST", "message", body, { timeoutMs: 15000 });
          queue.lastReply = outcome;
          if (!outcome.ok && outcome.error.code !== "BRIDGE_BAD_REQUEST") missed.add(key);
          if (!outcome.ok && outcome.error.code === "BRIDGE_NO_WORKSPACE") waitingForWorkspace.set(key, { tabId, payload: body });
          if (outcome.ok) {
            waitingForWorkspace.delete(key);
            lastPosted.set(key, { length: body.text.length, done: !body.generating });
            await unsettle(key);
            watch(key, body.conversation, body.position, tabId);
          }
        }
      } finally {
        queue.running = false;
        postQueues.delete(key);
      }
      return { reply: queue.lastReply && queue.lastReply.data, problem: await problemForPage(queue.lastReply) };
    }

    async function watch(key, conversation, position, tabId) {
      const existing = watchers.get(key);
      if (existing) {
        existing.tabId = tabId;
        if (existing.dropped) Object.assign(existing, { dropped: false, lastProgress: null }); // watched again: tell it afresh
        return;
      }
      const watcher = { tabId, conversation, position, dropped: false, lastProgress: null };
      watchers.set(key, watcher);
      const query = "results?conversation=" + encodeURIComponent(conversation) + "&position=" + position + "&wait=";
      let failures = 0;
      let lastState = "streaming";
      try {
        while (failures < 40) {
          // The long poll returns early only for "ready": while the model writes, ask every
          // second, so the page learns at once when a write starts waiting for the terminal.
          const wait = lastState === "streaming" ? 1 : POLL_WAIT_S;
          const outcome = await call("GET", query + wait, null, { timeoutMs: (wait + 10) * 1000 });
          if (watcher.dropped) return;
          if (!outcome.ok) {
            if (outcome.error.code !== "UNREACHABLE" && outcome.error.code !== "TIMEOUT") return;
            failures += 1;
            await sleep(3000);
            continue;
          }
          failures = 0;
          const state = outcome.data;
          lastState = state.state;
          tellProgress(watcher, state);
          if (await ended(key, watcher, state)) return;
        }
      } finally {
        watchers.delete(key);
      }
    }

    /* The page hears each change of state (a write that starts or stops waiting, the results
       ready), once. */
    function tellProgress(watcher, state) {
      const progress = state.state + "|" + (state.waiting_for || "") + "|" + state.message;
      if (progress === watcher.lastProgress) return;
      watcher.lastProgress = progress;
      tellTab(watcher.tabId, {
        type: "progress", conversation: watcher.conversation, position: watcher.position, message: state.message,
        state: state.state, waiting_for: state.waiting_for || null, problem: state.problem || null,
      });
    }

    /* Whether watching is over: the results delivered (or failed), or Operator does not know
       the message (it restarted: the page will post it again). */
    async function ended(key, watcher, state) {
      if (state.state === "ready" && !state.delivered) await deliver(watcher, state);
      if (state.state === "ready" || state.state === "failed") {
        await settle(key);
        return true;
      }
      return state.state === "none";
    }

    async function deliver(watcher, state) {
      const stored = await settings();
      const results = {
        conversation: watcher.conversation, position: watcher.position, message: state.message,
        count: state.count, copy_text: state.copy_text,
        autoSend: { enabled: stored.autoSend === true, delayMs: stored.autoSendDelayMs },
      };
      // The tab that showed the message first; if it is gone, another one showing the
      // conversation (its key is the page's host, port included, and path).
      const showsConversation = (tab) => {
        try {
          const url = new URL(tab.url);
          return (url.host + url.pathname).startsWith(watcher.conversation);
        } catch (error) {
          return false;
        }
      };
      const candidates = [watcher.tabId, ...[...chatTabs.values()]
        .filter((tab) => tab.id !== watcher.tabId && showsConversation(tab))
        .map((tab) => tab.id)];
      for (const tabId of candidates) {
        await remember("handed", pageKey(watcher.conversation, watcher.position), tabId);
        offered.set(pageKey(watcher.conversation, watcher.position), results);
        const answer = await tellTab(tabId, { type: "results", results });
        if (answer) return answer;
      }
      return null;
    }

    const offered = new Map(); // page key -> the results last handed to a tab

    /* The tab says the results are in its input box (`sent` false) or went to the chat. */
    async function landedIn(tabId, key, sent) {
      const { inBox = {} } = await Store.get(["inBox"]);
      const results = offered.get(key) || (inBox[key] && inBox[key].results);
      delete inBox[key];
      if (!sent && results) {
        inBox[key] = { tabId, results };
        const keys = Object.keys(inBox);
        for (const old of keys.slice(0, Math.max(0, keys.length - IN_BOX_KEPT))) delete inBox[old];
      }
      await Store.set({ inBox });
    }

    /* The results left the input box of `tabId` (sent, or cleared by the person). */
    async function goneFrom(tabId, key) {
      const { inBox = {} } = await Store.get(["inBox"]);
      for (const [kept, entry] of Object.entries(inBox)) {
        if (entry.tabId === tabId && (key === null || kept === key)) delete inBox[kept];
      }
      await Store.set({ inBox });
    }

    /* The results that were in the input box of `tabId` showing `conversation` and were not sent. */
    async function inBoxOf(tabId, conversation) {
      const { inBox = {} } = await Store.get(["inBox"]);
      return Object.values(inBox)
        .filter((entry) => entry.tabId === tabId && typeof conversation === "string" && conversation.startsWith(entry.results.conversation))
        .map((entry) => entry.results);
    }

    /* The person stopped watching the page in `tabId` (its origin, in the popup): what Operator
       already has of its answers stays there, but the page hears no more of them, neither their
       progress nor their results (the TUI still shows them). Watched again, the page posts its
       answer again and is told afresh. A selection's results still come: the person sent that
       text themselves, watched or not. */
    function dropTab(tabId) {
      for (const watcher of watchers.values()) {
        if (watcher.tabId === tabId && !watcher.conversation.startsWith("selection/")) watcher.dropped = true;
      }
    }

    /* The tab the results of a page message were handed to: the only one that may say they
       landed, or ask to auto-send them. */
    async function wasHandedTo({ conversation, position }, tabId) {
      const { handed = {} } = await Store.get(["handed"]);
      return handed[pageKey(conversation, position)] === tabId;
    }

    /* Records of page messages kept in the store, the newest SETTLED_KEPT of each kind. */
    async function remember(kind, key, value) {
      const records = (await Store.get([kind]))[kind] || {};
      delete records[key]; // re-inserted last: the oldest are the first to go
      records[key] = value;
      const keys = Object.keys(records);
      for (const old of keys.slice(0, Math.max(0, keys.length - SETTLED_KEPT))) delete records[old];
      await Store.set({ [kind]: records });
    }

    async function settledPages() {
      const { settled = {} } = await Store.get(["settled"]);
      return settled;
    }

    async function settle(key) {
      missed.delete(key);
      const posted = lastPosted.get(key);
      if (!posted) return;
      lastPosted.delete(key);
      await remember("settled", key, posted);
    }

    async function unsettle(key) {
      const settled = await settledPages();
      if (!Object.hasOwn(settled, key)) return;
      delete settled[key];
      await Store.set({ settled });
    }

    /* The content script's heartbeat names the page message it follows (`last`: its key, the
       length of the text it sent, whether that text was the finished one). Post it again only
       when the background has no word of it: not on its way, not watched, not settled as it is. */
    async function needsResend(last) {
      const key = pageKey(last.conversation, last.position);
      if (watchers.has(key) || postQueues.has(key) || waitingForWorkspace.has(key)) return false;
      const settled = (await settledPages())[key];
      return !(settled && settled.length === last.length && settled.done === last.done);
    }

    /* Operator stopped answering (the bridge went off, Operator quit, the pairing went): every
       answer being written meanwhile is one Operator does not hear whole, whether or not a text
       of it failed to reach it before it came back. */
    function connectionLost() {
      for (const [key, posted] of lastPosted) if (!posted.done) missed.add(key);
      for (const key of postQueues.keys()) missed.add(key);
    }

    /* Operator says a workspace is open (again): the page messages it refused go now. */
    function workspaceOpen() {
      const waiting = [...waitingForWorkspace.values()];
      waitingForWorkspace.clear();
      for (const { tabId, payload } of waiting) post(tabId, payload);
    }

    return Object.freeze({
      post, needsResend, wasHandedTo, workspaceOpen, connectionLost, dropTab, landedIn, goneFrom, inBoxOf, watchers,
      waitingForWorkspace, missed, pageKey,
    });
  }

  root.OperatorPageMessages = Object.freeze({ create, pageKey });
})(globalThis);
