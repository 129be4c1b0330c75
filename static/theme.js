// Applies the remembered light/dark choice before first paint (no inline script: CSP script-src 'self').
(function () {
  try {
    var t = localStorage.getItem("theme");
    if (t === "light" || t === "dark") document.documentElement.setAttribute("data-theme", t);
  } catch (e) { /* storage may be blocked */ }
})();
