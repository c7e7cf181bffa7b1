#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Renders a `mca report` page in headless Chromium and fails on what a reader
would see broken: a Python traceback in the page, a figure that did not
render or has no data, labels that overlap or are cut off at the figure's edge,
a JavaScript error, units like "Mitems/s" or "kns", a first screen without
answers or contents.

usage: render_check.py PAGE.html [--screenshot OUT.png]
       render_check.py --self-test     (a page with overlapping labels must be caught)
Exit 77 (skip) when Chromium is not installed.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcx_timeouts import timeout_scale  # noqa: E402  (tests/mcx_timeouts.py)

HERE = os.path.dirname(os.path.abspath(__file__))


def chromium():
    for c in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(c)
        if p:
            return p
    return None


def run(browser, args, timeout=300):
    """One Chromium run. The ceiling (start and render, scaled) only ends a hang:
    a loaded machine is slow, never a failure before it."""
    # --no-sandbox: the test may run as root (CI containers); the page is local.
    # Nothing from the network, no first-run work, a fresh profile removed after.
    base = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", "--window-size=1280,900", "--virtual-time-budget=30000"]
    limit = timeout * timeout_scale()
    with tempfile.TemporaryDirectory() as prof:
        # its own session: a timeout ends Chromium's helper processes too
        p = subprocess.Popen(base + ["--user-data-dir=" + prof] + args, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            sys.exit(f"render_check: Chromium did not finish within {limit:.0f} s (hung)")
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # helpers left behind
            except ProcessLookupError:
                pass
        return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def selfcheck(browser, page):
    p = run(browser, ["--dump-dom", "file://" + os.path.abspath(page) + "#selfcheck"])
    dom = p.stdout
    m = re.search(r'<pre id="mca-selfcheck">(.*?)</pre>', dom, re.S)
    if not m:
        return dom, None
    import html

    return dom, json.loads(html.unescape(m.group(1)))


def check(browser, page):
    problems = []
    dom, res = selfcheck(browser, page)
    if not dom:
        return ["Chromium printed no DOM"]
    if "Traceback (most recent call last)" in dom:
        problems.append("the page contains a Python traceback")
    if res is None:
        return problems + ["the page's self-check did not run (a script failed before it)"]
    if res.get("error"):
        problems.append("plot rendering failed: " + res["error"])
    if not res.get("plots"):
        problems.append("no figure in the page")
    if res.get("rendered") != res.get("plots"):
        problems.append(f"{res.get('plots', 0) - res.get('rendered', 0)} of {res.get('plots')} figures did not render")
    for k, what in (("empty", "figure without data"), ("overlaps", "overlapping labels"),
                    ("clipped", "label cut off"), ("errors", "JavaScript error"),
                    ("text_units", "unit written with a double prefix")):
        for x in res.get(k) or []:
            problems.append(f"{what}: {x}")
    if 'class="answer' not in dom:
        problems.append("the first screen has no answers")
    if 'class="toc"' not in dom:
        problems.append("no table of contents")
    print(f"render_check: {page}: {res.get('plots')} figures rendered, {len(problems)} problems")
    return problems


def self_test(browser):
    """The checker must catch a figure whose tick labels overlap."""
    sys.path.insert(0, os.environ.get("MCA_REPORT_DIR") or os.path.join(HERE, "..", "..", "tools", "report"))
    import report
    import report_fig as F

    page = report.Page()
    page.answers.append({"q": "q", "a": "a", "tone": "info", "href": "#s"})
    s = page.section("s", "bad figure")
    labels = [f"a long category label number {i}" for i in range(40)]
    bad = F.Figure("bad", "Crowded axis", "forty long labels on a narrow horizontal axis",
                   [{"type": "bar", "x": labels, "y": list(range(40))}],
                   F.layout(height=300, width=400, xaxis={"type": "category", "tickangle": 0, "automargin": False,
                                                          "nticks": 100}))
    page.fig(s, bad)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(report.render(page, "self-test", "", ["none"]))
        problems = check(browser, path)
    if not any("overlapping labels" in p for p in problems):
        print("render_check: the self-test page with overlapping labels was not caught:", problems)
        return 1
    print("render_check: self-test: overlapping labels caught")
    return 0


def main():
    browser = chromium()
    if not browser:
        print("SKIP: chromium is not installed (scripts/deps.sh installs it)")
        return 77
    if sys.argv[1:] == ["--self-test"]:
        return self_test(browser)
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    page = sys.argv[1]
    problems = check(browser, page)
    if "--screenshot" in sys.argv:
        out = sys.argv[sys.argv.index("--screenshot") + 1]
        run(browser, ["--screenshot=" + os.path.abspath(out), "file://" + os.path.abspath(page)])
    for p in problems:
        print("render_check: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
