#!/usr/bin/env bash
# Copy the pinned front-end libraries from node_modules/ into static/vendor/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p static/vendor
cp node_modules/htmx.org/dist/htmx.min.js static/vendor/htmx.min.js
# Plotly's only built-in remote default is the topojson URL (geo maps, unused here): point it at our
# own static folder so the served bundle names no outside host at all.
sed 's#https://cdn.plot.ly/un/#/static/vendor/#' node_modules/plotly.js-basic-dist-min/plotly-basic.min.js > static/vendor/plotly-basic.min.js
# plotly.js-locales ships CommonJS modules; wrap zh-cn so it registers itself on the global Plotly.
{
  echo "(function(){var module={exports:{}};"
  cat node_modules/plotly.js-locales/zh-cn.js
  echo ";if(window.Plotly){window.Plotly.register(module.exports);}})();"
} > static/vendor/plotly-locale-zh-cn.js
# Swagger UI for /docs (started by static/docs.js; no CDN, no inline script)
mkdir -p static/vendor/swagger-ui
cp node_modules/swagger-ui-dist/swagger-ui-bundle.js node_modules/swagger-ui-dist/swagger-ui.css static/vendor/swagger-ui/
