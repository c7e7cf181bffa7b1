# SPDX-License-Identifier: BSD-3-Clause
"""mca report: sections for the results of `mca sync`, `mca sem`,
`mca coherence`, `mca stress` and `mca model` (schemas: docs/json.md)."""

import report_fig as F
from report_fig import Figure

LIBMCA_WORDS = ("MRAPI", "mcx_", "libmca")


def _is_libmca(impl):
    return any(w.lower() in impl.lower() for w in LIBMCA_WORDS)


def _uid(page, base):
    n = sum(1 for s in page.sections if s["id"].startswith(base))
    return base if n == 0 else f"{base}-{n + 1}"


def add(page, kind, d, path):
    {"sync": sync, "sem": sem, "coherence": coherence, "stress": stress, "model": model}[kind](page, d, path)


def _source(path, d):
    cmd = d.get("command")
    return (f"<p class='small'>From <code>{F.esc(path)}</code>" + (f", written by <code>{F.esc(cmd)}</code>" if cmd else "")
            + (f" on {F.esc(d['date'])}" if d.get("date") else "") + ".</p>")


# ------------------------------------------------------------------ mca sync
def sync(page, d, path):
    rows = [r for r in d.get("results") or [] if isinstance(r, dict) and r.get("median_ns")]
    s = page.section(_uid(page, "sync"), "Synchronization costs (mca sync)")
    cfg = d.get("config") or {}
    page.html(s, _source(path, d) + f"<p>Each row: the cost of one operation, median over {F.esc(cfg.get('batch', ''))}"
                 f"-operation samples (single-thread rows) or per event (two-thread rows), timer "
                 f"{F.esc(cfg.get('timer', '?'))} with its overhead subtracted; scheduling: "
                 f"{F.esc(cfg.get('priority', '?'))}.</p>")
    if not rows:
        page.html(s, "<p>No result rows in this file.</p>")
        return
    # the first screen: libmca's primitives against the best other implementation per technique
    techs = []
    for r in rows:
        key = (r["technique"], r.get("cores", 1))
        if key not in techs:
            techs.append(key)
    lines = []
    for tech, cores in techs:
        rs = [r for r in rows if r["technique"] == tech and r.get("cores", 1) == cores]
        mine = [r for r in rs if _is_libmca(r["impl"])]
        other = [r for r in rs if not _is_libmca(r["impl"])]
        if mine and other:
            m = min(mine, key=lambda r: r["median_ns"])
            o = min(other, key=lambda r: r["median_ns"])
            lines.append((m["median_ns"] / o["median_ns"], tech, cores, m, o))
    if lines:
        best = sorted(lines, key=lambda x: x[0])
        worst = best[-1]
        a = (f"{len(rows)} operations measured. Against the fastest non-libmca implementation of the same technique, "
             f"libmca's primitives range from {F.ratio(best[0][0], 2)} ({F.esc(best[0][3]['impl'])}, "
             f"{F.esc(best[0][1])}) to {F.ratio(worst[0], 2)} ({F.esc(worst[3]['impl'])} {F.ns(worst[3]['median_ns'])} "
             f"vs {F.esc(worst[4]['impl'])} {F.ns(worst[4]['median_ns'])}, {F.esc(worst[1])}).")
        page.answers.append({"q": "What do libmca's synchronization primitives cost?", "a": a, "tone": "info",
                             "href": "#" + s["id"]})
    for cores in sorted(set(r.get("cores", 1) for r in rows)):
        rs = [r for r in rows if r.get("cores", 1) == cores]
        labels = [f"{r['technique']} · {r['impl']}" for r in rs]
        colors = [F.SUBJECT_COLORS["lockfree"] if _is_libmca(r["impl"]) else F.PEER_COLOR for r in rs]
        data = [{"type": "scatter", "mode": "markers", "name": "median", "y": labels, "x": [r["median_ns"] for r in rs],
                 "marker": {"color": colors, "size": 10, "symbol": "circle"},
                 "text": [F.ns(r["median_ns"]) for r in rs], "hovertemplate": "%{y}: median %{text}<extra></extra>"},
                {"type": "scatter", "mode": "markers", "name": "p99", "y": labels, "x": [r["p99_ns"] for r in rs],
                 "marker": {"color": colors, "size": 9, "symbol": "line-ns-open", "line": {"width": 2}},
                 "text": [F.ns(r["p99_ns"]) for r in rs], "hovertemplate": "%{y}: p99 %{text}<extra></extra>"}]
        allv = [r["median_ns"] for r in rs] + [r["p99_ns"] for r in rs]
        lay = F.layout(height=110 + 24 * len(rs), legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
                       xaxis=F.log_axis("ns per operation (log scale)", allv, F.tick_ns, pad=1.4),
                       yaxis={"type": "category", "automargin": True, "autorange": "reversed", "tickfont": {"size": 11}})
        lay["margin"]["l"] = 10
        page.fig(s, Figure(f"{s['id']}-{cores}", f"{'One core' if cores == 1 else f'{cores} cores'}: cost per operation",
                           "Dot: median, bar: p99, log scale; libmca's implementations (MRAPI, libmca events) in blue, "
                           "the system's in grey. Rows of one technique do the same work.", data, lay))
    page.table(s, [("technique", "technique"), ("impl", "implementation"), ("cores", "cores", "num"),
                   ("samples", "samples", "num"), ("median", "median", "num"), ("p99", "p99", "num"),
                   ("max", "max", "num")],
               [{"technique": r["technique"], "impl": r["impl"], "cores": r.get("cores", 1), "samples": r.get("samples"),
                 "median": F.ns(r["median_ns"]), "p99": F.ns(r.get("p99_ns")), "max": F.ns(r.get("max_ns"))}
                for r in rows], title="Every row", collapsed=True, small=True)


