# SPDX-License-Identifier: BSD-3-Clause
"""The DDS side of the gateway's tests, written with Eclipse Cyclone DDS's
Python binding (PyPI cyclonedds, the same version as the C library): a
subscriber or a publisher of a gateway's topic. The sample type is the one
Cyclone's own idlc Python backend generates from idl/mcx_dds_msg.idl (its
output directory is on sys.path, given by --types).

  dds_peer.py sub  --types DIR --domain D --topic T --count N [--depth K] [--hold FILE]
                   [--durability volatile|transient-local] [--tl-depth K]
      (--tl-depth: a transient-local writer keeps its last K samples for
      late joiners; Cyclone's default is 1)
      prints "matched" once the gateway's writer is matched, then per sample
      "s SRC_DOMAIN SRC_NODE SRC_PORT PRIORITY INCARNATION SEQ LEN INDEX PRIO"
      (INDEX and PRIO read from the payload), "done" after N samples.
      --depth: the reader holds at most K samples; --hold: nothing is taken
      before FILE exists (the gateway's writes must then wait).
  dds_peer.py pub  --types DIR --domain D --topic T --count N [--prios P] [--pace-ms M]
      waits for the gateway's reader, prints "matched", writes N samples
      (payload: index u64, priority u32, 52 bytes of filler; priority
      index % P), prints "written", then waits for every acknowledgement
      and prints "acked". With --pace-ms it writes one sample every M ms;
      --big K --big-size S: sample K has S bytes; --prio-of K:P: sample K
      has priority P; --first F: the payload's numbers start at F.
Every line is flushed at once: the test script waits for them. The peer
ends after its work, or on a line "stop" on stdin.
"""
import argparse
import os
import struct
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["sub", "pub"])
    ap.add_argument("--types", required=True)
    ap.add_argument("--domain", type=int, required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--depth", type=int, default=0)
    ap.add_argument("--hold", default="")
    ap.add_argument("--prios", type=int, default=1)
    ap.add_argument("--pace-ms", type=float, default=0)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--durability", choices=["volatile", "transient-local"], default="volatile")
    ap.add_argument("--tl-depth", type=int, default=0)
    ap.add_argument("--big", type=int, default=-1)
    ap.add_argument("--big-size", type=int, default=0)
    ap.add_argument("--prio-of", default="")
    ap.add_argument("--first", type=int, default=0)
    a = ap.parse_args()
    sys.path.insert(0, a.types)
    from cyclonedds.core import Listener, Policy, Qos, ReadCondition, SampleState, ViewState, InstanceState, WaitSet
    from cyclonedds.domain import DomainParticipant
    from cyclonedds.pub import DataWriter
    from cyclonedds.sub import DataReader
    from cyclonedds.topic import Topic
    from cyclonedds.util import duration
    from mcx.dds import Message

    def say(*words):
        print(*words, flush=True)

    stop = threading.Event()

    def watch_stdin():
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    matched = threading.Event()

    class OnMatch(Listener):
        def on_subscription_matched(self, reader, status):
            if status.current_count > 0:
                matched.set()

        def on_publication_matched(self, writer, status):
            if status.current_count > 0:
                matched.set()

    durability = Policy.Durability.TransientLocal if a.durability == "transient-local" else Policy.Durability.Volatile
    policies = [Policy.Reliability.Reliable(duration(seconds=10)), Policy.History.KeepAll, durability]
    if a.tl_depth:  # what a transient-local writer keeps for late joiners
        policies.append(Policy.DurabilityService(cleanup_delay=0, history=Policy.History.KeepLast(a.tl_depth),
                                                 max_samples=-1, max_instances=-1, max_samples_per_instance=-1))
    if a.depth:
        policies.append(Policy.ResourceLimits(max_samples=a.depth, max_instances=-1, max_samples_per_instance=-1))
    qos = Qos(*policies)
    dp = DomainParticipant(a.domain)
    tp = Topic(dp, a.topic, Message)
    deadline = time.monotonic() + a.timeout
    if a.mode == "sub":
        rd = DataReader(dp, tp, qos=qos, listener=OnMatch())
        while not matched.wait(0.05):
            if stop.is_set() or time.monotonic() > deadline:
                say("no match")
                return 1
        say("matched")
        if a.hold:
            while not os.path.exists(a.hold) and not stop.is_set():
                time.sleep(0.01)  # a file made by the test script: nothing to wait on
        ws = WaitSet(dp)
        ws.attach(ReadCondition(rd, SampleState.Any | ViewState.Any | InstanceState.Any))
        got = 0
        while got < a.count and not stop.is_set():
            samples = rd.take(N=256)
            if not samples:
                if time.monotonic() > deadline:
                    say("timeout", got)
                    return 1
                ws.wait(duration(milliseconds=100))
                continue
            for m in samples:
                if not hasattr(m, "payload"):  # no data: the writer went away (an instance state change)
                    continue
                idx, prio = struct.unpack_from("<QI", bytes(m.payload)) if len(m.payload) >= 12 else (-1, -1)
                say("s", m.src_domain, m.src_node, m.src_port, m.priority, m.incarnation, m.seq, len(m.payload),
                    idx, prio)
                got += 1
        say("done")
        return 0
    wr = DataWriter(dp, tp, qos=qos, listener=OnMatch())
    while not matched.wait(0.05):
        if stop.is_set() or time.monotonic() > deadline:
            say("no match")
            return 1
    say("matched")
    for i in range(a.count):
        if stop.is_set():
            break
        p = i % a.prios
        if a.prio_of and i == int(a.prio_of.split(":")[0]):  # a priority MCAPI does not have
            p = int(a.prio_of.split(":")[1])
        fill = a.big_size - 12 if i == a.big else 52
        wr.write(Message(src_domain=77, src_node=i, src_port=9, priority=p, incarnation=0, seq=i + 1,
                         payload=list(struct.pack("<QI", a.first + i, p) + b"\x5a" * fill)))
        if a.pace_ms:
            time.sleep(a.pace_ms / 1000.0)  # the pace of the stream, not a wait for an event
    say("written")
    if not stop.is_set():
        wr.wait_for_acks(duration(seconds=a.timeout))
        say("acked")
    stop.wait(a.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
