# SPDX-License-Identifier: BSD-3-Clause
"""Nodes, endpoints, messages and channels over libmca.

A node is a thread (MCAPI's rule in libmca): a Node and everything made from
it are used from the thread that created it. Timeouts are seconds (float);
None waits for ever (or, for calls without a timeout argument in MCAPI, as
long as the endpoint's `timeout` attribute allows).
"""
from __future__ import annotations

import threading
from os import sched_yield as _yield
from time import perf_counter as _clock
from typing import TYPE_CHECKING, Any, Callable, Optional, Tuple

from . import _async
from ._async import Request
from ._errors import PENDING, SUCCESS, TIMEOUT, error
from ._lib import ffi, lib

if TYPE_CHECKING:
    from ._state import StateChannel

PORT_ANY = 0xFFFFFFFF
TIMEOUT_INFINITE = 0xFFFFFFFF
DOMAIN_DEFAULT = 0

_ATTR_MAX_PAYLOAD_SIZE = 3
_ATTR_PRIORITY = 7
_ATTR_NUM_RECV_BUFFERS = 9
_ATTR_TIMEOUT = 11

_LOCKING = {None: 0, "lockfree": 1, "global": 2}
_COMPAT = {None: 0, "spec": 1, "mca-2.0.3": 2}
_TRANSPORT = {None: 0, "shm": 1, "pmq": 2}

_new = ffi.new
_STARTED = (SUCCESS, PENDING)  # a non-blocking call's outcomes that leave a request to wait on
_NULL = ffi.NULL


def _ms(timeout: Optional[float]) -> int:
    """Seconds (None: for ever) as an MCAPI timeout in milliseconds."""
    if timeout is None:
        return TIMEOUT_INFINITE
    if timeout < 0:
        raise ValueError("timeout must be >= 0 or None")
    return min(int(timeout * 1000 + 0.5), TIMEOUT_INFINITE - 1)


def _data(data: Any) -> Tuple[Any, int]:
    """(pointer, size) of a bytes-like object, without a copy."""
    if type(data) is bytes:
        return data, len(data)
    p = ffi.from_buffer(data)
    return p, len(p)


class Info:
    """What mcapi_initialize reported."""

    __slots__ = ("mcapi_version", "organization_id", "implementation_version",
                 "number_of_domains", "number_of_nodes", "number_of_ports")

    def __init__(self, c):
        for f in self.__slots__:
            setattr(self, f, getattr(c, f))

    def __repr__(self):
        return "Info(" + ", ".join(f"{f}={getattr(self, f)}" for f in self.__slots__) + ")"


class _Requests:
    """Waits on a request and turns its outcome into a result or an exception."""

    __slots__ = ("_st", "_size")

    def __init__(self):
        self._st = _new("mcapi_status_t *")
        self._size = _new("size_t *")

    def wait(self, req, timeout, call):
        """Waits for @p req; on a timeout cancels it (unless it completed meanwhile)."""
        st = self._st
        lib.mcapi_wait(req, self._size, _ms(timeout), st)
        s = st[0]
        if s == SUCCESS:
            return self._size[0]
        if s == TIMEOUT:
            lib.mcapi_cancel(req, st)
            if st[0] != SUCCESS:
                # Completed between the timeout and the cancel: collect it.
                lib.mcapi_wait(req, self._size, 0, st)
                if st[0] == SUCCESS:
                    return self._size[0]
        raise error(s, call)


