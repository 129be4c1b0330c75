// AI Infra 图解 — the one client script. It draws figures sent as JSON blocks with Plotly.react on
// stable divs, keeps sliders and number boxes in step, keeps the address bar equal to the state,
// shows 422 messages beside controls (keeping the last good chart), and drives presenter keys.
// No inline scripts anywhere: the server's CSP is script-src 'self'.
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

  var PLOT_CONFIG = { displaylogo: false, responsive: true, locale: EDITION === "en" ? "en" : "zh-CN", topojsonURL: "/static/vendor/",
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"] };

  // ---------------------------------------------------------------- theme
  // charts use the page's font stack (with its CJK system fonts), not Plotly's Open Sans
  var fontStack = null;
  function FONT() {
    if (fontStack === null) fontStack = (document.body && getComputedStyle(document.body).fontFamily) || "sans-serif";
    return fontStack;
  }
  function isDark() {
    if (document.body && document.body.classList.contains("present")) return true;   // projector theme
    var t = document.documentElement.getAttribute("data-theme");
    if (t === "dark") return true;
    if (t === "light") return false;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function themed(layout) {
    var dark = isDark();
    var ink = dark ? "#e6e9ee" : "#1f2933";
    var grid = dark ? "rgba(230,233,238,0.14)" : "rgba(31,41,51,0.10)";
    var l = Object.assign({}, layout);
    l.font = Object.assign({ family: FONT() }, layout.font || {}, { color: ink });
    var big = presenting();
    Object.keys(l).forEach(function (k) {
      if (!/^[xy]axis\d*$/.test(k) || !l[k]) return;
      l[k] = Object.assign({ gridcolor: grid, linecolor: grid, zerolinecolor: grid }, l[k]);
      if (big) {   // read from the back of a room: ticks ≥ 16 px, titles 18 px, margins grow to fit them
        var ax = l[k], title = ax.title && typeof ax.title === "object" ? ax.title : { text: ax.title || "" };
        l[k] = Object.assign({}, ax, { automargin: true, tickfont: Object.assign({}, ax.tickfont, { size: Math.max(16, (ax.tickfont && ax.tickfont.size) || 0) }),
          title: Object.assign({}, title, { font: Object.assign({}, title.font, { size: 18 }) }) });
      }
    });
    if (big) {
      // the current value's marker (a reference line and its label) stays legible on a projector
      if (l.annotations) l.annotations = l.annotations.map(function (a) {
        return Object.assign({}, a, { font: Object.assign({}, a.font, { size: Math.max(18, (a.font && a.font.size) || 0) }) });
      });
      if (l.shapes) l.shapes = l.shapes.map(function (s) {
        return s.type === "line" && s.line ? Object.assign({}, s, { line: Object.assign({}, s.line, { width: Math.max(3, s.line.width || 0) }) }) : s;
      });
    }
    if (dark && l.shapes) {
      l.shapes = l.shapes.map(function (s) {
        if (s.line && s.line.color === "#444b55") return Object.assign({}, s, { line: Object.assign({}, s.line, { color: "#c9d1db" }) });
        return s;
      });
    }
    return l;
  }

  // ---------------------------------------------------------------- figures
  var lastFig = new WeakMap(), drawnText = new WeakMap();
  // Presenter: the tiles' side column shrinks its type (then sets two tiles a row) until it ends on screen
  var TILE_SCALES = [1, 0.9, 0.8, 0.7, 0.62, 0.55];
  function fitTiles() {
    if (!presenting()) return;
    document.querySelectorAll(".result > dl.stats").forEach(function (dl) {
      var res = dl.parentElement;   // the scale widens the tiles' column too (the charts beside it narrow)
      if (getComputedStyle(res).display !== "grid" || getComputedStyle(dl).gridArea.indexOf("stats") !== 0) { res.style.removeProperty("--tile-scale"); return; }
      for (var i = 0; i < TILE_SCALES.length; i++) {
        res.style.setProperty("--tile-scale", String(TILE_SCALES[i]));
        if (dl.getBoundingClientRect().bottom + window.scrollY <= window.innerHeight - 4) break;
      }
    });
  }
  function draw(root) {
    if (!window.Plotly) return Promise.resolve();
    fitTiles();
    var done = [];
    (root || document).querySelectorAll("script.figdata").forEach(function (s) {
      var el = document.getElementById(s.getAttribute("data-plot"));
      if (!el) return;
      var text = s.textContent;
      if (el.data && drawnText.get(el) === text) return;   // the same figure as drawn: nothing to do
      var fig;
      try { fig = JSON.parse(text); } catch (e) { return; }
      drawnText.set(el, text);
      var prev = lastFig.get(el);
      lastFig.set(el, fig);
      done.push(fastUpdate(el, prev, fig) || render(el, fig));
    });
    return Promise.all(done);
  }
  // When only trace data changed and every axis has a fixed range, move the changed scatter
  // traces in place (Plotly's animate fast path, no relayout): a few ms instead of a full redraw.
  function fixedAxes(layout) {
    return ["xaxis", "yaxis"].every(function (k) { return layout[k] && layout[k].range; }) &&
      !Object.keys(layout).some(function (k) { return /^[xy]axis\d/.test(k) && !layout[k].range; });
  }
  function fastUpdate(el, prev, fig) {
    if (!prev || !el.data || prev.frames || fig.frames || prev.data.length !== fig.data.length) return null;
    if (!fixedAxes(fig.layout) || JSON.stringify(prev.layout) !== JSON.stringify(fig.layout)) return null;
    var changed = [];
    for (var i = 0; i < fig.data.length; i++) {
      if (fig.data[i].type !== "scatter" || prev.data[i].type !== "scatter") return null;
      if (JSON.stringify(fig.data[i]) !== JSON.stringify(prev.data[i])) changed.push(i);
    }
    if (!changed.length) return Promise.resolve();
    return new Promise(function (resolve) {
      // Plotly runs a zero-length transition (the traces moved in the SVG) and then announces the
      // frame (plotly_animatingframe): the chart is drawn then. Plotly's own promise settles only
      // after further animation frames.
      var settled = false;
      function done() { if (!settled) { settled = true; resolve(); } }
      if (el.once) el.once("plotly_animatingframe", done);
      window.Plotly.animate(el, { data: changed.map(function (i) { return fig.data[i]; }), traces: changed },
        { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } }).then(done, done);
    });
  }
  // Presenter: a chart on the first screen takes the height that remains below it (at least 180 px),
  // so it is fully visible without scrolling; charts further down keep their own height.
  function presentHeight(el) {
    if (!document.body.classList.contains("present")) return null;
    var top = el.getBoundingClientRect().top + window.scrollY;
    if (top > window.innerHeight * 0.75) return null;
    return Math.max(180, Math.floor(window.innerHeight - top - 12));
  }
  function presenting() { return !!(document.body && document.body.classList.contains("present")); }
  // no mode bar in the presenter (it covers labels, and nobody zooms from the back row) nor on a touch
  // screen (it sits over the chart's top labels and a finger cannot hover it away)
  function touchScreen() {
    return !!(window.matchMedia && (window.matchMedia("(pointer: coarse)").matches || window.matchMedia("(hover: none)").matches)) ||
      navigator.maxTouchPoints > 0;
  }
  function plotConfig() {
    return (presenting() || touchScreen()) ? Object.assign({}, PLOT_CONFIG, { displayModeBar: false }) : PLOT_CONFIG;
  }
  // An axis title longer than its axis (a phone, three charts side by side) breaks into lines at a
  // comma, bracket or space near its middle, and the margin on its side grows by the added lines
  var measurer = null;
  function textWidth(text, size) {
    measurer = measurer || document.createElement("canvas").getContext("2d");
    measurer.font = size + "px " + FONT();
    return measurer.measureText(text).width;
  }
  function splitTitle(text, size, room) {
    var lines = [text];
    for (var guard = 0; guard < 3; guard++) {
      var last = lines[lines.length - 1];
      if (textWidth(last, size) <= room) break;
      var best = -1, mid = last.length / 2;
      // before a bracket first ("第 1 轮 / (示意)"), else after a comma, a stop or a space; nearest the middle
      [/[((]/, /[,,;;、·\s((]/].some(function (re, pass) {
        for (var i = 1; i < last.length - 1; i++) {
          var ok = pass === 0 ? re.test(last.charAt(i)) : (re.test(last.charAt(i - 1)) || /[((]/.test(last.charAt(i)));
          if (ok && textWidth(last.slice(0, i), size) <= room && (best < 0 || Math.abs(i - mid) < Math.abs(best - mid) || textWidth(last.slice(best), size) > room)) best = i;
        }
        return best >= 0 && textWidth(last.slice(best), size) <= room;
      });
      if (best < 0) {   // no break character fits: cut where the line is full
        best = 1;
        while (best < last.length - 1 && textWidth(last.slice(0, best + 1), size) <= room) best++;
      }
      lines.splice(lines.length - 1, 1, last.slice(0, best).replace(/\s+$/, ""), last.slice(best).replace(/^\s+/, ""));
    }
    return lines;
  }
  function fitTitles(l, width, data) {
    var m = Object.assign({ l: 80, r: 80, t: 100, b: 80 }, l.margin), h = l.height || 320;
    var base = (l.font && l.font.size) || 12;
    var plain = function (t) { return String(t).replace(/<[^>]+>/g, ""); };
    Object.keys(l).forEach(function (k) {
      var ax = l[k];
      if (!/^[xy]axis\d*$/.test(k) || !ax || ax.visible === false || ax.showticklabels === false) return;
      var tick = (ax.tickfont && ax.tickfont.size) || base, ref = k.charAt(0) + k.slice(5);
      if (k.charAt(0) === "y" && ax.ticktext && ax.side !== "right" && !ax.automargin) {
        // explicit labels (a log axis's 100,000): the left margin holds the widest, and the title beside it
        var widest = Math.max.apply(null, ax.ticktext.map(function (t) { return textWidth(plain(t), tick); }).concat([0]));
        var need = Math.ceil(widest + 8 + (ax.title && (ax.title.text || typeof ax.title === "string") ? Math.round(1.2 * base) * 1.25 + 4 : 0));
        if (m.l < need) m.l = need;
      }
      if (k.charAt(0) === "x" && !ax.tickvals && ax.type !== "log" && ax.type !== "linear" && data) {
        // category labels wider than their slot break into lines instead of turning and leaving the chart
        var cats = [];
        data.forEach(function (t) {
          if ((t.xaxis || "x") !== ref || t.orientation === "h" || !Array.isArray(t.x)) return;
          t.x.forEach(function (c) { if (typeof c === "string" && cats.indexOf(c) < 0) cats.push(c); });
        });
        if (!cats.length) return;
        var dom = ax.domain || [0, 1];
        var slot = (width - m.l - m.r) * (dom[1] - dom[0]) / cats.length - 6;
        var split = cats.map(function (c) { return slot > 24 ? splitTitle(c, tick, slot) : [c]; });
        var rows = Math.max.apply(null, split.map(function (x) { return x.length; }));
        if (rows < 2) return;
        l[k] = Object.assign({}, ax, { tickmode: "array", tickvals: cats, tickangle: 0,
          ticktext: split.map(function (x) { return x.join("<br>"); }) });
        m.b += Math.ceil((rows - 1) * tick * 1.25);
      }
    });
    Object.keys(l).forEach(function (k) {
      var ax = l[k];
      if (!/^[xy]axis\d*$/.test(k) || !ax || !ax.title) return;
      var title = typeof ax.title === "object" ? ax.title : { text: ax.title };
      var text = title.text;
      if (!text || /<br>/i.test(text)) return;
      var size = (title.font && title.font.size) || Math.round(1.2 * base);   // Plotly draws axis titles 1.2× the font
      var dom = ax.domain || [0, 1], x = k.charAt(0) === "x";
      var room = ((x ? width - m.l - m.r : h - m.t - m.b) * (dom[1] - dom[0])) - 8;
      if (room <= 40) return;
      var lines = splitTitle(String(text), size, room);
      if (lines.length < 2) return;
      l[k] = Object.assign({}, ax, { title: Object.assign({}, title, { text: lines.join("<br>") }) });
      var extra = Math.ceil((lines.length - 1) * size * 1.25);
      if (x) m[ax.side === "top" ? "t" : "b"] += extra; else m[ax.side === "right" ? "r" : "l"] += extra;
    });
    l.margin = m;
    return l;
  }
  function render(el, fig) {
    var f = { data: fig.data, layout: themed(fig.layout), config: plotConfig() };
    var h = presentHeight(el);
    if (h) { f.layout.height = h; el.style.minHeight = h + "px"; }
    fitTitles(f.layout, f.layout.width || el.clientWidth || 600, fig.data);
    if (fig.frames) f.frames = fig.frames;
    // reading.js fits a narrow chart's labels: before drawing (on f) and once drawn (promises in wait)
    var hook = { fig: f, wait: [] };
    el.dispatchEvent(new CustomEvent("chart:layout", { detail: hook }));
    return window.Plotly.react(el, f).then(function () {
      el.dispatchEvent(new CustomEvent("chart:drawn", { detail: hook }));
      return Promise.all(hook.wait);
    }).then(function () { return keepLabelsInside(el); });
  }
  // A label at a chart's edge (a reference line's, over the top or beside a side) is never cut off by
  // the chart's bounds, where a projector's larger type or a phone's narrow chart pushes it out: once
  // drawn, a label crossing a side is anchored on that side (it ends at its point instead of centring
  // on it), and one over the top or bottom gets the margin it needs. One relayout, only when needed.
  function keepLabelsInside(el) {
    var svg = el.querySelector(".main-svg"), anns = el.layout && el.layout.annotations;
    if (!svg || !anns || !anns.length || !el._fullLayout) return null;
    var box = svg.getBoundingClientRect(), upd = {}, over = { t: 0, b: 0 };
    el.querySelectorAll("g.annotation").forEach(function (g) {
      var i = +g.getAttribute("data-index"), a = anns[i], text = g.querySelector(".annotation-text");
      if (!a || !text) return;
      var b = text.getBoundingClientRect();
      if (b.right > box.right + 1 && a.xanchor !== "right") upd["annotations[" + i + "].xanchor"] = "right";
      else if (b.left < box.left - 1 && a.xanchor !== "left") upd["annotations[" + i + "].xanchor"] = "left";
      over.t = Math.max(over.t, box.top - b.top);
      over.b = Math.max(over.b, b.bottom - box.bottom);
    });
    var m = el._fullLayout.margin, drawn = el._fullLayout._size || m;   // the margins as drawn: pushes included
    if (over.t > 1) upd["margin.t"] = Math.ceil(Math.max(m.t, drawn.t) + over.t + 2);
    if (over.b > 1) upd["margin.b"] = Math.ceil(Math.max(m.b, drawn.b) + over.b + 2);
    return Object.keys(upd).length ? window.Plotly.relayout(el, upd) : null;
  }
  function redrawAll() {
    fitTiles();
    document.querySelectorAll(".plot").forEach(function (el) {
      var fig = lastFig.get(el);
      if (fig) render(el, fig);
    });
  }

  // ---------------------------------------------------------------- controls
  function logPos(v, min, max) { return 1000 * Math.log(v / min) / Math.log(max / min); }
  // Put a number box's value on its range slider (log sliders run 0–1000 on a log scale)
  function syncRange(box, range) {
    var r = range || document.querySelector('input.range[data-for="' + box.id + '"]');
    if (!r) return;
    var v = parseFloat(box.value), min = +box.dataset.min, max = +box.dataset.max;
    if (isFinite(v) && v >= min && v <= max) r.value = r.dataset.log ? logPos(v, min, max) : v;
  }
  function logVal(p, min, max) { return min * Math.pow(max / min, p / 1000); }
  function snap(v, step, min) {
    if (!step) return v;
    var n = Math.round((v - min) / step) * step + min;
    var dec = (String(step).split(".")[1] || "").length;
    return Number(n.toFixed(dec));
  }
  function initRange(r) {
    var box = document.getElementById(r.getAttribute("data-for"));
    if (!box) return;
    var min = +box.dataset.min, max = +box.dataset.max, step = +box.dataset.step;
    if (r.dataset.log) {
      r.min = 0; r.max = 1000; r.step = 1;
      syncRange(box, r);
    }
    // The box's input event carries the value to the form (htmx sends it); the range's own input and
    // change stop here, or every move of a drag would send the same state twice (and mouse-up once more)
    r.addEventListener("input", function (e) {
      e.stopPropagation();
      var v = r.dataset.log ? snap(logVal(+r.value, min, max), step, min) : +r.value;
      // a log slider's neighbouring positions often snap to the same value: that state is asked for once
      if (box.value === String(v) && !box.classList.contains("bad")) return;
      box.value = String(v);
      box.classList.remove("bad");
      box.dispatchEvent(new Event("input", { bubbles: true }));
    });
    r.addEventListener("change", function (e) { e.stopPropagation(); });
    box.addEventListener("input", function (e) { if (e.target === box) syncRange(box, r); });
  }
  function stepBox(box, dir) {
    // Keyboard step for number boxes (and presenter arrows)
    var min = +box.dataset.min, max = +box.dataset.max, step = +box.dataset.step || 1;
    var v = parseFloat(box.value);
    if (!isFinite(v)) v = parseFloat(box.placeholder) || min;
    if (box.dataset.log) {
      var f = Math.pow(max / min, 1 / 40);
      v = dir > 0 ? Math.max(v * f, v + step) : Math.min(v / f, v - step);
    } else { v = v + dir * step; }
    v = Math.min(max, Math.max(min, snap(v, step, min)));
    box.value = String(v);
    box.dispatchEvent(new Event("input", { bubbles: true }));
    syncRange(box);
  }
  function initForm(form) {
    if (form.dataset.init) return;
    form.dataset.init = "1";
    initCustom(form);
    form.querySelectorAll("input.range").forEach(initRange);
    form.querySelectorAll("input[data-toggle-for]").forEach(function (cb) {
      cb.addEventListener("change", function () {
        var h = document.getElementById(cb.getAttribute("data-toggle-for"));
        if (h) h.value = cb.checked ? "true" : "false";
      });
    });
    form.querySelectorAll("input.num").forEach(function (box) {
      box.addEventListener("keydown", function (e) {
        if (!box.dataset.min) return;
        if (e.key === "ArrowUp") { e.preventDefault(); stepBox(box, 1); }
        else if (e.key === "ArrowDown") { e.preventDefault(); stepBox(box, -1); }
      });
    });
    form.querySelectorAll("fieldset.list").forEach(function (fs) {
      var add = fs.querySelector(".list-add"), del = fs.querySelector(".list-del");
      if (!add) return;
      add.addEventListener("click", function () {
        var items = fs.querySelectorAll("input.item");
        var last = items[items.length - 1];
        var n = last.cloneNode();
        n.setAttribute("aria-label", (last.getAttribute("aria-label") || "").replace(/\d+(?=\D*$)/, String(items.length + 1)));   // the label ends with the item's number
        fs.insertBefore(n, add);
        n.dispatchEvent(new Event("input", { bubbles: true }));
      });
      del.addEventListener("click", function () {
        var items = fs.querySelectorAll("input.item");
        if (items.length > 1) { items[items.length - 1].remove(); form.dispatchEvent(new Event("change", { bubbles: true })); }
      });
    });
  }
  function formQuery(form) {
    var fd = new FormData(form), parts = [];
    fd.forEach(function (v, k) {
      if (v === "") return;
      parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
    });
    return parts.join("&");
  }
  // ---------------------------------------------------------------- errors (422) and success
  function clearErrors(card) {
    card.querySelectorAll(".err").forEach(function (s) { s.textContent = ""; });
    card.querySelectorAll(".ctl.invalid").forEach(function (c) { c.classList.remove("invalid"); });
    card.querySelectorAll("[aria-invalid]").forEach(function (c) { c.removeAttribute("aria-invalid"); });
    var fe = card.querySelector(".form-errors");
    if (fe) fe.textContent = "";
  }
  function showErrors(card, html) {
    clearErrors(card);
    var tmp = document.createElement("div");
    tmp.innerHTML = html;
    var rest = [];
    tmp.querySelectorAll("li[data-field]").forEach(function (li) {
      var f = li.getAttribute("data-field");
      var slot = card.querySelector('.err[data-error-for="' + f + '"]');
      if (slot) {
        slot.textContent = li.textContent;
        var ctl = slot.closest(".ctl");
        if (ctl) {
          ctl.classList.add("invalid");
          var inp = ctl.querySelector("[name]");
          if (inp) inp.setAttribute("aria-invalid", "true");
        }
      } else { rest.push(li.textContent); }
    });
    var fe = card.querySelector(".form-errors");
    if (fe && rest.length) fe.textContent = rest.join(";");
  }

  // Empty override boxes mean "use the preset": leave them out of the request and the URL
  document.addEventListener("htmx:configRequest", function (e) {
    var p = e.detail.parameters;
    if (p && typeof p.forEach === "function" && p.delete) {
      var empty = [];
      p.forEach(function (v, k) { if (v === "") empty.push(k); });
      empty.forEach(function (k) { p.delete(k); });
    } else if (p) {
      Object.keys(p).forEach(function (k) { if (p[k] === "") delete p[k]; });
    }
  });

  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    var card = e.detail.target && e.detail.target.closest && e.detail.target.closest(".card");
    if (!card) return;
    if (xhr.status === 422) {
      showErrors(card, xhr.responseText);
      e.detail.shouldSwap = false;   // keep the last good numbers and chart
      e.detail.isError = false;
    } else if (xhr.status >= 200 && xhr.status < 300) {
      clearErrors(card);
      if (ownAnswer(e.detail)) {
        // put on the card a microtask later: htmx first sends the value a drag queued meanwhile
        // (hx-sync "queue last": one request at a time, the latest value), computed while this one draws
        var d = e.detail;
        d.shouldSwap = false;
        Promise.resolve().then(function () { putAnswer(d); });
        return;
      }
    }
    if (e.detail.shouldSwap) served.delete(e.detail.target);   // another swap: not the fragment remembered
  });

  // ---------------------------------------------------------------- a card's answers, in place
  // The fragment last put on each card's result (parsed), so the next one can be put in place
  var served = new WeakMap();
  function ownAnswer(d) {
    var form = d.requestConfig && d.requestConfig.elt, t = d.target;
    return !!(form && form.matches && form.matches("form.controls") && t && t.id === "r-" + (form.closest(".card") || {}).id);
  }
  function putAnswer(d) {
    var t = d.target, html = d.serverResponse;
    if (!t.isConnected) return;
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    var prev = served.get(t);
    served.set(t, tpl.content);
    if (prev && patchKids(prev, tpl.content, t)) {
      t.dispatchEvent(new CustomEvent("htmx:afterSwap", { bubbles: true, detail: d }));
    } else {
      window.htmx.swap(t, html, { swapStyle: "innerHTML", swapDelay: 0, settleDelay: window.htmx.config.defaultSettleDelay },
        { eventInfo: d, contextElement: d.requestConfig.elt });
    }
  }
  // Write on the page (live) only the text and attributes the server changed from the last fragment
  // (prev) to this one (next), so a drag does not rebuild the card (tiles, MathML, figures); what the
  // page's scripts set stays, and htmx processes again an element whose hx-* changed. False at the
  // first difference in shape (an opened derivation, a loaded table): htmx's whole swap then follows.
  function patch(prev, next, live) {
    if (prev.nodeType !== next.nodeType || prev.nodeName !== next.nodeName || prev.nodeType !== live.nodeType || prev.nodeName !== live.nodeName) return false;
    if (prev.nodeType === 3 || prev.nodeType === 8) {
      if (prev.nodeValue !== next.nodeValue) live.nodeValue = next.nodeValue;
      return true;
    }
    if (prev.nodeType === 1) {
      if (prev.hasAttribute("hx-preserve")) return prev.id === next.id && prev.id === live.id;
      var hx = false, i, at;
      for (i = 0; i < next.attributes.length; i++) {
        at = next.attributes[i];
        if (prev.getAttribute(at.name) !== at.value) { live.setAttribute(at.name, at.value); hx = hx || at.name.indexOf("hx-") === 0; }
      }
      for (i = 0; i < prev.attributes.length; i++) {
        at = prev.attributes[i];
        if (!next.hasAttribute(at.name)) { live.removeAttribute(at.name); hx = hx || at.name.indexOf("hx-") === 0; }
      }
    }
    if (!patchKids(prev, next, live)) return false;
    if (hx) window.htmx.process(live);
    return true;
  }
  function patchKids(prev, next, live) {
    var cp = prev.childNodes, cn = next.childNodes, cl = live.childNodes;
    if (cp.length !== cn.length || cp.length !== cl.length) return false;
    for (var k = 0; k < cp.length; k++) if (!patch(cp[k], cn[k], cl[k])) return false;
    return true;
  }

  document.addEventListener("htmx:afterSwap", function (e) {
    var t = e.detail.target;
    var drawn = draw(t);
    var card = t.closest && t.closest(".card");
    if (!card) { drawn.then(function () { t.dispatchEvent(new CustomEvent("card:drawn", { bubbles: true })); }); return; }
    // the chart first: the address bar and the card's links follow once it is drawn
    drawn.then(function () {
      card.dispatchEvent(new CustomEvent("card:drawn", { bubbles: true }));
      var form = card.querySelector("form.controls");
      if (!form || !e.detail.requestConfig || e.detail.requestConfig.elt !== form) return;
      form._follow = function () { followState(card, e.detail); };
      followLatest(form);
    });
  });
  // The address bar follows the latest state drawn once no newer request is on its way (a drag writes
  // it once: replaceState costs 1–15 ms of main thread here), after a refused value the last drawn
  function followLatest(form) {
    if (!form._follow || form.classList.contains(window.htmx.config.requestClass)) return;
    var f = form._follow;
    form._follow = null;
    f();
  }
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.requestConfig && e.detail.requestConfig.elt;
    if (form && form._follow) Promise.resolve().then(function () { followLatest(form); });
  });
  function followState(card, detail) {
    var form = card.querySelector("form.controls");
    // the state canonically (the server names it: only what differs from the defaults), then the view
    // flags the form carries (solutions=off, answers=shown) where a page shows them
    var xhr = detail.xhr, state = xhr && xhr.getResponseHeader("X-Card-Query");
    if (state === null || state === undefined) state = formQuery(form);
    var flags = viewFlags(form), q = join(state, flags);
    updateToolLinks(card, state, q);
    var deck = deckBar();
    if (deck) {
      history.replaceState(null, "", deckUrl(deck, +deck.dataset.deckAt, card.dataset.card + (q ? "?" + q : "")));
    } else if (card.dataset.urlSync) {
      history.replaceState(null, "", card.dataset.urlSync + (q ? "?" + q : "") + location.hash);
      if (document.body.classList.contains("present")) rememberPresented(card.dataset.card, q);
    }
    var back = document.querySelector(".present-bar a.back");
    if (back) back.setAttribute("href", sitePath("/cards/" + card.dataset.card + (q ? "?" + q : "")));
  }
  function join(a, b) { return a && b ? a + "&" + b : a || b; }
  function viewFlags(form) {
    var parts = [];
    ["solutions", "answers"].forEach(function (k) {
      var el = form.querySelector('input[type=hidden][name="' + k + '"]');
      if (el && el.value) parts.push(k + "=" + encodeURIComponent(el.value));
    });
    return parts.join("&");
  }
  // Presenter N/P: each card visited keeps its last state for this tab (P after N comes back to it)
  function rememberPresented(id, q) {
    try { sessionStorage.setItem("present:" + id, q || ""); } catch (err) {}
  }
  function presentedUrl(href) {
    var id = href.split("?")[0].split("/").pop(), q = null;
    try { q = sessionStorage.getItem("present:" + id); } catch (err) {}
    return q ? href.split("?")[0] + "?" + q : href;
  }

  // Cards that follow another card's state (same-named parameters) on the same page
  document.addEventListener("input", function (e) { followers(e); }, true);
  document.addEventListener("change", function (e) { followers(e); }, true);
  function followers(e) {
    var el = e.target;
    if (!el || !el.closest) return;
    var form = el.closest("form.controls");
    if (!form) return;
    var leader = form.closest(".card").dataset.card;
    setTimeout(function () {
      document.querySelectorAll('.card[data-shared-state="' + leader + '"] form.controls').forEach(function (f2) {
        var changed = false;
        new FormData(form).forEach(function (v, k) {
          var t = f2.querySelector('[name="' + k + '"]');
          if (t && t.value !== v) { t.value = v; changed = true; syncRange(t); }
        });
        if (changed && window.htmx) window.htmx.trigger(f2, "change");
      });
    }, 0);
  }

  // 演示 / 单独打开 take the state and view flags, JSON (data-keep-query="state") the state alone
  function updateToolLinks(card, state, q) {
    card.querySelectorAll("a[data-keep-query]").forEach(function (a) {
      var base = a.getAttribute("href").split("?")[0];
      var v = a.getAttribute("data-keep-query") === "state" ? state : q;
      a.setAttribute("href", base + (v ? "?" + v : ""));
    });
  }

  // ---------------------------------------------------------------- lecture decks
  // /present/deck?c=ID[?query]&c=…&at=K: the address bar holds every step's state; moving a control
  // rewrites this step's c, and N/P go to the neighbouring step of the current URL (so each keeps its state).
  function deckBar() { return document.querySelector(".present-bar[data-deck-at]"); }
  function deckUrl(bar, at, state) {
    var sp = new URLSearchParams(location.search), out = new URLSearchParams();
    var entries = sp.getAll("c");
    if (state !== undefined) entries[+bar.dataset.deckAt - 1] = state;
    entries.forEach(function (c) { out.append("c", c); });
    out.set("at", String(at));
    return location.pathname + "?" + out.toString();
  }
  function deckStep(bar, dir) {
    var at = +bar.dataset.deckAt + dir;
    if (at >= 1 && at <= +bar.dataset.deckSize) location.href = deckUrl(bar, at);
  }

  // ---------------------------------------------------------------- presenter keys
  function toggleControls(bar) {
    var hidden = document.body.classList.toggle("controls-hidden");
    var b = bar.querySelector(".toggle-controls");
    if (b) { b.setAttribute("aria-pressed", String(hidden)); b.textContent = hidden ? word("show_controls") : word("hide_controls"); }
    redrawAll();
  }
  function presenter() {
    var bar = document.querySelector(".present-bar");
    if (!bar) return;
    var shown = document.querySelector(".card[data-card]");
    if (!bar.dataset.deckAt && shown) rememberPresented(shown.dataset.card, location.search.slice(1));
    var tb = bar.querySelector(".toggle-controls");
    if (tb) tb.addEventListener("click", function () { toggleControls(bar); });
    var resized = null;
    window.addEventListener("resize", function () { clearTimeout(resized); resized = setTimeout(redrawAll, 150); });
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var a = document.activeElement;
      // a control's number box takes digits only, so letters stay presenter commands there (N/P/C/F)
      var typing = a && ((a.tagName === "INPUT" && a.type === "text" && !a.classList.contains("num")) || a.tagName === "TEXTAREA");
      var card = document.querySelector(".card");
      var q = location.search;
      if (e.key === "Escape") {
        if (bar.dataset.deckAt) { var back = bar.querySelector("a.back"); location.href = back.getAttribute("href"); return; }
        location.href = bar.dataset.back + q; return;
      }
      if (typing && !/^Arrow/.test(e.key)) return;
      if (/^[npcf]$/i.test(e.key)) e.preventDefault();   // a command, never typed into a number box
      if (e.key === "ArrowRight" || e.key === "ArrowUp" || e.key === "ArrowLeft" || e.key === "ArrowDown") {
        var box = focusedControl(card);
        if (!box) return;
        e.preventDefault();
        var dir = (e.key === "ArrowRight" || e.key === "ArrowUp") ? 1 : -1;
        if (box.tagName === "SELECT") {
          var i = Math.min(box.options.length - 1, Math.max(0, box.selectedIndex + dir));
          if (i !== box.selectedIndex) { box.selectedIndex = i; box.dispatchEvent(new Event("change", { bubbles: true })); }
        } else if (box.type === "checkbox") {
          box.checked = dir > 0; box.dispatchEvent(new Event("change", { bubbles: true }));
        } else { stepBox(box, dir); }
      } else if (e.key === " ") { e.preventDefault(); togglePlay(card); }
      else if (e.key === "n" || e.key === "N") { if (bar.dataset.deckAt) deckStep(bar, 1); else if (bar.dataset.next) location.href = presentedUrl(bar.dataset.next); }
      else if (e.key === "p" || e.key === "P") { if (bar.dataset.deckAt) deckStep(bar, -1); else if (bar.dataset.prev) location.href = presentedUrl(bar.dataset.prev); }
      else if (e.key === "c" || e.key === "C") { toggleControls(bar); }
      else if (e.key === "f" || e.key === "F") {
        if (document.fullscreenElement) document.exitFullscreen(); else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(function () {});
      }
    });
    var first = document.querySelector(".card form.controls input.num, .card form.controls select, .card form.controls input[type=checkbox]");
    if (first) first.focus();
  }
  function focusedControl(card) {
    var a = document.activeElement;
    if (a && card.contains(a) && (a.matches("input.num, select, input[type=checkbox]"))) return a;
    return card.querySelector("form.controls input.num, form.controls select");
  }
  var playing = new WeakMap();
  function togglePlay(card) {
    var el = card.querySelector(".fig.animated .plot") || card.querySelector(".plot");
    if (!el || !window.Plotly || !lastFig.get(el) || !lastFig.get(el).frames) return;
    if (playing.get(el)) {
      window.Plotly.animate(el, [null], { mode: "immediate", frame: { duration: 0, redraw: false }, transition: { duration: 0 } });
      playing.set(el, false);
    } else {
      var names = lastFig.get(el).frames.map(function (f) { return f.name; });
      window.Plotly.animate(el, names, { mode: "immediate", fromcurrent: false, frame: { duration: 300, redraw: false }, transition: { duration: 0 } });
      playing.set(el, true);
      el.once("plotly_animated", function () { playing.set(el, false); });
    }
  }
  // ▶ on a card from outside the presenter keys (the live class follows an instructor's ▶ this way)
  document.addEventListener("card:play", function (e) {
    var card = e.target.closest && e.target.closest(".card");
    if (card) togglePlay(card);
  });

  // ---------------------------------------------------------------- theme toggle
  function initTheme() {
    var b = document.querySelector(".theme-toggle");
    if (b) b.addEventListener("click", function () {
      var next = isDark() ? "light" : "dark";
      document.documentElement.setAttribute("data-theme", next);
      try { localStorage.setItem("theme", next); } catch (e) {}
      redrawAll();
    });
    if (window.matchMedia) window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", redrawAll);
  }

  // Clickable diagram parts: <a data-set-param="part" data-value="x"> sets the card's control and
  // re-renders through the normal flow (so the URL and deep links follow).
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("[data-set-param]");
    if (!a) return;
    var card = a.closest(".card");
    var form = card && card.querySelector("form.controls");
    var all = form ? form.querySelectorAll('[name="' + a.getAttribute("data-set-param") + '"]') : [];
    var ctl = all[+(a.getAttribute("data-set-index") || 0)];   // list parameters: item i
    if (!ctl) return;
    e.preventDefault();
    ctl.value = a.getAttribute("data-value");
    syncRange(ctl);
    ctl.dispatchEvent(new Event("change", { bubbles: true }));
  });

  // Cards below the fold load when scrolled into view; once the page is idle, the rest load one by
  // one in the background, so a fast scroll or a print never meets an empty card.
  function prefetchLazy() {
    if (!document.querySelector(".result.lazy")) return;
    var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 50); };
    setTimeout(function next() {
      var el = Array.prototype.find.call(document.querySelectorAll(".result.lazy"), function (x) { return x.querySelector(".loading"); });
      if (!el || !window.htmx) return;
      idle(function () {
        window.htmx.ajax("GET", el.getAttribute("hx-get"), { target: el, swap: "innerHTML" }).then(function () { setTimeout(next, 30); });
      });
    }, 1500);
  }

  function within(root, sel) {
    root = root || document;
    var out = Array.prototype.slice.call(root.querySelectorAll ? root.querySelectorAll(sel) : []);
    if (root.matches && root.matches(sel)) out.unshift(root);
    return out;
  }

  // ---------------------------------------------------------------- a reader's own GPU or model
  function b64url(bytes) {
    var s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function compress(text) {
    var stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate"));
    return new Response(stream).arrayBuffer().then(function (buf) { return new Uint8Array(buf); });
  }
  function initCustom(form) {
    form.querySelectorAll("select[data-custom]").forEach(function (sel) {
      var box = form.querySelector('.custom-box[data-for="' + sel.id + '"]');
      var opt = sel.querySelector("option[data-custom-option]");
      sel.addEventListener("change", function (e) {
        var custom = sel.selectedOptions[0] === opt;
        if (box) box.hidden = !custom;
        if (custom && !opt.value) { e.stopPropagation(); }   // nothing to send until the reader fills it in
      });
      if (!box) return;
      if (sel.dataset.custom === "gpu") {
        box.querySelectorAll("input[data-part]").forEach(function (inp) {
          inp.addEventListener("input", function (e) {
            e.stopPropagation();
            var v = Array.prototype.map.call(box.querySelectorAll("input[data-part]"), function (i) { return i.value.trim(); });
            if (v.every(function (x) { return x !== "" && isFinite(Number(x)); })) {
              opt.value = "custom:" + v.map(function (x) { return String(Number(x)); }).join(",");   // "080" → "80"
              sel.value = opt.value;
              sel.dispatchEvent(new Event("change", { bubbles: true }));
            }
          });
        });
      } else {
        var ta = box.querySelector("textarea"), file = box.querySelector("input[type=file]");
        var status = box.querySelector(".custom-status");
        ta.addEventListener("input", function (e) { e.stopPropagation(); });
        file.addEventListener("change", function (e) {
          e.stopPropagation();
          var picked = Array.prototype.slice.call(file.files);
          Promise.all(picked.map(function (f) { return f.text().then(function (t) { return { name: f.name, text: t }; }); })).then(function (read) {
            if (read.length === 1) { ta.value = read[0].text; apply(); return; }
            // config.json with hf_quant_config.json (NVIDIA ModelOpt): the second travels under its own key
            var cfg = null, quant = null;
            try {
              read.forEach(function (r) {
                var j = JSON.parse(r.text);
                if (/hf_quant_config/i.test(r.name) || (j && j.producer && j.quantization)) quant = j; else cfg = j;
              });
            } catch (err) { status.textContent = word("bad_json") + err.message; return; }
            if (cfg && quant) cfg.hf_quant_config = quant;
            ta.value = JSON.stringify(cfg || quant);
            apply();
          });
        });
        box.querySelector(".apply-model").addEventListener("click", apply);
        function apply() {
          var cfg;
          try { cfg = JSON.parse(ta.value); } catch (err) { status.textContent = word("bad_json") + err.message; return; }
          if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) { status.textContent = word("not_object"); return; }
          Object.keys(cfg).forEach(function (k) { if (k.charAt(0) === "_") delete cfg[k]; });
          var text = JSON.stringify(cfg);
          status.textContent = word("deriving");
          fetch(apiUrl("/api/models/derive"), { method: "POST", headers: { "Content-Type": "application/json" }, body: text })
            .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
            .then(function (res) {
              if (!res.ok) { status.textContent = (res.j.detail && res.j.detail[0] && res.j.detail[0].msg) || word("bad_config"); return; }
              var d = res.j;
              status.textContent = (d.architecture ? d.architecture + " · " : "") + word("params_total") + " " + Number(d.params_total).toLocaleString("en-US") +
                " · " + word("params_active") + " " + Number(d.params_active).toLocaleString("en-US") + " · KV " + Number(d.kv_bytes_per_token).toLocaleString("en-US") + " B/token";
              return compress(text).then(function (bytes) {
                opt.value = "cfg:" + b64url(bytes);
                sel.value = opt.value;
                sel.dispatchEvent(new Event("change", { bubbles: true }));
              });
            });
        }
      }
    });
  }

  function init(root) {
    within(root, "form.controls").forEach(initForm);
  }

  document.addEventListener("htmx:load", function (e) { init(e.detail.elt); });
  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    draw(document);
    initTheme();
    presenter();
    prefetchLazy();
  });
})();
