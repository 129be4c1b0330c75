"""HTTP layer: routes, query parsing, rendering, headers. No math here."""
