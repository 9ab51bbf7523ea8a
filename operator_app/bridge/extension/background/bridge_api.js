/* The HTTP side of the extension: the only code that talks to Operator (docs/bridge-protocol.md in
   Operator's repository is the contract). Requests go to 127.0.0.1 only, and every outcome comes
   back as a value, never a thrown error: {ok, status, data, error}, where error.code is the
   bridge's code or one of this file's own (UNREACHABLE, NOT_PAIRED, TIMEOUT, NOT_OPERATOR).

   Loopback is not a trust boundary, in this direction either: while Operator is off, any program
   of any user may listen on its port (issue 35: one received the token and the streamed answer,
   and had its fake results typed into the chat). So the key the pairing gave (the "token", from
   the background's own store, background/store.js) never leaves the background: before anything
   else the extension opens a session, sending a fresh nonce, and Operator must answer with an
   HMAC of it under that key, checked here (crypto.subtle.verify) before any page text goes out.
   Every request is then signed under the session's key (which proves the pairing to Operator),
   and every answer must carry Operator's signature of its status and body: an answer without it
   is no answer (NOT_OPERATOR), nothing of it reaches a page, and the next request opens a new
   session. The construction: "The handshake" in docs/bridge-protocol.md. */

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
  const PROTOCOL = "operator-bridge/1";
  const HANDSHAKE_TIMEOUT_MS = 10000;
  const utf8 = new TextEncoder();

  let session = null; // {port, token, id, key (CryptoKey), seq}: the session in use
  let opening = null; // {port, token, promise}: the handshake under way, shared by all who wait

  async function settings() {
    return { ...SETTINGS_DEFAULTS, ...(await root.OperatorStore.get(Object.keys(SETTINGS_DEFAULTS))) };
  }

  /* ---- the primitives (WebCrypto: HMAC-SHA-256, SHA-256) ---- */

  function b64url(bytes) {
    let text = "";
    for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromB64url(text) {
    try {
      const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
      return Uint8Array.from(plain, (char) => char.charCodeAt(0));
    } catch (error) {
      return new Uint8Array(0);
    }
  }

  function hmacKey(raw) {
    return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  }

  async function mac(key, parts) {
    return new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8.encode(parts.join("\n"))));
  }

  /* Whether `proof` (URL-safe base64) is the HMAC of `parts` under `key`: the browser's own
     verify, which compares in constant time. */
  function verified(key, proof, parts) {
    if (typeof proof !== "string" || !proof) return Promise.resolve(false);
    return crypto.subtle.verify("HMAC", key, fromB64url(proof), utf8.encode(parts.join("\n")));
  }

  /* ---- outcomes ---- */

  function failed(code, message, status = 0) {
    return { ok: false, status, data: null, error: { code, message } };
  }

  function unanswered(error, port) {
    return error && error.name === "TimeoutError"
      ? failed("TIMEOUT", "Operator did not answer in time")
      : failed("UNREACHABLE", "nothing answers on 127.0.0.1:" + port);
  }

  function notOperator(port) {
    return failed("NOT_OPERATOR", "something answers on 127.0.0.1:" + port + " but cannot prove it is the Operator this browser paired with"
      + " (another program may hold the port while Operator's bridge is off, or this Operator is older than the extension): nothing was sent to it");
  }

  function parsed(bytes) {
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      return null;
    }
  }

  function answered(status, bytes) {
    const data = parsed(bytes);
    if (status >= 200 && status < 300) return { ok: true, status, data, error: null };
    const error = data && data.error ? data.error : { code: "HTTP_" + status, message: "HTTP " + status };
    return { ok: false, status, data, error };
  }

  /* ---- the session ---- */

  function address(port, path) {
    return "http://127.0.0.1:" + port + "/v1/" + path;
  }

  function post(port, path, body, timeoutMs) {
    return fetch(address(port, path), {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs), cache: "no-store", credentials: "omit",
    });
  }

  /* Open a session with the Operator paired under `token` on `port`: {session} or {outcome}. */
  async function handshake(token, port) {
    const pairingKey = await hmacKey(utf8.encode(token));
    const pairing = b64url(await mac(pairingKey, [PROTOCOL + " pairing"]));
    const nonce = b64url(crypto.getRandomValues(new Uint8Array(32)));
    let response;
    let bytes;
    try {
      response = await post(port, "handshake", { pairing, nonce }, HANDSHAKE_TIMEOUT_MS);
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      return { outcome: unanswered(error, port) };
    }
    const data = parsed(bytes);
    if (!response.ok) {
      // Unproven, so it decides nothing but this: the key was not taken (pair again), or the
      // Origin; anything else is no Operator's answer.
      const code = data && data.error && data.error.code;
      if (code === "BRIDGE_UNAUTHORIZED" || code === "BRIDGE_BAD_ORIGIN") return { outcome: answered(response.status, bytes) };
      return { outcome: notOperator(port) };
    }
    const said = data && [nonce, data.nonce, data.session];
    if (!said || said.some((part) => typeof part !== "string" || !part || part.includes("\n"))
      || !(await verified(pairingKey, data.proof, [PROTOCOL + " server", ...said]))) {
      return { outcome: notOperator(port) };
    }
    const key = await hmacKey(await mac(pairingKey, [PROTOCOL + " session", ...said]));
    return { session: { port, token, id: data.session, key, seq: 0 } };
  }

  /* The session to sign with: the one in use, or one opened now (one handshake at a time). */
  async function currentSession(token, port) {
    if (session && session.token === token && session.port === port) return { session };
    if (!opening || opening.token !== token || opening.port !== port) {
      const attempt = { token, port, promise: null };
      attempt.promise = handshake(token, port).then((opened) => {
        if (opening === attempt) opening = null;
        if (opened.session) session = opened.session;
        return opened;
      });
      opening = attempt;
    }
    return opening.promise;
  }

  /* Forget a session that failed: the next request proves Operator again. */
  function drop(used) {
    if (session === used) session = null;
  }

  async function signed(used, method, url) {
    used.seq += 1;
    const target = new URL(url);
    const proof = b64url(await mac(used.key, ["request", String(used.seq), method, target.pathname + target.search]));
    return { seq: used.seq, authorization: "Operator " + used.id + " " + used.seq + " " + proof };
  }

  async function answerProven(used, seq, status, bytes, proof) {
    const digest = b64url(await crypto.subtle.digest("SHA-256", bytes));
    return verified(used.key, proof, ["response", String(seq), String(status), digest]);
  }

  /* One request in the session; {retry: true} when Operator no longer knows the session. */
  async function once(used, method, path, body, timeoutMs) {
    const url = address(used.port, path);
    const { seq, authorization } = await signed(used, method, url);
    let response;
    let bytes;
    try {
      response = await fetch(url, {
        method, headers: { "Content-Type": "application/json", Authorization: authorization },
        body: body === null ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs), cache: "no-store", credentials: "omit",
      });
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      drop(used); // whoever answers next on this port proves itself first
      return { outcome: unanswered(error, used.port) };
    }
    if (await answerProven(used, seq, response.status, bytes, response.headers.get("Operator-Proof"))) {
      const outcome = answered(response.status, bytes);
      // Operator stops listening: whatever holds the port next must prove itself before it
      // hears a word (the session dies with Operator's socket anyway).
      if (outcome.ok && outcome.data && outcome.data.bridge === "stopping") drop(used);
      return { outcome };
    }
    drop(used);
    if (response.status === 401) return { retry: true, outcome: answered(401, bytes) };
    return { outcome: notOperator(used.port) };
  }

  async function request(method, path, body, { timeoutMs = 10000, token = undefined, port = undefined } = {}) {
    const stored = await settings();
    const useToken = token === undefined ? stored.token : token;
    const usePort = port === undefined ? stored.port : port;
    if (path === "pair") return pairRequest(body, usePort, timeoutMs);
    if (!useToken) return failed("NOT_PAIRED", "not paired with Operator yet");
    let outcome = null;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const opened = await currentSession(useToken, usePort);
      if (!opened.session) return opened.outcome;
      const result = await once(opened.session, method, path, body, timeoutMs);
      outcome = result.outcome;
      if (!result.retry) return outcome;
    }
    return outcome;
  }

  /* Pairing sends the code the person typed and takes the key back: nothing is signed yet. */
  async function pairRequest(body, port, timeoutMs) {
    try {
      const response = await post(port, "pair", body, timeoutMs);
      return answered(response.status, new Uint8Array(await response.arrayBuffer()));
    } catch (error) {
      return unanswered(error, port);
    }
  }

  /* A new pairing: the session of the old key goes. */
  function forgetSession() {
    session = null;
    opening = null;
  }

  root.OperatorBridgeApi = Object.freeze({ DEFAULT_PORT, SETTINGS_DEFAULTS, settings, request, forgetSession });
})(globalThis);
