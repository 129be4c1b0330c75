"""``/docs`` renders offline under the strict CSP: Swagger UI from static/vendor/, started by a
same-origin script, lists one GET operation per registered card and one POST check per card with
questions; nothing loads from outside 127.0.0.1; ``/redoc`` is off."""

from __future__ import annotations

from app import exercises
from app.cards import REGISTRY

RECORD = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def test_docs_lists_every_card_operation(page, server):
    page.add_init_script(RECORD)
    page.goto(server + "/docs")
    page.wait_for_selector(".opblock", timeout=30000)
    # Swagger UI draws a large spec's operations as the page scrolls (a virtualised list): read them
    # screen by screen down to the end
    paths: set[tuple[str, str]] = set()
    for _ in range(400):
        paths |= {
            tuple(p)
            for p in page.evaluate("""() => Array.from(document.querySelectorAll('.opblock')).map(b =>
                [b.querySelector('.opblock-summary-method').textContent.trim(),
                 b.querySelector('.opblock-summary-path').getAttribute('data-path')])""")
        }
        if page.evaluate("() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2"):
            break
        page.evaluate("() => window.scrollBy(0, window.innerHeight * 0.8)")
        page.wait_for_timeout(30)
    gets = {p for m, p in paths if m == "GET" and p.startswith("/api/cards/")}
    checks = {p for m, p in paths if m == "POST" and p.endswith("/check")}
    assert gets == {f"/api/cards/{cid}" for cid in REGISTRY}
    assert checks == {f"/api/cards/{cid}/check" for cid, c in REGISTRY.items() if exercises.questions_of(c)}
    assert "ex-3-1" in {p.split("/")[3] for p in checks}
    assert page.evaluate("() => window.__csp") == []
    page.watch.assert_clean()


def test_redoc_is_off(page, server):
    assert page.request.get(server + "/redoc").status == 404
