# SPDX-License-Identifier: BSD-3-Clause
"""MRAPI for Python: nodes, mutexes, semaphores, reader/writer locks, shared memory.

    from mcapi import mrapi
    with mrapi.Node(domain=1, node=1) as node:
        m = node.mutex(7)                       # created, or found when it exists
        with m:                                 # mrapi_mutex_lock / _unlock
            ...
        seg = node.shmem(3, 4096)
        with seg as view:                       # attached: a memoryview over the segment
            view[0:5] = b"hello"                # numpy.frombuffer(view) maps it, no copy

Every failure is raised as the exception named by its MRAPI status
(`mrapi.MutexLocked` for MRAPI_ERR_MUTEX_LOCKED, `mrapi.Timeout` for
MRAPI_TIMEOUT, ...), all subclasses of `mrapi.MrapiError` with `status` and
`name`; `mrapi.ERRORS` maps each status name to its class. A node is a thread,
as in MCAPI (docs/mrapi.md); a thread may be an MCAPI and an MRAPI node at once.
See docs/python.md ("MRAPI").
"""
from __future__ import annotations

import sys
from typing import Any, Dict, Optional, Type

from ._lib import ffi, lib

TIMEOUT_INFINITE = 0xFFFFFFFF
ID_ANY = -1  # MRAPI_*_ID_ANY (0xffffffff as the C int id): create picks a free id
_ATTR_RECURSIVE = 0
_ATTR_ERROR_EXT = 1
_ATTR_SHMEM_SIZE = 5

