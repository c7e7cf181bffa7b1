# SPDX-License-Identifier: BSD-3-Clause
"""mca report: the sections of a `mca bench` result (schema mca-bench/1,
docs/benchmarks.md) and the sentences of the first screen."""
import math
import re

import report_fig as F
from report_fig import Figure

TYPES = ("message", "packet", "scalar")
TYPE_SHORT = {"message": "msg", "packet": "pkt", "scalar": "scl"}
LOCKS = ("lockfree", "global", "kernel")
PLACE_NAMES = {"spread": "one thread per core", "onecore": "both on one core", "none": "no affinity"}
# Peers that are real alternatives a user could pick (the ideal ring is the limit, not a product;
# the yield / futex ping-pongs are one-core references).
REAL_PEERS = ("boost_spsc_queue", "ck_ring_spsc", "mutex_condvar", "pipe", "unix_socketpair", "posix_mqueue",
              "zmq_inproc", "zmq_ipc", "nng_inproc", "nng_ipc", "iceoryx")
SPSC_PEERS = ("ideal_ring", "boost_spsc_queue", "ck_ring_spsc", "mutex_condvar")
MSGLIB_PEERS = ("zmq_inproc", "zmq_ipc", "nng_inproc", "nng_ipc", "iceoryx", "pipe", "unix_socketpair",
                "posix_mqueue")


def med(stat):
    return stat.get("median") if isinstance(stat, dict) else None


def ok(c):
    return c is not None and c.get("status") == "ok"


def rtt_stat(c):
    s = c.get("summary") or {}
    return s.get("rtt_ns") or s.get("rtt_p50_ns")


def rtt(c):
    return med(rtt_stat(c)) if ok(c) else None


def rtt_L(c):
    if not c:  # a cell the run did not have (e.g. no peers)
        return None
    s = c.get("summary") or {}
    return med(s.get("rtt_over_L") or s.get("rtt_p50_over_L")) if ok(c) else None


def thr(c):
    return med((c.get("summary") or {}).get("items_per_s")) if ok(c) else None


def mbs(c):
    return med((c.get("summary") or {}).get("mb_per_s")) if ok(c) else None


def tail(c):
    return ((c.get("summary") or {}).get("tail_ns") or {}) if ok(c) else {}


def name(c):
    """What a reader calls the subject of a cell."""
    if c["kind"] == "libmca":
        s = f"{F.SUBJECT_NAMES[c['locking']]} {c['type']}"
        if c.get("wait") == "block":
            s += " (blocking wait)"
        if c.get("process") == "cross":
            s += ", cross-process"
        if c.get("transport") == "pmq":
            s += ", over POSIX mq"
        return s
    return F.PEER_NAMES.get(c["subject"], c["subject"])


def short(c):
    """A legend label: the subject without the words the figure's title already says."""
    if c["kind"] == "libmca":
        s = f"{c['type']}"
        if c.get("wait") == "block":
            s += " blocking"
        if c.get("process") == "cross":
            s += " cross-process"
        if c.get("transport") == "pmq":
            s += " pmq"
        return s
    return F.PEER_NAMES.get(c["subject"], c["subject"])


