// AI Infra 图解 — the live class. Four pages use it: the presenter (开课 button), the control view
// on the projector (/live/{code}/control: publishes the presenter's state, runs questions, snapshots
// and 下课), the follower view on phones (/live/{code}: follows over server-sent events) and the
// page of an ended class (its CSV for the instructor).
// The instructor's token arrives in the URL fragment, is moved to sessionStorage at once (the
// address bar on the projector never shows it) and travels only as an Authorization header. A
// phone's participant credential (one phone, one vote) comes from join and is kept in localStorage
// per class, so a reload or a phone waking up rejoins as the same participant.
// No inline scripts: page data comes in <script type="application/json" id="live-data">.
(function () {
  "use strict";

  var TOKEN_KEY = "aiinfra:live:token:", CRED_KEY = "aiinfra:live:participant:", NICK_KEY = "aiinfra:live:nick";
  var CARD_KEY = "aiinfra:live:card:", ANSWERS_KEY = "aiinfra:live:answers:";
  // the page's words in its own language: <script type="application/json" id="live-words"> (app/live/pages.py)
  var LANG = document.documentElement.lang === "en" ? "en" : "zh";
  var EP = LANG === "en" ? "/en" : "";   // the edition's folder: every page or fragment URL built here keeps it
  var WORDS = (function () {
    var s = document.getElementById("live-words");
    try { return s ? JSON.parse(s.textContent) : {}; } catch (e) { return {}; }
  })();
  function tw(key, args) {
    var t = WORDS[key] !== undefined ? WORDS[key] : "";
    return args ? t.replace(/\{(\w+)\}/g, function (m, k) { return args[k] !== undefined ? String(args[k]) : m; }) : t;
  }
  // a question, a snapshot or a summary carries its words in every edition (words: {zh: …, en: …}): this page's
  function inLang(x) { return x && x.words && x.words[LANG] ? Object.assign({}, x, x.words[LANG]) : x; }
  var VERDICT = { correct: tw("correct"), close: tw("close"), incorrect: tw("incorrect") };
  var RUG = tw("rug");

  // ---------------------------------------------------------------- small helpers
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function pageData() {
    var s = document.getElementById("live-data");
    return s ? JSON.parse(s.textContent) : null;
  }
  function store(kind, key, value) {
    try {
      if (value === undefined) return window[kind].getItem(key);
      if (value === null) window[kind].removeItem(key); else window[kind].setItem(key, value);
    } catch (e) { return null; }
  }
  function api(method, url, body, token) {
    var headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    if (LANG === "en" && url.indexOf("/api/") === 0) url += (url.indexOf("?") < 0 ? "?" : "&") + "lang=en";   // the answer's words in English
    return fetch(url, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" })
      .then(function (r) {
        var retry = Number(r.headers.get("Retry-After")) || 0;
        return r.json().catch(function () { return {}; }).then(function (j) { return { ok: r.ok, status: r.status, j: j, retry: retry }; });
      })
      .catch(function () { return { ok: false, status: 0, j: {}, retry: 0 }; });
  }
  function errorText(res, fallback) {
    var d = res.j && res.j.detail;
    var m = (d && d[0] && d[0].msg) || fallback || (tw("error", { status: res.status }) || "HTTP " + res.status);
    return m.replace(/^[a-z_.-]+:/, "");   // "code:本课堂已满…" → the message alone
  }
  function formQuery(form) {
    if (!form) return "";
    var parts = [];
    new FormData(form).forEach(function (v, k) {
      if (v === "" || k === "solutions" || k === "hide" || k === "answers") return;
      parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
    });
    return parts.join("&");
  }
  function fmt(x) {
    if (typeof x !== "number" || !isFinite(x)) return String(x);
    var a = Math.abs(x);
    return a !== 0 && (a >= 1e6 || a < 1e-3) ? x.toExponential(3) : Number(x.toPrecision(4)).toLocaleString("en-US");
  }
  function truthText(res) {
    if (typeof res.true_value === "number") return fmt(res.true_value) + (res.unit ? " " + (res.unit_text || res.unit) : "");
    return res.true_value === true ? tw("yes") : res.true_value === false ? tw("no") : String(res.true_value);
  }
  function plotColors() {
    var ink = getComputedStyle(document.body).color || "#1f2933";
    return { ink: ink, accent: "#e4572e", fill: "rgba(228,87,46,0.45)", truth: "#2f9e44" };
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;   // text, never markup (nicknames, labels)
    return e;
  }

  // ---------------------------------------------------------------- hidden means absent
  // While a question is open (not revealed), its card is loaded with hide=<key> (the engine leaves
  // the value out of the HTML) and solutions=off; every fragment a slider asks for carries the same.
  // A sweep (扫参) not yet revealed holds its predicted output back the same way.
  function pendingQ(q) { return q && q.status !== "revealed" ? q : null; }
  var currentQ = null;   // the question the page knows (both views set it)
  var currentSweep = null;   // the sweep the page knows (public view: card, predict, status)
  var answersShown = false;   // the control view's 显示答案 (this screen only, never published)
  function hideKeys(q, card) {
    var keys = [], p = pendingQ(q), sw = currentSweep;
    if (p && p.card === card) keys.push(p.key);
    if (sw && sw.status !== "revealed" && sw.card === card && keys.indexOf(sw.predict) < 0) keys.push(sw.predict);
    return keys.sort();
  }
  function maskOf(keys) {
    return keys.length ? keys.map(function (k) { return "hide=" + encodeURIComponent(k); }).join("&") + "&solutions=off" : "";
  }
  function maskParams(q, card) { return maskOf(hideKeys(q, card)); }
  function stageUrl(card, query, q) {
    var extra = maskParams(q, card), qs = [query, extra, answersShown ? "answers=shown" : ""].filter(Boolean).join("&");
    return EP + "/live/card/" + encodeURIComponent(card) + (qs ? "?" + qs : "");
  }
  document.addEventListener("htmx:configRequest", function (e) {
    var elt = e.detail.elt, path = e.detail.path || "";
    if (!elt || !elt.closest || path.indexOf(EP + "/live/card/") === 0) return;
    var box = elt.closest("#live-stage, .live-snap-body"), card = elt.closest(".card");
    var keys = card ? hideKeys(currentQ, card.dataset.card) : [];
    if (!box || !keys.length) return;
    var params = e.detail.parameters;
    if (params && typeof params.append === "function") {
      var have = params.getAll ? params.getAll("hide") : [];
      keys.forEach(function (k) { if (have.indexOf(k) < 0) params.append("hide", k); });
      if (params.set) params.set("solutions", "off");
    } else if (params) { params.hide = keys.length === 1 ? keys[0] : keys; params.solutions = "off"; }
  });
  // …and on screen the masked tile shows "?" (also while an older page still holds the number)
  function maskFor(q) {
    var p = pendingQ(q);
    currentQ = q;
    document.body.classList.toggle("live-asking", !!p);
    $$(".stat.live-masked").forEach(function (e) { e.classList.remove("live-masked"); });
    if (p) $$('#live-stage .stat[data-key="' + p.key + '"], .live-snap .stat[data-key="' + p.key + '"]').forEach(function (e) { e.classList.add("live-masked"); });
    var sc = stageCard();
    if (sc) hideKeys(q, sc.dataset.card).forEach(function (k) {
      $$('#live-stage .stat[data-key="' + k + '"]').forEach(function (e) { e.classList.add("live-masked"); });
    });
  }

  // ---------------------------------------------------------------- the stage (card shell swapped in)
  // Both views show the card through /live/card/{id}?… (the card page's own shell and fragment,
  // cached per URL). Same card → the plots are preserved (hx-preserve) and only data moves.
  function stageCard() { return $("#live-stage .live-card"); }
  function stageState() {
    var lc = stageCard();
    if (!lc) return { card: "", query: "" };
    return { card: lc.dataset.card, query: formQuery($("form.controls", lc)) };
  }
  function loadStage(card, query, q) {
    var stage = $("#live-stage");
    return new Promise(function (resolve) {
      var done = false;
      function failed(e) { if (e.detail && e.detail.target === stage) finish(); }   // an error page or no network: stop waiting
      // the new card drawn: the stage's own swap. A card:drawn bubbling up from the card being
      // left (a slider's late answer) is not it, and must not end the wait early
      function drawn(e) { if (e.target === stage) finish(); }
      function finish() {
        if (done) return;
        done = true;
        stage.removeEventListener("card:drawn", drawn);
        ["htmx:responseError", "htmx:sendError"].forEach(function (n) { document.removeEventListener(n, failed); });
        resolve();
      }
      stage.addEventListener("card:drawn", drawn);
      ["htmx:responseError", "htmx:sendError"].forEach(function (n) { document.addEventListener(n, failed); });
      setTimeout(finish, 4000);
      window.htmx.ajax("GET", stageUrl(card, query, q), { target: stage, swap: "innerHTML" }).catch(finish);
    });
  }
  function animatedPlot() { return $("#live-stage .fig.animated .plot"); }
  function whenPlotted(e, fn, tries) {
    tries = tries || 0;
    if (e && e._transitionData && e._transitionData._frames && e._transitionData._frames.length && e.on) return fn(e);
    if (tries < 80) setTimeout(function () { whenPlotted(e, fn, tries + 1); }, 50);
  }
  function showFrame(name) {
    var p = animatedPlot();
    if (!p || name === null || name === undefined || !window.Plotly) return;
    whenPlotted(p, function () {
      window.Plotly.animate(p, [String(name)], { mode: "immediate", frame: { duration: 0, redraw: false }, transition: { duration: 0 } });
    });
  }

  // ---------------------------------------------------------------- results: the room's own panel
  // The histogram is a panel of its own (bins from the answers' spread, computed by the server),
  // the true value marked on it and the 正确/接近/不对 shares beside it in large type. On the card's
  // own axis (projector only) the answers are a rug of short ticks: never a second axis.
  function sharesBox(res) {
    var s = res.shares || {}, box = el("div", "live-verdicts");
    ["correct", "close", "incorrect"].forEach(function (k) {
      var d = el("div", "live-verdict live-verdict-" + k);
      d.appendChild(el("span", "live-verdict-pct", Math.round(100 * (s[k] || 0)) + "%"));
      d.appendChild(el("span", "live-verdict-name", VERDICT[k] + " " + tw("people", { n: (res.verdicts || {})[k] || 0 })));
      box.appendChild(d);
    });
    return box;
  }
  function histPlot(div, res, big) {
    var c = plotColors(), h = res.histogram, font = big ? 20 : 14, data, layout = {
      height: big ? 340 : 230, margin: { l: big ? 64 : 44, r: 16, t: 30, b: big ? 64 : 48 },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", bargap: 0.04,
      font: { color: c.ink, size: font }, showlegend: false,
      yaxis: { title: { text: tw("count") }, rangemode: "tozero", dtick: undefined, gridcolor: "rgba(128,128,128,0.25)" }
    };
    if (h) {
      var t = function (x) { return h.log ? Math.log10(x) : x; };
      var mids = [], widths = [], texts = [];
      for (var i = 0; i < h.counts.length; i++) {
        mids.push((t(h.edges[i]) + t(h.edges[i + 1])) / 2);
        widths.push(t(h.edges[i + 1]) - t(h.edges[i]));
        texts.push(h.counts[i] ? String(h.counts[i]) : "");
      }
      data = [{ type: "bar", x: mids, y: h.counts, width: widths, marker: { color: c.fill, line: { color: c.accent, width: 2 } },
        text: texts, textposition: "outside", cliponaxis: false, hoverinfo: "skip" }];
      var top = Math.max(1, Math.max.apply(null, h.counts));
      layout.yaxis.range = [0, top * 1.25];
      if (top <= 10) layout.yaxis.dtick = 1;
      layout.xaxis = { title: { text: (res.label || "") + (res.unit ? tw("unit", { unit: res.unit_text || res.unit }) : "") + (h.log ? tw("log") : "") } };
      if (h.log) {   // log bins drawn on a linear axis of log10 values, ticked in the values themselves
        var lo = Math.floor(t(h.edges[0])), hi = Math.ceil(t(h.edges[h.edges.length - 1])), tv = [], tt = [];
        for (var k = lo; k <= hi; k++) { tv.push(k); tt.push(fmt(Math.pow(10, k))); }
        layout.xaxis.tickvals = tv; layout.xaxis.ticktext = tt;
      }
      layout.xaxis.range = [t(h.edges[0]), t(h.edges[h.edges.length - 1])];
      var x = t(res.true_value);
      layout.shapes = [{ type: "line", xref: "x", yref: "paper", x0: x, x1: x, y0: 0, y1: 1, line: { color: c.truth, width: 4 } }];
      layout.annotations = [{ xref: "x", yref: "paper", x: x, y: 1.02, yanchor: "bottom", showarrow: false,
        text: tw("truth", { v: truthText(res) }), font: { color: c.truth, size: font + 2 } }];
    } else {
      var keys = Object.keys(res.options || {});
      data = [{ type: "bar", x: keys.map(function (k) { return k === "true" ? tw("yes") : k === "false" ? tw("no") : k; }),
        y: keys.map(function (k) { return res.options[k]; }), marker: { color: c.fill, line: { color: c.accent, width: 2 } },
        text: keys.map(function (k) { return String(res.options[k]); }), textposition: "outside", cliponaxis: false }];
      layout.yaxis.range = [0, Math.max(1, Math.max.apply(null, data[0].y)) * 1.25];
    }
    window.Plotly.newPlot(div, data, layout, { displaylogo: false, responsive: true, displayModeBar: false, staticPlot: true });
  }
  function showResults(box, res, opts) {
    opts = opts || {};
    box.hidden = false;
    box.textContent = "";
    var head = el("div", "live-res-head");
    head.appendChild(el("p", "live-res-text", tw("truth", { v: truthText(res) }) + " · " + tw("answered", { n: res.answered })));
    box.appendChild(head);
    var body = el("div", "live-res-body");
    var plot = el("div", "live-hist");
    body.appendChild(plot);
    body.appendChild(sharesBox(res));
    box.appendChild(body);
    if (res.histogram && (res.histogram.below || res.histogram.above)) {
      box.appendChild(el("p", "muted", tw("outside", { below: res.histogram.below, above: res.histogram.above })));
    }
    // the slips the server named in the class's answers, most common first (the same rule as a page's 检查)
    var slips = (res.diagnoses || []).slice(0, 3);
    if (slips.length) {
      box.appendChild(el("p", "live-slips", tw("slips") + slips.map(function (d) { return d.text + tw("slip_count", { n: d.count }); }).join(tw("sep"))));
    }
    if (window.Plotly) histPlot(plot, res, !!opts.big);
    if (opts.rug) rug(res);
  }
  // The answers as ticks along the card's own axis (where the quantity has one), the true value a line.
  function rug(res) {
    var sc = stageCard();
    var p = res.axis && sc && sc.dataset.card === res.card && document.getElementById("plot-" + res.card + "-" + res.axis.figure);
    if (!p || !p.layout || !window.Plotly || !res.answers) return;
    var c = plotColors(), onY = res.axis.axis === "y", seen = {}, shapes = [];
    res.answers.forEach(function (a) {
      if (typeof a.norm !== "number" || !isFinite(a.norm) || (res.axis.log && a.norm <= 0)) return;
      var k = Number(a.norm.toPrecision(3));
      if (seen[k] || shapes.length >= 400) return;
      seen[k] = 1;
      shapes.push(onY ? { type: "line", xref: "paper", yref: "y", x0: 0, x1: 0.035, y0: k, y1: k, line: { color: c.accent, width: 3 }, liveRug: true }
        : { type: "line", xref: "x", yref: "paper", x0: k, x1: k, y0: 0, y1: 0.06, line: { color: c.accent, width: 3 }, liveRug: true });
    });
    var v = res.true_value;
    shapes.push(onY ? { type: "line", xref: "paper", yref: "y", x0: 0, x1: 1, y0: v, y1: v, line: { color: c.truth, width: 3, dash: "dot" }, liveRug: true }
      : { type: "line", xref: "x", yref: "paper", x0: v, x1: v, y0: 0, y1: 1, line: { color: c.truth, width: 3, dash: "dot" }, liveRug: true });
    var keep = (p.layout.shapes || []).filter(function (s) { return !s.liveRug; });
    window.Plotly.relayout(p, { shapes: keep.concat(shapes) });
  }

  // ================================================================= presenter: 开课
  function initStart() {
    var b = $(".live-start");
    if (!b) return;
    b.addEventListener("click", function () {
      b.disabled = true;
      api("POST", "/api/live", { card: b.dataset.card, query: location.search.replace(/^\?/, "") }).then(function (res) {
        if (!res.ok) { b.disabled = false; b.textContent = errorText(res, tw("start_failed")); return; }
        store("sessionStorage", TOKEN_KEY + res.j.code, res.j.token);
        location.href = EP + res.j.control_url;
      });
    });
  }

  // ================================================================= the CSV export (control view, ended page)
  function csvButton(code, token) {
    var b = $(".live-csv");
    if (!b) return;
    if (!token) { b.disabled = true; b.title = tw("no_token"); return; }
    b.addEventListener("click", function () {
      var msg = $(".live-csv-msg");
      fetch("/api/live/" + code + "/results.csv", { headers: { Authorization: "Bearer " + token }, cache: "no-store" })
        .then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.blob();
        })
        .then(function (blob) {
          var a = document.createElement("a");
          a.href = URL.createObjectURL(blob);
          a.download = "live-" + code + "-results.csv";
          document.body.appendChild(a);
          a.click();
          setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
          if (msg) msg.textContent = tw("downloaded");
        })
        .catch(function (e) { if (msg) msg.textContent = tw("download_failed", { e: e.message }); });
    });
  }

  // ================================================================= control view (projector)
  // c: { code, token, say(text), frame, question, … } shared by the parts below.
  function initControl(data) {
    var c = { code: data.code, token: takeToken(data.code), frame: data.state.frame, question: data.state.question, sweep: data.state.sweep || null };
    var auth = $(".live-auth");
    c.say = function (t) { auth.textContent = t; };
    c.call = function (method, path, body) { return api(method, "/api/live/" + c.code + path, body, c.token); };
    if (!c.token) { c.say(tw("read_only")); document.body.classList.add("live-readonly"); }
    else c.say(tw("authorized"));
    currentQ = c.question;
    currentSweep = c.sweep;
    answersShown = store("sessionStorage", ANSWERS_KEY + c.code) === "1";
    controlPublishing(c, data.state);
    controlHall(c);   // before the keys: Esc closes the hall view first
    controlKeys(c);
    controlLock(c);
    controlQuestions(c);
    controlSnapshots(c);
    controlSweeps(c);
    controlAnswers(c);
    controlEnd(c);
    csvButton(c.code, c.token);
    c.afterLoad();
    showFrame(c.frame);
    c.showQuestion(c.question);
    c.showSweep(c.sweep);
    c.refresh();
    c.refreshSnaps();
    setInterval(c.refresh, 2000);
    setInterval(c.refreshSnaps, 4000);
  }
  function takeToken(code) {
    var m = /^#t=([A-Za-z0-9_-]+)$/.exec(location.hash);
    if (m) {
      store("sessionStorage", TOKEN_KEY + code, m[1]);
      history.replaceState(null, "", location.pathname);   // never left on the projected address bar
      return m[1];
    }
    return store("sessionStorage", TOKEN_KEY + code);
  }
  // Every valid state the presenter reaches is published (PUT state), at most every 120 ms, the
  // last one always: slider moves (the card's own fragment came back = valid), ▶ frames, cards.
  function controlPublishing(c, initial) {
    var pub = { last: 0, timer: null, next: null, sent: JSON.stringify({ card: initial.card, query: initial.query, frame: initial.frame }) };
    c.publish = function (st) {
      if (!c.token) return;
      pub.next = st;
      if (pub.timer) return;
      pub.timer = setTimeout(function () {
        pub.timer = null;
        var body = JSON.stringify(pub.next);
        if (body === pub.sent) return;
        pub.sent = body; pub.last = Date.now();
        c.call("PUT", "/state", pub.next).then(function (res) { if (!res.ok) c.say(errorText(res, tw("sync_failed"))); });
      }, Math.max(0, 120 - (Date.now() - pub.last)));
    };
    c.current = function () { var s = stageState(); s.frame = c.frame; return s; };
    // each card keeps the state the instructor left it in (this class, this browser tab): N/P and
    // the jump box come back to it instead of the card's defaults
    c.remember = function () {
      var st = stageState();
      if (st.card) store("sessionStorage", CARD_KEY + c.code + ":" + st.card, st.query);
    };
    c.remembered = function (card) { return store("sessionStorage", CARD_KEY + c.code + ":" + card) || ""; };
    c.goTo = function (card, query) {
      c.remember();
      c.frame = null;
      c.goingTo = card;
      c.publish({ card: card, query: query || "", frame: null });
      return loadStage(card, query, c.question).then(function () { c.goingTo = null; c.afterLoad(); });
    };
    c.afterLoad = function () {
      var lc = stageCard(), bar = $(".present-bar");
      bar.dataset.prev = lc ? lc.dataset.prev : "";
      bar.dataset.next = lc ? lc.dataset.next : "";
      watchFrames(c);
      c.fillAskable();
      if (c.fillSweepable) c.fillSweepable();
      maskFor(c.question);
    };
    document.addEventListener("htmx:afterSwap", function (e) {
      var t = e.detail.target;
      if (t && t.id && t.id.indexOf("r-") === 0 && t.closest("#live-stage")) {
        // a late answer for the card being left (a slider's second request) must not replace the
        // card the class is going to: published, it would be the state already sent, and dropped
        var lc = t.closest(".live-card");
        if (c.goingTo && (!lc || lc.dataset.card !== c.goingTo)) return;
        c.frame = null;
        c.publish(c.current());
        maskFor(c.question);
        setTimeout(function () { watchFrames(c); }, 0);
      }
    });
  }
  function watchFrames(c) {
    var p = animatedPlot();
    if (!p) return;
    whenPlotted(p, function () {
      if (p.dataset.liveWatch) return;
      p.dataset.liveWatch = "1";
      p.on("plotly_animatingframe", function (ev) { c.frame = ev.name; c.publish(c.current()); });
      p.on("plotly_sliderchange", function (ev) { if (ev && ev.step) { c.frame = String(ev.step.args[0][0]); c.publish(c.current()); } });
    });
  }
  // N/P and Esc belong to the class here: N/P change the card for everyone, Esc stays put; the
  // jump box takes a printed label (图 1-7, 练习 3-2) like the site's own.
  function controlKeys(c) {
    window.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var a = document.activeElement;
      if (a && (a.tagName === "INPUT" && (a.type === "text" || a.type === "search") || a.tagName === "SELECT" || a.tagName === "TEXTAREA")) return;
      var k = e.key.toLowerCase(), lc = stageCard();
      if (k === "escape") { e.stopImmediatePropagation(); return; }
      if ((k === "n" || k === "p") && lc) {
        e.stopImmediatePropagation();
        e.preventDefault();
        var target = k === "n" ? lc.dataset.next : lc.dataset.prev;
        if (target) c.goTo(target, c.remembered(target));
      }
    }, true);
    $(".live-jump").addEventListener("submit", function (e) {
      e.preventDefault();
      var q = $("#live-jump-q").value.trim();
      if (!q) return;
      api("GET", "/api/live/resolve?q=" + encodeURIComponent(q)).then(function (res) {
        if (!res.ok) { c.say(errorText(res)); return; }
        $("#live-jump-q").value = "";
        c.goTo(res.j.card, c.remembered(res.j.card));
      });
    });
  }
  function controlLock(c) {
    var btn = $(".live-lock");
    btn.addEventListener("click", function () {
      var locked = btn.getAttribute("aria-pressed") === "true";
      c.call("POST", locked ? "/unlock" : "/lock").then(function (res) {
        if (!res.ok) { c.say(errorText(res)); return; }
        btn.setAttribute("aria-pressed", res.j.locked ? "true" : "false");
        btn.textContent = res.j.locked ? tw("unlock") : tw("lock");
      });
    });
  }
  // 下课: after a confirmation, DELETE the class; the page then shows the ended class (summary, CSV).
  function controlEnd(c) {
    var b = $(".live-end");
    if (!b) return;
    b.addEventListener("click", function () {
      if (!window.confirm(tw("end_confirm"))) return;
      b.disabled = true;
      c.call("DELETE", "").then(function (res) {
        if (res.status === 204 || res.status === 410) { location.replace(EP + "/live/" + c.code + "/ended?view=control"); return; }
        b.disabled = false;
        c.say(errorText(res, tw("end_failed")));
      });
    });
  }
  // The join code and QR large enough for the back of the hall (a full-screen view; Esc or a click closes).
  function controlHall(c) {
    var view = $(".live-hall"), open = $(".live-hall-open");
    if (!view || !open) return;
    function toggle(on) {
      view.hidden = !on;
      open.setAttribute("aria-expanded", on ? "true" : "false");
      if (on) view.focus(); else open.focus();
    }
    open.addEventListener("click", function () { toggle(view.hidden); });
    view.addEventListener("click", function () { toggle(false); });
    window.addEventListener("keydown", function (e) {
      if (!view.hidden && (e.key === "Escape" || e.key === "Enter" || e.key === " ")) { e.preventDefault(); e.stopImmediatePropagation(); toggle(false); }
    }, true);
    c.hallFollowers = function (n) { var s = $(".live-hall-followers"); if (s) s.textContent = n; };
  }
  // 提问 / 收卷 / 公布: the question list follows the card on the stage; the panel shows how many
  // answered, and the results only once revealed (the projector is public).
  function controlQuestions(c) {
    var sel = $("#live-ask-key"), qbox = $(".live-q"), shown = null;
    c.fillAskable = function () { fillAskable(sel); };
    $(".live-ask-go").addEventListener("click", function () {
      var st = stageState();
      if (!sel.value) return;
      c.call("POST", "/questions", { card: st.card, key: sel.value, query: st.query }).then(function (res) {
        if (!res.ok) { c.say(errorText(res, tw("ask_failed"))); return; }
        c.refresh();
      });
    });
    function act(what) {
      if (!c.question) return;
      c.call("POST", "/questions/" + c.question.qid + "/" + what).then(function (res) {
        if (!res.ok) { c.say(errorText(res)); return; }
        c.refresh();
      });
    }
    $(".live-close").addEventListener("click", function () { act("close"); });
    $(".live-reveal").addEventListener("click", function () { act("reveal"); });
    $(".live-names").addEventListener("change", function () { shown = null; c.refreshResults(); });
    $(".live-results-close").addEventListener("click", function () { $(".live-results-panel").hidden = true; });
    c.showQuestion = function (q) {
      c.question = q;
      maskFor(q);
      qbox.hidden = !q;
      c.remask(function () { shown = null; c.refreshResults(); });
      if (!q) return;
      $(".live-q-title").innerHTML = inLang(q).prompt_html;   // the server's own rendering of the card's text
      $(".live-q-status").textContent = { open: tw("open"), closed: tw("closed"), revealed: tw("revealed") }[q.status];
      $(".live-close").disabled = q.status !== "open";
      $(".live-reveal").disabled = q.status === "revealed";
      c.refreshResults();
    };
    c.refreshResults = function () {
      var q = c.question;
      if (!q) return;
      c.call("GET", "/questions/" + q.qid + "/results").then(function (res) {
        if (!res.ok) return;
        $(".live-answered").textContent = res.j.answered;
        var box = $(".live-results"), panel = $(".live-results-panel"), names = $(".live-names").checked;
        if (q.status !== "revealed") { panel.hidden = true; shown = null; return; }
        var sig = q.qid + ":" + res.j.answered + ":" + names + ":" + (stageCard() ? stageCard().dataset.hide : "");
        if (sig === shown) return;
        var first = shown === null || shown.split(":")[0] !== String(q.qid);
        shown = sig;
        if (first) panel.hidden = false;   // 公布: the panel opens once per question; 收起 keeps it shut
        showResults(box, Object.assign({ card: q.card }, res.j), { big: true, rug: true });
        if (names && res.j.answers) box.appendChild(namesList(res.j.answers));
      });
    };
    c.remask = remasker(c);
    c.refresh = function () {
      api("GET", "/api/live/" + c.code).then(function (res) {
        if (res.status === 410) { location.replace(location.pathname); return; }
        if (!res.ok) { if (res.status === 503 || res.status === 0) c.say(errorText(res, tw("retrying"))); return; }
        if (c.token) c.say(tw("authorized"));
        $(".live-followers").textContent = res.j.followers;
        if (c.hallFollowers) c.hallFollowers(res.j.followers);
        var q = res.j.question;
        if (JSON.stringify(q) !== JSON.stringify(c.question) || (q && q.status === "open")) c.showQuestion(q);
        var sw = res.j.sweep || null;
        if (JSON.stringify(sw) !== JSON.stringify(c.sweep) || (sw && sw.status === "open")) c.showSweep(sw);
      });
    };
  }
  // the stage follows the mask: masked while a question or a sweep on its card is open, unmasked once revealed
  function remasker(c) {
    return function (then) {
      var lc = stageCard(), st = stageState();
      var want = lc ? hideKeys(c.question, lc.dataset.card).join(" ") : "";
      if (lc && !c.goingTo && !c.remasking && want !== (lc.dataset.hide || "")) {
        c.remasking = true;
        loadStage(st.card, st.query, c.question).then(function () { c.remasking = false; c.afterLoad(); if (then) then(); });
      }
    };
  }
  // 显示答案: the instructor's own stage shows the card's answers (answers=shown, as the presenter's
  // toggle); the state published to the class never carries it, so the phones stay as they were
  function controlAnswers(c) {
    var cb = $(".live-answers-shown");
    if (!cb) return;
    cb.checked = answersShown;
    function reload() {
      var st = stageState();
      return loadStage(st.card, st.query, c.question).then(function () { c.afterLoad(); });
    }
    cb.addEventListener("change", function () {
      answersShown = cb.checked;
      store("sessionStorage", ANSWERS_KEY + c.code, answersShown ? "1" : null);
      reload();
    });
    var lc = stageCard();
    if (answersShown && lc && !$("form.controls input[name=answers]", lc)) reload();
  }
  function fillAskable(sel) {
    var st = stageState();
    api("GET", "/api/live/askable/" + encodeURIComponent(st.card) + (st.query ? "?" + st.query : "")).then(function (res) {
      sel.textContent = "";
      if (!res.ok) return;
      var groups = { exercise: tw("exercise"), tile: tw("tile") };
      Object.keys(groups).forEach(function (src) {
        var items = res.j.askable.filter(function (a) { return a.source === src; });
        if (!items.length) return;
        var g = document.createElement("optgroup");
        g.label = groups[src];
        items.forEach(function (a) {
          var o = el("option", "", a.label + (a.unit ? tw("unit", { unit: a.unit }) : ""));
          o.value = a.key;
          g.appendChild(o);
        });
        sel.appendChild(g);
      });
    });
  }
  function namesList(answers) {
    var ul = el("ul", "live-names-list");
    answers.forEach(function (a) {
      ul.appendChild(el("li", "", (a.nick || tw("anonymous")) + tw("colon") + a.value + (a.unit ? " " + a.unit : "") + " · " + (VERDICT[a.verdict] || a.verdict)));
    });
    return ul;
  }
  // Snapshots students shared: pick up to four, show them side by side over the stage.
  function controlSnapshots(c) {
    var list = $(".live-snaps-list"), showBtn = $(".live-snaps-show"), snaps = {};
    c.refreshSnaps = function () {
      if (!c.token) return;
      c.call("GET", "/snapshots").then(function (res) {
        if (!res.ok) return;
        res.j.snapshots.slice().reverse().forEach(function (s) {
          if (snaps[s.sid]) return;
          snaps[s.sid] = s;
          list.insertBefore(snapshotItem(s), list.firstChild);
        });
      });
    };
    list.addEventListener("change", function () {
      var picked = $$(".live-snap-pick:checked", list);
      $$(".live-snap-pick", list).forEach(function (cb) { cb.disabled = !cb.checked && picked.length >= 4; });
      showBtn.disabled = picked.length === 0;
    });
    showBtn.addEventListener("click", function () {
      var grid = $(".live-snaps-grid");
      grid.textContent = "";
      $$(".live-snap-pick:checked", list).forEach(function (cb, i) { grid.appendChild(snapshotCell(snaps[cb.value], i, c.question)); });
      $(".live-snaps").hidden = false;
    });
    $(".live-snaps-close").addEventListener("click", function () { $(".live-snaps").hidden = true; $(".live-snaps-grid").textContent = ""; });
    // Several snapshots of one card must not share plot ids: prefix them per cell before the swap.
    document.addEventListener("htmx:beforeSwap", function (e) {
      var t = e.detail.target;
      if (!t || !t.dataset || !t.dataset.snap || !e.detail.serverResponse) return;
      e.detail.serverResponse = e.detail.serverResponse.replace(/(id|data-plot|aria-describedby)="plot-/g, '$1="' + t.dataset.snap + '-plot-')
        .replace(/ hx-preserve="true"/g, "");
    });
  }
  function snapLabel(s) {
    // the server's words for the state ("批大小 B = 64 请求 · …"): whole items, never cut mid-number
    s = inLang(s);
    return s.label || (s.query ? tw("custom") : tw("default"));
  }
  function snapshotItem(s) {
    var li = el("li"), label = el("label"), cb = el("input", "live-snap-pick");
    cb.type = "checkbox"; cb.value = s.sid;
    label.appendChild(cb);
    label.appendChild(document.createTextNode(" " + (s.nick || tw("anonymous")) + " · " + inLang(s).title));
    li.appendChild(label);
    li.appendChild(el("span", "live-snap-state", snapLabel(s)));
    return li;
  }
  function snapshotCell(s, i, q) {
    var cell = el("div", "live-snap"), body = el("div", "live-snap-body");
    cell.appendChild(el("h3", "", (s.nick || tw("anonymous")) + " · " + inLang(s).title));
    cell.appendChild(el("p", "live-snap-state", snapLabel(s)));
    body.dataset.snap = "s" + i;
    cell.appendChild(body);
    var extra = maskParams(q, s.card), qs = [s.query, extra].filter(Boolean).join("&");
    window.htmx.ajax("GET", EP + "/cards/" + encodeURIComponent(s.card) + "/fragment" + (qs ? "?" + qs : ""), { target: body, swap: "innerHTML" })
      .then(function () { maskFor(q); });
    return cell;
  }

  // ================================================================= 扫参: the class explores a design space
  // The instructor varies 1–3 of the card's parameters; each phone owns one point (the card there,
  // the predicted output held back) and predicts it; after 公布 the projector draws every point in
  // the card's units, the frontier as a line, each point coloured by its prediction's verdict.
  var SWEEP_COLOR = { correct: "#2f9e44", close: "#f08c00", incorrect: "#e03131", none: "#868e96" };
  var SWEEP_NAME = { correct: VERDICT.correct, close: VERDICT.close, incorrect: VERDICT.incorrect, none: tw("none") };
  function axisTitle(a) { return a.label + (a.unit ? tw("unit", { unit: a.unit }) : "") + (a.better === "lower" ? tw("lower") : tw("higher")); }
  // the server says how each axis is drawn (log or not, and a log axis's labels: the cards' own rule)
  function sweepAxis(title, scale) {
    var ax = { title: { text: title }, type: scale && scale.log ? "log" : "linear", gridcolor: "rgba(128,128,128,0.25)", automargin: true };
    return ax.type === "log" ? Object.assign(ax, { tickvals: scale.tickvals, ticktext: scale.ticktext }) : ax;
  }
  function sweepPlot(div, res, opts) {
    opts = opts || {};
    var c = plotColors(), big = !!opts.big, font = big ? 18 : 12;
    var pts = res.points.filter(function (p) { return typeof p.x === "number" && typeof p.y === "number"; });
    var data = [];
    ["correct", "close", "incorrect", "none"].forEach(function (v) {
      var mine = pts.filter(function (p) { return (p.verdict || "none") === v; });
      if (!mine.length) return;
      data.push({ type: "scatter", mode: "markers", name: SWEEP_NAME[v] + " " + mine.length, liveVerdict: v,
        x: mine.map(function (p) { return p.x; }), y: mine.map(function (p) { return p.y; }),
        text: mine.map(function (p) { return p.label + (p.prediction === null ? "" : "<br>" + tw("prediction", { v: fmt(p.prediction) })) + "<br>" + tw("truth", { v: fmt(p.truth) }); }),
        hoverinfo: "text", marker: { color: SWEEP_COLOR[v], size: big ? 14 : 10, line: { color: c.ink, width: 1 } } });
    });
    var front = pts.filter(function (p) { return p.frontier; }).sort(function (a, b) { return a.x - b.x || a.y - b.y; });
    data.push({ type: "scatter", mode: "lines+markers", name: tw("frontier"), liveFrontier: true, x: front.map(function (p) { return p.x; }),
      y: front.map(function (p) { return p.y; }), hoverinfo: "skip", line: { color: c.ink, width: 3, shape: "linear" },
      marker: { size: big ? 18 : 13, color: "rgba(0,0,0,0)", line: { color: c.ink, width: 2 } } });
    if (opts.mine !== undefined && opts.mine !== null) {
      var m = res.points[opts.mine];
      if (m && typeof m.x === "number") {
        data.push({ type: "scatter", mode: "markers+text", name: tw("your_point"), liveMine: opts.mine, x: [m.x], y: [m.y], text: [tw("your_point")],
          textposition: "top center", hoverinfo: "skip", marker: { size: 26, color: "rgba(0,0,0,0)", line: { color: c.accent, width: 4 } },
          textfont: { color: c.accent, size: font } });
      }
    }
    var layout = { height: big ? 420 : 300, margin: { l: big ? 80 : 56, r: 16, t: 16, b: big ? 70 : 56 },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", font: { color: c.ink, size: font },
      legend: { orientation: "h", y: -0.3 }, showlegend: true,
      xaxis: sweepAxis(axisTitle(res.axes.x), res.scales && res.scales.x),
      yaxis: sweepAxis(axisTitle(res.axes.y), res.scales && res.scales.y) };
    div.dataset.points = String(pts.length);
    div.dataset.frontier = String(front.length);
    window.Plotly.newPlot(div, data, layout, { displaylogo: false, responsive: true, displayModeBar: false });
  }
  function download(url, token, name, msg) {
    fetch(url, { headers: { Authorization: "Bearer " + token }, cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.blob(); })
      .then(function (blob) {
        var a = document.createElement("a");
        a.href = URL.createObjectURL(blob);
        a.download = name;
        document.body.appendChild(a);
        a.click();
        setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
        if (msg) msg.textContent = tw("downloaded");
      })
      .catch(function (e) { if (msg) msg.textContent = tw("download_failed", { e: e.message }); });
  }
  function controlSweeps(c) {
    var box = $(".live-sweep-params"), msg = $(".live-sweep-msg"), status = $(".live-sweep-status"), drawn = null, specs = {};
    var panel = $(".live-sweep-results"), plot = $(".live-sweep-plot");
    function outputsInto(sel, outs, want) {
      var keep = sel.value;
      sel.textContent = "";
      outs.forEach(function (o) {
        var opt = el("option", "", o.label + (o.unit ? "(" + o.unit + ")" : ""));
        opt.value = o.key;
        sel.appendChild(opt);
      });
      if (keep && outs.some(function (o) { return o.key === keep; })) sel.value = keep;
      else if (want && outs[want]) sel.value = outs[want].key;
    }
    function paramRow(p) {
      var row = el("div", "live-sweep-param"), lab = el("label", "check"), cb = el("input", "live-sweep-vary");
      cb.type = "checkbox"; cb.value = p.name;
      lab.appendChild(cb);
      lab.appendChild(document.createTextNode(" " + p.label + (p.unit ? "(" + p.unit + ")" : "")));
      row.appendChild(lab);
      var vals = el("div", "live-sweep-values");
      vals.hidden = true;
      if (p.options) {
        p.options.forEach(function (o, i) {
          var l = el("label", "check"), v = el("input", "live-sweep-opt");
          v.type = "checkbox"; v.checked = true; v.dataset.i = String(i);
          l.appendChild(v);
          l.appendChild(document.createTextNode(" " + o.label));
          vals.appendChild(l);
        });
      } else {
        var t = el("input", "live-sweep-list");
        t.type = "text"; t.value = (p.suggest || []).join(", ");
        t.setAttribute("aria-label", tw("values_of", { label: p.label, min: p.min, max: p.max, step: p.step }));
        t.title = tw("range", { min: p.min, max: p.max, step: p.step });
        vals.appendChild(t);
      }
      row.appendChild(vals);
      cb.addEventListener("change", function () {
        vals.hidden = !cb.checked;
        var on = $$(".live-sweep-vary:checked", box);
        $$(".live-sweep-vary", box).forEach(function (e) { e.disabled = !e.checked && on.length >= 3; });
      });
      return row;
    }
    c.fillSweepable = function () {
      var st = stageState();
      if (!st.card || box.dataset.card === st.card + "?" + st.query) return;
      api("GET", "/api/live/sweepable/" + encodeURIComponent(st.card) + (st.query ? "?" + st.query : "")).then(function (res) {
        if (!res.ok) return;
        var picked = {};
        $$(".live-sweep-vary:checked", box).forEach(function (e) { picked[e.value] = 1; });
        var sameCard = box.dataset.card && box.dataset.card.split("?")[0] === st.card;
        box.dataset.card = st.card + "?" + st.query;
        if (sameCard) return;   // the same card in another state: keep what the instructor chose
        box.textContent = "";
        specs = {};
        res.j.params.forEach(function (p) { specs[p.name] = p; box.appendChild(paramRow(p)); });
        var outs = res.j.outputs;
        outputsInto($(".live-sweep-predict"), outs, 0);
        outputsInto($(".live-sweep-x"), outs, 0);
        outputsInto($(".live-sweep-y"), outs, Math.min(1, outs.length - 1));
      });
    };
    function body() {
      var st = stageState(), vary = {}, bad = "";
      $$(".live-sweep-param", box).forEach(function (row) {
        var cb = $(".live-sweep-vary", row);
        if (!cb.checked) return;
        var p = specs[cb.value];
        if (p.options) vary[p.name] = $$(".live-sweep-opt:checked", row).map(function (v) { return p.options[Number(v.dataset.i)].value; });
        else {
          vary[p.name] = $(".live-sweep-list", row).value.split(/[,,\s]+/).filter(Boolean).map(Number);
          if (vary[p.name].some(function (x) { return !isFinite(x); })) bad = p.label + tw("need_list");
        }
      });
      if (bad) return bad;
      if (!Object.keys(vary).length) return tw("need_param");
      return { card: st.card, query: st.query, vary: vary, predict: $(".live-sweep-predict").value,
        x: $(".live-sweep-x").value, x_better: $(".live-sweep-xb").value, y: $(".live-sweep-y").value, y_better: $(".live-sweep-yb").value };
    }
    $(".live-sweep-go").addEventListener("click", function () {
      var b = body();
      if (typeof b === "string") { msg.textContent = b; return; }
      c.call("POST", "/sweeps", b).then(function (res) {
        if (!res.ok) { msg.textContent = errorText(res, tw("sweep_failed")); return; }
        msg.textContent = tw("sweep_started", { n: res.j.points });
        c.refresh();
      });
    });
    $(".live-sweep-reveal").addEventListener("click", function () {
      if (!c.sweep) return;
      c.call("POST", "/sweeps/" + c.sweep.sid + "/reveal").then(function (res) {
        if (!res.ok) { msg.textContent = errorText(res); return; }
        c.refresh();
      });
    });
    $(".live-sweep-csv").addEventListener("click", function () {
      if (!c.sweep || !c.token) return;
      download("/api/live/" + c.code + "/sweeps/" + c.sweep.sid + ".csv", c.token, "live-" + c.code + "-sweep-" + c.sweep.sid + ".csv", msg);
    });
    $(".live-sweep-close").addEventListener("click", function () { panel.hidden = true; });
    c.showSweep = function (sw) {
      c.sweep = sw;
      currentSweep = sw;
      maskFor(c.question);
      c.remask();
      status.hidden = !sw;
      if (!sw) return;
      $(".live-sweep-title").textContent = tw("sweep_title", { sid: sw.sid, label: inLang(sw).label }) + (sw.unit ? tw("unit", { unit: sw.unit }) : "");
      $(".live-sweep-state").textContent = sw.status === "revealed" ? tw("revealed") : tw("predicting");
      $(".live-sweep-n").textContent = sw.npoints;
      $(".live-sweep-reveal").disabled = sw.status === "revealed";
      $(".live-sweep-csv").disabled = !c.token;
      c.call("GET", "/sweeps/" + sw.sid).then(function (res) {
        if (!res.ok) return;
        $(".live-sweep-count").textContent = res.j.predicted;
        // the projector is public: the points are drawn only once revealed (a count until then)
        if (sw.status !== "revealed" || !res.j.points) { panel.hidden = true; drawn = null; return; }
        var sig = sw.sid + ":" + res.j.predicted;
        if (sig === drawn) return;
        var first = drawn === null || drawn.split(":")[0] !== String(sw.sid);
        drawn = sig;
        if (first) panel.hidden = false;
        $(".live-sweep-caption").textContent = res.j.title + " · " + tw("sweep_caption", { n: res.j.predicted,
          f: res.j.points.filter(function (p) { return p.frontier; }).length });
        if (window.Plotly) sweepPlot(plot, res.j, { big: true });
      });
    };
  }

  // ================================================================= follower view (phones)
  // f: { code, cred, latest (the class's state), shown (what the stage shows), exploring, … }
  function initFollow(data) {
    var f = { code: data.code, cred: store("localStorage", CRED_KEY + data.code), latest: data.state, exploring: false,
      busy: null, es: null, backoff: 1000, shown: { card: data.state.card, query: data.state.query, frame: null } };
    var lc0 = stageCard();   // the mask the page was served with
    f.shown.mask = lc0 && lc0.dataset.hide ? "hide=" + encodeURIComponent(lc0.dataset.hide) + "&solutions=off" : "";
    var nick = $(".live-nick");
    nick.value = store("localStorage", NICK_KEY) || "";
    nick.addEventListener("change", function () { store("localStorage", NICK_KEY, nick.value.trim()); });
    f.nick = function () { return nick.value.trim() || null; };
    f.status = function (t) { $(".live-status").textContent = t; };
    f.notice = function (t) { var n = $(".live-notice"); n.hidden = !t; n.textContent = t || ""; };
    currentQ = f.latest.question;
    currentSweep = f.latest.sweep || null;
    followModes(f);
    followStream(f);
    followAnswering(f);
    followSweep(f);
    f.setControls();
    f.showQuestion(f.latest.question);
    f.showSweep(currentSweep);
    document.addEventListener("card:drawn", function () {
      f.setControls();
      maskFor(f.latest.question);
      var lc = stageCard();   // a late swap of an older card must not stay: the stage converges to the class
      if (lc && !f.busy && !f.exploring && lc.dataset.card !== f.latest.card) { f.shown = { card: lc.dataset.card }; f.follow(); }
    });
    f.follow();   // a ▶ frame the instructor is on
    f.rejoin();
  }
  // 跟随老师 (controls behind 参数, the stage tracks the class) · 自由探索 (controls on, 分享给老师) · 锁定.
  function followModes(f) {
    var modeBtn = $(".live-mode"), shareBtn = $(".live-share"), paramsBtn = $(".live-params");
    f.setControls = function () {
      var on = f.exploring && !f.latest.locked;
      $$("#live-stage form.controls input, #live-stage form.controls select, #live-stage form.controls textarea, #live-stage form.controls button")
        .forEach(function (e) { e.disabled = !on; });
      modeBtn.textContent = on ? tw("follow") : tw("explore");
      modeBtn.setAttribute("aria-pressed", on ? "true" : "false");
      modeBtn.disabled = !!f.latest.locked;
      modeBtn.title = f.latest.locked ? tw("locked") : "";
      shareBtn.hidden = !on;
      paramsBtn.hidden = on;   // exploring: the controls are out anyway
      document.body.classList.toggle("live-exploring", on);
      document.body.classList.toggle("live-locked", !!f.latest.locked);
    };
    paramsBtn.addEventListener("click", function () {
      var open = !document.body.classList.contains("live-params-open");
      document.body.classList.toggle("live-params-open", open);
      paramsBtn.setAttribute("aria-expanded", open ? "true" : "false");
    });
    f.follow = function () {
      var sw = f.latest.sweep, m = f.mine;
      var onPoint = !!(sw && sw.status !== "revealed" && m && m.sid === sw.sid);
      if (f.exploring && !f.latest.locked && !onPoint) {
        var moved = f.latest.card !== f.shown.card;
        f.notice(moved ? tw("moved") : "");
        return;
      }
      if (f.busy) return;   // the newest state is applied once the current swap is drawn
      // while a sweep is open the stage shows this phone's own point (its predicted output held back)
      var want = onPoint ? { card: sw.card, query: m.query, frame: null } : { card: f.latest.card, query: f.latest.query, frame: f.latest.frame };
      var mask = maskParams(f.latest.question, want.card);
      if (want.card === f.shown.card && want.query === f.shown.query && mask === f.shown.mask) {
        if (want.frame !== f.shown.frame) { f.shown.frame = want.frame; showFrame(want.frame); }
        f.setControls();
        return;
      }
      f.busy = loadStage(want.card, want.query, f.latest.question).then(function () {
        f.busy = null;
        var lc = stageCard();
        if (!lc || lc.dataset.card !== want.card) {   // the fetch failed (Wi-Fi, a proxy's 502): not shown, retry
          f.retry = Math.min((f.retry || 250) * 2, 8000);
          setTimeout(f.follow, f.retry);
          return;
        }
        f.retry = 0;
        f.shown = { card: want.card, query: want.query, frame: null, mask: mask };
        f.setControls();
        maskFor(f.latest.question);
        if (want.frame !== null && want.frame !== undefined) { f.shown.frame = want.frame; showFrame(want.frame); }
        f.follow();
      });
    };
    modeBtn.addEventListener("click", function () {
      f.exploring = !f.exploring;
      if (!f.exploring) { f.shown = { card: null }; f.follow(); }
      f.setControls();
    });
    shareBtn.addEventListener("click", function () {
      var st = stageState();
      f.send("/share", { nick: f.nick(), card: st.card, query: st.query }).then(function (res) {
        f.notice(res.ok ? tw("shared") : errorText(res, tw("share_failed")));
      });
    });
  }
  // The stream: EventSource resumes with Last-Event-ID by itself; when it gives up (the server said
  // no, or was away), rejoin after the server's Retry-After or a growing pause — never a page reload
  // (only 下课 reloads: the server then shows the ended class and its summary).
  function followStream(f) {
    f.onState = function (st) {
      if (st.ended) { f.ended(); return; }
      var qChanged = JSON.stringify(st.question) !== JSON.stringify(f.latest.question);
      var swChanged = JSON.stringify(st.sweep || null) !== JSON.stringify(f.latest.sweep || null);
      f.latest = st;
      if (st.locked) f.exploring = false;
      if (qChanged) f.showQuestion(st.question);
      if (swChanged) f.showSweep(st.sweep || null);
      f.follow();
      f.setControls();
    };
    // 下课: the summary page at its own address (200): reloading the class's page would answer 410,
    // which the browser logs as an error
    f.ended = function () {
      if (f.es) f.es.close();
      f.es = null;
      location.replace(EP + "/live/" + f.code + "/ended");
    };
    f.connect = function () {
      if (f.es) f.es.close();
      var es = f.es = new EventSource("/api/live/" + f.code + "/events?participant=" + encodeURIComponent(f.cred || ""));
      es.onopen = function () { f.status(tw("connected")); f.backoff = 1000; document.body.classList.remove("live-offline"); };
      es.onmessage = function (e) {
        var st;
        try { st = JSON.parse(e.data); } catch (err) { return; }
        if (st.seq < f.latest.seq || (st.seq === f.latest.seq && JSON.stringify(st) === JSON.stringify(f.latest))) return;
        f.onState(st);
      };
      es.addEventListener("ended", function () { f.ended(); });
      // the same credential opened a newer stream (another tab, a reload): this one stops for good,
      // or the two pages would take the stream from each other forever
      es.addEventListener("replaced", function () {
        es.close();
        if (f.es === es) f.es = null;
        f.status(tw("replaced"));
      });
      es.addEventListener("status", function (e) {
        var s;
        try { s = JSON.parse(e.data); } catch (err) { return; }
        f.status(s.ok ? tw("connected") : tw("down"));
        document.body.classList.toggle("live-offline", !s.ok);
      });
      es.onerror = function () {
        f.status(tw("reconnecting"));
        document.body.classList.add("live-offline");
        if (es.readyState === 2) { f.es = null; f.probe(); }
      };
    };
    // EventSource gave up (the server refused the stream): ask the stream itself why, and wait as
    // long as it says (Retry-After) — a full class, a store that is away, a class that ended
    f.probe = function () {
      var ctl = new AbortController();
      fetch("/api/live/" + f.code + "/events?participant=" + encodeURIComponent(f.cred || ""), { signal: ctl.signal, cache: "no-store" })
        .then(function (r) {
          if (r.ok) { ctl.abort(); f.later(f.rejoin, 0); return; }   // it would open now: join and follow again
          return r.json().catch(function () { return {}; }).then(function (j) {
            var res = { ok: false, status: r.status, j: j, retry: Number(r.headers.get("Retry-After")) || 0 };
            if (r.status === 410) { f.ended(); return; }
            if (r.status === 403) f.cred = null;   // a credential the class no longer takes: a new one
            f.status(errorText(res, tw("retrying")));
            f.later(f.rejoin, res.retry);
          });
        })
        .catch(function () { f.later(f.rejoin, 0); });
    };
    // wait the server's Retry-After when it gave one, else a pause that grows to 15 s (with jitter:
    // a hall of phones does not come back in one burst)
    f.later = function (fn, retry) {
      var ms = retry ? retry * 1000 : f.backoff;
      if (!retry) f.backoff = Math.min(f.backoff * 2, 15000);
      setTimeout(fn, ms * (0.8 + 0.4 * Math.random()));
    };
    f.rejoin = function () {
      api("POST", "/api/live/" + f.code + "/join", { participant: f.cred || null, nick: f.nick() }).then(function (res) {
        if (res.status === 410) { f.ended(); return; }
        if (res.status === 404) { f.status(errorText(res)); return; }
        if (!res.ok) {
          f.status(res.status === 429 ? tw("busy") : errorText(res, tw("retrying")));
          f.later(f.rejoin, res.retry);
          return;
        }
        f.cred = res.j.participant;
        store("localStorage", CRED_KEY + f.code, f.cred);
        if (res.j.state && res.j.state.seq >= f.latest.seq) f.onState(res.j.state);
        var sw = f.latest.sweep;
        if (sw && (!f.mine || f.mine.sid !== sw.sid || sw.status === "revealed")) f.showSweep(sw);
        f.connect();
      });
    };
    // answers and shares carry the credential; one the server no longer takes (a new class with this
    // code, a changed secret) is replaced by rejoining, and the request is sent once more
    f.send = function (path, body) {
      var go = function () { return api("POST", "/api/live/" + f.code + path, Object.assign({ participant: f.cred }, body)); };
      return go().then(function (res) {
        if (res.status !== 403 || !res.j.detail || res.j.detail[0].field !== "participant") return res;
        f.cred = null;
        return api("POST", "/api/live/" + f.code + "/join", { participant: null, nick: f.nick() }).then(function (j) {
          if (!j.ok) return res;
          f.cred = j.j.participant;
          store("localStorage", CRED_KEY + f.code, f.cred);
          return go();
        });
      });
    };
    document.addEventListener("visibilitychange", function () {   // a phone waking up
      if (document.visibilityState === "visible" && (!f.es || f.es.readyState === 2)) { f.backoff = 1000; f.rejoin(); }
    });
  }
  // Answering the open question with the exercise rules (units, 正确/接近/不对 after 公布).
  function followAnswering(f) {
    var form = $(".live-answer"), msg = $(".live-q-msg"), answeredQid = null;
    f.showQuestion = function (q) {
      maskFor(q);
      $(".live-question").hidden = !q;
      if (!q) return;
      $(".live-q-prompt").innerHTML = inLang(q).prompt_html;   // the server's own rendering of the card's text
      $(".live-q-numeric").hidden = q.kind !== "numeric";
      $(".live-q-options").hidden = q.kind === "numeric";
      if (answeredQid !== q.qid) { answeredQid = q.qid; resetAnswerForm(form, q); msg.textContent = ""; }
      var open = q.status === "open";
      $$("input, select, button", form).forEach(function (e) { e.disabled = !open; });
      if (!open) msg.textContent = q.status === "revealed" ? tw("revealed") : tw("closed_wait");
      if (q.status !== "revealed") return;
      var url = "/api/live/" + f.code + "/questions/" + q.qid + "/results" + (f.cred ? "?participant=" + encodeURIComponent(f.cred) : "");
      api("GET", url).then(function (res) {
        if (!res.ok) return;
        showResults($(".live-q-results"), Object.assign({ card: q.card }, res.j));
        // the phone's own verdict, and the slip the server named in its own answer (not only the class's)
        if (res.j.mine) msg.textContent = tw("your_answer") + (VERDICT[res.j.mine.verdict] || res.j.mine.verdict) +
          (res.j.mine.diagnosis_text ? tw("your_slip") + res.j.mine.diagnosis_text : "");
      });
    };
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var q = f.latest.question;
      if (!q || q.status !== "open") return;
      var body = answerBody(form, q);
      if (typeof body === "string") { msg.textContent = body; return; }
      body.nick = f.nick();
      f.send("/questions/" + q.qid + "/answers", body).then(function (res) {
        msg.textContent = res.ok ? tw("submitted") : errorText(res, tw("submit_failed"));
      });
    });
  }
  // 扫参 on a phone: its own point (the stage shows the card there, the predicted output held back),
  // a prediction box, and after 公布 the class's points with its own highlighted and its prediction
  // against the truth.
  function followSweep(f) {
    var sec = $(".live-sweep"), form = $(".live-sweep-form"), msg = $(".live-sweep-msg"), mineBox = $(".live-sweep-mine");
    var plot = $(".live-sweep-plot");
    f.mine = null;
    f.showSweep = function (sw) {
      currentSweep = sw;
      sec.hidden = !sw;
      if (!sw) { f.mine = null; return; }
      var open = sw.status !== "revealed";
      if (open && f.exploring) { f.exploring = false; f.setControls(); }
      $(".live-sweep-what").textContent = tw("predict") + inLang(sw).label;
      $(".live-sweep-unit").textContent = sw.unit || "";
      $$("input, button", form).forEach(function (e) { e.disabled = !open; });
      if (!f.cred) return;
      if (!f.mine || f.mine.sid !== sw.sid) {
        api("GET", "/api/live/" + f.code + "/sweeps/" + sw.sid + "/mine?participant=" + encodeURIComponent(f.cred)).then(function (res) {
          if (!res.ok || !f.latest.sweep || f.latest.sweep.sid !== sw.sid) return;
          var fresh = !f.mine || f.mine.sid !== sw.sid;
          f.mine = Object.assign({ sid: sw.sid }, res.j);
          sec.dataset.point = String(res.j.point);
          $(".live-sweep-point").textContent = tw("your_config", { n: res.j.point + 1 }) + (res.j.label || tw("default"));
          if (fresh) { form.reset(); msg.textContent = ""; mineBox.hidden = true; plot.hidden = true; }
          f.follow();
          if (!open) f.showSweep(f.latest.sweep);
        });
        return;
      }
      if (open) { mineBox.hidden = true; plot.hidden = true; return; }
      msg.textContent = tw("revealed");
      api("GET", "/api/live/" + f.code + "/sweeps/" + sw.sid + "?participant=" + encodeURIComponent(f.cred)).then(function (res) {
        if (!res.ok || !res.j.points) return;
        var m = res.j.mine, u = res.j.unit ? " " + res.j.unit : "";
        mineBox.hidden = false;
        mineBox.textContent = "";
        if (m) {
          mineBox.appendChild(el("p", "live-sweep-truth", tw("truth", { v: fmt(m.truth) + u })));
          mineBox.appendChild(el("p", "live-sweep-yours", m.value === null ? tw("no_prediction") :
            tw("your_prediction", { v: fmt(m.value) + u }) + " · " + (VERDICT[m.verdict] || m.verdict)));
          if (m.verdict) mineBox.dataset.verdict = m.verdict;
        }
        plot.hidden = false;
        if (window.Plotly) sweepPlot(plot, res.j, { mine: m ? m.point : null });
      });
    };
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var sw = f.latest.sweep, raw = form.elements.value.value.trim();
      if (!sw || sw.status === "revealed") return;
      if (raw === "") { msg.textContent = tw("need_number"); return; }
      // sent as typed ("1,024", "4.02×10²²"): the server reads it (app/answers.py) and says what it could not
      f.send("/sweeps/" + sw.sid + "/predictions", { value: raw, nick: f.nick() }).then(function (res) {
        msg.textContent = res.ok ? tw("predicted") : errorText(res, tw("submit_failed"));
      });
    });
  }
  function resetAnswerForm(form, q) {
    var unitSel = $("select[name=unit]", form), opts = $(".live-q-options");
    form.reset();
    $(".live-q-results").hidden = true;
    unitSel.textContent = "";
    var lq = inLang(q), names = lq.unit_names || {};   // a unit is sent as its key, shown in the page's language
    (q.units || []).forEach(function (u) { var o = el("option", "", names[u] || u); o.value = u; unitSel.appendChild(o); });
    unitSel.hidden = !(q.units && q.units.length);
    $(".live-q-unit").textContent = unitSel.hidden ? (names[q.unit] || q.unit || "") : "";
    opts.querySelectorAll("label").forEach(function (l) { l.remove(); });
    var choices = lq.options && Object.keys(lq.options).length ? lq.options : { "true": tw("yes"), "false": tw("no") };
    Object.keys(choices).forEach(function (v) {
      var l = el("label"), r = document.createElement("input");
      r.type = "radio"; r.name = "choice"; r.value = v;
      l.appendChild(r);
      l.appendChild(document.createTextNode(" " + choices[v] + " "));
      opts.appendChild(l);
    });
  }
  function answerBody(form, q) {
    if (q.kind === "numeric") {
      var raw = form.elements.value.value.trim();
      if (raw === "") return tw("need_number");
      // sent as typed ("73.7 GB", "７３．７"): the server reads it as the page's answers are read
      var us = $("select[name=unit]", form), body = { value: raw };
      if (!us.hidden && us.value) body.unit = us.value;
      return body;
    }
    var c = $("input[name=choice]:checked", form);
    if (!c) return tw("need_choice");
    return { value: q.kind === "bool" ? c.value === "true" : c.value };
  }

  document.addEventListener("DOMContentLoaded", function () {
    initStart();
    var data = pageData();
    if (!data) return;
    if (document.body.classList.contains("live-control")) initControl(data);
    else if (document.body.classList.contains("live-follow")) initFollow(data);
    else if (document.body.classList.contains("live-ended-control")) csvButton(data.code, store("sessionStorage", TOKEN_KEY + data.code));
  });
})();
