"""A reader dragging 例题 1-1's B slider (card eg-1-1, parameter ``batch``) with the mouse in
Chromium, and what the card shows meanwhile: every animation frame, the B that each of its two
charts draws (read from the SVG: the "当前 B" marker's pixel, through the axis) and the text of a
tile that follows B (F ≈ 2BN, ``f_gflop``). A frame shows a state when both charts draw the same B and
the tile reads what the server renders for that B; the states per second of the drag are the distinct
states shown while the mouse button is down, over the time it is down. After mouse-up: the lag until
the card first shows the value the slider ended on, and whether any later frame shows another
(a stale answer drawn over the last one).

The mouse is Chromium's own input (DevTools protocol ``Input.dispatchMouseEvent``), one move as soon
as the page took the last, so a page that draws faster is handed more moves, as with a real mouse.

Used by tests/browser/test_drag.py (the targets) and ``make bench`` (printed). Alone:

    python bench/drag.py URL
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CARD = "eg-1-1"
PARAM = "batch"
TILE = "f_gflop"

# Installed once on the loaded card page: samples the card every animation frame into window.__drag
SAMPLER_JS = """([card, tile]) => {
  const markerB = (el) => {
    // the last scatter trace named "当前 B…" is the current value's marker; its SVG point's pixel,
    // through the axis Plotly drew it on, is the B the chart shows
    if (!el || !el._fullData || !el._fullLayout) return null;
    const i = el._fullData.findIndex(t => (t.name || '').startsWith('当前 B'));
    const g = el.querySelectorAll('.scatterlayer .trace')[i];
    const pt = g && g.querySelector('path.point');
    const m = pt && /translate\\(([-\\d.e]+)/.exec(pt.getAttribute('transform') || '');
    return m ? Math.round(el._fullLayout.xaxis.p2d(parseFloat(m[1]))) : null;
  };
  const d = window.__drag = {frames: [], down: null, up: null, run: true, inputs: 0, requests: 0, asked: []};
  document.addEventListener('pointerdown', () => { d.down = performance.now(); }, true);
  document.addEventListener('pointerup', () => { d.up = performance.now(); }, true);
  // the slider's value changes (one input event each) and the card's requests for them
  document.addEventListener('input', (e) => { if (e.target.matches('input.range')) d.inputs++; }, true);
  document.addEventListener('htmx:beforeRequest', (e) => {
    if (!e.target.closest('#' + card)) return;
    d.requests++;
    d.asked.push(e.detail.pathInfo ? e.detail.pathInfo.finalRequestPath : '');
  });
  const loop = () => {
    const v = document.querySelector('#' + card + ' .stat[data-key="' + tile + '"] .v');
    d.frames.push({t: performance.now(), b0: markerB(document.getElementById('plot-' + card + '-0')),
                   b1: markerB(document.getElementById('plot-' + card + '-1')), tile: v ? v.textContent : null});
    if (d.run) requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}"""

# The tile's text as the server renders it for each B (the page's own origin, one request each)
TILES_JS = """async ([card, param, tile, bs]) => {
  const out = {};
  await Promise.all(bs.map(async (b) => {
    const r = await fetch('/cards/' + card + '/fragment?' + param + '=' + b);
    const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
    const v = doc.querySelector('.stat[data-key="' + tile + '"] .v');
    out[b] = v ? v.textContent : null;
  }));
  return out;
}"""


def drag(page, url: str, seconds: float = 1.0, start: float = 0.25, end: float = 0.85, settle: float = 1.5) -> dict:
    """Open the card on ``page``, drag the B slider from ``start`` to ``end`` of its track over
    ``seconds`` (mouse moves as fast as the page takes them), wait ``settle`` s, and read the frames.

    Returns ``fps`` (distinct states shown per second while the button was down), ``states``,
    ``drag_s``, ``moves`` (mouse moves sent), ``final`` (the slider's value after mouse-up),
    ``lag_ms`` (mouse-up → first frame showing ``final``, None if never), ``final_shown`` (the last
    frame shows it), ``stale_after`` (frames after that first one that show another state) and
    ``torn`` (frames whose charts and tile disagree, of ``frames`` sampled while the button was down),
    ``inputs`` (the slider's value changes), ``requests`` (the card's requests, mouse-up included) and
    ``repeated`` (requests for a state already asked for: 0 when no value is asked for twice).
    """
    page.goto(f"{url}/cards/{CARD}")
    page.wait_for_function(
        f"() => [0, 1].every(k => {{ const el = document.getElementById('plot-{CARD}-' + k); return el && el.data; }})"
    )
    page.evaluate(SAMPLER_JS, [CARD, TILE])
    track = page.locator(f'#{CARD} input.range[data-for="{CARD}-{PARAM}"]')
    track.scroll_into_view_if_needed()
    box = track.bounding_box()
    assert box, "the B slider is not on screen"
    y = box["y"] + box["height"] / 2
    x0, x1 = box["x"] + start * box["width"], box["x"] + end * box["width"]
    # The hand, through Chromium's DevTools protocol (Input.dispatchMouseEvent): each move returns once
    # the page has taken it, and Chromium hands a page at most one move per animation frame, as it
    # does a real mouse's 60–1000 moves a second. Playwright's page.mouse.move costs its own round
    # trips on top: on this 2-core VM it got 9–33 moves a second through even to a bare range input,
    # against 60 from the protocol, so it measured the driver, not the page.
    cdp = page.context.new_cdp_session(page)

    def mouse(kind: str, x: float, buttons: int) -> None:
        cdp.send(
            "Input.dispatchMouseEvent",
            {
                "type": kind,
                "x": x,
                "y": y,
                "button": "left" if kind != "mouseMoved" or buttons else "none",
                "buttons": buttons,
                "clickCount": 1 if kind != "mouseMoved" else 0,
            },
        )

    mouse("mouseMoved", x0, 0)
    mouse("mousePressed", x0, 1)
    moves, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        mouse("mouseMoved", x0 + (x1 - x0) * elapsed / seconds, 1)
        moves += 1
    mouse("mouseMoved", x1, 1)
    mouse("mouseReleased", x1, 0)
    cdp.detach()
    final = int(float(page.locator(f"#{CARD}-{PARAM}").input_value()))
    time.sleep(settle)
    page.wait_for_function(f"() => !document.querySelector('#{CARD} .htmx-request')", timeout=10_000)
    time.sleep(0.2)  # a few more frames after the last answer
    d = page.evaluate("() => { window.__drag.run = false; return window.__drag; }")
    frames, down, up = d["frames"], d["down"], d["up"]
    assert down is not None and up is not None, "the page saw no pointerdown/pointerup on the slider"
    bs = sorted({f["b0"] for f in frames if f["b0"] is not None} | {final})
    tiles = page.evaluate(TILES_JS, [CARD, PARAM, TILE, bs])

    def shown(f: dict) -> int | None:
        """The state a frame shows (None when its charts and tile disagree)."""
        b = f["b0"]
        return b if b is not None and f["b1"] == b and f["tile"] == tiles.get(str(b)) else None

    during = [f for f in frames if down <= f["t"] <= up]
    states = {shown(f) for f in during} - {None}
    after = [f for f in frames if f["t"] > up]
    first = next((i for i, f in enumerate(after) if shown(f) == final), None)
    drag_s = (up - down) / 1000
    return {
        "fps": len(states) / drag_s,
        "states": len(states),
        "drag_s": drag_s,
        "moves": moves,
        "final": final,
        "lag_ms": None if first is None else after[first]["t"] - up,
        "final_shown": bool(after) and shown(after[-1]) == final,
        "stale_after": 0 if first is None else sum(1 for f in after[first:] if shown(f) != final),
        "torn": sum(1 for f in during if shown(f) is None),
        "frames": len(during),
        "inputs": d["inputs"],
        "requests": d["requests"],
        "repeated": d["requests"] - len(set(d["asked"])),
    }


def main() -> None:
    from playwright.sync_api import sync_playwright

    from bench.bench import CHROMIUM_ARGS, chromium_path

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = b.new_page(viewport={"width": 1280, "height": 900})
        print(drag(page, sys.argv[1]))
        b.close()


if __name__ == "__main__":
    main()
