"""Presentation, shared by the card routes (``app/web``) and the live class (``app/live``): the Jinja
environment and the renderers of a card's representations. Python builds data; templates hold markup."""

from __future__ import annotations

from .card import (
    HIDDEN_TEXT,
    VIEW_FLAGS,
    Reading,
    card_json,
    explain_html,
    fragment_context,
    fragment_html,
    live_values,
    outputs_json,
    render_fragment,
)
from .env import STATIC, dumps, env, json_script, render, static_url
from .figures import figure_csv, figure_rows, legend_items, wire_figure

__all__ = [
    "HIDDEN_TEXT",
    "STATIC",
    "VIEW_FLAGS",
    "Reading",
    "card_json",
    "dumps",
    "env",
    "explain_html",
    "figure_csv",
    "figure_rows",
    "fragment_context",
    "fragment_html",
    "json_script",
    "legend_items",
    "live_values",
    "outputs_json",
    "render",
    "render_fragment",
    "static_url",
    "wire_figure",
]
