/* The HTTP side of the extension: the only code that talks to Operator (docs/bridge-protocol.md in
   Operator's repository is the contract). Requests go to 127.0.0.1 only, carry the paired token,
   and every outcome comes back as a value, never a thrown error: {ok, status, data, error}, where
   error.code is the bridge's code or one of this file's own (UNREACHABLE, NOT_PAIRED, TIMEOUT).
   The token and port come from the background's own store (background/store.js). */

(function (root) {
  "use strict";

  const DEFAULT_PORT = 47821;
  const SETTINGS_DEFAULTS = {
    port: DEFAULT_PORT,
    token: null,
    workspace: null,
    autoSend: false,
    autoSendDelayMs: 2000,
    sendsPerMinute: 3,
  };

  async function settings() {
    return { ...SETTINGS_DEFAULTS, ...(await root.OperatorStore.get(Object.keys(SETTINGS_DEFAULTS))) };
  }

  async function request(method, path, body, { timeoutMs = 10000, token = undefined, port = undefined } = {}) {
    const stored = await settings();
    const useToken = token === undefined ? stored.token : token;
    const usePort = port === undefined ? stored.port : port;
    if (useToken === null && path !== "pair") {
      return { ok: false, status: 0, data: null, error: { code: "NOT_PAIRED", message: "not paired with Operator yet" } };
    }
    const headers = { "Content-Type": "application/json" };
    if (useToken) headers.Authorization = "Bearer " + useToken;
    let response;
    try {
      response = await fetch("http://127.0.0.1:" + usePort + "/v1/" + path, {
        method,
        headers,
        body: body === null ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        cache: "no-store",
        credentials: "omit",
      });
    } catch (error) {
      return { ok: false, status: 0, data: null, error: unanswered(error, usePort) };
    }
    return answered(response);
  }

  function unanswered(error, port) {
    return error && error.name === "TimeoutError"
      ? { code: "TIMEOUT", message: "Operator did not answer in time" }
      : { code: "UNREACHABLE", message: "nothing answers on 127.0.0.1:" + port };
  }

  async function answered(response) {
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    if (response.ok) return { ok: true, status: response.status, data, error: null };
    const error = data && data.error ? data.error : { code: "HTTP_" + response.status, message: response.statusText };
    return { ok: false, status: response.status, data, error };
  }

  root.OperatorBridgeApi = Object.freeze({ DEFAULT_PORT, SETTINGS_DEFAULTS, settings, request });
})(globalThis);
