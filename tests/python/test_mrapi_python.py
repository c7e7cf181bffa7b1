# SPDX-License-Identifier: BSD-3-Clause
"""mcapi.mrapi: mutexes, semaphores and reader/writer locks as context
managers, shared memory as a memoryview (and a numpy array over it, without a
copy), every failure as the exception named by its MRAPI status; across
threads and processes, also when a holder's process is killed.

Tests wait for events; ceilings (mcx_timeouts.ceiling) only stop a hang.
"""
import os
import signal
import subprocess
import sys
import threading

import pytest

import mcapi
from mcapi import mrapi
from mcx_timeouts import ceiling

WAIT = ceiling(30.0)
PKG = os.path.dirname(os.path.dirname(os.path.abspath(mcapi.__file__)))


def in_other_node(domain, fn):
    """Runs fn(node) in a thread that is MRAPI node 2 of @p domain; returns its result or raises."""
    out = {}

    def body():
        try:
            with mrapi.Node(domain, 2) as n2:
                out["r"] = fn(n2)
        except BaseException as e:  # noqa: BLE001 (re-raised in the caller)
            out["e"] = e

    t = threading.Thread(target=body)
    t.start()
    t.join(WAIT)
    assert not t.is_alive()
    if "e" in out:
        raise out["e"]
    return out.get("r")


