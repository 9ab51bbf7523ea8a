/* The person's own text on the page: what they sent from the chat's input box, and the messages
   the site marks as theirs (the adapter's `user` selectors). A system prompt pasted into the
   chat holds OPERATOR_CMD examples, and its message stays on the page: it is never an answer,
   never a sign that the adapter missed one, never what "Point at it" may keep as the answers'
   selector (issue 26: the first answer of every new chat raised "cannot read this answer", and
   pointing at the prompt made its examples run as an answer).

   What the person sent is noticed as they send it: Enter in the input box, a click on the send
   button or on any button beside the box, a form's submit, each seen before the page's own
   handlers (capture on the window) while the box still holds the text, and each only when the
   browser says the person did it (isTrusted), never a page script's event. A text node is the
   person's own when it is inside one of the site's user messages, or when the text of the
   block around it is part of something they sent. Pure DOM reads; the texts are kept in memory
   only (after a reload, the site's user selectors still know its messages). */

(function (root) {
  "use strict";

  const KEPT = 20; // texts the person sent, newest last
  const COMPOSER_LEVELS = 4; // how far above the input box its send button may sit
  // Characters: a shorter block ("OK", "Thanks", a lone marker line) is nobody's in particular.
  const SHORTEST = 40;
  const BLOCK_TAGS = new Set(["P", "DIV", "LI", "PRE", "BLOCKQUOTE", "TD", "SECTION", "ARTICLE", "H1", "H2", "H3", "H4", "H5", "H6"]);

  function squeeze(text) {
    return text.replace(/\s+/g, " ").trim();
  }

  /* adapter() -> the site's adapter now; inputBox() -> the chat's input box, or null;
     readInput(element) -> the text it holds; onSend(text): told what the person sends. */
  function create({ adapter, inputBox, readInput, onSend = () => {} }) {
    const sent = []; // {text (squeezed), at}
    let lastSentAt = 0;

    function remember(raw) {
      if (!raw || !raw.trim()) return;
      lastSentAt = Date.now(); // the next answer is a reply, however short the message was
      onSend(raw);
      const text = squeeze(raw);
      if (text.length < SHORTEST) return; // too short to tell the person's text by
      const known = sent.findIndex((item) => item.text === text);
      if (known >= 0) sent.splice(known, 1);
      sent.push({ text, at: lastSentAt });
      if (sent.length > KEPT) sent.shift();
    }

    function boxText() {
      const box = inputBox();
      return box ? readInput(box) : "";
    }

    function inBox(target) {
      const box = inputBox();
      return !!box && !!target && (box === target || box.contains(target));
    }

    /* A click on the send button, or on a button of the composer around the input box (its
       form, or what holds both within a few levels). */
    function nearBox(target) {
      const button = target && target.closest ? target.closest('button, [role="button"], input[type="submit"]') : null;
      if (!button || button.closest("#operator-bridge-ui")) return false;
      for (const selector of adapter().send || []) {
        try {
          if (button.matches(selector)) return true;
        } catch (error) {
          // a selector this browser cannot parse
        }
      }
      const box = inputBox();
      if (!box) return false;
      let around = box.parentElement;
      for (let depth = 0; around && around !== document.body && depth < COMPOSER_LEVELS; depth += 1, around = around.parentElement) {
        if (around.contains(button)) return true;
      }
      const form = box.closest("form");
      return !!form && form.contains(button);
    }

    // Only the person's own acts (isTrusted): a page's script that clicks the send button or
    // dispatches Enter itself would otherwise make the answer it draws next a "reply", which runs
    // unasked (issue 35).
    window.addEventListener("keydown", (event) => {
      if (event.isTrusted && event.key === "Enter" && !event.shiftKey && !event.isComposing && inBox(event.target)) remember(boxText());
    }, true);
    window.addEventListener("click", (event) => {
      if (event.isTrusted && nearBox(event.target)) remember(boxText());
    }, true);
    window.addEventListener("submit", (event) => { if (event.isTrusted) remember(boxText()); }, true);

    /* The site's own word: inside a message it marks as the person's. */
    function inUserMessage(element) {
      for (const selector of adapter().user || []) {
        try {
          if (element.closest(selector)) return true;
        } catch (error) {
          // a selector this browser cannot parse
        }
      }
      return false;
    }

    /* The text of the block an element sits in, squeezed. */
    function blockText(element) {
      let block = element;
      while (block && block.parentElement && !BLOCK_TAGS.has(block.tagName)) block = block.parentElement;
      return squeeze((block || element).innerText || (block || element).textContent || "");
    }

    function wasSent(text) {
      return text.length >= SHORTEST && sent.some((item) => item.text.includes(text));
    }

    /* Whether `element` is the person's own: one of the site's user messages (or inside one), or
       its whole text is part of something they sent. */
    function isOwn(element) {
      if (!element || element.nodeType !== Node.ELEMENT_NODE) return false;
      if (inUserMessage(element)) return true;
      return wasSent(squeeze(element.innerText || element.textContent || ""));
    }

    /* Whether the text node `node` is the person's own (see isOwn; a node's block decides). */
    function ownNode(node) {
      const parent = node.parentElement;
      if (!parent) return false;
      return inUserMessage(parent) || wasSent(blockText(parent));
    }

    /* Whether `element` holds any text of the person's own: a user message inside it, or a text
       node that is theirs (the thread around both the prompt and the answers, say). */
    function holdsOwn(element) {
      if (isOwn(element)) return true;
      for (const selector of adapter().user || []) {
        try {
          if (element.querySelector(selector)) return true;
        } catch (error) {
          // a selector this browser cannot parse
        }
      }
      if (!sent.length) return false;
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.data.trim() && wasSent(squeeze(node.data)) && ownNode(node)) return true;
      }
      return false;
    }

    return Object.freeze({
      remember, isOwn, ownNode, holdsOwn,
      sentSince: (time) => lastSentAt > time,
      lastSentAt: () => lastSentAt,
    });
  }

  root.OperatorPerson = Object.freeze({ create, squeeze });
})(globalThis);
