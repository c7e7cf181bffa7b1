#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The stream model of `mca model` (docs/model.md) on a small input: a bench
result trimmed to nine cells, with the inputs measured in its run
(tests/fixtures/model_stream.json). The checks are properties the model must
have, computed from the inputs, never a copied result; no timings."""
import contextlib
import copy
import io
import json
import os
import sys
import tempfile
import unittest

SRC = os.environ.get("MCA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tools", "model"))
import model  # noqa: E402

FIXTURE = os.path.join(SRC, "tests", "fixtures", "model_stream.json")
OPCOUNTS = os.path.join(SRC, "tools", "model", "opcounts.json")


def load(p):
    with open(p) as f:
        return json.load(f)


def run_main(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = model.main(args)
    return rc, out.getvalue(), err.getvalue()


def two_core_lockfree(c):
    return c["locking"] == "lockfree" and c["placement"] != "onecore"


class Stream(unittest.TestCase):
    def setUp(self):
        self.bench = load(FIXTURE)
        self.ops = load(OPCOUNTS)
        self.mi = self.bench["model_inputs"]
        self.rows = self.ops["counts"]

    def build(self, bench=None, mi=None):
        b = bench or self.bench
        return model.build(b, FIXTURE, self.ops, OPCOUNTS, self.ops["calibration"], mi=mi or b["model_inputs"])

    def test_every_lockfree_cell_gets_a_ratio_and_a_verdict(self):
        m = self.build()
        cells = {c["cell"]: c for c in m["cells"]}
        lf = [c for c in self.bench["cells"] if c["locking"] == "lockfree" and c["transport"] == "shm"]
        self.assertTrue(lf)
        for c in lf:
            e = cells[c["id"]]
            self.assertIsNotNone(e["ratio"], c["id"])
            self.assertAlmostEqual(e["ratio"], e["measured_items_per_s"] / e["predicted_items_per_s"], places=9)
            inside = 0.5 <= e["ratio"] <= 2.0
            self.assertEqual(e["verdict"], "agrees" if inside else "model does not apply", c["id"])
            self.assertTrue(e["why"], c["id"])  # a reason either way, never "stop"
        self.assertNotIn("pmq", " ".join(cells))  # only the shm transport is modelled

    def test_two_core_lockfree_cells_use_the_stream_model(self):
        m = self.build()
        for e in m["cells"]:
            c = next(x for x in self.bench["cells"] if x["id"] == e["cell"])
            if two_core_lockfree(c):
                self.assertEqual(e["model"], "stream", e["cell"])
                self.assertEqual(e["predicted_items_per_s"], e["regimes_items_per_s"][e["regime"]])
                # the regimes bracket: overlapped >= one round trip in series >= everything in series
                r = e["regimes_items_per_s"]
                self.assertGreaterEqual(r["pipelined"], r["caught_up"])
                self.assertGreaterEqual(r["caught_up"], r["serialized"])
            else:
                self.assertEqual(e["model"], "mva", e["cell"])

    def test_prediction_rises_with_lines_in_flight_until_instructions_bound(self):
        row = model.control_row(self.rows, "scalar", "lockfree")
        prev = 0.0
        seen_bound = False
        for m_ in (1, 2, 4, 8, 16, 64, 1024):
            mi = copy.deepcopy(self.mi)
            mi["probe"]["lines_in_flight"] = m_  # loads and stores alike
            mi["probe"]["store_lines_in_flight"] = m_
            t, terms = model.stream_model(row, mi, "scalar", 8)
            x = 1e9 / t["pipelined"]
            self.assertGreaterEqual(x, prev)
            # never beyond the per-item instruction cost of the slower side
            self.assertLessEqual(x, 1e9 / max(terms["send_ns"], terms["recv_ns"]) * (1 + 1e-12))
            if x == prev:
                seen_bound = True
            prev = x
        self.assertTrue(seen_bound, "with enough lines in flight the instructions bound the stream")
        # strictly lower per-item time when the transfers dominate, for either kind of miss
        for key in ("lines_in_flight", "store_lines_in_flight"):
            mi1, mi2 = copy.deepcopy(self.mi), copy.deepcopy(self.mi)
            mi1["probe"][key], mi2["probe"][key] = 1, 2
            t1, _ = model.stream_model(row, mi1, "scalar", 8)
            t2, _ = model.stream_model(row, mi2, "scalar", 8)
            self.assertLess(t2["pipelined"], t1["pipelined"], key)
            # one transfer at a time: no regime overlaps more than the lines in flight allow
            self.assertGreaterEqual(t1["serialized"], t1["caught_up"])

    def test_copies_at_memcpy_bandwidth(self):
        row = model.control_row(self.rows, "message", "lockfree")
        big = 65536
        slow, fast = copy.deepcopy(self.mi), copy.deepcopy(self.mi)
        fast["probe"]["memcpy_xcore_bytes_per_ns"] = slow["probe"]["memcpy_xcore_bytes_per_ns"] * 2
        ts, terms_s = model.stream_model(row, slow, "message", big)
        tf, terms_f = model.stream_model(row, fast, "message", big)
        self.assertLess(tf["caught_up"], ts["caught_up"])
        pr = slow["probe"]
        nb = big - row["size"]  # the bytes beyond the counted slot line
        self.assertAlmostEqual(terms_s["copy_ns"], nb / pr["memcpy_xcore_bytes_per_ns"]
                               - nb / pr["memcpy_local_bytes_per_ns"], places=6)
        self.assertEqual(terms_s["first_payload_line_ns"], pr["line_transfer_ns"])
        # a larger payload never costs less; one that fits the counted slot line copies nothing extra
        t24, terms24 = model.stream_model(row, slow, "message", row["size"])
        self.assertEqual((terms24["copy_ns"], terms24["first_payload_line_ns"]), (0.0, 0.0))
        self.assertLess(t24["caught_up"], ts["caught_up"])

    def test_a_cell_beating_every_regime_does_not_apply(self):
        b = copy.deepcopy(self.bench)
        m0 = self.build(b)
        first = next(e for e in m0["cells"] if e["cell"] == "msg.lockfree.spread.in.shm.24B.copy")
        fastest = max(first["regimes_items_per_s"].values())
        cell = next(c for c in b["cells"] if c["id"] == first["cell"])
        cell["summary"]["items_per_s"]["median"] = fastest * 10
        e = next(e for e in self.build(b)["cells"] if e["cell"] == first["cell"])
        self.assertGreater(e["ratio"], 2)
        self.assertEqual(e["verdict"], "model does not apply")
        self.assertIn("faster than every regime", e["why"])
        # one that runs in another regime than predicted is named so
        other = {k: v for k, v in first["regimes_items_per_s"].items() if k != first["regime"]}
        k, v = max(other.items(), key=lambda kv: abs(kv[1] / first["predicted_items_per_s"]))
        if not 0.5 <= v / first["predicted_items_per_s"] <= 2.0:
            cell["summary"]["items_per_s"]["median"] = v
            e = next(e for e in self.build(b)["cells"] if e["cell"] == first["cell"])
            self.assertEqual(e["verdict"], "model does not apply")
            self.assertIn("ran " + k.replace("_", " "), e["why"])

    def test_onecore_and_block_cells_name_what_the_model_lacks(self):
        b = copy.deepcopy(self.bench)
        for c in b["cells"]:
            if c["locking"] == "lockfree" and (c["placement"] == "onecore" or c["wait"] == "block"):
                c["summary"]["items_per_s"]["median"] = 1.0  # far below any prediction
        for e in self.build(b)["cells"]:
            if ".onecore." in e["cell"] and ".lockfree." in e["cell"]:
                self.assertEqual(e["verdict"], "model does not apply")
                self.assertIn("scheduler", e["why"])
            if ".block." in e["cell"]:
                self.assertEqual(e["verdict"], "model does not apply")
                self.assertIn("futex", e["why"])

    def test_global_lock_cells_keep_the_ceiling_verdicts(self):
        for e in self.build()["cells"]:
            if ".global." in e["cell"]:
                self.assertIn(e["verdict"], ("stop", "gap", "model does not apply"))

    def test_envelope_and_json_to_stdout(self):
        env = {"command": "mca model x", "machine": {"cpu": "test cpu", "kernel": "k"}, "build": {"version": "0"}}
        old = os.environ.get("MCA_JSON_ENVELOPE")
        os.environ["MCA_JSON_ENVELOPE"] = json.dumps(env)
        try:
            rc, out, err = run_main([FIXTURE, "--json", "-"])
        finally:
            if old is None:
                del os.environ["MCA_JSON_ENVELOPE"]
            else:
                os.environ["MCA_JSON_ENVELOPE"] = old
        self.assertEqual(rc, 0, err)
        d = json.loads(out)  # standard output is the JSON alone; the table went to standard error
        self.assertIn("measured / predicted", err)
        self.assertEqual(list(d)[:5], ["schema", "date", "command", "machine", "build"])  # docs/json.md
        self.assertEqual(d["schema"], "mca-model/1")
        self.assertEqual(d["command"], env["command"])
        self.assertEqual(d["build"], env["build"])
        self.assertEqual(d["machine"]["cpu"], self.bench["machine"]["cpu"])
        self.assertEqual(d["machine"]["kernel"], "k")
        self.assertEqual(d["machine"]["lines_in_flight"], self.mi["probe"]["lines_in_flight"])
        self.assertEqual(d["inputs"]["handoff_ns"], self.mi["handoff_ns"])

    def test_inputs_file_overrides_and_bad_inputs_are_named(self):
        with tempfile.TemporaryDirectory() as t:
            mi = copy.deepcopy(self.mi)
            mi["probe"]["lines_in_flight"] = 1
            p = os.path.join(t, "inputs.json")
            with open(p, "w") as f:
                json.dump(mi, f)
            out = os.path.join(t, "m.json")
            rc, _, err = run_main([FIXTURE, "--inputs", p, "--json", out])
            self.assertEqual(rc, 0, err)
            self.assertEqual(load(out)["machine"]["lines_in_flight"], 1)
            del mi["probe"]["memcpy_xcore_bytes_per_ns"]
            with open(p, "w") as f:
                json.dump(mi, f)
            rc, _, err = run_main([FIXTURE, "--inputs", p])
            self.assertEqual(rc, 2)
            self.assertIn("memcpy_xcore_bytes_per_ns", err)
            mi = copy.deepcopy(self.mi)
            mi["handoff_ns"]["message"]["24"] = -3
            with open(p, "w") as f:
                json.dump(mi, f)
            rc, _, err = run_main([FIXTURE, "--inputs", p])
            self.assertEqual(rc, 2)
            self.assertIn("handoff_ns.message", err)
            rc, _, err = run_main([FIXTURE, "--json", os.path.join(t, "no", "such", "dir", "m.json")])
            self.assertEqual(rc, 2)
            self.assertIn("not writable", err)


if __name__ == "__main__":
    unittest.main()
