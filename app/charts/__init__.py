"""Plotly figure builders. Figures are plain dicts (no ``go.Figure``: validation costs tens of ms);
one theme gives every figure the book's colour roles."""

from .theme import *  # noqa: F401,F403
