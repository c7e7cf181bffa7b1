#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks `mca hint` against the corpus in tests/hint/cases: for each NAME.c
the report must equal NAME.report, the rewrite (--apply) must equal
NAME.fixed.c (or be absent when nothing is hinted), --diff must turn NAME.c
into the rewrite, and every rewritten file must compile against the
project's headers. Also: flags from compile_commands.json give the same
report, and the JSON output carries the same findings. Exits 77 (skipped)
when libclang is missing."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcx_timeouts import timeout_scale  # noqa: E402  (tests/mcx_timeouts.py)

ap = argparse.ArgumentParser()
ap.add_argument("--mca", required=True)
ap.add_argument("--cc", default="cc")
ap.add_argument("-I", dest="incs", action="append", default=[])
opt = ap.parse_args()
opt.mca = os.path.abspath(opt.mca)
opt.incs = [os.path.abspath(i) for i in opt.incs]

here = os.path.dirname(os.path.abspath(__file__))
cases = os.path.join(here, "cases")
flags = ["-I" + i for i in opt.incs]
failures = []


# A ceiling that only a hang reaches: libclang on a loaded machine is slow, not wrong.
CEILING = 300 * timeout_scale()


def run(args, cwd):
    return subprocess.run([opt.mca, "hint"] + args, cwd=cwd, capture_output=True, text=True, timeout=CEILING)


probe = run(["straight.c", "--"] + flags, cases)
if probe.returncode == 3:  # libclang or its Python binding is missing
    print("SKIP: " + probe.stderr.strip())
    sys.exit(77)

names = sorted(f[:-2] for f in os.listdir(cases) if f.endswith(".c") and not f.endswith(".fixed.c"))
tmp = tempfile.mkdtemp(prefix="mca_hint_")
try:
    for n in names:
        src = n + ".c"
        out = os.path.join(tmp, "apply")
        shutil.rmtree(out, ignore_errors=True)
        r = run(["--apply", "--output-dir", out, src, "--"] + flags, cases)
        if r.returncode != 0:
            failures.append("%s: exit %d: %s" % (n, r.returncode, r.stderr))
            continue
        report = "".join(l + "\n" for l in r.stdout.splitlines() if not l.startswith("mca hint:"))
        with open(os.path.join(cases, n + ".report")) as f:
            want = f.read()
        if report != want:
            failures.append("%s: report differs\n--- got\n%s--- expected\n%s" % (n, report, want))
        fixed = os.path.join(cases, n + ".fixed.c")
        got = os.path.join(out, src)
        if os.path.exists(fixed) != os.path.exists(got):
            failures.append("%s: rewrite %s, expected rewrite %s" % (
                n, "written" if os.path.exists(got) else "absent",
                "present" if os.path.exists(fixed) else "absent"))
            continue
        if not os.path.exists(got):
            print("%-12s report ok, nothing to rewrite" % n)
            continue
        with open(got) as f, open(fixed) as g:
            if f.read() != g.read():
                failures.append("%s: rewrite differs from %s.fixed.c (diff %s %s)" % (n, n, got, fixed))
                shutil.copy(got, os.path.join(tmp, n + ".got.c"))
        c = subprocess.run([opt.cc, "-std=c11", "-D_GNU_SOURCE", "-fsyntax-only", "-Wall", "-Werror=implicit-function-declaration",
                            "-Werror=incompatible-pointer-types", "-Werror=int-conversion"] + flags + [got],
                           capture_output=True, text=True)
        if c.returncode != 0:
            failures.append("%s: the rewrite does not compile:\n%s" % (n, c.stderr))
        # the rewrite is a fixed point: nothing left to hint in it
        again = run([got, "--"] + flags, cases)
        if again.returncode != 0 or ": hint: " in again.stdout:
            failures.append("%s: the rewrite still has hints:\n%s" % (n, again.stdout))
        # --diff applied with patch gives the same file
        d = run(["--diff", src, "--"] + flags, cases)
        work = os.path.join(tmp, "patch")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        shutil.copy(os.path.join(cases, src), work)
        p = subprocess.run(["patch", "-s", "-p1"], input=d.stdout, cwd=work, capture_output=True, text=True)
        with open(os.path.join(work, src)) as f, open(fixed) as g:
            if p.returncode != 0 or f.read() != g.read():
                failures.append("%s: --diff does not patch the file into its rewrite (%s)" % (n, p.stderr))
        if report not in d.stderr:
            failures.append("%s: --diff does not print the report on stderr" % n)
        print("%-12s report, rewrite, fixed point, diff and compile ok" % n)

    # compile_commands.json instead of `--` flags (found beside the file, and through -p)
    db = os.path.join(tmp, "ccdb")
    os.makedirs(db)
    shutil.copy(os.path.join(cases, "macros.c"), db)
    with open(os.path.join(db, "compile_commands.json"), "w") as f:
        json.dump([{"directory": db, "file": "macros.c",
                    "arguments": [opt.cc] + flags + ["-c", "macros.c", "-o", "macros.o"]}], f)
    with open(os.path.join(cases, "macros.report")) as f:
        want = f.read()
    for args, cwd in ((["macros.c"], db), (["-p", db, os.path.join(db, "macros.c")], tmp)):
        r = run(args, cwd)
        got = "".join(l.replace(os.path.join(db, ""), "") + "\n" for l in r.stdout.splitlines()
                      if not l.startswith("mca hint:"))
        if r.returncode != 0 or got != want:
            failures.append("compile_commands.json %s: got\n%s%s" % (args, got, r.stderr))
    # JSON output
    j = os.path.join(tmp, "f.json")
    r = run(["--json", j, "loops.c", "--"] + flags, cases)
    with open(j) as f:
        doc = json.load(f)
    verdicts = [x["verdict"] for x in doc["findings"]]
    if doc["schema"] != "mca-hint/1" or verdicts != ["hint", "hint", "refused", "refused", "none"]:
        failures.append("--json: %s" % verdicts)
    # a file that does not compile is reported, not analysed
    bad = os.path.join(tmp, "bad.c")
    with open(bad, "w") as f:
        f.write("void f(void) { undeclared(; }\n")
    r = run([bad, "--"] + flags, tmp)
    if r.returncode != 1 or "does not compile" not in r.stderr:
        failures.append("broken input: exit %d, %s" % (r.returncode, r.stderr))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

for f in failures:
    print("FAIL " + f)
print("%d cases, %d failures" % (len(names), len(failures)))
sys.exit(1 if failures else 0)
