# SPDX-License-Identifier: BSD-3-Clause
"""mca report: two `mca bench` runs side by side.

A change is called significant only when it stands out of both runs' own
spread: with at least 4 clean samples on each side, a two-sided Mann-Whitney
U test over the samples at p < 0.05; with fewer samples (a quick run has 3)
the U test cannot reach p < 0.05, so the rule is that the two runs' min-max
ranges do not overlap.
Latency is compared in units of each sample's own L, so a host that is slower
during one run does not read as a change of the code.
"""
import math

import report_fig as F
from report_bench import ok, name
from report_fig import Figure


class Mismatch(Exception):
    pass


def mann_whitney(a, b):
    """Two-sided p-value of the Mann-Whitney U test (exact for small samples,
    normal approximation with tie correction otherwise). None if a side is empty."""
    n1, n2 = len(a), len(b)
    if not n1 or not n2:
        return None
    allv = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(allv)
    i = 0
    ties = 0.0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1][0] == allv[i][0]:
            j += 1
        r = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[k] = r
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    r1 = sum(r for r, (_, g) in zip(ranks, allv) if g == 0)
    u1 = r1 - n1 * (n1 + 1) / 2
    u = min(u1, n1 * n2 - u1)
    if n1 * n2 <= 400 and ties == 0:
        # exact distribution of U by counting (Mann and Whitney's recursion)
        counts = _u_counts(n1, n2)
        total = sum(counts)
        p = 2 * sum(counts[: int(math.floor(u)) + 1]) / total
        return min(1.0, p)
    mu = n1 * n2 / 2
    n = n1 + n2
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
    if sigma == 0:
        return 1.0
    z = (abs(u1 - mu) - 0.5) / sigma
    return min(1.0, math.erfc(max(z, 0) / math.sqrt(2)))


def _u_counts(n1, n2):
    """counts[u]: how many arrangements of n1 + n2 distinct values give U = u."""
    memo = {}

    def f(m, n):
        if (m, n) in memo:
            return memo[(m, n)]
        if m == 0 or n == 0:
            res = [1]
        else:
            a = f(m - 1, n)  # largest value from the first sample: it beats all n of the second
            b = f(m, n - 1)
            res = [0] * (m * n + 1)
            for u, c in enumerate(a):
                res[u + n] += c
            for u, c in enumerate(b):
                res[u] += c
        memo[(m, n)] = res
        return res

    return f(n1, n2)


def check(before, after, allow):
    """Differences between two runs: (refusals, warnings). Mode and machine
    differences refuse the comparison unless allowed; build differences warn."""
    refuse, warn = [], []
    cb, ca = before.get("config") or {}, after.get("config") or {}
    mb, ma = before.get("machine") or {}, after.get("machine") or {}
    bb, ba = before.get("build") or {}, after.get("build") or {}
    if cb.get("mode") != ca.get("mode"):
        refuse.append(f"mode differs: {cb.get('mode')} vs {ca.get('mode')} (sample lengths and repeats differ)")
    for k, what in (("cpu", "CPU model"), ("cpus", "CPU count"), ("virtualized", "virtualization")):
        if mb.get(k) != ma.get(k):
            refuse.append(f"{what} differs: {mb.get(k)} vs {ma.get(k)}")
    if cb.get("cpus") != ca.get("cpus"):
        refuse.append(f"--cpus differs: {cb.get('cpus')} vs {ca.get('cpus')}")
    if mb.get("kernel") != ma.get("kernel"):
        warn.append(f"kernel differs: {mb.get('kernel')} vs {ma.get('kernel')}")
    for k, what in (("compiler", "compiler"), ("build_type", "build type"), ("flags", "compiler flags")):
        if (bb.get(k) or "").strip() != (ba.get(k) or "").strip():
            warn.append(f"{what} differs: {bb.get(k)!r} vs {ba.get(k)!r}")
    if bb.get("commit") == ba.get("commit") and not bb.get("dirty") and not ba.get("dirty"):
        warn.append(f"both runs are of commit {str(bb.get('commit'))[:12]}: any difference is the machine's, not "
                    "the code's")
    if refuse and allow:
        warn = [r + " (compared anyway: --allow-mismatch)" for r in refuse] + warn
        refuse = []
    return refuse, warn


def _samples(c, metric):
    out = []
    for s in c.get("samples") or []:
        if s.get("slow"):
            continue
        if metric == "thr":
            st = s.get("stream")
            if st and st.get("items_per_s"):
                out.append(st["items_per_s"])
        else:
            r = s.get("rtt")
            L = s.get("L_ns")
            v = (r or {}).get("batch_ns") or (r or {}).get("p50")
            if v and L:
                out.append(v / L)
    return out


def compare_cells(before, after):
    bc = {c["id"]: c for c in before.get("cells") or [] if ok(c)}
    rows = []
    for a in after.get("cells") or []:
        b = bc.get(a["id"])
        if not ok(a) or b is None:
            continue
        for metric in ("thr", "rtt"):
            sb, sa = _samples(b, metric), _samples(a, metric)
            if not sb or not sa:
                continue
            mb_, ma_ = _median(sb), _median(sa)
            r = ma_ / mb_
            better = r > 1 if metric == "thr" else r < 1
            p = mann_whitney(sb, sa)
            if len(sb) >= 4 and len(sa) >= 4:
                sig = p is not None and p < 0.05
                how = f"U test p = {p:.3f}"
            else:
                sig = min(sa) > max(sb) or max(sa) < min(sb)
                how = "ranges " + ("apart" if sig else "overlap")
            rows.append({"id": a["id"], "name": name(a), "size": a["size"], "metric": metric, "place": a["placement"],
                         "before": mb_, "after": ma_, "ratio": r, "lo": min(sa) / max(sb), "hi": max(sa) / min(sb),
                         "n": (len(sb), len(sa)), "p": p, "significant": sig, "better": better, "how": how})
    return rows


