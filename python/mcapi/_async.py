# SPDX-License-Identifier: BSD-3-Clause
"""Non-blocking requests (mcapi_request_t) and their use from asyncio.

A Request is a started MCAPI `_i` call: `test()`, `wait()`, `cancel()`,
`result()`, and `await request` in a coroutine.

libmca lets only the node that started a request test, wait on or cancel it
(the request's owner key is checked; another thread gets
MCAPI_ERR_REQUEST_INVALID), and a request progresses only when its owner tests
or waits on it (the node is the one consumer of its endpoints' rings). So no
helper thread can wait on a node's requests: they are progressed in the event
loop's own thread, the node's. Each event loop has one poller (`_Poller`), a
callback of the loop, that tests the requests awaited in that loop in one
pass (of the receives queued on one endpoint, only the first until it
completes: they complete in order); it runs at once while completions keep coming, a few rounds more
between other callbacks, then at growing intervals (1 ms at most), and not at
all when nothing is awaited. Many outstanding requests cost one list, no
thread, no file descriptor each. docs/python.md ("asyncio").
"""
from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any, Callable, Generator, Optional

from ._errors import PENDING, SUCCESS, TIMEOUT, Error, error
from ._lib import ffi, lib

TIMEOUT_INFINITE = 0xFFFFFFFF
_new = ffi.new


def _ms(timeout: Optional[float]) -> int:
    """Seconds (None: for ever) as an MCAPI timeout in milliseconds."""
    if timeout is None:
        return TIMEOUT_INFINITE
    if timeout < 0:
        raise ValueError("timeout must be >= 0 or None")
    return min(int(timeout * 1000 + 0.5), TIMEOUT_INFINITE - 1)


class Request:
    """A started non-blocking call (`mcapi_*_i`): test, wait, cancel or await it.

    Its result is what the blocking call returns (bytes or a size for a
    message receive, a Packet for a packet receive, an Endpoint for a get,
    None for a send); a failure is raised as the status's exception. Use it
    from the node's thread only (the event loop's, when awaited).
    """

    __slots__ = ("node", "_req", "_call", "_finish", "_keep", "_st", "_size", "_done",
                 "_result", "_exc", "_fut", "_queue", "__weakref__")

    def __init__(self, node: Any, req: Any, call: str, finish: Callable[[int], Any],
                 keep: Any = None, queue: Any = None) -> None:
        self.node = node
        # Receives of one endpoint (or channel) complete in the order they were
        # started: the poller tests a queue's later requests only once its
        # first one has completed.
        self._queue = queue
        self._req = req
        self._call = call
        self._finish = finish
        self._keep = keep  # buffers the library reads or writes until completion
        self._st = _new("mcapi_status_t *")
        self._size = _new("size_t *")
        self._done = False
        self._result: Any = None
        self._exc: Optional[BaseException] = None
        self._fut: Optional[asyncio.Future] = None

    def __repr__(self) -> str:
        state = "pending" if not self._done else ("failed" if self._exc else "done")
        return f"Request({self._call}, {state})"

    def _complete(self, st: int, n: int) -> None:
        self._done = True
        if st == SUCCESS:
            try:
                self._result = self._finish(n)
            except BaseException as e:  # noqa: BLE001 (kept for result())
                self._exc = e
        else:
            self._exc = error(st, self._call)
        self._keep = None
        fut = self._fut
        if fut is not None and not fut.done():
            fut.set_result(None)

    def __del__(self) -> None:
        # A pending request dropped unawaited: libmca would still write into its
        # buffer (a later receive on the endpoint completes the queued request
        # first). Its owner cancels it; any other thread (the garbage
        # collector's) keeps the buffer alive until the node is finalized.
        if self._done or self._req is None:
            return
        node = self.node
        try:
            if node is not None and getattr(node, "open", False) and \
                    threading.get_ident() == node.thread:
                self.cancel()
                return
        except Exception:  # noqa: BLE001 (no exception leaves __del__)
            pass
        if node is not None and getattr(node, "open", False):
            _ORPHANS.setdefault(id(node), []).append((self._req, self._keep))

    def done(self) -> bool:
        """True once the outcome is known (after test(), wait() or the poller saw it)."""
        return self._done

    def test(self) -> bool:
        """Checks once, without waiting (mcapi_test); True when complete."""
        if self._done:
            return True
        st = self._st
        if not lib.mcapi_test(self._req, self._size, st) and st[0] in (PENDING, SUCCESS):
            return False
        self._complete(st[0], self._size[0])
        return True

    def wait(self, timeout: Optional[float] = None) -> Any:
        """Waits up to @p timeout seconds (mcapi_wait, the GIL released) and returns the result.

        On a timeout raises Timeout and the request stays pending (wait again or cancel it).
        """
        if not self._done:
            st = self._st
            lib.mcapi_wait(self._req, self._size, _ms(timeout), st)
            if st[0] == TIMEOUT:
                raise error(TIMEOUT, self._call)
            self._complete(st[0], self._size[0])
        return self.result()

    def cancel(self) -> bool:
        """Cancels the request (mcapi_cancel); False when it had completed already.

        A receive that already took its message has completed: its result stays
        readable through result().
        """
        if self._done:
            return False
        st = self._st
        lib.mcapi_cancel(self._req, st)
        cancelled = st[0] == SUCCESS
        # Collect the outcome either way: the cancellation's report
        # (MCAPI_ERR_REQUEST_CANCELLED), or the completion that came first.
        lib.mcapi_wait(self._req, self._size, TIMEOUT_INFINITE if not cancelled else 0, st)
        self._complete(st[0], self._size[0])
        return cancelled

    def result(self) -> Any:
        """The outcome: the result, or the status's exception raised."""
        if not self._done:
            raise asyncio.InvalidStateError(f"{self._call}: request still pending")
        if self._exc is not None:
            raise self._exc
        return self._result

    def __await__(self) -> Generator[Any, None, Any]:
        if not self._done:
            if self.node is not None and threading.get_ident() != self.node.thread:
                raise RuntimeError("a request is awaited in its node's thread only "
                                   "(create the Node in the event loop's thread)")
            fut = _poller().watch(self)
            yield from fut.__await__()
        return self.result()


