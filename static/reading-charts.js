// AI Infra 图解 — a chart's labels fitted to its width (issue 40.4), loaded by reading.js only where a drawn
// chart has a label cut off or on another (so a page whose charts fit never fetches it). It then redraws
// that chart and adjusts every later draw of it (app.js's chart:layout and chart:drawn events).
// No inline scripts anywhere: the server's CSP is script-src 'self'.
(function () {
  "use strict";
  // ---------------------------------------------------------------- a narrow chart's labels
  // app.js announces each draw (chart:layout with the figure before Plotly.react, chart:drawn after).
  // Before: long category names of horizontal bars wrap (图 3-30's left margin took 260 of a phone's
  // 326 px), a trace's own text wider than the plot wraps at its " · ", and the ▶/❚❚ buttons move below
  // an axis title they would cover. After: what still sticks out or overlaps is measured and fixed by one
  // relayout (a trace text past a side: that margin grows; tick labels of one axis overlapping: every
  // second one is shown; texts of one trace overlapping: smaller type; two notes overlapping: the later
  // one moves up), and remembered for the chart's next draws (a drag then needs no second pass).
  var fixes = new WeakMap();
  var canvas = null;
  function textWidth(text, size) {
    canvas = canvas || document.createElement("canvas").getContext("2d");
    canvas.font = size + "px " + ((document.body && getComputedStyle(document.body).fontFamily) || "sans-serif");
    return canvas.measureText(String(text).replace(/<[^>]+>/g, "")).width;
  }
  // greedy lines of at most room px, broken after a separator (" · ", ",", a space) or, failing that, anywhere
  function wrap(text, size, room) {
    var parts = String(text).split(/(?<=[·,,;;、)\s])/), lines = [], cur = "";
    parts = parts.reduce(function (a, p) {   // Chinese breaks between characters, a Latin word never
      return a.concat(textWidth(p, size) > room && /[\u3400-\u9fff]/.test(p) ? p.split(/(?<=[\u3400-\u9fff])|(?=[\u3400-\u9fff])/) : [p]);
    }, []);
    parts.forEach(function (p) {
      if (cur && textWidth(cur + p, size) > room) { lines.push(cur.trim()); cur = p; } else cur += p;
    });
    if (cur.trim()) lines.push(cur.trim());
    return lines;
  }
  function fixOf(el) {
    var f = fixes.get(el);
    if (!f) { f = { m: {}, thin: {}, tsize: {}, twrap: {}, shift: {}, standoff: {} }; fixes.set(el, f); }
    return f;
  }
  function before(el, fig) {
    var l = fig.layout, w = l.width || el.clientWidth || 600, m = l.margin = Object.assign({}, l.margin);
    var base = (l.font && l.font.size) || 12, fx = fixOf(el), h0 = l.height || 320;
    // three or more panels side by side (图 3-x's ranked columns) on a phone: one above the other
    var panels = Object.keys(l).filter(function (k) { return /^xaxis\d*$/.test(k) && l[k] && l[k].domain; });
    if (w < 600 && panels.length >= 3 && panels.every(function (k) {
      var y = l["yaxis" + String(l[k].anchor || "y").slice(1)];
      return y && (!y.domain || (y.domain[0] === 0 && y.domain[1] === 1));
    })) {
      panels.sort(function (a, b) { return l[a].domain[0] - l[b].domain[0]; });
      var n = panels.length, gap = 0.13;   // room for the x title of the panel above
      panels.forEach(function (k, i) {
        var yk = "yaxis" + String(l[k].anchor || "y").slice(1);
        l[k] = Object.assign({}, l[k], { domain: [0, 1] });
        l[yk] = Object.assign({}, l[yk], { domain: [Math.max(0, 1 - (i + 1) / n + gap), Math.min(1, 1 - i / n)] });
      });
      l.height = Math.round(h0 * n * 0.7);
      h0 = l.height;
    }
    // horizontal bars whose category names take most of a narrow chart: names wrap into lines
    if (m.l > 0.38 * w && l.yaxis && !l.yaxis.tickvals) {
      var cats = [];
      fig.data.forEach(function (t) {
        if (t.orientation === "h" && (t.yaxis || "y") === "y" && Array.isArray(t.y))
          t.y.forEach(function (c) { if (typeof c === "string" && cats.indexOf(c) < 0) cats.push(c); });
      });
      if (cats.length) {
        var tick = (l.yaxis.tickfont && l.yaxis.tickfont.size) || base, room = 0.36 * w, lines;
        for (;;) {   // at most two lines a name where half the chart allows it
          lines = cats.map(function (c) { return wrap(c, tick, room); });
          if (room >= 0.5 * w || Math.max.apply(null, lines.map(function (ls) { return ls.length; })) <= 2) break;
          room += 0.04 * w;
        }
        var widest = Math.max.apply(null, lines.map(function (ls) { return Math.max.apply(null, ls.map(function (x) { return textWidth(x, tick); })); }));
        var rows = Math.max.apply(null, lines.map(function (ls) { return ls.length; })) * cats.length;
        l.yaxis = Object.assign({}, l.yaxis, { tickmode: "array", tickvals: cats, ticktext: lines.map(function (ls) { return ls.join("<br>"); }) });
        m.l = Math.ceil(widest + 12);
        var need = Math.ceil(rows * tick * 1.25 + cats.length * 6);   // each bar's slot holds its name
        if (need > h0 - m.t - m.b) l.height = h0 + need - (h0 - m.t - m.b);
      }
    }
    // a trace's own text (bar or point labels) wider than the plot: lines at its separators
    var plotW = w - m.l - m.r;
    var wrapText = function (t) {
      if (!t || !t.text) return t;
      var size = (t.textfont && t.textfont.size) || base, texts = Array.isArray(t.text) ? t.text : [t.text], changed = false;
      var out = texts.map(function (x) {
        if (typeof x !== "string" || /<br>/i.test(x) || textWidth(x, size) <= plotW * 0.9) return x;
        changed = true;
        return wrap(x, size, plotW * 0.9).join("<br>");
      });
      return changed ? Object.assign({}, t, { text: Array.isArray(t.text) ? out : out[0] }) : t;
    };
    fig.data = fig.data.map(wrapText);
    if (w < 600) fig.data = fig.data.map(function (t) {   // a point's label at the plot's edge is not cut by it
      return t.type === "scatter" && /text/.test(t.mode || "") && t.cliponaxis === undefined ? Object.assign({}, t, { cliponaxis: false }) : t;
    });
    if (fig.frames) fig.frames = fig.frames.map(function (fr) { return fr.data ? Object.assign({}, fr, { data: fr.data.map(wrapText) }) : fr; });
    // ▶/❚❚ under the x axis: below its title where the title would reach them
    var menus = l.updatemenus, ax = null, title = "";
    Object.keys(l).forEach(function (k) {   // the x axis along the plot's foot (subplots: the lowest one's)
      var a = l[k], t = a && a.title && (a.title.text || (typeof a.title === "string" ? a.title : ""));
      if (!/^xaxis\d*$/.test(k) || !t) return;
      var y = l["yaxis" + String(a.anchor || "y").slice(1)], d0 = y && y.domain ? y.domain[0] : 0;
      if (d0 < 0.05) { ax = a; title = t; }
    });
    if (menus && menus.length && title) {
      var tsize = (ax.title.font && ax.title.font.size) || Math.round(1.2 * base);
      var tlines = String(title).split(/<br>/i), tw = Math.max.apply(null, tlines.map(function (x) { return textWidth(x, tsize); }));
      var dom = ax.domain || [0, 1], left = m.l + plotW * (dom[0] + dom[1]) / 2 - tw / 2, btn = 0;
      (menus[0].buttons || []).forEach(function (b) { btn += textWidth(b.label, base) + 24; });
      if (left < m.l + btn + 12) {
        var plotH = (l.height || h0) - m.t - m.b, below = -(menus[0].y || 0) * plotH;
        // the title's top as Plotly draws it (measured: 43 px under the plot with 13 px tick labels, 27 without)
        var top = ax.showticklabels === false ? 27 : ((ax.tickfont && ax.tickfont.size) || base) * 1.3 + 26;
        var needTop = Math.ceil(top + tlines.length * tsize * 1.3 + 8 - below);
        var pad = (menus[0].pad && menus[0].pad.t) || 0, extra = Math.max(0, needTop - pad);
        if (extra) {
          l.updatemenus = menus.map(function (u) { return Object.assign({}, u, { pad: Object.assign({}, u.pad, { t: ((u.pad && u.pad.t) || 0) + extra }) }); });
          if (l.sliders) l.sliders = l.sliders.map(function (s) { return Object.assign({}, s, { pad: Object.assign({}, s.pad, { t: ((s.pad && s.pad.t) || 0) + extra }) }); });
          m.b += extra;
          if (!document.body.classList.contains("present")) l.height = (l.height || h0) + extra;
        }
      }
    }
    // what an earlier draw of this chart measured
    if (fx.m.l) m.l += fx.m.l;
    if (fx.m.r) m.r += fx.m.r;
    if (fx.m.t) m.t += fx.m.t;
    if (fx.m.b) m.b += fx.m.b;
    Object.keys(fx.thin).forEach(function (k) { if (l[k]) l[k] = thinned(l[k], fx.thin[k]); });
    Object.keys(fx.standoff).forEach(function (k) { if (l[k]) l[k] = Object.assign({}, l[k], { ticklabelstandoff: fx.standoff[k] }); });
    Object.keys(fx.tsize).forEach(function (i) {
      var t = fig.data[i];
      if (t) fig.data[i] = Object.assign({}, t, { textfont: Object.assign({}, t.textfont, { size: fx.tsize[i] }) });
    });
    Object.keys(fx.twrap).forEach(function (i) { if (fig.data[i]) fig.data[i] = wrapped(fig.data[i], fx.twrap[i]); });
    if (l.annotations) l.annotations = l.annotations.map(function (a, i) {
      return fx.shift[i] ? Object.assign({}, a, { yshift: (a.yshift || 0) + fx.shift[i] }) : a;
    });
  }
  // a trace whose point labels overlap at the smallest type: each label in lines of at most room px
  function wrapped(t, room) {
    if (!Array.isArray(t.text)) return t;
    var size = (t.textfont && t.textfont.size) || 12;
    return Object.assign({}, t, { text: t.text.map(function (x) {
      return typeof x === "string" && !/<br>/i.test(x) && textWidth(x, size) > room ? wrap(x, size, room).join("<br>") : x;
    }) });
  }
  // every k-th tick label of an axis (explicit labels blanked between; automatic ones fewer)
  function thinned(ax, k) {
    if (ax.ticktext && ax.tickvals) {
      return Object.assign({}, ax, { tickangle: 0, ticktext: ax.ticktext.map(function (t, i) { return i % k ? "" : t; }) });
    }
    return Object.assign({}, ax, { tickangle: 0, nticks: Math.max(2, Math.floor(((ax.nticks || 0) || 8) / k)) });
  }
  function boxes(el, sel) {
    return Array.prototype.map.call(el.querySelectorAll(sel), function (t) { return { el: t, r: t.getBoundingClientRect() }; })
      .filter(function (b) { return b.r.width > 0 && b.el.textContent.trim(); });
  }
  function meet(a, b) {
    return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  }
  function traceIndex(t) {
    var g = t.closest("g.trace"), d = g && g.__data__;
    return d && d[0] && d[0].trace ? d[0].trace.index : null;
  }
  // a margin grows by px, remembered for later draws; never past a third of the chart in all (a label that
  // keeps moving out during a drag cannot squeeze the plot away)
  function grow(el, fx, upd, side, px) {
    var lay = el._fullLayout, add = Math.ceil(px), cap = (side === "l" || side === "r" ? lay.width : lay.height) / 3;
    if ((fx.m[side] || 0) + add > cap) return;
    fx.m[side] = (fx.m[side] || 0) + add;
    upd["margin." + side] = lay.margin[side] + add;
  }
  function after(el) {
    var svgEl = el.querySelector(".main-svg");
    if (!svgEl || !el._fullLayout) return null;
    var svg = svgEl.getBoundingClientRect(), fx = fixOf(el), upd = {}, lay = el._fullLayout;
    // trace texts past a side
    var over = { l: 0, r: 0 };
    var texts = boxes(el, ".bartext, .textpoint text");
    texts.forEach(function (b) {
      over.r = Math.max(over.r, b.r.right - svg.right);
      over.l = Math.max(over.l, svg.left - b.r.left);
    });
    ["l", "r"].forEach(function (s) {
      if (over[s] > 1) grow(el, fx, upd, s, over[s] + 4);
    });
    // tick labels of one axis that overlap
    el.querySelectorAll(".xaxislayer-above, .yaxislayer-above").forEach(function (layer) {
      var ticks = boxes(layer, "text"), name = null;
      for (var i = 0; i + 1 < ticks.length && !name; i++) for (var j = i + 1; j < ticks.length; j++) if (meet(ticks[i].r, ticks[j].r)) {
        var cls = ticks[i].el.parentNode.getAttribute("class") || "";   // "xtick", "x2tick", "ytick" …
        var m = /^([xy])(\d*)tick/.exec(cls);
        if (m) name = m[1] + "axis" + m[2];
        break;
      }
      if (name && lay[name] && (fx.thin[name] || 1) < 8) {
        fx.thin[name] = (fx.thin[name] || 1) * 2;
        var ax = thinned(el.layout[name] || {}, fx.thin[name]);
        upd[name + ".tickangle"] = 0;
        if (ax.ticktext) upd[name + ".ticktext"] = ax.ticktext; else upd[name + ".nticks"] = ax.nticks;
      }
    });
    // an x axis's first tick label on the y axis's last (the corner of 0 ms and 0): the x labels step down
    var xt = boxes(el, ".xaxislayer-above text"), yt = boxes(el, ".yaxislayer-above text"), down = 0, xname = null;
    xt.forEach(function (a) { yt.forEach(function (b) {
      if (!meet(a.r, b.r)) return;
      down = Math.max(down, b.r.bottom - a.r.top);
      var m = /^(x\d*)tick/.exec(a.el.parentNode.getAttribute("class") || "");
      if (m) xname = m[1].replace("x", "xaxis");
    }); });
    if (xname && down > 1 && lay[xname]) {
      fx.standoff[xname] = (fx.standoff[xname] || 0) + Math.ceil(down + 2);
      upd[xname + ".ticklabelstandoff"] = fx.standoff[xname];
    }
    // a y axis title on its tick labels (a margin set for shorter labels): the left margin grows
    var ytitle = el.querySelector(".g-ytitle text"), yticks = boxes(el, ".yaxislayer-above .ytick text");
    if (ytitle && !upd["margin.l"]) {
      var tr = ytitle.getBoundingClientRect(), wide = 0;
      yticks.forEach(function (b) { if (meet(tr, b.r)) wide = Math.max(wide, tr.right - b.r.left); });
      if (wide > 1) grow(el, fx, upd, "l", wide + 4);
    }
    // texts of one trace that overlap: smaller type (not below 9 px)
    var restyle = null;
    for (var i = 0; i < texts.length && !restyle; i++) for (var j = i + 1; j < texts.length; j++) {
      var ti = traceIndex(texts[i].el);
      if (ti === null || ti !== traceIndex(texts[j].el) || !meet(texts[i].r, texts[j].r)) continue;
      var size = parseFloat(getComputedStyle(texts[i].el).fontSize) || 12;
      if (size > 10) { fx.tsize[ti] = Math.max(10, Math.floor(size * 0.8)); restyle = ti; }
      else if (!fx.twrap[ti]) {   // then each label in lines as wide as the gap between two points' centres
        var gap = Math.abs((texts[j].r.left + texts[j].r.right) - (texts[i].r.left + texts[i].r.right)) / 2;
        fx.twrap[ti] = Math.max(2 * size, gap - 4);
        restyle = ti;
      }
      break;
    }
    // a note over the top or the foot once the fixes above moved things (app.js's own check ran before)
    var ov = { t: 0, b: 0 };
    boxes(el, ".annotation-text").forEach(function (b) { ov.t = Math.max(ov.t, svg.top - b.r.top); ov.b = Math.max(ov.b, b.r.bottom - svg.bottom); });
    ["t", "b"].forEach(function (k) {
      if (ov[k] > 1 && upd["margin." + k] === undefined) grow(el, fx, upd, k, ov[k] + 2);
    });
    // two notes that overlap: the later one moves up by the overlap
    var notes = Array.prototype.map.call(el.querySelectorAll("g.annotation"), function (g) {
      var t = g.querySelector(".annotation-text");
      return { i: +g.getAttribute("data-index"), r: t && t.getBoundingClientRect() };
    }).filter(function (n) { return n.r && n.r.width; });
    notes.forEach(function (a, x) {
      notes.slice(x + 1).forEach(function (b) {
        if (!meet(a.r, b.r) || upd["annotations[" + b.i + "].yshift"] !== undefined) return;
        var dy = Math.ceil(Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top) + 2);
        var up = b.r.top <= a.r.top ? dy : -dy;   // away from the other
        fx.shift[b.i] = (fx.shift[b.i] || 0) + up;
        upd["annotations[" + b.i + "].yshift"] = ((el.layout.annotations[b.i] || {}).yshift || 0) + up;
      });
    });
    var steps = [];
    if (restyle !== null) steps.push(function () {
      var t = Object.assign({}, el.data[restyle], { textfont: Object.assign({}, el.data[restyle].textfont, { size: fx.tsize[restyle] }) });
      if (fx.twrap[restyle]) t = wrapped(t, fx.twrap[restyle]);
      return window.Plotly.restyle(el, { "textfont.size": t.textfont.size, text: [t.text] }, [restyle]);
    });
    if (Object.keys(upd).length) steps.push(function () { return window.Plotly.relayout(el, upd); });
    if (!steps.length) return null;
    return steps.reduce(function (p, f) { return p.then(f); }, Promise.resolve());
  }
  // measure and fix until nothing sticks out (at most three relayouts)
  function settle(el) {
    var rounds = 0;
    var again = function () { var p = after(el); return p && ++rounds < 3 ? p.then(again) : p; };
    return again();
  }
  // a chart drawn before this file arrived: drawn again from what it shows, with the fixes
  function refit(el) {
    if (!el.data || !el.layout || !window.Plotly) return null;
    var fr = el._transitionData && el._transitionData._frames;
    var fig = { data: el.data.slice(), layout: Object.assign({}, el.layout) };
    if (fr && fr.length) fig.frames = fr;
    before(el, fig);
    return window.Plotly.react(el, fig).then(function () { return settle(el); });
  }
  window.readingCharts = { before: before, settle: settle, refit: refit };

})();
