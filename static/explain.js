// AI Infra 图解 — "show the math": a number on a card (tile or a number in a summary) expands into
// its derivation, loaded on demand from /cards/{id}/explain for the card's current state; numbers
// the section prose quotes from a card follow that card's sliders. No inline scripts (strict CSP).
(function () {
  "use strict";

  // the words of the edition served (base.html's ui-words block, built by app/render/env.py ui_words)
  var WORDS = (function () {
    var el = document.getElementById("ui-words");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
  })();
  function word(key) { return Object.prototype.hasOwnProperty.call(WORDS, key) ? WORDS[key] : key; }

  var pages = new Map();      // explain URL → Promise<HTMLTemplateElement>
  var open = new Map();       // card id → key whose derivation is shown

  function explained(url) {
    if (!pages.has(url)) {
      pages.set(url, fetch(url, { headers: { Accept: "text/html" } }).then(function (r) {
        if (!r.ok) throw new Error(r.status);
        return r.text();
      }).then(function (html) {
        var t = document.createElement("template");
        t.innerHTML = html;
        return t;
      }));
      if (pages.size > 64) pages.delete(pages.keys().next().value);
    }
    return pages.get(url);
  }

  function panelOf(card) { return card.querySelector(".why-panel"); }
  function buttons(card) { return card.querySelectorAll("button.why"); }

  function close(card) {
    var panel = panelOf(card);
    if (panel) { panel.hidden = true; panel.textContent = ""; }
    buttons(card).forEach(function (b) { b.setAttribute("aria-expanded", "false"); });
    open.delete(card.dataset.card);
  }

  function show(card, key, focusPanel) {
    var panel = panelOf(card);
    if (!panel) return Promise.resolve();
    var url = panel.dataset.explain + (panel.dataset.qs || "");
    open.set(card.dataset.card, key);
    return explained(url).then(function (t) {
      var sec = t.content.querySelector('section.deriv[data-key="' + key + '"]');
      if (!sec || open.get(card.dataset.card) !== key) return;
      panel.textContent = "";
      var closeBtn = document.createElement("button");
      closeBtn.type = "button";
      closeBtn.className = "why-close";
      closeBtn.setAttribute("aria-label", word("collapse"));
      closeBtn.textContent = "×";
      closeBtn.addEventListener("click", function () { close(card); });
      panel.appendChild(closeBtn);
      panel.appendChild(document.importNode(sec, true));
      panel.hidden = false;
      buttons(card).forEach(function (b) {
        b.setAttribute("aria-controls", panel.id);
        b.setAttribute("aria-expanded", b.dataset.key === key ? "true" : "false");
      });
      if (focusPanel) panel.focus({ preventScroll: true });
    }).catch(function () {
      panel.hidden = false;
      panel.textContent = word("explain_failed");
    });
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button.why");
    if (!b) return;
    var card = b.closest(".card");
    if (!card) return;
    e.preventDefault();
    if (open.get(card.dataset.card) === b.dataset.key && !panelOf(card).hidden) close(card);
    else show(card, b.dataset.key, false);
  });
  // Escape hides a glossary definition without moving focus (WCAG 1.4.13); it shows again next time
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && document.activeElement && document.activeElement.classList.contains("term")) {
      document.activeElement.classList.add("dismissed");
    }
  });
  // A definition opens below its term, shifted left as far as it must to end inside the viewport (a term
  // near a phone's right edge): the shift is set before it shows, on hover, focus or a tap
  function placeTip(e) {
    var t = e.target && e.target.closest && e.target.closest(".term");
    if (!t) return;
    var vw = document.documentElement.clientWidth, r = t.getBoundingClientRect();
    // its widest: max-width min(24rem, 80vw) plus padding and border (a pseudo-element keeps content-box)
    var width = Math.min(24 * parseFloat(getComputedStyle(document.documentElement).fontSize || "16"), 0.8 * vw) + 22;
    var shift = Math.min(0, vw - 8 - (r.left + width));
    shift = Math.max(shift, 8 - r.left);   // never past the left edge either
    t.style.setProperty("--tip-x", Math.round(shift) + "px");
  }
  document.addEventListener("mouseover", placeTip);
  document.addEventListener("focusin", placeTip);
  document.addEventListener("touchstart", placeTip, { passive: true });
  document.addEventListener("focusout", function (e) {
    if (e.target.classList && e.target.classList.contains("term")) e.target.classList.remove("dismissed");
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    var card = document.activeElement && document.activeElement.closest && document.activeElement.closest(".card");
    if (card && open.has(card.dataset.card)) { close(card); e.stopPropagation(); }
  }, true);

  // A card whose numbers this page's prose quotes (a.live, span.if) is asked for them with every
  // fragment (prose=1); elsewhere (a card page, the presenter, a phone) the fragment goes without.
  document.addEventListener("htmx:configRequest", function (e) {
    var m = /^\/cards\/([^/]+)\/fragment$/.exec(e.detail.path || ""), p = e.detail.parameters;
    if (!m || !p) return;
    var id = decodeURIComponent(m[1]);
    if (!document.querySelector('a.live[data-card="' + id + '"], span.if[data-card="' + id + '"]')) return;
    if (typeof p.set === "function") p.set("prose", "1"); else p.prose = "1";
  });

  // A slider moved: the fragment (and its panel) was replaced; show the same derivation again,
  // now for the new state, and bring the prose's live numbers up to date.
  document.addEventListener("htmx:afterSwap", function (e) {
    var t = e.detail.target;
    var card = t.closest && t.closest(".card");
    if (card && open.has(card.dataset.card)) show(card, open.get(card.dataset.card), false);
    (t.querySelectorAll ? t.querySelectorAll("script.livevals") : []).forEach(updateLive);
  });

  // A worked solution is the answer's derivation: shown when the reader opens 查看解答. While the
  // answer is still held (data-held), opening it asks for the answer (exercises.js): the fragment
  // that brings it comes back with this solution open and not held, and that one is loaded.
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (!d.matches || !d.matches("details.solution") || !d.open) return;
    var slot = d.querySelector(".deriv-solution");
    if (!slot || slot.dataset.loaded || slot.dataset.held) return;
    explained(slot.dataset.explain + (slot.dataset.qs || "")).then(function (t) {
      var sec = t.content.querySelector('section.deriv[data-key="' + slot.dataset.key + '"]');
      if (!sec) return;
      slot.textContent = "";
      Array.prototype.forEach.call(sec.children, function (c) { if (!c.classList.contains("d-head")) slot.appendChild(document.importNode(c, true)); });
      slot.dataset.loaded = "1";
    });
  }, true);

  // A sentence that compares live numbers is a conditional (span.if): the card's live values name
  // the case that holds at its state ("if:<id>"), the page's prose-if blocks carry each case's HTML.
  var cases = null;                 // conditional id → each case's HTML
  var served = new WeakMap();       // span.if → [its case as the server wrote it, that HTML]
  function caseHtml(id, k) {
    if (!cases) {
      cases = {};
      document.querySelectorAll("script.prose-if").forEach(function (s) {
        try { Object.assign(cases, JSON.parse(s.textContent)); } catch (err) { /* no cases: as written */ }
      });
    }
    return (cases[id] || [])[k];
  }

  function updateCases(card, vals) {
    document.querySelectorAll('span.if[data-card="' + card + '"]').forEach(function (el) {
      var k = vals["if:" + el.dataset.if];
      if (k === undefined || k === el.dataset.case) return;
      if (!served.has(el)) served.set(el, [el.dataset.case, el.innerHTML]);
      var first = served.get(el);
      // the server's case keeps its page markup (glossary terms); another case comes from the JSON
      var html = k === first[0] ? first[1] : (k === "-1" ? "" : caseHtml(el.dataset.if, Number(k)));
      if (html === undefined) return;
      el.innerHTML = html;
      el.dataset.case = k;
    });
  }

  function updateLive(s) {
    var vals;
    try { vals = JSON.parse(s.textContent); } catch (err) { return; }
    updateCases(s.dataset.card, vals);
    document.querySelectorAll('a.live[data-card="' + s.dataset.card + '"]').forEach(function (a) {
      var k = a.dataset.key + (a.dataset.flag ? "|" + a.dataset.flag : "");
      if (!(k in vals)) return;
      if (!a.dataset.book) a.dataset.book = a.textContent;
      a.textContent = vals[k];
      a.classList.toggle("moved", vals[k] !== a.dataset.book);
    });
  }
})();
