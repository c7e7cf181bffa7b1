#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mca report: one self-contained HTML page from the JSON results of the mca tools.

usage: mca report RESULT.json [RESULT.json ...] [-o REPORT.html] [--model MODEL.json] [--allow-mismatch]

Takes any JSON written by `mca bench`, `mca sync`, `mca sem`, `mca coherence`,
`mca stress` and `mca model` (told apart by their "schema" member, docs/json.md).
Two bench results are compared: the first is "before", the second "after".
The page opens with the questions a reader asks, answered in sentences with
numbers, then a table of contents and the sections. Plots are Plotly figures
embedded with plotly.js, so the page is one file that works offline.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.join(HERE, "..", "mca"))  # mca_cli.py, in the sources

import mca_cli  # noqa: E402
import report_fig as F  # noqa: E402
from mca_cli import NUM, InputError  # noqa: E402

# Exit codes of every mca subcommand: 0 success, 1 a check failed, 2 usage error
# (here also: an input that cannot be used).
USAGE = mca_cli.USAGE


class UserError(Exception):
    """A problem with what the user gave: printed as one line, exit 2."""


def _import_jinja2():
    try:
        import jinja2
    except ImportError:  # a Python other than Debian's: try Debian's python3-jinja2
        if os.path.isdir("/usr/lib/python3/dist-packages/jinja2"):
            sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import jinja2
        except ImportError:
            raise UserError("Jinja2 is missing: install python3-jinja2 (scripts/deps.sh installs it)")
    return jinja2


PLOTLY_PLACES = [
    "/usr/share/python3-plotly/plotly.js",  # Debian python3-plotly
    "/usr/share/javascript/plotly/plotly.min.js",
    "/usr/lib/python3/dist-packages/plotly/package_data/plotly.min.js",
]


def find_plotly_js():
    """plotly.js from $MCA_PLOTLY_JS, the plotly Python package of this Python
    (pip), or Debian's python3-plotly; the smallest build found wins."""
    env = os.environ.get("MCA_PLOTLY_JS")
    if env:
        if not os.path.isfile(env):
            raise UserError(f"MCA_PLOTLY_JS={env}: no such file")
        return env
    cands = []
    try:
        import importlib.util

        spec = importlib.util.find_spec("plotly")
        if spec and spec.submodule_search_locations:
            for d in spec.submodule_search_locations:
                cands.append(os.path.join(d, "package_data", "plotly.min.js"))
    except (ImportError, ValueError):
        pass
    cands += PLOTLY_PLACES
    found = [p for p in cands if os.path.isfile(p)]
    if not found:
        raise UserError("plotly.js is missing: install python3-plotly (scripts/deps.sh installs it), "
                        "or point MCA_PLOTLY_JS at a plotly.min.js")
    return min(found, key=os.path.getsize)


def load_json(path):
    d = mca_cli.load_json(path)
    if not isinstance(d, dict):
        raise UserError(f"{path} is not a mca result: the top level is not an object")
    return d


KINDS = {
    "mca-bench": "bench", "mca-sync": "sync", "mca-sem": "sem", "mca-coherence": "coherence",
    "mca-stress": "stress", "mca-model": "model",
}


def kind_of(d, path):
    schema = d.get("schema")
    if not schema and d.get("tool") == "mca coherence":  # written before the common envelope
        return "coherence"
    if isinstance(schema, str) and "/" in schema:
        base, ver = schema.split("/", 1)
        if base in KINDS:
            return KINDS[base]
    raise UserError(f"{path} is not a mca result: schema {schema!r} is none of "
                    + ", ".join(f"{k}/N" for k in KINDS) + " (docs/json.md)")


# What the sections index without asking (schemas: docs/json.md); the rest is read with defaults.
STAT = {"median?": NUM, "min?": NUM, "max?": NUM, "n?": NUM}
ENVELOPE = {"date?": str, "command?": str, "machine?": {"cpu?": str, "os?": str, "cpus?": NUM},
            "build?": {"commit?": str}}
RTT = {"n?": NUM, "min?": NUM, "p50?": NUM, "p99?": NUM, "p999?": NUM, "max?": NUM, "mean?": NUM,
       "quantiles?": [NUM], "*": (NUM, list, None)}
