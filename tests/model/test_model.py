#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The performance model (tools/model/model.py): the closed form against
hand-computed cases, the simulation against the closed form (fixed seed,
stated tolerance), and bad inputs giving clear errors. Never timings."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

SRC = os.environ.get("MCA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tools", "model"))
import model  # noqa: E402

FIXTURE = os.path.join(SRC, "tests", "fixtures", "bench_small.json")
# the stream model's inputs (probe, hand-off times) of another run, so the test measures nothing
STREAM_INPUTS = os.path.join(SRC, "tests", "fixtures", "model_stream.json")
OPCOUNTS = os.path.join(SRC, "tools", "model", "opcounts.json")
SIM_TOLERANCE = 0.03  # relative; 40000 cycles, seed 7


def run_main(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = model.main(args)
    return rc, out.getvalue(), err.getvalue()


class ClosedForm(unittest.TestCase):
    def test_one_customer_is_one_over_z_plus_s(self):
        for z, s in ((1.0, 1.0), (30.0, 60.0), (0.0, 5.0), (7.0, 0.5)):
            r = model.mva(1, z, s)[-1]
            self.assertAlmostEqual(r["X"], 1.0 / (z + s), places=12)
            self.assertAlmostEqual(r["R"], s, places=12)
            self.assertAlmostEqual(r["U"], s / (z + s), places=12)

    def test_two_customers_single_server_by_hand(self):
        # n=1: R=1, X=1/2, Q=1/2; n=2: R=1*(1+1/2)=1.5, X=2/(1+1.5)=0.8, Q=1.2, U=0.8
        r = model.mva(2, 1.0, 1.0)
        self.assertAlmostEqual(r[0]["X"], 0.5)
        self.assertAlmostEqual(r[1]["R"], 1.5)
        self.assertAlmostEqual(r[1]["X"], 0.8)
        self.assertAlmostEqual(r[1]["Q"], 1.2)
        self.assertAlmostEqual(r[1]["U"], 0.8)
        # Z=2, S=1: n=1: X=1/3, Q=1/3; n=2: R=4/3, X=2/(10/3)=0.6
        self.assertAlmostEqual(model.mva(2, 2.0, 1.0)[1]["X"], 0.6)

    def test_no_think_time_saturates_the_server(self):
        r = model.mva(3, 0.0, 2.0)[-1]
        self.assertAlmostEqual(r["X"], 0.5)
        self.assertAlmostEqual(r["U"], 1.0)
        self.assertAlmostEqual(r["Q"], 3.0)

    def test_throughput_never_exceeds_the_bounds(self):
        for n in (1, 2, 4, 8):
            for z, d in ((10.0, 1.0), (1.0, 10.0), (5.0, 5.0)):
                x = model.mva(n, z, d)[-1]["X"]
                self.assertLessEqual(x, model.bounds(n, z, d) + 1e-12)

    def test_more_cores_never_lower_throughput(self):
        xs = [r["X"] for r in model.mva(6, 3.0, 1.0)]
        self.assertEqual(xs, sorted(xs))

    def test_exchange_model_one_core_has_no_transactions(self):
        ops = json.load(open(OPCOUNTS))
        row = ops["counts"][0]
        one = model.exchange_model(row, ops["calibration"], 120.0, 1)
        two = model.exchange_model(row, ops["calibration"], 120.0, 2)
        self.assertEqual(one["D_send_ns"] + one["D_recv_ns"], 0.0)
        self.assertGreater(two["D_send_ns"] + two["D_recv_ns"], 0.0)
        self.assertEqual(one["utilization"], 0.0)


class SimulationAgreesWithClosedForm(unittest.TestCase):
    def check(self, cores, z, d):
        sim = model.simulate(cores, z, d, channels=1, dist="exp", cycles=40000, seed=7)
        n = 2 if cores > 1 else 1
        mva = model.mva(n, z, d)[-1]
        self.assertAlmostEqual(sim["X"] / mva["X"], 1.0, delta=SIM_TOLERANCE,
                               msg="cores=%d Z=%g D=%g: sim %g vs MVA %g" % (cores, z, d, sim["X"], mva["X"]))
        self.assertAlmostEqual(sim["U"], mva["U"], delta=SIM_TOLERANCE)

    def test_two_cores_memory_bound(self):
        self.check(2, 27.0, 60.0)

    def test_two_cores_compute_bound(self):
        self.check(2, 100.0, 20.0)

    def test_two_cores_balanced(self):
        self.check(2, 1.0, 1.0)

    def test_one_core_serializes_both_sides(self):
        self.check(1, 40.0, 10.0)

    def test_fixed_seed_is_reproducible(self):
        a = model.simulate(2, 5.0, 3.0, seed=11, cycles=5000)
        b = model.simulate(2, 5.0, 3.0, seed=11, cycles=5000)
        self.assertEqual(a, b)

    def test_channels_beyond_cores_cannot_raise_throughput_past_the_server(self):
        r = model.simulate(2, 10.0, 5.0, channels=4, dist="det", cycles=20000, seed=3)
        self.assertLessEqual(r["X"], 1.0 / 5.0 * 1.001)
        self.assertLessEqual(r["U"], 1.0 + 1e-9)

    def test_bursts_keep_the_mean_load(self):
        r = model.simulate(2, 10.0, 5.0, burst=4, dist="det", cycles=20000, seed=3)
        self.assertLessEqual(r["X"], model.bounds(2, 10.0, 5.0) * 1.001)


class CommandLine(unittest.TestCase):
    def test_fixture_gives_table_and_json(self):
        with tempfile.TemporaryDirectory() as t:
            out = os.path.join(t, "model.json")
            rc, text, err = run_main([FIXTURE, "--json", out, "--inputs", STREAM_INPUTS])
            self.assertEqual(rc, 0, err)
            self.assertIn("measured / predicted", text)
            m = json.load(open(out))
            self.assertEqual(m["schema"], "mca-model/1")
            ids = {c["cell"] for c in m["cells"]}
            self.assertIn("msg.lockfree.spread.in.shm.24B", ids)
            self.assertNotIn("peer.ideal_ring.spread.24B", ids)  # peers are not modelled
            for c in m["cells"]:
                self.assertGreater(c["predicted_items_per_s"], 0)
                self.assertIn(c["verdict"], ("stop", "gap", "n/a", "model does not apply", "agrees"))
                if c["verdict"] == "gap":
                    self.assertTrue(c["gap"])
                lo, hi = m["agree_range"]
                if ".lockfree." in c["cell"] and c["ratio"] is not None:
                    # lock-free: within the range the model agrees, outside it does not apply; a reason either way
                    self.assertEqual(c["verdict"], "agrees" if lo <= c["ratio"] <= hi else "model does not apply")
                    self.assertTrue(c["why"])
                # beating the predicted ceiling is never "stop": the model says it does not apply, and why
                elif c["ratio"] is not None and c["ratio"] > m["apply_ratio"]:
                    self.assertEqual(c["verdict"], "model does not apply")
                    self.assertTrue(c["why"])
            self.assertEqual(set(m["figure6"]["curves"]), {"1", "2"})
            self.assertEqual(len(m["figure6"]["curves"]["2"]), 21)


class BadInputs(unittest.TestCase):
    def bad(self, args, pattern):
        rc, _, err = run_main(args)
        self.assertNotEqual(rc, 0)
        self.assertRegex(err, pattern)

    def write(self, d, obj):
        p = os.path.join(d, "x.json")
        with open(p, "w") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))
        return p

    def test_missing_file(self):
        self.bad(["/nonexistent/bench.json"], "cannot read bench result .*nonexistent")

    def test_unreadable_json(self):
        with tempfile.TemporaryDirectory() as t:
            self.bad([self.write(t, "{\"schema\": ")], "not valid JSON")

    def test_not_a_bench_result(self):
        with tempfile.TemporaryDirectory() as t:
            self.bad([self.write(t, {"schema": "other"})], "not a mca bench result")

    def test_missing_fields(self):
        d = json.load(open(FIXTURE))
        for k in ("cells", "L_ns", "machine"):
            with tempfile.TemporaryDirectory() as t:
                dd = dict(d)
                del dd[k]
                self.bad([self.write(t, dd)], "member '%s' is missing" % k)

    def test_zero_cores(self):
        d = json.load(open(FIXTURE))
        d["machine"] = dict(d["machine"], cpus=0)
        with tempfile.TemporaryDirectory() as t:
            self.bad([self.write(t, d)], "machine.cpus must be >= 1")

    def test_no_L(self):
        d = json.load(open(FIXTURE))
        d["L_ns"] = []
        with tempfile.TemporaryDirectory() as t:
            self.bad([self.write(t, d)], "L_ns holds no positive")

    def test_opcounts_missing_calibration(self):
        ops = json.load(open(OPCOUNTS))
        del ops["calibration"]
        with tempfile.TemporaryDirectory() as t:
            self.bad([FIXTURE, "--opcounts", self.write(t, ops)], "member 'calibration' is missing")

    def test_opcounts_missing_side_field(self):
        ops = json.load(open(OPCOUNTS))
        del ops["counts"][0]["send"]["transfers"]
        with tempfile.TemporaryDirectory() as t:
            self.bad([FIXTURE, "--opcounts", self.write(t, ops)], r"member 'counts\[0\]\.send\.transfers' is missing")

    def test_zero_customers_in_closed_form(self):
        with self.assertRaisesRegex(model.ModelError, "cores"):
            model.mva(0, 1.0, 1.0)

    def test_no_arguments(self):
        self.bad([], "give a bench JSON file")


if __name__ == "__main__":
    unittest.main(verbosity=2)