def _median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def summary(rows, pb, pa, before, after):
    if not rows:
        return {"q": "What changed between the two runs?", "a": "The two runs have no measured cell in common.",
                "tone": "info", "href": "#compare"}
    better = [r for r in rows if r["significant"] and r["better"]]
    worse = [r for r in rows if r["significant"] and not r["better"]]
    a = (f"From <code>{F.esc(pb)}</code> (commit {F.esc(str((before.get('build') or {}).get('commit'))[:12])}) to "
         f"<code>{F.esc(pa)}</code> (commit {F.esc(str((after.get('build') or {}).get('commit'))[:12])}): of "
         f"{len(rows)} comparisons (throughput and round trip per cell), <b>{len(better)} improved</b> and "
         f"<b>{len(worse)} got worse</b> beyond the runs' own spread; the rest did not change measurably. ")
    for lst, word in ((worse, "Worse"), (better, "Better")):
        if lst:
            lst = sorted(lst, key=lambda r: -abs(math.log(r["ratio"])))[:3]
            a += f"{word}: " + "; ".join(
                f"{F.esc(r['name'])} {F.size(r['size'])} {'throughput' if r['metric'] == 'thr' else 'RTT/L'} "
                f"{F.ratio(r['ratio'], 3)}" for r in lst) + ". "
    return {"q": "What changed between the two runs?", "a": a, "tone": "bad" if worse else "good" if better else "info",
            "href": "#compare"}


MAX_SHOWN = 30
PLACE_WORDS = {"spread": "one thread per core", "onecore": "one core", "none": "no affinity"}


def figure(rows):
    """The largest changes: the significant ones first (at most MAX_SHOWN); every
    comparison is in the table below the figure."""
    if not rows:
        return None
    sig = [r for r in rows if r["significant"]]
    pool = sig if sig else rows
    shown = sorted(pool, key=lambda r: -abs(math.log(r["ratio"])) if r["ratio"] > 0 else 0)[:MAX_SHOWN]
    order = {id(r): i for i, r in enumerate(rows)}
    rows = sorted(shown, key=lambda r: order[id(r)])
    sig = sig or []
    data = []
    for metric, label in (("thr", "throughput after / before (> 1 is better)"),
                          ("rtt", "round trip in L after / before (< 1 is better)")):
        rs = [r for r in rows if r["metric"] == metric]
        if not rs:
            continue
        ys = [f"{r['name']} {F.size(r['size'])}, {PLACE_WORDS.get(r['place'], r['place'])} · "
              f"{'throughput' if metric == 'thr' else 'RTT/L'}" for r in rs]
        colors = [(F.GOOD if r["better"] else F.BAD) if r["significant"] else F.NEUTRAL for r in rs]
        data.append({"type": "scatter", "mode": "markers", "name": label, "y": ys, "x": [r["ratio"] for r in rs],
                     "marker": {"color": colors, "size": 9, "symbol": "circle" if metric == "thr" else "diamond"},
                     "error_x": {"type": "data", "symmetric": False, "array": [r["hi"] - r["ratio"] for r in rs],
                                 "arrayminus": [r["ratio"] - r["lo"] for r in rs], "color": "#888", "thickness": 1},
                     "text": [f"{F.ratio(r['ratio'], 3)} ({r['how']})" for r in rs],
                     "hovertemplate": "%{y}: %{text}<extra></extra>"})
    n = sum(len(t["y"]) for t in data)
    allv = [r["lo"] for r in rows] + [r["hi"] for r in rows] + [1]
    lay = F.layout(height=120 + 22 * n, showlegend=True, legend={"orientation": "h", "x": 0, "y": 1.0,
                                                                   "yanchor": "bottom"},
                   xaxis=F.log_axis("after / before (log scale)", allv, lambda v: F.ratio(v, 2), pad=1.15),
                   yaxis={"type": "category", "automargin": True, "autorange": "reversed", "tickfont": {"size": 11}},
                   shapes=[{"type": "line", "x0": 1, "x1": 1, "yref": "paper", "y0": 0, "y1": 1,
                            "line": {"color": "#333", "width": 1}}])
    lay["margin"]["l"] = 10
    what = (f"the {len(rows)} largest of the {len(sig)} significant changes" if sig and len(sig) > len(rows)
            else "every significant change" if sig else f"no change is significant; the {len(rows)} largest")
    return Figure("compare-fig", "Largest changes per cell, after / before",
                  f"Shown: {what} (every comparison is in the table below). "
                  "Dots: ratio of the medians of the clean samples; whiskers: the extremes (after min / before max to "
                  "after max / before min). Green: better beyond both runs' spread, red: worse, grey: within the "
                  "noise. Round trips are compared in units of the L measured with each sample. Significance: "
                  "Mann-Whitney U over the samples at p < 0.05 when each run has at least 4 clean samples, otherwise "
                  "the two runs' ranges must not overlap.", data, lay)


def table(rows):
    out = []
    for r in rows:
        fmt = F.rate if r["metric"] == "thr" else (lambda v: f"{v:.2f} L")
        out.append({"cell": r["id"], "metric": "throughput" if r["metric"] == "thr" else "RTT/L",
                    "before": fmt(r["before"]), "after": fmt(r["after"]), "chg": F.ratio(r["ratio"], 3),
                    "n": f"{r['n'][0]} / {r['n'][1]}", "how": r["how"],
                    "verdict": ("better" if r["better"] else "worse") if r["significant"] else "no measurable change",
                    "_class": ("sig-better" if r["better"] else "sig-worse") if r["significant"] else ""})
    return out