# ------------------------------------------------------------------ mca sem
def sem(page, d, path):
    rows = [r for r in d.get("results") or [] if isinstance(r, dict) and r.get("median_ns")]
    s = page.section(_uid(page, "sem"), "Next-semaphore hint (mca sem)")
    cfg = d.get("config") or {}
    page.html(s, _source(path, d) + "<p>T1 posts an event, T2 waits for it and then takes semaphore S; measured: from "
                 "the post until T2 has taken and released S, median of "
                 f"{F.esc(cfg.get('rounds', '?'))} rounds, with fillers making the run queue longer (threads). "
                 f"SCHED_FIFO: {'yes' if cfg.get('sched_fifo') else 'no'}; pinned: "
                 f"{'yes' if cfg.get('pinned') else 'no'}.</p>")
    if not rows:
        page.html(s, "<p>No result rows in this file.</p>")
        return
    imp = [r for r in rows if r.get("improvement_pct") is not None]
    if imp:
        held = [r["improvement_pct"] for r in imp if r["case"] == "held"]
        free = [r["improvement_pct"] for r in imp if r["case"] == "free"]
        a = "The hint (wait naming the semaphore) against waiting, then locking: "
        if held:
            a += f"<b>{min(held):+.0f} % to {max(held):+.0f} %</b> on the median when S is held at the event"
        if free:
            a += f"{'; ' if held else ''}{min(free):+.0f} % to {max(free):+.0f} % when S is free"
        csw = [r["csw_per_round"] for r in imp if r.get("csw_per_round") is not None]
        a += f" (context switches per round with the hint: {min(csw):.1f}–{max(csw):.1f})." if csw else "."
        page.answers.append({"q": "What does the next-semaphore hint buy?", "a": a, "tone": "info",
                             "href": "#" + s["id"]})
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    for case in ("held", "free"):
        rs = [r for r in rows if r["case"] == case]
        if not rs:
            continue
        data, allv = [], []
        for i, v in enumerate(variants):
            pts = sorted((r["threads"], r["median_ns"], r["p99_ns"]) for r in rs if r["variant"] == v)
            if not pts:
                continue
            hint = "hint" in v
            color = F.SUBJECT_COLORS["lockfree"] if hint else F.PEER_GREYS[i % len(F.PEER_GREYS)]
            data.append(F.line(v, [p[0] for p in pts], [p[1] for p in pts], color,
                               dash="solid" if hint else F.PEER_DASHES[i % len(F.PEER_DASHES)],
                               symbol=F.PEER_SYMBOLS[i % len(F.PEER_SYMBOLS)], hover="%{x} threads: %{text}",
                               text=[F.ns(p[1]) for p in pts]))
            allv += [p[1] for p in pts]
        xs = sorted(set(r["threads"] for r in rs))
        lay = F.layout(height=400, xaxis={"title": {"text": "threads in the run queue"}, "tickmode": "array",
                                          "tickvals": xs, "ticktext": [str(x) for x in xs], "gridcolor": "#e6e6e6"},
                       yaxis=F.log_axis("post → S taken and released (median, log scale)", allv, F.tick_ns, pad=1.3))
        page.fig(s, Figure(f"{s['id']}-{case}", f"S {'held by T1' if case == 'held' else 'free'} when the event fires",
                           "Median per round; the hinted variants in blue (solid), the standard ways in grey.",
                           data, lay))
    page.table(s, [("variant", "variant"), ("case", "S at the event"), ("threads", "threads", "num"),
                   ("median", "median", "num"), ("p99", "p99", "num"), ("csw", "context switches / round", "num"),
                   ("imp", "vs baseline", "num")],
               [{"variant": r["variant"], "case": r["case"], "threads": r["threads"], "median": F.ns(r["median_ns"]),
                 "p99": F.ns(r.get("p99_ns")), "csw": f"{r.get('csw_per_round', 0):.2f}",
                 "imp": "" if r.get("improvement_pct") is None else f"{r['improvement_pct']:+.1f} % vs {r['baseline']}"}
                for r in rows], title="Every row", collapsed=True, small=True)


