#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a `mca bench --json` result against the documented schema
(docs/benchmarks.md): structure and consistency only, never timings."""
import json
import sys

d = json.load(open(sys.argv[1]))
assert d["schema"] == "mca-bench/1", d["schema"]
assert d["machine"]["cpus"] >= 1
assert d["machine"]["platform"] in ("linux", "windows", "windows (wine)"), d["machine"]
cfg = d["config"]
assert cfg["slow_factor"] == 1.5 and cfg["min_clean"] >= 1 and cfg["cpus"], cfg
assert d["cells"] and d["targets"]
assert "instr" in d and d["instr"] is None  # reserved for --instr
ok = 0
for c in d["cells"]:
    assert c["status"] in ("ok", "n/a", "error", "unstable"), c["status"]
    assert c["consume"] in ("copy", "sum"), c["id"]
    assert c["id"].endswith("." + c["consume"]), c["id"]
    s = c["summary"]
    if c["status"] == "unstable":
        # no figure from a cell without enough clean samples
        assert s["rtt_ns"] is None and s["items_per_s"] is None and s["tail_ns"] is None, c["id"]
        assert s["slow"] > 0
    if c["status"] != "ok":
        continue
    ok += 1
    clean = [x for x in c["samples"] if not x["slow"]]
    assert len(clean) >= cfg["min_clean"], c["id"]
    assert s["slow"] == len(c["samples"]) - len(clean)
    if s["rtt_ns"]:
        assert s["rtt_ns"]["n"] == len([x for x in clean if x["rtt"]])
        t = s["tail_ns"]
        assert t["p50"] <= t["p99"] <= t["p999"] <= t["p9999"] <= t["max"], c["id"]
        assert sum(n for _, n in c["hist"]) == t["n"], c["id"]
        for x in clean:
            r = x["rtt"]
            assert r["batch"] >= 1 and r["batches"] >= 1 and r["n"] >= 1
    # the packet cells and the sweep's in-place message cells consume in place,
    # everything else copies out
    in_place = c["type"] == "packet" or (c["section"] == "sweep" and c["type"] == "message"
                                         and c["id"].endswith(".sum"))
    assert (c["consume"] == "sum") == in_place, c["id"]
assert ok > 0, "no cell measured"
for sp in d["derived"]["speedup"]:
    assert sp["against"] in ("global", "kernel")
lk = {c["locking"] for c in d["cells"] if c["kind"] == "libmca"}
assert lk == {"lockfree", "global", "kernel"}, lk
sc = d["scale"]
assert sc and sc["rows"], "scaling matrix missing"
kinds = {(r["kind"], r["locking"]) for r in sc["rows"]}
for k in ("pairs", "fanin"):
    for l in ("lockfree", "global", "kernel"):
        assert (k, l) in kinds, (k, l)
for r in sc["rows"]:
    assert r["status"] in ("ok", "unstable", "error")
    if r["status"] == "ok":
        assert r["items_per_s"]["median"] > 0 and r["csw_per_item"] is not None
print("bench JSON ok: %d cells measured, %d scaling rows" % (ok, len(sc["rows"])))
