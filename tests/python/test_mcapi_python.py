# SPDX-License-Identifier: BSD-3-Clause
"""The mcapi package: messages, packet and scalar channels, statuses as
exceptions, the GIL released in blocking calls, and a Python node with a C
node (py_peer.c) in one domain across processes, also when the C node is
killed while Python waits for it.

Tests wait for events; ceilings (mcx_timeouts.ceiling) only stop a hang.
"""
import contextlib
import os
import signal
import subprocess
import threading
import time

import pytest

import mcapi
from mcx_timeouts import ceiling

PEER = os.environ.get("MCX_PY_PEER")
WAIT = ceiling(30.0)


def _wait_until(cond, limit=WAIT):
    """Polls @p cond until true (True) or the ceiling passes (False)."""
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.001)
    return True


def test_messages_come_highest_priority_first(domain):
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        for prio, data in ((3, b"low"), (0, b"high"), (1, bytearray(b"mid")), (0, memoryview(b"high2"))):
            a.send(b, data, priority=prio)
        assert b.available() == 4
        assert [b.recv(), b.recv(timeout=WAIT), b.recv(), b.recv()] == [b"high", b"high2", b"mid", b"low"]


def test_recv_into_fills_the_callers_buffer(domain):
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        a.send(b, b"x" * 1000)
        buf = bytearray(1024)
        assert b.recv_into(buf) == 1000 and buf[:1000] == b"x" * 1000 and buf[1000:] == bytes(24)
        a.send(b, b"0123456789")
        view = memoryview(buf)[100:]
        assert b.recv_into(view, timeout=WAIT) == 10 and bytes(buf[100:110]) == b"0123456789"


def test_statuses_are_exceptions_with_their_names(domain):
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        with pytest.raises(mcapi.Timeout) as e:
            b.recv(timeout=0)
        assert e.value.name == "MCAPI_TIMEOUT" and e.value.status == mcapi.STATUS["MCAPI_TIMEOUT"]
        assert isinstance(e.value, TimeoutError)
        a.send(b, b"y" * 64)
        with pytest.raises(mcapi.MessageTruncated) as e:
            b.recv_into(bytearray(8))
        assert e.value.name == "MCAPI_ERR_MSG_TRUNCATED"
        with pytest.raises(mcapi.ParameterError) as e:
            a.send(b, b"z", priority=1000)
        assert e.value.name == "MCAPI_ERR_PRIORITY"
        with pytest.raises(mcapi.EndpointError) as e:
            node.create_endpoint(1)
        assert e.value.name == "MCAPI_ERR_ENDP_EXISTS"
        with pytest.raises(mcapi.NodeError) as e:
            mcapi.Node(domain, 2)  # this thread is node 1 already
        assert e.value.name == "MCAPI_ERR_NODE_INITIALIZED"
        b.timeout = 0.01
        assert b.timeout == 0.01
        with pytest.raises(mcapi.Timeout):
            b.recv()


def test_endpoint_of_another_node_by_get(domain):
    got = {}
    ready = threading.Event()
    done = threading.Event()

    def other():
        with mcapi.Node(domain, 2) as n2:
            ep = n2.create_endpoint(7)
            ready.set()
            got["msg"] = ep.recv(timeout=WAIT)
            done.wait(WAIT)

    t = threading.Thread(target=other)
    t.start()
    with mcapi.Node(domain, 1) as node:
        assert ready.wait(WAIT)
        me = node.create_endpoint(1)
        peer = node.get_endpoint(2, 7, timeout=WAIT)
        assert not peer.local
        me.send(peer, b"to node 2")
        done.set()
        t.join(WAIT)
    assert got["msg"] == b"to node 2"


