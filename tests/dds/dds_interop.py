# SPDX-License-Identifier: BSD-3-Clause
"""The DDS gateway (`mca dds`, docs/dds.md) against Eclipse Cyclone DDS's
Python binding (tests/dds/dds_peer.py), with MCAPI nodes (dds_node.c) on
the other side.

  dds_interop.py CASE MCA DDS_NODE PYTHON IDL

CASE:
  basic         MCAPI -> DDS: every message, its priority, its sender, FIFO
                per priority, the gateway's seq 1..N; DDS -> MCAPI: every
                sample, FIFO per priority.
  netns         the same with the DDS peers in a network namespace of their
                own, joined to the gateway's by a veth pair (root).
  backpressure  a DDS reader that takes nothing: the gateway's writes wait,
                the MCAPI sender gets MCAPI_ERR_MEM_LIMIT; once the reader
                takes, every message arrives once, in order.
  durable       a transient-local route: a subscriber that joins after the
                messages were published gets them all (the writer's history).
  config        mca dds --check and the command line: good and bad
                configurations, the status and the one line of each refusal.
  oversize      DDS -> MCAPI: a sample larger than MCAPI_MAX_MSG_SIZE is
                refused, logged and counted, one with a priority MCAPI lacks
                is delivered, and the stream goes on.
  restart_tl    a transient-local inbound route: after kill -9 and a restart
                the receiver gets the DDS writer's history (its last 50 of
                200 samples) once more, in order.
  restart       the gateway killed -9 mid-stream both ways and started again:
                what docs/dds.md says is lost (one run of consecutive messages
                per direction) and repeated (nothing) is what is seen.
Exit 0 pass, 1 fail, 77 skipped (with the reason on stdout).
"""
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcx_timeouts import ceiling  # noqa: E402

CASE, MCA, NODE, PY, IDL = sys.argv[1:6]
MCA, NODE, IDL = os.path.abspath(MCA), os.path.abspath(NODE), os.path.abspath(IDL)
PID = os.getpid()
DOMAIN = 4000 + PID % 1000          # the MCAPI domain
DDS_DOMAIN = 100 + PID % 100        # the DDS domain
GW_NODE = 16100
procs = []


def fail(why):
    print("FAIL:", why, flush=True)
    if os.environ.get("MCX_DDS_TEST_LINGER"):  # to look at the processes before they are stopped
        time.sleep(float(os.environ["MCX_DDS_TEST_LINGER"]))
    raise SystemExit(1)


def skip(why):
    print("skipped:", why, flush=True)
    raise SystemExit(77)


class Proc:
    """A child whose output lines are queued as they come."""

    def __init__(self, name, argv, env, netns=None):
        self.name = name
        if netns:
            argv = ["ip", "netns", "exec", netns] + argv
        self.p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.log = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        procs.append(self)

    def _read(self):
        for line in self.p.stdout:
            line = line.rstrip("\n")
            self.log.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, pattern, secs, keep=None):
        """Waits for a line matching @p pattern (a regex); lines before it go to @p keep."""
        end = time.monotonic() + ceiling(secs)
        while True:
            left = end - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                fail(f"{self.name}: no line matching {pattern!r} in {ceiling(secs):.0f} s; last lines: "
                     f"{self.log[-5:]}")
            if line is None:
                fail(f"{self.name}: ended (status {self.p.wait()}) before {pattern!r}; last lines: {self.log[-8:]}")
            if re.search(pattern, line):
                return line
            if keep is not None:
                keep.append(line)

    def say(self, text):
        try:
            self.p.stdin.write(text + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def kill9(self):
        self.p.send_signal(signal.SIGKILL)
        self.p.wait(timeout=ceiling(10))
        self.reader.join(timeout=ceiling(10))

    def stop(self):
        """Ends the child; its last lines are in self.log when this returns (the reader saw the end)."""
        if self.p.poll() is None:
            self.say("stop")
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=ceiling(10))
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.reader.join(timeout=ceiling(10))


netns = []


def cleanup():
    for p in procs:
        if p.p.poll() is None:
            p.p.kill()
            p.p.wait()
    for n in netns:
        subprocess.run(["ip", "netns", "del", n], timeout=10, check=False)
    subprocess.run([MCA, "domains", "--clean"], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=60, check=False)
    shutil.rmtree(work, ignore_errors=True)


