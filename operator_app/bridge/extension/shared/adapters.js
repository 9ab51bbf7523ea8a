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
     generating    present while the model is still writing
     conversation  optional regular expression on the URL path; its first group names the
                   conversation (default: the whole path)

   The selectors were chosen from what open-source extensions and userscripts that read these
   sites show of their pages (late 2025); none could be checked against the live sites from
   where this was built, which is why every field has alternatives and why a field that finds
   nothing is reported instead of being silently skipped. */

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
      send: ['button[data-testid="send-button"]', "#composer-submit-button"],
      generating: ['button[data-testid="stop-button"]'],
      conversation: "^/(?:g/[^/]+/)?c/([\\w-]+)",
    },
    {
      id: "claude",
      name: "Claude",
      hosts: ["claude.ai"],
      assistant: ["div[data-is-streaming]", ".font-claude-response", ".font-claude-message"],
      content: [".font-claude-response", ".font-claude-message"],
      input: ['div.ProseMirror[contenteditable="true"]', 'fieldset [contenteditable="true"]', '[contenteditable="true"][role="textbox"]'],
      editor: "prosemirror",
      send: ['button[aria-label="Send message"]', 'button[aria-label="Send Message"]', 'fieldset button[type="submit"]'],
      generating: ['[data-is-streaming="true"]', 'button[aria-label="Stop response"]'],
      conversation: "^/chat/([\\w-]+)",
    },
    {
      id: "gemini",
      name: "Gemini",
      hosts: ["gemini.google.com"],
      assistant: ["model-response message-content", "model-response .model-response-text", "model-response"],
      content: [],
      input: ['rich-textarea .ql-editor[contenteditable="true"]', '.ql-editor[contenteditable="true"]', 'rich-textarea [contenteditable="true"]'],
      editor: "quill",
      send: ["button.send-button", 'button[aria-label="Send message"]'],
      generating: ["button.send-button.stop", 'mat-icon[data-mat-icon-name="stop"]', 'button[aria-label="Stop response"]'],
      conversation: "^/(?:u/\\d+/)?app/([\\w-]+)",
    },
    {
      id: "aistudio",
      name: "AI Studio",
      hosts: ["aistudio.google.com"],
      assistant: ["ms-chat-turn .chat-turn-container.model", 'ms-chat-turn [data-turn-role="Model"]'],
      // Thinking is shown in its own chunk of the same turn; only the answer's chunks count.
      content: ["ms-text-chunk", "ms-cmark-node"],
      input: ["ms-prompt-input-wrapper textarea", "ms-autosize-textarea textarea", "ms-chunk-input textarea"],
      editor: "textarea",
      send: ['run-button button[aria-label="Run"]', "run-button button", 'button[aria-label="Run"]'],
      generating: ["run-button button.stoppable", 'run-button button[aria-label="Stop"]', 'button[aria-label="Stop generating"]'],
      conversation: "^/prompts/([\\w-]+)",
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
      conversation: "^/chat/([\\w-]+)",
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
      send: ['div[role="button"][aria-label="Send"]', 'button[aria-label="Send"]'],
      generating: ['div[role="button"][aria-label="Stop"]', 'div[role="button"]:has(svg rect)'],
      conversation: "^/a/chat/s/([\\w-]+)",
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
      generating: ['button[aria-label="Stop model response"]', 'button[aria-label="Stop"]'],
      conversation: "^/(?:chat|c)/([\\w-]+)",
    },
  ];

  // Any other page (a local Open WebUI, a chat this table does not know): the message is the last
  // element holding an OPERATOR_CMD marker line (content/text.js finds it), the input box is the
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
    conversation: null,
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

  root.OperatorAdapters = Object.freeze({ SITES, GENERIC, FIELD_NAMES, adapterFor });
})(globalThis);
