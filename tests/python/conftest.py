# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of the Python tests: a namespace and a domain of their own per test."""
import hashlib
import importlib.util
import os
import sys
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/mcx_timeouts.py
if importlib.util.find_spec("mcapi") is None:  # not installed: the source tree's package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))


@pytest.fixture
def domain(request, monkeypatch):
    """A domain id and an MCX_NAMESPACE (at most 35 characters) that no other test uses."""
    base = os.environ.get("MCX_NAMESPACE", "pytest")[:24]
    tag = hashlib.md5(request.node.nodeid.encode()).hexdigest()[:8]
    monkeypatch.setenv("MCX_NAMESPACE", f"{base}_{tag}")
    return 1 + zlib.crc32(request.node.nodeid.encode()) % 1000
