# SPDX-License-Identifier: BSD-3-Clause
"""The mca command's grammar for its Python helpers (report, model, hint,
bench --instr), as tools/mca/cli.c has it for the C subcommands: options in
any order, `--opt VALUE` or `--opt=VALUE`, no abbreviations, and every usage
error one line `mca SUB: message` on standard error with exit 2, found before
any work or heavy import (README, "The mca command").

Installed and built, this file sits beside the helpers; in the sources the
helpers find it in tools/mca.
"""
import argparse
import json
import re
import sys

USAGE = 2  # exit status of a usage error, as every mca subcommand; an input that cannot be used is one


# No mca result nests deeper than this; a deeper input is not one (and would
# exhaust Python's recursion on the way through json and the renderers).
MAX_DEPTH = 64
NUM = "number"  # a shape leaf: an int or float, not a bool


class InputError(Exception):
    """An input that cannot be used: unreadable, not JSON, nested too deeply, a member missing or of the
    wrong type, nothing to show. Like a bad option, a usage error (exit 2)."""


def die(cmd, message, code=USAGE):
    """`mca CMD: message` on standard error, then exit with @p code."""
    print(f"mca {cmd}: {message}", file=sys.stderr)
    sys.exit(code)


class Parser(argparse.ArgumentParser):
    """argparse speaking the mca grammar for subcommand @p cmd ("report")."""

    def __init__(self, cmd, **kw):
        kw.setdefault("prog", "mca " + cmd)
        super().__init__(allow_abbrev=False, **kw)
        self.cmd = cmd

    def error(self, message):
        m = re.fullmatch(r"argument (\S+): expected one argument", message)
        if m:
            message = f"{m.group(1).split('/')[-1]} needs a value (mca {self.cmd} --help)"
        elif message.startswith("the following arguments are required: "):
            message = f"expected {message.split(': ', 1)[1]} (mca {self.cmd} --help)"
        elif message.startswith("unrecognized arguments: "):
            message = f"unexpected argument '{message.split(': ', 1)[1].split()[0]}'"
        else:
            message = re.sub(r"^argument (\S+?)(/\S+)?: ", lambda g: (g.group(2) or "/" + g.group(1))[1:] + ": ",
                             message)
        die(self.cmd, message)

    def _takes_value(self, name):
        a = self._option_string_actions.get(name)
        return a is not None and a.nargs != 0

    def unknown_options(self, args):
        """Names the first option that is not this command's, before anything else is judged."""
        skip = False
        for arg in args:
            if skip:
                skip = False
                continue
            if arg == "--":
                return
            if not arg.startswith("-") or arg == "-" or self._negative_number_matcher.match(arg):
                continue
            name = arg.split("=", 1)[0] if arg.startswith("--") else arg[:2]
            if name not in self._option_string_actions:
                die(self.cmd, f"unknown option '{arg}' (mca {self.cmd} --help lists the options)")
            skip = self._takes_value(name) and arg == name

    def parse_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else list(args)
        self.unknown_options(args)
        return super().parse_args(args, namespace)


def whole(lo):
    """An argparse type: a whole number >= lo, strictly (no '3x', no '-5')."""
    def conv(v):
        if not re.fullmatch(r"[0-9]+", v) or int(v) < lo:
            raise argparse.ArgumentTypeError("expected a whole number >= %d, got '%s'" % (lo, v))
        return int(v)
    return conv


def _depth_ok(v):
    """True when @p v nests at most MAX_DEPTH levels (iterative: no recursion to exhaust)."""
    todo = [(v, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, (dict, list)):
            if d > MAX_DEPTH:
                return False
            todo.extend((y, d + 1) for y in (x.values() if isinstance(x, dict) else x))
    return True


def load_json(path, what="result"):
    """The JSON document at @p path ('-': standard input); InputError when it cannot be read as JSON."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise InputError(f"cannot read {what} {path}: {e.strerror or e}")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not a mca {what}: not UTF-8 text")
    try:
        d = json.loads(text)
    except RecursionError:
        raise InputError(f"{path} is not a mca {what}: nested deeper than {MAX_DEPTH} levels")
    except ValueError as e:
        raise InputError(f"{path} is not a mca {what}: not valid JSON ({e})")
    if not _depth_ok(d):
        raise InputError(f"{path} is not a mca {what}: nested deeper than {MAX_DEPTH} levels")
    return d


def _kind(v):
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(v), "a number")


def _leaf_ok(v, t):
    if t is NUM:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return v is None if t is None else isinstance(v, t)


def _shape_name(t):
    if isinstance(t, dict) or t is dict:
        return "an object"
    if isinstance(t, list) or t is list:
        return "a list"
    return "a number" if t is NUM else "null" if t is None else _kind(t())


def check_shape(v, shape, path):
    """Raises InputError "PATH: MEMBER ..." naming the first member of @p v (read from file @p path) that
    does not have @p shape: a dict maps member names to shapes ("name?": optional, null allowed; "*":
    every other member), a one-element list is a list of that shape, a tuple is one of the shapes in it,
    a leaf is a type, NUM or None."""
    try:
        _check(v, shape, "")
    except InputError as e:
        raise InputError(f"{path}: {e}")


def _check(v, shape, at):
    what = at or "the top level"
    if isinstance(shape, tuple):
        for alt in shape:
            # the alternative of v's own container kind says best what is wrong inside it
            if isinstance(alt, (dict, list)) and isinstance(v, type(alt)):
                return _check(v, alt, at)
        if not any(_leaf_ok(v, t) for t in shape if not isinstance(t, (dict, list))):
            raise InputError(f"{what} must be {' or '.join(_shape_name(t) for t in shape)}, got {_kind(v)}")
    elif isinstance(shape, dict):
        if not isinstance(v, dict):
            raise InputError(f"{what} must be an object, got {_kind(v)}")
        for k, s in shape.items():
            if k == "*":
                continue
            name = k.rstrip("?")
            member = f"{at}.{name}" if at else name
            if name not in v or (k.endswith("?") and v[name] is None):
                if k.endswith("?"):
                    continue
                raise InputError(f"member {member!r} is missing")
            _check(v[name], s, member)
        if "*" in shape:
            for k, x in v.items():
                if k not in shape and k + "?" not in shape:
                    _check(x, shape["*"], f"{at}.{k}" if at else k)
    elif isinstance(shape, list):
        if not isinstance(v, list):
            raise InputError(f"{what} must be a list, got {_kind(v)}")
        for i, x in enumerate(v):
            _check(x, shape[0], f"{at}[{i}]")
    elif not _leaf_ok(v, shape):
        raise InputError(f"{what} must be {_shape_name(shape)}, got {_kind(v)}")