# mrapi_status_flags in mrapi.h order, from MRAPI_SUCCESS = 0.
STATUS_NAMES = (
    "MRAPI_SUCCESS", "MRAPI_TIMEOUT", "MRAPI_INCOMPLETE", "MRAPI_ERR_ATTR_NUM",
    "MRAPI_ERR_ATTR_READONLY", "MRAPI_ERR_ATTR_SIZE", "MRAPI_ERR_DOMAIN_INVALID",
    "MRAPI_ERR_DOMAIN_NOTSHARED", "MRAPI_ERR_MEM_LIMIT", "MRAPI_ERR_MUTEX_DELETED",
    "MRAPI_ERR_MUTEX_EXISTS", "MRAPI_ERR_MUTEX_ID_INVALID", "MRAPI_ERR_MUTEX_INVALID",
    "MRAPI_ERR_MUTEX_KEY", "MRAPI_ERR_MUTEX_LIMIT", "MRAPI_ERR_MUTEX_LOCKED",
    "MRAPI_ERR_MUTEX_LOCKORDER", "MRAPI_ERR_MUTEX_NOTLOCKED", "MRAPI_ERR_MUTEX_NOTVALID",
    "MRAPI_ERR_NODE_INITFAILED", "MRAPI_ERR_NODE_FINALFAILED", "MRAPI_ERR_NODE_INITIALIZED",
    "MRAPI_ERR_NODE_INVALID", "MRAPI_ERR_NODE_NOTINIT", "MRAPI_ERR_NOT_SUPPORTED",
    "MRAPI_ERR_PARAMETER", "MRAPI_ERR_REQUEST_CANCELED", "MRAPI_ERR_REQUEST_INVALID",
    "MRAPI_ERR_REQUEST_LIMIT", "MRAPI_ERR_RMEM_ID_INVALID", "MRAPI_ERR_RMEM_ATTACH",
    "MRAPI_ERR_RMEM_ATTACHED", "MRAPI_ERR_RMEM_ATYPE", "MRAPI_ERR_RMEM_ATYPE_NOTVALID",
    "MRAPI_ERR_RMEM_BLOCKED", "MRAPI_ERR_RMEM_BUFF_OVERRUN", "MRAPI_ERR_RMEM_CONFLICT",
    "MRAPI_ERR_RMEM_EXISTS", "MRAPI_ERR_RMEM_INVALID", "MRAPI_ERR_RMEM_NOTATTACHED",
    "MRAPI_ERR_RMEM_NOTOWNER", "MRAPI_ERR_RMEM_STRIDE", "MRAPI_ERR_RMEM_TYPENOTVALID",
    "MRAPI_ERR_RSRC_COUNTER_INUSE", "MRAPI_ERR_RSRC_INVALID", "MRAPI_ERR_RSRC_INVALID_CALLBACK",
    "MRAPI_ERR_RSRC_INVALID_EVENT", "MRAPI_ERR_RSRC_INVALID_SUBSYSTEM",
    "MRAPI_ERR_RSRC_INVALID_TREE", "MRAPI_ERR_RSRC_NOTDYNAMIC", "MRAPI_ERR_RSRC_NOTOWNER",
    "MRAPI_ERR_RSRC_NOTSTARTED", "MRAPI_ERR_RSRC_STARTED", "MRAPI_ERR_RWL_DELETED",
    "MRAPI_ERR_RWL_EXISTS", "MRAPI_ERR_RWL_ID_INVALID", "MRAPI_ERR_RWL_INVALID",
    "MRAPI_ERR_RWL_LIMIT", "MRAPI_ERR_RWL_LOCKED", "MRAPI_ERR_RWL_NOTLOCKED",
    "MRAPI_ERR_SEM_DELETED", "MRAPI_ERR_SEM_EXISTS", "MRAPI_ERR_SEM_ID_INVALID",
    "MRAPI_ERR_SEM_INVALID", "MRAPI_ERR_SEM_LIMIT", "MRAPI_ERR_SEM_LOCKED",
    "MRAPI_ERR_SEM_LOCKLIMIT", "MRAPI_ERR_SEM_NOTLOCKED", "MRAPI_ERR_SHM_ATTACHED",
    "MRAPI_ERR_SHM_ATTCH", "MRAPI_ERR_SHM_EXISTS", "MRAPI_ERR_SHM_ID_INVALID",
    "MRAPI_ERR_SHM_INVALID", "MRAPI_ERR_SHM_NODES_INCOMPAT", "MRAPI_ERR_SHM_NODE_NOTSHARED",
    "MRAPI_ERR_SHM_NOTATTACHED", "MRAPI_ERR_ATOM_INVALID_ARG", "MRAPI_ERR_ATOM_OP_FAILED",
    "MRAPI_ERR_ATOM_OP_NOFORWARD", "MRAPI_ERR_MUTEX_OWNER_DIED", "MRAPI_ERR_SEM_OWNER_DIED",
    "MRAPI_ERR_RWL_OWNER_DIED",
)
STATUS: Dict[str, int] = {name: code for code, name in enumerate(STATUS_NAMES)}
SUCCESS = STATUS["MRAPI_SUCCESS"]
_OWNER_DIED = {STATUS["MRAPI_ERR_MUTEX_OWNER_DIED"], STATUS["MRAPI_ERR_SEM_OWNER_DIED"],
               STATUS["MRAPI_ERR_RWL_OWNER_DIED"]}


class MrapiError(Exception):
    """An MRAPI call failed: `status` is the code, `name` its name (mrapi_display_status)."""

    def __init__(self, status: int, call: Optional[str] = None) -> None:
        self.status = status
        self.name = status_name(status)
        self.call = call
        super().__init__(f"{call}: {self.name}" if call else self.name)


def status_name(status: int) -> str:
    """The status's name as mrapi_display_status() gives it."""
    buf = ffi.new("char[]", 64)
    p = lib.mrapi_display_status(status, buf, 64)
    return ffi.string(p).decode() if p != ffi.NULL else f"MRAPI status {status}"


def _class_name(status_name_: str) -> str:
    base = status_name_.replace("MRAPI_ERR_", "").replace("MRAPI_", "")
    return "".join(w.capitalize() for w in base.split("_"))


def _bases(name: str) -> tuple:
    if name == "MRAPI_TIMEOUT":
        return (MrapiError, TimeoutError)
    if name in ("MRAPI_ERR_PARAMETER",) or name.startswith("MRAPI_ERR_ATTR_"):
        return (MrapiError, ValueError)
    if name == "MRAPI_ERR_MEM_LIMIT":
        return (MrapiError, MemoryError)
    return (MrapiError,)


