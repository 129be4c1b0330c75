"""Declarations several sections of a chapter share (parameter sets, the values they resolve to).
Section modules import from here and from the layers below, never from each other."""