def child(domain, code):
    """A Python process that is MRAPI node 3 of @p domain and runs @p code (its node is `n`)."""
    src = ("import sys, time\nfrom mcapi import mrapi\n"
           f"with mrapi.Node({domain}, 3) as n:\n" + "".join("    " + l + "\n" for l in code.splitlines()))
    env = dict(os.environ, PYTHONPATH=PKG + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-c", src], env=env, stdout=subprocess.PIPE, text=True)


def test_mutex_is_a_context_manager_and_errors_are_named(domain):
    with mrapi.Node(domain, 1) as node:
        m = node.mutex(7)
        assert m.created and node.mutex(7).handle == m.handle  # the second finds it
        with m:
            assert in_other_node(domain, lambda n: _try(n.mutex(7, create=False))) is False
            with pytest.raises(mrapi.MutexLocked) as e:
                m.lock(timeout=0)  # not recursive: its holder may not lock it again
            assert e.value.name == "MRAPI_ERR_MUTEX_LOCKED" and isinstance(e.value, mrapi.MrapiError)
        assert in_other_node(domain, lambda n: _try(n.mutex(7, create=False))) is True
        with pytest.raises(mrapi.MutexNotlocked):
            m.unlock()
        with pytest.raises(mrapi.MutexExists):
            node.mutex(7, create=True)
        with pytest.raises(mrapi.MutexIdInvalid):
            node.mutex(99, create=False)
        r = node.mutex(8, recursive=True)
        with r:
            with r:
                assert r.trylock()
                r.unlock()
        m.delete()
        r.delete()
        with pytest.raises(mrapi.MutexInvalid):
            m.delete()
        assert mrapi.ERRORS["MRAPI_ERR_MUTEX_INVALID"] is mrapi.MutexInvalid


def _try(m):
    """Whether another node could lock @p m now (unlocked again at once)."""
    got = m.trylock()
    if got:
        m.unlock()
    return got


def test_lock_timeout_is_a_timeout_error(domain):
    with mrapi.Node(domain, 1) as node:
        m = node.mutex(1)
        held = threading.Event()
        release = threading.Event()

        def holder(n):
            mm = n.mutex(1, create=False)
            with mm:
                held.set()
                release.wait(WAIT)

        t = threading.Thread(target=lambda: in_other_node(domain, holder))
        t.start()
        assert held.wait(WAIT)
        with pytest.raises(mrapi.Timeout) as e:
            m.lock(timeout=0.01)
        assert isinstance(e.value, TimeoutError) and e.value.name == "MRAPI_TIMEOUT"
        release.set()
        t.join(WAIT)
        with m:
            pass
        m.delete()


def test_semaphore_units(domain):
    with mrapi.Node(domain, 1) as node:
        s = node.semaphore(3, limit=2)
        with s:
            assert s.trylock() is True
            assert s.trylock() is False  # both units taken
            s.unlock()
        with pytest.raises(mrapi.SemNotlocked):
            s.unlock()
        with pytest.raises(mrapi.SemLocklimit):
            node.semaphore(4, limit=0)
        s.delete()


def test_rwlock_readers_share_writers_exclude(domain):
    with mrapi.Node(domain, 1) as node:
        rw = node.rwlock(5)
        with rw.reader():
            assert in_other_node(domain, lambda n: _reader_and_writer(n.rwlock(5, create=False))) \
                == (True, False)
        with rw.writer():
            assert in_other_node(domain, lambda n: n.rwlock(5, create=False).trylock(mrapi.READER)) \
                is False
        with pytest.raises(mrapi.RwlNotlocked):
            rw.unlock(mrapi.WRITER)
        rw.delete()


def _reader_and_writer(rw):
    r = rw.trylock(mrapi.READER)
    w = rw.trylock(mrapi.WRITER)
    if r:
        rw.unlock(mrapi.READER)
    return r, w


def test_mutex_of_a_killed_process_comes_back_with_owner_died(domain):
    with mrapi.Node(domain, 1) as node:
        m = node.mutex(11)
        p = child(domain, "m = n.mutex(11, create=False)\nm.lock()\nprint('locked', flush=True)\n"
                          "time.sleep(3600)")
        try:
            assert p.stdout.readline() == "locked\n"
            assert m.trylock() is False
            p.send_signal(signal.SIGKILL)
            p.wait()
            m.lock(timeout=WAIT)
            assert m.owner_died is True
            m.unlock()
        finally:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
        m.delete()


def test_shared_memory_is_a_view_other_processes_write(domain):
    with mrapi.Node(domain, 1) as node:
        seg = node.shmem(2, 8192)
        assert seg.size == 8192
        with seg as view:
            assert isinstance(view, memoryview) and len(view) == 8192 and not view.readonly
            view[0:5] = b"hello"
            p = child(domain, "s = n.shmem(2, create=False)\nv = s.attach()\n"
                              "assert bytes(v[0:5]) == b'hello'\nv[8000:8005] = b'world'\n"
                              "s.detach()\nprint('done', flush=True)")
            try:
                assert p.stdout.readline() == "done\n"
                assert p.wait(WAIT) == 0
            finally:
                if p.poll() is None:
                    p.kill()
                p.wait()
                p.stdout.close()
            assert bytes(view[8000:8005]) == b"world"  # written by the other process, no copy
            part = view[8000:8005]
            with pytest.raises(BufferError):
                seg.detach()  # a slice of the view is alive: the mapping stays
            part.release()
        with pytest.raises(mrapi.ShmNotattached):
            seg.detach()
        seg.delete()
        with pytest.raises(mrapi.ShmIdInvalid):
            node.shmem(2, create=False)


def test_numpy_maps_the_segment_without_a_copy(domain):
    np = pytest.importorskip("numpy")
    with mrapi.Node(domain, 1) as node:
        seg = node.shmem(6, 4096)
        view = seg.attach()
        a = np.frombuffer(view, dtype=np.uint32)
        assert a.size == 1024 and not a.flags.owndata and a.flags.writeable
        a[:] = np.arange(1024, dtype=np.uint32)
        assert bytes(view[4:8]) == (1).to_bytes(4, sys.byteorder)  # the array is the segment
        view[8:12] = (77).to_bytes(4, sys.byteorder)
        assert a[2] == 77
        with pytest.raises(BufferError):
            seg.detach()  # the array holds the view
        del a
        seg.detach()
        seg.delete()


def test_a_thread_is_an_mcapi_and_an_mrapi_node_at_once(domain):
    with mcapi.Node(domain, 1) as mc, mrapi.Node(domain, 1) as mr:
        a = mc.create_endpoint(1)
        a.send(a, b"self")
        with mr.mutex(1) as m:
            assert a.recv(timeout=WAIT) == b"self"
        m.delete()
