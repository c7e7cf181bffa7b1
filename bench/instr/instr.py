#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions and locked instructions per data-path hand-off, under callgrind.

Runs mca_instr_driver once per case (and per locking mode for the libmca
cases) under `valgrind --tool=callgrind --toggle-collect=instr_measure
--dump-instr=yes`, so only the measured loop is counted, driver loop
included. Locked instructions are found by disassembling the (statically
linked) driver with objdump and summing the execution counts of the
instructions with a lock prefix or an implicit lock (xchg with memory);
that part is x86-64 only and says "not supported" elsewhere.

Instruction counts do not depend on what else the machine does, so a change
to the data path can be judged by them on a noisy machine.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "..", "tools", "mca"))  # mca_cli.py, in the sources
import mca_cli  # noqa: E402

LIBMCA_CASES = ["msg24", "scl64", "pkt24", "pktc24", "pktb24", "pktcb24", "pkt1k", "pktc1k",
                "pktb1k", "pktcb1k", "pkt8k", "pktc8k", "pktb8k", "pktcb8k", "msg8k"]
# (label, libmca case, bare ring, ck, boost, target per pair). Packets: every row
# counts send (or claim + commit) + recv + release; "ready item" rows copy the
# driver's item, "built" rows write each item whole (sequence number and fill)
# where it is sent from: the producer's own buffer (then the send copies it) or
# the claim.
ROWS = [
    ("24 B message (send + recv)", "msg24", "ring_msg24", "ck_msg24", "boost_msg24", 150),
    ("uint64 scalar (send + recv)", "scl64", "ring_scl64", "ck_scl64", "boost_scl64", 80),
    ("24 B packet (send + recv + release)", "pkt24", "ring_pkt24", None, None, 200),
    ("24 B packet, ready item copied into a claim", "pktc24", None, None, None, None),
    ("24 B packet built in own buffer, sent", "pktb24", None, None, None, None),
    ("24 B packet built in a claim, committed", "pktcb24", None, None, None, None),
    ("1 KiB packet (send + recv + release)", "pkt1k", None, None, None, None),
    ("1 KiB packet, ready item copied into a claim", "pktc1k", None, None, None, None),
    ("1 KiB packet built in own buffer, sent", "pktb1k", None, None, None, None),
    ("1 KiB packet built in a claim, committed", "pktcb1k", None, None, None, None),
    ("8 KiB packet (send + recv + release)", "pkt8k", None, None, None, None),
    ("8 KiB packet, ready item copied into a claim", "pktc8k", None, None, None, None),
    ("8 KiB packet built in own buffer, sent", "pktb8k", None, None, None, None),
    ("8 KiB packet built in a claim, committed", "pktcb8k", None, None, None, None),
    ("8 KiB message (send + recv)", "msg8k", "ring_msg8k", None, None, None),
]


def fail(msg, code=2):
    mca_cli.die("bench", msg, code)


def parse_callgrind(path):
    """Per-address self Ir of the collected part (the first position is the address)."""
    counts = {}
    total = 0
    addr = 0
    npos = 1
    skip_next = False
    with open(path) as f:
        for line in f:
            if line.startswith("positions:"):
                pos_kinds = line.split()[1:]
                if not pos_kinds or pos_kinds[0] != "instr":
                    fail("callgrind output without instruction positions", 1)
                npos = len(pos_kinds)
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                if line.startswith("calls="):
                    skip_next = True
                continue
            parts = line.split()
            if len(parts) <= npos:
                continue
            pos = parts[0]
            if pos[0] == "+":
                addr += int(pos[1:], 0)
            elif pos[0] == "-":
                addr -= int(pos[1:], 0)
            elif pos != "*":
                addr = int(pos, 0)
            if skip_next:  # the inclusive cost of a call, not this address's own
                skip_next = False
                continue
            ir = int(parts[npos])
            counts[addr] = counts.get(addr, 0) + ir
            total += ir
    return total, counts


LOCKED_RE = re.compile(r"\block\b|\bxchg\w*\s+[^,]*\(|\bxchg\w*\s+.*,.*\(")


def locked_addresses(exe):
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    objdump = shutil.which("objdump")
    if not objdump:
        return None
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", exe], capture_output=True,
                         text=True, check=True).stdout
    addrs = set()
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m and LOCKED_RE.search(m.group(2)):
            addrs.add(int(m.group(1), 16))
    return addrs