# ------------------------------------------------------------------ mca coherence
def coherence(page, d, path):
    runs = [x for x in d.get("samples") or [] if x.get("kind") == "run" and x.get("items")]
    s = page.section(_uid(page, "coherence"), "Sequential, shared and private arrays (mca coherence)")
    page.html(s, _source(path, d) + "<p>Two 2-D int arrays updated sequentially by one thread, in parallel by two "
                 "threads on shared rows (false and true sharing) and in parallel on private halves; time per element "
                 "update against the data size.</p>")
    if not runs:
        page.html(s, "<p>No timed run in this file (<code>--no-run</code>).</p>")
        return
    cell = {}
    for x in runs:
        cell.setdefault((x["version"], x["size_bytes"]), []).append(x["time_ns"] / x["items"])
    versions = []
    for x in runs:
        if x["version"] not in versions:
            versions.append(x["version"])
    colors = {"sequential": F.PEER_COLOR, "shared": F.SUBJECT_COLORS["global"], "private": F.SUBJECT_COLORS["lockfree"]}
    data, allv, sizes = [], [], set()
    for i, v in enumerate(versions):
        pts = sorted((sz, _median(vals), min(vals), max(vals)) for (vv, sz), vals in cell.items() if vv == v)
        c = colors.get(v, F.PEER_GREYS[i % len(F.PEER_GREYS)])
        t = F.line(v, [p[0] for p in pts], [p[1] for p in pts], c, hover="%{text}",
                   text=[f"{F.size(p[0])}: {F.ns(p[1])} per update" for p in pts])
        t["error_y"] = {"type": "data", "symmetric": False, "array": [p[3] - p[1] for p in pts],
                        "arrayminus": [p[1] - p[2] for p in pts], "color": c, "thickness": 1}
        data.append(t)
        allv += [p[2] for p in pts] + [p[3] for p in pts]
        sizes.update(p[0] for p in pts)
    lay = F.layout(height=420, xaxis=F.size_axis("data size, both arrays (log scale)", sizes),
                   yaxis=F.log_axis("time per element update (median, log scale)", allv, F.tick_ns, pad=1.4))
    page.fig(s, Figure(f"{s['id']}-time", "Time per element update vs data size",
                       "Median over the repetitions, error bars min–max. Time from the first thread's start to the "
                       "last one's end, divided by the element updates of all threads.", data, lay))
    biggest = max(sizes)
    sh, pr = cell.get(("shared", biggest)), cell.get(("private", biggest))
    sq = cell.get(("sequential", biggest))
    if sh and pr:
        a = (f"At {F.size(biggest)} the shared version takes {F.ns(_median(sh))} per update, private "
             f"{F.ns(_median(pr))} (<b>{F.ratio(_median(sh) / _median(pr), 2)}</b>)")
        a += f", sequential {F.ns(_median(sq))}." if sq else "."
        page.answers.append({"q": "What does sharing cache lines cost?", "a": a, "tone": "info", "href": "#" + s["id"]})
    bad = [c["name"] for c in d.get("counters") or [] if c.get("status") != "OK"]
    if bad:
        page.html(s, f"<p class='small'>Counters that did not open on this machine: {F.esc(', '.join(bad))}.</p>")


def _median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