def dds_uri(iface):
    return ("<CycloneDDS><Domain id=\"any\"><General><Interfaces>"
            f"<NetworkInterface name=\"{iface}\" multicast=\"true\"/></Interfaces></General>"
            "<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>50</MaxAutoParticipantIndex>"
            "</Discovery>"
            "<Internal><Watermarks><WhcHigh>8kB</WhcHigh><WhcHighInit>4kB</WhcHighInit><WhcLow>2kB</WhcLow><WhcAdaptive>false</WhcAdaptive>"
            "</Watermarks></Internal>"
            "</Domain></CycloneDDS>")


ENV = dict(os.environ, MCX_NAMESPACE=f"ddst{PID}", CYCLONEDDS_URI=dds_uri("lo"))
work = tempfile.mkdtemp(prefix=f"mca-dds-{CASE}-{PID}-")
if "TSAN_OPTIONS" in os.environ:  # a tsan build: the suite's suppressions and Cyclone DDS's
    opts = os.environ["TSAN_OPTIONS"].split()
    supp = [o.split("=", 1)[1] for o in opts if o.startswith("suppressions=")]
    both = os.path.join(work, "tsan.supp")
    with open(both, "w") as out:
        for f in supp + [os.path.join(os.path.dirname(os.path.abspath(__file__)), "tsan-cyclonedds.supp")]:
            with open(f) as inp:
                out.write(inp.read() + "\n")
    ENV["TSAN_OPTIONS"] = " ".join([o for o in opts if not o.startswith("suppressions=")] + [f"suppressions={both}"])

def case_config():
    def run(*args):
        return subprocess.run([MCA, "dds"] + list(args), capture_output=True, text=True, env=ENV, timeout=ceiling(30))

    def conf(name, text):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    good = conf("good.json", '{"domain": 1, "dds_domain": 5, "outbound": [{"port": 100, "topic": "a/b", '
                             '"sender": {"node": 5, "port": 1}, "durability": "transient-local", "min_readers": 1}], '
                             '"inbound": [{"topic": "c", "node": 6, "port": 10}], "block_ms": 20}')
    r = run("--check", good)
    if r.returncode != 0 or "1 outbound and 1 inbound" not in r.stdout:
        fail(f"a good configuration: {r.returncode} {r.stdout} {r.stderr}")
    bad = {
        '{"domain": 1, "outbound": [{"port": 100, "topic": "a"}], "colour": 1}': 'unknown key "colour"',
        '{"domain": 1, "outbound": [{"port": 100, "topic": "a", "durability": "persistent"}]}': '"durability" must be',
        '{"domain": 1, "outbound": [{"port": 100, "topic": "a"}, {"port": 100, "topic": "b"}]}': "the same port 100",
        '{"domain": 1}': "at least one",
        '{"domain": 1, "outbound": [{"port": 100, "topic": "a b"}]}': "a topic is",
        '{"domain": 1, "outbound": [{"port": "100", "topic": "a"}]}': '"port" must be a whole number',
        '{"domain": 1, "dds_domain": 231, "inbound": [{"topic": "a", "node": 1, "port": 2}]}': '"dds_domain" must be',
        '{"outbound": [{"port": 100, "topic": "a"}]}': '"domain" is required',
        '{"domain": 1, "inbound": [{"topic": "a", "node": 1}]}': '"port" is required',
        '[1, 2]': "must be a JSON object",
        '{"domain": 1,': "",
        '{"domain": 1, "outbound": [{"port": 100, "topic": "a\\u0000b"}]}': "a NUL character",
        '{"domain": 1, "outbound": [{"port": 100, "topic": "a\x00b"}]}': "a NUL character",
    }
    for i, (text, why) in enumerate(bad.items()):
        r = run("--check", conf(f"bad{i}.json", text))
        if r.returncode != 1 or not r.stderr.startswith("mca dds: ") or why not in r.stderr or \
                len(r.stderr.strip().splitlines()) != 1:
            fail(f"{text!r}: status {r.returncode}, {r.stderr!r} (expected 1 and one line with {why!r})")
    r = run("--check", work)  # a directory
    if r.returncode != 1 or "not a regular file" not in r.stderr:
        fail(f"--check on a directory: status {r.returncode} {r.stderr!r}")
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    r = run("--check", fifo)  # refused unread: never waits for a writer
    if r.returncode != 1 or "not a regular file" not in r.stderr:
        fail(f"--check on a FIFO: status {r.returncode} {r.stderr!r}")
    for args, why in ((["--count", "200"], "--count goes with --bench"), ([], "expected --config"),
                      (["--bench", "--config", good], "takes no --config"), (["--bench", "--size", "8"], "--size"),
                      (["--bogus"], "unknown option")):
        r = run(*args)
        if r.returncode != 2 or why not in r.stderr or not r.stderr.startswith("mca dds: "):
            fail(f"mca dds {' '.join(args)}: status {r.returncode}, {r.stderr!r}")
    print(f"mca dds --check: a good configuration, {len(bad)} bad ones, a directory, a FIFO and 5 bad command lines",
          flush=True)