def run_case(driver, case, n, env_extra, locked):
    with tempfile.TemporaryDirectory(prefix="mca_instr.") as tmp:
        out = os.path.join(tmp, "cg.out")
        env = dict(os.environ, **env_extra)
        cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=instr_measure",
               "--dump-instr=yes", "--callgrind-out-file=" + out, driver, case, str(n)]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if p.returncode != 0:
            tail = "\n".join(p.stderr.splitlines()[-5:])
            fail(f"{case}: the driver failed under callgrind:\n{tail}", 1)
        total, counts = parse_callgrind(out)
    res = {"instr": total / n}
    if locked is not None:
        res["locked"] = sum(c for a, c in counts.items() if a in locked) / n
    return res


def main():
    ap = mca_cli.Parser("bench", prog="mca bench --instr", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", help=argparse.SUPPRESS)  # mca_instr_driver, given by `mca bench`
    ap.add_argument("--count", type=mca_cli.whole(1), default=20000,
                    help="hand-offs counted per case (default 20000)")
    ap.add_argument("--modes", default="lockfree,global",
                    help="locking modes for the libmca cases (default lockfree,global)")
    ap.add_argument("--json", help="write the results as JSON to this file ('-': stdout, the table then on "
                                   "stderr)")
    a = ap.parse_args()
    modes = [m for m in a.modes.split(",") if m]
    for m in modes:
        if m not in ("lockfree", "global", "kernel"):
            fail(f"--modes: unknown locking mode '{m}' (lockfree, global, kernel)")
    if a.json and a.json != "-":
        d = os.path.dirname(os.path.abspath(a.json))
        if not os.access(d, os.W_OK):
            fail(f"--json {a.json}: directory {d} does not exist or is not writable")
    if not a.driver or not os.access(a.driver, os.X_OK):
        fail(f"--instr: cannot run the driver mca_instr_driver ({a.driver or 'not found beside mca'})")
    if a.json == "-":
        sys.stdout = sys.stderr  # the table; the JSON goes to the real standard output
    if not shutil.which("valgrind"):
        fail("--instr: valgrind is not installed (scripts/deps.sh installs it)", 1)
    available = set(subprocess.run([a.driver, "--list"], capture_output=True, text=True,
                                   check=True).stdout.split())
    locked = locked_addresses(a.driver)
    results = {}
    for label, mine, ring, ck, boost, target in ROWS:
        row = {}
        for m in modes if mine in available else ():  # 8 KiB packets: MCAPI_MAX_PKT_SIZE >= 8192
            row["libmca " + m] = run_case(a.driver, mine, a.count, {"MCX_LOCKING": m}, locked)
        for name, case in (("bare ring", ring), ("ck_ring", ck), ("boost spsc", boost)):
            if case and case in available:
                row[name] = run_case(a.driver, case, a.count, {}, locked)
        results[label] = {"target": target, "subjects": row}
    # table
    cols = [f"libmca {m}" for m in modes] + ["bare ring", "ck_ring", "boost spsc"]
    print("Instructions per hand-off under callgrind (driver loop included; "
          f"{a.count} hand-offs per case; locked instructions in brackets"
          + ("" if locked is not None else ", locked: not supported on this machine") + ")")
    print(f"{'hand-off':46s}" + "".join(f"{c:>18s}" for c in cols) + f"{'target':>8s}")
    for label, r in results.items():
        cells = []
        for c in cols:
            v = r["subjects"].get(c)
            if v is None:
                cells.append(f"{'—':>18s}")
            else:
                lk = f" [{v['locked']:.0f}]" if "locked" in v else ""
                cells.append(f"{v['instr']:>13.0f}{lk:>5s}")
        t = r["target"]
        print(f"{label:46s}" + "".join(cells) + (f"{'<= ' + str(t):>8s}" if t else f"{'':>8s}"))
    first = f"libmca {modes[0]}" if modes else None
    verdicts = []
    for label, r in results.items():
        if first and r["target"] and first in r["subjects"]:
            ok = r["subjects"][first]["instr"] <= r["target"]
            verdicts.append(ok)
            print(f"  {label}: {r['subjects'][first]['instr']:.0f} vs target {r['target']}: "
                  + ("met" if ok else "missed"))
    doc = {"schema": "mca.instr", "version": 1,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "machine": platform.machine(), "count": a.count, "modes": modes,
           "locked_supported": locked is not None, "results": results}
    if a.json == "-":
        json.dump(doc, sys.__stdout__, indent=1)
        print(file=sys.__stdout__)
    elif a.json:
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
