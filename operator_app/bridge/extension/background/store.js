/* The background's own storage: the pairing's key ("token") and port, the person's settings, the
   origins they chose to watch, the auto-send record. Only the background reads or writes it; the popup and the
   content scripts ask the background.

   Why not storage.local: every content script may read and write storage.local (Chromium offers
   setAccessLevel for storage.session only), so a page whose renderer is compromised would hold the
   token, or could turn auto-send on. This store is IndexedDB in the extension's own origin, which
   a content script cannot open: content scripts run in the pages' origins. A copy is kept in
   memory (the background is its only writer), so reads cost nothing. */

(function (root) {
  "use strict";

  const DATABASE = "operator-bridge";
  const TABLE = "settings";

  let database = null;
  let mirror = null;
  let loading = null;

  function opened() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(TABLE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }

  function finished(transaction) {
    return new Promise((resolve, reject) => {
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  }

  async function load() {
    database = await opened();
    const table = database.transaction(TABLE, "readonly").objectStore(TABLE);
    const [keys, values] = await Promise.all([table.getAllKeys(), table.getAll()].map((request) => new Promise((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    })));
    mirror = new Map(keys.map((key, index) => [key, values[index]]));
  }

  function ready() {
    if (!loading) loading = load();
    return loading;
  }

  /* The values of `keys` that are set, as an object (like storage.local.get with a list). */
  async function get(keys) {
    await ready();
    const found = {};
    for (const key of keys) if (mirror.has(key)) found[key] = structuredClone(mirror.get(key));
    return found;
  }

  async function all() {
    await ready();
    return Object.fromEntries([...mirror].map(([key, value]) => [key, structuredClone(value)]));
  }

  async function set(values) {
    await ready();
    const transaction = database.transaction(TABLE, "readwrite");
    for (const [key, value] of Object.entries(values)) {
      mirror.set(key, structuredClone(value));
      transaction.objectStore(TABLE).put(value, key);
    }
    await finished(transaction);
  }

  async function remove(keys) {
    await ready();
    const transaction = database.transaction(TABLE, "readwrite");
    for (const key of keys) {
      mirror.delete(key);
      transaction.objectStore(TABLE).delete(key);
    }
    await finished(transaction);
  }

  async function clear() {
    await ready();
    mirror.clear();
    const transaction = database.transaction(TABLE, "readwrite");
    transaction.objectStore(TABLE).clear();
    await finished(transaction);
  }

  root.OperatorStore = Object.freeze({ get, all, set, remove, clear });
})(globalThis);
