"""Pure functions of the book's formulas, grouped by topic. Base units only (bytes, seconds, FLOPs).
No FastAPI, Plotly or Jinja here."""
