# SPDX-License-Identifier: BSD-3-Clause
"""State channels (mcx.h, docs/state.md): the newest value, not a FIFO.

One writer (the creating node) overwrites; any node of the domain reads the
newest complete value with its version (1 for the first write, 0 before any).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from ._async import _ms
from ._errors import SUCCESS, TIMEOUT, error
from ._lib import ffi, lib

MAX_PAYLOAD = 4096
MAX_NBUF = 8
MAX_CHANNELS = 16


class StateChannel:
    """A state channel handle: the writer's (Node.create_state) or a reader's (Node.open_state).

    A context manager that closes it. `writer` is True for a handle of the
    writing node (also one it opened by its own node id): that close deletes
    the channel; a reader's close holds nothing.
    """

    __slots__ = ("node", "handle", "writer", "max_size", "_st", "_ver", "_buf", "_bufsize", "closed")

    def __init__(self, node: Any, handle: int, writer: bool, max_size: int) -> None:
        self.node = node
        self.handle = handle
        self.writer = writer
        self.max_size = max_size
        self._st = ffi.new("mcapi_status_t *")
        self._ver = ffi.new("uint64_t *")
        self._bufsize = max_size or MAX_PAYLOAD
        self._buf = ffi.new("char[]", self._bufsize)
        self.closed = False

    @classmethod
    def _create(cls, node: Any, port: int, max_size: int, nbuf: int) -> "StateChannel":
        st = ffi.new("mcapi_status_t *")
        h = lib.mcx_state_create(port, max_size, nbuf, st)
        if st[0] != SUCCESS:
            raise error(st[0], "mcx_state_create")
        return cls(node, h, True, max_size)

    @classmethod
    def _open(cls, node: Any, domain: int, owner: int, port: int,
              timeout: Optional[float]) -> "StateChannel":
        st = ffi.new("mcapi_status_t *")
        h = lib.mcx_state_open(domain, owner, port, _ms(timeout), st)
        if st[0] != SUCCESS:
            raise error(st[0], "mcx_state_open")
        # The writer's own node gets the writer's channel: its close deletes it.
        return cls(node, h, owner == node.node and domain == node.domain, 0)

    def __repr__(self) -> str:
        return f"StateChannel(0x{self.handle:08x}, {'writer' if self.writer else 'reader'})"

    def write(self, data: Any) -> None:
        """Publishes @p data (bytes-like) as the new value (writer only; never waits)."""
        p = ffi.from_buffer(data)
        lib.mcx_state_write(self.handle, p, len(p), self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcx_state_write")

    def read(self) -> Tuple[bytes, int]:
        """(value, version) of the newest value; (b"", 0) before the first write."""
        n = lib.mcx_state_read(self.handle, self._buf, self._bufsize, self._ver, self._st)
        s = self._st[0]
        if s != SUCCESS:
            raise error(s, "mcx_state_read")
        return ffi.unpack(self._buf, n), self._ver[0]

    def read_into(self, buffer: Any) -> Tuple[int, int]:
        """(size, version): the newest value written into @p buffer (MessageTruncated if it is larger)."""
        p = ffi.from_buffer(buffer, require_writable=True)
        n = lib.mcx_state_read(self.handle, p, len(p), self._ver, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcx_state_read")
        return n, self._ver[0]

    def wait_newer(self, version: int, timeout: Optional[float] = None) -> int:
        """Waits (the GIL released) until a version newer than @p version exists; returns the newest.

        Raises Timeout after @p timeout seconds, EndpointDeleted when the writer closed the
        channel or died.
        """
        v = lib.mcx_state_wait_newer(self.handle, version, _ms(timeout), self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcx_state_wait_newer")
        return v

    def close(self) -> None:
        """Closes the handle; the writer's close deletes the channel."""
        if self.closed:
            return
        self.closed = True
        lib.mcx_state_close(self.handle, self._st)
        if self._st[0] != SUCCESS:
            raise error(self._st[0], "mcx_state_close")

    def __enter__(self) -> "StateChannel":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def set_read_retries(retries: int) -> None:
    """Attempts a read makes before MCAPI_ERR_TRANSMISSION (process-wide; default 64)."""
    lib.mcx_state_set_read_retries(retries)


__all__ = ["StateChannel", "set_read_retries", "TIMEOUT"]
