// infmem's local page: hand-written, no framework, no third-party code.
// Everything it shows comes from /api/ on this origin; text from memories
// is always inserted as text (textContent), never as HTML.
"use strict";

const state = { csrf: "", scopes: null, tz: "" };
const PAGE = 50;

// el builds an element: el("a", {href: "#"}, "text", child…).
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of kids.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const c of kids) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function say(msg, bad) {
  const s = document.getElementById("status");
  s.textContent = msg || "";
  s.className = bad ? "bad" : msg ? "good" : "";
}

// api calls the page's API; writes carry the CSRF token.
async function api(path, body) {
  const opts = { credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.headers["X-CSRF-Token"] = state.csrf;
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const ct = r.headers.get("Content-Type") || "";
  const data = ct.startsWith("application/json") ? await r.json() : { error: (await r.text()).trim() };
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

// fmtDate shows a time in the user's zone (the profile's, as Claude's
// tools read it), named, else in the browser's.
function fmtDate(s) {
  if (!s) return "";
  const d = new Date(s);
  if (isNaN(d)) return s;
  const o = { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };
  if (state.tz) {
    try { return d.toLocaleString(undefined, { ...o, timeZone: state.tz, timeZoneName: "short" }); } catch (e) { /* a zone this browser does not know */ }
  }
  return d.toLocaleString(undefined, o);
}

// plural is "1 memory", "2 memories".
function plural(n, one, many) { return n === 1 ? "1 " + one : n + " " + many; }

function fmtDay(s) {
  const d = new Date(s);
  return d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

function short(t, n) { return t.length > n ? t.slice(0, n - 1) + "…" : t; }

function query() {
  const h = location.hash.slice(1);
  const i = h.indexOf("?");
  return { path: i < 0 ? h : h.slice(0, i), params: new URLSearchParams(i < 0 ? "" : h.slice(i + 1)) };
}

function go(path, params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== "" && v !== undefined && v !== null) p.set(k, v);
  const s = p.toString();
  location.hash = path + (s ? "?" + s : "");
}

async function scopeNames() {
  if (!state.scopes) state.scopes = (await api("/api/scopes")).scopes;
  return state.scopes;
}

function scopeSelect(name, value, withAll) {
  const s = el("select", { name, id: "f-" + name });
  s.append(el("option", { value: "" }, withAll ? "All scopes" : "—"));
  scopeNames().then((list) => {
    for (const sc of list) s.append(el("option", { value: sc.name, selected: sc.name === value }, sc.name));
  }).catch(() => {});
  return s;
}

const SOURCES = ["note", "conversation", "user_profile", "summary", "lesson", "file"];

function sourceSelect(value) {
  const s = el("select", { name: "source", id: "f-source" }, el("option", { value: "" }, "Any kind"));
  for (const v of SOURCES) s.append(el("option", { value: v, selected: v === value }, v));
  return s;
}

function field(label, input) {
  return el("label", { class: "field" }, el("span", {}, label), input);
}

function tagList(tags) {
  return el("span", { class: "tags" }, tags.map((t) => el("a", { class: "tag", href: "#/browse?tag=" + encodeURIComponent(t) }, "#" + t)));
}

// card is one memory in a list; it links to its page.
function card(m) {
  const meta = el("div", { class: "meta" },
    el("span", { class: "scope" }, m.scope), " · ", el("time", { datetime: m.timestamp }, fmtDate(m.timestamp)),
    " · ", m.source, m.pinned ? " · pinned" : "", m.forgotten_at ? " · forgotten" : "", m.archived ? " · archived" : "");
  const top = el("div", { class: "cardtop" }, el("a", { class: "text", href: "#/memory/" + m.id, "data-id": m.id }, short(m.text, 400)));
  if (m.confidence !== undefined) {
    const pct = Math.round(m.confidence * 100);
    top.append(el("span", { class: "conf" + (m.weak ? " weak" : ""), title: "confidence " + m.confidence.toFixed(3) + (m.weak ? " (weak: under the relevance bar)" : "") },
      el("meter", { min: 0, max: 1, value: m.confidence }), " ", pct + "%", m.weak ? " weak" : ""));
  }
  if (m.folded) meta.append(" · ", el("span", { class: "folded", title: "Look-alike copies of this memory that the search shows as this one" }, "stands for " + plural(m.folded + 1, "copy", "copies")));
  return el("li", { class: "card" + (m.forgotten_at ? " forgotten" : "") }, top, meta, contextList(m), m.tags.length ? tagList(m.tags) : null);
}

// contextList shows the turns next to a search result in its conversation
// that the search folded into it (as part of this result), each linking
// to its own page; none: nothing.
function contextList(m) {
  if (!m.context || !m.context.length) return null;
  return el("ol", { class: "context", "aria-label": "Context: the turns next to it in its conversation" },
    m.context.map((c) => el("li", { class: "turn" },
      el("span", { class: "meta" }, c.speaker ? c.speaker + " · " : "", el("time", { datetime: c.timestamp }, fmtDate(c.timestamp)), " "),
      el("a", { class: "text", href: "#/memory/" + c.id, "data-id": c.id }, short(c.text, 300)))));
}

// --- Search -----------------------------------------------------------
async function viewSearch(main, p) {
  const q = p.get("q") || "";
  const input = el("input", { type: "search", name: "q", id: "q", value: q, placeholder: "What to recall, e.g. Apollo deadline", autocomplete: "off", "aria-label": "Search your memory" });
  const tag = el("input", { type: "text", name: "tag", id: "f-tag", value: p.get("tag") || "", placeholder: "tag" });
  const form = el("form", { class: "filters", role: "search" },
    el("div", { class: "grow" }, input),
    field("Scope", scopeSelect("scope", p.get("scope") || "", true)),
    field("Tag", tag),
    field("Kind", sourceSelect(p.get("source") || "")),
    el("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    go("/search", { q: f.get("q"), scope: f.get("scope"), tag: f.get("tag"), source: f.get("source") });
  });
  main.append(el("h2", {}, "Search"), form);
  input.focus();
  if (!q.trim()) {
    // Before a search: the newest memories, so the page opens on something.
    const params = new URLSearchParams({ limit: 10 });
    for (const k of ["scope", "tag", "source"]) if (p.get(k)) params.set(k, p.get(k));
    const res = await api("/api/memories?" + params);
    main.append(el("p", { class: "muted" }, "Results are ranked as Claude's retrieve_memory ranks them, with the same confidence. Browse lists everything."));
    if (!res.memories.length) { main.append(el("p", { class: "muted", id: "recent-none" }, "Nothing is remembered yet.")); return; }
    main.append(el("h3", {}, "Recent memories"), el("ol", { class: "results", id: "recent" }, res.memories.map(card)));
    if (res.total > res.memories.length) main.append(el("p", {}, el("a", { href: "#/browse" }, "Browse all " + plural(res.total, "memory", "memories"))));
    return;
  }
  const limit = Math.min(parseInt(p.get("limit") || "20", 10), 100);
  const params = new URLSearchParams({ q, limit });
  for (const k of ["scope", "tag", "source"]) if (p.get(k)) params.set(k, p.get(k));
  const res = await api("/api/search?" + params);
  // The clear matches are shown; the weak ones (under the relevance bar)
  // are folded away, as loose matches padding the list.
  const clear = res.results.filter((m) => !m.weak), weak = res.results.filter((m) => m.weak);
  const info = el("p", { class: "muted", id: "result-info" }, clear.length ? plural(clear.length, "clear match", "clear matches") : "No clear match",
    res.nothing_relevant ? " — nothing clears the relevance bar" : "", res.note && !res.nothing_relevant ? " (" + res.note + ")" : "");
  main.append(info, el("ol", { class: "results", id: "results" }, clear.map(card)));
  if (weak.length) {
    main.append(el("details", { class: "weaker", id: "weaker", open: !clear.length && weak.length <= 3 },
      el("summary", {}, plural(weak.length, "weaker match", "weaker matches"), " (under the relevance bar)"),
      el("ol", { class: "results", id: "weak-results", start: clear.length + 1 }, weak.map(card))));
  }
  if (res.results.length >= limit && limit < res.max_limit) {
    main.append(el("button", { id: "more", onclick: () => go("/search", { ...Object.fromEntries(p), limit: Math.min(limit + 20, res.max_limit) }) }, "More results"));
  }
}

// --- Browse -----------------------------------------------------------
async function viewBrowse(main, p) {
  const form = el("form", { class: "filters" },
    field("Scope", scopeSelect("scope", p.get("scope") || "", true)),
    field("Tag", el("input", { type: "text", name: "tag", id: "f-tag", value: p.get("tag") || "" })),
    field("Kind", sourceSelect(p.get("source") || "")),
    field("From", el("input", { type: "date", name: "from", value: p.get("from") || "" })),
    field("To", el("input", { type: "date", name: "to", value: p.get("to") || "" })),
    field("Order", (() => {
      const s = el("select", { name: "sort" });
      for (const [v, t] of [["newest", "Newest"], ["oldest", "Oldest"], ["most_used", "Most used"], ["importance", "Most important"]]) s.append(el("option", { value: v, selected: (p.get("sort") || "newest") === v }, t));
      return s;
    })()),
    field("Forgotten", (() => {
      const s = el("select", { name: "forgotten", id: "f-forgotten" });
      for (const [v, t] of [["hide", "Hide"], ["include", "Include"], ["only", "Only forgotten"]]) s.append(el("option", { value: v, selected: (p.get("forgotten") || "hide") === v }, t));
      return s;
    })()),
    el("button", { type: "submit" }, "Show"));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const o = {};
    for (const [k, v] of f) o[k] = v;
    if (o.forgotten === "hide") delete o.forgotten;
    if (o.sort === "newest") delete o.sort;
    go("/browse", o);
  });
  main.append(el("h2", {}, "Browse"), form);
  const base = new URLSearchParams();
  for (const k of ["scope", "tag", "source", "from", "to", "sort", "forgotten"]) if (p.get(k)) base.set(k, p.get(k));
  const chart = el("figure", { class: "timeline", id: "timeline" }, el("figcaption", { class: "muted" }, "Memories over time"));
  main.append(chart);
  if (p.get("forgotten") !== "only") {
    api("/api/timeline?" + base).then((t) => drawTimeline(chart, t, p)).catch((e) => chart.append(el("p", { class: "bad" }, e.message)));
  } else chart.remove();
  const offset = parseInt(p.get("offset") || "0", 10);
  const q = new URLSearchParams(base);
  q.set("limit", PAGE);
  q.set("offset", offset);
  const res = await api("/api/memories?" + q);
  const first = res.total ? offset + 1 : 0, last = offset + res.memories.length;
  main.append(el("p", { class: "muted", id: "result-info" }, first + "–" + last + " of " + res.total));
  main.append(el("ol", { class: "results", id: "results" }, res.memories.map(card)));
  const pager = el("nav", { class: "pager", "aria-label": "Pages" });
  const to = (o) => go("/browse", { ...Object.fromEntries(p), offset: o || "" });
  if (offset > 0) pager.append(el("button", { id: "prev", onclick: () => to(Math.max(0, offset - PAGE)) }, "← Newer page"));
  if (res.next_offset) pager.append(el("button", { id: "next", onclick: () => to(res.next_offset) }, "Next page →"));
  main.append(pager);
}

