#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mca model: the performance model of the message exchange (docs/model.md).

usage: model.py BENCH.json [--opcounts FILE] [--json OUT] [--calibrate] [--sim]
       model.py --run [--mca MCA] ...        (runs `mca bench --quick --no-peers --no-scale` first)
       model.py --count [--quick] [--driver model_opcount] [--opcounts FILE]

The interconnect (the coherence fabric and memory behind it) is one
queueing station that every core queues for; each core is a customer that
alternates between local work (a delay station: its cache hits and
uncontended atomics) and the station (its coherence transactions: a line
pulled from the other core's cache, or another core's copy invalidated).
Operations per exchange come from the implementation (opcounts.json, written
by `--count`: valgrind lackey on tools/model/opcount.c); costs come from this
machine (L from the bench JSON, hit / memory / RMW costs from
`model_opcount calibrate`). Solved by exact mean-value analysis and, for what
the closed form cannot express (deterministic service, bursts, several
channels sharing cores), by a SimPy discrete-event simulation.

Lock-free cells with one side per core are predicted by the stream model
instead: per item, the hand-off's instructions (timed natively), the copies
at the memcpy bandwidth between the cores, and the coherence transfers with
as many lines in flight as the probe measured (`model_opcount probe`), in
three regimes (pipelined, caught up, serialized).
"""
import argparse
import datetime
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "mca"))  # mca_cli.py, in the sources
import mca_cli  # noqa: E402
from mca_cli import NUM  # noqa: E402

SCHEMA = "mca-model/1"
BENCH_SCHEMA = "mca-bench/1"
OPCOUNT_SCHEMA = "mca-model-opcounts/1"
# In the source and build trees the counts sit beside the script; installed, the
# scripts are in libexec/mca and the counts in share/mca/model.
DATA = HERE if os.path.exists(os.path.join(HERE, "opcounts.json")) else os.path.join(HERE, "..", "..", "share", "mca", "model")
STOP_RATIO = 0.8
# Measured above this multiple of the predicted ceiling, the model does not apply to the cell.
APPLY_RATIO = 1.25
SIDE_FIELDS = ("loads", "stores", "rmw", "transfers", "upgrades", "cold", "private", "instructions")
CALIB_FIELDS = ("hit_ns", "mem_ns", "rmw_ns")
# A cell agrees with the model when measured / predicted lies in [AGREE_LO, AGREE_HI].
AGREE_LO, AGREE_HI = 0.5, 2.0
PROBE_FIELDS = ("line_transfer_ns", "lines_in_flight", "store_lines_in_flight", "memcpy_xcore_bytes_per_ns",
                "memcpy_local_bytes_per_ns")
# The hand-off loops of mca_instr_driver timed natively, per exchange type: (case, payload bytes).
HANDOFF_CASES = {"message": (("msg24", 24), ("msg8k", 8192)), "scalar": (("scl64", 8),), "packet": (("pkt24", 24),)}


class ModelError(Exception):
    """A problem with the inputs, reported as `mca model: <message>`."""


# ---- the closed form ---------------------------------------------------------------------


def mva(customers, think, demand):
    """Exact MVA of a closed network: one delay station (mean think time Z per
    cycle) and one FCFS queueing station (mean demand D per cycle).

    Returns a list, one entry per population n = 1..customers, of dicts with
    X (cycles per unit time), R (residence time at the station), Q (mean
    queue at the station) and U (station utilization)."""
    if not isinstance(customers, int) or customers < 1:
        raise ModelError("the number of cores (customers) must be an integer >= 1, got %r" % (customers,))
    if think < 0 or demand < 0 or (think == 0 and demand == 0):
        raise ModelError("think time and demand must be >= 0 and not both 0 (Z=%r, D=%r)" % (think, demand))
    out, q = [], 0.0
    for n in range(1, customers + 1):
        r = demand * (1.0 + q)
        x = n / (think + r)
        q = x * r
        out.append({"n": n, "X": x, "R": r, "Q": q, "U": x * demand})
    return out


def bounds(customers, think, demand):
    """Asymptotic bounds: X <= min(N / (Z + D), 1 / D)."""
    lim = customers / (think + demand)
    return min(lim, 1.0 / demand) if demand > 0 else lim


# ---- the simulation ----------------------------------------------------------------------


def simulate(cores, think, demand, channels=1, dist="exp", cycles=20000, seed=1, burst=1, burst_think=None):
    """Discrete-event simulation (SimPy) of the same network, and more.

    cores: CPUs; channels: sender/receiver pairs, side k of channel c runs
    on core (2c + k) % cores and holds its core while it works and while it
    waits for the station (a core does one thing at a time). The station
    serves FIFO, one transaction set at a time. dist: "exp" (exponential
    think and service: the MVA's product form) or "det" (fixed times, closer
    to hardware). burst: cycles issued back to back before a think of
    burst_think (default: burst * think, so the mean load is the same).
    Returns X (cycles per unit time over all customers), U (station
    utilization), R (mean station residence) and the number of cycles."""
    try:
        import simpy
    except ImportError:
        raise ModelError("the simulation needs SimPy (scripts/deps.sh installs it: pip install simpy)")
    if cores < 1 or channels < 1:
        raise ModelError("cores and channels must be >= 1 (cores=%r, channels=%r)" % (cores, channels))
    rng = random.Random(seed)
    env = simpy.Environment()
    station = simpy.Resource(env, capacity=1)
    cpus = [simpy.Resource(env, capacity=1) for _ in range(cores)]
    stats = {"done": 0, "busy": 0.0, "resid": 0.0}
    customers = 2 * channels
    target = cycles
    bt = burst * think if burst_think is None else burst_think

    def draw(mean):
        if mean <= 0:
            return 0.0
        return rng.expovariate(1.0 / mean) if dist == "exp" else mean

    def customer(i):
        cpu = cpus[i % cores]
        k = 0
        while stats["done"] < target:
            with cpu.request() as c:
                yield c
                z = draw(think if burst == 1 else (bt if k % burst == 0 else 0.0))
                if z:
                    yield env.timeout(z)
                t0 = env.now
                with station.request() as s:
                    yield s
                    d = draw(demand)
                    yield env.timeout(d)
                    stats["busy"] += d
                stats["resid"] += env.now - t0
            stats["done"] += 1
            k += 1

    for i in range(customers):
        env.process(customer(i))
    env.run()
    t = env.now
    return {"X": stats["done"] / t, "U": stats["busy"] / t, "R": stats["resid"] / stats["done"],
            "cycles": stats["done"], "customers": customers}


# ---- inputs ------------------------------------------------------------------------------


def load_json(path, what):
    try:
        return mca_cli.load_json(path, what)
    except mca_cli.InputError as e:
        raise ModelError(str(e))


def check_shape(v, shape, where):
    try:
        mca_cli.check_shape(v, shape, where)
    except mca_cli.InputError as e:
        raise ModelError(str(e))


# What the model reads of a bench result (docs/benchmarks.md) without asking.
STAT = ({"median?": NUM, "min?": NUM, "max?": NUM, "n?": NUM}, NUM)
BENCH_SHAPE = {"cells": [{"id": str, "kind": str, "status": str, "type?": str, "locking?": str, "size?": NUM,
                          "placement?": str, "wait?": str, "transport?": str, "process?": str,
                          "summary?": {"items_per_s?": STAT, "rtt_p50_ns?": STAT, "*": (dict, NUM, None)}}],
               "machine": {"cpus": NUM, "cpu?": str}, "L_ns": [(NUM, None)], "config?": {"cpus?": [NUM]},
               "model_inputs?": dict}
SIDE = {k: NUM for k in SIDE_FIELDS}
OPCOUNTS_SHAPE = {"counts": [{"type": str, "locking": str, "size": NUM, "send": SIDE, "recv": SIDE}],
                  "calibration": {k: NUM for k in CALIB_FIELDS}}


def check_bench(d, path):
    if not isinstance(d, dict) or d.get("schema") != BENCH_SCHEMA:
        raise ModelError("%s is not a mca bench result (schema %r expected)" % (path, BENCH_SCHEMA))
    check_shape(d, BENCH_SHAPE, path)
    cpus = d["machine"]["cpus"]
    if not isinstance(cpus, int) or cpus < 1:
        raise ModelError("%s: machine.cpus must be >= 1 (zero cores cannot run an exchange), got %r" % (path, cpus))
    ls = [x for x in d["L_ns"] if isinstance(x, (int, float)) and x > 0]
    if not ls:
        raise ModelError("%s: L_ns holds no positive cache-line round trip (needs 2 CPUs)" % path)
    if not any(c["kind"] == "libmca" and c["status"] == "ok" for c in d["cells"]):
        raise ModelError("%s: no libmca cell that ran (status ok): nothing to model" % path)
    return statistics.median(ls)


def check_opcounts(d, path):
    if not isinstance(d, dict) or d.get("schema") != OPCOUNT_SCHEMA:
        raise ModelError("%s is not an operation count file (schema %r expected; `mca model --count` writes one)"
                         % (path, OPCOUNT_SCHEMA))
    check_shape(d, OPCOUNTS_SHAPE, path)
    if not d["counts"]:
        raise ModelError("%s: 'counts' is empty" % path)


def find_driver(explicit=None, mca=None):
    cands = [explicit] if explicit else []
    if mca:
        b = os.path.dirname(os.path.abspath(mca))
        cands += [os.path.join(b, "model_opcount"), os.path.join(b, "..", "libexec", "mca", "model_opcount")]
    cands.append(os.path.join(HERE, "model_opcount"))
    cands.append(os.path.join(HERE, "..", "..", "build", "default", "tools", "mca", "model_opcount"))
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    raise ModelError("cannot find the model_opcount driver (looked at %s); build it or pass --driver"
                     % ", ".join(c for c in cands if c))


def calibrate(driver):
    p = subprocess.run([driver, "calibrate"], capture_output=True, text=True)
    if p.returncode != 0:
        raise ModelError("%s calibrate failed: %s" % (driver, p.stderr.strip()))
    return json.loads(p.stdout)


# ---- the model of one exchange -----------------------------------------------------------


def interp_counts(rows, typ, locking, size):
    """The count row for (type, locking, size): exact, or linear in size
    between (and beyond) the two nearest counted sizes (copies grow linearly)."""
    cand = sorted((r for r in rows if r["type"] == typ and r["locking"] == locking), key=lambda r: r["size"])
    if not cand:
        return None, None
    for r in cand:
        if r["size"] == size or typ == "scalar":
            return r, "counted"
    if len(cand) == 1:
        return cand[0], "nearest size %d B" % cand[0]["size"]
    lo, hi = (cand[0], cand[1]) if size < cand[1]["size"] else (cand[-2], cand[-1])
    for a, b in zip(cand, cand[1:]):
        if a["size"] <= size <= b["size"]:
            lo, hi = a, b
    f = (size - lo["size"]) / float(hi["size"] - lo["size"])
    out = {"type": typ, "locking": locking, "size": size}
    for side in ("send", "recv"):
        out[side] = {k: max(0.0, lo[side][k] + f * (hi[side][k] - lo[side][k])) for k in SIDE_FIELDS}
    return out, "interpolated %d-%d B" % (lo["size"], hi["size"])


def side_costs(s, cal, sx, local):
    """(Z, D) of one side in ns: local work, and demand at the station."""
    z = (s["private"] + s["loads"] + s["stores"]) * cal["hit_ns"] + s["rmw"] * cal["rmw_ns"]
    trans = 0.0 if local else s["transfers"] + s["upgrades"]
    d = trans * sx + s["cold"] * cal["mem_ns"]
    return z, d


def exchange_model(row, cal, L, cores):
    """Predictions for one exchange type in one mode on `cores` cores (1 or 2)."""
    sx = L / 4.0
    local = cores == 1
    zs, ds = side_costs(row["send"], cal, sx, local)
    zr, dr = side_costs(row["recv"], cal, sx, local)
    # Customers cycle through one side each (averaged); an exchange is one
    # send cycle plus one receive cycle.
    z, d = (zs + zr) / 2.0, (ds + dr) / 2.0
    n = 1 if local else 2
    if d == 0:
        x_cyc = n / z  # nothing at the station: each core is its own bottleneck
        res = {"X": x_cyc, "U": 0.0, "R": 0.0, "Q": 0.0}
    else:
        res = mva(n, z, d)[-1]
    per_ns = res["X"]
    return {
        "cores": cores,
        "Z_send_ns": zs, "Z_recv_ns": zr, "D_send_ns": ds, "D_recv_ns": dr,
        "transactions": 0.0 if local else row["send"]["transfers"] + row["send"]["upgrades"]
        + row["recv"]["transfers"] + row["recv"]["upgrades"],
        "items_per_s": per_ns / 2.0 * 1e9,
        "utilization": res["U"] if d else 0.0,
        "bound_items_per_s": bounds(n, z, d) / 2.0 * 1e9 if d else n / z / 2.0 * 1e9,
        "rtt_ns": 2.0 * (zs + zr + ds + dr),
    }


def figure6(row, cal, L, points=21):
    """Seed 000's Figure 6: throughput and station utilization against the
    cache hit rate h, one core vs two. Every memory operation of the exchange
    (shared and private) hits with probability h at hit_ns; a miss goes to
    the station: from memory (mem_ns) on one core, from the other core's
    cache (L/4 per transaction, as calibrated) on two."""
    ops = sum(row[s][k] for s in ("send", "recv") for k in ("loads", "stores", "rmw", "private")) / 2.0
    rmw = (row["send"]["rmw"] + row["recv"]["rmw"]) / 2.0
    curves = {}
    for cores, miss in ((1, cal["mem_ns"]), (2, L / 4.0)):
        pts = []
        for i in range(points):
            h = i / float(points - 1)
            z = ops * h * cal["hit_ns"] + rmw * cal["rmw_ns"]
            d = ops * (1.0 - h) * miss
            if d == 0:
                pts.append({"h": h, "items_per_s": cores / z / 2.0 * 1e9, "utilization": 0.0})
                continue
            r = mva(cores, z, d)[-1]
            pts.append({"h": h, "items_per_s": r["X"] / 2.0 * 1e9, "utilization": r["U"]})
        curves[str(cores)] = pts
    return {"exchange": "%s %s %d B" % (row["type"], row["locking"], row["size"]), "ops_per_side": ops,
            "miss_ns": {"1": cal["mem_ns"], "2": L / 4.0}, "curves": curves}


def med(v):
    """A summary figure: a number, or {"median", "min", "max", "n"}."""
    if isinstance(v, dict):
        v = v.get("median")
    return v if isinstance(v, (int, float)) and v > 0 else None


# ---- the stream model: what a two-core stream gets from the hardware -----------------


def check_inputs(mi, where):
    """The stream model's measured inputs (docs/model.md): the probe between the two CPUs and
    the hand-off times. Returns them, or raises ModelError naming what is missing."""
    if not isinstance(mi, dict):
        raise ModelError("%s: model_inputs must be an object" % where)
    pr = mi.get("probe")
    if not isinstance(pr, dict):
        raise ModelError("%s: model_inputs is missing 'probe' (`model_opcount probe`)" % where)
    for k in PROBE_FIELDS:
        v = pr.get(k)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
            raise ModelError("%s: model_inputs.probe.%s must be a positive number, got %r" % (where, k, v))
    ho = mi.get("handoff_ns")
    if not isinstance(ho, dict) or not ho:
        raise ModelError("%s: model_inputs is missing 'handoff_ns' (`mca_instr_driver --time`)" % where)
    for t, sizes in ho.items():
        if not isinstance(sizes, dict) or not sizes or any(
                not str(k).isdigit() or not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0
                for k, v in sizes.items()):
            raise ModelError("%s: model_inputs.handoff_ns.%s must map sizes to positive ns, got %r" % (where, t, sizes))
    return mi


def measure_inputs(mca, driver, cpus):
    """Measures the stream model's inputs now, pinned to the bench's first two CPUs: the
    probe (`model_opcount probe`) and the native hand-off times (`mca_instr_driver --time`)."""
    a, b = (cpus + [0, 1])[:2] if len(cpus) >= 2 else (0, 1)
    p = subprocess.run([driver, "probe", "--cpus", "%d,%d" % (a, b)], capture_output=True, text=True)
    if p.returncode != 0:
        raise ModelError("%s probe failed: %s" % (driver, p.stderr.strip()))
    probe = json.loads(p.stdout)
    instr = None
    cands = []
    if mca:
        cands.append(os.path.join(os.path.dirname(os.path.abspath(mca)), "mca_instr_driver"))
        cands.append(os.path.join(os.path.dirname(os.path.abspath(mca)), "..", "libexec", "mca", "mca_instr_driver"))
    cands.append(os.path.join(os.path.dirname(os.path.abspath(driver)), "mca_instr_driver"))
    for c in cands:
        if os.access(c, os.X_OK):
            instr = c
            break
    if not instr:
        raise ModelError("cannot find mca_instr_driver (looked at %s)" % ", ".join(cands))
    ho = {}
    pin = (lambda: os.sched_setaffinity(0, {b})) if hasattr(os, "sched_setaffinity") else None
    for typ, cases in HANDOFF_CASES.items():
        for case, size in cases:
            q = subprocess.run([instr, "--time", case, "200000"], capture_output=True, text=True,
                               env=dict(os.environ, MCX_LOCKING="lockfree"), preexec_fn=pin)
            if q.returncode != 0:
                raise ModelError("%s --time %s failed: %s" % (instr, case, q.stderr.strip()))
            v = [float(x.split()[1]) for x in q.stdout.splitlines() if x.startswith("ns_per_iteration ")]
            if not v:
                raise ModelError("%s --time %s printed no ns_per_iteration" % (instr, case))
            ho.setdefault(typ, {})[str(size)] = v[0]
    return {"probe": probe, "handoff_ns": ho, "cpus": [a, b],
            "method": "model_opcount probe --cpus %d,%d; mca_instr_driver --time CASE 200000 on CPU %d "
                      "(lock-free, one core, median of 5 runs)" % (a, b, b)}


def handoff_ns(mi, typ, size):
    """ns one core spends on one hand-off (send + receive) of `size` bytes: the timed size, or
    linear in size between (and beyond) the timed sizes; one timed size: plus local copies."""
    pts = sorted((int(k), v) for k, v in (mi["handoff_ns"].get(typ) or {}).items())
    if not pts:
        return None
    if typ == "scalar" or len(pts) == 1:
        s0, v0 = pts[0]
        extra = 0.0 if typ == "scalar" else 2.0 * max(0, size - s0) / mi["probe"]["memcpy_local_bytes_per_ns"]
        return v0 + extra
    lo, hi = pts[0], pts[1]
    for a, b in zip(pts, pts[1:]):
        lo, hi = a, b
        if size <= b[0]:
            break
    return max(pts[0][1] * 0.5, lo[1] + (size - lo[0]) * (hi[1] - lo[1]) / float(hi[0] - lo[0]))


# Which regime a stream of each exchange type runs in, from the code's structure (docs/model.md).
REGIME = {"scalar": "pipelined", "message": "caught_up", "packet": "serialized"}
REGIME_WHY = {
    "pipelined": "transfers overlap (lines in flight); per item the slower side's instructions or the "
                 "transfers divided by the lines in flight",
    "caught_up": "the receiver waits on the slot the sender writes next: one line round trip per item in "
                 "series with the slower side's instructions and both copies",
    "serialized": "every transfer of an item waits for the previous one (the buffer returns through the pool): "
                  "both sides' instructions, both copies and every transfer in series",
}


def stream_model(row, mi, typ, size):
    """Per-item time of a stream between two cores, in the three regimes, in ns; None when the
    inputs lack the exchange type. `row`: the operation counts of the item's control lines."""
    h = handoff_ns(mi, typ, size)
    if h is None:
        return None
    pr = mi["probe"]
    lt, m, ms = pr["line_transfer_ns"], max(1.0, pr["lines_in_flight"]), max(1.0, pr["store_lines_in_flight"])
    ins = row["send"]["instructions"] + row["recv"]["instructions"]
    fs = row["send"]["instructions"] / ins if ins > 0 else 0.5
    # each side copies the payload once; across cores the lines stream at memcpy_xcore instead
    # of memcpy_local (the local part is in the hand-off time already). Both copies cross the one
    # link between the two cores that memcpy_xcore was measured on, one copy at a time, so they
    # share it: the fabric carries 2 x copy per item, whichever regime.
    # Bytes beyond what the slot line of the counted (smallest) size carries are payload lines of
    # their own: the receiver waits one line transfer for the first of them, the rest stream.
    nbytes = 0 if typ == "scalar" else max(0, size - row["size"])
    copy = max(0.0, nbytes / pr["memcpy_xcore_bytes_per_ns"] - nbytes / pr["memcpy_local_bytes_per_ns"])
    first = lt if nbytes > 0 else 0.0
    side_s, side_r = h * fs, h * (1.0 - fs)
    xt = sum(row[s]["transfers"] for s in ("send", "recv"))
    xu = sum(row[s]["upgrades"] for s in ("send", "recv"))
    x = xt + xu
    # overlapped: a line pulled in (transfer) goes at the loads' lines in flight, an upgrade (a
    # store to a line the other core holds) at the stores'
    flight = xt * lt / m + xu * lt / ms
    t = {
        "pipelined": max(side_s, side_r, flight + 2.0 * copy),
        "caught_up": max(side_s, side_r) + first + 2.0 * copy + 2.0 * lt,
        "serialized": side_s + side_r + first + 2.0 * copy + x * lt,
    }
    terms = {"handoff_ns": h, "send_ns": side_s, "recv_ns": side_r, "copy_ns": copy, "first_payload_line_ns": first,
             "transactions": x,
             "transfers_in_flight_ns": flight, "line_transfer_ns": lt, "lines_in_flight": m,
             "store_lines_in_flight": ms}
    return t, terms


