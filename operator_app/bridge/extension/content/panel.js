/* The small panel Operator shows on the chat page: "Operator: N results ready", the question before
   results are mixed with the person's own text, the auto-send countdown, and problems.

   It keeps out of the way of the chat: compact, it sits just above the chat's input box, at its
   right end, where chat pages leave room for the composer (not at the top right, where the
   person's own messages and the code blocks' "Copy" buttons are). It follows the input box as
   that grows, can always be closed, and news that needs nothing from the person (results ready,
   sent) hides itself after a few seconds: the icon's badge still counts the results. It lives in
   a shadow root so the site's styles cannot reach it, and it never takes the focus from the
   input box. Its buttons act only on the person's own clicks (isTrusted): a page's script can
   reach into the shadow root, but cannot click for the person. */

(function (root) {
  "use strict";

  const HOST_ID = "operator-bridge-ui";
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

  function ensureHost() {
    if (host && host.isConnected) return;
    host = document.getElementById(HOST_ID) || document.createElement("div");
    host.id = HOST_ID;
    shadow = host.shadowRoot || host.attachShadow({ mode: "open" });
    document.documentElement.appendChild(host);
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
  function show({ title, text = "", tone = "info", state = "", buttons = [], closable = true, hideAfterMs = 0 }) {
    ensureHost();
    shadow.replaceChildren();
    const style = document.createElement("style");
    style.textContent = STYLE;
    panel = document.createElement("div");
    panel.className = "panel " + tone;
    panel.setAttribute("role", "status");
    host.dataset.state = state;
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
        // Only the person's own click (issue 26: a page's script could click "Point at it" in
        // this open shadow root, and turn the person's next click into a kept selector).
        button.addEventListener("click", (event) => { if (event.isTrusted) spec.onClick(); });
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
      close.addEventListener("click", (event) => { if (event.isTrusted) hide(); });
      panel.appendChild(close);
    }
    hideAfter = hideAfterMs;
    panel.addEventListener("mouseenter", () => scheduleHide(0));
    panel.addEventListener("mouseleave", () => scheduleHide(hideAfter ? 2000 : 0));
    shadow.append(style, panel);
    place();
    scheduleHide(hideAfterMs);
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
    panel = null;
    if (host) host.remove();
    host = null;
  }

  function currentState() {
    return host && host.isConnected ? host.dataset.state : "";
  }

  window.addEventListener("resize", place);

  root.OperatorPanel = Object.freeze({ show, hide, setText, currentState, anchorTo });
})(globalThis);
