#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Holds the data path to its instruction budget (bench/instr/budget.json).

Runs `mca bench --instr` for the locking modes the budget names and fails
when a hand-off takes more instructions than its budget allows (the budget
times 1 + its tolerance) or more locked instructions than its budget.
Instruction counts under callgrind do not depend on the machine's load, so
this is a test of the code, not of the clock. The counts depend on the
compiler, the architecture and the build, so a build that differs from the
budget's (compiler major version, machine, build type, LTO) is skipped with
the reason (exit 77). Copy-heavy cases (1 KiB packet, 8 KiB message) get a
wider tolerance: their count is mostly libc's memcpy, which libc picks for
the CPU.

  budget_check.py MCA BUDGET_JSON --compiler "GNU 12.2.0" --machine x86_64
                  --build-type RelWithDebInfo --lto ON|OFF [--results JSON]

--results checks the results of an earlier `mca bench --instr --json` run
instead of running it (the checker's own test uses a run over budget).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mca")
    ap.add_argument("budget")
    ap.add_argument("--compiler", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--build-type", required=True)
    ap.add_argument("--lto", required=True)
    ap.add_argument("--results", help="check this mca bench --instr JSON instead of running it")
    a = ap.parse_args()
    with open(a.budget) as f:
        b = json.load(f)
    mine = {"compiler": " ".join(a.compiler.split()[:1] + [a.compiler.split()[1].split(".")[0]])
            if len(a.compiler.split()) > 1 else a.compiler,
            "machine": a.machine, "build_type": a.build_type,
            "lto": a.lto.upper() in ("ON", "1", "TRUE", "YES")}
    for k, v in mine.items():
        if b[k] != v and not a.results:
            print(f"instr_budget: skipped: the budget is for {k} {b[k]!r}, this build has {v!r}")
            return 77
    modes = sorted({m for c in b["budgets"].values() for m in c if m in ("lockfree", "global", "kernel")})
    if a.results:
        with open(a.results) as f:
            got = json.load(f)
    else:
        got = run(a.mca, b["count"], modes)
        if got is None:
            return 1
    return check(b, got, modes)


def run(mca, count, modes):
    """mca bench --instr's JSON document, or None when it failed."""
    with tempfile.TemporaryDirectory(prefix="mca_budget.") as tmp:
        out = os.path.join(tmp, "instr.json")
        p = subprocess.run([mca, "bench", "--instr", "--count", str(count), "--modes", ",".join(modes),
                            "--json", out], capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            print(f"instr_budget: mca bench --instr exited {p.returncode}")
            return None
        with open(out) as f:
            return json.load(f)


def check(b, got, modes):
    """0 when every hand-off is within its budget, 1 otherwise (each one printed)."""
    bad = 0
    for case, budget in b["budgets"].items():
        row = got["results"].get(budget["label"])
        if row is None:
            print(f"instr_budget: {case}: no row '{budget['label']}' in mca bench --instr's results")
            bad = 1
            continue
        tol = b["tolerance"][budget["tolerance"]]
        for m in modes:
            if m not in budget:
                continue
            have = row["subjects"].get("libmca " + m)
            if have is None:
                print(f"instr_budget: {case} {m}: not measured")
                bad = 1
                continue
            want = budget[m]
            limit = want["instr"] * (1 + tol)
            verdict = "ok"
            if have["instr"] > limit:
                verdict = f"OVER BUDGET (limit {limit:.0f})"
                bad = 1
            elif have["instr"] < want["instr"] * (1 - tol):
                verdict = "ok, below budget: lower the budget in bench/instr/budget.json"
            if got.get("locked_supported") and have.get("locked", 0) > want["locked"] + 0.01:
                verdict += f"; locked {have['locked']:.2f} OVER BUDGET {want['locked']}"
                bad = 1
            print(f"instr_budget: {case:6s} {m:8s} {have['instr']:8.1f} instructions"
                  f" (budget {want['instr']}, +{tol:.0%}), locked {have.get('locked', float('nan')):.0f}"
                  f" (budget {want['locked']}): {verdict}")
    if bad:
        print("instr_budget: a hand-off exceeds its budget. Make it cheaper, or raise its budget in "
              "bench/instr/budget.json in the same commit and say why.")
    return bad


if __name__ == "__main__":
    sys.exit(main())
