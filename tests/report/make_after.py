#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""An "after" run for the comparison test: a copy of a bench result whose
streams are 1.5x faster in every clean sample (and summary), another commit.
usage: make_after.py BEFORE.json AFTER.json"""
import json
import sys

d = json.load(open(sys.argv[1]))
d["build"]["commit"] = "f" * 40
for c in d["cells"]:
    for s in c.get("samples") or []:
        if s.get("stream"):
            s["stream"]["items_per_s"] *= 1.5
    st = (c.get("summary") or {}).get("items_per_s")
    if st:
        for k in ("median", "min", "max"):
            st[k] *= 1.5
with open(sys.argv[2], "w") as f:
    json.dump(d, f)
