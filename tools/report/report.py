#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mca report: one self-contained HTML page from `mca bench --json` results.

usage: report.py RESULT.json [AFTER.json] [-o REPORT.html]

With two files the first is "before", the second "after", and the page adds a
comparison; every other section shows the last file. Plots are PNG embedded as
base64, so the page has no external references. Schema: docs/benchmarks.md.
"""
import argparse
import base64
import html
import io
import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # pragma: no cover - depends on the machine
    sys.exit("mca report: matplotlib is missing (run scripts/deps.sh or pip install matplotlib)")

SCHEMA = "mca-bench/1"
PLACES = ["onecore", "none", "spread"]
TYPES = ["message", "packet", "scalar"]
LOCK_COLORS = {"lockfree": "#1f77b4", "global": "#d62728", "kernel": "#9467bd"}
PEER_COLOR = "#8c8c8c"


def load(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"mca report: cannot read {path}: {e}")
    if not isinstance(d, dict) or d.get("schema") != SCHEMA:
        sys.exit(f"mca report: {path} is not a mca bench result (schema {SCHEMA!r} expected)")
    return d


def png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return '<img alt="plot" src="data:image/png;base64,%s">' % base64.b64encode(buf.getvalue()).decode()


def med(stat):
    return stat["median"] if stat else None


def esc(s):
    return html.escape(str(s))


def fmt(v, unit=""):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if abs(v) >= 1e9:
        return f"{v / 1e9:.2f} G{unit}"
    if abs(v) >= 1e6:
        return f"{v / 1e6:.2f} M{unit}"
    if abs(v) >= 1e4:
        return f"{v / 1e3:.1f} k{unit}"
    if abs(v) >= 100:
        return f"{v:.0f}{unit and ' ' + unit}"
    return f"{v:.2f}{unit and ' ' + unit}"


def ok(c):
    return c["status"] == "ok"


def rtt(c):
    """The round trip a cell reports: batch-timed (like L) when the run has it,
    else the per-round p50 of older results."""
    s = c["summary"]
    return s.get("rtt_ns") or s.get("rtt_p50_ns")


def xl(c):
    s = c["summary"]
    return s.get("rtt_over_L") or s.get("rtt_p50_over_L")


def label(c):
    if c["kind"] == "libmca":
        t = {"message": "msg", "packet": "pkt", "scalar": "scl"}[c["type"]]
        extra = " block" if c["wait"] == "block" else ""
        proc = "" if c["process"] == "in" else " xproc"
        tr = "" if c["transport"] == "shm" else " pmq"
        return f"{t} {c['locking']}{extra}{proc}{tr}"
    return c["subject"]


def color(c):
    return LOCK_COLORS.get(c["locking"], PEER_COLOR) if c["kind"] == "libmca" else PEER_COLOR


# ---------------------------------------------------------------- sections
def header(d, paths):
    m, b, cfg = d["machine"], d["build"], d["config"]
    av = d["available"]
    Ls = [x for x in d.get("L_ns", []) if x]
    Lmed = cfg.get("L_median_ns") or (sorted(Ls)[len(Ls) // 2] if Ls else None)
    factor = cfg.get("slow_factor", 2.5)
    slow = sum(1 for x in Ls if Lmed and x > factor * Lmed)
    nslow = sum(c["summary"].get("slow", 0) for c in d["cells"] if c.get("summary"))
    unstable = sum(1 for c in d["cells"] if c["status"] == "unstable")
    rows = [
        ("results", ", ".join(esc(p) for p in paths)),
        ("date", esc(d["date"])),
        ("command", f"<code>{esc(d['command'])}</code>"),
        ("machine", f"{esc(m['cpu'])}, {m['cpus']} CPUs, {'virtualized' if m['virtualized'] else 'bare metal'}, {esc(m['kernel'])}"),
        ("build", f"{esc(b['compiler'])}, {esc(b['build_type'])}, flags <code>{esc(b['flags'].strip()) or '(none)'}</code>"),
        ("commit", f"<code>{esc(b['commit'])}</code>{' (dirty tree)' if b['dirty'] else ''} via {esc(b['commit_source'])}"),
        ("run", f"{esc(cfg['mode'])}, {cfg['repeat']} repeats, {cfg['wall_s']:.1f} s"),
        ("L (cache-line round trip)", f"median {fmt(Lmed, 'ns')} over {len(Ls)} probes, {slow} above {factor:g}x the median (slow mode)" if Ls else "not measured"),
        ("sample hygiene", f"{nslow} samples slow (L above {factor:g}x the run's median, or its two probes disagree): "
                           f"excluded from every figure and target; {unstable} cells unstable (no figure)"),
    ]
    na = []
    for k, name in (("packet", "packet channels"), ("scalar", "scalar channels"), ("cross_process", "cross-process"), ("pmq", "pmq transport")):
        if not av[k]:
            note = av["notes"].get("channels" if k in ("packet", "scalar") else k, "")
            na.append(f"<li><b>{name}</b>: n/a — {esc(note)}</li>")
    out = "<table class='kv'>" + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"
    if na:
        out += "<p>Not available in this build (rows shown as n/a, never estimated):</p><ul>" + "".join(na) + "</ul>"
    return out


def targets(d):
    rows = []
    for t in d["targets"]:
        cls = {"PASS": "pass", "MISS": "miss"}.get(t["result"], "na")
        v = "–" if t["value"] is None else f"{t['value']:.2f}"
        rows.append(f"<tr class='{cls}'><td>{t['result']}</td><td>{esc(t['name'])}</td><td>{v} {esc(t['unit'])}</td>"
                    f"<td>{t['op']} {t['limit']:g}</td><td>{esc(t['detail'])}</td></tr>")
    return ("<table class='grid'><tr><th>result</th><th>target</th><th>measured</th><th>limit</th><th>detail</th></tr>"
            + "".join(rows) + "</table>")


def throughput_plot(d):
    out = []
    for place in PLACES:
        cells = [c for c in d["cells"] if c["section"] == "matrix" and c["placement"] == place and ok(c)
                 and c["summary"]["items_per_s"]]
        if not cells:
            continue
        cells.sort(key=lambda c: (c["size"], c["kind"] != "libmca", label(c)))
        fig, ax = plt.subplots(figsize=(11, 0.28 * len(cells) + 1.2))
        ys = range(len(cells))
        vals = [med(c["summary"]["items_per_s"]) for c in cells]
        lo = [v - c["summary"]["items_per_s"]["min"] for v, c in zip(vals, cells)]
        hi = [c["summary"]["items_per_s"]["max"] - v for v, c in zip(vals, cells)]
        ax.barh(list(ys), vals, xerr=[lo, hi], color=[color(c) for c in cells], capsize=2)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([f"{label(c)}  {c['size']} B" for c in cells], fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("items/s (median, bars: min-max over repeats)")
        ax.set_title(f"one-way throughput, placement {place}")
        ax.grid(axis="x", which="both", alpha=0.3)
        out.append(png(fig))
    return "".join(out) or "<p>no throughput cells</p>"


def latency_plots(d):
    out = []
    # p50 in units of L per cell, spread and onecore
    for place in PLACES:
        cells = [c for c in d["cells"] if c["section"] == "matrix" and c["placement"] == place and ok(c)
                 and rtt(c)]
        if not cells:
            continue
        cells.sort(key=lambda c: (c["size"], c["kind"] != "libmca", label(c)))
        fig, ax = plt.subplots(figsize=(11, 0.28 * len(cells) + 1.2))
        ys = list(range(len(cells)))
        p50 = [med(rtt(c)) for c in cells]
        tail = [c["summary"].get("tail_ns") or {} for c in cells]
        p99 = [t.get("p99") or med(c["summary"]["rtt_p99_ns"]) for t, c in zip(tail, cells)]
        mx = [t.get("max") for t in tail]
        mn = [med(c["summary"]["rtt_min_ns"]) for c in cells]
        ax.barh(ys, p50, color=[color(c) for c in cells], label="RTT")
        ax.scatter(p99, ys, marker="|", s=120, color="black", label="p99", zorder=3)
        if all(v is not None for v in mx):
            ax.scatter(mx, ys, marker="x", s=20, color="red", label="max", zorder=3)
        ax.scatter(mn, ys, marker="<", s=20, color="green", label="min", zorder=3)
        ax.set_yticks(ys)
        ax.set_yticklabels([f"{label(c)}  {c['size']} B" for c in cells], fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("round trip, ns (bar: batch-timed RTT, median of clean samples; | p99; x max; < min)")
        ax.set_title(f"ping-pong round trip, placement {place}")
        ax.legend(loc="lower right", fontsize=8)
        ax.grid(axis="x", which="both", alpha=0.3)
        out.append(png(fig))
    # distributions: quantile curves of the median sample, per subject, 24 B spread
    qs = d["quantile_levels"]
    for place in ("spread", "onecore"):
        cells = [c for c in d["cells"] if c["section"] == "matrix" and c["placement"] == place and ok(c)
                 and c["size"] in (8, 24) and c["samples"] and any(s["rtt"] and not s.get("slow") for s in c["samples"])]
        if not cells:
            continue
        fig, ax = plt.subplots(figsize=(10, 6))
        for c in cells:
            smp = sorted((s for s in c["samples"] if s["rtt"] and not s.get("slow")), key=lambda s: s["rtt"]["p50"])
            s = smp[len(smp) // 2]
            ax.plot(s["rtt"]["quantiles"], qs, marker=".", label=f"{label(c)} {c['size']} B",
                    color=color(c) if c["kind"] == "libmca" else None,
                    linestyle="-" if c["kind"] == "libmca" else "--")
        ax.set_xscale("log")
        ax.set_yscale("function", functions=(lambda p: -_log10(100.0001 - p), lambda y: 100.0001 - 10 ** (-y)))
        ax.set_yticks([0, 50, 90, 99, 99.9, 99.99, 100])
        ax.set_yticklabels(["0", "50", "90", "99", "99.9", "99.99", "100"])
        ax.set_xlabel("round trip, ns")
        ax.set_ylabel("percentile")
        ax.set_title(f"latency distribution (median repeat), placement {place}, 8/24 B")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        out.append(png(fig))
    return "".join(out)


def _log10(x):
    import numpy as np

    return np.log10(np.maximum(x, 1e-6))


def speedup_bubbles(d):
    pts = []
    for s in d["derived"]["speedup"]:
        r = s["throughput_ratio"]
        if r is None or s.get("against", "global") != "global":
            continue
        typ, place = s["key"].split(".")[0:2]
        if ".in.shm." not in s["key"]:
            continue
        size = s["key"].split(".")[-1]
        off = -0.22 if size in ("24B", "8B") else 0.22
        pts.append((PLACES.index(place) + off, TYPES.index(typ), r, s["key"]))
    if not pts:
        return "<p>no cell has both a lock-free and a global measurement</p>"
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for x, y, r, key in pts:
        area = 900 * max(r, 0.05)
        ax.scatter([x], [y], s=area, alpha=0.45, color="#1f77b4" if r >= 1 else "#d62728", edgecolors="black")
        ax.annotate(f"{r:.2f}x {key.split('.')[-1]}", (x, y + 0.3), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(3))
    ax.set_xticklabels(PLACES)
    ax.set_yticks(range(3))
    ax.set_yticklabels(TYPES)
    ax.set_xlim(-0.6, 2.6)
    ax.set_ylim(-0.6, 2.6)
    ax.set_title("lock-free / global throughput (seed 000 Fig. 8); bubble area ~ speedup")
    ax.grid(alpha=0.3)
    return png(fig)


def penalty_table(d):
    rows = []
    for p in d["derived"]["penalty"]:
        typ, lock, size = p["key"].split(".")
        rows.append(f"<tr><td>{typ}</td><td>{lock}</td><td>{size}</td><td>{fmt(p['onecore_items_per_s'], 'items/s')}</td>"
                    f"<td>{fmt(p['spread_items_per_s'], 'items/s')}</td><td>{fmt(p['spread_over_onecore'])}</td>"
                    f"<td>{fmt(p['none_over_onecore'])}</td></tr>")
    return ("<table class='grid'><tr><th>type</th><th>locking</th><th>size</th><th>one core</th><th>one thread per core</th>"
            "<th>spread / one core</th><th>no affinity / one core</th></tr>" + "".join(rows) + "</table>"
            "<p>Seed 000 Table 2: multicore throughput divided by single-core throughput; &lt; 1 is a multicore penalty.</p>")


def state_table(d):
    rows = d.get("state") or []
    if not rows:
        return "<p>Not measured in this run.</p>"
    out = []
    for r in rows:
        def m(k):
            v = r.get(k)
            return v["median"] if v else None
        msg = r.get("message_items_per_s")
        vs = (f"{fmt(m('writes_per_s') / msg)} / {fmt(m('reads_per_s') / msg)}"
              if msg and m("writes_per_s") else "n/a")
        out.append(f"<tr><td>{esc(r['locking'])}</td><td>{fmt(m('writes_per_s'), 'items/s')}</td>"
                   f"<td>{fmt(m('reads_per_s'), 'items/s')}</td><td>{fmt(m('ns_per_read'), 'ns')}</td>"
                   f"<td>{fmt(m('retries_per_read'))}</td><td>{fmt(msg, 'items/s')}</td><td>{vs}</td></tr>")
    return ("<table class='grid'><tr><th>locking</th><th>writes/s</th><th>reads/s</th><th>ns per read</th>"
            "<th>retries per read</th><th>24 B message stream</th><th>writes / reads vs messages</th></tr>"
            + "".join(out) + "</table><p>State channels keep only the newest value (Kopetz's non-blocking "
            "write): one writer at full speed on CPU 0, one reader on CPU 1, medians of the repeats.</p>")


def sweep_plots(d):
    cells = [c for c in d["cells"] if c["section"] == "sweep" and ok(c)]
    if not cells:
        return "<p>no size sweep in this run</p>"
    series = {}
    for c in cells:
        series.setdefault(label(c), []).append(c)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 5))
    for name, cs in sorted(series.items()):
        cs.sort(key=lambda c: c["size"])
        style = dict(marker="o", linestyle="-" if cs[0]["kind"] == "libmca" else "--")
        xs = [c["size"] for c in cs if c["summary"]["mb_per_s"]]
        a1.plot(xs, [med(c["summary"]["mb_per_s"]) for c in cs if c["summary"]["mb_per_s"]], label=name, **style)
        xs2 = [c["size"] for c in cs if rtt(c)]
        a2.plot(xs2, [med(rtt(c)) for c in cs if rtt(c)], label=name, **style)
    for a, yl, t in ((a1, "MB/s (median)", "one-way throughput vs payload"), (a2, "round trip, ns", "ping-pong vs payload")):
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        a.set_xlabel("payload, bytes")
        a.set_ylabel(yl)
        a.set_title(t + " (one thread per core)")
        a.grid(alpha=0.3, which="both")
        a.legend(fontsize=7)
    return png(fig)


def peers_beside(d):
    out = []
    for size in (24, 8, 8192):
        cells = [c for c in d["cells"] if c["section"] == "matrix" and c["placement"] == "spread" and c["size"] == size
                 and c["process"] == "in" and ok(c) and (c["kind"] == "peer" or c["transport"] == "shm")]
        if not cells:
            continue
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 0.3 * len(cells) + 1.5))
        cells.sort(key=lambda c: (c["kind"] != "libmca", label(c)))
        ys = list(range(len(cells)))
        names = [label(c) for c in cells]
        thr = [med(c["summary"]["items_per_s"]) or 0 for c in cells]
        rt = [med(rtt(c)) or 0 for c in cells]
        a1.barh(ys, thr, color=[color(c) for c in cells])
        a2.barh(ys, rt, color=[color(c) for c in cells])
        for a in (a1, a2):
            a.set_yticks(ys)
            a.set_yticklabels(names, fontsize=8)
            a.invert_yaxis()
            a.set_xscale("log")
            a.grid(axis="x", alpha=0.3, which="both")
        a1.set_title(f"throughput, items/s, {size} B, two cores")
        a2.set_title(f"round trip, ns, {size} B, two cores")
        out.append(png(fig))
    return "".join(out)


def ratio_table(d):
    rows = []
    for r in d["derived"]["ratios"]:
        rows.append(f"<tr><td>{esc(r['cell'])}</td><td>{fmt(r['throughput_over_ideal'])}</td><td>{fmt(r['rtt_over_L'])}</td>"
                    f"<td>{fmt(r['throughput_over_best_peer'])}</td><td>{fmt(r['rtt_over_best_peer'])}</td><td>{esc(r['best_peer'] or '–')}</td></tr>")
    return ("<table class='grid'><tr><th>libmca cell</th><th>throughput / ideal ring</th><th>RTT / L</th>"
            "<th>throughput / best peer</th><th>RTT / best peer</th><th>best peer (throughput)</th></tr>" + "".join(rows) + "</table>")


def cells_table(d):
    rows = []
    for c in d["cells"]:
        s = c["summary"]
        if c["status"] == "unstable":
            rows.append(f"<tr class='na'><td>{esc(c['id'])}</td><td colspan='11'>unstable: {s.get('slow', 0)} of "
                        f"{s.get('samples', len(c['samples']))} samples slow, {s.get('reruns', 0)} re-run; no figure</td></tr>")
            continue
        if not ok(c):
            rows.append(f"<tr class='na'><td>{esc(c['id'])}</td><td colspan='11'>{esc(c['status'])}: {esc(c['note'])}</td></tr>")
            continue
        r = rtt(c)
        thr = s["items_per_s"]
        t = s.get("tail_ns") or {}
        clean = f"{s['samples'] - s['slow']}/{s['samples']}" if "samples" in s else "–"
        rows.append(
            f"<tr><td>{esc(c['id'])}</td>"
            f"<td>{fmt(med(r))} ({fmt(r['min']) if r else '–'}–{fmt(r['max']) if r else '–'})</td>"
            f"<td>{fmt(med(xl(c)))}</td><td>{fmt(t.get('p50', med(s['rtt_p50_ns'])))}</td>"
            f"<td>{fmt(t.get('p99', med(s['rtt_p99_ns'])))}</td><td>{fmt(t.get('p999', med(s['rtt_p999_ns'])))}</td>"
            f"<td>{fmt(t.get('p9999'))}</td><td>{fmt(t.get('max'))}</td>"
            f"<td>{fmt(med(thr))} ({fmt(thr['min']) if thr else '–'}–{fmt(thr['max']) if thr else '–'})</td>"
            f"<td>{fmt(med(s['mb_per_s']))}</td><td>{fmt(med(s['L_ns']))}</td><td>{clean}</td></tr>")
    return ("<p>RTT: ns per round trip timed in batches between two clock reads, like L; median over the clean samples "
            "(min–max). p50 … max: every round trip of the per-round pass of the clean samples (log-linear histogram, "
            "1/128 resolution). clean: samples not taken in the host's slow mode / samples run.</p>"
            "<table class='grid small'><tr><th>cell</th><th>RTT ns (min–max)</th><th>RTT/L</th><th>p50</th><th>p99</th>"
            "<th>p99.9</th><th>p99.99</th><th>max</th><th>items/s (min–max)</th><th>MB/s</th><th>L ns</th><th>clean</th></tr>"
            + "".join(rows) + "</table>")


def kernel_table(d):
    rows = []
    for sp in d["derived"]["speedup"]:
        if sp.get("against") != "kernel" or (sp["throughput_ratio"] is None and sp["rtt_ratio"] is None):
            continue
        rows.append(f"<tr><td>{esc(sp['key'])}</td><td>{fmt(sp['lockfree_items_per_s'], 'items/s')}</td>"
                    f"<td>{fmt(sp['locked_items_per_s'], 'items/s')}</td><td>{fmt(sp['throughput_ratio'])}</td>"
                    f"<td>{fmt(sp['rtt_ratio'])}</td></tr>")
    if not rows:
        return "<p>No kernel-lock cell in this run.</p>"
    return ("<p><code>MCX_LOCKING=kernel</code>: the same rings under one System V semaphore taken around every "
            "operation, the lock of the lock-based reference design (seed 000 Fig. 8 compares against it).</p>"
            "<table class='grid'><tr><th>cell</th><th>lock-free items/s</th><th>kernel-lock items/s</th>"
            "<th>throughput ratio</th><th>RTT ratio</th></tr>" + "".join(rows) + "</table>")


def scale_section(d):
    sc = d.get("scale")
    if not sc or not sc.get("rows"):
        return "<p>Not measured in this run (--no-scale).</p>"
    rows = []
    for r in sc["rows"]:
        it = r["items_per_s"]
        if r["status"] != "ok":
            rows.append(f"<tr class='na'><td>{esc(r['kind'])}</td><td>{esc(r['locking'])}</td><td>{r['n']}</td>"
                        f"<td>{r['threads']}</td><td colspan='6'>{esc(r['status'])} {esc(r['note'])}</td></tr>")
            continue
        rows.append(f"<tr><td>{esc(r['kind'])}</td><td>{esc(r['locking'])}</td><td>{r['n']}</td><td>{r['threads']}</td>"
                    f"<td>{fmt(it['median'])} ({fmt(it['min'])}–{fmt(it['max'])})</td><td>{fmt(r['csw_per_item'])}</td>"
                    f"<td>{fmt(r['futex_per_item'])}</td><td>{fmt(r['semop_per_item'])}</td>"
                    f"<td>{fmt(r['lockfree_over_global'])}</td><td>{fmt(r['lockfree_over_kernel'])}</td></tr>")
    out = (f"<p>One domain, every thread a node pinned round-robin over {sc['cpus']} CPUs, "
           f"{sc['seconds_per_sample'] * 1e3:.0f} ms per sample; pairs: P sender/receiver pairs; fanin: N senders to one "
           "endpoint; mixed: a message, a packet and a scalar pair at once. Per item: context switches "
           "(getrusage), futex and semop calls (mcx_thread_syscalls) of all threads.</p>")
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    for ax, kind, xl_ in ((axes[0], "pairs", "concurrent pairs P"), (axes[1], "fanin", "senders N (one receiver)")):
        drawn = 0
        for lock in ("lockfree", "global", "kernel"):
            pts = sorted((r["n"], r["items_per_s"]["median"]) for r in sc["rows"]
                         if r["kind"] == kind and r["locking"] == lock and r["status"] == "ok")
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "-o", color=LOCK_COLORS[lock], label=lock)
                drawn += 1
        ax.set_xlabel(xl_)
        ax.set_ylabel("aggregate items/s")
        ax.set_yscale("log")
        ax.set_title(f"{kind}: aggregate throughput per locking mode")
        ax.grid(alpha=0.3, which="both")
        if drawn:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no clean sample", ha="center", transform=ax.transAxes)
    out += png(fig)
    return out + ("<table class='grid'><tr><th>kind</th><th>locking</th><th>P/N</th><th>threads</th>"
                  "<th>items/s (min–max)</th><th>context switches/item</th><th>futex/item</th><th>semop/item</th>"
                  "<th>lock-free / global</th><th>lock-free / kernel</th></tr>" + "".join(rows) + "</table>")


def instr_section(d):
    ins = d.get("instr")
    if not ins:
        return None
    return "<pre>" + esc(json.dumps(ins, indent=1)[:20000]) + "</pre>"


def comparison(before, after, pb, pa):
    bc = {c["id"]: c for c in before["cells"] if ok(c)}
    pairs = [(bc[c["id"]], c) for c in after["cells"] if ok(c) and c["id"] in bc]
    if not pairs:
        return "<p>the two runs have no measured cell in common</p>"
    rows, names, thr, rtt = [], [], [], []
    for b, a in pairs:
        tb, ta = med(b["summary"]["items_per_s"]), med(a["summary"]["items_per_s"])
        rb, ra = med(xl(b)), med(xl(a))
        tr = ta / tb if tb and ta else None
        rr = ra / rb if rb and ra else None
        names.append(a["id"])
        thr.append(tr or 0)
        rtt.append(rr or 0)
        rows.append(f"<tr><td>{esc(a['id'])}</td><td>{fmt(tb)}</td><td>{fmt(ta)}</td><td>{fmt(tr)}</td>"
                    f"<td>{fmt(rb)}</td><td>{fmt(ra)}</td><td>{fmt(rr)}</td></tr>")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 0.25 * len(names) + 1.5))
    ys = list(range(len(names)))
    a1.barh(ys, thr, color=["#2ca02c" if v >= 1 else "#d62728" for v in thr])
    a2.barh(ys, rtt, color=["#2ca02c" if v <= 1 else "#d62728" for v in rtt])
    for a, t in ((a1, "throughput after / before (>1 better)"), (a2, "RTT/L after / before (<1 better)")):
        a.axvline(1, color="black", lw=0.8)
        a.set_yticks(ys)
        a.set_yticklabels(names, fontsize=7)
        a.invert_yaxis()
        a.set_title(t)
        a.grid(axis="x", alpha=0.3)
    head = (f"<p>before: {esc(pb)} (commit <code>{esc(before['build']['commit'][:12])}</code>, {esc(before['date'])}); "
            f"after: {esc(pa)} (commit <code>{esc(after['build']['commit'][:12])}</code>, {esc(after['date'])}). "
            "Latency is compared in units of L measured with each run, so a host mode flip between runs does not read as a change.</p>")
    return head + png(fig) + (
        "<table class='grid small'><tr><th>cell</th><th>items/s before</th><th>after</th><th>ratio</th>"
        "<th>RTT/L before</th><th>after</th><th>ratio</th></tr>" + "".join(rows) + "</table>")


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;max-width:1400px;color:#222}
h1{font-size:1.6em} h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:2em}
table{border-collapse:collapse;margin:8px 0} td,th{padding:3px 8px;text-align:left;vertical-align:top}
table.grid td,table.grid th{border:1px solid #ddd} table.small{font-size:12px}
table.kv th{color:#555;font-weight:600;padding-right:16px}
tr.pass td:first-child{background:#d4edda;font-weight:bold} tr.miss td:first-child{background:#f8d7da;font-weight:bold}
tr.na td:first-child{background:#eee} tr.na td{color:#777}
img{max-width:100%;display:block;margin:10px 0} code{background:#f4f4f4;padding:1px 4px}
.legend span{display:inline-block;padding:2px 8px;margin-right:8px;color:white;border-radius:3px}
"""