def _thread_state(tid):
    """The scheduler state letter of this process's thread @p tid (/proc/<pid>/task/<tid>/stat)."""
    with open(f"/proc/{os.getpid()}/task/{tid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_blocking_recv_releases_the_gil(domain):
    """Node 2 blocks in recv (no timeout) inside C; node 1, in this thread, runs
    Python code until it sees node 2's thread asleep in the kernel (state S),
    then sends. Had the call kept the GIL, this thread could not run while the
    other sleeps: the wait below would never see it asleep and end at its ceiling."""
    got = {}
    ready = threading.Event()
    tid = {}

    def blocked():
        with mcapi.Node(domain, 2) as n2:
            ep = n2.create_endpoint(7)
            tid["native"] = threading.get_native_id()
            ready.set()
            got["msg"] = ep.recv()

    t = threading.Thread(target=blocked)
    t.start()
    with mcapi.Node(domain, 1) as node:
        assert ready.wait(WAIT)
        me = node.create_endpoint(1)
        peer = node.get_endpoint(2, 7, timeout=WAIT)
        assert _wait_until(lambda: _thread_state(tid["native"]) == "S"), \
            "the receiving thread never slept in its blocking recv"
        assert "msg" not in got
        me.send(peer, b"wake")
        t.join(WAIT)
        assert not t.is_alive()
    assert got["msg"] == b"wake"


def test_packets_are_views_released_back(domain):
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        node.connect_pkt(a, b, timeout=WAIT)
        tx, rx = node.open_pkt(a, b, timeout=WAIT)
        with tx, rx:
            for i in range(100):  # more than the channel's buffers: released ones come back
                tx.send(bytes([i]) * (i + 1))
                with rx.recv(timeout=WAIT) as view:
                    assert isinstance(view, memoryview) and view == bytes([i]) * (i + 1)
            tx.send(b"keep")
            pkt = rx.recv()
            assert len(pkt) == 4 and bytes(pkt) == b"keep" and pkt.data.readonly is False
            pkt.release()
            pkt.release()  # a second release does nothing
            with pytest.raises(ValueError):
                pkt.data[0]  # the view was released with the buffer
            assert rx.available() == 0


def test_scalars_of_every_width(domain):
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        node.connect_scl(a, b, timeout=WAIT)
        tx, rx = node.open_scl(a, b, timeout=WAIT)
        with tx, rx:
            for bits in (8, 16, 32, 64):
                for v in (0, 1, (1 << bits) - 1):
                    tx.send(v, bits)
                    assert rx.recv(bits) == v
            tx.send(7, 8)
            with pytest.raises(mcapi.ChannelError) as e:
                rx.recv(32)
            assert e.value.name == "MCAPI_ERR_SCL_SIZE"


def _peer(mode, domain, node, pynode, **kw):
    if not PEER:
        pytest.skip("MCX_PY_PEER (the C node, tests/python/py_peer.c) is not set")
    return subprocess.Popen([PEER, mode, str(domain), str(node), str(pynode)], **kw)


def test_python_and_c_nodes_exchange_messages_packets_scalars(domain):
    with mcapi.Node(domain, 1) as node:
        msg = node.create_endpoint(20)
        pkt = node.create_endpoint(21)
        scl = node.create_endpoint(22)
        peer = _peer("exchange", domain, 2, 1)
        try:
            rx = pkt.open_pkt_recv(timeout=WAIT)
            c = node.get_endpoint(2, 10, timeout=WAIT)
            for prio in (2, 0, 1):
                msg.send(c, b"%d:hello" % prio, priority=prio)
                assert msg.recv(timeout=WAIT) == b"echo:%d:hello" % prio
            msg.send(c, b"end")
            total = 0
            for i, size in enumerate((1, 100, 1000)):
                with rx.recv(timeout=WAIT) as view:
                    assert view == bytes([ord("a") + i]) * size
                    total += view.nbytes
            srx = scl.open_scl_recv(timeout=WAIT)
            for bits in (8, 16, 32, 64):
                assert srx.recv(bits) == (1 << bits) - 1 - bits
            msg.send(c, b"sum=%d" % total)
            assert peer.wait(WAIT) == 0
        finally:
            if peer.poll() is None:
                peer.kill()
                peer.wait()


@contextlib.contextmanager
def _held_peer(domain):
    """A C node (py_peer hold) with a packet channel open to this thread's node 1:
    started, waited for until it says "ready" (on stdout and by message), and
    killed (SIGKILL) by the `kill` the block receives. Yields (msg, rx, kill)."""
    with mcapi.Node(domain, 1) as node:
        msg = node.create_endpoint(20)
        pkt = node.create_endpoint(21)
        node.create_endpoint(22)
        peer = _peer("hold", domain, 2, 1, stdout=subprocess.PIPE)
        try:
            rx = pkt.open_pkt_recv(timeout=WAIT)
            assert msg.recv(timeout=WAIT) == b"ready"
            assert peer.stdout.readline() == b"ready\n"

            def kill():
                peer.send_signal(signal.SIGKILL)
                peer.wait()
            yield msg, rx, kill
        finally:
            if peer.poll() is None:
                peer.kill()
            peer.wait()
            peer.stdout.close()


def test_c_node_killed_while_python_waits_for_a_packet(domain):
    with _held_peer(domain) as (msg, rx, kill):
        blocking = threading.Event()

        def killer():
            blocking.wait(WAIT)
            kill()

        k = threading.Thread(target=killer)
        k.start()
        blocking.set()
        with pytest.raises(mcapi.ChannelNotOpen) as e:
            rx.recv()  # no timeout: only the peer's death ends it
        assert e.value.name == "MCAPI_ERR_CHAN_NOTOPEN"
        k.join(WAIT)
        rx.close(timeout=WAIT)


def test_c_node_killed_while_python_waits_for_a_message(domain):
    """A message endpoint has no peer to lose: its timeout attribute ends the wait."""
    with _held_peer(domain) as (msg, rx, kill):
        kill()
        msg.timeout = 0.2
        with pytest.raises(mcapi.Timeout) as e:
            msg.recv()
        assert e.value.name == "MCAPI_TIMEOUT"
