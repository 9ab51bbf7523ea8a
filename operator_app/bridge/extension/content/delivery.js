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
  /* `text` without what Operator put there itself (`filled`: the texts it filled), touched or
     not: a line of those texts is Operator's, so is one the person cut short (a character
     deleted), and a line that starts with one of theirs is the person's only after it (a note
     typed at its end). What is left is the person's own. */
  function withoutFilledResults(text, filled) {
    const theirs = new Set(filled.flatMap((one) => one.split("\n").map((line) => line.trim()).filter(Boolean)));
    if (!theirs.size) return text.trim();
    const longest = [...theirs].sort((a, b) => b.length - a.length);
    const kept = [];
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      if (!line || theirs.has(line)) {
        kept.push("");
        continue;
      }
      const prefix = longest.find((known) => line.startsWith(known));
      if (prefix) kept.push(line.slice(prefix.length).trim());
      else if (line.length >= 3 && longest.some((known) => known.startsWith(line))) kept.push("");
      else kept.push(raw);
    }
    return kept.join("\n").replace(/\n{3,}/g, "\n\n").trim();
  }

  /* adapter() -> the site's adapter as it is now (with the person's own selectors); health() ->
     the field-by-field check (content/health.js); teach(field, {then}) -> "Point at it". */
  function create({ adapter, inputBox, health, teach, modelIsWriting, send, onDelivered = () => {}, used = () => {} }) {
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
      // text, even once touched (issue 26: then they counted as the person's, and went to the
      // chat again with the next results): the new ones take their place. Anything the person
      // added to them is theirs, and the page asks.
      const mine = personsPart(input);
      if (mine === "") return put(results, true, !Editor.holdsOwnText(input) || holdsOnlyFilledResults(input));
      ask(results);
      return { status: "asked" };
    }

    function holdsOnlyFilledResults(input) {
      const held = Editor.readInput(input);
      return held.trim() !== "" && filledTexts.some((text) => Editor.sameText(held, text));
    }

    /* What the input box holds of the person's own: its text without Operator's earlier results. */
    function personsPart(input) {
      return withoutFilledResults(Editor.readInput(input), filledTexts).trim();
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
          { id: "append", label: "After my text", primary: true, onClick: () => putAfterPersonsText(results) },
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

    /* After the person's own text, Operator's earlier results (touched or not) taken out of it. */
    function putAfterPersonsText(results) {
      const input = inputBox();
      if (!input) return cannotFill(results, describeMissing("input"));
      const held = Editor.readInput(input);
      const mine = personsPart(input);
      if (mine === held.trim()) return put(results, false, false);
      return put(results, true, false, mine + "\n\n");
    }

    async function put(results, replace, boxWasEmpty, before = "") {
      const input = inputBox();
      if (!input) return cannotFill(results, describeMissing("input"));
      const outcome = await Editor.fill(input, before + results.copy_text, { replace, declaredKind: adapter().editor });
      if (!outcome.ok) {
        const found = health().find((field) => field.field === "input");
        return cannotFill(results, "the input box" + (found && found.selector ? " (found by " + found.selector + ")" : "")
          + " did not take the text (" + Editor.editorKind(input, adapter().editor) + " editor)");
      }
      return landed(results, input, boxWasEmpty);
    }

    function landed(results, input, boxWasEmpty, { restored = false } = {}) {
      const found = Text.queryVisible(document, adapter().input);
      if (found.element === input) used("input", found.selector);
      delivered = { id: resultsId(results), copyText: results.copy_text, count: results.count, results };
      filledTexts.push(results.copy_text);
      if (filledTexts.length > 5) filledTexts.shift();
      onDelivered();
      send({ type: "delivered", conversation: results.conversation, position: results.position, message: results.message, count: results.count, sent: false });
      const autoSend = results.autoSend || {};
      if (restored) {
        Panel.show({
          title: "Operator: " + plural(results.count) + " back in the input box",
          text: "They were in the input box when the page reloaded, unsent: press Enter to send them.",
          state: "restored",
          tone: "done",
          hideAfterMs: NEWS_SHOWN_MS,
        });
      } else if (autoSend.enabled && boxWasEmpty) {
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

    /* Results that were in the input box when the page reloaded and dropped its draft: back in
       the box (never sent by themselves), or asked about when the box holds text of the
       person's now. */
    async function restore(results) {
      const id = resultsId(results);
      if (handledResults.has(id)) return { status: "already handled" };
      handledResults.add(id);
      const input = inputBox();
      if (!input) return cannotFill(results, describeMissing("input"));
      const quiet = { ...results, autoSend: { enabled: false } };
      if (Editor.endsWithText(input, results.copy_text)) return landed(quiet, input, false, { restored: true });
      if (Editor.holdsOwnText(input)) {
        ask(quiet);
        return { status: "asked" };
      }
      const outcome = await Editor.fill(input, results.copy_text, { replace: true, declaredKind: adapter().editor });
      if (!outcome.ok) return cannotFill(results, "the input box did not take the text");
      return landed(quiet, input, false, { restored: true });
    }

    /* The person sends the box's text (Enter, the send button): the results in it are gone to
       the chat now, even if the page reloads before it empties the box. */
    function sentByPerson(text) {
      const lines = (one) => one.replace(/\u00a0/g, " ").split("\n").map((line) => line.replace(/\s+$/, ""))
        .filter((line) => line.trim() !== "").join("\n");
      if (delivered && lines(text).endsWith(lines(delivered.copyText))) {
        const gone = delivered.results;
        delivered = null;
        send({ type: "results-gone", conversation: gone.conversation, position: gone.position });
      }
    }

    /* The box no longer holds the results (sent, or cleared by the person): the badge goes. */
    function checkDeliveredStillThere() {
      if (!delivered) return;
      const input = inputBox();
      if (input && Editor.endsWithText(input, delivered.copyText)) return;
      const gone = delivered.results;
      delivered = null;
      send({ type: "results-gone", conversation: gone.conversation, position: gone.position });
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
      const found = Text.queryVisible(document, adapter().send);
      const button = found.element;
      if (button && !button.disabled && button.getAttribute("aria-disabled") !== "true") {
        button.click();
        used("send", found.selector);
        sendProblem = null;
      } else {
        if (adapter().id !== GENERIC.id) sendProblem = describeMissing("send") + " (pressed Enter instead)";
        Editor.pressEnter(input);
      }
      send({ type: "delivered", conversation: results.conversation, position: results.position, message: results.message, count: results.count, sent: true });
      Panel.show({ title: "Operator: " + plural(results.count) + " sent", state: "sent", tone: "done", hideAfterMs: NEWS_SHOWN_MS / 2 });
    }

    return Object.freeze({ onResults, restore, sentByPerson, checkDeliveredStillThere, cancelAutoSend, sendProblem: () => sendProblem, hasDelivered: () => delivered !== null });
  }

  root.OperatorDelivery = Object.freeze({ create, withoutFilledResults });
})(globalThis);