def model_path(bench_path, explicit):
    """The model JSON for a bench result: --model, else a sibling
    <stem>.model.json or model.json next to it (written by `mca model --json`)."""
    if explicit:
        return explicit
    stem, _ = os.path.splitext(bench_path)
    for p in (stem + ".model.json", os.path.join(os.path.dirname(os.path.abspath(bench_path)), "model.json")):
        if os.path.exists(p):
            return p
    return None


def load_model(path):
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"mca report: cannot read model {path}: {e}")
    if not isinstance(m, dict) or m.get("schema") != "mca-model/1":
        sys.exit(f"mca report: {path} is not a mca model result (schema 'mca-model/1' expected)")
    return m


def model_section(m, path):
    mc = m.get("machine", {})
    out = [f"<p>From <code>{esc(path)}</code> (<code>mca model</code>, docs/model.md): the interconnect as one "
           "queueing station, each core a customer; operations per exchange counted from the code under valgrind "
           f"lackey. L = {fmt(mc.get('L_ns'), 'ns')}, one coherence transaction = L/4 = {fmt(mc.get('transaction_ns'), 'ns')}, "
           f"hit {fmt(mc.get('hit_ns'), 'ns')}, memory access {fmt(mc.get('mem_ns'), 'ns')}, "
           f"uncontended RMW {fmt(mc.get('rmw_ns'), 'ns')}.</p>"]
    f6 = m.get("figure6")
    if f6:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.8))
        for cores, col in (("1", "#ff7f0e"), ("2", "#1f77b4")):
            pts = f6["curves"].get(cores, [])
            hs = [p["h"] for p in pts]
            a1.plot(hs, [p["items_per_s"] / 1e6 for p in pts], "-o", ms=3, color=col, label=f"{cores} core(s)")
            a2.plot(hs, [p["utilization"] for p in pts], "-o", ms=3, color=col, label=f"{cores} core(s)")
        a1.set_xlabel("cache hit rate")
        a1.set_ylabel("exchanges/s (M)")
        a1.set_yscale("log")
        a1.set_title("throughput (%s)" % f6.get("exchange", ""))
        a2.set_xlabel("cache hit rate")
        a2.set_ylabel("station utilization")
        a2.set_title("memory/interconnect utilization")
        for a in (a1, a2):
            a.grid(alpha=.3)
            a.legend()
        out.append("<p>Seed 000 Figure 6: every memory operation of the exchange hits with the given probability; "
                   "a miss queues at the station (memory on one core, the other core's cache on two).</p>" + png(fig))
    rows = ["<tr><th>type</th><th>locking</th><th>size</th><th>cores</th><th>transactions</th>"
            "<th>predicted items/s</th><th>utilization</th><th>predicted RTT</th></tr>"]
    for p in m.get("predictions", []):
        rows.append(f"<tr><td>{esc(p['type'])}</td><td>{esc(p['locking'])}</td><td>{p['size']} B</td><td>{p['cores']}</td>"
                    f"<td>{p['transactions']:.2f}</td><td>{fmt(p['items_per_s'])}</td><td>{p['utilization']:.2f}</td>"
                    f"<td>{fmt(p['rtt_ns'], 'ns')}</td></tr>")
    out.append("<h3>Predicted ceilings</h3><table>" + "".join(rows) + "</table>")
    rows = ["<tr><th>cell</th><th>measured items/s</th><th>predicted</th><th>measured/predicted</th>"
            "<th>predicted/measured RTT</th><th>verdict</th></tr>"]
    for c in m.get("cells", []):
        cls = "pass" if c["verdict"].startswith("stop") else "miss" if c["verdict"] == "gap" else "na"
        r = "-" if c.get("ratio") is None else f"{c['ratio']:.2f}"
        rr = "-" if c.get("rtt_ratio") is None else f"{c['rtt_ratio']:.2f}"
        rows.append(f"<tr class='{cls}'><td>{esc(c['cell'])}</td><td>{fmt(c.get('measured_items_per_s'))}</td>"
                    f"<td>{fmt(c.get('predicted_items_per_s'))}</td><td>{r}</td><td>{rr}</td>"
                    f"<td>{esc(c['verdict'])}{(': ' + esc(c['gap'])) if c.get('gap') else ''}</td></tr>")
    out.append(f"<h3>Measured / predicted (stop at &ge; {m.get('stop_ratio', 0.8)})</h3><table>" + "".join(rows) + "</table>")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(prog="mca report", description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="one result, or two: before and after")
    ap.add_argument("-o", "--output", default="report.html")
    ap.add_argument("--model", help="a `mca model --json` result (default: a sibling <stem>.model.json or model.json)")
    a = ap.parse_args()
    if len(a.results) > 2:
        ap.error("give one result file, or two (before and after)")
    runs = [load(p) for p in a.results]
    d = runs[-1]
    secs = [
        ("Run", header(d, a.results)),
        ("Targets", "<p>Checked by the benchmark on this run; tests never assert timings.</p>" + targets(d)),
    ]
    if len(runs) == 2:
        secs.append(("Before / after", comparison(runs[0], runs[1], a.results[0], a.results[1])))
    legend = ("<p class='legend'><span style='background:#1f77b4'>libmca lock-free</span>"
              "<span style='background:#d62728'>libmca global lock</span><span style='background:#9467bd'>libmca kernel lock</span>"
              "<span style='background:#8c8c8c'>peers</span></p>")
    secs += [
        ("Throughput per matrix cell", legend + throughput_plot(d)),
        ("Latency", legend + latency_plots(d)),
        ("Lock-free vs global lock", speedup_bubbles(d)),
        ("Lock-free vs the kernel lock (the reference design)", kernel_table(d)),
        ("Scaling and contention", scale_section(d)),
        ("Multicore penalty", penalty_table(d)),
        ("Payload-size sweep", sweep_plots(d)),
        ("State messages vs FIFO messages", state_table(d)),
        ("Peers beside libmca", legend + peers_beside(d)),
        ("Ratios to the physical limit and the best peer", ratio_table(d)),
        ("Every cell", cells_table(d)),
    ]
    ins = instr_section(d)
    if ins:
        secs.insert(-1, ("Instruction counts (--instr)", ins))
    mp = model_path(a.results[-1], a.model)
    if mp:
        secs.insert(-1, ("Performance model", model_section(load_model(mp), mp)))
    body = "".join(f"<h2>{esc(t)}</h2>\n{s}\n" for t, s in secs)
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>mca bench report</title><style>{CSS}</style></head>"
            f"<body><h1>mca bench report</h1>{body}</body></html>")
    with open(a.output, "w") as f:
        f.write(page)
    print(f"mca report: wrote {os.path.abspath(a.output)} ({len(page) // 1024} KiB)")


if __name__ == "__main__":
    main()
