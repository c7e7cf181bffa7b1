# SPDX-License-Identifier: BSD-3-Clause
"""A first program: two nodes (two threads) of one domain exchange a message
and a packet. Run it with libmca installed (docs/python.md)."""
import threading

import mcapi

DOMAIN = 1


def worker(ready):
    with mcapi.Node(DOMAIN, 2) as node:
        inbox = node.create_endpoint(7)
        packets = node.create_endpoint(8)
        ready.set()
        msg = inbox.recv()  # blocks in C; other threads run meanwhile
        print("node 2 got", msg)
        with packets.open_pkt_recv() as rx:
            with rx.recv() as view:  # a memoryview into the channel's buffer
                print("node 2 got a packet of", view.nbytes, "bytes:", bytes(view[:5]))


ready = threading.Event()
t = threading.Thread(target=worker, args=(ready,))
t.start()
with mcapi.Node(DOMAIN, 1) as node:
    print("libmca in", mcapi.MODE, "mode")
    ready.wait()
    me = node.create_endpoint(1)
    inbox = node.get_endpoint(2, 7, timeout=5.0)
    me.send(inbox, b"hello from node 1", priority=0)
    tx_ep = node.create_endpoint(2)
    node.connect_pkt(tx_ep, node.get_endpoint(2, 8, timeout=5.0), timeout=5.0)
    with tx_ep.open_pkt_send(timeout=5.0) as tx:
        tx.send(b"world" * 100)
        t.join()
