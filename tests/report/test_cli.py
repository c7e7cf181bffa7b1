#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`mca report` as a user runs it: every kind of result file gives its
section; user errors exit 2 with one line and never a Python traceback;
`-o -` writes the page to standard output.

usage: test_cli.py MCA BENCH.json FIXTURES_DIR MODEL.json
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcx_timeouts import timeout_scale  # noqa: E402  (tests/mcx_timeouts.py)

mca, bench, fixtures, model = sys.argv[1:5]
failed = 0


def run(*args, stdin=None):
    # a ceiling that only a hang reaches (scaled): a loaded machine is slow, not wrong
    p = subprocess.run([mca, "report", *args], capture_output=True, text=True, input=stdin,
                       timeout=300 * timeout_scale())
    return p.returncode, p.stdout, p.stderr


def expect(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else ": " + detail))
    failed |= not cond


def user_error(name, args, pattern, stdin=None):
    rc, out, err = run(*args, stdin=stdin)
    expect(name, rc == 2 and pattern in err and "Traceback" not in err + out,
           f"rc={rc} stderr={err.strip()[:300]!r}")


with tempfile.TemporaryDirectory() as d:
    bad_json = os.path.join(d, "bad.json")
    with open(bad_json, "w") as f:
        f.write('{"schema": "mca-bench/1",\n "cells": [1 2]}')
    other = os.path.join(d, "other.json")
    with open(other, "w") as f:
        json.dump({"schema": "something-else/3"}, f)
    with open(bench) as f:
        b = json.load(f)
    full = dict(b, config=dict(b["config"], mode="full"))
    full_path = os.path.join(d, "full.json")
    with open(full_path, "w") as f:
        json.dump(full, f)

    user_error("missing file", ["/nonexistent/x.json", "-o", os.path.join(d, "a.html")], "cannot read")
    user_error("invalid JSON", [bad_json, "-o", os.path.join(d, "a.html")], "not valid JSON")
    user_error("unknown schema", [other, "-o", os.path.join(d, "a.html")], "is not a mca result")
    user_error("output directory missing", [bench, "-o", "/nonexistent/dir/r.html"], "does not exist")
    user_error("output is a directory", [bench, "-o", d], "is a directory")
    user_error("three bench results", [bench, bench, bench, "-o", os.path.join(d, "a.html")], "at most two")
    user_error("mode mismatch refused", [bench, full_path, "-o", os.path.join(d, "a.html")], "cannot be compared")
    user_error("unknown option", ["--frobnicate", bench], "mca report: unknown option '--frobnicate'")
    user_error("no input", [], "mca report: expected at least one RESULT.json")
    user_error("stdin twice", ["-", "-"], "once", stdin="{}")

    rc, out, err = run("--help")
    expect("--help describes every option", rc == 0 and all(o in out for o in ("--output", "--model",
                                                                                 "--allow-mismatch", "--title")),
           out[:300])

    rc, out, err = run(bench, full_path, "--allow-mismatch", "-o", os.path.join(d, "cmp.html"))
    with open(os.path.join(d, "cmp.html"), encoding="utf-8") as f:
        page = f.read()
    expect("--allow-mismatch compares and warns", rc == 0 and 'id="compare"' in page and "mode differs" in page,
           err[:300])

    rc, out, err = run(bench, "-o", "-")
    expect("-o - writes the page to stdout", rc == 0 and out.startswith("<!DOCTYPE html>") and "</html>" in out,
           err[:300])

    with open(bench) as f:
        rc, out, err = run("-", "-o", "-", stdin=f.read())
    expect("- reads the result from stdin", rc == 0 and 'id="summary"' in out, err[:300])

    kinds = [("sync", "sync_quick.json", 'id="sync"'), ("sem", "sem_quick.json", 'id="sem"'),
             ("coherence", "coherence_quick.json", 'id="coherence"')]
    for kind, fx, marker in kinds:
        rc, out, err = run(os.path.join(fixtures, fx), "-o", "-")
        expect(f"a {kind} result alone gets its section and an answer",
               rc == 0 and marker in out and 'class="answer' in out, err[:300])
    rc, out, err = run(model, "-o", "-")
    expect("a model result alone gets its section", rc == 0 and 'id="model"' in out, err[:300])
    rc, out, err = run(bench, *(os.path.join(fixtures, fx) for _, fx, _ in kinds), model, "-o",
                       os.path.join(d, "all.html"))
    with open(os.path.join(d, "all.html"), encoding="utf-8") as f:
        page = f.read()
    expect("every kind in one page", rc == 0 and all(m in page for _, _, m in kinds) and 'id="model"' in page
           and 'id="locking"' in page, err[:300])
    expect("no reference to documents outside the repository", "seed 000" not in page and "DESIGN 2" not in page)

sys.exit(1 if failed else 0)