if CASE == "config":
    try:
        case_config()
        print("PASS", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    raise SystemExit(0)

# ---- what the test needs
if subprocess.run([PY, "-c", "import cyclonedds"], capture_output=True).returncode:
    skip(f"{PY} has no cyclonedds (pip install cyclonedds==0.10.2 with CYCLONEDDS_HOME; docs/dds.md)")
site = subprocess.run([PY, "-c", "import cyclonedds, os; print(os.path.dirname(cyclonedds.__file__))"],
                      capture_output=True, text=True).stdout.strip()
idlpy = [f for f in os.listdir(site) if f.startswith("_idlpy")]
if not idlpy:
    skip("the cyclonedds package has no idlc Python backend (_idlpy)")
types = os.path.join(work, "types")
os.makedirs(types)
# The Python backend writes its package into the current directory.
r = subprocess.run(["idlc", "-l", os.path.join(site, idlpy[0]), IDL], cwd=types, capture_output=True, text=True)
if r.returncode:
    fail(f"idlc -l py: {r.stderr}")


def gateway_config(name, out_topic, in_topic, block_ms=1, durability="volatile", min_readers=1,
                   in_durability="volatile"):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(f'{{"domain": {DOMAIN}, "node": {GW_NODE}, "dds_domain": {DDS_DOMAIN}, "block_ms": {block_ms},\n'
                f' "outbound": [{{"port": 100, "topic": "{out_topic}", "sender": {{"node": 5, "port": 1}},\n'
                f'   "min_readers": {min_readers}, "durability": "{durability}"}}],\n'
                f' "inbound": [{{"topic": "{in_topic}", "node": 6, "port": 10, "durability": "{in_durability}"}}]}}\n')
    return path


def start_gateway(conf, env, ns=None):
    g = Proc("gateway", [MCA, "dds", "--config", conf], env, ns)
    g.expect(r"ready", 30)
    return g


def peer(mode, topic, count, env, ns=None, extra=()):
    return Proc(f"dds_peer {mode}", [PY, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dds_peer.py"), mode,
                                     "--types", types, "--domain", str(DDS_DOMAIN), "--topic", topic, "--count",
                                     str(count), "--timeout", str(ceiling(120))] + list(extra), env, ns)


def samples(lines):
    out = []
    for ln in lines:
        if ln.startswith("s "):
            f = ln.split()
            out.append(dict(domain=int(f[1]), node=int(f[2]), port=int(f[3]), prio=int(f[4]), inc=int(f[5]),
                            seq=int(f[6]), len=int(f[7]), idx=int(f[8]), pprio=int(f[9])))
    return out


def got(lines):
    out = []
    for ln in lines:
        if ln.startswith("got "):
            f = ln.split()
            out.append((int(f[1]), int(f[2]), int(f[3])))
    return out


def check_out(ss, n, prios, size):
    """MCAPI -> DDS: every message once, its priority and sender, FIFO per priority, seq 1..N."""
    if len(ss) != n:
        fail(f"the subscriber got {len(ss)} samples, {n} were sent")
    if sorted(s["idx"] for s in ss) != list(range(n)):
        fail("not every message arrived exactly once")
    last = {}
    for k, s in enumerate(ss):
        if (s["domain"], s["node"], s["port"]) != (DOMAIN, 5, 1):
            fail(f"sample {k}: sender {s['domain']},{s['node']},{s['port']}, not {DOMAIN},5,1")
        if s["prio"] != s["idx"] % prios or s["pprio"] != s["prio"]:
            fail(f"sample {k}: priority {s['prio']} for message {s['idx']} sent with {s['idx'] % prios}")
        if s["seq"] != k + 1:
            fail(f"sample {k}: the gateway's seq is {s['seq']}, not {k + 1}")
        if s["len"] != size:
            fail(f"sample {k}: {s['len']} bytes, not {size}")
        if s["idx"] <= last.get(s["prio"], -1):
            fail(f"priority {s['prio']}: message {s['idx']} after {last[s['prio']]}")
        last[s["prio"]] = s["idx"]
    if len({s["inc"] for s in ss}) != 1:
        fail("more than one incarnation of the gateway")


def check_in(gs, n, prios, writers=1):
    """DDS -> MCAPI: every sample of each writer (numbers k*n..k*n+n-1) once, FIFO per writer and priority."""
    if sorted(g[0] for g in gs) != list(range(writers * n)):
        fail(f"the MCAPI receiver got {len(gs)} messages, not each of the {writers} x {n} published once")
    last = {}
    for i, p, ln in gs:
        if p != (i % n) % prios or ln != 64:
            fail(f"message {i}: priority {p}, {ln} bytes")
        key = (i // n, p)
        if i <= last.get(key, -1):
            fail(f"writer {i // n}, priority {p}: message {i} after {last[key]}")
        last[key] = i


def both_ways(env_gw, env_peer, ns_gw=None, ns_peer=None, n=2000, prios=4):
    out_t, in_t = f"mcxtest/out/{PID}", f"mcxtest/in/{PID}"
    gw = start_gateway(gateway_config("gw.json", out_t, in_t), env_gw, ns_gw)
    sub = peer("sub", out_t, n, env_peer, ns_peer)
    sub.expect("^matched$", 60)
    gw.expect("enough readers matched", 60)
    snd = Proc("dds_node send", [NODE, "send", str(DOMAIN), "5", str(GW_NODE), "100", str(n), "64", str(prios)],
               env_gw, ns_gw)
    lines = []
    sub.expect("^done$", 120, lines)
    snd.expect(f"^sent {n}$", 30)
    check_out(samples(lines), n, prios, 64)
    print(f"MCAPI -> DDS: {n} messages, {prios} priorities: each once, sender, priority and order kept", flush=True)
    rcv = Proc("dds_node recv", [NODE, "recv", str(DOMAIN), "6", "10", str(2 * n)], env_gw, ns_gw)
    rcv.expect("^ready$", 30)
    pubs = [peer("pub", in_t, n, env_peer, ns_peer, ["--prios", str(prios), "--first", str(k * n)]) for k in (0, 1)]
    for pub in pubs:
        pub.expect("^matched$", 60)
    lines = []
    rcv.expect("^done$", 120, lines)
    check_in(got(lines), n, prios, writers=2)
    print(f"DDS -> MCAPI: two writers of {n} samples, {prios} priorities: each once, in order per writer and "
          "priority", flush=True)
    for pub in pubs:
        pub.stop()
    gw.stop()
    if gw.p.returncode != 0:
        fail(f"the gateway exited with {gw.p.returncode}")


def case_basic():
    both_ways(ENV, ENV)


def case_netns():
    if os.geteuid() != 0:
        skip("network namespaces need root")
    # Namespaces a killed earlier run left (its pid gone): removed first.
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10).stdout.split("\n")
    for name in (ln.split()[0] for ln in listed if ln.strip()):
        m = re.fullmatch(r"mcxdds(\d+)[ab]", name)
        if m and not os.path.exists(f"/proc/{m.group(1)}"):
            subprocess.run(["ip", "netns", "del", name], timeout=10, check=False)
            print(f"removed network namespace {name} (pid {m.group(1)} is gone)", flush=True)
    na, nb = f"mcxdds{PID}a", f"mcxdds{PID}b"
    va, vb = f"vdd{PID % 100000}a", f"vdd{PID % 100000}b"
    if subprocess.run(["ip", "netns", "add", na], timeout=10, capture_output=True).returncode:
        skip("cannot create a network namespace here")
    netns.append(na)
    netns.append(nb)
    net = f"10.79.{PID % 250}"
    cmds = [["ip", "netns", "add", nb], ["ip", "link", "add", va, "type", "veth", "peer", "name", vb],
            ["ip", "link", "set", va, "netns", na], ["ip", "link", "set", vb, "netns", nb],
            ["ip", "netns", "exec", na, "ip", "addr", "add", f"{net}.1/24", "dev", va],
            ["ip", "netns", "exec", na, "ip", "link", "set", va, "up"],
            ["ip", "netns", "exec", na, "ip", "link", "set", "lo", "up"],
            ["ip", "netns", "exec", nb, "ip", "addr", "add", f"{net}.2/24", "dev", vb],
            ["ip", "netns", "exec", nb, "ip", "link", "set", vb, "up"],
            ["ip", "netns", "exec", nb, "ip", "link", "set", "lo", "up"]]
    for c in cmds:
        r = subprocess.run(c, timeout=10, capture_output=True, text=True)
        if r.returncode:
            fail(f"{' '.join(c)}: {r.stderr.strip()}")
    env_a = dict(ENV, CYCLONEDDS_URI=dds_uri(va))
    env_b = dict(ENV, CYCLONEDDS_URI=dds_uri(vb))
    both_ways(env_a, env_b, na, nb)
    print(f"across network namespaces {na} ({va}) and {nb} ({vb})", flush=True)


def case_backpressure():
    n, m = 20000, 100  # the non-blocking sender's messages, the blocking one's
    out_t = f"mcxtest/bp/{PID}"
    gw = start_gateway(gateway_config("gw.json", out_t, f"mcxtest/unused/{PID}"), ENV)
    hold = os.path.join(work, "take")
    sub = peer("sub", out_t, n + m, ENV, None, ["--depth", "8", "--hold", hold])
    sub.expect("^matched$", 60)
    gw.expect("enough readers matched", 60)  # from now on a full queue is the DDS writer's doing
    snd = Proc("dds_node flood", [NODE, "flood", str(DOMAIN), "5", str(GW_NODE), "100", str(n), "64"], ENV)
    line = snd.expect(r"^(full \d+|sent \d+)$", 120)
    if not line.startswith("full"):
        fail(f"the sender never saw a full queue while the DDS reader took nothing ({line})")
    print(f"the DDS reader takes nothing: the MCAPI sender got MCAPI_ERR_MEM_LIMIT after {line.split()[1]} messages",
          flush=True)
    # It stays full while the reader takes nothing (the gateway's write waits, nothing is dropped).
    line = snd.expect(r"^refused 1000 times at \d+$", 120)
    print(f"and still after 1000 more tries ({line})", flush=True)
    # A blocking sender to the same port waits in its send (mca domains shows it waiting on the port).
    blk = Proc("dds_node send", [NODE, "send", str(DOMAIN), "7", str(GW_NODE), "100", str(m), "64", "1", "0", str(n)],
               ENV)
    end = time.monotonic() + ceiling(60)
    while True:
        r = subprocess.run([MCA, "domains", "--json", "-", "--namespace", ENV["MCX_NAMESPACE"]], capture_output=True,
                           text=True, env=ENV, timeout=ceiling(30))
        waiting = [e.get("waiting_senders", 0) for p in json.loads(r.stdout or "{}").get("partitions", [])
                   for e in p.get("endpoints", []) if e.get("node") == GW_NODE and e.get("port") == 100]
        if waiting and waiting[0] >= 1:
            break
        if time.monotonic() > end or blk.p.poll() is not None:
            fail(f"no sender waiting on the full port (waiting {waiting}; blocking sender {blk.log[-3:]})")
        time.sleep(0.05)  # the partition's counters have no event to wait on
    if any(ln.startswith("sent") for ln in blk.log):
        fail("the blocking sender finished while the port was full")
    print("a blocking sender to the same port waits in its send", flush=True)
    with open(hold, "w"):
        pass
    lines = []
    sub.expect("^done$", 180, lines)
    snd.expect(f"^sent {n}$", 30)
    blk.expect(f"^sent {m}$", 60)
    ss = samples(lines)
    if [s["idx"] for s in ss if s["idx"] < n] != list(range(n)) or \
            [s["idx"] for s in ss if s["idx"] >= n] != list(range(n, n + m)) or \
            [s["seq"] for s in ss] != list(range(1, n + m + 1)):
        fail("after the back-pressure, not every message once and in each sender's order")
    print(f"then all {n} + {m} arrived once, each sender's in order (seq 1..{n + m})", flush=True)
    gw.stop()
    log = "\n".join(gw.log)
    m = re.search(r"blocked (\d+)", log)
    if not m or int(m.group(1)) == 0:
        fail(f"the gateway did not report a write that waited: {gw.log[-3:]}")


def case_durable():
    n = 500
    out_t = f"mcxtest/tl/{PID}"
    gw = start_gateway(gateway_config("gw.json", out_t, f"mcxtest/unused/{PID}", durability="transient-local",
                                      min_readers=0), ENV)
    snd = Proc("dds_node send", [NODE, "send", str(DOMAIN), "5", str(GW_NODE), "100", str(n), "64", "2"], ENV)
    snd.expect(f"^sent {n}$", 60)
    sub = peer("sub", out_t, n, ENV, None, ["--durability", "transient-local"])
    lines = []
    sub.expect("^done$", 120, lines)
    check_out(samples(lines), n, 2, 64)
    print(f"a subscriber that joined after {n} messages were sent got them all from the writer's history", flush=True)
    gw.stop()


def case_restart_tl():
    """A transient-local inbound route: a restarted gateway gets the writer's history again."""
    n, keep = 200, 50
    in_t = f"mcxtest/rtl/{PID}"
    conf = gateway_config("gw.json", f"mcxtest/unused/{PID}", in_t, min_readers=0, in_durability="transient-local")
    gw = start_gateway(conf, ENV)
    rcv = Proc("dds_node recv", [NODE, "recv", str(DOMAIN), "6", "10", str(n + keep)], ENV)
    rcv.expect("^ready$", 30)
    pub = peer("pub", in_t, n, ENV, None, ["--durability", "transient-local", "--tl-depth", str(keep)])
    pub.expect("^matched$", 60)
    pub.expect("^acked$", 120)
    first = []
    while len(got(first)) < n:
        first.append(rcv.expect(r"^got ", 60))
    if [g[0] for g in got(first)] != list(range(n)):
        fail("before the restart: not every sample once and in order")
    gw.kill9()
    gw = start_gateway(conf, ENV)
    again = []
    rcv.expect("^done$", 120, again)
    if [g[0] for g in got(again)] != list(range(n - keep, n)):
        fail(f"after the restart: {[g[0] for g in got(again)][:5]}.. ({len(got(again))} messages), not the "
             f"writer's last {keep} again in order")
    print(f"transient-local: after kill -9 and restart the receiver got the last {keep} of {n} samples (the "
          "writer's history) again, in order, each once more", flush=True)
    for p in (pub, rcv, gw):
        p.stop()


def case_oversize():
    """Samples MCAPI cannot carry: too large (refused, logged, counted) or of a priority it lacks."""
    n, big, odd = 50, 7, 11
    in_t = f"mcxtest/big/{PID}"
    gw = start_gateway(gateway_config("gw.json", f"mcxtest/unused/{PID}", in_t, min_readers=0), ENV)
    rcv = Proc("dds_node recv", [NODE, "recv", str(DOMAIN), "6", "10", str(n - 1)], ENV)
    rcv.expect("^ready$", 30)
    pub = peer("pub", in_t, n, ENV, None, ["--big", str(big), "--big-size", "5000", "--prio-of", f"{odd}:4000000000"])
    pub.expect("^matched$", 60)
    lines = []
    rcv.expect("^done$", 60, lines)
    idx = [g[0] for g in got(lines)]
    # The odd one goes at the lowest priority: the others, all of priority 0, may pass it.
    if sorted(idx) != [i for i in range(n) if i != big] or [i for i in idx if i != odd] != \
            [i for i in range(n) if i not in (big, odd)]:
        fail(f"the receiver got {idx[:12]}.., not every sample but the large one, in order")
    gw.expect(r"a sample of 5000 bytes .* refused", 30)
    gw.stop()
    if not re.search(r"refused 1 ", "\n".join(gw.log)):
        fail(f"the gateway did not count the refused sample: {gw.log[-2:]}")
    print(f"a sample of 5000 bytes (more than MCAPI_MAX_MSG_SIZE) refused, logged and counted; one of priority "
          f"4000000000 delivered; the other {n - 2} in order", flush=True)


def one_gap(idx, n, what):
    """@p idx: increasing, no repeat, everything but one run of consecutive numbers."""
    if any(b <= a for a, b in zip(idx, idx[1:])):
        fail(f"{what}: a message repeated or out of order")
    missing = sorted(set(range(n)) - set(idx))
    if missing and missing != list(range(missing[0], missing[-1] + 1)):
        fail(f"{what}: more than one run lost: {missing[:10]}...")
    return missing


def case_restart():
    n = 3000
    out_t, in_t = f"mcxtest/rout/{PID}", f"mcxtest/rin/{PID}"
    conf = gateway_config("gw.json", out_t, in_t)
    gw = start_gateway(conf, ENV)
    sub = peer("sub", out_t, n, ENV)
    sub.expect("^matched$", 60)
    gw.expect("enough readers matched", 60)
    rcv = Proc("dds_node recv", [NODE, "recv", str(DOMAIN), "6", "10", str(n)], ENV)
    rcv.expect("^ready$", 30)
    pub = peer("pub", in_t, n, ENV, None, ["--pace-ms", "2"])
    pub.expect("^matched$", 60)
    snd = Proc("dds_node send", [NODE, "send", str(DOMAIN), "5", str(GW_NODE), "100", str(n), "64", "1", "1000"],
               ENV)
    out_lines, in_lines = [], []
    # Mid-stream both ways (about 3 s of messages out, 6 s in): kill -9.
    while len(samples(out_lines)) < n // 4:
        out_lines.append(sub.expect(r"^s ", 60))
    while len(got(in_lines)) < n // 10:
        in_lines.append(rcv.expect(r"^got ", 60))
    gw.kill9()
    print("gateway killed -9 mid-stream", flush=True)
    gw = start_gateway(conf, ENV)
    # MCAPI -> DDS: the sender finishes (resending what was refused), the subscriber sees the rest.
    snd.expect(f"^sent {n}$", 120)
    resends = [ln for ln in snd.log if ln.startswith("resend")]
    pub.expect("^written$", 120)
    end = time.monotonic() + ceiling(60)
    while True:  # the last message each way, or the ceiling
        ss = samples(out_lines)
        gs = got(in_lines)
        if (ss and ss[-1]["idx"] == n - 1) and (gs and gs[-1][0] == n - 1):
            break
        left = end - time.monotonic()
        if left <= 0:
            gi = [g[0] for g in gs]
            jumps = [(a, b) for a, b in zip(gi, gi[1:]) if b != a + 1]
            fail(f"the streams did not reach their last message after the restart "
                 f"(out: {ss[-1]['idx'] if ss else None}, in: {gi[-1] if gi else None}, in jumps {jumps[:5]}); "
                 f"gateway: {gw.log[-4:]}; publisher: {pub.log[-3:]}")
        moved = False
        for p, acc in ((sub, out_lines), (rcv, in_lines)):
            while True:  # everything either has printed so far
                try:
                    ln = p.lines.get_nowait()
                except queue.Empty:
                    break
                if ln is not None:
                    acc.append(ln)
                    moved = True
        if not moved:
            time.sleep(0.01)  # both queues empty: look again shortly (two sources, no common event)
    ss = samples(out_lines)
    lost_out = one_gap([s["idx"] for s in ss], n, "MCAPI -> DDS")
    incs = []
    for s in ss:
        if not incs or incs[-1] != s["inc"]:
            incs.append(s["inc"])
    if len(incs) != 2:
        fail(f"MCAPI -> DDS: {len(incs)} incarnations of the gateway seen, not 2; {len(ss)} samples, "
             f"last {ss[-1] if ss else None}; sender: {snd.log[-4:]}")
    for inc in incs:
        seqs = [s["seq"] for s in ss if s["inc"] == inc]
        if seqs != list(range(seqs[0], seqs[0] + len(seqs))) or (inc == incs[1] and seqs[0] != 1):
            jumps = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
            fail(f"MCAPI -> DDS: the gateway's seq has a gap within incarnation {incs.index(inc)}: starts at "
                 f"{seqs[0]}, jumps {jumps[:5]}; indices {[s['idx'] for s in ss][:3]}..; incarnations {incs}")
    lost_in = one_gap([g[0] for g in got(in_lines)], n, "DDS -> MCAPI")
    print(f"MCAPI -> DDS: {len(lost_out)} lost (one run: {lost_out[:1]}..{lost_out[-1:]}), none repeated; "
          f"the sender resent {len(resends)} refused send(s): {resends[:3]}", flush=True)
    print(f"DDS -> MCAPI: {len(lost_in)} lost (one run: {lost_in[:1]}..{lost_in[-1:]}), none repeated", flush=True)
    for p in (sub, pub, rcv, gw):
        p.stop()


try:
    {"basic": case_basic, "netns": case_netns, "durable": case_durable, "backpressure": case_backpressure, "restart": case_restart,
     "restart_tl": case_restart_tl, "oversize": case_oversize}[CASE]()
    print("PASS", flush=True)
finally:
    cleanup()
