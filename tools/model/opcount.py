#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Counts the memory operations of one exchange from a valgrind lackey trace.

The driver (tools/model/opcount.c, built as model_opcount) runs one sender and
one receiver thread that alternate strictly, bracketing each send and each
receive with a store to a marker line. This script runs it under
`valgrind --tool=lackey --trace-mem=yes`, then walks the trace:

* every access between a side's begin and end markers belongs to that side;
* an access is *shared* when its address lies in a mapping of the domain
  partition (/dev/shm/mcx-*, printed by the driver) or the toy's shared page;
  addresses are translated to partition offsets, so two mappings of one
  partition name the same lines; everything else (stack, heap, libc) is
  *private*;
* lackey prints L (load), S (store) and M (modify: a read-modify-write
  instruction; every x86 locked instruction and xchg is one, and so is a plain
  `add` to memory) per instruction, and I per instruction executed;
* a two-cache coherence simulation (holders per 64-byte line) tells, per
  shared access, a local hit, a *transfer* (the line comes from the other
  side's cache), an *upgrade* (a store to a line both sides hold: the other
  copy is invalidated) or a cold miss (no cache holds it: set-up only).

The first W exchanges are warm-up: they drive the simulation but are not
counted. Counts per exchange = totals / K.

usage:
  opcount.py count --driver PATH [--out opcounts.json] [--exchanges K] [--quick]
  opcount.py toy --driver PATH [--exchanges K]
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCHEMA = "mca-model-opcounts/1"
LINE = 64
FIELDS = ("loads", "stores", "rmw", "lines", "transfers", "upgrades", "cold", "private", "instructions")

# (type, size) pairs counted by `count`; both locking modes each.
CONFIGS = [("message", 24), ("message", 8192), ("packet", 24), ("packet", 8192), ("scalar", 8)]
QUICK_CONFIGS = [("message", 24), ("scalar", 8)]


class TraceError(Exception):
    pass


def parse_info(text):
    """Reads the driver's stdout: mappings, shared range, markers, done line."""
    info = {"maps": [], "shared": None, "markers": {}, "done": None}
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "opcount.map" and len(f) >= 4:
            info["maps"].append((int(f[1], 16), int(f[2], 16), int(f[3], 16)))
        elif f[0] == "opcount.shared" and len(f) >= 3:
            info["shared"] = (int(f[1], 16), int(f[2], 16))
        elif f[0] == "opcount.marker" and len(f) >= 3:
            info["markers"][int(f[2], 16)] = f[1]
        elif f[0] == "opcount.done" and len(f) >= 3:
            info["done"] = (int(f[1]), int(f[2]))
    if info["done"] is None:
        raise TraceError("the driver did not finish (no 'opcount.done' line)")
    if len(info["markers"]) != 4:
        raise TraceError("the driver printed %d markers, 4 expected" % len(info["markers"]))
    if not info["maps"] and not info["shared"]:
        raise TraceError("no shared region: no /dev/shm/mcx-* mapping and no toy page")
    return info


