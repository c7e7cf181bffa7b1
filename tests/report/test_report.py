#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mca report, the parts without a browser: units, axis ticks, the
Mann-Whitney U test, the significance rule of the comparison, the checks that
refuse comparing runs of another mode or machine, and the first screen's
sentences on a small bench result."""
import copy
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("MCA_REPORT_DIR") or os.path.join(HERE, "..", "..", "tools", "report"))

import report_bench as B  # noqa: E402
import report_compare as C  # noqa: E402
import report_fig as F  # noqa: E402


class Units(unittest.TestCase):
    def test_si_rates_and_times(self):
        self.assertEqual(F.rate(17.55e6), "17.6 M items/s")
        self.assertEqual(F.rate(548), "548 items/s")
        self.assertEqual(F.ns(13400), "13.4 µs")
        self.assertEqual(F.ns(153), "153 ns")
        self.assertEqual(F.ns(8.0e6), "8.00 ms")
        self.assertEqual(F.bytes_per_s(7300), "7.30 GB/s")
        self.assertEqual(F.size(8192), "8 KiB")
        self.assertEqual(F.size(24), "24 B")

    def test_no_double_prefix(self):
        for v in (1, 999, 1000, 13400, 2.5e6, 3e9):
            self.assertNotIn("kns", F.ns(v))
            self.assertNotIn("Mitems", F.rate(v))

    def test_log_ticks_are_few_and_labelled(self):
        t = F.log_ticks(100, 1e7, F.tick_ns)
        self.assertLessEqual(len(t["tickvals"]), 8)
        self.assertEqual(len(t["tickvals"]), len(t["ticktext"]))
        self.assertIn("1 µs", t["ticktext"])
        self.assertIn("1 ms", t["ticktext"])

    def test_spread_labels_keeps_gaps(self):
        pos = F.spread_labels([1.0, 1.01, 1.02, 3.0], 0.1)
        s = sorted(pos)
        self.assertTrue(all(b - a >= 0.1 - 1e-9 for a, b in zip(s, s[1:])))


class MannWhitney(unittest.TestCase):
    def test_exact_small_samples(self):
        # completely separated 3 vs 3: 2 of 20 arrangements are as extreme
        self.assertAlmostEqual(C.mann_whitney([1, 2, 3], [4, 5, 6]), 0.1)
        # 5 vs 5 separated: 2 / C(10, 5)
        self.assertAlmostEqual(C.mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2 / 252)

    def test_identical_samples_are_not_significant(self):
        self.assertGreater(C.mann_whitney([1, 2, 3, 4], [1, 2, 3, 4]), 0.5)

    def test_large_samples_normal_approximation(self):
        a = list(range(100))
        b = [x + 50 for x in range(100)]
        self.assertLess(C.mann_whitney(a, b), 1e-6)
        self.assertIsNone(C.mann_whitney([], [1]))


def bench_doc(samples_thr, mode="quick", cpu="X", commit="a" * 40, rtt=100.0):
    cell = {"id": "msg.lockfree.spread.in.shm.24B.copy", "section": "matrix", "subject": "libmca",
            "kind": "libmca", "type": "message", "locking": "lockfree", "wait": "spin", "placement": "spread",
            "process": "in", "transport": "shm", "size": 24, "status": "ok", "note": "",
            "summary": {"items_per_s": {"median": sorted(samples_thr)[len(samples_thr) // 2],
                                        "min": min(samples_thr), "max": max(samples_thr), "n": len(samples_thr)},
                        "rtt_ns": {"median": rtt, "min": rtt, "max": rtt, "n": 1}},
            "samples": [{"L_ns": 50.0, "slow": False, "rtt": {"batch_ns": rtt}, "stream": {"items_per_s": v}}
                        for v in samples_thr]}
    return {"schema": "mca-bench/1", "date": "2026-01-01T00:00:00Z", "command": "mca bench --quick",
            "machine": {"cpu": cpu, "cpus": 2, "virtualized": True, "kernel": "Linux"},
            "build": {"compiler": "GNU 12", "flags": "-O2", "build_type": "RelWithDebInfo", "commit": commit,
                      "dirty": False},
            "config": {"mode": mode, "repeat": len(samples_thr), "cpus": [0, 1]}, "cells": [cell], "targets": []}


class Comparison(unittest.TestCase):
    def test_separated_ranges_are_significant(self):
        rows = C.compare_cells(bench_doc([10e6, 10.5e6, 11e6]), bench_doc([15e6, 15.5e6, 16e6]))
        thr = [r for r in rows if r["metric"] == "thr"][0]
        self.assertTrue(thr["significant"])
        self.assertTrue(thr["better"])
        self.assertIn("ranges apart", thr["how"])

    def test_overlap_is_noise(self):
        rows = C.compare_cells(bench_doc([10e6, 12e6, 14e6]), bench_doc([11e6, 13e6, 15e6]))
        thr = [r for r in rows if r["metric"] == "thr"][0]
        self.assertFalse(thr["significant"])

    def test_u_test_with_enough_samples(self):
        before = bench_doc([10e6, 10.1e6, 10.2e6, 10.3e6, 10.4e6])
        after = bench_doc([9.0e6, 9.1e6, 9.2e6, 9.3e6, 9.4e6])
        thr = [r for r in C.compare_cells(before, after) if r["metric"] == "thr"][0]
        self.assertTrue(thr["significant"])
        self.assertFalse(thr["better"])
        self.assertIn("U test", thr["how"])

    def test_slow_samples_are_left_out(self):
        after = bench_doc([15e6, 15.5e6, 16e6])
        after["cells"][0]["samples"].append({"L_ns": 500, "slow": True, "stream": {"items_per_s": 1.0}})
        thr = [r for r in C.compare_cells(bench_doc([10e6, 10.5e6, 11e6]), after) if r["metric"] == "thr"][0]
        self.assertEqual(thr["n"], (3, 3))

    def test_mode_or_machine_mismatch_is_refused(self):
        refuse, _ = C.check(bench_doc([1]), bench_doc([1], mode="full"), allow=False)
        self.assertTrue(any("mode" in r for r in refuse))
        refuse, _ = C.check(bench_doc([1]), bench_doc([1], cpu="Y"), allow=False)
        self.assertTrue(any("CPU model" in r for r in refuse))
        refuse, warn = C.check(bench_doc([1]), bench_doc([1], mode="full"), allow=True)
        self.assertEqual(refuse, [])
        self.assertTrue(any("--allow-mismatch" in w for w in warn))

    def test_same_commit_is_said(self):
        _, warn = C.check(bench_doc([1]), bench_doc([1]), allow=False)
        self.assertTrue(any("same" in w or "both runs are of commit" in w for w in warn))
        _, warn = C.check(bench_doc([1]), bench_doc([1], commit="b" * 40), allow=False)
        self.assertFalse(any("both runs are of commit" in w for w in warn))


class FirstScreen(unittest.TestCase):
    def test_answers_have_numbers(self):
        d = bench_doc([17e6, 17.5e6, 18e6])
        g = copy.deepcopy(d["cells"][0])
        g.update(id="msg.global.spread.in.shm.24B.copy", locking="global")
        g["summary"]["items_per_s"] = {"median": 2e6, "min": 2e6, "max": 2e6, "n": 3}
        g["summary"]["rtt_ns"] = {"median": 400, "min": 400, "max": 400, "n": 3}
        d["cells"].append(g)
        d["targets"] = [{"name": "x <= 1", "value": 2.0, "op": "<=", "limit": 1, "unit": "x", "result": "MISS",
                         "detail": ""}]
        ans = B.summary(B.Bench(d, "x.json"))
        qs = {a["q"]: a["a"] for a in ans}
        self.assertIn("8.75x", qs["How much faster is lock-free than lock-based?"])
        self.assertIn("400 ns", qs["How much faster is lock-free than lock-based?"])
        self.assertIn("0 of 1", qs["Which targets pass?"])

    def test_old_results_still_work(self):
        fixture = os.path.join(HERE, "..", "fixtures", "bench_small.json")
        with open(fixture) as f:
            d = json.load(f)
        B.summary(B.Bench(d, fixture))  # no exception on a result without rtt_ns, hist or scale
        B.latency_figures(B.Bench(d, fixture))

    def test_result_without_peers(self):
        # `mca bench --no-peers`: the round-trip answer names no ideal ring, and nothing fails
        fixture = os.path.join(HERE, "..", "fixtures", "bench_small.json")
        with open(fixture) as f:
            d = json.load(f)
        d["cells"] = [c for c in d["cells"] if c.get("kind") != "peer"]
        self.assertTrue(d["cells"])
        ans = " ".join(a["a"] for a in B.summary(B.Bench(d, fixture)))
        self.assertNotIn("ideal ring", ans)


if __name__ == "__main__":
    unittest.main(verbosity=1)