# ------------------------------------------------------------------ mca stress
def stress(page, d, path):
    s = page.section(_uid(page, "stress"), f"Stress topology {d.get('topology', {}).get('name', '')} (mca stress)")
    res = d.get("result") or {}
    routes = d.get("routes") or []
    ok = res.get("verified")
    total = sum(r.get("verified", 0) for r in routes)
    a = (f"Topology <code>{F.esc((d.get('topology') or {}).get('name', '?'))}</code>: "
         + (f"<b>every item verified</b> — {F.si(total)} items over {len(routes)} routes in {res.get('elapsed_s', 0):.2f} s"
            if ok else f"<b>FAILED</b>: {F.esc('; '.join(res.get('problems') or []) or res.get('status', '?'))}")
         + ".")
    page.answers.append({"q": "Did the stress run verify every item?", "a": a, "tone": "good" if ok else "bad",
                         "href": "#" + s["id"]})
    page.html(s, _source(path, d) + f"<p>{a} Every item carries its route, id, length and checksum; receivers check "
                 "order, loss, duplicates and content.</p>")
    if routes:
        xs = [f"route {r['route']}: {r['type']} {r['from']}→{r['to']}" for r in routes]
        secs = max(res.get("elapsed_s") or 0, 1e-9)
        data = [{"type": "bar", "orientation": "h", "y": xs, "x": [r.get("verified", 0) / secs for r in routes],
                 "marker": {"color": [F.SUBJECT_COLORS["lockfree"] if r.get("problems", 0) == 0 else F.BAD
                                      for r in routes]},
                 "text": [F.rate(r.get("verified", 0) / secs) for r in routes], "textposition": "outside",
                 "cliponaxis": False, "hovertemplate": "%{y}: %{text}<extra></extra>"}]
        allv = [max(r.get("verified", 0), 1) / secs for r in routes]
        lay = F.layout(height=110 + 28 * len(routes), legend=False,
                       xaxis=F.log_axis("verified items/s over the whole run (log scale)", allv + [max(allv) * 4],
                                        F.tick_rate, pad=1.3),
                       yaxis={"type": "category", "automargin": True, "autorange": "reversed"})
        lay["margin"]["l"] = 10
        page.fig(s, Figure(f"{s['id']}-routes", "Verified items per second, per route",
                           "Items verified by the receiver divided by the run's wall time (all routes run at once); "
                           "red: a route with a problem.", data, lay))
        page.table(s, [("route", "route", "num"), ("type", "type"), ("from", "from"), ("to", "to"),
                       ("size", "size", "num"), ("count", "items", "num"), ("verified", "verified", "num"),
                       ("problems", "problems", "num")],
                   [{"route": r["route"], "type": r["type"], "from": r["from"], "to": r["to"],
                     "size": F.size(r.get("size")), "count": r.get("count"), "verified": r.get("verified"),
                     "problems": r.get("problems", 0)} for r in routes])


