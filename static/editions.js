/* The language switch keeps path, query and anchor. The other edition, suggested, never imposed: when the reader's browser prefers a language this page
   has a twin in (navigator.languages, what Accept-Language says), a note in that language links the twin
   (same path and query); dismissing it is remembered. The page never redirects. */
(function () {
  "use strict";
  var KEY = "aiinfra.edition-note.dismissed";
  function dismissed() { try { return localStorage.getItem(KEY) === "1"; } catch (e) { return false; } }
  function carryState() {       // the switch and the note keep this page's query and anchor: a cached page
    // may have been rendered for another address of it, and the server never sees the anchor
    document.querySelectorAll('nav.editions a[hreflang], .edition-note a[hreflang]').forEach(function (a) {
      var path = a.getAttribute("href").split(/[?#]/)[0];
      var here = function () { a.setAttribute("href", path + location.search + location.hash); };
      here();
      a.addEventListener("click", here);
    });
  }
  function init() {
    carryState();
    if (dismissed()) return;
    var here = (document.documentElement.lang || "").slice(0, 2);
    var prefs = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""])
      .map(function (l) { return String(l).slice(0, 2).toLowerCase(); });
    for (var i = 0; i < prefs.length; i++) {
      if (prefs[i] === here) return;              // the reader's first choice is the page's own language
      var note = document.querySelector('.edition-note[data-edition="' + prefs[i] + '"]');
      if (note) {
        note.hidden = false;
        var close = note.querySelector("button");
        if (close) close.addEventListener("click", function () {
          note.hidden = true;
          try { localStorage.setItem(KEY, "1"); } catch (e) { /* private mode: shown again next time */ }
        });
        return;
      }
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
