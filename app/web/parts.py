"""The parts of a card's result that every slider drag redraws (tiles, figures, tables, links,
questions, notes), built as plain strings of HTML that the fragment joins: a Jinja macro per tile
or question cost more than the rest of the fragment. A card's diagrams stay templates
(``_parts.html``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

from .. import format as fmt
from ..cards import Card, Figure, Stat, View
from ..text import markdown, rich


@lru_cache(maxsize=16_384, typed=True)
def esc(text: str) -> str:
    """``text`` HTML-escaped (markupsafe's rules; a Markup stays as it is), cached: keys, ids, units,
    colours and many formatted numbers recur from one state to the next."""
    return str(escape(text))


_SPECIAL = re.compile("[<>&\"']")


def esc_text(text: str) -> str:
    """``text`` HTML-escaped as :func:`esc` does, uncached: for text that seldom recurs (a state's
    formatted numbers), which mostly has nothing to escape."""
    if _SPECIAL.search(text):
        return str(escape(text))
    return text if type(text) is str else str(text)  # a Markup as plain text, as esc gives it


def _num_value(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _tile(s: Stat, text: str) -> str:
    """One tile: its shell (everything but the value's text) depends only on the declaration and the
    kind of value, so it is built once per shape and the value is set into it."""
    head, tail = _tile_shell(
        s.key, s.label, s.unit, s.book, s.emphasis, s.illustrative, _num_value(s.value), s.text is None
    )
    return head + esc_text(text) + tail


@lru_cache(maxsize=4096)
def _tile_shell(
    key: str, label: str, unit: str, book: str, emphasis: bool, illustrative: bool, numeric: bool, text_from_value: bool
) -> tuple[str, str]:
    """The tile's HTML before and after the value's text (``text_from_value``: the Stat has no
    preformatted text, so its unit shows beside the number)."""
    cls = "stat" + (" em" if emphasis else "") + (" ill" if illustrative else "")
    k = esc(key)
    opening, closing = (
        (
            f'<button type="button" class="v why" data-key="{k}" aria-expanded="false" title="看它怎么算出来的">',
            "</button>",
        )
        if numeric
        else ('<span class="v">', "</span>")
    )
    u = f'<span class="u">{esc(unit)}</span>' if unit and (text_from_value or numeric) else ""
    b = f' <span class="book" title="书中写法">{esc(book)}</span>' if book else ""
    ill = ' <span class="badge-ill">示意</span>' if illustrative else ""
    return (
        f'  <div class="{cls}" data-key="{k}">\n    <dt>{rich(label)}</dt>\n    <dd>{opening}',
        f"{closing}{u}{b}{ill}</dd>\n  </div>\n",
    )


def stats_html(card: Card, tiles: list[Stat], qs: str, stat_text: Callable[[Stat], str]) -> str:
    """The tiles, then the (hidden) panel their derivations open in."""
    if not tiles:
        return ""
    cid = esc(card.id)
    body = "".join(_tile(s, stat_text(s)) for s in tiles)
    return (
        f'<dl class="stats">\n{body}</dl>\n<div class="why-panel" id="why-{cid}" hidden tabindex="-1" role="region" '
        f'aria-label="推导" data-explain="/cards/{cid}/explain" data-qs="{esc(qs)}"></div>\n'
    )


def _legend(items: list[dict[str, str]]) -> str:
    return _legend_html(tuple((it["name"], it["color"], it["kind"], it["dash"]) for it in items)) if items else ""


@lru_cache(maxsize=4096)
def _legend_html(items: tuple[tuple[str, str, str, str], ...]) -> str:
    """A legend's HTML from its (name, colour, kind, dash) items, made once: a legend changes with few
    states (a trace name quoting B, say)."""
    lis = "".join(
        f'<li><span class="sw sw-{esc(kind)} dash-{esc(dash)}" style="--c: {esc(color)}"></span>{rich(name)}</li>'
        for name, color, kind, dash in items
    )
    return f'<ul class="legend" aria-label="图例">{lis}</ul>'


def figures_html(
    card: Card,
    view: View,
    qs: str,
    tpl: Callable[[str], Markup],
    *,
    legend_items: Callable[[Figure], list],
    wire: Callable[..., dict],
    json_script: Callable[[Any], Markup],
) -> str:
    """Each figure: caption, HTML legend, the plot div and its data, the summary, the data table."""
    if not view.figures:
        return ""
    out = ['<div class="figs">\n']
    cid, q = esc(card.id), esc(qs)
    for i, f in enumerate(view.figures):
        pid = f"plot-{cid}-{i}"
        ill = ' <span class="badge-ill">示意</span>' if f.illustrative else ""
        cap = f"<figcaption>{tpl(f.title)}{ill}</figcaption>" if f.title else ""
        show = f.fig.get("layout", {}).get("showlegend") is not False
        legend = legend_items(f) if show else []
        height = f.fig.get("layout", {}).get("height") or f.height
        desc = f' aria-describedby="{pid}-sum"' if f.summary else ""
        summary = f'<p class="fig-summary" id="{pid}-sum">{tpl(f.summary)}</p>' if f.summary else ""
        out.append(
            f'  <figure class="fig{" animated" if f.animated else ""}" data-idx="{i}">\n    {cap}\n'
            f"    {_legend(legend)}\n"
            f'    <div class="plot" id="{pid}" hx-preserve="true"{desc} style="min-height: {height}px"></div>\n'
            f'    <script type="application/json" class="figdata" data-plot="{pid}">{json_script(wire(f, legend))}</script>\n'
            f"    {summary}\n"
            f'    <details class="fig-table">\n      <summary>数据表</summary>\n'
            f'      <div class="fig-table-body" hx-get="/cards/{cid}/figure/{i}.html{q}" hx-trigger="toggle from:closest details once" '
            f'hx-swap="innerHTML">载入中…</div>\n'
            f'      <a class="csv" href="/cards/{cid}/figure/{i}.csv{q}" download>下载 CSV</a>\n    </details>\n  </figure>\n'
        )
    out.append("</div>\n")
    return "".join(out)


def tables_html(card: Card, view: View, tpl: Callable[[str], Markup], cell_text: Callable) -> str:
    """Each table: caption, header, rows (numbers in the column's declared format; 示意 cells badged;
    a row may link to a card), its note."""
    out = []
    for t in view.tables:
        rows = []
        for ri, row in enumerate(t.rows):
            cells = []
            for ci, c in enumerate(row):
                ill = (ri, ci) in t.illustrative_cells
                if ci == 0 and ri in t.links:
                    inner = f'<a href="/cards/{esc(t.links[ri])}">{rich(str(c))}</a>'
                elif _num_value(c):
                    inner = str(rich(cell_text(card, t, ci, c)))
                else:
                    inner = str(tpl(str(c)))
                badge = ' <span class="badge-ill">示意</span>' if ill else ""
                cells.append(f"<td{' class=' + chr(34) + 'ill' + chr(34) if ill else ''}>{inner}{badge}</td>")
            rows.append(f"    <tr>{''.join(cells)}</tr>\n")
        caption = f"  <caption>{rich(t.title)}</caption>\n" if t.title else ""
        head = "".join(f'<th scope="col">{rich(c)}</th>' for c in t.columns)
        note = f'<p class="table-note">{rich(t.note)}</p>\n' if t.note else ""
        out.append(
            f'<div class="table-wrap">\n<table class="data">\n{caption}  <thead><tr>{head}</tr></thead>\n'
            f"  <tbody>\n{''.join(rows)}  </tbody>\n</table>\n{note}</div>\n"
        )
    return "".join(out)


def links_html(view: View) -> str:
    if not view.links:
        return ""
    title = esc(view.links_title)
    items = "".join(f'<li><a href="{esc(link.href)}">{rich(link.text)}</a></li>' for link in view.links)
    return f'<nav class="try-links" aria-label="{title}">\n  <strong>{title}:</strong>\n  <ul>{items}</ul>\n</nav>\n'


def notes_html(card: Card, view: View, tpl: Callable[..., Markup], scope: Any) -> str:
    """The notes, glossary terms marked the first time they appear in them."""
    if not view.notes:
        return ""
    items = "".join(
        f'<li class="note-{esc(n.kind)}">{"<span class=" + chr(34) + "badge-ill" + chr(34) + ">示意</span> " if n.kind == "illustrative" else ""}'
        f"{tpl(n.text, scope)}</li>"
        for n in view.notes
    )
    return f'<ul class="notes">\n{items}\n</ul>\n'


def _answer_form(q: Any, qid: str) -> str:
    """The answer form of a numeric, bool or choice question (an open question has none)."""
    key = esc(q.key)
    tail = (
        '      <button type="submit">检查</button>\n      <output class="verdict" aria-live="polite"></output>\n'
        "    </form>\n"
    )
    if q.kind == "numeric":
        unit = ""
        if q.units:
            options = "".join(f'<option value="{esc(u)}">{esc(u)}</option>' for u in q.units)
            unit = (
                f'      <label for="{qid}-u" class="sr-only">单位</label>\n      <select id="{qid}-u" name="unit">'
                f'<option value="{esc(q.unit)}">{esc(q.unit)}</option>{options}</select>\n'
            )
        elif q.unit:
            unit = f'<span class="unit">{esc(q.unit)}</span>'
        return (
            f'    <form class="answer" data-key="{key}">\n      <label for="{qid}-a">你的答案</label>\n'
            f'      <input id="{qid}-a" name="answer" type="text" inputmode="decimal" autocomplete="off" size="10">\n'
            f"{unit}{tail}"
        )
    if q.kind in ("bool", "choice"):
        opts = q.options or {"true": "是", "false": "否"}
        radios = "".join(
            f'<label><input type="radio" name="answer" value="{esc(v)}"> {esc(text)}</label> '
            for v, text in opts.items()
        )
        return (
            f'    <form class="answer" data-key="{key}">\n      <fieldset><legend class="sr-only">你的答案</legend>\n'
            f"{radios}      </fieldset>\n{tail}"
        )
    return ""


def answer_text(q: Any, value: Any) -> str:
    """A question's expected answer as the solution states it: 是/否, the option's words, or the
    number with its unit."""
    if q.kind in ("bool", "choice"):
        if isinstance(value, bool):
            return "是" if value else "否"
        return str(q.options.get(str(value), value))
    return fmt.with_unit(value, q.unit, sig=4)


def questions_html(
    card: Card, view: View, qs: str, solutions: bool, tpl: Callable[[str], Markup], fill_text: Callable[[str], str]
) -> str:
    """The questions: prompt, answer form, hint and (unless a link turned them off) the worked
    solution, whose derivation loads when opened."""
    if not view.questions:
        return ""
    cid, q_s = esc(card.id), esc(qs)
    off = ' <span class="muted">(本链接已关闭解答)</span>' if not solutions else ""
    out = [
        f'<section class="questions" data-check="/api/cards/{cid}/check" aria-label="题目">\n<h3>题目{off}</h3>\n<ol>\n'
    ]
    for i, q in enumerate(view.questions, 1):
        qid = esc(f"{card.id}-q{i}")
        out.append(
            f'  <li class="q q-{esc(q.kind)}" id="{qid}" data-key="{esc(q.key)}" data-q="q{i}">\n'
            f'    <p class="prompt">{tpl(q.prompt)} <a class="qlink" href="/cards/{cid}{q_s}#q{i}" '
            f'aria-label="第 {i} 题的链接">#</a></p>\n'
        )
        out.append(_answer_form(q, qid))
        hint = q.hint or (("从这一步开始:" + str(q.solution[0])) if q.solution and len(q.solution) > 1 else "")
        if hint:
            out.append(f'<details class="hint"><summary>提示</summary><p>{tpl(hint)}</p></details>')
        if solutions and q.kind == "open":
            out.append(
                f'      <details class="solution"><summary>查看参考答案</summary><div>{markdown(fill_text(q.answer_text))}'
                "</div></details>\n"
            )
        elif solutions:
            steps = (
                ('<ol class="steps">' + "".join(f"<li>{tpl(st)}</li>" for st in q.solution) + "</ol>")
                if q.solution
                else ""
            )
            out.append(
                f'      <details class="solution"><summary>查看解答</summary>\n{steps}'
                f'        <div class="deriv-solution" data-key="{esc(q.key)}" data-explain="/cards/{cid}/explain" '
                f'data-qs="{q_s}"></div>\n'
                f'        <p class="expected">答案:<strong>{esc(answer_text(q, view.outputs.get(q.key)))}</strong></p>\n'
                "      </details>\n"
            )
        out.append("  </li>\n")
    out.append("</ol>\n</section>\n")
    return "".join(out)
