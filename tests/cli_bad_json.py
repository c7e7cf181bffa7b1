#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`mca report` and `mca model` on JSON they cannot use: never a traceback,
never a page without a figure. Each bad input (written here: not JSON, not
UTF-8, nested too deeply, no known schema, members missing or of the wrong
type, no rows, rows with nothing to plot, and mutations of the fixtures) is
refused with one line `mca report: ...` / `mca model: ...` and exit 2, or,
when a mutation leaves it usable, gives exit 0 and a page with a figure.

usage: cli_bad_json.py MCA FIXTURES_DIR
"""
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile

MCA, FX = sys.argv[1], sys.argv[2]
fails = []


def load(name):
    with open(os.path.join(FX, name), encoding="utf-8") as f:
        return json.load(f)


def run(args):
    p = subprocess.run([MCA] + args, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def refused(sub, args, what, pattern=""):
    """exit 2, one line `mca SUB: ...` (matching pattern), no traceback, no page."""
    rc, out, err = run([sub] + args)
    lines = err.strip().splitlines()
    last = lines[-1] if lines else ""
    page = os.path.exists(PAGE) and os.path.getsize(PAGE) > 0
    if (rc != 2 or "Traceback" in err or not last.startswith(f"mca {sub}: ") or not re.search(pattern, last)
            or page or any(not x.startswith(f"mca {sub}: ") for x in lines)):
        fails.append(f"mca {sub} on {what}: exit {rc}, page written: {page}, stderr: {err.strip()[-400:]}")
    else:
        print(f"ok   mca {sub} on {what}: {last}")
    if os.path.exists(PAGE):
        os.remove(PAGE)


def report_usable_or_refused(path, what):
    """A mutated input: refused as above, or a page with at least one figure."""
    rc, out, err = run(["report", path, "-o", PAGE])
    m = re.search(r"\((\d+) KiB, (\d+) figures\)", err)
    if "Traceback" in err or rc not in (0, 2):
        fails.append(f"mca report on {what}: exit {rc}: {err.strip()[-400:]}")
    elif rc == 0 and not (m and int(m.group(2)) > 0):
        fails.append(f"mca report on {what}: exit 0 without a figure: {err.strip()}")
    elif rc == 2 and (len(err.strip().splitlines()) != 1 or not err.startswith("mca report: ")):
        fails.append(f"mca report on {what}: not one line 'mca report: ...': {err.strip()[-400:]}")
    if os.path.exists(PAGE):
        os.remove(PAGE)


def model_usable_or_refused(path, inputs, what):
    rc, out, err = run(["model", path, "--inputs", inputs])
    bad_lines = [x for x in err.strip().splitlines() if not x.startswith("mca model: ")]
    if "Traceback" in err or rc not in (0, 2) or (rc == 2 and bad_lines):
        fails.append(f"mca model on {what}: exit {rc}: {err.strip()[-400:]}")
    elif rc == 0 and "measured / predicted" not in out:
        fails.append(f"mca model on {what}: exit 0 without the table")


def paths(d, at=()):
    """Every member's path in d (the first three items of each list)."""
    yield at
    if isinstance(d, dict):
        for k, v in d.items():
            yield from paths(v, at + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d[:3]):
            yield from paths(v, at + (i,))


def mutate(d, rnd):
    """A copy of d with one member removed or replaced by a value of another kind."""
    d = copy.deepcopy(d)
    at = rnd.choice([p for p in paths(d) if p])
    parent = d
    for k in at[:-1]:
        parent = parent[k]
    if isinstance(parent, dict) and rnd.random() < 0.3:
        del parent[at[-1]]
    else:
        parent[at[-1]] = rnd.choice([None, True, 0, -1, 1e308, "x", "", [], {}, [1], {"a": 1}, [[[]]]])
    return d, at