SHAPES = {
    "bench": {"cells": [{"id": str, "kind": str, "section": str, "status": str, "subject": str, "type": str,
                         "locking": str, "wait": str, "placement": str, "process": str, "transport": str,
                         "size": NUM, "note?": str, "consume?": str,
                         "samples?": [{"rtt?": RTT, "stream?": {"*": (NUM, None)}, "*": (NUM, bool, None)}],
                         "summary?": {"items_per_s?": STAT, "mb_per_s?": STAT, "rtt_ns?": STAT, "rtt_p50_ns?": STAT,
                                      "rtt_over_L?": STAT, "rtt_p50_over_L?": STAT, "tail_ns?": {"*": (STAT, NUM)},
                                      "*": (STAT, NUM, None)}}],
              "config?": dict, "L_ns?": [(NUM, None)], "derived?": dict, "available?": dict, "state?": [dict],
              "targets?": [{"result": str, "name": str, "limit": NUM, "value?": NUM, "unit?": str}],
              "scale?": {"rows?": [{"kind": str, "locking": str, "n": NUM, "status": str, "items_per_s?": STAT}]}},
    "sync": {"results": [{"technique": str, "impl": str, "cores": NUM, "median_ns": NUM, "p99_ns": NUM,
                          "max_ns?": NUM}], "config?": dict},
    "sem": {"results": [{"variant": str, "case": str, "threads": NUM, "median_ns": NUM, "p99_ns?": NUM,
                         "csw_per_round?": NUM, "improvement_pct?": NUM, "baseline?": str}], "config?": dict},
    "coherence": {"samples": [{"kind": str, "version": str, "size_bytes": NUM, "time_ns?": NUM, "items?": NUM}],
                  "counters?": [{"name": str, "status": str}]},
    "stress": {"routes": [{"route": NUM, "type": str, "from": NUM, "to": NUM, "size?": NUM, "count?": NUM,
                           "verified?": NUM, "problems?": NUM}],
               "topology?": {"name?": str}, "result?": {"status?": str, "verified?": bool, "elapsed_s?": NUM,
                                                        "problems?": [str]}},
    "model": {"cells": [{"cell": str, "measured_items_per_s?": NUM, "predicted_items_per_s?": NUM, "ratio?": NUM,
                         "verdict?": str, "regime?": str, "nearest_regime?": str, "why?": str, "gap?": str}],
              "machine?": {"*": (NUM, str, bool, None)}, "inputs?": dict, "summary?": {"*": NUM}},
}
# The member that holds a result's rows: empty, there is nothing to show.
ROWS = {"bench": "cells", "sync": "results", "sem": "results", "coherence": "samples", "stress": "routes",
        "model": "cells"}


def check_result(kind, d, path):
    """InputError naming the first member the report cannot use, or a result with no rows."""
    mca_cli.check_shape(d, {**ENVELOPE, **SHAPES[kind]}, path)
    if not d[ROWS[kind]]:
        raise InputError(f"{path}: holds no {ROWS[kind]}: nothing to show")


class guard:
    """Turns what a malformed result breaks while its sections are made into InputError naming the input."""

    def __init__(self, kind, paths):
        self.what = f"{' and '.join(paths)}: not a well-formed mca {kind} result"

    def __enter__(self):
        return self

    def __exit__(self, t, e, tb):
        if t in (TypeError, KeyError, AttributeError, ValueError, IndexError, ZeroDivisionError, OverflowError,
                 RecursionError):
            raise InputError(f"{self.what} ({t.__name__}: {e}; docs/json.md)") from e
        return False