class Bench:
    """One `mca bench` result and lookups into it."""

    def __init__(self, d, path):
        self.d = d
        self.path = path
        self.cells = d.get("cells") or []
        self.scale = d.get("scale") or {}
        cfg = d.get("config") or {}
        Ls = [x for x in d.get("L_ns") or [] if x]
        self.L = cfg.get("L_median_ns") or (sorted(Ls)[len(Ls) // 2] if Ls else None)
        self.nL = len(Ls)

    def lm(self, typ, lock="lockfree", place="spread", size=None, process="in", transport="shm", wait="spin",
           section="matrix"):
        if size is None:
            size = 8 if typ == "scalar" else 24
        for c in self.cells:
            if (c["kind"] == "libmca" and c["section"] == section and c["type"] == typ and c["locking"] == lock
                    and c["placement"] == place and c["size"] == size and c["process"] == process
                    and c.get("transport", "shm") == transport and c.get("wait", "spin") == wait):
                return c
        return None

    def peer(self, subject, place="spread", size=24, section="matrix"):
        for c in self.cells:
            if (c["kind"] == "peer" and c["subject"] == subject and c["section"] == section
                    and c["placement"] == place and c["size"] == size):
                return c
        return None

    def best_peer(self, size=24, by="thr", place="spread", among=REAL_PEERS):
        best = None
        for s in among:
            c = self.peer(s, place, size)
            v = thr(c) if by == "thr" else rtt(c)
            if v is None:
                continue
            if best is None or (v > best[1] if by == "thr" else v < best[1]):
                best = (c, v)
        return best[0] if best else None


# ------------------------------------------------------------------ first screen
def _range(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    lo, hi = fmt(min(vals)), fmt(max(vals))
    if lo == hi:
        return lo
    a, b = lo.split(" ", 1) if " " in lo else (lo, ""), hi.split(" ", 1) if " " in hi else (hi, "")
    if a[1] == b[1] and a[1]:
        return f"{a[0]}–{b[0]} {a[1]}"  # "16.2–16.9 M items/s"
    if a[0].endswith("x") and b[0].endswith("x"):
        return f"{a[0][:-1]}–{b[0]}"
    return f"{lo}–{hi}"


def summary(b):
    """The first screen: questions answered in sentences with numbers.
    Returns a list of {"q": question, "a": HTML answer, "tone": good|bad|info}."""
    out = []
    m = b.lm("message")
    g = b.lm("message", "global")
    k = b.lm("message", "kernel")
    # 1. lock-free vs lock-based, and how it scales
    if thr(m) and (thr(g) or thr(k)):
        parts = []
        if thr(g):
            parts.append(f"<b>{F.ratio(thr(m) / thr(g))}</b> the throughput of the global lock")
        if thr(k):
            parts.append(f"<b>{F.ratio(thr(m) / thr(k))}</b> that of the kernel lock (the reference design's "
                         "System V semaphore)")
        a = (f"24 B messages, one thread per core: lock-free carries {F.rate(thr(m))}, " + " and ".join(parts) + ". ")
        rt = [x for x in ((m, "lock-free"), (g, "global"), (k, "kernel")) if rtt(x[0])]
        if rt:
            a += "A round trip takes " + ", ".join(f"{F.ns(rtt(c))} ({n})" for c, n in rt) + ". "
        per_type = []
        for t in TYPES:
            lf, gl, kn = b.lm(t), b.lm(t, "global"), b.lm(t, "kernel")
            per_type.append((thr(lf) / thr(gl) if thr(lf) and thr(gl) else None,
                             thr(lf) / thr(kn) if thr(lf) and thr(kn) else None))
        rg = _range([p[0] for p in per_type], F.ratio)
        rk = _range([p[1] for p in per_type], F.ratio)
        if rg or rk:
            a += ("Over messages, packets and scalars the lock-free advantage is "
                  + (f"{rg} against the global lock" if rg else "")
                  + (" and " if rg and rk else "") + (f"{rk} against the kernel lock" if rk else "") + ". ")
        a += _scaling_sentence(b)
        out.append({"q": "How much faster is lock-free than lock-based?", "a": a, "tone": "info", "href": "#locking"})
    elif thr(m):
        out.append({"q": "How much faster is lock-free than lock-based?",
                    "a": "This run has no lock-based cell to compare with (lock-based modes not measured).",
                    "tone": "info", "href": "#locking"})
    # 2. physical limit
    ideal = b.peer("ideal_ring")
    if rtt_L(m) or (thr(m) and thr(ideal)):
        a = ""
        if rtt_L(m) and b.L:
            a += (f"A lock-free 24 B message round trip is <b>{rtt_L(m):.2f} L</b> ({F.ns(rtt(m))}), where L = "
                  f"{F.ns(b.L)} is one cache line bouncing between the two CPUs, measured around every sample "
                  "(one hand-off each way cannot take less than about 1 L). ")
        if rtt_L(ideal):
            a += (f"The ideal ring, a bare per-slot-sequence ring that moves the same bytes with nothing else, takes "
                  f"{rtt_L(ideal):.2f} L ({F.ns(rtt(ideal))}). ")
        if thr(m) and thr(ideal):
            a += (f"Streaming, libmca reaches <b>{F.pct(100 * thr(m) / thr(ideal))}</b> of the ideal ring's "
                  f"{F.rate(thr(ideal))}. ")
        s = b.lm("scalar")
        if rtt_L(s):
            a += f"Scalars: {rtt_L(s):.2f} L per round trip."
        out.append({"q": "How close to the physical limit?", "a": a, "tone": "info", "href": "#latency"})
    # 3. best peer
    bp = b.best_peer(24, "thr")
    br = b.best_peer(24, "rtt")
    if m and (bp or br):
        a = ""
        if bp and thr(m):
            r = thr(m) / thr(bp)
            a += (f"The fastest peer at 24 B by throughput is <b>{esc(name(bp))}</b> ({F.rate(thr(bp))}): libmca "
                  f"lock-free messages carry <b>{F.ratio(r)}</b> that. ")
        if br and rtt(m):
            a += (f"By round trip the best peer is {esc(name(br))} ({F.ns(rtt(br))}); libmca's is "
                  f"{F.ratio(rtt(m) / rtt(br))} of it. ")
        libs = [(c, rtt(c)) for c in (b.peer(s) for s in ("zmq_inproc", "nng_inproc", "iceoryx", "pipe"))
                if rtt(c)]
        if libs and rtt(m):
            a += ("Messaging libraries a user might pick instead: " + ", ".join(
                f"{esc(name(c))} {F.ns(v)} ({F.ratio(v / rtt(m))})" for c, v in libs) + " per round trip.")
        out.append({"q": "How does it compare with the best peer?", "a": a,
                    "tone": "good" if bp and thr(m) and thr(m) >= thr(bp) else "info", "href": "#peers"})
    # 4. worst case
    worst = None
    nrt = 0
    for c in b.cells:
        t = tail(c)
        if c["kind"] == "libmca" and c["locking"] == "lockfree" and c["placement"] == "spread" and t.get("max"):
            nrt += t.get("n") or 0
            if worst is None or t["max"] > tail(worst)["max"]:
                worst = c
    if worst:
        t = tail(worst)
        a = (f"The longest round trip in any lock-free cell (one thread per core) was <b>{F.ns(t['max'])}</b> "
             f"({esc(name(worst))}, {F.size(worst['size'])}), among {F.si(nrt)} round trips timed one by one. "
             f"In that cell 99 % took at most {F.ns(t.get('p99'))} and 99.99 % at most {F.ns(t.get('p9999'))}. ")
        tm = tail(m)
        if tm and worst is not m:
            a += (f"24 B messages: p99 {F.ns(tm.get('p99'))}, p99.99 {F.ns(tm.get('p9999'))}, "
                  f"max {F.ns(tm.get('max'))}. ")
        if (b.d.get("machine") or {}).get("virtualized"):
            a += ("This machine is virtualized: a millisecond maximum is typically the host descheduling a vCPU, "
                  "which no queue can hide.")
        out.append({"q": "What is the worst-case latency?", "a": a, "tone": "info", "href": "#latency"})
    # 5. targets
    ts = b.d.get("targets") or []
    if ts:
        npass = sum(1 for t in ts if t["result"] == "PASS")
        miss = [t for t in ts if t["result"] == "MISS"]
        na = [t for t in ts if t["result"] not in ("PASS", "MISS")]
        a = f"<b>{npass} of {len(ts)}</b> targets pass, {len(miss)} miss, {len(na)} n/a. "
        if miss:
            a += "Missed: " + "; ".join(f"{esc(_tname(t))} (measured {_tval(t)})" for t in miss) + ". "
        if na:
            a += "Not measurable in this run: " + "; ".join(esc(t["name"]) for t in na) + "."
        out.append({"q": "Which targets pass?", "a": a, "tone": "good" if not miss else "bad", "href": "#targets"})
    # 6. what did not run
    failed = [c for c in b.cells if c["status"] in ("error", "unstable")]
    if failed:
        why = {}
        for c in failed:
            why.setdefault(c.get("note") or c["status"], []).append(c)
        parts = []
        for note, cs in sorted(why.items(), key=lambda kv: -len(kv[1]))[:4]:
            kinds = sorted(set(f"{c['type'] or c['subject']} {F.size(c['size'])}" for c in cs))
            parts.append(f"{len(cs)} × <code>{esc(note)}</code> ({esc(', '.join(kinds[:4]))}"
                         f"{', …' if len(kinds) > 4 else ''})")
        out.append({"q": "What did not run?",
                    "a": f"<b>{len(failed)}</b> of {len(b.cells)} cells have no figure: " + "; ".join(parts)
                         + ". They are listed under <a href='#run'>every cell</a>; targets that need them are n/a.",
                    "tone": "bad", "href": "#run"})
    return out


def tunit(v, unit):
    """A target's value with its unit: 2.41 "xL" -> "2.41 L", 1.28 "x" -> "1.28x"."""
    if v is None:
        return "n/a"
    unit = unit or ""
    if unit == "xL":
        return f"{v:.3g} L"
    if unit == "x":
        return f"{v:.3g}x"
    return f"{v:.3g} {unit}".rstrip()


def _tname(t):
    """The target without its limit ("scalar RTT <= 1.3 L" -> "scalar RTT"): the value says it."""
    n = t["name"]
    m = re.match(r"^(.*?)\s+(<=|>=)\s+[^()]*$", n)
    return m.group(1) if m else n


def top(t):
    return {"<=": "≤", ">=": "≥"}.get(t.get("op"), t.get("op", ""))


def _tval(t):
    return f"{esc(tunit(t.get('value'), t.get('unit')))}, target {top(t)} {esc(tunit(t['limit'], t.get('unit')))}"


def _scaling_sentence(b):
    rows = [r for r in (b.scale.get("rows") or []) if r.get("status") == "ok" and r.get("items_per_s")]
    if not rows:
        return ""
    out = []
    for kind, what in (("pairs", "sender/receiver pairs"), ("fanin", "senders into one endpoint")):
        pts = sorted((r["n"], r.get("lockfree_over_global"), med(r["items_per_s"])) for r in rows
                     if r["kind"] == kind and r["locking"] == "lockfree")
        pts = [p for p in pts if p[1]]
        if len(pts) >= 2:
            out.append(f"with {', '.join(str(p[0]) for p in pts)} {what} lock-free/global is "
                       f"{', '.join(F.ratio(p[1], 2) for p in pts)} (lock-free aggregate "
                       f"{_range([p[2] for p in pts], F.rate)})")
    if not out:
        return ""
    return "Under contention " + "; ".join(out) + "."


def esc(s):
    import html

    return html.escape(str(s))


# ------------------------------------------------------------------ sections
def section_targets(b):
    rows = []
    for t in b.d.get("targets") or []:
        rows.append({"result": t["result"], "name": t["name"].replace("<=", "≤").replace(">=", "≥"),
                     "value": tunit(t.get("value"), t.get("unit")),
                     "limit": f"{top(t)} {tunit(t['limit'], t.get('unit'))}", "detail": t.get("detail", "")})
    return rows


def fig_locking(b):
    """Grouped bars: throughput and round trip per exchange type and locking mode."""
    groups = [("message", 24), ("packet", 24), ("scalar", 8), ("message", 8192), ("packet", 8192)]
    figs = []
    for metric, title, fmt, tick, axis_title in (
            ("thr", "Throughput by locking mode", F.rate, F.tick_rate, "items/s (median, log scale)"),
            ("rtt", "Round trip by locking mode", F.ns, F.tick_ns, "round trip (median, log scale)")):
        data, allv = [], []
        for lock in LOCKS:
            xs, ys, lo, hi = [], [], [], []
            for t, s in groups:
                c = b.lm(t, lock, size=s)
                v = thr(c) if metric == "thr" else rtt(c)
                if v is None:
                    continue
                st = (c["summary"]["items_per_s"] if metric == "thr" else rtt_stat(c)) or {}
                xs.append(f"{t} {F.size(s)}")
                ys.append(v)
                lo.append(v - st.get("min", v))
                hi.append(st.get("max", v) - v)
                allv += [st.get("min", v), st.get("max", v)]
            if xs:
                data.append({"type": "bar", "name": F.SUBJECT_NAMES[lock], "x": xs, "y": ys,
                             "marker": {"color": F.SUBJECT_COLORS[lock]},
                             "error_y": {"type": "data", "symmetric": False, "array": hi, "arrayminus": lo,
                                         "color": "#333", "thickness": 1.2, "width": 3},
                             "text": [fmt(v) for v in ys], "textposition": "outside", "cliponaxis": False,
                             "textfont": {"size": 11},
                             "hovertemplate": "%{x}: %{text}<extra>" + F.SUBJECT_NAMES[lock] + "</extra>"})
        if not data:
            continue
        lay = F.layout(height=400, barmode="group", bargap=0.25,
                       xaxis={"type": "category", "title": {"text": "exchange type and payload"}},
                       yaxis=F.log_axis(axis_title, allv, tick, pad=2.5),
                       legend={"orientation": "h", "x": 0, "y": 1.12})
        figs.append(Figure(f"locking-{metric}", title,
                           ("Median over the clean samples of each cell, error bars min–max; log scale. "
                            + ("One-way stream: one sender, one receiver pinned to the first two CPUs, items sent "
                               "back to back for a fixed time; every item's sequence and checksum are checked."
                               if metric == "thr" else
                               "Ping-pong between two threads pinned to the first two CPUs, timed in batches of "
                               "round trips between two clock reads (clock cost subtracted).")
                            + " Global: one user-space lock around every queue operation; kernel: one System V "
                              "semaphore around every operation (the reference design)."),
                           data, lay))
    return figs


def locking_table(b):
    rows = []
    for t, s in (("message", 24), ("packet", 24), ("scalar", 8), ("message", 8192), ("packet", 8192)):
        lf = b.lm(t, size=s)
        if not thr(lf) and not rtt(lf):
            continue
        r = {"cell": f"{t} {F.size(s)}", "lf_thr": F.rate(thr(lf)), "lf_rtt": F.ns(rtt(lf))}
        for lock in ("global", "kernel"):
            c = b.lm(t, lock, size=s)
            r[lock + "_thr"] = F.ratio(thr(lf) / thr(c)) if thr(lf) and thr(c) else "–"
            r[lock + "_rtt"] = F.ratio(rtt(c) / rtt(lf)) if rtt(lf) and rtt(c) else "–"
        rows.append(r)
    return rows


def fig_scaling(b):
    rows = b.scale.get("rows") or []
    figs = []
    for kind, xt, title in (("pairs", "sender/receiver pairs P", "Aggregate throughput vs pairs"),
                            ("fanin", "senders N into one endpoint", "Aggregate throughput vs senders (fan-in)")):
        data, allv, xs_all = [], [], set()
        for lock in LOCKS:
            pts = sorted((r["n"], med(r["items_per_s"]), r["items_per_s"].get("min"), r["items_per_s"].get("max"),
                          r.get("threads"))
                         for r in rows if r["kind"] == kind and r["locking"] == lock and r["status"] == "ok"
                         and r.get("items_per_s"))
            if not pts:
                continue
            xs = [p[0] for p in pts]
            xs_all.update(xs)
            ys = [p[1] for p in pts]
            allv += [p[2] for p in pts] + [p[3] for p in pts]
            t = F.line(F.SUBJECT_NAMES[lock], xs, ys, F.SUBJECT_COLORS[lock],
                       hover="%{x}: %{text}", text=[f"{F.rate(p[1])} ({p[4]} threads)" for p in pts])
            t["error_y"] = {"type": "data", "symmetric": False, "array": [p[3] - p[1] for p in pts],
                            "arrayminus": [p[1] - p[2] for p in pts], "color": F.SUBJECT_COLORS[lock],
                            "thickness": 1, "width": 3}
            data.append(t)
        if not data:
            continue
        xs_all = sorted(xs_all)
        lay = F.layout(height=380, xaxis={"title": {"text": xt}, "tickmode": "array", "tickvals": xs_all,
                                          "ticktext": [str(x) for x in xs_all], "gridcolor": "#e6e6e6",
                                          "range": [min(xs_all) - 0.3, max(xs_all) + 0.3]},
                       yaxis=F.log_axis("aggregate items/s (median, log scale)", allv, F.tick_rate, pad=1.8))
        cpus = b.scale.get("cpus")
        figs.append(Figure(f"scaling-{kind}", title,
                           (f"One domain, every thread its own node, pinned round-robin over {cpus} CPUs; 24 B "
                            "messages sent as fast as possible for a fixed time; median over clean samples, "
                            "error bars min–max; log scale. "
                            + ("P pairs each have their own endpoints: contention only on the lock."
                               if kind == "pairs" else
                               "N senders share one receiving endpoint: contention on the queue itself.")),
                           data, lay))
    return figs


def scaling_table(b):
    out = []
    for r in b.scale.get("rows") or []:
        out.append({"kind": r["kind"], "locking": F.SUBJECT_NAMES.get(r["locking"], r["locking"]), "n": r["n"],
                    "threads": r.get("threads"), "status": r["status"], "note": r.get("note") or "",
                    "thr": F.rate(med(r.get("items_per_s"))),
                    "range": (f"{F.si(r['items_per_s']['min'])}–{F.si(r['items_per_s']['max'])}"
                              if r.get("items_per_s") else "–"),
                    "csw": _f(r.get("csw_per_item")), "futex": _f(r.get("futex_per_item")),
                    "semop": _f(r.get("semop_per_item")),
                    "vs_global": F.ratio(r.get("lockfree_over_global"), 2) if r.get("lockfree_over_global") else "",
                    "vs_kernel": F.ratio(r.get("lockfree_over_kernel"), 3) if r.get("lockfree_over_kernel") else ""})
    return out


def _f(v):
    if v is None:
        return "–"
    return f"{v:.4f}" if v < 0.1 else f"{v:.3g}"


# ---- latency distributions
def _hist_curve(c):
    """(percentile positions, latencies, n, max) of a cell's round trips: the
    x position is -log10(1 - p), so 90 %, 99 %, 99.9 % are evenly spaced."""
    h = c.get("hist")
    if h:
        n = sum(cnt for _, cnt in h)
        if n <= 0:
            return None
        xs, ys, acc = [], [], 0
        for v, cnt in h:
            acc += cnt
            p = acc / n
            if acc < n:
                xs.append(-math.log10(1 - p))
                ys.append(max(v, 1))
        return xs, ys, n, tail(c).get("max") or h[-1][0]
    # older results: the quantiles of the median sample
    smp = [s for s in c.get("samples") or [] if s.get("rtt") and not s.get("slow") and s["rtt"].get("quantiles")]
    if not smp:
        return None
    smp.sort(key=lambda s: s["rtt"]["p50"])
    s = smp[len(smp) // 2]["rtt"]
    xs, ys = [], []
    for q, v in zip(QLEVELS, s["quantiles"]):
        if q < 100 and v:
            xs.append(-math.log10(1 - q / 100))
            ys.append(v)
    return xs, ys, s.get("n") or 0, s.get("max")


QLEVELS = [0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100]
PCT_TICKS = [(0, "0 %"), (math.log10(2), "50 %"), (1, "90 %"), (2, "99 %"), (3, "99.9 %"), (4, "99.99 %"),
             (5, "99.999 %"), (6, "99.9999 %"), (7, "99.99999 %")]


def _style(c, i_peer):
    if c["kind"] == "libmca":
        dash = F.TYPE_DASH[c["type"]]
        if c.get("process") == "cross":
            dash = "longdash" if c["type"] == "message" else "dashdot"
        if c.get("wait") == "block":
            dash = "dash"
        return F.SUBJECT_COLORS[c["locking"]], dash, F.TYPE_SYMBOL[c["type"]]
    if c["subject"] == "ideal_ring":
        return F.IDEAL_COLOR, "dot", "circle-open"
    return (F.PEER_GREYS[i_peer % len(F.PEER_GREYS)], F.PEER_DASHES[i_peer % len(F.PEER_DASHES)],
            F.PEER_SYMBOLS[i_peer % len(F.PEER_SYMBOLS)])


def fig_percentiles(fid, title, caption, cells, label=None):
    label = label or short
    data, labels, allv, xmax = [], [], [], 1
    ip = 0
    for c in cells:
        cur = _hist_curve(c) if ok(c) else None
        if not cur or not cur[0]:
            continue
        xs, ys, n, mx = cur
        color, dash, sym = _style(c, ip)
        if c["kind"] == "peer" and c["subject"] != "ideal_ring":
            ip += 1
        nm = label(c)
        text = [f"p{_pname(x)}: {F.ns(y)}" for x, y in zip(xs, ys)]
        if mx and n:
            # the line ends at the slowest of n round trips, at 1 - 1/n
            xs, ys = xs + [math.log10(n)], ys + [mx]
            text.append(f"max of {F.si(n)} round trips: {F.ns(mx)}")
        data.append(F.line(nm, xs, ys, color, dash=dash, mode="lines", width=2.4 if c["kind"] == "libmca" else 1.8,
                           group=nm, hover="%{text}", text=text))
        allv += ys
        if mx and n:
            xmax = max(xmax, xs[-1])
            data.append({"type": "scatter", "mode": "markers", "x": [xs[-1]], "y": [mx], "name": nm + " max",
                         "legendgroup": nm, "showlegend": False,
                         "marker": {"color": color, "symbol": "x-thin", "size": 11, "line": {"width": 2.5, "color": color}},
                         "hovertemplate": f"max of {F.si(n)} round trips: {F.ns(mx)}<extra>{nm}</extra>"})
    if not data:
        return None
    # direct labels at the right end of each line, spread so they never overlap
    lay = F.layout(height=460, showlegend=True)
    ticks = [t for t in PCT_TICKS if t[0] <= xmax + 0.01]
    lay["xaxis"] = {"title": {"text": "percentile of round trips (log scale of 1 − p); × marks the maximum"},
                    "tickmode": "array", "tickvals": [t[0] for t in ticks], "ticktext": [t[1] for t in ticks],
                    "range": [0, xmax + 0.25], "gridcolor": "#e6e6e6", "zeroline": False}
    lay["yaxis"] = F.log_axis("round trip (log scale)", allv, F.tick_ns, pad=1.4)
    return Figure(fid, title, caption, data, lay)


def _pname(x):
    p = 100 * (1 - 10 ** (-x))
    if p >= 99.99:
        return f"{p:.4f}".rstrip("0")
    return f"{p:.3g}"


def latency_figures(b):
    figs = []
    cap = ("Every round trip of the clean samples' per-round pass, each between its own two clock reads (clock "
           "cost subtracted), kept in a log-linear histogram with 1/128 resolution. The x axis stretches the tail: "
           "equal steps for 90 %, 99 %, 99.9 %; × marks the slowest round trip of each line. ")
    # 1. locking modes, 24 B messages
    cells = [c for c in (b.lm("message", lk) for lk in LOCKS) if ok(c)]
    f = fig_percentiles("lat-locking", "Round-trip distribution by locking mode (24 B messages, one thread per core)",
                        cap + "Colours: one per locking mode, the same in every figure.",
                        cells + [b.peer("ideal_ring")] if b.peer("ideal_ring") else cells,
                        label=lambda c: F.SUBJECT_NAMES[c["locking"]] if c["kind"] == "libmca" else name(c))
    if f:
        figs.append(f)
    # 2. lock-free by type and process
    cells = [b.lm("message"), b.lm("packet"), b.lm("scalar"), b.lm("message", process="cross"),
             b.lm("packet", process="cross"), b.lm("scalar", process="cross")]
    f = fig_percentiles("lat-types", "Lock-free round trip by exchange type, in-process and cross-process",
                        cap + "Solid: messages, dashed: packets, dotted: scalars; long dashes and dash-dots: "
                        "cross-process (a forked child is the second node).",
                        [c for c in cells if ok(c)])
    if f:
        figs.append(f)
    # 3. SPSC peers
    cells = [b.lm("message")] + [b.peer(s) for s in SPSC_PEERS]
    f = fig_percentiles("lat-spsc", "Lock-free messages vs lock-free queues (24 B, one thread per core)",
                        cap + "libmca in blue, peers in grey; the same harness times every subject.",
                        [c for c in cells if ok(c)], label=name)
    if f:
        figs.append(f)
    # 4. messaging libraries
    cells = [b.lm("message")] + [b.peer(s) for s in MSGLIB_PEERS]
    f = fig_percentiles("lat-libs", "Lock-free messages vs messaging libraries and kernel IPC (24 B)",
                        cap + "Peers in grey: each a library or system call a user might pick instead.",
                        [c for c in cells if ok(c)], label=name)
    if f:
        figs.append(f)
    # 5. one core
    cells = [b.lm("message", place="onecore"), b.lm("message", place="onecore", wait="block"),
             b.peer("sched_yield_pingpong", "onecore"), b.peer("futex_pingpong", "onecore")]
    f = fig_percentiles("lat-onecore", "Both sides on one core: libmca vs yield and futex ping-pongs (24 B)",
                        cap + "With one core every hand-off needs a context switch; the yield and futex ping-pongs "
                        "are the floor.", [c for c in cells if ok(c)], label=name)
    if f:
        figs.append(f)
    return figs


def fig_peers(b, size):
    cells = [c for c in b.cells if c["section"] == "matrix" and c["placement"] == "spread" and c["size"] == size
             and ok(c) and c.get("process", "in") == "in" and (c["kind"] == "peer" or (
                 c.get("transport", "shm") == "shm" and c.get("wait", "spin") == "spin"))]
    cells = [c for c in cells if thr(c) or rtt(c)]
    if not cells:
        return []
    figs = []
    for metric, fmt, tick, axis, better in (
            ("thr", F.rate, F.tick_rate, "items/s (median, log scale)", "longer is better"),
            ("rtt", F.ns, F.tick_ns, "round trip (median, log scale)", "shorter is better")):
        cs = [c for c in cells if (thr(c) if metric == "thr" else rtt(c))]
        if not cs:
            continue
        cs.sort(key=lambda c: (thr(c) if metric == "thr" else -rtt(c)))
        vals = [thr(c) if metric == "thr" else rtt(c) for c in cs]
        st = [(c["summary"]["items_per_s"] if metric == "thr" else rtt_stat(c)) or {} for c in cs]
        colors = [F.SUBJECT_COLORS[c["locking"]] if c["kind"] == "libmca" else
                  (F.IDEAL_COLOR if c["subject"] == "ideal_ring" else F.PEER_COLOR) for c in cs]
        labels = [name(c) for c in cs]
        data = [{"type": "bar", "orientation": "h", "y": labels, "x": vals, "marker": {"color": colors},
                 "text": [fmt(v) for v in vals], "textposition": "outside", "cliponaxis": False,
                 "customdata": [f"{fmt(s.get('min', v))} – {fmt(s.get('max', v))}" for s, v in zip(st, vals)],
                 "hovertemplate": "%{y}: %{text} (min–max %{customdata})<extra></extra>", "showlegend": False}]
        allv = [s.get("min", v) for s, v in zip(st, vals)] + [s.get("max", v) * 3 for s, v in zip(st, vals)]
        lay = F.layout(height=90 + 26 * len(cs), legend=False,
                       xaxis=F.log_axis(axis, allv, tick, pad=1.3, max_ticks=7),
                       yaxis={"type": "category", "automargin": True, "tickfont": {"size": 12}})
        lay["margin"]["l"] = 10
        what = "one-way stream" if metric == "thr" else "ping-pong round trip"
        figs.append(Figure(f"peers-{metric}-{size}", f"{F.size(size)}: {what}, libmca beside its peers ({better})",
                           (f"Every subject timed by the same harness in the same run, {F.size(size)} items, one thread "
                            "per core; median over clean samples (hover for min–max). libmca in its locking-mode "
                            "colour, the ideal ring (the physical limit of a hand-off) dark grey, peers grey. "
                            "Every receiver reads the whole payload."),
                           data, lay))
    return figs


def fig_sweep(b):
    cells = [c for c in b.cells if c["section"] == "sweep" and ok(c)]
    if not cells:
        return []
    series = {}
    for c in cells:
        key = (c["kind"], c["subject"], c.get("type"), c.get("locking"))
        series.setdefault(key, []).append(c)
    order = sorted(series, key=lambda k: (k[0] != "libmca", k[1] != "ideal_ring", k[1], k[2] or ""))
    figs = []
    for metric, fmt, axis, title in (("mbs", F.bytes_per_s, "payload throughput (median)", "Throughput vs payload size"),
                                     ("rtt", F.ns, "round trip (median)", "Round trip vs payload size")):
        data, allv, sizes, ip = [], [], set(), 0
        for key in order:
            cs = sorted(series[key], key=lambda c: c["size"])
            pts = [(c["size"], mbs(c) if metric == "mbs" else rtt(c)) for c in cs]
            pts = [p for p in pts if p[1]]
            if not pts:
                continue
            c0 = cs[0]
            color, dash, sym = _style(c0, ip)
            if c0["kind"] == "peer" and c0["subject"] != "ideal_ring":
                ip += 1
            nm = (f"libmca {c0['type']}s" if c0["kind"] == "libmca" else short(c0))
            data.append(F.line(nm, [p[0] for p in pts], [p[1] * (1e6 if metric == "mbs" else 1) for p in pts], color,
                               dash=dash, symbol=sym, hover="%{text}",
                               text=[f"{F.size(p[0])}: {fmt(p[1])}" for p in pts]))
            sizes.update(p[0] for p in pts)
            allv += [p[1] * (1e6 if metric == "mbs" else 1) for p in pts]
        if not data:
            continue
        lay = F.layout(height=440, xaxis=F.size_axis("payload size (log scale)", sizes),
                       yaxis=F.log_axis(axis + " (log scale)", allv, F.tick_bps if metric == "mbs" else F.tick_ns,
                                        pad=1.5))
        figs.append(Figure(f"sweep-{metric}", title,
                           ("One thread per core; each point a cell of the size sweep, median over its clean samples. "
                            + ("Bytes of payload per second of a one-way stream (decimal prefixes: 1 GB/s = 10⁹ B/s). "
                               if metric == "mbs" else "Ping-pong round trip, batch-timed. ")
                            + "libmca in blue (messages solid, packets dashed: zero-copy receive), the ideal ring dark "
                              "grey, peers grey; every receiver reads every byte."),
                           data, lay))
    return figs


def penalty_rows(b):
    out = []
    for p in (b.d.get("derived") or {}).get("penalty") or []:
        parts = p["key"].split(".")
        if len(parts) != 3:
            continue
        typ, lock, sz = parts
        out.append({"type": typ, "locking": F.SUBJECT_NAMES.get(lock, lock), "size": sz.replace("B", " B"),
                    "one": F.rate(p.get("onecore_items_per_s")), "spread": F.rate(p.get("spread_items_per_s")),
                    "r_spread": F.ratio(p.get("spread_over_onecore"), 3),
                    "r_none": F.ratio(p.get("none_over_onecore"), 3)})
    return out


def state_rows(b):
    out = []
    for r in b.d.get("state") or []:
        msg = r.get("message_items_per_s")
        w, rd = med(r.get("writes_per_s")), med(r.get("reads_per_s"))
        out.append({"locking": F.SUBJECT_NAMES.get(r["locking"], r["locking"]), "writes": F.rate(w, "writes"),
                    "reads": F.rate(rd, "reads"), "ns_read": F.ns(med(r.get("ns_per_read"))),
                    "retries": _f(med(r.get("retries_per_read"))), "msg": F.rate(msg),
                    "vs": (f"{F.ratio(w / msg, 2)} / {F.ratio(rd / msg, 2)}" if msg and w and rd else "–"),
                    "failed": r.get("failed")})
    return out


def cell_rows(b):
    out = []
    for c in b.cells:
        s = c.get("summary") or {}
        if c["status"] != "ok":
            out.append({"id": c["id"], "status": c["status"], "note": c.get("note") or "", "na": True,
                        "samples": f"{(s.get('samples') or 0) - (s.get('slow') or 0)}/{s.get('samples') or 0}"})
            continue
        r, t = rtt_stat(c), tail(c)
        ts = s.get("items_per_s")
        out.append({
            "id": c["id"], "status": "ok", "na": False,
            "rtt": F.ns(med(r)), "rtt_range": f"{F.ns(r['min'])}–{F.ns(r['max'])}" if r else "",
            "rtt_L": f"{rtt_L(c):.2f}" if rtt_L(c) else "–",
            "p50": F.ns(t.get("p50") or med(s.get("rtt_p50_ns"))), "p99": F.ns(t.get("p99") or med(s.get("rtt_p99_ns"))),
            "p999": F.ns(t.get("p999") or med(s.get("rtt_p999_ns"))), "p9999": F.ns(t.get("p9999")),
            "max": F.ns(t.get("max")), "thr": F.rate(med(ts)),
            "thr_range": f"{F.si(ts['min'])}–{F.si(ts['max'])}" if ts else "",
            "mbs": F.bytes_per_s(mbs(c)), "L": F.ns(med(s.get("L_ns"))),
            "samples": (f"{s['samples'] - s.get('slow', 0)}/{s['samples']}" if "samples" in s else "–")})
    return out


def run_info(b):
    d = b.d
    m, bu, cfg = d.get("machine") or {}, d.get("build") or {}, d.get("config") or {}
    factor = cfg.get("slow_factor", 1.5)
    Ls = [x for x in d.get("L_ns") or [] if x]
    slow_probes = sum(1 for x in Ls if b.L and x > factor * b.L)
    nslow = sum((c.get("summary") or {}).get("slow", 0) for c in b.cells)
    nsmp = sum((c.get("summary") or {}).get("samples", 0) for c in b.cells)
    unstable = sum(1 for c in b.cells if c["status"] == "unstable")
    na = sum(1 for c in b.cells if c["status"] == "n/a")
    err = sum(1 for c in b.cells if c["status"] == "error")
    rows = [("result", b.path), ("date", d.get("date", "")), ("command", d.get("command", "")),
            ("machine", f"{m.get('cpu', '?')}, {m.get('cpus', '?')} CPUs"
                        f"{', virtualized' if m.get('virtualized') else ''}, {m.get('kernel', '')}"),
            ("build", f"{bu.get('compiler', '?')}, {bu.get('build_type', '?')}, flags {(bu.get('flags') or '').strip() or '(none)'}"),
            ("commit", f"{bu.get('commit', '?')}{' (uncommitted changes)' if bu.get('dirty') else ''}"),
            ("run", f"{cfg.get('mode', '?')} mode, {cfg.get('repeat', '?')} repeats per cell, "
                    f"{cfg.get('wall_s', 0):.0f} s" + (f", CPUs {cfg['cpus']}" if cfg.get("cpus") else "")),
            ("L", f"median {F.ns(b.L)} over {b.nL} probes; {slow_probes} above {factor:g}x the median"
                  if b.L else "not measured"),
            ("sample hygiene", f"{nslow} of {nsmp} samples taken while the host was slow (L above {factor:g}x the "
                               f"run's median): kept in the JSON, left out of every figure; {unstable} cells "
                               f"unstable (no figure), {na} n/a, {err} failed")]
    av = d.get("available") or {}
    notes = []
    for k, label in (("packet", "packet channels"), ("scalar", "scalar channels"),
                     ("cross_process", "cross-process"), ("pmq", "POSIX message-queue transport")):
        if k in av and not av[k]:
            notes.append(f"{label}: {(av.get('notes') or {}).get('channels' if k in ('packet', 'scalar') else k, '')}")
    return rows, notes


def figures_count_ok(figs):
    return [f for f in figs if f is not None and f.points() > 0]
