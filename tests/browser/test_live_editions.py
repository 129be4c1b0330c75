"""Issue 37 in a browser: a projector opens a class in Chinese; one phone follows it at
/en/live/{code}, another at /live/{code}. The instructor moves a slider and asks a question: the
English phone shows the card and the question in English (no visible Chinese outside lang="zh-CN"
elements), the Chinese phone in Chinese, both with the same numbers; after 公布 each shows its own
verdict in its own language."""

from __future__ import annotations

import re

from .test_live import BATCH, _drawn, _open_control, _set_batch, _wait_value, live_server  # noqa: F401

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")

# the visible text of the page outside elements marked Chinese (lang="zh-CN": the book's own labels)
VISIBLE_NOT_ZH = """() => {
  const out = [], where = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || el.closest('[lang^="zh"], script, style, [hidden], template')) continue;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (!r.width || !r.height || cs.visibility === 'hidden' || el.closest('.sr-only')) continue;
    out.push(n.textContent.trim() + (window.WHERE ? ' @' + el.className + '<' + (el.parentElement && el.parentElement.className) : ''));
  }
  return out;
}"""


def _phone(browser, url, locale):
    ctx = browser.new_context(viewport={"width": 420, "height": 900}, service_workers="block", locale=locale)
    pg = ctx.new_page()
    pg.logs = []
    pg.on("console", lambda m: pg.logs.append(m.text))
    pg.on("pageerror", lambda e: pg.logs.append(str(e)))
    pg.on("response", lambda r: pg.logs.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    pg.goto(url)
    _drawn(pg)
    return ctx, pg


def test_each_phone_follows_the_class_in_its_own_language(browser, live_server):  # noqa: F811
    base = live_server["base"]
    contexts = []
    try:
        teacher = _open_control(browser, base, contexts)
        code = teacher.url.split("/live/")[1].split("/")[0]
        ctx_en, en = _phone(browser, f"{base}/en/live/{code}", "en-US")
        ctx_zh, zh = _phone(browser, f"{base}/live/{code}", "zh-CN")
        contexts += [ctx_en, ctx_zh]
        try:
            en.wait_for_function(
                "() => document.querySelector('.live-status').textContent === 'Connected'", timeout=8000
            )
        except Exception:
            raise AssertionError(
                repr(en.logs)
                + en.inner_text(".live-status")
                + " | "
                + en.evaluate(
                    "document.getElementById('live-words') ? document.getElementById('live-words').textContent.slice(0, 200) : 'none'"
                )
            ) from None
        zh.wait_for_function("() => document.querySelector('.live-status').textContent === '已连接'")
        assert en.inner_text(".live-mode") == "Explore freely" and zh.inner_text(".live-mode") == "自由探索"

        _set_batch(teacher, 16)
        for s in (en, zh):
            _wait_value(s, BATCH, "16")
        # the English phone's stage is the English card (its fragment fetched under /en/)
        en.wait_for_function("() => document.documentElement.lang === 'en'")
        teacher.wait_for_function(
            "() => [...document.querySelectorAll('#live-ask-key option')].some(o => o.value === 'b_star')"
        )
        teacher.select_option("#live-ask-key", "b_star")
        teacher.click(".live-ask-go")
        prompts = {}
        for name, s in (("en", en), ("zh", zh)):
            s.wait_for_selector(".live-question:not([hidden])")
            s.wait_for_function("() => document.querySelector('#live-stage .live-card').dataset.hide === 'b_star'")
            prompts[name] = s.inner_text(".live-q-prompt")
        assert "B*" in prompts["zh"] and "16 请求 时" in prompts["zh"]
        assert "16" in prompts["en"] and not CJK.search(prompts["en"]), prompts["en"]
        assert NUMBER.findall(prompts["en"]) == NUMBER.findall(prompts["zh"])
        en.evaluate("window.WHERE = 1")  # say where any Chinese is
        chinese = [t for t in en.evaluate(VISIBLE_NOT_ZH) if CJK.search(t)]
        assert not chinese, chinese[:10]
        assert zh.evaluate("document.documentElement.lang") == "zh-CN" and "课堂提问" in zh.inner_text(".live-question")

        for s, value, said in ((en, "148", "Submitted"), (zh, "10", "已提交")):
            s.fill("#live-answer-value", value)
            s.click(".live-answer button[type=submit]")
            s.wait_for_function(f"() => document.querySelector('.live-q-msg').textContent.startsWith('{said}')")
        teacher.wait_for_function("() => document.querySelector('.live-answered').textContent === '2'", timeout=10000)
        teacher.click(".live-reveal")
        en.wait_for_function(
            "() => document.querySelector('.live-q-msg').textContent.startsWith('Your answer: Correct')", timeout=10000
        )
        zh.wait_for_function(
            "() => document.querySelector('.live-q-msg').textContent.startsWith('你的答案:不对')", timeout=10000
        )
        en.wait_for_selector(".live-q-results:not([hidden]) .live-res-text")
        zh.wait_for_selector(".live-q-results:not([hidden]) .live-res-text")
        res_en, res_zh = en.inner_text(".live-res-text"), zh.inner_text(".live-res-text")
        assert res_en.startswith("True value 147.7") and "2 answered" in res_en, res_en
        assert res_zh.startswith("真值 147.7") and "2 人作答" in res_zh, res_zh
        chinese = [t for t in en.evaluate(VISIBLE_NOT_ZH) if CJK.search(t)]
        assert not chinese, chinese[:10]
        # the projector kept its own language throughout
        assert "真值 147.7" in teacher.inner_text(".live-res-text")
    finally:
        for c in contexts:
            c.close()