# One exception class per status, named after it: MRAPI_ERR_MUTEX_LOCKED -> MutexLocked.
ERRORS: Dict[str, Type[MrapiError]] = {}
for _name in STATUS_NAMES[1:]:
    _cls = type(_class_name(_name), _bases(_name),
                {"__doc__": f"{_name}.", "__module__": __name__})
    ERRORS[_name] = _cls
    globals()[_cls.__name__] = _cls
_BY_CODE = {STATUS[n]: c for n, c in ERRORS.items()}
del _name, _cls


def error(status: int, call: Optional[str] = None) -> MrapiError:
    """The exception for @p status (not raised)."""
    return _BY_CODE.get(status, MrapiError)(status, call)


def _ms(timeout: Optional[float]) -> int:
    if timeout is None:
        return TIMEOUT_INFINITE
    if timeout < 0:
        raise ValueError("timeout must be >= 0 or None")
    return min(int(timeout * 1000 + 0.5), TIMEOUT_INFINITE - 1)


def _check(st: Any, call: str) -> None:
    if st[0] != SUCCESS:
        raise error(st[0], call)


def _bool_attr(attrs: Any, setter: Any, num: int, value: bool, call: str) -> None:
    st = ffi.new("mrapi_status_t *")
    v = ffi.new("mrapi_boolean_t *", 1 if value else 0)
    setter(attrs, num, v, 1, st)
    _check(st, call)


class Node:
    """This thread as MRAPI node @p node of domain @p domain (mrapi_initialize).

    A context manager that finalizes it (the last node of a domain removes its
    objects and segments).
    """

    def __init__(self, domain: int, node: int) -> None:
        import threading
        self.domain = domain
        self.node = node
        self._st = ffi.new("mrapi_status_t *")
        info = ffi.new("mrapi_info_t *")
        lib.mrapi_initialize(domain, node, 0, info, self._st)
        _check(self._st, "mrapi_initialize")
        self.version = ffi.string(info.mrapi_version).decode()
        self.thread = threading.get_ident()
        self.open = True

    def finalize(self) -> None:
        """Ends the node (mrapi_finalize). Locks it still holds stay held: release them first."""
        if not self.open:
            return
        lib.mrapi_finalize(self._st)
        _check(self._st, "mrapi_finalize")
        self.open = False

    def __enter__(self) -> "Node":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.finalize()

    def __repr__(self) -> str:
        return f"mrapi.Node(domain={self.domain}, node={self.node})"

    # ---- objects: create (or get) by id
    def mutex(self, id: int, *, create: Optional[bool] = None, recursive: bool = False,
              error_ext: bool = False) -> "Mutex":
        """Mutex @p id: created (create=True), found (create=False), or either (None)."""
        return Mutex._make(id, create, recursive=recursive, error_ext=error_ext)

    def semaphore(self, id: int, limit: int = 1, *, create: Optional[bool] = None,
                  error_ext: bool = False) -> "Semaphore":
        """Counting semaphore @p id with @p limit units (created, found, or either)."""
        return Semaphore._make(id, create, limit=limit, error_ext=error_ext)

    def rwlock(self, id: int, reader_limit: int = 0, *, create: Optional[bool] = None,
               error_ext: bool = False) -> "RWLock":
        """Reader/writer lock @p id admitting @p reader_limit readers (0: no limit)."""
        return RWLock._make(id, create, limit=reader_limit, error_ext=error_ext)

    def shmem(self, id: int, size: int = 0, *, create: Optional[bool] = None,
              error_ext: bool = False) -> "SharedMemory":
        """Shared-memory segment @p id of @p size bytes (created, found, or either)."""
        return SharedMemory._make(id, create, size=size, error_ext=error_ext)


