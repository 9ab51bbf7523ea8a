/* The adapter's health on this page, field by field: which selector found each field (assistant
   messages, input box, send button, "still generating"), or that none did, or that the field is
   not expected now (no answer yet, the send button of a page that shows it only once the box holds
   text, the indicator while nothing is being written). The popup shows it; content.js runs it by
   itself when an answer ends without a message it could read, or a fill fails, and the page
   panel then says what failed. Also the two signs of an answer's end besides its indicator: the
   indicator's last resort and the answer's action buttons. Pure DOM reads. */

(function (root) {
  "use strict";

  const Text = root.OperatorText;
  const { FIELD_NAMES } = root.OperatorAdapters;
  const STOP_WORD = /(^|[^a-z])stop([^a-z]|$)/i;
  const LAST_RESORT = "a visible button labelled \"stop\" (last resort)";

  /* A visible button whose label, title or test id says "stop": what a chat shows while it
     writes, when none of the adapter's own selectors matches anything visible. */
  function stopButton(doc) {
    for (const element of doc.querySelectorAll('button, [role="button"]')) {
      const words = ["aria-label", "title", "data-testid"].map((name) => element.getAttribute(name) || "").join(" ");
      if (STOP_WORD.test(words) && Text.isVisible(element)) return element;
    }
    return null;
  }

  /* {selector, element, lastResort} of the "still generating" sign shown now, or null. Only a
     visible match counts (pages keep hidden copies of their buttons). */
  function generatingSign(adapter, doc) {
    for (const selector of adapter.generating || []) {
      let found;
      try {
        found = doc.querySelectorAll(selector);
      } catch (error) {
        continue;
      }
      for (const element of found) if (Text.isVisible(element)) return { selector, element, lastResort: false };
    }
    const element = stopButton(doc);
    return element ? { selector: LAST_RESORT, element, lastResort: true } : null;
  }

  /* An answer's action buttons (copy, thumbs), shown after `message`: it is finished. */
  function doneSign(adapter, doc, message) {
    if (!message) return null;
    for (const selector of adapter.done || []) {
      let found;
      try {
        found = doc.querySelectorAll(selector);
      } catch (error) {
        continue;
      }
      for (const element of found) {
        const where = message.compareDocumentPosition(element);
        if ((where & Node.DOCUMENT_POSITION_FOLLOWING || where & Node.DOCUMENT_POSITION_CONTAINED_BY) && Text.isVisible(element)) {
          return { selector, element };
        }
      }
    }
    return null;
  }

  /* Text on the page outside Operator's own panel, the page's text boxes and the person's own
     messages (`ownNode`: a system prompt pasted into the chat holds example blocks) holds a
     marker line. */
  function pageShowsMarker(doc, ownNode = null) {
    const walker = doc.createTreeWalker(doc.body || doc.documentElement, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (Text.mayHoldBlock(node.data) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP),
    });
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest("#operator-bridge-ui, script, style, textarea, [contenteditable]")) continue;
      if (Text.holdsBlockStart(node.data) && !(ownNode && ownNode(node))) return true;
    }
    return false;
  }

  function entry(adapter, field, state, selector, note) {
    const own = adapter.overridden && adapter.overridden[field] ? adapter.overridden[field] : [];
    const trial = adapter.onTrial && adapter.onTrial[field] ? adapter.onTrial[field] : [];
    return {
      field, name: FIELD_NAMES[field], state, selector, own: selector !== null && own.includes(selector),
      trial: selector !== null && trial.includes(selector), tried: adapter[field] || [], note,
    };
  }

  /* The report, one entry per field: state "found" (with the selector that matched), "missing"
     (none did, where one should), or "idle" (not expected now, `note` says why).
     `context`: {inputBox, isGeneric, watching: {done, changesWithoutIndicator, stuck}, sendProblem,
     ownNode(textNode), notOwn(element): the person's own text left out}. */
  function check(adapter, doc, context) {
    // While the model writes, its answer may not be on the page yet: nothing is missing then.
    const sign = generatingSign(adapter, doc);
    const input = Text.queryVisible(doc, adapter.input);
    return [
      assistantField(adapter, doc, context, sign),
      input.element
        ? entry(adapter, "input", "found", input.selector, "")
        : entry(adapter, "input", "missing", null, context.isGeneric ? "no visible text box on this page" : "found nothing"),
      sendField(adapter, doc, context, input.element),
      generatingField(adapter, context.watching, sign),
    ];
  }

  function assistantField(adapter, doc, context, sign) {
    const ownNode = context.ownNode || null;
    if (context.isGeneric) {
      return Text.lastMarkedMessage(doc.body, context.inputBox, ownNode)
        ? entry(adapter, "assistant", "found", "the last element with a block for Operator", "")
        : entry(adapter, "assistant", "idle", null, "no block for Operator on this page yet");
    }
    const messages = Text.queryFirst(doc, adapter.assistant, context.notOwn || null);
    if (messages.elements.length) {
      return entry(adapter, "assistant", "found", messages.selector, messages.elements.length + " on the page");
    }
    if (!sign && pageShowsMarker(doc, ownNode)) {
      return entry(adapter, "assistant", "missing", null, "none of its selectors finds the answer, yet the page shows a block for Operator");
    }
    return entry(adapter, "assistant", "idle", null, sign ? "the model is writing; its answer is not on the page yet" : "no answer on the page yet");
  }

  function sendField(adapter, doc, context, inputElement) {
    const send = Text.queryVisible(doc, adapter.send);
    const inputEmpty = !inputElement || !root.OperatorEditor.holdsOwnText(inputElement);
    if (context.sendProblem) return entry(adapter, "send", "missing", null, context.sendProblem);
    if (send.element) return entry(adapter, "send", "found", send.selector, "");
    if (context.isGeneric) return entry(adapter, "send", "idle", null, "none found: auto-send presses Enter in the input box");
    if (inputEmpty) return entry(adapter, "send", "idle", null, "not shown while the input box is empty (the page shows it once the box holds text)");
    return entry(adapter, "send", "missing", null, "found nothing; Operator presses Enter in the input box instead");
  }

  function generatingField(adapter, watching, sign) {
    if (watching && watching.stuck) return entry(adapter, "generating", "missing", sign && sign.selector, watching.stuck);
    if (sign) return entry(adapter, "generating", "found", sign.selector, "the model is writing");
    if (watching && watching.unseen) return entry(adapter, "generating", "missing", null, watching.unseen);
    return entry(adapter, "generating", "idle", null, "shown only while the model writes");
  }

  root.OperatorHealth = Object.freeze({ check, generatingSign, doneSign, pageShowsMarker, stopButton, LAST_RESORT });
})(globalThis);