# ------------------------------------------------------------------ mca model
def model(page, d, path):
    s = page.section(_uid(page, "model"), "Performance model (mca model)")
    mc = d.get("machine") or {}
    cells = [c for c in d.get("cells") or [] if c.get("measured_items_per_s") and c.get("predicted_items_per_s")]
    mi = d.get("inputs") or {}
    pr = mi.get("probe") or {}
    stream = (f"<p>Lock-free cells on two cores: the stream model, from inputs measured with the run ({F.esc(mi.get('when', ''))}): "
              f"one cache-line transfer {F.ns(pr.get('line_transfer_ns'))}, {pr.get('lines_in_flight', 0):.1f} lines in "
              f"flight, memcpy {pr.get('memcpy_xcore_bytes_per_ns', 0):.1f} B/ns across cores, and the time of one "
              "hand-off on one core; three regimes (pipelined, caught up, serialized), one predicted per exchange "
              "type.</p>") if pr else ""
    page.html(s, stream)
    page.html(s, _source(path, d) + "<p>The interconnect as one queueing station and each core a customer (exact "
                 "mean-value analysis); the memory operations of one exchange counted from the implementation under "
                 f"valgrind lackey; costs of this machine: L = {F.ns(mc.get('L_ns'))}, one coherence transaction L/4, "
                 f"hit {F.ns(mc.get('hit_ns'))}, memory {F.ns(mc.get('mem_ns'))}, uncontended RMW "
                 f"{F.ns(mc.get('rmw_ns'))}" + (f", copies at {F.bytes_per_s(mc['copy_mb_per_s'])}"
                                                if mc.get("copy_mb_per_s") else "") + ". docs/model.md.</p>")
    if not cells:
        page.html(s, "<p>No cell with both a measurement and a prediction.</p>")
        return
    lf = [c for c in cells if ".lockfree." in c["cell"] and ".onecore." not in c["cell"] and ".none." not in c["cell"]]
    within = [c for c in lf if 0.5 <= c["ratio"] <= 2.0]
    outside = [c for c in lf if not 0.5 <= c["ratio"] <= 2.0]
    na = [c for c in cells if str(c.get("verdict", "")).startswith("model does not apply")]
    a = (f"For {len(within)} of {len(lf)} lock-free cells (threads on separate cores) the prediction is within "
         f"0.5–2x of the measurement")
    if outside:
        a += "; outside: " + ", ".join(f"{F.esc(c['cell'])} ({F.ratio(c['ratio'], 2)})" for c in outside[:5])
        a += ", …" if len(outside) > 5 else ""
    a += "."
    sm = d.get("summary") or {}
    if sm.get("lockfree"):
        a += (f" Stream model: {sm['agree']} of {sm['lockfree']} two-core lock-free cells within 0.5–2x of the "
              f"predicted regime, {sm['other_regime']} more within that range of another regime of the model.")
    if na:
        a += f" The model does not apply to {len(na)} cells; the table says why."
    page.answers.append({"q": "Does the performance model explain the measurements?", "a": a,
                         "tone": "good" if not outside else "info", "href": "#" + s["id"]})
    groups = {}
    for c in cells:
        lock = c["cell"].split(".")[1] if c["cell"].split(".")[0] != "sweep" else c["cell"].split(".")[2]
        groups.setdefault(lock if lock in F.SUBJECT_COLORS else "lockfree", []).append(c)
    data = []
    allv = []
    for lock, cs in groups.items():
        data.append({"type": "scatter", "mode": "markers", "name": F.SUBJECT_NAMES[lock],
                     "x": [c["predicted_items_per_s"] for c in cs], "y": [c["measured_items_per_s"] for c in cs],
                     "marker": {"color": F.SUBJECT_COLORS[lock], "size": 9,
                                "symbol": ["circle" if 0.5 <= c["ratio"] <= 2 else "x" for c in cs]},
                     "text": [f"{c['cell']}: measured {F.rate(c['measured_items_per_s'])}, predicted "
                              f"{F.rate(c['predicted_items_per_s'])} ({F.ratio(c['ratio'], 2)})" for c in cs],
                     "hovertemplate": "%{text}<extra></extra>"})
        allv += [c["predicted_items_per_s"] for c in cs] + [c["measured_items_per_s"] for c in cs]
    lo, hi = min(allv) / 2, max(allv) * 2
    for f, dash, nm in ((1, "solid", "measured = predicted"), (2, "dot", "2x"), (0.5, "dot", "0.5x")):
        data.append({"type": "scatter", "mode": "lines", "x": [lo, hi], "y": [lo * f, hi * f], "name": nm,
                     "line": {"color": "#555" if f == 1 else "#aaa", "dash": dash, "width": 1},
                     "hoverinfo": "skip", "showlegend": f != 0.5})
    ax = F.log_axis("predicted items/s (log scale)", [lo, hi], F.tick_rate, pad=1.0)
    ay = F.log_axis("measured items/s (log scale)", [lo, hi], F.tick_rate, pad=1.0)
    lay = F.layout(height=520, xaxis=ax, yaxis=ay)
    page.fig(s, Figure(f"{s['id']}-scatter", "Measured against predicted throughput, per bench cell",
                       "Each point a libmca cell of the bench result; on the solid line the model is exact, between "
                       "the dotted lines it is within 2x. Circles: within 0.5–2x; crosses: outside.", data, lay))
    page.table(s, [("cell", "cell"), ("meas", "measured", "num"), ("pred", "predicted", "num"),
                   ("ratio", "measured / predicted", "num"), ("regime", "regime (nearest)"), ("verdict", "verdict")],
               [{"cell": c["cell"], "meas": F.rate(c["measured_items_per_s"]), "pred": F.rate(c["predicted_items_per_s"]),
                 "ratio": F.ratio(c["ratio"], 2),
                 "regime": (c["regime"] + (f" ({c['nearest_regime']})" if c.get("nearest_regime") not in (None, c["regime"])
                                           else "")) if c.get("regime") else "",
                 "verdict": c.get("verdict", "") + (": " + c["gap"] if c.get("gap") else "")
                 + (": " + c["why"] if c.get("why") else "")} for c in cells],
               title="Every cell", collapsed=True, small=True)
