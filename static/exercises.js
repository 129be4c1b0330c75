// Exercises: a reader's answers are checked by POST /api/cards/{id}/check at the card's current
// parameters; attempts stay in this browser (localStorage), never on the server.
(function () {
  "use strict";
  // the words of the edition served (base.html's ui-words block, built by app/render/env.py ui_words)
  var WORDS = (function () {
    var el = document.getElementById("ui-words");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
  })();
  function word(key) { return Object.prototype.hasOwnProperty.call(WORDS, key) ? WORDS[key] : key; }
  // a site page or fragment keeps the edition's folder (/en/…); the JSON API takes lang=en instead
  var EDITION = document.documentElement.lang === "en" ? "en" : "";
  function sitePath(path) { return (EDITION ? "/" + EDITION : "") + path; }
  function apiUrl(url) { return EDITION ? url + (url.indexOf("?") >= 0 ? "&" : "?") + "lang=" + EDITION : url; }
  function within(root, sel) {
    root = root || document;
    var out = Array.prototype.slice.call(root.querySelectorAll ? root.querySelectorAll(sel) : []);
    if (root.matches && root.matches(sel)) out.unshift(root);
    return out;
  }
  var STORE = "aiinfra:attempts:";
  function attempts(card) {
    try { return JSON.parse(localStorage.getItem(STORE + card) || "{}"); } catch (e) { return {}; }
  }
  function saveAttempt(card, key, rec) {
    var all = attempts(card);
    all[key] = rec;
    try { localStorage.setItem(STORE + card, JSON.stringify(all)); } catch (e) {}
  }
  function cardParams(card) {
    var form = card.querySelector("form.controls"), out = {};
    if (!form) return out;
    form.querySelectorAll("[name]").forEach(function (el) {
      if (!el.name || el.name === "solutions" || el.value === "") return;
      if (el.classList.contains("item")) { (out[el.name] = out[el.name] || []).push(el.value); }
      else out[el.name] = el.value;
    });
    return out;
  }
  // A diagnosed slip is said with the verdict, and its question's hint opens on its own.
  function showVerdict(form, r) {
    var o = form.querySelector("output.verdict");
    o.textContent = r.text + (r.hint ? " · " + r.hint : "") + (r.note ? " · " + r.note : "");
    o.className = "verdict v-" + r.verdict + (r.diagnosis ? " diagnosed" : "");
    if (r.diagnosis) {
      o.dataset.diagnosis = r.diagnosis;
      var hint = form.closest("li.q") && form.closest("li.q").querySelector("details.hint");
      if (hint) hint.open = true;
    } else delete o.dataset.diagnosis;
  }
  function answerOf(form) {
    var checked = form.querySelector("input[name=answer]:checked");
    if (checked) return checked.value;
    var inp = form.querySelector("input[name=answer]");
    return inp ? inp.value.trim() : "";
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.classList || !form.classList.contains("answer")) return;
    e.preventDefault();
    var card = form.closest(".card"), sec = form.closest(".questions");
    var key = form.dataset.key, raw = answerOf(form);
    var unitSel = form.querySelector("select[name=unit]");
    var isNum = form.closest(".q").classList.contains("q-numeric");
    var isBool = form.closest(".q").classList.contains("q-bool");   // the API takes a JSON boolean
    if (raw === "") { if (isNum) showVerdict(form, { verdict: "incorrect", text: word("enter_number") }); return; }
    // a numeric answer goes as typed ("4.02×10²²", "73.7 GB", "７３．７"): the server reads it (app/answers.py)
    // and says what it could not read
    var val = isBool ? raw === "true" : raw;
    var body = { params: cardParams(card), answers: {}, units: {} };
    body.answers[key] = val;
    if (unitSel) body.units[key] = unitSel.value;
    var url = sec.dataset.check + (card.querySelector("form.controls[data-solutions=off]") ? "?solutions=off" : "");
    fetch(apiUrl(url), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
      .then(function (res) {
        if (!res.ok) { showVerdict(form, { verdict: "incorrect", text: (res.j.detail && res.j.detail[0] && res.j.detail[0].msg) || word("cannot_check") }); return; }
        var r = res.j.results[key];
        // the card may have been redrawn meanwhile (a reveal): the verdict goes to the form on the page now
        var now = document.querySelector('.card[data-card="' + card.dataset.card + '"] form.answer[data-key="' + key + '"]');
        showVerdict(now || form, r);
        checkedNow.add(card.dataset.card + ":" + key);
        saveAttempt(card.dataset.card, key, { answer: raw, unit: unitSel ? unitSel.value : null, verdict: r.verdict, text: r.text, hint: r.hint || null, note: r.note || null, diagnosis: r.diagnosis || null, t: Date.now() });
        reveal(card, key);
      });
  });
  function initQuestions(root) {
    within(root, ".questions").forEach(function (sec) {
      if (sec.dataset.init) return;
      sec.dataset.init = "1";
      var card = sec.closest(".card");
      var saved = attempts(card.dataset.card);
      sec.querySelectorAll("li.q").forEach(function (li) {
        var form = li.querySelector("form.answer");
        var rec = form && saved[form.dataset.key];
        if (rec) {
          var radio = form.querySelector('input[name=answer][value="' + rec.answer + '"]');
          if (radio) radio.checked = true;
          var inp = form.querySelector("input[type=text][name=answer]");
          if (inp) inp.value = rec.answer;
          var us = form.querySelector("select[name=unit]");
          if (us && rec.unit) us.value = rec.unit;
          var now = checkedNow.has(card.dataset.card + ":" + form.dataset.key);   // checked on this page: no "上次"
          showVerdict(form, { verdict: rec.verdict, text: (now ? "" : word("last_time")) + rec.text, hint: rec.hint, note: rec.note, diagnosis: now ? rec.diagnosis : null });
        }
        var hint = li.querySelector("details.hint"), sol = li.querySelector("details.solution");
        if (sol) {
          if (openSolutions.has(card.dataset.card + ":" + li.dataset.key)) sol.open = true;
          sol.addEventListener("toggle", function () {
            if (!sol.open) return;
            openSolutions.add(card.dataset.card + ":" + li.dataset.key);
            reveal(card, li.dataset.key);   // choosing 查看解答 shows the answer
          });
        }
        if (hint && sol && !hint.open && !(saved["__hint:" + li.dataset.key])) {
          sol.hidden = true;
          hint.addEventListener("toggle", function () {
            if (hint.open) { sol.hidden = false; saveAttempt(card.dataset.card, "__hint:" + li.dataset.key, true); }
          });
        }
      });
    });
  }
  function jumpToQuestion() {
    var m = /^#(q\d+)$/.exec(location.hash);
    if (!m) return;
    var li = document.querySelector('li.q[data-q="' + m[1] + '"]');
    if (li) { li.classList.add("target"); li.scrollIntoView(); var i = li.querySelector("input, button"); if (i) i.focus({ preventScroll: true }); }
  }


  // ---------------------------------------------------------------- practice first
  // A number that answers one of the card's own questions arrives held back ("? · 先作答") until the
  // reader has checked an answer to it or opened its solution: the keys tried are kept in this
  // browser, and every fragment of the card is asked for with reveal=<key> for each of them.
  var REVEALED = "aiinfra:revealed:";
  var openSolutions = new Set(), checkedNow = new Set();
  function revealed(id) {
    try { return JSON.parse(localStorage.getItem(REVEALED + id) || "[]"); } catch (e) { return []; }
  }
  // every answer shown: the form says so, or, on a card with no controls (练习 1-4), the card itself
  function showsAll(card) { return !!card.querySelector("form.controls input[name=answers][value=shown]") || card.dataset.answers === "shown"; }
  function refresh(card) {
    if (!window.htmx) return;
    var form = card.querySelector("form.controls");
    if (form) { window.htmx.trigger(form, "change"); return; }
    var res = card.querySelector(".result");
    // the result is the source too: the request is then known as this card's (its reveals, its flags)
    if (res) window.htmx.ajax("GET", sitePath("/cards/" + card.dataset.card + "/fragment"), { source: res, target: res, swap: "innerHTML" });
  }
  function reveal(card, key) {
    var keys = revealed(card.dataset.card);
    if (keys.indexOf(key) >= 0 || showsAll(card)) return;
    keys.push(key);
    try { localStorage.setItem(REVEALED + card.dataset.card, JSON.stringify(keys)); } catch (e) {}
    refresh(card);
  }
  document.addEventListener("htmx:configRequest", function (e) {
    if (!/^\/cards\/[^/]+\/fragment$/.test(e.detail.path)) return;
    var card = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest(".card");
    if (card && card.dataset.answers === "shown" && e.detail.parameters) {
      var q = e.detail.parameters;
      if (typeof q.set === "function") q.set("answers", "shown"); else q.answers = "shown";
    }
    if (!card || showsAll(card)) return;
    var keys = revealed(card.dataset.card), p = e.detail.parameters;
    if (!keys.length || !p) return;
    if (typeof p.append === "function") keys.forEach(function (k) { p.append("reveal", k); });
    else p.reveal = keys;
  });
  // The presenter's 显示答案: an instructor shows (or hides again) every answer of the card.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-answers-toggle]");
    if (!b) return;
    var card = b.closest(".card"), form = card && card.querySelector("form.controls");
    if (!card) return;
    var inp = form && form.querySelector("input[name=answers]");
    if (!form) {  // no controls to carry the flag: the card carries it
      if (card.dataset.answers === "shown") delete card.dataset.answers; else card.dataset.answers = "shown";
    } else if (inp) inp.remove();
    else {
      inp = document.createElement("input");
      inp.type = "hidden"; inp.name = "answers"; inp.value = "shown";
      form.appendChild(inp);
    }
    b.setAttribute("aria-pressed", showsAll(card) ? "true" : "false");
    b.textContent = showsAll(card) ? word("hide_answers") : word("show_answers");
    refresh(card);
  });
  function initPractice() {
    document.querySelectorAll(".card").forEach(function (card) {
      var toggle = card.querySelector("[data-answers-toggle]");
      if (toggle && card.querySelector(".questions")) {
        toggle.hidden = false;
        toggle.textContent = showsAll(card) ? word("hide_answers") : word("show_answers");
      }
      if (card.querySelector(".questions") && !showsAll(card) && revealed(card.dataset.card).length) refresh(card);
    });
  }

  // A redraw (a slider, a reveal) replaces the questions too: what the reader has typed but not yet
  // checked, the caret in the box, the verdict on screen and an open hint are carried over to the new
  // forms, so an answer typed while the card was redrawing is neither lost nor appended to.
  var drafts = new WeakMap();   // swap target → what its forms held just before the swap
  function draftsOf(root) {
    var out = {};
    within(root, "form.answer").forEach(function (form) {
      var card = form.closest(".card"), o = form.querySelector("output.verdict");
      var li = form.closest("li.q"), hint = li && li.querySelector("details.hint");
      var inp = form.querySelector("input[type=text][name=answer]"), radio = form.querySelector("input[name=answer]:checked");
      var unit = form.querySelector("select[name=unit]");
      out[(card ? card.dataset.card : "") + ":" + form.dataset.key] = {
        value: inp ? inp.value : null, radio: radio ? radio.value : null, unit: unit ? unit.value : null,
        text: o ? o.textContent : "", cls: o ? o.className : "", diagnosis: o ? o.dataset.diagnosis : null,
        hint: !!(hint && hint.open),
        // the box being typed in keeps its caret or selection (htmx keeps focus, but the value is set after)
        sel: inp && inp === document.activeElement ? [inp.selectionStart, inp.selectionEnd, inp.selectionDirection] : null,
      };
    });
    return out;
  }
  function restoreDrafts(root, saved) {
    within(root, "form.answer").forEach(function (form) {
      var card = form.closest(".card"), d = saved[(card ? card.dataset.card : "") + ":" + form.dataset.key];
      if (!d) return;
      var inp = form.querySelector("input[type=text][name=answer]");
      if (inp && d.value !== null) {
        inp.value = d.value;
        if (d.sel && inp === document.activeElement) inp.setSelectionRange(d.sel[0], d.sel[1], d.sel[2]);
      }
      form.querySelectorAll("input[type=radio][name=answer]").forEach(function (r) { r.checked = r.value === d.radio; });
      var unit = form.querySelector("select[name=unit]");
      if (unit && d.unit) unit.value = d.unit;
      var o = form.querySelector("output.verdict");
      if (o) {
        o.textContent = d.text; o.className = d.cls;
        if (d.diagnosis) o.dataset.diagnosis = d.diagnosis; else delete o.dataset.diagnosis;
      }
      var li = form.closest("li.q"), hint = li && li.querySelector("details.hint");
      if (hint && d.hint) hint.open = true;
    });
  }
  document.addEventListener("htmx:beforeSwap", function (e) { if (e.detail.target) drafts.set(e.detail.target, draftsOf(e.detail.target)); });
  document.addEventListener("htmx:load", function (e) { initQuestions(e.detail.elt); });
  // a redrawn card gets its attempts back in the same task as the swap (htmx:load comes after settling)
  document.addEventListener("htmx:afterSwap", function (e) {
    initQuestions(e.detail.target);
    var d = drafts.get(e.detail.target);
    if (d) { restoreDrafts(e.detail.target, d); drafts.delete(e.detail.target); }
  });
  document.addEventListener("DOMContentLoaded", function () {
    initQuestions(document);
    jumpToQuestion();
    initPractice();
  });
})();
