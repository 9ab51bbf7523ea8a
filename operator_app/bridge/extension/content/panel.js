/* The small panel Operator shows on the chat page (top right, clear of the chat's input box): "Operator: N results ready", the question
   before results are mixed with the person's own text, the auto-send countdown, and problems.
   It lives in a shadow root so the site's styles cannot reach it, and it never takes the focus
   from the input box. */

(function (root) {
  "use strict";

  const HOST_ID = "operator-bridge-ui";
  const STYLE = `
    :host { all: initial; }
    .panel { position: fixed; right: 16px; top: 64px; z-index: 2147483647; max-width: 380px;
      font: 13px/1.4 system-ui, sans-serif; color: #1d1d1f; background: #fffbe6;
      border: 1px solid #d4b106; border-radius: 8px; padding: 10px 12px;
      box-shadow: 0 4px 16px rgba(0,0,0,.18); }
    .panel.problem { background: #fff1f0; border-color: #cf1322; }
    .panel.done { background: #f6ffed; border-color: #389e0d; }
    .title { font-weight: 600; }
    .text { margin-top: 2px; white-space: pre-wrap; }
    .buttons { margin-top: 8px; display: flex; gap: 6px; flex-wrap: wrap; }
    button { font: inherit; padding: 3px 10px; border-radius: 5px; border: 1px solid #8c8c8c;
      background: #fff; cursor: pointer; }
    button.primary { background: #1d39c4; border-color: #1d39c4; color: #fff; }
    .close { position: absolute; top: 2px; right: 6px; border: 0; background: none; padding: 0 4px; }
  `;

  let host = null;
  let shadow = null;

  function ensureHost() {
    if (host && host.isConnected) return;
    host = document.getElementById(HOST_ID) || document.createElement("div");
    host.id = HOST_ID;
    shadow = host.shadowRoot || host.attachShadow({ mode: "open" });
    document.documentElement.appendChild(host);
  }

  /* Show one message; `buttons` are [{label, id, primary, onClick}]. The panel's state is also
     kept in data attributes, so a test (or a curious person) can read it without parsing text. */
  function show({ title, text = "", tone = "info", state = "", buttons = [], closable = true }) {
    ensureHost();
    shadow.replaceChildren();
    const style = document.createElement("style");
    style.textContent = STYLE;
    const panel = document.createElement("div");
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
        button.addEventListener("click", () => spec.onClick());
        row.appendChild(button);
      }
      panel.appendChild(row);
    }
    if (closable) {
      const close = document.createElement("button");
      close.className = "close";
      close.textContent = "\u00d7";
      close.title = "Hide";
      close.dataset.action = "hide";
      close.addEventListener("mousedown", (event) => event.preventDefault());
      close.addEventListener("click", hide);
      panel.appendChild(close);
    }
    shadow.append(style, panel);
  }

  function hide() {
    if (host) host.remove();
    host = null;
  }

  function currentState() {
    return host && host.isConnected ? host.dataset.state : "";
  }

  root.OperatorPanel = Object.freeze({ show, hide, currentState });
})(globalThis);