def control_row(rows, typ, locking):
    """The counts of the smallest counted size: the item's control lines (slot, indices); the
    payload's lines are costed at memcpy bandwidth instead."""
    cand = sorted((r for r in rows if r["type"] == typ and r["locking"] == locking), key=lambda r: r["size"])
    return cand[0] if cand else None


def does_not_apply(cell, ratio, st, regime):
    """Why a lock-free cell lies outside 0.5-2x of its prediction."""
    pl, wait = cell.get("placement"), cell.get("wait")
    if pl == "onecore":
        return ("both sides share one CPU: each hand-off waits for the scheduler (spin budget, then "
                "sched_yield); the model has no scheduler")
    if pl == "none":
        return "no affinity: the scheduler moves the sides between CPUs; the model assumes one side per core"
    if wait == "block":
        return "no spin budget: hand-offs sleep on a futex (system calls, wake-up latency); the model has no kernel"
    if st:
        meas = ratio * st[regime]
        near = min(st, key=lambda k: abs(math.log(meas / st[k])))
        r2 = meas / st[near]
        if near != regime and AGREE_LO <= r2 <= AGREE_HI:
            return ("the stream ran %s, not %s (%.2f of the %s prediction): which regime a run settles in "
                    "depends on which side falls behind" % (near.replace("_", " "), regime.replace("_", " "),
                                                           r2, near.replace("_", " ")))
    if ratio > AGREE_HI:
        return "faster than every regime of the model: overlap the model does not have"
    if (cell.get("size") or 0) > 32768:
        return ("the payload exceeds the first-level caches: the copies miss beyond what the 64 KiB "
                "memcpy probe measures")
    return "slower than every regime of the model: work the model does not have (retries, polling)"


