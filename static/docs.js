// Starts Swagger UI on /docs (a same-origin script: the CSP allows no inline scripts). The spec URL
// comes from the page; no validator badge (it would call validator.swagger.io).
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var el = document.getElementById("swagger-ui");
    window.ui = window.SwaggerUIBundle({
      url: el.getAttribute("data-spec"),
      dom_id: "#swagger-ui",
      validatorUrl: null,
      deepLinking: true,
      docExpansion: "list",
      defaultModelsExpandDepth: 0,
      tryItOutEnabled: false
    });
  });
})();