class _Object:
    """An MRAPI object found by id in the domain; `handle` is its handle."""

    _kind = ""
    _exists = ""
    __slots__ = ("id", "handle", "_st", "created")

    def __init__(self, id: int, handle: int, created: bool) -> None:
        self.id = id
        self.handle = handle
        self._st = ffi.new("mrapi_status_t *")
        self.created = created

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id}, handle=0x{self.handle:08x})"

    @classmethod
    def _make(cls, id: int, create: Optional[bool], **kw: Any) -> Any:
        st = ffi.new("mrapi_status_t *")
        if create is not False:
            h = cls._create(id, st, **kw)
            if st[0] == SUCCESS:
                return cls(id, h, True)
            if create or st[0] != STATUS[cls._exists]:
                raise error(st[0], f"mrapi_{cls._kind}_create")
        h = getattr(lib, f"mrapi_{cls._kind}_get")(id, st)
        _check(st, f"mrapi_{cls._kind}_get")
        return cls(id, h, False)

    def delete(self) -> None:
        """Deletes the object (the profile's delete rule applies: docs/mrapi.md)."""
        getattr(lib, f"mrapi_{self._kind}_delete")(self.handle, self._st)
        _check(self._st, f"mrapi_{self._kind}_delete")


class Mutex(_Object):
    """An MRAPI mutex; `with mutex:` locks and unlocks it.

    `owner_died` is True after a lock that got it from a holder that died
    (MRAPI_ERR_MUTEX_OWNER_DIED: locked, what it protects may be inconsistent).
    """

    _kind = "mutex"
    _exists = "MRAPI_ERR_MUTEX_EXISTS"
    __slots__ = ("_keys", "owner_died")

    def __init__(self, id: int, handle: int, created: bool) -> None:
        super().__init__(id, handle, created)
        self._keys: list = []
        self.owner_died = False

    @staticmethod
    def _create(id: int, st: Any, recursive: bool, error_ext: bool) -> int:
        attrs = ffi.new("mrapi_mutex_attributes_t *")
        lib.mrapi_mutex_init_attributes(attrs, st)
        _bool_attr(attrs, lib.mrapi_mutex_set_attribute, _ATTR_RECURSIVE, recursive,
                   "mrapi_mutex_set_attribute")
        _bool_attr(attrs, lib.mrapi_mutex_set_attribute, _ATTR_ERROR_EXT, error_ext,
                   "mrapi_mutex_set_attribute")
        return lib.mrapi_mutex_create(id, attrs, st)

    def lock(self, timeout: Optional[float] = None) -> int:
        """Locks, waiting up to @p timeout seconds (the GIL released); returns the lock key."""
        key = ffi.new("mrapi_key_t *")
        lib.mrapi_mutex_lock(self.handle, key, _ms(timeout), self._st)
        s = self._st[0]
        if s != SUCCESS and s not in _OWNER_DIED:
            raise error(s, "mrapi_mutex_lock")
        self.owner_died = s in _OWNER_DIED
        self._keys.append(key)
        return key[0]

    def trylock(self) -> bool:
        """Locks if that needs no waiting; False when another node holds it."""
        key = ffi.new("mrapi_key_t *")
        ok = lib.mrapi_mutex_trylock(self.handle, key, self._st)
        s = self._st[0]
        if ok:
            self.owner_died = s in _OWNER_DIED
            self._keys.append(key)
            return True
        if s == STATUS["MRAPI_ERR_MUTEX_LOCKED"]:
            return False
        raise error(s, "mrapi_mutex_trylock")

    def unlock(self) -> None:
        """Unlocks the innermost level this object locked."""
        if not self._keys:
            raise error(STATUS["MRAPI_ERR_MUTEX_NOTLOCKED"], "mrapi_mutex_unlock")
        key = self._keys[-1]
        lib.mrapi_mutex_unlock(self.handle, key, self._st)
        _check(self._st, "mrapi_mutex_unlock")
        self._keys.pop()

    def __enter__(self) -> "Mutex":
        self.lock()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.unlock()


