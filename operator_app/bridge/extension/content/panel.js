/* The small panel Operator shows on the chat page: "Operator: N results ready", the question before
   results are mixed with the person's own text, the auto-send countdown, and problems.

   It keeps out of the way of the chat: compact, it sits just above the chat's input box, at its
   right end, where chat pages leave room for the composer (not at the top right, where the
   person's own messages and the code blocks' "Copy" buttons are). It follows the input box as
   that grows, can always be closed, and news that needs nothing from the person (results ready,
   sent) hides itself after a few seconds: the icon's badge still counts the results. It never
   takes the focus from the input box.

   The page must not be able to turn it against the person (issue 35: it restyled the panel,
   through its open shadow root, over the page's own button). So it lives in a closed shadow root
   of a host element of its own (never one the page made), which the page's script cannot reach
   into; the host's own style is `all: initial !important`, put back whenever the page changes
   it, and the host is put back when removed. And a button acts only on a click that the person
   made (isTrusted) on the panel as it is drawn: shown where it stands for half a second at least
   (not moved under the pointer), not faded, filtered or transformed (the host and the page's
   root element, which could carry those to it), nothing over the button at the point clicked,
   and, where the browser tells (Chromium's IntersectionObserver v2), seen whole by the person.
   A click that fails that does nothing. */

