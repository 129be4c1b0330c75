// Exercises: a reader's answers are checked by POST /api/cards/{id}/check at the card's current
// parameters; attempts stay in this browser (localStorage), never on the server.
(function () {
  "use strict";
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
    o.textContent = r.text + (r.hint ? " · " + r.hint : "");
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
    if (raw === "") return;
    var unitSel = form.querySelector("select[name=unit]");
    var isNum = form.closest(".q").classList.contains("q-numeric");
    var isBool = form.closest(".q").classList.contains("q-bool");   // the API takes a JSON boolean
    var val = isNum ? Number(raw.replace(/,/g, "")) : (isBool ? raw === "true" : raw);
    if (isNum && !isFinite(val)) { showVerdict(form, { verdict: "incorrect", text: "请输入一个数" }); return; }
    var body = { params: cardParams(card), answers: {}, units: {} };
    body.answers[key] = val;
    if (unitSel) body.units[key] = unitSel.value;
    var url = sec.dataset.check + (card.querySelector("form.controls[data-solutions=off]") ? "?solutions=off" : "");
    fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
      .then(function (res) {
        if (!res.ok) { showVerdict(form, { verdict: "incorrect", text: (res.j.detail && res.j.detail[0] && res.j.detail[0].msg) || "无法检查" }); return; }
        var r = res.j.results[key];
        showVerdict(form, r);
        saveAttempt(card.dataset.card, key, { answer: raw, unit: unitSel ? unitSel.value : null, verdict: r.verdict, text: r.text, hint: r.hint || null, diagnosis: r.diagnosis || null, t: Date.now() });
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
          showVerdict(form, { verdict: rec.verdict, text: "上次:" + rec.text, hint: rec.hint });
        }
        var hint = li.querySelector("details.hint"), sol = li.querySelector("details.solution");
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


  document.addEventListener("htmx:load", function (e) { initQuestions(e.detail.elt); });
  document.addEventListener("DOMContentLoaded", function () {
    initQuestions(document);
    jumpToQuestion();
  });
})();