def name_gap(cell, pred, row):
    """One sentence on where the time goes that the model does not explain."""
    meas = med(cell["summary"].get("items_per_s"))
    if not meas:
        return ""
    gap = 1e9 / meas - 1e9 / pred["items_per_s"]
    ins = row["send"]["instructions"] + row["recv"]["instructions"]
    if cell.get("placement") == "onecore":
        why = "waiting: both sides share CPU 0, so each hand-off waits for the scheduler (spin budget, then sched_yield)"
    elif cell.get("wait") == "block":
        why = "waiting: no spin budget, so hand-offs sleep on a futex (system calls, wake-up latency)"
    elif cell.get("placement") == "none":
        why = "placement: with no affinity the scheduler sometimes runs both sides on one CPU"
    elif cell.get("locking") == "global":
        why = "the global lock: its hand-offs serialize both sides beyond the counted transactions"
    else:
        why = "work outside memory operations: %.0f instructions per exchange, retries and polling" % ins
    return "%.0f ns per item beyond the model; likely %s" % (gap, why)


def beyond_model(cell, row):
    """Why a cell beats the predicted ceiling: what the one-station model leaves out."""
    size = cell.get("size") or 0
    if cell.get("type") == "scalar" or (size <= 64 and cell.get("placement") != "onecore"):
        return ("several transfers are in flight at once (memory-level parallelism, prefetch along the ring); "
                "the model serializes every transfer at one station")
    if size >= 1024:
        return ("the payload is copied at memcpy bandwidth with the lines streamed and prefetched; the model "
                "counts each line as a serialized coherence transfer")
    return "the hardware overlaps transfers that the model's single station serializes"


