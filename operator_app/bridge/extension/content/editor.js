/* Putting text into a chat's input box so that the page's own editor really holds it, and
   pressing send.

   Setting .value or .innerHTML is not enough: React keeps a textarea's value in its own state and
   ignores a change it did not see as an input event; ProseMirror, Quill and Lexical keep a
   document model of their own and send that, not the DOM. So every way in goes through the events
   the editor listens to, and the result is read back: a fill that did not land tries the next way,
   and reports failure instead of claiming success. */

(function (root) {
  "use strict";

  function isTextControl(element) {
    return element instanceof HTMLTextAreaElement || element instanceof HTMLInputElement;
  }

  function editorKind(element, declared) {
    if (isTextControl(element)) return "textarea";
    if (declared && declared !== "auto") return declared;
    if (element.closest(".ProseMirror")) return "prosemirror";
    if (element.closest(".ql-editor")) return "quill";
    if (element.closest("[data-lexical-editor]")) return "lexical";
    return "contenteditable";
  }

  const BLOCKS = new Set(["P", "DIV", "PRE", "LI", "H1", "H2", "H3", "H4", "H5", "H6", "BLOCKQUOTE"]);

  /* The text the input box holds, one line per line the person sees. Rich editors keep a line per
     paragraph (innerText would put a blank line between paragraphs, which is not what they send). */
  function readInput(element) {
    if (isTextControl(element)) return element.value;
    const children = [...element.children];
    let text;
    if (children.length && children.every((child) => BLOCKS.has(child.tagName))) {
      text = children.map((child) => child.innerText.replace(/\n$/, "")).join("\n");
    } else {
      text = element.innerText;
    }
    return text.replace(/\u00a0/g, " ");
  }

  function normalized(text) {
    return text.replace(/\u00a0/g, " ").replace(/[ \t]+$/gm, "").replace(/\n+$/, "");
  }

  function holdsOwnText(element) {
    return readInput(element).trim() !== "";
  }

  /* True when two texts are the same, line ends, trailing blanks and blank lines aside (an editor
     may fold the blank lines of what it was given, as ProseMirror's paste does). */
  function sameText(one, other) {
    const lines = (text) => normalized(text).split("\n").filter((line) => line.trim() !== "").join("\n");
    return lines(one) === lines(other);
  }

  /* True when the input box ends with `text` (line ends and trailing blanks aside). */
  function endsWithText(element, text) {
    return normalized(readInput(element)).endsWith(normalized(text));
  }

  function setNativeValue(element, value) {
    // The prototype's setter, not the element's own: React wraps the instance's setter to track
    // what it has seen, and would drop the following input event as "no change".
    const prototype = element instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(prototype, "value").set.call(element, value);
    element.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: value }));
    element.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function placeCaret(element, replace) {
    element.focus();
    const selection = window.getSelection();
    const range = document.createRange();
    range.selectNodeContents(element);
    if (!replace) range.collapse(false);
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function viaInsertText(element, text, replace) {
    placeCaret(element, replace);
    // execCommand is what typing does: beforeinput and input events, and a DOM change that
    // editors which read the DOM (ProseMirror) parse into their model; a newline is a new
    // paragraph, so blank lines and indentation survive.
    return document.execCommand("insertText", false, text);
  }

  async function viaPaste(element, text, replace, kind) {
    placeCaret(element, replace);
    // Editors that keep a selection of their own (Lexical) take it from the page's on the
    // selectionchange event, which comes after the caret moved: a paste before it lands nowhere.
    // Quill reads the page's selection when the paste comes, and needs no wait.
    if (kind !== "quill") await new Promise((resolve) => setTimeout(resolve, 30));
    const data = new DataTransfer();
    data.setData("text/plain", text);
    const event = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
    element.dispatchEvent(event);
    // An editor that handled the paste cancelled the browser's own (which does nothing for a
    // synthetic event anyway).
    return event.defaultPrevented;
  }

  /* One paragraph per line, put into the editor's DOM in one change. ProseMirror and Quill read
     changes made to their DOM (by spellcheckers, IMEs, other scripts) back into their document,
     keeping the spaces, so this is how a long text gets in at once: Chromium's typed text costs
     about 1.5 ms per line, over a second for a few hundred results, and Quill's own paste builds
     the text line by line through its document model (0.2 to 0.5 s for 100 results, 1,200
     lines, on a page just opened; its DOM read back takes a third of that or less). */
  function viaParagraphs(element, text) {
    element.focus();
    const paragraphs = text.split("\n").map((line) => {
      const paragraph = document.createElement("p");
      if (line) paragraph.textContent = line;
      else paragraph.appendChild(document.createElement("br"));
      return paragraph;
    });
    element.replaceChildren(...paragraphs);
    element.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText" }));
    placeCaret(element, false);
    return true;
  }

  const LONG_TEXT_LINES = 150;

  // The ways to try, in order, for each kind of editor. ProseMirror's plain-text paste folds runs
  // of blank lines into one paragraph break (and some sites turn a long paste into an
  // attachment), so it gets typed text, or for a long text its DOM at once. Quill and Lexical
  // keep every line of a pasted text, and a paste is one change for them however long the text;
  // Quill gets a long text as its DOM at once too, as the maintained extensions that fill
  // Gemini's Quill do (one <p> per line and an input event), which is faster than its paste.
  const WAYS = {
    prosemirror: [viaInsertText, viaParagraphs, viaPaste],
    prosemirrorLong: [viaParagraphs, viaInsertText, viaPaste],
    quill: [viaPaste, viaInsertText],
    quillLong: [viaParagraphs, viaPaste, viaInsertText],
    lexical: [viaPaste, viaInsertText],
    contenteditable: [viaInsertText, viaPaste],
  };
  const LONG = { prosemirror: "prosemirrorLong", quill: "quillLong" };

  const settled = () => new Promise((resolve) => setTimeout(resolve, 60));

  /* Put `text` into the input box, replacing what it holds (`replace`) or after it. Resolves to
     {ok, how}; ok only when the input box reads back with the text in it, also a moment later (an
     editor that did not take a change into its own state draws its state again, and the text
     goes). */
  async function fill(element, text, { replace = true, declaredKind = "auto" } = {}) {
    const kind = editorKind(element, declaredKind);
    if (kind === "textarea") return fillTextarea(element, text, replace);
    const original = readInput(element);
    const kept = !replace && original.trim() !== "" ? original.replace(/\s+$/, "") + "\n\n" : "";
    for (const way of waysFor(kind, text)) {
      // A way that changed the box without landing the text is undone by the next one, which
      // then writes the whole intended content (the person's text, if kept, and the results).
      const whole = replace || way === viaParagraphs || readInput(element) !== original;
      try {
        await way(element, whole ? kept + text : (kept ? "\n\n" : "") + text, whole, kind);
      } catch (error) {
        continue;
      }
      if (await heldAWhile(element, text)) return { ok: true, how: way.name };
    }
    return { ok: false, how: null };
  }

  function waysFor(kind, text) {
    if (LONG[kind] && text.split("\n").length > LONG_TEXT_LINES) return WAYS[LONG[kind]];
    return WAYS[kind] || WAYS.contenteditable;
  }

  async function fillTextarea(element, text, replace) {
    const before = element.value;
    let value = text;
    if (!replace && before.trim() !== "") value = before.replace(/\s+$/, "") + "\n\n" + text;
    setNativeValue(element, value);
    element.focus();
    element.setSelectionRange(value.length, value.length);
    await settled();
    return { ok: endsWithText(element, text), how: "value" };
  }

  /* Some editors draw their change a moment later (Lexical commits its updates asynchronously);
     and one that did not take a change draws its own state over it: the text must be there, and
     still there a moment later. */
  async function heldAWhile(element, text) {
    await settled();
    if (!endsWithText(element, text)) return false;
    await settled();
    return endsWithText(element, text);
  }

  function pressEnter(element) {
    element.focus();
    for (const type of ["keydown", "keypress", "keyup"]) {
      element.dispatchEvent(new KeyboardEvent(type, { key: "Enter", code: "Enter", keyCode: 13, which: 13, bubbles: true, cancelable: true }));
    }
  }

  root.OperatorEditor = Object.freeze({ readInput, holdsOwnText, endsWithText, sameText, fill, pressEnter, editorKind });
})(globalThis);
