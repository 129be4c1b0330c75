"""The one Jinja environment (autoescape on) and what every template may use: static asset URLs,
rich text (``$tex$`` maths), Markdown, glossary marks, JSON inside a ``<script>`` block."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import orjson
from jinja2 import Environment, FileSystemLoader, pass_context, pass_eval_context, select_autoescape
from markupsafe import Markup

from .. import format as fmt
from ..cards import REGISTRY, controls_of
from ..chapters import CHAPTERS, section_of
from ..chapters.glossary import glossary_sep, terms_in
from ..charts import ROLE_LABELS
from ..state import query_string, wire
from ..text import markdown, rich
from ..text.glossary import Marker, Scope, definitions_html
from ..words import DEFAULT_LANG, HTML_LANG, Catalogue, Text, catalogue, current_lang, editions, localize

ROOT = Path(__file__).resolve().parent.parent.parent
STATIC = ROOT / "static"


@cache
def _fingerprint(path: str) -> str:
    p = STATIC / path
    try:
        return hashlib.sha256(p.read_bytes()).hexdigest()[:12]
    except OSError:
        return "0"


def static_url(path: str) -> str:
    """A static asset's URL, fingerprinted by its content (served as immutable)."""
    return f"/static/{path}?v={_fingerprint(path)}"


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON (orjson; a traced number is written as the plain number it is)."""
    return orjson.dumps(obj, default=float)


def json_script(obj: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>`` and ``&`` escaped."""
    b = dumps(obj).replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
    return Markup(b.decode())


@cache
def _marker(lang: str) -> Marker:
    return Marker(terms_in(lang), glossary_sep(lang))


def gloss(html: Any, scope: Scope) -> Markup:
    """``html`` with the glossary's terms marked (the first time each appears in ``scope``), in the
    edition served."""
    return _marker(current_lang()).mark(str(html), scope)


@cache
def _definitions(lang: str) -> Markup:
    return definitions_html(terms_in(lang), glossary_sep(lang))


def glossary_definitions() -> Markup:
    """The page's one list of the glossary's definitions (what marked terms describe themselves by)."""
    return _definitions(current_lang())


def card_links(card: Any, params: Any, solutions: bool = True, answers_shown: bool = False) -> dict[str, str]:
    """The card chrome's links in this state: 演示 and 单独打开 carry the canonical query (only what
    differs from the defaults) and the view flags that change how it is shown; JSON the state alone."""
    q = query_string(card, params)
    flags = ([("solutions", "off")] if not solutions else []) + ([("answers", "shown")] if answers_shown else [])
    view = q + "".join(("&" if q or i else "?") + f"{k}={v}" for i, (k, v) in enumerate(flags))
    return {
        "present": f"/present/{card.id}{view}",
        "cards": f"/cards/{card.id}{view}",
        "api": f"/api/cards/{card.id}{q}",
    }


def glossary_scope(prefix: str, anchors: bool = False) -> Scope:
    return Scope(prefix, anchors)