def compare(bench, rows, cal, L, mi=None):
    out = []
    for c in bench["cells"]:
        if c.get("kind") != "libmca" or c.get("status") != "ok" or c.get("transport") not in ("shm", ""):
            continue
        s = c.get("summary") or {}
        meas, rtt = med(s.get("items_per_s")), med(s.get("rtt_p50_ns"))
        if not meas and not rtt:
            continue
        row, how = interp_counts(rows, c.get("type"), c.get("locking"), c.get("size") or 0)
        if row is None:
            continue
        cores = 1 if c.get("placement") == "onecore" else 2
        p = exchange_model(row, cal, L, cores)
        pred = p["items_per_s"]
        lockfree = c.get("locking") == "lockfree"
        st, terms, regime = None, None, None
        if lockfree and cores == 2 and mi:
            ctl = control_row(rows, c.get("type"), c.get("locking"))
            sm = stream_model(ctl, mi, c.get("type"), c.get("size") or 0) if ctl else None
            if sm:
                regime = REGIME[c.get("type")]
                st = {k: 1e9 / v for k, v in sm[0].items()}
                terms = sm[1]
                pred = st[regime]
        ratio = meas / pred if meas else None
        e = {"cell": c["id"], "counts": how, "cores": cores,
             "measured_items_per_s": meas, "predicted_items_per_s": pred,
             "ratio": ratio, "utilization": p["utilization"],
             "measured_rtt_ns": rtt, "predicted_rtt_ns": p["rtt_ns"],
             "rtt_ratio": p["rtt_ns"] / rtt if rtt else None,
             "model": "stream" if st else "mva"}
        if st:
            e["regime"] = regime
            e["regimes_items_per_s"] = st
            e["terms"] = terms
            if meas:
                near = min(st, key=lambda k: abs(math.log(meas / st[k])))
                e["nearest_regime"], e["nearest_ratio"] = near, meas / st[near]
        if ratio is None:
            e["verdict"] = "n/a"
        elif lockfree:
            # every lock-free cell: within 0.5-2x it agrees, else the model does not apply, and why
            if AGREE_LO <= ratio <= AGREE_HI:
                e["verdict"] = "agrees"
                e["why"] = (REGIME_WHY[regime] if regime else
                            "the single-station model: on one core both sides' work runs in series" if cores == 1
                            else "the single-station model (no stream inputs)")
            else:
                e["verdict"] = "model does not apply"
                e["why"] = does_not_apply(c, ratio, st, regime)
        elif ratio > APPLY_RATIO:
            # Faster than the ceiling: the model misses what makes it fast, so it says nothing here.
            e["verdict"] = "model does not apply"
            e["why"] = beyond_model(c, row)
        elif ratio >= STOP_RATIO:
            e["verdict"] = "stop"
        else:
            e["verdict"] = "gap"
            e["gap"] = name_gap(c, p, row)
        out.append(e)
    return out


