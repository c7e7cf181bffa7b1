#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mca hint: the code parser of the next-semaphore scheme (docs/sem.md).

Finds, in each function of the given C files, a blocking call that libmca can
hint (an event wait or an MCAPI receive) followed on every path by the acquire
of a known semaphore with nothing between them that may block, and rewrites
the pair into the call's _then_lock form: the call names the semaphore and the
acquire goes. Ambiguous cases are refused with the reason. The analysis runs
on clang's syntax tree (libclang), so macros and types are those the compiler
sees.
"""
import argparse
import difflib
import datetime
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "mca"))  # mca_cli.py, in the sources
import mca_cli  # noqa: E402

# libclang (clang.cindex and K = its CursorKind): imported by setup_libclang(),
# after the command line was read, so a usage error costs no import of it.
ci = None
K = None


def import_libclang():
    global ci, K
    try:
        import clang.cindex as cindex
    except ImportError:  # a Python other than the system one: try Debian's python3-clang
        for d in ("/usr/lib/python3/dist-packages",):
            if os.path.isdir(os.path.join(d, "clang")):
                sys.path.append(d)
        try:
            import clang.cindex as cindex
        except ImportError:
            return
    ci, K = cindex, cindex.CursorKind

# ---------------------------------------------------------------- the tables

# Blocking calls that have a hinted form: pisem / csem form, argument layout.
#   shape "ev":  f(ev, timeout)             -> f_then(ev, S, timeout)
#   shape "out": f(a.., status)             -> f_then(a.., S, status)      (void calls)
#   shape "val": v = f(h, status)           -> f_then(h, &v, S, status)
HINTABLE = {
    "mcx_event_wait": {"shape": "ev", "pisem": "mcx_event_wait_then_lock",
                       "csem": "mcx_event_wait_then_acquire", "timeout": 1},
    "mcapi_msg_recv": {"shape": "out", "pisem": "mcx_msg_recv_then_lock", "csem": None},
    "mcapi_pktchan_recv": {"shape": "out", "pisem": "mcx_pktchan_recv_then_lock", "csem": None},
}
for _w in (64, 32, 16, 8):
    HINTABLE["mcapi_sclchan_recv_uint%d" % _w] = {
        "shape": "val", "pisem": "mcx_sclchan_recv_uint%d_then_lock" % _w, "csem": None}

# Acquires: kind, semaphore argument, timeout argument.
ACQUIRES = {
    "mcx_pisem_lock": ("pisem", 0, 1),
    "mcx_csem_acquire": ("csem", 0, 1),
    "mrapi_mutex_lock": ("mrapi mutex", 0, 2),
    "mrapi_sem_lock": ("mrapi semaphore", 0, 1),
}

# Calls that block (besides the two tables above): anything here between the
# wait and the acquire ends the search.
BLOCKING = set("""
mcx_event_wait_then_lock mcx_event_wait_then_acquire mcx_msg_recv_then_lock
mcx_pktchan_recv_then_lock mcx_sclchan_recv_uint64_then_lock mcx_sclchan_recv_uint32_then_lock
mcx_sclchan_recv_uint16_then_lock mcx_sclchan_recv_uint8_then_lock
mcapi_wait mcapi_wait_any mcapi_msg_send mcapi_pktchan_send mcapi_sclchan_send_uint64
mcapi_sclchan_send_uint32 mcapi_sclchan_send_uint16 mcapi_sclchan_send_uint8 mcapi_endpoint_get
mcapi_pktchan_connect_i mcapi_sclchan_connect_i mcapi_pktchan_recv_open_i mcapi_pktchan_send_open_i
mrapi_rwl_lock pthread_mutex_lock pthread_cond_wait pthread_cond_timedwait pthread_join
pthread_rwlock_rdlock pthread_rwlock_wrlock sem_wait sem_timedwait sleep usleep nanosleep
clock_nanosleep read write recv send poll select epoll_wait accept connect pause wait waitpid
""".split())

# Synchronization calls that do not block but must not be moved across: the
# rewritten code holds the semaphore from the wait on.
SYNC = set("""
mcx_pisem_unlock mcx_pisem_trylock mcx_csem_release mcx_csem_tryacquire mcx_event_post
mrapi_mutex_unlock mrapi_mutex_trylock mrapi_sem_unlock mrapi_sem_trylock mrapi_rwl_unlock
mrapi_rwl_trylock pthread_mutex_unlock pthread_mutex_trylock pthread_cond_signal
pthread_cond_broadcast sem_post sem_trywait
""".split())

# Library calls known not to block and not to synchronize.
PURE = set("""
clock_gettime gettimeofday time getpid gettid pthread_self sched_getcpu rand rand_r
memcpy memmove memset memcmp strlen strnlen strcmp strncmp strcpy strncpy strcat strchr strrchr
abs labs llabs fabs sqrt sin cos tan exp log floor ceil round fmin fmax pow
mcx_pisem_owner mcx_csem_value mcapi_msg_available mcapi_pktchan_available
mcapi_sclchan_available
""".split())

INFINITE = re.compile(r"^\(?\s*(MCX_SEM_INFINITE|UINT32_MAX|0x[fF]{8}[uU]?[lL]{0,2}|4294967295[uU]?[lL]{0,2})\s*\)?$")


class Refuse(Exception):
    """The case is ambiguous (or cannot be rewritten): the message says why."""

    def __init__(self, why, sem=None):
        super().__init__(why)
        self.sem = sem


class NoAcquire(Exception):
    """No acquire follows on this path: the message says what comes instead."""


# ------------------------------------------------------------ source text

class Source:
    def __init__(self, path, tu, shown):
        self.path = path
        self.shown = shown
        self.tu = tu
        with open(path, "rb") as f:
            self.data = f.read()
        self.main = tu.get_file(os.path.abspath(path))
        self.macros = {}
        for c in tu.cursor.get_children():
            if c.kind == K.MACRO_DEFINITION:
                self.macros[c.spelling] = c

    def text(self, a, b):
        return self.data[a:b].decode("utf-8", "replace")

    def in_main(self, c):
        loc = c.location
        return loc.file is not None and os.path.samefile(loc.file.name, self.path)


def spelling_offsets(ext):
    """(start, end) offsets of a range's spelling (inside a macro invocation's arguments)."""
    out = []
    for loc in (ext.start, ext.end):
        f, l, c, o = ci.c_object_p(), ci.c_uint(), ci.c_uint(), ci.c_uint()
        ci.conf.lib.clang_getSpellingLocation(loc, ci.byref(f), ci.byref(l), ci.byref(c), ci.byref(o))
        out.append(o.value)
    return out


def strip(c):
    """The expression under parentheses and implicit casts."""
    while c is not None and c.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR):
        ch = list(c.get_children())
        if len(ch) != 1:
            break
        c = ch[0]
    return c


def split_args(s):
    """'f(a, g(b, c))' -> ('f', ['a', 'g(b, c)']); None if not a single call."""
    s = s.strip()
    while s.startswith("(") and s.endswith(")") and balanced(s[1:-1]):
        s = s[1:-1].strip()
    m = re.match(r"^([A-Za-z_]\w*)\s*\(", s)
    if not m or not s.endswith(")") or not balanced(s[m.end():-1]):
        return None
    inner = s[m.end():-1]
    args, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        args.append(cur.strip())
    return m.group(1), args


def balanced(s):
    d = 0
    for ch in s:
        d += ch in "([{"
        d -= ch in ")]}"
        if d < 0:
            return False
    return d == 0


def callee(c):
    """Name of the function a CALL_EXPR calls (None for calls through pointers)."""
    ref = c.referenced
    if ref is not None and ref.kind == K.FUNCTION_DECL:
        return ref.spelling
    return None


def calls_in(c):
    if c.kind == K.CALL_EXPR:
        yield c
    for ch in c.get_children():
        yield from calls_in(ch)


# ------------------------------------------------------------------ analysis

class Analyzer:
    def __init__(self, src):
        self.src = src
        self.funcs = {}
        for c in src.tu.cursor.get_children():
            if c.kind == K.FUNCTION_DECL and c.is_definition():
                self.funcs[c.spelling] = c
        self.findings = []
        self.failed = []
        self.edits = []  # (start, end, text)

    # ---- call texts, through macros
    def call_texts(self, call):
        """(callee text, [argument texts], (start, end) of the call in the file)."""
        s, e = call.extent.start.offset, call.extent.end.offset
        raw = self.src.text(s, e)
        name = callee(call)
        if re.match(r"^%s\s*\(" % re.escape(name), raw):
            args = [self.src.text(a.extent.start.offset, a.extent.end.offset) for a in call.get_arguments()]
            return args, (s, e), None
        # A macro invocation: its name is the first word of the range.
        m = re.match(r"^([A-Za-z_]\w*)", raw)
        mname = m.group(1) if m else "?"
        mdef = self.src.macros.get(mname)
        if mdef is None:
            raise Refuse("the call comes from macro %s, whose definition is not visible" % mname)
        toks = [t.spelling for t in mdef.get_tokens()][1:]
        params = []
        body_toks = toks
        # function-like if '(' follows the name without a space
        if toks and toks[0] == "(":
            # function-like only if '(' follows the name at once
            name_end = mdef.location.offset + len(mname)
            try:
                with open(mdef.location.file.name, "rb") as fh:
                    fl = fh.read()[name_end:name_end + 1] == b"("
            except (OSError, AttributeError):
                fl = False
            if fl:
                j = toks.index(")")
                params = [t for t in toks[1:j] if t != ","]
                body_toks = toks[j + 1:]
        inv_args = []
        if params:
            sp = split_args(raw)
            if sp is None:
                raise Refuse("cannot read the arguments of macro %s" % mname)
            inv_args = sp[1]
        body = join_tokens(body_toks, dict(zip(params, inv_args)))
        sp = split_args(body)
        if sp is None or sp[0] != name:
            raise Refuse("the call comes from macro %s, whose body is not a single call of %s" % (mname, name))
        return sp[1], (s, e), mname

    # ---- classification
    def acquire_of(self, c):
        """For an acquire call (direct or through a one-statement wrapper):
        (kind, sem cursor, sem text, timeout text, display); else None."""
        c = strip(c)
        if c is None or c.kind != K.CALL_EXPR:
            return None
        n = callee(c)
        if n in ACQUIRES:
            kind, si, ti = ACQUIRES[n]
            args = list(c.get_arguments())
            texts, _, _ = self.call_texts(c)
            return {"kind": kind, "sem": args[si], "sem_text": texts[si], "timeout": texts[ti],
                    "call": c, "name": n}
        w = self.wrapper(n)
        if w is None:
            return None
        inner, body_call = w
        wparams = [p for p in self.funcs[n].get_children() if p.kind == K.PARM_DECL]
        args = list(c.get_arguments())
        texts, _, _ = self.call_texts(c)
        sem = strip(inner["sem"])
        sem_c, sem_t = inner["sem"], inner["sem_text"]
        if sem.kind == K.DECL_REF_EXPR and sem.referenced is not None and sem.referenced.kind == K.PARM_DECL:
            i = [p.spelling for p in wparams].index(sem.referenced.spelling)
            sem_c, sem_t = args[i], texts[i]
        else:
            for v in decl_refs(inner["sem"]):
                if v.kind == K.PARM_DECL or v.semantic_parent is not None and \
                        v.semantic_parent.kind == K.FUNCTION_DECL:
                    raise Refuse("wrapper %s takes a semaphore named by its own locals" % n)
        tmo = inner["timeout"]
        for i, p in enumerate(wparams):
            if re.search(r"\b%s\b" % re.escape(p.spelling), tmo):
                tmo = re.sub(r"\b%s\b" % re.escape(p.spelling), texts[i], tmo)
        return {"kind": inner["kind"], "sem": sem_c, "sem_text": sem_t, "timeout": tmo,
                "call": c, "name": "%s (wrapper of %s)" % (n, inner["name"])}

    def wrapper(self, name):
        """A function whose body is one acquire statement: (acquire, call)."""
        f = self.funcs.get(name)
        if f is None:
            return None
        body = [c for c in f.get_children() if c.kind == K.COMPOUND_STMT]
        if len(body) != 1:
            return None
        stmts = list(body[0].get_children())
        if len(stmts) != 1:
            return None
        e = strip_void(stmts[0])
        if e is None or e.kind != K.CALL_EXPR or callee(e) not in ACQUIRES:
            return None
        try:
            return self.acquire_of(e), e
        except Refuse:
            return None

    def blocks(self, c, depth=0, seen=None):
        """Why the call c may block (a string), or None."""
        n = callee(c)
        if n is None:
            return "a call through a pointer may block"
        if n in HINTABLE or n in BLOCKING or n in ACQUIRES:
            return "%s blocks" % n
        if n in PURE or n in SYNC or n.startswith("__builtin"):
            return None
        f = self.funcs.get(n)
        if f is None:
            return "callee %s may block (its body is not in this file)" % n
        seen = seen or set()
        if n in seen:
            return None
        seen.add(n)
        if depth > 8:
            return "callee %s may block (calls nest too deep to follow)" % n
        for inner in calls_in(f):
            why = self.blocks(inner, depth + 1, seen)
            if why:
                return "callee %s may block (%s)" % (n, why)
        return None

    def syncs(self, c, depth=0, seen=None):
        n = callee(c)
        if n in SYNC:
            return n
        f = self.funcs.get(n) if n else None
        if f is None:
            return None
        seen = seen or set()
        if n in seen or depth > 8:
            return None
        seen.add(n)
        for inner in calls_in(f):
            s = self.syncs(inner, depth + 1, seen)
            if s:
                return "%s (in %s)" % (s, n)
        return None

    def contains_acquire(self, c):
        for k in calls_in(c):
            if callee(k) in ACQUIRES or self.wrapper(callee(k) or "") is not None:
                return k
        return None

    def contains_block(self, c):
        for k in calls_in(c):
            why = self.blocks(k)
            if why:
                return why
        return None

    # ---- the search for the next acquire
    def next_acquire(self, stmts, region):
        """Scan statements for the acquire every path reaches first.
        Returns [(acquire, stmt, parent)] (one per path), or raises
        NoAcquire / Refuse. region collects the statements passed over."""
        for s in stmts:
            a = self.acquire_stmt(s)
            if a is not None:
                return [a]
            if s.kind == K.IF_STMT:
                ch = list(s.get_children())
                cond, then = ch[0], ch[1]
                els = ch[2] if len(ch) > 2 else None
                k = self.contains_acquire(cond)
                if k is not None:
                    raise Refuse("the result of %s at line %d is used; rewrite it by hand (the _then_lock call "
                                 "returns it)" % (callee(k), k.location.line))
                self.check_plain(cond, region)
                acq_then = self.contains_acquire(then)
                acq_else = self.contains_acquire(els) if els is not None else None
                if acq_then is None and acq_else is None:
                    self.check_plain(s, region)
                    continue
                if els is None:
                    raise Refuse("only one branch of the if at line %d takes %s; the other path does not"
                                 % (s.location.line, callee(acq_then)))
                r1 = self.next_acquire(block(then), region)
                r2 = self.next_acquire(block(els), region)
                k1, k2 = r1[0][0], r2[0][0]
                if norm(k1["sem_text"]) != norm(k2["sem_text"]):
                    raise Refuse("the next semaphore depends on data: the branches of the if at line %d "
                                 "take %s and %s" % (s.location.line, k1["sem_text"], k2["sem_text"]))
                if k1["kind"] != k2["kind"] or norm(k1["timeout"]) != norm(k2["timeout"]):
                    raise Refuse("the branches of the if at line %d acquire %s differently"
                                 % (s.location.line, k1["sem_text"]))
                return r1 + r2
            if s.kind in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT):
                a = self.contains_acquire(s)
                if a is not None:
                    if s.kind == K.DO_STMT and const_int(list(s.get_children())[-1]) == 0:
                        raise Refuse("the acquire (%s) is inside a do { } while (0) (line %d, a macro's body?); "
                                     "rewrite it by hand" % (callee(a), s.location.line))
                    if s.kind == K.FOR_STMT and self.counted(s, ignore_acq=True) is not None:
                        raise Refuse("the acquire (%s) is inside a loop: it runs on every iteration, "
                                     "the hint covers only the first" % callee(a))
                    raise Refuse("the acquire (%s) is inside a loop with a variable count (line %d): "
                                 "it may run zero times" % (callee(a), s.location.line))
            if s.kind in (K.RETURN_STMT, K.BREAK_STMT, K.CONTINUE_STMT, K.GOTO_STMT):
                raise NoAcquire("a %s comes first" % s.kind.name.split("_")[0].lower())
            if s.kind in (K.LABEL_STMT, K.CASE_STMT, K.DEFAULT_STMT, K.SWITCH_STMT):
                if self.contains_acquire(s) is not None:
                    raise Refuse("the acquire is reached through a label or switch (line %d)" % s.location.line)
                if s.kind != K.SWITCH_STMT:
                    raise NoAcquire("a label comes first (line %d): other paths join there" % s.location.line)
            if self.contains_acquire(s) is not None:
                k = self.contains_acquire(s)
                raise Refuse("the result of %s at line %d is used; rewrite it by hand (the _then_lock call "
                             "returns it)" % (callee(k), k.location.line))
            self.check_plain(s, region)
        raise NoAcquire("no acquire follows in the same block")

    def check_plain(self, s, region):
        esc = escape(s)
        if esc is not None:
            self.pending = self.pending or ("a %s at line %d leaves before the acquire: that path would hold "
                                            "the semaphore, which it never took" % esc)
        for k in calls_in(s):
            why = self.blocks(k)
            if why:
                if callee(k) in HINTABLE or callee(k) in BLOCKING:
                    raise NoAcquire("%s at line %d blocks first" % (callee(k), k.location.line))
                # refused if an acquire follows; look on to know
                self.pending = self.pending or why
            sy = self.syncs(k)
            if sy:
                self.pending = self.pending or "%s at line %d synchronizes between the call and the acquire" % (
                    sy, k.location.line)
        region.append(s)

    def acquire_stmt(self, s):
        e = strip_void(s)
        if e is None:
            return None
        a = self.acquire_of(e)
        if a is None:
            return None
        return (a, s)

    def counted(self, loop, ignore_acq=False):
        """A for loop with a fixed count: (var, last-iteration condition text), or None."""
        ch = list(loop.get_children())
        if len(ch) != 4:
            return None
        init, cond, inc, body = ch
        var = None
        if init.kind == K.DECL_STMT:
            vs = list(init.get_children())
            if len(vs) == 1 and vs[0].kind == K.VAR_DECL:
                var, start = vs[0], [x for x in vs[0].get_children() if is_expr(x)]
                start = start[-1] if start else None
        elif init.kind == K.BINARY_OPERATOR and op_of(init) == "=":
            lhs, start = list(init.get_children())
            lhs = strip(lhs)
            if lhs.kind == K.DECL_REF_EXPR:
                var = lhs.referenced
        if var is None or start is None or const_int(start) is None:
            return None
        if cond.kind != K.BINARY_OPERATOR:
            return None
        l, r = list(cond.get_children())
        if strip(l).kind != K.DECL_REF_EXPR or strip(l).referenced != var:
            return None
        bound = const_int(r)
        op = op_of(cond)
        if bound is None or op not in ("<", "<=", "!="):
            return None
        first, last = const_int(start), bound - 1 if op in ("<", "!=") else bound
        if last < first:
            return None
        if inc.kind == K.UNARY_OPERATOR and op_of(inc) in ("++",):
            pass
        elif inc.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and op_of(inc) == "+=" and \
                const_int(list(inc.get_children())[1]) == 1:
            pass
        else:
            return None
        if writes_var(body, var):
            return None
        for k in walk(body):
            if k.kind in (K.BREAK_STMT, K.RETURN_STMT, K.GOTO_STMT, K.CONTINUE_STMT, K.LABEL_STMT):
                return None
        rtext = self.src.text(r.extent.start.offset, r.extent.end.offset)
        if op in ("<", "!="):
            rt = rtext if re.match(r"^\w+$", rtext) else "(%s)" % rtext
            cond_text = "%s == %s - 1" % (var.spelling, rt)
        else:
            cond_text = "%s == %s" % (var.spelling, rtext)
        return var, cond_text

    # ---- the driver
    def run(self):
        for f in self.funcs.values():
            if not self.src.in_main(f):
                continue
            self.seen = set()
            self.where = {}  # hintable call -> (statements of its block, index of its statement)
            try:
                self.visit_blocks(f, [])
                for k in calls_in(f):
                    if callee(k) in HINTABLE and k.hash not in self.seen:
                        self.inside_expression(k)
            except Exception as ex:  # a construct this parser does not know: say where, go on
                self.failed.append("%s: %s: %s: %s" % (self.src.shown, f.spelling, type(ex).__name__, ex))
        self.findings.sort(key=lambda x: x["line"])

    def visit_blocks(self, c, parents):
        if c.kind == K.COMPOUND_STMT:
            kids = list(c.get_children())
            for i, s in enumerate(kids):
                while s.kind in (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT) and list(s.get_children()):
                    s = list(s.get_children())[-1]  # `case X: stmt`: the statement, then the siblings
                if s.hash != kids[i].hash:
                    self.consider(kids[:i] + [s] + kids[i + 1:], i, parents + [c])
                else:
                    self.consider(kids, i, parents + [c])
        elif c.kind in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT):
            ch = list(c.get_children())
            body = ch[0] if c.kind == K.DO_STMT else ch[-1]
            if body.kind != K.COMPOUND_STMT:
                self.consider([body], 0, parents + [c, body])
        for ch in c.get_children():
            self.visit_blocks(ch, parents + [c])

    def statement_call(self, s):
        """The hintable call of statement s and how its result is used."""
        e = strip_void(s)
        if e is not None and e.kind == K.CALL_EXPR and callee(e) in HINTABLE:
            return e, "stmt", None
        if s.kind == K.BINARY_OPERATOR and op_of(s) == "=":
            lhs, rhs = list(s.get_children())
            r = strip(rhs)
            if r.kind == K.CALL_EXPR and callee(r) in HINTABLE:
                return r, "assign", lhs
        if s.kind == K.DECL_STMT:
            vs = list(s.get_children())
            if len(vs) == 1 and vs[0].kind == K.VAR_DECL:
                init = [x for x in vs[0].get_children() if is_expr(x)]
                if init:
                    r = strip(init[-1])
                    if r.kind == K.CALL_EXPR and callee(r) in HINTABLE:
                        return r, "decl", vs[0]
        return None, None, None

    def inside_expression(self, k):
        """A hintable call inside an expression: refused when an acquire comes
        next (in the same statement or after it), else nothing to hint."""
        try:
            self.inside_expression_(k)
        except Refuse as ex:
            self.report(k, None, "refused", str(ex))

    def inside_expression_(self, k):
        kids, i = self.where.get(k.hash, (None, None))
        why = "the call is part of an expression or a block-less branch; rewrite it by hand"
        if kids is None:
            self.report(k, None, "refused", why)
            return
        a = self.contains_acquire(kids[i])
        if a is not None:
            self.report(k, None, "refused", why + " (the statement also calls %s, line %d)"
                        % (callee(a), a.location.line))
            return
        self.pending = None
        try:
            found = self.next_acquire(kids[i + 1:], [])
            self.report(k, {"sem_text": found[0][0]["sem_text"]}, "refused", why)
        except Refuse as ex:
            self.report(k, {"sem_text": ex.sem} if ex.sem else None, "refused", str(ex))
        except NoAcquire as ex:
            self.report(k, None, "none", str(ex))

    def or_idiom(self, s):
        """`if (wait(..) != MCX_SEM_OK || acquire(..) != MCX_SEM_OK) failure;`:
        (wait call, acquire, the condition) or None."""
        if s.kind != K.IF_STMT:
            return None
        cond = strip(list(s.get_children())[0])
        if cond.kind != K.BINARY_OPERATOR or op_of(cond) != "||":
            return None
        l, r = [strip(x) for x in cond.get_children()]
        sides = []
        for x in (l, r):
            if x.kind != K.BINARY_OPERATOR or op_of(x) != "!=":
                return None
            c, ok = [strip(y) for y in x.get_children()]
            if c.kind != K.CALL_EXPR or ok.kind != K.DECL_REF_EXPR or ok.spelling != "MCX_SEM_OK":
                return None
            sides.append(c)
        if callee(sides[0]) not in HINTABLE or HINTABLE[callee(sides[0])]["shape"] != "ev":
            return None
        try:
            a = self.acquire_of(sides[1])
        except Refuse:
            return None
        if a is None:
            return None
        return sides[0], a, cond

    def consider(self, kids, i, parents):
        s = kids[i]
        for k in calls_in(s):
            if callee(k) in HINTABLE:
                self.where.setdefault(k.hash, (kids, i))
        idiom = self.or_idiom(s)
        if idiom is not None:
            call, acq, cond = idiom
            self.seen.add(call.hash)
            try:
                self.check_pair(call, acq, s, [], None, "expr", None)
                args, (a, b), _ = self.call_texts(call)
                info = HINTABLE[callee(call)]
                new = info[acq["kind"]]
                text = "%s(%s) != MCX_SEM_OK" % (new, ", ".join([args[0], acq["sem_text"]] + args[1:]))
                self.edits.append((cond.extent.start.offset, cond.extent.end.offset, text))
                self.report(call, acq, "hint", "%s; removes the acquire at line %d (in the same condition)"
                            % (new, acq["call"].location.line))
            except Refuse as ex:
                self.report(call, {"sem_text": ex.sem} if ex.sem else None, "refused", str(ex))
            return
        call, use, target = self.statement_call(s)
        if call is None:
            return
        name = callee(call)
        self.seen.add(call.hash)
        region = []
        loop = None
        self.pending = None
        try:
            try:
                found = self.next_acquire(kids[i + 1:], region)
            except NoAcquire as ex:
                # end of a loop body: the fixed-count case
                if str(ex) != "no acquire follows in the same block" or len(parents) < 2:
                    raise
                rest = kids[i + 1:]
                loop_stmt = parents[-2]
                if loop_stmt.kind not in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT):
                    raise
                if self.contains_acquire(loop_stmt) is not None:
                    raise
                outer = parents[-3] if len(parents) >= 3 else None
                if outer is None or outer.kind != K.COMPOUND_STMT:
                    raise
                okids = list(outer.get_children())
                j = [k.hash for k in okids].index(loop_stmt.hash)
                lregion = []
                try:
                    found = self.next_acquire(okids[j + 1:], lregion)
                except NoAcquire:
                    raise ex
                counted = self.counted(loop_stmt) if loop_stmt.kind == K.FOR_STMT else None
                if counted is None:
                    raise Refuse("%s is in a loop with a variable count (line %d): which iteration is the "
                                 "last is not known" % (name, loop_stmt.location.line))
                if any(self.contains_block(k) for k in rest):
                    raise NoAcquire("a blocking call follows in the loop body")
                loop = (loop_stmt, counted)
                region += rest + lregion
            acq = found[0][0]
            if self.pending:
                raise Refuse(self.pending, acq["sem_text"])
            self.check_pair(call, acq, s, region, loop, use, target)
            try:
                self.rewrite(call, use, target, s, found, loop)
            except Refuse as ex:
                raise Refuse(str(ex), acq["sem_text"])
        except Refuse as ex:
            self.report(call, {"sem_text": ex.sem} if ex.sem else None, "refused", str(ex))
        except NoAcquire as ex:
            self.report(call, None, "none", str(ex))

    def check_pair(self, call, acq, stmt, region, loop, use, target):
        try:
            self.check_pair_(call, acq, stmt, region, loop, use, target)
        except Refuse as ex:
            raise Refuse(str(ex), ex.sem or acq["sem_text"])

    def check_pair_(self, call, acq, stmt, region, loop, use, target):
        name = callee(call)
        kind = acq["kind"]
        info = HINTABLE[name]
        if kind.startswith("mrapi"):
            raise Refuse("%s is an %s: libmca has no _then_lock form for it" % (acq["sem_text"], kind))
        if info[kind] is None:
            raise Refuse("%s takes a counting semaphore next; %s has no form that acquires one"
                         % (acq["sem_text"], name))
        args, _, _ = self.call_texts(call)
        if info["shape"] == "ev":
            t_wait, t_acq = norm(args[info["timeout"]]), norm(acq["timeout"])
            if not (t_wait == t_acq or (INFINITE.match(t_wait) and INFINITE.match(t_acq))):
                raise Refuse("the wait has timeout %s, the acquire %s: the _then_lock form bounds both "
                             "by one" % (args[info["timeout"]], acq["timeout"]))
        elif not INFINITE.match(norm(acq["timeout"])):
            raise Refuse("the acquire has its own timeout (%s); the receive's _then_lock form has none "
                         "(the endpoint's TIMEOUT bounds it)" % acq["timeout"])
        # the semaphore must be the same at the call as at the acquire
        sem = acq["sem"]
        for k in walk(sem):
            if k.kind == K.CALL_EXPR:
                raise Refuse("the next semaphore depends on data: it is chosen by a call (%s)" % callee(k))
        vars_ = list(values_read(sem))
        scope = list(region) + [call]
        if loop is not None:
            scope.append(loop[0])
        if use == "decl":
            scope.append(stmt)
        for v in vars_:
            for r in scope:
                if declares(r, v):
                    raise Refuse("the next semaphore depends on data: %s is declared after the call" % v.spelling)
                if writes_var(r, v):
                    raise Refuse("the next semaphore depends on data: %s changes between the call and the acquire"
                                 % v.spelling)
            if v.kind == K.VAR_DECL and v.semantic_parent is not None and \
                    v.semantic_parent.kind == K.TRANSLATION_UNIT and v.location.offset > call.extent.start.offset \
                    and self.src.in_main(v):
                raise Refuse("%s is declared after the call" % v.spelling)
        if use in ("assign", "decl") and info["shape"] == "val":
            want = call.type.get_canonical().spelling
            have = (target.type if use == "assign" else target.type).get_canonical().spelling
            if want != have:
                raise Refuse("the received value is converted (%s to %s); the _then_lock form writes "
                             "the received type" % (want, have))

    # ---- rewriting
    def rewrite(self, call, use, target, stmt, found, loop):
        name = callee(call)
        acq = found[0][0]
        info = HINTABLE[name]
        new = info[acq["kind"]]
        args, (s, e), _ = self.call_texts(call)
        sem = acq["sem_text"]
        if loop is not None:
            none = "MCX_NO_SEM" if acq["kind"] == "pisem" else "NULL"
            sem = "(%s) ? %s : %s" % (loop[1][1], sem, none)
        if info["shape"] == "ev":
            nargs = [args[0], sem] + args[1:]
        elif info["shape"] == "out":
            nargs = args[:-1] + [sem, args[-1]]
        else:
            if use == "stmt":
                raise Refuse("the received value is discarded; the _then_lock form needs a place for it")
            if use == "assign":
                lhs = self.src.text(target.extent.start.offset, target.extent.end.offset)
                dest = "&" + lhs if strip(target).kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) else "&(%s)" % lhs
            else:
                dest = "&" + target.spelling
            nargs = [args[0], dest, sem, args[1]]
        text = "%s(%s)" % (new, ", ".join(nargs))
        edits = []
        if info["shape"] != "val":
            edits.append((s, e, text))
        elif use == "decl":
            # T v = f(h, st);  ->  T v;  f_then_lock(h, &v, S, st);  (on its own line)
            init = [x for x in target.get_children() if is_expr(x)][-1]
            a = self.src.data.rfind(b"=", 0, init.extent.start.offset)
            semi = self.src.data.find(b";", init.extent.end.offset)
            while a > 0 and self.src.data[a - 1:a] in (b" ", b"\t"):
                a -= 1
            ls = self.src.data.rfind(b"\n", 0, stmt.extent.start.offset) + 1
            indent = re.match(rb"[ \t]*", self.src.data[ls:]).group(0).decode()
            edits.append((a, semi + 1, ";\n" + indent + text + ";"))
        else:
            edits.append((stmt.extent.start.offset, stmt.extent.end.offset, text))
        for a, st in found:
            edits.append(self.deletion(a["call"], st))
        acq_lines = sorted(a["call"].location.line for a, _ in found)
        what = "%s%s" % (new, " on the last iteration (%s)" % loop[1][1] if loop else "")
        self.report(call, acq, "hint", "%s; removes the acquire at line%s %s" %
                    (what, "s" if len(acq_lines) > 1 else "", ", ".join(map(str, acq_lines))))
        self.edits.extend(edits)

    def deletion(self, acall, st):
        """Remove an acquire statement: its whole line if nothing else is on it."""
        d = self.src.data
        a = st.extent.start.offset
        b = st.extent.end.offset
        semi = b
        while semi < len(d) and d[semi:semi + 1] in (b" ", b"\t"):
            semi += 1
        if d[semi:semi + 1] == b";":
            b = semi + 1
        ls = d.rfind(b"\n", 0, a) + 1
        le = d.find(b"\n", b)
        le = len(d) if le < 0 else le
        if d[ls:a].strip() == b"" and d[b:le].strip() == b"":
            return (ls, le + 1, "")
        return (a, b, "")

    def report(self, call, acq, verdict, why):
        try:
            args, _, _ = self.call_texts(call)
            shown = "%s(%s)" % (callee(call), ", ".join(args))
        except Refuse:
            a, b = spelling_offsets(call.extent)
            t = self.src.text(a, b) if 0 <= a < b <= len(self.src.data) else ""
            shown = t if t.startswith(callee(call)) and "\n" not in t else callee(call) + "(...)"
        self.findings.append({
            "file": self.src.shown, "line": call.location.line, "call": shown,
            "semaphore": acq["sem_text"] if acq else None, "verdict": verdict, "why": why})

    def rewritten(self):
        edits = sorted(set(self.edits), key=lambda x: x[0])
        out, pos = [], 0
        for a, b, t in edits:
            if a < pos:
                raise Refuse("overlapping rewrites at offset %d" % a)
            out.append(self.src.data[pos:a])
            out.append(t.encode())
            pos = b
        out.append(self.src.data[pos:])
        return b"".join(out)


# ------------------------------------------------------------ cursors

def is_expr(c):
    return c.kind.is_expression()


def strip_void(s):
    """The call of an expression statement (also under a (void) cast)."""
    e = strip(s)
    if e is not None and e.kind == K.CSTYLE_CAST_EXPR and e.type.kind == ci.TypeKind.VOID:
        e = strip(list(e.get_children())[-1])
    if e is not None and e.kind == K.CALL_EXPR:
        return e
    return None


def escape(c, in_loop=False, in_switch=False):
    """A jump in c that leaves c (return, goto, or a break / continue not
    caught by a loop or switch inside c): (kind, line) or None."""
    if c.kind in (K.RETURN_STMT, K.GOTO_STMT, K.INDIRECT_GOTO_STMT):
        return c.kind.name.split("_")[0].lower(), c.location.line
    if c.kind == K.BREAK_STMT and not (in_loop or in_switch):
        return "break", c.location.line
    if c.kind == K.CONTINUE_STMT and not in_loop:
        return "continue", c.location.line
    loop = in_loop or c.kind in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT)
    sw = in_switch or c.kind == K.SWITCH_STMT
    for ch in c.get_children():
        e = escape(ch, loop, sw)
        if e is not None:
            return e
    return None


def block(c):
    return list(c.get_children()) if c.kind == K.COMPOUND_STMT else [c]


def walk(c):
    yield c
    for ch in c.get_children():
        yield from walk(ch)


def decl_refs(c):
    for k in walk(c):
        if k.kind == K.DECL_REF_EXPR and k.referenced is not None and \
                k.referenced.kind in (K.VAR_DECL, K.PARM_DECL):
            yield k.referenced


def op_of(c):
    """The operator of a binary, compound-assignment or unary operator cursor."""
    toks = list(c.get_tokens())
    if not toks:
        return None
    if c.kind == K.UNARY_OPERATOR:
        for t in (toks[0], toks[-1]):
            if t.spelling in ("++", "--", "&", "*", "-", "!", "~", "+"):
                return t.spelling
        return None
    ch = list(c.get_children())
    if not ch:
        return None
    end = ch[0].extent.end.offset
    for t in toks:
        if t.extent.start.offset >= end:
            return t.spelling
    return None


def values_read(c):
    """Variables whose values an expression reads: in `&x.s` or `&arr[2]` only
    the address of x / arr is taken, which no assignment changes; in
    `&arr[k]`, `p->s` or `s` the values of k, p and s count."""
    c = strip(c)
    if c is None:
        return
    if c.kind == K.UNARY_OPERATOR and op_of(c) == "&":
        yield from lvalue_reads(list(c.get_children())[0])
        return
    if c.kind == K.DECL_REF_EXPR:
        if c.referenced is not None and c.referenced.kind in (K.VAR_DECL, K.PARM_DECL):
            yield c.referenced
        return
    for ch in c.get_children():
        yield from values_read(ch)


def lvalue_reads(c):
    c = strip(c)
    if c is None or c.kind == K.DECL_REF_EXPR:
        return
    if c.kind == K.MEMBER_REF_EXPR:
        base = list(c.get_children())
        if base and base[0].type.get_canonical().kind == ci.TypeKind.POINTER:
            yield from values_read(base[0])  # p->s reads p
        elif base:
            yield from lvalue_reads(base[0])
        return
    if c.kind == K.ARRAY_SUBSCRIPT_EXPR:
        b, i = list(c.get_children())
        if b.type.get_canonical().kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY):
            yield from lvalue_reads(b)
        else:
            yield from values_read(b)
        yield from values_read(i)
        return
    yield from values_read(c)


def root_var(c):
    c = strip(c)
    while c is not None and c.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR, K.UNARY_OPERATOR,
                                       K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR):
        ch = list(c.get_children())
        if not ch:
            return None
        c = strip(ch[0]) if c.kind != K.CSTYLE_CAST_EXPR else strip(ch[-1])
    if c is not None and c.kind == K.DECL_REF_EXPR:
        return c.referenced
    return None


def writes_var(c, v):
    for k in walk(c):
        if k.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            op = op_of(k)
            if k.kind == K.COMPOUND_ASSIGNMENT_OPERATOR or op == "=":
                if root_var(list(k.get_children())[0]) == v:
                    return True
        elif k.kind == K.UNARY_OPERATOR:
            op = op_of(k)
            ch = list(k.get_children())
            if op in ("++", "--") and ch and root_var(ch[0]) == v:
                return True
            if op == "&" and ch and root_var(ch[0]) == v and \
                    ch[0].type.get_canonical().spelling not in ("mcx_pisem_t", "struct mcx_pisem",
                                                               "mcx_csem_t", "struct mcx_csem"):
                # its address escapes (a call may write it); a semaphore's own address does not
                # change which semaphore it is
                return True
        elif k.kind == K.VAR_DECL and k == v:
            return True
    return False


def declares(c, v):
    for k in walk(c):
        if k.kind == K.VAR_DECL and k == v:
            return True
    return False


def const_int(c):
    """Value of an integer constant expression (literals, enums, macros, + - *), else None."""
    c = strip(c)
    if c is None:
        return None
    if c.kind == K.INTEGER_LITERAL:
        toks = [t.spelling for t in c.get_tokens()]
        if len(toks) == 1:
            try:
                return int(toks[0].rstrip("uUlL"), 0)
            except ValueError:
                pass
        r = ci.conf.lib.clang_Cursor_Evaluate(c)
        if r:
            try:
                return ci.conf.lib.clang_EvalResult_getAsInt(r)
            finally:
                ci.conf.lib.clang_EvalResult_dispose(r)
        return None
    if c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.kind == K.ENUM_CONSTANT_DECL:
        return c.referenced.enum_value
    if c.kind == K.BINARY_OPERATOR:
        l, r = [const_int(x) for x in c.get_children()]
        op = op_of(c)
        if l is None or r is None:
            return None
        return {"+": l + r, "-": l - r, "*": l * r}.get(op)
    return None


def norm(t):
    return re.sub(r"\s+", "", t)


def join_tokens(toks, subst):
    out = ""
    prev = ""
    for t in toks:
        t = subst.get(t, t)
        if out and (re.match(r"\w", t[:1]) and re.match(r"\w", prev[-1:])):
            out += " "
        elif t == "," or prev == ",":
            out += " " if prev == "," else ""
        out += t
        prev = t
    return out


# ------------------------------------------------------------- the commands

def setup_libclang():
    import_libclang()
    if ci is None:
        return "libclang's Python binding not found (install python3-clang; scripts/deps.sh does)"
    try:
        ci.Index.create()
    except Exception:
        for name in ("libclang.so", "libclang-14.so.1", "libclang.so.1"):
            for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/llvm-14/lib", "/usr/lib"):
                p = os.path.join(d, name)
                if os.path.exists(p):
                    try:
                        ci.Config.set_library_file(p)
                        ci.Index.create()
                        break
                    except Exception:
                        continue
            else:
                continue
            break
        else:
            return "libclang (the shared library) not found (install libclang-dev)"
    try:  # the evaluation API is not wrapped by every binding version
        ci.conf.lib.clang_Cursor_Evaluate.restype = ci.c_void_p
        ci.conf.lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
        ci.conf.lib.clang_EvalResult_getAsInt.restype = ci.c_int
        ci.conf.lib.clang_EvalResult_getAsInt.argtypes = [ci.c_void_p]
        ci.conf.lib.clang_EvalResult_dispose.argtypes = [ci.c_void_p]
    except AttributeError:
        pass
    return None


def compile_args(path, flags, ccdb):
    """Flags for one file: from after `--`, else from compile_commands.json."""
    if flags is not None:
        return flags, None
    dirs = []
    if ccdb:
        dirs.append(os.path.dirname(ccdb) if ccdb.endswith(".json") else ccdb)
    else:
        d = os.path.dirname(os.path.abspath(path))
        while True:
            dirs.append(d)
            dirs.append(os.path.join(d, "build"))
            nd = os.path.dirname(d)
            if nd == d:
                break
            d = nd
    for d in dirs:
        f = os.path.join(d, "compile_commands.json")
        if not os.path.exists(f):
            continue
        with open(f) as fh:
            db = json.load(fh)
        ap = os.path.realpath(path)
        for e in db:
            ef = os.path.realpath(os.path.join(e.get("directory", d), e["file"]))
            if ef != ap:
                continue
            argv = e.get("arguments") or shlex_split(e["command"])
            out, skip = [], False
            for a in argv[1:]:
                if skip:
                    skip = False
                    continue
                if a in ("-o", "-MF", "-MT", "-MQ"):
                    skip = True
                    continue
                if a in ("-c", "-MD", "-MMD") or os.path.realpath(os.path.join(e.get("directory", d), a)) == ap:
                    continue
                out.append(a)
            return out, e.get("directory", d)
        if ccdb:
            break
    print("mca hint: %s: no compile command found (give flags after `--` or -p); parsing without flags"
          % path, file=sys.stderr)
    return [], None


def shlex_split(s):
    import shlex
    return shlex.split(s)


def analyze(shown, args, workdir):
    path = os.path.abspath(shown)
    index = ci.Index.create()
    cargs = list(args)
    if workdir:
        cargs.append("-working-directory=" + workdir)
    tu = index.parse(path, args=cargs,
                     options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    # formatted while the translation unit is alive
    errors = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        return None, errors
    an = Analyzer(Source(path, tu, shown))
    an.run()
    return an, []


def line_of(f):
    if f["verdict"] == "hint":
        v = "hint: " + f["why"]
    elif f["verdict"] == "refused":
        v = "refused: " + f["why"]
    else:
        v = "no hint: " + f["why"]
    return "%s:%d: %s -> %s: %s" % (f["file"], f["line"], f["call"], f["semaphore"] or "-", v)


def main(argv):
    if "--" in argv:
        i = argv.index("--")
        argv, flags = argv[:i], argv[i + 1:]
    else:
        flags = None
    ap = mca_cli.Parser(
        "hint",
        usage="mca hint [--apply [--output-dir DIR]] [--diff] [--json FILE] [-p PATH] FILE.c... "
              "[-- COMPILER-FLAGS]",
        description="Finds blocking calls followed by a semaphore acquire and rewrites them into "
                    "their _then_lock forms (the next-semaphore hint, docs/sem.md).",
        epilog="Compiler flags come after `--`, or from compile_commands.json (-p, or found "
               "beside a file, in a parent directory or its build/). Needs python3 with libclang's "
               "binding (python3-clang; scripts/deps.sh). Exit status: 0 done, 1 a file was not "
               "analyzed or not rewritten, 2 usage error, 3 no libclang.")
    ap.add_argument("files", nargs="+", metavar="FILE.c")
    ap.add_argument("--apply", action="store_true", help="rewrite the files (in place, or into --output-dir)")
    ap.add_argument("--diff", action="store_true", help="print the rewrite as a unified diff (report on stderr)")
    ap.add_argument("--output-dir", "-o", metavar="DIR", help="with --apply: write rewritten files here")
    ap.add_argument("-p", dest="ccdb", metavar="PATH", help="compile_commands.json or its directory")
    ap.add_argument("--json", metavar="FILE", help="also write the findings as JSON ('-': to standard output, "
                                                   "the report then on standard error)")
    opt = ap.parse_args(argv)
    to_stdout = opt.json == "-"
    if opt.json and not to_stdout:
        d = os.path.dirname(os.path.abspath(opt.json))
        if not os.path.isdir(d) or not os.access(d, os.W_OK):
            mca_cli.die("hint", "--json %s: directory %s does not exist or is not writable" % (opt.json, d))
    # libclang may change the process's directory (-working-directory): fix every path first
    if opt.output_dir:
        opt.output_dir = os.path.abspath(opt.output_dir)
    if opt.json and not to_stdout:
        opt.json = os.path.abspath(opt.json)
    if opt.ccdb:
        opt.ccdb = os.path.abspath(opt.ccdb)
    base = os.getcwd()
    err = setup_libclang()
    if err:
        print("mca hint: " + err, file=sys.stderr)
        return 3
    rc = 0
    allf = []
    rep = sys.stderr if opt.diff or to_stdout else sys.stdout
    for path in opt.files:
        os.chdir(base)
        if not os.path.exists(path):
            print("mca hint: %s: no such file" % path, file=sys.stderr)
            rc = 1
            continue
        args, wd = compile_args(path, flags, opt.ccdb)
        an, errors = analyze(path, args, wd)
        if an is None:
            for d in errors[:5]:
                print("mca hint: %s" % d, file=sys.stderr)
            print("mca hint: %s: does not compile with the given flags; skipped" % path, file=sys.stderr)
            rc = 1
            continue
        for f in an.findings:
            print(line_of(f), file=rep)
        allf += an.findings
        for msg in an.failed:
            print("mca hint: internal error in %s (function skipped)" % msg, file=sys.stderr)
            rc = 1
        if not an.edits:
            continue
        try:
            new = an.rewritten()
        except Refuse as ex:
            print("mca hint: %s: %s; not rewritten" % (path, ex), file=sys.stderr)
            rc = 1
            continue
        if opt.diff:
            old = an.src.data.decode("utf-8", "replace").splitlines(True)
            nl = new.decode("utf-8", "replace").splitlines(True)
            sys.stdout.writelines(difflib.unified_diff(old, nl, "a/" + path, "b/" + path))
        if opt.apply:
            dest = os.path.join(base, path)
            if opt.output_dir:
                os.makedirs(opt.output_dir, exist_ok=True)
                dest = os.path.join(opt.output_dir, os.path.basename(path))
            with open(dest, "wb") as fh:
                fh.write(new)
    n = sum(f["verdict"] == "hint" for f in allf)
    print("mca hint: %d call%s hinted, %d refused, %d without a next semaphore%s" % (
        n, "" if n == 1 else "s", sum(f["verdict"] == "refused" for f in allf),
        sum(f["verdict"] == "none" for f in allf),
        " (rewritten)" if opt.apply and n else ""), file=rep)
    if opt.json:
        # the envelope members (docs/json.md) that `mca hint` passes in $MCA_JSON_ENVELOPE
        try:
            env = json.loads(os.environ.get("MCA_JSON_ENVELOPE") or "{}")
        except ValueError:
            env = {}
        doc = {"schema": "mca-hint/1",
               "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               **{k: env[k] for k in ("command", "machine", "build") if isinstance(env, dict) and k in env},
               "findings": allf}
        if to_stdout:
            json.dump(doc, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            with open(opt.json, "w") as fh:
                json.dump(doc, fh, indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
