/* Site adapters as data: one entry per chat site, and the generic fallback.

   A site changing its page is a change to this table, nothing else. Each selector field is a list
   of alternatives tried in order (the first that finds something wins); the popup names the field
   and the alternatives when none finds anything. Fields:

     name          what the person calls the site (Operator's header and messages show it)
     hosts         host names the entry is for (a subdomain of one counts too)
     assistant     each of the page's assistant messages (outermost match; document order)
     content       optional, inside a message: the parts that are the answer (thinking panels and
                   buttons left out); when none matches, the whole message is the text
     input         the chat's input box (a textarea or a contenteditable editor)
     editor        how that input box keeps its state: "prosemirror", "quill", "lexical",
                   "textarea" (decides how results are put in; see content/editor.js)
     send          the send button (auto-send presses it; without one, Enter in the input box)
     generating    present while the model is still writing; a match counts only when visible,
                   and where none does, a visible button whose label, title or test id says
                   "stop" is the last resort (content/health.js)
     done          optional: the answer's action buttons (copy, thumbs) that appear once it is
                   over, anywhere after the latest answer: a second sign that it is finished
     waitForDone   optional: the page shows its last tokens after its indicator went, so an answer
                   is over only at a done sign (or, without one, after the long quiet period)
     conversation  optional regular expression on the URL path; its first group names the
                   conversation (default: the whole path)
     user          the person's own messages: never an answer, never a sign of one the adapter
                   missed, never what "Point at it" keeps (a prompt pasted into the chat holds
                   OPERATOR_CMD examples; content/person.js)

   The selectors were chosen from what maintained open-source extensions that fill these same
   input boxes show of the pages (CodeWebChat, OneClickPrompts, MCP SuperAssistant, gemini-voyager,
   read in 2026); none could be checked against the live sites from where this was built, which
   is why every field has alternatives, why the popup shows which one matched, and why the person
   can point at an element to teach a selector of their own (content/teach.js), tried before
   these. The mock pages in fixtures/chat-pages/ reproduce the DOM shapes these selectors expect. */

