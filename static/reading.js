// AI Infra 图解 — reading aids (issue 40): the header's one-line menu on a small screen, a section page that
// keeps its cards' state in its address, and a one-line bar of the numbers a moved control changed when
// their tiles are off screen. Loaded in <head> without defer: the first line marks the page as scripted
// before first paint, so a phone's header is drawn collapsed at once (no jump); the rest waits for the DOM.
// No inline scripts anywhere: the server's CSP is script-src 'self'.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // ---------------------------------------------------------------- the header's menu (small screens)
  function initMenu() {
    var head = document.querySelector("header.site"), btn = head && head.querySelector(".menu-toggle");
    if (!btn) return;
    btn.addEventListener("click", function () {
      var open = head.classList.toggle("open");
      btn.setAttribute("aria-expanded", String(open));
    });
  }

  // ---------------------------------------------------------------- a section page's address
  // One query key per parameter of a card, prefixed by the card: /ch/1/1.3?eg-1-1.batch=16. Only what
  // differs from the defaults (the server's canonical X-Card-Query); a key without a card's prefix (a
  // link's own query) is left alone. Card pages keep their state as ?batch=16 already (app.js).
  function sectionCards() {
    if (document.querySelector(".present-bar")) return [];
    return Array.prototype.filter.call(document.querySelectorAll("main .card[data-card]"), function (c) {
      return !c.dataset.urlSync && c.querySelector("form.controls");
    });
  }
  function stateOf(search, id) {
    var out = [], pre = id + ".";
    new URLSearchParams(search).forEach(function (v, k) { if (k.indexOf(pre) === 0) out.push([k.slice(pre.length), v]); });
    return out;
  }
  function writeState(id, query) {
    var sp = new URLSearchParams(location.search), keep = new URLSearchParams(), pre = id + ".";
    sp.forEach(function (v, k) { if (k.indexOf(pre) !== 0) keep.append(k, v); });
    new URLSearchParams(query || "").forEach(function (v, k) { keep.append(pre + k, v); });
    var q = keep.toString();
    if ("?" + q === location.search || (!q && !location.search)) return;
    history.replaceState(history.state, "", location.pathname + (q ? "?" + q : "") + location.hash);
  }
  // put a saved state on a card's controls, then ask for its result once (one change on the form)
  function applyState(card, pairs) {
    var form = card.querySelector("form.controls"), names = {};
    pairs.forEach(function (p) { (names[p[0]] = names[p[0]] || []).push(p[1]); });
    var applied = false;
    Object.keys(names).forEach(function (name) {
      var els = form.querySelectorAll('[name="' + CSS.escape(name) + '"]'), vals = names[name];
      if (!els.length) return;
      var list = els[0].classList.contains("item") && els[0].closest("fieldset.list");
      if (list) {   // a list parameter: as many items as values
        var items = list.querySelectorAll("input.item"), last = items[items.length - 1];
        for (var i = items.length; i < vals.length; i++) list.insertBefore(last.cloneNode(), list.querySelector(".list-add"));
        items = list.querySelectorAll("input.item");
        for (var j = items.length - 1; j >= vals.length && j > 0; j--) items[j].remove();
        els = list.querySelectorAll("input.item");
      }
      for (var n = 0; n < els.length && n < vals.length; n++) {
        var el = els[n];
        if (el.type === "hidden") {   // a checkbox's value rides on a hidden input (data-toggle-for)
          var cb = form.querySelector('input[data-toggle-for="' + el.id + '"]');
          if (cb) cb.checked = vals[n] === "true";
        }
        if (el.tagName === "SELECT" && !Array.prototype.some.call(el.options, function (o) { return o.value === vals[n]; })) {
          var custom = el.querySelector("option[data-custom-option]");   // a reader's own GPU or model
          if (!custom) continue;
          custom.value = vals[n];
        }
        el.value = vals[n];
        var range = el.id && form.querySelector('input.range[data-for="' + el.id + '"]');
        if (range) el.dispatchEvent(new Event("input", { bubbles: false }));   // app.js puts it on the slider
        applied = true;
      }
    });
    if (applied) form.dispatchEvent(new Event("change", { bubbles: true }));
  }
  function initSectionState() {
    var cards = sectionCards();
    if (!cards.length) return;
    cards.forEach(function (card) {
      var pairs = stateOf(location.search, card.dataset.card);
      if (pairs.length) applyState(card, pairs);
    });
    document.addEventListener("htmx:afterSwap", function (e) {
      var cfg = e.detail.requestConfig, form = cfg && cfg.elt, card = form && form.closest && form.closest(".card");
      if (!card || cards.indexOf(card) < 0 || !form.matches("form.controls")) return;
      var q = e.detail.xhr && e.detail.xhr.getResponseHeader("X-Card-Query");
      if (q !== null && q !== undefined) writeState(card.dataset.card, q);
    });
  }

  // ---------------------------------------------------------------- the numbers a move changed
  // While a control moves, the tiles whose numbers changed may be below the fold (a phone: 图 3-1's four
  // sliders fill the screen). Scrolling them into view would pull the slider from under the finger, so
  // a one-line bar fixed at the screen's foot names them instead ("E: 12.3 ms · …"), only while any
  // changed tile is off screen, and goes 4 s after the last move.
  var bar = null, hideTimer = null;
  function tiles(card) {
    var out = {};
    card.querySelectorAll(".result > dl.stats .stat").forEach(function (t) {
      var dd = t.querySelector("dd .v");
      if (dd) out[t.dataset.key] = { el: t, text: dd.textContent.trim() };
    });
    return out;
  }
  function offScreen(el) {
    var r = el.getBoundingClientRect();
    return r.bottom > window.innerHeight || r.top < 0;
  }
  function showChanged(changed) {
    if (!bar) {
      bar = document.createElement("div");
      bar.className = "changed-bar";
      bar.setAttribute("aria-hidden", "true");   // the result itself is the live region
      document.body.appendChild(bar);
    }
    bar.textContent = "";
    changed.forEach(function (t, i) {
      if (i) bar.appendChild(document.createTextNode(" · "));
      var s = document.createElement("span"), dt = t.el.querySelector("dt"), u = t.el.querySelector("dd .u");
      s.textContent = (dt ? dt.textContent.trim() + " " : "") + t.text + (u ? " " + u.textContent.trim() : "");
      bar.appendChild(s);
    });
    bar.hidden = false;
    clearTimeout(hideTimer);
    hideTimer = setTimeout(function () { bar.hidden = true; }, 4000);
  }
  function initChanged() {
    var before = new WeakMap();
    document.addEventListener("htmx:beforeSwap", function (e) {
      var card = e.detail.target && e.detail.target.closest && e.detail.target.closest(".card");
      if (card && e.detail.xhr && e.detail.xhr.status < 300) before.set(card, tiles(card));
    });
    document.addEventListener("htmx:afterSwap", function (e) {
      var card = e.detail.target && e.detail.target.closest && e.detail.target.closest(".card");
      var old = card && before.get(card);
      if (!old || document.body.classList.contains("present")) return;
      var now = tiles(card), changed = [];
      Object.keys(now).forEach(function (k) { if (old[k] && old[k].text !== now[k].text) changed.push(now[k]); });
      if (changed.length && changed.some(function (t) { return offScreen(t.el); })) showChanged(changed);
      else if (bar) bar.hidden = true;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    initMenu();
    initSectionState();
    initChanged();
  });
})();
