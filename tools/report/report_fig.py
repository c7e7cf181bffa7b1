# SPDX-License-Identifier: BSD-3-Clause
"""mca report: units, colours and Plotly figure specifications.

Figures are plain dicts ({"data": [...], "layout": {...}}) that the page hands
to Plotly.newPlot; nothing here imports Plotly. Log axes get their tick labels
from here (SI units: "100 ns", "1 µs", "10 M/s"), never from Plotly's own
exponent format, so a unit is never prefixed twice.
"""
import html
import math

# One colour per subject, the same in every figure; peers are grey.
SUBJECT_COLORS = {"lockfree": "#1f77b4", "global": "#d95f02", "kernel": "#7b3294"}
SUBJECT_NAMES = {"lockfree": "libmca lock-free", "global": "libmca global lock", "kernel": "libmca kernel lock"}
PEER_COLOR = "#8c8c8c"
IDEAL_COLOR = "#404040"
GOOD, BAD, NEUTRAL = "#1a9850", "#d73027", "#999999"
TYPE_DASH = {"message": "solid", "packet": "dash", "scalar": "dot"}
TYPE_SYMBOL = {"message": "circle", "packet": "square", "scalar": "diamond"}
PEER_DASHES = ["dash", "dot", "dashdot", "longdash", "longdashdot", "solid"]
PEER_GREYS = ["#6f6f6f", "#9a9a9a", "#b5b5b5", "#808080", "#a8a8a8", "#5c5c5c"]
PEER_SYMBOLS = ["triangle-up", "triangle-down", "x", "cross", "star", "hexagon", "pentagon", "star-square"]

PEER_NAMES = {
    "ideal_ring": "ideal ring", "boost_spsc_queue": "Boost spsc_queue", "ck_ring_spsc": "ck_ring",
    "mutex_condvar": "mutex + condvar", "pipe": "pipe", "unix_socketpair": "Unix socketpair",
    "posix_mqueue": "POSIX mqueue", "zmq_inproc": "ZeroMQ inproc", "zmq_ipc": "ZeroMQ ipc",
    "nng_inproc": "nng inproc", "nng_ipc": "nng ipc", "iceoryx": "iceoryx",
    "sched_yield_pingpong": "sched_yield ping-pong", "futex_pingpong": "futex ping-pong",
}

_PREFIX = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")]


def _num(v, digits=3):
    """v with `digits` significant digits, no exponent, no trailing zeros past them."""
    if v == 0:
        return "0"
    mag = int(math.floor(math.log10(abs(v))))
    dec = max(0, digits - 1 - mag)
    s = f"{v:.{dec}f}"
    return s


def _short(v):
    """A tick value: at most 3 significant digits, no trailing zeros ("1", "2.5", "300")."""
    s = _num(v, 3)
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def si(v, unit="", digits=3, tick=False):
    """1.75e7, "items/s" -> "17.5 M items/s"; 7.3e9, "B/s" -> "7.30 GB/s". A unit
    that is a word keeps a space after the prefix, a symbol joins it."""
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return "–"
    num = _short if tick else (lambda x: _num(x, digits))
    sep = " " if unit[:1].islower() else ""
    for f, p in _PREFIX:
        if abs(v) >= f * 0.9995:
            if not p:
                break
            return f"{num(v / f)} {p}{sep}{unit}".rstrip()
    return f"{num(v)} {unit}".rstrip()


def ns(v, digits=3, tick=False):
    """A time given in ns: "153 ns", "1.25 µs", "8.00 ms", "2.10 s"."""
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return "–"
    num = _short if tick else (lambda x: _num(x, digits))
    a = abs(v)
    if a >= 999.5e6:
        return f"{num(v / 1e9)} s"
    if a >= 999.5e3:
        return f"{num(v / 1e6)} ms"
    if a >= 999.5:
        return f"{num(v / 1e3)} µs"
    return f"{num(v)} ns"


def tick_ns(v):
    return ns(v, tick=True)


def tick_rate(v):
    """Tick labels of an items/s axis (the axis title says items/s): "10 M", "300 k"."""
    return si(v, "", tick=True)


def tick_bps(v):
    return si(v, "B/s", tick=True)


def rate(v, what="items"):
    return si(v, f"{what}/s")


def bytes_per_s(v):
    """MB/s given: "7.30 GB/s" (decimal prefixes, like the benchmark's MB/s)."""
    return "–" if v is None else si(v * 1e6, "B/s")


def size(b):
    """Payload sizes: 24 -> "24 B", 8192 -> "8 KiB", 65536 -> "64 KiB"."""
    if b is None:
        return "–"
    for f, p in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= f and b % f == 0:
            return f"{b // f} {p}"
    return f"{b} B"


def ratio(v, digits=3):
    return "–" if v is None else f"{_num(v, digits)}x"


def pct(v):
    return "–" if v is None else f"{v:.0f} %"


