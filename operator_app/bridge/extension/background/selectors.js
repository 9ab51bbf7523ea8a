/* The person's own selectors, per site ("Point at it" in a page, or imported in the popup): kept in
   the background's store as {site: {field: [selector]}}, where site is an adapter's id on a known
   chat site and a page's origin elsewhere (shared/adapters.js siteKey). A page's content script
   may read and teach only its own site's (the browser names the sender's address); the popup
   lists, removes, exports and imports them all.

   A selector taught by pointing is on trial first: kept for the page where it was taught (its
   address without the query) and used there only, until it proves itself there (an answer it
   found ran in Operator, results went into the input box it found, ...: the content script
   says so), and only then for the whole site (issue 26: a selector taught on one tab, pointing
   at the wrong element, made every tab of the site ignore its real answers, unsaid). Trials are
   kept as {site: {field: [{selector, page, at}]}}; they are not exported.

   An imported file is checked before anything is kept: a version, known sites (an adapter's id,
   or an http(s) origin), known fields, and selectors the browser can parse, at most
   MAX_PER_FIELD per field and MAX_SELECTOR_CHARS each. A file with one bad entry changes nothing
   and says which entry. */

(function (root) {
  "use strict";

  const Store = root.OperatorStore;
  const { SITES, FIELD_NAMES, siteKey } = root.OperatorAdapters;
  const KEY = "selectorOverrides";
  const TRIALS = "selectorTrials";
  const TRIALS_PER_FIELD = 5;
  const FORMAT = "operator-bridge-selectors";
  const MAX_PER_FIELD = 3;
  const MAX_SELECTOR_CHARS = 500;
  const MAX_SITES = 200;

  async function all() {
    const { [KEY]: stored = {} } = await Store.get([KEY]);
    return stored;
  }

  async function allTrials() {
    const { [TRIALS]: stored = {} } = await Store.get([TRIALS]);
    return stored;
  }

  /* The page a trial belongs to: its address without query or fragment. */
  function pageOf(url) {
    const parsed = new URL(url);
    return parsed.host + parsed.pathname;
  }

  /* {selectors, trials} for the page at `url`: the site's proven selectors, and those on trial
     on this very page ({field: [selector]}). */
  async function forUrl(url) {
    try {
      const site = siteKey(url);
      const page = pageOf(url);
      const trials = {};
      for (const [field, entries] of Object.entries((await allTrials())[site] || {})) {
        const here = entries.filter((entry) => entry.page === page).map((entry) => entry.selector);
        if (here.length) trials[field] = here;
      }
      return { selectors: (await all())[site] || {}, trials };
    } catch (error) {
      return { selectors: {}, trials: {} };
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

  /* Teach one field of the sender's page: the selector goes on trial there (one taught a moment
     ago is the one the person means). Returns the page's {selectors, trials}. */
  async function teach(url, field, selector) {
    if (!FIELD_NAMES[field]) return { ok: false, refused: "unknown field " + field };
    const problem = checkSelector(selector);
    if (problem) return { ok: false, refused: problem };
    const trials = await allTrials();
    const site = siteKey(url);
    const page = pageOf(url);
    const fields = trials[site] || {};
    const others = (fields[field] || []).filter((entry) => !(entry.page === page && entry.selector === selector));
    fields[field] = [{ selector, page, at: Date.now() }, ...others].slice(0, TRIALS_PER_FIELD);
    trials[site] = fields;
    await Store.set({ [TRIALS]: trials });
    return { ok: true, site, page, ...(await forUrl(url)) };
  }

  /* A selector on trial on the sender's page proved itself: it becomes the site's own, first of
     its field. Returns the page's {selectors, trials}, or ok false when no such trial is kept. */
  async function prove(url, field, selector) {
    const trials = await allTrials();
    const site = siteKey(url);
    const page = pageOf(url);
    const entries = (trials[site] || {})[field] || [];
    if (!entries.some((entry) => entry.page === page && entry.selector === selector)) return { ok: false };
    trials[site][field] = entries.filter((entry) => entry.selector !== selector);
    if (!trials[site][field].length) delete trials[site][field];
    if (!Object.keys(trials[site]).length) delete trials[site];
    const stored = await all();
    const fields = stored[site] || {};
    fields[field] = [selector, ...(fields[field] || []).filter((item) => item !== selector)].slice(0, MAX_PER_FIELD);
    stored[site] = fields;
    await Store.set({ [KEY]: stored, [TRIALS]: trials });
    return { ok: true, site, ...(await forUrl(url)) };
  }

  /* Remove a selector of the site's, proven or on trial (on any page). */
  async function remove(site, field, selector) {
    const stored = await all();
    const trials = await allTrials();
    let found = false;
    const fields = stored[site];
    if (fields && fields[field] && fields[field].includes(selector)) {
      found = true;
      fields[field] = fields[field].filter((item) => item !== selector);
      if (!fields[field].length) delete fields[field];
      if (!Object.keys(fields).length) delete stored[site];
    }
    const onTrial = trials[site];
    if (onTrial && onTrial[field] && onTrial[field].some((entry) => entry.selector === selector)) {
      found = true;
      onTrial[field] = onTrial[field].filter((entry) => entry.selector !== selector);
      if (!onTrial[field].length) delete onTrial[field];
      if (!Object.keys(onTrial).length) delete trials[site];
    }
    if (!found) return { ok: false };
    await Store.set({ [KEY]: stored, [TRIALS]: trials });
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
    const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
    if (!data || data.format !== FORMAT || data.version !== 1 || !isObject(data.sites)) {
      return { ok: false, problem: 'not an export of Operator\'s selectors: {"format": "' + FORMAT + '", "version": 1, "sites": {...}} expected' };
    }
    const sites = Object.entries(data.sites);
    if (sites.length > MAX_SITES) return { ok: false, problem: "more than " + MAX_SITES + " sites" };
    for (const [site, fields] of sites) {
      const problem = checkSite(site) || (isObject(fields) ? checkFields(site, fields) : site + ": its fields must be an object");
      if (problem) return { ok: false, problem };
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

  /* What is wrong with one imported site's fields, or null. */
  function checkFields(site, fields) {
    for (const [field, selectors] of Object.entries(fields)) {
      if (!FIELD_NAMES[field]) return site + ": unknown field " + JSON.stringify(field) + " (fields: " + Object.keys(FIELD_NAMES).join(", ") + ")";
      if (!Array.isArray(selectors) || !selectors.length || selectors.length > MAX_PER_FIELD) {
        return site + " " + field + ": a list of 1 to " + MAX_PER_FIELD + " selectors";
      }
      for (const selector of selectors) {
        const problem = checkSelector(selector);
        if (problem) return site + " " + field + ": " + problem;
      }
    }
    return null;
  }

  root.OperatorSelectors = Object.freeze({ all, allTrials, forUrl, teach, prove, remove, exported, imported, siteKey, pageOf });
})(globalThis);