def check_output(path):
    """Fails early (exit 2) when the page could not be written."""
    if path == "-":
        return
    d = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise UserError(f"-o {path}: is a directory")
    if not os.path.isdir(d):
        raise UserError(f"-o {path}: directory {d} does not exist")
    if not os.access(d, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UserError(f"-o {path}: not writable")


def model_path(bench_path, explicit):
    """The model JSON for a bench result: --model, else a sibling <stem>.model.json."""
    if explicit:
        return explicit
    if bench_path == "-":
        return None
    stem, _ = os.path.splitext(bench_path)
    p = stem + ".model.json"
    return p if os.path.exists(p) else None


class Page:
    def __init__(self):
        self.sections = []
        self.answers = []
        self.warnings = []
        self.nfig = 0

    def section(self, sid, title):
        s = {"id": sid, "title": title, "parts": []}
        self.sections.append(s)
        return s

    def html(self, s, text):
        s["parts"].append({"kind": "html", "html": text})

    def fig(self, s, f):
        if f is None or f.points() == 0:
            return
        self.nfig += 1
        s["parts"].append({"kind": "figure", "figure": f, "number": self.nfig})

    def table(self, s, head, rows, title=None, note=None, collapsed=False, small=False):
        if not rows:
            return
        hd = [{"key": h[0], "label": h[1], "num": len(h) > 2 and h[2] == "num",
               "cls": h[3] if len(h) > 3 else ""} for h in head]
        s["parts"].append({"kind": "table", "head": hd, "rows": rows, "title": title, "note": note,
                           "collapsed": collapsed, "small": small})

    def kv(self, s, rows):
        s["parts"].append({"kind": "kv", "rows": rows})


def bench_sections(page, runs, paths, allow_mismatch):
    import report_bench as B
    import report_compare as C

    b = B.Bench(runs[-1], paths[-1])
    page.answers += B.summary(b)
    if len(runs) == 2:
        refuse, warn = C.check(runs[0], runs[1], allow_mismatch)
        if refuse:
            raise UserError("the two runs cannot be compared: " + "; ".join(refuse)
                            + " (--allow-mismatch compares them anyway)")
        page.warnings += ["Comparison: " + w for w in warn]
        rows = C.compare_cells(runs[0], runs[1])
        page.answers.insert(0, C.summary(rows, paths[0], paths[1], runs[0], runs[1]))
        s = page.section("compare", "Before / after")
        page.html(s, f"<p>Before: <code>{F.esc(paths[0])}</code> ({F.esc(runs[0].get('date', ''))}); after: "
                     f"<code>{F.esc(paths[1])}</code> ({F.esc(runs[1].get('date', ''))}). Every other section shows "
                     "the after run.</p>")
        page.fig(s, C.figure(rows))
        page.table(s, [("cell", "cell"), ("metric", "metric"), ("before", "before", "num"), ("after", "after", "num"),
                       ("chg", "after / before", "num", "chg"), ("n", "clean samples"), ("how", "test"),
                       ("verdict", "verdict")], C.table(rows), title="Every comparison", collapsed=True, small=True)
    # targets
    s = page.section("targets", "Targets")
    page.html(s, "<p>Checked by <code>mca bench</code> on clean samples only; a target whose cell is missing or "
                 "unstable is n/a. Tests never check timings.</p>")
    page.table(s, [("result", "result", "", "res"), ("name", "target"), ("value", "measured", "num"),
                   ("limit", "limit"), ("detail", "detail")],
               [dict(r, _class=r["result"] if r["result"] in ("PASS", "MISS") else "na") for r in B.section_targets(b)])
    # locking
    s = page.section("locking", "Lock-free vs lock-based")
    for f in B.fig_locking(b):
        page.fig(s, f)
    page.table(s, [("cell", "exchange"), ("lf_thr", "lock-free items/s", "num"), ("lf_rtt", "lock-free RTT", "num"),
                   ("global_thr", "throughput vs global", "num"), ("kernel_thr", "throughput vs kernel", "num"),
                   ("global_rtt", "RTT: global / lock-free", "num"), ("kernel_rtt", "RTT: kernel / lock-free", "num")],
               B.locking_table(b), note="One sender and one receiver, one thread per core: the lock is never "
                                        "contended here; the next section adds contention.")
    if b.scale.get("rows"):
        s = page.section("scaling", "Scaling and contention")
        for f in B.fig_scaling(b):
            page.fig(s, f)
        page.table(s, [("kind", "kind"), ("locking", "locking"), ("n", "P / N", "num"), ("threads", "threads", "num"),
                       ("thr", "items/s", "num"), ("range", "min–max", "num"), ("vs_global", "lock-free / global", "num"),
                       ("vs_kernel", "lock-free / kernel", "num"), ("csw", "context switches / item", "num"),
                       ("futex", "futex calls / item", "num"), ("semop", "semop calls / item", "num"),
                       ("status", "status"), ("note", "note")],
                   B.scaling_table(b), title="Every row of the scaling matrix", collapsed=True, small=True,
                   note="Per item: context switches of all threads (getrusage), futex and semop calls counted by the "
                        "library per thread.")
    s = page.section("latency", "Latency distributions")
    for f in B.latency_figures(b):
        page.fig(s, f)
    if not any(p["kind"] == "figure" for p in s["parts"]):
        page.html(s, "<p>No round-trip distribution in this result.</p>")
    sw = B.fig_sweep(b)
    if sw:
        s = page.section("sweep", "Throughput and latency vs payload size")
        for f in sw:
            page.fig(s, f)
    s = page.section("peers", "libmca beside its peers")
    for size in (24, 8, 8192):
        for f in B.fig_peers(b, size):
            page.fig(s, f)
    if not any(p["kind"] == "figure" for p in s["parts"]):
        page.html(s, "<p>No peer was measured in this run (<code>--no-peers</code>).</p>")
    pen = B.penalty_rows(b)
    if pen:
        s = page.section("placement", "One core vs one thread per core")
        page.table(s, [("type", "type"), ("locking", "locking"), ("size", "size"), ("one", "one core", "num"),
                       ("spread", "one thread per core", "num"), ("r_spread", "per core / one core", "num"),
                       ("r_none", "no affinity / one core", "num")], pen,
                   note="Throughput with both threads on one core against one thread per core and no affinity; below "
                        "1x, a second core makes the exchange slower (a multicore penalty).")
    st = B.state_rows(b)
    if st:
        s = page.section("state", "State messages vs FIFO messages")
        page.table(s, [("locking", "locking"), ("writes", "writes/s", "num"), ("reads", "reads/s", "num"),
                       ("ns_read", "per read", "num"), ("retries", "retries per read", "num"),
                       ("msg", "24 B message stream", "num"), ("vs", "writes / reads vs messages", "num")], st,
                   note="State channels keep only the newest value (non-blocking write): one writer at full speed on "
                        "the first CPU, one reader on the second; medians of the repeats.")
    s = page.section("run", "The run: machine, build, sample hygiene")
    rows, notes = B.run_info(b)
    page.kv(s, rows)
    if notes:
        page.html(s, "<p>Not available in this build (shown as n/a, never estimated):</p><ul>"
                  + "".join(f"<li>{F.esc(n)}</li>" for n in notes) + "</ul>")
    page.table(s, [("id", "cell"), ("rtt", "RTT", "num"), ("rtt_range", "min–max", "num"), ("rtt_L", "RTT/L", "num"),
                   ("p50", "p50", "num"), ("p99", "p99", "num"), ("p999", "p99.9", "num"), ("p9999", "p99.99", "num"),
                   ("max", "max", "num"), ("thr", "items/s", "num"), ("thr_range", "min–max", "num"),
                   ("mbs", "payload/s", "num"), ("L", "L", "num"), ("samples", "clean/run", "num"),
                   ("note", "note")],
               [dict(r, _class="na" if r["na"] else "") for r in B.cell_rows(b)], title="Every cell", collapsed=True,
               small=True, note="RTT: batch-timed round trip, median of the clean samples. p50 … max: every round trip "
                                "of the per-round pass. clean/run: samples not taken in the host's slow mode / run.")
    return b


def render(page, title, subtitle, inputs, key=True):
    """The page as one HTML string: the template filled, plotly.js embedded."""
    jinja2 = _import_jinja2()
    with open(find_plotly_js(), encoding="utf-8") as f:
        plotly_js = f.read()
    m = re.search(r"plotly\.js v([0-9.]+)", plotly_js[:2000])
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), autoescape=True)
    env.policies["json.dumps_kwargs"] = {"sort_keys": False, "ensure_ascii": False}
    tpl = env.get_template("report.html.j2")
    # "</script" must not end the script elements early (tojson escapes <, > and & in the specs)
    return tpl.render(title=title, subtitle=subtitle, answers=page.answers, sections=page.sections,
                      warnings=page.warnings, key=key, inputs=inputs, version=os.environ.get("MCA_VERSION", ""),
                      plotly_js=plotly_js.replace("</script", "<\\/script"), plotly_version=m.group(1) if m else "")