class Semaphore(_Object):
    """An MRAPI counting semaphore; `with sem:` takes and gives back one unit."""

    _kind = "sem"
    _exists = "MRAPI_ERR_SEM_EXISTS"
    __slots__ = ("owner_died",)

    def __init__(self, id: int, handle: int, created: bool) -> None:
        super().__init__(id, handle, created)
        self.owner_died = False

    @staticmethod
    def _create(id: int, st: Any, limit: int, error_ext: bool) -> int:
        attrs = ffi.new("mrapi_sem_attributes_t *")
        lib.mrapi_sem_init_attributes(attrs, st)
        _bool_attr(attrs, lib.mrapi_sem_set_attribute, _ATTR_ERROR_EXT, error_ext,
                   "mrapi_sem_set_attribute")
        return lib.mrapi_sem_create(id, attrs, limit, st)

    def lock(self, timeout: Optional[float] = None) -> None:
        """Takes one unit, waiting up to @p timeout seconds (the GIL released)."""
        lib.mrapi_sem_lock(self.handle, _ms(timeout), self._st)
        s = self._st[0]
        if s != SUCCESS and s not in _OWNER_DIED:
            raise error(s, "mrapi_sem_lock")
        self.owner_died = s in _OWNER_DIED

    def trylock(self) -> bool:
        """Takes one unit if one is free."""
        ok = lib.mrapi_sem_trylock(self.handle, self._st)
        s = self._st[0]
        if ok:
            self.owner_died = s in _OWNER_DIED
            return True
        if s == STATUS["MRAPI_ERR_SEM_LOCKED"]:
            return False
        raise error(s, "mrapi_sem_trylock")

    def unlock(self) -> None:
        """Gives one unit back (any node may)."""
        lib.mrapi_sem_unlock(self.handle, self._st)
        _check(self._st, "mrapi_sem_unlock")

    def __enter__(self) -> "Semaphore":
        self.lock()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.unlock()


READER = 0
WRITER = 1


class _RWHold:
    """`with rwl.reader():` / `with rwl.writer():`."""

    __slots__ = ("rwl", "mode", "timeout")

    def __init__(self, rwl: "RWLock", mode: int, timeout: Optional[float]) -> None:
        self.rwl, self.mode, self.timeout = rwl, mode, timeout

    def __enter__(self) -> "RWLock":
        self.rwl.lock(self.mode, self.timeout)
        return self.rwl

    def __exit__(self, *exc: Any) -> None:
        self.rwl.unlock(self.mode)


class RWLock(_Object):
    """An MRAPI reader/writer lock; `with rwl.reader():`, `with rwl.writer():`."""

    _kind = "rwl"
    _exists = "MRAPI_ERR_RWL_EXISTS"
    __slots__ = ("owner_died",)

    def __init__(self, id: int, handle: int, created: bool) -> None:
        super().__init__(id, handle, created)
        self.owner_died = False

    @staticmethod
    def _create(id: int, st: Any, limit: int, error_ext: bool) -> int:
        attrs = ffi.new("mrapi_rwl_attributes_t *")
        lib.mrapi_rwl_init_attributes(attrs, st)
        _bool_attr(attrs, lib.mrapi_rwl_set_attribute, _ATTR_ERROR_EXT, error_ext,
                   "mrapi_rwl_set_attribute")
        return lib.mrapi_rwl_create(id, attrs, limit, st)

    def lock(self, mode: int = WRITER, timeout: Optional[float] = None) -> None:
        """Locks shared (READER) or exclusive (WRITER), waiting up to @p timeout seconds."""
        lib.mrapi_rwl_lock(self.handle, mode, _ms(timeout), self._st)
        s = self._st[0]
        if s != SUCCESS and s not in _OWNER_DIED:
            raise error(s, "mrapi_rwl_lock")
        self.owner_died = s in _OWNER_DIED

    def trylock(self, mode: int = WRITER) -> bool:
        """Locks in @p mode if that needs no waiting."""
        ok = lib.mrapi_rwl_trylock(self.handle, mode, self._st)
        s = self._st[0]
        if ok:
            self.owner_died = s in _OWNER_DIED
            return True
        if s == STATUS["MRAPI_ERR_RWL_LOCKED"]:
            return False
        raise error(s, "mrapi_rwl_trylock")

    def unlock(self, mode: int = WRITER) -> None:
        """Releases a lock taken in @p mode."""
        lib.mrapi_rwl_unlock(self.handle, mode, self._st)
        _check(self._st, "mrapi_rwl_unlock")

    def reader(self, timeout: Optional[float] = None) -> _RWHold:
        """A context manager holding the lock shared."""
        return _RWHold(self, READER, timeout)

    def writer(self, timeout: Optional[float] = None) -> _RWHold:
        """A context manager holding the lock exclusive."""
        return _RWHold(self, WRITER, timeout)


