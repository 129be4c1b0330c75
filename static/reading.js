// Reading aids (issue 40): a phone's one-line header menu, a section's card states in its address, a bar
// naming changed numbers that are off screen. In <head>, not deferred: the "js" class is set before the
// first paint (no header jump). CSP script-src 'self': no inline scripts.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var CHARTS_JS = document.currentScript && document.currentScript.getAttribute("data-charts");   // fingerprinted URL

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
  // /ch/1/1.3?eg-1-1.batch=16: one key per parameter, card-prefixed, non-defaults only (X-Card-Query);
  // other keys are left alone.
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
  // a saved state onto a card's controls (a list's items as many as it shows), then one change
  function applyState(card, pairs) {
    var form = card.querySelector("form.controls"), names = {};
    pairs.forEach(function (p) { (names[p[0]] = names[p[0]] || []).push(p[1]); });
    var applied = false;
    Object.keys(names).forEach(function (name) {
      var els = form.querySelectorAll('[name="' + CSS.escape(name) + '"]'), vals = names[name];
      if (!els.length) return;
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
  // Changed tiles may be below the fold while a slider moves; scrolling would pull the slider from under
  // the finger, so a one-line bar at the screen's foot names them (while any is off screen; 4 s).
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
    bar.textContent = changed.map(function (t) {
      var dt = t.el.querySelector("dt"), u = t.el.querySelector("dd .u");
      return (dt ? dt.textContent.trim() + " " : "") + t.text + (u ? " " + u.textContent.trim() : "");
    }).join(" · ");
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


  // ---------------------------------------------------------------- a chart's labels
  // A drawn chart with a label outside it or on another fetches reading-charts.js once (it redraws and
  // fits such charts); charts that fit cost nothing more.
  var LABELS = ".xaxislayer-above text, .yaxislayer-above text, .infolayer g[class$=title] text, .annotation-text, .bartext, .textpoint text, .updatemenu-button";
  function misfit(el) {
    var svg = el.querySelector(".main-svg");
    if (!svg) return false;
    var s = svg.getBoundingClientRect(), rs = [];
    el.querySelectorAll(LABELS).forEach(function (t) { var r = t.getBoundingClientRect(); if (r.width && t.textContent.trim()) rs.push(r); });
    return rs.some(function (a, i) {
      return a.left < s.left - 1 || a.right > s.right + 1 || a.top < s.top - 1 || a.bottom > s.bottom + 1 || rs.slice(i + 1).some(function (b) {
        return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
      });
    });
  }
  var fitter = null, waiting = [];
  function loadFitter() {
    if (fitter || !CHARTS_JS) return;
    fitter = document.createElement("script");
    fitter.src = CHARTS_JS;
    fitter.onload = function () { waiting.splice(0).forEach(function (el) { window.readingCharts.refit(el); }); };
    document.head.appendChild(fitter);
  }
  document.addEventListener("chart:layout", function (e) {
    if (window.readingCharts) window.readingCharts.before(e.target, e.detail.fig);
  }, true);   // app.js's events do not bubble: caught on their way down
  document.addEventListener("chart:drawn", function (e) {
    var el = e.target;
    if (window.readingCharts) { var p = window.readingCharts.settle(el); if (p) e.detail.wait.push(p); }
    else if (misfit(el)) { if (waiting.indexOf(el) < 0) waiting.push(el); loadFitter(); }
  }, true);
  document.addEventListener("DOMContentLoaded", function () {
    initMenu();
    initChanged();
    // once htmx and app.js (deferred: their listeners run after this one) have set up the forms
    setTimeout(initSectionState, 0);
  });
})();
