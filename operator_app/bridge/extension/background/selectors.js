/* The person's own selectors, per site ("Point at it" in a page, or imported in the popup): kept in
   the background's store as {site: {field: [selector]}}, where site is an adapter's id on a known
   chat site and a page's origin elsewhere (shared/adapters.js siteKey). A page's content script
   may read and teach only its own site's (the browser names the sender's address); the popup
   lists, removes, exports and imports them all.

   An imported file is checked before anything is kept: a version, known sites (an adapter's id,
   or an http(s) origin), known fields, and selectors the browser can parse, at most
   MAX_PER_FIELD per field and MAX_SELECTOR_CHARS each. A file with one bad entry changes nothing
   and says which entry. */

(function (root) {
  "use strict";

  const Store = root.OperatorStore;
  const { SITES, FIELD_NAMES, siteKey } = root.OperatorAdapters;
  const KEY = "selectorOverrides";
  const FORMAT = "operator-bridge-selectors";
  const MAX_PER_FIELD = 3;
  const MAX_SELECTOR_CHARS = 500;
  const MAX_SITES = 200;

  async function all() {
    const { [KEY]: stored = {} } = await Store.get([KEY]);
    return stored;
  }

  async function forUrl(url) {
    try {
      return (await all())[siteKey(url)] || {};
    } catch (error) {
      return {};
    }
  }

  /* A selector this browser can parse. Chromium's service worker has no DOM to ask: there the
     popup checks an import before sending it, and a taught selector was found on its page (a
     selector that does not parse would only find nothing: content/text.js). */
  function parses(selector) {
    if (typeof DocumentFragment !== "function") return true;
    try {
      new DocumentFragment().querySelector(selector);
      return true;
    } catch (error) {
      return false;
    }
  }

  function checkSelector(selector) {
    if (typeof selector !== "string" || !selector.trim()) return "a selector must be a non-empty string";
    if (selector.length > MAX_SELECTOR_CHARS) return "a selector is at most " + MAX_SELECTOR_CHARS + " characters";
    if (!parses(selector)) return "the browser cannot parse the selector " + JSON.stringify(selector.slice(0, 80));
    return null;
  }

  function checkSite(site) {
    if (SITES.some((adapter) => adapter.id === site)) return null;
    try {
      const url = new URL(site);
      if (/^https?:$/.test(url.protocol) && url.origin === site) return null;
    } catch (error) {
      // not a URL
    }
    return "unknown site " + JSON.stringify(String(site).slice(0, 80)) + " (an adapter's id: "
      + SITES.map((adapter) => adapter.id).join(", ") + "; or a page's origin such as http://127.0.0.1:8080)";
  }

  /* Teach one field of the sender's site: the new selector goes first (one taught a moment ago
     is the one the person means). Returns the site's selectors. */
  async function teach(url, field, selector) {
    if (!FIELD_NAMES[field]) return { ok: false, refused: "unknown field " + field };
    const problem = checkSelector(selector);
    if (problem) return { ok: false, refused: problem };
    const stored = await all();
    const site = siteKey(url);
    const fields = stored[site] || {};
    fields[field] = [selector, ...(fields[field] || []).filter((item) => item !== selector)].slice(0, MAX_PER_FIELD);
    stored[site] = fields;
    await Store.set({ [KEY]: stored });
    return { ok: true, site, selectors: fields };
  }

  async function remove(site, field, selector) {
    const stored = await all();
    const fields = stored[site];
    if (!fields || !fields[field]) return { ok: false };
    fields[field] = fields[field].filter((item) => item !== selector);
    if (!fields[field].length) delete fields[field];
    if (!Object.keys(fields).length) delete stored[site];
    await Store.set({ [KEY]: stored });
    return { ok: true, selectors: stored[site] || {} };
  }

  async function exported() {
    return JSON.stringify({ format: FORMAT, version: 1, sites: await all() }, null, 2);
  }

  /* Import a file made by exported(): its sites' fields replace the ones kept for them. */
  async function imported(text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch (error) {
      return { ok: false, problem: "not JSON: paste the text the popup's Export gave" };
    }
    if (!data || data.format !== FORMAT || data.version !== 1 || typeof data.sites !== "object" || data.sites === null || Array.isArray(data.sites)) {
      return { ok: false, problem: 'not an export of Operator\'s selectors: {"format": "' + FORMAT + '", "version": 1, "sites": {...}} expected' };
    }
    const sites = Object.entries(data.sites);
    if (sites.length > MAX_SITES) return { ok: false, problem: "more than " + MAX_SITES + " sites" };
    for (const [site, fields] of sites) {
      const problem = checkSite(site);
      if (problem) return { ok: false, problem };
      if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return { ok: false, problem: site + ": its fields must be an object" };
      for (const [field, selectors] of Object.entries(fields)) {
        if (!FIELD_NAMES[field]) return { ok: false, problem: site + ": unknown field " + JSON.stringify(field) + " (fields: " + Object.keys(FIELD_NAMES).join(", ") + ")" };
        if (!Array.isArray(selectors) || !selectors.length || selectors.length > MAX_PER_FIELD) {
          return { ok: false, problem: site + " " + field + ": a list of 1 to " + MAX_PER_FIELD + " selectors" };
        }
        for (const selector of selectors) {
          const problem = checkSelector(selector);
          if (problem) return { ok: false, problem: site + " " + field + ": " + problem };
        }
      }
    }
    const stored = await all();
    let count = 0;
    for (const [site, fields] of sites) {
      stored[site] = { ...(stored[site] || {}), ...fields };
      count += Object.values(fields).reduce((sum, selectors) => sum + selectors.length, 0);
    }
    await Store.set({ [KEY]: stored });
    return { ok: true, count, sites: sites.map(([site]) => site) };
  }

  root.OperatorSelectors = Object.freeze({ all, forUrl, teach, remove, exported, imported, siteKey });
})(globalThis);