class Node:
    """This thread as node @p node of domain @p domain (mcapi_initialize).

    Keyword arguments are init parameters (used by the domain's first node):
    locking ("lockfree", "global"), compat ("spec", "mca-2.0.3"), transport
    ("shm", "pmq"), max_endpoints, queue_elements, max_msg_size, msg_buffers.
    Use it as a context manager, or call finalize().
    """

    def __init__(self, domain: int, node: int, *, locking: Optional[str] = None,
                 compat: Optional[str] = None, transport: Optional[str] = None,
                 max_endpoints: int = 0, queue_elements: int = 0, max_msg_size: int = 0,
                 msg_buffers: int = 0) -> None:
        self.domain = domain
        self.node = node
        self._st = _new("mcapi_status_t *")
        self._req = _Requests()
        param = _NULL
        if (locking, compat, transport) != (None, None, None) or max_endpoints or \
                queue_elements or max_msg_size or msg_buffers:
            param = _new("mcapi_param_t *")
            lib.mcx_param_init(param)
            param.locking = _LOCKING[locking]
            param.compat = _COMPAT[compat]
            param.transport = _TRANSPORT[transport]
            param.max_endpoints = max_endpoints
            param.queue_elements = queue_elements
            param.max_msg_size = max_msg_size
            param.msg_buffers = msg_buffers
        info = _new("mcapi_info_t *")
        lib.mcapi_initialize(domain, node, _NULL, param, info, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_initialize")
        self.info = Info(info)
        self.thread = threading.get_ident()
        self.open = True

    def finalize(self) -> None:
        """Ends the node (mcapi_finalize): its endpoints are deleted, its channels closed."""
        if not self.open:
            return
        lib.mcapi_finalize(self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_finalize")
        self.open = False
        _async._ORPHANS.pop(id(self), None)  # their requests ended with the node

    def __enter__(self) -> "Node":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.finalize()

    def __repr__(self):
        return f"Node(domain={self.domain}, node={self.node}{'' if self.open else ', finalized'})"

    # ---- endpoints
    def create_endpoint(self, port: int = PORT_ANY) -> "Endpoint":
        """A new endpoint of this node on @p port (PORT_ANY: a free one)."""
        h = lib.mcapi_endpoint_create(port, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_endpoint_create")
        return Endpoint(self, h, True)

    def get_endpoint(self, node: int, port: int, timeout: Optional[float] = None,
                     domain: Optional[int] = None) -> "Endpoint":
        """The endpoint (@p domain, @p node, @p port), waiting up to @p timeout for it to exist."""
        h = lib.mcapi_endpoint_get(self.domain if domain is None else domain, node, port,
                                   _ms(timeout), self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_endpoint_get")
        return Endpoint(self, h, False)

    def get_endpoint_i(self, node: int, port: int, domain: Optional[int] = None) -> Request:
        """Starts mcapi_endpoint_get_i; the Request's result is the Endpoint."""
        out = _new("mcapi_endpoint_t *")
        return _async.start(self, lib.mcapi_endpoint_get_i,
                            (self.domain if domain is None else domain, node, port, out),
                            "mcapi_endpoint_get_i", lambda n: Endpoint(self, out[0], False), out)

    async def get_endpoint_async(self, node: int, port: int, timeout: Optional[float] = None,
                                 domain: Optional[int] = None) -> "Endpoint":
        """The endpoint (@p domain, @p node, @p port), awaited (asyncio) up to @p timeout seconds."""
        return await _async.with_timeout(self.get_endpoint_i(node, port, domain), timeout)

    # ---- state channels (mcx.h)
    def create_state(self, port: int, max_size: int, nbuf: int = 2) -> "StateChannel":
        """A state channel written by this node, found by others as (domain, this node, @p port)."""
        from ._state import StateChannel
        return StateChannel._create(self, port, max_size, nbuf)

    def open_state(self, node: int, port: int, timeout: Optional[float] = None,
                   domain: Optional[int] = None) -> "StateChannel":
        """The state channel of (@p domain, @p node, @p port), for reading; waits up to @p timeout."""
        from ._state import StateChannel
        return StateChannel._open(self, self.domain if domain is None else domain, node, port,
                                  timeout)

    # ---- channels
    def connect_pkt(self, send_ep: "Endpoint", recv_ep: "Endpoint",
                    timeout: Optional[float] = None) -> None:
        """Connects a packet channel from @p send_ep to @p recv_ep."""
        self._connect(lib.mcapi_pktchan_connect_i, send_ep, recv_ep, timeout, "mcapi_pktchan_connect_i")

    def connect_scl(self, send_ep: "Endpoint", recv_ep: "Endpoint",
                    timeout: Optional[float] = None) -> None:
        """Connects a scalar channel from @p send_ep to @p recv_ep."""
        self._connect(lib.mcapi_sclchan_connect_i, send_ep, recv_ep, timeout, "mcapi_sclchan_connect_i")

    def _connect(self, fn, send_ep, recv_ep, timeout, call):
        req = _new("mcapi_request_t *")
        fn(_handle(send_ep), _handle(recv_ep), req, self._st)
        if self._st[0] not in _STARTED:
            raise error(self._st[0], call)
        self._req.wait(req, timeout, call)

    def open_pkt(self, send_ep: "Endpoint", recv_ep: "Endpoint",
                 timeout: Optional[float] = None) -> Tuple["PktSender", "PktReceiver"]:
        """Opens both sides of a packet channel between two endpoints of this node."""
        s = send_ep.open_pkt_send(wait=False)
        r = recv_ep.open_pkt_recv(wait=False)
        s.wait_open(timeout)
        r.wait_open(timeout)
        return s, r

    def open_scl(self, send_ep: "Endpoint", recv_ep: "Endpoint",
                 timeout: Optional[float] = None) -> Tuple["SclSender", "SclReceiver"]:
        """Opens both sides of a scalar channel between two endpoints of this node."""
        s = send_ep.open_scl_send(wait=False)
        r = recv_ep.open_scl_recv(wait=False)
        s.wait_open(timeout)
        r.wait_open(timeout)
        return s, r


def _handle(ep):
    return ep.handle if isinstance(ep, Endpoint) else ep


class Endpoint:
    """An MCAPI endpoint: one of this node's (local) or another node's (from get_endpoint)."""

    __slots__ = ("node", "handle", "local", "_st", "_size", "_buf", "_bufsize")

    def __init__(self, node: Node, handle: int, local: bool) -> None:
        self.node = node
        self.handle = handle
        self.local = local
        self._st = _new("mcapi_status_t *")
        self._size = _new("size_t *")
        self._buf = None
        self._bufsize = 0

    def __repr__(self):
        return f"Endpoint(0x{self.handle:08x}{'' if self.local else ', remote'})"

    def __eq__(self, other):
        return isinstance(other, Endpoint) and other.handle == self.handle

    def __hash__(self):
        return hash(self.handle)

    def delete(self) -> None:
        """Deletes this node's endpoint, or releases another node's (mcapi_endpoint_release)."""
        if self.local:
            lib.mcapi_endpoint_delete(self.handle, self._st)
        else:
            lib.mcapi_endpoint_release(self.handle, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_endpoint_delete" if self.local else "mcapi_endpoint_release")

    # ---- attributes
    def _get(self, num, ctype):
        v = _new(ctype + " *")
        lib.mcapi_endpoint_get_attribute(self.handle, num, v, ffi.sizeof(ctype), self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_endpoint_get_attribute")
        return v[0]

    def _set(self, num, ctype, value):
        v = _new(ctype + " *", value)
        lib.mcapi_endpoint_set_attribute(self.handle, num, v, ffi.sizeof(ctype), self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_endpoint_set_attribute")

    @property
    def max_payload_size(self) -> int:
        """The largest message (MCAPI_ENDP_ATTR_MAX_PAYLOAD_SIZE)."""
        return self._get(_ATTR_MAX_PAYLOAD_SIZE, "size_t")

    @property
    def timeout(self) -> Optional[float]:
        """Bound of blocking calls on this endpoint, seconds; None: for ever (MCAPI_ENDP_ATTR_TIMEOUT)."""
        ms = self._get(_ATTR_TIMEOUT, "mcapi_timeout_t")
        return None if ms == TIMEOUT_INFINITE else ms / 1000.0

    @timeout.setter
    def timeout(self, seconds: Optional[float]) -> None:
        self._set(_ATTR_TIMEOUT, "mcapi_timeout_t", _ms(seconds))

    @property
    def priority(self) -> int:
        """Default send priority of channels from this endpoint (MCAPI_ENDP_ATTR_PRIORITY)."""
        return self._get(_ATTR_PRIORITY, "mcapi_priority_t")

    @priority.setter
    def priority(self, value: int) -> None:
        self._set(_ATTR_PRIORITY, "mcapi_priority_t", value)

    @property
    def num_recv_buffers(self) -> int:
        """Queue depth per priority (MCAPI_ENDP_ATTR_NUM_RECV_BUFFERS)."""
        return self._get(_ATTR_NUM_RECV_BUFFERS, "mcapi_uint_t")

    @num_recv_buffers.setter
    def num_recv_buffers(self, value: int) -> None:
        self._set(_ATTR_NUM_RECV_BUFFERS, "mcapi_uint_t", value)

    # ---- messages
    def send(self, dest: "Endpoint", data: Any, priority: int = 0) -> None:
        """Sends @p data (bytes-like) to endpoint @p dest with @p priority (0 is the highest)."""
        p, n = _data(data)
        st = self._st
        lib.mcapi_msg_send(self.handle, dest.handle, p, n, priority, st)
        if st[0] != SUCCESS:
            raise error(st[0], "mcapi_msg_send")

    def recv(self, timeout: Optional[float] = None) -> bytes:
        """The next message as bytes; @p timeout None waits as the endpoint's timeout allows."""
        buf = self._buf
        if buf is None:
            self._bufsize = self.max_payload_size
            buf = self._buf = _new("char[]", self._bufsize)
        n = self._recv(buf, self._bufsize, timeout)
        return ffi.unpack(buf, n)

    def recv_into(self, buffer: Any, timeout: Optional[float] = None) -> int:
        """Receives the next message into @p buffer (writable bytes-like) without a copy; returns its size."""
        p = ffi.from_buffer(buffer, require_writable=True)
        return self._recv(p, len(p), timeout)

    # ---- bound calls for hot loops
    def sender(self, dest: "Endpoint", priority: int = 0) -> Callable[[Any], None]:
        """A function f(data) sending bytes-like @p data to @p dest: send() with the
        endpoints, the priority and the status bound once (the least Python per call)."""
        h, d, st, fn = self.handle, dest.handle, self._st, lib.mcapi_msg_send

        def send(data: Any) -> None:
            if type(data) is bytes:
                fn(h, d, data, len(data), priority, st)
            else:
                p = ffi.from_buffer(data)
                fn(h, d, p, len(p), priority, st)
            if st[0] != SUCCESS:
                raise error(st[0], "mcapi_msg_send")
        return send

    def receiver(self, buffer: Any, spin: float = 0.0) -> Callable[[], int]:
        """A function f() receiving the next message into @p buffer and returning its
        size: recv_into() with the buffer taken once (blocking as the endpoint's timeout
        allows). With @p spin > 0 it first polls for up to @p spin seconds, yielding
        the CPU between checks, as poll_into() does. The buffer stays exported while the function lives (a
        bytearray cannot be resized meanwhile)."""
        h, st, size, fn = self.handle, self._st, self._size, lib.mcapi_msg_recv
        avail = lib.mcapi_msg_available
        p = ffi.from_buffer(buffer, require_writable=True)
        n = len(p)

        def recv() -> int:
            if spin and not avail(h, st):
                end = _clock() + spin
                while not avail(h, st) and st[0] == SUCCESS and _clock() < end:
                    _yield()
            fn(h, p, n, size, st)
            if st[0] != SUCCESS:
                raise error(st[0], "mcapi_msg_recv")
            return size[0]
        recv.buffer = buffer  # type: ignore[attr-defined]
        return recv

    def poll_into(self, buffer: Any, spin: float = 0.00005, timeout: Optional[float] = None) -> int:
        """recv_into that first polls (mcapi_msg_available) for up to @p spin seconds.

        A receive that finds its message already queued never sleeps in the
        kernel, so a peer that answers within @p spin is not woken up: the
        round trip of `mca bench --python` (`.poll` cells). Between checks it
        yields the CPU (sched_yield), so on a busy machine the peer can run;
        after @p spin it blocks as recv_into does.
        """
        h, st = self.handle, self._st
        avail = lib.mcapi_msg_available
        if not avail(h, st):
            end = _clock() + spin
            while not avail(h, st):
                if st[0] != SUCCESS:
                    raise error(st[0], "mcapi_msg_available")
                if _clock() > end:
                    break
                _yield()
        return self.recv_into(buffer, timeout)

    def _recv(self, p, size, timeout):
        st = self._st
        if timeout is None:
            lib.mcapi_msg_recv(self.handle, p, size, self._size, st)
            if st[0] != SUCCESS:
                raise error(st[0], "mcapi_msg_recv")
            return self._size[0]
        req = _new("mcapi_request_t *")
        lib.mcapi_msg_recv_i(self.handle, p, size, req, st)
        if st[0] not in _STARTED:
            raise error(st[0], "mcapi_msg_recv_i")
        return self.node._req.wait(req, timeout, "mcapi_msg_recv")

    # ---- non-blocking and asyncio
    def send_i(self, dest: "Endpoint", data: Any, priority: int = 0) -> Request:
        """Starts mcapi_msg_send_i; @p data is kept alive until the Request completes."""
        p = ffi.from_buffer(data)
        return _async.start(self.node, lib.mcapi_msg_send_i,
                            (self.handle, dest.handle, p, len(p), priority),
                            "mcapi_msg_send_i", _none, (p, data))

    def recv_i(self, buffer: Any = None) -> Request:
        """Starts mcapi_msg_recv_i. The result is the message as bytes, or, with a
        writable @p buffer, its size (the message written into @p buffer)."""
        if buffer is None:
            size = self.max_payload_size
            buf = _new("char[]", size)
            return _async.start(self.node, lib.mcapi_msg_recv_i, (self.handle, buf, size),
                                "mcapi_msg_recv_i", lambda n: ffi.unpack(buf, n), buf,
                                ("msg", self.handle))
        p = ffi.from_buffer(buffer, require_writable=True)
        return _async.start(self.node, lib.mcapi_msg_recv_i, (self.handle, p, len(p)),
                            "mcapi_msg_recv_i", _same, (p, buffer), ("msg", self.handle))

    async def recv_async(self, timeout: Optional[float] = None) -> bytes:
        """The next message as bytes, awaited (asyncio); Timeout after @p timeout seconds."""
        return await _async.with_timeout(self.recv_i(), timeout)

    async def recv_into_async(self, buffer: Any, timeout: Optional[float] = None) -> int:
        """Receives the next message into @p buffer, awaited; returns its size."""
        return await _async.with_timeout(self.recv_i(buffer), timeout)

    async def send_async(self, dest: "Endpoint", data: Any, priority: int = 0) -> None:
        """Sends @p data, awaiting room in @p dest's queue if it is full."""
        return await self.send_i(dest, data, priority)

    def available(self) -> int:
        """Messages queued to this endpoint (mcapi_msg_available)."""
        n = lib.mcapi_msg_available(self.handle, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_msg_available")
        return n

    # ---- channel sides
    def open_pkt_send(self, timeout: Optional[float] = None, wait: bool = True) -> "PktSender":
        """The send side of this endpoint's packet channel."""
        return _open(PktSender, lib.mcapi_pktchan_send_open_i, "mcapi_pktchan_send_hndl_t *",
                     self, timeout, wait, "mcapi_pktchan_send_open_i")

    def open_pkt_recv(self, timeout: Optional[float] = None, wait: bool = True) -> "PktReceiver":
        """The receive side of this endpoint's packet channel."""
        return _open(PktReceiver, lib.mcapi_pktchan_recv_open_i, "mcapi_pktchan_recv_hndl_t *",
                     self, timeout, wait, "mcapi_pktchan_recv_open_i")

    def open_scl_send(self, timeout: Optional[float] = None, wait: bool = True) -> "SclSender":
        """The send side of this endpoint's scalar channel."""
        return _open(SclSender, lib.mcapi_sclchan_send_open_i, "mcapi_sclchan_send_hndl_t *",
                     self, timeout, wait, "mcapi_sclchan_send_open_i")

    def open_scl_recv(self, timeout: Optional[float] = None, wait: bool = True) -> "SclReceiver":
        """The receive side of this endpoint's scalar channel."""
        return _open(SclReceiver, lib.mcapi_sclchan_recv_open_i, "mcapi_sclchan_recv_hndl_t *",
                     self, timeout, wait, "mcapi_sclchan_recv_open_i")


def _none(n: int) -> None:
    return None


def _same(n: int) -> int:
    return n


def _open(cls, fn, htype, ep, timeout, wait, call):
    h = _new(htype)
    req = _new("mcapi_request_t *")
    st = ep._st
    fn(h, ep.handle, req, st)
    if st[0] not in _STARTED:
        raise error(st[0], call)
    side = cls(ep, h, req, call)
    if wait:
        side.wait_open(timeout)
    return side


class _Side:
    """One side of a channel; a context manager that closes it."""

    __slots__ = ("endpoint", "_h", "handle", "_req", "_call", "_st", "_size", "closed")
    _close_fn = None
    _close_call = None

    def __init__(self, ep, h, req, call):
        self.endpoint = ep
        self._h = h
        self.handle = None
        self._req = req
        self._call = call
        self._st = _new("mcapi_status_t *")
        self._size = _new("size_t *")
        self.closed = False

    def wait_open(self, timeout: Optional[float] = None) -> None:
        """Waits until the open completed (the peer opened its side too)."""
        if self._req is not None:
            self.endpoint.node._req.wait(self._req, timeout, self._call)
            self._req = None
            self.handle = self._h[0]

    def close(self, timeout: Optional[float] = None) -> None:
        """Closes this side (waits for the close to complete)."""
        if self.closed:
            return
        self.wait_open(timeout)
        req = _new("mcapi_request_t *")
        type(self)._close_fn(self.handle, req, self._st)
        if self._st[0] not in _STARTED:
            raise error(self._st[0], self._close_call)
        self.closed = True
        self.endpoint.node._req.wait(req, timeout, self._close_call)

    def __enter__(self) -> "_Side":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class PktSender(_Side):
    """Send side of a packet channel."""

    __slots__ = ()
    _close_fn = staticmethod(lambda h, r, s: lib.mcapi_pktchan_send_close_i(h, r, s))
    _close_call = "mcapi_pktchan_send_close_i"

    def send(self, data: Any) -> None:
        """Sends @p data (bytes-like) as one packet."""
        p, n = _data(data)
        st = self._st
        lib.mcapi_pktchan_send(self.handle, p, n, st)
        if st[0] != SUCCESS:
            raise error(st[0], "mcapi_pktchan_send")

    def send_i(self, data: Any) -> Request:
        """Starts mcapi_pktchan_send_i; @p data is kept alive until the Request completes."""
        p = ffi.from_buffer(data)
        return _async.start(self.endpoint.node, lib.mcapi_pktchan_send_i, (self.handle, p, len(p)),
                            "mcapi_pktchan_send_i", _none, (p, data))

    async def send_async(self, data: Any) -> None:
        """Sends @p data as one packet, awaiting a free buffer if none is."""
        return await self.send_i(data)


class Packet:
    """A received packet: `data` is a memoryview of the channel's buffer (no copy).

    Give the buffer back with release() or by leaving `with packet as view:`;
    the view must not be used after that.
    """

    __slots__ = ("_ptr", "data", "_st")

    def __init__(self, ptr, size, st):
        self._ptr = ptr
        self.data = memoryview(ffi.buffer(ptr, size))
        self._st = st

    def __len__(self) -> int:
        return self.data.nbytes

    def __bytes__(self) -> bytes:
        return self.data.tobytes()

    def release(self) -> None:
        """Gives the buffer back to the channel (mcapi_pktchan_release)."""
        if self._ptr is None:
            return
        ptr, self._ptr = self._ptr, None
        self.data.release()
        lib.mcapi_pktchan_release(ptr, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_pktchan_release")

    def __enter__(self) -> memoryview:
        return self.data

    def __exit__(self, *exc: Any) -> None:
        self.release()


class PktReceiver(_Side):
    """Receive side of a packet channel."""

    __slots__ = ()
    _close_fn = staticmethod(lambda h, r, s: lib.mcapi_pktchan_recv_close_i(h, r, s))
    _close_call = "mcapi_pktchan_recv_close_i"

    def recv(self, timeout: Optional[float] = None) -> "Packet":
        """The next packet (a Packet); @p timeout None waits as the endpoint's timeout allows."""
        pp = _new("void **")
        st = self._st
        if timeout is None:
            lib.mcapi_pktchan_recv(self.handle, pp, self._size, st)
            if st[0] != SUCCESS:
                raise error(st[0], "mcapi_pktchan_recv")
            n = self._size[0]
        else:
            req = _new("mcapi_request_t *")
            lib.mcapi_pktchan_recv_i(self.handle, pp, req, st)
            if st[0] not in _STARTED:
                raise error(st[0], "mcapi_pktchan_recv_i")
            n = self.endpoint.node._req.wait(req, timeout, "mcapi_pktchan_recv")
        return Packet(pp[0], n, _new("mcapi_status_t *"))

    def recv_i(self) -> Request:
        """Starts mcapi_pktchan_recv_i; the Request's result is a Packet."""
        pp = _new("void **")
        return _async.start(self.endpoint.node, lib.mcapi_pktchan_recv_i, (self.handle, pp),
                            "mcapi_pktchan_recv_i",
                            lambda n: Packet(pp[0], n, _new("mcapi_status_t *")), pp,
                            ("pkt", self.handle))

    async def recv_async(self, timeout: Optional[float] = None) -> "Packet":
        """The next packet, awaited (asyncio); Timeout after @p timeout seconds."""
        return await _async.with_timeout(self.recv_i(), timeout)

    def available(self) -> int:
        """Packets queued (mcapi_pktchan_available)."""
        n = lib.mcapi_pktchan_available(self.handle, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_pktchan_available")
        return n


_SCL_SEND = {8: lib.mcapi_sclchan_send_uint8, 16: lib.mcapi_sclchan_send_uint16,
             32: lib.mcapi_sclchan_send_uint32, 64: lib.mcapi_sclchan_send_uint64}
_SCL_RECV = {8: lib.mcapi_sclchan_recv_uint8, 16: lib.mcapi_sclchan_recv_uint16,
             32: lib.mcapi_sclchan_recv_uint32, 64: lib.mcapi_sclchan_recv_uint64}


class SclSender(_Side):
    """Send side of a scalar channel."""

    __slots__ = ()
    _close_fn = staticmethod(lambda h, r, s: lib.mcapi_sclchan_send_close_i(h, r, s))
    _close_call = "mcapi_sclchan_send_close_i"

    def send(self, value: int, bits: int = 64) -> None:
        """Sends the unsigned @p value as a scalar of @p bits (8, 16, 32, 64) bits."""
        st = self._st
        _SCL_SEND[bits](self.handle, value, st)
        if st[0] != SUCCESS:
            raise error(st[0], f"mcapi_sclchan_send_uint{bits}")


class SclReceiver(_Side):
    """Receive side of a scalar channel (blocking as the endpoint's timeout allows)."""

    __slots__ = ()
    _close_fn = staticmethod(lambda h, r, s: lib.mcapi_sclchan_recv_close_i(h, r, s))
    _close_call = "mcapi_sclchan_recv_close_i"

    def recv(self, bits: int = 64) -> int:
        """The next scalar, which must have been sent with @p bits bits (else ChannelError SCL_SIZE)."""
        st = self._st
        v = _SCL_RECV[bits](self.handle, st)
        if st[0] != SUCCESS:
            raise error(st[0], f"mcapi_sclchan_recv_uint{bits}")
        return v

    def available(self) -> int:
        """Scalars queued (mcapi_sclchan_available)."""
        n = lib.mcapi_sclchan_available(self.handle, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcapi_sclchan_available")
        return n