class _Poller:
    """Progresses the requests awaited in one event loop, in the loop's thread."""

    SPIN_ROUNDS = 64      # rounds at once (between other callbacks) after activity
    NAP_FIRST = 0.00005   # then naps from 50 us ...
    NAP_MAX = 0.001       # ... doubling up to 1 ms

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: list[Request] = []
        self.handle: Optional[asyncio.Handle] = None
        self.idle = 0
        self.nap = self.NAP_FIRST

    def watch(self, req: Request) -> asyncio.Future:
        fut = req._fut
        if fut is None or fut.done():
            fut = req._fut = self.loop.create_future()
            fut.add_done_callback(lambda f, r=req: self._dropped(f, r))
            self.pending.append(req)
        self.idle = 0
        self.nap = self.NAP_FIRST
        if self.handle is None:
            self.handle = self.loop.call_soon(self._tick)
        return fut

    def _dropped(self, fut: asyncio.Future, req: Request) -> None:
        # The awaiting task was cancelled (asyncio.wait_for's timeout, task.cancel()):
        # the MCAPI request is cancelled with it, so no receive takes a message
        # nobody will read (unless it completed first: result() keeps it).
        if fut.cancelled() and not req._done:
            req.cancel()

    def _tick(self) -> None:
        self.handle = None
        keep = []
        progressed = False
        waiting = set()  # queues whose first pending request is still pending
        for req in self.pending:
            fut = req._fut
            if fut is None or fut.done():
                continue
            q = req._queue
            if q is not None and q in waiting:
                keep.append(req)
            elif req.test():
                progressed = True
            else:
                keep.append(req)
                if q is not None:
                    waiting.add(q)
        self.pending = keep
        if not keep:
            self.idle = 0
            return
        if progressed:
            self.idle = 0
            self.nap = self.NAP_FIRST
        else:
            self.idle += 1
        if self.idle < self.SPIN_ROUNDS:
            self.handle = self.loop.call_soon(self._tick)
        else:
            self.handle = self.loop.call_later(self.nap, self._tick)
            self.nap = min(self.nap * 2, self.NAP_MAX)


# Buffers of requests dropped pending outside their node's thread, per node
# (id of the Node): freed when the node is finalized (Node.finalize).
_ORPHANS: "dict[int, list]" = {}

_POLLERS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Poller]" = weakref.WeakKeyDictionary()


def _poller() -> _Poller:
    loop = asyncio.get_running_loop()
    p = _POLLERS.get(loop)
    if p is None:
        p = _POLLERS[loop] = _Poller(loop)
    return p


def start(node: Any, fn: Callable[..., None], args: tuple, call: str,
          finish: Callable[[int], Any], keep: Any = None, queue: Any = None) -> Request:
    """Calls the `_i` function @p fn(*args, request, status) and wraps the request
    (@p queue: the receive queue it joins, for the poller)."""
    req = _new("mcapi_request_t *")
    st = _new("mcapi_status_t *")
    fn(*args, req, st)
    if st[0] not in (SUCCESS, PENDING):
        raise error(st[0], call)
    return Request(node, req, call, finish, keep, queue)


async def with_timeout(req: Request, timeout: Optional[float]) -> Any:
    """Awaits @p req; after @p timeout seconds cancels it and raises Timeout."""
    if timeout is None:
        return await req
    try:
        return await asyncio.wait_for(_await(req), timeout)
    except asyncio.TimeoutError:
        if not req.done():
            req.cancel()
        if req.done() and req._exc is None:
            return req._result  # completed as the timeout fired: not lost
        raise error(TIMEOUT, req._call) from None


async def _await(req: Request) -> Any:
    return await req


__all__ = ["Request", "Error"]
