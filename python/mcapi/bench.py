# SPDX-License-Identifier: BSD-3-Clause
"""The Python cells of `mca bench --python`: a 24-byte message round trip.

    mca bench --python [--quick] [--repeat N] [--mode abi|api|both] [--json FILE] [--instr]
    python3 -m mcapi.bench ...           (the same, with an installed package)

Cells, all in one run, each a ping process (this one) and a pong process that
sends every message straight back:

    py.py.<mode>   Python <-> Python, both nodes through this package, blocking
                   receives (recv_into: a waiting side sleeps in the kernel)
    py.c.<mode>    Python <-> C (tests/python/py_peer.c, `echo`), blocking
    ....poll       the same through the bound calls (Endpoint.sender, Endpoint.
                   receiver) polling up to 2 ms, sched_yield between checks,
                   before sleeping (the C peer `echo-poll` likewise): no side
                   sleeps in a receive while the other answers in time
    mp.pipe        multiprocessing.Pipe: send_bytes / recv_bytes
    mp.queue       multiprocessing.Queue: put / get (a queue each way)

<mode> is abi (cffi's dlopen) or api (the compiled module, built here into a
temporary directory when the headers are found). Each cell runs --repeat
samples of n round trips (n chosen so a sample lasts about 0.2 s, 0.05 s with
--quick); the report gives the median time per round trip, the spread (the
samples' min..max) and the ratio of each cell to mp.pipe.

--instr counts the binding's own cost per call instead: instructions of a loop
of N `send` + `recv_into` pairs on two endpoints of one node (the methods, and
the bound calls Endpoint.sender / Endpoint.receiver), under valgrind
--tool=callgrind, less the same loop in C (py_peer loop), each less its own
run with N = 0 (start-up and exit). docs/python.md and docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional

MSG = 24
PING_NODE, PONG_NODE = 1, 2
PING_PORT, PONG_PORT = 20, 10
SPIN = 0.002  # .poll cells: seconds a receive polls before it sleeps


# ---- where things are: an installed package, or the build tree `mca` runs from
def _build_tree() -> Optional[Dict[str, str]]:
    """Paths of the build tree when run by its `mca` (MCA_HELPER_DIR beside the binary)."""
    d = os.environ.get("MCA_HELPER_DIR")
    if not d:
        return None
    for up in (os.path.join(d, "..", ".."), os.path.join(d, "..")):
        cache = os.path.join(up, "CMakeCache.txt")
        if os.path.exists(cache):
            with open(cache) as f:
                m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", f.read(), re.M)
            if not m:
                return None
            build = os.path.realpath(up)
            return {"source": m.group(1), "build": build,
                    "lib": os.path.join(build, "libmca.so"),
                    "peer": os.path.join(build, "tests", "py_peer")}
    return None


def _setup(mode: str, tree: Optional[Dict[str, str]], tmp: str) -> Dict[str, str]:
    """The environment that makes `import mcapi` load libmca in @p mode (for this and the pong)."""
    env: Dict[str, str] = {}
    if tree:
        env["MCX_LIBMCA"] = os.environ.get("MCX_LIBMCA", tree["lib"])
        pkg = os.path.join(tree["source"], "python")
        if mode == "api":
            dst = os.path.join(tmp, "api")
            if not os.path.isdir(dst):
                shutil.copytree(os.path.join(pkg, "mcapi"), os.path.join(dst, "mcapi"),
                                ignore=shutil.ignore_patterns("_mcapi_api*", "__pycache__"))
                sys.path.insert(0, os.path.join(dst, "mcapi"))
                import _build  # the package's builder, loaded without the package
                sys.path.pop(0)
                ffi = _build.make_ffi([os.path.join(tree["source"], "include"),
                                       os.path.join(tree["build"], "include")], [tree["build"]])
                ffi.compile(tmpdir=dst, verbose=False)
            env["PYTHONPATH"] = dst
            env["MCAPI_PY_MODE"] = "api"
        else:
            env["PYTHONPATH"] = pkg
            env["MCAPI_PY_MODE"] = "abi"
    else:
        env["MCAPI_PY_MODE"] = mode
        helper = os.environ.get("MCA_HELPER_DIR")  # an installed mca: PREFIX/libexec/mca
        if mode == "abi" and helper and "MCX_LIBMCA" not in os.environ:
            prefix = os.path.join(helper, "..", "..")
            for d in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
                cand = os.path.join(prefix, d, "libmca.so.0")
                if os.path.exists(cand):
                    env["MCX_LIBMCA"] = os.path.realpath(cand)
                    break
    return env


def _child_env(extra: Dict[str, str]) -> Dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


# ---- the pongs (run as `bench.py --pong KIND ...` in their own process)
def _pong_mcapi(domain: int, poll: bool) -> None:
    import mcapi
    with mcapi.Node(domain, PONG_NODE) as node:
        ep = node.create_endpoint(PONG_PORT)
        back = node.get_endpoint(PING_NODE, PING_PORT, timeout=30.0)
        buf = bytearray(4096)
        mv = memoryview(buf)
        views = {}
        print("ready", flush=True)
        if poll:
            rx, tx = ep.receiver(buf, spin=SPIN), ep.sender(back)
            while True:
                k = rx()
                if k == 0:
                    break
                v = views.get(k)
                if v is None:
                    v = views[k] = mv[:k]
                tx(v)
            return
        recv_into, send = ep.recv_into, ep.send
        while True:
            k = recv_into(buf)
            if k == 0:
                break
            v = views.get(k)
            if v is None:
                v = views[k] = mv[:k]
            send(back, v)


def _pong_pipe(conn: Any) -> None:
    recv, send = conn.recv_bytes, conn.send_bytes
    while True:
        m = recv()
        if not m:
            break
        send(m)


def _pong_queue(qin: Any, qout: Any) -> None:
    get, put = qin.get, qout.put
    while True:
        m = get()
        if m is None:
            break
        put(m)


# ---- the pings: each returns run(n) -> seconds for n round trips, and stop()
def _ping_mcapi(domain: int, peer_cmd: List[str], env: Dict[str, str], poll: bool):
    import mcapi
    node = mcapi.Node(domain, PING_NODE)
    me = node.create_endpoint(PING_PORT)
    proc = subprocess.Popen(peer_cmd, env=_child_env(env), stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if line != "ready\n":
        proc.kill()
        node.finalize()
        raise RuntimeError(f"pong {peer_cmd[:2]} did not start: {line!r}")
    peer = node.get_endpoint(PONG_NODE, PONG_PORT, timeout=30.0)
    msg = b"x" * MSG
    buf = bytearray(4096)

    def run(n: int) -> float:
        if poll:
            tx, rx = me.sender(peer), me.receiver(buf, spin=SPIN)
            t0 = time.perf_counter()
            for _ in range(n):
                tx(msg)
                rx()
            return time.perf_counter() - t0
        send, recv_into = me.send, me.recv_into
        t0 = time.perf_counter()
        for _ in range(n):
            send(peer, msg)
            recv_into(buf)
        return time.perf_counter() - t0

    def stop() -> None:
        me.send(peer, b"")
        proc.wait(30)
        proc.stdout.close()
        node.finalize()
    return run, stop


def _ping_pipe():
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    a, b = ctx.Pipe()
    p = ctx.Process(target=_pong_pipe, args=(b,))
    p.start()
    msg = b"x" * MSG

    def run(n: int) -> float:
        send, recv = a.send_bytes, a.recv_bytes
        t0 = time.perf_counter()
        for _ in range(n):
            send(msg)
            recv()
        return time.perf_counter() - t0

    def stop() -> None:
        a.send_bytes(b"")
        p.join(30)
    return run, stop


def _ping_queue():
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    q1, q2 = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_pong_queue, args=(q1, q2))
    p.start()
    msg = b"x" * MSG

    def run(n: int) -> float:
        put, get = q1.put, q2.get
        t0 = time.perf_counter()
        for _ in range(n):
            put(msg)
            get()
        return time.perf_counter() - t0

    def stop() -> None:
        q1.put(None)
        p.join(30)
    return run, stop


def _measure(start: Callable[[], Any], repeat: int, sample_s: float) -> Dict[str, Any]:
    run, stop = start()
    try:
        run(200)  # warm-up
        t = run(1000)
        n = max(200, int(sample_s / max(t / 1000, 1e-9)))
        samples = [run(n) / n * 1e6 for _ in range(repeat)]
    finally:
        stop()
    return {"n": n, "us": samples, "median_us": statistics.median(samples),
            "min_us": min(samples), "max_us": max(samples)}


def _cell_in_mode(cell: str, domain: int, mode_env: Dict[str, str], args: Any,
                  peer: Optional[str]) -> Dict[str, Any]:
    """Runs one mcapi cell in a child Python that loads the package in the cell's mode."""
    cmd = [sys.executable, os.path.abspath(__file__), "--cell", cell, "--domain", str(domain),
           "--repeat", str(args.repeat), "--sample", str(args.sample)]
    if peer:
        cmd += ["--peer", peer]
    out = subprocess.run(cmd, env=_child_env(mode_env), capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{cell}: {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _run_cell(cell: str, domain: int, repeat: int, sample: float, peer: Optional[str]) -> None:
    """In the child: one mcapi cell, its result as a JSON line."""
    import mcapi
    poll = cell.endswith(".poll")
    if cell.startswith("py.py"):
        cmd = [sys.executable, os.path.abspath(__file__), "--pong", "poll" if poll else "block",
               "--domain", str(domain)]
    else:
        cmd = [peer, "echo-poll" if poll else "echo", str(domain), str(PONG_NODE), str(PING_NODE)]
    r = _measure(lambda: _ping_mcapi(domain, cmd, {}, poll), repeat, sample)
    r["mode"] = mcapi.MODE
    print(json.dumps(r))


# ---- instructions per call (callgrind)
def _callgrind(cmd: List[str], env: Dict[str, str]) -> int:
    with tempfile.NamedTemporaryFile(suffix=".cg") as f:
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={f.name}"] + cmd,
                       env=_child_env(env), check=True, capture_output=True)
        with open(f.name) as g:
            for line in g:
                if line.startswith(("summary:", "totals:")):
                    return int(line.split()[1])
    raise RuntimeError("no callgrind summary")


def _loop(n: int, domain: int, bound: bool) -> None:
    """The Python loop the instruction count runs: n send + recv_into pairs on one
    node, through the methods or (@p bound) through Endpoint.sender/receiver."""
    import mcapi
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        msg = b"x" * MSG
        buf = bytearray(64)
        if bound:
            tx, rx = a.sender(b), b.receiver(buf)
            for _ in range(n):
                tx(msg)
                rx()
            return
        send, recv_into = a.send, b.recv_into
        for _ in range(n):
            send(b, msg)
            recv_into(buf)


def _instr(args: Any, envs: Dict[str, Dict[str, str]], peer: Optional[str]) -> Dict[str, Any]:
    if not shutil.which("valgrind"):
        raise RuntimeError("--instr needs valgrind")
    if not peer:
        raise RuntimeError("--instr needs the C loop (py_peer; MCX_PY_PEER)")
    n = args.count
    dom = 900 + os.getpid() % 50
    c = [_callgrind([peer, "loop", str(dom), "1", str(k)], {}) for k in (0, n)]
    c_per = (c[1] - c[0]) / n
    out: Dict[str, Any] = {"count": n, "c_pair_instr": c_per}
    for mode, env in envs.items():
        for how in ("methods", "bound"):
            py = [_callgrind([sys.executable, os.path.abspath(__file__), "--loop", str(k),
                              "--domain", str(dom)] + (["--bound"] if how == "bound" else []), env)
                  for k in (0, n)]
            per = (py[1] - py[0]) / n
            out[f"{mode}.{how}"] = {"py_pair_instr": per, "overhead_pair_instr": per - c_per,
                                    "overhead_call_instr": (per - c_per) / 2}
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="mca bench --python", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 samples of about 0.05 s per cell")
    ap.add_argument("--repeat", type=int, default=None, help="samples per cell (default 7; 3 with --quick)")
    ap.add_argument("--mode", choices=("abi", "api", "both"), default="both",
                    help="how the package loads libmca in the py cells (default both; api needs a C compiler)")
    ap.add_argument("--json", metavar="FILE", help="write every sample and the figures")
    ap.add_argument("--instr", action="store_true",
                    help="instead of timing: the binding's instructions per call (valgrind callgrind)")
    ap.add_argument("--count", type=int, default=20000, help="--instr: calls counted (default 20000)")
    ap.add_argument("--pong", help=argparse.SUPPRESS)
    ap.add_argument("--cell", help=argparse.SUPPRESS)
    ap.add_argument("--loop", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--bound", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--domain", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--peer", help=argparse.SUPPRESS)
    ap.add_argument("--sample", type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.pong:
        _pong_mcapi(args.domain, args.pong == "poll")
        return 0
    if args.loop is not None:
        _loop(args.loop, args.domain, args.bound)
        return 0
    if args.repeat is None:
        args.repeat = 3 if args.quick else 7
    if args.sample is None:
        args.sample = 0.05 if args.quick else 0.2
    if args.cell:
        _run_cell(args.cell, args.domain, args.repeat, args.sample, args.peer)
        return 0

    os.environ.setdefault("MCX_NAMESPACE", f"pybench{os.getpid()}")
    tree = _build_tree()
    peer = os.environ.get("MCX_PY_PEER") or (tree["peer"] if tree and os.path.exists(tree["peer"]) else None)
    modes = ["abi", "api"] if args.mode == "both" else [args.mode]
    results: Dict[str, Any] = {"schema": "mca-bench-python/1", "msg_bytes": MSG,
                               "repeat": args.repeat, "cells": {}}
    with tempfile.TemporaryDirectory(prefix="mcapi-bench-") as tmp:
        envs = {}
        for mode in modes:
            try:
                envs[mode] = _setup(mode, tree, tmp)
            except Exception as e:  # noqa: BLE001 (no compiler, no headers: the mode is left out)
                print(f"mca bench --python: mode {mode} left out: {e}", file=sys.stderr)
        if args.instr:
            try:
                results["instr"] = _instr(args, envs, peer)
            except (RuntimeError, subprocess.CalledProcessError) as e:
                print(f"mca bench --python --instr: {e}", file=sys.stderr)
                return 1
            _print_instr(results["instr"])
            return _write_json(args.json, results)
        cells = results["cells"]
        dom = 800 + os.getpid() % 100
        cells["mp.pipe"] = _measure(_ping_pipe, args.repeat, args.sample)
        cells["mp.queue"] = _measure(_ping_queue, args.repeat, args.sample)
        for mode, env in envs.items():
            for wait in ("", ".poll"):
                dom += 1
                cells[f"py.py.{mode}{wait}"] = _cell_in_mode(f"py.py{wait}", dom, env, args, None)
                if peer:
                    dom += 1
                    cells[f"py.c.{mode}{wait}"] = _cell_in_mode(f"py.c{wait}", dom, env, args, peer)
        if not peer:
            print("mca bench --python: no C peer (py_peer; set MCX_PY_PEER): py.c cells left out",
                  file=sys.stderr)
    pipe = cells["mp.pipe"]["median_us"]
    for c in cells.values():
        c["pipe_over_cell"] = pipe / c["median_us"]
    _print_cells(cells, args.repeat)
    return _write_json(args.json, results)


def _print_cells(cells: Dict[str, Any], repeat: int) -> None:
    print(f"24-byte message round trip, median of {repeat} samples (min..max), ratio = mp.pipe / cell")
    print(f"{'cell':<17} {'median us':>10} {'min..max us':>16} {'n/sample':>9} {'ratio':>7}")
    for name, c in cells.items():
        print(f"{name:<17} {c['median_us']:>10.2f} {c['min_us']:>7.2f}..{c['max_us']:<8.2f} "
              f"{c['n']:>9} {c['pipe_over_cell']:>7.1f}")


def _print_instr(r: Dict[str, Any]) -> None:
    print(f"instructions per send + recv_into pair, {r['count']} pairs (callgrind), "
          f"less the same loop in C ({r['c_pair_instr']:.0f} per pair)")
    for key, m in r.items():
        if isinstance(m, dict):
            print(f"{key:<12} Python {m['py_pair_instr']:.0f} per pair, binding overhead "
                  f"{m['overhead_pair_instr']:.0f} per pair = {m['overhead_call_instr']:.0f} per call")


def _write_json(path: Optional[str], results: Dict[str, Any]) -> int:
    if not path:
        return 0
    try:
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
    except OSError as e:
        print(f"mca bench --python: --json: {e}", file=sys.stderr)
        return 1
    return 0


def _main() -> int:
    try:
        return main()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        print(f"mca bench --python: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(_main())