def envelope():
    """The envelope members (command, machine, build; docs/json.md) that `mca model` passes in
    $MCA_JSON_ENVELOPE; empty when the script runs on its own."""
    try:
        e = json.loads(os.environ.get("MCA_JSON_ENVELOPE") or "{}")
    except ValueError:
        return {}
    return e if isinstance(e, dict) else {}


def summary(m):
    """How many two-core lock-free cells (stream model) agree, and how many more lie within the
    range of another regime than the one predicted."""
    sc = [c for c in m["cells"] if c.get("model") == "stream" and c.get("ratio") is not None]
    agree = [c for c in sc if c["verdict"] == "agrees"]
    other = [c for c in sc if c["verdict"] != "agrees" and AGREE_LO <= c.get("nearest_ratio", 0) <= AGREE_HI]
    return {"lockfree": len(sc), "agree": len(agree), "other_regime": len(other)}


def build(bench, bench_path, ops, ops_path, cal, sim=False, seed=1, mi=None):
    L = check_bench(bench, bench_path)
    check_opcounts(ops, ops_path)
    if mi is not None:
        check_inputs(mi, bench_path)
    rows = ops["counts"]
    preds = []
    for r in rows:
        for cores in (1, 2):
            p = exchange_model(r, cal, L, cores)
            preds.append({"type": r["type"], "locking": r["locking"], "size": r["size"], **p})
    env = envelope()
    out = {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": env.get("command", "mca model " + os.path.basename(bench_path)),
        "machine": {**env.get("machine", {}), "cpus": bench["machine"]["cpus"], "cpu": bench["machine"].get("cpu"),
                    "L_ns": L, "transaction_ns": L / 4.0, **{k: cal[k] for k in CALIB_FIELDS}},
        **{k: env[k] for k in ("build",) if k in env},
        "bench": os.path.abspath(bench_path),
        "opcounts": os.path.abspath(ops_path),
        "apply_ratio": APPLY_RATIO,
        "stop_ratio": STOP_RATIO,
        "agree_range": [AGREE_LO, AGREE_HI],
        "inputs": mi,
        "predictions": preds,
        "cells": compare(bench, rows, cal, L, mi),
    }
    if mi:
        pr = mi["probe"]
        out["machine"].update({"line_transfer_ns": pr["line_transfer_ns"], "lines_in_flight": pr["lines_in_flight"],
                               "store_lines_in_flight": pr["store_lines_in_flight"],
                               "copy_mb_per_s": pr["memcpy_xcore_bytes_per_ns"] * 1e3,
                               "copy_local_mb_per_s": pr["memcpy_local_bytes_per_ns"] * 1e3})
    out["summary"] = summary(out)
    base = next((r for r in rows if r["type"] == "message" and r["locking"] == "lockfree" and r["size"] == 24), rows[0])
    out["figure6"] = figure6(base, cal, L)
    if sim:
        out["simulation"] = sim_checks(rows, cal, L, seed)
    return out