with tempfile.TemporaryDirectory() as tmp:
    PAGE = os.path.join(tmp, "page.html")

    def write(name, content):
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(content if isinstance(content, bytes) else
                    (content if isinstance(content, str) else json.dumps(content)).encode())
        return p

    bench = load("bench_small.json")
    sync = load("sync_quick.json")
    cell = bench["cells"][0]
    row = sync["results"][0]
    bad = {
        "not JSON": ("{\"schema\": ", "not valid JSON"),
        "an empty file": ("", "not valid JSON"),
        "not UTF-8": (b"\xff\xfe{}", "not UTF-8"),
        "a list": ([1, 2], "top level is not an object|not a mca bench result"),
        "nested 200 deep": ("[" * 200 + "]" * 200, "nested deeper than 64 levels|not a mca"),
        "nested 100000 deep": ('{"schema": "mca-bench/1", "cells": ' + "[" * 100000 + "]" * 100000 + "}",
                               "nested deeper than 64 levels"),
        "no schema": ({"cells": []}, "schema|not a mca bench result"),
        "an unknown schema": ({"schema": "mca-nothing/1"}, "schema"),
        "a schema alone": ({"schema": "mca-bench/1"}, "missing"),
        "cells not a list": (dict(bench, cells="x"), "cells must be a list"),
        "a cell not an object": (dict(bench, cells=[1]), r"cells\[0\] must be an object"),
        "a cell without its id": (dict(bench, cells=[{k: v for k, v in cell.items() if k != "id"}]),
                                  r"member .cells\[0\].id. is missing"),
        "a size of the wrong type": (dict(bench, cells=[dict(cell, size="big")]), r"cells\[0\]\.size must be a number"),
        "a summary of the wrong type": (dict(bench, cells=[dict(cell, summary=[1])]),
                                        r"cells\[0\]\.summary must be an object"),
        "a machine of the wrong type": (dict(bench, machine=[]), "machine must be an object"),
        "no cells": (dict(bench, cells=[]), "holds no cells|nothing to model"),
        "only failed cells": (dict(bench, cells=[dict(c, status="error", summary={}) for c in bench["cells"]]),
                              "nothing to plot|nothing to model"),
    }
    for what, (content, pattern) in bad.items():
        p = write("bad.json", content)
        refused("report", [p, "-o", PAGE], what, pattern)
        refused("model", [p], what)
    # results of the other commands with nothing to plot
    nothing = {
        "sync rows without a median": dict(sync, results=[dict(row, median_ns=0)]),
        "sync rows of the wrong type": dict(sync, results=[dict(row, p99_ns="fast")]),
        "sem without results": {"schema": "mca-sem/1", "results": []},
        "coherence without a timed run": {"schema": "mca-coherence/1", "samples": [
            {"kind": "simulate", "version": "shared", "size_bytes": 4096}]},
        "stress without routes": {"schema": "mca-stress/1", "routes": [], "result": {"status": "ok"}},
        "model without cells": {"schema": "mca-model/1", "cells": []},
    }
    for what, content in nothing.items():
        refused("report", [write("bad.json", content), "-o", PAGE], what)
    # a bad second input refuses the page too, naming that input
    refused("report", [os.path.join(FX, "sync_quick.json"), write("second.json", dict(sync, results=[1])),
                       "-o", PAGE], "a good and a bad input", "second.json")
    # mutations of every fixture (fixed seed: the same inputs every run)
    rnd = random.Random(7)
    fixtures = ["bench_small.json", "sync_quick.json", "sem_quick.json", "coherence_quick.json",
                "model_stream.json"]
    for i in range(60):
        name = fixtures[i % len(fixtures)]
        d, at = mutate(load(name), rnd)
        report_usable_or_refused(write("m.json", d), f"{name} with {'.'.join(map(str, at))} changed")
    inputs = os.path.join(FX, "model_stream.json")
    stream = load("model_stream.json")
    for i in range(30):
        d, at = mutate(stream, rnd)
        model_usable_or_refused(write("m.json", d), inputs, f"model_stream.json with {'.'.join(map(str, at))} changed")

for f in fails:
    print("FAIL " + f)
print(f"{'FAILED' if fails else 'passed'}: mca report and mca model on bad JSON ({len(fails)} failures)")
sys.exit(1 if fails else 0)
