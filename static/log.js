// /tools/log: a chosen file is read into the paste box in the browser (nothing is sent until the form is
// submitted, and then only as the box's text). No inline handlers (strict CSP).
(function () {
  "use strict";
  var input = document.getElementById("log-file");
  var box = document.getElementById("log-text");
  if (!input || !box) return;
  input.addEventListener("change", function () {
    var f = input.files && input.files[0];
    if (!f) return;
    var r = new FileReader();
    r.onload = function () { box.value = String(r.result || ""); };
    r.readAsText(f);
  });
})();