def sim_checks(rows, cal, L, seed):
    """MVA vs simulation for each counted exchange on two cores, plus what
    only the simulation answers: deterministic service and several channels."""
    res = []
    for r in rows:
        p = exchange_model(r, cal, L, 2)
        z = (p["Z_send_ns"] + p["Z_recv_ns"]) / 2.0
        d = (p["D_send_ns"] + p["D_recv_ns"]) / 2.0
        e = simulate(2, z, d, dist="exp", cycles=20000, seed=seed)
        det = simulate(2, z, d, dist="det", cycles=20000, seed=seed)
        ch4 = simulate(2, z, d, channels=4, dist="det", cycles=20000, seed=seed)
        res.append({"exchange": "%s %s %d B" % (r["type"], r["locking"], r["size"]),
                    "mva_items_per_s": p["items_per_s"], "sim_exp_items_per_s": e["X"] / 2 * 1e9,
                    "sim_det_items_per_s": det["X"] / 2 * 1e9, "sim_4ch_items_per_s": ch4["X"] / 2 * 1e9,
                    "sim_4ch_utilization": ch4["U"]})
    return res


# ---- output ------------------------------------------------------------------------------


def si(v, unit=""):
    if v is None:
        return "-"
    for f, p in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= f:
            return "%.2f %s%s" % (v / f, p, unit)
    return "%.2f %s" % (v, unit)


