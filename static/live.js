// AI Infra 图解 — the live class. Three pages use it: the presenter (开课 button), the control view
// on the projector (/live/{code}/control: publishes the presenter's state, runs questions and
// snapshots) and the follower view on phones (/live/{code}: follows over server-sent events).
// The instructor's token arrives in the URL fragment, is moved to sessionStorage at once (the
// address bar on the projector never shows it) and travels only as an Authorization header.
// No inline scripts: page data comes in <script type="application/json" id="live-data">.
(function () {
  "use strict";

  var TOKEN_KEY = "aiinfra:live:token:", DEVICE_KEY = "aiinfra:live:device", NICK_KEY = "aiinfra:live:nick";
  var VERDICT = { correct: "正确", close: "接近", incorrect: "不对" };
  var OVERLAY = "全班答案";

  // ---------------------------------------------------------------- small helpers
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function pageData() {
    var s = document.getElementById("live-data");
    return s ? JSON.parse(s.textContent) : null;
  }
  function randomId() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    var s = "";
    for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function store(kind, key, value) {
    try { if (value === undefined) return window[kind].getItem(key); window[kind].setItem(key, value); } catch (e) { return null; }
  }
  function deviceId() {
    var d = store("localStorage", DEVICE_KEY);
    if (!d || !/^[A-Za-z0-9_-]{8,64}$/.test(d)) { d = randomId(); store("localStorage", DEVICE_KEY, d); }
    return d;
  }
  function api(method, url, body, token) {
    var headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    return fetch(url, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (j) { return { ok: r.ok, status: r.status, j: j }; });
      })
      .catch(function () { return { ok: false, status: 0, j: {} }; });
  }
  function errorText(res, fallback) {
    var d = res.j && res.j.detail;
    return (d && d[0] && d[0].msg) || fallback || ("出错了(" + res.status + ")");
  }
  function formQuery(form) {
    if (!form) return "";
    var parts = [];
    new FormData(form).forEach(function (v, k) {
      if (v === "" || k === "solutions") return;
      parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
    });
    return parts.join("&");
  }
  function fmt(x) {
    if (typeof x !== "number" || !isFinite(x)) return String(x);
    var a = Math.abs(x);
    return a !== 0 && (a >= 1e6 || a < 1e-3) ? x.toExponential(3) : Number(x.toPrecision(4)).toLocaleString("en-US");
  }
  function plotColors() {
    var ink = getComputedStyle(document.body).color || "#1f2933";
    return { ink: ink, accent: "#e4572e", fill: "rgba(228,87,46,0.35)" };
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
  function loadStage(card, query) {
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
      window.htmx.ajax("GET", "/live/card/" + encodeURIComponent(card) + (query ? "?" + query : ""),
        { target: stage, swap: "innerHTML" }).catch(finish);
    });
  }
  function animatedPlot() { return $("#live-stage .fig.animated .plot"); }
  function whenPlotted(el, fn, tries) {
    tries = tries || 0;
    if (el && el._transitionData && el._transitionData._frames && el._transitionData._frames.length && el.on) return fn(el);
    if (tries < 80) setTimeout(function () { whenPlotted(el, fn, tries + 1); }, 50);
  }
  function showFrame(name) {
    var el = animatedPlot();
    if (!el || name === null || name === undefined || !window.Plotly) return;
    whenPlotted(el, function () {
      window.Plotly.animate(el, [String(name)], { mode: "immediate", frame: { duration: 0, redraw: false }, transition: { duration: 0 } });
    });
  }
  // While a question is open, its answer stays hidden on every screen: the tile's number (a
  // "predict" question) or the exercise's worked solution.
  function maskFor(q) {
    var open = q && q.status !== "revealed";
    document.body.classList.toggle("live-asking", !!open);
    $$(".stat.live-masked").forEach(function (el) { el.classList.remove("live-masked"); });
    if (open) $$('#live-stage .stat[data-key="' + q.key + '"]').forEach(function (el) { el.classList.add("live-masked"); });
  }

  // ---------------------------------------------------------------- results: counts, shares, histogram
  function resultsText(res) {
    var n = res.answered, s = res.shares || {};
    var pct = function (k) { return Math.round(100 * (s[k] || 0)) + "%"; };
    var truth = typeof res.true_value === "number" ? fmt(res.true_value) + (res.unit ? " " + res.unit : "") :
      (res.true_value === true ? "是" : res.true_value === false ? "否" : String(res.true_value));
    return "真值 " + truth + " · " + n + " 人作答 · 正确 " + pct("correct") + " · 接近 " + pct("close") + " · 不对 " + pct("incorrect");
  }
  function stepTrace(h, horizontal) {
    var xs = h.edges.slice(), ys = h.counts.concat([h.counts[h.counts.length - 1] || 0]);
    var c = plotColors();
    var t = { type: "scatter", mode: "lines", name: OVERLAY, line: { color: c.accent, width: 2 }, fillcolor: c.fill, hoverinfo: "skip" };
    if (horizontal) { t.x = ys; t.y = xs; t.line.shape = "vh"; t.fill = "tozerox"; }
    else { t.x = xs; t.y = ys; t.line.shape = "hv"; t.fill = "tozeroy"; }
    return t;
  }
  function trueLine(v, onY, label, log) {
    // shapes take data values; annotations on a log axis take log10 of them
    var c = plotColors(), at = log ? Math.log10(v) : v;
    var shape = onY ? { type: "line", xref: "paper", yref: "y", x0: 0, x1: 1, y0: v, y1: v, line: { color: c.accent, width: 3 } }
      : { type: "line", xref: "x", yref: "paper", x0: v, x1: v, y0: 0, y1: 1, line: { color: c.accent, width: 3 } };
    var ann = onY ? { xref: "paper", yref: "y", x: 1, y: at, text: label, showarrow: false, xanchor: "right", yanchor: "bottom", font: { color: c.accent, size: 14 } }
      : { xref: "x", yref: "paper", x: at, y: 0.92, text: label, showarrow: false, xanchor: "left", font: { color: c.accent, size: 14 } };
    return { shape: shape, ann: ann };
  }
  function overlay(el, res) {
    var h = res.histogram, onY = res.axis.axis === "y";
    var top = Math.max(1, Math.max.apply(null, h.counts)) * 3;
    var idx = [];
    (el.data || []).forEach(function (t, i) { if (t.name === OVERLAY) idx.push(i); });
    var p = idx.length ? window.Plotly.deleteTraces(el, idx) : Promise.resolve();
    return p.then(function () {
      var t = stepTrace(h, onY);
      if (onY) t.xaxis = "x9"; else t.yaxis = "y9";
      return window.Plotly.addTraces(el, t);
    }).then(function () {
      var lay = el.layout || {}, mark = trueLine(res.true_value, onY, "真值 " + fmt(res.true_value), res.axis.log);
      var upd = {
        shapes: (lay.shapes || []).filter(function (s) { return !s.liveTruth; }).concat([Object.assign(mark.shape, { liveTruth: true })]),
        annotations: (lay.annotations || []).filter(function (a) { return (a.text || "").indexOf("真值 ") !== 0; }).concat([mark.ann])
      };
      var ax = { overlaying: onY ? "x" : "y", side: onY ? "top" : "right", range: [0, top], showgrid: false,
        title: { text: "人数" }, zeroline: false };
      upd[onY ? "xaxis9" : "yaxis9"] = ax;
      return window.Plotly.relayout(el, upd);
    });
  }
  function standalone(box, res) {
    var div = document.createElement("div");
    div.className = "live-hist";
    box.appendChild(div);
    var c = plotColors(), data, layout = {
      height: 240, margin: { l: 48, r: 16, t: 16, b: 48 }, paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: c.ink, size: 13 }, showlegend: false, yaxis: { title: { text: "人数" }, rangemode: "tozero" }
    };
    if (res.histogram) {
      var h = res.histogram;
      data = [stepTrace(h, false)];
      layout.xaxis = { type: h.log ? "log" : "linear", title: { text: res.unit || "" } };
      var mark = trueLine(res.true_value, false, "真值 " + fmt(res.true_value), h.log);
      layout.shapes = [mark.shape];
      layout.annotations = [mark.ann];
    } else {
      var keys = Object.keys(res.options || {});
      data = [{ type: "bar", x: keys.map(function (k) { return k === "true" ? "是" : k === "false" ? "否" : k; }),
        y: keys.map(function (k) { return res.options[k]; }), marker: { color: c.accent } }];
    }
    window.Plotly.newPlot(div, data, layout, { displaylogo: false, responsive: true, displayModeBar: false });
  }
  function showResults(box, res) {
    box.hidden = false;
    box.textContent = "";
    var p = document.createElement("p");
    p.className = "live-res-text";
    p.textContent = resultsText(res);
    box.appendChild(p);
    if (res.histogram && (res.histogram.below || res.histogram.above)) {
      var o = document.createElement("p");
      o.className = "muted";
      o.textContent = "图外:偏小 " + res.histogram.below + " 人 · 偏大 " + res.histogram.above + " 人";
      box.appendChild(o);
    }
    var sc = stageCard();
    var el = res.axis && sc && sc.dataset.card === res.card && document.getElementById("plot-" + res.card + "-" + res.axis.figure);
    if (el && el.data && res.histogram) {
      overlay(el, res);
      if (document.body.classList.contains("live-control")) el.scrollIntoView({ block: "center" });
      var n = document.createElement("p");
      n.className = "muted";
      n.textContent = "分布画在卡片自己的坐标轴上(橙色)。";
      box.appendChild(n);
    } else { standalone(box, res); }
  }

  // ================================================================= presenter: 开课
  function initStart() {
    var b = $(".live-start");
    if (!b) return;
    b.addEventListener("click", function () {
      b.disabled = true;
      api("POST", "/api/live", { card: b.dataset.card, query: location.search.replace(/^\?/, "") }).then(function (res) {
        if (!res.ok) { b.disabled = false; b.textContent = errorText(res, "开课失败"); return; }
        store("sessionStorage", TOKEN_KEY + res.j.code, res.j.token);
        location.href = res.j.control_url;
      });
    });
  }

  // ================================================================= control view (projector)
  // c: { code, token, say(text), frame, question, pub: {…} } shared by the parts below.
  function initControl(data) {
    var c = { code: data.code, token: takeToken(data.code), frame: data.state.frame, question: data.state.question };
    var auth = $(".live-auth");
    c.say = function (t) { auth.textContent = t; };
    c.call = function (method, path, body) { return api(method, "/api/live/" + c.code + path, body, c.token); };
    if (!c.token) { c.say("没有教师令牌:此页只能看,不能操作"); document.body.classList.add("live-readonly"); }
    else c.say("已授权");
    controlPublishing(c, data.state);
    controlKeys(c);
    controlLock(c);
    controlQuestions(c);
    controlSnapshots(c);
    c.afterLoad();
    showFrame(c.frame);
    c.showQuestion(c.question);
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
        c.call("PUT", "/state", pub.next).then(function (res) { if (!res.ok) c.say(errorText(res, "同步失败")); });
      }, Math.max(0, 120 - (Date.now() - pub.last)));
    };
    c.current = function () { var s = stageState(); s.frame = c.frame; return s; };
    c.goTo = function (card, query) {
      c.frame = null;
      c.goingTo = card;
      c.publish({ card: card, query: query || "", frame: null });
      return loadStage(card, query).then(function () { c.goingTo = null; c.afterLoad(); });
    };
    c.afterLoad = function () {
      var lc = stageCard(), bar = $(".present-bar");
      bar.dataset.prev = lc ? lc.dataset.prev : "";
      bar.dataset.next = lc ? lc.dataset.next : "";
      watchFrames(c);
      c.fillAskable();
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
    var el = animatedPlot();
    if (!el) return;
    whenPlotted(el, function () {
      if (el.dataset.liveWatch) return;
      el.dataset.liveWatch = "1";
      el.on("plotly_animatingframe", function (ev) { c.frame = ev.name; c.publish(c.current()); });
      el.on("plotly_sliderchange", function (ev) { if (ev && ev.step) { c.frame = String(ev.step.args[0][0]); c.publish(c.current()); } });
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
        if (target) c.goTo(target, "");
      }
    }, true);
    $(".live-jump").addEventListener("submit", function (e) {
      e.preventDefault();
      var q = $("#live-jump-q").value.trim();
      if (!q) return;
      api("GET", "/api/live/resolve?q=" + encodeURIComponent(q)).then(function (res) {
        if (!res.ok) { c.say(errorText(res)); return; }
        $("#live-jump-q").value = "";
        c.goTo(res.j.card, "");
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
        btn.textContent = res.j.locked ? "解除锁定" : "锁定全班";
      });
    });
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
        if (!res.ok) { c.say(errorText(res, "提问失败")); return; }
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
    c.showQuestion = function (q) {
      c.question = q;
      maskFor(q);
      qbox.hidden = !q;
      if (!q) return;
      $(".live-q-title").innerHTML = q.prompt_html;
      $(".live-q-status").textContent = { open: "作答中", closed: "已收卷", revealed: "已公布" }[q.status];
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
        var box = $(".live-results"), names = $(".live-names").checked;
        if (q.status !== "revealed") { box.hidden = true; shown = null; return; }
        var sig = q.qid + ":" + res.j.answered + ":" + names;
        if (sig === shown) return;
        shown = sig;
        showResults(box, Object.assign({ card: q.card }, res.j));
        if (names && res.j.answers) box.appendChild(namesList(res.j.answers));
      });
    };
    c.refresh = function () {
      api("GET", "/api/live/" + c.code).then(function (res) {
        if (!res.ok) return;
        $(".live-followers").textContent = res.j.followers;
        var q = res.j.question;
        if (JSON.stringify(q) !== JSON.stringify(c.question) || (q && q.status === "open")) c.showQuestion(q);
      });
    };
  }
  function fillAskable(sel) {
    var st = stageState();
    api("GET", "/api/live/askable/" + encodeURIComponent(st.card) + (st.query ? "?" + st.query : "")).then(function (res) {
      sel.textContent = "";
      if (!res.ok) return;
      var groups = { exercise: "练习题", tile: "预测这个数" };
      Object.keys(groups).forEach(function (src) {
        var items = res.j.askable.filter(function (a) { return a.source === src; });
        if (!items.length) return;
        var g = document.createElement("optgroup");
        g.label = groups[src];
        items.forEach(function (a) {
          var o = document.createElement("option");
          o.value = a.key;
          o.textContent = a.label + (a.unit ? "(" + a.unit + ")" : "");
          g.appendChild(o);
        });
        sel.appendChild(g);
      });
    });
  }
  function namesList(answers) {
    var ul = document.createElement("ul");
    ul.className = "live-names-list";
    answers.forEach(function (a) {
      var li = document.createElement("li");   // nicknames are text, never markup
      li.textContent = (a.nick || "匿名") + ":" + a.value + (a.unit ? " " + a.unit : "") + " · " + (VERDICT[a.verdict] || a.verdict);
      ul.appendChild(li);
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
      $$(".live-snap-pick:checked", list).forEach(function (cb, i) { grid.appendChild(snapshotCell(snaps[cb.value], i)); });
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
  function snapshotItem(s) {
    var li = document.createElement("li"), label = document.createElement("label"), cb = document.createElement("input");
    cb.type = "checkbox"; cb.value = s.sid; cb.className = "live-snap-pick";
    label.appendChild(cb);
    label.appendChild(document.createTextNode(" " + (s.nick || "匿名") + " · " + s.title + (s.query ? " · " + readable(s.query).slice(0, 60) : "")));
    li.appendChild(label);
    return li;
  }
  function readable(query) {
    try { return decodeURIComponent(query.replace(/\+/g, " ")); } catch (e) { return query; }
  }
  function snapshotCell(s, i) {
    var cell = document.createElement("div"), h = document.createElement("h3"), body = document.createElement("div");
    cell.className = "live-snap";
    h.textContent = (s.nick || "匿名") + " · " + s.title;
    body.className = "live-snap-body";
    body.dataset.snap = "s" + i;
    cell.appendChild(h);
    cell.appendChild(body);
    window.htmx.ajax("GET", "/cards/" + encodeURIComponent(s.card) + "/fragment" + (s.query ? "?" + s.query : ""), { target: body, swap: "innerHTML" });
    return cell;
  }

  // ================================================================= follower view (phones)
  // f: { code, dev, latest (the class's state), shown (what the stage shows), exploring, … }
  function initFollow(data) {
    var f = { code: data.code, dev: deviceId(), latest: data.state, exploring: false, busy: null, es: null, backoff: 1000,
      shown: { card: data.state.card, query: data.state.query, frame: null } };
    var nick = $(".live-nick");
    nick.value = store("localStorage", NICK_KEY) || "";
    nick.addEventListener("change", function () { store("localStorage", NICK_KEY, nick.value.trim()); });
    f.nick = function () { return nick.value.trim() || null; };
    f.status = function (t) { $(".live-status").textContent = t; };
    followModes(f);
    followStream(f);
    followAnswering(f);
    f.setControls();
    f.showQuestion(f.latest.question);
    document.addEventListener("card:drawn", function () {
      f.setControls();
      maskFor(f.latest.question);
      var lc = stageCard();   // a late swap of an older card must not stay: the stage converges to the class
      if (lc && !f.busy && !f.exploring && lc.dataset.card !== f.latest.card) { f.shown = { card: lc.dataset.card }; f.follow(); }
    });
    f.follow();   // a ▶ frame the instructor is on
    f.rejoin();
  }
  // 跟随老师 (controls off, the stage tracks the class) · 自由探索 (controls on, 分享给老师) · 锁定.
  function followModes(f) {
    var modeBtn = $(".live-mode"), shareBtn = $(".live-share"), notice = $(".live-notice");
    f.setControls = function () {
      var on = f.exploring && !f.latest.locked;
      $$("#live-stage form.controls input, #live-stage form.controls select, #live-stage form.controls textarea, #live-stage form.controls button")
        .forEach(function (el) { el.disabled = !on; });
      modeBtn.textContent = on ? "跟随老师" : "自由探索";
      modeBtn.setAttribute("aria-pressed", on ? "true" : "false");
      modeBtn.disabled = !!f.latest.locked;
      modeBtn.title = f.latest.locked ? "老师已锁定:全班跟随当前画面" : "";
      shareBtn.hidden = !on;
      document.body.classList.toggle("live-exploring", on);
      document.body.classList.toggle("live-locked", !!f.latest.locked);
    };
    f.follow = function () {
      if (f.exploring && !f.latest.locked) {
        var moved = f.latest.card !== f.shown.card;
        notice.hidden = !moved;
        notice.textContent = moved ? "老师已切换到另一张卡片;点“跟随老师”回到全班画面。" : "";
        return;
      }
      notice.hidden = true;
      if (f.busy) return;   // the newest state is applied once the current swap is drawn
      var want = { card: f.latest.card, query: f.latest.query, frame: f.latest.frame };
      if (want.card === f.shown.card && want.query === f.shown.query) {
        if (want.frame !== f.shown.frame) { f.shown.frame = want.frame; showFrame(want.frame); }
        f.setControls();
        return;
      }
      f.busy = loadStage(want.card, want.query).then(function () {
        f.busy = null;
        var lc = stageCard();
        if (!lc || lc.dataset.card !== want.card) {   // the fetch failed (Wi-Fi, a proxy's 502): not shown, retry
          f.retry = Math.min((f.retry || 250) * 2, 8000);
          setTimeout(f.follow, f.retry);
          return;
        }
        f.retry = 0;
        f.shown = { card: want.card, query: want.query, frame: null };
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
      api("POST", "/api/live/" + f.code + "/share", { device: f.dev, nick: f.nick(), card: st.card, query: st.query }).then(function (res) {
        notice.hidden = false;
        notice.textContent = res.ok ? "已分享给老师。" : errorText(res, "分享失败");
      });
    });
  }
  // The stream: EventSource resumes with Last-Event-ID by itself; when it gives up (the server said
  // no, or was away), rejoin after a growing pause — never a page reload.
  function followStream(f) {
    f.onState = function (st) {
      var qChanged = JSON.stringify(st.question) !== JSON.stringify(f.latest.question);
      f.latest = st;
      if (st.locked) f.exploring = false;
      f.follow();
      f.setControls();
      if (qChanged) f.showQuestion(st.question);
    };
    f.connect = function () {
      if (f.es) f.es.close();
      var es = f.es = new EventSource("/api/live/" + f.code + "/events?device=" + encodeURIComponent(f.dev));
      es.onopen = function () { f.status("已连接"); f.backoff = 1000; document.body.classList.remove("live-offline"); };
      es.onmessage = function (e) {
        var st;
        try { st = JSON.parse(e.data); } catch (err) { return; }
        if (st.seq < f.latest.seq || (st.seq === f.latest.seq && JSON.stringify(st) === JSON.stringify(f.latest))) return;
        f.onState(st);
      };
      es.onerror = function () {
        f.status("重新连接中…");
        document.body.classList.add("live-offline");
        if (es.readyState === 2) { f.es = null; setTimeout(f.rejoin, f.backoff); f.backoff = Math.min(f.backoff * 2, 15000); }
      };
    };
    f.rejoin = function () {
      api("POST", "/api/live/" + f.code + "/join", { device: f.dev, nick: f.nick() }).then(function (res) {
        if (res.status === 503 || res.status === 404) {
          f.status(errorText(res));
          if (res.status === 503) setTimeout(f.rejoin, 15000);
          return;
        }
        if (res.ok && res.j.state && res.j.state.seq >= f.latest.seq) f.onState(res.j.state);
        f.connect();
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
      $(".live-q-prompt").innerHTML = q.prompt_html;
      $(".live-q-numeric").hidden = q.kind !== "numeric";
      $(".live-q-options").hidden = q.kind === "numeric";
      if (answeredQid !== q.qid) { answeredQid = q.qid; resetAnswerForm(form, q); msg.textContent = ""; }
      var open = q.status === "open";
      $$("input, select, button", form).forEach(function (el) { el.disabled = !open; });
      if (!open) msg.textContent = q.status === "revealed" ? "已公布" : "已收卷,等待老师公布";
      if (q.status !== "revealed") return;
      api("GET", "/api/live/" + f.code + "/questions/" + q.qid + "/results?device=" + encodeURIComponent(f.dev)).then(function (res) {
        if (!res.ok) return;
        showResults($(".live-q-results"), Object.assign({ card: q.card }, res.j));
        if (res.j.mine) msg.textContent = "你的答案:" + (VERDICT[res.j.mine.verdict] || res.j.mine.verdict);
      });
    };
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var q = f.latest.question;
      if (!q || q.status !== "open") return;
      var body = answerBody(form, q);
      if (typeof body === "string") { msg.textContent = body; return; }
      body.device = f.dev;
      body.nick = f.nick();
      api("POST", "/api/live/" + f.code + "/questions/" + q.qid + "/answers", body).then(function (res) {
        msg.textContent = res.ok ? "已提交(收卷前可以修改)" : errorText(res, "提交失败");
      });
    });
  }
  function resetAnswerForm(form, q) {
    var unitSel = $("select[name=unit]", form), opts = $(".live-q-options");
    form.reset();
    $(".live-q-results").hidden = true;
    unitSel.textContent = "";
    (q.units || []).forEach(function (u) { var o = document.createElement("option"); o.value = u; o.textContent = u; unitSel.appendChild(o); });
    unitSel.hidden = !(q.units && q.units.length);
    $(".live-q-unit").textContent = unitSel.hidden ? (q.unit || "") : "";
    opts.querySelectorAll("label").forEach(function (l) { l.remove(); });
    var choices = q.options && Object.keys(q.options).length ? q.options : { "true": "是", "false": "否" };
    Object.keys(choices).forEach(function (v) {
      var l = document.createElement("label"), r = document.createElement("input");
      r.type = "radio"; r.name = "choice"; r.value = v;
      l.appendChild(r);
      l.appendChild(document.createTextNode(" " + choices[v] + " "));
      opts.appendChild(l);
    });
  }
  function answerBody(form, q) {
    if (q.kind === "numeric") {
      var raw = form.elements.value.value.trim().replace(/,/g, "");
      if (raw === "" || !isFinite(Number(raw))) return "请输入一个数";
      var us = $("select[name=unit]", form), body = { value: Number(raw) };
      if (!us.hidden && us.value) body.unit = us.value;
      return body;
    }
    var c = $("input[name=choice]:checked", form);
    if (!c) return "请选择一项";
    return { value: q.kind === "bool" ? c.value === "true" : c.value };
  }

  document.addEventListener("DOMContentLoaded", function () {
    initStart();
    var data = pageData();
    if (!data) return;
    if (document.body.classList.contains("live-control")) initControl(data);
    else if (document.body.classList.contains("live-follow")) initFollow(data);
  });
})();