(function (root) {
  "use strict";

  const SITES = [
    {
      id: "chatgpt",
      name: "ChatGPT",
      hosts: ["chatgpt.com", "chat.openai.com"],
      assistant: ['[data-message-author-role="assistant"]'],
      content: [".markdown"],
      input: ["#prompt-textarea", 'div.ProseMirror[contenteditable="true"]', 'textarea[name="prompt-textarea"]'],
      editor: "prosemirror",
      // The label is today's send button, the test id an older one. With an empty input box the
      // page shows a voice button in its place: the send button appears once results are in.
      send: ['button[aria-label="Send message"]', 'button[data-testid="send-button"]', "#composer-submit-button"],
      generating: ['button[data-testid="stop-button"]'],
      done: ['button[data-testid="copy-turn-action-button"]'],
      conversation: "^/(?:g/[^/]+/)?c/([\\w-]+)",
      user: ['[data-message-author-role="user"]'],
    },
    {
      id: "claude",
      name: "Claude",
      hosts: ["claude.ai"],
      assistant: ["div[data-is-streaming]", ".font-claude-response", ".font-claude-message"],
      content: [".font-claude-response", ".font-claude-message"],
      input: ['div.ProseMirror[contenteditable="true"]', 'fieldset [contenteditable="true"]', '[contenteditable="true"][role="textbox"]'],
      editor: "prosemirror",
      send: ['button[type="button"][aria-label="Send message"]', 'button[aria-label="Send message"]', 'button[aria-label="Send Message"]'],
      // The stop button's label has changed before; its icon (a square in a circle) is the same.
      generating: ['[data-is-streaming="true"]', 'button[aria-label="Stop response"]', 'button:has(svg path[d^="M128,20A108,108"])'],
      done: [],
      conversation: "^/chat/([\\w-]+)",
      user: ['[data-testid="user-message"]', ".font-user-message"],
    },
    {
      id: "gemini",
      name: "Gemini",
      hosts: ["gemini.google.com"],
      // One <model-response> per answer. When the person opens "thinking", a <message-content>
      // appears inside <model-thoughts> before the answer's own: it is not the answer.
      assistant: ["model-response", ".model-response-text"],
      content: ["message-content.model-response-text", "message-content:not(model-thoughts *)", ".markdown:not(model-thoughts *)"],
      input: ['rich-textarea .ql-editor[contenteditable="true"]', '.ql-editor[contenteditable="true"]', 'rich-textarea [contenteditable="true"]'],
      editor: "quill",
      send: ["button.send-button", 'button[aria-label="Send message"]'],
      generating: ['mat-icon[fonticon="stop"]', "button.send-button.stop", 'button[aria-label="Stop response"]'],
      done: ["message-actions button", "copy-button button"],
      conversation: "^/(?:u/\\d+/)?app/([\\w-]+)",
      user: ["user-query", ".user-query-container"],
    },
    {
      id: "aistudio",
      name: "AI Studio",
      hosts: ["aistudio.google.com"],
      assistant: ["ms-chat-turn .chat-turn-container.model", 'ms-chat-turn [data-turn-role="Model"]', ".model-prompt-container"],
      // Thinking is shown in its own chunk of the same turn; only the answer's chunks count.
      content: ["ms-text-chunk", "ms-cmark-node"],
      input: ['textarea[formcontrolname="promptText"]', 'textarea[aria-label="Enter a prompt"]', "ms-prompt-input-wrapper textarea",
        "ms-autosize-textarea textarea", "ms-chunk-input textarea"],
      editor: "textarea",
      send: ['ms-run-button button[type="submit"]', 'button[aria-label="Run"][type="submit"]', "ms-run-button button"],
      generating: ['ms-run-button button[aria-label="Stop generating"]', 'button[aria-label="Stop generating"]',
        'ms-run-button button[aria-label="Cancel"]', "ms-run-button button.stoppable"],
      // The page shows the last tokens after its run button is back: an answer is over when its
      // turn's footer shows the thumbs-up (or, failing that, after the long quiet period).
      done: ['ms-chat-turn .turn-footer button[iconname="thumb_up"]', 'ms-chat-turn .turn-footer button[aria-label*="Good response"]'],
      waitForDone: true,
      conversation: "^/prompts/([\\w-]+)",
      user: ['ms-chat-turn .chat-turn-container.user', 'ms-chat-turn [data-turn-role="User"]'],
    },
    {
      id: "mistral",
      name: "Le Chat",
      hosts: ["chat.mistral.ai"],
      assistant: ['div[data-message-author-role="assistant"]'],
      content: ['[data-message-part-type="answer"]'],
      input: ['div.ProseMirror[contenteditable="true"]', 'textarea[name="message.text"]', 'form [contenteditable="true"]'],
      editor: "prosemirror",
      send: ['button[aria-label="Send question"]', 'form button[type="submit"]'],
      generating: ['button[aria-label="Stop generation"]', 'form button:has(rect[rx="2"])'],
      done: [],
      conversation: "^/chat/([\\w-]+)",
      user: ['div[data-message-author-role="user"]'],
    },
    {
      id: "deepseek",
      name: "DeepSeek",
      hosts: ["chat.deepseek.com"],
      assistant: ["div.ds-message:has(.ds-markdown)"],
      // The answer is the message's own markdown; "thinking" sits in a panel of its own.
      content: [":scope > .ds-markdown"],
      input: ["textarea#chat-input", 'textarea[placeholder*="DeepSeek"]', "textarea"],
      editor: "textarea",
      // No label on either: the send button is the one after the (hidden) file input, disabled
      // while the box is empty; the same place shows a square stop icon while the model writes.
      send: ['input[type="file"] + div[aria-disabled]:not(:has(svg rect))', 'div[role="button"][aria-label="Send"]'],
      generating: [".ds-icon-button:has(svg rect)", 'input[type="file"] + div:has(svg rect)'],
      done: ["div.ds-message + div > div.ds-flex"],
      conversation: "^/a/chat/s/([\\w-]+)",
      user: ["div.ds-message:not(:has(.ds-markdown))"],
    },
    {
      id: "grok",
      name: "Grok",
      hosts: ["grok.com"],
      assistant: ["div.items-start .message-bubble"],
      content: [".response-content-markdown"],
      input: ['div.ProseMirror[contenteditable="true"]', 'textarea[aria-label="Ask Grok anything"]', "form textarea"],
      editor: "prosemirror",
      send: ['button[type="submit"][aria-label="Submit"]', 'form button[type="submit"]'],
      generating: ['button[aria-label="Stop model response"]', 'button[aria-label="Stop"]', 'button:has(svg path[d^="M4 9.2"])'],
      done: [],
      conversation: "^/(?:chat|c)/([\\w-]+)",
      user: ["div.items-end .message-bubble"],
    },
  ];

  // Any other page (a local Open WebUI, a chat this table does not know): the message is the last
  // element holding a block's start (content/text.js finds it), the input box is the
  // last visible editable element, and the end of an answer is a quiet period.
  const GENERIC = {
    id: "generic",
    name: "this page",
    hosts: [],
    assistant: [],
    content: [],
    input: ['textarea:not([disabled])', '[contenteditable="true"]', '[contenteditable=""]'],
    editor: "auto",
    send: ['button[type="submit"]', 'button[aria-label*="Send" i]'],
    generating: [],
    done: [],
    conversation: null,
    user: [],
  };

  // The fields whose failure the popup reports, in the words it uses.
  const FIELD_NAMES = {
    assistant: "assistant messages",
    input: "input box",
    send: "send button",
    generating: "\"still generating\" indicator",
  };

  function hostMatches(host, wanted) {
    return host === wanted || host.endsWith("." + wanted);
  }

  function adapterFor(host) {
    return SITES.find((site) => site.hosts.some((wanted) => hostMatches(host, wanted))) || GENERIC;
  }

  /* The adapter with the person's own selectors for this site (from "Point at it", kept by the
     background per site) tried before the built-in ones, each field on its own. `trials`: the
     selectors taught on this page that have not proven themselves yet (background/selectors.js),
     tried first of all, here only. */
  function withOverrides(adapter, overrides, trials = null) {
    const merged = { ...adapter, builtIn: adapter, overridden: {}, onTrial: {} };
    const strings = (list) => (Array.isArray(list) ? list.filter((item) => typeof item === "string") : []);
    for (const field of Object.keys(FIELD_NAMES)) {
      const onTrial = strings(trials && trials[field]);
      const own = [...onTrial, ...strings(overrides && overrides[field]).filter((item) => !onTrial.includes(item))];
      if (!own.length) continue;
      merged[field] = [...own, ...adapter[field].filter((selector) => !own.includes(selector))];
      merged.overridden[field] = own;
      if (onTrial.length) merged.onTrial[field] = onTrial;
    }
    return merged;
  }

  /* The key the person's selectors are kept under: the adapter's id on a known site, the page's
     origin (address and port) elsewhere. */
  function siteKey(url) {
    const parsed = new URL(url);
    const adapter = adapterFor(parsed.hostname);
    return adapter === GENERIC ? parsed.origin : adapter.id;
  }

  root.OperatorAdapters = Object.freeze({ SITES, GENERIC, FIELD_NAMES, adapterFor, withOverrides, siteKey });
})(globalThis);
