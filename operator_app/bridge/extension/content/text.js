/* Reading the page: which elements are the assistant messages, and their text with the line
   breaks the page shows. Pure DOM reads, no messaging.

   Text is taken with innerText, which is what the person sees: <br>, paragraphs and <pre> give
   line breaks, hidden elements give none of their text.

   What a block for Operator begins with is Operator's word, not this file's: the bridge's hello
   names each dialect's opener (docs/bridge-protocol.md), the background keeps the list, and
   `setOpeners` hands it here. Until Operator has said it once, no text holds a block. */

(function (root) {
  "use strict";

  // Behind these at most, an opener that stands at a line's start still starts it: markdown
  // punctuation (a quote, a list's dash or number, a fence). Operator decides whether the line
  // is a valid block start; the finder only needs to see it.
  const LINE_LEAD = "(?:^|\\n)[ \\t>*#`\\-\\d.)]*";
  let openers = []; // {text, startsLine: RegExp | null}, as Operator's hello said

  function escaped(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  /* The openers the bridge's hello names: [{dialect, text, line_start}]. */
  function setOpeners(list) {
    openers = (Array.isArray(list) ? list : [])
      .filter((opener) => opener && typeof opener.text === "string" && opener.text.length > 0)
      .map((opener) => ({
        text: opener.text,
        // An opener that stands at a line's start, and not inside a longer word.
        startsLine: opener.line_start === true ? new RegExp(LINE_LEAD + escaped(opener.text) + "(?![A-Za-z0-9_])") : null,
      }));
  }

  /* Whether a text may hold a block for Operator (cheap: the tree walks ask every node). */
  function mayHoldBlock(data) {
    return openers.some((opener) => data.includes(opener.text));
  }

  /* Whether a text node holds a block's start: an opener where its dialect writes one. */
  function holdsBlockStart(data) {
    return openers.some((opener) => (opener.startsLine ? opener.startsLine.test(data) : data.includes(opener.text)));
  }

  // Elements that are parts of a message, never a whole message.
  const CONTENT_TAGS = new Set([
    "P", "PRE", "CODE", "SPAN", "LI", "UL", "OL", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR",
    "TD", "TH", "H1", "H2", "H3", "H4", "H5", "H6", "EM", "STRONG", "B", "I", "A", "BR", "KBD",
    "SAMP", "SMALL", "SUB", "SUP", "MARK", "DEL", "INS", "S", "U",
  ]);
  const MESSAGE_LIKE = '[data-message-author-role], [data-message-id], article, [role="article"]';

  function holdsMarker(text) {
    return mayHoldBlock(text);
  }

  /* The first alternative that finds anything, as {selector, elements}; outermost matches only,
     in document order (a selector that also matches inside its own matches counts each message
     once). */
  function queryAll(scope, selector) {
    try {
      return scope.querySelectorAll(selector);
    } catch (error) {
      return []; // a selector this browser cannot parse counts as finding nothing
    }
  }

  /* `accept(element)`, when given, leaves out what it refuses (the person's own messages): an
     alternative that finds only those finds nothing, and the next one is tried. */
  function queryFirst(scope, alternatives, accept = null) {
    for (const selector of alternatives || []) {
      const found = queryAll(scope, selector);
      const outermost = [];
      for (const element of found) {
        const last = outermost[outermost.length - 1];
        if (!last || !last.contains(element)) outermost.push(element);
      }
      const kept = accept ? outermost.filter(accept) : outermost;
      if (kept.length) return { selector, elements: kept };
    }
    return { selector: null, elements: [] };
  }

  function isVisible(element) {
    if (!element || !element.isConnected) return false;
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  }

  /* The first alternative's last visible match (a page may keep hidden copies of its composer). */
  function queryVisible(scope, alternatives) {
    for (const selector of alternatives || []) {
      const found = queryAll(scope, selector);
      for (let index = found.length - 1; index >= 0; index -= 1) {
        if (isVisible(found[index])) return { selector, element: found[index] };
      }
    }
    return { selector: null, element: null };
  }

  function messageText(message, adapter) {
    const parts = queryFirst(message, adapter.content).elements;
    if (!parts.length) return withoutCodeChrome(message);
    return parts.map(withoutCodeChrome).join("\n");
  }

  /* innerText, with each code block reduced to its code: sites put a header with the language and
     a "Copy" button inside the <pre>, which is not the model's text, and which changes while the
     fence's language is still being written ("p", then "python"), making an earlier part of the
     text change. Linear in the text: each block is looked for after the one before. */
  function withoutCodeChrome(element) {
    const text = element.innerText;
    let kept = "";
    let cursor = 0;
    for (const pre of element.querySelectorAll("pre")) {
      const code = pre.querySelector("code");
      if (!code) continue;
      const whole = pre.innerText;
      const codeText = code.innerText;
      if (whole === codeText) continue;
      const at = text.indexOf(whole, cursor);
      if (at < 0) continue;
      kept += text.slice(cursor, at) + codeText + (whole.endsWith("\n") && !codeText.endsWith("\n") ? "\n" : "");
      cursor = at + whole.length;
    }
    return cursor === 0 ? text : kept + text.slice(cursor);
  }

  function sameKind(a, b) {
    return a.tagName === b.tagName && a.className === b.className;
  }

  function hasSimilarSibling(element) {
    for (const sibling of element.parentElement ? element.parentElement.children : []) {
      if (sibling !== element && sameKind(sibling, element)) return true;
    }
    return false;
  }

  /* Generic pages: the element around the last block start (holdsBlockStart) outside the
     person's own text (`ownNode`) that looks like one
     message: climbing from the marker, the first container that has a sibling of its own kind (an
     item in a list of messages), or that says it is a message, without ever taking in the input
     box. */
  function lastMarkedMessage(body, inputElement, ownNode = null) {
    const lastMarkerNode = lastBlockStart(body, ownNode);
    if (!lastMarkerNode) return null;
    let candidate = null;
    for (let element = lastMarkerNode.parentElement; element && element !== body; element = element.parentElement) {
      if (inputElement && element.contains(inputElement)) break;
      if (element.matches(MESSAGE_LIKE)) return element;
      if (CONTENT_TAGS.has(element.tagName)) continue;
      candidate = element;
      if (hasSimilarSibling(element)) return element;
    }
    return candidate || lastMarkerNode.parentElement;
  }

  /* The last text node holding a block start that is page text: not Operator's own panel, a
     script, a style, an editable box, nor the person's own message (a pasted prompt). */
  function lastBlockStart(body, ownNode) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (mayHoldBlock(node.data) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP),
    });
    let last = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!holdsBlockStart(node.data)) continue;
      const parent = node.parentElement;
      if (!parent || parent.closest("#operator-bridge-ui, script, style, textarea, [contenteditable]")) continue;
      if (ownNode && ownNode(node)) continue;
      last = node;
    }
    return last;
  }

  function positionAmongKind(element) {
    let position = 0;
    for (let sibling = element.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
      if (sameKind(sibling, element)) position += 1;
    }
    return position;
  }

  root.OperatorText = Object.freeze({
    setOpeners, mayHoldBlock, holdsBlockStart, holdsMarker, queryFirst, queryVisible, isVisible, messageText, lastMarkedMessage, positionAmongKind,
  });
})(globalThis);
