# SPDX-License-Identifier: BSD-3-Clause
"""State channels (mcx_state_*) from Python: the newest value with its
version, readers in other threads, waiting for a newer version, the statuses
as exceptions.

Tests wait for events; ceilings (mcx_timeouts.ceiling) only stop a hang.
"""
import threading

import pytest

import mcapi
from mcx_timeouts import ceiling

WAIT = ceiling(30.0)


def test_writer_overwrites_readers_get_the_newest(domain):
    with mcapi.Node(domain, 1) as node:
        with node.create_state(4, 64, nbuf=3) as w:
            assert w.writer and w.read() == (b"", 0)
            r = node.open_state(1, 4, timeout=WAIT)
            assert r.writer  # the writer's own node: its close would delete the channel
            for i in range(10):
                w.write(b"value %d" % i)
            assert r.read() == (b"value 9", 10)  # no FIFO: only the newest
            w.write(bytearray(b"x" * 64))
            buf = bytearray(80)
            assert r.read_into(buf) == (64, 11) and buf[:64] == b"x" * 64
            with pytest.raises(mcapi.MessageTruncated):
                r.read_into(bytearray(8))
            with pytest.raises(mcapi.ParameterError) as e:
                w.write(b"y" * 65)
            assert e.value.name == "MCAPI_ERR_MSG_SIZE"
            with pytest.raises(mcapi.Timeout):
                r.wait_newer(11, timeout=0)
        with pytest.raises(mcapi.ParameterError):
            node.create_state(5, 0)
        with pytest.raises(mcapi.Timeout):
            node.open_state(1, 6, timeout=0)


def test_reader_in_another_thread_waits_for_a_newer_version(domain):
    got = {}
    opened = threading.Event()

    def reader():
        with mcapi.Node(domain, 2) as n2:
            r = n2.open_state(1, 4, timeout=WAIT)
            assert not r.writer
            v = r.read()[1]
            with pytest.raises(mcapi.EndpointError) as e:
                r.write(b"reader")  # only the creating node writes
            got["remote"] = e.value.name
            opened.set()
            got["v"] = r.wait_newer(v, timeout=WAIT)  # the GIL released while it waits
            got["value"] = r.read()
            with pytest.raises(mcapi.EndpointDeleted):
                r.wait_newer(got["v"], timeout=WAIT)  # ended by the writer's close

    with mcapi.Node(domain, 1) as node:
        w = node.create_state(4, 32)
        w.write(b"first")
        t = threading.Thread(target=reader)
        t.start()
        assert opened.wait(WAIT)
        w.write(b"second")
        while "value" not in got and t.is_alive():
            t.join(0.01)
        w.close()
        t.join(WAIT)
        assert not t.is_alive()
    assert got["remote"] == "MCAPI_ERR_ENDP_REMOTE"
    assert got["v"] == 2 and got["value"] == (b"second", 2)
