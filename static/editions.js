/* The other edition, suggested, never imposed: when the reader's browser prefers a language this page
   has a twin in (navigator.languages, what Accept-Language says), a note in that language links the twin
   (same path and query); dismissing it is remembered. The page never redirects. */
(function () {
  "use strict";
  var KEY = "aiinfra.edition-note.dismissed";
  function dismissed() { try { return localStorage.getItem(KEY) === "1"; } catch (e) { return false; } }
  function init() {
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
