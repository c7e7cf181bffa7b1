#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The operation counter against a toy ring with known counts: the same
lackey pipeline as `mca model --count` must report exactly the loads, stores
and RMWs the toy does on its shared page, and the line transfers a two-cache
protocol implies (tools/model/opcount.c, toy_send / toy_recv).
usage: test_opcount_toy.py MODEL_OPCOUNT   (exit 77 when valgrind is missing)"""
import os
import shutil
import sys

SRC = os.environ.get("MCA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tools", "model"))
import opcount  # noqa: E402

EXPECT = {
    "send": {"loads": 2, "stores": 3, "rmw": 1, "lines": 3, "transfers": 2, "upgrades": 0, "cold": 0},
    "recv": {"loads": 3, "stores": 1, "rmw": 2, "lines": 2, "transfers": 1, "upgrades": 2, "cold": 0},
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    if not shutil.which("valgrind"):
        print("SKIP: valgrind is not installed")
        return 77
    per, k = opcount.run_traced(sys.argv[1], ["toy", "--exchanges", "50", "--warmup", "5"])
    bad = []
    for side, exp in EXPECT.items():
        for key, v in exp.items():
            if per[side][key] != v:
                bad.append("%s.%s = %s, expected %s" % (side, key, per[side][key], v))
    if bad:
        print("FAIL: " + "; ".join(bad))
        return 1
    print("ok: toy ring counted exactly over %d exchanges: %s" % (k, {s: EXPECT[s] for s in EXPECT}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
