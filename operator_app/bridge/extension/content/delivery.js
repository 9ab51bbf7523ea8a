/* Results back into the chat: when the background says a page message's results are ready, they
   go into the chat's input box (content/editor.js), never mixed into the person's own text
   without asking; "Operator: N results ready" on the page; auto-send, when the person turned it
   on, presses send once, only when every condition still holds at the moment of sending (all
   results in, the model stopped, the input box holding exactly the results, the background's
   once-per-message and per-minute limits). */

(function (root) {
  "use strict";

  // News that asks nothing of the person hides after this long (the icon's badge keeps the count).
  const NEWS_SHOWN_MS = 8000;

  /* adapter() -> the site's adapter as it is now (with the person's own selectors); health() ->
     the field-by-field check (content/health.js); teach(field, {then}) -> "Point at it". */
  function create({ adapter, inputBox, health, teach, modelIsWriting, send, onDelivered = () => {} }) {
    const { GENERIC, FIELD_NAMES } = globalThis.OperatorAdapters;
    const Text = globalThis.OperatorText;
    const Editor = globalThis.OperatorEditor;
    const Panel = globalThis.OperatorPanel;

    let delivered = null; // {id, copyText, count} of the results put into the input box
    let autoSendTimer = null;
    let countdown = null; // the interval that counts the auto-send notice down
    let sendProblem = null;
    const handledResults = new Set(); // "conversation|position|message" filled, asked or declined
    const filledTexts = []; // the results this page's box was given, newest last (a few)

    function resultsId(results) {
      return results.conversation + "|" + results.position + "|" + results.message;
    }

    function plural(count) {
      return count === 1 ? "1 result" : count + " results";
    }

    function onResults(results) {
      const id = resultsId(results);
      if (handledResults.has(id)) return { status: "already handled" };
      handledResults.add(id);
      if (results.count === 0) {
        Panel.show({
          title: "Operator: nothing new to send",
          text: "Every command in this answer repeated one that already ran; its results were given before.",
          state: "nothing-new",
          hideAfterMs: NEWS_SHOWN_MS,
        });
        return { status: "nothing new" };
      }
      return offer(results);
    }

    function offer(results) {
      const input = inputBox();
      if (!input) return cannotFill(results, describeMissing("input"));
      if (Editor.endsWithText(input, results.copy_text)) return landed(results, input, false);
      // Results Operator put there and nobody sent (an auto-send cancelled) are not the person's
      // text: the new ones take their place. Anything the person added to them is theirs.
      if (holdsOnlyFilledResults(input)) return put(results, true, true);
      if (Editor.holdsOwnText(input)) {
        ask(results);
        return { status: "asked" };
      }
      return put(results, true, true);
    }

    function holdsOnlyFilledResults(input) {
      const held = Editor.readInput(input);
      return held.trim() !== "" && filledTexts.some((text) => Editor.sameText(held, text));
    }

    function ask(results) {
      // Operator's terminal says so too: the person may be looking there.
      send({ type: "asked", conversation: results.conversation, position: results.position, message: results.message, count: results.count });
      Panel.show({
        title: "Operator: " + plural(results.count) + " ready",
        text: "Your input box holds text of yours: where should they go?",
        state: "ask",
        closable: false,
        buttons: [
          { id: "append", label: "After my text", primary: true, onClick: () => put(results, false, false) },
          { id: "replace", label: "Replace my text", onClick: () => put(results, true, false) },
          { id: "later", label: "Not now", onClick: () => later(results) },
        ],
      });
    }

    function later(results) {
      Panel.show({
        title: "Operator: " + plural(results.count) + " ready",
        text: "They are not in the input box yet.",
        state: "later",
        buttons: [{ id: "put", label: "Put them in the input box", primary: true, onClick: () => offer(results) }],
      });
    }

    async function put(results, replace, boxWasEmpty) {
      const input = inputBox();
      if (!input) return cannotFill(results, describeMissing("input"));
      const outcome = await Editor.fill(input, results.copy_text, { replace, declaredKind: adapter().editor });
      if (!outcome.ok) {
        const found = health().find((field) => field.field === "input");
        return cannotFill(results, "the input box" + (found && found.selector ? " (found by " + found.selector + ")" : "")
          + " did not take the text (" + Editor.editorKind(input, adapter().editor) + " editor)");
      }
      return landed(results, input, boxWasEmpty);
    }

    function landed(results, input, boxWasEmpty) {
      delivered = { id: resultsId(results), copyText: results.copy_text, count: results.count, results };
      filledTexts.push(results.copy_text);
      if (filledTexts.length > 5) filledTexts.shift();
      onDelivered();
      send({ type: "delivered", conversation: results.conversation, position: results.position, message: results.message, count: results.count, sent: false });
      const autoSend = results.autoSend || {};
      if (autoSend.enabled && boxWasEmpty) {
        startAutoSend(results, autoSend.delayMs);
      } else {
        Panel.show({
          title: "Operator: " + plural(results.count) + " ready",
          text: "In the input box: press Enter to send.",
          state: "ready",
          tone: "done",
          hideAfterMs: NEWS_SHOWN_MS,
        });
      }
      return { status: "filled" };
    }

    /* The fill failed: the health check says which field (the input box, found or not), and the
       person can point at the right element, after which the results go in at once. */
    function cannotFill(results, why) {
      Panel.show({
        title: "Operator: " + plural(results.count) + " ready, but not in the input box",
        text: "Operator could not put them there: " + why + ". Point at the input box, and Operator keeps a selector of yours for this site.",
        tone: "problem",
        state: "fill-failed",
        buttons: [
          { id: "point", label: "Point at the input box", primary: true, onClick: () => teach("input", { then: () => offer(results) }) },
          { id: "copy", label: "Copy the results", onClick: () => navigator.clipboard.writeText(results.copy_text) },
          { id: "retry", label: "Try again", onClick: () => offer(results) },
        ],
      });
      return { status: "failed", why };
    }

    function describeMissing(field) {
      return FIELD_NAMES[field] + ": no element matches " + adapter()[field].join(" or ");
    }

    /* The box no longer holds the results (sent, or cleared by the person): the badge goes. */
    function checkDeliveredStillThere() {
      if (!delivered) return;
      const input = inputBox();
      if (input && Editor.endsWithText(input, delivered.copyText)) return;
      delivered = null;
      send({ type: "results-gone" });
      const state = Panel.currentState();
      if (state === "ready" || state === "autosend-pending") Panel.hide();
    }

    function startAutoSend(results, delayMs) {
      const sendAt = performance.now() + delayMs;
      const left = () => "Auto-send: sending in " + Math.max(1, Math.ceil((sendAt - performance.now()) / 1000)) + " s.";
      Panel.show({
        title: "Operator: " + plural(results.count) + " ready",
        text: left(),
        state: "autosend-pending",
        tone: "done",
        buttons: [{ id: "cancel", label: "Don't send", onClick: () => cancelAutoSend("you cancelled it") }],
      });
      stopCountdown();
      countdown = setInterval(() => { if (Panel.currentState() === "autosend-pending") Panel.setText(left()); }, 200);
      autoSendTimer = setTimeout(() => autoSend(results), delayMs);
    }

    function stopCountdown() {
      clearInterval(countdown);
      countdown = null;
    }

    function cancelAutoSend(reason) {
      if (autoSendTimer === null) return;
      clearTimeout(autoSendTimer);
      autoSendTimer = null;
      stopCountdown();
      Panel.show({
        title: "Operator: not sent",
        text: "Auto-send stopped: " + reason + ". The results are in the input box; press Enter to send them.",
        state: "autosend-cancelled",
      });
    }

    function normalizedInput(input) {
      return Editor.readInput(input).replace(/\u00a0/g, " ").replace(/[ \t]+$/gm, "").trim();
    }

    async function autoSend(results) {
      autoSendTimer = null;
      stopCountdown();
      const refuse = (reason) => Panel.show({
        title: "Operator: not sent", state: "autosend-refused",
        text: "Auto-send did not send: " + reason + ". The results are in the input box; press Enter to send them.",
      });
      if (modelIsWriting()) return refuse("the model is writing");
      const input = inputBox();
      if (!input || normalizedInput(input) !== results.copy_text.replace(/[ \t]+$/gm, "").trim()) {
        return refuse("the input box holds something else now");
      }
      const permit = await send({ type: "autosend-permit", conversation: results.conversation, position: results.position, message: results.message });
      if (!permit || !permit.ok) return refuse(permit ? permit.reason : "the extension did not answer");
      const button = Text.queryVisible(document, adapter().send).element;
      if (button && !button.disabled && button.getAttribute("aria-disabled") !== "true") {
        button.click();
        sendProblem = null;
      } else {
        if (adapter().id !== GENERIC.id) sendProblem = describeMissing("send") + " (pressed Enter instead)";
        Editor.pressEnter(input);
      }
      send({ type: "delivered", conversation: results.conversation, position: results.position, message: results.message, count: results.count, sent: true });
      Panel.show({ title: "Operator: " + plural(results.count) + " sent", state: "sent", tone: "done", hideAfterMs: NEWS_SHOWN_MS / 2 });
    }

    return Object.freeze({ onResults, checkDeliveredStillThere, cancelAutoSend, sendProblem: () => sendProblem, hasDelivered: () => delivered !== null });
  }

  root.OperatorDelivery = Object.freeze({ create });
})(globalThis);