# ------------------------------------------------------------ axis ticks
def log_ticks(lo, hi, label, max_ticks=8):
    """Tick values and SI labels for a log axis spanning [lo, hi]: 1-2-5 steps
    when there is room, decades otherwise, every other decade when the range is
    wide, so labels never crowd."""
    if not lo or not hi or lo <= 0 or hi <= 0:
        return None
    if hi < lo:
        lo, hi = hi, lo
    d0, d1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    fine = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)
    finer = tuple(1 + k / 10 for k in range(10)) + (2, 2.5, 3, 4, 5, 6, 7, 8, 9)
    for steps in ((1, 2, 5), (1, 3), (1,), fine, finer):
        vals = [m * 10 ** d for d in range(d0, d1 + 1) for m in steps if lo / 1.05 <= m * 10 ** d <= hi * 1.05]
        if 2 <= len(vals) <= max_ticks:
            return {"tickvals": vals, "ticktext": [label(v) for v in vals]}
    step = 1
    while (d1 - d0) / step + 1 > max_ticks:
        step += 1
    vals = [10 ** d for d in range(d0, d1 + 1, step)]
    return {"tickvals": vals, "ticktext": [label(v) for v in vals]}


def log_axis(title, values, label, pad=1.6, max_ticks=8):
    """A log axis over `values` with SI tick labels and a little room on each side."""
    vs = [v for v in values if v is not None and v > 0]
    ax = {"title": {"text": title}, "type": "log", "gridcolor": "#e6e6e6", "zeroline": False, "automargin": True}
    if vs:
        lo, hi = min(vs) / pad, max(vs) * pad
        ax["range"] = [math.log10(lo), math.log10(hi)]
        t = log_ticks(lo, hi, label, max_ticks)
        if t:
            ax.update(t, tickmode="array")
    return ax


def size_axis(title, sizes):
    vs = sorted(set(s for s in sizes if s))
    ax = {"title": {"text": title}, "type": "log", "gridcolor": "#e6e6e6", "automargin": True}
    if vs:
        ax["range"] = [math.log10(vs[0]) - 0.15, math.log10(vs[-1]) + 0.15]
        # every size is a tick when they are few; every other one otherwise
        shown = vs if len(vs) <= 9 else vs[::2]
        ax.update(tickmode="array", tickvals=shown, ticktext=[size(v) for v in shown])
    return ax


# ------------------------------------------------------------ figures
def layout(title=None, height=420, legend=True, **kw):
    lay = {
        "height": height,
        "margin": {"l": 80, "r": 30, "t": 30 if not title else 50, "b": 60},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', sans-serif", "size": 13},
        "plot_bgcolor": "white",
        "paper_bgcolor": "white",
        "hovermode": "closest",
        "showlegend": legend,
        "legend": {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "font": {"size": 12}},
    }
    if title:
        lay["title"] = {"text": title, "x": 0, "xanchor": "left", "font": {"size": 15}}
    lay.update(kw)
    return lay


class Figure:
    """One figure of the page: a Plotly spec, a caption and an anchor."""

    def __init__(self, fid, title, caption, data, lay, kind="plot"):
        self.id = fid
        self.title = title
        self.caption = caption
        self.data = data
        self.layout = lay
        self.kind = kind

    def spec(self):
        return {"data": self.data, "layout": self.layout}

    def points(self):
        return sum(len(t.get("x") or t.get("y") or []) for t in self.data)


def line(name, xs, ys, color, dash="solid", symbol="circle", hover=None, width=2.2, group=None, show=True,
         text=None, mode="lines+markers", size=7):
    t = {"type": "scatter", "mode": mode, "name": name, "x": xs, "y": ys,
         "line": {"color": color, "dash": dash, "width": width},
         "marker": {"color": color, "symbol": symbol, "size": size}, "showlegend": show}
    if hover:
        t["hovertemplate"] = hover + "<extra>" + name + "</extra>"
    if text is not None:
        t["text"] = text
    if group:
        t["legendgroup"] = group
    return t


def spread_labels(ys_log, gap):
    """Positions (log10 units) for labels at ys_log that keep at least `gap`
    between neighbours, moving each as little as possible (direct labels at
    the end of lines must not overlap)."""
    order = sorted(range(len(ys_log)), key=lambda i: ys_log[i])
    pos = [ys_log[i] for i in order]
    for _ in range(50):
        moved = False
        for k in range(1, len(pos)):
            if pos[k] - pos[k - 1] < gap - 1e-9:
                mid = (pos[k] + pos[k - 1]) / 2
                pos[k - 1], pos[k] = mid - gap / 2, mid + gap / 2
                moved = True
        if not moved:
            break
    out = [0.0] * len(ys_log)
    for k, i in enumerate(order):
        out[i] = pos[k]
    return out


def esc(s):
    return html.escape(str(s))
