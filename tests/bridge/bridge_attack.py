#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""An outsider without the key, against a bridge's listener (docs/bridge.md:
security); bridge_check.sh runs it. Every mode runs until STOPFILE exists
(or SIGTERM), prints "ready ..." once its connections are open, and at the
end one line with what it did.

  bridge_attack.py slowloris HOST PORT COUNT PERIOD SOURCES STOPFILE
      COUNT connections, spread over the SOURCES (first-last of 127.x.y.z,
      or one address), each sending one byte of a bridge hello every PERIOD
      seconds; a connection the bridge closes is opened again at once.
  bridge_attack.py flood HOST PORT HOLD RATE SOURCES STOPFILE
      connects RATE times a second from the SOURCES in turn: every other
      connection is closed at once, the rest held open and silent, at most
      HOLD at a time (the oldest is closed for a new one).
  bridge_attack.py wrongkey HOST PORT DOMAIN COUNT
      COUNT handshakes claiming DOMAIN with a key of its own: a good hello,
      then a key proof the bridge must refuse (it closes without its own);
      then one that claims DOMAIN and sends no proof, closed by this side.
      Prints "wrongkey: N refused, M answered".
"""
import errno
import os
import random
import selectors
import signal
import socket
import struct
import sys
import time

stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)


def sources(spec):
    """127.0.0.2-127.0.0.11 -> the ten addresses; one address -> itself."""
    if "-" not in spec:
        return [spec]
    a, b = spec.split("-")
    pa, pb = a.split("."), b.split(".")
    return [".".join(pa[:3] + [str(i)]) for i in range(int(pa[3]), int(pb[3]) + 1)]


def hello(domain):
    # The frame of a wire version 3 hello (src/bridge/wire.c): length, type,
    # magic, version, domain, incarnation, nonce, record, keep-alive, run.
    body = bytes([1]) + struct.pack("<III", 0x4258434D, 3, domain) + struct.pack("<Q", random.getrandbits(64))
    body += os.urandom(32) + struct.pack("<QQIQ", 0, 0, 500, random.getrandbits(64))
    return struct.pack("<I", len(body)) + body


def connect(host, port, src, block):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src, 0))
    if block:
        s.settimeout(10)
        s.connect((host, port))
        return s
    s.setblocking(False)
    try:
        s.connect((host, port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    return s


def stopped(stopfile):
    return stop or os.path.exists(stopfile)


def slowloris(host, port, count, period, srcs, stopfile):
    """Each connection sends its next byte every period; one the bridge
    closes is opened again at once (watched for its end, not found at the
    next byte), as a determined attacker does."""
    payload = hello(1)  # never completed: a byte a period
    sel = selectors.DefaultSelector()
    conns = {}  # socket -> [bytes sent, next send time]
    opened = reopened = 0
    ready = False
    k = 0
    while not stopped(stopfile):
        now = time.monotonic()
        while len(conns) < count and not stopped(stopfile):
            s = connect(host, port, srcs[k % len(srcs)], False)
            k += 1
            if s is None:
                break
            conns[s] = [0, now]
            sel.register(s, selectors.EVENT_READ)
            opened += 1
            if ready:
                reopened += 1
        if not ready and len(conns) >= count:
            print(f"ready slowloris {count} connections from {len(srcs)} address(es)", flush=True)
            ready = True
        gone = []
        for s, c in conns.items():
            if c[1] > now:
                continue
            try:
                s.send(payload[c[0] % len(payload) : c[0] % len(payload) + 1])
                c[0] += 1
                c[1] = now + period
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                gone.append(s)
        # the bridge's closes (EOF or reset), seen as they come
        for key, _ in sel.select(timeout=0.01):
            try:
                if not key.fileobj.recv(64):
                    gone.append(key.fileobj)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                gone.append(key.fileobj)
        for s in set(gone):
            sel.unregister(s)
            s.close()
            del conns[s]
    for s in conns:
        s.close()
    print(f"slowloris: {opened} connections opened, {reopened} again after the bridge closed them", flush=True)


def flood(host, port, hold, rate, srcs, stopfile):
    held = []
    made = refused = 0
    k = 0
    t = time.monotonic()
    while not stopped(stopfile):
        s = connect(host, port, srcs[k % len(srcs)], False)
        k += 1
        if s is None:
            refused += 1
        elif k % 2:
            s.close()
        else:
            held.append(s)
            if len(held) > hold:
                held.pop(0).close()
        made += 1
        if made == hold:
            print(f"ready flood {hold} held from {len(srcs)} address(es)", flush=True)
        t += 1.0 / rate
        d = t - time.monotonic()
        if d > 0:
            time.sleep(d)  # the flood's rate
    for s in held:
        s.close()
    print(f"flood: {made} connections made, {refused} failed at once", flush=True)


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise ConnectionError("closed")
        b += c
    return b


def wrongkey(host, port, domain, count):
    refused = answered = 0
    key = os.urandom(32)
    import hashlib
    import hmac

    for _ in range(count):
        s = connect(host, port, "127.0.0.1", True)
        mine = hello(domain)
        s.sendall(mine)
        try:
            n = struct.unpack("<I", recv_exact(s, 4))[0]
            theirs = recv_exact(s, n)
            tag = hmac.new(key, b"mcxb-auth" + mine[5:] + theirs[1:], hashlib.sha256).digest()
            s.sendall(struct.pack("<I", 33) + bytes([2]) + tag)
            recv_exact(s, 1)
            answered += 1
        except (ConnectionError, OSError):
            refused += 1
        s.close()
    # A hello, then nothing: this side gives up.
    s = connect(host, port, "127.0.0.1", True)
    s.sendall(hello(domain))
    try:
        recv_exact(s, 4)
    except (ConnectionError, OSError):
        pass
    s.close()
    print(f"wrongkey: {refused} refused, {answered} answered", flush=True)


def main():
    a = sys.argv[1:]
    if a and a[0] == "slowloris" and len(a) == 7:
        slowloris(a[1], int(a[2]), int(a[3]), float(a[4]), sources(a[5]), a[6])
    elif a and a[0] == "flood" and len(a) == 7:
        flood(a[1], int(a[2]), int(a[3]), float(a[4]), sources(a[5]), a[6])
    elif a and a[0] == "wrongkey" and len(a) == 5:
        wrongkey(a[1], int(a[2]), int(a[3]), int(a[4]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
