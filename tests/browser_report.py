"""What the browser showed when a browser test failed, written into the failure's report.

Why: a browser test that fails once on a fresh clone and passes on every rerun leaves nothing to
go on but its assertion (session 121: two review close-ups "not loaded in 10 s", no cause found).
CI keeps only the printed log, so the page's state is printed with the failure: every request the
page made with its status and timing, every image with whether it loaded, the console's messages;
the screenshot and the page's HTML are saved under ``out/screenshots/failures`` for a local run.

Loaded by ``tests/conftest.py`` (``pytest_plugins``); it acts only on tests that use the
``browser`` fixture (``tests/test_browser.py``).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

#: Where a failure's screenshot and HTML go; ``AUGUR_FAILURE_PAGES`` sends them elsewhere (the
#: test of this report fails on purpose, and keeps its pages out of this folder).
FAILURES = Path(__file__).resolve().parents[1] / "out" / "screenshots" / "failures"

#: What the page is asked for: its address and state, each request's timing (Resource Timing:
#: a request still waiting for its answer is not listed yet) and each image's.
PAGE_STATE = """
const path = (u) => { try { const x = new URL(u, location.href); return x.pathname + x.search; } catch (e) { return u; } };
return JSON.stringify({
  url: location.href, ready: document.readyState, now_ms: Math.round(performance.now()),
  requests: performance.getEntriesByType("resource").map(e => ({
    path: path(e.name), start_ms: Math.round(e.startTime), took_ms: Math.round(e.duration),
    status: e.responseStatus === undefined ? null : e.responseStatus, bytes: e.transferSize})),
  images: [...document.images].map(i => ({src: i.getAttribute("src") ? path(i.currentSrc || i.src) : "(no source yet)",
                                          complete: i.complete, width: i.naturalWidth})),
});
"""


def page_report(driver) -> str:
    """The page's state in lines a person can read in a CI log (never raises: a browser already
    gone says so in one line)."""
    lines = []
    try:
        state = json.loads(driver.execute_script(PAGE_STATE))
    except Exception as err:       # the page or the driver may be what failed
        return f"the page could not be asked for its state: {type(err).__name__}: {str(err).splitlines()[0]}"
    lines.append(f"{state['url']} ({state['ready']}, {state['now_ms']} ms after it opened)")
    lines.append(f"requests ({len(state['requests'])}):")
    for r in state["requests"]:
        lines.append(f"  {r['start_ms']:>7} ms +{r['took_ms']:>5} ms  {r['status'] or '-':>3}  {r['bytes']:>8} B  {r['path']}")
    lines.append(f"images ({len(state['images'])}):")
    for i in state["images"]:
        lines.append(f"  {'loaded' if i['complete'] and i['width'] else 'loading' if not i['complete'] else 'broken':7} {i['src']}")
    try:
        logs = driver.get_log("browser")
    except Exception as err:
        logs = [{"level": "-", "message": f"console log unavailable: {type(err).__name__}"}]
    lines.append(f"console ({len(logs)}):")
    lines.extend(f"  {e.get('level', '-')}: {e.get('message', '')}" for e in logs)
    return "\n".join(lines)


def save_page(driver, name: str) -> list[Path]:
    """The screenshot and the HTML of the page under ``FAILURES``; the files written."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    folder = Path(os.environ.get("AUGUR_FAILURE_PAGES") or FAILURES)
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if driver.save_screenshot(str(folder / f"{stem}.png")):
            written.append(folder / f"{stem}.png")
        (folder / f"{stem}.html").write_text(driver.page_source, encoding="utf-8")
        written.append(folder / f"{stem}.html")
    except Exception:               # a report is a help, never a second failure
        pass
    return written


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    driver = getattr(item, "funcargs", {}).get("browser")
    if report.when != "call" or not report.failed or driver is None:
        return
    text = page_report(driver)
    saved = save_page(driver, item.name)
    if saved:
        text += "\nsaved: " + ", ".join(str(p) for p in saved)
    report.sections.append(("the browser when it failed", text))