env = Environment(
    loader=FileSystemLoader(str(ROOT / "app" / "templates")),
    autoescape=select_autoescape(["html", "svg", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
    auto_reload=False,  # templates are read once; create_app sets Settings.reload
    cache_size=-1,  # every template kept (a fixed set of files): a plain dict, no LRU bookkeeping per lookup
    finalize=localize,  # every {{ value }} that is a word from a catalogue, in the edition served
)
_jinja_join = env.filters["join"]


@pass_eval_context
def _join_words(eval_ctx: Any, value: Any, d: str = "", attribute: Any = None) -> str:
    """Jinja's ``join``, each word in the edition served (the built-in turns a word into its Chinese)."""
    return _jinja_join(eval_ctx, [localize(v) if isinstance(v, str) else v for v in value], d, attribute)


env.filters["join"] = _join_words
env.globals.update(
    static=static_url,
    rich=rich,
    markdown=markdown,
    CHAPTERS=CHAPTERS,
    REGISTRY=REGISTRY,
    ROLE_LABELS=ROLE_LABELS,
    json_script=json_script,
    fmtnum=fmt.num,
    controls_of=controls_of,
    section_of=section_of,
    getattr_=getattr,
    glossary_scope=glossary_scope,
    card_links=card_links,
    glossary_definitions=glossary_definitions,
)
CHROME = catalogue(ROOT / "app" / "templates" / "chrome")


def t(key: str, **args: Any) -> str:
    """A word of the site chrome (``app/templates/chrome.<lang>.toml``), in the edition served."""
    return CHROME.f(key, **args) if args else CHROME[key]


def edition_templates(name: str) -> list[str]:
    """The template of ``name`` in every edition: one template, its words looked up with
    :func:`word` in the edition served (a diagram has no ``.en.html`` twin)."""
    return [name]


@cache
def template_words(name: str) -> Catalogue:
    """The words of template ``name``: the catalogue beside it (``diagrams/fig-1-1.html`` →
    ``diagrams/fig-1-1.zh.toml`` / ``fig-1-1.en.toml``), the scheme of docs/words.md."""
    return catalogue(ROOT / "app" / "templates" / Path(name).with_suffix(""))


def _said(template: str, key: str) -> str:
    """The word at ``key`` of ``template``'s catalogue in the edition served (the Chinese where that
    edition lacks it, as :meth:`Text.localized` does)."""
    words = template_words(template)
    table = words.table(current_lang())
    return table[key] if key in table else words.table(DEFAULT_LANG)[key]


@pass_context
def word(ctx: Any, key: str, **fields: Any) -> Markup:
    """A word of the template being rendered, in the edition served, as markup: the words stand where
    the template's own text stood (an element's text, an attribute), so they are written as the
    template held them. ``{fields}`` are filled with ``fields``, each printed as ``{{ value }}`` would
    print it (in the edition served, escaped)."""
    text = Markup(_said(ctx.name, key))
    return text.format(**{k: localize(v) for k, v in fields.items()}) if fields else text


@pass_context
def word_str(ctx: Any, key: str) -> str:
    """A word of the template being rendered, in the edition served, as a plain string: for a word
    that was a string literal inside ``{{ … }}`` / ``{% … %}`` (a macro's label, a list of names), escaped
    where it is printed, as the literal was."""
    return _said(ctx.name, key)


LIVE_WORDS = catalogue(ROOT / "app" / "templates" / "live" / "words")


def tl(key: str, **args: Any) -> str:
    """A word of the live class's pages (``app/templates/live/words.<lang>.toml``), in the edition served."""
    return LIVE_WORDS.f(key, **args) if args else LIVE_WORDS[key]


def t_in(lang: str, key: str) -> str:
    """A chrome word in edition ``lang`` whatever the page's (a note addressed to the other edition's reader)."""
    w = CHROME[key]
    return w.localized(lang) if isinstance(w, Text) else w


def jump_label(card: Any) -> str:
    """What the jump box suggests for a card: its first printed label in the edition served, else its id."""
    return str(localize(card.label)).split(" / ")[0] if card.label else card.id


def html_lang() -> str:
    return HTML_LANG[current_lang()]


def ui_words() -> dict[str, str]:
    """The browser scripts' words (chrome keys ``js.…``, without the prefix) in the edition served:
    base.html writes them into one ``<script type="application/json" id="ui-words">`` block."""
    return {k[3:]: str(localize(CHROME[k])) for k in sorted(CHROME.keys()) if k.startswith("js.")}


env.globals.update(
    edition_templates=edition_templates,
    word=word,
    word_str=word_str,
    jump_label=jump_label,
    t=t,
    tl=tl,
    t_in=t_in,
    lang=current_lang,
    html_lang=html_lang,
    ui_words=ui_words,
    editions=editions,
)
env.filters.update(rich=rich, gloss=gloss, num=fmt.num, wire=wire)


def render(name: str, **ctx: Any) -> str:
    """Template ``name`` rendered with ``ctx``."""
    return env.get_template(name).render(**ctx)