def table(m, out=None):
    out = out or sys.stdout
    mc = m["machine"]
    print("mca model: L = %.0f ns (transaction = L/4 = %.1f ns), hit %.2f ns, memory %.0f ns, RMW %.1f ns, %d cpus"
          % (mc["L_ns"], mc["transaction_ns"], mc["hit_ns"], mc["mem_ns"], mc["rmw_ns"], mc["cpus"]), file=out)
    if m.get("inputs"):
        print("stream inputs: one line transfer %.0f ns, %.1f lines in flight (loads), %.1f (stores), memcpy %.1f B/ns "
              "across cores, %.0f B/ns local; hand-off %s" % (mc["line_transfer_ns"], mc["lines_in_flight"],
                                                             mc["store_lines_in_flight"], mc["copy_mb_per_s"] / 1e3,
                                               mc["copy_local_mb_per_s"] / 1e3,
                                               ", ".join("%s %s B %.0f ns" % (t, sz, v) for t, d in m["inputs"]["handoff_ns"].items()
                                                         for sz, v in sorted(d.items(), key=lambda x: int(x[0])))), file=out)
    print("\npredicted ceiling per exchange type and locking mode (items/s, station utilization):", file=out)
    print("%-8s %-9s %6s | %5s %12s %6s | %12s %12s" % ("type", "locking", "size", "xact", "2 cores", "U",
                                                         "1 core", "RTT 2 cores"), file=out)
    by = {}
    for p in m["predictions"]:
        by.setdefault((p["type"], p["locking"], p["size"]), {})[p["cores"]] = p
    for (t, l, s), v in by.items():
        two, one = v[2], v[1]
        print("%-8s %-9s %5dB | %5.2f %12s %6.2f | %12s %9.0f ns" % (t, l, s, two["transactions"], si(two["items_per_s"]),
                                                                   two["utilization"], si(one["items_per_s"]), two["rtt_ns"]), file=out)
    print("\nmeasured / predicted per bench cell (lock-free on two cores: the stream model, agrees within %.1f-%.0fx, "
          "else the model does not apply; the others: the single-station ceiling, stop at >= %.1f, above %.2f "
          "the model does not apply):" % (AGREE_LO, AGREE_HI, m["stop_ratio"], m.get("apply_ratio", APPLY_RATIO)), file=out)
    print("%-44s %11s %11s %6s %9s  %s" % ("cell", "measured", "predicted", "ratio", "RTT p/m", "verdict"), file=out)
    for c in m["cells"]:
        print("%-44s %11s %11s %6s %9s  %s%s" % (c["cell"], si(c["measured_items_per_s"]),
                                                 si(c["predicted_items_per_s"]) + (" " + c["regime"][0] if c.get("regime") else ""),
                                                 "%.2f" % c["ratio"] if c["ratio"] is not None else "-",
                                                 "%.2f" % c["rtt_ratio"] if c["rtt_ratio"] is not None else "-",
                                                 c["verdict"], (": " + (c.get("gap") or c.get("why")))
                                                 if c.get("gap") or c.get("why") else ""), file=out)
    st = summary(m)
    if st["lockfree"]:
        print("\nlock-free cells on two cores: %d of %d within %.1f-%.0fx of the predicted regime; %d more within "
              "that range of another regime of the model" % (st["agree"], st["lockfree"], AGREE_LO, AGREE_HI,
                                                              st["other_regime"]), file=out)
    if m.get("simulation"):
        print("\nMVA vs simulation (2 cores; exp = product form, det = fixed times, 4ch = four channels on two cores):", file=out)
        for s in m["simulation"]:
            print("  %-26s MVA %10s  sim exp %10s  det %10s  4ch %10s (U %.2f)" % (
                s["exchange"], si(s["mva_items_per_s"]), si(s["sim_exp_items_per_s"]),
                si(s["sim_det_items_per_s"]), si(s["sim_4ch_items_per_s"]), s["sim_4ch_utilization"]), file=out)


# ---- command line ------------------------------------------------------------------------


def run_bench(mca):
    if not mca or not os.access(mca, os.X_OK):
        raise ModelError("--run needs the mca binary (pass --mca PATH)")
    fd, path = tempfile.mkstemp(prefix="mca-model-bench-", suffix=".json")
    os.close(fd)
    cmd = [mca, "bench", "--quick", "--no-peers", "--no-scale", "--no-progress", "--json", path]
    print("mca model: running %s" % " ".join(cmd), file=sys.stderr)
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if p.returncode != 0:
        raise ModelError("%s exited with %d" % (" ".join(cmd), p.returncode))
    return path