def analyze(info, lines):
    """Walks lackey trace lines; returns per-side totals and the exchange count."""
    exchanges, warmup = info["done"]
    regions = list(info["maps"])
    if info["shared"]:
        lo, hi = info["shared"]
        regions.append((lo, hi, 0))
    markers = info["markers"]

    def shared_offset(addr):
        for lo, hi, off in regions:
            if lo <= addr < hi:
                return addr - lo + off
        return None

    tot = {s: dict.fromkeys(FIELDS, 0) for s in ("send", "recv")}
    holders = {}  # line -> set of sides holding a copy
    st = {"side": None, "counting": False, "t": None, "lines": set()}
    index = {"send": 0, "recv": 0}

    def access(kind, addr, size):
        side, t, counting = st["side"], st["t"], st["counting"]
        if kind == "S" and addr in markers:
            name = markers[addr]
            if name.endswith("_begin"):
                side = name[:4]
                index[side] += 1
                st.update(side=side, counting=index[side] > warmup, t=tot[side], lines=set())
            else:
                if side and counting:
                    t["lines"] += len(st["lines"])
                    t["instructions"] -= 1  # the end marker's own store instruction
                st["side"] = None
            return
        if side is None:
            return
        off = shared_offset(addr)
        if off is None:
            if counting:
                t["private"] += 1
            return
        if counting:
            t[{"L": "loads", "S": "stores", "M": "rmw"}[kind]] += 1
        for line in range(off // LINE, (off + max(size, 1) - 1) // LINE + 1):
            h = holders.get(line)
            if counting:
                st["lines"].add(line)
            if not h:
                what = "cold"
            elif kind == "L":
                what = None if side in h else "transfers"
            elif h == {side}:
                what = None
            else:
                what = "upgrades" if side in h else "transfers"
            if kind == "L":
                holders.setdefault(line, set()).add(side)
            else:
                holders[line] = {side}
            if what and counting:
                tot[side][what] += 1

    # VEX turns a locked add/xadd into a load followed by a compare-and-swap,
    # which lackey prints as "L a" then "M a" within one instruction: that
    # pair is one RMW. A load is therefore held back until the next event.
    pending = None
    for raw in lines:
        if not raw or raw[0] == "=":
            continue
        if raw[0] == "I":
            if pending:
                access(*pending)
                pending = None
            if st["side"] and st["counting"]:
                st["t"]["instructions"] += 1
            continue
        kind = raw[1]
        if kind not in "LSM":
            continue
        a, _, sz = raw[3:].partition(",")
        ev = (kind, int(a, 16), int(sz) if sz.strip().isdigit() else 1)
        if pending:
            if kind == "M" and ev[1:] == pending[1:]:
                pending = None
            else:
                access(*pending)
                pending = None
        if kind == "L":
            pending = ev
        else:
            access(*ev)
    if pending:
        access(*pending)
    if index["send"] != exchanges + warmup or index["recv"] != exchanges + warmup:
        raise TraceError("the trace holds %d sends and %d receives, %d expected"
                         % (index["send"], index["recv"], exchanges + warmup))
    per = {s: {k: round(v / exchanges, 3) for k, v in tot[s].items()} for s in tot}
    per["total"] = {k: round(per["send"][k] + per["recv"][k], 3) for k in FIELDS}
    return per, exchanges


def run_traced(driver, args, valgrind="valgrind"):
    """Runs the driver under lackey; returns (per-exchange counts, exchanges)."""
    if not shutil.which(valgrind):
        raise FileNotFoundError("valgrind not found")
    with tempfile.TemporaryDirectory(prefix="mca-opcount-") as tmp:
        log = os.path.join(tmp, "trace.txt")
        env = dict(os.environ)
        env["MCX_NAMESPACE"] = "opcount%d" % os.getpid()
        cmd = [valgrind, "--tool=lackey", "--trace-mem=yes", "--log-file=" + log, driver] + args
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            raise TraceError("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-400:]))
        info = parse_info(p.stdout)
        with open(log, errors="replace") as f:
            return analyze(info, f)


def valgrind_version(valgrind="valgrind"):
    try:
        return subprocess.run([valgrind, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return None


def git_commit(src):
    try:
        p = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True)
        return p.stdout.strip() or None
    except OSError:
        return None


def count_all(driver, exchanges=200, warmup=20, quick=False, progress=sys.stderr):
    rows = []
    for typ, size in (QUICK_CONFIGS if quick else CONFIGS):
        for locking in ("lockfree", "global"):
            if progress:
                print("opcount: %s %s %d B ..." % (typ, locking, size), file=progress, flush=True)
            per, k = run_traced(driver, ["exchange", "--type", typ, "--locking", locking, "--size", str(size),
                                         "--exchanges", str(exchanges), "--warmup", str(warmup)])
            rows.append({"type": typ, "locking": locking, "size": size, **per})
    return {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": git_commit(os.path.dirname(os.path.abspath(__file__))),
        "tool": valgrind_version(),
        "method": "valgrind --tool=lackey --trace-mem=yes on model_opcount (tools/model/opcount.c): "
                  "strictly alternating send/receive between two threads (nodes 1 and 2 of one domain), "
                  "accesses classified by the partition's address range and by marker windows; "
                  "transfers/upgrades from a two-cache simulation of 64-byte lines",
        "exchanges": exchanges,
        "warmup": warmup,
        "counts": rows,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(prog="opcount.py", description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["count", "toy"])
    ap.add_argument("--driver", required=True, help="the model_opcount executable")
    ap.add_argument("--out", help="write the JSON here (count); default: stdout")
    ap.add_argument("--exchanges", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="count message 24 B and scalar only")
    a = ap.parse_args(argv)
    if not os.access(a.driver, os.X_OK):
        sys.exit("opcount: driver %s is not an executable" % a.driver)
    try:
        if a.mode == "toy":
            per, _ = run_traced(a.driver, ["toy", "--exchanges", str(a.exchanges), "--warmup", str(a.warmup)])
            out = {"schema": SCHEMA, "toy": per}
        else:
            out = count_all(a.driver, a.exchanges, a.warmup, a.quick)
    except FileNotFoundError as e:
        print("opcount: %s" % e, file=sys.stderr)
        return 77
    except TraceError as e:
        print("opcount: %s" % e, file=sys.stderr)
        return 1
    text = json.dumps(out, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
        print("opcount: wrote %s" % a.out, file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
