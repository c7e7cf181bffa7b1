# SPDX-License-Identifier: BSD-3-Clause
"""The reference section of docs/python.md, from the package's docstrings.

    python3 -m mcapi._apidoc docs/python.md     rewrites its "## Reference" section
    python3 -m mcapi._apidoc                    prints the section

tests/python/test_docs_python.py checks that the file's section is this text.
"""
from __future__ import annotations

import inspect
import sys
from typing import Any, List

import mcapi
from mcapi import mrapi

HEAD = "## Reference"


def _first(doc: Any) -> str:
    if not doc:
        return ""
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())


def _cls(prefix: str, c: type) -> List[str]:
    out = [f"- **`{prefix}{c.__name__}`**: {_first(c.__doc__)}"]
    for name, m in sorted(vars(c).items()):
        if name.startswith("_"):
            continue
        if isinstance(m, property):
            out.append(f"  - `{name}` (property): {_first(m.__doc__)}")
        elif inspect.isfunction(m):
            sig = str(inspect.signature(m)).replace("(self, ", "(").replace("(self)", "()")
            out.append(f"  - `{name}{sig.replace(chr(39), '')}`: {_first(m.__doc__)}")
    return out


def reference() -> str:
    """The section's text."""
    lines = [HEAD, "",
             "Generated from the docstrings by `python3 -m mcapi._apidoc docs/python.md` "
             "(`help(mcapi)`, `help(mcapi.mrapi)` show the same).", "", "### `mcapi`", ""]
    for n in ("Node", "Endpoint", "Request", "PktSender", "PktReceiver", "Packet", "SclSender",
              "SclReceiver", "StateChannel", "Info"):
        lines += _cls("mcapi.", getattr(mcapi, n))
    lines += [f"- `mcapi.set_read_retries(retries)`: {_first(mcapi.set_read_retries.__doc__)}",
              f"- `mcapi.status_name(status)`: {_first(mcapi.status_name.__doc__)}",
              "- `mcapi.PORT_ANY`, `mcapi.STATUS` (name to code), `mcapi.MODE` (`\"api\"` or `\"abi\"`)",
              "- Exceptions: `mcapi.Error` and its subclasses "
              + ", ".join(f"`{n}`" for n in mcapi.__all__ if n not in ("Error",) and
                          isinstance(getattr(mcapi, n), type) and issubclass(getattr(mcapi, n), mcapi.Error))
              + ".", "", "### `mcapi.mrapi`", ""]
    for n in ("Node", "Mutex", "Semaphore", "RWLock", "SharedMemory"):
        lines += _cls("mrapi.", getattr(mrapi, n))
    lines += [f"- `mrapi.status_name(status)`: {_first(mrapi.status_name.__doc__)}",
              f"- `mrapi.error(status, call=None)`: {_first(mrapi.error.__doc__)}",
              "- `mrapi.READER`, `mrapi.WRITER`, `mrapi.ID_ANY`, `mrapi.STATUS`, `mrapi.STATUS_NAMES`, "
              "`mrapi.ERRORS`",
              "- Exceptions: `mrapi.MrapiError` and one subclass per status: "
              + ", ".join(f"`{c.__name__}`" for c in mrapi.ERRORS.values()) + ".", ""]
    return "\n".join(lines)


def section(text: str) -> str:
    """The reference section of a docs/python.md text ("" when it has none)."""
    at = text.find("\n" + HEAD + "\n")
    if at < 0:
        return ""
    end = text.find("\n## ", at + 1)
    return text[at + 1:] if end < 0 else text[at + 1:end + 1]


def main(argv: List[str]) -> int:
    ref = reference()
    if not argv:
        sys.stdout.write(ref)
        return 0
    with open(argv[0]) as f:
        text = f.read()
    old = section(text)
    text = text.replace(old, ref) if old else text.rstrip("\n") + "\n\n" + ref
    with open(argv[0], "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