(function (root) {
  "use strict";

  const HOST_ID = "operator-bridge-ui";
  const STILL_MS = 500; // shown unmoved this long before a click on it counts
  const HOST_STYLE = "all: initial !important; display: block !important;";
  const GAP_PX = 22; // between the panel and the input box (clear of the composer around it)
  const MARGIN_PX = 12; // from the window's edges
  const STYLE = `
    :host { all: initial; }
    .panel { position: fixed; right: ${MARGIN_PX}px; bottom: ${MARGIN_PX}px; z-index: 2147483647;
      box-sizing: border-box; max-width: min(340px, calc(100vw - ${2 * MARGIN_PX}px));
      font: 12px/1.35 system-ui, sans-serif; color: #1d1d1f; background: #fffbe6;
      border: 1px solid #d4b106; border-radius: 8px; padding: 6px 26px 6px 10px;
      box-shadow: 0 2px 10px rgba(0,0,0,.16); }
    .panel.problem { background: #fff1f0; border-color: #cf1322; }
    .panel.done { background: #f6ffed; border-color: #389e0d; }
    .title { font-weight: 600; font-size: 12.5px; }
    .text { margin-top: 1px; white-space: pre-wrap; color: #434343; }
    .buttons { margin-top: 6px; display: flex; gap: 6px; flex-wrap: wrap; }
    button { font: inherit; padding: 2px 9px; border-radius: 5px; border: 1px solid #8c8c8c;
      background: #fff; cursor: pointer; }
    button.primary { background: #1d39c4; border-color: #1d39c4; color: #fff; }
    .close { position: absolute; top: 3px; right: 4px; border: 0; background: none; padding: 0 4px;
      font-size: 14px; line-height: 1; color: #595959; }
  `;

  let host = null;
  let shadow = null;
  let panel = null;
  let anchor = () => null;
  let anchorWatch = null;
  let anchored = null;
  let hideTimer = null;
  let hideAfter = 0;
  let hostWatch = null; // puts the host's style back, and the host itself
  let state = "";
  let drawn = { rect: null, since: 0 }; // where the panel was last seen, and since when
  let seenWhole = null; // IntersectionObserver v2's word (Chromium); null where it has none
  let visibility = null;
  let tracking = null; // looks where the panel stands, while it shows

  /* Our own host, with a closed shadow root: never an element the page made (an element it named
     "operator-bridge-ui" could carry a shadow root of its own). */
  function ensureHost() {
    if (host && host.isConnected) return;
    if (!host) {
      host = document.createElement("div");
      shadow = host.attachShadow({ mode: "closed" });
    }
    host.id = HOST_ID;
    host.setAttribute("style", HOST_STYLE);
    host.dataset.state = state;
    document.documentElement.appendChild(host);
    watchHost();
  }

  /* The page changing the host's style or class, removing it, or putting something after it (which
     would be drawn over it): put back at once. */
  function watchHost() {
    if (hostWatch) return;
    hostWatch = new MutationObserver(() => {
      if (!host || !panel) return;
      if (host.getAttribute("style") !== HOST_STYLE) host.setAttribute("style", HOST_STYLE);
      if (host.hasAttribute("class")) host.removeAttribute("class");
      if (host.dataset.state !== state) host.dataset.state = state;
      if (document.documentElement.lastElementChild !== host) document.documentElement.appendChild(host);
    });
    hostWatch.observe(host, { attributes: true });
    hostWatch.observe(document.documentElement, { childList: true });
  }

  /* ---- a click counts only on the panel as it is drawn ---- */

  function sameRect(a, b) {
    return !!a && !!b && a.left === b.left && a.top === b.top && a.width === b.width && a.height === b.height;
  }

  /* Whether the panel stands where it stood half a second ago and more (it moved: the clock starts
     again). */
  function stillFor(ms) {
    const rect = panel.getBoundingClientRect();
    if (!sameRect(rect, drawn.rect)) drawn = { rect, since: performance.now() };
    return performance.now() - drawn.since >= ms;
  }

  /* Nothing the page styles fades, filters, clips or moves it: the host and the root element. */
  function drawnAsIs() {
    for (const element of [host, document.documentElement]) {
      const style = getComputedStyle(element);
      if (Number(style.opacity) < 1 || style.filter !== "none" || style.transform !== "none") return false;
      if (style.visibility !== "visible" || style.clipPath !== "none" || style.mixBlendMode !== "normal") return false;
    }
    return true;
  }

  /* The person's own click, on the button where the panel shows it. A keyboard's click (Enter on a
     focused button, detail 0) has no point to check. */
  function personsClick(event, button) {
    if (!event.isTrusted || !panel || !stillFor(STILL_MS) || !drawnAsIs() || seenWhole === false) return false;
    if (event.detail === 0) return true;
    const hit = shadow.elementFromPoint(event.clientX, event.clientY);
    return !!hit && button.contains(hit);
  }

  function watchVisibility() {
    if (visibility) visibility.disconnect();
    visibility = null;
    seenWhole = null;
    if (typeof IntersectionObserverEntry === "undefined" || !("isVisible" in IntersectionObserverEntry.prototype)) return;
    visibility = new IntersectionObserver((entries) => {
      for (const entry of entries) seenWhole = entry.isVisible;
    }, { trackVisibility: true, delay: 100 });
    visibility.observe(panel);
  }

  /* The element the panel keeps above (the chat's input box), asked for each time it is placed. */
  function anchorTo(find) {
    anchor = find;
  }

  function place() {
    if (!panel) return;
    const input = anchor();
    const box = input && input.isConnected ? input.getBoundingClientRect() : null;
    // An input box that is not on screen, or so high that the panel would not fit above it,
    // gives no place: the window's bottom right corner then.
    if (box && box.width > 0 && box.top > 120 && box.top <= window.innerHeight) {
      panel.style.right = Math.max(MARGIN_PX, window.innerWidth - box.right) + "px";
      panel.style.bottom = Math.max(MARGIN_PX, window.innerHeight - box.top + GAP_PX) + "px";
    } else {
      panel.style.right = MARGIN_PX + "px";
      panel.style.bottom = MARGIN_PX + "px";
    }
    // The input box grows as results go in: stay above it.
    if (input !== anchored && typeof ResizeObserver === "function") {
      if (anchorWatch) anchorWatch.disconnect();
      anchored = input;
      anchorWatch = null;
      if (input) {
        anchorWatch = new ResizeObserver(() => place());
        anchorWatch.observe(input);
      }
    }
  }

  function scheduleHide(ms) {
    clearTimeout(hideTimer);
    hideTimer = ms > 0 ? setTimeout(hide, ms) : null;
  }

  /* Show one message; `buttons` are [{label, id, primary, onClick}]; `hideAfterMs` hides news that
     asks nothing of the person (paused while the pointer is on the panel). The panel's state is
     also kept in data attributes, so a test (or a curious person) can read it without parsing
     text. */
  function show({ title, text = "", tone = "info", state: shownState = "", buttons = [], closable = true, hideAfterMs = 0 }) {
    ensureHost();
    shadow.replaceChildren();
    const style = document.createElement("style");
    style.textContent = STYLE;
    panel = document.createElement("div");
    panel.className = "panel " + tone;
    panel.setAttribute("role", "status");
    setState(shownState);
    const titleLine = document.createElement("div");
    titleLine.className = "title";
    titleLine.textContent = title;
    panel.appendChild(titleLine);
    if (text) {
      const body = document.createElement("div");
      body.className = "text";
      body.textContent = text;
      panel.appendChild(body);
    }
    if (buttons.length) {
      const row = document.createElement("div");
      row.className = "buttons";
      for (const spec of buttons) {
        const button = document.createElement("button");
        button.textContent = spec.label;
        button.dataset.action = spec.id;
        if (spec.primary) button.className = "primary";
        // mousedown would move the focus out of the chat's editor; keep it where it is.
        button.addEventListener("mousedown", (event) => event.preventDefault());
        // Only the person's own click on the panel as drawn (issue 26: a page's script clicked
        // "Point at it"; issue 35: the page faded the panel over its own button).
        button.addEventListener("click", (event) => { if (personsClick(event, button)) spec.onClick(); });
        row.appendChild(button);
      }
      panel.appendChild(row);
    }
    if (closable) {
      const close = document.createElement("button");
      close.className = "close";
      close.textContent = "\u00d7";
      close.title = "Hide";
      close.setAttribute("aria-label", "Hide");
      close.dataset.action = "hide";
      close.addEventListener("mousedown", (event) => event.preventDefault());
      close.addEventListener("click", (event) => { if (personsClick(event, close)) hide(); });
      panel.appendChild(close);
    }
    hideAfter = hideAfterMs;
    panel.addEventListener("mouseenter", () => scheduleHide(0));
    panel.addEventListener("mouseleave", () => scheduleHide(hideAfter ? 2000 : 0));
    shadow.append(style, panel);
    drawn = { rect: null, since: 0 };
    place();
    stillFor(0); // the clock starts where it is drawn now, and again whenever it moves
    clearInterval(tracking);
    tracking = setInterval(() => { if (panel) stillFor(0); }, 100);
    watchVisibility();
    scheduleHide(hideAfterMs);
  }

  function setState(value) {
    state = value;
    if (host) host.dataset.state = value;
  }

  /* Change the shown message's text in place (a countdown), its buttons and state kept. */
  function setText(text) {
    const body = panel && panel.querySelector(".text");
    if (body) body.textContent = text;
  }

  function hide() {
    clearTimeout(hideTimer);
    hideTimer = null;
    if (anchorWatch) anchorWatch.disconnect();
    anchorWatch = null;
    anchored = null;
    if (visibility) visibility.disconnect();
    visibility = null;
    clearInterval(tracking);
    tracking = null;
    panel = null;
    state = "";
    if (hostWatch) hostWatch.disconnect();
    hostWatch = null;
    if (host) host.remove();
  }

  function currentState() {
    return host && host.isConnected ? state : "";
  }

  window.addEventListener("resize", place);

  root.OperatorPanel = Object.freeze({ show, hide, setText, currentState, anchorTo });
})(globalThis);