def do_count(a):
    driver = find_driver(a.driver, a.mca)
    sys.path.insert(0, HERE)
    import opcount
    if not shutil.which("valgrind"):
        raise ModelError("--count needs valgrind (apt-get install valgrind)")
    try:
        d = opcount.count_all(driver, a.exchanges, 20, a.quick)
    except opcount.TraceError as e:
        raise ModelError(str(e))
    d["calibration"] = calibrate(driver)
    with open(a.opcounts, "w") as f:
        f.write(json.dumps(d, indent=1) + "\n")
    print("mca model: wrote %s (%d exchange types/modes)" % (a.opcounts, len(d["counts"])), file=sys.stderr)
    for r in d["counts"]:
        print("  %-8s %-9s %5d B  send L/S/M %5.1f %5.1f %4.1f xfer %4.2f upg %4.2f | recv L/S/M %5.1f %5.1f %4.1f xfer %4.2f upg %4.2f"
              % (r["type"], r["locking"], r["size"], r["send"]["loads"], r["send"]["stores"], r["send"]["rmw"],
                 r["send"]["transfers"], r["send"]["upgrades"], r["recv"]["loads"], r["recv"]["stores"],
                 r["recv"]["rmw"], r["recv"]["transfers"], r["recv"]["upgrades"]))
    return 0


def main(argv=None):
    ap = mca_cli.Parser("model", description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="?", help="a `mca bench --json` result")
    ap.add_argument("--run", action="store_true", help="run `mca bench --quick --no-peers --no-scale` first, then "
                                                       "measure the stream model's inputs, and model that")
    ap.add_argument("--count", action="store_true", help="re-count operations under valgrind and re-calibrate")
    ap.add_argument("--quick", action="store_true", help="with --count: message 24 B and scalar only")
    ap.add_argument("--exchanges", type=mca_cli.whole(1), default=200, help="with --count: exchanges traced per type/mode")
    ap.add_argument("--opcounts", default=os.path.join(DATA, "opcounts.json"), help="operation counts (JSON)")
    ap.add_argument("--calibrate", action="store_true", help="re-measure hit/memory/RMW costs now")
    ap.add_argument("--sim", action="store_true", help="also run the SimPy simulation beside the closed form")
    ap.add_argument("--seed", type=mca_cli.whole(0), default=1, help="the simulation's random seed")
    ap.add_argument("--json", dest="json_out", help="write the model as JSON here ('-': standard output, the table "
                                                    "then on standard error)")
    ap.add_argument("--inputs", help="the stream model's measured inputs (JSON: probe, handoff_ns); default: the "
                                     "bench JSON's model_inputs, else measured now")
    ap.add_argument("--mca", help=argparse.SUPPRESS)
    ap.add_argument("--driver", help=argparse.SUPPRESS)  # the model_opcount executable (default: beside mca)
    a = ap.parse_args(argv)
    try:
        if a.count:
            return do_count(a)
        path = run_bench(a.mca) if a.run else a.bench
        if not path:
            ap.print_usage(sys.stderr)
            raise ModelError("give a bench JSON file, or --run, or --count")
        if a.json_out and a.json_out != "-":
            dd = os.path.dirname(os.path.abspath(a.json_out))
            if not os.path.isdir(dd) or not os.access(dd, os.W_OK):
                raise ModelError("--json %s: the directory does not exist or is not writable" % a.json_out)
        bench = load_json(path, "bench result")
        ops = load_json(a.opcounts, "operation counts")
        check_opcounts(ops, a.opcounts)
        check_bench(bench, path)
        cal = calibrate(find_driver(a.driver, a.mca)) if a.calibrate else ops["calibration"]
        if a.inputs:
            mi = load_json(a.inputs, "model inputs")
            if isinstance(mi, dict):  # an inputs object, a bench JSON (model_inputs) or a model JSON (inputs)
                mi = mi.get("model_inputs") or mi.get("inputs") or mi
            mi = check_inputs(mi, a.inputs)
        elif isinstance(bench.get("model_inputs"), dict):
            mi = check_inputs(bench["model_inputs"], path)
        elif bench["machine"]["cpus"] >= 2:
            if not a.run:
                print("mca model: %s carries no model_inputs; measuring them now (not in the bench's run)" % path,
                      file=sys.stderr)
            try:
                mi = measure_inputs(a.mca, find_driver(a.driver, a.mca), (bench.get("config") or {}).get("cpus") or [])
                mi["when"] = ("measured by mca model --run right after its bench run" if a.run
                              else "measured by mca model, later than the bench run")
            except ModelError as e:
                if a.run:
                    raise
                print("mca model: cannot measure the stream model's inputs (%s); lock-free cells keep the "
                      "single-station ceiling" % e, file=sys.stderr)
                mi = None
        else:
            mi = None
        if a.run and mi is not None:
            # the inputs belong to the bench run they were measured with
            bench["model_inputs"] = mi
            with open(path, "w") as f:
                f.write(json.dumps(bench, indent=1) + "\n")
        try:
            m = build(bench, path, ops, a.opcounts, cal, sim=a.sim, seed=a.seed, mi=mi)
        except (TypeError, KeyError, AttributeError, ValueError, IndexError, ZeroDivisionError, OverflowError) as e:
            raise ModelError("%s: not a well-formed mca bench result (%s: %s; docs/benchmarks.md)"
                             % (path, type(e).__name__, e))
        if not any(c.get("ratio") is not None for c in m["cells"]):
            raise ModelError("%s: no libmca cell with a measured throughput to model (status ok, shm)" % path)
    except ModelError as e:
        print("mca model: %s" % e, file=sys.stderr)
        return 2
    table(m, sys.stderr if a.json_out == "-" else sys.stdout)
    if a.json_out == "-":
        sys.stdout.write(json.dumps(m, indent=1) + "\n")
    elif a.json_out:
        with open(a.json_out, "w") as f:
            f.write(json.dumps(m, indent=1) + "\n")
        print("\nmca model: wrote %s" % a.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
