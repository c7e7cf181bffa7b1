# SPDX-License-Identifier: BSD-3-Clause
"""MCAPI statuses as exceptions: each carries the status code and its name."""
from __future__ import annotations

from typing import Optional

from ._lib import ffi, lib

# mcapi_status_codes in mcapi.h order, from MCAPI_SUCCESS = 1.
STATUS_NAMES = (
    "MCAPI_SUCCESS", "MCAPI_PENDING", "MCAPI_TIMEOUT", "MCAPI_ERR_PARAMETER",
    "MCAPI_ERR_DOMAIN_INVALID", "MCAPI_ERR_NODE_INVALID", "MCAPI_ERR_NODE_INITFAILED",
    "MCAPI_ERR_NODE_INITIALIZED", "MCAPI_ERR_NODE_NOTINIT", "MCAPI_ERR_NODE_FINALFAILED",
    "MCAPI_ERR_PORT_INVALID", "MCAPI_ERR_ENDP_INVALID", "MCAPI_ERR_ENDP_EXISTS",
    "MCAPI_ERR_ENDP_GET_LIMIT", "MCAPI_ERR_ENDP_DELETED", "MCAPI_ERR_ENDP_NOTOWNER",
    "MCAPI_ERR_ENDP_REMOTE", "MCAPI_ERR_ATTR_INCOMPATIBLE", "MCAPI_ERR_ATTR_SIZE",
    "MCAPI_ERR_ATTR_NUM", "MCAPI_ERR_ATTR_VALUE", "MCAPI_ERR_ATTR_NOTSUPPORTED",
    "MCAPI_ERR_ATTR_READONLY", "MCAPI_ERR_MSG_SIZE", "MCAPI_ERR_MSG_TRUNCATED",
    "MCAPI_ERR_CHAN_OPEN", "MCAPI_ERR_CHAN_TYPE", "MCAPI_ERR_CHAN_DIRECTION",
    "MCAPI_ERR_CHAN_CONNECTED", "MCAPI_ERR_CHAN_OPENPENDING", "MCAPI_ERR_CHAN_CLOSEPENDING",
    "MCAPI_ERR_CHAN_NOTOPEN", "MCAPI_ERR_CHAN_INVALID", "MCAPI_ERR_PKT_SIZE",
    "MCAPI_ERR_TRANSMISSION", "MCAPI_ERR_PRIORITY", "MCAPI_ERR_BUF_INVALID",
    "MCAPI_ERR_MEM_LIMIT", "MCAPI_ERR_REQUEST_INVALID", "MCAPI_ERR_REQUEST_LIMIT",
    "MCAPI_ERR_REQUEST_CANCELLED", "MCAPI_ERR_WAIT_PENDING", "MCAPI_ERR_GENERAL",
    "MCAPI_ERR_SCL_SIZE", "MCAPI_ERR_ENDP_NOPORTS", "MCAPI_ERR_ENDP_LIMIT",
)
STATUS = {name: code for code, name in enumerate(STATUS_NAMES, start=1)}
SUCCESS = STATUS["MCAPI_SUCCESS"]
PENDING = STATUS["MCAPI_PENDING"]
TIMEOUT = STATUS["MCAPI_TIMEOUT"]


class Error(Exception):
    """An MCAPI call failed. `status` is the code, `name` its name (mcapi_display_status)."""

    def __init__(self, status: int, call: Optional[str] = None) -> None:
        self.status = status
        self.name = status_name(status)
        self.call = call
        super().__init__(f"{call}: {self.name}" if call else self.name)


class Timeout(Error, TimeoutError):
    """MCAPI_TIMEOUT: the call's or the endpoint's timeout passed."""


class ParameterError(Error, ValueError):
    """MCAPI_ERR_PARAMETER, MCAPI_ERR_PRIORITY, sizes and attribute values out of range."""


class NodeError(Error):
    """MCAPI_ERR_NODE_* and MCAPI_ERR_DOMAIN_INVALID: initialize/finalize failed."""


class EndpointError(Error):
    """MCAPI_ERR_ENDP_* and MCAPI_ERR_PORT_INVALID."""


class EndpointDeleted(EndpointError):
    """MCAPI_ERR_ENDP_DELETED: the endpoint (or its node) is gone."""


class ChannelError(Error):
    """MCAPI_ERR_CHAN_*, MCAPI_ERR_SCL_SIZE, MCAPI_ERR_BUF_INVALID."""


class ChannelNotOpen(ChannelError):
    """MCAPI_ERR_CHAN_NOTOPEN: the channel is closed (also: its peer's node died)."""


class MessageTruncated(Error):
    """MCAPI_ERR_MSG_TRUNCATED: the message is larger than the receive buffer."""


class MemLimit(Error, MemoryError):
    """MCAPI_ERR_MEM_LIMIT: out of queue slots or buffers."""


class RequestError(Error):
    """MCAPI_ERR_REQUEST_*, MCAPI_ERR_WAIT_PENDING."""


def _classify(name: str) -> type:
    if name == "MCAPI_TIMEOUT":
        return Timeout
    if name in ("MCAPI_ERR_PARAMETER", "MCAPI_ERR_PRIORITY", "MCAPI_ERR_MSG_SIZE",
                "MCAPI_ERR_PKT_SIZE") or name.startswith("MCAPI_ERR_ATTR_"):
        return ParameterError
    if name.startswith("MCAPI_ERR_NODE_") or name == "MCAPI_ERR_DOMAIN_INVALID":
        return NodeError
    if name == "MCAPI_ERR_ENDP_DELETED":
        return EndpointDeleted
    if name.startswith("MCAPI_ERR_ENDP_") or name == "MCAPI_ERR_PORT_INVALID":
        return EndpointError
    if name == "MCAPI_ERR_CHAN_NOTOPEN":
        return ChannelNotOpen
    if name.startswith("MCAPI_ERR_CHAN_") or name in ("MCAPI_ERR_SCL_SIZE", "MCAPI_ERR_BUF_INVALID"):
        return ChannelError
    if name == "MCAPI_ERR_MSG_TRUNCATED":
        return MessageTruncated
    if name == "MCAPI_ERR_MEM_LIMIT":
        return MemLimit
    if name.startswith("MCAPI_ERR_REQUEST_") or name == "MCAPI_ERR_WAIT_PENDING":
        return RequestError
    return Error


_CLASS = {code: _classify(name) for name, code in STATUS.items()}
_NAMES = {}


def status_name(status: int) -> str:
    """The status's name as mcapi_display_status() gives it."""
    name = _NAMES.get(status)
    if name is None:
        buf = ffi.new("char[]", 64)
        p = lib.mcapi_display_status(status, buf, 64)
        name = ffi.string(p).decode() if p != ffi.NULL else f"MCAPI status {status}"
        _NAMES[status] = name
    return name


def error(status: int, call: Optional[str] = None) -> Error:
    """The exception for @p status (not raised)."""
    return _CLASS.get(status, Error)(status, call)
