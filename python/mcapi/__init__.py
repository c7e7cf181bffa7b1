# SPDX-License-Identifier: BSD-3-Clause
"""MCAPI for Python: nodes, endpoints, messages, packet and scalar channels of libmca.

    import mcapi
    with mcapi.Node(domain=1, node=2) as node:
        ep = node.create_endpoint(5)
        peer = node.get_endpoint(node=1, port=5, timeout=2.0)
        ep.send(peer, b"hello", priority=0)
        print(ep.recv(timeout=2.0))

Non-blocking calls return a Request (test, wait, cancel, await):
`await ep.recv_async()`, `await rx.recv_async()`, `ep.recv_i()`. State
channels: Node.create_state / open_state. MRAPI: `mcapi.mrapi`.

Errors are mcapi.Error subclasses carrying the MCAPI status (`status`, `name`).
See docs/python.md.
"""
from ._errors import (STATUS, ChannelError, ChannelNotOpen, EndpointDeleted, EndpointError,
                      Error, MemLimit, MessageTruncated, NodeError, ParameterError,
                      RequestError, Timeout, status_name)
from ._core import (PORT_ANY, Endpoint, Info, Node, Packet, PktReceiver, PktSender,
                    SclReceiver, SclSender)
from ._async import Request
from ._lib import MODE
from ._state import StateChannel, set_read_retries

__all__ = ["Node", "Endpoint", "Info", "Packet", "PktSender", "PktReceiver", "SclSender",
           "SclReceiver", "Request", "StateChannel", "set_read_retries", "PORT_ANY", "STATUS", "MODE", "status_name", "Error", "Timeout",
           "ParameterError", "NodeError", "EndpointError", "EndpointDeleted", "ChannelError",
           "ChannelNotOpen", "MessageTruncated", "MemLimit", "RequestError"]
__version__ = "0.2.0"