class SharedMemory(_Object):
    """An MRAPI shared-memory segment.

    attach() maps it and returns a writable memoryview over the segment (no
    copy: `numpy.frombuffer(view, dtype)` is an array over the same bytes);
    `with seg as view:` attaches and detaches. detach() refuses (BufferError)
    while a view taken from it is still exported (a numpy array over it, a
    memoryview slice), so the mapping never goes away under a live view.
    """

    _kind = "shmem"
    _exists = "MRAPI_ERR_SHM_EXISTS"
    __slots__ = ("view", "_cbuf")

    def __init__(self, id: int, handle: int, created: bool) -> None:
        super().__init__(id, handle, created)
        self.view: Optional[memoryview] = None
        self._cbuf: Any = None

    @staticmethod
    def _create(id: int, st: Any, size: int, error_ext: bool) -> int:
        attrs = ffi.new("mrapi_shmem_attributes_t *")
        lib.mrapi_shmem_init_attributes(attrs, st)
        _bool_attr(attrs, lib.mrapi_shmem_set_attribute, _ATTR_ERROR_EXT, error_ext,
                   "mrapi_shmem_set_attribute")
        return lib.mrapi_shmem_create(id, size, ffi.NULL, 0, attrs, ffi.sizeof(attrs[0]), st)

    @property
    def size(self) -> int:
        """The segment's size in bytes (MRAPI_SHMEM_SIZE)."""
        v = ffi.new("mrapi_uint_t *")
        lib.mrapi_shmem_get_attribute(self.handle, _ATTR_SHMEM_SIZE, v, ffi.sizeof("mrapi_uint_t"),
                                      self._st)
        _check(self._st, "mrapi_shmem_get_attribute")
        return v[0]

    def attach(self) -> memoryview:
        """Maps the segment (mrapi_shmem_attach): a writable memoryview over all of it."""
        size = self.size
        p = lib.mrapi_shmem_attach(self.handle, self._st)
        _check(self._st, "mrapi_shmem_attach")
        self._cbuf = ffi.buffer(p, size)
        self.view = memoryview(self._cbuf)
        return self.view

    def detach(self) -> None:
        """Unmaps it for this node (mrapi_shmem_detach); BufferError while views of it live."""
        if self.view is not None:
            self.view.release()  # BufferError while exported (numpy): nothing is detached then
            self.view = None
        if self._cbuf is not None:
            # Slices of the view share its buffer without being its exports: they
            # hold the mapping's buffer object, this object the only other reference.
            if sys.getrefcount(self._cbuf) > 2:
                raise BufferError("mrapi_shmem_detach: views of the segment are still alive")
            self._cbuf = None
        lib.mrapi_shmem_detach(self.handle, self._st)
        _check(self._st, "mrapi_shmem_detach")

    def __enter__(self) -> memoryview:
        return self.attach()

    def __exit__(self, *exc: Any) -> None:
        self.detach()


__all__ = ["Node", "Mutex", "Semaphore", "RWLock", "SharedMemory", "MrapiError", "ERRORS",
           "STATUS", "STATUS_NAMES", "READER", "WRITER", "ID_ANY", "status_name", "error"]
__all__ += [c.__name__ for c in ERRORS.values()]