def main(argv=None):
    ap = mca_cli.Parser(
        "report", formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="mca report RESULT.json... [-o FILE] [--model FILE] [--allow-mismatch] [--title TITLE]",
        description="Writes one self-contained HTML page (plots embedded, works offline) from the JSON results of "
                    "mca bench, sync, sem, coherence, stress and model. The page opens with the questions a reader "
                    "asks answered in sentences with numbers, then a table of contents and one section per topic.",
        epilog="Two bench results are compared (first: before, second: after); runs of another mode or machine are "
               "refused unless --allow-mismatch. Exit status: 0 written; 2 usage error, or an input that cannot be "
               "used: unreadable, not JSON, nested too deeply, no known schema, a member missing or of the wrong "
               "type, no rows or nothing to plot (never a page without a figure). "
               "Needs python3 with Jinja2 and plotly.js (Debian python3-jinja2, python3-plotly; scripts/deps.sh). "
               "Schemas: docs/json.md.")
    ap.add_argument("results", nargs="*", metavar="RESULT.json",
                    help="JSON written by an mca subcommand's --json ('-': standard input)")
    ap.add_argument("-o", "--output", default="report.html", metavar="FILE",
                    help="where to write the page (default report.html; '-': standard output)")
    ap.add_argument("--model", metavar="FILE",
                    help="a `mca model --json` result to add (default: a sibling <stem>.model.json of the bench "
                         "result, when there is one)")
    ap.add_argument("--allow-mismatch", action="store_true",
                    help="compare two bench runs even when their mode, machine or --cpus differ")
    ap.add_argument("--title", help="the page's title (default: from the inputs)")
    a = ap.parse_args(argv)
    if not a.results:
        raise UserError("expected at least one RESULT.json (mca report --help)")
    check_output(a.output)
    if a.results.count("-") > 1:
        raise UserError("standard input ('-') can be given once")
    docs = []
    for p in a.results:
        d = load_json(p)
        docs.append((kind_of(d, p), d, p))
    benches = [(d, p) for k, d, p in docs if k == "bench"]
    if len(benches) > 2:
        raise UserError("give at most two bench results (before and after); got %d" % len(benches))
    mp = model_path(benches[-1][1], a.model) if benches else a.model
    if mp and not any(p == mp for _, _, p in docs):
        d = load_json(mp)
        if kind_of(d, mp) != "model":
            raise UserError(f"--model {mp}: not a mca model result")
        docs.append(("model", d, mp))
    for k, d, p in docs:
        check_result(k, d, p)
    page = Page()
    b = None

    def shown(kind, paths, make):
        """Makes one input's sections; an input that adds no figure has nothing to show."""
        n = page.nfig
        with guard(kind, paths):
            r = make()
        if page.nfig == n:
            raise InputError(f"{' and '.join(paths)}: nothing to plot (no {ROWS[kind]} with a measurement)")
        return r

    if benches:
        b = shown("bench", [p for _, p in benches],
                  lambda: bench_sections(page, [d for d, _ in benches], [p for _, p in benches], a.allow_mismatch))
    import report_other as O

    for k, d, p in docs:
        if k != "bench":
            shown(k, [p], lambda: O.add(page, k, d, p))
    # the other tools' sections go after the bench's figures, before its run details
    if b is not None:
        run = [s for s in page.sections if s["id"] == "run"]
        page.sections = [s for s in page.sections if s["id"] != "run"] + run
    kinds = sorted(set(k for k, _, _ in docs))
    if a.title:
        title = a.title
    elif benches:
        title = "libmca benchmark report" + (": before / after" if len(benches) == 2 else "")
    else:
        title = "libmca report: " + ", ".join(f"mca {k}" for k in kinds)
    first = (benches[-1][0] if benches else docs[0][1])
    mach = first.get("machine") or {}
    sub = ", ".join(x for x in (
        str(first.get("date", "")), mach.get("cpu") or mach.get("os") or "",
        f"{mach['cpus']} CPUs" if mach.get("cpus") else "",
        ("commit " + str((first.get("build") or {}).get("commit", ""))[:12]) if first.get("build") else "") if x)
    html = render(page, title, sub, [p for _, _, p in docs], key=bool(benches))
    if a.output == "-":
        sys.stdout.write(html)
    else:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(html)
        print(f"mca report: wrote {os.path.abspath(a.output)} ({len(html) // 1024} KiB, {page.nfig} figures)",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (UserError, InputError) as e:
        mca_cli.die("report", e, USAGE)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