// drawTimeline draws the bars itself (SVG); a bar opens that period.
function drawTimeline(fig, t, p) {
  const bs = t.buckets;
  if (!bs.length) { fig.append(el("p", { class: "muted" }, "Nothing to chart.")); return; }
  const W = 600, H = 120, max = Math.max(1, ...bs.map((b) => b.count)), bw = Math.min(W / bs.length, 40);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H + 18}`, role: "img", "aria-label": "memories per " + t.unit });
  bs.forEach((b, i) => {
    const h = Math.max(b.count ? 2 : 0, (b.count / max) * H);
    const day = (d) => { const x = new Date(d); return x.getFullYear() + "-" + String(x.getMonth() + 1).padStart(2, "0") + "-" + String(x.getDate()).padStart(2, "0"); };
    const end = new Date(new Date(b.to).getTime() - 1);
    const a = svg("a", { href: "#/browse?" + new URLSearchParams({ ...Object.fromEntries(p), from: day(b.from), to: day(end), offset: "" }).toString().replace(/&offset=$/, "") });
    a.append(svg("rect", { x: i * bw + 1, y: H - h, width: Math.max(1, bw - 2), height: h, class: "bar" },
      svg("title", {}, fmtDay(b.from) + ": " + b.count)));
    s.append(a);
  });
  s.append(svg("text", { x: 0, y: H + 14, class: "axis" }, fmtDay(bs[0].from)));
  s.append(svg("text", { x: W, y: H + 14, class: "axis", "text-anchor": "end" }, fmtDay(bs[bs.length - 1].from)));
  fig.append(s);
}

// --- One memory -------------------------------------------------------
async function viewMemory(main, id) {
  const m = await api("/api/memories/" + encodeURIComponent(id));
  main.append(el("p", {}, el("a", { href: "#/browse", id: "back", onclick: (e) => { if (history.length > 1) { e.preventDefault(); history.back(); } } }, "← Back")));
  main.append(el("h2", {}, m.forgotten_at ? "Forgotten memory" : "Memory"));
  const dl = el("dl", { class: "facts", id: "memory-meta" });
  const row = (k, v) => { if (v !== "" && v !== undefined && v !== null) dl.append(el("dt", {}, k), el("dd", {}, v)); };
  row("Scope", el("a", { href: "#/browse?scope=" + encodeURIComponent(m.scope) }, m.scope));
  row("Kind", m.source + (m.path ? " " + m.path : ""));
  row("When", fmtDate(m.timestamp));
  row("Stored", fmtDate(m.created_at));
  row("Changed", m.updated_at !== m.created_at ? fmtDate(m.updated_at) : "");
  row("Recalled", m.use_count + " time" + (m.use_count === 1 ? "" : "s") + (m.last_accessed ? ", last " + fmtDate(m.last_accessed) : ""));
  row("Category", m.category);
  row("Conversation", m.conversation_id ? m.conversation_id + (m.speaker ? " (" + m.speaker + ")" : "") : "");
  // A lesson a model proposed: where it came from, until the user confirms it.
  row("Proposed lesson", m.source === "proposed_lesson" ? (m.speaker || "proposed") + "; not applied until you confirm it" : "");
  row("Forgotten", m.forgotten_at ? fmtDate(m.forgotten_at) : "");
  const kept = m.related && m.related.merged_into;
  row("Merged into", m.merged_into ? el("a", { href: "#/memory/" + m.merged_into, id: "merged-into", "data-id": m.merged_into }, kept ? short(kept.text, 200) : m.merged_into) : "");
  row("Archived", m.archived ? (m.related && m.related.summaries.length ? "yes (condensed into a summary, below)" : "yes (kept, out of recall)") : "");
  if (m.superseded_by) {
    row("Superseded by", el("span", {},
      el("a", { href: "#/memory/" + m.superseded_by.id, id: "superseded-by", "data-id": m.superseded_by.id }, short(m.superseded_by.text, 200)),
      " ", el("button", { type: "button", id: "current-again", onclick: async () => {
        try { await api("/api/memories/" + m.id + "/update", { superseded_by: "" }); say("Marked as current again."); render(); } catch (e) { say(e.message, true); }
      } }, "Mark as current")));
  }
  row("Id", el("code", {}, m.id));

  const text = el("textarea", { id: "edit-text", name: "text", rows: 6, "aria-label": "Text" });
  text.value = m.text;
  const tags = el("input", { id: "edit-tags", name: "tags", type: "text", value: m.tags.join(", ") });
  const imp = el("input", { id: "edit-importance", name: "importance", type: "number", min: 0, max: 1, step: 0.05, value: m.importance });
  const pinned = el("input", { id: "edit-pinned", name: "pinned", type: "checkbox", checked: !!m.pinned });
  const form = el("form", { class: "edit", id: "edit" },
    text,
    el("div", { class: "row" }, field("Tags (comma separated)", tags), field("Importance (0–1)", imp),
      el("label", { class: "check" }, pinned, " Pinned (maintenance never archives it)")),
    el("div", { class: "row" }, el("button", { type: "submit", id: "save" }, "Save changes")));
  const live = !m.forgotten_at;
  for (const c of form.elements) c.disabled = !live;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = {};
    if (text.value !== m.text) body.text = text.value;
    const newTags = tags.value.split(",").map((s) => s.trim().replace(/^#/, "")).filter(Boolean);
    if (newTags.join(",") !== m.tags.join(",")) body.tags = newTags;
    const ni = parseFloat(imp.value);
    if (!isNaN(ni) && ni !== m.importance) body.importance = ni;
    if (pinned.checked !== !!m.pinned) body.pinned = pinned.checked;
    if (!Object.keys(body).length) { say("Nothing changed."); return; }
    try {
      const r = await api("/api/memories/" + m.id + "/update", body);
      say(r.merged_into ? "Another memory already says this, so this one was merged into it; Unforget undoes that." : "Saved: " + r.changed.join(", "));
      render();
    } catch (e) { say(e.message, true); }
  });
  main.append(form, dl);

  const actions = el("div", { class: "row actions" });
  if (live && m.source === "proposed_lesson") {
    actions.append(el("button", { id: "confirm-lesson", onclick: async () => {
      try { await api("/api/memories/" + m.id + "/confirm-lesson", {}); say("Confirmed: later sessions apply this lesson."); render(); } catch (e) { say(e.message, true); }
    } }, "Confirm lesson"));
  }
  if (live) {
    actions.append(el("button", { id: "forget", onclick: async () => {
      try { await api("/api/memories/" + m.id + "/forget", { mode: "soft" }); say("Forgotten. Unforget brings it back."); render(); } catch (e) { say(e.message, true); }
    } }, "Forget"));
  } else {
    actions.append(el("button", { id: "unforget", onclick: async () => {
      try {
        const r = await api("/api/unforget", { ids: [m.id] });
        say(r.restored.length ? "Restored." : "It could not be restored.", !r.restored.length); render();
      } catch (e) { say(e.message, true); }
    } }, "Unforget"));
  }
  actions.append(el("button", { id: "delete", class: "danger", onclick: async () => {
    if (!(await confirmDialog("Delete this memory for good? It cannot be brought back (a backup still holds it)."))) return;
    try { await api("/api/memories/" + m.id + "/forget", { mode: "hard", confirm: m.id }); say("Deleted for good."); go("/browse"); } catch (e) { say(e.message, true); }
  } }, "Delete for good…"));
  main.append(actions);

  if (m.history && m.history.length) {
    main.append(el("h3", {}, "Earlier versions"));
    main.append(el("ol", { class: "history", id: "history", reversed: true }, m.history.slice().reverse().map((h) =>
      el("li", {}, el("div", { class: "meta" }, "until " + fmtDate(h.changed_at) + " · " + h.scope + " · importance " + h.importance + (h.tags.length ? " · #" + h.tags.join(" #") : "")), el("p", {}, h.text)))));
  }
  if (m.supersedes && m.supersedes.length) {
    main.append(el("h3", {}, "Replaces"),
      el("p", { class: "muted" }, "Older memories this one updates: they are kept, and recalled below it."),
      el("ul", { class: "mems", id: "supersedes" }, m.supersedes.map((l) => el("li", {}, el("a", { href: "#/memory/" + l.id }, short(l.text, 200))))));
  }
  if (m.contradicts && m.contradicts.length) {
    main.append(el("h3", {}, "Contradicted by"),
      el("ul", { class: "mems", id: "contradicts" }, m.contradicts.map((l) => el("li", {}, el("a", { href: "#/memory/" + l.id }, short(l.text, 200))))));
  }
  if (m.related) related(main, m);
}

// related lists how a memory stands to others: the duplicates merged into
// it, a summary's messages, a message's summaries.
function related(main, m) {
  const r = m.related;
  if (r.merged.length || r.merged_unchecked) {
    main.append(el("h3", {}, "Merged into this memory"),
      el("p", { class: "muted" }, "Duplicates maintenance folded into this one; they are forgotten, and Unforget on one (or Undo in Maintenance) brings it back on its own."),
      el("ol", { class: "results", id: "merged" }, r.merged.map(card)));
    if (r.merged_unchecked) main.append(el("p", { class: "muted" }, plural(r.merged_unchecked, "older forgotten memory of this scope was", "older forgotten memories of this scope were") + " not checked."));
  }
  if (m.source === "summary") {
    main.append(el("h3", {}, "Made from these messages"));
    if (!r.sources_total) main.append(el("p", { class: "muted", id: "no-sources" }, "This summary names no messages."));
    else {
      main.append(el("p", { class: "muted", id: "sources-info" }, plural(r.sources_total, "message", "messages") +
        (r.sources.length < r.sources_total - r.sources_gone ? ", the first " + r.sources.length + " shown" : "") +
        (r.sources_gone ? "; " + r.sources_gone + " deleted for good since" : "") + ". Archived messages are kept, out of recall, since the summary stands for them."),
      el("ol", { class: "results", id: "sources" }, r.sources.map(card)));
    }
  } else if (r.summaries.length) {
    main.append(el("h3", {}, "Summarized in"), el("ol", { class: "results", id: "summaries" }, r.summaries.map(card)));
  }
}

function confirmDialog(text) {
  const d = document.getElementById("confirm");
  const form = d.querySelector("form");
  document.getElementById("confirm-text").textContent = text;
  // The answer is the button pressed (its submit) or Escape (cancel), both
  // fired as they happen: the close event is queued, and one from the
  // dialog's previous use can arrive after it opened again.
  return new Promise((resolve) => {
    const finish = (ok) => {
      form.removeEventListener("submit", onSubmit);
      d.removeEventListener("cancel", onCancel);
      resolve(ok);
    };
    const onSubmit = (e) => finish(!!e.submitter && e.submitter.value === "ok");
    const onCancel = () => finish(false);
    form.addEventListener("submit", onSubmit);
    d.addEventListener("cancel", onCancel);
    d.returnValue = "";
    d.showModal();
    // Cancel first (no autofocus attribute: the browser would process it,
    // and complain, when the page loads).
    document.getElementById("confirm-cancel").focus();
  });
}

// --- Scopes -----------------------------------------------------------
async function viewScopes(main) {
  state.scopes = null;
  const list = await scopeNames();
  const tbody = el("tbody");
  for (const s of list) {
    tbody.append(el("tr", { "data-scope": s.name },
      el("th", { scope: "row" }, el("a", { href: "#/browse?scope=" + encodeURIComponent(s.name) }, s.name)),
      describeCell(s), el("td", {}, s.parent || ""), el("td", { class: "num" }, s.memories),
      el("td", {}, s.name === "Global" ? "always" : el("button", { class: "small", onclick: async () => {
        try { await api("/api/scopes/active", { name: s.name, active: !s.active }); say(s.name + (s.active ? " is left out of searches that do not name it." : " is searched again.")); render(); } catch (e) { say(e.message, true); }
      } }, s.active ? "Active — deactivate" : "Inactive — activate"))));
  }
  main.append(el("h2", {}, "Scopes"), el("p", { class: "muted" }, "A scope keeps one context's memories apart (Work, Health, a project); a search in it also reads its parents and Global. Deactivating one archives it: searches that do not name it leave it out, and nothing is deleted."),
    el("div", { class: "scroll" }, el("table", { id: "scopes" },
      el("thead", {}, el("tr", {}, ["Scope", "Description", "Parent", "Memories", "Searched"].map((h) => el("th", { scope: "col" }, h)))), tbody)));

  // A new scope, as create_memory_scope makes one.
  const name = el("input", { type: "text", id: "scope-name", name: "name", required: true, maxlength: 64, autocomplete: "off" });
  const desc = el("input", { type: "text", id: "scope-description", name: "description", maxlength: 1000, autocomplete: "off" });
  const parent = el("select", { id: "scope-parent", name: "parent" }, el("option", { value: "" }, "— none —"), list.map((s) => el("option", { value: s.name }, s.name)));
  const form = el("form", { class: "row", id: "scope-new" }, field("Name", name), el("div", { class: "grow" }, field("Description (what it is for)", desc)), field("Under", parent),
    el("button", { type: "submit", id: "scope-create" }, "Create scope"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await api("/api/scopes", { name: name.value.trim(), description: desc.value, parent: parent.value });
      say(r.created ? "Created scope " + r.scope.name + "." : "A scope named " + r.scope.name + " exists already; nothing changed.", !r.created);
      const msg = document.getElementById("status").textContent, bad = !r.created;
      await render();
      say(msg, bad);
    } catch (err) { say(err.message, true); }
  });
  main.append(el("h3", {}, "New scope"), form);
}

// describeCell shows a scope's description with an Edit button that
// turns it into a field (Enter saves, Escape cancels).
function describeCell(s) {
  const td = el("td", { class: "describe" });
  const show = () => {
    td.replaceChildren(el("span", { class: "desc" }, s.description || ""), " ",
      el("button", { class: "small describe", type: "button", "aria-label": "Edit the description of " + s.name, onclick: edit }, "Edit"));
  };
  const edit = () => {
    const input = el("input", { type: "text", class: "describe-input", value: s.description || "", maxlength: 1000, "aria-label": "Description of " + s.name });
    const f = el("form", { class: "row" }, input, el("button", { type: "submit", class: "small" }, "Save"),
      el("button", { type: "button", class: "small", onclick: show }, "Cancel"));
    input.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); show(); } });
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const r = await api("/api/scopes/describe", { name: s.name, description: input.value });
        say("Saved the description of " + r.scope.name + ".");
        await render();
        say("Saved the description of " + r.scope.name + ".");
      } catch (err) { say(err.message, true); }
    });
    td.replaceChildren(f);
    input.focus();
  };
  show();
  return td;
}

// --- Profile ----------------------------------------------------------
async function viewProfile(main) {
  const p = await api("/api/profile");
  const save = async (body, msg) => {
    try { const r = await api("/api/profile", body); say(r.changed.length ? msg : "Nothing changed."); render(); } catch (e) { say(e.message, true); }
  };
  main.append(el("h2", {}, "Profile"), el("p", { class: "muted" }, "What Claude knows about you (get_user_profile)."));
  const name = el("input", { id: "profile-name", type: "text", value: p.name || "" });
  const nf = el("form", { class: "row", id: "profile-name-form" }, field("Name", name), el("button", { type: "submit" }, "Save name"));
  nf.addEventListener("submit", (e) => { e.preventDefault(); save({ name: name.value }, "Name saved."); });
  main.append(nf);
  for (const [title, key, setK, rmK] of [["Preferences", "preferences", "set_preferences", "remove_preferences"], ["Facts", "facts", "set_facts", "remove_facts"]]) {
    const dl = el("dl", { class: "facts", id: "profile-" + key });
    for (const [k, v] of Object.entries(p[key]).sort()) {
      dl.append(el("dt", {}, k), el("dd", {}, v, " ", el("button", { class: "small", "aria-label": "Remove " + k, onclick: () => save({ [rmK]: [k] }, "Removed " + k + ".") }, "Remove")));
    }
    const kIn = el("input", { type: "text", placeholder: "key", "aria-label": title + " key", id: "profile-" + key + "-key" });
    const vIn = el("input", { type: "text", placeholder: "value", "aria-label": title + " value", id: "profile-" + key + "-value" });
    const f = el("form", { class: "row" }, kIn, vIn, el("button", { type: "submit" }, "Set"));
    f.addEventListener("submit", (e) => { e.preventDefault(); if (kIn.value.trim()) save({ [setK]: { [kIn.value.trim()]: vIn.value } }, "Saved " + kIn.value.trim() + "."); });
    main.append(el("h3", {}, title), dl, f);
  }
  const notes = el("ul", { id: "profile-notes" }, p.notes.map((n) => el("li", {}, n, " ", el("button", { class: "small", onclick: () => save({ remove_notes: [n] }, "Note removed.") }, "Remove"))));
  const nIn = el("input", { type: "text", "aria-label": "New note", id: "profile-note" });
  const nForm = el("form", { class: "row" }, nIn, el("button", { type: "submit" }, "Add note"));
  nForm.addEventListener("submit", (e) => { e.preventDefault(); if (nIn.value.trim()) save({ add_notes: [nIn.value] }, "Note added."); });
  main.append(el("h3", {}, "Notes"), notes, nForm);
  const contacts = el("ul", { id: "profile-contacts" }, p.contacts.map((c) => el("li", {}, c.name, c.relation ? " (" + c.relation + ")" : "", c.notes ? ": " + c.notes : "", " ",
    el("button", { class: "small", onclick: () => save({ remove_contacts: [c.name] }, "Contact removed.") }, "Remove"))));
  const cN = el("input", { type: "text", placeholder: "name", "aria-label": "Contact name" });
  const cR = el("input", { type: "text", placeholder: "relation", "aria-label": "Contact relation" });
  const cF = el("form", { class: "row" }, cN, cR, el("button", { type: "submit" }, "Add contact"));
  cF.addEventListener("submit", (e) => { e.preventDefault(); if (cN.value.trim()) save({ add_contacts: [{ name: cN.value.trim(), relation: cR.value.trim() }] }, "Contact saved."); });
  main.append(el("h3", {}, "Contacts"), contacts, cF);
}

// --- Tasks (a maintenance run, a backup, a verification) --------------
// pollTask follows a task until it ends, calling show on each state.
async function pollTask(id, show) {
  for (;;) {
    let t;
    try { t = await api("/api/tasks/" + encodeURIComponent(id)); } catch (e) { show({ state: "failed", error: e.message }); return null; }
    show(t);
    if (t.state !== "running") return t;
    await new Promise((r) => setTimeout(r, 400));
  }
}

function secs(ms) { return ms < 10000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms / 1000) + " s"; }

function fmtBytes(n) {
  if (n < 1024) return n + " B";
  const u = ["KiB", "MiB", "GiB", "TiB"];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return n.toFixed(n < 10 ? 1 : 0) + " " + u[i];
}

// --- Maintenance ------------------------------------------------------
function dayLabel(d) {
  const day = (x) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const diff = Math.round((day(new Date()) - day(d)) / 86400000);
  if (diff === 0) return "Today (last night's runs are here)";
  if (diff === 1) return "Yesterday";
  return d.toLocaleDateString(undefined, { weekday: "long", year: "numeric", month: "short", day: "numeric" });
}

async function viewMaintenance(main, p) {
  const data = await api("/api/maintenance");
  main.append(el("h2", {}, "What maintenance changed"),
    el("p", { class: "muted" }, "Each night infmem merges memories that say the same thing, archives acknowledgements and old conversation messages it summarized, and deletes long-forgotten memories a backup holds. Undo puts a change back through the same engine calls Claude's tools use."));
  const job = el("select", { name: "job", id: "run-job" });
  for (const j of data.jobs) job.append(el("option", { value: j }, j === "maintenance" ? "Everything (the nightly pass)" : j));
  const dry = el("input", { type: "checkbox", id: "run-dry", name: "dry_run" });
  const taskBox = el("div", { id: "task", class: "task", role: "status", "aria-live": "polite" });
  const form = el("form", { class: "row", id: "run-form" }, field("Job", job), el("label", { class: "check" }, dry, " Dry run (show, change nothing)"),
    el("button", { type: "submit", id: "run-now" }, "Run now"));
  const follow = async (t) => {
    form.querySelector("button").disabled = true;
    const end = await pollTask(t.id, (t) => {
      taskBox.replaceChildren(el("span", { class: t.state === "failed" ? "bad" : "" },
        t.state === "running" ? "Running " + t.label + "… " + secs(t.elapsed_ms)
          : t.state === "done" ? "Finished " + t.label + " in " + secs(t.elapsed_ms) + ": " + (t.result.operations.length ? t.result.operations.join(", ").replaceAll("_", " ") : "nothing to do") + (t.result.warnings.length ? ". " + t.result.warnings.join("; ") : "")
            : "Failed: " + (t.error || "")));
      taskBox.dataset.state = t.state;
    });
    form.querySelector("button").disabled = false;
    if (end && end.state === "done") { await renderKeeping(taskBox, "task"); }
  };
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { follow(await api("/api/maintenance/run", { job: job.value, dry_run: dry.checked })); } catch (e) { say(e.message, true); }
  });
  const quiet = el("input", { type: "checkbox", id: "show-quiet", checked: p.get("all") === "1" });
  quiet.addEventListener("change", () => go("/maintenance", { all: quiet.checked ? "1" : "" }));
  main.append(form, taskBox, el("label", { class: "check" }, quiet, " Show runs that changed nothing"));
  if (data.running) follow(data.running);

  const runs = data.runs.filter((r) => r.changed || r.outcome !== "ok" || (r.warnings && r.warnings.length) || p.get("all") === "1");
  if (!runs.length) {
    main.append(el("p", { class: "muted", id: "no-runs" }, data.runs.length ? "No run changed anything lately." : "Maintenance has not run yet. It runs every night; Run now runs it at once."));
    return;
  }
  const trail = el("div", { id: "trail" });
  let last = "", group = null;
  for (const r of runs) {
    const label = dayLabel(new Date(r.started));
    if (label !== last) { trail.append(el("h3", {}, label)); last = label; group = null; }
    // Dry runs that found the same as the one before are one card.
    const key = r.dry_run ? runKey(r) : "";
    if (key && group && group.key === key) {
      group.runs.push(r);
      const times = group.runs.map((x) => x.started).sort();
      group.card.querySelector(".repeat").textContent = " · " + group.runs.length + " identical dry runs, from " + fmtDate(times[0]) + " to " + fmtDate(times[times.length - 1]);
      group.card.dataset.runs = group.runs.length;
      continue;
    }
    const c = runCard(r);
    trail.append(c);
    group = key ? { key, runs: [r], card: c } : null;
  }
  main.append(trail);
}

// runKey is what a dry run found, to tell repeats of it.
function runKey(r) {
  return JSON.stringify([r.job, r.outcome, r.error || "", r.operations, r.warnings || [],
    r.items.map((it) => [it.kind, it.title, it.kept ? it.kept.id : "", it.memories.map((m) => m.id), it.count])]);
}

function runCard(r) {
  const head = el("div", { class: "meta" },
    el("strong", {}, r.job === "maintenance" ? "Nightly pass" : r.job), " · ", r.trigger === "schedule" ? "scheduled" : "run by hand",
    r.dry_run ? " · dry run" : "", " · ", el("time", { datetime: r.started }, fmtDate(r.started)), " · ", secs(r.duration_ms), el("span", { class: "repeat" }),
    r.outcome !== "ok" ? el("span", { class: "bad" }, " · " + r.outcome + (r.error ? ": " + r.error : "")) : "");
  const list = el("ul", { class: "items" });
  for (const it of r.items) list.append(itemRow(r, it));
  if (!r.items.length) list.append(el("li", { class: "muted" }, r.operations.length ? r.operations.join(", ").replaceAll("_", " ") : "Nothing changed."));
  const warn = (r.warnings || []).map((w) => el("p", { class: "weak" }, w));
  return el("article", { class: "run card", "data-run": r.id }, head, list, warn);
}

function itemRow(r, it) {
  const mem = (m) => el("li", { class: "state-" + (m.state || "") }, el("a", { href: "#/memory/" + m.id }, m.text ? short(m.text, 160) : m.id),
    m.state && m.state !== "live" ? el("span", { class: "muted" }, " (" + (m.state === "merged" ? "merged" : m.state) + " now)") : "");
  const body = el("div", {});
  if (it.kept) body.append(el("p", { class: "meta" }, "Kept: "), el("ul", { class: "mems" }, mem(it.kept)), el("p", { class: "meta" }, "Merged into it:"));
  body.append(el("ul", { class: "mems" }, it.memories.map(mem)));
  if (it.count > it.memories.length) body.append(el("p", { class: "meta" }, "and " + (it.count - it.memories.length) + " more"));
  const row = el("li", { class: "item " + it.kind, "data-item": it.key }, el("div", { class: "cardtop" }, el("span", {}, it.title)));
  if (it.undo) {
    const b = el("button", { class: "undo", title: it.undo, "aria-label": "Undo: " + it.title, onclick: async () => {
      b.disabled = true;
      try {
        const res = await api("/api/maintenance/undo", { run: r.id, item: it.key });
        say("Undone: " + plural(res.restored.length, "memory", "memories") + " back" + (res.pinned ? " and pinned" : "") +
          (res.kept_changed && res.kept_changed.length ? "; the kept one got its " + res.kept_changed.join(" and ") + " back" : "") + ".");
        const msg = document.getElementById("status").textContent;
        await render();
        say(msg);
      } catch (e) { b.disabled = false; say(e.message, true); }
    } }, "Undo");
    row.firstChild.append(b);
  }
  row.append(body);
  if (it.undo) row.append(el("p", { class: "meta" }, it.undo));
  if (it.note) row.append(el("p", { class: "meta" }, it.note));
  return row;
}

// --- Backups ----------------------------------------------------------
async function viewBackups(main) {
  const data = await api("/api/backups");
  main.append(el("h2", {}, "Backups"));
  const dl = el("dl", { class: "facts", id: "backup-setup" });
  const row = (k, ...v) => dl.append(el("dt", {}, k), el("dd", {}, ...v));
  row("Folder", el("code", {}, data.dir));
  if (data.encryption === "identity") {
    row("Encryption", "Encrypted to the key in ", el("code", { id: "identity-path" }, data.identity.path), data.identity.exists ? "" : " (made with the first backup)",
      el("br"), el("strong", {}, "Keep a copy of that file away from this machine: a backup cannot be restored without it."));
  } else if (data.encryption === "recipients") {
    row("Encryption", "Encrypted to " + plural(data.recipients, "age key", "age keys") + " named in the config (backup.recipients); restoring needs the matching identity file.");
  } else {
    row("Encryption", el("span", { class: "weak" }, "Not encrypted (backup.encryption is off)."));
  }
  const st = data.state || {};
  row("Schedule", st.enabled ? (st.scheduled && st.scheduled.length ? st.scheduled.join(" and ") + " backups" : "none scheduled") : "scheduled backups are off");
  if (st.last_backup) row("Last backup", fmtDate(st.last_backup.at) + " (" + st.last_backup.kind + ")");
  for (const f of st.failing || []) row("Failing", el("span", { class: "bad" }, f + " backups fail: " + ((st.runs || {})[f] || {}).error));
  // The identity's warning says what the Encryption row says.
  for (const w of st.warnings || []) if (!(data.identity.path && w.includes(data.identity.path))) row("Note", el("span", { class: "weak" }, w));
  main.append(dl);

  const box = el("div", { id: "backup-task", class: "task", role: "status", "aria-live": "polite" });
  const now = el("button", { id: "backup-now", type: "button" }, "Back up now");
  const follow = async (t) => {
    now.disabled = true;
    const end = await pollTask(t.id, (t) => {
      const p = t.progress || {};
      const kids = [];
      if (t.state === "running") {
        kids.push("Backing up… " + (p.Step || "starting") + " " + secs(t.elapsed_ms) + " ");
        const max = p.TotalDocs || 0;
        kids.push(el("progress", { id: "backup-progress", max: max || 1, value: max ? Math.min(p.Docs || 0, max) : 0 }),
          max ? " " + (p.Docs || 0) + " of " + plural(max, "document", "documents") : (p.Bytes ? " " + fmtBytes(p.Bytes) : ""));
      } else if (t.state === "done") {
        kids.push(el("span", { class: "good" }, "Backed up " + plural(t.result.documents, "document", "documents") + " to " + t.result.file + " (" + fmtBytes(t.result.size) + ", " + t.result.encryption + ") in " + secs(t.elapsed_ms) + "."));
      } else kids.push(el("span", { class: "bad" }, "The backup failed: " + (t.error || "")));
      box.replaceChildren(...kids);
      box.dataset.state = t.state;
    });
    now.disabled = false;
    if (end && end.state === "done") await renderKeeping(box, "backup-task");
  };
  now.addEventListener("click", async () => {
    try { follow(await api("/api/backups/now", {})); } catch (e) { say(e.message, true); }
  });
  main.append(el("div", { class: "row" }, now), box);
  if (data.running) follow(data.running);

  if (!data.backups.length) { main.append(el("p", { class: "muted", id: "no-backups" }, "No backups yet.")); return; }
  const tbody = el("tbody");
  for (const b of data.backups) {
    const v = b.verify;
    const check = el("td", { class: "check" });
    if (v) check.append(el("span", { class: v.status === "verified" || v.status === "intact" ? "good" : "bad", title: v.problem || "" }, v.status + (v.documents ? " (" + plural(v.documents, "document", "documents") + ")" : "")), " ");
    const vb = el("button", { class: "small verify", onclick: async () => {
      vb.disabled = true;
      try {
        const t = await api("/api/backups/verify", { file: b.file });
        const end = await pollTask(t.id, (t) => { vb.textContent = t.state === "running" ? "Verifying… " + secs(t.elapsed_ms) : "Verify"; });
        if (end && end.result) say(b.file + ": " + end.result.status + (end.result.problem ? " — " + end.result.problem : ""), !["verified", "intact"].includes(end.result.status));
        const msg = document.getElementById("status").textContent, bad = document.getElementById("status").className === "bad";
        await render();
        say(msg, bad);
      } catch (e) { vb.disabled = false; say(e.message, true); }
    } }, "Verify");
    check.append(vb);
    tbody.append(el("tr", { "data-file": b.file },
      el("td", {}, fmtDate(b.created_at)), el("td", {}, el("code", {}, b.file)), el("td", {}, b.kind || "—"), el("td", { class: "num" }, fmtBytes(b.size)),
      el("td", {}, b.encryption), el("td", { class: "num" }, b.kind ? b.documents : "—"), check));
  }
  main.append(el("div", { class: "scroll" }, el("table", { id: "backups" },
    el("thead", {}, el("tr", {}, ["Date", "File", "Kind", "Size", "Encryption", "Documents", "Check"].map((h) => el("th", { scope: "col" }, h)))), tbody)));
}

// renderKeeping re-renders the view, keeping a task's outcome (box) on screen.
async function renderKeeping(box, id) {
  const kept = box.cloneNode(true);
  await render();
  const fresh = document.getElementById(id);
  if (fresh) fresh.replaceWith(kept);
}

// --- Router -----------------------------------------------------------
async function render() {
  const { path, params } = query();
  const main = document.getElementById("main");
  const view = path.startsWith("/memory/") ? "memory" : (path.slice(1) || "search");
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.view === view) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  const fresh = el("main", { id: "main", tabindex: -1, "data-view": view, "data-hash": location.hash, "aria-busy": "true" });
  main.replaceWith(fresh);
  try {
    switch (view) {
      case "search": await viewSearch(fresh, params); break;
      case "browse": await viewBrowse(fresh, params); break;
      case "memory": await viewMemory(fresh, decodeURIComponent(path.slice(8))); break;
      case "scopes": await viewScopes(fresh); break;
      case "profile": await viewProfile(fresh); break;
      case "maintenance": await viewMaintenance(fresh, params); break;
      case "backups": await viewBackups(fresh); break;
      default: fresh.append(el("p", {}, "No such page."));
    }
  } catch (e) {
    fresh.append(el("p", { class: "bad", id: "error" }, e.message));
  }
  fresh.removeAttribute("aria-busy");
  fresh.dataset.ready = "1";
  refreshStats();
}

async function refreshStats() {
  try {
    const s = await api("/api/stats");
    state.tz = s.time_zone || "";
    document.getElementById("stats").textContent = plural(s.total, "memory", "memories") + " in " + plural(s.scopes, "scope", "scopes") + " · " + s.forgotten + " forgotten · " + s.archived + " archived";
  } catch (e) { /* the view says what is wrong */ }
}

async function start() {
  try {
    const s = await api("/api/session");
    state.csrf = s.csrf_token;
  } catch (e) {
    document.getElementById("main").textContent = e.message;
    return;
  }
  await refreshStats(); // the user's time zone, before any date is shown
  window.addEventListener("hashchange", () => { say(""); render(); });
  // "/" focuses the search box from anywhere, as on many sites.
  document.addEventListener("keydown", (e) => {
    if (e.key === "/" && !/INPUT|TEXTAREA|SELECT/.test(document.activeElement.tagName)) {
      e.preventDefault();
      if (query().path.startsWith("/search") || !location.hash) document.getElementById("q")?.focus(); else go("/search");
    }
  });
  render();
}

start();
