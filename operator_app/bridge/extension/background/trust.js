/* Who may ask the background for what. The browser fills in each message's sender (its tab, URL and
   origin); the background decides from that, never from what a message says about itself.

   - The extension's own pages (the popup, also when opened in a tab) may pair, change settings,
     and choose or drop the pages to watch. A content script may not, even one in a page whose
     renderer is compromised.
   - Content scripts may report answers only from pages Operator may watch: the chat sites the
     adapters know, and the origins the person chose in the popup ("Watch this page"). The generic
     fallback never watches a page on its own: a page on this computer (a cloned repository's
     docs, a notebook, a dev server) may hold hidden OPERATOR_CMD blocks and read back, with its
     own script, whatever lands in its text boxes. */

(function (root) {
  "use strict";

  const { adapterFor, GENERIC } = root.OperatorAdapters;
  const Store = root.OperatorStore;
  const EXTENSION_BASE = chrome.runtime.getURL("");
  const CHOICE_TTL_MS = 15000;

  const pendingChoices = new Map(); // tab id -> until when the popup's "Watch this page" holds

  function fromExtensionPage(sender) {
    if (!sender || sender.id !== chrome.runtime.id) return false;
    if (typeof sender.url !== "string" || !sender.url.startsWith(EXTENSION_BASE)) return false;
    // Chromium says the origin too; it must be the extension's (never a web page's).
    return !sender.origin || EXTENSION_BASE.startsWith(sender.origin + "/");
  }

  function fromContentScript(sender) {
    return !!sender && sender.id === chrome.runtime.id && !!sender.tab && !fromExtensionPage(sender);
  }

  /* A page's origin ("http://127.0.0.1:8080"): the port is part of it, so two local apps on two
     ports are two choices. */
  function originOf(sender) {
    if (sender.origin && sender.origin !== "null") return sender.origin;
    try {
      return new URL(sender.url).origin;
    } catch (error) {
      return null;
    }
  }

  function knownSite(sender) {
    try {
      return adapterFor(new URL(sender.url).hostname) !== GENERIC;
    } catch (error) {
      return false;
    }
  }

  async function chosenOrigins() {
    const { watchedOrigins = {} } = await Store.get(["watchedOrigins"]);
    return watchedOrigins;
  }

  async function mayWatch(sender) {
    if (!fromContentScript(sender)) return false;
    if (knownSite(sender)) return true;
    const origin = originOf(sender);
    return origin !== null && Object.hasOwn(await chosenOrigins(), origin);
  }

  /* The popup's "Watch this page" for a tab: the next time that tab's content script asks (at
     once), its origin, as the browser reports it, is remembered. */
  function expectChoice(tabId) {
    pendingChoices.set(tabId, Date.now() + CHOICE_TTL_MS);
  }

  async function takeChoice(sender) {
    const until = pendingChoices.get(sender.tab.id);
    if (until === undefined) return false;
    pendingChoices.delete(sender.tab.id);
    const origin = originOf(sender);
    if (Date.now() > until || origin === null || !/^https?:/.test(origin) || knownSite(sender)) return false;
    const watchedOrigins = await chosenOrigins();
    watchedOrigins[origin] = Date.now();
    await Store.set({ watchedOrigins });
    return true;
  }

  async function dropOrigin(origin) {
    const watchedOrigins = await chosenOrigins();
    if (!Object.hasOwn(watchedOrigins, origin)) return false;
    delete watchedOrigins[origin];
    await Store.set({ watchedOrigins });
    return true;
  }

  root.OperatorTrust = Object.freeze({
    fromExtensionPage, fromContentScript, originOf, knownSite, chosenOrigins, mayWatch, expectChoice, takeChoice, dropOrigin,
  });
})(globalThis);
