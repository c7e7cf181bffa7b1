# SPDX-License-Identifier: BSD-3-Clause
"""Requests (mcapi_*_i) from Python: test, wait, cancel, and awaited in asyncio
with many outstanding at once and no thread per request.

Tests wait for events; ceilings (mcx_timeouts.ceiling) only stop a hang.
"""
import asyncio
import threading

import pytest

import mcapi
from mcapi import _async
from mcapi._lib import lib
from mcx_timeouts import ceiling

WAIT = ceiling(30.0)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, WAIT))


def test_request_test_wait_cancel(domain):
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        r = b.recv_i()
        assert not r.test() and not r.done()
        with pytest.raises(asyncio.InvalidStateError):
            r.result()
        with pytest.raises(mcapi.Timeout):
            r.wait(timeout=0)  # still pending afterwards
        a.send(b, b"one")
        assert r.wait(timeout=WAIT) == b"one" and r.done() and r.test()
        buf = bytearray(16)
        r = b.recv_i(buf)
        a.send(b, b"two")
        assert r.wait(WAIT) == 3 and buf[:3] == b"two"
        r = b.recv_i()
        assert r.cancel() is True
        with pytest.raises(mcapi.RequestError) as e:
            r.result()
        assert e.value.name == "MCAPI_ERR_REQUEST_CANCELLED"
        assert r.cancel() is False  # reported already
        s = a.send_i(b, memoryview(b"three"), priority=1)
        assert s.wait(WAIT) is None and b.recv(timeout=WAIT) == b"three"
        assert lib.mcx_requests_in_use() == 0


def test_failed_request_raises_its_status(domain):
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        a.send(b, b"x" * 64)
        r = b.recv_i(bytearray(8))
        with pytest.raises(mcapi.MessageTruncated):
            r.wait(WAIT)
        with pytest.raises(mcapi.ParameterError):
            a.send_i(b, b"z", priority=1000).wait(WAIT)


def test_many_outstanding_receives_are_awaited_by_one_poller(domain):
    """200 receives outstanding at once, 20 on each of 10 endpoints, awaited in
    one event loop: no thread is started for them, and each endpoint's receives
    get its messages in order."""
    neps, per = 10, 20

    async def main():
        with mcapi.Node(domain, 1) as node:
            src = node.create_endpoint(1)
            eps = [node.create_endpoint(100 + i) for i in range(neps)]
            threads = threading.active_count()
            tasks = [asyncio.ensure_future(ep.recv_async()) for ep in eps for _ in range(per)]
            await asyncio.sleep(0)
            assert not any(t.done() for t in tasks)
            poller = _async._poller()
            assert len(poller.pending) == neps * per
            tested = []
            real = _async.Request.test
            _async.Request.test = lambda r: tested.append(r) or real(r)
            try:
                poller._tick()  # one pass while nothing arrived: only each queue's first
            finally:
                _async.Request.test = real
            assert len(tested) == neps
            for k in range(per):
                for i in reversed(range(neps)):
                    src.send(eps[i], b"%d.%d" % (i, k))
            got = await asyncio.gather(*tasks)
            assert threading.active_count() == threads
            assert got == [b"%d.%d" % (i, k) for i in range(neps) for k in range(per)]
            assert _async._poller().pending == []
            assert lib.mcx_requests_in_use() == 0

    run(main())


def test_await_packets_and_get(domain):
    async def main():
        with mcapi.Node(domain, 1) as node:
            a = node.create_endpoint(1)
            b = node.create_endpoint(2)
            got = await node.get_endpoint_async(1, 2, timeout=WAIT)
            assert got == b
            node.connect_pkt(a, b, timeout=WAIT)
            tx, rx = node.open_pkt(a, b, timeout=WAIT)
            with tx, rx:
                pending = asyncio.ensure_future(rx.recv_async())
                await asyncio.sleep(0)
                assert not pending.done()
                await tx.send_async(b"packet")
                with (await pending) as view:
                    assert view == b"packet"
                req = rx.recv_i()
                tx.send(b"direct")
                with (await req) as view:
                    assert view == b"direct"

    run(main())


def test_awaited_timeout_cancels_the_request(domain):
    """A receive whose await times out is cancelled: a message sent afterwards
    is left for the next receive, not taken by the abandoned one."""
    async def main():
        with mcapi.Node(domain, 1) as node:
            a = node.create_endpoint(1)
            b = node.create_endpoint(2)
            with pytest.raises(mcapi.Timeout) as e:
                await b.recv_async(timeout=0.01)
            assert e.value.name == "MCAPI_TIMEOUT"
            task = asyncio.ensure_future(b.recv_async())
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert lib.mcx_requests_in_use() == 0
            a.send(b, b"kept")
            assert b.available() == 1
            assert await b.recv_async(timeout=WAIT) == b"kept"

    run(main())


def test_a_request_is_awaited_in_its_nodes_thread_only(domain):
    with mcapi.Node(domain, 1) as node:
        b = node.create_endpoint(2)
        r = b.recv_i()
        err = {}

        def other():
            async def main():
                await r
            try:
                asyncio.run(main())
            except RuntimeError as e:
                err["e"] = e

        t = threading.Thread(target=other)
        t.start()
        t.join(WAIT)
        assert "node's thread" in str(err["e"])
        assert r.cancel()


def test_a_dropped_pending_receive_is_cancelled(domain):
    """A receive request dropped unawaited is cancelled: the next receive on the
    endpoint gets the message (not the dropped request's freed buffer)."""
    import gc
    with mcapi.Node(domain, 1) as node:
        a = node.create_endpoint(1)
        b = node.create_endpoint(2)
        r = b.recv_i()
        assert not r.test()
        del r
        gc.collect()
        assert lib.mcx_requests_in_use() == 0
        a.send(b, b"for the next receive")
        assert b.recv(timeout=WAIT) == b"for the next receive"
